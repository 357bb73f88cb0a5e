"""Par (the fewest moves a lone car needs) worked out off the frame loop, for track select and results.

A track's own ``par`` (from its pack) is used when the race keeps the track's rules and
laps; otherwise the solver is asked on a background thread (big tracks take seconds),
and the screens show "working..." (with how far the solver is, :meth:`ParWorker.progress`)
until the answer arrives. Par is counted from the best start place; ``slot`` asks for the
fewest moves from one start place instead (a time trial's lone car stands on the first). The solver is the one the
CPUs share, so the table built here also speeds up their first move.
"""

from __future__ import annotations

import threading
import time

from game.tracks.pack import pinned_par

WORKING = "working"


class ParWorker:
    """Answers ``par(track, rules, laps)`` with an int, None (no par: the solver cannot or
    there is no way to the finish) or :data:`WORKING` while a thread computes it."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._known: dict[tuple, int | None | str] = {}
        self._started: dict[tuple, float] = {}
        self._progress: dict[tuple, tuple[float, str]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _key(track, rules, laps: int, slot: int | None = None) -> tuple:
        return (id(track), track.id, tuple(sorted(rules.options().items())), laps, slot)

    def seconds(self, track, rules, laps: int, slot: int | None = None) -> float:
        """How long the par of this race has been worked on (0 when it is known or not asked for)."""
        with self._lock:
            key = self._key(track, rules, laps, slot)
            if self._known.get(key) != WORKING:
                return 0.0
            return time.monotonic() - self._started.get(key, time.monotonic())

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
            self._known[key] = WORKING
            self._started[key] = time.monotonic()
        threading.Thread(target=self._solve, args=(key, track, rules, laps, slot), daemon=True,
                         name=f"par-{track.id}").start()
        return WORKING

    def wait(self, track, rules, laps: int, timeout: float = 120.0, slot: int | None = None):
        """Block until the par is known (tests and tools only; the game never waits)."""
        import time

        end = time.monotonic() + timeout
        while (value := self.par(track, rules, laps, slot)) == WORKING and time.monotonic() < end:
            time.sleep(0.02)
        return value

    def _solve(self, key, track, rules, laps, slot=None) -> None:
        value = None

        def hear(fraction: float, what: str) -> None:
            with self._lock:
                self._progress[key] = (fraction, what)

        try:
            from game.drivers.solver import supports

            if supports(rules):
                shared = self.ctx.cpu_shared
                with shared.lock:
                    value = shared.solver.solve(track, rules, laps, slot=slot, progress=hear).par
        except Exception:  # a par we cannot work out is shown as unknown, never a crash
            value = None
        with self._lock:
            self._known[key] = value

