"""CPUs at night: they plan only on road they have seen.

Under ``sight = "night"`` a CPU does not read the solver's table (that would be peeking
at the whole map). Each CPU keeps its own :class:`NightMemory`: every node it has seen
lit (:func:`game.core.sight.lit_now`, all the cars' lights, as on the one shared
screen) in the phases it was asked to choose in. From that memory alone it plans:

- a route field (:func:`game.drivers.fine._build_field`, the fine-paper CPU's) to the
  gate that is due, grown through the nodes it saw to be road *and* through the nodes it
  has not seen yet (it hopes the road goes on there), never through nodes it saw to be
  off the road, nor through the dark just beyond a gate's ends (a gate spans the road:
  its posts stand at the road's edges);
- a target is *usable* when it lands on road it has seen, and *safe* when braking as
  hard as the rules allow, every move, stops the car on seen road (each move's squares,
  :func:`game.core.geometry.cells_along`, on seen road too);
- it takes the safe target with the best score: passing the due gate, then the fewest
  squares left to it; each level reads the scores through its own noise
  (:data:`NIGHT_NOISE`) and checks braking its own number of moves ahead
  (:data:`NIGHT_CARE`): the Rookie looks two braking moves ahead only, so it overdrives its
  lights and crashes more; the Champion also judges a target by the best place it can
  reach one move later (:data:`NIGHT_LOOK_AHEAD`), so it keeps its speed through bends.

Fine paper and the pen flick plan the same way on their own drivers:
:class:`NightFineDriver` (the fine-paper CPU on seen road and these fields) and
:func:`night_flick_goal` (where a flick CPU aims at night).

The road it has seen is never wrong, but the squares between two nodes are judged by
their nodes: on an outline track a move may still clip an unseen corner, so a night CPU
may crash. Everything here is a function of the states the CPU was asked about, so a
race is the same for a seed; the physics is the referee's, so replays are unchanged.
The lap logic (which gate is due, a finish that ends the race) is the fine-paper CPU's.
"""

from __future__ import annotations

import math
import random
import threading
from collections import OrderedDict
from typing import Mapping

import numpy as np

from game.core.geometry import cells_along
from game.core.race import Candidate, Choice, RaceState
from game.core.sight import lit_now
from game.core.vec import RETIRE, Vec
from game.drivers.fine import FAR, FineDriver, _build_field, _crosses_forward

#: Score noise (squares, one standard deviation) per level.
NIGHT_NOISE = {"cpu:champion": 0.15, "cpu:pro": 0.6, "cpu:rookie": 1.2}
#: Braking moves checked ahead per level (None: until the car is at rest).
NIGHT_CARE = {"cpu:champion": None, "cpu:pro": None, "cpu:rookie": 2}
#: How far beyond each end of a line gate a night CPU takes the road's edge to run (squares).
POST_SQUARES = 10
#: What a likely meeting with another car costs a target, in squares (see NightDriver.traffic).
MEET_COST = 3.0
#: The levels that judge a target by where they can be one move after it (the others: by the target alone).
NIGHT_LOOK_AHEAD = ("cpu:champion",)
#: How much the place one move later counts against the target itself (1: as much).
AHEAD_WEIGHT = 0.1
#: Races remembered at once (old ones are forgotten first).
RACES_KEPT = 8


class NightMemory:
    """What one CPU has seen in one race: a bool mask of lit nodes, grown phase by phase."""

    def __init__(self, shape: tuple[int, int]) -> None:
        self.seen = np.zeros(shape, dtype=bool)
        self.phase = -1

    def look(self, state: RaceState) -> None:
        """Add what is lit in ``state`` (the phase the CPU is choosing in)."""
        self.seen |= lit_now(state)
        self.phase = state.phase


def _race_key(state: RaceState, car: int) -> tuple:
    return (id(state.track), state.track.id, state.seed, state.laps, tuple(c.name for c in state.cars), car)


