"""The title screen: play, the tutorial, replays, rules, settings, quit. Problems found in the
settings files at start-up are listed here (file, key, line), never raised."""

from __future__ import annotations

import math

import pygame

from game.presentation import theme
from game.presentation.menus.common import BACK, Backdrop, Item, MenuList, draw_hint, nav
from game.presentation.menus.notices import draw_problems
from game.presentation.scene import Scene


#: How often the title looks again for cups in progress (it only updates while it is on top).
RESCAN_SECONDS = 1.0


class TitleScene(Scene):
    """The bottom of the scene stack: everything else returns here."""

    def __init__(self, ctx) -> None:
        super().__init__()
        self.ctx = ctx
        self.backdrop = Backdrop()
        self.clock = 0.0
        self.source = ""  # the device of the last press: a time trial is for whoever chose it
        self.cups: list = []  # cups in progress (game.race.cup.SavedCup), newest first
        self._scanning = None
        self._scanned_at = 0.0
        self.menu = MenuList([
            Item("Race", self.play, help="join with your gamepads or keyboards, pick a track and race"),
            Item("Grand Prix cup", self.cup, help="a cup of tracks: points after every race, a podium at the end"),
            Item("Time trial", self.time_trial, help="alone against the par: gold, silver, bronze, and your ghost"),
            Item("Tutorial", self.tutorial, help="a short first race that teaches the nine targets and braking",
                 value=lambda: "" if ctx.settings.tutorial_done else "start here!"),
            Item("Replays", self.replays, help="watch the races you saved from the results screen"),
            Item("Rules", self.rules, help="presets, every option, and the pen-flick party mode"),
            Item("Settings", self.settings, help="display, sound, assists, replay speed, keys and buttons"),
            Item("Quit", self.quit),
        ], ctx.audio)
        self.resume_row = Item("Resume cup", self.resume_cup, value=self._resume_label,
                               help="carry on with a cup in progress: it was saved after its last race")
        if not ctx.settings.tutorial_done:
            self.menu.index = next(k for k, item in enumerate(self.menu.items) if item.label == "Tutorial")

    def play(self) -> None:
        from game.presentation.menus.lobby import LobbyScene

        self.stack.push(LobbyScene(self.ctx))

    # -- cups ---------------------------------------------------------------------
    def enter(self, stack) -> None:
        super().enter(stack)
        self._scan()

    def _scan(self) -> None:
        """Look for cups in progress on a background job (their files are read, never the tracks)."""
        from game.presentation.jobs import Job
        from game.race.cup import unfinished_cups

        folder = self.ctx.cups_dir
        self._scanned_at = self.clock
        self._scanning = Job(lambda: unfinished_cups(folder), name="cup-scan")

    def _resume_label(self) -> str:
        if not self.cups:
            return "..." if self._scanning is not None else "none"
        cup = self.cups[0].cup
        more = f" (+{len(self.cups) - 1})" if len(self.cups) > 1 else ""
        return f"{cup.name}, race {cup.next_index + 1} of {len(cup.races)}{more}"

    def resume_cup(self) -> None:
        from game.presentation.menus.cup import ResumeCupScene

        self.stack.push(ResumeCupScene(self.ctx, self.cups))

    def cup(self) -> None:
        from game.presentation.menus.cup import CupLobbyScene

        self.stack.push(CupLobbyScene(self.ctx))

    def time_trial(self) -> None:
        from game.presentation.menus.trial import start_time_trial

        self.stack.push(start_time_trial(self.ctx, self.source))

    def tutorial(self) -> None:
        from game.presentation.menus.tutorial import start_tutorial

        self.stack.push(start_tutorial(self.ctx))

    def replays(self) -> None:
        from game.presentation.menus.replays import ReplaysScene

        self.stack.push(ReplaysScene(self.ctx))

    def rules(self) -> None:
        from game.presentation.menus.rules_menu import RulesScene

        self.stack.push(RulesScene(self.ctx))

    def settings(self) -> None:
        from game.presentation.menus.settings_menu import SettingsScene

        self.stack.push(SettingsScene(self.ctx))

    def quit(self) -> None:
        self.stack.quit()

    def handle(self, action) -> None:
        self.source = getattr(action, "source", "") or self.source
        verb = nav(action)
        if verb == BACK:
            self.menu.index = len(self.menu.items) - 1
            self.ctx.audio.play("tick")
        elif not self.menu.verb(verb):
            self.menu.click(action)

    def update(self, dt: float) -> None:
        self.clock += dt
        if self._scanning is None and self.clock - self._scanned_at > RESCAN_SECONDS:
            self._scan()  # back from a cup or a race, a cup may have been saved or finished
        job = self._scanning
        if job is not None and job.done:
            self._scanning = None
            self.cups = job.result if job.error is None else []
            self._show_resume(bool(self.cups))

    def _show_resume(self, show: bool) -> None:
        """The *Resume cup* row heads the menu while a cup is in progress (and is highlighted when it appears)."""
        items = self.menu.items
        if show and self.resume_row not in items:
            items.insert(0, self.resume_row)
            self.menu.index = 0
        elif not show and self.resume_row in items:
            items.remove(self.resume_row)
            self.menu.index = max(0, self.menu.index - 1)

    def draw(self, surface: pygame.Surface) -> None:
        ctx = self.ctx
        top = self.backdrop.draw(surface, ctx, "RACETRACK", "the graph-paper racing game for the couch")
        w, h = surface.get_size()
        self._draw_race_line(surface, top)
        size = ctx.font(24)
        rect = pygame.Rect(0, 0, size * 16, size * 1.55 * len(self.menu.items))
        rect.midtop = (w // 2, int(top + h * 0.26))
        self.menu.draw(surface, ctx, rect, label_w=0.55)
        y = rect.bottom + size
        note = ctx.cpu_note()  # the first start after an install: the CPUs' search is being compiled
        if note:
            r = ctx.text.blit(surface, note[0].upper() + note[1:], ctx.font(16), theme.HUD_DIM, (w // 2, y), "midtop")
            y = r.bottom + 6
        draw_problems(surface, ctx, y)
        draw_hint(surface, ctx, self.menu.current.help_text() or "up/down: choose  ·  confirm: A / Enter / Space")

    def _draw_race_line(self, surface: pygame.Surface, top: int) -> None:
        """Three pencil trails of vectors sweeping across the sheet, each car with its symbol."""
        w, h = surface.get_size()
        pens = theme.pens(3)
        step = max(14, h // 36)
        for k, pen in enumerate(pens):
            pts = []
            for i in range(9):
                t = i / 8
                x = w * (0.1 + 0.8 * t)
                y = h * 0.74 + k * step * 1.6 + math.sin(t * 3.1 + k * 0.6) * h * 0.06
                pts.append((round(x / step) * step, round(y / step) * step))
            shown = min(len(pts), 2 + int((self.clock * 2 + k) % 12))
            if shown > 1:
                pygame.draw.lines(surface, pen.color, False, pts[:shown], 2)
            for p in pts[:shown]:
                pygame.draw.circle(surface, pen.color, p, 3)
            theme.draw_symbol(surface, pen.symbol, pts[shown - 1], step * 0.45, pen.color)
