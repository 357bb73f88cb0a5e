"""Per-offset move tables: for one velocity, what happens to a car moving from every node.

The solver and the CPU drivers ask the same question millions of times: "a car at node
p moves by (dx, dy): is that on the road, which gates does it cross, and if it leaves
the road where does the penalty put it?". For a given offset the answer for every
start node is one numpy array, built once and cached in an :class:`OffsetTables`.

Everything here mirrors the referee (:mod:`game.core.race`) exactly:

- on-road legality of a segment comes from the track region (for a ``CellRegion`` by
  shifted ANDs of the road grid over :func:`cells_along`, which is the region's own
  definition; for any other region by ``region.segments_inside``);
- gate crossings use :meth:`Gate.crossing`'s arithmetic, done in integers when the gate
  coordinates are multiples of 1/1024 (always, for char maps and snapped outlines) and
  by calling ``Gate.crossing`` otherwise;
- the crash point of an off-road move is where the segment enters its first off-road
  cell (``exit_fraction``) and the restart node is ``track.nearest_road_node`` of it.

An *event signature* is the tuple of ``(gate index, direction)`` crossings of a move in
the order the referee counts them (gate 0 is the finish, 1.. the checkpoints), followed
for penalised moves by the gates the restart puts the car back across.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from game.core.geometry import CellRegion, Gate, cells_along
from game.core.rules import RuleSet
from game.core.track import Track

SCALE = 1024  # gate coordinates times this are integers on every track we know

Signature = tuple[tuple[int, int], ...]


@dataclass
class OffsetTable:
    """What a move by one offset does from every node (arrays indexed by flat node y*W+x).

    ``on_road``: the segment stays on the road (and ends on the paper).
    ``sig``: signature id of the whole move (0 when it crosses nothing).
    ``crash_sig`` / ``reset``: for moves leaving the road, the signature up to the crash
    plus the restart, and the flat node the penalty restarts the car on (-1 if none).
    ``on_paper``: the target node is on the sheet (off-paper targets are never legal).
    """

    on_road: np.ndarray
    on_paper: np.ndarray
    sig: np.ndarray
    crash_sig: np.ndarray | None = None
    reset: np.ndarray | None = None


class OffsetTables:
    """Lazily built :class:`OffsetTable` per offset for one track under one rule set."""

    def __init__(self, track: Track, rules: RuleSet) -> None:
        self.track = track
        self.rules = rules
        self.width, self.height = track.width, track.height
        self.road = np.asarray(track.region.road_nodes(), dtype=bool)
        self.road_flat = self.road.ravel()
        self.gates: tuple[Gate, ...] = (track.finish, *track.checkpoints)
        self.signatures: list[Signature] = [()]
        self._sig_ids: dict[Signature, int] = {(): 0}
        self._tables: dict[tuple[int, int], OffsetTable] = {}
        self._nearest: dict[tuple[float, float], int] = {}
        self._int_gates = [self._integer_gate(g) for g in self.gates]
        self.needs_reset = rules.offroad_penalty in ("reset", "reset_skip", "eliminate")
        ys, xs = np.mgrid[0:self.height, 0:self.width]
        self.xs, self.ys = xs.ravel().astype(np.int64), ys.ravel().astype(np.int64)

    # -- signatures ---------------------------------------------------------
    def sig_id(self, sig: Signature) -> int:
        found = self._sig_ids.get(sig)
        if found is None:
            found = self._sig_ids[sig] = len(self.signatures)
            self.signatures.append(sig)
        return found

    # -- tables -------------------------------------------------------------
    def get(self, dx: int, dy: int) -> OffsetTable:
        key = (dx, dy)
        table = self._tables.get(key)
        if table is None:
            table = self._tables[key] = self._build(dx, dy)
        return table

    def segment_grid(self, dx: int, dy: int) -> np.ndarray:
        """Flat bool array: the move (dx, dy) from each node stays on the road."""
        return self.get(dx, dy).on_road

    def _shifted(self, grid: np.ndarray, cx: int, cy: int, fill: bool) -> np.ndarray:
        """``out[y, x] = grid[y + cy, x + cx]`` (``fill`` outside the sheet)."""
        h, w = self.height, self.width
        out = np.full((h, w), fill, dtype=bool)
        x0, x1 = max(0, -cx), min(w, w - cx)
        y0, y1 = max(0, -cy), min(h, h - cy)
        if x0 < x1 and y0 < y1:
            out[y0:y1, x0:x1] = grid[y0 + cy:y1 + cy, x0 + cx:x1 + cx]
        return out

    def _build(self, dx: int, dy: int) -> OffsetTable:
        h, w = self.height, self.width
        cells = cells_along(dx, dy)
        on_paper = self._shifted(np.ones((h, w), dtype=bool), dx, dy, False).ravel()
        region = self.track.region
        first_bad = None
        if isinstance(region, CellRegion):
            ok = self.road.copy()
            first_bad = np.full((h, w), -1, dtype=np.int32)
            first_bad[~self.road] = 0
            for k, (cx, cy, _) in enumerate(cells):
                if k == 0:
                    continue
                cell_ok = self._shifted(self.road, cx, cy, False)
                newly = ok & ~cell_ok
                first_bad[newly] = k
                ok &= cell_ok
            on_road = ok.ravel() & on_paper
            first_bad = first_bad.ravel()
        else:
            on_road = np.zeros(h * w, dtype=bool)
            idx = np.nonzero(self.road_flat & on_paper)[0]
            if len(idx):
                starts = np.stack([self.xs[idx], self.ys[idx]], axis=1)
                ends = starts + np.array([dx, dy])
                on_road[idx] = region.segments_inside(starts, ends)
        sig = self._signatures(dx, dy, on_paper)
        table = OffsetTable(on_road=on_road, on_paper=on_paper, sig=sig)
        if self.needs_reset:
            n_all = h * w
            table.reset = np.full(n_all, -2, dtype=np.int64)  # -2: not computed yet
            table.crash_sig = np.zeros(n_all, dtype=np.int32)
            if first_bad is not None and self.rules.offroad_check == "segment":
                rows = np.nonzero(self.road_flat & on_paper & ~on_road)[0]
                self._crash_info(table, dx, dy, rows, cells, first_bad)
        return table

    def crash(self, dx: int, dy: int, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(restart node, signature id) of penalised moves by (dx, dy) from flat nodes ``rows``."""
        table = self.get(dx, dy)
        missing = rows[table.reset[rows] == -2]
        if len(missing):
            self._crash_info(table, dx, dy, np.unique(missing), cells_along(dx, dy), None)
        return table.reset[rows], table.crash_sig[rows]

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
        for cx, cy, t in cells_along(dx, dy):
            xs, ys = px + cx, py + cy
            inside = (xs >= 0) & (xs < self.width) & (ys >= 0) & (ys < self.height)
            here = np.zeros(n, dtype=bool)
            here[inside] = grid[ys[inside], xs[inside]]
            new = here & (direction == 0)
            direction[new] = 1
            num[new], den[new] = t.numerator, t.denominator
        return direction, num, den

    def _python_events(self, gate: Gate, dx: int, dy: int, rows: np.ndarray):
        from game.core.vec import Vec
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
        sig = np.zeros(self.height * self.width, dtype=np.int32)
        if dx == 0 and dy == 0:
            return sig
        rows = np.nonzero(self.road_flat & on_paper)[0]
        events = self._all_events(dx, dy, rows)
        count = sum((e[0] != 0).astype(np.int32) for e in events)
        for gi, (direction, _, _) in enumerate(events):
            for d in (1, -1):
                single = (count == 1) & (direction == d)
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
    def nearest_road(self, point: tuple[float, float]) -> int:
        """Flat index of ``track.nearest_road_node(point)`` (cached)."""
        found = self._nearest.get(point)
        if found is None:
            node = self.track.nearest_road_node(point)
            found = self._nearest[point] = node.y * self.width + node.x
        return found

    def _crash_info(self, table: OffsetTable, dx: int, dy: int, rows: np.ndarray, cells, first_bad) -> None:
        """Restart node and signature of penalised (off-road, on-paper) moves from ``rows``."""
        reset, crash_sig = table.reset, table.crash_sig
        if not len(rows):
            return
        px, py = self.xs[rows], self.ys[rows]
        segment = self.rules.offroad_check == "segment"
        if segment and first_bad is not None:
            k_arr = first_bad[rows]
            stop_num = np.zeros(len(rows), dtype=np.int64)
            stop_den = np.ones(len(rows), dtype=np.int64)
            for k in np.unique(k_arr):
                t = cells[int(k)][2]
                sel = k_arr == k
                stop_num[sel], stop_den[sel] = t.numerator, t.denominator
            # crash point = p + t * (dx, dy); its nearest road node is one of the four
            # nodes around it (the last road cell's centre is within half a diagonal).
            cxn = px * stop_den + stop_num * dx
            cyn = py * stop_den + stop_num * dy
            cx = cxn / stop_den  # correctly rounded, as float(Fraction) in the referee
            cy = cyn / stop_den
            best = np.full(len(rows), -1, dtype=np.int64)
            best_d = np.full(len(rows), np.inf)
            fx, fy = np.floor(cx).astype(np.int64), np.floor(cy).astype(np.int64)
            for oy in (0, 1):  # row-major candidate order keeps the referee's tie rule
                for ox in (0, 1):
                    nx, ny = fx + ox, fy + oy
                    inside = (nx >= 0) & (nx < self.width) & (ny >= 0) & (ny < self.height)
                    is_road = np.zeros(len(rows), dtype=bool)
                    is_road[inside] = self.road[ny[inside], nx[inside]]
                    d2 = (nx - cx) ** 2 + (ny - cy) ** 2
                    better = is_road & (d2 < best_d)
                    best[better] = (ny * self.width + nx)[better]
                    best_d[better] = d2[better]
            crash_points = np.stack([cx, cy], axis=1)
        else:
            # landing/projection checks (or polygon roads): the car is stopped at the target or exit.
            best = np.empty(len(rows), dtype=np.int64)
            crash_points = np.empty((len(rows), 2))
            stop_num = np.empty(len(rows), dtype=np.int64)
            stop_den = np.empty(len(rows), dtype=np.int64)
            from game.core.vec import Vec
            for k, r in enumerate(rows):
                p = Vec(int(self.xs[r]), int(self.ys[r]))
                q = Vec(p.x + dx, p.y + dy)
                stop = self.track.region.exit_fraction(p, q) if segment else None
                stop = Fraction(1) if stop is None else stop
                point = (float(p.x + dx * stop), float(p.y + dy * stop))
                crash_points[k] = point
                stop_num[k], stop_den[k] = stop.numerator, stop.denominator
                best[k] = self.nearest_road(point)
        reset[rows] = best
        # Signatures: crossings up to the crash, then the gates the restart puts the car back across.
        events = self._all_events(dx, dy, rows)
        counted = []
        for direction, num, den in events:
            counted.append((direction != 0) & (num * stop_den <= stop_num * den))
        any_cross = np.zeros(len(rows), dtype=bool)
        for c in counted:
            any_cross |= c
        near = self._near_line_gates(crash_points, best)
        for k in np.nonzero(any_cross | near)[0]:
            stop = Fraction(int(stop_num[k]), int(stop_den[k]))
            sig = self._ordered(events, k, stop)
            sig += self._teleport(tuple(crash_points[k]), int(best[k]))
            crash_sig[rows[k]] = self.sig_id(sig)

    def _near_line_gates(self, points: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """Rows whose crash point and restart node might lie on both sides of a line gate."""
        near = np.zeros(len(points), dtype=bool)
        nx, ny = nodes % self.width, nodes // self.width
        for gate in self.gates:
            if not gate.is_line:
                continue
            lo_x, hi_x = min(gate.a[0], gate.b[0]), max(gate.a[0], gate.b[0])
            lo_y, hi_y = min(gate.a[1], gate.b[1]), max(gate.a[1], gate.b[1])
            x0, x1 = np.minimum(points[:, 0], nx), np.maximum(points[:, 0], nx)
            y0, y1 = np.minimum(points[:, 1], ny), np.maximum(points[:, 1], ny)
            near |= (x1 >= lo_x - 1) & (x0 <= hi_x + 1) & (y1 >= lo_y - 1) & (y0 <= hi_y + 1)
        return near

    def _teleport(self, start: tuple[float, float], node: int) -> Signature:
        """Backward events for the line gates a restart moves the car back across (as the referee's _teleport)."""
        end = (float(node % self.width), float(node // self.width))
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
