"""Terrain drawn as a pencil would draw it: stippled sand, cross-hatched mud, pale ice, wavy
water, striped curbs, each patch ringed by a hand-drawn pencil edge.

What it is for: the paper sheet (:mod:`game.presentation.paper`) draws terrain into its
cached tiles, once per tile, so terrain costs nothing per frame. Each kind is a *look*
(:data:`LOOKS`): a tint, an ink and a pattern. A pattern is drawn once per zoom level into
one texture of :data:`~game.presentation.paper.TILE` pixels that repeats seamlessly (every
period divides the tile), and a tile shows the texture through the kind's mask. The marks
are placed by a generator seeded from the track's seed, the kind and the level (never the
global random), so a track looks the same every run.

Readable at every scale: at the race camera's zoom (36 px a square at 1080 lines) the marks
are a few pixels, like pencil; below :data:`SMALL_LEVEL` (a track seen whole, previews) the
tints are stronger and the marks coarser, so every kind keeps its own colour and texture.

Textures are *multiplied* onto the paper, as pencil is translucent: the grid, the grain
and (off the road) the hatching show through them.

Under the ``offroad`` terrain rule (Karopapier's: every terrain letter is off-road) the
kinds are still drawn, so players see the map as its author drew it, but *as off-road*:
the track a race holds then has them off its road (``Track.for_rules``), so the road's
pencil line runs round them and the off-road hatching lies under them, and their colours
are washed halfway to white, with a grey edge instead of their ink: drawn, but plainly
outside the road line, as on a Karopapier sheet.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np
import pygame

from game.presentation import theme
from game.presentation.trackart import Wobble, cell_outline, clip_polygon, wobble

Color = tuple[int, int, int]
Rect = tuple[float, float, float, float]

#: Texture size in pixels: the paper's tile size, so a texture repeats exactly once per tile.
TILE = 256
#: Below this many pixels per square the looks switch to their small-scale variant.
SMALL_LEVEL = 16
#: Textures are multiplied onto the paper (pencil is translucent: the grid, the grain and,
#: off the road, the hatching show through); white is the colour that changes nothing.
WHITE: Color = (255, 255, 255)
#: The colour key of the masks' squares of the kind (never used by a look).
HOLE: Color = (0, 255, 0)
#: Pencil-edge points per culling chunk.
CHUNK = 24
#: How far the off-road wash pulls a terrain's colours toward white (the off-road paper and
#: its hatching, under the multiply, then show through).
OFFROAD_WASH = 0.5


@dataclass(frozen=True)
class Look:
    """How one terrain kind is drawn: ``tint`` fills it, ``ink`` draws its marks and its
    pencil edge; ``small_tint`` replaces the tint below :data:`SMALL_LEVEL`; ``pattern``
    names the marks (one of :data:`PATTERNS`)."""

    tint: Color
    small_tint: Color
    ink: Color
    pattern: str
    second: Color | None = None  # a second ink (ice's glints, curbs' stripes on white)


#: The look of every terrain kind by its name (the core's ``Terrain`` values are these
#: strings). A kind without a look here is drawn with :data:`FALLBACK`.
LOOKS: dict[str, Look] = {
    "sand": Look((241, 226, 178), (228, 204, 136), (160, 122, 58), "stipple"),
    "mud": Look((176, 148, 116), (140, 110, 80), (84, 58, 38), "crosshatch"),
    "ice": Look((220, 238, 249), (196, 226, 246), (120, 170, 212), "glints", second=(255, 255, 255)),
    "snow": Look((244, 248, 252), (232, 240, 250), (150, 176, 204), "flakes"),
    "water": Look((160, 200, 234), (116, 168, 222), (40, 96, 164), "waves"),
    "curb": Look((250, 248, 244), (250, 248, 244), (196, 52, 44), "stripes"),
    "lava": Look((236, 138, 84), (222, 104, 60), (150, 40, 22), "waves"),
    "tar": Look((150, 150, 156), (120, 120, 128), (58, 58, 66), "stipple"),
    "gold": Look((246, 222, 130), (238, 204, 90), (170, 124, 20), "flakes"),
    "mountain": Look((200, 190, 178), (170, 158, 146), (96, 84, 72), "peaks"),
    "night": Look((118, 120, 140), (92, 94, 116), (44, 46, 64), "crosshatch"),
}
FALLBACK = Look((220, 214, 200), (200, 192, 176), (110, 100, 90), "crosshatch")


def look(kind: object) -> Look:
    """The look of a terrain kind (a ``Terrain`` value or its name)."""
    return LOOKS.get(str(kind), FALLBACK)


# -- patterns: marks drawn into a seamless TILE x TILE texture --------------------------------
def _period(target: float, lo: int = 3) -> int:
    """The divisor of TILE nearest ``target`` pixels (at least ``lo``): a period that repeats per tile."""
    best = TILE
    for k in range(1, TILE + 1):
        if TILE % k:
            continue
        p = TILE // k
        if p < lo:
            break
        if abs(math.log(p / max(target, 1e-6))) < abs(math.log(best / max(target, 1e-6))):
            best = p
    return best


def _wrapped(draw: Callable[[float, float], None], x: float, y: float, reach: float) -> None:
    """Draw a mark at (x, y) and again one tile over where it crosses an edge (seamless tiling)."""
    xs = [x] + ([x - TILE] if x > TILE - reach else []) + ([x + TILE] if x < reach else [])
    ys = [y] + ([y - TILE] if y > TILE - reach else []) + ([y + TILE] if y < reach else [])
    for px in xs:
        for py in ys:
            draw(px, py)


def _mix(a: Color, b: Color, t: float) -> Color:
    return tuple(int(round(p + (q - p) * t)) for p, q in zip(a, b))


def _stipple(surf: pygame.Surface, level: float, rng: random.Random, lk: Look, small: bool) -> None:
    """Sand: pencil dots of a few sizes, as many per square at any zoom (fewer when small)."""
    squares = (TILE / level) ** 2
    per_square = 3.0 if small else 20.0
    count = int(min(squares * per_square, TILE * TILE / (14 if small else 22)))
    radius = max(0.7, level / 30)
    for _ in range(count):
        x, y = rng.uniform(0, TILE), rng.uniform(0, TILE)
        r = radius * rng.uniform(0.6, 1.25)
        color = _mix(lk.ink, lk.tint, rng.uniform(0.0, 0.45))
        if r < 1.0:
            _wrapped(lambda px, py: surf.set_at((int(px) % TILE, int(py) % TILE), color), x, y, 0)
        else:
            _wrapped(lambda px, py: pygame.draw.circle(surf, color, (px, py), r), x, y, r + 1)


def _crosshatch(surf: pygame.Surface, level: float, rng: random.Random, lk: Look, small: bool) -> None:
    """Mud: dense pencil hatching both ways (45 and 135 degrees), a little uneven in weight."""
    step = _period(level * (0.5 if small else 0.2), lo=4)
    width = 1 if level < 28 else 2
    for direction in (1, -1):
        for c in range(-TILE, 2 * TILE, step):
            color = _mix(lk.ink, lk.tint, rng.uniform(0.0, 0.35))
            if direction == 1:
                a, b = (c, TILE), (c + TILE, 0)
            else:
                a, b = (c, 0), (c + TILE, TILE)
            if width == 1:
                pygame.draw.aaline(surf, color, a, b)
            else:
                pygame.draw.line(surf, color, a, b, width)


def _glints(surf: pygame.Surface, level: float, rng: random.Random, lk: Look, small: bool) -> None:
    """Ice: short light strokes at a shallow slant, a white sheen beside each (polished ice)."""
    squares = (TILE / level) ** 2
    count = int(min(squares * (0.8 if small else 1.6), TILE * TILE / 180))
    length = max(4.0, level * (0.9 if small else 0.55))
    for _ in range(count):
        x, y = rng.uniform(0, TILE), rng.uniform(0, TILE)
        ang = math.radians(rng.uniform(-38, -22))
        dx, dy = math.cos(ang) * length / 2, math.sin(ang) * length / 2

        def mark(px, py, dx=dx, dy=dy):
            pygame.draw.aaline(surf, lk.ink, (px - dx, py - dy), (px + dx, py + dy))
            pygame.draw.aaline(surf, lk.second or theme.PAPER, (px - dx, py - dy + 1.5), (px + dx, py + dy + 1.5))

        _wrapped(mark, x, y, length)


def _flakes(surf: pygame.Surface, level: float, rng: random.Random, lk: Look, small: bool) -> None:
    """Snow (and gold): small open crosses scattered like flakes."""
    squares = (TILE / level) ** 2
    count = int(min(squares * (1.0 if small else 2.5), TILE * TILE / 120))
    arm = max(1.5, level * 0.09)
    for _ in range(count):
        x, y = rng.uniform(0, TILE), rng.uniform(0, TILE)

        def mark(px, py):
            pygame.draw.line(surf, lk.ink, (px - arm, py), (px + arm, py))
            pygame.draw.line(surf, lk.ink, (px, py - arm), (px, py + arm))

        _wrapped(mark, x, y, arm + 1)


def _waves(surf: pygame.Surface, level: float, rng: random.Random, lk: Look, small: bool) -> None:
    """Water (and lava): rows of pencil waves, every other row half a wave along."""
    gap = _period(level * (0.6 if small else 0.34), lo=4)
    wave = _period(level * (1.2 if small else 0.7), lo=6)
    amp = max(1.0, min(gap * 0.3, level * 0.07))
    width = 1 if level < 30 else 2
    for row, y0 in enumerate(range(0, TILE, gap)):
        shift = wave / 2 if row % 2 else 0.0
        pts = [(x, y0 + amp * math.sin(2 * math.pi * (x + shift) / wave)) for x in range(0, TILE + 1, 2)]
        if width == 1:
            pygame.draw.aalines(surf, lk.ink, False, pts)
        else:
            pygame.draw.lines(surf, lk.ink, False, pts, width)


def _stripes(surf: pygame.Surface, level: float, rng: random.Random, lk: Look, small: bool) -> None:
    """Curbs: bold diagonal red bands on white, like a kerb's paint."""
    period = _period(level * 0.5, lo=6)
    for c in range(-TILE, 2 * TILE, period):
        band = [(c, TILE), (c + period / 2, TILE), (c + period / 2 + TILE, 0), (c + TILE, 0)]
        pygame.draw.polygon(surf, lk.ink, band)


