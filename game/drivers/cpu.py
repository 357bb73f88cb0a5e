"""CPU drivers from Rookie to Champion, all reading the solver's distance table.

Alone, every level reads the exact table (:class:`~game.drivers.solver.SolverTable`):

- :class:`ChampionDriver` plays the exact optimum: alone it finishes in par moves.
- :class:`ProDriver` plays the optimum but now and then (seeded) takes a line one move
  slower.
- :class:`RookieDriver` reads the distances through a blur and often forgets to brake, so
  it sometimes leaves the road.

Where leaving the road ends the race or costs more than the table counts (set-back, slow
return: ``RuleSet.harsh_offroad``), the Pro and the Rookie never take a doomed target.

In traffic (any collision rule but ``ignore``) each CPU scores its targets with a
:class:`TrafficModel` of the phase: every car's legal targets, what each leads to (moves
to go, and moves to go if the car is spun to rest or put out there), and how likely the
car is to take each. A rival chooses among its good targets as its level would (the
sharper the level, the more surely it takes its best; :data:`LEVELS`), and sees the
traffic too: the likelihoods come from two rounds of every car answering the others
(a damped logit response), so two cars that want the same node both expect the other to
think twice. A target's score is its expected moves to go: the chance of a collision
(landing on the same node, or meeting on the way where the rules say so) times what that
collision costs under the rules in force (spin-out: the moves lost by standing still;
both out / later out: the race), plus the moves to go otherwise. Under ordered choosing
the cars that chose earlier are where they chose, and cars choosing later see our pick
and mostly avoid it (``later_out``: they are the ones put out). The Champion also looks a
second phase ahead wherever a rival can get near (:meth:`TrafficModel.second_phase`);
the Pro weighs this phase's collisions only; the Rookie underrates collisions and reads
the rivals as if they drove blind.

Two CPUs reasoning alike in the same spot would pick the same node for ever: the two
Champions on Dogleg Dash did, spun to rest on one node 2000 phases running, because each
expected the other to take the best target and both took the one it left. Now a CPU
whose best target is *contested* (likely, or costly, to collide: :data:`CONTESTED`) draws its pick
(seeded, from ``rng``) among its targets by their scores, as mixed play in such a game
should; and CPU *twins* (same node, velocity and progress, same level) keep a convention:
the lower-numbered takes its best target and the others, expecting that, pick around it
(:meth:`TrafficModel.twins`). Finally every CPU gives up (retires) once a race has gone
on for four times par plus forty phases (:func:`patience`), so a race between CPUs
always ends.

Memory never stops a race: when the exact table of a race is over the solver's budget
(a big track, many laps) the CPUs read a table of three laps folded onto the race's
(:meth:`~game.drivers.solver.Solver.race_table`, :class:`~game.drivers.solver.FoldedTable`),
and when not even that fits they drive by the route heuristic of fine paper
(:class:`~game.drivers.fine.FineDriver`: safe, not optimal). :attr:`_Shared.notes` says
which, once a race, for a screen or ``racetrack sim`` to show. So they drive, too, while
the solver's kernels compile on the first start after an install (no CPU move waits for
that compile, ``game.drivers.compiling``): from the first phase after the table is built
they read it again.

Every driver picks only legal targets from ``state.candidates(car, committed)`` and takes
randomness only from ``rng``.
"""

from __future__ import annotations

import math
import random
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Mapping

import numpy as np

from game.core.bonus import in_slipstream
from game.core.errors import RacetrackError
from game.core.race import FINISHED, Candidate, CarState, Choice, RaceState
from game.core.rules import Collision, Movement
from game.core.vec import RETIRE, ZERO, Retire, Vec
from game.drivers.codes import FIN
from game.drivers.fine import FineDriver
from game.drivers.flick import make_flick_driver
from game.drivers.levels import CPU_LEVELS, Level
from game.drivers.lone import remaining
from game.drivers.night import NightDriver, NightFineDriver
from game.drivers.safety import SafetyOracle, doomed_targets
from game.drivers.solver import FoldedTable, Solver, SolverBudgetError, SolverTable, supports

UNKNOWN = 10_000  # value of a target whose distance to the finish is not known
OUT_COST = 15  # moves a car put out of the race counts as losing (about what a lost race costs in places)
BLOCKED_COST = 1  # under blocking: a target a rival stands on costs a detour
CONTESTED = 0.3  # a best target this likely to collide is contested: the CPU mixes (see _draw_near_best)
CONTESTED_RISK = 0.5  # ... and one whose collision is expected to cost this many moves
MIXING = 0.25  # how a contested pick is drawn: a target e times less likely per this many moves of score
#: A phase the CPUs give up after: PATIENCE_FACTOR * par + PATIENCE_EXTRA (see patience()).
PATIENCE_FACTOR, PATIENCE_EXTRA = 4, 40
#: Car situations whose options are remembered per table (a phase of eight cars and its
#: look-ahead need a few dozen; more only cost memory over a long evening of races).
OPTIONS_KEPT = 512
#: Where no table gives a par (fine paper, pen flick): a CPU retires after this many phases.
PATIENCE_WITHOUT_PAR = 1500


class UnknownDriverError(RacetrackError, ValueError):
    """A driver kind nobody builds (``make_driver``)."""


#: How each level is expected to choose, from the one level table (:mod:`game.drivers.levels`).
LEVELS = {level.kind: level.traffic for level in CPU_LEVELS}
#: A seat no CPU speaks for (a player): sees the cars, picks well but not perfectly.
HUMAN = Level(temperature=0.8, care=0.9, caution=1.0)


