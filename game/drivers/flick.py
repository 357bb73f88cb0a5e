"""The pen-flick party mode: where a flick lands, and a CPU that flicks with a shaky hand.

In the ``flick`` movement system (``game.core.movement``) a car may go to any node
within six squares of where it stands, with no inertia. On screen a player aims a
direction and times a swinging strength meter; the pen slides to the *nearest legal
node* to the point the flick reaches (:func:`flick_point`, :func:`landing_node`).

:class:`FlickDriver` plays the same way: it picks a good node (by a route field over the
road, :class:`RouteFields`), aims at it, and its hand shakes by a seeded amount (the
``rng`` it is given), so the CPU lands near, not always on, the node it wanted.
It also plays the other movement systems (it then picks among the offered targets by
the same route field, without noise), so it never fails whatever the rules.

Pure: no pygame, no clock; randomness only through ``rng``.
"""

from __future__ import annotations

import heapq
import math
import random
import threading
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from game.core.movement import FLICK_REACH
from game.core.race import Candidate, Choice, RaceState
from game.core.rules import Movement
from game.core.track import Track
from game.core.vec import RETIRE, Vec
from game.drivers.levels import cpu_level
from game.drivers.night import night_flick_goal

Point = tuple[float, float]

FAR = 1e9
_STEPS = ((1, 0, 1.0), (-1, 0, 1.0), (0, 1, 1.0), (0, -1, 1.0),
          (1, 1, math.sqrt(2)), (1, -1, math.sqrt(2)), (-1, 1, math.sqrt(2)), (-1, -1, math.sqrt(2)))


def flick_point(position: Vec, angle: float, strength: float, reach: float = FLICK_REACH) -> Point:
    """Where a flick from ``position`` reaches: ``strength`` (0..1) of ``reach`` squares along ``angle``.

    ``angle`` is in radians on screen axes (0 = right, pi/2 = down).

    >>> flick_point(Vec(10, 10), 0.0, 0.5)
    (13.0, 10.0)
    """
    strength = max(0.0, min(1.0, strength))
    return (position.x + math.cos(angle) * strength * reach, position.y + math.sin(angle) * strength * reach)


def landing_node(candidates: tuple[Candidate, ...] | list[Candidate], point: Point, origin: Vec) -> Vec | None:
    """The legal candidate node nearest ``point`` (ties: nearer ``origin``, then top-left); None if none is legal."""
    legal = [c.node for c in candidates if c.legal]
    if not legal:
        return None
    return min(legal, key=lambda n: ((n.x - point[0]) ** 2 + (n.y - point[1]) ** 2,
                                     (n.x - origin.x) ** 2 + (n.y - origin.y) ** 2, n.y, n.x))


class RouteFields:
    """Road distances (in squares) to each gate, approached from behind; shared by every flick CPU.

    For a line gate the field grows from the nodes just behind the line, and no step
    may cross the line, so a car that has just crossed it sees the whole lap ahead
    instead of a step back. Cell gates (Karopapier checkpoints) grow from their cells.
    """

    def __init__(self) -> None:
        self._fields: dict[tuple[int, str, int], np.ndarray] = {}
        self._lock = threading.Lock()

    def gates(self, track: Track) -> tuple:
        return (*track.checkpoints, track.finish)

    def field(self, track: Track, index: int) -> np.ndarray:
        key = (id(track), track.id, index)
        with self._lock:
            found = self._fields.get(key)
        if found is None:
            found = self._build(track, self.gates(track)[index])
            with self._lock:
                if len(self._fields) > 64:
                    self._fields.clear()
                self._fields[key] = found
        return found

    @staticmethod
    def _build(track: Track, gate) -> np.ndarray:
        road = track.region.road_nodes()
        h, w = road.shape
        dist = np.full((h, w), FAR)
        heap: list[tuple[float, int, int]] = []
        near: tuple[float, float, float, float] | None = None
        if gate.is_line:
            (ax, ay), (bx, by) = gate.a, gate.b
            near = (min(ax, bx) - 2, min(ay, by) - 2, max(ax, bx) + 2, max(ay, by) + 2)
            for y in range(max(0, int(near[1])), min(h, int(near[3]) + 1)):
                for x in range(max(0, int(near[0])), min(w, int(near[2]) + 1)):
                    if not road[y, x]:
                        continue
                    p = Vec(x, y)
                    if any((hit := gate.crossing(p, Vec(x + dx, y + dy))) is not None and hit[0] > 0
                           for dx, dy, _ in _STEPS):
                        dist[y, x] = 0.0
                        heap.append((0.0, x, y))
        else:
            for x, y in gate.cells:
                if 0 <= x < w and 0 <= y < h and road[y, x]:
                    dist[y, x] = 0.0
                    heap.append((0.0, x, y))
        heapq.heapify(heap)
        while heap:
            d, x, y = heapq.heappop(heap)
            if d > dist[y, x]:
                continue
            for dx, dy, cost in _STEPS:
                nx, ny = x + dx, y + dy
                if not (0 <= nx < w and 0 <= ny < h) or not road[ny, nx]:
                    continue
                nd = d + cost
                if nd >= dist[ny, nx]:
                    continue
                if near is not None and near[0] <= x <= near[2] and near[1] <= y <= near[3] \
                        and gate.crossing(Vec(nx, ny), Vec(x, y)) is not None:
                    continue  # the field never reaches round a gate by stepping through it
                dist[ny, nx] = nd
                heapq.heappush(heap, (nd, nx, ny))
        return dist


