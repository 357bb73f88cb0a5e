"""The move timer: an optional limit on how long a player may take to choose, whatever the rules.

A :class:`MoveTimer` belongs to one race controller (``RaceController(timer=...)``),
which asks it once per :meth:`~game.race.controller.RaceController.tick` to look at the
players whose choice is wanted. Each player's time starts when their choice is first
wanted in a phase (all at once when choices are simultaneous, in turn otherwise). When
it runs out, the car takes its base point if that is legal (it keeps its speed), else
the legal target the Champion would pick (asked through the race's planner, so the
frame loop never waits for the solver); a late press is refused. The choice taken is
an ordinary choice of the phase, so the replay records it; :attr:`MoveTimer.timeouts`
lists each one for the screen.

The clock is passed in (any callable giving seconds): the game hands a
:class:`ManualClock` that it moves on only while players are choosing (not during the
intro, a phase's animation or the pause menu); tests move it by hand. Nothing here reads
the wall clock, and the rules core knows nothing of time.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from game.core.vec import Vec

#: The limits a race may set, in seconds per choice (0 is off).
MIN_SECONDS, MAX_SECONDS = 5, 60
#: What the menus offer, in order.
CHOICES = (0, 5, 10, 15, 20, 30, 45, 60)


def valid_seconds(value) -> bool:
    """Whether ``value`` is a timer setting: 0 (off) or a whole number of seconds from 5 to 60."""
    return isinstance(value, int) and not isinstance(value, bool) and (
        value == 0 or MIN_SECONDS <= value <= MAX_SECONDS)


class ManualClock:
    """A clock that moves only when told: ``clock()`` gives the time, :meth:`advance` moves it on."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = float(now)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += max(0.0, float(seconds))


@dataclass(frozen=True)
class TimedOut:
    """A choice the timer made: in which phase (numbered from 1), for which car, and why.

    ``kept_line`` is True when the car took its base point, False when the base point
    was not legal and the Champion's pick was taken.
    """

    phase: int
    car: int
    choice: Vec
    kept_line: bool


class MoveTimer:
    """Gives every human choice ``seconds`` on ``clock``; see the module docstring.

    ``fallback`` is the driver asked when the base point is not legal (the Champion);
    without one, the legal target nearest the base point is taken.
    """

    def __init__(self, seconds: float, clock: Callable[[], float], fallback=None) -> None:
        if seconds <= 0:
            raise ValueError(f"a move timer needs a positive number of seconds, not {seconds!r}")
        self.seconds = float(seconds)
        self.clock = clock
        self.fallback = fallback
        self.timeouts: list[TimedOut] = []
        self._deadlines: dict[tuple[int, int], float] = {}
        self._expired: set[tuple[int, int]] = set()
        self._asked: set[tuple[int, int]] = set()

    # -- asking ---------------------------------------------------------------
    def remaining(self, phase: int, car: int) -> float | None:
        """Seconds left for a car's choice in the phase after state ``phase`` (None: its time has not started)."""
        deadline = self._deadlines.get((phase, car))
        if deadline is None:
            return None
        return max(0.0, deadline - self.clock())

    def fraction(self, phase: int, car: int) -> float | None:
        """The share of the time left, 1 (just started) .. 0 (up), or None."""
        left = self.remaining(phase, car)
        return None if left is None else left / self.seconds

    def expired(self, phase: int, car: int) -> bool:
        """Whether the car's time ran out in this phase (its choice is then the timer's)."""
        return (phase, car) in self._expired

    # -- race control's side -------------------------------------------------
    def update(self, controller) -> None:
        """Start the time of players whose choice is now wanted; choose for those whose time is up."""
        now = self.clock()
        phase = controller.state.phase
        for car in controller.waiting_humans():
            key = (phase, car)
            if key in self._expired:
                if key in self._asked:
                    self._collect(controller, car, key)
                continue
            if controller.chosen(car) is not None:
                continue
            deadline = self._deadlines.setdefault(key, now + self.seconds)
            if now >= deadline:
                self._expire(controller, car, key)
        # forget the phases that are over (keep the current one)
        for key in [k for k in self._deadlines if k[0] < phase]:
            del self._deadlines[key]
        self._expired = {k for k in self._expired if k[0] >= phase}

    def _expire(self, controller, car: int, key: tuple[int, int]) -> None:
        self._expired.add(key)
        state = controller.state
        base = state.base_point(car)
        legal = [c.node for c in controller.candidates(car) if c.legal]
        if not legal:
            return  # race control enters "no choice" for a car with no legal target
        if base in legal:
            self._take(controller, car, base, True)
        elif self.fallback is None:
            self._take(controller, car, _nearest(legal, base), False)
        else:
            self._asked.add(key)
            rng = random.Random(f"{controller.seed}/timer/{car}/{state.phase}")
            controller.planner.request(("timer",) + key, self.fallback, state, car, controller.committed_for(car),
                                       rng)
            self._collect(controller, car, key)

    def _collect(self, controller, car: int, key: tuple[int, int]) -> None:
        """Take the Champion's pick once the planner has it."""
        choice = controller.planner.poll(("timer",) + key)
        if choice is None:
            return
        self._asked.discard(key)
        legal = [c.node for c in controller.candidates(car) if c.legal]
        if choice not in legal:  # a driver that retires or answers oddly: stay in the race anyway
            choice = _nearest(legal, controller.state.base_point(car)) if legal else None
        if choice is not None:
            self._take(controller, car, choice, False)

    def _take(self, controller, car: int, choice: Vec, kept_line: bool) -> None:
        controller.enter(car, choice)
        self.timeouts.append(TimedOut(controller.state.phase + 1, car, choice, kept_line))


def _nearest(nodes, base: Vec) -> Vec:
    return min(nodes, key=lambda v: ((v - base).chebyshev(), v.y, v.x))