@dataclass
class _Shared:
    """What the CPUs of one process share: the solver tables, safety memories, traffic models."""

    solver: Solver = field(default_factory=Solver)
    oracles: dict = field(default_factory=dict)
    specialists: dict = field(default_factory=dict)
    last_table: tuple | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: race -> {car: (kind, first phase seen)} of the CPUs that chose in it (the others: players)
    seats: OrderedDict = field(default_factory=OrderedDict)
    #: table -> {car situation: CarOptions}, reused across the phase's CPUs and phases
    options: weakref.WeakKeyDictionary = field(default_factory=weakref.WeakKeyDictionary)
    last_model: tuple | None = None
    patience_of: weakref.WeakKeyDictionary = field(default_factory=weakref.WeakKeyDictionary)

    #: What the CPUs could not do exactly, one line a race (the table was over the budget).
    notes: list = field(default_factory=list)

    def table(self, state: RaceState) -> SolverTable | FoldedTable | None:
        """The table the CPUs of this race read; None when no table fits the memory budget.

        A race whose exact table is over the budget gets a folded one
        (:meth:`Solver.race_table`); with None the CPUs drive by the route heuristic. So
        they do, without waiting, while the solver's kernels are being compiled on the
        first start after an install (``game.drivers.compiling``): then None is not kept.
        """
        with self.lock:
            last = self.last_table
            if last is not None and last[0] is state.track and last[1] is state.rules and last[2] == state.laps:
                return last[3]  # the same race as last turn: skip hashing the rule set
            compiling_now = getattr(self.solver.kernels, "compiling_now", None)
            if compiling_now is not None and compiling_now() and self.solver.cached_table(
                    state.track, state.rules, state.laps) is None:
                return None
            try:
                found = self.solver.race_table(state.track, state.rules, state.laps)
            except SolverBudgetError as error:
                found = None
                self._note(f"{error}: the CPUs drive by the route heuristic instead")
            if isinstance(found, FoldedTable):
                self._note(f"track {state.track.id!r}: the CPUs' table is over the memory budget; {found.note}")
            self.last_table = (state.track, state.rules, state.laps, found)
            return found

    def waited_table(self, state: RaceState) -> SolverTable | FoldedTable | None:
        """:meth:`table`, after waiting for the solver's kernels should they be compiling (worker threads only:
        a screen's figures, a head start), so that None means over the budget, never "not yet"."""
        wait = getattr(self.solver.kernels, "wait", None)
        if wait is not None:
            wait()
        return self.table(state)

    def plan(self, state: RaceState) -> str | None:
        """How the CPUs of ``state``'s race plan, once they have a table: ``"exact"``, ``"folded"``
        (a table of three laps folded onto the race: over the memory budget), ``"route"`` (no table
        fits: the route heuristic), or None (not known yet, or another race's table is the last)."""
        last = self.last_table  # read without the lock: one tuple, replaced whole
        if last is None or last[0] is not state.track or last[1] is not state.rules or last[2] != state.laps:
            return None
        found = last[3]
        return "route" if found is None else "folded" if isinstance(found, FoldedTable) else "exact"

    def _note(self, line: str) -> None:
        """Keep ``line`` once (the last 16 kept); called with the lock held."""
        if line not in self.notes:
            self.notes.append(line)
            del self.notes[:-16]

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

    def seat(self, state: RaceState, car: int, kind: str) -> None:
        """Note that a CPU of ``kind`` drives ``car`` in this race (so rivals can model its level).

        The first phase a car was seen in is kept with its kind: :meth:`kinds` only tells of
        cars seen in an earlier phase, so what a CPU knows of its rivals never depends on
        which CPU was asked first this phase.
        """
        key = _race_key(state)
        with self.lock:
            kinds = self.seats.get(key)
            if kinds is None:
                kinds = self.seats[key] = {}
                while len(self.seats) > 16:
                    self.seats.popitem(last=False)
            kinds.setdefault(car, (kind, state.phase))

    def kinds(self, state: RaceState) -> dict[int, str]:
        """The CPU kinds of the cars seen choosing before this state's phase (the others: players)."""
        with self.lock:
            seen = self.seats.get(_race_key(state), {})
            return {car: kind for car, (kind, phase) in seen.items() if phase < state.phase}

    def car_options(self, table: SolverTable, situation: tuple, build) -> CarOptions:
        """A car's options in a situation on a table, built once (``build()``) and remembered."""
        with self.lock:
            known = self.options.get(table)
            if known is None:
                known = self.options[table] = OrderedDict()
            found = known.get(situation)
            if found is not None:
                known.move_to_end(situation)
        if found is None:
            found = build()
            with self.lock:
                known[situation] = found
                while len(known) > OPTIONS_KEPT:  # the least recently used go: memory stays flat all evening
                    known.popitem(last=False)
        return found

    def model(self, table: SolverTable, state: RaceState, committed: Mapping[int, Choice]) -> TrafficModel:
        """The phase's traffic model, built once for all the CPUs choosing blind in it."""
        if state.rules.simultaneous:
            committed = {}  # nobody sees another's pick (whatever a caller passes)
        key = tuple(sorted(committed.items(), key=lambda item: item[0]))
        last = self.last_model
        if last is not None and last[0] is state and last[1] == key and last[2] is table:
            return last[3]
        model = TrafficModel(self, table, state, committed)
        self.last_model = (state, key, table, model)
        return model

    def patience(self, state: RaceState) -> int:
        """Phases after which a CPU of this race gives up (see :func:`patience`)."""
        if not supports(state.rules):
            return PATIENCE_WITHOUT_PAR
        table = self.table(state)
        if table is None:
            return PATIENCE_WITHOUT_PAR
        with self.lock:
            found = self.patience_of.get(table)
        if found is None:
            pars = [table.to_go(int(sid)) for sid in table.start_ids]
            par = max((p for p in pars if p is not None), default=None)
            found = patience(None if par is None else math.ceil(par * getattr(table, "lap_factor", 1)))
            with self.lock:
                self.patience_of[table] = found
        return found


def patience(par: int | None) -> int:
    """The phase after which a CPU retires: four times par plus forty (a race between CPUs must end).

    Without a par (fine paper, pen flick, a track nobody can finish) the CPU waits
    :data:`PATIENCE_WITHOUT_PAR` phases.
    """
    return PATIENCE_WITHOUT_PAR if par is None else PATIENCE_FACTOR * par + PATIENCE_EXTRA


def _race_key(state: RaceState) -> tuple:
    return (id(state.track), state.track.id, state.seed, state.laps, tuple(c.name for c in state.cars))


def _make_specialist(movement: str, kind: str):
    """A FineDriver on fine paper; the party mode's flick CPU for flick; ``"night"``: the night CPU;
    ``"night-fine"``: the fine-paper CPU at night (``night.NightFineDriver``)."""
    if movement == "night":
        return NightDriver(kind)
    if movement == "night-" + Movement.FINE:
        return NightFineDriver(kind)
    if movement in (Movement.FLICK, "night-" + Movement.FLICK):  # the flick CPU sees the night itself
        return make_flick_driver(kind)
    return FineDriver(kind)


# -- what each target leads to ------------------------------------------------------------

