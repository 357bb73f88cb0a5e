"""The paper's frame plan: which level, which tiles, how much work, decided without a clock.

The planner (``paper_plan``) is plain Python; the sheet paints what it says. So the same
frames give the same pixels on a fast machine and on a slow one: the last test draws a race
twice under two fake clocks, one barely moving and one running 30 ms a call, and compares
every frame's pixels.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pytest

from game.presentation import paper_plan as plan
from game.presentation.paper_plan import TILE, FrameBudget, Look

ROOT = Path(__file__).resolve().parent.parent
SIZE = (1920, 1080)  # a screenful of tiles: the first frame shows stand-ins, sharpened over the next


def look(scale=32.0, target=None, view=(0.0, 0.0, 30.0, 16.875), settled=True):
    return Look(scale, scale if target is None else target, view, view, settled)


def test_the_planner_imports_without_pygame():
    script = "import sys; sys.modules['pygame'] = None\nimport game.presentation.paper_plan\n"
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_tiles_of_a_view_and_the_ring_round_it():
    view = (0.0, 0.0, TILE * 2.5 / 32, TILE * 1.5 / 32)  # two and a half tiles by one and a half at 32 px
    assert list(plan.tile_range(view, 32.0)) == [(x, y) for y in range(2) for x in range(3)]
    ring = set(plan.tile_range(view, 32.0, ring=1))
    assert len(ring) == 5 * 4 - 3 * 2 and not ring & set(plan.tile_range(view, 32.0))


def test_a_standing_camera_shows_its_own_level_and_a_zooming_one_the_best_cached_level():
    view = (0.0, 0.0, 20.0, 10.0)
    assert plan.frame_level({}, look(40.0, view=view, settled=False)) == 40.0  # nothing cached: its own
    full = {32.0: set(plan.tile_range(view, 32.0)), 48.0: {(0, 0)}}
    assert plan.frame_level(full, look(40.0, view=view, settled=False)) == 32.0  # covers the view
    assert plan.frame_level(full, look(40.0, view=view, settled=True)) == 40.0


def test_a_stand_in_comes_from_the_level_nearest_in_scale_that_covers_the_tile():
    levels = {16.0: {(0, 0)}, 64.0: {(0, 0), (1, 0), (0, 1), (1, 1)}, 24.0: set()}
    assert plan.fallback(levels, 32.0, 0, 0, 40.0) == (64.0, [(0, 0), (1, 0), (0, 1), (1, 1)])
    assert plan.fallback(levels, 32.0, 0, 0, 20.0)[0] == 16.0
    assert plan.fallback({64.0: {(0, 0)}}, 32.0, 0, 0, 32.0) is None  # half a tile: no stand-in


def test_a_frame_draws_missing_tiles_up_to_its_budget_and_at_least_one():
    assert all(plan.draws_now(FrameBudget(sync=None), n) for n in range(50))
    assert [plan.draws_now(FrameBudget(sync=2), n) for n in range(4)] == [True, True, False, False]
    assert plan.draws_now(FrameBudget(sync=0), 0) and not plan.draws_now(FrameBudget(sync=0), 1)


@pytest.mark.parametrize("idle, first, missing, costly, settled, expected", [
    (True, True, True, False, True, "first"),
    (True, False, True, False, True, "sharpen"),
    (True, False, False, True, True, "idle"),
    (False, False, False, False, False, 0),  # zooming: the frame scales, nothing drawn ahead
    (False, False, False, True, True, 0),  # a costly frame with nothing missing stays as it is
    (False, False, True, True, True, "spare"),
    (False, False, False, False, True, "spare"),
])
def test_how_many_tiles_a_frame_draws_ahead(idle, first, missing, costly, settled, expected):
    budget = FrameBudget(sync=None, spare=1, idle=3, sharpen=7, first=2)
    want = getattr(budget, expected) if isinstance(expected, str) else expected
    assert plan.spare_count(budget, look(settled=settled), idle, True, first, missing, costly) == want


def test_drawing_ahead_looks_where_the_camera_heads_first():
    heading = Look(32.0, 64.0, (0.0, 0.0, 30.0, 16.0), (50.0, 50.0, 60.0, 55.0), False)
    queue = plan.spare_queue(heading, 32.0, None, (0.0, 0.0, 0.0, 0.0), idle=False)
    first = list(plan.tile_range(heading.target_view, 64.0))
    assert queue[:len(first)] == [(64.0, tx, ty) for tx, ty in first]


# -- the same pixels on a fast machine and a slow one ------------------------------------

def _frames(seconds_per_call: float) -> list[str]:
    """Every frame of a replayed race on a big track, as pixel digests, with ``time.perf_counter``
    a fake clock that moves ``seconds_per_call`` on each call (a fast or a slow machine)."""
    import pygame

    from game import paths
    from game.core import RaceState, preset
    from game.presentation.app import init_pygame
    from game.presentation.race_scene import RaceScene, RaceSettings
    from tests.standin import StandInCPU
    from game.race.controller import RaceController, Seat
    from game.tracks import load_track_ref

    init_pygame(headless=True)
    screen = pygame.display.set_mode(SIZE)
    track = load_track_ref("grand-prix/sweepers", builtin_dir=paths.builtin_tracks_dir())
    state = RaceState.start(track, preset("phases"), ["A", "B"], seed=1)
    ctl = RaceController(state, [Seat(n, StandInCPU()) for n in "AB"], seed=1)
    while len(ctl.records) < 4:  # the phases are played first: the frames need no CPU thread
        ctl.tick()
    scene = RaceScene(ctl, SIZE, settings=RaceSettings(intro=True, camera_drift=False, show_doomed=False))
    now = [0.0]

    def clock() -> float:
        now[0] += seconds_per_call
        return now[0]

    real = time.perf_counter
    time.perf_counter = clock
    digests = []
    try:
        for k in range(80):  # the intro (the first frame, stand-ins sharpened), then phases replayed
            scene.update(1 / 20)
            scene.draw(screen)
            if k % 3 == 0:
                digests.append(hashlib.sha1(pygame.image.tobytes(screen, "RGB")).hexdigest())
    finally:
        time.perf_counter = real
        scene.exit()
    return digests


def test_the_paper_is_drawn_the_same_on_a_fast_machine_and_a_slow_one():
    fast, slow = _frames(0.00001), _frames(0.030)
    assert len(fast) == len(slow) == 27
    differ = [k * 3 for k, (a, b) in enumerate(zip(fast, slow)) if a != b]
    assert not differ, f"frames {differ[:10]} differ between the machine speeds"
