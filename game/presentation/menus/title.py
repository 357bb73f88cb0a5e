"""The title screen: play (by day or at night), the tutorial, replays, rules, settings, quit. Problems found in the
settings files at start-up are listed here (file, key, line), never raised.

The join keys on the how-to card join: S (keyboard 1) or K (keyboard 2) opens the lobby
with that player seated (the cup's lobby when *Grand Prix cup* is highlighted), as does a
gamepad's Start; *Race* and *Grand Prix cup* seat whoever chose them.
"""

from __future__ import annotations

import math

import pygame

from game.presentation import theme
from game.presentation.input import Select
from game.presentation.menus.common import (BACK, START, Backdrop, Item, MenuList, device_of, draw_hint, draw_panel,
                                            nav, wrap_to, wrap_words)
from game.presentation.menus.notices import draw_problems, problems_height
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
        self.cards: tuple[pygame.Rect, ...] = ()  # the menu and the how-to card, as last drawn
        self._layer = None  # (key, the composed sheet and cards, the cards, the how-to card's bottom)
        from game.presentation.menus.keys import effective_bindings, target_grid

        self._bindings_help = (target_grid, effective_bindings)  # imported now, not in the first frame
        self.menu = MenuList([
            Item("Race", self.play, help="join with your gamepads or keyboards, pick a track and race"),
            Item("Night", value=self._night_label, change=lambda step: self.toggle_night(),
                 help="left/right: race in the dark, where only what headlights light is seen "
                      "(your own targets always show)"),
            Item("Grand Prix cup", self.cup, help="a cup of tracks: points after every race, a podium at the end"),
            Item("Time trial", self.time_trial, help="alone against the par: gold, silver, bronze, and your ghost"),
            Item("Tutorial", self.tutorial, help="a short first race that teaches the nine targets and braking",
                 value=lambda: "" if ctx.settings.tutorial_done else "start here!"),
            Item("Replays", self.replays, help="watch the races you saved from the results screen"),
            Item("Rules", self.rules, help="presets, every option, and the pen-flick party mode"),
            Item("Settings", self.settings, help="display, sound, assists, replay speed, keys and buttons"),
            Item("Quit", self.quit),
        ], ctx.audio)
        self.resume_row = Item("Resume cup", self.resume_cup, value=self._resume_label, brief=self._resume_brief,
                               help="carry on with a cup in progress: it was saved after its last race")
        if not ctx.settings.tutorial_done:
            self.menu.index = next(k for k, item in enumerate(self.menu.items) if item.label == "Tutorial")

    def play(self) -> None:
        self.ctx.screens.push(self.stack, "lobby", self.ctx, joined=device_of(self.source or "keys"))

    # -- the night toggle of the quick race ------------------------------------------------
    def _night_label(self) -> str:
        return "on" if self.ctx.settings.rules().night else "off"

    def toggle_night(self) -> None:
        """Switch the saved rules' ``sight`` between day and night (the next race's rules, kept)."""
        rules = self.ctx.settings.rules()
        self.ctx.settings = self.ctx.settings.with_rules(rules.with_options(sight="day" if rules.night else "night"))
        self.ctx.save_settings()

    # -- cups ---------------------------------------------------------------------
    def enter(self, stack) -> None:
        super().enter(stack)
        self._scan()

    def _scan(self) -> None:
        """Look for cups in progress on a background job (their files are read, never the tracks)."""
        from game.presentation.jobs import Job
        from game.race.cup import cups_to_resume

        folder = self.ctx.cups_dir
        self._scanned_at = self.clock
        self._scanning = Job(lambda: cups_to_resume(folder), name="cup-scan")

    def _resume_label(self) -> str:
        if not self.cups:
            return "..." if self._scanning is not None else "none"
        cup = self.cups[0].cup
        more = f" (+{len(self.cups) - 1})" if len(self.cups) > 1 else ""
        if cup is None:
            return f"a saved cup that cannot be read{more}"
        return f"{cup.name}, race {cup.next_index + 1} of {len(cup.races)}{more}"

    def _resume_brief(self) -> str:
        """The resume row's value where the cup's name leaves no room (large text): "race 3 of 3"."""
        if not self.cups:
            return self._resume_label()
        cup = self.cups[0].cup
        more = f" (+{len(self.cups) - 1})" if len(self.cups) > 1 else ""
        return f"race {cup.next_index + 1} of {len(cup.races)}{more}"

    def resume_cup(self) -> None:
        self.ctx.screens.push(self.stack, "cup-resume", self.ctx, self.cups)

    def cup(self) -> None:
        self.ctx.screens.push(self.stack, "cup-lobby", self.ctx, joined=device_of(self.source or "keys"))

    def time_trial(self) -> None:
        self.ctx.screens.push(self.stack, "trial", self.ctx, self.source)

    def tutorial(self) -> None:
        self.ctx.screens.push(self.stack, "tutorial", self.ctx)

    def replays(self) -> None:
        self.ctx.screens.push(self.stack, "replays", self.ctx)

    def rules(self) -> None:
        self.ctx.screens.push(self.stack, "rules", self.ctx)

    def settings(self) -> None:
        self.ctx.screens.push(self.stack, "settings", self.ctx)

    def quit(self) -> None:
        self.stack.quit()

    def joins(self, action) -> bool:
        """Whether ``action`` is a join key of the how-to card: a keyboard block's middle key (S, K) or a
        gamepad's Start. They seat their player in a lobby, whatever row is highlighted."""
        if isinstance(action, Select) and action.confirm and action.source in ("kb1", "kb2") \
                and not (action.dx or action.dy):
            return True
        return nav(action) == START

    def handle(self, action) -> None:
        self.source = getattr(action, "source", "") or self.source
        verb = nav(action)
        if self.joins(action):
            self.ctx.audio.play("join")
            self.cup() if self.menu.current.confirm == self.cup else self.play()
        elif verb == BACK:
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
        """A sheet for the TV: the menu on the left, how to play and how to join on the right,
        three pencil races across the foot of the page."""
        ctx = self.ctx
        w, h = surface.get_size()
        size = ctx.font(24)
        # The sheet, the heading and both cards with the how-to text only change with the window, the
        # text size (and the font sizes it gives: ctx.size, which follows the window a frame later
        # after F11), the bindings or the menu's length: composed once, then one blit a frame.
        problems = problems_height(ctx, surface.get_size())  # (the music's and the packs' come in later)
        key = (surface.get_size(), ctx.size, size, ctx.settings.scale, repr(ctx.settings.bindings),
               len(self.menu.items), problems)
        if self._layer is None or self._layer[0] != key:
            layer = self.backdrop.paint(surface.get_size())  # (in the window's format: no convert)
            top = self.backdrop.draw(layer, ctx, "RACETRACK", "the graph-paper racing game for the couch",
                                     title_size=60, subtitle_size=22, paper=False)
            margin = max(14, h // 36) * 3 + size  # clear of the red margin line
            room = h - ctx.font(22) * 2 - size // 2 - (top + size // 2)  # down to the hint band
            if problems:  # start-up problems get a card below: up to 40 % of the room (the rest counted)
                room -= min(problems, int(room * 0.4)) + size // 2
            menu_h = min(room, int(size * 1.55 * len(self.menu.items)) + size)  # (rows close up below 1.55)
            # The menu takes 42 % of a 16:9 window, more of a squarer one (text sizes follow the height:
            # in 4:3 and 5:4 at the largest text its rows did not fit their card), up to 54 %.
            share = min(0.54, 0.42 * max(1.0, (16 / 9) / (w / h)))
            card = pygame.Rect(margin, top + size // 2, int(w * share) - margin, menu_h)
            right = pygame.Rect(card.right + size * 2, card.top, w - card.right - size * 2 - margin, menu_h)
            # The how-to card's text, smaller (to 70 %) until the card stands above the hint band; then
            # without the how-to lines (how to join stays).
            # (how to join alone goes on shrinking, to 60 %: large text in a 5:4 window)
            def fits(how: bool, shrink: float) -> bool:
                return self._draw_how_to(None, right, shrink, how) - right.top <= room

            # (the first that fits: the largest; with none, the smallest, its join lines drawn to the card's width)
            how, shrink = True, _largest_fitting((1.0, 0.92, 0.85, 0.78, 0.72), lambda s: fits(True, s))
            if shrink is None:
                how = False
                shrink = _largest_fitting((1.0, 0.92, 0.85, 0.78, 0.72, 0.66, 0.6), lambda s: fits(False, s)) or 0.6
            card.height = right.height = max(menu_h, min(room, self._draw_how_to(None, right, shrink, how) - right.top))
            draw_panel(layer, card, ctx)
            bottom = self._draw_how_to(layer, right, shrink, how)
            self._layer = (key, layer, (card, right), bottom)
        _, layer, self.cards, y = self._layer
        card, right = self.cards
        surface.blit(layer, (0, 0))
        self.menu.draw(surface, ctx, card.inflate(-size, -size // 2), label_w=0.55)
        note = ctx.cpu_note()  # the first start after an install: the CPUs' search is being compiled
        if note:
            r = ctx.text.blit(surface, note[0].upper() + note[1:], ctx.font(22), theme.HUD_DIM,
                              (right.left, y + size // 2))
            y = r.bottom
        hint_top = h - ctx.font(22) * 2 - size // 4
        if draw_problems(surface, ctx, max(card.bottom, right.bottom) + size // 2, hint_top) is None:
            # (problems go first, in the races' place)
            self._draw_race_line(surface, max(card.bottom, right.bottom) + size)
        draw_hint(surface, ctx, self.menu.current.help_text() or "up/down: choose  ·  confirm: A / Enter / Space",
                  size=ctx.font(22))

    def _draw_how_to(self, surface: pygame.Surface | None, rect: pygame.Rect, shrink: float = 1.0,
                     how: bool = True) -> int:
        """How to play in three lines, then how each device joins (from the bindings in force); returns the
        bottom (with no surface, only measures). ``shrink`` scales its text down and ``how`` False leaves
        the how-to lines out (large text on a small window: how to join matters more). Measuring, a join
        line wider than the card (a word longer than a line) counts as not fitting."""
        target_grid, effective_bindings = self._bindings_help
        ctx = self.ctx
        head, small = max(10, int(ctx.font(28) * shrink)), max(10, int(ctx.font(22) * shrink))
        step = int(small * 1.35)
        bindings = effective_bindings(ctx.settings.bindings)
        rows = []
        for source, pen in zip(("kb1", "kb2"), theme.pens(2)):
            grid = target_grid(bindings.get(source, {}))
            if grid is not None:
                name = "Keyboard 1" if source == "kb1" else "Keyboard 2"
                rows.append((pen, f"{name}: press {grid[1][1]}", "  ".join(" ".join(row) for row in grid)))
        rows.append((theme.pens(3)[2], "Gamepad: press Start", "aim with the d-pad or the stick, A to pick"))
        sample = "nine rings around where it would land"  # an average character width of this font, measured
        char_w = max(1.0, ctx.text.render(sample, small, theme.HUD_TEXT).get_width() / len(sample))
        lines = wrap_words("Each move repeats your last one: pick one of the nine rings around where it would "
                           "land. The middle ring keeps your speed; the others speed up, brake or turn. Stay on "
                           "the road: first over the line wins.", max(20, int((rect.width - 2 * small) / char_w)))
        if not how:
            lines = []
        room = rect.width - small * 3.5  # right of a join row's symbol, inside the card
        # A join row's second line wraps where the card is narrow (large text in a 4:3 or 5:4 window).
        rows = [(pen, first, wrap_to(ctx.text, second, small, room)) for pen, first, second in rows]
        height = (int(head * 1.5) + step * len(lines) + small // 2) * how + int(head * 1.4) + \
            sum(int(step * (1.1 + len(seconds))) for _, _, seconds in rows)
        card = pygame.Rect(rect.left, rect.top, rect.width, max(rect.height, height + small))
        widest = max(ctx.text.size_of(words, small, bold)[0] for _, first, seconds in rows
                     for words, bold in ((first, True), *((line, False) for line in seconds)))
        if surface is None:
            # A join line wider than the card does not fit either: the caller tries a smaller shrink, as
            # for a card too tall.
            return card.bottom if widest <= room else card.bottom + rect.height * 10
        draw_panel(surface, card, ctx)
        x, y = card.left + small, card.top + small // 2
        if how:
            ctx.text.blit(surface, "How to play", head, theme.INK, (x, y), bold=True)
            y += int(head * 1.5)
            for line in lines:
                ctx.text.blit(surface, line, small, theme.HUD_TEXT, (x, y))
                y += step
            y += small // 2
        ctx.text.blit(surface, "Join a race", head, theme.INK, (x, y), bold=True)
        y += int(head * 1.4)
        for pen, first, seconds in rows:
            theme.draw_symbol(surface, pen.symbol, (x + small * 0.5, y + small * 0.6), small * 0.45, pen.color)
            said = [(first, y, pen.color, True)] + [(line, y + step * (1 + k), theme.HUD_DIM, False)
                                                    for k, line in enumerate(seconds)]
            for words, at, color, bold in said:
                fitted = ctx.text.fit(words, small, room, bold)  # (only the last resort's size needs it)
                ctx.text.blit(surface, ctx.text.shorten(words, fitted, room, bold), fitted, color,
                              (x + small * 1.5, at + (small - fitted) // 2), bold=bold)
            y += int(step * (1.1 + len(seconds)))
        return card.bottom

    def _draw_race_line(self, surface: pygame.Surface, top: int) -> None:
        """Three pencil trails of vectors sweeping across the foot of the sheet, each car with its symbol.

        They grow a move at a time; with reduce motion they stand there whole.
        """
        w, h = surface.get_size()
        pens = theme.pens(3)
        step = max(14, h // 36)
        band = h - self.ctx.font(22) * 3 - top  # down to the hint band
        if band < step * 4:
            return  # large text on a small window: the cards take the page, the races stay off it
        for k, pen in enumerate(pens):
            pts = []
            for i in range(9):
                t = i / 8
                x = w * (0.08 + 0.84 * t ** (1.35 + 0.15 * k))  # moves that grow: the cars speed up
                y = top + band * (0.2 + 0.3 * k) + math.sin(t * 4.2 + k * 1.3) * band * 0.08
                pts.append((round(x / step) * step, round(y / step) * step))
            shown = len(pts) if self.ctx.settings.reduce_motion else min(len(pts), 2 + int((self.clock * 2 + k) % 12))
            if shown > 1:
                pygame.draw.lines(surface, pen.color, False, pts[:shown], max(2, step // 8))
            for p in pts[:shown]:
                pygame.draw.circle(surface, pen.color, p, max(3, step // 6))
            theme.draw_symbol(surface, pen.symbol, pts[shown - 1], step * 0.6, pen.color)


def _largest_fitting(shrinks: tuple[float, ...], fits) -> float | None:
    """The first of ``shrinks`` (largest first) for which ``fits(shrink)``, or None.

    Measuring the how-to card at a size opens that size's fonts and wraps its text: a few
    milliseconds each, and the title's first frame measured up to twelve. A smaller text never
    makes the card taller or a line wider, so after the largest (the usual answer) the rest is
    halved: three measurements instead of up to seven.
    """
    if fits(shrinks[0]):
        return shrinks[0]
    low, high = 1, len(shrinks)  # the first that fits is in shrinks[low:high], or none does (high)
    while low < high:
        mid = (low + high) // 2
        if fits(shrinks[mid]):
            high = mid
        else:
            low = mid + 1
    return shrinks[low] if low < len(shrinks) else None
