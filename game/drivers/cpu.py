"""CPU drivers from Rookie to Champion, all reading the solver's distance table.

- :class:`ChampionDriver` plays the exact optimum: alone it finishes in par moves.
- :class:`ProDriver` plays the optimum but now and then (seeded) takes a line one move
  slower, and never a doomed target.
- :class:`RookieDriver` looks where it would be if it could stop anywhere (the distance
  from rest, ignoring its momentum), so it brakes late and sometimes leaves the road; it
  avoids doomed targets only when leaving the road would end its race.

Every driver picks only legal targets from ``state.candidates(car, committed)``, takes
randomness only from ``rng``, and in traffic prefers targets where the rules would not
punish a collision with the cars around it (:func:`collision_risk`).
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from typing import Mapping

from game.core.errors import RacetrackError
from game.core.geometry import meeting_time
from game.core.race import Candidate, CarState, Choice, RaceState
from game.core.vec import RETIRE, Retire, Vec
from game.drivers.safety import SafetyOracle, doomed_targets
from game.drivers.solver import Solver, SolverTable, supports

UNKNOWN = 10_000  # value of a target whose distance to the finish is not known
OUT_PENALTY = 60  # what a likely collision costs when the rules put the car out of the race
SPIN_PENALTY = 4  # ... and when the car only spins to zero speed


class UnknownDriverError(RacetrackError, ValueError):
    """A driver kind nobody builds (``make_driver``)."""


@dataclass
class _Shared:
    """What the CPUs of one process share: the solver tables and safety memories."""

    solver: Solver = field(default_factory=Solver)
    oracles: dict = field(default_factory=dict)
    specialists: dict = field(default_factory=dict)
    last_table: tuple | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def table(self, state: RaceState) -> SolverTable:
        with self.lock:
            last = self.last_table
            if last is not None and last[0] is state.track and last[1] is state.rules and last[2] == state.laps:
                return last[3]  # the same race as last turn: skip hashing the rule set
            found = self.solver.table(state.track, state.rules, state.laps)
            self.last_table = (state.track, state.rules, state.laps, found)
            return found

    def specialist(self, movement: str, kind: str):
        """One fine-paper or flick CPU per (system, level), shared like the tables."""
        key = (movement, kind)
        with self.lock:
            found = self.specialists.get(key)
            if found is None:
                found = self.specialists[key] = _make_specialist(movement, kind)
            return found

    def oracle(self, state: RaceState) -> SafetyOracle:
        key = (id(state.track), state.rules)
        with self.lock:
            found = self.oracles.get(key)
            if found is None or found.track is not state.track:
                found = self.oracles[key] = SafetyOracle(state.track, state.rules)
            return found


def _make_specialist(movement: str, kind: str):
    """A FineDriver on fine paper; the party mode's flick CPU for flick (a FineDriver if that module is absent)."""
    from game.drivers.fine import FineDriver
    fine = FineDriver(kind)
    if movement == "flick":
        try:
            from game.drivers.flick import make_flick_driver
        except ImportError:
            return fine
        return _Guarded(make_flick_driver(kind), fine)
    return fine


class _Guarded:
    """A specialist CPU with a backup: if it fails on a state, the backup chooses (a CPU must not stop a race)."""

    is_human = False

    def __init__(self, main, backup) -> None:
        self.main, self.backup = main, backup
        self.kind = getattr(main, "kind", backup.kind)
        self.failures: list[str] = []

    def choose(self, state: RaceState, car: int, committed: Mapping[int, Choice], rng: random.Random) -> Choice:
        try:
            return self.main.choose(state, car, committed, rng)
        except Exception as error:  # noqa: BLE001 - a bug in the specialist must not end the race
            self.failures.append(f"phase {state.phase} car {car}: {error!r}")
            return self.backup.choose(state, car, committed, rng)


def target_values(table: SolverTable, state: RaceState, car: int, cands: list[Candidate]) -> dict[Vec, int]:
    """Moves to the finish after each candidate (UNKNOWN where the table has no answer)."""
    c = state.cars[car]
    sid = table.state_id(c.position, c.velocity, c.progress)
    if sid >= 0:
        values = table.move_values(sid)
        base = state.base_point(car)
        return {cand.node: values.get(cand.node - base, UNKNOWN) for cand in cands}
    # A state a lone car never reaches (after a spin, a set-back...): ask the referee
    # where each target leads, then read the table there.
    solo = RaceState(track=state.track, rules=state.rules, laps=state.laps, seed=state.seed,
                     cars=(_alone(c),), phase=state.phase)
    out = {}
    for cand in cands:
        after, _ = solo.apply({0: cand.node})
        out[cand.node] = _value_after(table, after.cars[0])
    return out


def _alone(c: CarState) -> CarState:
    return c


