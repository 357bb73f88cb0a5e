"""The results screen's Debrief tab: where every car lost moves, drawn from ``game.race.debrief``.

Three parts: the track map with every car's line and a mark where moves were lost (a
bigger mark for a bigger loss, a star on the move of the race), a line chart of every
car's remaining moves over the phases in the players' colours, and the move of the race
and each player's costliest mistake in words. Up/down picks a lost move; confirm shows
the better line from there (the Champion's line from the state the car was in), drawn
over the map in ink beside what the car drove in as many moves, in its colour.

The debrief is computed on a worker thread (:class:`~game.presentation.jobs.Job`),
never in the frame loop; the tab shows "..." until it is ready. The map and the chart
are drawn once into cached surfaces; a frame only blits them and the selection.
"""

from __future__ import annotations

import pygame

from game.presentation import theme
from game.presentation.jobs import Job
from game.presentation.menus.common import draw_panel
from game.presentation.trackart import track_loops

#: How many lost moves the tab lists to pick from (the biggest first).
PICKS = 8


class DebriefTab:
    """One race's debrief on the results screen (see the module's docstring).

    ``states``/``records``: the race as race control kept it; ``kinds``: the drivers'
    kinds; ``pens``: each car's pen; ``table_of(state)``: the solver's table for the race
    (the CPUs' shared tables), called on the worker thread.
    """

    def __init__(self, states, records, kinds, pens, table_of) -> None:
        self.states = list(states)
        self.records = list(records)
        self.kinds = list(kinds)
        self.pens = list(pens)
        self.table_of = table_of
        self.job: Job | None = None
        self.selected = 0
        self.show_line = False
        self._cache: dict = {}
        self.map_rect: pygame.Rect | None = None

    # -- the work -----------------------------------------------------------------------
    def start(self) -> None:
        """Start the debrief on a worker thread (once)."""
        if self.job is None:
            self.job = Job(self._work, name="debrief")

    def _work(self):
        from game.drivers.solver import supports
        from game.race.debrief import debrief_race

        first = self.states[0]
        if not supports(first.rules):
            return None
        table = self.table_of(first)
        return debrief_race(table, self.states, self.records, self.kinds)

    @property
    def debrief(self):
        """The debrief once ready (None before, and for rules the solver does not play)."""
        job = self.job
        return job.result if job is not None and job.done and job.error is None else None

    def status(self) -> str:
        """"..." while working, else what stands in for a debrief ("" once there is one)."""
        job = self.job
        if job is None or not job.done:
            return "..."
        if job.error is not None:
            return f"no debrief: {job.error}"
        if job.result is None:
            return "no debrief: the solver does not play these rules (fine paper, pen flick)"
        return ""

    def picks(self) -> list:
        """The lost moves to pick from: (car, PhaseLoss), the biggest first, then the earliest."""
        debrief = self.debrief
        if debrief is None:
            return []
        lossy = [(c.car, p) for c in debrief.cars for p in c.phases if p.loss and p.loss > 0]
        lossy.sort(key=lambda cp: (-cp[1].loss, cp[1].phase, cp[0]))
        return lossy[:PICKS]

    def better_line(self):
        """The picked lost move's better line as the replay viewer draws it (None: nothing picked, no line)."""
        from game.presentation.replay_scene import BetterLine

        picks = self.picks()
        if not picks:
            return None
        car, p = picks[self.selected % len(picks)]
        line = self.debrief.lines.get((car, p.phase))
        if not line or len(line) < 2:
            return None
        return BetterLine(car, p.phase, tuple(line))

    # -- input --------------------------------------------------------------------------
    def verb(self, verb: str) -> bool:
        """A menu verb (``up``, ``down``, ``confirm``): True when the tab used it."""
        picks = self.picks()
        if not picks:
            return False
        if verb in ("up", "down"):
            self.selected = (self.selected + (1 if verb == "down" else -1)) % len(picks)
            return True
        if verb == "confirm":
            self.show_line = not self.show_line
            return True
        return False

    # -- drawing ------------------------------------------------------------------------
    def draw(self, surface: pygame.Surface, ctx, rect: pygame.Rect) -> None:
        """The tab inside ``rect``: the map, the chart and the words (a long thin track's map across the top)."""
        size = ctx.font(20)
        debrief = self.debrief
        if debrief is None:
            draw_panel(surface, rect, ctx)
            ctx.text.blit(surface, self.status() or "...", ctx.font(28), theme.HUD_TEXT, rect.center, "center")
            return
        gap = size
        if self._wide():  # a long thin track: the map across the top, the chart and the words below
            map_rect = pygame.Rect(rect.left, rect.top, rect.width, int(rect.height * 0.46))
            below = pygame.Rect(rect.left, map_rect.bottom + gap // 2, rect.width, rect.bottom - map_rect.bottom - gap // 2)
            chart_rect = pygame.Rect(below.left, below.top, int(below.width * 0.5) - gap // 2, below.height)
            words_rect = pygame.Rect(chart_rect.right + gap, below.top, below.right - chart_rect.right - gap,
                                     below.height)
        else:
            map_rect = pygame.Rect(rect.left, rect.top, int(rect.width * 0.5) - gap // 2, rect.height)
            right = pygame.Rect(map_rect.right + gap, rect.top, rect.right - map_rect.right - gap, rect.height)
            chart_rect = pygame.Rect(right.left, right.top, right.width, int(right.height * 0.5))
            words_rect = pygame.Rect(right.left, chart_rect.bottom + gap // 2, right.width,
                                     right.bottom - chart_rect.bottom - gap // 2)
        self.map_rect = map_rect  # where the map was drawn last (for pointing and tests)
        picks = self.picks()
        self.selected = min(self.selected, max(0, len(picks) - 1))
        chosen = picks[self.selected] if picks else None
        # The map and the chart are the same every frame: drawn once per size.
        surface.blit(self._cached(("map", map_rect.size), lambda: self._draw_map(ctx, map_rect.size)), map_rect)
        surface.blit(self._cached(("chart", chart_rect.size), lambda: self._draw_chart(ctx, chart_rect.size)),
                     chart_rect)
        if chosen is not None:
            self._draw_choice(surface, ctx, map_rect, chart_rect, chosen)
        self._draw_words(surface, ctx, words_rect, picks)

    def _cached(self, key, draw):
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = draw()
        return found

    def _bounds(self) -> tuple[int, int, int, int]:
        """The road's bounding box in grid nodes: (x0, y0, x1, y1)."""
        found = self._cache.get("bounds")
        if found is None:
            import numpy as np

            track = self.states[0].track
            ys, xs = np.nonzero(track.region.road_nodes())
            if len(xs):
                found = (int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max()))
            else:
                found = (0, 0, track.width - 1, track.height - 1)
            self._cache["bounds"] = found
        return found

    def _wide(self) -> bool:
        x0, y0, x1, y1 = self._bounds()
        return (x1 - x0 + 1) > 2.2 * (y1 - y0 + 1)

    def _fit(self, size: tuple[int, int]):
        """World-to-pixel mapping of the track's road into ``size``: (scale, offset x, offset y)."""
        found = self._cache.get(("fit", size))
        if found is not None:
            return found
        x0, y0, x1, y1 = self._bounds()
        w, h = size
        margin = 0.05 * min(w, h)
        scale = min((w - 2 * margin) / (x1 - x0 + 2), (h - 2 * margin) / (y1 - y0 + 2))
        ox = w / 2 - scale * (x0 + x1) / 2
        oy = h / 2 - scale * (y0 + y1) / 2
        found = self._cache[("fit", size)] = (scale, ox, oy)
        return found

    def _to_px(self, size, point) -> tuple[float, float]:
        scale, ox, oy = self._fit(size)
        return ox + point[0] * scale, oy + point[1] * scale

    def _draw_map(self, ctx, size) -> pygame.Surface:
        """The track's outline, every car's line in its colour, and a mark where each lost moves."""
        surf = pygame.Surface(size, pygame.SRCALPHA)
        surf.blit(ctx.text.panel(size, theme.HUD_BG), (0, 0))
        pygame.draw.rect(surf, theme.GRAPHITE_LIGHT, surf.get_rect(), 1)
        track = self.states[0].track
        scale, _, _ = self._fit(size)
        ink = max(2, round(scale * 0.12))
        for loop in track_loops(track):
            if len(loop) > 2:
                pygame.draw.lines(surf, theme.INK, True, [self._to_px(size, p) for p in loop], ink)
        line_w = max(2, round(scale * 0.2))
        for i, pen in enumerate(self.pens):
            points = []
            for state in self.states:
                c = state.cars[i]
                points.append(self._to_px(size, (c.position.x, c.position.y)))
                if not c.racing:
                    break
            if len(points) > 1:
                pygame.draw.lines(surf, pen.light, False, points, line_w)
        debrief = self.debrief
        for c in debrief.cars:
            pen = self.pens[c.car]
            for p in c.phases:
                if p.loss and p.loss > 0:
                    r = max(4.0 + 1.5 * min(p.loss, 5), scale * (0.35 + 0.2 * min(p.loss, 5)))
                    theme.draw_symbol(surf, pen.symbol, self._to_px(size, p.point), r, pen.color)
        best = debrief.move_of_race
        if best is not None:
            theme.draw_symbol(surf, "star", self._to_px(size, best.point), max(12.0, scale * 1.1), theme.WARN)
        return surf

    def _draw_chart(self, ctx, size) -> pygame.Surface:
        """Every car's remaining moves (up the side) over the phases (along the bottom)."""
        surf = pygame.Surface(size, pygame.SRCALPHA)
        surf.blit(ctx.text.panel(size, theme.HUD_BG), (0, 0))
        pygame.draw.rect(surf, theme.GRAPHITE_LIGHT, surf.get_rect(), 1)
        debrief = self.debrief
        small = ctx.font(14)
        plot = self._plot_rect(ctx, size)
        top = max((r for c in debrief.cars for r in c.remaining if r is not None), default=1) or 1
        phases = max(1, debrief.phases)
        pygame.draw.line(surf, theme.HUD_DIM, plot.bottomleft, plot.bottomright, 1)
        pygame.draw.line(surf, theme.HUD_DIM, plot.bottomleft, plot.topleft, 1)
        ctx.text.blit(surf, str(top), small, theme.HUD_DIM, (plot.left - 4, plot.top), "midright")
        ctx.text.blit(surf, "0", small, theme.HUD_DIM, (plot.left - 4, plot.bottom), "midright")
        ctx.text.blit(surf, "moves to go", small, theme.HUD_DIM, (plot.left + 4, 4))
        ctx.text.blit(surf, f"phase {phases}", small, theme.HUD_DIM, (plot.right, plot.bottom + 2), "topright")
        width = max(2, round(size[1] / 120))
        for c in debrief.cars:
            pen = self.pens[c.car]
            # Cars on the same count would hide each other: each is drawn a line's width apart.
            shift = (c.car - (len(debrief.cars) - 1) / 2) * width
            run: list = []
            for k, r in enumerate(c.remaining):
                if r is None:
                    if len(run) > 1:
                        pygame.draw.lines(surf, pen.color, False, run, width)
                    run = []
                    continue
                run.append((plot.left + plot.width * k / phases, plot.bottom - plot.height * r / top + shift))
                if r == 0:
                    break
            if len(run) > 1:
                pygame.draw.lines(surf, pen.color, False, run, width)
        return surf

    @staticmethod
    def _plot_rect(ctx, size) -> pygame.Rect:
        pad = ctx.font(16)
        return pygame.Rect(pad * 2.2, pad * 1.6, size[0] - pad * 3, size[1] - pad * 3.2)

    def _draw_choice(self, surface, ctx, map_rect, chart_rect, chosen) -> None:
        """The picked lost move: a ring on the map, a guide on the chart, and its better line if asked."""
        car, p = chosen
        debrief = self.debrief
        size = map_rect.size
        scale, _, _ = self._fit(size)
        x, y = self._to_px(size, p.point)
        if self.show_line:
            line = debrief.lines.get((car, p.phase))
            if line and len(line) > 1:
                # what the car did from there, as many moves as the better line takes, in its colour
                driven = [self.states[k].cars[car].position
                          for k in range(p.phase - 1, min(len(self.states), p.phase - 1 + len(line)))]
                if len(driven) > 1:
                    pygame.draw.lines(surface, self.pens[car].color, False,
                                      [(map_rect.left + px, map_rect.top + py) for px, py in
                                       (self._to_px(size, (v.x, v.y)) for v in driven)], max(2, round(scale * 0.3)))
                start = self._to_px(size, (p.start.x, p.start.y))
                pts = [(map_rect.left + px, map_rect.top + py) for px, py in
                       [start] + [self._to_px(size, (v.x, v.y)) for v in line[1:]]]
                pygame.draw.lines(surface, theme.INK, False, pts, max(2, round(scale * 0.22)))
                for pt in pts[1:]:
                    pygame.draw.circle(surface, theme.INK, pt, max(2, scale * 0.22))
        pygame.draw.circle(surface, theme.DOOM, (map_rect.left + x, map_rect.top + y), max(8, scale * 1.4),
                           max(2, round(scale * 0.2)))
        plot = self._plot_rect(ctx, chart_rect.size)
        gx = chart_rect.left + plot.left + plot.width * p.phase / max(1, debrief.phases)
        pygame.draw.line(surface, theme.DOOM, (gx, chart_rect.top + plot.top), (gx, chart_rect.top + plot.bottom), 2)

    def _draw_words(self, surface, ctx, rect, picks) -> None:
        """The move of the race, each player's costliest mistake, and the lost move picked."""
        draw_panel(surface, rect, ctx)
        debrief = self.debrief
        size, small = ctx.font(21), ctx.font(18)
        x, y = rect.left + size // 2, rect.top + size // 3
        room = rect.right - size // 2 - x

        def say(words: str, at: int, height: int, color, bold: bool = False) -> None:
            """One line, smaller (to 70 %) and then cut with "..." where the card is too narrow for it
            (text size 1.5 ran the move of the race past the card's edge)."""
            fitted = ctx.text.fit(words, height, room, bold)
            ctx.text.blit(surface, ctx.text.shorten(words, fitted, room, bold), fitted, color,
                          (x, at + (height - fitted) // 2), bold=bold)

        best = debrief.move_of_race
        if best is None:
            say("Move of the race: none (nobody gained on the field)", y, size, theme.HUD_TEXT)
        else:
            gain = f"{best.gain:.1f}".rstrip("0").rstrip(".")
            say(f"Move of the race: {best.name}, phase {best.phase}, +{gain} on the field", y, size,
                self.pens[best.car].color, bold=True)
        y += int(size * 1.4)
        for c in debrief.cars:
            pen = self.pens[c.car]
            over = "" if c.over_par is None else f"{c.over_par:+d} on its par" if c.over_par else "its par"
            worst = c.costliest
            what = "no move lost" if worst is None else f"costliest: phase {worst.phase}, " \
                f"{worst.loss} move{'s' if worst.loss != 1 else ''} ({worst.cause})"
            say(f"{c.name}: {over or c.status}  ·  {what}", y, small, pen.color)
            y += int(small * 1.3)
            if y > rect.bottom - small * 3:
                break
        y += int(small * 0.4)
        if picks and y < rect.bottom - small * 1.5:
            car, p = picks[self.selected]
            line = "  ·  confirm: hide the better line" if self.show_line else "  ·  confirm: show the better line"
            moves = "move" if p.loss == 1 else "moves"
            say(f"{self.selected + 1}/{len(picks)}  {debrief.cars[car].name}, phase {p.phase}: "
                f"{p.loss} {moves} lost ({p.cause})", y, small, theme.DOOM, bold=True)
            y += int(small * 1.3)
            if y < rect.bottom - small:
                say("up/down: another lost move" + line, y, small, theme.HUD_DIM)
