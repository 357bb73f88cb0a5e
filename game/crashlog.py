"""Crash logs: the traceback of an unexpected error in a file, for a bug report.

A player never sees a traceback: the ``racetrack`` command prints one line naming the
file (:func:`game.cli.report_error`), and a CPU driver that fails during a game has its
traceback written here while the race goes on (:class:`game.race.planner.Planner`).
Each log is a new file ``racetrack-crash-*.txt`` in the system's temporary folder.
"""

from __future__ import annotations

import tempfile
import traceback


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