@dataclass(frozen=True)
class Segments:
    """Moves as the collision check sees them: from (px, py) to (qx, qy), ending on (ex, ey).

    ``tend`` is how far along its segment the car really travels (1, less for a crash,
    0 for a car standing still); ``present`` is False for a car that finishes or is out
    after the move (it can collide with nobody).
    """

    px: np.ndarray
    py: np.ndarray
    qx: np.ndarray
    qy: np.ndarray
    ex: np.ndarray
    ey: np.ndarray
    tend: np.ndarray
    present: np.ndarray

    @staticmethod
    def of(rows: list[tuple]) -> Segments:
        """From rows (px, py, qx, qy, ex, ey, tend, present)."""
        if not rows:
            z = np.zeros(0, dtype=np.int64)
            return Segments(z, z, z, z, z, z, np.zeros(0), np.zeros(0, dtype=bool))
        cols = list(zip(*rows))
        ints = [np.asarray(c, dtype=np.int64) for c in cols[:6]]
        return Segments(*ints, np.asarray(cols[6], dtype=float), np.asarray(cols[7], dtype=bool))

    def box(self) -> tuple[int, int, int, int]:
        """The bounding box of every point the moves touch."""
        xs = np.concatenate([self.px, self.qx, self.ex])
        ys = np.concatenate([self.py, self.qy, self.ey])
        return int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())


def meets(a: Segments, b: Segments, in_motion: bool) -> np.ndarray:
    """``[i, j]``: whether move i of one car and move j of another collide, as the referee decides.

    Two cars still racing after their moves collide when they end on the same node, and
    (``in_motion``) when they are at the same point at the same moment t, 0 < t, before
    either stops (:meth:`RaceState._collide`, :func:`game.core.geometry.meeting_time`).
    """
    both = a.present[:, None] & b.present[None, :]
    same = both & (a.ex[:, None] == b.ex[None, :]) & (a.ey[:, None] == b.ey[None, :])
    if not in_motion:
        return same
    rx = a.px[:, None] - b.px[None, :]
    ry = a.py[:, None] - b.py[None, :]
    wx = (a.qx - a.px)[:, None] - (b.qx - b.px)[None, :]
    wy = (a.qy - a.py)[:, None] - (b.qy - b.py)[None, :]
    ww = wx * wx + wy * wy
    num = -(rx * wx + ry * wy)  # t = num / ww when the relative motion runs through the origin
    line = (ww > 0) & (rx * wy - ry * wx == 0) & (num > 0)
    stop = np.minimum(a.tend[:, None], b.tend[None, :])
    met = line & (num <= stop * ww + 1e-9 * ww)
    return same | (both & met)


@dataclass(frozen=True)
class CarOptions:
    """One car's legal targets this phase and what each leads to (as a lone car would).

    ``value``: moves to the finish after taking it (this move included; UNKNOWN where the
    table has no answer); ``spun``: the same if the car is spun to rest where it lands;
    ``succ``: the table's state after it (FIN, or -1 where unknown); ``skips``: the car
    misses its next turn; ``moves``: the geometry for the collision check.
    """

    car: int
    nodes: tuple[Vec, ...]
    value: np.ndarray
    spun: np.ndarray
    succ: tuple[int, ...]
    cost: tuple[int, ...]
    skips: tuple[bool, ...]
    moves: Segments
    box: tuple[int, int, int, int]
    standing: bool = False  # the car does not choose (misses its turn, or has no legal target)


def _situation(c: CarState) -> tuple:
    return (c.position, c.velocity, c.progress, c.skip, c.on_paper, c.offences, c.status)


def car_options(table: SolverTable, state: RaceState, car: int, cands: list[Candidate]) -> CarOptions:
    """The options of ``car`` among its legal candidates ``cands`` (see :class:`CarOptions`)."""
    c = state.cars[car]
    sid = table.state_id(c.position, c.velocity, c.progress)
    if sid < 0:
        return _options_by_referee(table, state, car, cands)
    successors = {step: (code, cost) for step, code, cost in table.successors(sid)}
    base = state.base_point(car)
    # A slipstream or catch-up target is no move of the table's (its par ignores them): the
    # referee says where it leads, the table how far that is from the finish.
    rows = [_lone_row(table, state, car, cand.node, search=True) if cand.bonus else
            _option(table, state, c, cand.node, *successors.get(cand.node - base, (-1, 1)), cand.offroad)
            for cand in cands]
    return _options_of(car, rows)


def options_from_table(table: SolverTable, state: RaceState, car: int) -> CarOptions | None:
    """The options of ``car`` read from the table alone (a rival's: no legality check by the referee).

    The table's moves are the targets the referee allows a car choosing blind (those that
    stay on the paper, and leave the road only where the rules let a driver pick that);
    None when the table does not know the car's state.
    """
    c = state.cars[car]
    sid = table.state_id(c.position, c.velocity, c.progress)
    if sid < 0:
        return None
    base = state.base_point(car)
    outcomes = table.outcomes(sid)
    moves = [(base + step, code, cost) for step, code, cost, _ in outcomes]
    if not moves:
        return None
    # A crash puts the car back on the road (not where it aimed): it stops where it left the road.
    crashes = [n for n, (_, code, _, crashed) in enumerate(outcomes) if crashed and code >= 0]
    stops = [1.0] * len(moves)
    if crashes and state.rules.crash_stops_at_exit:
        starts = np.array([[c.position.x, c.position.y]] * len(crashes), dtype=np.int64)
        ends = np.array([[moves[n][0].x, moves[n][0].y] for n in crashes], dtype=np.int64)
        leaves, num, den = state.track.region.exit_fractions(starts, ends)
        for n, left, a, b in zip(crashes, leaves, num, den):
            stops[n] = float(a) / float(b) if left else 1.0
    rows = [_option(table, state, c, node, code, cost, False, stops[n]) for n, (node, code, cost) in enumerate(moves)]
    return _options_of(car, rows)


