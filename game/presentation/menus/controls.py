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
from game.presentation.menus.common import BACK, OK, START, draw_hint, draw_panel, nav
from game.presentation.scene import Scene

#: What each action spec's verb is called on the card (in this order).
VERBS = {"confirm": "pick / confirm", "back": "take back", "pause": "pause", "skip": "skip the replay",
         "assist": "doomed-target marks", "faster": "replay faster", "slower": "replay slower",
         "fullscreen": "fullscreen", "quit": "quit"}
#: Key names as printed on the keys.
KEY_NAMES = {"return": "Enter", "enter": "Enter (keypad)", "escape": "Esc", "backspace": "Backspace",
             "space": "Space", "tab": "Tab", "left shift": "Left Shift", "right shift": "Right Shift",
             "up": "Up", "down": "Down", "left": "Left", "right": "Right", "[+]": "keypad +", "[-]": "keypad -"}
#: Gamepad buttons by their standard names (SDL's game-controller layout).
PAD_NAMES = {"a": "A", "b": "B", "x": "X", "y": "Y", "start": "Start", "back": "Back / View", "guide": "Guide",
             "leftstick": "left stick click", "rightstick": "right stick click", "leftshoulder": "LB",
             "rightshoulder": "RB", "dpup": "d-pad up", "dpdown": "d-pad down", "dpleft": "d-pad left",
             "dpright": "d-pad right"}
SOURCE_TITLES = {"kb1": "Keyboard 1", "kb2": "Keyboard 2", "keys": "Any player's keys", "pad": "Gamepad"}


def key_label(name: str, pad: bool = False) -> str:
    """How a key or button is called on screen: ``"[7]"`` -> ``"7"``, ``"a"`` -> ``"A"`` (pad)."""
    if pad:
        return PAD_NAMES.get(name, name)
    if name in KEY_NAMES:
        return KEY_NAMES[name]
    if name.startswith("[") and name.endswith("]"):
        return name[1:-1]  # the numpad's own digits
    return name.upper() if len(name) == 1 else name.title()


def target_grid(table: dict) -> list[list[str]] | None:
    """The nine target keys of a table as three rows (top-left first), or None when it has none.

    A target without a key shows as ``"-"``; a target with several keys shows them all.
    """
    grid = [[[] for _ in range(3)] for _ in range(3)]
    found = False
    for name, spec in table.items():
        if spec and spec[0] == "select" and len(spec) == 3 and -1 <= spec[1] <= 1 and -1 <= spec[2] <= 1:
            grid[spec[2] + 1][spec[1] + 1].append(key_label(name))
            found = True
    if not found:
        return None
    return [["/".join(cell) or "-" for cell in row] for row in grid]


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
        lines.append(("aim", "d-pad or left stick"))
    if cursor:
        lines.append(("move the highlight", " ".join(cursor)))
    if "highlight" in by_verb:
        lines.append(("back to the base point", ", ".join(by_verb["highlight"])))
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
             ("offroad_penalty", "off the road"), ("finish", "finish")]
    lines.append("  ·  ".join(f"{label} {getattr(rules, name)}" for name, label in shown if hasattr(rules, name)))
    if changed:
        lines.append("changed: " + ", ".join(f"{k} {v}" for k, v in changed.items()))
    return lines


