"""Pause → Controls: every seat's keys, buttons and mouse, read from the bindings in force, and the
rules of the race in one short card.

:func:`device_controls` turns a bindings table (``game.presentation.input`` data, with the
player's changes applied) into what a player reads: the nine target keys as a 3x3 grid
and one line per other action, so a rebound key shows up here at once. :func:`rules_card`
says the rules in force in a few lines. :class:`ControlsScene` draws one card per human
seat in the seat's own colour and symbol, then the keys anyone may use, then the rules.
"""

from __future__ import annotations

import pygame

from game.presentation import theme
from game.presentation.menus.common import BACK, OK, START, draw_hint, draw_panel, nav, rule_label, rule_value
from game.presentation.menus.keys import effective_bindings, key_label, target_grid  # noqa: F401 (tests)
from game.presentation.scene import Scene

#: What each action spec's verb is called on the card (in this order).
VERBS = {"confirm": "pick", "back": "take back", "pause": "pause", "skip": "skip replay",
         "assist": "doomed marks", "faster": "replay faster", "slower": "replay slower",
         "fullscreen": "fullscreen", "quit": "quit"}
SOURCE_TITLES = {"kb1": "Keyboard 1", "kb2": "Keyboard 2", "keys": "Any player's keys", "pad": "Gamepad"}


def device_controls(source: str, table: dict) -> list[tuple[str, str]]:
    """(what, which keys) lines for one input source's table, in a fixed order.

    The nine targets are not in these lines (see :func:`target_grid`); arrow-key cursor
    moves become one "move the highlight" line, and the gamepad's d-pad and stick (not
    bindable) are named as its way to aim.
    """
    pad = source == "pad"
    by_verb: dict[str, list[str]] = {}
    cursor: list[str] = []
    for name, spec in table.items():
        verb = spec[0] if spec else ""
        if verb == "cursor":
            cursor.append(key_label(name))
        elif verb == "highlight":
            by_verb.setdefault("highlight", []).append(key_label(name, pad))
        elif verb in VERBS:
            by_verb.setdefault(verb, []).append(key_label(name, pad))
    lines = []
    if pad:
        lines.append(("aim", "d-pad, left stick"))
    if cursor:
        lines.append(("highlight", "arrows" if set(cursor) == {"Up", "Down", "Left", "Right"} else " ".join(cursor)))
    if "highlight" in by_verb:
        lines.append(("base point", ", ".join(by_verb["highlight"])))
    lines += [(VERBS[verb], ", ".join(by_verb[verb])) for verb in VERBS if verb in by_verb]
    return lines


def rules_card(rules, laps: int, timer: int = 0) -> list[str]:
    """The rules in force in a few short lines (preset, laps, timer, then what matters most)."""
    from game.core.rules import PRESET_DESCRIPTIONS

    changed = rules.overrides()
    head = f"{rules.name}{' (changed)' if changed else ''}  ·  {laps} lap{'s' if laps != 1 else ''}"
    head += f"  ·  {timer} s a move" if timer else "  ·  no move timer"
    lines = [head]
    if PRESET_DESCRIPTIONS.get(rules.name):
        lines.append(PRESET_DESCRIPTIONS[rules.name])
    shown = [("movement", "movement"), ("order", "choosing"), ("collision", "collisions"),
             ("offroad_penalty", "off the road"), ("finish", "finish"), ("terrain", "terrain")]
    lines.append(", ".join(f"{label} {rule_value(getattr(rules, name))}" for name, label in shown
                           if hasattr(rules, name)))
    if changed:  # in the rules screen's words
        lines.append("changed: " + ", ".join(f"{rule_label(k).lower()} {rule_value(v)}" for k, v in changed.items()))
    return lines