def _option(table: SolverTable, state: RaceState, c: CarState, node: Vec, code: int, cost: int,
            offroad: bool, tend: float = 1.0) -> tuple:
    """One option's facts: (node, value, spun, successor, cost, segment row).

    ``tend``: how far along the move the car travels (a crash stops it where it leaves
    the road; for an ``offroad`` move the referee's geometry is asked here).
    """
    rules = state.rules
    if offroad and rules.crash_stops_at_exit:
        stop = state.track.region.exit_fraction(c.position, node)
        tend = 1.0 if stop is None else float(stop)
    if code == FIN:
        v = s = 1
        end, present = node, False
    elif code >= 0:
        d = table.to_go(code)
        v = UNKNOWN if d is None else cost + d
        rest = table.at_rest(code)
        r = table.to_go(rest) if rest >= 0 else None
        s = v if r is None else min(UNKNOWN, cost + r)
        end, _ = table.where(code)
        present = True
    else:  # the table does not follow this move (out of the race, or on the paper)
        v = s = UNKNOWN
        end = node
        present = not (offroad and rules.eliminates)
    return node, v, s, code, cost, (c.position.x, c.position.y, node.x, node.y, end.x, end.y, tend, present)


def _options_of(car: int, rows: list[tuple]) -> CarOptions:
    """CarOptions from rows (node, value, spun, successor, cost, segment row); a cost above 1 misses a turn."""
    nodes, value, spun, succ, costs, segments = zip(*rows)
    moves = Segments.of(list(segments))
    return CarOptions(car, tuple(nodes), np.asarray(value, float), np.asarray(spun, float), tuple(succ),
                      tuple(costs), tuple(cost > 1 for cost in costs), moves, moves.box())


def _referee_options(table: SolverTable, state: RaceState, car: int, committed: Mapping[int, Choice]) -> CarOptions:
    """A car's options among the targets the referee says are legal (standing if there are none)."""
    cands = [x for x in state.candidates(car, committed) if x.legal]
    return car_options(table, state, car, cands) if cands else _standing(table, state, car)


def _options_by_referee(table: SolverTable, state: RaceState, car: int, cands: list[Candidate]) -> CarOptions:
    """Options of a car in a state a lone car never reaches (after a spin, a set-back...).

    Asks the referee where each target leads, then reads the table there.
    """
    return _options_of(car, [_lone_row(table, state, car, cand.node) for cand in cands])


def _lone_row(table: SolverTable, state: RaceState, car: int, node: Vec, search: bool = False) -> tuple:
    """One option's facts (as :func:`_option`) from the referee's move of the car alone, read in the
    table; with ``search``, a state the table does not hold is searched (:func:`_value_after`)."""
    c = state.cars[car]
    a, move = state.lone_move(car, node)
    origin = state if search else None
    v = _value_after(table, a, origin)
    s = v if not a.racing else _value_after(table, CarState(a.name, a.position, ZERO, a.status, a.progress,
                                                            skip=a.skip), origin)
    tend = 1.0 if move.crash_time is None else move.crash_time
    return (node, v, s, -1, 1 + a.skip,
            (c.position.x, c.position.y, node.x, node.y, a.position.x, a.position.y, tend, a.racing))


def _standing(table: SolverTable, state: RaceState, car: int) -> CarOptions:
    """A car that does not choose this phase: it stands where it is."""
    c = state.cars[car]
    p = c.position
    d = table.distance(p, ZERO, c.progress)
    v = UNKNOWN if d is None else d + c.skip
    moves = Segments.of([(p.x, p.y, p.x, p.y, p.x, p.y, 0.0, True)])
    return CarOptions(car, (p,), np.asarray([v], float), np.asarray([v], float), (-1,), (1,), (False,), moves,
                      moves.box(), standing=True)


#: The most states the search for a target's value visits where the table has no answer
#: (a slipstream or catch-up target can leave a car at a speed no lone car has there).
LONE_SEARCH = 40


def _value_after(table: SolverTable, c: CarState, state: RaceState | None = None) -> int:
    """Moves to go counting the move that left the car in ``c``; where the table does not hold
    ``c`` and the ``state`` it moved from is given, a short referee search finds them."""
    if c.status == FINISHED:
        return 1
    if not c.racing:
        return UNKNOWN
    d = table.distance(c.position, c.velocity, c.progress)
    if d is None and state is not None and not c.on_paper:
        solo = RaceState(track=state.track, rules=state.rules, laps=state.laps, seed=state.seed, cars=(c,),
                         phase=state.phase + 1)
        found = remaining(table, solo, 0, limit=LONE_SEARCH)
        return UNKNOWN if found is None else 1 + found
    return UNKNOWN if d is None else 1 + c.skip + d


def target_values(table: SolverTable, state: RaceState, car: int, cands: list[Candidate]) -> dict[Vec, int]:
    """Moves to the finish after each candidate, for a car alone (UNKNOWN where the table has no answer)."""
    options = car_options(table, state, car, cands)
    return {node: int(v) for node, v in zip(options.nodes, options.value)}


def _move_value(table: SolverTable, code: int, cost: int) -> int:
    """Moves to go after a table move (FIN: this one; UNKNOWN where it cannot finish)."""
    if code == FIN:
        return 1
    d = table.to_go(code)
    return UNKNOWN if d is None else cost + d


def _softmax(costs: np.ndarray, temperature: float) -> np.ndarray:
    w = np.exp(-(costs - costs.min()) / temperature)
    return w / w.sum()


def _overlap(a: tuple, b: tuple, margin: int) -> bool:
    return a[0] - margin <= b[2] and b[0] - margin <= a[2] and a[1] - margin <= b[3] and b[1] - margin <= a[3]


# -- the traffic model ----------------------------------------------------------------------