class ControlsScene(Scene):
    """Every human seat's controls and the rules in force, on a sheet of its own; any button goes back.

    Nothing on it changes while it is open, so the page is composed once per window size.
    """

    opaque = True

    def __init__(self, ctx, race) -> None:
        super().__init__()
        self.ctx = ctx
        self.race = race
        self._page: tuple[tuple[int, int], pygame.Surface] | None = None

    def handle(self, action) -> None:
        if nav(action) in (BACK, OK, START):
            self.ctx.audio.play("back")
            self.stack.pop()

    def _bindings(self) -> dict:
        from game.presentation.menus.settings_menu import effective_bindings

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

    def draw(self, surface: pygame.Surface) -> None:
        if self._page is None or self._page[0] != surface.get_size():
            page = pygame.Surface(surface.get_size())
            if pygame.display.get_surface() is not None:
                page = page.convert()
            self._compose(page)
            self._page = (surface.get_size(), page)
        surface.blit(self._page[1], (0, 0))

    def _compose(self, surface: pygame.Surface) -> None:
        ctx = self.ctx
        from game.presentation.menus.common import Backdrop

        surface.blit(Backdrop().sheet(surface.get_size()), (0, 0))
        w, h = surface.get_size()
        size = ctx.font(16)  # 24 px at 1080p
        pad = size
        title = ctx.text.blit(surface, "Controls", ctx.font(36), theme.INK, (w // 2, size // 2), "midtop", bold=True)
        bindings = self._bindings()
        cards: list[tuple[str, theme.Pen | None, str]] = list(self.seats())
        if not any(kind == "keys" for _, _, kind in cards):
            cards.append(("Anyone", None, "keys"))
        if not any(kind == "pad" for _, _, kind in cards):
            cards.append(("A gamepad", None, "pad"))
        rules = self.race.controller.state.rules
        card_lines = rules_card(rules, getattr(self.race.controller.state, "laps", 1),
                                getattr(getattr(self.race, "plan", None), "timer", 0) or 0)
        top = title.bottom + size // 2
        rules_h = int(size * 1.3 * (len(card_lines) + 1) + pad)
        margin = max(14, h // 36) * 3 + pad // 2  # right of the sheet's red margin line
        area = pygame.Rect(margin, top, w - margin - pad * 2, h - top - rules_h - size * 3)
        cols = min(len(cards), 3 if w >= h * 1.5 else 2)
        gap = size // 2
        cw = (area.width - gap * (cols - 1)) // cols
        heights = [self._card(None, pygame.Rect(0, 0, cw, 0), *card, bindings, size) for card in cards]
        y = area.top
        for first in range(0, len(cards), cols):
            row_h = max(heights[first:first + cols])
            for k in range(first, min(len(cards), first + cols)):
                rect = pygame.Rect(area.left + (k - first) * (cw + gap), y, cw, row_h)
                self._card(surface, rect, *cards[k], bindings, size)
            y += row_h + gap
        area.height = y - gap - area.top
        box = pygame.Rect(area.left, area.bottom + gap, area.width, rules_h)
        draw_panel(surface, box, ctx)
        y = box.top + pad // 2
        ctx.text.blit(surface, "Rules in force", size, theme.INK, (box.left + pad, y), bold=True)
        y += int(size * 1.3)
        for line in card_lines:
            ctx.text.blit(surface, line, size, theme.HUD_TEXT, (box.left + pad, y))
            y += int(size * 1.3)
        draw_hint(surface, ctx, "confirm / back: return to the pause menu  ·  change keys in Settings")

    def _card(self, surface, rect, name, pen, kind, bindings, size) -> int:
        """Draw one seat's card in ``rect`` (or only measure it, with no surface); returns its height."""
        ctx = self.ctx
        if surface is None:
            surface = pygame.Surface((1, 1))  # measuring: drawn nowhere
            rect = pygame.Rect(rect.left, rect.top, rect.width, 100000)
        else:
            draw_panel(surface, rect, ctx)
        color = pen.color if pen is not None else theme.INK
        x, y = rect.left + size, rect.top + size // 2
        if pen is not None:
            theme.draw_symbol(surface, pen.symbol, (x + size * 0.4, y + size * 0.6), size * 0.45, pen.color)
            x += int(size * 1.2)
        head = f"{name}  ·  {SOURCE_TITLES.get(kind, kind)}" if pen is not None else SOURCE_TITLES.get(kind, kind)
        ctx.text.blit(surface, head, ctx.font(20), color, (x, y), bold=True)
        y += int(ctx.font(20) * 1.5)
        x = rect.left + size
        table = bindings.get(kind, {})
        lines = []
        grid = target_grid(table)
        if kind == "keys":
            lines.append(("mouse", "point at a target, click to pick"))
        line_h = int(size * 1.25)
        if grid is not None:
            ctx.text.blit(surface, "targets", size, theme.HUD_DIM, (x, y))
            gx = x + int(size * 5.5)
            cell = int(size * 1.9)
            for r, row in enumerate(grid):
                for c, label in enumerate(row):
                    cr = pygame.Rect(gx + c * cell, y + r * line_h, cell - 4, line_h - 3)
                    pygame.draw.rect(surface, theme.GRAPHITE_LIGHT, cr, 1, border_radius=3)
                    ctx.text.blit(surface, label, size, theme.INK, cr.center, "center", bold=r == 1 and c == 1)
            y += line_h * 3 + size // 3
        lines += device_controls(kind, table)
        for what, keys in lines:
            if y + line_h > rect.bottom - size // 3:
                break
            ctx.text.blit(surface, what, size, theme.HUD_DIM, (x, y))
            ctx.text.blit(surface, keys, size, theme.INK, (x + int(size * 9.5), y))
            y += line_h
        return y - rect.top + size // 2