def _peaks(surf: pygame.Surface, level: float, rng: random.Random, lk: Look, small: bool) -> None:
    """Mountains: little pencil carets."""
    squares = (TILE / level) ** 2
    count = int(min(squares * (0.7 if small else 1.2), TILE * TILE / 200))
    half = max(2.0, level * 0.18)
    for _ in range(count):
        x, y = rng.uniform(0, TILE), rng.uniform(0, TILE)
        _wrapped(lambda px, py: pygame.draw.lines(surf, lk.ink, False, [(px - half, py + half * 0.6),
                                                                        (px, py - half * 0.6),
                                                                        (px + half, py + half * 0.6)]), x, y, half + 1)


PATTERNS: dict[str, Callable] = {"stipple": _stipple, "crosshatch": _crosshatch, "glints": _glints,
                                 "flakes": _flakes, "waves": _waves, "stripes": _stripes, "peaks": _peaks}


def texture(kind: object, level: float, seed: int = 0, offroad: bool = False) -> pygame.Surface:
    """The seamless TILE x TILE texture of a kind at ``level`` pixels per square, to be
    multiplied onto the paper.

    ``offroad`` gives the kind as off-road: washed toward white, so the off-road paper and
    its hatching, which lie under it there, show through.
    """
    lk = look(kind)
    small = level < SMALL_LEVEL
    surf = pygame.Surface((TILE, TILE))
    surf.fill(lk.small_tint if small else lk.tint)
    rng = random.Random(f"terrain/{seed}/{kind}/{level:g}")
    PATTERNS.get(lk.pattern, _crosshatch)(surf, level, rng, lk, small)
    if offroad:
        wash = pygame.Surface((TILE, TILE))
        wash.fill(WHITE)
        wash.set_alpha(round(255 * OFFROAD_WASH))
        surf.blit(wash, (0, 0))
    return surf


