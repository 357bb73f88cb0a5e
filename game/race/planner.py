"""CPU thinking off the frame loop: a worker thread answers ``driver.choose`` requests.

The game calls :meth:`Planner.request` when a CPU must choose and :meth:`Planner.poll`
once a frame; the frame loop never waits. Each answer is tied to the request key
(the race controller uses ``(phase, car)``), so an answer for an old phase, or one
computed before :meth:`Planner.cancel`, is dropped rather than delivered.

A planner belongs to one race: race control closes it when the race is over or left
(:meth:`~game.race.controller.RaceController.close`), which ends its thread.

A CPU that fails (raises, or picks a target that is not legal) is a bug. By default the
failure is raised as a :class:`CpuError` on the thread that polls (tests, tools); the game
makes its planners with ``keep_racing=True``: the failure's traceback goes to a crash log
(:mod:`game.crashlog`), :attr:`Planner.errors` says what happened and where the log is,
and the CPU is answered with the legal target nearest its base point. A failure that
repeats (the same bug every phase, for every car) is logged and listed once per cause
(:func:`game.crashlog.cause_of`); pass the game's one :class:`~game.crashlog.CrashLogs`
as ``crash_log`` so that the next race does not log it again either.

Seeds: :func:`planning_rng` derives each request's ``rng`` from (race seed, phase, car),
so a race with CPUs plays out the same every time, however long the CPUs think.
"""

from __future__ import annotations

import queue
import random
import threading
from typing import Callable, Mapping

from game.core.race import Choice, RaceState
from game.core.vec import RETIRE, Retire, Vec
from game.crashlog import CrashLogs, cause_of


def planning_rng(seed: int, phase: int, car: int) -> random.Random:
    """The rng for one CPU choice (the same string the race controller uses)."""
    return random.Random(f"{seed}/cpu/{car}/{phase}")


class CpuError(RuntimeError):
    """A CPU driver failed: it raised, or chose a target that is not legal (the message says which, where)."""


class Planner:
    """Runs CPU drivers on one background thread; poll it every frame.

    Implements the race controller's planner protocol (``request(key, driver, state,
    car, committed, rng)``, ``poll(key)``, ``cancel()``, ``close()``, ``report(error)``);
    :meth:`poll_all` gives every finished answer of the current generation at once as
    ``{car: choice}``. ``keep_racing`` and ``crash_log`` decide what a CPU failure does
    (see the module docstring).
    """

    def __init__(self, keep_racing: bool = False,
                 crash_log: Callable[[BaseException, str], str | None] | None = None) -> None:
        self.keep_racing = keep_racing
        self._crash_log = crash_log if crash_log is not None else CrashLogs()
        self._jobs: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self._generation = 0
        self._pending: dict[object, int] = {}  # key -> generation it was asked in
        self._ready: dict[object, Choice] = {}
        self._cars: dict[object, int] = {}
        self._failure: CpuError | None = None
        self._logged: dict[tuple, str | None] = {}  # cause of a failure -> its crash log (each is written once)
        self.repeats = 0  # failures of a cause already logged (not listed again)
        self.errors: list[str] = []
        self._thread = threading.Thread(target=self._work, name="cpu-planner", daemon=True)
        self._closed = False
        self._thread.start()

    # -- the frame loop's side ------------------------------------------------
    def request(self, key: object, driver, state: RaceState, car: int,
                committed: Mapping[int, Choice] | None = None, rng: random.Random | None = None) -> None:
        """Start thinking about ``car``'s choice in ``state``; returns at once."""
        if self._closed:
            raise RuntimeError("this planner is closed: its race is over")
        if rng is None:
            rng = planning_rng(state.seed, state.phase, car)
        with self._lock:
            self._pending[key] = self._generation
            self._cars[key] = car
            generation = self._generation
        self._jobs.put((generation, key, driver, state, car, dict(committed or {}), rng))

    def poll(self, key: object) -> Choice | None:
        """The answer for ``key`` once ready (then forgotten), else None. Raises a CPU's :class:`CpuError`."""
        with self._lock:
            self._raise_failure()
            if key in self._ready:
                self._cars.pop(key, None)
                return self._ready.pop(key)
        return None

    def poll_all(self) -> dict[int, Choice] | None:
        """Every ready answer as ``{car: choice}``, or None when nothing is ready."""
        with self._lock:
            self._raise_failure()
            if not self._ready:
                return None
            out = {self._cars.pop(key, -1): choice for key, choice in self._ready.items()}
            self._ready.clear()
            return out

    def busy(self) -> bool:
        with self._lock:
            return bool(self._pending)

    def cancel(self) -> None:
        """Forget every request; answers still being computed are dropped when they arrive."""
        with self._lock:
            self._generation += 1
            self._pending.clear()
            self._ready.clear()
            self._cars.clear()

    def close(self) -> None:
        """Forget every request and stop the worker thread (after the job it is on); never waits."""
        if self._closed:
            return
        self.cancel()
        self._closed = True
        self._jobs.put(None)

    @property
    def closed(self) -> bool:
        return self._closed

    def join(self, timeout: float | None = None) -> bool:
        """Wait until the worker thread has ended (after :meth:`close`); True if it has."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def report(self, error: CpuError) -> bool:
        """A CPU failed (race control tells us of illegal picks): True when the race is to go on.

        With ``keep_racing`` the failure is logged (see the module docstring) and True is
        returned; otherwise False (the caller raises it).
        """
        if not self.keep_racing:
            return False
        what, cause = str(error), cause_of(error)
        with self._lock:
            known = cause in self._logged
            if known:
                self.repeats += 1
                return True
            self._logged[cause] = None
        path = self._crash_log(error, f"a CPU driver failed in a race: {what}")
        with self._lock:
            self._logged[cause] = path
            self.errors.append(what + (f" (details in {path})" if path else ""))
        return True

    def _raise_failure(self) -> None:
        """Raise a CPU's failure on the polling thread (called with the lock held)."""
        failure, self._failure = self._failure, None
        if failure is not None:
            raise failure

    # -- the worker's side ----------------------------------------------------
    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            generation, key, driver, state, car, committed, rng = job
            with self._lock:
                if self._pending.get(key) != generation:
                    continue  # cancelled or asked again since
            try:
                choice = driver.choose(state, car, committed, rng)
            except Exception as error:  # a broken CPU must not stop the race, nor fail silently
                failure = CpuError(f"{getattr(driver, 'kind', 'cpu')} driving car {car} raised {error!r} "
                                   f"in phase {state.phase + 1} on track {state.track.id!r}")
                failure.__cause__ = error
                if not self.report(failure):
                    with self._lock:
                        self._pending.pop(key, None)
                        self._failure = failure
                    continue
                choice = first_legal_choice(state, car, committed)
            with self._lock:
                if self._pending.get(key) == generation:
                    del self._pending[key]
                    self._ready[key] = choice


def first_legal_choice(state: RaceState, car: int, committed: Mapping[int, Choice]) -> Vec | Retire:
    """The legal target nearest the base point: the choice for a CPU that failed, and a stand-in
    driver for tests and demos."""
    legal = [c for c in state.candidates(car, committed) if c.legal]
    if not legal:
        return RETIRE
    base = state.base_point(car)
    return min(legal, key=lambda c: ((c.node - base).chebyshev(), c.key.y, c.key.x)).node