@dataclass
class FlickDriver:
    """A CPU for the pen-flick party mode: aims at a good node, flicks with seeded noise.

    ``noise`` is how far (squares, one standard deviation) its flick lands from where it
    aimed; see :data:`game.drivers.levels.CPU_LEVELS`. ``kind`` is what replays and results show.
    """

    kind: str = "cpu:pro"
    noise: float = 0.8
    fields: RouteFields = field(default_factory=RouteFields)
    is_human: bool = False
    night: object = field(default=None, repr=False, compare=False)  # its NightDriver, once it races at night

    def choose(self, state: RaceState, car: int, committed: Mapping[int, Choice], rng: random.Random) -> Choice:
        cands = state.candidates(car, committed)
        legal = [c for c in cands if c.legal]
        if not legal:
            return RETIRE
        goal = None
        if state.rules.night:  # on the road it has seen, never the whole map (game.drivers.night)
            goal = night_flick_goal(self._night(), state, car, legal)
            if goal is None:
                here = state.cars[car].position
                goal = min(legal, key=lambda c: ((c.node - here).chebyshev(), c.node.y, c.node.x)).node
        if goal is None:
            goal = min(legal, key=lambda c: (self.score(state, car, c), c.node.y, c.node.x)).node
        if state.rules.movement != Movement.FLICK or self.noise <= 0:
            return goal
        here = state.cars[car].position
        aim = (goal.x + rng.gauss(0.0, self.noise), goal.y + rng.gauss(0.0, self.noise))
        # A flick cannot slide past its reach: the shaky point is pulled back inside it.
        dx, dy = aim[0] - here.x, aim[1] - here.y
        length = math.hypot(dx, dy)
        if length > FLICK_REACH:
            aim = (here.x + dx * FLICK_REACH / length, here.y + dy * FLICK_REACH / length)
        return landing_node(cands, aim, here) or goal

    def _night(self):
        """This CPU's night planner (made on the first night race; its memories are per race and car)."""
        from game.drivers.night import NightDriver

        with self.fields._lock:
            if self.night is None:
                self.night = NightDriver(self.kind)
            return self.night

    def score(self, state: RaceState, car: int, cand: Candidate) -> float:
        """Lower is better: finishing, then passing the gate that is due, then fewer squares to go.

        Scored from the route field and the gates alone (playing up to 113 targets through
        the referee would be slow on outline tracks); a target that leaves the road is
        scored as a last resort, since with no inertia there is nearly always a safe one.
        """
        c = state.cars[car]
        track = state.track
        node = cand.node
        if cand.offroad or not track.on_road(node):
            return FAR / 2 - (node - c.position).chebyshev()
        n = len(track.checkpoints)
        gates = self.fields.gates(track)
        ordered = state.rules.ordered_checkpoints or not c.progress.balance
        if ordered:
            due = [min(c.progress.next_checkpoint, n)]
        else:
            due = [i for i, b in enumerate(c.progress.balance) if b <= 0] or [n]
        back = gates[n].crossing(c.position, node)
        if back is not None and back[0] < 0:
            return FAR  # backwards over the finish only costs a lap
        passed = [i for i in due if (hit := gates[i].crossing(c.position, node)) is not None and hit[0] > 0]
        if passed and passed[0] == n and c.progress.finish_debt == 0:
            if c.progress.laps_done + 1 >= state.laps:
                return -FAR
            nxt = [0] if n else [n]
        elif passed and passed[0] == n:
            nxt = [n]  # across the finish while still owing a backward crossing: it stays due
        elif passed:
            i = passed[0]
            nxt = [i + 1] if ordered else ([j for j in due if j != i] or [n])
        else:
            nxt = due
        go = min(float(self.fields.field(track, i)[node.y, node.x]) for i in nxt)
        return -len(passed) * 1000.0 + go / FLICK_REACH


def make_flick_driver(kind: str, fields: RouteFields | None = None) -> FlickDriver:
    """A flick CPU for a lobby level (``"cpu:rookie"``, ...; :data:`game.drivers.levels.CPU_LEVELS`).

    An unknown level raises :class:`~game.drivers.levels.UnknownLevelError` (a ValueError).
    """
    noise = cpu_level(kind).flick_noise
    return FlickDriver(kind=kind, noise=noise, fields=fields if fields is not None else RouteFields())
