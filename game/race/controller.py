"""Race control: who must choose now, collecting the choices, and playing each phase.

The :class:`RaceController` is the one place where a race moves forward. It holds the
current :class:`~game.core.race.RaceState`, the seats (a name and a driver each), the
choices collected so far this phase and every :class:`~game.core.race.PhaseRecord`
played (enough to replay the race). It never reads the clock and never imports pygame:
the presentation calls :meth:`RaceController.tick` once a frame, submits the humans'
choices as they confirm them, and animates the records that ``tick`` returns.

CPU choices come from a *planner* (anything with ``request`` and ``poll``, see
:class:`Planner`), so a slow CPU never freezes the screen when the planner runs it on
a worker thread. :class:`InlinePlanner` computes them on the spot (tests, tools).

An optional move timer (:class:`game.race.timer.MoveTimer`, with its clock passed in)
chooses for a player whose time runs out; the controller asks it on every ``tick``.

Turn order follows the rules: with ``order == "simultaneous"`` every car chooses at
once and nobody sees another's pick; otherwise cars choose one after the other in
``state.order()`` and later cars see the earlier picks (``committed``), which matters
for blocking rules. Under rules that read how far each car is from the finish (the
``by_position`` order, catch-up) an optional ``standing`` source
(:class:`game.race.standing.SolverStanding`) gives the state each car's moves to go at
the start of every phase.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Mapping, Protocol, Sequence

from game.core.errors import RacetrackError
from game.core.race import Candidate, Choice, PhaseRecord, RaceState
from game.core.vec import RETIRE, Retire
from game.race.planner import CpuError, first_legal_choice  # noqa: F401  (first_legal_choice: its old home)


class ChoiceRejected(RacetrackError, ValueError):
    """A submitted choice was refused: not that car's turn, or not a legal target.

    ``car`` and ``reason`` say which car and why, in a player's words.
    """

    def __init__(self, car: int, reason: str) -> None:
        self.car = car
        self.reason = reason
        super().__init__(f"car {car}: {reason}")


@dataclass(frozen=True)
class Seat:
    """One car's seat: the name shown on screen and the driver that chooses for it."""

    name: str
    driver: object  # a game.drivers.base.Driver

    @property
    def is_human(self) -> bool:
        return bool(getattr(self.driver, "is_human", False))

    @property
    def kind(self) -> str:
        return str(getattr(self.driver, "kind", "cpu"))


class Planner(Protocol):
    """Computes CPU choices, possibly in the background.

    ``request`` starts the computation of one car's choice under a key; ``poll`` returns
    the choice once ready (None while thinking). ``cancel`` forgets every request.
    """

    def request(self, key: object, driver: object, state: RaceState, car: int,
                committed: Mapping[int, Choice], rng: random.Random) -> None: ...

    def poll(self, key: object) -> Choice | None: ...

    def cancel(self) -> None: ...

    # Optional: ``close()`` (the race is over or left: free the planner's thread) and
    # ``report(error) -> bool`` (a CPU chose an illegal target: True to keep racing
    # after logging it, False to have race control raise it).


class InlinePlanner:
    """A planner that asks the driver at once, on the calling thread (tests and tools)."""

    def __init__(self) -> None:
        self._ready: dict[object, Choice] = {}

    def request(self, key, driver, state, car, committed, rng) -> None:
        self._ready[key] = driver.choose(state, car, committed, rng)

    def poll(self, key) -> Choice | None:
        return self._ready.pop(key, None)

    def cancel(self) -> None:
        self._ready.clear()

    def close(self) -> None:
        self._ready.clear()


