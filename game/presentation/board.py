"""Drawing the race on graph paper: the one renderer shared by the race, the replay viewer
and ``racetrack render``.

The static part (paper, grain, grid, the road, its pencil border, start, finish and
checkpoints, plus every trail stroke already finished) is drawn into a cached layer a
little larger than the window, and blitted each frame; it is redrawn only when the zoom
changes, the view leaves the cached area, or a phase adds strokes. Everything that moves
(growing strokes, cars, vectors, target markers, effects) is drawn on top each frame.

Drawing only reads: nothing here changes the race or the scene.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np
import pygame

from game.core.race import Candidate, PhaseRecord
from game.core.track import Track
from game.core.vec import Vec
from game.presentation import theme
from game.presentation.camera import Camera
from game.presentation.text import TextCache
from game.presentation.trackart import Wobble, loop_length, track_loops, wobble

Point = tuple[float, float]

#: Extra pixels drawn around the window in the cached layer, so panning rarely redraws it.
LAYER_MARGIN = 48
GRAIN_TILE = 256


@dataclass(frozen=True)
class Stroke:
    """One pen stroke of a car's trail: it drove from ``a`` to ``b`` and then stood on ``end``."""

    car: int
    a: Point
    b: Point
    end: Point


def move_stroke(move) -> Stroke | None:
    """The stroke a :class:`~game.core.race.CarMove` leaves (None if the car did not drive)."""
    if move.target is None:
        return None
    reach = move.crash_point if move.crash_point is not None else (float(move.target.x), float(move.target.y))
    return Stroke(move.car, (float(move.start.x), float(move.start.y)), reach, (float(move.end.x), float(move.end.y)))


def trail_strokes(records: Sequence[PhaseRecord]) -> list[Stroke]:
    """Every stroke of the given phases, in order."""
    strokes = []
    for record in records:
        for move in record.moves:
            stroke = move_stroke(move)
            if stroke is not None:
                strokes.append(stroke)
    return strokes


def _pt(v: Vec) -> Point:
    return (float(v.x), float(v.y))


