"""The ghost of a time trial: the best run kept, replayed as a faint pencil trail in step with the phases.

A separate layer of the race screen, drawn after the race view (over the paper, under
nothing the race view draws later): while the player's phase *k* plays, the ghost's
phase *k* plays with the same eased travel, so the two pens move together; between
phases the ghost waits where its phase ended. It only reads the kept run's phase records
(as the referee gives them back from the replay file).
"""

from __future__ import annotations

import math
from typing import Sequence

import pygame

from game.core.race import PhaseRecord
from game.presentation import theme
from game.presentation.animation import PhaseAnimation
from game.presentation.board import Stroke, move_stroke
from game.presentation.hud import font_size, hud_size, small_size

Point = tuple[float, float]
#: The ghost's pencil: lighter than any car, darker than the paper's grid.
GHOST = (128, 128, 142)


def _pt(v) -> Point:
    return (float(v.x), float(v.y))


class Ghost:
    """A kept run of one car (its phase records) and where its pen is at any moment of the race."""

    def __init__(self, records: Sequence[PhaseRecord], name: str = "", moves: int = 0, symbol: str = "circle") -> None:
        self.records = list(records)
        self.name = name
        self.moves = moves
        self.symbol = symbol
        self._strokes: list[list[Stroke]] = []
        done: list[Stroke] = []
        self._strokes.append([])
        for record in self.records:
            for move in record.moves:
                stroke = move_stroke(move)
                if stroke is not None:
                    done = done + [stroke]
            self._strokes.append(done)
        self._start = _pt(self.records[0].moves[0].start) if self.records and self.records[0].moves else None

    @property
    def phases(self) -> int:
        return len(self.records)

    def strokes(self, phases: int) -> list[Stroke]:
        """The ghost's strokes of its first ``phases`` phases."""
        return self._strokes[max(0, min(phases, len(self._strokes) - 1))]

    def position(self, phases: int) -> Point | None:
        """Where the ghost stands after ``phases`` phases (at its finish once its run is over)."""
        if not self.records:
            return None
        if phases <= 0:
            return self._start
        record = self.records[min(phases, len(self.records)) - 1]
        return _pt(record.moves[0].end)

    def frame(self, phases: int, animation: PhaseAnimation | None) -> tuple[list[Stroke], Point | None]:
        """The finished strokes and the ghost's pen point while phase ``phases + 1`` animates (or stands)."""
        if animation is None or phases >= len(self.records):
            return self.strokes(phases), self.position(phases)
        own = PhaseAnimation(self.records[phases], animation.move_seconds)
        own.elapsed = min(own.length, animation.elapsed)
        live = own.live_strokes()
        frames = own.frames()
        point = frames[0].point if frames else self.position(phases)
        return self.strokes(phases) + live, point


def draw_ghost(surface: pygame.Surface, view, ghost: Ghost, phases: int, animation: PhaseAnimation | None,
               cars: int) -> None:
    """Draw the ghost's trail and pen for the race view's camera (kept clear of the HUD strip)."""
    strokes, point = ghost.frame(phases, animation)
    cam = view.camera
    clip = surface.get_clip()
    scale = getattr(view, "text_scale", 1.0)
    top = hud_size(surface.get_size(), cars, scale)[1]
    surface.set_clip(pygame.Rect(0, top, surface.get_width(), surface.get_height() - top))
    width = max(2, round(cam.scale / 11))
    dash = max(5.0, cam.scale * 0.3)
    for stroke in strokes:
        a, b = cam.to_screen(stroke.a), cam.to_screen(stroke.b)
        _dashed(surface, GHOST, a, b, width, dash)
        pygame.draw.circle(surface, GHOST, b, max(1.5, width * 1.2))
    if point is not None:
        r = view.board.car_radius(cam.scale) * 1.05
        c = cam.to_screen(point)
        theme.draw_symbol(surface, ghost.symbol, c, r, GHOST, filled=False, width=max(2, width + 1))
        if ghost.name:
            size = small_size(font_size(surface.get_size(), scale))  # the HUD's figures' size: read from the sofa
            view.text.blit(surface, ghost.name, size, GHOST, (c[0] + r * 1.2, c[1] - r * 1.2), "bottomleft", bold=True)
    surface.set_clip(clip)


def _dashed(surface, colour, a, b, width: int, dash: float) -> None:
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    if length < 1:
        return
    n = max(1, int(length / dash))
    for k in range(0, n, 2):
        t0, t1 = k / n, min(1.0, (k + 1) / n)
        pygame.draw.line(surface, colour, (a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0),
                         (a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1), width)
