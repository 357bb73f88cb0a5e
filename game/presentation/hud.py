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


def font_size(surface_size: tuple[int, int]) -> int:
    return int(max(13, min(30, surface_size[1] / 40)))


def draw_hud(surface: pygame.Surface, text: TextCache, state: RaceState, pens: Sequence[theme.Pen],
             names: Sequence[str], lines: Sequence[CarLine], title: str) -> pygame.Rect:
    """Draw the car table in the top-left corner and the race line above it; returns the panel rect."""
    size = font_size(surface.get_size())
    small = int(size * 0.8)
    pad = size // 2
    places = race_places(state)
    row_h = int(size * 1.45)
    cols = [("", size * 1.6), ("name", size * 6.2), ("speed", size * 3.2), ("lap", size * 3.2),
            ("pos", size * 2.4), ("", size * 9.5)]
    width = int(sum(w for _, w in cols)) + 2 * pad
    height = pad * 2 + row_h * (len(state.cars) + 2)
    panel = pygame.Rect(pad, pad, width, height)
    surface.blit(text.panel(panel.size, theme.HUD_BG), panel)
    pygame.draw.rect(surface, theme.GRAPHITE_LIGHT, panel, 1)
    x0, y = panel.left + pad, panel.top + pad
    text.blit(surface, title, size, theme.HUD_TEXT, (x0, y), bold=True)
    y += row_h
    x = x0
    for label, w in cols:
        text.blit(surface, label, small, theme.HUD_DIM, (x, y + (size - small)))
        x += w
    y += row_h
    laps = state.laps
    for i, car in enumerate(state.cars):
        pen = pens[i]
        x = x0
        cy = y + size * 0.55
        theme.draw_symbol(surface, pen.symbol, (x + size * 0.6, cy), size * 0.42, pen.color)
        x += cols[0][1]
        color = theme.HUD_TEXT if car.racing or car.status == FINISHED else theme.HUD_DIM
        text.blit(surface, names[i][:12], size, pen.color, (x, y), bold=True)
        x += cols[1][1]
        text.blit(surface, str(car.velocity.chebyshev()), size, color, (x, y))
        x += cols[2][1]
        lap = min(car.laps_done + 1, laps) if car.racing else car.laps_done
        text.blit(surface, f"{lap}/{laps}", size, color, (x, y))
        x += cols[3][1]
        text.blit(surface, f"P{places[i]}", size, color, (x, y), bold=places[i] == 1)
        x += cols[4][1]
        note = lines[i].marker if i < len(lines) and lines[i].marker else penalty_text(car)
        note_color = theme.DOOM if car.status in ("crashed", "disqualified") or car.skip else theme.HUD_DIM
        if i < len(lines) and lines[i].marker:
            note_color = pen.color
        text.blit(surface, note, small, note_color, (x, y + (size - small)))
        y += row_h
    return panel


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
