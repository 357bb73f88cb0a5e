"""A CPU for fine (millimetre) paper, where the exact solver does not reach.

On fine paper the track lies on a lattice ``k`` times finer than the squares (10 by
default) and a move may change the velocity anywhere within +-``fine_range`` squares per
axis: 441 targets a move or more, and a state space a hundred times larger than the
paper game's. So this driver is a heuristic that is *guaranteed safe*, not optimal:

- a route field on the coarse squares (:class:`CoarseRoute`) gives, for every road
  node, the road distance in squares to the gate that is due (the next checkpoint, or
  the finish), growing from just behind that gate so that the field never leaks round it;
- a target is *safe* when braking as hard as the rules allow, every move, brings the
  car to rest without leaving the road (so it never has to crash later);
- the driver takes the safe target with the lowest score: passing the due gate first,
  then the fewest squares left to it. Noise on the score (seeded ``rng``) makes the
  Pro and the Rookie slower, never unsafe.

A car at rest on the road is always safe and a step along the field always exists, so
the car keeps making progress and finishes.
"""

from __future__ import annotations

import math
import random
import threading
from collections import deque
from dataclasses import replace
from typing import Mapping

import numpy as np

from game.core.race import Candidate, Choice, RaceState
from game.core.track import Track
from game.core.vec import RETIRE, ZERO, Vec
from game.drivers.levels import cpu_level

