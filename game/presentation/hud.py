"""The heads-up display: one row per car (pen, name, speed, lap, place, penalties) and the
race line (track, rules, phase and par). Text is rendered at the window's pixel size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import pygame

from game.core.race import FINISHED, RaceState
from game.presentation import theme
from game.presentation.text import TextCache


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
        if state.rules.checkpoints == "ordered" or not p.balance:
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


def penalty_text(car) -> str:
    if car.status == FINISHED:
        return "finished"
    if car.status != "racing":
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


def font_size(surface_size: tuple[int, int]) -> int:
    return int(max(13, min(28, surface_size[1] / 46)))


def hud_columns(size: int) -> list[tuple[str, float]]:
    return [("", size * 1.5), ("", size * 5.6), ("speed", size * 2.9), ("lap", size * 2.5),
            ("pos", size * 2.0), ("", size * 7.0)]


def hud_size(surface_size: tuple[int, int], cars: int) -> tuple[int, int]:
    """Width and height of the car table (the camera keeps the track clear of it)."""
    size = font_size(surface_size)
    pad = size // 2
    row_h = int(size * 1.45)
    width = int(sum(w for _, w in hud_columns(size))) + 2 * pad
    return width + pad, pad * 3 + row_h * (cars + 2)


def draw_hud(surface: pygame.Surface, text: TextCache, state: RaceState, pens: Sequence[theme.Pen],
             names: Sequence[str], lines: Sequence[CarLine], title: str) -> pygame.Rect:
    """Draw the car table in the top-left corner and the race line above it; returns the panel rect.

    The panel is composed once per change of what it says and then blitted whole.
    """
    size = font_size(surface.get_size())
    pad = size // 2
    places = race_places(state)
    laps = state.laps
    rows = []
    for i, car in enumerate(state.cars):
        lap = min(car.laps_done + 1, laps) if car.racing else car.laps_done
        marker = lines[i].marker if i < len(lines) else ""
        rows.append((i, names[i][:12], speed_text(car.velocity.chebyshev(), state.track.scale), f"{lap}/{laps}", places[i],
                     marker or penalty_text(car), bool(marker), car.racing or car.status == FINISHED,
                     car.status in ("crashed", "disqualified") or bool(car.skip)))
    width, height = hud_size(surface.get_size(), len(state.cars))
    panel = pygame.Rect(pad, pad, width - pad, height - 2 * pad)
    key = ("hud", size, title, tuple(rows), tuple(pens))
    image = text.composed(key, lambda: _compose_hud(text, size, panel.size, title, rows, pens))
    surface.blit(image, panel)
    return panel


def _compose_hud(text: TextCache, size: int, panel_size, title: str, rows, pens) -> pygame.Surface:
    image = pygame.Surface(panel_size, pygame.SRCALPHA)
    image.fill(theme.HUD_BG)
    pygame.draw.rect(image, theme.GRAPHITE_LIGHT, image.get_rect(), 1)
    small = int(size * 0.8)
    pad = size // 2
    row_h = int(size * 1.45)
    cols = hud_columns(size)
    x0, y = pad, pad
    text.blit(image, title, size, theme.HUD_TEXT, (x0, y), bold=True)
    y += row_h
    x = x0
    for label, w in cols:
        text.blit(image, label, small, theme.HUD_DIM, (x, y + (size - small)))
        x += w
    y += row_h
    for i, name, speed, lap, place, note, is_marker, lit, bad in rows:
        pen = pens[i]
        x = x0
        theme.draw_symbol(image, pen.symbol, (x + size * 0.6, y + size * 0.55), size * 0.42, pen.color)
        x += cols[0][1]
        color = theme.HUD_TEXT if lit else theme.HUD_DIM
        text.blit(image, name, size, pen.color, (x, y), bold=True)
        x += cols[1][1]
        text.blit(image, speed, size, color, (x, y))
        x += cols[2][1]
        text.blit(image, lap, size, color, (x, y))
        x += cols[3][1]
        text.blit(image, f"P{place}", size, color, (x, y), bold=place == 1)
        x += cols[4][1]
        note_color = pen.color if is_marker else theme.DOOM if bad else theme.HUD_DIM
        text.blit(image, note, small, note_color, (x, y + (size - small)))
        y += row_h
    return image


def draw_prompt(surface: pygame.Surface, text: TextCache, message: str, color=theme.HUD_TEXT) -> None:
    """One line of help at the bottom centre, on a paper band."""
    if not message:
        return
    size = font_size(surface.get_size())
    rendered = text.render(message, size, color)
    rect = rendered.get_rect(midbottom=(surface.get_width() // 2, surface.get_height() - size // 2))
    band = rect.inflate(size, size // 2)
    surface.blit(text.panel(band.size, theme.HUD_BG), band)
    pygame.draw.rect(surface, theme.GRAPHITE_LIGHT, band, 1)
    surface.blit(rendered, rect)
