"""Per-offset move tables: for one velocity, what happens to a car moving from every road node.

The solver asks the same question millions of times: "a car at road node p moves by
(dx, dy): is that on the road, which gates does it cross, and if it leaves the road where
does the penalty put it?". For a given offset the answer for every road node is one row
of numpy arrays, built once per track and rule set by :class:`MoveTables` and kept in 2-D
arrays ``[offset row, road node]`` so that the solver can look up many (offset, node)
pairs with one gather.

One builder makes the rows: the compiled kernels ``cell_rows`` (every track) and, on
outlines first, ``polygon_rows`` (:mod:`game.drivers.kernels`). It covers every track
the game loads: char maps (integer cells) and outlines (snapped to 1/64 of a square),
whose gate coordinates are multiples of 1/1024, with up to 51 gates (the format's limit;
a signature code names 63). A move with more gate events than a code holds (9) is asked
again of the same kernel, node by node, and its events spelt out. Tests compare the rows
with a slow reference built from the referee's own calls (``tests/move_rows_reference.py``).

Road nodes are numbered in row-major order (``road_index``); cars only ever stand on
road nodes (a crash puts them back on one). Everything mirrors the referee
(:mod:`game.core.race`) exactly: on-road legality is the region's own definition (the
cells of :func:`cells_along` in a padded road grid for a ``CellRegion``, the outline's
exact edge tests for a ``PolygonRegion``); gate crossings use :meth:`Gate.crossing`'s
arithmetic in integers; the crash point of an off-road move is where it first leaves the
road and the restart node is ``track.nearest_road_node`` of it.

An *event signature* is the tuple of ``(gate index, direction)`` crossings of a move in
the order the referee counts them (gate 0 is the finish, 1.. the checkpoints), followed
for penalised moves by the gates the restart puts the car back across.
"""

from __future__ import annotations

import threading
from fractions import Fraction

import numpy as np

from game.core.geometry import SNAP, CellRegion, Gate, PolygonRegion, cells_along
from game.core.rules import RuleSet
from game.core.track import Track
from game.core.terrain import Terrain
from game.drivers.codes import (EVENT_BITS, MAX_CODED_GATES, GateArrays, MoveRules, Moves, Outline, RowsOut, Sheet,
                                Walks)