class ControlsScene(Scene):
    """Every human seat's controls and the rules in force, on a sheet of its own; any button goes back.

    Nothing on it changes while it is open, so the page is composed once per window size, on a
    background job (:class:`~game.presentation.jobs.Job`, with a text cache of its own): it
    takes a tenth of a second, too long for a frame; the sheet and the heading show meanwhile.
    ``background=False`` composes it in the frame instead (tests that watch the text drawn).
    """

    opaque = True

    def __init__(self, ctx, race, background: bool = True) -> None:
        super().__init__()
        self.ctx = ctx
        self.race = race
        self.background = background
        self._page: tuple[tuple[int, int], pygame.Surface] | None = None
        self._job = None  # (window size, Job composing the page for it)
        self._draw_ctx = ctx  # the context the page is composed with (a copy with its own text cache on a job)

    def handle(self, action) -> None:
        if nav(action) in (BACK, OK, START):
            self.ctx.audio.play("back")
            self.stack.pop()

    def _bindings(self) -> dict:
        return effective_bindings(self.ctx.settings.bindings)

    def seats(self) -> list[tuple[str, theme.Pen | None, str]]:
        """(name, pen, source) of every human seat: the source is its device (``kb1``, ``pad``...)."""
        out = []
        controller = self.race.controller
        pens = getattr(self.race, "pens", None) or theme.pens(len(controller.seats))
        devices = getattr(self.race, "devices", {}) or {}
        for car, seat in enumerate(controller.seats):
            if not seat.is_human:
                continue
            source = next((src for src, c in devices.items() if c == car), "")
            kind = "pad" if source.startswith("pad:") else source if source in ("kb1", "kb2") else "keys"
            out.append((seat.name, pens[car] if car < len(pens) else None, kind))
        return out

    def cards(self) -> list[tuple[str, list[tuple[str, theme.Pen | None]]]]:
        """One card per device the seats use (keyboard 1, keyboard 2, gamepads; several players on
        gamepads share one card), then the keys and mouse anyone may use: (source, its players)."""
        found: dict[str, list] = {}
        for name, pen, kind in self.seats():
            if kind != "keys":
                found.setdefault(kind, []).append((name, pen))
        order = [k for k in ("kb1", "kb2", "pad") if k in found]
        keys_players = [(name, pen) for name, pen, kind in self.seats() if kind == "keys"]
        return [(k, found[k]) for k in order] + [("keys", keys_players)]

    def draw(self, surface: pygame.Surface) -> None:
        size = surface.get_size()
        if self._page is None or self._page[0] != size:
            if not self.background:
                self._page = (size, self._page_for(size, surface, self.ctx))
            else:
                self._poll(size, surface)
        if self._page is not None and self._page[0] == size:
            surface.blit(self._page[1], (0, 0))
            return
        surface.fill(theme.PAPER)  # while the page is being composed (a few frames)
        self.ctx.text.blit(surface, "Controls", int(self.ctx.font(22) * 1.5), theme.INK,
                           (size[0] // 2, self.ctx.font(22) // 3), "midtop", bold=True)

    def _poll(self, size, surface) -> None:
        from dataclasses import replace

        from game.presentation.jobs import Job
        from game.presentation.text import TextCache

        if self._job is not None and self._job[0] == size and self._job[1].done:
            job = self._job[1]
            self._job = None
            if job.error is None:
                self._page = (size, job.result)
                return
            self._page = (size, self._page_for(size, surface, self.ctx))  # the job failed: compose here
            return
        if self._job is None or self._job[0] != size:
            own = replace(self.ctx, text=TextCache())  # a text cache is not shared between threads
            self._job = (size, Job(lambda: self._page_for(size, surface, own), name="controls"))

    def wait(self, timeout: float = 30.0) -> None:
        """Block until the page being composed is ready (tests and tools)."""
        if self._job is not None:
            self._job[1].wait(timeout)

    def _page_for(self, size, like: pygame.Surface, ctx) -> pygame.Surface:
        page = pygame.Surface(size, 0, like)  # the window's own pixel format: no convert needed
        self._draw_ctx = ctx
        try:
            self._compose(page)
        finally:
            self._draw_ctx = self.ctx
        return page

    def _compose(self, surface: pygame.Surface) -> None:
        from game.presentation.menus.common import Backdrop

        ctx = self._draw_ctx
        surface.blit(Backdrop().sheet(surface.get_size()), (0, 0))
        w, h = surface.get_size()
        size = ctx.font(22)  # 33 px at 1080 lines: a line 22 px high, read from the sofa
        while True:  # the largest text sizes close up until the page fits the window
            if self._layout(None, size) <= h or size <= 10:
                break
            size = max(10, int(size * 0.92))
        self._layout(surface, size)
        draw_hint(surface, ctx, "confirm / back: return to the pause menu  ·  change keys in Settings", size=size)

    def _layout(self, surface, size: int) -> int:
        """Draw the page at text ``size`` (or only measure it, with no surface); returns its bottom,
        the help line below it included."""
        ctx = self._draw_ctx
        w, h = ctx.size if surface is None else surface.get_size()
        pad, gap = size, size // 2
        measure = pygame.Surface((1, 1)) if surface is None else surface
        title = ctx.text.blit(measure, "Controls", int(size * 1.5), theme.INK, (w // 2, size // 3), "midtop",
                              bold=True)
        bindings = self._bindings()
        cards = self.cards()
        seats, anyone = cards[:-1], cards[-1]
        margin = max(14, h // 36) * 3 + pad // 2  # right of the sheet's red margin line
        left, right = margin, w - pad
        y = title.bottom + gap
        if seats:
            cw = (right - left - gap * (len(seats) - 1)) // len(seats)
            heights = [self._card(None, pygame.Rect(0, 0, cw, 0), kind, players, bindings, size)
                       for kind, players in seats]
            row_h = max(heights)
            for k, (kind, players) in enumerate(seats):
                rect = pygame.Rect(left + k * (cw + gap), y, cw, row_h)
                if surface is not None:
                    self._card(surface, rect, kind, players, bindings, size)
            y += row_h + gap
        kw = int((right - left) * 0.62)
        kh = self._card(None, pygame.Rect(0, 0, kw, 0), "keys", anyone[1], bindings, size)
        rules = self.race.controller.state.rules
        lines = rules_card(rules, getattr(self.race.controller.state, "laps", 1),
                           _timer_seconds(self.race.controller))
        box = pygame.Rect(left + kw + gap, y, right - left - kw - gap, 0)
        small = size
        wrapped = self._wrap(lines, small, box.width - 2 * pad)
        box.height = int(size * 1.5) + int(small * 1.25) * len(wrapped) + pad
        row_h = max(kh, box.height)
        if surface is not None:
            self._card(surface, pygame.Rect(left, y, kw, row_h), "keys", anyone[1], bindings, size)
            box.height = row_h
            draw_panel(surface, box, ctx)
            ty = box.top + pad // 2
            ctx.text.blit(surface, "Rules in force", size, theme.INK, (box.left + pad, ty), bold=True)
            ty += int(size * 1.5)
            for line in wrapped:
                ctx.text.blit(surface, line, small, theme.HUD_TEXT, (box.left + pad, ty))
                ty += int(small * 1.25)
        return y + row_h + size * 2

    def _wrap(self, lines: list[str], size: int, width: int) -> list[str]:
        from game.presentation.menus.common import wrap_words

        sample = "movement nine, choosing simultaneous"  # an average character width, measured
        char_w = max(1.0, self._draw_ctx.text.render(sample, size, theme.INK).get_width() / len(sample))
        out = []
        for line in lines:
            out += wrap_words(line, max(12, int(width / char_w)))
        return out

    def _card(self, surface, rect, kind, players, bindings, size) -> int:
        """One device's card in ``rect`` (only measured, with no surface); returns its height.

        The heading names the players on it in their own colours; the shared keys' card puts
        the nine targets and the mouse on the left and the other keys on the right.
        """
        ctx = self._draw_ctx
        measure = surface is None
        if measure:
            surface = pygame.Surface((1, 1))
        else:
            draw_panel(surface, rect, ctx)
        x, y = rect.left + size // 2, rect.top + size // 3
        end = rect.right - size // 2
        title = SOURCE_TITLES.get(kind, kind) if kind != "keys" or not players else "Shared keys and mouse"
        title = ("·  " if players else "") + title
        for k, (name, pen) in enumerate(players):
            # Many players on one card (six on gamepads): their names run on to further lines.
            wide = int(size * 0.85) * (pen is not None) + ctx.text.size_of(name, size, True)[0]
            if k == len(players) - 1:
                wide += size // 2 + ctx.text.size_of(title, size, True)[0]  # the card's title stays beside the last name
            if x > rect.left + size // 2 and x + wide > end:
                x, y = rect.left + size // 2, y + int(size * 1.2)
            if pen is not None:
                theme.draw_symbol(surface, pen.symbol, (x + size * 0.35, y + size * 0.5), size * 0.35, pen.color)
                x += int(size * 0.85)
            x = ctx.text.blit(surface, name, size, pen.color if pen else theme.INK, (x, y), bold=True).right + size // 2
        ctx.text.blit(surface, title, size, theme.INK, (x, y), bold=not players)
        y += int(size * 1.45)
        line_h = int(size * 1.2)
        table = bindings.get(kind, {})
        grid = target_grid(table)
        lines = device_controls(kind, table)
        x = rect.left + size // 2
        top = y
        if grid is not None:
            cell = int(size * 1.5)
            for r, row in enumerate(grid):
                for c, label in enumerate(row):
                    cr = pygame.Rect(x + c * cell, y + r * line_h, cell - 4, line_h - 3)
                    pygame.draw.rect(surface, theme.GRAPHITE_LIGHT, cr, 1, border_radius=3)
                    ctx.text.blit(surface, label, size, theme.INK, cr.center, "center", bold=r == 1 and c == 1)
            ctx.text.blit(surface, "targets", size, theme.HUD_DIM, (x + cell * 3 + size // 2, y + line_h))
            y += line_h * 3 + size // 4
        label_w = max([ctx.text.render(what, size, theme.HUD_DIM).get_width() for what, _ in lines] or [0])
        keys_w = max([ctx.text.size_of(keys, size)[0] for _, keys in lines] or [0])
        wide = False  # a line runs past the card's edge: measured, the card says it does not fit
        if kind == "keys":
            mouse = ctx.text.blit(surface, "mouse: point, click to pick", size, theme.HUD_TEXT, (x, y))
            y += line_h
            # The other keys in a column of their own, from the middle of the card, or further left
            # where their longest line needs it (a 4:3 window), never over the targets and the mouse.
            beside = max(mouse.right, x + int(size * 1.5) * 3 + size // 2 + ctx.text.size_of("targets", size)[0])
            x = max(beside + size, min(rect.left + int(rect.width * 0.5), end - label_w - size // 2 - keys_w))
            y = top
        wide = x + label_w + size // 2 + keys_w > end
        for what, keys in lines:
            ctx.text.blit(surface, what, size, theme.HUD_DIM, (x, y))
            ctx.text.blit(surface, keys, size, theme.INK, (x + label_w + size // 2, y))
            y += line_h
        left_bottom = top + (line_h * 3 + size // 4 + line_h if kind == "keys" else 0)
        height = max(y, left_bottom) - rect.top + size // 3
        # (too wide counts as too tall: the page's text closes up until every line fits its card)
        return height + (10_000 if wide and measure else 0)


def _timer_seconds(controller) -> int:
    """The race's move timer in whole seconds (0: no timer)."""
    timer = getattr(controller, "timer", None)
    return int(timer.seconds) if timer is not None else 0
