"""Rule sets: every variant of the paper game as one selectable option, plus named presets.

The rules as data: every option with a fixed set of values has its own
:class:`~enum.StrEnum` (:class:`Movement`, :class:`OffroadPenalty`, :class:`Collision`...),
whose values are the words pack files, replays, settings and the command line use. A
:class:`RuleSet` holds one value of each, and its predicates (``resets``,
``crash_stops_car``, ``blocking``...) are what the referee, the solver, the move tables
and the CPUs ask, so that a rule's meaning is written once, here, and a misspelt value
fails loudly instead of silently comparing unequal.

Each option's values and what they mean are listed in ``OPTIONS``; ``docs/rules.md``
explains them for players. Presets are plain dictionaries of options, so a preset
with overrides is just ``preset("paper").with_options(collision="spin")``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from enum import StrEnum
from typing import Any, Mapping

from game.core.errors import RulesError


class Word(StrEnum):
    """A closed set of words the files and screens use: each member equals, prints and reprs as its word.

    ``repr`` is the plain string's so that messages, replays and reprs read as before:
    ``Collision.SPIN == "spin"`` and ``repr(Collision.SPIN) == "'spin'"``.
    """

    def __repr__(self) -> str:
        return repr(self.value)


class RuleValue(Word):
    """A rule option's value, spelled as the files spell it."""


class Movement(RuleValue):
    """Movement systems: which targets a car may pick (see :mod:`game.core.movement`)."""
    NINE = "nine"
    CROSS = "cross"
    SCALAR = "scalar"
    GRADED = "graded"
    FINE = "fine"
    FLICK = "flick"


class Braking(RuleValue):
    NORMAL = "normal"
    HARD = "hard"


class Start(RuleValue):
    STANDSTILL = "standstill"
    VECTOR1 = "vector1"


class StartDirection(RuleValue):
    """Which way a car's first move may go (Karopapier's three settings)."""
    FREE = "free"
    AWAY = "away"
    FORMULA1 = "formula1"


class OffroadCheck(RuleValue):
    """What of a move must stay on the road."""
    SEGMENT = "segment"
    LANDING = "landing"
    PROJECTION = "projection"


class OffroadPenalty(RuleValue):
    """What a move leaving the road costs."""
    RESET = "reset"
    RESET_SKIP = "reset_skip"
    ELIMINATE = "eliminate"
    FORBID = "forbid"
    SLOW_RETURN = "slow_return"
    SETBACK = "setback"
    SKIP_BY_SPEED = "skip_by_speed"


class Collision(RuleValue):
    IGNORE = "ignore"
    BOTH_OUT = "both_out"
    LATER_OUT = "later_out"
    SPIN = "spin"
    BLOCK = "block"


class Blockers(RuleValue):
    ALL = "all"
    MOVED = "moved"


class Finish(RuleValue):
    FIRST = "first"
    FURTHEST = "furthest"
    DRAW = "draw"


class Order(RuleValue):
    LOT_ONCE = "lot_once"
    LOT_EACH = "lot_each"
    FIXED = "fixed"
    SIMULTANEOUS = "simultaneous"
    ROTATE = "rotate"
    SNAKE = "snake"
    BY_POSITION = "by_position"


class Checkpoints(RuleValue):
    ORDERED = "ordered"
    ANY = "any"


class Sight(RuleValue):
    """How far the players see the road (see :mod:`game.core.sight`)."""
    DAY = "day"
    NIGHT = "night"


class TerrainRule(RuleValue):
    """What the terrain on the paper (sand, mud, ice, curbs: :mod:`game.core.terrain`) does."""
    EFFECTS = "effects"
    OFFROAD = "offroad"


class Handicap(RuleValue):
    """How the cars' handicaps (moves taken in the lobby, :mod:`game.race.handicap`) are given."""
    COUNT = "count"
    HEAD_START = "head_start"


#: option name -> the enum of its values (the options not listed here are booleans).
CHOICES: dict[str, type[RuleValue]] = {
    "movement": Movement, "braking": Braking, "start": Start, "start_direction": StartDirection, "offroad_check": OffroadCheck,
    "offroad_penalty": OffroadPenalty, "collision": Collision, "blockers": Blockers, "finish": Finish,
    "order": Order, "checkpoints": Checkpoints, "terrain": TerrainRule, "sight": Sight,
    "handicap": Handicap,
}

