"""Work that must not hold up a frame (loading packs, refereeing a kept run, the Champion's line):
run it on a background thread and poll it from ``update``.

>>> job = Job(lambda: 6 * 7)
>>> job.wait(5) and job.result
42
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable


class Job:
    """One function run on a daemon thread; ``done``, ``result`` and ``error`` are read by the screen."""

    def __init__(self, work: Callable[[], Any], name: str = "job") -> None:
        self.result: Any = None
        self.error: BaseException | None = None
        self.started = time.monotonic()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(work,), name=name, daemon=True)
        self._thread.start()

    def _run(self, work) -> None:
        try:
            self.result = work()
        except Exception as error:  # shown on screen by whoever polls; a job never takes the game down
            self.error = error
        finally:
            self._done.set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def seconds(self) -> float:
        """How long the job has been running (for "working... 3 s" on screen)."""
        return time.monotonic() - self.started

    def wait(self, timeout: float | None = None) -> bool:
        """Block until done (tests and tools only; screens poll ``done``)."""
        return self._done.wait(timeout)


class Pictures:
    """Surfaces drawn on a background job, one at a time, and kept by key.

    ``get(key, draw)`` gives the surface once drawn, None while it is being drawn (the
    screen shows a placeholder); ``draw()`` runs on the job's thread and must only draw on
    surfaces of its own (text rendering is safe: pygame holds the interpreter lock while
    it renders a string; :attr:`text` is a text cache for the job's thread only, since the
    screen's own cache is not shared between threads). A drawing that fails is remembered
    as failed (None for good).
    """

    def __init__(self, limit: int = 16) -> None:
        from game.presentation.text import TextCache

        self.text = TextCache()
        self.limit = limit
        self._done: dict = {}
        self._failed: set = set()
        self._job: Job | None = None
        self._key = None

    def get(self, key, draw: Callable[[], Any]):
        if key in self._done:
            return self._done[key]
        job = self._job
        if job is not None and job.done:
            if job.error is None:
                if len(self._done) >= self.limit:
                    self._done.pop(next(iter(self._done)))
                self._done[self._key] = job.result
            else:
                self._failed.add(self._key)
            self._job = job = None
            if key in self._done:
                return self._done[key]
        if job is None and key not in self._failed:
            self._key = key
            self._job = Job(draw, name="picture")
        return None

    def wait(self, timeout: float = 30.0) -> None:
        """Block until the picture being drawn is done (tests and tools)."""
        if self._job is not None:
            self._job.wait(timeout)
