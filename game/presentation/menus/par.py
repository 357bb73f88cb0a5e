"""Par (the fewest moves a lone car needs) worked out off the frame loop, for track select and results.

A track's own ``par`` (from its pack) is used when the race keeps the track's rules and
laps; otherwise the solver is asked on a background thread (big tracks take seconds),
and the screens show "working..." (with how far the solver is, :meth:`ParWorker.progress`)
until the answer arrives. Par is counted from the best start place; ``slot`` asks for the
fewest moves from one start place instead (a time trial's lone car stands on the first).

The work is bounded: one worker thread solves one par at a time, only the par asked for
last (scrolling through track select asks for each track in turn: the one the player
has moved on from is cancelled at the solver's next progress report, and asked again
later it starts afresh), answers are kept (:data:`KEEP` of them, and on disk by the
solver's cache), and the worker has a solver of its own that keeps one table at a time.
It never takes the CPUs' tables' lock, so a race's CPUs never wait behind a preview.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict

from game.tracks.pack import pinned_par

WORKING = "working"
#: How many worked-out pars are remembered (a par is one number; the tables are not kept).
KEEP = 512


class _Cancelled(Exception):
    """The par being worked out is no longer wanted (raised inside the solver's progress report)."""


class ParWorker:
    """Answers ``par(track, rules, laps)`` with an int, None (no par: the solver cannot or
    there is no way to the finish) or :data:`WORKING` while the worker computes it.

    ``solver`` is the solver the worker uses (made on first use from the context's
    kernels and solver cache folder when None); ``cancelled`` counts the pars dropped
    because the player asked for another (started or not).
    """

    def __init__(self, ctx, solver=None) -> None:
        self.ctx = ctx
        self._solver = solver
        self._known: OrderedDict[tuple, int | None] = OrderedDict()
        self._started: dict[tuple, float] = {}
        self._progress: dict[tuple, tuple[float, str]] = {}
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._latest: tuple | None = None  # the key asked for last: the only one worth working on
        self._job: tuple | None = None  # (key, track, rules, laps, slot) waiting for the worker
        self._running: tuple | None = None
        self._thread: threading.Thread | None = None
        self._closed = False
        self.cancelled = 0

    @staticmethod
    def _key(track, rules, laps: int, slot: int | None = None) -> tuple:
        return (id(track), track.id, tuple(sorted(rules.options().items())), laps, slot)

    def seconds(self, track, rules, laps: int, slot: int | None = None) -> float:
        """How long the par of this race has been worked on (0 when it is known or not asked for)."""
        with self._lock:
            key = self._key(track, rules, laps, slot)
            if key in self._known or key not in self._started:
                return 0.0
            return time.monotonic() - self._started[key]

    def progress(self, track, rules, laps: int, slot: int | None = None) -> tuple[float, str] | None:
        """How far the solver is with this par (fraction, what it is doing), once it has said so."""
        with self._lock:
            return self._progress.get(self._key(track, rules, laps, slot))

    def par(self, track, rules, laps: int, slot: int | None = None):
        if track is None:
            return None
        own = pinned_par(track, rules, laps) if hasattr(track, "meta") else None
        if own and slot is None:
            return own
        key = self._key(track, rules, laps, slot)
        with self._lock:
            if key in self._known:
                return self._known[key]
            self._latest = key
            if key != self._running and (self._job is None or self._job[0] != key):
                if self._job is not None:  # a par not started yet: nobody wants it now
                    self.cancelled += 1
                    self._started.pop(self._job[0], None)
                self._job = (key, track, rules, laps, slot)
                self._started[key] = time.monotonic()
                self._progress.pop(key, None)
                self._wake.notify()
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._work, daemon=True, name="par-worker")
                self._thread.start()
        return WORKING

    def wait(self, track, rules, laps: int, timeout: float = 120.0, slot: int | None = None):
        """Block until the par is known (tests and tools only; the game never waits)."""
        end = time.monotonic() + timeout
        while (value := self.par(track, rules, laps, slot)) == WORKING and time.monotonic() < end:
            time.sleep(0.02)
        return value

    def close(self) -> None:
        """Stop the worker (the par under way is dropped at its next progress report)."""
        with self._lock:
            self._closed = True
            self._latest = None
            self._job = None
            self._wake.notify()

    @property
    def busy(self) -> bool:
        """Whether a par is being worked out or waits to be."""
        with self._lock:
            return self._running is not None or self._job is not None

    # -- the worker's side ----------------------------------------------------
    def solver(self):
        """The worker's own solver: the game's kernels and solver cache, one table kept at a time."""
        if self._solver is None:
            from game.drivers.solver import Solver

            config_dir = getattr(self.ctx, "config_dir", None)
            self._solver = Solver(cache_dir=None if config_dir is None else config_dir / "solver", max_tables=1,
                                  kernels=getattr(self.ctx, "kernels", None))
        return self._solver

    def _work(self) -> None:
        while True:
            with self._lock:
                while self._job is None and not self._closed:
                    self._wake.wait()
                if self._closed:
                    return
                job, self._job = self._job, None
                self._running = job[0]
            key = job[0]
            try:
                value = self._solve(*job)
            except _Cancelled:
                with self._lock:
                    self.cancelled += 1
                    self._running = None
                    self._started.pop(key, None)
                    self._progress.pop(key, None)
                continue
            with self._lock:
                self._running = None
                self._known[key] = value
                self._started.pop(key, None)
                self._progress.pop(key, None)
                while len(self._known) > KEEP:
                    self._known.popitem(last=False)

    def _cpus_table(self, track, rules, laps, hear):
        """The CPUs' table of this race when they have it, waiting while they build it; never holding their lock long.

        A race asks for its own par: its CPUs build the same table at the same time, and
        two copies would take twice the memory. ``hear`` raises when the par is no longer wanted.
        """
        shared = getattr(self.ctx, "_shared", None)  # only a game whose CPUs have raced or are racing
        if shared is None:
            return None
        solver = shared.solver
        busy = 0
        while True:
            building = solver.building
            ours = building is not None and building[0] == track.name
            if shared.lock.acquire(blocking=False):
                try:
                    table = solver.cached_table(track, rules, laps)
                finally:
                    shared.lock.release()
                if table is not None or not ours:
                    return table
            elif not ours:
                busy += 1
                if busy > 20:  # the CPUs are busy with something else: work it out here
                    return None
            hear(0.0, "waiting for the CPUs' table" if ours else "starting")
            time.sleep(0.05 if ours else 0.005)

    def _solve(self, key, track, rules, laps, slot=None):
        def hear(fraction: float, what: str) -> None:
            with self._lock:
                if self._latest != key or self._closed:
                    raise _Cancelled
                self._progress[key] = (fraction, what)

        try:
            from game.drivers.solver import supports

            if not supports(rules):
                return None
            hear(0.0, "starting")
            table = self._cpus_table(track, rules, laps, hear)
            if table is not None:  # the race's CPUs have it (or are building it): no second copy
                return table.solution(slot).par
            return self.solver().solve(track, rules, laps, slot=slot, progress=hear).par
        except _Cancelled:
            raise
        except Exception:  # a par we cannot work out is shown as unknown, never a crash
            return None