FAR = 1e9
_NEIGHBOURS = tuple((dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dx or dy)


class CoarseRoute:
    """Road distances on the coarse squares to each gate of a (fine) track, built once per gate."""

    def __init__(self) -> None:
        self._fields: dict[tuple[int, int], np.ndarray] = {}
        self._lock = threading.Lock()

    def gates(self, track: Track) -> tuple:
        """The gates in the order the fields are numbered: checkpoints, then the finish."""
        return (*track.checkpoints, track.finish)

    def field(self, track: Track, index: int) -> np.ndarray:
        key = (id(track), index)
        with self._lock:
            found = self._fields.get(key)
        if found is None:
            found = _build_field(track, self.gates(track)[index])
            with self._lock:
                self._fields[key] = found
        return found


def _coarse_gate(gate, k: int):
    if gate.is_line:
        return replace(gate, a=(gate.a[0] / k, gate.a[1] / k), b=(gate.b[0] / k, gate.b[1] / k))
    return replace(gate, cells=frozenset((x // k, y // k) for x, y in gate.cells if x % k == 0 and y % k == 0))


def _build_field(track: Track, fine_gate, road: np.ndarray | None = None) -> np.ndarray:
    """Chebyshev road distance (squares) to ``fine_gate`` on the coarse squares of ``track``.

    ``road``: the nodes the field may grow through, if not the track's road (a night CPU's
    seen road and unseen nodes, ``game.drivers.night``).
    """
    k = track.scale
    road = (np.asarray(track.region.road_nodes(), dtype=bool) if road is None else road)[::k, ::k]
    h, w = road.shape
    gate = _coarse_gate(fine_gate, k)
    dist = np.full((h, w), FAR)
    queue: deque[tuple[int, int]] = deque()
    near = None
    if gate.is_line:
        (ax, ay), (bx, by) = gate.a, gate.b
        near = (min(ax, bx) - 2, min(ay, by) - 2, max(ax, bx) + 2, max(ay, by) + 2)
        for y in range(max(0, int(near[1])), min(h, int(near[3]) + 1)):
            for x in range(max(0, int(near[0])), min(w, int(near[2]) + 1)):
                if road[y, x] and any((hit := gate.crossing(Vec(x, y), Vec(x + dx, y + dy))) is not None
                                      and hit[0] > 0 for dx, dy in _NEIGHBOURS):
                    dist[y, x] = 0.0
                    queue.append((x, y))
    else:
        for x, y in gate.cells:
            if 0 <= x < w and 0 <= y < h and road[y, x]:
                dist[y, x] = 0.0
                queue.append((x, y))
    while queue:
        x, y = queue.popleft()
        d = dist[y, x] + 1
        for dx, dy in _NEIGHBOURS:
            nx, ny = x + dx, y + dy
            if not (0 <= nx < w and 0 <= ny < h) or not road[ny, nx] or dist[ny, nx] <= d:
                continue
            if near is not None and near[0] <= x <= near[2] and near[1] <= y <= near[3] \
                    and gate.crossing(Vec(nx, ny), Vec(x, y)) is not None:
                continue  # never grow round the gate by stepping through it
            dist[ny, nx] = d
            queue.append((nx, ny))
    return dist


def _crosses_forward(gate, p: Vec, xs: np.ndarray, ys: np.ndarray, cands: list[Candidate]) -> np.ndarray:
    """Which moves from ``p`` to (xs, ys) cross ``gate`` forward, as ``gate.crossing`` says.

    Line gates are tested in floats, exact for the lattice's coordinates; a move whose
    test comes within rounding of zero, and every move near a cell gate, is asked of
    ``gate.crossing`` itself.
    """
    out = np.zeros(len(xs), dtype=bool)
    if gate.is_line:
        (ax, ay), (bx, by), (nx, ny) = gate.a, gate.b, gate.forward
        eps = 1e-9 * (abs(nx) + abs(ny) + abs(ax) + abs(ay) + abs(bx) + abs(by) + 1)
        s_p = nx * (p.x - ax) + ny * (p.y - ay)
        s_q = nx * (xs - ax) + ny * (ys - ay)
        dx, dy = xs - p.x, ys - p.y
        o_a = dx * (ay - p.y) - dy * (ax - p.x)
        o_b = dx * (by - p.y) - dy * (bx - p.x)
        out = (s_p < -eps) & (s_q > eps) & (o_a * o_b < -eps * eps)
        unsure = (abs(s_p) <= eps) | ((s_p < -eps) & (np.abs(s_q) <= eps)) | (
            (s_p < -eps) & (s_q > eps) & (np.abs(o_a * o_b) <= eps * eps))
        if s_p > eps:
            unsure[:] = False  # starting past the line, a move never crosses it forward
        rows = np.flatnonzero(unsure)
    else:
        if not gate.cells:
            return out
        cells = np.array(sorted(gate.cells), dtype=np.int64)
        lo, hi = cells.min(axis=0) - 1, cells.max(axis=0) + 1
        rows = np.flatnonzero((np.minimum(xs, p.x) <= hi[0]) & (np.maximum(xs, p.x) >= lo[0]) &
                              (np.minimum(ys, p.y) <= hi[1]) & (np.maximum(ys, p.y) >= lo[1]))
    for j in rows:
        hit = gate.crossing(p, cands[j].node)
        out[j] = hit is not None and hit[0] > 0
    return out


class FineDriver:
    """A safe heuristic CPU for fine paper (see the module docstring); ``noise`` sets the level."""

    is_human = False

    def __init__(self, kind: str = "cpu:champion", route: CoarseRoute | None = None) -> None:
        self.kind = kind
        self.noise = cpu_level(kind).fine_noise  # an unknown kind raises: never silently the Champion
        self.route = route if route is not None else CoarseRoute()

    def choose(self, state: RaceState, car: int, committed: Mapping[int, Choice], rng: random.Random) -> Choice:
        return self.choose_on(state, car, committed, rng)

    def choose_on(self, state: RaceState, car: int, committed: Mapping[int, Choice], rng: random.Random,
                  road: np.ndarray | None = None, field=None) -> Choice:
        """:meth:`choose` on the road nodes ``road`` (a bool mask; None: the track's) with the
        route fields ``field(track, index)`` (None: this driver's): a night CPU passes the road
        it has seen and its fields through it (``game.drivers.night.NightFineDriver``)."""
        cands = [c for c in state.candidates(car, committed) if c.legal]
        if not cands:
            return RETIRE
        here = state.cars[car].position
        scores = self.scores(state, car, cands, road, field)
        if self.noise:
            scores = scores + np.fromiter((rng.gauss(0.0, self.noise) for _ in cands), dtype=float, count=len(cands))
        xs = np.fromiter((c.node.x for c in cands), dtype=np.int64, count=len(cands))
        ys = np.fromiter((c.node.y for c in cands), dtype=np.int64, count=len(cands))
        ranked = [int(i) for i in np.lexsort((xs, ys, scores))]
        on_road = [i for i in ranked if not cands[i].offroad]
        stops = self.stops_on_road(state, [cands[i].node for i in on_road], [cands[i].node - here for i in on_road],
                                   road)
        hopeful = [i for i, ok in zip(on_road, stops) if ok]  # the segments are worth checking only for these
        for batch in (hopeful[:self.BATCH], hopeful[self.BATCH:]):  # the best few first, then all the others
            if not batch:
                continue
            nodes = [cands[i].node for i in batch]
            ok = self.safe_many(state, nodes, [n - here for n in nodes])
            for i, good in zip(batch, ok):
                if good:
                    return cands[i].node
        # Nothing is safe any more (a rival forced us, or rules changed): least bad on-road target.
        return cands[(on_road or ranked)[0]].node

    #: How many of the best targets' safety is checked first (one of them is nearly always safe).
    BATCH = 24

    @staticmethod
    def stops_on_road(state: RaceState, nodes: list[Vec], velocities: list[Vec],
                      road: np.ndarray | None = None) -> np.ndarray:
        """Whether every node of the hardest braking from each target lies on the road
        (``road``: these road nodes instead of the track's).

        A quick necessary condition of :meth:`safe` (which also checks the segments between).
        """
        track = state.track
        reach = state.rules.fine_range * track.scale
        road = np.asarray(track.region.road_nodes() if road is None else road, dtype=bool)
        pos = np.array([[n.x, n.y] for n in nodes], dtype=np.int64).reshape(-1, 2)
        vel = np.array([[v.x, v.y] for v in velocities], dtype=np.int64).reshape(-1, 2)
        ok = np.ones(len(nodes), dtype=bool)
        while True:
            moving = (vel != 0).any(axis=1) & ok
            if not moving.any():
                return ok
            vel[moving] -= np.clip(vel[moving], -reach, reach)
            pos[moving] += vel[moving]
            x, y = pos[:, 0], pos[:, 1]
            paper = (x >= 0) & (x < track.width) & (y >= 0) & (y < track.height)
            on = np.zeros(len(nodes), dtype=bool)
            on[paper] = road[y[paper], x[paper]]
            ok &= ~moving | on

    @staticmethod
    def safe_many(state: RaceState, nodes: list[Vec], velocities: list[Vec]) -> np.ndarray:
        """:meth:`safe` for many targets at once: braking step by step, all the moves of a step in one check."""
        track = state.track
        reach = state.rules.fine_range * track.scale
        pos = np.array([[n.x, n.y] for n in nodes], dtype=np.int64).reshape(-1, 2)
        vel = np.array([[v.x, v.y] for v in velocities], dtype=np.int64).reshape(-1, 2)
        ok = np.ones(len(nodes), dtype=bool)
        moving = np.flatnonzero((vel != 0).any(axis=1))
        while len(moving):
            v = vel[moving] - np.clip(vel[moving], -reach, reach)
            start, end = pos[moving], pos[moving] + v
            paper = (end[:, 0] >= 0) & (end[:, 0] < track.width) & (end[:, 1] >= 0) & (end[:, 1] < track.height)
            paper &= (start[:, 0] >= 0) & (start[:, 0] < track.width) & (start[:, 1] >= 0) & (start[:, 1] < track.height)
            inside = np.zeros(len(moving), dtype=bool)
            if paper.any():
                inside[paper] = track.region.segments_inside(start[paper], end[paper])
            ok[moving[~inside]] = False
            pos[moving], vel[moving] = end, v
            keep = inside & (v != 0).any(axis=1)
            moving = moving[keep]
        return ok

    @staticmethod
    def safe(state: RaceState, node: Vec, velocity: Vec) -> bool:
        """Whether braking as hard as allowed, every move, stops the car on the road from ``node``."""
        track = state.track
        reach = state.rules.fine_range * track.scale
        position, v = node, velocity
        while v != ZERO:
            v = Vec(v.x - max(-reach, min(reach, v.x)), v.y - max(-reach, min(reach, v.y)))
            nxt = position + v
            if not track.segment_on_road(position, nxt):
                return False
            position = nxt
        return True

    def scores(self, state: RaceState, car: int, cands: list[Candidate], road: np.ndarray | None = None,
               field=None) -> np.ndarray:
        """:meth:`score` of every candidate at once (the gate tests only for moves that may cross);
        ``road`` and ``field`` as in :meth:`choose_on`."""
        c = state.cars[car]
        track = state.track
        n_cands = len(cands)
        xs = np.fromiter((cand.node.x for cand in cands), dtype=np.int64, count=n_cands)
        ys = np.fromiter((cand.node.y for cand in cands), dtype=np.int64, count=n_cands)
        paper = (xs >= 0) & (xs < track.width) & (ys >= 0) & (ys < track.height)
        nodes = np.asarray(track.region.road_nodes() if road is None else road, dtype=bool)
        road = np.zeros(n_cands, dtype=bool)
        road[paper] = nodes[ys[paper], xs[paper]]
        usable = road & ~np.fromiter((cand.offroad for cand in cands), dtype=bool, count=n_cands)
        gates = self.route.gates(track)
        n = len(track.checkpoints)
        ordered = state.rules.ordered_checkpoints or not c.progress.balance
        if ordered:
            due = [min(c.progress.next_checkpoint, n)]
        else:
            due = [i for i, b in enumerate(c.progress.balance) if b <= 0] or [n]
        crosses = np.zeros((n_cands, len(due)), dtype=bool)
        for k, i in enumerate(due):
            crosses[:, k] = _crosses_forward(gates[i], c.position, xs, ys, cands)
        groups: dict[tuple[int, ...], list[int]] = {}
        for j in np.flatnonzero(usable):
            passed = tuple(i for k, i in enumerate(due) if crosses[j, k]) if crosses[j].any() else ()
            groups.setdefault(passed, []).append(int(j))
        out = np.full(n_cands, FAR / 2)
        for passed, members in groups.items():
            rows = np.asarray(members)
            if passed and passed[0] == n and c.progress.finish_debt == 0:
                if c.progress.laps_done + 1 >= state.laps:
                    out[rows] = -FAR
                    continue
                nxt = [0] if n else [n]
            elif passed and passed[0] < n:
                i = passed[0]
                nxt = [i + 1] if ordered else ([j for j in due if j != i] or [n])
            else:
                nxt = due
            to_go = np.min([self._to_go_many(track, i, xs[rows], ys[rows], field) for i in nxt], axis=0)
            out[rows] = -len(passed) * 1000.0 + to_go
        return out

    def _to_go_many(self, track: Track, index: int, xs: np.ndarray, ys: np.ndarray, field=None) -> np.ndarray:
        """:meth:`_to_go` for many fine nodes at once (``field(track, index)``: other route fields)."""
        field = (field or self.route.field)(track, index)
        k = track.scale
        h, w = field.shape
        x, y = xs / k, ys / k
        best = np.full(len(xs), FAR)
        for cy in (np.floor(y), np.ceil(y)):
            for cx in (np.floor(x), np.ceil(x)):
                inside = (cx >= 0) & (cx < w) & (cy >= 0) & (cy < h)
                value = np.full(len(xs), FAR)
                value[inside] = field[cy[inside].astype(np.int64), cx[inside].astype(np.int64)]
                reached = value < FAR
                here = value + np.maximum(np.abs(cx - x), np.abs(cy - y))
                best = np.where(reached, np.minimum(best, here), best)
        return best

    def score(self, state: RaceState, car: int, cand: Candidate) -> float:
        """Lower is better: finishing, then passing the due gate, then fewer squares left to it."""
        c = state.cars[car]
        track = state.track
        node = cand.node
        if cand.offroad or not track.on_road(node):
            return FAR / 2
        gates = self.route.gates(track)
        n = len(track.checkpoints)
        ordered = state.rules.ordered_checkpoints or not c.progress.balance
        if ordered:
            due = [min(c.progress.next_checkpoint, n)]
        else:
            due = [i for i, b in enumerate(c.progress.balance) if b <= 0] or [n]
        passed = [i for i in due if (hit := gates[i].crossing(c.position, node)) is not None and hit[0] > 0]
        if passed and passed[0] == n and c.progress.finish_debt == 0:
            if c.progress.laps_done + 1 >= state.laps:
                return -FAR
            nxt = [0] if n else [n]
        elif passed and passed[0] < n:
            i = passed[0]
            nxt = [i + 1] if ordered else ([j for j in due if j != i] or [n])
        else:
            nxt = due
        return -len(passed) * 1000.0 + min(self._to_go(track, i, node) for i in nxt)

    def _to_go(self, track: Track, index: int, node: Vec) -> float:
        """Squares from a fine node to a gate: through the best of the coarse nodes around it."""
        field = self.route.field(track, index)
        k = track.scale
        h, w = field.shape
        x, y = node.x / k, node.y / k
        best = FAR
        for cy in (math.floor(y), math.ceil(y)):
            for cx in (math.floor(x), math.ceil(x)):
                if 0 <= cx < w and 0 <= cy < h and field[cy, cx] < FAR:
                    best = min(best, float(field[cy, cx]) + max(abs(cx - x), abs(cy - y)))
        return best