def fallback_values(state: RaceState, car: int, cands: list[Candidate]) -> dict[Vec, float]:
    """Rough values where the solver does not apply (movement systems without fixed steps).

    Prefers on-road targets that keep some speed toward the finish line's forward side;
    this is not optimal and does not understand checkpoints or laps.
    """
    track = state.track
    fx, fy = track.forward
    c = state.cars[car]
    out = {}
    for cand in cands:
        v = cand.node - c.position
        value = 50.0 - 0.5 * (v.x * fx + v.y * fy) + 0.2 * v.chebyshev()
        if cand.offroad:
            value += 40
        out[cand.node] = value
    return out


def _value_after(table: SolverTable, c: CarState) -> int:
    if c.status == "finished":
        return 1
    if not c.racing:
        return UNKNOWN
    d = table.distance(c.position, c.velocity, c.progress)
    return UNKNOWN if d is None else 1 + c.skip + d


def collision_risk(state: RaceState, car: int, committed: Mapping[int, Choice], target: Vec,
                   likely: Mapping[int, list[Vec]] | None = None) -> float:
    """Expected number of punished collisions if ``car`` drives to ``target`` (0 when the rules ignore them).

    Cars that already chose (ordered modes) land where they chose; cars still to choose
    land on one of their ``likely`` targets (default: any legal target), each counted
    with equal weight. Under ``later_out`` a car only fears cars that chose before it.
    """
    rules = state.rules
    if rules.collision == "ignore" or (rules.collision == "block" and not rules.simultaneous):
        return 0.0
    me = state.cars[car]
    risk = 0.0
    for j, landings in _landings(state, car, committed, likely).items():
        other = state.cars[j]
        hits = 0
        for node in landings:
            if node == target:
                hits += 1
            elif rules.collide_in_motion:
                t = meeting_time(me.position, target, other.position, node)
                if t is not None and t > 0:
                    hits += 1
        risk += hits / len(landings)
    return risk


def _landings(state: RaceState, car: int, committed: Mapping[int, Choice],
              likely: Mapping[int, list[Vec]] | None) -> dict[int, list[Vec]]:
    """Where each other racing car may land this phase (only cars that matter to ``car``)."""
    rules = state.rules
    result: dict[int, list[Vec]] = {}
    for j, other in enumerate(state.cars):
        if j == car or not other.racing:
            continue
        if other.skip:
            result[j] = [other.position]
        elif not rules.simultaneous and j in committed:
            choice = committed[j]
            if not isinstance(choice, Retire):
                result[j] = [choice]
        elif not rules.simultaneous and rules.collision == "later_out":
            continue  # a car choosing after us is the one put out
        else:
            landings = list(likely[j]) if likely and j in likely else list(state.legal_targets(j, committed))
            if landings:
                result[j] = landings
    return result


#: How many of another car's best targets a CPU expects it to pick from.
LIKELY_TARGETS = 3


def likely_landings(table: SolverTable, state: RaceState, car: int,
                    committed: Mapping[int, Choice]) -> dict[int, list[Vec]]:
    """The few targets each other car still to choose would rate best (who drives at random?).

    Expecting rivals to take any legal target makes a crowd near the line afraid of every
    road node, so cars circle off the road forever; rivals go for the line too.
    """
    result = {}
    for j, other in enumerate(state.cars):
        if j == car or not other.racing or other.skip or (not state.rules.simultaneous and j in committed):
            continue
        cands = [c for c in state.candidates(j, committed) if c.legal]
        if not cands:
            continue
        values = target_values(table, state, j, cands)
        best = sorted(cands, key=lambda c: (values[c.node], c.node.y, c.node.x))[:LIKELY_TARGETS]
        result[j] = [c.node for c in best]
    return result


def _risk_penalty(state: RaceState) -> int:
    return SPIN_PENALTY if state.rules.collision in ("spin", "block") else OUT_PENALTY