class TrafficModel:
    """One phase as the CPUs see it: each car's options and how likely it takes each.

    Built from the state (and, under ordered choosing, the picks made so far this phase);
    ``kinds`` of the cars come from the CPUs that chose in this race (:meth:`_Shared.seat`),
    other cars are taken for players (:data:`HUMAN`). See the module docstring for the
    scoring; :meth:`scores` gives one car's expected moves to go for each of its targets.
    """

    #: Rounds of every car answering the others' likely picks, and how much each round moves them.
    ROUNDS, DAMPING = 2, 0.5
    #: Rival targets less likely than this are left out of the second phase's look-ahead.
    LIKELY = 0.04

    def __init__(self, shared: _Shared, table: SolverTable, state: RaceState, committed: Mapping[int, Choice]) -> None:
        self.table, self.state, self.rules = table, state, state.rules
        rules = state.rules
        self.kinds = kinds = shared.kinds(state)
        self.levels = {k: LEVELS.get(kinds.get(k, ""), HUMAN) for k in range(len(state.cars))}
        self.collisions = rules.collisions_matter
        self.blocking = rules.blocking and not rules.simultaneous
        self.in_motion = rules.collide_in_motion
        self.out = rules.collision_eliminates
        self.order = state.order()
        self.committed = dict(committed)
        self.options: dict[int, CarOptions] = {}
        self.fixed: dict[int, int] = {}  # car -> index of the option it surely takes
        for k, c in enumerate(state.cars):
            if not c.racing:
                continue
            choice = committed.get(k)
            if isinstance(choice, Retire):
                continue
            if c.skip:
                self.options[k] = _standing(table, state, k)
                self.fixed[k] = 0
                continue

            def read(k=k):
                # From the table: several times quicker than asking the referee (outlines above
                # all). Blocking by the cars that chose earlier is left out: the chooser's own
                # legal targets come from the referee (see _CpuDriver.scored).
                return options_from_table(table, state, k) or _referee_options(table, state, k, {})
            extra = state.bonus_steps(k)
            if extra and rules.blocking:  # what blocks depends on where the others stand: not kept
                options = _referee_options(table, state, k, {})
            elif extra:  # slipstream, catch-up: targets beyond the table's, from the referee, kept per situation
                options = shared.car_options(table, (_situation(c), extra),
                                             lambda k=k: _referee_options(table, state, k, {}))
            else:
                options = shared.car_options(table, _situation(c), read)
            if options.standing:
                self.fixed[k] = 0
            elif choice is not None:
                if choice not in options.nodes:  # a pick the table does not follow: ask the referee
                    options = _referee_options(table, state, k, committed)
                self.fixed[k] = options.nodes.index(choice) if choice in options.nodes else 0
            self.options[k] = options
        self._meet: dict[tuple[int, int], np.ndarray] = {}
        self._second: dict[tuple[int, bool], list] = {}
        self.near = {k: [j for j in self.options if j != k and _overlap(self.options[k].box, self.options[j].box, 0)]
                     for k in self.options}
        self.blind = self._blind_picks()
        self.picks = self._answered_picks() if self.collisions else self.blind

    # -- likelihoods --------------------------------------------------------
    def _point(self, k: int) -> np.ndarray:
        p = np.zeros(len(self.options[k].nodes))
        p[self.fixed[k]] = 1.0
        return p

    def _blind_picks(self) -> dict[int, np.ndarray]:
        """Each car's pick as if it were alone, by its level."""
        return {k: self._point(k) if k in self.fixed else _softmax(o.value, self.levels[k].temperature)
                for k, o in self.options.items()}

    def _answered_picks(self) -> dict[int, np.ndarray]:
        """Every car answering the others' likely picks, ROUNDS times (a damped logit response)."""
        picks = dict(self.blind)
        for _ in range(self.ROUNDS):
            new = {}
            for k, o in self.options.items():
                level = self.levels[k]
                if k in self.fixed or not level.answers or not self.near[k]:
                    new[k] = picks[k]
                    continue
                scores = self.expected(k, picks, level.caution, weights=lambda j: 1.0)
                new[k] = (1 - self.DAMPING) * picks[k] + self.DAMPING * _softmax(scores, level.temperature)
            picks = new
        return picks

    # -- collisions ---------------------------------------------------------
    def meet(self, i: int, j: int) -> np.ndarray:
        """Collision matrix between the options of cars i and j (cached, as floats)."""
        found = self._meet.get((i, j))
        if found is None:
            if (j, i) in self._meet:
                found = self._meet[(j, i)].T
            else:
                found = meets(self.options[i].moves, self.options[j].moves, self.in_motion).astype(float)
            self._meet[(i, j)] = found
        return found

    def consequence(self, options: CarOptions) -> np.ndarray:
        """Moves to go after a collision: spun to rest where it lands, or out of the race."""
        if self.out:
            return options.value + OUT_COST
        return options.spun

    def danger(self, i: int, picks: Mapping[int, np.ndarray], weights) -> np.ndarray:
        """For each option of car i: the chance that it collides with somebody."""
        safe = np.ones(len(self.options[i].nodes))
        for j in self.near[i]:
            w = weights(j)
            if w <= 0:
                continue
            hit = np.minimum(self.meet(i, j) @ picks[j] * w, 1.0)
            safe *= 1.0 - hit
        return 1.0 - safe

    def weight(self, i: int):
        """How much each rival's likely picks count for car i's collisions (the choosing order)."""
        if self.rules.simultaneous:
            return lambda j: 1.0
        position = {car: n for n, car in enumerate(self.order)}

        def weight(j: int) -> float:
            if self.rules.collision == Collision.LATER_OUT:
                return 1.0 if position[j] < position[i] else 0.0  # only a car choosing before us puts us out
            if j in self.fixed:
                return 1.0  # it chose (or stands): we know where it goes
            return 1.0 - self.levels[j].care  # it sees our pick and mostly keeps clear
        return weight

    def expected(self, i: int, picks: Mapping[int, np.ndarray], caution: float, weights=None,
                 ahead: np.ndarray | None = None) -> np.ndarray:
        """Car i's expected moves to go for each option against the others' ``picks``.

        ``ahead`` replaces the moves to go when there is no collision (the look-ahead).
        """
        options = self.options[i]
        plain = options.value if ahead is None else ahead
        if not self.collisions:
            return plain.copy()
        chance = self.danger(i, picks, weights or self.weight(i))
        return plain + caution * chance * (self.consequence(options) - plain)

    # -- choosing ---------------------------------------------------------------
    def scores(self, car: int, look_ahead: bool = False, answered: bool = True, caution: float = 1.0,
               known: Mapping[int, int] | None = None) -> np.ndarray:
        """Expected moves to go for each of ``car``'s options (``self.options[car].nodes``).

        ``answered``: read the rivals as answering the traffic (else as driving blind);
        ``look_ahead``: also weigh the collisions of the phase after, where rivals can reach;
        ``known``: rivals whose pick is known (car -> option index), as a twin's is.
        """
        picks = self.picks if answered else self.blind
        if known:
            picks = dict(picks)
            for j, n in known.items():
                picks[j] = np.zeros(len(self.options[j].nodes))
                picks[j][n] = 1.0
        ahead = None
        if look_ahead and (self.collisions or self.blocking):
            ahead = self.second_phase(car, picks, fresh=set(known or ()))
        if not self.collisions and ahead is None:
            return self.options[car].value.copy()
        return self.expected(car, picks, caution, ahead=ahead)

    def twins(self, car: int, kind: str) -> list[int]:
        """The other cars in exactly the same spot (node, velocity, progress) driven by a CPU of ``kind``, ``car``'s level.

        After a spin-out two cars stand on one node at rest; reasoning alike they would
        pick alike for ever. So twins follow a convention (see :meth:`_CpuDriver.scored`):
        the lower-numbered one takes its best target, the others expect that and pick around it.
        """
        c = self.state.cars[car]
        here = (c.position, c.velocity, c.progress)
        return [j for j, o in self.options.items() if j != car and not o.standing and self.kinds.get(j) == kind
                and (self.state.cars[j].position, self.state.cars[j].velocity, self.state.cars[j].progress) == here]

    def _rival_branches(self, j: int, picks: np.ndarray, fresh: bool = False,
                        stand: bool = False) -> list[tuple[float, Segments, np.ndarray]]:
        """Where rival j may drive in the phase after, branch by branch of this phase's likely picks.

        Each branch: (chance of that pick, its next moves, how likely each is then, blind by
        its level). ``stand``: instead of its next moves, the node it stands on after this
        phase (blocking, before it moves again). ``fresh``: ``picks`` are not the model's
        own (neither read nor kept in the cache).
        """
        key = (j, stand)
        if key in self._second and not fresh:
            return self._second[key]
        options = self.options[j]
        table, temperature = self.table, self.levels[j].temperature
        branches = []
        if options.standing:  # it stands this phase; the next it stands again or starts from rest
            c = self.state.cars[j]
            here = c.position
            rest = table.state_id(here, ZERO, c.progress)
            if c.skip > 1 or rest < 0 or stand:
                branches.append((1.0, *_standing_move(here)))
            else:
                branches.append((1.0, *self._moves_from(rest, here, ZERO, temperature)))
        else:
            for n, p in enumerate(picks):
                code = options.succ[n]
                if p < self.LIKELY or not options.moves.present[n] or code < 0:
                    continue
                here, velocity = table.where(code)
                if options.skips[n] or stand:
                    branches.append((float(p), *_standing_move(here)))
                else:
                    branches.append((float(p), *self._moves_from(code, here, velocity, temperature)))
        if not fresh:
            self._second[key] = branches
        return branches

    def _moves_from(self, sid: int, here: Vec, velocity: Vec, temperature: float) -> tuple[Segments, np.ndarray]:
        """The moves of a car in table state ``sid`` and how likely each is (blind, by ``temperature``)."""
        table = self.table
        nxt = table.successors(sid)
        if not nxt:
            return _standing_move(here)
        likely = _softmax(np.asarray([_move_value(table, c2, cost2) for _, c2, cost2 in nxt], float), temperature)
        base = here + velocity
        rows, weights = [], []
        for (step, c2, _), w in zip(nxt, likely):
            if w < self.LIKELY * 0.5:
                continue
            q = base + step
            end = q if c2 == FIN else table.where(c2)[0]
            rows.append((here.x, here.y, q.x, q.y, end.x, end.y, 1.0, c2 != FIN))
            weights.append(w)
        return Segments.of(rows), np.asarray(weights, float) / sum(weights)

    def second_phase(self, car: int, picks: Mapping[int, np.ndarray], fresh: set[int] = frozenset()) -> np.ndarray | None:
        """Moves to go after each option when the phase after it is played in traffic too.

        For each option: the best next target's moves to go, plus for each rival that can
        get near, for each of its likely picks now, what it costs us next phase to choose
        around where it then drives (its blind picks from there) — weighted by the chance
        of that pick. (We will see where it went before we choose again; we will not see
        its next pick.) None when no rival can get near: the table's own values hold.
        """
        options = self.options[car]
        if options.standing:
            return None
        table = self.table
        speed = self.state.cars[car].velocity.chebyshev()
        rivals = [j for j in self.options if j != car and _overlap(
            options.box, self.options[j].box, speed + self.state.cars[j].velocity.chebyshev() + 4)]
        if not rivals:
            return None
        best = float(options.value.min())
        ahead = options.value.copy()
        rows, owner, values, spun = [], [], [], []
        for n, code in enumerate(options.succ):
            if code < 0 or options.skips[n] or options.value[n] > best + 3:
                continue
            here, velocity = table.where(code)
            base = here + velocity
            for step, c2, cost2 in table.successors(code):
                d = 0 if c2 == FIN else table.to_go(c2)
                if d is None:
                    continue
                q = base + step
                v = 1 if c2 == FIN else cost2 + d
                if c2 == FIN:
                    s, end = v, q
                else:
                    rest = table.at_rest(c2)
                    r = table.to_go(rest) if rest >= 0 else None
                    s = v if r is None else cost2 + r
                    end = table.where(c2)[0]
                rows.append((here.x, here.y, q.x, q.y, end.x, end.y, 1.0, c2 != FIN))
                owner.append(n)
                values.append(v)
                spun.append(s)
        if not rows:
            return None
        mine = Segments.of(rows)
        values_a = np.asarray(values, float)
        if self.blocking:
            cost = values_a + BLOCKED_COST
        elif self.out:
            cost = values_a + OUT_COST
        else:
            cost = np.asarray(spun, float)
        owner_a = np.asarray(owner)
        groups = np.flatnonzero(np.r_[True, owner_a[1:] != owner_a[:-1]])  # owners come in runs
        plain = np.minimum.reduceat(values_a, groups)
        regret = np.zeros(len(groups))
        after = replace(self.state, phase=self.state.phase + 1).order() if self.blocking else ()
        for j in rivals:
            care = 1.0 if self.rules.simultaneous else 1.0 - self.levels[j].care
            stand = False
            if self.blocking:
                # Next phase a rival choosing before us blocks where it lands then; one choosing
                # after us blocks where it stands now, unless only cars that moved block.
                stand = after.index(j) > after.index(car)
                if stand and self.rules.only_moved_cars_block:
                    continue
            for chance, segs, weights in self._rival_branches(j, picks[j], fresh=j in fresh, stand=stand):
                if self.blocking:  # a node it stands on is closed to us
                    hit = ((mine.qx[:, None] == segs.ex[None, :]) & (mine.qy[:, None] == segs.ey[None, :])
                           ).astype(float) @ weights
                else:
                    hit = meets(mine, segs, self.in_motion).astype(float) @ weights * care
                if not hit.any():
                    continue
                expected = values_a + np.minimum(hit, 1.0) * (cost - values_a)
                regret += chance * (np.minimum.reduceat(expected, groups) - plain)
        for k, start in enumerate(groups):
            n = owner[start]
            ahead[n] = options.cost[n] + plain[k] + regret[k]
        return ahead


