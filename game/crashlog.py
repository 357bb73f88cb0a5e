"""Crash logs: the traceback of an unexpected error in a file, for a bug report.

A player never sees a traceback: the ``racetrack`` command prints one line naming the
file (:func:`game.cli.report_error`), and a CPU driver that fails during a game has its
traceback written here while the race goes on (:class:`game.race.planner.Planner`).
Each log is a new file ``racetrack-crash-*.txt`` in the system's temporary folder.

A failure that repeats (the same CPU bug every phase, for every car) is logged once:
:class:`CrashLogs` keeps one log per *cause* (:func:`cause_of`: the kind of error and
the line that raised it), so a long evening cannot fill the temporary folder.
"""

from __future__ import annotations

import re
import tempfile
import threading
import traceback
from typing import Callable


def write_crash_log(error: BaseException, context: str = "") -> str | None:
    """Write ``context`` (what was going on) and the traceback of ``error`` to a new file; returns its path.

    Returns None when no file can be written (a crash log must never raise in turn).
    """
    try:
        with tempfile.NamedTemporaryFile("w", prefix="racetrack-crash-", suffix=".txt", delete=False,
                                         encoding="utf-8") as f:
            if context:
                f.write(context.rstrip("\n") + "\n\n")
            f.write("".join(traceback.format_exception(error)))
            return f.name
    except OSError:
        return None


def cause_of(error: BaseException) -> tuple:
    """What makes two failures the same bug: the innermost error's type and where it was raised.

    An error wrapped by another (``raise ... from``, or ``__cause__`` set) is judged by
    the wrapped one. Without a traceback (an error made but never raised, such as a CPU's
    illegal pick reported by race control) the message counts, its numbers (phase, car,
    coordinates) left out.
    """
    inner = error
    while inner.__cause__ is not None and inner.__cause__ is not inner:
        inner = inner.__cause__
    frames = traceback.extract_tb(inner.__traceback__) if inner.__traceback__ is not None else []
    if frames:
        last = frames[-1]
        return type(inner).__name__, last.filename, last.lineno
    return type(inner).__name__, re.sub(r"-?\d+", "#", str(inner))[:300]


class CrashLogs:
    """Writes one crash log per cause (see :func:`cause_of`) and hands back its path on repeats.

    One per game (or command), passed to whatever logs failures (the CPU planners); a
    callable like :func:`write_crash_log`. ``write`` does the writing (tests pass their own).
    ``repeats`` counts the failures not written, by cause.
    """

    def __init__(self, write: Callable[[BaseException, str], str | None] = write_crash_log, limit: int = 64) -> None:
        self._write = write
        self._limit = limit
        self._paths: dict[tuple, str | None] = {}
        self.repeats: dict[tuple, int] = {}
        self._lock = threading.Lock()

    def __call__(self, error: BaseException, context: str = "") -> str | None:
        cause = cause_of(error)
        with self._lock:
            if cause in self._paths:
                self.repeats[cause] = self.repeats.get(cause, 0) + 1
                return self._paths[cause]
            if len(self._paths) >= self._limit:  # a flood of different bugs: stop writing, keep counting
                self.repeats[cause] = self.repeats.get(cause, 0) + 1
                return None
            self._paths[cause] = None  # claimed: another thread's copy of this failure is not written twice
        path = self._write(error, context)
        with self._lock:
            self._paths[cause] = path
        return path

    @property
    def written(self) -> int:
        """How many logs were written."""
        with self._lock:
            return sum(1 for p in self._paths.values() if p is not None)