class _CpuDriver:
    """Shared plumbing: the legal candidates, their values and the traffic penalty.

    Under the movement systems the exact solver does not search, a driver hands its
    choice to a specialist of the same level: :class:`~game.drivers.fine.FineDriver` on
    fine paper, and the pen-flick CPU (``game.drivers.flick``) in the party mode.
    """

    kind = "cpu"
    is_human = False

    def __init__(self, shared: _Shared | None = None) -> None:
        self.shared = shared if shared is not None else _Shared()

    def _specialist(self, state: RaceState):
        """The driver that plays this level under the state's movement system, or None for the solver's."""
        movement = state.rules.movement
        if supports(state.rules) or movement not in ("fine", "flick"):
            return None
        return self.shared.specialist(movement, self.kind)

    def _scored(self, state: RaceState, car: int, committed: Mapping[int, Choice]):
        cands = [c for c in state.candidates(car, committed) if c.legal]
        if not cands:
            return [], {}
        likely = None
        if supports(state.rules):
            table = self.shared.table(state)
            values = target_values(table, state, car, cands)
            if state.rules.collision != "ignore" and sum(c.racing for c in state.cars) > 1:
                likely = likely_landings(table, state, car, committed)
        else:
            values = fallback_values(state, car, cands)
        penalty = _risk_penalty(state)
        scores = {}
        for cand in cands:
            risk = collision_risk(state, car, committed, cand.node, likely)
            scores[cand.node] = values[cand.node] + risk * penalty
        return cands, scores


    def choose(self, state: RaceState, car: int, committed: Mapping[int, Choice], rng: random.Random) -> Choice:
        specialist = self._specialist(state)
        if specialist is not None:
            return specialist.choose(state, car, committed, rng)
        cands, scores = self._scored(state, car, committed)
        if not cands:
            return RETIRE  # race control never asks a car without a legal target; be safe anyway
        return self._pick(state, car, committed, rng, cands, scores)

    def _pick(self, state: RaceState, car: int, committed: Mapping[int, Choice], rng: random.Random,
              cands: list[Candidate], scores: dict[Vec, float]) -> Choice:
        """This level's choice among the legal candidates, given their scores (lower is better)."""
        raise NotImplementedError


class ChampionDriver(_CpuDriver):
    """Plays the exact optimum from the solver's table (alone: exactly par moves)."""

    kind = "cpu:champion"

    def _pick(self, state: RaceState, car: int, committed: Mapping[int, Choice], rng: random.Random,
              cands: list[Candidate], scores: dict[Vec, float]) -> Choice:
        return min(cands, key=lambda c: scores[c.node]).node


class ProDriver(_CpuDriver):
    """Near-optimal: now and then (``slack`` of the time) takes a line one move slower; never a doomed target."""

    kind = "cpu:pro"

    def __init__(self, shared: _Shared | None = None, slack: float = 0.1) -> None:
        super().__init__(shared)
        self.slack = slack

    def _pick(self, state: RaceState, car: int, committed: Mapping[int, Choice], rng: random.Random,
              cands: list[Candidate], scores: dict[Vec, float]) -> Choice:
        doomed = doomed_targets(state, car, committed, self.shared.oracle(state))
        safe = [c for c in cands if c.node not in doomed] or cands
        ranked = sorted(safe, key=lambda c: scores[c.node])
        best = scores[ranked[0].node]
        if rng.random() < self.slack:
            slower = [c for c in ranked if best < scores[c.node] <= best + 1.5]
            if slower:
                return rng.choice(slower).node
        return ranked[0].node


class RookieDriver(_CpuDriver):
    """A hesitant beginner: reads the distances through a blur, and often forgets to brake.

    It ranks its targets by the solver's distance plus seeded noise (``noise`` moves of
    spread), and with probability ``late`` it will not slow down this move when it could
    keep its speed, so it brakes late and sometimes leaves the road. Under rules where
    leaving the road ends its race it refuses doomed targets, so it still finishes.
    """

    kind = "cpu:rookie"

    def __init__(self, shared: _Shared | None = None, noise: float = 1.0, late: float = 0.3) -> None:
        super().__init__(shared)
        self.noise, self.late = noise, late

    def _pick(self, state: RaceState, car: int, committed: Mapping[int, Choice], rng: random.Random,
              cands: list[Candidate], scores: dict[Vec, float]) -> Choice:
        if state.rules.offroad_penalty in ("eliminate", "forbid", "setback", "slow_return"):
            doomed = doomed_targets(state, car, committed, self.shared.oracle(state))
            cands = [c for c in cands if c.node not in doomed] or cands
        speed = state.cars[car].velocity.chebyshev()
        if speed and rng.random() < self.late:
            keep = [c for c in cands if (c.node - state.cars[car].position).chebyshev() >= speed]
            cands = keep or cands
        return min(cands, key=lambda c: scores[c.node] + rng.gauss(0.0, self.noise)).node


KINDS = {"cpu:champion": ChampionDriver, "cpu:pro": ProDriver, "cpu:rookie": RookieDriver}


def make_driver(kind: str, solver: Solver | None = None, shared: _Shared | None = None):
    """A CPU driver of the given kind: ``"cpu:champion"``, ``"cpu:pro"`` or ``"cpu:rookie"``.

    Drivers made with the same ``shared`` (or ``solver``) share their tables.
    """
    cls = KINDS.get(kind)
    if cls is None:
        raise UnknownDriverError(f"unknown driver kind {kind!r}; choose one of {', '.join(KINDS)}")
    if shared is None:
        shared = _Shared(solver=solver if solver is not None else Solver())
    return cls(shared)


def make_shared(solver: Solver | None = None) -> _Shared:
    """One set of tables for several drivers (pass as ``shared=`` to :func:`make_driver`)."""
    return _Shared(solver=solver if solver is not None else Solver())
