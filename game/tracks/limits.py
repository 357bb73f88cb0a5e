"""How big a track may be: the bounds every loader checks before it builds anything large.

A hand-written pack can ask for a sheet of any size in a few bytes (a ring on a 10000 x
10000 sheet); validating or racing it would take minutes and gigabytes. These limits
hold every real track with room to spare (the largest built-in outline is 180 x 107
squares with 392 points; the largest Karopapier map 183 x 173 cells) and keep checking
the largest allowed track to about a second. ``docs/limits.md`` lists them for modders.
"""

from __future__ import annotations

#: The most squares a track may be wide or high (char maps: cells; outlines: the sheet).
MAX_SIDE = 1000
#: The most grid nodes (cells) a track's sheet may hold, width times height.
MAX_NODES = 250_000
#: Points of one outline ring, and of all rings of a track together.
MAX_RING_POINTS = 1000
MAX_OUTLINE_POINTS = 2000
#: Islands of an outline, checkpoint lines of an outline, listed start nodes.
MAX_ISLANDS = 100
#: Terrain patches of an outline (``[[track.outline.terrain]]``).
MAX_TERRAIN_PATCHES = 100
MAX_CHECKPOINT_LINES = 50
MAX_START_NODES = 64
#: Tracks in one pack file, and the grid nodes of all their sheets together (eight tracks of
#: the largest size): a pack at both limits still validates in seconds, not minutes.
MAX_TRACKS = 100
MAX_PACK_NODES = 2_000_000


def sheet_problem(width: int, height: int, what: str = "the sheet") -> str | None:
    """Why a ``width`` x ``height`` sheet is too big (None when it is not)."""
    if width > MAX_SIDE or height > MAX_SIDE or width * height > MAX_NODES:
        return (f"{what} is {width} x {height} squares; the game reads tracks up to {MAX_SIDE} squares wide "
                f"or high and {MAX_NODES:,} grid nodes in all".replace(",", " "))
    return None
