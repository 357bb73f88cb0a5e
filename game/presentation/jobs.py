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
