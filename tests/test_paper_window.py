"""The race screen's paper composed once per camera position: the very same pixels as its tiles.

A sheet drawn frame after frame keeps a window per camera (the paper composed from its
tiles) and blits that; the picture must be exactly what blitting the tiles gives, frame by
frame, while the camera pans by fractions of a pixel and by whole screens, zooms, while the
border is pencilled in and strokes are added, and with a second camera (an inset) between.
The reference is the same sheet without windows (the tile blitting that the race screen used
before, kept for one-off pictures).
"""

from __future__ import annotations

import math
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
import pytest

from game import paths
from game.presentation import theme
from game.presentation.app import init_pygame
from game.presentation.camera import Camera
from game.presentation.paper import PaperSheet, Stroke
from game.presentation.paper_plan import FrameBudget
from game.presentation.text import TextCache
from game.tracks import load_track_ref

SIZE = (1280, 720)
INSET = pygame.Rect(40, 400, 420, 260)


@pytest.fixture(scope="module")
def screen():
    init_pygame(headless=True)
    return pygame.display.set_mode(SIZE)


def sheets(ref: str):
    track = load_track_ref(ref, builtin_dir=paths.builtin_tracks_dir())
    text = TextCache()
    made = []
    for windows in (True, False):
        sheet = PaperSheet(track, text, seed=5, windows=windows)
        sheet.pens = theme.pens(4)
        made.append(sheet)
    return track, made


def strokes_along(sheet: PaperSheet, first: int, count: int) -> list[Stroke]:
    """Strokes hopping along the pencil border (so that they cross many tiles)."""
    loop = sheet.loops[0]
    out = []
    for k in range(first, first + count):
        a, b = loop[(k * 7) % len(loop)], loop[(k * 7 + 5) % len(loop)]
        out.append(Stroke(k % 4, (float(a[0]), float(a[1])), (float(b[0]), float(b[1])), (float(b[0]), float(b[1]))))
    return out


def paper_shift(cam: Camera) -> tuple[int, int]:
    """Where the camera puts the paper's origin, in whole pixels (as the tiles are blitted)."""
    ox, oy = cam.offset()
    return (round(cam.size[0] / 2 + ox - cam.center[0] * cam.scale),
            round(cam.size[1] / 2 + oy - cam.center[1] * cam.scale))


def same(a: pygame.Surface, b: pygame.Surface) -> bool:
    return pygame.image.tobytes(a, "RGB") == pygame.image.tobytes(b, "RGB")


def test_the_composed_paper_is_the_tiles_pixel_for_pixel_while_the_camera_moves(screen):
    track, (windowed, reference) = sheets("grand-prix/sweepers")
    display = pygame.display.get_surface()
    shown, expected = (pygame.Surface(SIZE, 0, display) for _ in range(2))
    main = Camera(SIZE, center=(40.0, 30.0), scale=24.0, target_center=(40.0, 30.0), target_scale=24.0)
    inset = Camera(INSET.size, center=(120.0, 80.0), scale=24.0, target_center=(120.0, 80.0), target_scale=24.0,
                   drift_amount=0.0)
    frames = still = 0
    last = [None]

    def frame(k: int) -> None:
        nonlocal frames, still
        for sheet, surface in ((windowed, shown), (reference, expected)):
            surface.fill((255, 0, 0))
            stats = sheet.blit(surface, main, budget=FrameBudget(spare=0))
            if sheet is windowed:
                main_stats = stats
            inset.scale = main.scale
            sheet.blit(surface.subsurface(INSET), inset, budget=FrameBudget(spare=0))
        assert same(shown, expected), f"frame {k}: the composed paper differs from its tiles"
        frames += 1
        shift = (paper_shift(main), main.scale)
        if shift == last[0] and k > 41 and k not in (50, 51, 90, 91, 120, 121) and not main_stats.scaled:
            still += 1  # the camera stood, the sheet did not change, nothing stands in: one blit
            assert main_stats.blits == 1 and main_stats.composed == 0, f"frame {k}: {main_stats}"
        last[0] = shift

    for k in range(150):
        for sheet in (windowed, reference):
            sheet.outline_fraction = min(1.0, k / 40)  # the intro pencils the border in
            if k in (50, 90):
                sheet.add_strokes(strokes_along(sheet, k, 12), k)
            if k == 120:  # another list of strokes (a replay seeks back): every tile is redrawn
                sheet.set_strokes(strokes_along(sheet, 3, 5), "other")
        if k == 30:
            main.target_center = (main.center[0] + 9.3, main.center[1] + 4.1)  # a pan, eased
        if k == 70:
            main.center = main.target_center = (main.center[0] + 70.0, main.center[1] + 20.0)  # a cut
        if k == 100:
            main.target_scale = 30.0  # a zoom: scaled tiles, then the new level
        inset.target_center = (120.0 + 0.37 * k, 80.0 - 0.11 * k)
        main.update(1 / 60)
        inset.update(1 / 60, drift=False)
        frame(k)
    assert main.settled and main.scale == 30.0
    assert still > 10, "frames where the camera stood blitted the window alone"
    assert frames == 150


@pytest.mark.parametrize("drift", [0.0, 0.12])
def test_a_window_costs_one_blit_while_the_camera_stands(screen, drift):
    track, (windowed, _) = sheets("starter/paper-oval")
    cam = Camera(SIZE, center=(20.0, 10.0), scale=36.0, target_center=(20.0, 10.0), target_scale=36.0,
                 drift_amount=drift)
    composed = []
    for _ in range(120):
        cam.update(1 / 60)
        composed.append(windowed.blit(screen, cam, budget=FrameBudget(spare=0)).composed)
    assert composed[0] > 4, "the first frame composes the tiles on show"
    # at rest (a drift only moves the paper a pixel now and then: a strip is composed then)
    assert sum(1 for c in composed[1:] if c == 0) >= (110 if drift == 0 else 60)
    assert max(composed[1:]) <= math.ceil(SIZE[1] / 256) + 2, "a scroll composes one row or column of tiles"