class Board:
    """Draws one track and its cars. Keep one per race; it caches what it can."""

    def __init__(self, track: Track, pens: Sequence[theme.Pen], text: TextCache | None = None, seed: int = 0) -> None:
        self.track = track
        self.pens = list(pens)
        self.text = text or TextCache()
        self.field = Wobble(seed)
        self.loops = [wobble(loop, self.field) for loop in track_loops(track)]
        self.outline_length = sum(loop_length(loop) for loop in self.loops) or 1.0
        self.bounds = (-0.5, -0.5, track.width - 0.5, track.height - 0.5)
        self._mask: pygame.Surface | None = None
        self._grain: pygame.Surface | None = None
        self._layer: pygame.Surface | None = None
        self._layer_origin: Point = (0.0, 0.0)
        self._layer_key: tuple | None = None
        self._strokes_key: object = None
        self._strokes_drawn = 0
        self.layer_builds = 0  # how often the cached layer was redrawn (benchmarks, tests)

    # -- the cached static layer ------------------------------------------------
    def blit_layer(self, surface: pygame.Surface, camera: Camera, strokes: Sequence[Stroke] = (),
                   strokes_key: object = None, outline: bool = True) -> None:
        """Blit paper, track and the finished strokes, redrawing the cache only when needed.

        ``strokes_key`` names the stroke list (the race uses the number of phases shown);
        when it grows as an integer, only the new strokes are drawn onto the cache.
        """
        key = (round(camera.scale, 3), tuple(camera.size), outline, surface.get_bitsize())
        left, top, right, bottom = camera.visible_world()
        ox, oy = self._layer_origin
        lw, lh = self._layer.get_size() if self._layer is not None else (0, 0)
        covers = (self._layer is not None and left >= ox and top >= oy
                  and right <= ox + lw / camera.scale and bottom <= oy + lh / camera.scale)
        if key != self._layer_key or not covers:
            self._build_layer(surface, camera, strokes, outline)
            self._layer_key = key
            self._strokes_key, self._strokes_drawn = strokes_key, len(strokes)
        elif strokes_key != self._strokes_key:
            grows = (isinstance(strokes_key, int) and isinstance(self._strokes_key, int)
                     and strokes_key > self._strokes_key and len(strokes) >= self._strokes_drawn)
            if grows:
                self.draw_strokes(self._layer, self._to_layer(camera.scale), camera.scale,
                                  strokes[self._strokes_drawn:])
            else:
                self._build_layer(surface, camera, strokes, outline)
            self._strokes_key, self._strokes_drawn = strokes_key, len(strokes)
        sx, sy = camera.to_screen(self._layer_origin)
        surface.blit(self._layer, (round(sx), round(sy)))

    def _to_layer(self, s: float):
        ox, oy = self._layer_origin
        return lambda p: ((p[0] - ox) * s, (p[1] - oy) * s)

    def _build_layer(self, target: pygame.Surface, camera: Camera, strokes, outline: bool) -> None:
        self.layer_builds += 1
        w, h = camera.size[0] + 2 * LAYER_MARGIN, camera.size[1] + 2 * LAYER_MARGIN
        origin = camera.to_world((-LAYER_MARGIN, -LAYER_MARGIN))
        s = camera.scale
        origin = (math.floor(origin[0] * s) / s, math.floor(origin[1] * s) / s)
        if self._layer is None or self._layer.get_size() != (w, h):
            self._layer = pygame.Surface((w, h)).convert(target) if pygame.display.get_init() and \
                pygame.display.get_surface() is not None else pygame.Surface((w, h), 0, target)
        self._layer_origin = origin
        layer = self._layer

        to_layer = self._to_layer(s)

        self.draw_paper(layer, to_layer, s, origin)
        self.draw_gates(layer, to_layer, s)
        if outline:
            self.draw_outline(layer, to_layer, s, 1.0)
        self.draw_strokes(layer, to_layer, s, strokes)

    # -- paper ------------------------------------------------------------------
    def _road_mask(self) -> pygame.Surface:
        """A surface one pixel per node: paper on road, colour key elsewhere (char maps)."""
        if self._mask is None:
            road = self.track.region.road_nodes()
            rgb = np.zeros((road.shape[1], road.shape[0], 3), dtype=np.uint8)
            rgb[...] = (255, 0, 255)
            rgb[road.T] = theme.PAPER
            mask = pygame.surfarray.make_surface(rgb)
            mask.set_colorkey((255, 0, 255))
            self._mask = mask
        return self._mask

    def _grain_tile(self) -> pygame.Surface:
        """Paper grain: near-white noise multiplied onto the paper (seeded, the same every run)."""
        if self._grain is None:
            rng = np.random.default_rng(7)
            noise = 255 - rng.integers(0, 9, size=(GRAIN_TILE, GRAIN_TILE)).astype(np.int16)
            fibres = rng.random((GRAIN_TILE, GRAIN_TILE)) < 0.004
            noise[fibres] -= 18
            rgb = np.repeat(np.clip(noise, 0, 255).astype(np.uint8)[..., None], 3, axis=2)
            self._grain = pygame.surfarray.make_surface(rgb)
        return self._grain

    def draw_paper(self, layer: pygame.Surface, to_layer, s: float, origin: Point) -> None:
        w, h = layer.get_size()
        layer.fill(theme.OFFROAD)
        region = self.track.region
        if self.track.is_outline:
            rings = region.rings
            pygame.draw.polygon(layer, theme.PAPER, [to_layer(p) for p in rings[0]])
            for ring in rings[1:]:
                pygame.draw.polygon(layer, theme.OFFROAD, [to_layer(p) for p in ring])
        else:
            mask = self._road_mask()
            x0 = max(0, math.floor(origin[0] + 0.5))
            y0 = max(0, math.floor(origin[1] + 0.5))
            x1 = min(self.track.width, math.ceil(origin[0] + w / s + 0.5))
            y1 = min(self.track.height, math.ceil(origin[1] + h / s + 0.5))
            if x1 > x0 and y1 > y0:
                part = mask.subsurface((x0, y0, x1 - x0, y1 - y0))
                lx, ly = to_layer((x0 - 0.5, y0 - 0.5))
                lx2, ly2 = to_layer((x1 - 0.5, y1 - 0.5))
                size = (max(1, round(lx2) - round(lx)), max(1, round(ly2) - round(ly)))
                scaled = pygame.transform.scale(part, size)
                layer.blit(scaled, (round(lx), round(ly)))
        # grain, anchored to the world so it does not swim when the layer is redrawn
        grain = self._grain_tile()
        gx = -int(origin[0] * s) % GRAIN_TILE
        gy = -int(origin[1] * s) % GRAIN_TILE
        for ty in range(gy - GRAIN_TILE, h, GRAIN_TILE):
            for tx in range(gx - GRAIN_TILE, w, GRAIN_TILE):
                layer.blit(grain, (tx, ty), special_flags=pygame.BLEND_RGB_MULT)
        # the squares: a faint line every square, a darker one every fifth
        x_first, x_last = math.ceil(origin[0]), math.floor(origin[0] + w / s)
        y_first, y_last = math.ceil(origin[1]), math.floor(origin[1] + h / s)
        minor = s >= 7
        for x in range(x_first, x_last + 1):
            major = x % 5 == 0
            if major or minor:
                px = round((x - origin[0]) * s)
                pygame.draw.line(layer, theme.GRID_MAJOR if major else theme.GRID_MINOR, (px, 0), (px, h))
        for y in range(y_first, y_last + 1):
            major = y % 5 == 0
            if major or minor:
                py = round((y - origin[1]) * s)
                pygame.draw.line(layer, theme.GRID_MAJOR if major else theme.GRID_MINOR, (0, py), (w, py))
        # the red margin, two squares left of the sheet
        mx = round((-2.5 - origin[0]) * s)
        if 0 <= mx < w:
            pygame.draw.line(layer, theme.MARGIN, (mx, 0), (mx, h), max(1, round(s / 12)))

    # -- track ------------------------------------------------------------------
    def draw_outline(self, layer, to_layer, s: float, fraction: float) -> None:
        """The pencil border; ``fraction`` < 1 draws only the start of every loop (the intro)."""
        width = max(1, round(s / 10))
        for loop in self.loops:
            n = len(loop)
            if fraction >= 1:
                pts = [to_layer(p) for p in loop] + [to_layer(loop[0])]
            else:
                count = int(n * max(0.0, fraction))
                if count < 2:
                    continue
                pts = [to_layer(p) for p in loop[:count]]
            pygame.draw.lines(layer, theme.GRAPHITE, False, pts, width)
            shifted = [(x + 0.6, y + 0.5) for x, y in pts]
            pygame.draw.aalines(layer, theme.GRAPHITE_LIGHT, False, shifted)

    def draw_gates(self, layer, to_layer, s: float) -> None:
        track = self.track
        for slot_i, slot in enumerate(track.start_slots):
            r = 0.3 * s
            cx, cy = to_layer(_pt(slot))
            pygame.draw.rect(layer, theme.GRAPHITE_LIGHT, (cx - r, cy - r, 2 * r, 2 * r), 1)
        self._draw_finish(layer, to_layer, s)
        for gate in track.checkpoints:
            self._draw_checkpoint(layer, to_layer, s, gate)

    def _draw_finish(self, layer, to_layer, s: float) -> None:
        gate = self.track.finish
        if gate.is_line:
            (ax, ay), (bx, by) = gate.a, gate.b
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
                    pygame.draw.polygon(layer, color, [to_layer(p) for p in quad])
            # the driving direction, a small arrow past the middle of the line
            mx, my = (ax + bx) / 2, (ay + by) / 2
            tail = (mx + nx * 0.6 - dx * 0, my + ny * 0.6)
            self._arrow(layer, to_layer(tail), to_layer((tail[0] + nx * 1.2, tail[1] + ny * 1.2)),
                        theme.GRAPHITE_LIGHT, max(1, round(s / 14)), s * 0.3)
        else:
            for cx, cy in gate.cells:
                for i in range(2):
                    for j in range(2):
                        color = theme.INK if (i + j) % 2 == 0 else theme.PAPER
                        p = to_layer((cx - 0.5 + i * 0.5, cy - 0.5 + j * 0.5))
                        pygame.draw.rect(layer, color, (round(p[0]), round(p[1]), math.ceil(s / 2), math.ceil(s / 2)))

    def _draw_checkpoint(self, layer, to_layer, s: float, gate) -> None:
        size = int(max(11, min(26, s * 0.7)))
        if gate.is_line:
            (ax, ay), (bx, by) = gate.a, gate.b
            length = math.hypot(bx - ax, by - ay) or 1.0
            dashes = max(1, int(length / 0.3))
            for k in range(0, dashes, 2):
                p0 = (ax + (bx - ax) * k / dashes, ay + (by - ay) * k / dashes)
                p1 = (ax + (bx - ax) * (k + 1) / dashes, ay + (by - ay) * (k + 1) / dashes)
                pygame.draw.line(layer, theme.CHECKPOINT, to_layer(p0), to_layer(p1), max(2, round(s / 8)))
            label = (ax - (bx - ax) / length * 0.55, ay - (by - ay) / length * 0.55)
        else:
            for cx, cy in gate.cells:
                p = to_layer((cx - 0.5, cy - 0.5))
                rect = pygame.Rect(round(p[0]), round(p[1]), math.ceil(s), math.ceil(s))
                for k in (0.25, 0.5, 0.75):  # a light diagonal hatch
                    pygame.draw.line(layer, theme.CHECKPOINT, (rect.left, rect.top + rect.height * k),
                                     (rect.left + rect.width * k, rect.top), 1)
                    pygame.draw.line(layer, theme.CHECKPOINT, (rect.left + rect.width * k, rect.bottom),
                                     (rect.right, rect.top + rect.height * k), 1)
                pygame.draw.rect(layer, theme.CHECKPOINT, rect, 1)
            cx, cy = min(gate.cells)
            label = (cx - 0.5, cy - 0.5)
        centre = to_layer(label)
        pygame.draw.circle(layer, theme.PAPER, centre, size * 0.75)
        pygame.draw.circle(layer, theme.CHECKPOINT, centre, size * 0.75, 2)
        self.text.blit(layer, str(gate.number), size, theme.CHECKPOINT, centre, "center", bold=True)

    @staticmethod
    def _arrow(surface, a, b, color, width: int, head: float) -> None:
        pygame.draw.line(surface, color, a, b, width)
        ang = math.atan2(b[1] - a[1], b[0] - a[0])
        for side in (-1, 1):
            tip = (b[0] - head * math.cos(ang + side * 0.45), b[1] - head * math.sin(ang + side * 0.45))
            pygame.draw.line(surface, color, b, tip, width)

    # -- strokes and cars -------------------------------------------------------
    def stroke_width(self, s: float) -> int:
        return max(1, round(s / 11))

    def draw_strokes(self, surface, to_screen, s: float, strokes: Iterable[Stroke]) -> None:
        """Trail strokes with a dot on every node, like a pen on paper."""
        width = self.stroke_width(s)
        dot = max(1.5, s * 0.09)
        for st in strokes:
            pen = self.pens[st.car]
            a, b = to_screen(st.a), to_screen(st.b)
            if width == 1:
                pygame.draw.aaline(surface, pen.color, a, b)
            else:
                pygame.draw.line(surface, pen.color, a, b, width)
            pygame.draw.circle(surface, pen.color, a, dot)
            pygame.draw.circle(surface, pen.color, b, dot)
            if st.end != st.b:
                pygame.draw.circle(surface, pen.color, to_screen(st.end), dot + 1, 1)

    def highlight_radius(self, s: float) -> float:
        return max(self.car_radius(s), max(4.0, min(12.0, s * 0.22)) * 1.25) + 4

    def car_radius(self, s: float) -> float:
        return max(6.0, min(18.0, s * 0.36))

    def draw_car(self, surface, camera: Camera, car: int, pos: Point, scale_k: float = 1.0,
                 faded: bool = False) -> None:
        pen = self.pens[car]
        r = self.car_radius(camera.scale) * scale_k
        if r < 1:
            return
        center = camera.to_screen(pos)
        theme.draw_symbol(surface, pen.symbol, center, r, pen.light if faded else pen.color,
                          outline=theme.GRAPHITE_LIGHT if faded else theme.INK)

    def draw_vector(self, surface, camera: Camera, car: int, pos: Point, base: Point) -> None:
        """The car's current vector, faint, from where it stands to its base point."""
        if pos == base:
            return
        pen = self.pens[car]
        a, b = camera.to_screen(pos), camera.to_screen(base)
        self._arrow(surface, a, b, pen.light, max(1, round(camera.scale / 14)), max(5.0, camera.scale * 0.3))

    def draw_candidates(self, surface, camera: Camera, car: int, pos: Point, candidates: Sequence[Candidate],
                        highlight: Vec | None, doomed: frozenset = frozenset(), show_doomed: bool = True) -> None:
        """The targets around the base point: legal ones open, the highlighted one with its ghost vector,
        off-road ones with a warning triangle, doomed ones slashed (assist), illegal ones crossed out."""
        pen = self.pens[car]
        s = camera.scale
        r = max(4.0, min(12.0, s * 0.22))
        width = max(1, round(s / 14))
        chosen = next((c for c in candidates if c.key == highlight), None)
        if chosen is not None and chosen.legal:
            a, b = camera.to_screen(pos), camera.to_screen(_pt(chosen.node))
            self._dashed(surface, pen.color, a, b, max(1, round(s / 10)), s * 0.25)
        for cand in candidates:
            c = camera.to_screen(_pt(cand.node))
            if not cand.legal:
                k = r * 0.75
                pygame.draw.line(surface, theme.ILLEGAL, (c[0] - k, c[1] - k), (c[0] + k, c[1] + k), width + 1)
                pygame.draw.line(surface, theme.ILLEGAL, (c[0] - k, c[1] + k), (c[0] + k, c[1] - k), width + 1)
                continue
            is_doomed = show_doomed and cand.node in doomed
            if cand.key == highlight:
                pygame.draw.circle(surface, pen.color, c, r * 1.25)
                pygame.draw.circle(surface, theme.INK, c, r * 1.25, 1)
                # a halo wider than a car, so the highlight shows even under a standing car
                pygame.draw.circle(surface, pen.color, c, self.highlight_radius(s), 2)
            else:
                pygame.draw.circle(surface, theme.PAPER, c, r)
                pygame.draw.circle(surface, pen.color, c, r, width + 1)
            if cand.key == Vec(0, 0):
                pygame.draw.circle(surface, theme.INK, c, max(1.5, r * 0.3))
            if cand.offroad:
                t = r * 1.9
                tri = [(c[0], c[1] - t), (c[0] + t * 0.9, c[1] + t * 0.6), (c[0] - t * 0.9, c[1] + t * 0.6)]
                pygame.draw.polygon(surface, theme.WARN, tri, width + 1)
            if is_doomed:
                k = r * 1.6
                pygame.draw.circle(surface, theme.DOOM, c, k, width + 1)
                pygame.draw.line(surface, theme.DOOM, (c[0] - k * 0.7, c[1] + k * 0.7), (c[0] + k * 0.7, c[1] - k * 0.7),
                                 width + 1)

    @staticmethod
    def _dashed(surface, color, a, b, width: int, dash: float) -> None:
        length = math.hypot(b[0] - a[0], b[1] - a[1])
        if length < 1:
            return
        n = max(1, int(length / max(dash, 2)))
        for k in range(0, n, 2):
            t0, t1 = k / n, min(1.0, (k + 1) / n)
            pygame.draw.line(surface, color, (a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0),
                             (a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1), width)

    # -- effects ----------------------------------------------------------------
    def draw_burst(self, surface, camera: Camera, point: Point, age: float, seed: int = 0) -> None:
        """A collision: a ring and spikes flaring out over ``age`` 0..1, then a scribble stays."""
        c = camera.to_screen(point)
        s = camera.scale
        rng = random.Random(seed)
        if age < 1:
            radius = s * (0.3 + 0.9 * age)
            alpha_col = tuple(int(v + (p - v) * age) for v, p in zip(theme.DOOM, theme.PAPER))
            pygame.draw.circle(surface, alpha_col, c, radius, max(1, round(s / 10)))
            for k in range(9):
                ang = 2 * math.pi * k / 9 + rng.uniform(-0.2, 0.2)
                r0, r1 = radius * 0.9, radius * (1.4 + rng.uniform(0, 0.4))
                pygame.draw.line(surface, alpha_col, (c[0] + r0 * math.cos(ang), c[1] + r0 * math.sin(ang)),
                                 (c[0] + r1 * math.cos(ang), c[1] + r1 * math.sin(ang)), max(1, round(s / 12)))
        self.draw_scribble(surface, camera, point, seed, min(1.0, age * 2))

    def draw_scribble(self, surface, camera: Camera, point: Point, seed: int, amount: float = 1.0) -> None:
        """A pencil scribble over a spot (where cars met or a car left the road)."""
        rng = random.Random(f"scribble/{seed}")
        s = camera.scale
        pts = []
        for k in range(14):
            ang = rng.uniform(0, 2 * math.pi)
            rad = rng.uniform(0.1, 0.35) * s
            pts.append(camera.to_screen((point[0] + rad / s * math.cos(ang), point[1] + rad / s * math.sin(ang))))
        count = max(2, int(len(pts) * amount))
        pygame.draw.lines(surface, theme.GRAPHITE, False, pts[:count], 1)

    def draw_flag(self, surface, camera: Camera, point: Point, grow: float) -> None:
        """A chequered flag planted where a car finished."""
        c = camera.to_screen(point)
        s = camera.scale * max(0.0, grow)
        if s < 2:
            return
        pole_h, fw, fh = s * 1.2, s * 0.7, s * 0.45
        top = (c[0], c[1] - pole_h)
        pygame.draw.line(surface, theme.INK, c, top, max(1, round(s / 12)))
        n, m = 4, 3
        for i in range(n):
            for j in range(m):
                color = theme.INK if (i + j) % 2 == 0 else (255, 255, 255)
                pygame.draw.rect(surface, color, (top[0] + fw * i / n, top[1] + fh * j / m, math.ceil(fw / n),
                                                  math.ceil(fh / m)))
        pygame.draw.rect(surface, theme.INK, (top[0], top[1], fw, fh), 1)

    def draw_crash(self, surface, camera: Camera, point: Point) -> None:
        """Where a car left the road: a small jagged star."""
        c = camera.to_screen(point)
        r = max(5.0, camera.scale * 0.3)
        pts = [(c[0] + (r if k % 2 == 0 else r * 0.45) * math.cos(math.pi * k / 5),
                c[1] + (r if k % 2 == 0 else r * 0.45) * math.sin(math.pi * k / 5)) for k in range(10)]
        pygame.draw.polygon(surface, theme.WARN, pts)
        pygame.draw.polygon(surface, theme.INK, pts, 1)


class DoomedAssist:
    """The "doomed targets" assist: targets after which leaving the road can no longer be avoided.

    Uses ``game.drivers.safety`` when present (keeping its oracle for the track between
    turns); without it, or if it fails, no target is marked (the assist is a nicety and
    must never stop the race).
    """

    def __init__(self) -> None:
        self._oracle = None

    def nodes(self, state, car: int, committed=None) -> frozenset:
        try:
            from game.drivers.safety import SafetyOracle, doomed_targets
        except ImportError:
            return frozenset()
        try:
            if self._oracle is None or self._oracle.track is not state.track:
                self._oracle = SafetyOracle(state.track, state.rules)
            return frozenset(doomed_targets(state, car, committed, oracle=self._oracle))
        except Exception:
            return frozenset()
