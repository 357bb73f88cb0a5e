"""Limits the rules put on a race, each written once (``docs/limits.md`` lists them for players).

Every reader (packs, char maps, outlines, cups, replays, the command line, the editor)
and the race itself check against these, with the same words.

>>> laps_problem(3) is None, laps_problem(0), laps_problem(True)
(True, 'must be a whole number from 1 to 99, not 0', 'must be a whole number from 1 to 99, not True')
"""

from __future__ import annotations

#: A race is one lap at least and 99 at most.
MIN_LAPS, MAX_LAPS = 1, 99


def laps_problem(laps: object) -> str | None:
    """What is wrong with a number of laps (None when nothing): a whole number from 1 to 99."""
    if isinstance(laps, bool) or not isinstance(laps, int) or not MIN_LAPS <= laps <= MAX_LAPS:
        return f"must be a whole number from {MIN_LAPS} to {MAX_LAPS}, not {laps!r}"
    return None