#: option -> {value: one-line explanation}; the first value is the default.
OPTIONS: dict[str, dict[Any, str]] = {
    "movement": {
        "nine": "pick the base point or any of its 8 neighbours",
        "cross": "pick the base point or one of its 4 orthogonal neighbours",
        "scalar": "easy system: a whole speed in 8 directions; speed changes by 1, turns 45 degrees (90 at speed 1)",
        "graded": "graded turns: the sharper the turn, the lower the speed (n-1..n+1 straight, n-2..n at 45, ...)",
        "fine": "millimetre paper: change the velocity anywhere within a square, in tenths of a square",
        "flick": "party mode: flick the pen; it slides up to 6 squares from the car, no inertia",
    },
    "braking": {
        "normal": "speed changes by at most one square per axis per move",
        "hard": "the 9- and 5-target systems may also brake by two squares per axis",
    },
    "zero_move": {
        True: "a car may pick the target that leaves it at rest (stop dead, or stay where it stands)",
        False: "the zero move is never offered: a car always moves (Karopapier's clients)",
    },
    "start": {
        "standstill": "cars start at rest: the first move is a stay or a step to a neighbour",
        "vector1": "cars start already rolling one square forward",
    },
    "start_direction": {
        "free": "a car's first move may go anywhere",
        "away": "a car's first move may not cross the finish line: the grid drives away from it",
        "formula1": "a car's first move must cross the finish line forward; that crossing starts lap 1",
    },
    "offroad_check": {
        "segment": "a move is off the road when any part of its segment leaves the road",
        "landing": "only the landing node must be on the road (corners may be cut)",
        "projection": "the landing node and the move the car would make without steering must stay on the road",
    },
    "offroad_penalty": {
        "reset": "back to the nearest road node at zero speed",
        "reset_skip": "back to the nearest road node at zero speed, and miss a turn",
        "eliminate": "out of the race",
        "forbid": "moves leaving the road cannot be chosen; a car with no move left crashes out",
        "slow_return": "drive on the paper, but come back at speed 1 or less: faster costs a turn, twice disqualifies",
        "setback": "moves leaving the road cannot be chosen; a car with no move left is set back and restarts at rest",
        "skip_by_speed": "back to the nearest road node at zero speed, and miss a turn for each square of crash speed "
                         "(raised to penalty_exponent, at most penalty_cap turns)",
    },
    "penalty_exponent": {
        1: "skip_by_speed: a crash at speed v misses v turns (at most penalty_cap)",
        1.5: "skip_by_speed: a crash at speed v misses v to the power 1.5 turns, rounded up (at most penalty_cap)",
    },
    "collision": {
        "ignore": "cars may share a node",
        "both_out": "cars ending on the same node are both out",
        "later_out": "of cars ending on the same node, those that chose later are out",
        "spin": "cars ending on the same node spin out to zero speed",
        "block": "a move may not end on or pass through a node where another car stands",
    },
    "block_passing": {
        True: "under blocking, a move may not pass through another car's node either",
        False: "under blocking, only landing on another car is forbidden (Karopapier)",
    },
    "blockers": {
        "all": "under blocking, every other car blocks the node it stands on (Karopapier before game 75000)",
        "moved": "under blocking, only cars that already moved this phase block; a car still to move does not "
                 "(Karopapier from game 75000 on); a car missing its turn stands and blocks",
    },
    "collide_in_motion": {
        False: "only cars ending on the same node collide",
        True: "cars that meet at the same point at the same moment during the move collide too",
    },
    "finish": {
        "first": "the first car across the line in choosing order wins",
        "furthest": "the phase is played out; the car furthest past the line wins (ties possible)",
        "draw": "cars finishing in the same phase share the place",
    },
    "order": {
        "lot_once": "the choosing order is drawn once by lot",
        "lot_each": "the choosing order is drawn anew every phase",
        "fixed": "cars choose in grid order",
        "simultaneous": "everyone chooses at once without seeing the others' picks",
        "rotate": "the first to choose moves on by one car every phase",
        "snake": "the first to choose follows the Thue-Morse sequence (ABBA with two cars): "
                 "over a race no place in the order favours anyone",
        "by_position": "the car furthest behind (the solver's moves to go) chooses first; "
                       "ties take turns with the phase",
    },
    "slipstream": {
        False: "no slipstream",
        True: "a car ending a phase right behind another, going the same way, may pick one square "
              "further ahead in the next phase (not counted in par)",
    },
    "catch_up": {
        False: "no catch-up",
        True: "the last car (most moves to go) may pick one square further straight ahead "
              "(not counted in par)",
    },
    "checkpoints": {
        "ordered": "checkpoints count only in ascending order",
        "any": "checkpoints count in any order (Karopapier)",
    },
    "terrain": {
        "effects": "sand and mud slow a car, ice holds its line, a curb taken too fast spins it; water is off-road",
        "offroad": "every terrain (sand, mud, ice, curb, water) is off-road, as on Karopapier",
    },
    "sight": {
        "day": "the whole track is in view",
        "night": "only what headlights light is seen: a cone ahead of each moving car, a circle round it, "
                 "fading over two phases (the cars and your own targets always show)",
    },
    "handicap": {
        "count": "everybody starts together; a car's handicap in moves is taken off its count at the finish",
        "head_start": "as on paper, a handicapped car makes its first moves before the others start: "
                      "the others miss their first turns (the most handicap less their own)",
    },
}