def _standing_move(here: Vec) -> tuple[Segments, np.ndarray]:
    """A car standing still at ``here`` (certainly)."""
    return Segments.of([(here.x, here.y, here.x, here.y, here.x, here.y, 0.0, True)]), np.ones(1)


# -- the drivers ------------------------------------------------------------------------------

class _CpuDriver:
    """Shared plumbing: the legal candidates, their scores in traffic, retiring when a race drags on.

    Under the movement systems the exact solver does not search, a driver hands its
    choice to a specialist of the same level: :class:`~game.drivers.fine.FineDriver` on
    fine paper, and the pen-flick CPU (``game.drivers.flick``) in the party mode.
    """

    kind = "cpu"
    is_human = False

    def __init__(self, shared: _Shared | None = None) -> None:
        self.shared = shared if shared is not None else _Shared()

    def _specialist(self, state: RaceState):
        """The driver that plays this level here, or None for the solver's table.

        The movement systems the solver does not search have their own; where no table
        fits the memory budget, the route heuristic of fine paper drives (it is safe on
        any paper).
        """
        if not supports(state.rules):
            night = "night-" if state.rules.night else ""  # fine paper and flick plan at night too
            return self.shared.specialist(night + state.rules.movement, self.kind)
        if state.rules.night:  # plans on the road it has seen, never the table (game.drivers.night)
            return self.shared.specialist("night", self.kind)
        if self.shared.table(state) is None:
            return self.shared.specialist(Movement.FINE, self.kind)
        return None

    def choose(self, state: RaceState, car: int, committed: Mapping[int, Choice], rng: random.Random | None) -> Choice:
        """This level's pick for ``car``; ``rng`` None draws from the race's own seed (as race control would)."""
        if rng is None:
            rng = random.Random(f"{state.seed}/cpu/{car}/{state.phase}")
        self.shared.seat(state, car, self.kind)
        if state.phase >= self.shared.patience(state):
            return RETIRE  # the race has dragged on far too long: give up so that it ends
        specialist = self._specialist(state)
        if specialist is not None:
            return specialist.choose(state, car, committed, rng)
        legal = [c.node for c in state.candidates(car, committed) if c.legal]
        if not legal:
            return RETIRE  # race control never asks a car without a legal target; be safe anyway
        return self._pick(state, car, committed, rng, self.scored(state, car, committed, legal))

    def scored(self, state: RaceState, car: int, committed: Mapping[int, Choice], legal: list[Vec]) -> Scored:
        """The car's legal targets with this level's scores (the traffic model's, read in this level's way)."""
        model = self.shared.model(self.shared.table(state), state, committed)
        options = model.options[car]
        twins = model.twins(car, self.kind) if model.collisions and self.follows_twins else []
        known: dict[int, int] = {}
        for j in sorted(j for j in twins if j < car):  # each lower twin picks knowing the ones below it
            known[j] = int(np.argmin(self._scores(model, j, dict(known))))
        scores = self._scores(model, car, known)
        if model.collisions:
            danger = model.danger(car, model.picks, model.weight(car))
            risk = danger * np.maximum(model.consequence(options) - options.value, 0.0)
        else:
            danger = risk = np.zeros(len(scores))
        index = {node: n for n, node in enumerate(options.nodes)}
        at = [index.get(node) for node in legal]  # a legal target the table does not follow scores UNKNOWN
        return Scored(tuple(legal), np.asarray([UNKNOWN if n is None else scores[n] for n in at], float),
                      np.asarray([0.0 if n is None else danger[n] for n in at], float),
                      np.asarray([0.0 if n is None else risk[n] for n in at], float),
                      leads=bool(twins) and not known, twinned=bool(twins))

    #: Whether this level keeps the twins' convention (a level that picks with noise cannot).
    follows_twins = True
    #: Whether, among targets of equal score, it takes one that ends in a rival's slipstream
    #: (the Pro and the Champion; the Rookie does not think of it). Tools compare races with it off.
    seeks_slipstream = False

    def _draft(self, state: RaceState, car: int, committed: Mapping[int, Choice], scored: Scored) -> set[int]:
        """The targets that end in a slipstream, when this level seeks one (none for a car with twins:
        they expect it to take the first of its equal bests)."""
        if not self.seeks_slipstream or scored.twinned:
            return set()
        return slipstream_ends(state, car, committed, scored.nodes)

    def _scores(self, model: TrafficModel, car: int, known: Mapping[int, int] | None = None) -> np.ndarray:
        """This level's score of each of the model's options for the car (lower is better).

        ``known``: rivals whose pick is known (car -> option index).
        """
        raise NotImplementedError

    def _pick(self, state: RaceState, car: int, committed: Mapping[int, Choice], rng: random.Random,
              scored: Scored) -> Choice:
        """This level's choice among the legal targets, given their scores."""
        raise NotImplementedError


