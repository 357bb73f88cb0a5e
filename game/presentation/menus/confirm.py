"""The one confirm dialog: anything that loses a player's progress asks here first.

Retiring a car, leaving or restarting a race, putting a cup aside, resetting the keys:
the screen that offers it pushes ``ctx.screens.push(stack, "confirm", ctx, question,
on_yes, yes="Yes, retire Ada")``. The dialog sits over that screen (drawn dimmed
underneath), opens on **No**, and neither wraps from No onto Yes nor takes Back, Esc or a
gamepad's Start as a yes: only moving down to the Yes row and confirming there does it.

Over a screen that takes phones and tells them what it asks (the pause menu's
``tell_phones``), the question goes to the phones too, with both rows as buttons: a
phone's answer (``PhoneAnswer``, only to the question its page shows) counts as the row
chosen on the TV; a phone's other taps wait.
"""

from __future__ import annotations

from typing import Callable

import pygame

from game.presentation import theme
from game.presentation.input import DeviceAdded, DeviceRemoved
from game.presentation.menus.common import BACK, START, Item, MenuList, draw_hint, draw_panel, nav
from game.presentation.scene import Scene


class ConfirmScene(Scene):
    """Ask ``question`` (with an optional ``detail`` line); ``on_yes()`` runs only on the Yes row.

    The dialog leaves the stack before ``on_yes`` runs, so the action may go on to any
    screen (pop the pause menu, go back to the title). ``no`` and ``yes`` are the rows' words.
    """

    opaque = False

    def __init__(self, ctx, question: str, on_yes: Callable[[], None], yes: str = "Yes", no: str = "No, go back",
                 detail: str = "") -> None:
        super().__init__()
        self.ctx = ctx
        self.question, self.detail = question, detail
        self.yes, self.no = yes, no
        self.on_yes = on_yes
        self.answered: bool | None = None  # what the player chose (tests and the screen that asked read it)
        self.menu = MenuList([Item(no, self.refuse), Item(yes, self.accept, risky=True)], ctx.audio,
                             wrap=False)

    def refuse(self) -> None:
        self.answered = False
        self.ctx.audio.play("back")
        self.stack.pop()

    def accept(self) -> None:
        self.answered = True
        stack = self.stack
        stack.pop()
        self.on_yes()

    @property
    def takes_phones(self) -> bool:
        """Phones' actions reach this dialog when they would reach the screen it asks over."""
        return bool(getattr(self._below(), "takes_phones", False))

    def _below(self):
        return self.stack.scenes[-2] if self.stack is not None and len(self.stack.scenes) > 1 else None

    def update(self, dt: float) -> None:
        tell = getattr(self._below(), "tell_phones", None)
        if tell is not None:
            from game.phones.view import ask_view

            tell(ask_view(self.question, self.detail, yes=self.yes, no=self.no))

    def handle(self, action) -> None:
        from game.presentation.phones import PhoneAnswer

        if isinstance(action, PhoneAnswer):
            if action.yes:
                self.accept()
            else:
                self.refuse()
            return
        if isinstance(action, (DeviceAdded, DeviceRemoved)):
            # A pad pulled while the question is up is the screen below's business (a race's car
            # waits for a pad): pass it on, and leave the question asked.
            below = self.stack.scenes[-2] if len(self.stack.scenes) > 1 else None
            if below is not None:
                below.handle(action)
            return
        if getattr(action, "source", "").startswith("phone:"):
            return  # a tap or Pause meant for the race: the phone answers with its buttons
        verb = nav(action)
        if verb in (BACK, START):
            self.refuse()
        elif not self.menu.verb(verb):
            self.menu.click(action)

    def draw(self, surface: pygame.Surface) -> None:
        ctx = self.ctx
        w, h = surface.get_size()
        surface.blit(ctx.text.panel((w, h), (240, 238, 228, 190)), (0, 0))
        size = ctx.font(24)
        detail = ctx.font(20)
        question = ctx.text.render(self.question, ctx.font(30), theme.INK, bold=True)
        width = min(w - 2 * size, max(size * 18, question.get_width() + 2 * size))
        height = int(size * 2.2) + (int(detail * 1.6) if self.detail else 0) + int(size * 1.55 * 2) + size
        box = pygame.Rect(0, 0, width, height)
        box.center = (w // 2, h // 2)
        draw_panel(surface, box, ctx)
        pygame.draw.rect(surface, theme.DOOM, box, 2)
        y = box.top + size // 2
        ctx.text.blit(surface, self.question, ctx.font(30), theme.INK, (box.centerx, y), "midtop", bold=True)
        y += int(size * 1.7)
        if self.detail:
            ctx.text.blit(surface, self.detail, detail, theme.HUD_TEXT, (box.centerx, y), "midtop")
            y += int(detail * 1.6)
        self.menu.draw(surface, ctx, pygame.Rect(box.left + size, y, box.width - 2 * size, int(size * 1.55 * 2)))
        hint = ctx.font(22)
        # The screen below has its own hint at the foot: covered, so the two never read as one line.
        surface.blit(ctx.text.panel((w, hint * 2), (*theme.PAPER[:3], 255)), (0, h - hint * 2))
        phones = getattr(self._below(), "has_phones", None)
        draw_hint(surface, ctx, "down, then confirm: yes  ·  back: no" +
                  ("  ·  or answer on a phone" if phones is not None and phones() else ""), size=hint)
