"""The sheet of graph paper under the race, cached in tiles: what keeps a frame cheap.

Everything that does not move (the paper and its grid, the off-road hatching, the road,
its pencil border, start, finish and checkpoints, and every trail stroke already
finished) is drawn into square tiles of :data:`TILE` pixels at one zoom *level*
(pixels per square). A frame blits the visible tiles. Tiles are drawn when they are
first needed, and at most one more per frame around the view, so a camera that pans only
ever blits. Spare tiles are drawn only in cheap frames: never in a frame that scales or has
drawn a tile at once. What a frame draws (which level, which tiles, what stands in, how many
tiles ahead) is planned by :mod:`game.presentation.paper_plan` from the camera and a
:class:`~game.presentation.paper_plan.FrameBudget` counted in tiles: no clock is read, so a
frame's pixels are the same on a fast machine and a slow one.
While the camera zooms from one level to another, the tiles of the nearest level are
scaled instead (each at most once per frame, with the plain ``transform.scale``), and
the new level's tiles are drawn one per frame after it settles, the scaled ones standing
in until then.

New strokes are drawn onto the cached tiles they cross; the pencil draw-in of the
border at the start of a race adds only the newly drawn piece of the line each frame.

A screen drawn frame after frame (a *progressive* sheet, below) does not blit the 24-40
visible tiles every frame: it composes them once into a *window*, a surface the size of
the view that holds the paper exactly as those tiles would put it on screen, and blits
that one surface (the cost of one full-screen blit). While the camera pans at one zoom
the window is scrolled in place by the whole pixels the paper moved and only the strip
that came into view is composed again from the tiles; a tile whose pixels change (a new
stroke, the border pencilled further, a stand-in replaced, whatever a layer of the paper
draws onto it) is composed again where it shows. While the zoom changes, tiles are blitted
(scaled) as before. Each camera keeps its own window (the main view and its insets), at
most :data:`WINDOW_LIMIT` of them, each dropped when its level or size changes.

A race screen's very first frame has nothing cached, and a screenful of tiles (40 at
1080 lines) would cost a hundred milliseconds: a *progressive* sheet draws a few tiles
at a quarter of the zoom instead, cuts them into scaled-up stand-ins, and draws the real
tiles over the next frames (the countdown is on screen meanwhile).

Coordinates: the paper is measured in squares (a track node of a fine-paper track is
divided by the track's lattice, ``track.scale``). A level's pixel (px, py) is the point
(px / level, py / level) in squares; tile (tx, ty) holds pixels from (tx, ty) * TILE.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import pygame

from game.core.geometry import PolygonRegion
from game.core.track import Track
from game.presentation import theme
from game.presentation import paper_plan as plan
from game.presentation.paper_plan import TILE, FrameBudget, Look
from game.presentation.terrain_art import TerrainArt
from game.presentation.text import TextCache
from game.presentation.trackart import Wobble, cell_outline, clip_polygon, wobble

Point = tuple[float, float]
Rect = tuple[float, float, float, float]  # left, top, right, bottom (squares)

#: How many tiles the cache keeps in all (about 256 KB each).
TILE_LIMIT = 320
#: Squares per darker grid line (on real graph paper, every fifth or tenth line).
MAJOR_EVERY = 5
#: Pencil-border points per culling chunk.
CHUNK = 24
#: Off-road hatching: pixels between the pencil strokes.
HATCH_STEP = 8
KEY = (255, 0, 255)
#: Windows (composed views, one per camera, see the module docstring) a sheet keeps at most:
#: the main view and two insets (a window is as big as its view: about 8 MB at 1080 lines).
WINDOW_LIMIT = 3
#: While the camera pans, the window is blitted up to this many pixels off and the edges it
#: leaves bare are filled from the tiles straight onto the screen; it is scrolled to the
#: view (a pass over all its pixels) only past that, or once the camera stands.
WINDOW_SLACK = 48
#: Below this many pixels per square the off-road is shaded darker and hatched sparser.
SMALL_LEVEL = 16
#: The off-road shade at small zooms: halfway from the off-road paper to the pencil.
SMALL_OFFROAD = tuple((a + b) // 2 for a, b in zip(theme.OFFROAD, theme.HATCH))
#: Squares of paper round the sheet that the overview covers (the camera may look past the edge).
OVERVIEW_MARGIN = 20
#: A progressive sheet's first frame: a view needing more tiles than this (a tile costs 1-2 ms)
#: is first drawn at a level ``COARSE`` times coarser (a sixteenth of the tiles), cut into
#: scaled-up stand-ins for its own tiles, which the next few frames draw properly.
FIRST_FRAME_TILES = 16
COARSE = 4  # (a divisor of TILE: each stand-in is an exact part of a coarse tile)


@dataclass(frozen=True)
class Stroke:
    """One pen stroke of a car's trail, in squares: it drove from ``a`` to ``b`` and then stood on ``end``."""

    car: int
    a: Point
    b: Point
    end: Point

    def bounds(self) -> Rect:
        xs, ys = (self.a[0], self.b[0], self.end[0]), (self.a[1], self.b[1], self.end[1])
        return min(xs), min(ys), max(xs), max(ys)


@dataclass
class _Tile:
    surface: pygame.Surface
    outline: list[int]  # per border loop: points drawn so far
    strokes: int  # strokes drawn so far (of the sheet's stroke list)
    version: int = -1  # the sheet's version it shows (nothing to catch up while equal)
    rough: bool = False  # a coarse stand-in, scaled up (a progressive sheet's first frame): drawn again soon
    drawn: int = 0  # times pixels were drawn onto it after it was made (windows compose it again when it grows)


@dataclass(eq=False)
class _Window:
    """One camera's composed view of the sheet: its pixel (x, y) is the screen pixel (x, y)
    the tiles of ``level`` would give with the paper shifted by ``offset`` whole pixels."""

    camera: object  # the camera it serves (held, so that no other camera gets its id)
    surface: pygame.Surface
    level: float | None = None
    offset: tuple[int, int] | None = None
    version: int = -1  # the sheet's version its tiles were caught up to
    composed: dict = field(default_factory=dict)  # tile position -> (tile, its drawn count) shown there
    tiles: tuple[int, int, int, int] = (0, 0, -1, -1)  # the tile positions it shows (first, last, inclusive)
    dirty: bool = True  # something may have to be composed (else the frame only blits it)
    shown: tuple[int, int] | None = None  # the paper's shift in the last frame (it stands when unchanged)

    def reset(self) -> None:
        self.offset, self.composed, self.dirty, self.shown = None, {}, True, None


