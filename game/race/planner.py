"""CPU thinking off the frame loop: a worker thread answers ``driver.choose`` requests.

The game calls :meth:`Planner.request` when a CPU must choose and :meth:`Planner.poll`
once a frame; the frame loop never waits. Each answer is tied to the request key
(the race controller uses ``(phase, car)``), so an answer for an old phase, or one
computed before :meth:`Planner.cancel`, is dropped rather than delivered.

Seeds: :func:`planning_rng` derives each request's ``rng`` from (race seed, phase, car),
so a race with CPUs plays out the same every time, however long the CPUs think.
"""

from __future__ import annotations

import queue
import random
import threading
from typing import Mapping

from game.core.race import Choice, RaceState


def planning_rng(seed: int, phase: int, car: int) -> random.Random:
    """The rng for one CPU choice (the same string the race controller uses)."""
    return random.Random(f"{seed}/cpu/{car}/{phase}")


class Planner:
    """Runs CPU drivers on one background thread; poll it every frame.

    Implements the race controller's planner protocol (``request(key, driver, state,
    car, committed, rng)``, ``poll(key)``, ``cancel()``); :meth:`poll_all` gives every
    finished answer of the current generation at once as ``{car: choice}``. A driver
    that raises is answered with the legal target nearest its base point and the error
    is kept in :attr:`errors` (a CPU bug must not freeze the race).
    """

    def __init__(self) -> None:
        self._jobs: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self._generation = 0
        self._pending: dict[object, int] = {}  # key -> generation it was asked in
        self._ready: dict[object, Choice] = {}
        self._cars: dict[object, int] = {}
        self.errors: list[str] = []
        self._thread = threading.Thread(target=self._work, name="cpu-planner", daemon=True)
        self._closed = False
        self._thread.start()

    # -- the frame loop's side ------------------------------------------------
    def request(self, key: object, driver, state: RaceState, car: int,
                committed: Mapping[int, Choice] | None = None, rng: random.Random | None = None) -> None:
        """Start thinking about ``car``'s choice in ``state``; returns at once."""
        if rng is None:
            rng = planning_rng(state.seed, state.phase, car)
        with self._lock:
            self._pending[key] = self._generation
            self._cars[key] = car
            generation = self._generation
        self._jobs.put((generation, key, driver, state, car, dict(committed or {}), rng))

    def poll(self, key: object) -> Choice | None:
        """The answer for ``key`` once ready (then forgotten), else None."""
        with self._lock:
            if key in self._ready:
                self._cars.pop(key, None)
                return self._ready.pop(key)
        return None

    def poll_all(self) -> dict[int, Choice] | None:
        """Every ready answer as ``{car: choice}``, or None when nothing is ready."""
        with self._lock:
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
        """Stop the worker thread (after the job it is on)."""
        self.cancel()
        self._closed = True
        self._jobs.put(None)

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
            except Exception as error:  # a broken CPU must not stop the race
                from game.race.controller import first_legal_choice
                self.errors.append(f"{getattr(driver, 'kind', 'cpu')} car {car}: {error!r}")
                choice = first_legal_choice(state, car, committed)
            with self._lock:
                if self._pending.get(key) == generation:
                    del self._pending[key]
                    self._ready[key] = choice
