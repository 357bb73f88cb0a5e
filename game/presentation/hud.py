"""The heads-up display: a narrow strip along the top of the window with one card per car
(pen, name, place, speed, lap, penalties) and the race line (track, rules, phase and par).
Text is rendered at the window's pixel size, with sizes chosen from the window height, and
the strip is composed only when what it says changes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import pygame

from game.core.race import FINISHED, OUT, RACING, RaceState
from game.presentation import theme
from game.presentation.text import TextCache


#: HUD notes that mean "this player's turn now" (their card is washed in their colour).
TURN_MARKERS = ("choosing", "to move")


@dataclass(frozen=True)
class CarLine:
    """What the HUD says about one car, beyond what the state holds."""

    marker: str = ""  # "ready", "to move", "thinking", ...


def race_places(state: RaceState) -> list[int]:
    """Each car's place right now: finished cars by result, the rest by progress round the track."""
    outcome = state.outcome()
    track = state.track
    gates = (*track.checkpoints, track.finish)

    def progress_key(i: int):
        car = state.cars[i]
        if outcome.ranks[i] is not None:
            return (0, outcome.ranks[i], 0.0)
        p = car.progress
        if state.rules.ordered_checkpoints or not p.balance:
            done = p.next_checkpoint
        else:
            done = sum(1 for b in p.balance if b > 0)
        nxt = gates[min(done, len(gates) - 1)]
        if nxt.is_line:
            cx, cy = (nxt.a[0] + nxt.b[0]) / 2, (nxt.a[1] + nxt.b[1]) / 2
        else:
            cx, cy = min(nxt.cells) if nxt.cells else (0, 0)
        dist = math.hypot(car.position.x - cx, car.position.y - cy)
        out = 0 if car.racing else 1
        return (1, out, -(p.laps_done * 100 + done), dist)

    order = sorted(range(len(state.cars)), key=progress_key)
    places = [0] * len(state.cars)
    for place, i in enumerate(order, start=1):
        places[i] = place
    return places


def overtaken(before: RaceState, after: RaceState) -> bool:
    """Whether a car passed another between two states: two cars racing in both changed places."""
    a, b = race_places(before), race_places(after)
    racing = [i for i, car in enumerate(before.cars) if car.racing and after.cars[i].racing]
    return any((a[i] < a[j]) != (b[i] < b[j]) for i in racing for j in racing if i < j)


def penalty_text(car) -> str:
    if car.status == FINISHED:
        return "finished"
    if car.status != RACING:
        return car.status
    bits = []
    if car.skip:
        bits.append(f"misses {car.skip} turn" + ("s" if car.skip > 1 else ""))
    if car.on_paper:
        bits.append("on the paper")
    if car.offences:
        bits.append(f"{car.offences} offence" + ("s" if car.offences > 1 else ""))
    return ", ".join(bits)


def speed_text(speed: int, scale: int = 1) -> str:
    """A speed in paper squares per move (fine paper counts in tenths of a square)."""
    if scale <= 1:
        return str(speed)
    return f"{speed / scale:.1f}"


def font_size(surface_size: tuple[int, int], text_scale: float = 1.0) -> int:
    """The HUD's name size in pixels, from the window height and the text-size setting
    (18 at 540 lines, 24 at 720, 36 at 1080: read from a sofa three metres away)."""
    return int(max(12, surface_size[1] / 30 * max(0.5, text_scale)))


def small_size(size: int) -> int:
    """The size of the HUD's figures and notes for names of ``size`` (33 at 1080 lines:
    the default font's lines are then 22 pixels tall, its digits 17)."""
    return max(11, math.ceil(size * 0.89))


@dataclass(frozen=True)
class HudLayout:
    """Where the HUD strip's parts go: one card per car across the top, the race title at the right."""

    size: int  # font size of names
    small: int  # font size of the figures and notes
    pad: int
    card_w: int
    title_w: int
    height: int
    width: int
    per_row: int = 8  # cards in one row (large text on a narrow window: two rows)
    row_h: int = 0


