"""Per-offset move tables: for one velocity, what happens to a car moving from every road node.

The solver and the CPU drivers ask the same question millions of times: "a car at road
node p moves by (dx, dy): is that on the road, which gates does it cross, and if it
leaves the road where does the penalty put it?". For a given offset the answer for every
road node is one row of numpy arrays, built once per track and rule set by
:class:`MoveTables` and kept in 2-D arrays ``[offset row, road node]`` so that the solver
can look up many (offset, node) pairs with one gather. Rows are built in batches by the
compiled kernels ``cell_rows`` and ``polygon_rows`` (:mod:`game.drivers.kernels`); the
numpy code below is the same arithmetic, kept as the reference the tests compare with
and used where the kernels do not apply: gates whose coordinates are not multiples of
1/1024, more than 31 gates, regions that are neither char maps nor outlines, and moves
with more than 10 gate events (those rows are rebuilt here).

Road nodes are numbered in row-major order (``road_index``); cars only ever stand on
road nodes (a crash puts them back on one). Everything mirrors the referee
(:mod:`game.core.race`) exactly:

- on-road legality of a segment comes from the track region (for a ``CellRegion`` by
  looking up the cells of :func:`cells_along` in a padded road grid, which is the
  region's own definition; for any other region by ``region.segments_inside``);
- gate crossings use :meth:`Gate.crossing`'s arithmetic, done in integers when the gate
  coordinates are multiples of 1/1024 (always, for char maps and snapped outlines) and
  by calling ``Gate.crossing`` otherwise;
- the crash point of an off-road move is where it first leaves the road
  (``region.exit_fractions``, exact) and the restart node is
  ``track.nearest_road_nodes`` of it, as the referee's ``nearest_road_node``.

An *event signature* is the tuple of ``(gate index, direction)`` crossings of a move in
the order the referee counts them (gate 0 is the finish, 1.. the checkpoints), followed
for penalised moves by the gates the restart puts the car back across.
"""

from __future__ import annotations

import threading
from fractions import Fraction

import numpy as np

from game.core.geometry import SNAP, CellRegion, Gate, PolygonRegion, cells_along
from game.core.rules import OffroadCheck, RuleSet
from game.core.track import Track
from game.core.terrain import Terrain
from game.core.vec import Vec
from game.drivers.codes import GateArrays, MoveRules, Moves, Outline, RowsOut, Sheet, Walks

SCALE = 1024  # gate coordinates times this are integers on every track we know

Signature = tuple[tuple[int, int], ...]

NO_NODE = -1  # target or restart that is not a road node
PARALLEL_PAIRS = 50_000  # (row, node) pairs from which the compiled builder splits a batch between two threads
RESERVE_BYTES = 160_000_000  # room reserved up front for move rows (and, in the solver, for its search lists)
ROW_BYTES = 26  # bytes a (row, node) pair takes: target, paper, inside, sig, reset, csig, packed
#: Terrain kinds that change the velocity of a move ending on them, in landing-code order.
LANDING_KINDS = (Terrain.SAND, Terrain.MUD, Terrain.CURB)


