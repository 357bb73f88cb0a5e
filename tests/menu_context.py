"""The menu tests' shared set-up: a headless display and a menu context over a copy of the
starter pack (loading every outline track is slow, and a test must never touch the real
built-in folder or the player's settings).

Each menu test module keeps its own small fixtures (its window size differs) and calls these.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import shutil
from pathlib import Path

import pygame

from game import paths
from game.presentation.app import init_pygame
from game.presentation.menus import build_context


def headless_display(size: tuple[int, int]) -> pygame.Surface:
    """The dummy video driver's window of ``size``: what the menus draw on in tests."""
    init_pygame(headless=True)
    return pygame.display.set_mode(size)


def starter_context(tmp_path: Path, size: tuple[int, int], packs: Path | None = None, seed: int = 5):
    """A menu context for a window of ``size`` whose built-in folder holds only a copy of the
    starter pack, its config under ``tmp_path / "config"``, ``packs`` its user packs folder
    (None: no user packs)."""
    builtin = tmp_path / "builtin"
    builtin.mkdir(exist_ok=True)
    shutil.copy(paths.builtin_tracks_dir() / "starter.toml", builtin / "starter.toml")
    context = build_context(tmp_path / "config", packs, builtin, seed=seed)
    context.size = size
    return context
