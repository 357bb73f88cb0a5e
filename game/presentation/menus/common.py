"""What every menu screen shares: the game context, menu navigation and the graph-paper look.

:class:`GameContext` is the one object handed from screen to screen: the folders (passed
in, never looked up here), settings and best results, the sound, the text cache, the
solver shared by par and the CPUs, and the seed source. :func:`nav` turns any input
action (keyboard block, arrows, d-pad, stick) into one menu verb. :class:`Backdrop`
draws the squared paper, margin line and title every menu sits on.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pygame

from game.presentation import theme
from game.presentation.audio import Audio
from game.presentation.input import Back, ClickAt, Confirm, MoveCursor, Pause, PointAt, Scroll, Select
from game.presentation.menus.screens import Screens
from game.presentation.text import TextCache
from game.race.timer import CHOICES as TIMER_CHOICES
from game.settings import BestResults, Settings, SettingsError, save_best, save_settings

UP, DOWN, LEFT, RIGHT, OK, BACK, START = "up", "down", "left", "right", "confirm", "back", "start"


@dataclass
class GameContext:
    """Everything the menus share; built once by :func:`game.presentation.menus.build_title_scene`.

    ``config_dir`` holds settings, best results, saved replays and the solver cache;
    ``packs_dir`` is the user's pack folder (``user_data_dir/packs``); ``builtin_dir`` the
    built-in tracks; ``data_dir`` the user data folder (cups in progress, time-trial
    best runs). ``app`` (optional) lets the settings menu switch fullscreen and
    install changed bindings. ``planner`` makes the CPU planner for each race.
    ``kernels`` is where the solver gets its kernels (``game.drivers.compiling``); its
    ``status`` tells the screens when the CPUs are still being prepared. ``catalogue`` is
    every pack the game offers (``game.tracks.catalogue.PackCatalogue``, read in the
    background; menus read it, never the pack files). ``screens`` is the screen graph
    (:mod:`game.presentation.menus.screens`): menus go on to another screen by its name.
    """

    config_dir: Path
    packs_dir: Path | None
    builtin_dir: Path
    settings: Settings = field(default_factory=Settings)
    best: BestResults = field(default_factory=BestResults)
    audio: Audio = field(default_factory=Audio)
    text: TextCache = field(default_factory=TextCache)
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    problems: list[str] = field(default_factory=list)
    app: object | None = None
    planner: Callable[[], object] | None = None
    size: tuple[int, int] = (1280, 720)
    flick_fields: object | None = None
    kernels: object | None = None
    catalogue: object | None = None
    data_dir: Path | None = None
    screens: Screens = field(default_factory=Screens)
    #: The evening's seats (``seats.SeatSpec``), from the lobby last started: the next lobby (race,
    #: cup) and a time trial seat the same people again until someone changes them. None: nobody yet.
    lineup: list | None = None
    #: The phones (``presentation.phones.PhoneLink``): off until the lobby's Phones row; None in tests of one screen.
    phones: object | None = None
    _shared: object | None = None
    _previews: object | None = None
    _pars: object | None = None
    _prepared: tuple | None = None  # the race whose CPU table prepare_cpu_table started last

    @property
    def replays_dir(self) -> Path:
        return self.config_dir / "replays"

    @property
    def user_data_dir(self) -> Path:
        """The user data folder: given, else the pack folder's parent, else the config folder."""
        if self.data_dir is not None:
            return self.data_dir
        return self.packs_dir.parent if self.packs_dir is not None else self.config_dir

    @property
    def cups_dir(self) -> Path:
        """Cups in progress and finished, one folder each (the cup file and its races' replays)."""
        return self.user_data_dir / "cups"

    @property
    def trials_dir(self) -> Path:
        """The best time-trial run of each track, rules and laps (replay files: the ghosts)."""
        return self.user_data_dir / "trials"

    @property
    def cpu_shared(self):
        """The solver tables every CPU and the par display share (one per game)."""
        if self._shared is None:
            from game.drivers.cpu import make_shared
            from game.drivers.solver import Solver

            self._shared = make_shared(Solver(cache_dir=self.config_dir / "solver", kernels=self.kernels))
        return self._shared

    @property
    def previews(self):
        """Track select's previews, drawn once for the whole game (see ``menus.previews.PreviewPainter``)."""
        if self._previews is None:
            from game.presentation.menus.previews import PreviewPainter

            self._previews = PreviewPainter(self.text)
        return self._previews

    def close(self) -> None:
        """Stop every background worker the evening started (packs, pars, previews, phones, sound).

        The game calls it on its way out; tests call it so that one test's workers do not go
        on working (and holding memory) through the next ones. Never waits on a worker.
        """
        if self.phones is not None:
            self.phones.stop()
        for worker in (self.catalogue, self._pars, self._previews):
            if worker is not None:
                worker.close()
        self.audio.close()

    def all_problems(self) -> list[str]:
        """Everything the title screen lists: settings files, sound files and built-in packs, by file."""
        found = list(self.problems)
        found += [p for p in self.audio.problems if p not in found]  # the music's, found after start-up
        if self.catalogue is not None:
            found += [p for p in self.catalogue.problems() if p not in found]
        return found

    def prepare_cpu_table(self, track, rules, laps: int):
        """Start the CPUs' table for a race being set up, on a first start only (None when not started).

        While the kernels are being prepared after an install the table is built the moment
        they are loaded (the CPUs drive by a heuristic until then, ``game.race.headstart``).
        Once they are ready a table takes a blink, and nothing is started (nor for a race
        without a solver, nor twice alike).
        """
        if self.kernels is None or self.kernels.status.stage == "ready":
            return None
        key = (id(track), rules, laps)
        if self._prepared == key:
            return None
        self._prepared = key
        from game.race.headstart import prepare_table

        return prepare_table(self.cpu_shared, track, rules, laps)

    def cpu_note(self) -> str:
        """Why the CPUs are slower than usual ("" when they are not): the first start's preparing,
        or a big track's table being worked out (a Karopapier map with many checkpoints)."""
        from game.race.headstart import cpu_note

        return cpu_note(self.kernels, self._shared.solver if self._shared is not None else None)

    @property
    def pars(self):
        if self._pars is None:
            from game.presentation.menus.par import ParWorker

            self._pars = ParWorker(self)
        return self._pars

    def device_present(self, device: str | None) -> bool:
        """Whether a seat's device is still there: a gamepad the app has open now (keyboards always
        are). A pad pulled while another screen was on top is found gone here, so its seat can be
        freed or handed over. Without an app (tests of one screen) every device counts as there."""
        if device and device.startswith("phone:"):  # a phone holding its seat token, asleep or not
            return self.phones is not None and self.phones.known(device)
        if not device or not device.startswith("pad:"):
            return True
        pads = getattr(getattr(self.app, "mapper", None), "pads", None)
        if pads is None:
            return True
        try:
            return int(device[4:]) in pads
        except ValueError:
            return False

    def save_settings(self) -> str:
        """Write the settings; returns an error message to show ("" when saved)."""
        try:
            save_settings(self.settings, self.config_dir)
            return ""
        except SettingsError as error:
            return str(error)

    def save_best(self) -> str:
        try:
            save_best(self.best, self.config_dir)
            return ""
        except SettingsError as error:
            return str(error)

    def font(self, base: float) -> int:
        """A font size for menus: ``base`` at 720 pixels high, times the player's text scale."""
        h = self.size[1]
        return max(10, int(base * h / 720 * self.settings.scale))