@dataclass
class _Chunk:
    loop: int
    start: int  # index of the first point
    points: np.ndarray  # (n, 2) in squares, overlapping the next chunk by one point
    bounds: Rect


@dataclass
class FrameStats:
    """What the last :meth:`PaperSheet.blit` did (benchmarks and tests read it)."""

    blits: int = 0  # blits onto the screen (one, from a window)
    scaled: int = 0
    built: int = 0
    synchronous: int = 0
    composed: int = 0  # tiles (or parts of them) composed into a window


@dataclass
class _Frame:
    """One frame's paper as it is put on a surface: the level shown and its tiles, the
    camera's scale and the paper's shift in pixels, and what the frame did and left to do."""

    level: float
    tiles: dict  # (tx, ty) -> _Tile of ``level``
    scale: float
    shift: tuple[float, float]
    others: bool  # other levels hold tiles (stand-ins may be scaled from them)
    budget: FrameBudget
    stats: FrameStats
    scaled: dict = field(default_factory=dict)  # a cached tile is scaled at most once a frame
    todo: list = field(default_factory=list)  # tiles on screen to draw properly later (first of the spare work)

    @property
    def ratio(self) -> float:
        return self.scale / self.level


class PaperSheet:
    """The cached static layer of one track (see the module docstring)."""

    def __init__(self, track: Track, text: TextCache, seed: int = 0, budget: FrameBudget | None = None,
                 progressive: bool = False, windows: bool | None = None) -> None:
        self.track = track
        self.text = text
        self.unit = max(1, track.scale)
        #: A frame's work in tiles, unless :meth:`blit` is given another.
        self.budget = budget or FrameBudget()
        # Progressive (the race screens, drawn frame after frame): a first frame that would
        # draw a whole screenful of tiles shows rough stand-ins instead, and later idle frames
        # draw the visible ones properly (``FrameBudget.sharpen`` a frame). Not for one-off
        # pictures (render, previews), which must be right in their only frame.
        self.progressive = progressive
        # Windows (see the module docstring) pay off only when frames follow one another;
        # a one-off picture blits its tiles straight onto it.
        self.windowed = progressive if windows is None else windows
        self._windows: OrderedDict[int, _Window] = OrderedDict()
        u = self.unit
        self.width = (track.width - 1) / u + 1  # in squares
        self.height = (track.height - 1) / u + 1
        self.bounds: Rect = (-0.5, -0.5, self.width - 0.5, self.height - 0.5)
        # Terrain is drawn into the tiles with the paper, never per frame (under the offroad
        # terrain rule the track's region already leaves it off the road, and so does the border).
        self.terrain = TerrainArt.of_track(track, seed)
        field_ = Wobble(seed)
        self.loops: list[np.ndarray] = []
        for loop in _coarse_loops(track):
            pts = wobble(loop, field_)
            pts.append(pts[0])  # closed
            self.loops.append(np.asarray(pts, dtype=float))
        self.chunks: list[_Chunk] = []
        for li, pts in enumerate(self.loops):
            for start in range(0, len(pts) - 1, CHUNK):
                part = pts[start:start + CHUNK + 1]
                self.chunks.append(_Chunk(li, start, part, (part[:, 0].min(), part[:, 1].min(),
                                                            part[:, 0].max(), part[:, 1].max())))
        self._outline_fraction = 1.0
        self._outline_wanted = [len(pts) for pts in self.loops]
        self._version = 0  # grows whenever the border or the strokes grow (tiles catch up lazily)
        self.strokes: list[Stroke] = []
        self._stroke_bounds = np.zeros((0, 4))
        self._strokes_key: object = None
        self.pens: Sequence[theme.Pen] = ()
        self._levels: dict[float, dict[tuple[int, int], _Tile]] = {}
        self._lru: OrderedDict[tuple[float, int, int], None] = OrderedDict()
        self._mask: pygame.Surface | None = None
        self._grain: pygame.Surface | None = None
        self._hatch: dict[bool, pygame.Surface] = {}
        self._road_rings = _road_rings(track, u)
        self.tiles_built = 0
        self._spare_done: tuple | None = None  # the place where no spare tile was left to draw
        self.stats = FrameStats()
        self._gate_bounds = self._gates_bounds()
        self.overview: float | None = None  # zoom of the whole-sheet fallback (set for large tracks)
        #: A still picture (``racetrack render``): blitted once, so a tile is drawn only where it
        #: shows on the surface (its pixels there the same) and must never be shown again.
        self.still = False

    # -- the frame ----------------------------------------------------------------
    @property
    def outline_fraction(self) -> float:
        """How much of the pencil border is drawn, 0..1 (the intro draws it in)."""
        return self._outline_fraction

    @outline_fraction.setter
    def outline_fraction(self, value: float) -> None:
        if value != self._outline_fraction:
            self._outline_fraction = value
            f = max(0.0, min(1.0, value))
            wanted = [len(pts) if f >= 1 else int(len(pts) * f) for pts in self.loops]
            if wanted != self._outline_wanted:
                self._outline_wanted = wanted
                self._version += 1

    def set_strokes(self, strokes: Sequence[Stroke], key: object) -> None:
        """The finished strokes to show (``key`` names the list: when it grows as an int,
        only the new strokes are drawn onto the cached tiles; any other change redraws)."""
        if key == self._strokes_key and len(strokes) == len(self.strokes):
            return
        grows = (isinstance(key, int) and isinstance(self._strokes_key, int) and key >= self._strokes_key
                 and len(strokes) >= len(self.strokes) and list(strokes[:len(self.strokes)]) == self.strokes)
        if grows:
            self.add_strokes(strokes[len(self.strokes):], key)
            return
        self.strokes = []
        self._stroke_bounds = np.zeros((0, 4))
        self.clear()
        self.add_strokes(strokes, key)

    def add_strokes(self, strokes: Sequence[Stroke], key: object) -> None:
        """Strokes drawn after the ones already shown (``key`` names the longer list)."""
        self._strokes_key = key
        if not strokes:
            return
        self.strokes.extend(strokes)
        bounds = np.array([st.bounds() for st in strokes], dtype=float).reshape(-1, 4)
        self._stroke_bounds = np.concatenate([self._stroke_bounds, bounds])
        self._version += 1

    def clear(self) -> None:
        """Forget every cached tile (the next frame draws what it needs)."""
        self._levels.clear()
        self._lru.clear()
        self._spare_done = None
        for window in self._windows.values():
            window.reset()

    def blit(self, surface: pygame.Surface, camera, budget: FrameBudget | None = None,
             idle: bool = False) -> FrameStats:
        """Draw the sheet as the camera sees it; returns what it did.

        ``budget`` is the frame's work in tiles (None: the sheet's own). ``idle`` says nothing
        is animating (players are choosing): then spare tiles are drawn, the overview first,
        so that the replay that follows finds the paper ready; otherwise a few, in cheap
        frames. Visible tiles that have nothing to stand in for them (the first frame of a
        race, an inset opening on a far part of the track) past ``budget.sync`` show as
        plain paper for a frame or two and are drawn as spare work.
        """
        budget = self.budget if budget is None else budget
        stats = self.stats = FrameStats()
        look = Look.of(camera)
        level = plan.frame_level(self._levels, look)
        tiles = self._levels.setdefault(level, {})
        first_frame = self.progressive and not any(self._levels.values())
        if first_frame:
            self._first_frame(level, look.view, stats)
        ox, oy = camera.offset()
        shift = (camera.size[0] / 2 + ox - camera.center[0] * look.scale,
                 camera.size[1] / 2 + oy - camera.center[1] * look.scale)
        frame = _Frame(level, tiles, look.scale, shift, self._levels_with_tiles(exclude=level), budget, stats)
        self._show(surface, camera, frame, look.view)
        count = plan.spare_count(budget, look, idle, self.progressive, first_frame, missing=bool(frame.todo),
                                 costly=bool(stats.scaled or stats.synchronous))
        self._draw_ahead(frame, look, count, idle)
        self._evict(level)
        return stats

    def _show(self, surface: pygame.Surface, camera, frame: _Frame, view: Rect) -> None:
        """Put the frame's paper on ``surface``: through the camera's window when it stands at
        the level's own scale, else tile by tile (scaled while zooming)."""
        window = self._window(camera, surface, frame.level) if frame.ratio == 1.0 and camera.settled else None
        if window is None:
            for tx, ty in plan.tile_range(view, frame.level):
                self._place(surface, frame, tx, ty)
            return
        rx, ry = round(frame.shift[0]), round(frame.shift[1])
        if not self._blit_off(window, surface, frame.tiles, rx, ry, frame.stats):
            self._compose(window, surface.get_size(), frame)
            surface.blit(window.surface, (0, 0))
            frame.stats.blits += 1
        window.shown = (rx, ry)

    def _draw_ahead(self, frame: _Frame, look: Look, count: int, idle: bool) -> None:
        """Spare work, at most ``count`` tiles: the visible tiles still missing, then what
        :func:`~game.presentation.paper_plan.spare_queue` lists."""
        key = plan.spare_key(look, frame.level, self.overview)
        if count <= 0 or (not frame.todo and key == self._spare_done):
            return  # (everything round here was found drawn in an earlier frame)
        queue = frame.todo + plan.spare_queue(look, frame.level, self.overview, self._overview_area(), idle)
        for lv, tx, ty in queue:
            if frame.stats.built >= count:
                return
            have = self._levels.setdefault(lv, {}).get((tx, ty))
            if have is None or have.rough:
                self._build(lv, tx, ty)
                frame.stats.built += 1
        self._spare_done = key

    def _place(self, surface, frame: _Frame, tx: int, ty: int, scale: float | None = None) -> _Tile | None:
        """Put tile (tx, ty) of the frame's level on ``surface``, at ``scale`` pixels a square
        (None: the camera's): the cached tile (caught up, drawn now if missing), or what stands
        in for it (a scaled tile of another level, or plain paper past the budget's ``sync``).
        Returns the tile shown, or None for a stand-in; positions to draw later go on ``todo``."""
        level, stats = frame.level, frame.stats
        s = frame.scale if scale is None else scale
        ratio = s / level
        shift_x, shift_y = frame.shift
        tile = frame.tiles.get((tx, ty))
        if tile is None:
            spare = plan.fallback(self._levels, level, tx, ty, s) if frame.others else None
            if spare is not None:
                frame.todo.append((level, tx, ty))
                self._blit_fallback(surface, spare, level, tx, ty, s, frame)
                return None
            if not plan.draws_now(frame.budget, stats.synchronous):
                x, y = tx * TILE * ratio + shift_x, ty * TILE * ratio + shift_y
                surface.fill(theme.PAPER, (math.floor(x), math.floor(y), math.ceil(TILE * ratio) + 1,
                                           math.ceil(TILE * ratio) + 1))
                frame.todo.append((level, tx, ty))
                return None
            clip = None
            if self.still and ratio == 1.0:  # the part of the tile inside the surface
                left, top = tx * TILE + round(shift_x), ty * TILE + round(shift_y)
                shown = pygame.Rect(left, top, TILE, TILE).clip(surface.get_clip())
                clip = shown.move(-left, -top)
            tile = self._build(level, tx, ty, clip)
            stats.synchronous += 1
        self._touch(level, tx, ty)
        if tile.rough:
            frame.todo.append((level, tx, ty))
        if tile.version != self._version:
            self._catch_up(tile, level, tx, ty)
        if ratio == 1.0:
            surface.blit(tile.surface, (tx * TILE + round(shift_x), ty * TILE + round(shift_y)))
            stats.blits += 1
        else:
            self._blit_scaled(surface, tile.surface, tx * TILE * ratio + shift_x, ty * TILE * ratio + shift_y,
                              TILE * ratio, stats, frame.scaled, (level, tx, ty))
        return tile

    # -- windows ---------------------------------------------------------------------
    def _window(self, camera, surface: pygame.Surface, level: float) -> _Window | None:
        """The window of ``camera`` at ``level`` (made or reset as needed), or None when this
        sheet composes none."""
        if not self.windowed:
            return None
        size = surface.get_size()
        window = self._windows.get(id(camera))
        if window is None or window.camera is not camera:
            window = self._windows[id(camera)] = _Window(camera, _new_surface(size))
            while len(self._windows) > WINDOW_LIMIT:
                self._windows.popitem(last=False)
        elif window.surface.get_size() != size:
            window.surface = _new_surface(size)
            window.reset()
        self._windows.move_to_end(id(camera))
        if window.level != level:
            window.level = level
            window.reset()
        return window

    def _compose(self, window: _Window, size, frame: _Frame) -> None:
        """Bring the window up to date for the paper shifted by (shift_x, shift_y) pixels (tiles
        go to whole pixels): scroll it when the paper moved, then compose the tiles not shown
        as they are now (none, in a frame where nothing moved or changed)."""
        w, h = size
        tiles, level, stats = frame.tiles, frame.level, frame.stats
        rx, ry = round(frame.shift[0]), round(frame.shift[1])
        if window.offset != (rx, ry):
            before = window.tiles
            window.tiles = ((-rx) // TILE, (-ry) // TILE, (w - 1 - rx) // TILE, (h - 1 - ry) // TILE)
            old = window.offset
            window.offset = (rx, ry)
            if old is not None and window.composed and abs(rx - old[0]) < w and abs(ry - old[1]) < h:
                self._scroll(window, tiles, rx - old[0], ry - old[1], before, (w, h), stats)
            else:
                window.composed = {}
                window.dirty = True
        if window.version != self._version:
            window.dirty = True  # strokes or the border grew: the tiles on show catch up
        if not window.dirty:
            return
        window.dirty = False
        composed = window.composed
        tx0, ty0, tx1, ty1 = window.tiles
        for ty in range(ty0, ty1 + 1):
            for tx in range(tx0, tx1 + 1):
                tile = tiles.get((tx, ty))
                if tile is not None:
                    if tile.version != self._version:
                        self._catch_up(tile, level, tx, ty)
                    shown = composed.get((tx, ty))
                    if shown is not None and shown[0] is tile and shown[1] == tile.drawn:
                        if tile.rough:
                            frame.todo.append((level, tx, ty))
                            window.dirty = True  # a stand-in: drawn properly soon, composed again then
                        continue
                blits = stats.blits
                tile = self._place(window.surface, frame, tx, ty, scale=level)
                stats.blits = blits
                stats.composed += 1
                if tile is None:  # a stand-in: composed again next frame, until the tile is drawn
                    composed.pop((tx, ty), None)
                    window.dirty = True
                else:
                    composed[(tx, ty)] = (tile, tile.drawn)
                    window.dirty |= tile.rough
        window.version = self._version

    def _blit_off(self, window: _Window, surface: pygame.Surface, tiles, rx: int, ry: int,
                  stats: FrameStats) -> bool:
        """A panning camera's frame without touching the window: blit it up to
        ``WINDOW_SLACK`` pixels off and fill the bare edges from the tiles. False when the
        window must be brought up to date first (it is off by more, the camera stands, a
        tile on show changed, or a tile for the edges is not ready)."""
        if window.offset is None or window.dirty or window.version != self._version:
            return False
        dx, dy = rx - window.offset[0], ry - window.offset[1]
        if (dx, dy) == (0, 0) or window.shown == (rx, ry) or abs(dx) > WINDOW_SLACK or abs(dy) > WINDOW_SLACK:
            return False
        w, h = surface.get_size()
        strips = [r for r in (pygame.Rect(0 if dx > 0 else w + dx, 0, abs(dx), h),
                              pygame.Rect(0, 0 if dy > 0 else h + dy, w, abs(dy))) if r.width and r.height]
        needed = []
        for strip in strips:
            for ty in range((strip.top - ry) // TILE, (strip.bottom - 1 - ry) // TILE + 1):
                for tx in range((strip.left - rx) // TILE, (strip.right - 1 - rx) // TILE + 1):
                    tile = tiles.get((tx, ty))
                    if tile is None or tile.rough or tile.version != self._version:
                        return False
                    needed.append((strip, tile, tx * TILE + rx, ty * TILE + ry))
        surface.blit(window.surface, (dx, dy))
        clip = surface.get_clip()
        for strip, tile, x, y in needed:
            surface.set_clip(strip.clip(clip))
            surface.blit(tile.surface, (x, y))
        surface.set_clip(clip)
        stats.blits += 1 + len(needed)
        return True

    def _scroll(self, window: _Window, tiles, dx: int, dy: int, before, size, stats: FrameStats) -> None:
        """Move the window's picture by (dx, dy) pixels and compose the strips that came into
        view from the tiles under them; a tile that has changed since it was composed, or is
        not there yet, is left to the full pass (:meth:`_compose`)."""
        w, h = size
        rx, ry = window.offset
        window.surface.scroll(dx, dy)
        strips = [pygame.Rect(0 if dx > 0 else w + dx, 0, abs(dx), h),
                  pygame.Rect(0, 0 if dy > 0 else h + dy, w, abs(dy))]
        x0, y0, x1, y1 = window.tiles
        composed = {pos: shown for pos, shown in window.composed.items()
                    if x0 <= pos[0] <= x1 and y0 <= pos[1] <= y1}
        window.composed = composed
        bx0, by0, bx1, by1 = before
        for strip in strips:
            if not (strip.width and strip.height):
                continue
            window.surface.set_clip(strip)
            for ty in range((strip.top - ry) // TILE, (strip.bottom - 1 - ry) // TILE + 1):
                for tx in range((strip.left - rx) // TILE, (strip.right - 1 - rx) // TILE + 1):
                    pos = (tx, ty)
                    tile = tiles.get(pos)
                    shown = composed.get(pos)
                    new = not (bx0 <= tx <= bx1 and by0 <= ty <= by1)  # not on show before the move
                    if (tile is None or tile.rough or tile.version != self._version
                            or not (new or (shown is not None and shown[0] is tile and shown[1] == tile.drawn))):
                        composed.pop(pos, None)  # composed whole by the full pass
                        window.dirty = True
                        continue
                    window.surface.blit(tile.surface, (tx * TILE + rx, ty * TILE + ry))
                    stats.composed += 1
                    if new:
                        composed[pos] = (tile, tile.drawn)
            window.surface.set_clip(None)

    def _changed(self, level: float, tx: int, ty: int) -> None:
        """Tile (tx, ty) of ``level`` has new pixels: windows showing it compose it again."""
        for window in self._windows.values():
            x0, y0, x1, y1 = window.tiles
            if window.level == level and x0 <= tx <= x1 and y0 <= ty <= y1:
                window.dirty = True

    @property
    def settled(self) -> bool:
        """No rough stand-in is left in the cache (tests and screenshots draw until it is)."""
        return not any(tile.rough for tiles in self._levels.values() for tile in tiles.values())

    def _first_frame(self, level: float, view: Rect, stats: FrameStats) -> None:
        """Nothing is cached: if the view needs many tiles, give it rough stand-ins now, cut
        from a few tiles drawn at a coarse level and scaled up (see ``FIRST_FRAME_TILES``)."""
        wanted = list(self._tile_range(view, level))
        if len(wanted) <= FIRST_FRAME_TILES:
            return
        coarse, tiles, cut = level / COARSE, self._levels.setdefault(level, {}), {}
        for tx, ty in wanted:
            (cx, kx), (cy, ky) = divmod(tx, COARSE), divmod(ty, COARSE)
            source = cut.get((cx, cy))
            if source is None:
                source = cut[(cx, cy)] = self._draw_tile(coarse, cx, cy, stand_in_for=level)
                stats.synchronous += 1
            part = source.surface.subsurface((kx * TILE // COARSE, ky * TILE // COARSE, TILE // COARSE,
                                              TILE // COARSE))
            tiles[(tx, ty)] = _Tile(pygame.transform.scale(part, (TILE, TILE)), list(source.outline),
                                    source.strokes, source.version, rough=True)
            self._touch(level, tx, ty)
            self._changed(level, tx, ty)

    # -- levels and tiles -------------------------------------------------------------
    @staticmethod
    def _tile_range(view: Rect, level: float, ring: int = 0):
        return plan.tile_range(view, level, ring)

    def _levels_with_tiles(self, exclude: float) -> bool:
        return any(tiles for lv, tiles in self._levels.items() if lv != exclude)

    def _blit_fallback(self, surface, fallback, level, tx, ty, s, frame: _Frame) -> None:
        """Tile (tx, ty) of ``level`` stood in for by the tiles of another level, scaled."""
        lv, needed = fallback
        shift_x, shift_y = frame.shift
        ratio = s / lv
        clip = surface.get_clip()
        area = pygame.Rect(round(tx * TILE * s / level + shift_x), round(ty * TILE * s / level + shift_y), 0, 0)
        area.size = (round((tx + 1) * TILE * s / level + shift_x) - area.x,
                     round((ty + 1) * TILE * s / level + shift_y) - area.y)
        surface.set_clip(area.clip(clip))
        for a, b in needed:
            tile = self._levels[lv][(a, b)]
            if tile.version != self._version:
                self._catch_up(tile, lv, a, b)
            self._blit_scaled(surface, tile.surface, a * TILE * ratio + shift_x, b * TILE * ratio + shift_y,
                              TILE * ratio, frame.stats, frame.scaled, (lv, a, b))
        surface.set_clip(clip)

    @staticmethod
    def _blit_scaled(surface, image, x: float, y: float, size: float, stats: FrameStats,
                     scaled: dict, key: tuple) -> None:
        x0, y0 = round(x), round(y)
        w = h = math.ceil(size)  # one size for every tile of a level: each is scaled once a frame
        if w <= 0:
            return
        if not surface.get_clip().colliderect((x0, y0, w, h)):
            return
        image_key = (key, w)
        small = scaled.get(image_key)
        if small is None:
            small = scaled[image_key] = pygame.transform.scale(image, (w, h))
            stats.scaled += 1
        surface.blit(small, (x0, y0))

    def _touch(self, level: float, tx: int, ty: int) -> None:
        self._lru[(level, tx, ty)] = None
        self._lru.move_to_end((level, tx, ty))

    def _overview_area(self) -> Rect:
        b, m = self.bounds, OVERVIEW_MARGIN
        return b[0] - m, b[1] - m, b[2] + m, b[3] + m

    def enable_overview(self, level: float = 13.0, max_tiles: int = 120) -> None:
        """Keep the whole sheet at a low zoom as the fallback for far camera jumps (large tracks)."""
        area = self._overview_area()
        w, h = area[2] - area[0], area[3] - area[1]
        fit = math.sqrt(max_tiles * TILE * TILE / (w * h))
        self.overview = float(max(2, min(level, math.floor(fit))))

    def _evict(self, keep_level: float) -> None:
        excess = len(self._lru) - TILE_LIMIT
        if excess <= 0:
            return
        self._spare_done = None
        for window in self._windows.values():  # (a window's frames blit it without touching its tiles)
            x0, y0, x1, y1 = window.tiles
            for ty in range(y0, y1 + 1):
                for tx in range(x0, x1 + 1):
                    if (window.level, tx, ty) in self._lru:
                        self._lru.move_to_end((window.level, tx, ty))
        for level, tx, ty in list(self._lru):
            if excess <= 0:
                break
            if level == self.overview:
                continue  # the overview stays
            excess -= 1
            del self._lru[(level, tx, ty)]
            tiles = self._levels.get(level, {})
            tiles.pop((tx, ty), None)
            if not tiles and level != keep_level:
                self._levels.pop(level, None)

    def _build(self, level: float, tx: int, ty: int, clip: pygame.Rect | None = None) -> _Tile:
        """Draw tile (tx, ty) of ``level`` and keep it (only inside ``clip``, tile pixels, when given)."""
        tile = self._draw_tile(level, tx, ty, clip=clip)
        self._levels.setdefault(level, {})[(tx, ty)] = tile
        self._touch(level, tx, ty)
        self._changed(level, tx, ty)
        return tile

    def _draw_tile(self, level: float, tx: int, ty: int, stand_in_for: float | None = None,
                   clip: pygame.Rect | None = None) -> _Tile:
        """Tile (tx, ty) of ``level``, up to date (plainer when it is to stand in, scaled up, for
        the tiles of level ``stand_in_for``; drawn only inside ``clip`` when given)."""
        self.tiles_built += 1
        surf = _new_surface((TILE, TILE))
        if clip is not None:
            surf.set_clip(clip)
        ox, oy = tx * TILE, ty * TILE

        def px(p) -> tuple[float, float]:
            return p[0] * level - ox, p[1] * level - oy

        rect = (ox / level, oy / level, (ox + TILE) / level, (oy + TILE) / level)
        self._draw_paper(surf, level, ox, oy, rect, stand_in_for)
        self._draw_gates(surf, px, level, rect)
        tile = _Tile(surf, [0] * len(self.loops), 0)
        self._catch_up(tile, level, tx, ty)
        return tile

    def _catch_up(self, tile: _Tile, level: float, tx: int, ty: int) -> None:
        """Draw onto a cached tile what was added since: border pencilled further, new strokes."""
        tile.version = self._version
        wanted = self._outline_wanted
        if wanted != tile.outline or tile.strokes < len(self.strokes):
            ox, oy = tx * TILE, ty * TILE
            rect = (ox / level, oy / level, (ox + TILE) / level, (oy + TILE) / level)
            drew = False
            for li, count in enumerate(wanted):
                if count > tile.outline[li]:
                    drew |= self._draw_outline(tile.surface, level, ox, oy, rect, li, tile.outline[li], count)
                    tile.outline[li] = count
            if tile.strokes < len(self.strokes):
                drew |= self._draw_strokes(tile.surface, level, ox, oy, rect, tile.strokes)
                tile.strokes = len(self.strokes)
            if drew:
                tile.drawn += 1
                self._changed(level, tx, ty)

    # -- drawing one tile ----------------------------------------------------------------
    def _draw_paper(self, surf: pygame.Surface, level: float, ox: int, oy: int, rect: Rect,
                    stand_in_for: float | None = None) -> None:
        """Paper, hatching, road and grid; for a coarse stand-in of level ``stand_in_for``, only
        the flat tints of that level and the road (hatching and grid lines scaled up would
        be drawn thick and blocky: they appear when the real tile does)."""
        left, top, right, bottom = rect
        if stand_in_for is not None:
            surf.fill(SMALL_OFFROAD if stand_in_for < SMALL_LEVEL else theme.OFFROAD)
            self._draw_road(surf, level, ox, oy, rect)
            if self.terrain:
                self.terrain.draw_fill(surf, level, ox, oy, rect, flat=True)
            surf.blit(self._grain_tile(), (0, 0), special_flags=pygame.BLEND_RGB_MULT)
            return
        surf.blit(self._hatch_tile(level < SMALL_LEVEL), (0, 0))
        self._draw_road(surf, level, ox, oy, rect)
        surf.blit(self._grain_tile(), (0, 0), special_flags=pygame.BLEND_RGB_MULT)
        minor = level >= 7
        for x in range(math.ceil(left), math.floor(right) + 1):
            major = x % MAJOR_EVERY == 0
            if major or minor:
                p = round(x * level) - ox
                pygame.draw.line(surf, theme.GRID_MAJOR if major else theme.GRID_MINOR, (p, 0), (p, TILE))
        for y in range(math.ceil(top), math.floor(bottom) + 1):
            major = y % MAJOR_EVERY == 0
            if major or minor:
                p = round(y * level) - oy
                pygame.draw.line(surf, theme.GRID_MAJOR if major else theme.GRID_MINOR, (0, p), (TILE, p))
        if self.terrain:
            self.terrain.draw_fill(surf, level, ox, oy, rect)
            self.terrain.draw_edges(surf, level, ox, oy, rect)
        margin = -2.5
        if left <= margin <= right:
            p = round(margin * level) - ox
            pygame.draw.line(surf, theme.MARGIN, (p, 0), (p, TILE), max(1, round(level / 12)))

    def _draw_road(self, surf: pygame.Surface, level: float, ox: int, oy: int, rect: Rect) -> None:
        """The road in the paper's own tint over the hatching (through a colour-keyed mask)."""
        left, top, right, bottom = rect
        b = self.bounds
        if right < b[0] or left > b[2] or bottom < b[1] or top > b[3]:
            return
        mask = _new_surface((TILE, TILE))
        mask.set_clip(surf.get_clip())  # a still picture's tile: only the part that shows
        mask.fill(KEY)
        mask.set_colorkey(KEY)
        if self._road_rings is not None:
            outer, islands = self._road_rings
            offset = np.array([ox, oy], dtype=float)
            # Clipped to the tile first: pygame fills a polygon row by row over its whole height.
            # A tile no border crosses is all road or all off-road: one point test decides.
            centre = ((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2)
            for ring, color in [(outer, theme.PAPER)] + [(ring, KEY) for ring in islands]:
                if not _ring_crosses(ring, rect):
                    if _inside(ring, centre):
                        mask.fill(color)
                    continue
                pts = clip_polygon((ring * level - offset).tolist(), -2, -2, TILE + 2, TILE + 2)
                if len(pts) >= 3:
                    pygame.draw.polygon(mask, color, pts)
        else:
            road = self._road_mask()
            x0 = max(0, math.floor(left + 0.5))
            y0 = max(0, math.floor(top + 0.5))
            x1 = min(road.get_width(), math.ceil(right + 0.5))
            y1 = min(road.get_height(), math.ceil(bottom + 0.5))
            if x1 <= x0 or y1 <= y0:
                return
            part = road.subsurface((x0, y0, x1 - x0, y1 - y0))
            lx, ly = round((x0 - 0.5) * level) - ox, round((y0 - 0.5) * level) - oy
            lx2, ly2 = round((x1 - 0.5) * level) - ox, round((y1 - 0.5) * level) - oy
            mask.blit(pygame.transform.scale(part, (max(1, lx2 - lx), max(1, ly2 - ly))), (lx, ly))
        surf.blit(mask, (0, 0))

    def _road_mask(self) -> pygame.Surface:
        """One pixel per square of a char map: paper on road, the colour key elsewhere."""
        if self._mask is None:
            road = _coarse_road(self.track)
            rgb = np.zeros((road.shape[1], road.shape[0], 3), dtype=np.uint8)
            rgb[...] = KEY
            rgb[road.T] = theme.PAPER
            mask = pygame.surfarray.make_surface(rgb)
            mask.set_colorkey(KEY)
            self._mask = mask
        return self._mask

    def _grain_tile(self) -> pygame.Surface:
        """Paper grain: near-white noise multiplied onto the paper (seeded, the same every run)."""
        if self._grain is None:
            bits = _hash_noise(TILE * TILE, seed=7).reshape(TILE, TILE)  # not numpy.random: its import alone costs
            noise = 255 - (bits % 9).astype(np.int16)                      # 50 ms, in the race's first frame
            fibres = (bits >> 20) % 1000 < 4
            noise[fibres] -= 18
            rgb = np.repeat(np.clip(noise, 0, 255).astype(np.uint8)[..., None], 3, axis=2)
            self._grain = _convert(pygame.surfarray.make_surface(rgb))
        return self._grain

    def _hatch_tile(self, small: bool = False) -> pygame.Surface:
        """Off the road: a greyer paper with light pencil hatching (45 degrees, seamless per tile).

        At small zooms (previews, a large track seen whole) fine hatching averages out to
        nearly the road's tint, so there the paper is shaded darker and hatched more sparsely:
        the road stays clearly lighter at any scale.
        """
        if small not in self._hatch:
            surf = _new_surface((TILE, TILE))
            if small:
                surf.fill(SMALL_OFFROAD)
                for c in range(-TILE, TILE, HATCH_STEP * 2):
                    pygame.draw.aaline(surf, theme.HATCH, (c, TILE), (c + TILE, 0))
            else:
                surf.fill(theme.OFFROAD)
                for c in range(-TILE, TILE, HATCH_STEP):
                    pygame.draw.aaline(surf, theme.HATCH, (c, TILE), (c + TILE, 0))
            self._hatch[small] = surf
        return self._hatch[small]

    def _draw_gates(self, surf, px: Callable, level: float, rect: Rect) -> None:
        if not _overlaps(rect, self._gate_bounds):
            return
        track, u = self.track, self.unit
        # Each piece only where it can reach the tile: its points, 3 squares round and a label's
        # width more (a checkpoint's number, at most 26 pixels), so the tile's pixels are the same
        # and a tile beside the start does not draw the whole chequered line again.
        reach = 3 + 32 / level
        for slot in track.start_slots:
            at = (slot.x / u, slot.y / u)
            if _overlaps(rect, (at[0] - reach, at[1] - reach, at[0] + reach, at[1] + reach)):
                _draw_grid_box(surf, px, level, at, track.forward)
        if _overlaps(rect, _gate_box(track.finish, u, reach)):
            _draw_finish(surf, px, level, track.finish, u)
        for gate in track.checkpoints:
            if _overlaps(rect, _gate_box(gate, u, reach)):
                _draw_checkpoint(surf, px, level, gate, u, self.text)

    def _gates_bounds(self) -> Rect:
        track, u = self.track, self.unit
        pts = [(s.x / u, s.y / u) for s in track.start_slots]
        for gate in (track.finish, *track.checkpoints):
            if gate.is_line:
                pts += [(gate.a[0] / u, gate.a[1] / u), (gate.b[0] / u, gate.b[1] / u)]
            else:
                pts += [(x / u, y / u) for x, y in gate.cells]
        if not pts:
            return (0, 0, 0, 0)
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        return min(xs) - 3, min(ys) - 3, max(xs) + 3, max(ys) + 3

    def _draw_outline(self, surf, level: float, ox: int, oy: int, rect: Rect, loop: int, i0: int, i1: int) -> bool:
        """Border points i0..i1 of one loop (the pencil line and its light graphite shadow);
        whether any of them reach into the tile."""
        width = max(1, round(level / 10))
        pad = (width + 2) / level
        grown = (rect[0] - pad, rect[1] - pad, rect[2] + pad, rect[3] + pad)
        offset = np.array([ox, oy], dtype=float)
        drew = False
        for chunk in self.chunks:
            if chunk.loop != loop or chunk.start + len(chunk.points) <= i0 or chunk.start >= i1:
                continue
            if not _overlaps(grown, chunk.bounds):
                continue
            a = max(i0 - 1, chunk.start) - chunk.start
            b = min(i1, chunk.start + len(chunk.points)) - chunk.start
            if a < 0:
                a = 0
            pts = chunk.points[a:b]
            if len(pts) < 2:
                continue
            screen = (pts * level - offset).tolist()
            pygame.draw.lines(surf, theme.GRAPHITE, False, screen, width)
            pygame.draw.aalines(surf, theme.GRAPHITE_LIGHT, False, [(x + 0.6, y + 0.5) for x, y in screen])
            drew = True
        return drew

    def _draw_strokes(self, surf, level: float, ox: int, oy: int, rect: Rect, first: int) -> bool:
        """The strokes from index ``first`` on that reach into the tile (whether there are any)."""
        pad = 0.5
        b = self._stroke_bounds[first:]
        near = ((b[:, 0] <= rect[2] + pad) & (b[:, 2] >= rect[0] - pad)
                & (b[:, 1] <= rect[3] + pad) & (b[:, 3] >= rect[1] - pad))
        if not near.any():
            return False
        draw_strokes(surf, lambda p: (p[0] * level - ox, p[1] * level - oy), level,
                     [self.strokes[first + k] for k in np.flatnonzero(near)], self.pens)
        return True


def camera_view_at(camera, scale: float) -> Rect:
    """The squares the camera will show once it reaches its target."""
    return plan.view_at(camera, scale)


def stroke_width(s: float) -> int:
    return max(1, round(s / 11))


def draw_strokes(surface, to_screen, s: float, strokes: Sequence[Stroke], pens: Sequence[theme.Pen]) -> None:
    """Trail strokes with a dot on every node, like a pen on paper (points in squares)."""
    width = stroke_width(s)
    dot = max(1.5, s * 0.09)
    for st in strokes:
        pen = pens[st.car]
        a, b = to_screen(st.a), to_screen(st.b)
        if width == 1:
            pygame.draw.aaline(surface, pen.color, a, b)
        else:
            pygame.draw.line(surface, pen.color, a, b, width)
        pygame.draw.circle(surface, pen.color, a, dot)
        pygame.draw.circle(surface, pen.color, b, dot)
        if st.end != st.b:
            pygame.draw.circle(surface, pen.color, to_screen(st.end), dot + 1, 1)


def arrow(surface, a, b, color, width: int, head: float, spread: float = 0.45) -> None:
    """A line from ``a`` to ``b`` with a head of two strokes ``head`` long, ``spread`` radians off the line."""
    pygame.draw.line(surface, color, a, b, width)
    ang = math.atan2(b[1] - a[1], b[0] - a[0])
    for side in (-1, 1):
        tip = (b[0] - head * math.cos(ang + side * spread), b[1] - head * math.sin(ang + side * spread))
        pygame.draw.line(surface, color, b, tip, width)


def _draw_grid_box(layer, px, s: float, at: tuple[float, float], forward) -> None:
    """An empty grid slot as a race track paints it: an open box, its front line across the
    driving direction and two short sides trailing back, in pencil grey; nothing like a
    target's closed ring (or a car), so an empty slot is never taken for either."""
    fx, fy = forward
    fn = math.hypot(fx, fy) or 1.0
    fx, fy = fx / fn, fy / fn
    nx, ny = -fy, fx  # across the driving direction
    front, half, back = 0.3, 0.32, 0.2
    ends = [(at[0] + fx * front + nx * k * half, at[1] + fy * front + ny * k * half) for k in (-1, 1)]
    width = max(1, round(s / 16))
    pygame.draw.line(layer, theme.GRAPHITE_LIGHT, px(ends[0]), px(ends[1]), width)
    for ex, ey in ends:
        pygame.draw.line(layer, theme.GRAPHITE_LIGHT, px((ex, ey)), px((ex - fx * (front + back), ey - fy * (front + back))),
                         width)


def _draw_finish(layer, px, s: float, gate, u: int) -> None:
    if gate.is_line:
        (ax, ay), (bx, by) = (gate.a[0] / u, gate.a[1] / u), (gate.b[0] / u, gate.b[1] / u)
        length = math.hypot(bx - ax, by - ay) or 1.0
        dx, dy = (bx - ax) / length, (by - ay) / length
        fx, fy = gate.forward
        fn = math.hypot(fx, fy) or 1.0
        nx, ny = fx / fn, fy / fn
        q = 0.25
        count = max(1, round(length / q))
        step = length / count
        for k in range(count):
            for row, (o0, o1) in enumerate(((-q, 0.0), (0.0, q))):
                p0 = (ax + dx * step * k, ay + dy * step * k)
                p1 = (ax + dx * step * (k + 1), ay + dy * step * (k + 1))
                quad = [(p0[0] + nx * o0, p0[1] + ny * o0), (p1[0] + nx * o0, p1[1] + ny * o0),
                        (p1[0] + nx * o1, p1[1] + ny * o1), (p0[0] + nx * o1, p0[1] + ny * o1)]
                color = theme.INK if (k + row) % 2 == 0 else theme.PAPER
                pygame.draw.polygon(layer, color, [px(p) for p in quad])
        # the driving direction, a small arrow past the middle of the line
        mx, my = (ax + bx) / 2, (ay + by) / 2
        tail = (mx + nx * 0.6, my + ny * 0.6)
        arrow(layer, px(tail), px((tail[0] + nx * 1.2, tail[1] + ny * 1.2)), theme.GRAPHITE_LIGHT,
              max(1, round(s / 14)), s * 0.3)
    else:
        for cx, cy in _coarse_cells(gate.cells, u):
            for i in range(2):
                for j in range(2):
                    color = theme.INK if (i + j) % 2 == 0 else theme.PAPER
                    p = px((cx - 0.5 + i * 0.5, cy - 0.5 + j * 0.5))
                    pygame.draw.rect(layer, color, (round(p[0]), round(p[1]), math.ceil(s / 2), math.ceil(s / 2)))


def _draw_checkpoint(layer, px, s: float, gate, u: int, text: TextCache) -> None:
    size = int(max(11, min(26, s * 0.7)))
    if gate.is_line:
        (ax, ay), (bx, by) = (gate.a[0] / u, gate.a[1] / u), (gate.b[0] / u, gate.b[1] / u)
        length = math.hypot(bx - ax, by - ay) or 1.0
        dashes = max(1, int(length / 0.3))
        for k in range(0, dashes, 2):
            p0 = (ax + (bx - ax) * k / dashes, ay + (by - ay) * k / dashes)
            p1 = (ax + (bx - ax) * (k + 1) / dashes, ay + (by - ay) * (k + 1) / dashes)
            pygame.draw.line(layer, theme.CHECKPOINT, px(p0), px(p1), max(2, round(s / 8)))
        label = (ax - (bx - ax) / length * 0.55, ay - (by - ay) / length * 0.55)
    else:
        cells = _coarse_cells(gate.cells, u)
        for cx, cy in cells:
            p = px((cx - 0.5, cy - 0.5))
            rect = pygame.Rect(round(p[0]), round(p[1]), math.ceil(s), math.ceil(s))
            for k in (0.25, 0.5, 0.75):  # a light diagonal hatch
                pygame.draw.line(layer, theme.CHECKPOINT, (rect.left, rect.top + rect.height * k),
                                 (rect.left + rect.width * k, rect.top), 1)
                pygame.draw.line(layer, theme.CHECKPOINT, (rect.left + rect.width * k, rect.bottom),
                                 (rect.right, rect.top + rect.height * k), 1)
            pygame.draw.rect(layer, theme.CHECKPOINT, rect, 1)
        cx, cy = min(cells) if cells else (0, 0)
        label = (cx - 0.5, cy - 0.5)
    centre = px(label)
    if not layer.get_rect().colliderect((centre[0] - size, centre[1] - size, size * 2, size * 2)):
        return  # the label stands on another tile (or off the picture): nothing of it to draw here
    pygame.draw.circle(layer, theme.PAPER, centre, size * 0.75)
    pygame.draw.circle(layer, theme.CHECKPOINT, centre, size * 0.75, 2)
    text.blit(layer, str(gate.number), size, theme.CHECKPOINT, centre, "center", bold=True)


def _coarse_cells(cells, u: int) -> list[tuple[int, int]]:
    """The paper squares of a cell gate (a fine-paper gate lists every lattice node in them)."""
    if u == 1:
        return sorted(cells)
    return sorted({(x // u, y // u) for x, y in cells if x % u == 0 and y % u == 0})


def _coarse_road(track: Track) -> np.ndarray:
    """Road nodes on the paper squares (a fine-paper track's lattice nodes on whole squares)."""
    u = max(1, track.scale)
    road = track.region.road_nodes()
    return road[::u, ::u] if u > 1 else road


def _coarse_loops(track: Track) -> list[list[Point]]:
    """The border loops in squares: polygon rings, or the outline of the char map's squares."""
    u = max(1, track.scale)
    region = track.region
    if isinstance(region, PolygonRegion):
        return [[(x / u, y / u) for x, y in ring] for ring in region.rings]
    return cell_outline(_coarse_road(track))


def _road_rings(track: Track, u: int):
    region = track.region
    if not isinstance(region, PolygonRegion):
        return None
    rings = [np.asarray(ring, dtype=float) / u for ring in region.rings]
    return rings[0], rings[1:]


def _ring_crosses(ring: np.ndarray, rect: Rect) -> bool:
    """Whether any edge of a closed ring may pass through a rectangle (bounding-box test per edge)."""
    a, b = ring, np.roll(ring, -1, axis=0)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return bool(np.any((lo[:, 0] <= rect[2]) & (hi[:, 0] >= rect[0]) & (lo[:, 1] <= rect[3]) & (hi[:, 1] >= rect[1])))


def _inside(ring: np.ndarray, point: Point) -> bool:
    """Even-odd point in polygon."""
    x, y = point
    a, b = ring, np.roll(ring, -1, axis=0)
    crosses = (a[:, 1] > y) != (b[:, 1] > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        xs = a[:, 0] + (y - a[:, 1]) * (b[:, 0] - a[:, 0]) / (b[:, 1] - a[:, 1])
    return bool(np.count_nonzero(crosses & (x < xs)) % 2)


def _hash_noise(n: int, seed: int) -> np.ndarray:
    """``n`` well-mixed 64-bit values, the same every run (splitmix64 of 0..n-1)."""
    x = np.arange(n, dtype=np.uint64) + np.uint64(seed * 0x9E3779B97F4A7C15 % 2**64)
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return x


def _gate_box(gate, u: int, margin: float) -> Rect:
    """A gate's points (in squares) with ``margin`` squares round them."""
    pts = [gate.a, gate.b] if gate.is_line else list(gate.cells)
    xs, ys = [p[0] / u for p in pts], [p[1] / u for p in pts]
    return min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin


def _overlaps(a: Rect, b: Rect) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def _new_surface(size: tuple[int, int]) -> pygame.Surface:
    """A surface in the display's pixel format when there is a display (made so directly:
    ``convert()`` of a new tile costs over a millisecond, 40 of them a whole first frame)."""
    display = pygame.display.get_surface() if pygame.display.get_init() else None
    return pygame.Surface(size, 0, display) if display is not None else pygame.Surface(size)


def _convert(surf: pygame.Surface) -> pygame.Surface:
    """In the display's pixel format when there is a display (blits are then cheapest)."""
    if pygame.display.get_init() and pygame.display.get_surface() is not None:
        return surf.convert()
    return surf
