"""Medals on screen: a disc in gold, silver or bronze on a ribbon, with its place in it.

Shown before a time trial (what each medal takes), after it (what was won) and beside
every human's finish on a race's results screen. The metal colours are told apart by
the number in the disc too (1, 2, 3), never by colour alone.
"""

from __future__ import annotations

import pygame

from game.presentation import theme

#: Each medal's metal, its rim, and the number in it.
METALS = {
    "gold": ((222, 178, 40), (150, 112, 10), "1"),
    "silver": ((178, 182, 190), (108, 112, 122), "2"),
    "bronze": ((196, 122, 64), (128, 72, 30), "3"),
}
LABELS = {"gold": "Gold", "silver": "Silver", "bronze": "Bronze"}


def draw_medal(surface: pygame.Surface, text, medal: str, center, radius: float, ribbon: bool = True) -> pygame.Rect:
    """Draw one medal (``medal`` is "gold", "silver" or "bronze") centred at ``center``; returns its rect."""
    metal, rim, number = METALS[medal]
    cx, cy = center
    r = max(4.0, radius)
    if ribbon:
        w = r * 0.55
        for side, colour in ((-1, theme.COLORS[0]), (1, theme.DOOM)):
            top = cy - r * 2.1
            pts = [(cx + side * w * 0.2, top), (cx + side * w * 1.6, top), (cx + side * w * 0.7, cy - r * 0.6),
                   (cx - side * w * 0.1, cy - r * 0.6)]
            pygame.draw.polygon(surface, colour, pts)
    pygame.draw.circle(surface, metal, (cx, cy), r)
    pygame.draw.circle(surface, rim, (cx, cy), r, max(2, int(r / 6)))
    pygame.draw.circle(surface, rim, (cx, cy), r * 0.68, 1)
    text.blit(surface, number, max(8, int(r * 1.15)), rim, (cx, cy + r * 0.05), "center", bold=True)
    return pygame.Rect(int(cx - r), int(cy - r * (2.1 if ribbon else 1)), int(2 * r), int(r * (3.1 if ribbon else 2)))
