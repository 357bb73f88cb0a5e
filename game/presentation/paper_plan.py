"""What the paper sheet draws in a frame, decided in plain Python (no pygame, no clock).

:class:`~game.presentation.paper.PaperSheet` keeps the paper under the race in cached
tiles at zoom *levels* (pixels per square). Each frame it must decide which level to
show, which tiles that takes, what stands in for a tile not drawn yet, and how many
tiles to draw ahead. Those decisions are made here, from numbers alone: the camera as a
:class:`Look`, the tiles the cache holds, and the frame's work as a :class:`FrameBudget`
counted in tiles. Nothing here reads a clock, so the same frames give the same pixels on
a fast machine and a slow one; the sheet only paints what the plan says.

Coordinates as in ``paper.py``: a level's pixel (px, py) is the point (px / level,
py / level) in squares, and tile (tx, ty) holds pixels from (tx, ty) * TILE.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Collection, Iterator, Mapping

#: Tile size in pixels (also the period of the paper grain and of the hatching).
TILE = 256

Rect = tuple[float, float, float, float]  # left, top, right, bottom (squares)
Spot = tuple[float, int, int]  # (level, tx, ty): one tile of one level


@dataclass(frozen=True)
class FrameBudget:
    """A frame's drawing work, counted in tiles (a tile costs 1-4 ms to draw).

    ``sync``: visible tiles with nothing to stand in for them that a frame draws at once
    (None: all of them, a gap in the paper would show; at least one is always drawn); the
    rest show as plain paper and are drawn as spare work. ``spare``: tiles drawn ahead in a
    frame that animates, only when it is cheap (it scaled no tile and drew none at once).
    ``idle``: tiles drawn ahead while nothing animates (players choosing); ``sharpen``: the
    same while rough stand-ins are still on screen; ``first``: in a progressive sheet's
    first frame, whose stand-ins are already its work.
    """

    sync: int | None = None
    spare: int = 1
    idle: int = 3
    sharpen: int = 6
    first: int = 1


@dataclass(frozen=True)
class Look:
    """What the planner knows of a camera: plain numbers."""

    scale: float  # pixels per square now
    target: float  # the scale it is zooming to (= scale when it stands)
    view: Rect  # the squares on screen
    target_view: Rect  # the squares on screen once it has zoomed
    settled: bool  # not zooming

    @classmethod
    def of(cls, camera) -> "Look":
        """The look of a :class:`~game.presentation.camera.Camera`."""
        return cls(camera.scale, camera.target_scale, camera.visible_world(),
                   view_at(camera, camera.target_scale), camera.settled)


def view_at(camera, scale: float) -> Rect:
    """The squares a camera will show at ``scale`` once it reaches its target centre."""
    half_w, half_h = camera.size[0] / 2 / scale, camera.size[1] / 2 / scale
    cx, cy = camera.target_center
    return cx - half_w, cy - half_h, cx + half_w, cy + half_h


def tile_range(view: Rect, level: float, ring: int = 0) -> Iterator[tuple[int, int]]:
    """The tiles of ``level`` covering ``view`` (``ring`` > 0: only the ring that far round it)."""
    left, top, right, bottom = view
    tx0, ty0 = math.floor(left * level / TILE) - ring, math.floor(top * level / TILE) - ring
    tx1, ty1 = math.floor(right * level / TILE) + ring, math.floor(bottom * level / TILE) + ring
    for ty in range(ty0, ty1 + 1):
        for tx in range(tx0, tx1 + 1):
            if ring and tx0 + ring <= tx <= tx1 - ring and ty0 + ring <= ty <= ty1 - ring:
                continue
            yield tx, ty


def frame_level(levels: Mapping[float, Collection[tuple[int, int]]], look: Look) -> float:
    """The level a frame shows: the camera's own once it stands (or nothing is cached), else
    while zooming the cached level covering most of the view, nearest in scale (scaled)."""
    if look.settled or not levels:
        return look.scale
    best, best_key = None, None
    for lv, tiles in levels.items():
        wanted = list(tile_range(look.view, lv))
        have = sum(1 for t in wanted if t in tiles)
        key = (have / max(1, len(wanted)), -abs(math.log(lv / look.scale)))
        if best_key is None or key > best_key:
            best, best_key = lv, key
    return best if best is not None else look.scale


def fallback(levels: Mapping[float, Collection[tuple[int, int]]], level: float, tx: int, ty: int,
             scale: float) -> tuple[float, list[tuple[int, int]]] | None:
    """Another level whose cached tiles cover tile (tx, ty) of ``level`` (nearest to ``scale``):
    that level and the tiles it takes, or None."""
    x0, y0 = tx * TILE / level, ty * TILE / level
    x1, y1 = x0 + TILE / level, y0 + TILE / level
    options = []
    for lv, tiles in levels.items():
        if lv == level or not tiles:
            continue
        needed = [(a, b) for b in range(math.floor(y0 * lv / TILE), math.floor((y1 - 1e-9) * lv / TILE) + 1)
                  for a in range(math.floor(x0 * lv / TILE), math.floor((x1 - 1e-9) * lv / TILE) + 1)]
        if all(t in tiles for t in needed):
            options.append((abs(math.log(lv / scale)), lv, needed))
    return min(options)[1:] if options else None


def draws_now(budget: FrameBudget, drawn: int) -> bool:
    """Whether a visible tile with nothing to stand in is drawn now, ``drawn`` such tiles
    being drawn already this frame (else plain paper shows there until spare work draws it)."""
    return budget.sync is None or drawn < max(1, budget.sync)


def spare_count(budget: FrameBudget, look: Look, idle: bool, progressive: bool, first_frame: bool,
                missing: bool, costly: bool) -> int:
    """How many tiles a frame draws ahead, after what is on screen.

    ``missing``: tiles on screen are stand-ins or plain paper; ``costly``: the frame scaled
    tiles or drew some at once. While zooming nothing is drawn ahead (the frame scales, and
    the new level is drawn once the camera stands there).
    """
    if idle:
        if first_frame:
            return budget.first  # the stand-ins were this frame's work: sharpening starts next frame
        return budget.sharpen if progressive and missing else budget.idle
    if not look.settled:
        return 0
    if not missing and costly:
        return 0  # nothing on screen is missing: keep a costly frame from costing more
    return budget.spare


def spare_key(look: Look, level: float, overview: float | None) -> tuple:
    """Names the neighbourhood drawn ahead: when it is unchanged and was found complete, the
    frame need not look again."""
    return (level, look.target, overview, *(math.floor(v * level / TILE) for v in look.view),
            *(math.floor(v * look.target / TILE) for v in look.target_view))


def spare_queue(look: Look, level: float, overview: float | None, overview_area: Rect, idle: bool) -> list[Spot]:
    """Where to draw ahead, first things first (after the missing tiles on screen): where the
    camera is heading, then a ring round the view and the overview (the whole sheet at a low
    zoom, the fallback that makes a far jump cost no more than scaling; first when idle)."""
    queue: list[Spot] = [(look.target, tx, ty) for tx, ty in tile_range(look.target_view, look.target)]
    ring = [(level, tx, ty) for tx, ty in tile_range(look.view, level, ring=1)]
    whole = [(overview, tx, ty) for tx, ty in tile_range(overview_area, overview)] if overview is not None else []
    return queue + (whole + ring if idle else ring + whole)
