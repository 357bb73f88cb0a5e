"""The code keypad: type a six-character track code with a pad's d-pad or the keyboard's arrows.

The keys are the code alphabet (no look-alikes) laid out in rows, then "del" and "ok".
Move with up/down/left/right, press Confirm to type the highlighted key; Back deletes the
last character (on an empty code it leaves). "ok" (or Start) reads the code: a mistyped one is
refused with its reason on screen (which character, or which version it needs), a good
one goes back to track select through ``on_code`` and its track starts being made.
"""

from __future__ import annotations

import pygame

from game.presentation import theme
from game.presentation.menus.common import BACK, DOWN, LEFT, OK, RIGHT, START, UP, Backdrop, draw_hint, draw_panel, nav
from game.presentation.scene import Scene
from game.tracks.generator import ALPHABET, CODE_LENGTH, NEWEST, CodeError, parse_code

COLUMNS = 8
DELETE, DONE = "del", "ok"


def keys() -> list[str]:
    """The keypad's keys in reading order: the alphabet, then delete ("del") and done ("ok")."""
    return list(ALPHABET) + [DELETE, DONE]


class CodeKeypadScene(Scene):
    """Type a track code; ``on_code(code)`` hears a good one, then the keypad closes."""

    def __init__(self, ctx, on_code) -> None:
        super().__init__()
        self.ctx = ctx
        self.on_code = on_code
        self.keys = keys()
        self.index = 0
        self.code = ""
        self.message = ""
        self.backdrop = Backdrop()

    def handle(self, action) -> None:
        verb = nav(action)
        rows = (len(self.keys) + COLUMNS - 1) // COLUMNS
        row, col = divmod(self.index, COLUMNS)
        if verb in (LEFT, RIGHT):
            col = (col + (1 if verb == RIGHT else -1)) % COLUMNS
        elif verb in (UP, DOWN):
            row = (row + (1 if verb == DOWN else -1)) % rows
        elif verb == OK:
            self.press(self.keys[self.index])
            return
        elif verb == START:
            self.press(DONE)
            return
        elif verb == BACK:
            if self.code:
                self.code = self.code[:-1]
                self.message = ""
                self.ctx.audio.play("back")
            else:
                self.ctx.audio.play("back")
                self.stack.pop()
            return
        else:
            return
        self.index = min(row * COLUMNS + col, len(self.keys) - 1)
        self.ctx.audio.play("tick")

    def press(self, key: str) -> None:
        """Type one key (a character, delete or done)."""
        if key == DELETE:
            self.code = self.code[:-1]
            self.message = ""
        elif key == DONE:
            try:
                spec = parse_code(self.code, newest=NEWEST)
            except CodeError as error:
                self.message = str(error)
                self.ctx.audio.play("back")
                return
            self.ctx.audio.play("confirm")
            self.stack.pop()
            self.on_code(spec.code)
            return
        elif len(self.code) < CODE_LENGTH:
            self.code += key
            self.message = ""
            if len(self.code) == CODE_LENGTH:
                self.index = self.keys.index(DONE)  # one more press reads it
        self.ctx.audio.play("tick")

    def draw(self, surface: pygame.Surface) -> None:
        ctx = self.ctx
        top = self.backdrop.draw(surface, ctx, "Enter a track code", "six characters, as a friend read them out")
        w, h = surface.get_size()
        size = ctx.font(26)
        rows = (len(self.keys) + COLUMNS - 1) // COLUMNS
        panel = pygame.Rect(w // 2 - size * 10, top, size * 20, min(h - top - size * 3, int(size * (4 + rows * 1.8))))
        draw_panel(surface, panel, ctx)
        shown = " ".join(self.code.ljust(CODE_LENGTH, "_"))
        ctx.text.blit(surface, shown, ctx.font(40), theme.INK, (panel.centerx, panel.top + size * 1.4), "center",
                      bold=True)
        cell = (panel.width - size * 2) // COLUMNS
        for k, key in enumerate(self.keys):
            row, col = divmod(k, COLUMNS)
            rect = pygame.Rect(panel.left + size + col * cell, panel.top + size * 3 + row * int(size * 1.8),
                               cell - 6, int(size * 1.5))
            on = k == self.index
            if on:
                surface.blit(ctx.text.panel(rect.size, (*theme.pens(1)[0].light, 160)), rect.topleft)
            pygame.draw.rect(surface, theme.GRAPHITE_LIGHT, rect, 1)
            ctx.text.blit(surface, key, size if len(key) == 1 else ctx.font(18), theme.INK, rect.center, "center",
                          bold=on)
        draw_hint(surface, ctx, self.message or "arrows / d-pad: key  ·  confirm: type it  ·  back: delete  ·  "
                  "start: done", theme.DOOM if self.message else theme.HUD_TEXT)
