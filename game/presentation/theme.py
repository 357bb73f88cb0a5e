"""Colours, pens and symbols: how the paper, the track and each car look.

Each car is a pen with its own colour *and* symbol, so cars stay apart for colour-blind
players (the palette is Okabe-Ito's, darkened to read as ink on paper).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pygame

Color = tuple[int, int, int]

PAPER: Color = (247, 245, 236)
OFFROAD: Color = (234, 233, 224)  # the paper around the road: a little greyer...
HATCH: Color = (203, 202, 196)  # ...and hatched with a light pencil
GRID_MINOR: Color = (203, 220, 236)
GRID_MAJOR: Color = (150, 182, 216)
GRID_MM: Color = (224, 233, 242)  # the millimetre lines of fine paper, fainter still
MARGIN: Color = (222, 110, 110)
GRAPHITE: Color = (62, 62, 70)
GRAPHITE_LIGHT: Color = (120, 120, 128)
CHECKPOINT: Color = (0, 128, 128)
INK: Color = (30, 30, 40)
WARN: Color = (220, 130, 0)
DOOM: Color = (170, 20, 40)
ILLEGAL: Color = (150, 150, 150)
HUD_BG = (250, 249, 242, 225)
HUD_TEXT: Color = (35, 35, 45)
HUD_DIM: Color = (110, 110, 120)

SYMBOLS = ("circle", "square", "triangle", "diamond", "cross", "star", "hexagon", "plus")
COLORS: tuple[Color, ...] = (
    (0, 114, 178),    # blue
    (213, 94, 0),     # vermillion
    (0, 158, 115),    # bluish green
    (204, 121, 167),  # reddish purple
    (200, 140, 0),    # orange (darkened)
    (40, 40, 40),     # black
    (86, 180, 233),   # sky blue
    (150, 130, 30),   # olive (yellow darkened to read on paper)
)


@dataclass(frozen=True)
class Pen:
    """The look of one car: its ink colour and its symbol."""

    color: Color
    symbol: str

    @property
    def light(self) -> Color:
        """The colour washed out toward the paper (ghosts and faint vectors)."""
        return tuple(int(c + (p - c) * 0.55) for c, p in zip(self.color, PAPER))


def pens(count: int) -> list[Pen]:
    """Pens for ``count`` cars: colour and symbol both differ for the first eight."""
    return [Pen(COLORS[i % len(COLORS)], SYMBOLS[i % len(SYMBOLS)]) for i in range(count)]


def symbol_points(symbol: str, center: tuple[float, float], r: float) -> list[tuple[float, float]] | None:
    """The polygon of a symbol (None for the circle, which is drawn as a circle)."""
    cx, cy = center

    def ring(n, radius, start):
        return [(cx + radius * math.cos(start + 2 * math.pi * k / n),
                 cy + radius * math.sin(start + 2 * math.pi * k / n)) for k in range(n)]

    if symbol == "circle":
        return None
    if symbol == "square":
        s = r * 0.85
        return [(cx - s, cy - s), (cx + s, cy - s), (cx + s, cy + s), (cx - s, cy + s)]
    if symbol == "triangle":
        return ring(3, r * 1.15, -math.pi / 2)
    if symbol == "diamond":
        return ring(4, r * 1.15, -math.pi / 2)
    if symbol == "hexagon":
        return ring(6, r * 1.05, 0)
    if symbol == "star":
        outer, inner = ring(5, r * 1.25, -math.pi / 2), ring(5, r * 0.55, -math.pi / 2 + math.pi / 5)
        return [p for pair in zip(outer, inner) for p in pair]
    if symbol in ("cross", "plus"):
        a, b = r * 1.05, r * 0.38
        shape = [(-b, -a), (b, -a), (b, -b), (a, -b), (a, b), (b, b), (b, a), (-b, a), (-b, b), (-a, b), (-a, -b),
                 (-b, -b)]
        if symbol == "cross":
            c = math.cos(math.pi / 4)
            shape = [(x * c - y * c, x * c + y * c) for x, y in shape]
        return [(cx + x, cy + y) for x, y in shape]
    raise ValueError(f"unknown symbol {symbol!r}")


def draw_symbol(surface, symbol: str, center, r: float, color: Color, outline: Color | None = INK,
                filled: bool = True, width: int = 2) -> None:
    """Draw a car symbol of radius ``r`` pixels, filled with an outline, or hollow."""
    pts = symbol_points(symbol, center, r)
    if pts is None:
        if filled:
            pygame.draw.circle(surface, color, center, r)
            if outline:
                pygame.draw.circle(surface, outline, center, r, max(1, width // 2))
        else:
            pygame.draw.circle(surface, color, center, r, width)
        return
    if filled:
        pygame.draw.polygon(surface, color, pts)
        if outline:
            pygame.draw.polygon(surface, outline, pts, max(1, width // 2))
    else:
        pygame.draw.polygon(surface, color, pts, width)