class NightDriver:
    """A CPU level at night (see the module docstring); one per level, memories per race and car."""

    is_human = False

    def __init__(self, kind: str = "cpu:champion") -> None:
        self.kind = kind
        self.noise = NIGHT_NOISE.get(kind, 0.0)
        self.care = NIGHT_CARE.get(kind)
        self.look_ahead = kind in NIGHT_LOOK_AHEAD
        self._memories: OrderedDict[tuple, NightMemory] = OrderedDict()
        self._fields: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    # -- memory ---------------------------------------------------------------
    def memory(self, state: RaceState, car: int) -> NightMemory:
        """This car's memory in this race, having looked at ``state`` (a new race starts blank).

        A state earlier than the last one looked at means the race was started again: the
        memory is forgotten, so the same seed always gives the same race.
        """
        key = _race_key(state, car)
        with self._lock:
            found = self._memories.get(key)
            if found is None or state.phase < found.phase or found.seen.shape != (state.track.height,
                                                                                  state.track.width):
                found = self._memories[key] = NightMemory((state.track.height, state.track.width))
                while len(self._memories) > RACES_KEPT * 8:
                    self._memories.popitem(last=False)
            self._memories.move_to_end(key)
        found.look(state)
        return found

    def known_road(self, state: RaceState, memory: NightMemory) -> np.ndarray:
        """The nodes seen to be road (what the CPU may plan on)."""
        return memory.seen & np.asarray(state.track.region.road_nodes(), dtype=bool)

    def field(self, state: RaceState, memory: NightMemory, index: int) -> np.ndarray:
        """Squares to gate ``index`` (checkpoints, then the finish) through seen road and unseen nodes."""
        seen_road = self.known_road(state, memory)
        hopeful = (seen_road | ~memory.seen) & ~(self._posts(state.track) & ~memory.seen)
        key = (id(state.track), index, hash(hopeful.tobytes()))
        with self._lock:
            found = self._fields.get(key)
        if found is None:
            gate = (*state.track.checkpoints, state.track.finish)[index]
            found = _build_field(state.track, gate, road=hopeful)
            with self._lock:
                self._fields[key] = found
                while len(self._fields) > 64:
                    self._fields.popitem(last=False)
        return found

    def _posts(self, track) -> np.ndarray:
        """Nodes just beyond the ends of every line gate: a gate spans the road from edge to
        edge, so a night CPU takes the road to end there (its route must not leak round a
        gate through the dark). Kept per track."""
        key = ("posts", id(track))
        with self._lock:
            found = self._fields.get(key)
        if found is not None:
            return found
        h, w = track.height, track.width
        k = track.scale  # on fine paper: the posts stand on the squares' nodes (the route field's)
        found = np.zeros((h, w), dtype=bool)
        squares = found[::k, ::k]  # a view: marking a square's node marks its fine node
        for gate in (*track.checkpoints, track.finish):
            if not gate.is_line:
                continue
            (ax, ay), (bx, by) = (gate.a[0] / k, gate.a[1] / k), (gate.b[0] / k, gate.b[1] / k)
            length = max(1e-9, ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5)
            for (ex, ey), (ox, oy) in (((ax, ay), (bx, by)), ((bx, by), (ax, ay))):
                dx, dy = (ex - ox) / length, (ey - oy) / length
                for k in range(3 * POST_SQUARES):  # from half a square beyond the end: the end's own node stays
                    px, py = ex + dx * (0.5 + k / 3), ey + dy * (0.5 + k / 3)
                    for x in {math.floor(px + 0.5), math.ceil(px - 0.5)}:  # the nearest node (both on a tie)
                        for y in {math.floor(py + 0.5), math.ceil(py - 0.5)}:
                            if 0 <= x < squares.shape[1] and 0 <= y < squares.shape[0]:
                                squares[y, x] = True
        with self._lock:
            self._fields[key] = found
        return found

    # -- choosing -------------------------------------------------------------
    def choose(self, state: RaceState, car: int, committed: Mapping[int, Choice], rng: random.Random) -> Choice:
        """The safe target with the best (noisy) score on the road this car has seen."""
        memory = self.memory(state, car)
        cands = [c for c in state.candidates(car, committed) if c.legal]
        if not cands:
            return RETIRE
        road = self.known_road(state, memory)
        here = state.cars[car].position
        nxts: list = []
        scores = self.scores(state, car, cands, memory, road, nxts) + self.traffic(state, car, cands, committed)
        hard = state.rules.hard_braking
        known: dict = {}
        if self.look_ahead:
            for i, cand in enumerate(cands):
                if -FAR / 2 < scores[i] < FAR / 4 and self.safe(road, here, cand.node, hard, known):
                    to_go = self._to_go(state, memory, nxts[i], cand.node)
                    ahead = self._ahead(state, memory, road, here, cand.node, nxts[i], hard, known)
                    scores[i] += AHEAD_WEIGHT * (ahead - to_go)
        if self.noise:
            scores = scores + np.array([rng.gauss(0.0, self.noise) for _ in cands])
        ranked = sorted(range(len(cands)), key=lambda i: (scores[i], cands[i].node.y, cands[i].node.x))
        usable = [i for i in ranked if scores[i] < FAR / 4]
        for i in usable:
            if self.safe(road, here, cands[i].node, hard, known):
                return cands[i].node
        # Nothing is safe on what it has seen: the slowest usable target, else stay or the nearest.
        fallback = usable or ranked
        return cands[min(fallback, key=lambda i: ((cands[i].node - here - state.cars[car].velocity).chebyshev(),
                                                  scores[i]))].node

    def _to_go(self, state: RaceState, memory: NightMemory, nxt: list[int], node: Vec) -> float:
        return min(float(self.field(state, memory, i)[node.y, node.x]) for i in nxt)

    def _ahead(self, state: RaceState, memory: NightMemory, road: np.ndarray, here: Vec, node: Vec,
               nxt: list[int], hard: bool, known: dict) -> float:
        """The fewest squares to the gates ``nxt`` the car can be one move after landing on ``node``
        (-1 when that move crosses one of them), over the moves it could still stop after."""
        track = state.track
        gates = (*track.checkpoints, track.finish)
        v = node - here
        reach = 2 if hard else 1
        best = FAR
        for ax in range(-reach, reach + 1):
            for ay in range(-reach, reach + 1):
                w = Vec(v.x + ax, v.y + ay)
                q = node + w
                if not (0 <= q.x < track.width and 0 <= q.y < track.height):
                    continue
                if any((hit := gates[i].crossing(node, q)) is not None and hit[0] > 0 for i in nxt) \
                        and self._on(road, node, q):
                    return -1.0
                if not road[q.y, q.x] or not self._on(road, node, q) or \
                        not self._can_stop(road, q, w, reach, self.care, known):
                    continue
                best = min(best, self._to_go(state, memory, nxt, q))
        return best if best < FAR else self._to_go(state, memory, nxt, node)

    def scores(self, state: RaceState, car: int, cands: list[Candidate], memory: NightMemory,
               road: np.ndarray, nxts: list | None = None) -> np.ndarray:
        """Lower is better: finishing, then passing the due gate, then fewer squares left; FAR off seen road.

        ``nxts``, when given, receives for each candidate the gates its squares left are counted to.
        """
        c = state.cars[car]
        track = state.track
        n = len(track.checkpoints)
        xs = np.array([cand.node.x for cand in cands], dtype=np.int64)
        ys = np.array([cand.node.y for cand in cands], dtype=np.int64)
        paper = (xs >= 0) & (xs < track.width) & (ys >= 0) & (ys < track.height)
        usable = np.zeros(len(cands), dtype=bool)
        usable[paper] = road[ys[paper], xs[paper]]
        ordered = state.rules.ordered_checkpoints or not c.progress.balance
        due = [min(c.progress.next_checkpoint, n)] if ordered else (
            [i for i, b in enumerate(c.progress.balance) if b <= 0] or [n])
        gates = (*track.checkpoints, track.finish)
        crosses = np.stack([_crosses_forward(gates[i], c.position, xs, ys, cands) for i in due], axis=1)
        out = np.full(len(cands), FAR / 2)
        if nxts is not None:
            nxts[:] = [due] * len(cands)
        for j in np.flatnonzero(usable):
            passed = [i for k, i in enumerate(due) if crosses[j, k]]
            if passed and passed[0] == n and c.progress.finish_debt == 0:
                if c.progress.laps_done + 1 >= state.laps:
                    out[j] = -FAR
                    continue
                nxt = [0] if n else [n]
            elif passed and passed[0] < n:
                i = passed[0]
                nxt = [i + 1] if ordered else ([k for k in due if k != i] or [n])
            else:
                nxt = due
            if nxts is not None:
                nxts[j] = nxt
            out[j] = -len(passed) * 1000.0 + self._to_go(state, memory, nxt, cands[j].node)
        return out

    def traffic(self, state: RaceState, car: int, cands: list[Candidate], committed: Mapping[int, Choice]) -> np.ndarray:
        """What meeting another car may cost at each target, in squares (0 where collisions do not matter).

        The cars are in view at night: a rival's pick already made (in turn order) is
        avoided outright, and in blind phases the nine nodes round a rival's base point
        (where it lands if it keeps its line) cost :data:`MEET_COST` at the base point, half
        that round it.
        """
        out = np.zeros(len(cands))
        if not state.rules.collisions_matter:
            return out
        if state.rules.simultaneous:
            committed = {}
        for j, other in enumerate(state.cars):
            if j == car or not other.racing:
                continue
            picked = committed.get(j)
            for k, cand in enumerate(cands):
                if isinstance(picked, Vec):
                    out[k] += 4 * MEET_COST if cand.node == picked else 0.0
                    continue
                base = other.position + other.velocity
                gap = max(abs(cand.node.x - base.x), abs(cand.node.y - base.y))
                out[k] += MEET_COST if gap == 0 else MEET_COST / 2 if gap == 1 else 0.0
        return out

    def safe(self, road: np.ndarray, here: Vec, node: Vec, hard: bool, known: dict | None = None) -> bool:
        """Whether the move to ``node`` stays on seen road and the car can then come to rest on it.

        Coming to rest: some sequence of moves, each one slower (by the larger axis) than the
        one before and steering as it likes, stays on seen road until the car stands, at most
        ``care`` moves deep (the Rookie looks two moves ahead: it overdrives its lights). ``known``: answers
        for (node, velocity) kept across the targets of one choice.
        """
        if not self._on(road, here, node):
            return False
        known = {} if known is None else known
        return self._can_stop(road, node, node - here, 2 if hard else 1, self.care, known)

    def _can_stop(self, road: np.ndarray, p: Vec, v: Vec, reach: int, depth: int | None, known: dict) -> bool:
        speed = max(abs(v.x), abs(v.y))
        if speed == 0 or depth == 0:
            return True
        key = (p, v, depth)
        found = known.get(key)
        if found is not None:
            return found
        found = False
        # the hardest braking first: it is the likeliest to stop in time
        steps = sorted(((ax, ay) for ax in range(-reach, reach + 1) for ay in range(-reach, reach + 1)),
                       key=lambda a: max(abs(v.x + a[0]), abs(v.y + a[1])))
        for ax, ay in steps:
            w = Vec(v.x + ax, v.y + ay)
            if max(abs(w.x), abs(w.y)) >= speed:
                break
            q = p + w
            if self._on(road, p, q) and self._can_stop(road, q, w, reach, None if depth is None else depth - 1,
                                                       known):
                found = True
                break
        known[key] = found
        return found

    @staticmethod
    def _on(road: np.ndarray, p: Vec, q: Vec) -> bool:
        """Every square the move p-q passes through is seen road."""
        h, w = road.shape
        for cx, cy, _ in cells_along(q.x - p.x, q.y - p.y):
            x, y = p.x + cx, p.y + cy
            if not (0 <= x < w and 0 <= y < h and road[y, x]):
                return False
        return True


