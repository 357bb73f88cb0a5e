"""Generated tracks for the menus, made off the frame loop: a worker thread, progress to show, one prepared ahead.

Track select's "Random track", "Track of the day" and typed codes, and the cup's "Random
cup", ask :class:`GeneratedTracks` for a code's track: :meth:`GeneratedTracks.get` answers
at once with the checked track (``game.drivers.generated.Generated``), a :class:`Making`
(which candidate the worker is on) or a :class:`Failed` (the reason, never a traceback).
Asking for a random track hands out the one prepared ahead and starts preparing the next.
Nothing here imports pygame; the dice are passed in (``entropy``), the date too.
"""

from __future__ import annotations

import datetime
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable


@dataclass(frozen=True)
class Making:
    """A code's track is being made: ``attempt`` is the candidate (0 first), ``what`` the step."""

    attempt: int = 0
    what: str = "waiting"

    def text(self) -> str:
        return f"making the track... candidate {self.attempt + 1}, {self.what}"


@dataclass(frozen=True)
class Failed:
    """No track for this code: ``message`` says why (a mistyped code, a generator bug)."""

    message: str


class GeneratedTracks:
    """Checked generated tracks, made one at a time on a worker thread (the newest wish first)."""

    def __init__(self, entropy: Callable[[], int], kernels=None, size: str = "medium") -> None:
        self.entropy = entropy
        self.kernels = kernels
        self.size = size
        self._lock = threading.Lock()
        self._known: dict[str, object] = {}
        self._queue: deque[str] = deque()
        self._wake = threading.Event()
        self._worker: threading.Thread | None = None
        self._solver = None
        self._ahead: dict[str, str] = {}  # size -> a random code prepared ahead
        self.random: dict[str, str] = {}  # size -> the random code on offer

    # -- asking ----------------------------------------------------------------
    def get(self, code: str):
        """The state of a code's track now: ``Generated``, :class:`Making` or :class:`Failed`; starts it if new."""
        with self._lock:
            found = self._known.get(code)
        if found is None:
            self.want(code)
            return Making()
        return found

    def peek(self, code: str):
        """The state of a code's track now, without starting it (:class:`Making` when not started)."""
        with self._lock:
            found = self._known.get(code)
        return Making(0, "highlight it to make it") if found is None else found

    def want(self, code: str, first: bool = True) -> None:
        """Put a code in the worker's queue (``first``: before the others), unless it is made or queued."""
        with self._lock:
            if code in self._known and code not in self._queue:
                return  # made, failed, or on the worker now
            if code in self._queue:
                if not first:
                    return
                self._queue.remove(code)
            self._known[code] = self._known.get(code, Making())
            (self._queue.appendleft if first else self._queue.append)(code)
            self._wake.set()
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name="generated-tracks", daemon=True)
                self._worker.start()

    def random_code(self, size: str | None = None, start: bool = True) -> str:
        """The random track on offer for a size; with ``start`` it is made (and the next prepared ahead)."""
        size = size or self.size
        if size not in self.random:
            from game.tracks.generator import random_spec

            self.random[size] = random_spec(self.entropy(), size).code
        if start:
            self.want(self.random[size])
            if size not in self._ahead:
                self._ahead[size] = self._next(size)
        return self.random[size]

    def _next(self, size: str) -> str:
        """A random code prepared ahead: made after whatever is wanted now."""
        from game.tracks.generator import random_spec

        code = random_spec(self.entropy(), size).code
        self.want(code, first=False)
        return code

    def reroll(self, size: str | None = None) -> str:
        """A new random track: the one prepared ahead (if any) goes on offer and the next is prepared."""
        size = size or self.size
        code = self._ahead.pop(size, None) or self._next(size)
        self.random[size] = code
        self.want(code)
        self._ahead[size] = self._next(size)
        return code

    def day_code(self, day: datetime.date, start: bool = False) -> str:
        """The track of the day for a local date (the same in every copy of the game); ``start``: make it."""
        from game.tracks.generator import code_of_day

        code = code_of_day(day)
        if start:
            self.want(code)
        return code

    def cup_codes(self, size: str, count: int = 4) -> list[str]:
        """Codes for a random cup of ``count`` tracks of one size, all being made."""
        from game.tracks.generator import random_spec

        codes = [random_spec(self.entropy(), size).code for _ in range(count)]
        for code in codes:
            self.want(code, first=False)
        return codes

    def save(self, code: str, folder: Path) -> str:
        """Keep a made track as a level pack in ``folder`` (the editor opens it); returns what happened.

        An existing file is never replaced: the same track there already is left as it is;
        anything else there (an edited copy) keeps its name and this one takes ``-2``, ``-3``, ...
        """
        from game.drivers.generated import Generated
        from game.files import may_replace, write_new_or_own

        made = self.get(code)
        if not isinstance(made, Generated):
            return "The track is not made yet." if isinstance(made, Making) else made.message
        path = Path(folder) / f"generated-{code}.toml"
        number = 2
        while may_replace(path, made.text):  # something else is there: never over it, the next name
            path = Path(folder) / f"generated-{code}-{number}.toml"
            number += 1
        try:
            write_new_or_own(path, made.text, make_folder=True)
        except OSError as error:
            return f"Could not save {code}: {error}"
        return f"Saved {code} to your tracks: {path.name}"

    # -- the worker ------------------------------------------------------------
    def _work(self) -> None:
        from game.core.errors import RacetrackError
        from game.drivers.generated import generate
        from game.drivers.solver import Solver

        while True:
            self._wake.wait()
            with self._lock:
                if not self._queue:
                    self._wake.clear()
                    continue
                code = self._queue.popleft()
            if self._solver is None:
                self._solver = Solver(max_tables=1, kernels=self.kernels)

            def hear(attempt: int, what: str, code=code) -> None:
                with self._lock:
                    self._known[code] = Making(attempt, what)

            try:
                result: object = generate(code, solver=self._solver, progress=hear)
            except RacetrackError as error:
                result = Failed(str(error))
            except Exception as error:  # noqa: BLE001 - a bug of ours: reported on screen, never raced
                result = Failed(f"the track could not be made: {error!r}")
            with self._lock:
                self._known[code] = result

    def wait(self, code: str, timeout: float = 120.0):
        """Block until a code's track is made or failed (tests and tools only; the game never waits)."""
        import time

        end = time.monotonic() + timeout
        while isinstance(found := self.get(code), Making) and time.monotonic() < end:
            time.sleep(0.02)
        return found


def generated_tracks(ctx) -> GeneratedTracks:
    """The game's one :class:`GeneratedTracks`, kept on the menus' context (made on first use)."""
    found = getattr(ctx, "_generated_tracks", None)
    if found is None:
        rng = ctx.rng
        found = GeneratedTracks(lambda: rng.getrandbits(64), kernels=getattr(ctx, "kernels", None))
        ctx._generated_tracks = found
    return found