def hud_layout(surface_size: tuple[int, int], cars: int, text_scale: float = 1.0) -> HudLayout:
    """The strip along the top of the window: as narrow as two lines of text, as wide as it needs
    (a second row of cards when large text leaves no room for all of them in one)."""
    size = font_size(surface_size, text_scale)
    small = small_size(size)
    pad = max(3, size // 3)
    title_w = int(size * 9.5)
    free = surface_size[0] - title_w - 3 * pad
    cars = max(1, cars)
    per_row = max(1, min(cars, int(free // (size * 4.5))))
    rows = -(-cars // per_row)
    per_row = -(-cars // rows)  # rows as even as they can be
    card_w = int(max(size * 4.5, min(size * 9.5, free / per_row)))
    row_h = pad * 2 + int(size * 1.2) + int(small * 1.25)
    # few cars leave room: the race line (a time trial's medals, say) takes more of it
    title_w = int(max(title_w, min(size * 16, surface_size[0] - 3 * pad - card_w * per_row)))
    width = min(surface_size[0], card_w * per_row + title_w + 3 * pad)
    return HudLayout(size, small, pad, card_w, title_w, row_h * rows, width, per_row, row_h)


def hud_size(surface_size: tuple[int, int], cars: int, text_scale: float = 1.0) -> tuple[int, int]:
    """Width and height of the HUD strip (the camera keeps the track clear of it)."""
    layout = hud_layout(surface_size, cars, text_scale)
    return surface_size[0], layout.height


def draw_hud(surface: pygame.Surface, text: TextCache, state: RaceState, pens: Sequence[theme.Pen],
             names: Sequence[str], lines: Sequence[CarLine], title: str,
             places: Sequence[int] | None = None, text_scale: float = 1.0) -> pygame.Rect:
    """Draw the HUD strip along the top of the window; returns its rect.

    One card per car: its symbol and name, then place, speed (squares per move), lap and
    a note (penalties, or who is choosing). A car whose player is choosing has its card
    washed in its own colour with a bar of that colour beneath, so the room sees whose
    turn it is. The strip is composed once per change of what it says and then blitted
    whole; ``places`` (from :func:`race_places`) may be passed in by a caller that keeps
    them per state.
    """
    token = (id(state), tuple(lines), title, None if places is None else tuple(places), tuple(pens), tuple(names),
             surface.get_size(), text_scale)
    image, panel = text.last("hud", token, lambda: _hud_image(surface.get_size(), text, state, pens, names, lines,
                                                             title, places, text_scale), keep=state)
    surface.blit(image, panel)
    text.note_panel(surface, panel)
    return panel.copy()


def _hud_image(surface_size, text: TextCache, state: RaceState, pens, names, lines, title, places, text_scale):
    """The HUD strip's image and where it goes (see :func:`draw_hud`)."""
    layout = hud_layout(surface_size, len(state.cars), text_scale)
    places = race_places(state) if places is None else places
    laps = state.laps
    rows = []
    for i, car in enumerate(state.cars):
        lap = min(car.laps_done + 1, laps) if car.racing else car.laps_done
        marker = lines[i].marker if i < len(lines) else ""
        rows.append((i, names[i][:12], speed_text(car.velocity.chebyshev(), state.track.scale), f"{lap}/{laps}",
                     places[i], marker or penalty_text(car), bool(marker), car.racing or car.status == FINISHED,
                     car.status in OUT or bool(car.skip)))
    panel = pygame.Rect(0, 0, layout.width, layout.height)
    panel.centerx = surface_size[0] // 2
    key = ("hud", layout, title, tuple(rows), tuple(pens))
    return text.composed(key, lambda: _compose_hud(text, layout, title, rows, pens)), panel


def _compose_hud(text: TextCache, layout: HudLayout, title: str, rows, pens) -> pygame.Surface:
    image = _opaque((layout.width, layout.height))
    image.fill(theme.HUD_BG[:3])
    pygame.draw.line(image, theme.GRAPHITE_LIGHT, (0, layout.height - 1), (layout.width, layout.height - 1))
    size, small, pad = layout.size, layout.small, layout.pad
    row_h = layout.row_h or layout.height
    for k, (i, name, speed, lap, place, note, is_marker, lit, bad) in enumerate(rows):
        pen = pens[i]
        top = (k // layout.per_row) * row_h
        x = pad + (k % layout.per_row) * layout.card_w
        line2 = top + pad + int(size * 1.2)
        card = pygame.Rect(x, top, layout.card_w - pad, row_h)
        if is_marker and note in TURN_MARKERS:  # this player's turn: the card in their colour
            wash = tuple(int(c + (b - c) * 0.82) for c, b in zip(pen.color, theme.HUD_BG[:3]))
            image.fill(wash, card.inflate(pad // 2, 0))
            image.fill(pen.color, (card.left - pad // 4, card.bottom - max(3, pad // 2), card.width + pad // 2,
                                   max(3, pad // 2)))
        image.set_clip(card)
        r = size * 0.4
        theme.draw_symbol(image, pen.symbol, (x + r + 1, top + pad + size * 0.55), r, pen.color if lit else pen.light)
        name_size = fit_size(text, name, size, card.right - pad // 2 - (x + 2 * r + pad), least=small * 0.75)
        lift = text.font(size, True).get_ascent() - text.font(name_size, True).get_ascent()  # on one baseline
        text.blit(image, name, name_size, pen.color if lit else pen.light, (x + 2 * r + pad, top + pad + lift),
                  bold=True)
        color = theme.HUD_TEXT if lit else theme.HUD_DIM
        at = text.blit(image, f"P{place}", small, color, (x, line2), bold=place == 1).right + pad
        at = text.blit(image, speed, small, color, (at, line2)).right
        at = text.blit(image, "sq", max(9, int(small * 0.75)), theme.HUD_DIM, (at + 1, line2 + small // 5)).right + pad
        at = text.blit(image, lap, small, color, (at, line2)).right + pad
        turn = is_marker and note in TURN_MARKERS
        if note and not (turn and at + text.size_of(note, small, True)[0] > card.right):
            # (a turn marker too long for a narrow card is left out: the card's colour says it)
            note_color = pen.color if is_marker else theme.DOOM if bad else theme.HUD_DIM
            fitted = fit_note(text, note, small, card.right - pad // 4 - at, is_marker)
            if fitted is not None:
                words, note_size = fitted
                text.blit(image, words, note_size, note_color, (at, line2 + (small - note_size) // 2),
                          bold=is_marker)
        image.set_clip(None)
        x += layout.card_w
        pygame.draw.line(image, theme.GRID_MINOR, (x - pad // 2 - 1, top + pad), (x - pad // 2 - 1, top + row_h - pad))
    x = pad + layout.per_row * layout.card_w
    line2 = pad + int(size * 1.2)
    head, _, tail = title.rpartition("  ·  ")
    if not head:
        head, tail = title, ""
    right = layout.width - pad
    image.set_clip(pygame.Rect(x, 0, layout.width - x, layout.height))
    text.blit(image, head, size, theme.HUD_TEXT, (right, pad), "topright", bold=True)
    text.blit(image, tail, small, theme.HUD_DIM, (right, line2), "topright")
    image.set_clip(None)
    return image


def fit_note(text: TextCache, note: str, size: int, width: float, marker: bool) -> tuple[str, int] | None:
    """A card's note and its size to fit ``width`` pixels, drawn smaller (to 70 %) where it is too
    wide (large text on four or more cards cut "misses 1 turn" and "thinking..." off at the card's
    edge). A penalty that still does not fit loses its last word ("misses 2"), then is cut with
    "..."; a marker ("thinking...") that does not fit is left out (None), as the prompt at the
    foot of the screen says it."""
    brief = note.rsplit(" ", 1)[0] if note.endswith((" turn", " turns")) else note
    for words in dict.fromkeys((note, brief)):
        fitted = text.fit(words, size, width, marker)
        if text.size_of(words, fitted, marker)[0] <= width:
            return words, fitted
    if marker:
        return None
    fitted = text.fit(brief, size, width)
    return text.shorten(brief, fitted, width), fitted


def fit_size(text: TextCache, words: str, size: int, width: float, least: float) -> int:
    """The font size, ``size`` or smaller down to ``least``, at which bold ``words`` fit ``width``
    pixels (a long name on a narrow card is drawn smaller rather than cut off)."""
    while size > least and text.size_of(words, size, True)[0] > width:
        size -= 1
    return size


def _opaque(size: tuple[int, int]) -> pygame.Surface:
    """A surface in the display's format when there is one (blits are then cheapest)."""
    surf = pygame.Surface(size)
    if pygame.display.get_init() and pygame.display.get_surface() is not None:
        return surf.convert()
    return surf


def prompt_height(surface_size: tuple[int, int], text_scale: float = 1.0) -> int:
    """Pixels the prompt band takes at the bottom of the window (the camera keeps clear of it)."""
    size = small_size(font_size(surface_size, text_scale))
    return int(size * 2.2)


def draw_prompt(surface: pygame.Surface, text: TextCache, message, color=theme.HUD_TEXT,
                text_scale: float = 1.0) -> None:
    """One line of help at the bottom centre, on a paper band.

    ``message`` is a string, or a sequence of ``(text, colour, bold)`` pieces (a player's
    name in their own colour); a line too wide for the window is drawn smaller.
    """
    if not message:
        return
    pieces = [(message, color, False)] if isinstance(message, str) else list(message)
    size = small_size(font_size(surface.get_size(), text_scale))
    images = [text.render(t, size, c, bold) for t, c, bold in pieces]  # cached: no work while it stays
    width = sum(i.get_width() for i in images)
    if width > surface.get_width() - size * 2:
        size = max(10, int(size * (surface.get_width() - size * 2) / width))
        images = [text.render(t, size, c, bold) for t, c, bold in pieces]
    rect = pygame.Rect(0, 0, sum(i.get_width() for i in images), max(i.get_height() for i in images))
    rect.midbottom = (surface.get_width() // 2, surface.get_height() - size // 2)
    band = rect.inflate(size, size // 2)
    surface.blit(text.panel(band.size, theme.HUD_BG), band)
    pygame.draw.rect(surface, theme.GRAPHITE_LIGHT, band, 1)
    text.note_panel(surface, band)
    x = rect.left
    for image, (words, _, _) in zip(images, pieces):
        text.put(surface, image, (x, rect.bottom - image.get_height()), words)
        x += image.get_width()