class NightFineDriver(FineDriver):
    """The fine-paper CPU at night: :class:`~game.drivers.fine.FineDriver`'s choice, made on
    the road this car has seen (a :class:`NightMemory`, as :class:`NightDriver` keeps one).

    Its targets, and every node of its hardest braking from them, must be seen road; its
    route fields grow through seen road and unseen nodes, never through nodes seen to be
    off the road nor round a gate's posts (:meth:`NightDriver.field`). The segments between
    those nodes are judged by the referee's geometry, as by day (fine paper has a hundred
    nodes a square: a move's squares are not checked one by one), so a night fine CPU never
    plans onto unseen road but may clip a corner between two seen nodes. Each level keeps
    its day noise (:data:`game.drivers.levels.CPU_LEVELS` ``fine_noise``).
    """

    def __init__(self, kind: str = "cpu:champion") -> None:
        super().__init__(kind)
        self.night = NightDriver(kind)

    def choose(self, state: RaceState, car: int, committed: Mapping[int, Choice], rng: random.Random) -> Choice:
        memory = self.night.memory(state, car)
        road = self.night.known_road(state, memory)
        return self.choose_on(state, car, committed, rng, road=road,
                              field=lambda track, index: self.night.field(state, memory, index))


def night_flick_goal(night: NightDriver, state: RaceState, car: int, legal: list[Candidate]) -> Vec | None:
    """The node a flick CPU aims at by night: the best (:meth:`NightDriver.scores`, without
    its noise: the flick's shaky hand is the level's) among the legal nodes it has seen to
    be road and reaches over seen road only (no inertia: any such node is safe); None when
    it has seen none (it then aims at the nearest legal node, a short flick)."""
    memory = night.memory(state, car)
    road = night.known_road(state, memory)
    here = state.cars[car].position
    usable = [c for c in legal if night._on(road, here, c.node)]
    if not usable:
        return None
    scores = night.scores(state, car, usable, memory, road)
    best = min(range(len(usable)), key=lambda i: (scores[i], usable[i].node.y, usable[i].node.x))
    return usable[best].node if scores[best] < FAR / 4 else None
