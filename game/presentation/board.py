"""Drawing the race on graph paper: the one renderer shared by the race, the replay viewer
and ``racetrack render``.

The static part (paper, grid, hatching, the road, its pencil border, start, finish and
checkpoints, plus every trail stroke already finished) lives in a tiled cache, the
:class:`~game.presentation.paper.PaperSheet`; a frame blits it. Everything that moves
(growing strokes, cars, vectors, target markers, effects) is drawn on top each frame.

Points given to the drawing functions here are track nodes (``track.scale`` nodes per
paper square); the camera maps them to pixels.

Drawing only reads: nothing here changes the race or the scene.
"""

from __future__ import annotations

import math
import random
from typing import Iterable, Sequence

import pygame

from game.core.race import Candidate, PhaseRecord
from game.core.track import Track
from game.core.vec import Vec
from game.presentation import theme
from game.presentation.camera import Camera
from game.presentation.paper import PaperSheet, Stroke, arrow, draw_strokes, stroke_width
from game.presentation.text import TextCache

Point = tuple[float, float]

__all__ = ["Board", "Stroke", "move_stroke", "trail_strokes"]


def move_stroke(move) -> Stroke | None:
    """The stroke a :class:`~game.core.race.CarMove` leaves (None if the car did not drive), in nodes."""
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

    def __init__(self, track: Track, pens: Sequence[theme.Pen], text: TextCache | None = None, seed: int = 0,
                 progressive: bool = False) -> None:
        self.track = track
        self.pens = list(pens)
        self.text = text or TextCache()
        self.sheet = PaperSheet(track, self.text, seed, progressive=progressive)
        self.sheet.pens = self.pens
        self.unit = self.sheet.unit
        self.bounds = self.sheet.bounds  # in squares

    @property
    def layer_builds(self) -> int:
        """Tiles of the cached paper drawn so far (benchmarks, tests)."""
        return self.sheet.tiles_built

    def blit_layer(self, surface: pygame.Surface, camera: Camera, strokes: Sequence[Stroke] = (),
                   strokes_key: object = None, outline: float | bool = True, idle: bool = False,
                   budget=None) -> None:
        """Blit paper, track and the finished strokes (given in nodes) from the tiled cache.

        ``strokes_key`` names the stroke list (the race uses the number of phases shown);
        when it grows as an integer, only the new strokes are drawn onto the cache.
        ``outline`` is how much of the pencil border is drawn (the intro draws it in).
        ``idle``: nothing is animating, so the paper may use the frame to draw tiles ahead.
        ``budget``: the frame's work in tiles (a ``paper_plan.FrameBudget``; None: the sheet's own).
        """
        u = self.unit
        sheet = self.sheet
        sheet.outline_fraction = float(outline)
        if strokes_key != sheet._strokes_key or len(strokes) != len(sheet.strokes):
            def squares(few):
                return [Stroke(st.car, (st.a[0] / u, st.a[1] / u), (st.b[0] / u, st.b[1] / u),
                               (st.end[0] / u, st.end[1] / u)) for st in few]
            shown = len(sheet.strokes)
            if (isinstance(strokes_key, int) and isinstance(sheet._strokes_key, int)
                    and strokes_key >= sheet._strokes_key and len(strokes) >= shown):
                sheet.add_strokes(squares(strokes[shown:]), strokes_key)  # a race only adds strokes
            else:
                sheet.set_strokes(squares(strokes), strokes_key)
        sheet.blit(surface, camera, budget, idle=idle)

    # -- strokes and cars -------------------------------------------------------
    def stroke_width(self, s: float) -> int:
        return stroke_width(s)

    def draw_strokes(self, surface, to_screen, s: float, strokes: Iterable[Stroke]) -> None:
        """Trail strokes with a dot on every node, like a pen on paper."""
        draw_strokes(surface, to_screen, s, list(strokes), self.pens)

    def highlight_radius(self, s: float) -> float:
        """The halo round a highlighted target: wider than a car, so it shows under one."""
        return self.car_radius(s) + max(3.0, s * 0.1)

    def car_radius(self, s: float) -> float:
        """A car symbol's radius in pixels at ``s`` pixels per square (about 0.85 square across)."""
        return max(6.0, s * 0.42)

    def ring_radius(self, s: float, crowded: bool = False, many: bool = False) -> float:
        """A target ring's radius in pixels: half a square across, a little less on a crowded
        node (see :mod:`game.presentation.crowd`), and smaller in a wide fan of targets."""
        if many:
            return max(3.0, s * 0.16)
        from game.presentation.crowd import CROWDED_RING

        return max(4.0, s * (CROWDED_RING if crowded else 0.3))

    def ring_width(self, s: float) -> int:
        return max(2, round(s / 12))

    def draw_car(self, surface, camera: Camera, car: int, pos: Point, scale_k: float = 1.0,
                 faded: bool = False, shift: Point = (0.0, 0.0), leader: bool = True) -> None:
        """A car's symbol at ``pos`` (nodes), moved by ``shift`` pixels (a fan of cars on one
        node), with a thin ``leader`` line back to the node."""
        pen = self.pens[car]
        r = self.car_radius(camera.scale) * scale_k
        if r < 1:
            return
        x, y = camera.to_screen(pos)
        center = (x + shift[0], y + shift[1])
        if leader and shift != (0.0, 0.0):  # a thin leader back to the node it stands on
            pygame.draw.line(surface, theme.GRAPHITE, (x, y), center, 1)
            pygame.draw.circle(surface, theme.INK, (x, y), max(2.0, camera.scale * 0.07))
        theme.draw_symbol(surface, pen.symbol, center, r, pen.light if faded else pen.color,
                          outline=theme.GRAPHITE_LIGHT if faded else theme.INK)

    def draw_vector(self, surface, camera: Camera, car: int, pos: Point, base: Point) -> None:
        """The car's current vector, faint, from where it stands to its base point."""
        if pos == base:
            return
        pen = self.pens[car]
        a, b = camera.to_screen(pos), camera.to_screen(base)
        arrow(surface, a, b, pen.light, max(1, round(camera.scale / 14)), max(5.0, camera.scale * 0.3))

    def draw_candidates(self, surface, camera: Camera, car: int, pos: Point, candidates: Sequence[Candidate],
                        highlight: Vec | None, doomed: frozenset = frozenset(), show_doomed: bool = True,
                        base: Vec | None = None, shifts: dict | None = None, crowded: bool = False) -> None:
        """The targets where they really are: legal ones as the car's own symbol drawn hollow
        (so two players' rings differ in shape as well as colour), the highlighted one filled
        with its ghost vector, off-road ones with a warning triangle, doomed ones slashed
        (assist), illegal ones crossed out; the base point has a dot in the middle.

        ``shifts`` maps a candidate's key to the pixels its ring is moved by (a node other
        players target too, see :mod:`game.presentation.crowd`); ``crowded`` draws the
        rings a little smaller to make room.
        """
        pen = self.pens[car]
        s = camera.scale
        r = self.ring_radius(s, crowded=crowded, many=len(candidates) > 12)
        width = self.ring_width(s)
        shifts = shifts or {}

        def centre(cand):
            x, y = camera.to_screen(_pt(cand.node))
            dx, dy = shifts.get(cand.key, (0.0, 0.0))
            return (x + dx, y + dy)

        chosen = next((c for c in candidates if c.key == highlight), None)
        if chosen is not None and chosen.legal:
            a, b = camera.to_screen(pos), centre(chosen)
            self._dashed(surface, pen.color, a, b, max(1, round(s / 10)), s * 0.25)
        for cand in candidates:
            c = centre(cand)
            if not cand.legal:
                k = r * 0.75
                pygame.draw.line(surface, theme.ILLEGAL, (c[0] - k, c[1] - k), (c[0] + k, c[1] + k), width + 1)
                pygame.draw.line(surface, theme.ILLEGAL, (c[0] - k, c[1] + k), (c[0] + k, c[1] - k), width + 1)
                continue
            is_doomed = show_doomed and cand.node in doomed
            if cand.key == highlight:
                # a halo wider than a car, so the highlight shows even under a standing car
                pygame.draw.circle(surface, theme.PAPER, c, self.highlight_radius(s) + 1, width + 2)
                pygame.draw.circle(surface, pen.color, c, self.highlight_radius(s), width)
                theme.draw_symbol(surface, pen.symbol, c, r * 1.2, pen.color, outline=theme.INK, width=2)
            else:
                # a paper edge round the pen line keeps the ring readable over a car or a stroke
                theme.draw_symbol(surface, pen.symbol, c, r, theme.PAPER, filled=False, width=width + 2)
                theme.draw_symbol(surface, pen.symbol, c, r, pen.color, filled=False, width=width)
            if (cand.node == base) if base is not None else cand.key == Vec(0, 0):
                pygame.draw.circle(surface, theme.INK, c, max(1.5, r * 0.3))
            if getattr(cand, "bonus", False):  # a slipstream or catch-up target: a plus in the ring
                k = r * 0.55
                pygame.draw.line(surface, pen.color, (c[0] - k, c[1]), (c[0] + k, c[1]), width + 1)
                pygame.draw.line(surface, pen.color, (c[0], c[1] - k), (c[0], c[1] + k), width + 1)
            if cand.offroad:
                t = r * 1.9
                tri = [(c[0], c[1] - t), (c[0] + t * 0.9, c[1] + t * 0.6), (c[0] - t * 0.9, c[1] + t * 0.6)]
                pygame.draw.polygon(surface, theme.WARN, tri, width)
            if is_doomed:
                k = r * 1.6
                pygame.draw.circle(surface, theme.DOOM, c, k, width)
                pygame.draw.line(surface, theme.DOOM, (c[0] - k * 0.7, c[1] + k * 0.7), (c[0] + k * 0.7, c[1] - k * 0.7),
                                 width)

    def draw_rings_round_cars(self, surface, camera: Camera, car: int, candidates: Sequence[Candidate],
                              highlight: Vec | None, cars: Iterable[Point], shifts: dict | None = None) -> None:
        """A target ring a car's symbol covers (``cars``: the cars' centres in pixels), drawn
        again round that car as a circle in the player's colour, clear of every symbol's
        points: cars stay on top of every ring, and a target where a car stands can still be
        seen. (The highlighted target's halo is wider than a car already.)"""
        pen = self.pens[car]
        s = camera.scale
        width = self.ring_width(s)
        cover = self.car_radius(s) * 0.5  # (a ring only partly under a car still shows)
        around = self.car_radius(s) * 1.3 + width + 1  # (a star's points reach 1.25 car radii)
        shifts = shifts or {}
        cars = list(cars)
        for cand in candidates:
            if not cand.legal or cand.key == highlight:
                continue
            x, y = camera.to_screen(_pt(cand.node))
            dx, dy = shifts.get(cand.key, (0.0, 0.0))
            c = (x + dx, y + dy)
            if any((c[0] - cx) ** 2 + (c[1] - cy) ** 2 <= cover * cover for cx, cy in cars):
                pygame.draw.circle(surface, theme.PAPER, c, around + 1, width + 2)
                pygame.draw.circle(surface, pen.color, c, around, width)

    def draw_fine_targets(self, surface, camera: Camera, car: int, pos: Point, candidates: Sequence[Candidate],
                          highlight: Vec | None, base: Vec | None, reach: int) -> None:
        """Fine paper: a faint millimetre grid round the base point, the square the velocity may
        change within, dots on the nodes that may not be picked (grey) or leave the road
        (orange), and the reticle on the highlighted node (crossed out when it may not be picked)."""
        if base is None:
            return
        pen = self.pens[car]
        s = camera.scale
        u = self.unit
        mm = s / u  # pixels per lattice unit
        lo = camera.to_screen((base.x - reach, base.y - reach))
        hi = camera.to_screen((base.x + reach, base.y + reach))
        if mm >= 3:  # the millimetre lines, only where they can be told apart
            extra = u
            a = camera.to_screen((base.x - reach - extra, base.y - reach - extra))
            b = camera.to_screen((base.x + reach + extra, base.y + reach + extra))
            for k in range(-reach - extra, reach + extra + 1):
                if (base.x + k) % u:
                    x = camera.to_screen((base.x + k, 0))[0]
                    pygame.draw.line(surface, theme.GRID_MM, (x, a[1]), (x, b[1]))
                if (base.y + k) % u:
                    y = camera.to_screen((0, base.y + k))[1]
                    pygame.draw.line(surface, theme.GRID_MM, (a[0], y), (b[0], y))
        box = pygame.Rect(round(lo[0]), round(lo[1]), round(hi[0] - lo[0]) + 1, round(hi[1] - lo[1]) + 1)
        pygame.draw.rect(surface, pen.light, box, max(1, round(s / 16)))
        dot = max(1, round(min(mm * 0.35, s * 0.08)))
        chosen = None
        for cand in candidates:
            if cand.key == highlight:
                chosen = cand
            if cand.legal and not cand.offroad:
                continue
            x, y = camera.to_screen(_pt(cand.node))
            color = theme.ILLEGAL if not cand.legal else theme.WARN
            surface.fill(color, (round(x) - dot // 2, round(y) - dot // 2, dot, dot))
        pygame.draw.circle(surface, theme.INK, camera.to_screen(_pt(base)), max(2.0, s * 0.06))
        if chosen is None:
            return
        c = camera.to_screen(_pt(chosen.node))
        r = max(6.0, min(14.0, s * 0.3))
        width = max(1, round(s / 14))
        if chosen.legal:
            a = camera.to_screen(pos)
            self._dashed(surface, pen.color, a, c, max(1, round(s / 10)), s * 0.25)
            pygame.draw.circle(surface, pen.color, c, r, width + 1)
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                pygame.draw.line(surface, pen.color, (c[0] + dx * r * 0.4, c[1] + dy * r * 0.4),
                                 (c[0] + dx * r * 1.5, c[1] + dy * r * 1.5), width + 1)
            pygame.draw.circle(surface, theme.INK, c, max(1.5, mm * 0.3))
            if chosen.offroad:
                t = r * 1.2
                tri = [(c[0], c[1] - r - t), (c[0] + t * 0.9, c[1] - r), (c[0] - t * 0.9, c[1] - r)]
                pygame.draw.polygon(surface, theme.WARN, tri)
        else:
            pygame.draw.circle(surface, theme.ILLEGAL, c, r, width + 1)
            k = r * 0.75
            pygame.draw.line(surface, theme.ILLEGAL, (c[0] - k, c[1] - k), (c[0] + k, c[1] + k), width + 1)
            pygame.draw.line(surface, theme.ILLEGAL, (c[0] - k, c[1] + k), (c[0] + k, c[1] - k), width + 1)

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
        """A collision: a jagged flash, then a ring and spikes flaring out over ``age`` 0..1,
        fading into the paper at the end; a pencil scribble stays on the spot."""
        c = camera.to_screen(point)
        s = camera.scale
        rng = random.Random(seed)
        if age < 1:
            radius = s * (0.45 + 1.1 * age)
            fade = max(0.0, age - 0.45) / 0.55
            color = tuple(int(v + (p - v) * fade) for v, p in zip(theme.DOOM, theme.PAPER))
            if age < 0.4:  # the flash: a filled jagged star, biggest at the moment of impact
                k = s * (0.75 - 0.6 * age)
                pts = [(c[0] + (k if j % 2 == 0 else k * 0.45) * math.cos(math.pi * j / 7 + 0.2),
                        c[1] + (k if j % 2 == 0 else k * 0.45) * math.sin(math.pi * j / 7 + 0.2)) for j in range(14)]
                pygame.draw.polygon(surface, theme.WARN, pts)
                pygame.draw.polygon(surface, theme.DOOM, pts, max(1, round(s / 16)))
            pygame.draw.circle(surface, color, c, radius, max(2, round(s / 9)))
            for k in range(10):
                ang = 2 * math.pi * k / 10 + rng.uniform(-0.2, 0.2)
                r0, r1 = radius * 1.05, radius * (1.45 + rng.uniform(0, 0.4))
                pygame.draw.line(surface, color, (c[0] + r0 * math.cos(ang), c[1] + r0 * math.sin(ang)),
                                 (c[0] + r1 * math.cos(ang), c[1] + r1 * math.sin(ang)), max(2, round(s / 10)))
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

    def draw_restart(self, surface, camera: Camera, crash: Point, restart: Point, fraction: float) -> None:
        """A car put back on the road after a crash: a pencil line drawn from the crash to the
        restart node over ``fraction`` 0..1, with an arrowhead once it arrives."""
        a, b = camera.to_screen(crash), camera.to_screen(restart)
        end = (a[0] + (b[0] - a[0]) * fraction, a[1] + (b[1] - a[1]) * fraction)
        s = camera.scale
        self._dashed(surface, theme.GRAPHITE, a, end, max(2, round(s / 14)), max(4.0, s * 0.18))
        if fraction >= 1.0:
            arrow(surface, a, b, theme.GRAPHITE, 1, max(6.0, s * 0.3))

    def draw_confetti(self, surface, camera: Camera, point: Point, pen: theme.Pen, age: float, seed: int = 0,
                      still: bool = False) -> None:
        """A finish: paper confetti in the car's colour bursting round the flag over ``age`` 0..1
        (``still``: the reduce-motion look, a ring of dots that does not fly)."""
        if age >= 1.0:
            return
        c = camera.to_screen(point)
        s = camera.scale
        rng = random.Random(f"confetti/{seed}")
        spread = s * (2.0 if still else 0.5 + 2.3 * (1 - (1 - age) ** 2))
        fall = 0.0 if still else s * 1.5 * age * age
        size = max(4, round(s * 0.22))
        colours = (pen.color, pen.color, theme.WARN, theme.INK, theme.CHECKPOINT)
        for k in range(40):
            ang = 2 * math.pi * k / 40 + rng.uniform(-0.12, 0.12)
            dist = spread * rng.uniform(0.45, 1.0)
            x, y = c[0] + dist * math.cos(ang), c[1] - s * 0.8 + dist * math.sin(ang) + fall * rng.uniform(0.6, 1.2)
            w, h = (size, size * 2) if k % 2 else (size * 2, size)
            pygame.draw.rect(surface, colours[k % len(colours)], (x - w / 2, y - h / 2, w, h))

    def draw_crash(self, surface, camera: Camera, point: Point) -> None:
        """Where a car left the road: a small jagged star."""
        c = camera.to_screen(point)
        r = max(5.0, camera.scale * 0.3)
        pts = [(c[0] + (r if k % 2 == 0 else r * 0.45) * math.cos(math.pi * k / 5),
                c[1] + (r if k % 2 == 0 else r * 0.45) * math.sin(math.pi * k / 5)) for k in range(10)]
        pygame.draw.polygon(surface, theme.WARN, pts)
        pygame.draw.polygon(surface, theme.INK, pts, 1)