#: numeric options: name -> (low, high, explanation)
NUMBERS: dict[str, tuple[int, int, str]] = {
    "setback_moves": (1, 99, "how many moves a crash sets a car back (setback penalty)"),
    "penalty_cap": (1, 20, "skip_by_speed: the most turns one crash can cost"),
    "fine_range": (1, 2, "fine paper: how many squares per axis the velocity may change in one move"),
    "sight_radius": (2, 20, "night: how many squares the headlights reach beyond the car's speed"),
}


#: Options added after best runs and solver caches were first named, with their defaults
#: (left out of :meth:`RuleSet.keyed_options` at those defaults).
LATER_OPTIONS: dict[str, Any] = {"start_direction": "free", "penalty_exponent": 1, "penalty_cap": 8,
                                  "slipstream": False, "catch_up": False, "sight": "day", "sight_radius": 6,
                                  "handicap": "count"}
_NO_DEFAULT = object()


@dataclass(frozen=True)
class RuleSet:
    """One complete choice of rules. Build from a preset; every field is validated.

    Option values given as plain strings become their :class:`RuleValue` members. The
    properties below are the rules' meaning in one place: ask ``rules.resets`` rather
    than comparing ``offroad_penalty`` with strings.
    """

    name: str = "paper"
    movement: Movement = Movement.NINE
    braking: Braking = Braking.NORMAL
    fine_range: int = 1
    zero_move: bool = True
    start: Start = Start.STANDSTILL
    start_direction: StartDirection = StartDirection.FREE
    offroad_check: OffroadCheck = OffroadCheck.SEGMENT
    offroad_penalty: OffroadPenalty = OffroadPenalty.RESET
    setback_moves: int = 2
    penalty_exponent: int | float = 1
    penalty_cap: int = 8
    collision: Collision = Collision.IGNORE
    block_passing: bool = True
    blockers: Blockers = Blockers.ALL
    collide_in_motion: bool = False
    finish: Finish = Finish.FIRST
    order: Order = Order.LOT_ONCE
    checkpoints: Checkpoints = Checkpoints.ORDERED
    terrain: TerrainRule = TerrainRule.EFFECTS
    slipstream: bool = False
    catch_up: bool = False
    sight: Sight = Sight.DAY
    sight_radius: int = 6
    handicap: Handicap = Handicap.COUNT

    def __post_init__(self) -> None:
        for name, values in OPTIONS.items():
            value = getattr(self, name)
            kind = CHOICES.get(name)
            if kind is not None:
                if isinstance(value, str) and value in kind._value2member_map_:
                    object.__setattr__(self, name, kind(value))
                    continue
            elif any(type(value) is type(v) and value == v for v in values):
                continue
            elif _number(value) and any(_number(v) and value == v for v in values):
                object.__setattr__(self, name, next(v for v in values if value == v))  # 1.0 reads as 1
                continue
            allowed = ", ".join(repr(v) for v in values)
            raise RulesError(f"rule {name!r} cannot be {value!r}; choose one of {allowed}")
        for name, (low, high, _) in NUMBERS.items():
            value = getattr(self, name)
            if type(value) is not int or not low <= value <= high:
                raise RulesError(f"rule {name!r} must be a whole number from {low} to {high}, not {value!r}")

    def with_options(self, **overrides: Any) -> RuleSet:
        """A copy with some options changed; unknown names raise :class:`RulesError`."""
        known = {f.name for f in fields(self)} - {"name"}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise RulesError(f"unknown rule option {unknown[0]!r}; known: {', '.join(sorted(known))}")
        return replace(self, **overrides)

    def options(self) -> dict[str, Any]:
        """Every option by name (without the preset name): what a replay stores."""
        data = asdict(self)
        data.pop("name")
        return data

    def keyed_options(self) -> dict[str, Any]:
        """Every option, less the ones newer than the keys stored on disk while they are at
        their default (:data:`LATER_OPTIONS`): what a trial's best run and the solver's cache
        files are named by, and what a race report lists, so that the names and reports made
        before those options existed still match.
        """
        return {k: v for k, v in self.options().items() if LATER_OPTIONS.get(k, _NO_DEFAULT) != v}

    def overrides(self) -> dict[str, Any]:
        """The options that differ from this rule set's preset."""
        base = preset(self.name).options() if self.name in PRESETS else RuleSet().options()
        return {k: v for k, v in self.options().items() if base[k] != v}

    # -- what the options mean ------------------------------------------------
    @property
    def simultaneous(self) -> bool:
        """Everyone chooses blind: nobody sees (or is blocked by) a pick made this phase."""
        return self.order == Order.SIMULTANEOUS

    @property
    def needs_standing(self) -> bool:
        """Whether a phase depends on how far each car is from the finish (``by_position``
        order, catch-up): race control then hands the state each car's moves to go."""
        return self.order == Order.BY_POSITION or self.catch_up

    @property
    def bonus_targets(self) -> bool:
        """Whether some car may get targets beyond its movement system's (slipstream, catch-up)."""
        return self.slipstream or self.catch_up

    @property
    def offroad_choosable(self) -> bool:
        """Whether a driver may pick a move that leaves the road (and take the penalty)."""
        return self.offroad_penalty not in (OffroadPenalty.FORBID, OffroadPenalty.SETBACK)

    @property
    def crash_stops_car(self) -> bool:
        """An off-road move ends where the car leaves the road (reset, reset_skip, skip_by_speed, eliminate)."""
        return self.resets or self.offroad_penalty == OffroadPenalty.ELIMINATE

    @property
    def resets(self) -> bool:
        """A crashed car restarts at rest on the road node nearest its crash point (reset, reset_skip, skip_by_speed)."""
        return self.offroad_penalty in (OffroadPenalty.RESET, OffroadPenalty.RESET_SKIP, OffroadPenalty.SKIP_BY_SPEED)

    @property
    def eliminates(self) -> bool:
        """An off-road move puts the car out of the race."""
        return self.offroad_penalty == OffroadPenalty.ELIMINATE

    @property
    def crash_skips(self) -> int:
        """Turns a restarted car misses after a crash at speed 1 (1 under reset_skip and skip_by_speed, else 0)."""
        return self.crash_skips_at(1)

    @property
    def crash_cost(self) -> int:
        """Moves a crash at speed 1 costs a resetting car: the crash itself and the turns it then misses."""
        return 1 + self.crash_skips

    def crash_skips_at(self, speed: int) -> int:
        """Turns a restarted car misses after a crash at ``speed`` (the larger axis of the crashing
        move's velocity; a car stuck with no target: of its own velocity).

        ``reset_skip``: one; ``skip_by_speed``: ``min(penalty_cap, ceil(speed ** penalty_exponent))``,
        in whole numbers (``ceil(v ** 1.5)`` is the least ``k`` with ``k * k >= v ** 3``).
        """
        if self.offroad_penalty == OffroadPenalty.RESET_SKIP:
            return 1
        if self.offroad_penalty != OffroadPenalty.SKIP_BY_SPEED:
            return 0
        speed = min(abs(int(speed)), self.penalty_cap)  # ceil(v ** e) >= v: the cap is reached by then
        if self.penalty_exponent == 1:
            return speed
        cube = speed ** 3
        root = math.isqrt(cube)
        return min(self.penalty_cap, root if root * root == cube else root + 1)

    def crash_skip_table(self) -> tuple[int, ...]:
        """Turns a restarted car misses after a crash at speed 0, 1, 2, ... (the last entry holds
        for every faster crash): what the drivers' rule record (``MoveRules.skips``) carries."""
        top = self.penalty_cap if self.offroad_penalty == OffroadPenalty.SKIP_BY_SPEED else 1
        return tuple(self.crash_skips_at(v) for v in range(top + 1))

    @property
    def exact_movement(self) -> bool:
        """Whether the movement system's targets depend on the velocity alone, so the exact
        solver can search it (nine, cross, scalar, graded; not fine paper or flick)."""
        return self.movement in (Movement.NINE, Movement.CROSS, Movement.SCALAR, Movement.GRADED)

    @property
    def harsh_offroad(self) -> bool:
        """Leaving the road ends the race or costs more than a distance table counts (eliminate,
        forbid, setback, slow_return): careful CPUs then never take a doomed target."""
        return not self.resets

    @property
    def crash_stops_at_exit(self) -> bool:
        """A crash stops the car where its segment leaves the road (segment check); under the
        landing and projection checks a crashing car travels its whole move first."""
        return self.crash_stops_car and self.offroad_check == OffroadCheck.SEGMENT

    @property
    def sets_back(self) -> bool:
        """A car with no legal move goes back to where it stood ``setback_moves`` moves ago."""
        return self.offroad_penalty == OffroadPenalty.SETBACK

    @property
    def slow_return(self) -> bool:
        """Cars may drive on the paper but must come back onto the road at speed 1 or less."""
        return self.offroad_penalty == OffroadPenalty.SLOW_RETURN

    @property
    def history_kept(self) -> int:
        """How many past places each car remembers (a set-back reaches ``setback_moves`` back)."""
        return self.setback_moves + 1 if self.sets_back else 1

    @property
    def blocking(self) -> bool:
        """Moves may not end on (nor, with ``block_passing``, pass through) another car's node."""
        return self.collision == Collision.BLOCK

    @property
    def meetings_possible(self) -> bool:
        """Whether cars can meet at all: blocking in turn order keeps them apart."""
        return not (self.blocking and not self.simultaneous)

    @property
    def collisions_matter(self) -> bool:
        """Cars that meet are punished (every collision rule but ``ignore``, unless blocking keeps them apart)."""
        return self.collision != Collision.IGNORE and self.meetings_possible

    @property
    def collision_eliminates(self) -> bool:
        """Cars that meet leave the race (both_out, later_out)."""
        return self.collision in (Collision.BOTH_OUT, Collision.LATER_OUT)

    @property
    def only_moved_cars_block(self) -> bool:
        """Under blocking, a car still to move this phase does not block (Karopapier from game 75000)."""
        return self.blockers == Blockers.MOVED

    @property
    def ordered_checkpoints(self) -> bool:
        """Checkpoints count only in ascending order."""
        return self.checkpoints == Checkpoints.ORDERED

    @property
    def rolling_start(self) -> bool:
        """Cars start already rolling one square forward (``vector1``)."""
        return self.start == Start.VECTOR1

    @property
    def first_move_restricted(self) -> bool:
        """A car's first move is judged by its finish crossing (``start_direction`` away or formula1)."""
        return self.start_direction != StartDirection.FREE

    def first_move_problem(self, crossing: int | None) -> str | None:
        """Why a car's first move may not be made, given how it crosses the finish line (+1
        forward, -1 backward, None: not at all); None when it may."""
        if self.start_direction == StartDirection.AWAY and crossing is not None:
            return "the first move may not cross the finish line"
        if self.start_direction == StartDirection.FORMULA1 and crossing != 1:
            return "the first move must cross the finish line"
        return None

    @property
    def first_crossing_starts_lap(self) -> bool:
        """The first move's finish crossing starts lap 1 and counts nothing (formula1)."""
        return self.start_direction == StartDirection.FORMULA1

    @property
    def hard_braking(self) -> bool:
        return self.braking == Braking.HARD

    @property
    def night(self) -> bool:
        """Players and CPUs see only the lit road (what they see, never the physics, changes)."""
        return self.sight == Sight.NIGHT

    def by_day(self) -> RuleSet:
        """The same rules in daylight: what par and the solver's table are worked out under."""
        day = replace(self, sight=Sight.DAY, sight_radius=6)
        return self if day == self else day

    def solving(self) -> RuleSet:
        """The rules par and the solver's table are worked out under: by day (:meth:`by_day`) and
        with the handicap kind at its default, since neither changes a move a car may make (a head
        start is turns missed on the grid, not a rule of movement)."""
        plain = replace(self.by_day(), handicap=Handicap.COUNT)
        return self if plain == self else plain

    @property
    def terrain_effects(self) -> bool:
        """Sand, mud, ice and curbs are road with their effects (else every terrain is off-road)."""
        return self.terrain == TerrainRule.EFFECTS