class RaceController:
    """Drives one race: collects a choice from every car that must choose, then plays the phase.

    Typical use, once per frame::

        record = controller.tick()        # polls CPUs; plays the phase when all are in
        for car in controller.waiting_humans(): ...   # show their 9 targets
        controller.submit(car, node)      # when a player confirms

    ``states[k]`` is the state after ``k`` phases and ``records[k]`` the record of
    phase ``k + 1``, so the whole race can be watched again.
    """

    def __init__(self, state: RaceState, seats: Sequence[Seat], planner: Planner | None = None,
                 seed: int | None = None, timer=None,
                 standing: Callable[[RaceState], Sequence[int | None] | None] | None = None) -> None:
        if len(seats) != len(state.cars):
            raise RacetrackError(f"{len(seats)} seats for {len(state.cars)} cars")
        self.seats = tuple(seats)
        self.planner: Planner = planner if planner is not None else InlinePlanner()
        self.seed = state.seed if seed is None else seed
        self.timer = timer  # a game.race.timer.MoveTimer, or None
        self.states: list[RaceState] = [state]
        self.records: list[PhaseRecord] = []
        self._choices: dict[int, Choice] = {}
        self._requested: set[int] = set()
        # Candidates are asked for every frame (fine paper offers up to 1681): keep the last answers.
        self._candidate_cache: dict[tuple, tuple[Candidate, ...]] = {}
        # Each car's moves to go, for rules that read them (by_position, catch-up): asked once
        # at the start of every phase, before anyone chooses (game.race.standing).
        self.standing = standing
        self._stand()

    # -- asking ---------------------------------------------------------------
    @property
    def state(self) -> RaceState:
        """The current race state (before the phase being chosen)."""
        return self.states[-1]

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def simultaneous(self) -> bool:
        return self.state.rules.simultaneous

    def must_choose(self) -> tuple[int, ...]:
        """Every car that has to choose this phase, in choosing order."""
        return self.state.to_choose()

    def awaiting(self) -> tuple[int, ...]:
        """Cars whose choice is wanted right now (all open ones at once, or the one whose turn it is)."""
        open_cars = tuple(i for i in self.must_choose() if i not in self._choices)
        if self.simultaneous or not open_cars:
            return open_cars
        return open_cars[:1]

    def waiting_humans(self) -> tuple[int, ...]:
        """Human cars whose choice is wanted right now."""
        return tuple(i for i in self.awaiting() if self.seats[i].is_human)

    def chosen(self, car: int) -> Choice | None:
        """The choice a car has made this phase, if any (the presentation shows it only to its owner)."""
        return self._choices.get(car)

    def committed_for(self, car: int) -> dict[int, Choice]:
        """The earlier picks a car may see: none when simultaneous, else those before it in order."""
        if self.simultaneous:
            return {}
        order = self.must_choose()
        before = order[:order.index(car)] if car in order else order
        return {i: self._choices[i] for i in before if i in self._choices and self._choices[i] is not None}

    def candidates(self, car: int) -> tuple[Candidate, ...]:
        """The targets offered to a car right now (empty if it does not choose this phase)."""
        if car not in self.must_choose():
            return ()
        committed = self.committed_for(car)
        key = (len(self.states), car, tuple(sorted(committed.items(), key=lambda item: item[0])))
        found = self._candidate_cache.get(key)
        if found is None:
            if len(self._candidate_cache) > 64:
                self._candidate_cache.clear()
            found = self._candidate_cache[key] = self.state.candidates(car, committed)
        return found

    # -- choosing -------------------------------------------------------------
    def submit(self, car: int, choice: Choice) -> None:
        """Record a human's (or a tool's) choice for a car whose turn it is.

        Raises :class:`ChoiceRejected` when it is not the car's turn or the target is
        not legal for it; the reason is fit to show to the player.
        """
        if car not in self.awaiting():
            raise ChoiceRejected(car, f"{self.seats[car].name} does not choose now")
        if self.timed_out(car):
            raise ChoiceRejected(car, f"{self.seats[car].name}: time is up")
        self.enter(car, choice)

    def enter(self, car: int, choice: Choice) -> None:
        """Record a choice race control makes itself (the move timer's); refused unless legal for the car."""
        if car not in self.awaiting():
            raise ChoiceRejected(car, f"{self.seats[car].name} does not choose now")
        if not isinstance(choice, Retire):
            found = next((c for c in self.candidates(car) if c.node == choice), None)
            if found is None:
                raise ChoiceRejected(car, f"{choice!r} is not one of {self.seats[car].name}'s targets")
            if not found.legal:
                raise ChoiceRejected(car, found.reason or "that target is not allowed")
        self._choices[car] = choice

    def retire(self, car: int) -> None:
        """Take a car out of the race at its next phase (always allowed while it races)."""
        if car in self.must_choose():
            self._choices[car] = RETIRE

    def take_back(self, car: int) -> bool:
        """Withdraw a car's choice before the phase starts; True if there was one to withdraw.

        In ordered modes only the latest pick can be taken back (later cars saw it).
        """
        if car not in self._choices or not self.seats[car].is_human or self.timed_out(car):
            return False
        if not self.simultaneous:
            order = self.must_choose()
            later = order[order.index(car) + 1:]
            if any(i in self._choices for i in later):
                return False
        del self._choices[car]
        return True

    def timed_out(self, car: int) -> bool:
        """Whether the move timer took over this car's choice in the current phase."""
        return self.timer is not None and self.timer.expired(self.state.phase, car)

    def tick(self) -> PhaseRecord | None:
        """Advance race control by one step: the move timer, CPUs, and the phase once every choice is in.

        Returns the record of the phase just played, or None.
        """
        if self.over:
            return None
        if self.timer is not None:
            self.timer.update(self)
        progress = True
        while progress:  # in ordered modes one CPU's pick may let the next CPU choose at once
            progress = self._auto_choices()
            for car in self.awaiting():
                seat = self.seats[car]
                if seat.is_human:
                    continue
                key = (self.state.phase, car)
                if car not in self._requested:
                    self._requested.add(car)
                    rng = random.Random(f"{self.seed}/cpu/{car}/{self.state.phase}")
                    self.planner.request(key, seat.driver, self.state, car, self.committed_for(car), rng)
                choice = self.planner.poll(key)
                if choice is not None:
                    self._choices[car] = self._checked_cpu_choice(car, choice)
                    progress = True
        if any(i not in self._choices for i in self.must_choose()):
            return None
        return self._play()

    def _auto_choices(self) -> bool:
        """Cars with no legal target cannot choose: they are entered as "no choice" (they crash)."""
        entered = False
        for car in self.awaiting():
            if not any(c.legal for c in self.candidates(car)):
                self._choices[car] = None
                entered = True
        return entered

    def _checked_cpu_choice(self, car: int, choice: Choice) -> Choice:
        """A CPU's choice, checked: an illegal target is a :class:`~game.race.planner.CpuError`.

        The error is raised unless the planner's ``report`` says to keep racing (the game's
        planner logs it); then the car gets the legal target nearest its base point.
        """
        if isinstance(choice, Retire):
            return choice
        legal = {c.node for c in self.candidates(car) if c.legal}
        if choice in legal:
            return choice

        error = CpuError(f"{self.seats[car].kind} driving car {car} chose {choice!r}, not a legal target, "
                         f"in phase {self.state.phase + 1} on track {self.state.track.id!r}")
        report = getattr(self.planner, "report", None)
        if report is None or not report(error):
            raise error
        return min(legal, key=lambda v: (v - self.state.base_point(car)).chebyshev()) if legal else RETIRE

    def _stand(self) -> None:
        """Hand the new phase's state each car's moves to go when its rules read them.

        Asked once a phase, before anyone chooses, so the order and the targets never
        change while players choose; a source with no answer yet leaves the phase without
        (the rotating order, no catch-up), as its record and the replay then say.
        """
        state = self.state
        if self.standing is None or not state.rules.needs_standing or state.over or state.standing is not None:
            return
        found = self.standing(state)
        if found is not None:
            self.states[-1] = state.with_standing(found)

    def _play(self) -> PhaseRecord:
        choices = {car: c for car, c in self._choices.items() if c is not None}
        state, record = self.state.apply(choices)
        self.states.append(state)
        self.records.append(record)
        self._choices.clear()
        self._requested.clear()
        self._stand()
        if state.over:
            self.close()  # nobody chooses any more: end the planner's thread now
        return record

    def close(self) -> None:
        """Stop any CPU thinking still going on and close the planner (the race is over or left)."""
        close = getattr(self.planner, "close", None)
        if close is not None:
            close()
        else:
            self.planner.cancel()