@dataclass(frozen=True)
class Scored:
    """A car's legal targets this phase, each with its score (expected moves to go) and chance of a collision."""

    nodes: tuple[Vec, ...]
    scores: np.ndarray
    danger: np.ndarray
    risk: np.ndarray  # the moves a collision is expected to cost (its chance times what it costs)
    leads: bool = False  # the lowest-numbered of twins: it takes its best target, as its twins expect
    twinned: bool = False  # it has twins: it takes the first of equal bests, as they expect (no slipstream seeking)


def slipstream_ends(state: RaceState, car: int, committed: Mapping[int, Choice], nodes) -> set[int]:
    """The indexes of ``nodes`` (targets of ``car``) that end this phase in a rival's slipstream
    if the rival drives on as it goes (to its pick, when the car has seen it, else its base
    point): :func:`game.core.bonus.in_slipstream`. Empty unless ``slipstream = on``."""
    if not state.rules.slipstream:
        return set()
    here = state.cars[car].position
    scale = state.track.scale
    found: set[int] = set()
    for j, other in enumerate(state.cars):
        if j == car or not other.racing:
            continue
        picked = None if state.rules.simultaneous else committed.get(j)
        end = picked if isinstance(picked, Vec) else state.base_point(j)
        if end == other.position:
            continue  # a car standing still gives no slipstream
        found.update(n for n, node in enumerate(nodes)
                     if n not in found and in_slipstream(node, node - here, other.position, end, scale))
    return found


