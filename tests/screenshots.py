"""Screenshots the visual tests leave for a person to open: ``build/screenshots/NAME.png`` and a
quarter-size ``NAME-sofa.png`` (a 1080p picture seen from a sofa's distance)."""

from __future__ import annotations

from pathlib import Path

import pygame

SHOTS = Path(__file__).parent.parent / "build" / "screenshots"


def save_screenshot(surface: pygame.Surface, name: str, *, sofa: bool = True) -> Path:
    """Save ``surface`` as NAME.png (and NAME-sofa.png at a quarter size) under build/screenshots,
    creating the folder on a clean checkout; returns the full-size file's path."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    pygame.image.save(surface, str(path))
    if sofa:
        w, h = surface.get_size()
        pygame.image.save(pygame.transform.smoothscale(surface, (w // 4, h // 4)), str(SHOTS / f"{name}-sofa.png"))
    return path
