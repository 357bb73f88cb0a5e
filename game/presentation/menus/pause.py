"""The pause menu over a race: resume, restart, retire a car, the controls, or quit to the main menu.

It also stands in for a pulled gamepad: while a car has no pad, the menu says so and
any free gamepad that presses a button takes that car back (and the race resumes once
no car is waiting).
"""

from __future__ import annotations

import pygame

from game.presentation import theme
from game.presentation.input import Action
from game.presentation.menus.common import BACK, OK, START, Item, MenuList, draw_hint, draw_panel, nav, wrap_to
from game.presentation.scene import Scene
from game.presentation.terrain_legend import TerrainLegend, legend_entries


class PauseMenuScene(Scene):
    """An overlay: the race stays drawn underneath, dimmed."""

    opaque = False
    takes_phones = True  # a phone that comes back takes its car again; a phone's Pause resumes
    # (and a confirm dialog over this menu takes the phones' answers: ``ConfirmScene``)

    def __init__(self, ctx, race) -> None:
        super().__init__()
        self.ctx = ctx
        self.race = race
        self.retire_car = self._first_retirable()
        self.message = ""
        state = race.controller.state
        # the terrain of this track and what it does under these rules, under the menu
        self.legend = TerrainLegend(legend_entries(state.track, state.rules), offroad=not state.rules.terrain_effects)
        self.menu = MenuList([
            Item("Resume", self.resume),
            Item("Restart the race", self.ask_restart, risky=True, help="everyone back on the grid (asks first)"),
            Item("Retire a car", self.ask_retire, value=self._retire_label, change=self._cycle_retire,
                 enabled=lambda: self.retire_car is not None, risky=True,
                 help="left/right: which car  ·  confirm: it leaves the race at the next phase (asks first)"),
            Item("Controls", self.controls, help="every player's keys and buttons, and the rules of this race"),
            Item("Quit to the main menu", self.ask_quit, risky=True, help="leave this race (asks first)"),
        ], ctx.audio)

    def _racing(self) -> list[int]:
        return [i for i, c in enumerate(self.race.controller.state.cars) if c.racing]

    def _first_retirable(self) -> int | None:
        racing = self._racing()
        return racing[0] if racing else None

    def _retire_label(self) -> str:
        if self.retire_car is None:
            return "-"
        return self.race.controller.seats[self.retire_car].name

    def _cycle_retire(self, step: int) -> None:
        racing = self._racing()
        if not racing:
            self.retire_car = None
            return
        k = racing.index(self.retire_car) if self.retire_car in racing else -1
        self.retire_car = racing[(k + step) % len(racing)]

    # -- verbs ---------------------------------------------------------------
    def resume(self) -> None:
        if self.race.seats.orphans:
            self.message = "A car still waits for a gamepad: press A on a free pad (or retire the car)."
            return
        self.stack.pop()

    def _ask(self, question: str, yes: str, on_yes, detail: str = "") -> None:
        """The confirm dialog over this menu: ``on_yes`` only after the player moves to Yes and confirms."""
        self.ctx.screens.push(self.stack, "confirm", self.ctx, question, on_yes, yes=yes, detail=detail)

    def ask_restart(self) -> None:
        self._ask("Restart the race?", "Yes, restart", self.restart, "every car goes back to the grid")

    def ask_retire(self) -> None:
        if self.retire_car is None:
            return
        name = self._retire_label()
        self._ask(f"Retire {name}?", f"Yes, retire {name}", self.retire, f"{name} leaves this race for good")

    def ask_quit(self) -> None:
        self._ask("Leave the race?", "Yes, leave it", self.quit, self._quit_detail())

    def _quit_detail(self) -> str:
        """What leaving loses, in words: a cup keeps its standings up to the last finished race."""
        if self.ctx.screens.is_screen(self.race, "cup-race"):
            return "the cup stays saved from its last finished race; this race is lost"
        return "this race is lost"

    def restart(self) -> None:
        self.stack.pop()
        self.stack.replace(self.race.restart_scene())

    def retire(self) -> None:
        car = self.retire_car
        if car is None:
            return
        ctl = self.race.controller
        if car in ctl.must_choose():
            ctl.retire(car)
            self.message = f"{ctl.seats[car].name} retires at the next phase."
        else:
            self.message = f"{ctl.seats[car].name} misses this turn: retire again next phase."
            return
        if car in self.race.seats.orphans:
            self.race.seats.orphans.remove(car)
        self.stack.pop()

    def controls(self) -> None:
        self.ctx.screens.push(self.stack, "controls", self.ctx, self.race)

    def quit(self) -> None:
        self.tell_phones(self._question("The race was left", "Look at the TV for what comes next."))
        self.ctx.screens.pop_to(self.stack, "title")

    # -- the phones ------------------------------------------------------------
    @staticmethod
    def _question(question: str, detail: str = "", yes: str = "", no: str = "") -> dict:
        from game.phones.view import ask_view

        return ask_view(question, detail, yes, no)

    def tell_phones(self, question: dict) -> None:
        """Put ``question`` on every phone seat of the race (each phone is sent it once): the
        paused race, or the confirm dialog over this menu, which the phones answer too."""
        link = self.ctx.phones
        if link is None or not link.on:
            return
        for device, _car in self.race.router.phone_seats():
            link.prompt(device, question)

    def has_phones(self) -> bool:
        """Whether phone seats are told what this menu (or its dialog) asks: the dialog's hint says so."""
        link = self.ctx.phones
        return link is not None and link.on and bool(self.race.router.phone_seats())

    def update(self, dt: float) -> None:
        """The phones show the race paused, with what the menu says and a button that resumes."""
        warn = self.race.orphan_message() or self.message
        self.tell_phones(self._question("Paused", warn or "The race waits: resume here or on the TV.",
                                        no="Resume"))

    def handle(self, action: Action) -> None:
        source = getattr(action, "source", "")
        if source.startswith("phone:") and self._phone(action):
            return
        if self.race.seats.orphans and source.startswith("pad:") and source not in self.race.seats.devices \
                and nav(action) in (OK, START):
            car = self.race.seats.claim(source)
            if car is not None:
                self.ctx.audio.play("join")
                self.message = f"{self.race.controller.seats[car].name} is back on a gamepad."
                if not self.race.seats.orphans:
                    self.stack.pop()
                return
        from game.presentation.input import DeviceRemoved

        if isinstance(action, DeviceRemoved):
            self.race.seats.unplugged(action.source)
            return
        verb = nav(action)
        if verb == START or (verb == BACK and not self.race.seats.orphans):
            self.resume()
            return
        if not self.menu.verb(verb):
            self.menu.click(action)

    def _phone(self, action: Action) -> bool:
        """A phone's action: its return, its Pause (resume) and its leaving count; its taps wait."""
        from game.presentation.input import DeviceAdded, DeviceRemoved, Pause

        if isinstance(action, DeviceAdded):
            car = self.race.seats.back(action.source)
            if car is not None:
                self.ctx.audio.play("join")
                self.message = f"{self.race.controller.seats[car].name} is back on the phone."
                if not self.race.seats.orphans and self.stack.top is self:  # a dialog over the menu stays asked
                    self.stack.pop()
            return True
        if isinstance(action, Pause):
            self.resume()
            return True
        return not isinstance(action, DeviceRemoved)

    def _place_legend(self, surface: pygame.Surface, box: pygame.Rect, size: int) -> None:
        """Draw the terrain legend beside the pause panel (moved left for it) when the window
        is wide enough, else below it; its text shrinks until the card fits above the hint
        band, so a large text size never pushes the heading or a kind off the screen."""
        ctx = self.ctx
        w, h = surface.get_size()
        margin, gap = size // 2, size // 2
        room_h = h - 2 * margin - size * 2  # the hint band at the bottom
        legend_size = ctx.font(20)
        for narrow in (min(box.width, size * 20), min(box.width, size * 14)):  # a narrower panel if need be
            side_w = min(w - narrow - gap - 2 * margin, legend_size * 36)
            if side_w >= min(legend_size, 14) * 16:  # beside
                legend_size = min(legend_size, side_w // 16)
                while self.legend.height(legend_size) > room_h and legend_size > 12:
                    legend_size -= 1
                legend_h = self.legend.height(legend_size)
                box.width = narrow
                box.left = (w - narrow - gap - side_w) // 2
                box.centery = margin + room_h // 2
                card = pygame.Rect(box.right + gap, margin + (room_h - legend_h) // 2, side_w, legend_h)
                break
        else:  # below
            while box.height + gap + self.legend.height(legend_size) > room_h and legend_size > 12:
                legend_size -= 1
            legend_h = self.legend.height(legend_size)
            box.top = max(margin, margin + (room_h - box.height - gap - legend_h) // 2)
            card = pygame.Rect(box.left, box.bottom + gap, box.width, legend_h)
        self.legend.draw(surface, ctx, card, legend_size)

    def draw(self, surface: pygame.Surface) -> None:
        ctx = self.ctx
        surface.blit(ctx.text.panel(surface.get_size(), (240, 238, 228, 170)), (0, 0))
        w, h = surface.get_size()
        size = ctx.font(24)
        warn = self.race.orphan_message() or self.message
        small = ctx.font(22)
        # The warning (a pulled pad names its player) wraps inside the panel, at its narrowest width.
        narrowest = min(w - 40, size * 14 if self.legend else size * 26) - 2 * size
        lines = wrap_to(ctx.text, warn, small, narrowest) if warn else []
        extra = max(0, len(lines) - 1) * int(small * 1.25)
        box = pygame.Rect(0, 0, min(w - 40, size * 26), size * 14 + extra)
        box.center = (w // 2, h // 2)
        if self.legend:
            self._place_legend(surface, box, size)
        draw_panel(surface, box, ctx)
        ctx.text.blit(surface, "Paused", ctx.font(40), theme.INK, (box.centerx, box.top + size // 2), "midtop",
                      bold=True)
        lines = wrap_to(ctx.text, warn, small, box.width - 2 * size) if warn else []
        for k, line in enumerate(lines):
            ctx.text.blit(surface, line, small, theme.DOOM if self.race.seats.orphans else theme.HUD_TEXT,
                          (box.centerx, box.top + size * 2.6 + k * int(small * 1.25)), "midtop")
        self.menu.draw(surface, ctx, pygame.Rect(box.left + size, box.top + size * 4 + extra, box.width - 2 * size,
                                                  size * 9), label_w=0.55)
        hint = ctx.font(22)
        # The race's own prompt is at the foot, under the veil: covered (as the confirm dialog covers the
        # screen it asks over), so it never shows through the menu's hint as one jumbled line.
        surface.blit(ctx.text.panel((w, hint * 2), (*theme.PAPER[:3], 255)), (0, h - hint * 2))
        draw_hint(surface, ctx, self.menu.current.help_text() or
                  "up/down: choose  ·  confirm: A / Enter  ·  Start / Esc: resume", size=hint)
