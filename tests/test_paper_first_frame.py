"""The race screen's first frame: a screenful of paper tiles is not drawn in one frame.

A race screen (a progressive sheet) whose view needs many tiles shows rough stand-ins cut
from a few coarse tiles at once and draws the real tiles over the next frames, until the
picture is exactly what a sheet drawn in one go shows. One-off pictures (render, previews)
stay exact in their only frame. The pencil border's wobble is worked out with numpy: it must
give the very points of the plain per-point loop it replaced.
"""

from __future__ import annotations

import math
import os
import random

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
import pytest

from game import paths
from game.core import RaceState, preset
from game.presentation.app import init_pygame
from game.presentation.paper import COARSE, FIRST_FRAME_TILES, TILE
from game.presentation.paper_plan import FrameBudget
from game.presentation.race_view import Moment, RaceView
from game.presentation.trackart import Wobble, wobble
from game.tracks import load_track_ref

SIZE = (1920, 1080)


@pytest.fixture(scope="module")
def screen():
    init_pygame(headless=True)
    return pygame.display.set_mode(SIZE)


@pytest.fixture(scope="module")
def sweepers():
    return load_track_ref("grand-prix/sweepers", builtin_dir=paths.builtin_tracks_dir())


def view_of(track, progressive: bool) -> tuple[RaceState, RaceView]:
    state = RaceState.start(track, preset("paper"), ["A", "B"], seed=1)
    view = RaceView(state, ["A", "B"], SIZE, seed=4, progressive=progressive)
    view.camera.drift_amount = 0.0
    view.aim(state, None)
    view.camera.snap()
    return state, view


def test_the_first_frame_draws_a_few_coarse_tiles_and_the_next_frames_sharpen_them(screen, sweepers):
    state, view = view_of(sweepers, progressive=True)
    sheet = view.board.sheet
    moment = Moment(state=state, records=[], intro=1.0)
    view.draw(screen, moment)
    level = view.camera.scale
    shown = sheet._levels[level]
    assert len(shown) > FIRST_FRAME_TILES, "the view needs a screenful of tiles"
    coarse_tiles = sheet.stats.synchronous
    assert coarse_tiles * 3 <= len(shown), f"{coarse_tiles} tiles drawn in the first frame, for {len(shown)} shown"
    sharp = sum(not tile.rough for tile in shown.values())
    assert sharp <= sheet.stats.built <= 1, "on screen: stand-ins, but for the one tile the frame had time to draw"
    for _ in range(200):  # idle frames (players choosing): the rough tiles are drawn properly
        view.draw(screen, moment)
        if not any(tile.rough for tile in sheet._levels[level].values()):
            break
    assert not any(tile.rough for tile in sheet._levels[level].values())
    view.draw(screen, moment)  # (a tile drawn in a frame's spare time shows from the next frame on)
    sharpened = screen.copy()
    _, exact = view_of(sweepers, progressive=False)
    exact.budget = FrameBudget(sync=None)  # a one-off picture, drawn whole however long it takes
    exact.draw(screen, moment)
    assert exact.board.sheet.stats.synchronous == len(shown)  # a one-off picture: every tile at once
    assert _same_pixels(sharpened, screen), "once sharpened, the paper is what a sheet drawn at once shows"


def _same_pixels(a: pygame.Surface, b: pygame.Surface) -> bool:
    return pygame.image.tobytes(a, "RGB") == pygame.image.tobytes(b, "RGB")


def test_a_small_view_is_drawn_exactly_in_its_first_frame(screen, sweepers):
    state = RaceState.start(sweepers, preset("paper"), ["A", "B"], seed=1)
    view = RaceView(state, ["A", "B"], (480, 270), seed=4, progressive=True)
    view.aim(state, None)
    view.camera.snap()
    small = pygame.Surface((480, 270))
    view.draw(small, Moment(state=state, records=[], intro=1.0))
    tiles = view.board.sheet._levels[view.camera.scale]
    assert len(tiles) <= FIRST_FRAME_TILES and not any(tile.rough for tile in tiles.values())


def test_each_stand_in_is_an_exact_part_of_a_coarse_tile():
    assert TILE % COARSE == 0


def plain_wobble(loop, field, step=0.34, closed=True):
    """The per-point loop the numpy version replaced (the reference)."""
    pts = list(loop) + ([loop[0]] if closed and loop else [])
    out = []
    for (ax, ay), (bx, by) in zip(pts, pts[1:]):
        n = max(1, int(math.ceil(math.hypot(bx - ax, by - ay) / step)))
        for k in range(n):
            t = k / n
            x, y = ax + (bx - ax) * t, ay + (by - ay) * t
            ox, oy = field.offset(x, y)
            out.append((x + ox, y + oy))
    if not closed and pts:
        x, y = pts[-1]
        ox, oy = field.offset(x, y)
        out.append((x + ox, y + oy))
    return out


def test_the_wobble_gives_the_points_of_the_plain_loop(sweepers):
    rng = random.Random(5)
    field = Wobble(3)
    loops = [[(rng.uniform(-40, 40), rng.uniform(-40, 40)) for _ in range(rng.randint(0, 12))] for _ in range(60)]
    loops += [[(1.0, 1.0)], [(2.0, 2.0), (2.0, 2.0), (5.0, 2.0)]]
    from game.presentation.paper import _coarse_loops

    loops += _coarse_loops(sweepers)
    for loop in loops:
        for closed in (True, False):
            ours, plain = wobble(loop, field, closed=closed), plain_wobble(loop, field, closed=closed)
            assert len(ours) == len(plain)
            assert all(math.isclose(a, b, abs_tol=1e-9) for p, q in zip(ours, plain) for a, b in zip(p, q))
