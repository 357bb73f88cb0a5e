"""The replay viewer: a finished race watched again from its phase records.

Confirm (or Space / A) plays and pauses, left/right (arrows, d-pad, 4/6) step one phase,
+/- change the speed, Back or Esc leaves. Drawing is the race view's, so a replay looks
exactly like the race did.

Opened from the debrief with a :class:`BetterLine`, the viewer starts paused on the phase
where the car lost moves and draws the Champion's line from there over the replay (in
graphite, a dot on every node, its length in moves), so the players can step on and see
where the car went instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import pygame

from game.core.race import PhaseRecord, RaceState
from game.core.vec import Vec
from game.presentation import theme
from game.presentation.animation import SPEEDS, PhaseAnimation
from game.presentation.input import Back, ChangeSpeed, Confirm, MoveCursor, Pause, Select, SkipReplay
from game.presentation.race_view import Moment, RaceView
from game.presentation.scene import Scene
from game.presentation.text import TextCache


@dataclass(frozen=True)
class BetterLine:
    """The Champion's line for ``car`` from the state before ``phase``: its nodes, first where the car stood."""

    car: int
    phase: int
    nodes: tuple[Vec, ...]

    @property
    def moves(self) -> int:
        return max(0, len(self.nodes) - 1)


class ReplayViewerScene(Scene):
    """Steps through ``records`` (``states[k]`` is the state before phase ``k + 1``); with ``better``,
    starts paused before that phase and draws the better line over the replay."""

    def __init__(self, states: Sequence[RaceState], records: Sequence[PhaseRecord], names: Sequence[str],
                 size: tuple[int, int], text: TextCache | None = None, seed: int = 0, pens=None,
                 text_scale: float = 1.0, better: BetterLine | None = None) -> None:
        super().__init__()
        if len(states) != len(records) + 1:
            raise ValueError("a replay needs one more state than records")
        self.states, self.records = list(states), list(records)
        self.view = RaceView(states[0], names, size, text, pens=pens, seed=seed, progressive=True,
                             text_scale=text_scale)  # the player's text size, as in the race
        self.index = 0  # the phase being shown is records[index]
        self.playing = True
        self.speed = 1.0
        self.animation: PhaseAnimation | None = PhaseAnimation(self.records[0]) if self.records else None
        self.finish_points: dict[int, tuple[float, float]] = {}
        self.clock = 0.0
        self.better = better
        if better is not None:
            self.step(better.phase - 1 - self.index)  # paused where the moves were lost
        self._aim()
        self.view.camera.snap()

    def resize(self, size) -> None:
        self.view.resize(size)
        self.view.camera.snap()

    def handle(self, action) -> None:
        if isinstance(action, (Back, Pause)):
            self.stack.pop()
        elif isinstance(action, Confirm) or isinstance(action, Select) and (action.dx, action.dy) == (0, 0):
            self.playing = not self.playing
        elif isinstance(action, (MoveCursor, Select)) and action.dx:
            self.step(action.dx)
        elif isinstance(action, ChangeSpeed):
            k = min(range(len(SPEEDS)), key=lambda j: abs(SPEEDS[j] - self.speed))
            self.speed = SPEEDS[max(0, min(len(SPEEDS) - 1, k + action.step))]
        elif isinstance(action, SkipReplay) and self.animation is not None:
            self.animation.finish()

    def step(self, direction: int) -> None:
        """Jump one phase forward or back (paused there, the phase about to play)."""
        self.index = max(0, min(len(self.records), self.index + direction))
        self.animation = PhaseAnimation(self.records[self.index]) if self.index < len(self.records) else None
        self.playing = False
        self._recount_flags()

    def _recount_flags(self) -> None:
        self.finish_points = {e.car: e.point for r in self.records[:self.index] for e in r.events
                              if e.kind == "finish" and e.point is not None}

    def update(self, dt: float) -> None:
        self.clock += dt
        if self.playing and self.animation is not None:
            self.animation.advance(dt * self.speed)
            if self.animation.done:
                self.index += 1
                self._recount_flags()
                self.animation = PhaseAnimation(self.records[self.index]) if self.index < len(self.records) else None
        self._aim()
        self.view.camera.update(dt)

    def _aim(self) -> None:
        self.view.aim(self.states[self.index], self.animation)

    def phase_number(self) -> int:
        """The phase being shown, counted as the race HUD counts: the one about to play or playing
        (phase 1 is the first move), the last one at the end."""
        return min(self.index + 1, len(self.records))

    def draw(self, surface: pygame.Surface) -> None:
        total = len(self.records)
        state = "playing" if self.playing and self.animation is not None else "paused"
        prompt = (f"Replay: phase {self.phase_number()}/{total} {state} x{self.speed:g}  ·  "
                  "Enter: play/pause  ·  left/right: step  ·  +/-: speed  ·  Esc: back")
        self.view.draw(surface, Moment(state=self.states[self.index], records=self.records[:self.index],
                                       animation=self.animation, title="Replay", prompt=prompt,
                                       finish_points=self.finish_points, clock=self.clock))
        if self.better is not None:
            self._draw_better(surface)

    def _draw_better(self, surface: pygame.Surface) -> None:
        """The better line in graphite over the replay, a dot on each node, its moves at its far end."""
        better, cam, view = self.better, self.view.camera, self.view
        if len(better.nodes) < 2:
            return
        pts = [cam.to_screen((float(v.x), float(v.y))) for v in better.nodes]
        width = max(3, round(cam.scale / 6))  # bolder than a trail: it is what to look at
        pygame.draw.lines(surface, theme.GRAPHITE, False, pts, width)
        for pt in pts[1:]:
            pygame.draw.circle(surface, theme.GRAPHITE, pt, width * 1.4)
        # Readable from the sofa (a share of the screen's height, not of the zoom), and
        # beside the last point of the line still in view: its end is often off screen.
        size = max(16, round(surface.get_height() / 40 * view.text_scale))
        words = f"better line: {better.moves} moves from phase {better.phase}"
        shown_pts = [pt for pt in pts if surface.get_rect().collidepoint(pt)] or pts
        x, y = shown_pts[-1]
        image = view.text.render(words, size, theme.INK, True)
        at = image.get_rect(midbottom=(x, y - width * 3)).clamp(surface.get_rect())
        surface.blit(view.text.panel(at.inflate(size // 2, 4).size, theme.HUD_BG), at.inflate(size // 2, 4))
        surface.blit(image, at)
