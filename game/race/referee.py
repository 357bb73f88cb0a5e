"""The headless referee: play a replay again through the rules core, phase by phase.

:func:`referee` is how ``racetrack replay`` checks a race and how the game's "watch
again" gets its phase records: it starts the race with ``RaceState.start`` and feeds
each recorded phase to ``state.apply`` (in the phase's recorded choosing order, when the
replay has one, and with the cars' moves to go it was chosen under, when it has them). Nothing recorded is trusted; an illegal choice
stops the referee with :class:`IllegalReplayError` naming the phase, the car and why.

:class:`RaceLog` is the other direction: race control (the game, ``racetrack sim``)
feeds it each phase's choices as they are played and turns it into a
:class:`~game.race.replay.Replay` at the end, so every replay is recorded the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from game.core.errors import IllegalChoiceError, RaceSetupError, RacetrackError
from game.core.race import Choice, Outcome, PhaseRecord, RaceState
from game.core.rules import RuleSet
from game.core.track import Track
from game.core.vec import Retire
from game.race.handicap import head_start_state
from game.race.replay import CarEntry, Replay, ReplayError, track_checksum


class RefereeError(RacetrackError, ValueError):
    """A replay that does not follow the rules; ``racetrack replay`` exits with status 2."""

    exit_status = 2


class IllegalReplayError(RefereeError, IllegalChoiceError):
    """A recorded choice the rules do not allow (also an ``IllegalChoiceError``).

    ``phase`` (1-based), ``car`` (index), ``name`` and ``reason`` locate it;
    ``choice`` is what the replay says the car chose.
    """

    def __init__(self, phase: int, car: int, name: str, choice: Choice | None, reason: str,
                 file: str | None = None) -> None:
        self.phase, self.car, self.name, self.choice, self.reason, self.file = phase, car, name, choice, reason, file
        RacetrackError.__init__(self, f"{file or 'replay'}: phase {phase}: car {car + 1} \"{name}\" "
                                f"chose {_spell(choice)}, which is illegal: {reason}")


def _spell(choice: Choice | None) -> str:
    if choice is None:
        return "nothing"
    if isinstance(choice, Retire):
        return "to retire"
    return f"[{choice.x}, {choice.y}]"


@dataclass(frozen=True)
class RefereeResult:
    """A refereed race: ``states[k]`` is the state after ``k`` phases, ``records[k]`` phase ``k + 1``.

    Refereed with ``keep_states=False``, ``states`` holds only the start and the final state.
    """

    replay: Replay
    states: tuple[RaceState, ...]
    records: tuple[PhaseRecord, ...]

    @property
    def final(self) -> RaceState:
        return self.states[-1]

    @property
    def outcome(self) -> Outcome:
        return self.final.outcome()


def start_state(replay: Replay, track: Track) -> RaceState:
    """The race of ``replay`` on the grid, before phase 1, its head starts given (``game.race.handicap``);
    a race that cannot start raises :class:`ReplayError`."""
    try:
        state = RaceState.start(track, replay.rules, list(replay.names), laps=replay.laps, seed=replay.seed)
        return head_start_state(state, [c.handicap for c in replay.cars], replay.rules.handicap)
    except RaceSetupError as error:
        raise ReplayError(str(error), file=replay.source, key="car" if "cars" in str(error) else "laps") from None


#: How often (in phases) :func:`referee` reports progress.
PROGRESS_EVERY = 200


def referee(replay: Replay, track: Track, *, keep_states: bool = True,
            progress: Callable[[int, int], None] | None = None) -> RefereeResult:
    """Play ``replay`` on ``track`` from the start and return its states and phase records.

    Time and memory grow linearly with the phases (a car's state never copies the whole
    race). ``keep_states=False`` keeps only the start and the final state, for callers
    that need the outcome and the records, not every position. ``progress(done, total)``
    is called every :data:`PROGRESS_EVERY` phases and at the end; it may raise to stop.

    Raises :class:`IllegalReplayError` for the first choice the rules refuse (including
    a car left without a choice while it has legal targets), :class:`RefereeError` for
    phases recorded after the race was over, and :class:`ReplayError` when the race
    cannot start (more cars than start slots).
    """
    state = start_state(replay, track)
    states = [state]
    records = []
    total = len(replay.phases)
    for number, row in enumerate(replay.phases, start=1):
        if state.over:
            raise RefereeError(f"{replay.source or 'replay'}: phases.{number}: the race was over after phase "
                               f"{number - 1}, but the replay has {len(replay.phases)} phases")
        standing = replay.standing(number)
        if standing is not None or state.standing is not None:
            try:
                state = state.with_standing(standing)
            except RaceSetupError as error:
                raise RefereeError(f"{replay.source or 'replay'}: standings.{number}: {error}") from None
        try:
            state, record = state.apply(replay.choices(number), order=replay.order(number))
        except IllegalChoiceError as error:
            car = error.car
            if not 0 <= car < len(replay.cars):  # the order itself (a Replay checks it, so rare)
                raise RefereeError(f"{replay.source or 'replay'}: orders.{number}: {error.reason}") from None
            raise IllegalReplayError(number, car, replay.cars[car].name, row[car], error.reason,
                                     file=replay.source) from None
        if keep_states:
            states.append(state)
        records.append(record)
        if progress is not None and number % PROGRESS_EVERY == 0:
            progress(number, total)
    if not keep_states and total:
        states.append(state)
    if progress is not None:
        progress(total, total)
    return RefereeResult(replay=replay, states=tuple(states), records=tuple(records))


class RaceLog:
    """Records a race phase by phase and turns it into a :class:`Replay`.

    Race control calls :meth:`record` after every phase it plays (with the choices it
    gave ``state.apply`` or the returned ``PhaseRecord``, and the ``order`` it passed to
    ``apply`` if it passed one) and :meth:`to_replay` at the end, or whenever the player
    saves. Car names must differ (a :class:`ReplayError` otherwise)::

        log = RaceLog.for_state("classics/oval", state, [("Ada", "human"), ("CPU", "cpu:pro")])
        state, record = state.apply(choices)
        log.record(record)
        save_replay(log.to_replay(date="2024-05-01"), path)
    """

    def __init__(self, track_ref: str, laps: int, rules: RuleSet, seed: int,
                 cars: Sequence[CarEntry | tuple[str, str] | str], *, track_checksum: str | None = None) -> None:
        # Building an empty replay checks the header now rather than at the end of the race.
        self._header = Replay.from_race(track_ref, laps, rules, seed, cars, track_checksum=track_checksum)
        self._phases: list[tuple[Choice | None, ...]] = []
        self._orders: list[tuple[int, ...] | None] = []
        self._standings: list[tuple[int | None, ...] | None] = []

    @classmethod
    def for_state(cls, track_ref: str, state: RaceState, drivers: Sequence[str | object]) -> RaceLog:
        """A log for a race that starts at ``state`` (phase 0); ``drivers`` are kinds or driver objects."""
        if state.phase != 0:
            raise ReplayError(f"a race log must start before phase 1, not after phase {state.phase}")
        if len(drivers) != len(state.cars):
            raise ReplayError(f"{len(drivers)} drivers for {len(state.cars)} cars", key="car")
        cars = [CarEntry(c.name, d if isinstance(d, str) else str(getattr(d, "kind", "human")))
                for c, d in zip(state.cars, drivers)]
        return cls(track_ref, state.laps, state.rules, state.seed, cars, track_checksum=track_checksum(state.track))

    @property
    def phases(self) -> int:
        return len(self._phases)

    def record(self, phase: PhaseRecord | Mapping[int, Choice], order: Sequence[int] | None = None) -> None:
        """Add the next phase: a ``PhaseRecord`` or the ``{car: choice}`` mapping given to ``apply``.

        ``order`` is the explicit choosing order the phase was played in (as given to
        ``apply(order=...)``); leave it out when the rules chose the order. With a
        ``PhaseRecord`` it must be the order the record shows.
        """
        number = len(self._phases) + 1
        if isinstance(phase, PhaseRecord) and phase.phase != number:
            raise ReplayError(f"expected the record of phase {number}, got phase {phase.phase}",
                              key=f"phases.{number}")
        if order is not None and isinstance(phase, PhaseRecord) and tuple(order) != phase.order:
            raise ReplayError(f"phase {number} was played in the order {list(phase.order)}, not {list(order)}",
                              key=f"orders.{number}")
        one = Replay.from_race(self._header.track, self._header.laps, self._header.rules, self._header.seed,
                               self._header.cars, [phase], orders=[order])
        self._phases.append(one.phases[0])
        self._orders.append(one.order(1))
        self._standings.append(one.standing(1))

    def to_replay(self, *, title: str | None = None, date: str | None = None,
                  app_version: str | None = None) -> Replay:
        """The race so far as a replay (the log can go on recording afterwards)."""
        h = self._header
        return Replay.from_race(h.track, h.laps, h.rules, h.seed, h.cars, self._phases, orders=self._orders,
                                standings=self._standings, title=title, date=date, app_version=app_version,
                                track_checksum=h.track_checksum)


__all__ = ["IllegalReplayError", "RaceLog", "RefereeError", "RefereeResult", "referee", "start_state"]