SCALE = 1024  # gate coordinates times this are integers on every track the game loads

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
        self._edges: OutlineEdges | None = None
        self._gate_data = None
        _check_track(track, self._int_gates)

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
        self._build(kernels, first, new)
        start, stop = first * self.n_road, len(self.offsets) * self.n_road
        kernels.pack_rows(self.target, self.inside, self.paper, self.sig, self.packed, start, stop)

    def _kernels(self, work: int):
        """The compiled kernels (from the kernel source: it waits while they load or compile)."""
        if self.kernels is None:
            # Lazy on purpose: numba loads only when a table is built.
            from game.drivers.kernel_source import compiled_kernels
            return compiled_kernels()
        return self.kernels.current(work)

    def _build(self, kernels, first: int, offsets: list[tuple[int, int]]) -> None:
        """Rows ``first, first + 1, ...`` of ``offsets`` by the compiled ``polygon_rows`` and ``cell_rows``."""
        n, w, h = self.n_road, self.width, self.height
        count = len(offsets)
        dxs = np.array([o[0] for o in offsets], dtype=np.int64)
        dys = np.array([o[1] for o in offsets], dtype=np.int64)
        walks = [cells_along(dx, dy) for dx, dy in offsets]
        grid, pad = self._padded_road(max(max(abs(dx), abs(dy)) for dx, dy in offsets) + 1)
        outline = self._outline(kernels, count, dxs, dys)
        cell_start = np.zeros(count + 1, dtype=np.int64)
        cell_start[1:] = np.cumsum([len(c) for c in walks])
        flat = [c for walk in walks for c in walk]
        cells = Walks(cell_start, np.array([c[0] for c in flat], dtype=np.int64),
                      np.array([c[1] for c in flat], dtype=np.int64),
                      np.array([c[2].numerator for c in flat], dtype=np.int64),
                      np.array([c[2].denominator for c in flat], dtype=np.int64))
        kind, ints, floats, numbers, gate_cells = self._gate_arrays()
        is_open = np.ones((count, len(self.gates)), dtype=bool)
        entered = np.array([gate.entered for gate in self.gates], dtype=bool)
        for gi, gate in enumerate(self.gates):
            if not gate.is_line and gate.forward is not None:
                fx, fy = Fraction(gate.forward[0]), Fraction(gate.forward[1])
                is_open[:, gi] = [dx * fx + dy * fy > 0 for dx, dy in offsets]
        self.reset[first * n:(first + count) * n] = NO_NODE  # the kernel writes punished moves only
        out = RowsOut(self.target, self.paper, self.inside, np.zeros(count * n, dtype=np.int64), self.reset,
                      np.zeros(count * n, dtype=np.int64), np.zeros(count * n, dtype=bool),
                      -1, np.zeros((4, 2 * len(self.gates) + 1), dtype=np.int64), np.zeros(2, dtype=np.int64))
        args = (np.arange(first, first + count, dtype=np.int64), dxs, dys, cells,
                Sheet(self.xs, self.ys, self.road_index, w, h, grid, pad), outline,
                GateArrays(kind, ints, floats, numbers, gate_cells, is_open, entered), MoveRules.of(self.rules))
        self._split(kernels.cell_rows, count, n, *args, out)
        span = slice(first * n, (first + count) * n)
        self.sig[span] = self._code_ids(out.sig_code)
        self.csig[span] = self._code_ids(out.csig_code) if self.needs_reset else 0
        for rel in np.flatnonzero(out.slow).tolist():  # rare: more gate events than a code holds
            self._spell_out(kernels, args, out, first, *divmod(rel, n))

    def _outline(self, kernels, count: int, dxs: np.ndarray, dys: np.ndarray) -> Outline:
        """On an outline, the exact on-road test and exit fraction of every move (``polygon_rows``)."""
        if not isinstance(self.track.region, PolygonRegion):
            return Outline(False, np.zeros(0, dtype=bool), np.zeros(0, dtype=np.int64), np.ones(0, dtype=np.int64))
        n, region = self.n_road, self.track.region
        if self._edges is None:
            self._edges = OutlineEdges(region, self.xs, self.ys)
        edges = self._edges
        wedge_out = np.stack([region._in_wedge(float(dx * SNAP), float(dy * SNAP), edges.vertices)
                              for dx, dy in zip(dxs.tolist(), dys.tolist())])
        wedge_in = np.stack([region._in_wedge(float(-dx * SNAP), float(-dy * SNAP), edges.vertices)
                             for dx, dy in zip(dxs.tolist(), dys.tolist())])
        outline = Outline(True, np.zeros(count * n, dtype=bool), np.zeros(count * n, dtype=np.int64),
                          np.ones(count * n, dtype=np.int64))
        self._split(kernels.polygon_rows, count, n, dxs, dys, SNAP, edges.a, edges.b, edges.lo, edges.hi,
                    edges.index, self.xs, self.ys, wedge_out, wedge_in, outline.inside, outline.num, outline.den)
        return outline

    def _spell_out(self, kernels, args, out: RowsOut, first: int, i: int, r: int) -> None:
        """The signatures of the move of batch row i from node r, asked of ``cell_rows`` again for that node alone."""
        kernels.cell_rows(i, i + 1, *args, out._replace(only=r))
        n_ev, m = out.counts.tolist()
        events = out.events.tolist()
        at = (first + i) * self.n_road + r
        self.sig[at] = self.sig_id(tuple(zip(events[0][:n_ev], events[1][:n_ev])))
        if self.needs_reset and self.reset[at] != NO_NODE:
            self.csig[at] = self.sig_id(tuple(zip(events[2][:m], events[3][:m])))

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
        """Signature ids of the row builder's event codes (EVENT_BITS an event, first event lowest)."""
        out = np.zeros(len(codes), dtype=np.int32)  # code 0: no event, signature id 0
        crossing = np.flatnonzero(codes)
        if not len(crossing):
            return out
        uniq, inverse = np.unique(codes[crossing], return_inverse=True)
        ids = np.empty(len(uniq), dtype=np.int32)
        for k, code in enumerate(uniq.tolist()):
            events = []
            while code:
                digit = code % (1 << EVENT_BITS) - 1
                events.append((digit // 2, 1 if digit % 2 else -1))
                code >>= EVENT_BITS
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

    @staticmethod
    def _integer_gate(gate: Gate):
        if not gate.is_line:
            return None
        values = (*gate.a, *gate.b, *gate.forward)
        scaled = [v * SCALE for v in values]
        if all(float(s).is_integer() and abs(s) < 2 ** 40 for s in scaled):
            return tuple(int(s) for s in scaled)
        return None


def _check_track(track: Track, int_gates: list) -> None:
    """Refuse a track the row builder cannot read, saying why (no track the game loads is one)."""
    region = track.region
    if not isinstance(region, (CellRegion, PolygonRegion)):
        raise ValueError(f"track {track.id!r}: move rows need a char map or an outline, not a {type(region).__name__}")
    gates = (track.finish, *track.checkpoints)
    if len(gates) > MAX_CODED_GATES:
        raise ValueError(f"track {track.id!r} has {len(gates)} gates; move rows hold up to {MAX_CODED_GATES}")
    for gate, ints in zip(gates, int_gates):
        if gate.is_line and ints is None:
            raise ValueError(f"track {track.id!r}: gate {gate.number}'s ends and normal must be multiples of "
                             f"1/{SCALE} (tracks from packs and maps always are)")
    if isinstance(region, PolygonRegion) and not np.array_equal(np.rint(region._a * SNAP), region._a * SNAP):
        raise ValueError(f"track {track.id!r}: outline points must be multiples of 1/{SNAP} (loaded outlines are)")


class OutlineEdges:
    """An outline's border edges as ``kernels.polygon_rows`` reads them (coordinates times :data:`SNAP`).

    ``a``/``b``: each edge's ends, integers; ``lo``/``hi``: its box in squares; ``index``:
    the road node at each grid node (-1 off the road); ``vertices``: every vertex, for
    ``PolygonRegion._in_wedge``.
    """

    def __init__(self, region: PolygonRegion, xs: np.ndarray, ys: np.ndarray) -> None:
        self.a = np.rint(region._a * SNAP).astype(np.int64)
        self.b = np.rint(region._b * SNAP).astype(np.int64)
        self.lo = np.minimum(region._a, region._b)  # edge boxes in squares (exact: 1/64 multiples)
        self.hi = np.maximum(region._a, region._b)
        self.index = np.full((region.height, region.width), -1, dtype=np.int64)
        self.index[ys, xs] = np.arange(len(xs))
        self.vertices = np.arange(len(self.a))