def _draw_near_best(scored: Scored, allowed: list[int], rng: random.Random, temperature: float,
                    draft: set[int] = frozenset()) -> Vec:
    """The best of the allowed targets (the first of equal bests, or of those the first in
    ``draft``: a slipstream that costs nothing), unless it is contested.

    When the best is *contested* (a rival likely wants the same node: a collision chance
    above CONTESTED, or one expected to cost more than CONTESTED_RISK moves) the pick is drawn with ``rng`` among all the allowed targets, each as
    likely as ``exp(-(score - best) / temperature)``: two cars reasoning alike would
    otherwise pick the same node again and again. The lowest-numbered of twins never
    draws: its twins expect its best.
    """
    scores = scored.scores
    best_n = min(allowed, key=lambda n: (scores[n], n not in draft))
    if scored.leads or (scored.danger[best_n] <= CONTESTED and scored.risk[best_n] <= CONTESTED_RISK):
        return scored.nodes[best_n]
    best = scores[best_n]
    weights = [math.exp(-(scores[n] - best) / temperature) for n in allowed]
    return scored.nodes[rng.choices(allowed, weights=weights)[0]]




def _undoomed(shared: _Shared, state: RaceState, car: int, committed: Mapping[int, Choice],
              nodes: tuple[Vec, ...]) -> list[int]:
    """Indices of the targets that are not doomed (all of them under lenient penalties, or if all are)."""
    every = list(range(len(nodes)))
    # Under the restart penalties the table prices a crash exactly (a crash can even be the
    # quickest brake), so there a doomed line is judged by its moves like any other.
    if not state.rules.harsh_offroad:
        return every
    doomed = doomed_targets(state, car, committed, shared.oracle(state))
    return [n for n in every if nodes[n] not in doomed] or every


class ChampionDriver(_CpuDriver):
    """Plays the exact optimum (alone: exactly par moves); in traffic, the best expected line two phases deep."""

    kind = "cpu:champion"
    seeks_slipstream = True

    def _scores(self, model: TrafficModel, car: int, known: Mapping[int, int] | None = None) -> np.ndarray:
        return model.scores(car, look_ahead=True, known=known)

    def _pick(self, state, car, committed, rng, scored):
        return _draw_near_best(scored, list(range(len(scored.nodes))), rng, MIXING,
                               self._draft(state, car, committed, scored))


class ProDriver(_CpuDriver):
    """Near-optimal: now and then (``slack`` of the time) takes a line one move slower.

    Where leaving the road ends the race or costs more than the table counts
    (``RuleSet.harsh_offroad``) it never takes a doomed target. In traffic it weighs this
    phase's collisions only (no second phase).
    """

    kind = "cpu:pro"
    seeks_slipstream = True

    def __init__(self, shared: _Shared | None = None, slack: float = 0.1) -> None:
        super().__init__(shared)
        self.slack = slack

    def _scores(self, model: TrafficModel, car: int, known: Mapping[int, int] | None = None) -> np.ndarray:
        return model.scores(car, known=known)

    def _pick(self, state, car, committed, rng, scored):
        allowed = _undoomed(self.shared, state, car, committed, scored.nodes)
        best = min(scored.scores[n] for n in allowed)
        if rng.random() < self.slack:
            slower = [n for n in allowed if best < scored.scores[n] <= best + 1.5]
            if slower:
                return scored.nodes[rng.choice(slower)]
        return _draw_near_best(scored, allowed, rng, MIXING, self._draft(state, car, committed, scored))


class RookieDriver(_CpuDriver):
    """A hesitant beginner: reads the distances through a blur, and often forgets to brake.

    Each target's score gets seeded noise (``noise`` moves, one standard deviation); and
    ``late`` of the time it only considers targets at which it keeps its speed, so it
    brakes late and sometimes leaves the road. Under ``RuleSet.harsh_offroad`` it refuses
    doomed targets, so it still finishes. In traffic it reads the rivals as driving
    blind and weighs only half of what a collision costs.
    """

    kind = "cpu:rookie"

    def __init__(self, shared: _Shared | None = None, noise: float = 1.0, late: float = 0.3) -> None:
        super().__init__(shared)
        self.noise, self.late = noise, late

    follows_twins = False

    def _scores(self, model: TrafficModel, car: int, known: Mapping[int, int] | None = None) -> np.ndarray:
        return model.scores(car, answered=False, caution=LEVELS[self.kind].caution)

    def _pick(self, state, car, committed, rng, scored):
        allowed = _undoomed(self.shared, state, car, committed, scored.nodes)
        position = state.cars[car].position
        speed = state.cars[car].velocity.chebyshev()
        if speed and rng.random() < self.late:
            keep = [n for n in allowed if (scored.nodes[n] - position).chebyshev() >= speed]
            allowed = keep or allowed
        noisy = {n: scored.scores[n] + rng.gauss(0.0, self.noise) for n in allowed}
        return scored.nodes[min(allowed, key=noisy.__getitem__)]


KINDS = {"cpu:champion": ChampionDriver, "cpu:pro": ProDriver, "cpu:rookie": RookieDriver}


def make_driver(kind: str, solver: Solver | None = None, shared: _Shared | None = None):
    """A CPU driver of the given kind: ``"cpu:champion"``, ``"cpu:pro"`` or ``"cpu:rookie"``.

    Drivers made with the same ``shared`` (or ``solver``) share their tables, and model
    each other's levels in traffic (a car no shared CPU drives is taken for a player).
    """
    cls = KINDS.get(kind)
    if cls is None:
        raise UnknownDriverError(f"unknown driver kind {kind!r}; choose one of {', '.join(KINDS)}")
    if shared is None:
        shared = _Shared(solver=solver if solver is not None else Solver())
    return cls(shared)


def stand_in(kind: str, shared: _Shared) -> _CpuDriver:
    """A CPU of ``kind`` that picks for a seat it does not drive (say, a player whose move timer ran out).

    It reads the same tables as the drivers made with ``shared``, but they do not take
    that seat for a CPU of its level (a driver made with ``shared`` would be).
    """
    return make_driver(kind, shared=_Shared(solver=shared.solver))


def make_shared(solver: Solver | None = None) -> _Shared:
    """One set of tables for several drivers (pass as ``shared=`` to :func:`make_driver`)."""
    return _Shared(solver=solver if solver is not None else Solver())
