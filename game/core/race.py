"""The race state: legal targets for a car, and one phase applied as a single joint call.

In the spirit of python-chess and OpenSpiel: :meth:`RaceState.candidates` answers
"which targets, and why not the others"; :meth:`RaceState.apply` takes every car's
choice for a phase at once and returns the next state with a :class:`PhaseRecord` of
what happened. States are immutable values, so keeping or sharing one (with a CPU
thread, an undo stack, a replay viewer) needs no copying. All randomness (the choosing
order by lot) derives from the ``seed`` given at the start.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Mapping, Sequence

from game.core.bonus import bonus_steps, choosing_order, in_slipstream, trailing
from game.core.errors import IllegalChoiceError, RaceSetupError
from game.core.geometry import PolygonRegion, meeting_time
from game.core.movement import allowed_steps, lattice, layout_key
from game.core.progress import Progress, cross_checkpoint, cross_finish
from game.core.rules import Collision as CollisionRule, Finish, OffroadCheck, Order, RuleSet, Word
from game.core.terrain import held, landing_velocity
from game.core.track import Track
from game.core.vec import ZERO, Retire, Vec

Choice = Vec | Retire
Point = tuple[float, float]



class CarStatus(Word):
    """Where a car stands in the race; equal to the word replays and screens use."""

    RACING = "racing"
    FINISHED = "finished"
    CRASHED = "crashed"
    DISQUALIFIED = "disqualified"
    RETIRED = "retired"


class EventKind(Word):
    """What an :class:`Event` reports."""

    OFF_TRACK = "off_track"
    COLLISION = "collision"
    PENALTY = "penalty"
    DISQUALIFIED = "disqualified"
    CHECKPOINT = "checkpoint"
    LAP = "lap"
    FINISH = "finish"
    RETIRE = "retire"
    TERRAIN = "terrain"
    SLIPSTREAM = "slipstream"


RACING, FINISHED, CRASHED, DISQUALIFIED, RETIRED = CarStatus
EVENT_KINDS = tuple(EventKind)
#: Statuses of cars put out of the race by the rules (not by finishing or retiring).
OUT = (CarStatus.CRASHED, CarStatus.DISQUALIFIED)


@dataclass(frozen=True)
class CarState:
    """One car: where it stands, its last move, and its standing in the race."""

    name: str
    position: Vec
    velocity: Vec = ZERO
    status: CarStatus = RACING
    progress: Progress = Progress()
    moves: int = 0
    skip: int = 0  # turns still to miss
    offences: int = 0  # slow-return offences so far
    on_paper: bool = False  # slow-return: the car is off the road
    # Where the car stood after its last phases (oldest first, the start while it is among them):
    # as many as a set-back can go back (``setback_moves``), else only the last one.
    history: tuple[tuple[Vec, Progress], ...] = ()
    finish_phase: int | None = None
    finish_key: tuple = ()  # tie-break inside the finishing phase; equal keys share a rank
    slipstream: bool = False  # ended the last phase in another car's slipstream (rules.slipstream)

    @property
    def laps_done(self) -> int:
        return self.progress.laps_done

    @property
    def racing(self) -> bool:
        return self.status == RACING


@dataclass(frozen=True)
class Candidate:
    """One target node a car could pick, and whether (and why not) it may."""

    node: Vec
    key: Vec  # its place in the on-screen layout (the step from the base point)
    legal: bool
    reason: str | None = None  # why it is illegal
    offroad: bool = False  # legal but leaving the road: it will be punished
    bonus: bool = False  # offered by slipstream or catch-up, beyond the movement system's own targets


@dataclass(frozen=True)
class Event:
    """Something a player should see: ``kind`` is one of ``EVENT_KINDS``."""

    phase: int
    car: int
    kind: str
    detail: str = ""
    point: Point | None = None
    time: float = 1.0  # when in the phase it happens, 0..1 (for the replay animation)


@dataclass(frozen=True)
class Collision:
    cars: tuple[int, ...]
    point: Point
    time: float


@dataclass(frozen=True)
class CarMove:
    """What one car did in a phase, enough to animate it.

    The pen travels from ``start`` toward ``target`` and stops at ``crash_point`` (at
    ``crash_time``) if it left the road; it then stands on ``end`` (a restart node after
    a penalty). ``target`` is None when the car missed its turn or retired.
    """

    car: int
    start: Vec
    target: Vec | None
    end: Vec
    velocity_before: Vec
    velocity_after: Vec
    status_after: str
    crash_point: Point | None = None
    crash_time: float | None = None
    retired: bool = False


@dataclass(frozen=True)
class PhaseRecord:
    """Everything that happened in one phase, in choosing order."""

    phase: int
    order: tuple[int, ...]
    choices: Mapping[int, Choice]
    moves: tuple[CarMove, ...]
    events: tuple[Event, ...]
    collisions: tuple[Collision, ...] = ()
    #: each car's moves to go the phase was chosen under (``RaceState.standing``), or None
    standing: tuple[int | None, ...] | None = None


@dataclass(frozen=True)
class Outcome:
    """The standings: ``ranks[i]`` is car i's place (None while unranked); winners share rank 1."""

    finished: bool
    ranks: tuple[int | None, ...]

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(i for i, r in enumerate(self.ranks) if r == 1)