def _number(value: Any) -> bool:
    """A plain number (not a bool): an option with numeric values takes ``1.0`` for ``1``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


PRESETS: dict[str, dict[str, Any]] = {
    # The usual paper rules: take turns, first across wins, a crash puts you back on the road.
    "paper": {},
    # Strict Spanish-paper tournament rules.
    "tournament": {
        "start": "vector1", "offroad_check": "projection", "offroad_penalty": "slow_return",
        "collision": "both_out", "finish": "furthest",
    },
    # Everyone writes down their move at once; a finish in the same phase is a draw.
    "phases": {"order": "simultaneous", "finish": "draw"},
    # Karopapier online rules: no crash moves, set back two moves, cars that already moved
    # block, never the zero move (as its browser clients offer moves since game 75000).
    "karopapier": {
        "offroad_penalty": "setback", "setback_moves": 2, "collision": "block", "block_passing": False,
        "blockers": "moved", "zero_move": False, "order": "fixed", "checkpoints": "any",
        "terrain": "offroad",
    },
    # The couch default: blind simultaneous picks, spin-outs, an off-road trip costs a turn.
    "arcade": {
        "order": "simultaneous", "collision": "spin", "collide_in_motion": True,
        "offroad_penalty": "reset_skip", "finish": "furthest",
    },
    # The party evening: arcade, but taking turns in a rotating order, with slipstream and catch-up.
    "party": {
        "order": "rotate", "collision": "spin", "collide_in_motion": True,
        "offroad_penalty": "reset_skip", "finish": "furthest", "slipstream": True, "catch_up": True,
    },
}

PRESET_NAMES = tuple(PRESETS)

PRESET_DESCRIPTIONS: dict[str, str] = {
    "paper": "the usual paper rules: take turns, a crash puts you back on the road at rest",
    "tournament": "strict tournament rules: rolling start, slow return from the paper, no contact",
    "phases": "everyone moves at once; crossing the line in the same phase is a draw",
    "karopapier": "Karopapier online: no crash moves, set back two moves, moved cars block, no standing still",
    "arcade": "couch arcade: blind simultaneous picks, spin-outs, off-road costs a turn",
    "party": "party: arcade, but turns taken in a rotating order, with slipstream and catch-up",
}


def preset(name: str, overrides: Mapping[str, Any] | None = None) -> RuleSet:
    """The named preset, optionally with some options changed.

    >>> preset("arcade").order
    'simultaneous'
    >>> preset("paper", {"collision": "spin"}).collision
    'spin'
    """
    if name not in PRESETS:
        raise RulesError(f"unknown rule preset {name!r}; choose one of {', '.join(PRESET_NAMES)}")
    rules = RuleSet(name=name, **PRESETS[name])
    return rules.with_options(**overrides) if overrides else rules