def nav(action) -> str | None:
    """The menu verb an action means: up/down/left/right/confirm/back/start, or None.

    Keyboard blocks send ``Select`` with ``confirm`` (their middle key is ``confirm``),
    the d-pad and stick send ``Select`` without it (releasing the stick sends (0, 0),
    which means nothing here); diagonals count as their vertical part.
    """
    if isinstance(action, Confirm):
        return OK
    if isinstance(action, Back):
        return BACK
    if isinstance(action, Pause):
        # Esc / P on the keyboard leave a menu; Start on a gamepad means "go".
        return START if action.source.startswith("pad:") else BACK
    if isinstance(action, (Select, MoveCursor)):
        dx, dy = action.dx, action.dy
        if dy:
            return UP if dy < 0 else DOWN
        if dx:
            return LEFT if dx < 0 else RIGHT
        if isinstance(action, Select) and action.confirm:
            return OK
    return None


def device_of(source: str) -> str:
    """The seat device an input source belongs to: the shared keys (arrows, Enter) count as keyboard 1."""
    return "kb1" if source in ("keys", "mouse") else source


class Backdrop:
    """The graph-paper sheet behind every menu: grid, red margin, a title in pencil. Cached per size."""

    def __init__(self) -> None:
        self._cache: dict[tuple[int, int], pygame.Surface] = {}

    def sheet(self, size: tuple[int, int]) -> pygame.Surface:
        """The sheet of this size, kept (never draw on it: see :meth:`paint`)."""
        found = self._cache.get(size)
        if found is None:
            found = self.paint(size)
            self._cache = {size: found}
        return found

    @staticmethod
    def paint(size: tuple[int, int]) -> pygame.Surface:
        """A new sheet of this size, not kept: a layer drawn over (the title's) is made on it at once,
        not copied from a kept one (a whole window's copy, a quarter of the title's first frame)."""
        display = pygame.display.get_surface()  # made in the window's format: convert() would copy it
        found = pygame.Surface(size, 0, display) if display is not None else pygame.Surface(size)
        found.fill(theme.PAPER)
        w, h = size
        step = max(14, h // 36)
        for k, x in enumerate(range(0, w, step)):
            pygame.draw.line(found, theme.GRID_MAJOR if k % 5 == 0 else theme.GRID_MINOR, (x, 0), (x, h))
        for k, y in enumerate(range(0, h, step)):
            pygame.draw.line(found, theme.GRID_MAJOR if k % 5 == 0 else theme.GRID_MINOR, (0, y), (w, y))
        margin = step * 3
        pygame.draw.line(found, theme.MARGIN, (margin, 0), (margin, h), 2)
        return found

    def draw(self, surface: pygame.Surface, ctx: GameContext, title: str, subtitle: str = "",
             title_size: float = 44, subtitle_size: float = 18, paper: bool = True) -> int:
        """Paper and a heading (sizes at 720 lines, see :meth:`GameContext.font`); returns the y where
        content may start. ``paper`` False: the surface is a sheet already (:meth:`paint`)."""
        if paper:  # one sheet for every menu of this size: a screen's first frame does not draw it again
            size = surface.get_size()
            surface.blit(ctx.text.composed(("menu-paper", size), lambda: self.sheet(size)), (0, 0))
        w = surface.get_width()
        big = ctx.font(title_size)
        room = w - max(14, surface.get_height() // 36) * 8  # clear of the red margin on both sides
        rect = ctx.text.blit(surface, title, ctx.text.fit(title, big, room, bold=True), theme.INK,
                             (w // 2, int(big * 0.5)), "midtop", bold=True)
        # An underline drawn like a quick pencil stroke (slightly wavy, thicker in the middle).
        pts = [(rect.left + t * rect.width, rect.bottom + 3 + math.sin(t * 7.0) * 1.5) for t in
               (i / 24 for i in range(25))]
        pygame.draw.lines(surface, theme.GRAPHITE, False, pts, 3)
        y = rect.bottom + int(big * 0.4)
        if subtitle:
            small = ctx.font(subtitle_size)  # (a long folder name or rules line is drawn smaller, then cut)
            fitted = ctx.text.fit(subtitle, small, room)
            r = ctx.text.blit(surface, ctx.text.shorten(subtitle, fitted, room), fitted, theme.HUD_DIM,
                              (w // 2, y + (small - fitted) // 2), "midtop")
            y = max(r.bottom, y + small) + int(big * 0.3)
        return y


def draw_panel(surface: pygame.Surface, rect: pygame.Rect, ctx: GameContext) -> None:
    """A translucent paper card with a graphite edge (the HUD's look)."""
    surface.blit(ctx.text.panel(rect.size, theme.HUD_BG), rect)
    pygame.draw.rect(surface, theme.GRAPHITE_LIGHT, rect, 1)
    ctx.text.note_panel(surface, rect)


def draw_hint(surface: pygame.Surface, ctx: GameContext, message: str, color=theme.HUD_TEXT,
              size: int | None = None) -> None:
    """One line of help at the bottom, on a paper band (like the race screen's prompt); ``size`` in pixels."""
    if not message:
        return
    size = size or ctx.font(17)
    w, h = surface.get_size()
    # A long help text is drawn a little smaller, then on two or more lines: never past the screen's edges.
    size = ctx.text.fit(message, size, w - size * 2, least=size * 0.8)
    lines = wrap_to(ctx.text, message, size, w - size * 2)
    images = [ctx.text.render(line, size, color) for line in lines]
    step = int(size * 1.2)
    rect = pygame.Rect(0, 0, max(i.get_width() for i in images), images[0].get_height() + step * (len(images) - 1))
    rect.midbottom = (w // 2, h - size // 2)
    draw_panel(surface, rect.inflate(size, size // 2), ctx)
    for k, (line, image) in enumerate(zip(lines, images)):
        ctx.text.put(surface, image, image.get_rect(midtop=(w // 2, rect.top + k * step)), line)


def draw_badge(surface: pygame.Surface, ctx: GameContext, badge: str) -> None:
    """A screen variant's name (cup, time trial) in the top right corner; nothing when ``badge`` is empty."""
    if badge:
        size = ctx.font(18)
        ctx.text.blit(surface, badge, size, theme.DOOM, (surface.get_width() - size, size), "topright", bold=True)


#: The most characters :func:`wrap_words` breaks into lines: more than a full screen of small print.
MAX_WRAPPED = 4000


def wrap_words(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` broken into lines of about ``width`` characters at spaces; later lines start with ``indent``.

    Only the first :data:`MAX_WRAPPED` characters are looked at (no screen shows more), so a
    problem quoting a megabyte of a file costs a frame no more than a short one."""
    if len(text) > MAX_WRAPPED:
        text = text[:MAX_WRAPPED - 1] + "\u2026"
    words, lines, line = text.split(" "), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = indent + word
        else:
            line = f"{line} {word}" if line else word
    return lines + [line] if line else lines


def wrap_to(text_cache, words: str, size: int, width: float, bold: bool = False) -> list[str]:
    """``words`` broken at spaces into lines no wider than ``width`` pixels at font ``size`` (measured,
    not guessed from a character count); a single word wider than that stays on a line of its own."""
    lines, line = [], ""
    for word in words.split(" "):
        trial = f"{line} {word}" if line else word
        if line and text_cache.size_of(trial, size, bold)[0] > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return lines + [line] if line else lines


@dataclass
class Item:
    """One row of a menu: a label, an optional value and what left/right/confirm do.

    ``risky`` marks a row that can lose a player's progress (retire, leave, reset): the
    list never wraps round onto it, so a press past the end cannot land there.
    """

    label: str
    confirm: Callable[[], None] | None = None
    value: Callable[[], str] | None = None
    change: Callable[[int], None] | None = None
    help: Callable[[], str] | str = ""
    enabled: Callable[[], bool] = lambda: True
    brief: Callable[[], str] | None = None  # a shorter value, shown when the value does not fit its row
    risky: bool = False
    two_lines: bool = False  # a long label (a saved race's title) may take two lines of its row before it is cut

    def help_text(self) -> str:
        return self.help() if callable(self.help) else self.help


class MenuList:
    """A vertical list of :class:`Item` with one highlighted row; handles menu verbs."""

    def __init__(self, items: list[Item], audio: Audio | None = None, pin_last: bool = False,
                 wrap: bool = True) -> None:
        self.items = items
        self.index = 0
        self.pin_last = pin_last
        self.wrap = wrap  # False: the ends stop the highlight (a dialog's two answers)
        self.audio = audio
        self.rects: list[pygame.Rect] = []
        self.cut: set[int] = set()  # the rows whose label was cut short (at a word, "...") in the last drawing
        self._column = 0  # where the values start, worked out for each drawing

    @property
    def current(self) -> Item:
        return self.items[self.index]

    def _sound(self, name: str) -> None:
        if self.audio is not None:
            self.audio.play(name)

    def verb(self, verb: str | None) -> bool:
        """Apply a menu verb; True when the list used it.

        Up/down move the highlight, wrapping round the ends, except onto a risky row.
        Left/right change a value; confirm only ever runs a row's action: on a row that
        has only a value it does nothing (one press of A never changes a value).
        """
        if verb in (UP, DOWN):
            step = 1 if verb == DOWN else -1
            target = self.index + step
            if not 0 <= target < len(self.items):
                target %= len(self.items)
                if self.items[target].risky or not self.wrap:
                    return True  # a press past the end never lands on a row that loses progress
            self.index = target
            self._sound("tick")
            return True
        item = self.current
        if verb in (LEFT, RIGHT) and item.change is not None and item.enabled():
            item.change(1 if verb == RIGHT else -1)
            self._sound("tick")
            return True
        if verb == OK and item.enabled() and item.confirm is not None:
            self._sound("confirm")
            item.confirm()
            return True
        return False

    def click(self, action) -> bool:
        """The mouse on the list: a click on a row highlights it and confirms it (a value row is only
        highlighted), the pointer resting on a row highlights it, the wheel moves the highlight.

        The pointer highlights only while every row is in sight: in a list that scrolls with its
        highlight, the rows would slide under a resting pointer and the highlight creep on.
        """
        if isinstance(action, Scroll):
            target = max(0, min(len(self.items) - 1, self.index + action.dy))
            if target != self.index:
                self.index = target
                self._sound("tick")
            return True
        if not isinstance(action, (ClickAt, PointAt)):
            return False
        for k, rect in enumerate(self.rects):
            if rect.collidepoint(action.pos):
                if isinstance(action, PointAt):
                    if k != self.index and all(r.height > 0 for r in self.rects):
                        self.index = k
                        self._sound("tick")
                    return True
                self.index = k
                self.verb(OK)
                return True
        return False

    def draw(self, surface: pygame.Surface, ctx: GameContext, rect: pygame.Rect, pen: theme.Pen | None = None,
             label_w: float = 0.5) -> None:
        """Rows inside ``rect``: label on the left, value on the right, the current one marked.

        Rows close up (to 1.15 line heights) before any has to scroll out of sight; when they
        still do not fit, the list scrolls with the current row, and with ``pin_last`` the
        last row (the one that goes on: "Start the race!") stays at the bottom all the time.
        """
        size = ctx.font(24)
        n = len(self.items)
        row_h = max(int(size * 1.15), min(int(size * 1.55), rect.height // max(1, n)))
        pen = pen or theme.pens(1)[0]
        self.rects = [pygame.Rect(0, 0, 0, 0)] * n
        self.cut = set()
        fits = rect.height // row_h
        pinned = self.pin_last and fits < n
        scrolled = n - 1 if pinned else n
        room = fits - 1 if pinned else fits
        first = max(0, min(self.index - room // 2, scrolled - room))
        rows = [k for k in range(first, min(scrolled, first + room))]
        self._column = self._value_column(ctx, rect, size, label_w)
        for slot, k in enumerate(rows):
            self._row(surface, ctx, pygame.Rect(rect.left, rect.top + slot * row_h, rect.width, row_h), k, size,
                      pen, label_w)
        if pinned:
            self._row(surface, ctx, pygame.Rect(rect.left, rect.top + room * row_h, rect.width, row_h), n - 1, size,
                      pen, label_w)

    def _value_column(self, ctx, rect: pygame.Rect, size: int, label_w: float) -> int:
        """Where every row's value starts: ``label_w`` of the width, or right of the longest label
        when the longest value still fits (one column for the list, not one per row)."""
        left, right = rect.left + int(size * 1.3), rect.right - size // 3
        shown = [(item, item.value()) for item in self.items if item.value is not None]
        shown = [(item, value) for item, value in shown if value]
        if not shown:
            return int(rect.left + rect.width * label_w)
        labels = max(left + ctx.text.size_of(item.label, size, True)[0] for item, _ in shown) + size // 2
        values = max(ctx.text.size_of(f"<  {value}  >" if item.change is not None else value, size, True)[0] for item, value in shown)
        return int(max(rect.left + rect.width * label_w, min(labels, right - values)))

    def _row(self, surface, ctx, row: pygame.Rect, k: int, size: int, pen, label_w: float) -> None:
        item = self.items[k]
        self.rects[k] = row
        on = k == self.index
        if on:
            surface.blit(ctx.text.panel(row.size, (*pen.light, 110)), row)
            theme.draw_symbol(surface, pen.symbol, (row.left + size * 0.6, row.centery), size * 0.32, pen.color)
        color = theme.INK if item.enabled() else theme.ILLEGAL
        text, gap = ctx.text, size // 2
        left, right = row.left + int(size * 1.3), row.right - size // 3
        value = item.value() if item.value is not None else None
        if value and item.brief is not None:
            room = right - max(self._column, left + text.size_of(item.label, size, on)[0] + gap)
            if text.size_of(value, int(size * 0.7), on)[0] > room:
                value = item.brief()
        if value is not None and item.change is not None and on:
            value = f"<  {value}  >"
        if value:
            # The value's column, moved right when the label needs the room and the value does not,
            # then both drawn smaller (and cut at a word, last of all) to keep them in the row.
            label_end = left + text.size_of(item.label, size, on)[0]
            value_w = text.size_of(value, size, on)[0]
            x = int(max(self._column, min(label_end + gap, right - value_w)))
            value_size = text.fit(value, size, right - x, on)
            value = text.shorten(value, value_size, right - x, on)
            text.blit(surface, value, value_size, pen.color if on else theme.GRAPHITE, (x, row.centery), "midleft",
                      bold=on)
            right = x - gap
        label_size = text.fit(item.label, size, right - left, on)
        if item.two_lines and text.size_of(item.label, label_size, on)[0] > right - left:
            if self._two_lines(surface, ctx, row, item.label, left, right, size, color, on):
                return
            self.cut.add(k)
        label = text.shorten(item.label, label_size, right - left, on)
        if label != item.label:
            self.cut.add(k)
        text.blit(surface, label, label_size, color, (left, row.centery), "midleft", bold=on)

    @staticmethod
    def _two_lines(surface, ctx, row: pygame.Rect, label: str, left: int, right: int, size: int, color,
                   on: bool) -> bool:
        """``label`` on two lines of the row, broken at a word, at the largest size two lines of it fit
        the row's height; False (nothing drawn) when even then it needs a third."""
        text = ctx.text
        px = min(int(size * 0.8), int(row.height / 2.3))
        lines = wrap_to(text, label, px, right - left, on)
        while len(lines) > 2 and px > size * 0.55:
            px -= 1
            lines = wrap_to(text, label, px, right - left, on)
        if len(lines) > 2 or any(text.size_of(line, px, on)[0] > right - left for line in lines):
            return False
        step = int(px * 1.1)
        for n, line in enumerate(lines):
            text.blit(surface, line, px, color, (left, row.centery - step // 2 + n * step), "midleft", bold=on)
        return True


#: The rules' option names as the rules screen and the pause menu's rules card spell them.
RULE_LABELS = {"movement": "Movement", "start": "Start", "offroad_check": "Off-road check",
               "offroad_penalty": "Off-road penalty", "collision": "Collisions",
               "collide_in_motion": "Collide in motion", "finish": "Finish", "order": "Choosing order",
               "checkpoints": "Checkpoints", "setback_moves": "Set-back moves", "fine_range": "Fine paper range",
               "catch_up": "Catch-up", "handicap": "Handicaps"}


def rule_label(name: str) -> str:
    """An option of the rules as players read it ("offroad_penalty" -> "Off-road penalty")."""
    return RULE_LABELS.get(name, name.replace("_", " ").capitalize())


def rule_value(value) -> str:
    """A rule's value as players read it ("reset_skip" -> "reset skip", True -> "yes")."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value).replace("_", " ")


def timer_text(seconds: int) -> str:
    return f"{seconds} s a move" if seconds else "off"


TIMER_HELP = ("Seconds each player has to choose, whatever the rules. When they run out the car keeps its "
              "line (its base point), or the Champion steers when that is not allowed. CPUs are never hurried.")


def timer_item(ctx, saved) -> Item:
    """The menu row that sets the move timer (remembered in the settings); ``saved(message)`` hears the result."""
    def change(step: int) -> None:
        now = ctx.settings.move_timer
        k = TIMER_CHOICES.index(now) if now in TIMER_CHOICES else 0
        ctx.settings.move_timer = TIMER_CHOICES[(k + step) % len(TIMER_CHOICES)]
        saved(ctx.save_settings())

    return Item("Move timer", value=lambda: timer_text(ctx.settings.move_timer), change=change, help=TIMER_HELP)