@dataclass(frozen=True)
class _Drive:
    """The result of one car's choice before collisions are looked at."""

    car: CarState
    move: CarMove
    events: tuple[Event, ...]
    path_end_time: Fraction  # the car stops moving along its segment at this fraction


@dataclass(frozen=True)
class RaceState:
    """A race between cars on a track under a rule set, after ``phase`` phases."""

    track: Track
    rules: RuleSet
    laps: int
    seed: int
    cars: tuple[CarState, ...]
    phase: int = 0
    #: Each car's moves to go before this phase, as race control read them from the solver's
    #: table (None for a car it does not know); None when nobody gave them. Only the
    #: ``by_position`` order and catch-up read it (``rules.needs_standing``); see :meth:`with_standing`.
    standing: tuple[int | None, ...] | None = None

    # -- setting up ---------------------------------------------------------
    @classmethod
    def start(cls, track: Track, rules: RuleSet, names: Sequence[str], laps: int | None = None,
              seed: int = 0) -> RaceState:
        """Cars on the start grid, slot i for car i, in the rules' start condition."""
        laps = track.default_laps if laps is None else laps
        track = track.for_rules(rules)  # terrain = "offroad": every terrain off the road
        scale = lattice(rules.movement)
        if track.scale != scale:  # fine paper: the same track on a finer lattice
            track = track.refined(scale)
        problem = track.laps_problem(laps)
        if problem:
            raise RaceSetupError(problem)
        if not names:
            raise RaceSetupError("a race needs at least one car")
        if len(names) > len(track.start_slots):
            raise RaceSetupError(
                f"track {track.id!r} has {len(track.start_slots)} start slots, not enough for {len(names)} cars")
        velocity = track.forward_unit() * track.scale if rules.rolling_start else ZERO
        empty = Progress(balance=(0,) * len(track.checkpoints))
        cars = tuple(
            CarState(name=name, position=slot, velocity=velocity, progress=empty, history=((slot, empty),))
            for name, slot in zip(names, track.start_slots))
        return cls(track=track, rules=rules, laps=laps, seed=seed, cars=cars)

    # -- asking -------------------------------------------------------------
    def order(self) -> tuple[int, ...]:
        """The choosing order of the coming phase (grid order when choices are simultaneous).

        :meth:`apply` and :meth:`candidates` also take an explicit order for one phase, for
        games whose order was decided outside the rules (a Karopapier log: whoever logged in).
        """
        indices = list(range(len(self.cars)))
        order = self.rules.order
        if order == Order.LOT_ONCE:
            random.Random(f"{self.seed}/order").shuffle(indices)
        elif order == Order.LOT_EACH:
            random.Random(f"{self.seed}/order/{self.phase}").shuffle(indices)
        elif order in (Order.ROTATE, Order.SNAKE, Order.BY_POSITION):
            return choosing_order(order, self.phase, len(self.cars), self._racing_standing())
        return tuple(indices)

    def with_standing(self, standing: Sequence[int | None] | None) -> RaceState:
        """This state with each car's moves to go (``standing[i]`` for car i, None where not
        known), which the ``by_position`` order and catch-up read. Race control gives it
        from the solver's table before a phase is chosen; a replay gives it back as recorded.
        """
        if standing is None:
            return replace(self, standing=None)
        standing = tuple(standing)
        if len(standing) != len(self.cars) or not all(
                d is None or (type(d) is int and d >= 0) for d in standing):
            raise RaceSetupError(f"a standing lists one whole number of moves (or None) per car, not {standing!r}")
        return replace(self, standing=standing)

    def _racing_standing(self) -> tuple[int | None, ...] | None:
        """The standing with the cars out of the race (or missing a turn) left out."""
        if self.standing is None:
            return None
        return tuple(d if c.racing else None for d, c in zip(self.standing, self.cars))

    def catches_up(self, car: int) -> bool:
        """Whether ``car`` gets catch-up's extra target this phase: the rule is on and it is
        (one of) the racing cars with the most moves to go in :attr:`standing`."""
        if not self.rules.catch_up:
            return False
        return car in trailing(self._racing_standing(), [c.racing for c in self.cars])

    def bonus_steps(self, car: int) -> tuple[Vec, ...]:
        """The steps from the base point slipstream and catch-up give ``car`` this phase,
        beyond its movement system's own (see :func:`game.core.bonus.bonus_steps`)."""
        rules = self.rules
        if not rules.bonus_targets:
            return ()
        c = self.cars[car]
        slip, catch = rules.slipstream and c.slipstream, self.catches_up(car)
        if not (slip or catch):
            return ()
        own = self._steps(c)
        if own == (ZERO,) and rules.terrain_effects and held(self.track.terrain_at(c.position), c.velocity):
            return ()  # on ice the car cannot steer, so no extra target either
        return bonus_steps(rules.movement, c.velocity, own, slip, catch, self.track.scale, rules.zero_move)

    def to_choose(self) -> tuple[int, ...]:
        """Cars that must choose this phase, in choosing order (racing and not missing a turn)."""
        return tuple(i for i in self.order() if self.cars[i].racing and not self.cars[i].skip)

    def base_point(self, car: int) -> Vec:
        """Where the car goes if the driver changes nothing: its last move repeated."""
        c = self.cars[car]
        return c.position + c.velocity

    def candidates(self, car: int, committed: Mapping[int, Choice] | None = None,
                   order: Sequence[int] | None = None) -> tuple[Candidate, ...]:
        """Every target the movement system offers this car, legal or not, with the reason.

        ``committed`` holds the choices of cars that chose earlier in this phase; it
        matters only for blocking rules in ordered modes (they block where they land).
        """
        c = self.cars[car]
        if not c.racing or c.skip:
            return ()
        return self._candidates(car, self._resolve(committed or {}, car, order))

    def _candidates(self, car: int, resolved: Mapping[int, Vec | None]) -> tuple[Candidate, ...]:
        c = self.cars[car]
        if not c.racing or c.skip:
            return ()
        base = self.base_point(car)
        occupied = self._occupied(car, resolved) if self.rules.blocking else {}
        own = self._steps(c)
        extra = self.bonus_steps(car)
        steps = own + extra
        leaves = self._leaves_road_many(c, [base + step for step in steps])
        return tuple(self._judge(c, base + step, step, occupied, off, bonus=n >= len(own))
                     for n, (step, off) in enumerate(zip(steps, leaves)))

    def _leaves_road_many(self, car: CarState, nodes: Sequence[Vec]) -> list[bool]:
        """:meth:`_leaves_road` for many targets at once (one vectorised region call)."""
        # One region call pays off for outlines and for big target sets; 9 cells are quicker one by one.
        few = len(nodes) <= 32 and not isinstance(self.track.region, PolygonRegion)
        if car.on_paper or self.rules.offroad_check != OffroadCheck.SEGMENT or few:
            return [self._leaves_road(car, n) if self.track.on_paper(n) else True for n in nodes]
        import numpy as np  # here, not at the top: a race on a char map with few targets needs no arrays

        track = self.track
        on_paper = [track.on_paper(n) for n in nodes]
        ends = np.array([[n.x, n.y] for n in nodes], dtype=np.int64)
        starts = np.broadcast_to(np.array([car.position.x, car.position.y], dtype=np.int64), ends.shape)
        inside = track.region.segments_inside(starts, ends) if track.on_paper(car.position) else np.zeros(len(nodes), bool)
        return [not (paper and bool(ok)) for paper, ok in zip(on_paper, inside)]

    def _steps(self, c: CarState) -> tuple[Vec, ...]:
        if self.rules.terrain_effects and held(self.track.terrain_at(c.position), c.velocity):
            return (ZERO,)  # on ice a moving car cannot steer: its one target is the base point
        return allowed_steps(self.rules, c.velocity)

    def _judge(self, c: CarState, node: Vec, step: Vec, occupied: Mapping[Vec, int],
               leaves: bool | None = None, bonus: bool = False) -> Candidate:
        """One target: is it legal, and if not, why; does it leave the road."""
        reason = None
        offroad = False
        if not self.track.on_paper(node):
            reason = "off the paper"
        elif c.moves == 0 and self.rules.first_move_restricted and self._first_move_problem(c, node):
            reason = self._first_move_problem(c, node)
        else:
            offroad = self._leaves_road(c, node) if leaves is None else leaves
            if offroad and not self.rules.offroad_choosable:
                reason = "leaves the road"
            else:
                blocker = _blocker(c.position, node, occupied, self.rules.block_passing)
                if blocker is not None:
                    reason = f"blocked by {self.cars[blocker].name}"
        return Candidate(node, layout_key(self.rules.movement, c.velocity, step), reason is None, reason, offroad,
                         bonus)

    def _first_move_problem(self, c: CarState, node: Vec) -> str | None:
        """Why a car's first move to ``node`` breaks the start direction rule (None: it does not)."""
        hit = self.track.finish.crossing(c.position, node)
        return self.rules.first_move_problem(None if hit is None else hit[0])

    def _judge_choice(self, car: int, node: Vec, resolved: Mapping[int, Vec | None]) -> Candidate | None:
        """The candidate for one chosen node (None if the movement system does not offer it),
        without judging all the others: a flick or fine-paper move offers hundreds."""
        c = self.cars[car]
        step = node - self.base_point(car)
        bonus = False
        if step not in self._steps(c):
            if step not in self.bonus_steps(car):
                return None
            bonus = True
        occupied = self._occupied(car, resolved) if self.rules.blocking else {}
        return self._judge(c, node, step, occupied, bonus=bonus)

    def lone_move(self, car: int, target: Vec) -> tuple[CarState, CarMove]:
        """Where moving ``car`` to ``target`` this phase leads, the car alone on the track (no
        collision, no legality check): what a planner reads to value a target its tables do not
        hold, such as a slipstream or catch-up target."""
        drive = self._drive(car, target, self.phase + 1)
        return drive.car, drive.move

    def legal_targets(self, car: int, committed: Mapping[int, Choice] | None = None,
                      order: Sequence[int] | None = None) -> tuple[Vec, ...]:
        return tuple(cand.node for cand in self.candidates(car, committed, order) if cand.legal)

    def outcome(self) -> Outcome:
        """Standings now: finished cars ranked by finishing phase and the finish rule's tie-break."""
        keys = [(c.finish_phase, c.finish_key) for c in self.cars]
        ranks = tuple(
            1 + sum(1 for other in keys if other[0] is not None and other < key) if key[0] is not None else None
            for key in keys)
        return Outcome(finished=not any(c.racing for c in self.cars), ranks=ranks)

    @property
    def over(self) -> bool:
        return not any(c.racing for c in self.cars)

    # -- playing ------------------------------------------------------------
    def apply(self, choices: Mapping[int, Choice], order: Sequence[int] | None = None) -> tuple[RaceState, PhaseRecord]:
        """Play one phase with every car's choice; returns the next state and the record.

        ``choices`` maps car index to a target node or ``RETIRE``. Cars that must choose
        and have a legal target must be given one; a car whose targets are all illegal
        may be left out (it crashes, as its rules say). Raises
        :class:`IllegalChoiceError` naming the phase, the car and why. ``order`` overrides
        the rules' choosing order for this phase (a permutation of all car indices).
        """
        number = self.phase + 1
        order = self._checked_order(order, number)
        resolved: dict[int, Vec | None] = {}  # where cars that already moved this phase now stand
        drives: dict[int, _Drive] = {}
        for i in order:
            car = self.cars[i]
            choice = choices.get(i)
            if not car.racing:
                if choice is not None:
                    raise IllegalChoiceError(number, i, choice, f"{car.name} is {car.status}, not racing")
                continue
            if isinstance(choice, Retire):
                drives[i] = self._retire(i, number)
            elif car.skip:
                if choice is not None:
                    raise IllegalChoiceError(number, i, choice, f"{car.name} misses this turn")
                drives[i] = self._skip(i, number)
            else:
                if choice is None:
                    if any(c.legal for c in self._candidates(i, resolved)):
                        raise IllegalChoiceError(number, i, None, f"{car.name} has legal targets but chose none")
                    drives[i] = self._stuck(i, number)
                else:
                    found = self._judge_choice(i, choice, resolved) if isinstance(choice, Vec) else None
                    if found is None:
                        raise IllegalChoiceError(number, i, choice, "not one of the car's targets")
                    if not found.legal:
                        raise IllegalChoiceError(number, i, choice, found.reason or "illegal")
                    drives[i] = self._drive(i, choice, number)
            if i in drives and not self.rules.simultaneous:
                resolved[i] = drives[i].car.position if drives[i].car.racing else None
        cars = {i: d.car for i, d in drives.items()}
        events = [e for i in order if i in drives for e in drives[i].events]
        collisions = self._collide(order, drives, cars, events, number)
        self._rank_finishers(order, drives, cars, number)
        if self.rules.slipstream:
            self._mark_slipstreams(order, drives, cars, events, number)
        moves = []
        for i in order:
            if i in drives:
                c = cars[i]
                moves.append(replace(drives[i].move, end=c.position, velocity_after=c.velocity, status_after=c.status))
        new_cars = tuple(cars.get(i, c) for i, c in enumerate(self.cars))
        state = replace(self, cars=new_cars, phase=number, standing=None)
        record = PhaseRecord(phase=number, order=order, choices=dict(choices), moves=tuple(moves),
                             events=tuple(events), collisions=tuple(collisions), standing=self.standing)
        return state, record

    def _mark_slipstreams(self, order, drives, cars, events, number) -> None:
        """Slipstream: mark each racing car that ends the phase right behind another car
        that drove its whole move this phase, going the same way (:func:`in_slipstream`);
        every other car loses a mark it had."""
        full = {i: d.move for i, d in drives.items()
                if d.move.target is not None and cars[i].racing and cars[i].position == d.move.target}
        for i in order:
            car = cars.get(i)
            if car is None:
                continue
            behind = None
            if i in full and car.velocity != ZERO:
                behind = next((j for j in order if j != i and j in full and in_slipstream(
                    car.position, car.velocity, full[j].start, cars[j].position, self.track.scale)), None)
            if behind is not None:
                events.append(Event(number, i, "slipstream", f"{car.name} is in {cars[behind].name}'s slipstream",
                                    _pt(car.position), 1.0))
            if car.slipstream != (behind is not None):
                cars[i] = replace(car, slipstream=behind is not None)

    # -- one car ------------------------------------------------------------
    def _leaves_road(self, car: CarState, node: Vec) -> bool:
        """Whether moving ``car`` to ``node`` counts as leaving the road under the check rule."""
        return car.on_paper or leaves_road(self.track, self.rules, car.position, car.velocity, node)

    def _checked_order(self, order: Sequence[int] | None, number: int) -> tuple[int, ...]:
        if order is None:
            return self.order()
        order = tuple(order)
        if sorted(order) != list(range(len(self.cars))):
            raise IllegalChoiceError(number, -1, order, f"the order must list every car once, not {list(order)}")
        return order

    def _resolve(self, committed: Mapping[int, Choice], until: int,
                 order: Sequence[int] | None = None) -> dict[int, Vec | None]:
        """Where the cars choosing before ``until`` this phase will stand (None: gone).

        Mirrors :meth:`apply`: committed targets are driven, retirements leave, and a car
        before ``until`` with no legal target is crashed as its rules say. Blind
        (simultaneous) choosing sees none of it.
        """
        resolved: dict[int, Vec | None] = {}
        if self.rules.simultaneous:
            return resolved
        for j in self._checked_order(order, self.phase + 1):
            other = self.cars[j]
            if j == until:
                break
            if not other.racing or (other.skip and not isinstance(committed.get(j), Retire)):
                continue
            choice = committed.get(j)
            if isinstance(choice, Retire):
                resolved[j] = None
                continue
            if choice is None:
                if any(c.legal for c in self._candidates(j, resolved)):
                    continue  # not chosen yet: it still stands where it is
                drive = self._stuck(j, self.phase + 1)
            else:
                drive = self._drive(j, choice, self.phase + 1)
            resolved[j] = drive.car.position if drive.car.racing else None
        return resolved

    def _occupied(self, car: int, resolved: Mapping[int, Vec | None]) -> dict[Vec, int]:
        """Nodes where other racing cars stand when ``car`` chooses (blocking rules).

        ``resolved`` holds the cars that already moved this phase; with ``blockers =
        "moved"`` only those block (a car still to move is about to leave its node), and
        a car missing its turn, which stands where it is all phase, whatever the order.
        """
        occupied: dict[Vec, int] = {}
        moved_only = self.rules.only_moved_cars_block
        for j, other in enumerate(self.cars):
            if j == car or not other.racing or (moved_only and j not in resolved and not other.skip):
                continue
            spot = resolved.get(j, other.position)
            if spot is not None:
                occupied[spot] = j
        return occupied

    def _retire(self, i: int, number: int) -> _Drive:
        car = self.cars[i]
        move = CarMove(i, car.position, None, car.position, car.velocity, car.velocity, RETIRED, retired=True)
        return _Drive(replace(car, status=RETIRED), move,
                      (Event(number, i, "retire", f"{car.name} retires", _pt(car.position), 0.0),), Fraction(0))

    def _after_phase(self, car: CarState, position: Vec, velocity: Vec, progress: Progress, **changes) -> CarState:
        # Only a set-back looks into the history, and never further than setback_moves back:
        # keeping just that much makes a phase cost the same however long the race has run.
        keep = self.rules.history_kept
        history = car.history[-(keep - 1):] + ((position, progress),) if keep > 1 else ((position, progress),)
        return replace(car, position=position, velocity=velocity, progress=progress, moves=car.moves + 1,
                       history=history, **changes)

    def _skip(self, i: int, number: int) -> _Drive:
        car = self.cars[i]
        new = self._after_phase(car, car.position, ZERO, car.progress, skip=car.skip - 1)
        move = CarMove(i, car.position, None, car.position, car.velocity, ZERO, RACING)
        return _Drive(new, move, (Event(number, i, "penalty", f"{car.name} misses a turn", _pt(car.position), 0.0),),
                      Fraction(0))

    def _stuck(self, i: int, number: int) -> _Drive:
        """A car with no legal target crashes: set back, stopped, or out, as the penalty says.

        A set-back car goes to where it stood ``setback_moves`` moves ago, even if another
        car stands there now (as on Karopapier; blocking only limits what a driver picks).
        """
        car, rules = self.cars[i], self.rules
        here = _pt(car.position)
        events = [Event(number, i, "off_track", f"{car.name} has no legal move and crashes", here, 0.0)]
        if rules.sets_back:
            back = max(0, len(car.history) - 1 - self.rules.setback_moves)
            position, progress = car.history[back]
            new = self._after_phase(car, position, ZERO, progress)
            events.append(Event(number, i, "penalty", f"set back {self.rules.setback_moves} moves", _pt(position), 1.0))
        elif rules.resets:
            new = self._after_phase(car, car.position, ZERO, car.progress, skip=self._crash_skips(car.velocity))
            events.append(Event(number, i, "penalty", "spins to a stop", here, 1.0))
        else:
            new = replace(car, status=CRASHED, moves=car.moves + 1)
            events.append(Event(number, i, "penalty", "out of the race", here, 1.0))
        move = CarMove(i, car.position, None, new.position, car.velocity, new.velocity, new.status,
                       crash_point=here, crash_time=0.0)
        return _Drive(new, move, tuple(events), Fraction(0))

    def _drive(self, i: int, target: Vec, number: int) -> _Drive:
        """Move one car to its chosen target, applying the off-road rules (not collisions)."""
        car, rules, track = self.cars[i], self.rules, self.track
        p, velocity = car.position, target - car.position
        events: list[Event] = []
        left = self._leaves_road(car, target)
        stop = self._travel(car, target, left)  # how far along its segment the car really travels
        changes: dict = {}
        end, new_velocity = target, velocity
        crash_point = crash_time = None
        if left and rules.crash_stops_car:
            crash_point = _lerp(p, target, stop)
            crash_time = float(stop)
            events.append(Event(number, i, "off_track", f"{car.name} leaves the road", crash_point, crash_time))
        progress, finished_at, gate_events = self._cross_gates(i, car, p, target, stop, number)
        events += gate_events
        if finished_at is not None:
            left = False  # crossing the line first makes the finish count; the run-off does not matter
        elif left and rules.resets:
            end, new_velocity = track.nearest_road_node(crash_point), ZERO
            progress = self._teleport(progress, crash_point, end)
            skips = changes["skip"] = self._crash_skips(velocity)
            what = "back on the road at rest" + (", misses a turn" if skips == 1 else
                                                 f", misses {skips} turns" if skips else "")
            events.append(Event(number, i, "penalty", what, _pt(end), crash_time))
        elif left and rules.eliminates:
            end, new_velocity = p, ZERO
            changes["status"] = CRASHED
            events.append(Event(number, i, "penalty", "out of the race", crash_point, crash_time))
        elif rules.slow_return and (left or car.on_paper):
            if not track.on_road(target):
                changes["on_paper"] = True
                if not car.on_paper:
                    events.append(Event(number, i, "off_track", f"{car.name} drives onto the paper", _pt(target), 1.0))
            else:
                changes["on_paper"] = False
                if velocity.chebyshev() > 1:
                    offences = car.offences + 1
                    changes["offences"] = offences
                    if offences >= 2:
                        changes["status"] = DISQUALIFIED
                        events.append(Event(number, i, "disqualified",
                                            f"{car.name} came back onto the road too fast twice", _pt(target), 1.0))
                    else:
                        changes["skip"] = 1
                        new_velocity = ZERO
                        events.append(Event(number, i, "penalty",
                                            "came back onto the road too fast: misses a turn", _pt(target), 1.0))
        if finished_at is not None:
            changes["status"] = FINISHED
            changes["finish_phase"] = number
        elif end == target and rules.terrain_effects and new_velocity != ZERO:
            new_velocity, event = self._landing(car, i, target, new_velocity, number)
            if event is not None:
                events.append(event)
        new = self._after_phase(car, end, new_velocity, progress, **changes)
        move = CarMove(i, p, target, end, car.velocity, new_velocity, new.status,
                       crash_point=crash_point, crash_time=crash_time)
        return _Drive(new, move, tuple(events), stop)

    def _crash_skips(self, velocity: Vec) -> int:
        """Turns a car crashing at ``velocity`` misses (its speed in squares: the larger axis, rounded up)."""
        return self.rules.crash_skips_at(-(-velocity.chebyshev() // self.track.scale))

    def _landing(self, car: CarState, i: int, target: Vec, velocity: Vec, number: int) -> tuple[Vec, Event | None]:
        """The velocity a move keeps where it lands (sand, mud, a curb: :mod:`game.core.terrain`) and what to tell."""
        kind = self.track.terrain_at(target)
        after = landing_velocity(kind, velocity, self.track.scale)
        if after == velocity:
            return velocity, None
        what = ("spins out on the curb" if after == ZERO and kind == "curb" else
                f"slowed by the {kind}")
        return after, Event(number, i, "terrain", f"{car.name} {what}", _pt(target), 1.0)

    def _travel(self, car: CarState, target: Vec, left: bool) -> Fraction:
        """How far along its segment a car moving to ``target`` really travels: to where it
        leaves the road when a crash stops it there, else all the way."""
        if left and self.rules.crash_stops_at_exit:
            stop = self.track.region.exit_fraction(car.position, target)
            if stop is not None:
                return stop
        return Fraction(1)

    def finishes(self, i: int, target: Vec) -> bool:
        """Whether moving car ``i`` to ``target`` finishes its race: it crosses the line on its
        last lap before any crash stops it, as :meth:`apply` counts it (a collision later in
        the phase cannot take a finish back). The doomed-target marks ask this: a move that
        finishes the race is never doomed, whatever lies past the line.
        """
        car = self.cars[i]
        stop = self._travel(car, target, self._leaves_road(car, target))
        return self._cross_gates(i, car, car.position, target, stop, self.phase + 1)[1] is not None

    def _cross_gates(self, i: int, car: CarState, p: Vec, q: Vec, stop: Fraction, number: int):
        """Count the checkpoint and finish crossings of a move up to ``stop``.

        Returns the new progress, the fraction at which the car finished (or None) and events.
        """
        track = self.track
        crossings = []
        # formula1: the first move's crossing of the line starts lap 1 and counts nothing
        starting = car.moves == 0 and self.rules.first_crossing_starts_lap
        gates = (track.finish, *track.checkpoints)
        for gate in gates:
            hit = gate.crossing(p, q)
            if hit is not None and hit[1] <= stop:
                crossings.append((hit[1], gate.number, hit[0], gate))
        crossings.sort(key=lambda item: (item[0], item[1]))
        progress = car.progress
        events: list[Event] = []
        for t, _, direction, gate in crossings:
            point = _lerp(p, q, t)
            if gate is track.finish and starting:
                if direction == 1:  # (the judge refuses any other first move; said for the screen)
                    events.append(Event(number, i, "lap", f"{car.name} starts lap 1", point, float(t)))
            elif gate is track.finish:
                progress, lap = self._cross_finish(progress, direction)
                if lap:
                    if progress.laps_done >= self.laps:
                        events.append(Event(number, i, "finish", f"{car.name} finishes", point, float(t)))
                        return progress, t, events
                    events.append(Event(number, i, "lap", f"lap {progress.laps_done} of {self.laps}", point, float(t)))
            else:
                progress, counted = self._cross_checkpoint(progress, gate, direction)
                if counted:
                    events.append(Event(number, i, "checkpoint", f"checkpoint {gate.number}", point, float(t)))
        return progress, None, events

    def _cross_finish(self, progress: Progress, direction: int) -> tuple[Progress, bool]:
        return cross_finish(progress, direction, self.rules, len(self.track.checkpoints))

    def _cross_checkpoint(self, progress: Progress, gate, direction: int) -> tuple[Progress, bool]:
        return cross_checkpoint(progress, self.track.checkpoints.index(gate), direction, self.rules)

    def _teleport(self, progress: Progress, start: Point, end: Vec) -> Progress:
        """A penalty moves the car without driving: line gates it is put back across are undone."""
        for gate in (self.track.finish, *self.track.checkpoints):
            if not gate.is_line:
                continue
            before, after = gate.signed_distance(start), gate.signed_distance(_pt(end))
            if before >= 0 > after and _between(gate, start, _pt(end)):
                if gate is self.track.finish:
                    progress = replace(progress, finish_debt=progress.finish_debt + 1)
                else:
                    progress, _ = self._cross_checkpoint(progress, gate, -1)
        return progress

    # -- all cars -----------------------------------------------------------
    def _collide(self, order, drives, cars, events, number) -> list[Collision]:
        """Find cars whose tips meet (or, optionally, that meet while moving) and apply the rule."""
        rules = self.rules
        rule = rules.collision
        if not rules.meetings_possible:
            return []  # blocking made meetings impossible
        present = [i for i in order if i in cars and cars[i].racing]
        groups: list[tuple[tuple[int, ...], Point, Fraction]] = []
        by_node: dict[Vec, list[int]] = {}
        for i in present:
            by_node.setdefault(cars[i].position, []).append(i)
        for node, members in by_node.items():
            if len(members) > 1:
                groups.append((tuple(members), _pt(node), Fraction(1)))
        if self.rules.collide_in_motion:
            seen = {frozenset(g[0]) for g in groups}
            for a_pos, a in enumerate(present):
                for b in present[a_pos + 1:]:
                    ma, mb = drives[a].move, drives[b].move
                    qa = ma.target or ma.start
                    qb = mb.target or mb.start
                    t = meeting_time(ma.start, qa, mb.start, qb)
                    if t is None or t == 0 or t > min(drives[a].path_end_time, drives[b].path_end_time) \
                            or ma.target is None and mb.target is None:
                        continue
                    if frozenset((a, b)) in seen:
                        continue
                    groups.append(((a, b), _lerp(ma.start, qa, t), t))
        result = []
        for members, point, t in groups:
            names = ", ".join(cars[m].name for m in members)
            for m in members:
                events.append(Event(number, m, "collision", f"collision: {names}", point, float(t)))
            if rule == CollisionRule.IGNORE:
                pass
            elif rules.collision_eliminates:
                out = members if rule == CollisionRule.BOTH_OUT or rules.simultaneous else members[1:]
                for m in out:
                    if cars[m].racing:
                        cars[m] = replace(cars[m], status=CRASHED)
                        events.append(Event(number, m, "penalty", "out of the race after a collision", point, float(t)))
            else:  # spin, and blocking rules when everyone chose blind
                for m in members:
                    cars[m] = replace(cars[m], velocity=ZERO)
                    events.append(Event(number, m, "penalty", "spins out to zero speed", point, float(t)))
            result.append(Collision(tuple(members), point, float(t)))
        return result

    def _rank_finishers(self, order, drives, cars, number) -> None:
        """Give cars that finished this phase their tie-break key under the finish rule."""
        rule = self.rules.finish
        for position, i in enumerate(order):
            car = cars.get(i)
            if car is None or car.finish_phase != number or car.status != FINISHED:
                continue
            if rule == Finish.FIRST and not self.rules.simultaneous:
                key = (position,)
            elif rule == Finish.FURTHEST:
                target = drives[i].move.target
                key = (-self.track.finish.signed_distance(_pt(target)),)
            else:
                key = ()
            cars[i] = replace(car, finish_key=key)


def leaves_road(track: Track, rules: RuleSet, position: Vec, velocity: Vec, node: Vec) -> bool:
    """Whether a car on the road at ``position`` with ``velocity`` leaves it by moving to ``node``.

    The off-road check of the rules: ``segment`` (the whole move must stay on the road),
    ``landing`` (only the node it lands on) or ``projection`` (the landing node and the
    move it would have made without steering, ``position`` to ``position + velocity``).
    """
    check = rules.offroad_check
    if check == OffroadCheck.LANDING:
        return not track.on_road(node)
    if check == OffroadCheck.PROJECTION:
        base = position + velocity
        return not (track.on_road(node) and track.on_paper(base) and track.segment_on_road(position, base))
    return not track.segment_on_road(position, node)


def _pt(v: Vec) -> Point:
    return (float(v.x), float(v.y))


def _lerp(p: Vec, q: Vec, t: Fraction) -> Point:
    return (float(p.x + (q.x - p.x) * t), float(p.y + (q.y - p.y) * t))


def _between(gate, a: Point, b: Point) -> bool:
    """Does the straight jump a-b pass between the ends of a line gate?"""
    (gx, gy), (hx, hy) = gate.a, gate.b
    dx, dy = b[0] - a[0], b[1] - a[1]
    o1 = dx * (gy - a[1]) - dy * (gx - a[0])
    o2 = dx * (hy - a[1]) - dy * (hx - a[0])
    return o1 * o2 <= 0


def _blocker(start: Vec, node: Vec, occupied: Mapping[Vec, int], passing: bool = True) -> int | None:
    """The car standing on the node a move ends on (or, with ``passing``, passes exactly through)."""
    if not occupied:
        return None
    if node in occupied:
        return occupied[node]
    dx, dy = node.x - start.x, node.y - start.y
    if not passing or (dx, dy) == (0, 0):
        return None
    for spot, who in occupied.items():
        ox, oy = spot.x - start.x, spot.y - start.y
        if (ox, oy) != (0, 0) and dx * oy - dy * ox == 0 and 0 <= ox * dx + oy * dy <= dx * dx + dy * dy:
            return who
    return None