def swatch(kind: object, size: tuple[int, int], level: float = 28.0, seed: int = 0,
           offroad: bool = False) -> pygame.Surface:
    """A small piece of graph paper showing a kind as the race draws it (the pause menu's
    legend): the paper (hatched off-road paper when ``offroad``), its grid, the texture and a
    pencil edge."""
    w, h = size
    surf = pygame.Surface((w, h))
    surf.fill(theme.OFFROAD if offroad else theme.PAPER)
    if offroad:
        for c in range(-h, w, 8):
            pygame.draw.aaline(surf, theme.HATCH, (c, h), (c + h, 0))
    step = max(4, round(level))
    for x in range(step // 2, w, step):
        pygame.draw.line(surf, theme.GRID_MINOR, (x, 0), (x, h))
    for y in range(step // 2, h, step):
        pygame.draw.line(surf, theme.GRID_MINOR, (0, y), (w, y))
    tex = texture(kind, level, seed, offroad)
    for y in range(0, h, TILE):
        for x in range(0, w, TILE):
            surf.blit(tex, (x, y), special_flags=pygame.BLEND_RGB_MULT)
    edge = wobble([(1.5, 1.5), (w - 2.5, 1.5), (w - 2.5, h - 2.5), (1.5, h - 2.5)], Wobble(seed, amplitude=1.2),
                  step=6.0)
    pygame.draw.lines(surf, theme.GRAPHITE_LIGHT if offroad else look(kind).ink, True, edge, 2)
    return surf


# -- one track's terrain ------------------------------------------------------------------------
def coarse_terrain(track) -> dict[str, np.ndarray]:
    """Each terrain kind on the track as a bool mask over paper squares (a fine-paper track's
    lattice nodes on whole squares), kinds without any square left out.

    Reads the core's ``track.terrain_nodes()``; a track without terrain gives an empty mapping.
    """
    nodes = getattr(track, "terrain_nodes", None)
    masks: Mapping = nodes() if callable(nodes) else {}
    u = max(1, getattr(track, "scale", 1))
    out: dict[str, np.ndarray] = {}
    for kind, mask in masks.items():
        mask = np.asarray(mask, dtype=bool)
        if u > 1:
            mask = mask[::u, ::u]
        if mask.any():
            out[str(kind)] = mask
    return out


def track_patches(track) -> list[tuple[str, list[tuple[float, float]]]]:
    """An outline track's terrain polygons as (kind, ring in squares); empty on char maps."""
    found = getattr(track, "terrain_patches", None)
    return [(str(p.kind), [(float(x), float(y)) for x, y in p.ring]) for p in (found() if callable(found) else ())]


@dataclass
class _Area:
    """Where one kind lies: a mask of squares (char maps) or polygons (outline patches)."""

    kind: str
    mask: pygame.Surface | None  # one pixel per square: white off the kind, HOLE on it
    rings: list[np.ndarray]  # outline patches (in squares), when there is no mask
    bounds: Rect  # squares covered
    edges: list[np.ndarray]  # wobbled pencil edges (closed, in squares)
    chunks: list[tuple[int, int, Rect]]  # (edge, first point, bounds) per culling chunk


class TerrainArt:
    """The terrain of one track, ready to be drawn into paper tiles.

    ``masks`` maps kind names to masks over paper squares (:func:`coarse_terrain`), and
    ``patches`` lists outline polygons as (kind, ring) (:func:`track_patches`): a kind with
    polygons is drawn as the polygons (its true shape), else as its squares. ``seed`` is the
    paper's seed (the wobble of the edges, the places of the marks); ``offroad`` draws every
    kind as off-road (see the module docstring). Textures are kept per (kind, level), a few
    levels at a time.
    """

    def __init__(self, masks: Mapping[str, np.ndarray], patches=(), seed: int = 0, offroad: bool = False) -> None:
        self.seed = seed
        self.offroad = offroad
        self.areas: list[_Area] = []
        self._textures: dict[tuple[str, float], pygame.Surface] = {}
        field_ = Wobble(seed + 101)
        polygons: dict[str, list[np.ndarray]] = {}
        for kind, ring in patches:
            if len(ring) >= 3:
                polygons.setdefault(str(kind), []).append(np.asarray(ring, dtype=float))
        for kind in [*masks, *(k for k in polygons if k not in masks)]:
            if kind in polygons:
                rings = polygons[kind]
                loops = [[tuple(p) for p in ring.tolist()] for ring in rings]
                every = np.concatenate(rings)
                surf = None
                bounds = (every[:, 0].min(), every[:, 1].min(), every[:, 0].max(), every[:, 1].max())
            else:
                mask = np.asarray(masks[kind], dtype=bool)
                ys, xs = np.nonzero(mask)
                if not len(xs):
                    continue
                rgb = np.zeros((mask.shape[1], mask.shape[0], 3), dtype=np.uint8)
                rgb[...] = WHITE
                rgb[mask.T] = HOLE
                surf = pygame.surfarray.make_surface(rgb)
                rings, loops = [], cell_outline(mask)
                bounds = (xs.min() - 0.5, ys.min() - 0.5, xs.max() + 0.5, ys.max() + 0.5)
            edges, chunks = [], []
            for loop in loops:
                pts = wobble(loop, field_)
                pts.append(pts[0])
                arr = np.asarray(pts, dtype=float)
                for start in range(0, len(arr) - 1, CHUNK):
                    part = arr[start:start + CHUNK + 1]
                    chunks.append((len(edges), start, (part[:, 0].min(), part[:, 1].min(),
                                                       part[:, 0].max(), part[:, 1].max())))
                edges.append(arr)
            grow = 0.2  # the wobble and the edge's width reach a little past the squares
            bounds = (bounds[0] - grow, bounds[1] - grow, bounds[2] + grow, bounds[3] + grow)
            self.areas.append(_Area(str(kind), surf, rings, bounds, edges, chunks))

    @classmethod
    def of_track(cls, track, seed: int = 0) -> TerrainArt:
        """The terrain of a track as its rules see it (``track.terrain_offroad``: every kind off the road)."""
        return cls(coarse_terrain(track), track_patches(track), seed,
                   offroad=bool(getattr(track, "terrain_offroad", False)))

    @property
    def kinds(self) -> list[str]:
        """The kinds on the track, in the order they are drawn."""
        return [a.kind for a in self.areas]

    def __bool__(self) -> bool:
        return bool(self.areas)

    def tint(self, kind: str, level: float) -> Color:
        """The flat colour of a kind at ``level`` (coarse stand-ins), washed when off-road."""
        lk = look(kind)
        tint = lk.small_tint if level < SMALL_LEVEL else lk.tint
        return _mix(tint, WHITE, OFFROAD_WASH) if self.offroad else tint

    def _texture(self, kind: str, level: float) -> pygame.Surface:
        key = (kind, level)
        tex = self._textures.get(key)
        if tex is None:
            if len(self._textures) >= 4 * max(1, len(self.areas)):
                self._textures.pop(next(iter(self._textures)))
            tex = self._textures[key] = _display_format(texture(kind, level, self.seed, self.offroad))
        return tex

    def draw_fill(self, surf: pygame.Surface, level: float, ox: int, oy: int, rect: Rect,
                  flat: bool = False) -> None:
        """Multiply each kind's texture onto its part of a tile (pixels from ``ox, oy`` at
        ``level``), or only its tint when ``flat`` (a coarse stand-in, scaled up later)."""
        for area in self.areas:
            if not _overlaps(rect, area.bounds):
                continue
            # A stencil: white (nothing, under a multiply) everywhere but the kind's part,
            # which has the hole colour and lets the texture through.
            stencil = pygame.Surface((TILE, TILE), 0, surf)
            stencil.fill(WHITE)
            if area.mask is not None:
                w, h = area.mask.get_size()
                x0 = max(0, math.floor(rect[0] + 0.5))
                y0 = max(0, math.floor(rect[1] + 0.5))
                x1 = min(w, math.ceil(rect[2] + 0.5))
                y1 = min(h, math.ceil(rect[3] + 0.5))
                if x1 <= x0 or y1 <= y0:
                    continue
                lx, ly = round((x0 - 0.5) * level) - ox, round((y0 - 0.5) * level) - oy
                lx2, ly2 = round((x1 - 0.5) * level) - ox, round((y1 - 0.5) * level) - oy
                stencil.blit(pygame.transform.scale(area.mask.subsurface((x0, y0, x1 - x0, y1 - y0)),
                                                    (max(1, lx2 - lx), max(1, ly2 - ly))), (lx, ly))
            else:
                offset = np.array([ox, oy], dtype=float)
                drawn = False
                for ring in area.rings:
                    pts = clip_polygon((ring * level - offset).tolist(), -2, -2, TILE + 2, TILE + 2)
                    if len(pts) >= 3:
                        pygame.draw.polygon(stencil, HOLE, pts)
                        drawn = True
                if not drawn:
                    continue
            stencil.set_colorkey(HOLE)
            layer = pygame.Surface((TILE, TILE), 0, surf)
            if flat:
                layer.fill(self.tint(area.kind, level))
            else:
                layer.blit(self._texture(area.kind, level), (0, 0))
            layer.blit(stencil, (0, 0))
            surf.blit(layer, (0, 0), special_flags=pygame.BLEND_RGB_MULT)

    def draw_edges(self, surf: pygame.Surface, level: float, ox: int, oy: int, rect: Rect) -> None:
        """The pencil edge round each patch, over the grid (a finer line than the road's)."""
        width = max(1, round(level / 18))
        pad = (width + 2) / level
        grown = (rect[0] - pad, rect[1] - pad, rect[2] + pad, rect[3] + pad)
        offset = np.array([ox, oy], dtype=float)
        for area in self.areas:
            if not _overlaps(grown, area.bounds):
                continue
            color = theme.GRAPHITE_LIGHT if self.offroad else look(area.kind).ink
            for edge, start, bounds in area.chunks:
                if not _overlaps(grown, bounds):
                    continue
                pts = (area.edges[edge][start:start + CHUNK + 1] * level - offset).tolist()
                if len(pts) < 2:
                    continue
                if width == 1:
                    pygame.draw.aalines(surf, color, False, pts)
                else:
                    pygame.draw.lines(surf, color, False, pts, width)


def _overlaps(a: Rect, b: Rect) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def _display_format(surf: pygame.Surface) -> pygame.Surface:
    if pygame.display.get_init() and pygame.display.get_surface() is not None:
        return surf.convert()
    return surf
