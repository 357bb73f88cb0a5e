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

FAR = 1e9
#: Score noise (squares, one standard deviation) per level.
FINE_NOISE = {"cpu:champion": 0.0, "cpu:pro": 0.6, "cpu:rookie": 1.5}
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


def _build_field(track: Track, fine_gate) -> np.ndarray:
    """Chebyshev road distance (squares) to ``fine_gate`` on the coarse squares of ``track``."""
    k = track.scale
    road = np.asarray(track.region.road_nodes(), dtype=bool)[::k, ::k]
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


class FineDriver:
    """A safe heuristic CPU for fine paper (see the module docstring); ``noise`` sets the level."""

    is_human = False

    def __init__(self, kind: str = "cpu:champion", route: CoarseRoute | None = None) -> None:
        self.kind = kind
        self.noise = FINE_NOISE.get(kind, 0.0)
        self.route = route if route is not None else CoarseRoute()

    def choose(self, state: RaceState, car: int, committed: Mapping[int, Choice], rng: random.Random) -> Choice:
        cands = [c for c in state.candidates(car, committed) if c.legal]
        if not cands:
            return RETIRE
        here = state.cars[car].position
        scored = sorted(cands, key=lambda c: (self.score(state, car, c) + (rng.gauss(0.0, self.noise)
                                                                          if self.noise else 0.0),
                                              c.node.y, c.node.x))
        for cand in scored:
            if not cand.offroad and self.safe(state, cand.node, cand.node - here):
                return cand.node
        # Nothing is safe any more (a rival forced us, or rules changed): least bad on-road target.
        on_road = [c for c in scored if not c.offroad]
        return (on_road or scored)[0].node

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

    def score(self, state: RaceState, car: int, cand: Candidate) -> float:
        """Lower is better: finishing, then passing the due gate, then fewer squares left to it."""
        c = state.cars[car]
        track = state.track
        node = cand.node
        if cand.offroad or not track.on_road(node):
            return FAR / 2
        gates = self.route.gates(track)
        n = len(track.checkpoints)
        ordered = state.rules.checkpoints == "ordered" or not c.progress.balance
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