class MoveTables:
    """Lazily built rows, one per offset, for one track under one rule set.

    Row ``o = row(dx, dy)`` holds, for every road node ``r``:

    - ``target[o, r]``: road index of ``r + (dx, dy)`` (``NO_NODE`` when that node is off
      the road or off the sheet); ``paper[o, r]``: the target is on the sheet;
    - ``inside[o, r]``: the whole segment stays on the road (and ends on it);
    - ``sig[o, r]``: signature id of the whole move (0: crosses nothing);
    - ``reset[o, r]`` / ``csig[o, r]``: for a move the rules punish, the restart road
      node and the signature up to the crash plus the restart (only under reset-type
      penalties; ``NO_NODE`` elsewhere).

    The arrays are flat with stride ``n_road`` and grow as rows are added: read them
    through the attributes after calling :meth:`row`, never keep old references.
    """

    def __init__(self, track: Track, rules: RuleSet, kernels=None) -> None:
        track = track.for_rules(rules)  # terrain = "offroad": every terrain off the road
        self.track = track
        self.rules = rules
        self.kernels = kernels  # a kernel source (game.drivers.compiling); None: the compiled kernels
        self.width, self.height = track.width, track.height
        road = np.asarray(track.region.road_nodes(), dtype=bool)
        self.road = road
        ys, xs = np.nonzero(road)  # row-major numbering
        self.xs, self.ys = xs.astype(np.int64), ys.astype(np.int64)
        self.n_road = len(xs)
        self.road_index = np.full(self.width * self.height, NO_NODE, dtype=np.int32)
        self.road_index[ys * self.width + xs] = np.arange(self.n_road, dtype=np.int32)
        self._terrain(track, rules)
        self.gates: tuple[Gate, ...] = (track.finish, *track.checkpoints)
        self.signatures: list[Signature] = [()]
        self._sig_ids: dict[Signature, int] = {(): 0}
        self._int_gates = [self._integer_gate(g) for g in self.gates]
        self.needs_reset = rules.crash_stops_car
        self._rows: dict[tuple[int, int], int] = {}
        self.offsets: list[tuple[int, int]] = []
        self._cap = 0
        self.target = np.zeros(0, dtype=np.int32)
        self.paper = np.zeros(0, dtype=bool)
        self.inside = np.zeros(0, dtype=bool)
        self.sig = np.zeros(0, dtype=np.int32)
        self.reset = np.zeros(0, dtype=np.int32)
        self.csig = np.zeros(0, dtype=np.int32)
        # target + 1, inside << 32, paper << 33 and sig << 34 in one number: the solver's
        # kernels read a move with one memory access instead of four
        self.packed = np.zeros(0, dtype=np.int64)
        self.speed = np.zeros(0, dtype=np.int64)  # [row]: the speed (larger axis) of the row's velocity
        self._pad = 0
        self._padded: np.ndarray | None = None
        self._polygon: PolygonMoves | None = None
        self._exits: tuple[np.ndarray, np.ndarray] | None = None
        self._compiled: bool | None = None
        self._gate_data = None

    def _terrain(self, track: Track, rules: RuleSet) -> None:
        """Each road node's terrain as the kernels read it (see :class:`~game.drivers.codes.Moves`)."""
        self.land = np.zeros(self.n_road, dtype=np.int8)
        self.ice = np.zeros(self.n_road, dtype=np.bool_)
        #: The terrain kind of each landing code's column (code c: ``land_kinds[c - 1]``).
        self.land_kinds: tuple[Terrain, ...] = ()
        if not rules.terrain_effects or not track.terrain:
            return
        masks = track.terrain_nodes()
        self.land_kinds = tuple(kind for kind in LANDING_KINDS if kind in masks)
        for code, kind in enumerate(self.land_kinds, start=1):
            self.land[masks[kind][self.ys, self.xs]] = code
        if Terrain.ICE in masks:
            self.ice[:] = masks[Terrain.ICE][self.ys, self.xs]

    @property
    def has_terrain(self) -> bool:
        """Whether some road node has an effect (the kernels then read the terrain tables)."""
        return bool(self.land_kinds) or bool(self.ice.any())

    def kernel_moves(self) -> Moves:
        """The rows and the terrain as the search kernels take them (made anew: the arrays grow)."""
        return Moves(self.packed, self.reset, self.csig, self.land, self.ice, self.speed)

    # -- signatures ---------------------------------------------------------
    def sig_id(self, sig: Signature) -> int:
        found = self._sig_ids.get(sig)
        if found is None:
            found = self._sig_ids[sig] = len(self.signatures)
            self.signatures.append(sig)
        return found

    # -- rows ---------------------------------------------------------------
    def row(self, dx: int, dy: int) -> int:
        """The row of offset (dx, dy), built on first use."""
        found = self._rows.get((dx, dy))
        if found is None:
            self.build_rows([(dx, dy)])
            found = self._rows[(dx, dy)]
        return found

    def has_row(self, dx: int, dy: int) -> bool:
        """Whether the row of offset (dx, dy) is built already."""
        return (dx, dy) in self._rows

    def build_rows(self, offsets) -> None:
        """Build the rows of every offset in ``offsets`` not built yet, together (faster than one by one)."""
        new = [o for o in dict.fromkeys(offsets) if o not in self._rows]
        if not new:
            return
        first = len(self.offsets)
        for k, offset in enumerate(new):
            self._rows[offset] = first + k
            self.offsets.append(offset)
        self._grow(len(self.offsets))
        self.speed[first:len(self.offsets)] = [max(abs(dx), abs(dy)) for dx, dy in new]
        kernels = self._kernels(len(new) * self.n_road)
        if kernels.compiled and self._compiled_ok():
            self._build_compiled(first, new)
        else:  # the numpy reference: also what runs while the kernels are still being compiled
            for k, (dx, dy) in enumerate(new):
                self._build(first + k, dx, dy)
        start, stop = first * self.n_road, len(self.offsets) * self.n_road
        if kernels.compiled:
            kernels.pack_rows(self.target, self.inside, self.paper, self.sig, self.packed, start, stop)
        else:
            self._pack(start, stop)

    def _kernels(self, work: int):
        if self.kernels is None:
            # Lazy on purpose: numba loads only when a table is built by the compiled kernels.
            from game.drivers import kernels
            return kernels
        return self.kernels.current(work)

    def _pack(self, start: int, stop: int) -> None:
        """``kernels.pack_rows`` in numpy (while the compiled one is not ready)."""
        self.packed[start:stop] = ((self.target[start:stop].astype(np.int64) + 1)
                                   | (self.inside[start:stop].astype(np.int64) << 32)
                                   | (self.paper[start:stop].astype(np.int64) << 33)
                                   | (self.sig[start:stop].astype(np.int64) << 34))

    def _compiled_ok(self) -> bool:
        """Whether the compiled row builder applies: a char map or an outline, with line gates integer in 1/1024."""
        if self._compiled is None:
            # Lazy on purpose: see _kernels.
            from game.drivers.kernels import MAX_CODED_GATES
            self._compiled = (isinstance(self.track.region, (CellRegion, PolygonRegion))
                              and len(self.gates) <= MAX_CODED_GATES  # events are coded in 6 bits
                              and all(g.is_line is False or ints is not None
                                      for g, ints in zip(self.gates, self._int_gates)))
        return self._compiled

    def _build_compiled(self, first: int, offsets: list[tuple[int, int]]) -> None:
        """Rows ``first, first + 1, ...`` of ``offsets`` by :func:`game.drivers.kernels.cell_rows`."""
        from game.drivers.kernels import cell_rows
        n, w, h = self.n_road, self.width, self.height
        count = len(offsets)
        walks = [cells_along(dx, dy) for dx, dy in offsets]
        reach = max(max(abs(dx), abs(dy)) for dx, dy in offsets) + 1
        grid, pad = self._padded_road(reach)
        given = isinstance(self.track.region, PolygonRegion)
        given_inside = np.zeros(count * n if given else 0, dtype=bool)
        given_num = np.zeros(count * n if given else 0, dtype=np.int64)
        given_den = np.ones(count * n if given else 0, dtype=np.int64)
        if given:  # outlines: the exact polygon tests first (PolygonMoves' arithmetic, compiled)
            from game.drivers.kernels import polygon_rows
            if self._polygon is None:
                self._polygon = PolygonMoves(self.track.region, self.xs, self.ys)
            poly, region = self._polygon, self.track.region
            wedge_out = np.stack([region._in_wedge(float(dx * SNAP), float(dy * SNAP), poly.vertices)
                                  for dx, dy in offsets])
            wedge_in = np.stack([region._in_wedge(float(-dx * SNAP), float(-dy * SNAP), poly.vertices)
                                 for dx, dy in offsets])
            self._split(polygon_rows, count, n, np.array([o[0] for o in offsets], dtype=np.int64),
                        np.array([o[1] for o in offsets], dtype=np.int64), SNAP, poly.a, poly.b, poly.lo, poly.hi,
                        poly.index, self.xs, self.ys, wedge_out, wedge_in, given_inside, given_num, given_den)
        cell_start = np.zeros(count + 1, dtype=np.int64)
        cell_start[1:] = np.cumsum([len(c) for c in walks])
        flat = [c for walk in walks for c in walk]
        cell_x = np.array([c[0] for c in flat], dtype=np.int64)
        cell_y = np.array([c[1] for c in flat], dtype=np.int64)
        cell_tn = np.array([c[2].numerator for c in flat], dtype=np.int64)
        cell_td = np.array([c[2].denominator for c in flat], dtype=np.int64)
        gates = self._gate_arrays()
        kind, ints, floats, numbers, cells = gates
        is_open = np.ones((count, len(self.gates)), dtype=bool)
        entered = np.array([gate.entered for gate in self.gates], dtype=bool)
        for gi, gate in enumerate(self.gates):
            if not gate.is_line and gate.forward is not None:
                fx, fy = Fraction(gate.forward[0]), Fraction(gate.forward[1])
                is_open[:, gi] = [dx * fx + dy * fy > 0 for dx, dy in offsets]
        rows = np.arange(first, first + count, dtype=np.int64)
        self.reset[first * n:(first + count) * n] = NO_NODE  # the kernel writes punished moves only
        sig_code = np.zeros(count * n, dtype=np.int64)
        csig_code = np.zeros(count * n, dtype=np.int64)
        slow = np.zeros(count * n, dtype=bool)
        args = (rows, np.array([o[0] for o in offsets], dtype=np.int64), np.array([o[1] for o in offsets], dtype=np.int64),
                Walks(cell_start, cell_x, cell_y, cell_tn, cell_td),
                Sheet(self.xs, self.ys, self.road_index, w, h, grid, pad),
                Outline(given, given_inside, given_num, given_den),
                GateArrays(kind, ints, floats, numbers, cells, is_open, entered),
                MoveRules.of(self.rules),
                RowsOut(self.target, self.paper, self.inside, sig_code, self.reset, csig_code, slow))
        self._split(cell_rows, count, n, *args)
        span = slice(first * n, (first + count) * n)
        self.sig[span] = self._code_ids(sig_code)
        self.csig[span] = self._code_ids(csig_code) if self.needs_reset else 0
        for k in np.unique(np.flatnonzero(slow) // n).tolist():  # rare: let the numpy path do the whole row
            self._build(first + k, *offsets[k])

    @staticmethod
    def _split(kernel, count: int, n: int, *args) -> None:
        """Run ``kernel(first, last, *args)`` over rows 0..count, on two threads when the batch is big.

        Rows are independent and each writes its own part of the outputs.
        """
        if count >= 2 and count * n >= PARALLEL_PAIRS:
            half = count // 2
            failed: list[BaseException] = []

            def second_half() -> None:
                try:
                    kernel(half, count, *args)
                except BaseException as error:  # noqa: BLE001 - raised again in the calling thread
                    failed.append(error)

            helper = threading.Thread(target=second_half, name="move-rows")
            helper.start()
            try:
                kernel(0, half, *args)
            finally:
                helper.join()
            if failed:  # half-built rows must never be read
                raise failed[0]
        else:
            kernel(0, count, *args)

    def _gate_arrays(self):
        """The gates as arrays for the compiled row builder (made once)."""
        if self._gate_data is None:
            g = len(self.gates)
            kind = np.array([0 if gate.is_line else 1 for gate in self.gates], dtype=np.int64)
            ints = np.zeros((g, 6), dtype=np.int64)
            floats = np.zeros((g, 6), dtype=np.float64)
            cells = np.zeros((g, self.height, self.width), dtype=bool)
            for gi, gate in enumerate(self.gates):
                if gate.is_line:
                    ints[gi] = self._int_gates[gi]
                    floats[gi] = (*gate.a, *gate.b, *gate.forward)
                else:
                    for cx, cy in gate.cells:
                        if 0 <= cx < self.width and 0 <= cy < self.height:
                            cells[gi, cy, cx] = True
            numbers = np.array([gate.number for gate in self.gates], dtype=np.int64)
            self._gate_data = (kind, ints, floats, numbers, cells)
        return self._gate_data

    def _code_ids(self, codes: np.ndarray) -> np.ndarray:
        """Signature ids of the compiled builder's event codes (6 bits an event, first event lowest)."""
        out = np.zeros(len(codes), dtype=np.int32)  # code 0: no event, signature id 0
        crossing = np.flatnonzero(codes)
        if not len(crossing):
            return out
        uniq, inverse = np.unique(codes[crossing], return_inverse=True)
        ids = np.empty(len(uniq), dtype=np.int32)
        for k, code in enumerate(uniq.tolist()):
            events = []
            while code:
                digit = code % 64 - 1
                events.append((digit // 2, 1 if digit % 2 else -1))
                code //= 64
            ids[k] = self.sig_id(tuple(events))
        out[crossing] = ids[inverse.reshape(-1)]
        return out

    def _grow(self, rows: int) -> None:
        if rows <= self._cap:
            return
        # Room for many rows at once (up to RESERVE_BYTES): np.empty only reserves it on
        # Linux, memory is touched as rows are written, while each regrowth copies every row.
        n = self.n_road
        cap = max(16, min(1024, RESERVE_BYTES // (ROW_BYTES * max(n, 1))), 2 * self._cap, rows)
        for name in ("target", "paper", "inside", "sig", "reset", "csig", "packed"):
            old = getattr(self, name)
            new = np.empty(cap * n, dtype=old.dtype)  # every row is written whole when it is built
            new[:len(old)] = old
            setattr(self, name, new)
        speed = np.zeros(cap, dtype=np.int64)
        speed[:len(self.speed)] = self.speed
        self.speed = speed
        self._cap = cap

    def _padded_road(self, reach: int) -> tuple[np.ndarray, int]:
        """The road grid with a border of off-road cells at least ``reach`` wide, flattened."""
        if self._padded is None or reach > self._pad:
            pad = max(reach, 2 * self._pad, 8)
            grid = np.zeros((self.height + 2 * pad, self.width + 2 * pad), dtype=bool)
            grid[pad:pad + self.height, pad:pad + self.width] = self.road
            self._padded, self._pad = grid.ravel(), pad
        return self._padded, self._pad

    def _build(self, o: int, dx: int, dy: int) -> None:
        n, w, h = self.n_road, self.width, self.height
        xs, ys = self.xs, self.ys
        qx, qy = xs + dx, ys + dy
        paper = (qx >= 0) & (qx < w) & (qy >= 0) & (qy < h)
        target = np.full(n, NO_NODE, dtype=np.int32)
        target[paper] = self.road_index[(qy * w + qx)[paper]]
        region = self.track.region
        first_bad = None
        self._exits = None
        cells = cells_along(dx, dy)
        if isinstance(region, CellRegion):
            grid, pad = self._padded_road(max(abs(dx), abs(dy)) + 1)
            stride = w + 2 * pad
            base = (ys + pad) * stride + (xs + pad)
            inside = np.ones(n, dtype=bool)
            first_bad = np.full(n, -1, dtype=np.int32)
            for k, (cx, cy, _) in enumerate(cells):
                if k == 0:
                    continue  # the start cell is road: every row is a road node
                cell = grid[base + (cy * stride + cx)]
                first_bad[inside & ~cell] = k
                inside &= cell
            inside &= paper
        elif isinstance(region, PolygonRegion):
            if self._polygon is None:
                self._polygon = PolygonMoves(region, xs, ys)
            inside, exit_num, exit_den = self._polygon.row(dx, dy)
            inside &= paper & (target >= 0)
            self._exits = (exit_num, exit_den)
        else:
            inside = np.zeros(n, dtype=bool)
            idx = np.flatnonzero(paper & (target >= 0))
            if len(idx):
                starts = np.stack([xs[idx], ys[idx]], axis=1)
                inside[idx] = region.segments_inside(starts, starts + np.array([dx, dy]))
        span = slice(o * n, (o + 1) * n)
        self.reset[span], self.csig[span] = NO_NODE, 0  # moves the rules do not punish
        self.target[span] = target
        self.paper[span] = paper
        self.inside[span] = inside
        self.sig[span] = self._signatures(dx, dy, paper)
        if self.needs_reset:
            check = self.rules.offroad_check
            if check == OffroadCheck.SEGMENT:
                punished = paper & ~inside
            elif check == OffroadCheck.LANDING:
                punished = paper & (target < 0)
            else:  # projection: any move may be punished, depending on the velocity before it
                punished = paper.copy()
            rows = np.flatnonzero(punished)
            if len(rows):
                reset, csig = self._crash_info(dx, dy, rows, cells, first_bad)
                self.reset[o * n + rows] = reset
                self.csig[o * n + rows] = csig

    # -- gates --------------------------------------------------------------
    @staticmethod
    def _integer_gate(gate: Gate):
        if not gate.is_line:
            return None
        values = (*gate.a, *gate.b, *gate.forward)
        scaled = [v * SCALE for v in values]
        if all(float(s).is_integer() and abs(s) < 2 ** 40 for s in scaled):
            return tuple(int(s) for s in scaled)
        return None

    def _gate_events(self, gi: int, dx: int, dy: int, rows: np.ndarray):
        """For nodes ``rows``: (direction array, t numerator, t denominator) of gate ``gi``.

        Direction 0 means no crossing. ``t = num / den`` with ``den > 0``.
        """
        gate = self.gates[gi]
        n = len(rows)
        px, py = self.xs[rows], self.ys[rows]
        if gate.is_line:
            ints = self._int_gates[gi]
            if ints is None:
                return self._python_events(gate, dx, dy, rows)
            ax, ay, bx, by, nx, ny = ints
            P, Q = px * SCALE, py * SCALE
            s_p = nx * (P - ax) + ny * (Q - ay)
            s_q = s_p + (nx * dx + ny * dy) * SCALE
            fwd = (s_p < 0) & (s_q >= 0)
            back = (s_q < 0) & (s_p >= 0)
            o_a = dx * (ay - Q) - dy * (ax - P)
            o_b = dx * (by - Q) - dy * (bx - P)
            hit = (fwd | back) & ~(np.sign(o_a) * np.sign(o_b) > 0)
            direction = np.where(hit, np.where(fwd, 1, -1), 0)
            num, den = s_p.copy(), s_p - s_q
            neg = den < 0
            num[neg], den[neg] = -num[neg], -den[neg]
            den[den == 0] = 1
            return direction, num, den
        # A cell gate: forward condition, then the first of its cells the move passes through.
        direction = np.zeros(n, dtype=np.int64)
        num = np.zeros(n, dtype=np.int64)
        den = np.ones(n, dtype=np.int64)
        if gate.forward is not None:
            fx, fy = Fraction(gate.forward[0]), Fraction(gate.forward[1])
            if dx * fx + dy * fy <= 0:
                return direction, num, den
        cellset = gate.cells
        grid = np.zeros((self.height, self.width), dtype=bool)
        for cx, cy in cellset:
            if 0 <= cx < self.width and 0 <= cy < self.height:
                grid[cy, cx] = True
        for cx, cy, t in cells_along(dx, dy)[1 if gate.entered else 0:]:
            xs, ys = px + cx, py + cy
            inside = (xs >= 0) & (xs < self.width) & (ys >= 0) & (ys < self.height)
            here = np.zeros(n, dtype=bool)
            here[inside] = grid[ys[inside], xs[inside]]
            new = here & (direction == 0)
            direction[new] = 1
            num[new], den[new] = t.numerator, t.denominator
        return direction, num, den

    def _python_events(self, gate: Gate, dx: int, dy: int, rows: np.ndarray):
        n = len(rows)
        direction = np.zeros(n, dtype=np.int64)
        num = np.zeros(n, dtype=np.int64)
        den = np.ones(n, dtype=np.int64)
        for k, r in enumerate(rows):
            p = Vec(int(self.xs[r]), int(self.ys[r]))
            hit = gate.crossing(p, Vec(p.x + dx, p.y + dy))
            if hit is not None:
                direction[k] = hit[0]
                num[k], den[k] = hit[1].numerator, hit[1].denominator
        return direction, num, den

    def _all_events(self, dx: int, dy: int, rows: np.ndarray):
        return [self._gate_events(gi, dx, dy, rows) for gi in range(len(self.gates))]

    def _signatures(self, dx: int, dy: int, on_paper: np.ndarray) -> np.ndarray:
        sig = np.zeros(self.n_road, dtype=np.int32)
        rows = np.flatnonzero(on_paper)
        events = self._all_events(dx, dy, rows)
        count = sum((e[0] != 0).astype(np.int32) for e in events)
        for gi, (direction, _, _) in enumerate(events):
            for d in (1, -1):
                single = (count == 1) & (direction == d)
                if single.any():  # a signature no move has would only be worked out for nothing
                    sig[rows[single]] = self.sig_id(((gi, d),))
        for k in np.nonzero(count > 1)[0]:
            sig[rows[k]] = self.sig_id(self._ordered(events, k, None))
        return sig

    def _ordered(self, events, k: int, stop: Fraction | None) -> Signature:
        """The crossings of row k in the referee's order: by time, then gate number."""
        items = []
        for gi, (direction, num, den) in enumerate(events):
            if direction[k] != 0:
                t = Fraction(int(num[k]), int(den[k]))
                if stop is None or t <= stop:
                    items.append((t, self.gates[gi].number, gi, int(direction[k])))
        items.sort(key=lambda item: (item[0], item[1]))
        return tuple((gi, d) for _, _, gi, d in items)

    # -- penalties ----------------------------------------------------------
    def _crash_info(self, dx: int, dy: int, rows: np.ndarray, cells, first_bad) -> tuple[np.ndarray, np.ndarray]:
        """Restart road node and signature id of penalised (on-paper) moves from road nodes ``rows``."""
        px, py = self.xs[rows], self.ys[rows]
        m = len(rows)
        stop_num = np.ones(m, dtype=np.int64)
        stop_den = np.ones(m, dtype=np.int64)
        if self.rules.offroad_check == OffroadCheck.SEGMENT:
            if first_bad is not None:
                k_arr = first_bad[rows]
                for k in np.unique(k_arr):
                    if k < 0:
                        continue
                    t = cells[int(k)][2]
                    sel = k_arr == k
                    stop_num[sel], stop_den[sel] = t.numerator, t.denominator
            elif self._exits is not None:  # outlines: worked out with the row (PolygonMoves)
                num, den = self._exits
                stop_num, stop_den = num[rows].copy(), den[rows].copy()
            else:
                starts = np.stack([px, py], axis=1)
                leaves, num, den = self.track.region.exit_fractions(starts, starts + np.array([dx, dy]))
                stop_num[leaves], stop_den[leaves] = num[leaves], den[leaves]
        # crash point = p + t * (dx, dy), correctly rounded as float(Fraction) in the referee
        cx = (px * stop_den + stop_num * dx) / stop_den
        cy = (py * stop_den + stop_num * dy) / stop_den
        crash_points = np.stack([cx, cy], axis=1)
        best = self._nearest(cx, cy, crash_points)
        csig = np.zeros(m, dtype=np.int32)
        # Signatures: crossings up to the crash, then the gates the restart puts the car back across.
        events = self._all_events(dx, dy, rows)
        counted = np.zeros(m, dtype=np.int64)
        single = np.zeros(m, dtype=np.int64)  # for one counted crossing: 2 * gate + (forward)
        for gi, (direction, num, den) in enumerate(events):
            hit = (direction != 0) & (num * stop_den <= stop_num * den)
            counted += hit
            single[hit] = 2 * gi + (direction[hit] > 0)
        any_cross = counted > 0
        back = self._teleports(cx, cy, best)  # bit gi: the restart puts the car back across gate gi
        one = counted == 1
        if one.any():  # the common case, grouped: one crossing, then the gates the restart undoes
            codes, inverse = np.unique(single[one] * (1 << len(self.gates)) + back[one], return_inverse=True)
            ids = []
            for code in codes.tolist():
                first, bits = divmod(code, 1 << len(self.gates))
                sig = ((first // 2, 1 if first % 2 else -1),)
                sig += tuple((gi, -1) for gi in range(len(self.gates)) if bits >> gi & 1)
                ids.append(self.sig_id(sig))
            csig[one] = np.array(ids, dtype=np.int32)[inverse.reshape(-1)]
        for k in np.flatnonzero(counted > 1):
            stop = Fraction(int(stop_num[k]), int(stop_den[k]))
            sig = self._ordered(events, k, stop)
            sig += self._teleport(tuple(crash_points[k]), int(best[k]))
            csig[k] = self.sig_id(sig)
        only_back = ~any_cross & (back != 0)
        if only_back.any():
            codes, inverse = np.unique(back[only_back], return_inverse=True)
            ids = np.array([self.sig_id(tuple((gi, -1) for gi in range(len(self.gates)) if int(code) >> gi & 1))
                            for code in codes], dtype=np.int32)
            csig[only_back] = ids[inverse.reshape(-1)]
        return best, csig

    def _teleports(self, cx: np.ndarray, cy: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """Vectorised :meth:`_teleport`: a bit mask of the line gates each restart jumps back across.

        The same float arithmetic as ``Gate.signed_distance`` and the referee's ``_between``.
        """
        out = np.zeros(len(cx), dtype=np.int64)
        ex, ey = self.xs[nodes].astype(float), self.ys[nodes].astype(float)
        for gi, gate in enumerate(self.gates):
            if not gate.is_line:
                continue
            (ax, ay), (nx, ny) = gate.a, gate.forward
            norm = (nx * nx + ny * ny) ** 0.5 or 1.0
            before = ((cx - ax) * nx + (cy - ay) * ny) / norm
            after = ((ex - ax) * nx + (ey - ay) * ny) / norm
            (gx, gy), (hx, hy) = gate.a, gate.b
            dx, dy = ex - cx, ey - cy
            o1 = dx * (gy - cy) - dy * (gx - cx)
            o2 = dx * (hy - cy) - dy * (hx - cx)
            hit = (before >= 0) & (0 > after) & (o1 * o2 <= 0)
            out[hit] |= 1 << gi
        return out

    def _nearest(self, cx: np.ndarray, cy: np.ndarray, points: np.ndarray) -> np.ndarray:
        """Road index of the referee's restart node of each point: the core's own search,
        ``track.nearest_road_nodes`` (the compiled rows mirror it in ``kernels._nearest_road_node``)."""
        if not len(points):
            return np.zeros(0, dtype=np.int64)
        nodes = self.track.nearest_road_nodes(points)
        return self.road_index[nodes[:, 1] * self.width + nodes[:, 0]].astype(np.int64)

    def _teleport(self, start: tuple[float, float], node: int) -> Signature:
        """Backward events for the line gates a restart moves the car back across (as the referee's _teleport)."""
        end = (float(self.xs[node]), float(self.ys[node]))
        out = []
        for gi, gate in enumerate(self.gates):
            if not gate.is_line:
                continue
            before, after = gate.signed_distance(start), gate.signed_distance(end)
            if before >= 0 > after and _between(gate, start, end):
                out.append((gi, -1))
        return tuple(out)


def _between(gate: Gate, a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Does the straight jump a-b pass between the ends of a line gate? (as the referee)"""
    (gx, gy), (hx, hy) = gate.a, gate.b
    dx, dy = b[0] - a[0], b[1] - a[1]
    o1 = dx * (gy - a[1]) - dy * (gx - a[0])
    o2 = dx * (hy - a[1]) - dy * (hx - a[0])
    return o1 * o2 <= 0


class PolygonMoves:
    """Exact on-road tests and exit fractions of all moves by one offset on an outline track.

    The same arithmetic as ``PolygonRegion.segments_inside`` and ``exit_fractions``
    (coordinates times :data:`SNAP`, all in integers), organised the other way round:
    every move shares its offset, so for each border edge the starts whose move can touch
    it fill a small box, and only those (edge, start) pairs are looked at.
    """

    def __init__(self, region: PolygonRegion, xs: np.ndarray, ys: np.ndarray) -> None:
        self.region = region
        self.a = np.rint(region._a * SNAP).astype(np.int64)
        self.b = np.rint(region._b * SNAP).astype(np.int64)
        self.lo = np.minimum(region._a, region._b)  # edge boxes in squares (exact: 1/64 multiples)
        self.hi = np.maximum(region._a, region._b)
        self.n = len(xs)
        self.width, self.height = region.width, region.height
        self.index = np.full((self.height, self.width), -1, dtype=np.int64)
        self.index[ys, xs] = np.arange(self.n)
        self.xs, self.ys = xs, ys
        self.vertices = np.arange(len(self.a))

    def _pairs(self, dx: int, dy: int) -> tuple[np.ndarray, np.ndarray]:
        """(edge, road node) pairs whose move by (dx, dy) has a box meeting the edge's box."""
        x0 = np.ceil(self.lo[:, 0] - max(dx, 0)).astype(np.int64)
        x1 = np.floor(self.hi[:, 0] - min(dx, 0)).astype(np.int64)
        y0 = np.ceil(self.lo[:, 1] - max(dy, 0)).astype(np.int64)
        y1 = np.floor(self.hi[:, 1] - min(dy, 0)).astype(np.int64)
        x0, y0 = np.maximum(x0, 0), np.maximum(y0, 0)
        x1, y1 = np.minimum(x1, self.width - 1), np.minimum(y1, self.height - 1)
        wx, wy = np.maximum(x1 - x0 + 1, 0), np.maximum(y1 - y0 + 1, 0)
        area = wx * wy
        total = int(area.sum())
        edge = np.repeat(np.arange(len(area)), area)
        k = np.arange(total) - np.repeat(np.cumsum(area) - area, area)
        wxe = wx[edge]
        nx, ny = x0[edge] + k % np.maximum(wxe, 1), y0[edge] + k // np.maximum(wxe, 1)
        node = self.index[ny, nx]
        keep = node >= 0
        return edge[keep], node[keep]

    def row(self, dx: int, dy: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For every road node: (segment inside, exit numerator, exit denominator) of its move by (dx, dy)."""
        n = self.n
        inside = np.ones(n, dtype=bool)
        num, den = np.zeros(n, dtype=np.int64), np.ones(n, dtype=np.int64)
        if dx == 0 and dy == 0:
            return inside, num, den
        edge, node = self._pairs(dx, dy)
        if not len(edge):
            return inside, num, den
        region = self.region
        S = SNAP
        px, py = self.xs[node] * S, self.ys[node] * S
        ddx, ddy = dx * S, dy * S
        qx, qy = px + ddx, py + ddy
        ax, ay = self.a[edge, 0], self.a[edge, 1]
        bx, by = self.b[edge, 0], self.b[edge, 1]
        ex, ey = bx - ax, by - ay
        o_p = ex * (py - ay) - ey * (px - ax)
        o_q = ex * (qy - ay) - ey * (qx - ax)
        o_a = ddx * (ay - py) - ddy * (ax - px)
        o_b = ddx * (by - py) - ddy * (bx - px)
        proper = (np.sign(o_p) * np.sign(o_q) < 0) & (np.sign(o_a) * np.sign(o_b) < 0)
        length2 = ddx * ddx + ddy * ddy
        along = (ax - px) * ddx + (ay - py) * ddy
        on_seg = (o_a == 0) & (along >= 0) & (along <= length2)
        at_start = on_seg & (ax == px) & (ay == py)
        at_end = on_seg & (ax == qx) & (ay == qy)
        # the wedge tests depend on the vertex only: once per border vertex, then per pair
        out_ok = region._in_wedge(float(ddx), float(ddy), self.vertices)[edge]
        in_ok = region._in_wedge(float(-ddx), float(-ddy), self.vertices)[edge]
        e_len2 = ex * ex + ey * ey
        t_p = (px - ax) * ex + (py - ay) * ey
        t_q = (qx - ax) * ex + (qy - ay) * ey
        p_on_edge = (o_p == 0) & (t_p > 0) & (t_p < e_len2)
        q_on_edge = (o_q == 0) & (t_q > 0) & (t_q < e_len2)
        goes_in = ex * ddy - ey * ddx
        bad = proper | (on_seg & ~at_end & ~out_ok) | (on_seg & ~at_start & ~in_ok)
        bad |= (p_on_edge & (goes_in < 0)) | (q_on_edge & (goes_in > 0))
        inside[node[bad]] = False
        # Exit fractions of the moves that leave (as exit_fractions' first exit): crossings,
        # corners passed with the way on outside the road, and a start heading outward.
        t_num = np.full(len(edge), -1, dtype=np.int64)
        t_den = np.ones(len(edge), dtype=np.int64)
        cn = (ax - px) * ey - (ay - py) * ex
        cd = ddx * ey - ddy * ex
        flip = cd < 0
        cn, cd = np.where(flip, -cn, cn), np.where(flip, -cd, cd)
        t_num[proper], t_den[proper] = cn[proper], cd[proper]
        corner = (o_a == 0) & (along >= 0) & (along < length2) & ~out_ok
        t_num[corner], t_den[corner] = along[corner], length2
        outward = p_on_edge & (goes_in < 0)
        t_num[outward], t_den[outward] = 0, 1
        cand = np.flatnonzero(t_num >= 0)
        cand = cand[~inside[node[cand]]]
        if len(cand):
            value = t_num[cand] / t_den[cand]
            order = np.lexsort((value, node[cand]))
            cand = cand[order]
            nodes = node[cand]
            first = np.ones(len(cand), dtype=bool)
            first[1:] = nodes[1:] != nodes[:-1]
            best = cand[first]
            num[node[best]], den[node[best]] = t_num[best], t_den[best]
            # float order can tie two different fractions: check exactly, fix the rare misses
            bn, bd = num[nodes], den[nodes]
            wrong = np.unique(nodes[t_num[cand] * bd < bn * t_den[cand]])
            for r in wrong.tolist():
                mine = cand[nodes == r]
                k = min(mine.tolist(), key=lambda c: Fraction(int(t_num[c]), int(t_den[c])))
                num[r], den[r] = t_num[k], t_den[k]
        return inside, num, den
