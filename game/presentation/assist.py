"""The "doomed targets" assist of the race screen, worked out off the frame loop.

A doomed target is one after which the car can no longer avoid leaving the road
(:mod:`game.drivers.safety`). On a long fast track one question can take the search a
second or more, far beyond a frame, so :class:`DoomedMarks` asks it on a background
thread and the screen polls it every frame: until the answer is in, no target is marked
(a missing mark is only a missing nicety; a wrong one would mislead), then the marks
appear. Questions for a turn that is over are abandoned, and the search gives the
interpreter back to the frame loop every few states, so frames stay as short as without
the assist.

>>> from game.presentation.demo_track import demo_track
>>> from game.core.race import RaceState
>>> from game.core.rules import preset
>>> state = RaceState.start(demo_track(), preset("paper"), ["a"], seed=1)
>>> marks = DoomedMarks()
>>> marks.wait((0, 0), state, 0, {}) == frozenset()  # standing still: nothing is doomed yet
True
>>> marks.close()
"""

from __future__ import annotations

import time
from typing import Mapping

from game.core.rules import Movement
from game.presentation.jobs import Job

#: Movement systems the assist answers for (graded cars never stop, fine paper and flicks
#: offer too many targets to search each turn): others get no marks.
SUPPORTED = frozenset({Movement.NINE, Movement.CROSS, Movement.SCALAR})


class _Abandoned(Exception):
    """Raised inside the search when its question is no longer wanted."""


class DoomedMarks:
    """Doomed targets per ``key`` (the race screen uses ``(phase, car)``), searched on a background job.

    :meth:`get` answers at once: the marks once known, ``None`` while they are being
    searched. One search runs at a time, in the order asked; :meth:`keep` drops what is
    no longer wanted (a turn that is over), abandoning its search at the next checkpoint.
    The search's memory of the track (:class:`~game.drivers.safety.SafetyOracle`) is kept
    between turns and only ever touched by the job's thread. If the safety search is
    missing or fails, that key gets no marks (the assist must never stop the race).
    """

    def __init__(self) -> None:
        self._known: dict = {}
        self._wanted: dict = {}  # key -> (state, car, committed): asked, not searched yet
        self._job: Job | None = None
        self._job_key = None
        self._abandon = False  # read by the job's thread at each checkpoint
        self._closed = False
        self._oracle = None

    def get(self, key, state, car: int, committed: Mapping | None = None) -> frozenset | None:
        """The doomed targets of ``car`` in ``state`` (None while not known yet); never waits."""
        if state.rules.movement not in SUPPORTED:
            return frozenset()
        self._collect()
        known = self._known.get(key)
        if known is None and key != self._job_key:
            self._wanted.setdefault(key, (state, car, dict(committed or {})))
            self._next()
        return known

    def keep(self, keys) -> None:
        """Forget every answer and question but those of ``keys``; a search for another key is abandoned."""
        keys = set(keys)
        self._known = {k: v for k, v in self._known.items() if k in keys}
        self._wanted = {k: v for k, v in self._wanted.items() if k in keys}
        if self._job is not None and self._job_key not in keys:
            self._abandon = True

    def close(self) -> None:
        """Abandon any search (the race screen is left); the job's thread ends at its next checkpoint."""
        self._closed = self._abandon = True
        self._wanted.clear()

    def wait(self, key, state, car: int, committed: Mapping | None = None, timeout: float = 30.0):
        """Ask, then block until the answer is in (tests and tools only; screens use :meth:`get`)."""
        deadline = time.monotonic() + timeout
        while True:
            answer = self.get(key, state, car, committed)
            if answer is not None or time.monotonic() > deadline:
                return answer
            job = self._job
            if job is not None:
                job.wait(0.05)

    @property
    def busy(self) -> bool:
        """Whether a search is running now."""
        return self._job is not None and not self._job.done

    # -- the job ------------------------------------------------------------------
    def _collect(self) -> None:
        job = self._job
        if job is None or not job.done:
            return
        if job.error is None:
            self._known[self._job_key] = job.result
        elif not isinstance(job.error, _Abandoned):
            self._known[self._job_key] = frozenset()  # failed: no marks for that turn
        self._job = self._job_key = None
        self._next()

    def _next(self) -> None:
        if self._job is not None or not self._wanted or self._closed:
            return
        key = next(iter(self._wanted))
        state, car, committed = self._wanted.pop(key)
        self._job_key, self._abandon = key, False
        self._job = Job(lambda: self._search(state, car, committed), name="doomed-targets")

    def _checkpoint(self) -> None:
        """Called by the search every few states, on the job's thread."""
        if self._abandon:
            raise _Abandoned
        time.sleep(0)  # hand the interpreter to the frame loop now (else it may wait up to 5 ms for it)

    def _search(self, state, car: int, committed) -> frozenset:
        try:
            from game.drivers.safety import SafetyOracle, doomed_targets
        except ImportError:
            return frozenset()
        oracle = self._oracle
        if oracle is None or oracle.track is not state.track or oracle.rules is not state.rules:
            oracle = self._oracle = SafetyOracle(state.track, state.rules, checkpoint=self._checkpoint)
        return frozenset(doomed_targets(state, car, committed, oracle=oracle))
