"""The pause overlay: the race stays drawn underneath, dimmed, and waits.

Pause or Confirm resumes; Back leaves the race (pops the pause and the scene below).
An optional message says why the game paused (e.g. a gamepad was unplugged).
"""

from __future__ import annotations

import pygame

from game.presentation import theme
from game.presentation.hud import font_size
from game.presentation.input import Back, Confirm, Pause, SkipReplay
from game.presentation.scene import Scene
from game.presentation.text import TextCache


class PauseScene(Scene):
    opaque = False

    def __init__(self, text: TextCache, message: str = "") -> None:
        super().__init__()
        self.text = text
        self.message = message

    def handle(self, action) -> None:
        if isinstance(action, (Pause, Confirm, SkipReplay)):
            self.stack.pop()
        elif isinstance(action, Back):
            self.stack.pop()
            self.stack.pop()

    def draw(self, surface: pygame.Surface) -> None:
        surface.blit(self.text.panel(surface.get_size(), (240, 238, 228, 170)), (0, 0))
        size = font_size(surface.get_size())
        cx, cy = surface.get_width() // 2, surface.get_height() // 2
        self.text.blit(surface, "Paused", size * 3, theme.HUD_TEXT, (cx, cy - size * 2), "midbottom", bold=True)
        if self.message:
            self.text.blit(surface, self.message, size, theme.DOOM, (cx, cy - size), "midbottom")
        self.text.blit(surface, "Esc / Enter / Start: resume   ·   Backspace / B: leave the race", size,
                       theme.HUD_TEXT, (cx, cy + size), "midtop")
