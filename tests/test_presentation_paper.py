"""The sheet of graph paper under the race: one grid everywhere, hatched off the road, and
cached so that a following camera only blits (headless, dummy video driver)."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

from game.presentation.camera import follow_levels
import pytest

from game import paths
from game.core import RaceState, preset
from game.presentation import theme
from game.presentation.app import init_pygame
from game.presentation.camera import Camera
from game.presentation.race_view import Moment, RaceView
from game.tracks import load_track_ref

SIZE = (960, 540)


@pytest.fixture(scope="module")
def screen():
    init_pygame(headless=True)
    return pygame.display.set_mode(SIZE)


def track(ref):
    return load_track_ref(ref, builtin_dir=paths.builtin_tracks_dir())


def view_of(ref, size=SIZE):
    t = track(ref)
    state = RaceState.start(t, preset("paper"), ["A", "B"], seed=1)
    view = RaceView(state, ["A", "B"], size)
    view.camera.drift_amount = 0.0
    return state, view


def colour(surface, x, y):
    return tuple(surface.get_at((x, y))[:3])


def test_the_whole_sheet_has_one_grid_and_the_off_road_is_hatched(screen, tmp_path):
    state, view = view_of("starter/paper-oval")
    cam = view.camera
    cam.scale = cam.target_scale = 24.0
    cam.center = cam.target_center = (20.0, 10.0)
    view.board.blit_layer(screen, cam)
    pygame.image.save(screen, str(tmp_path / "sheet.png"))
    road = state.track.region.road_nodes()
    on, off = [], []
    for x in range(8, 34):
        px = round(cam.square_to_screen((x, 0))[0])
        for y in range(1, 20):
            if x + 1 >= road.shape[1] or y + 1 >= road.shape[0]:
                continue
            # the middle of the grid line between squares (x, y) and (x, y + 1), along the line
            py = round(cam.square_to_screen((0, y + 0.5))[1])
            both_road = road[y, x] and road[y, x - 1] and road[y + 1, x] and road[y + 1, x - 1] if x else False
            both_off = not (road[y, x] or road[y, x - 1] or road[y + 1, x] or road[y + 1, x - 1]) if x else False
            r, g, b = colour(screen, px, py)
            if both_road:
                on.append(b > r + 8)
            elif both_off:
                off.append(b > r + 8)
    assert on and off
    assert sum(on) >= 0.9 * len(on), "grid lines every square on the road"
    assert sum(off) >= 0.9 * len(off), "the same grid lines off the road"
    # off the road: pencil hatching (greyer pixels among the paper), on the road a plain tint
    def found(want):
        for y in range(2, road.shape[0] - 2):
            for x in range(9, 32):
                if (road[y - 1:y + 2, x - 1:x + 2] == want).all():
                    return x, y
    x0, y0 = (round(v) for v in cam.square_to_screen(found(False)))  # off the road
    x1, y1 = (round(v) for v in cam.square_to_screen(found(True)))  # on the road

    def darkest(cx, cy):  # the darkest pixel of a square, grid lines left out
        return min(sum(colour(screen, cx + dx, cy + dy)) for dx in range(2, 10) for dy in range(2, 10))
    assert darkest(x0, y0) < sum(theme.OFFROAD) - 40
    assert darkest(x1, y1) > sum(theme.PAPER) - 45


def test_a_following_camera_pans_over_a_large_track_by_blitting_cached_paper(screen):
    state, view = view_of("grand-prix/sweepers")
    view.aim(state, None)
    cam = view.camera
    cam.snap()
    assert cam.following and cam.scale in follow_levels(view.legible())
    sheet = view.board.sheet
    for _ in range(120):  # the race's first moments: tiles round the view and the overview fill in
        sheet.blit(screen, cam)
    built = sheet.tiles_built
    costs = []
    for k in range(120):  # a slow pan to the right at a fixed zoom
        cam.center = cam.target_center = (cam.center[0] + 0.1, cam.center[1])
        costs.append(sheet.blit(screen, cam))
    assert all(c.synchronous == 0 and c.scaled == 0 for c in costs), "panning never waits for drawing"
    assert all(c.built <= sheet.budget.spare for c in costs)
    assert sheet.tiles_built > built, "new tiles were drawn ahead of the view"
    # a far jump while the zoom stays: the overview stands in until the tiles are drawn
    cam.center = cam.target_center = (cam.center[0] + 60, cam.center[1] + 40)
    assert sheet.blit(screen, cam).synchronous == 0


def test_the_pencil_draw_in_adds_to_the_cached_paper_instead_of_redrawing_it(screen):
    state, view = view_of("starter/paper-oval")
    view.aim(state, None)
    view.camera.snap()
    tiles = None
    pixels = []
    cam = view.camera
    loop = view.board.sheet.loops[0]
    mark = loop[int(len(loop) * 0.9)]
    cam.center = cam.target_center = (float(mark[0]), float(mark[1]))  # look at the end of the border
    end = next(p for p in loop[int(len(loop) * 0.85):int(len(loop) * 0.97)]
               if 5 <= cam.square_to_screen(p)[0] < SIZE[0] - 5 and 5 <= cam.square_to_screen(p)[1] < SIZE[1] - 5)
    for k in range(11):
        view.draw(screen, Moment(state=state, records=[], intro=k / 10))
        level = view.board.sheet._levels[cam.scale]
        if tiles is None:
            tiles = {key: tile.surface for key, tile in level.items()}
        assert all(level[key].surface is surf for key, surf in tiles.items()), "no tile is redrawn"
        x, y = view.camera.square_to_screen((end[0], end[1]))
        pixels.append(min(sum(colour(screen, round(x) + dx, round(y) + dy)) for dx in (-1, 0, 1) for dy in (-1, 0, 1)))
    assert tiles
    assert pixels[0] > sum(theme.GRAPHITE) + 150, "the end of the border is not drawn at first"
    assert pixels[-1] <= sum(theme.GRAPHITE) + 60, "...and drawn at the end"


def test_the_camera_maps_fine_paper_nodes_to_paper_squares():
    cam = Camera((100, 100), center=(5.0, 5.0), scale=10.0, drift_amount=0.0, unit=10)
    assert cam.to_screen((50, 50)) == (50.0, 50.0)
    assert cam.to_screen((60, 50)) == (60.0, 50.0)
    assert cam.to_world((60, 50)) == pytest.approx((60.0, 50.0))
    assert cam.visible_world() == pytest.approx((0.0, 0.0, 10.0, 10.0))


def test_a_replay_on_a_large_track_pans_over_cached_paper_without_redrawing_it(screen):
    from game.presentation.race_scene import RaceScene, RaceSettings
    from tests.standin import StandInCPU
    from game.race.controller import RaceController, Seat

    t = track("grand-prix/sweepers")
    state = RaceState.start(t, preset("phases"), ["A", "B"], seed=1)  # (a sprint: one lap)
    ctl = RaceController(state, [Seat(n, StandInCPU()) for n in "AB"], seed=1)
    while len(ctl.records) < 5:
        ctl.tick()
    scene = RaceScene(ctl, SIZE, settings=RaceSettings(intro=False, camera_drift=False))
    scene.shown, scene.mode = 2, "choosing"
    scene._aim()
    scene.view.camera.snap()
    for _ in range(60):  # the players choose: the paper is drawn ahead meanwhile
        scene._aim()
        scene.view.camera.update(1 / 60)
        scene.draw(screen)
    sheet = scene.view.board.sheet
    cached = {(lv, key): tile.surface for lv, tiles in sheet._levels.items() for key, tile in tiles.items()}
    built = sheet.tiles_built
    scene.update(1 / 60)
    assert scene.mode == "replay"
    cam = scene.view.camera
    centres, frames = set(), 0
    while scene.mode == "replay" and frames < 600:
        scene.update(1 / 60)
        scene.draw(screen)
        if scene.mode != "replay":
            break  # the last phase is over: the camera may zoom while the players choose
        stats = sheet.stats
        assert stats.synchronous == 0, "no frame of the replay waits for paper to be drawn"
        assert stats.scaled == 0, "a replay pans at one zoom: no tile is scaled"
        assert stats.built <= 1, "at most one spare tile a frame"
        centres.add(cam.center)
        frames += 1
    assert len(centres) > 20, "the camera followed the cars"
    assert sheet.tiles_built - built <= frames
    for (lv, key), surf in cached.items():
        tile = sheet._levels.get(lv, {}).get(key)
        assert tile is None or tile.surface is surf, "a cached tile was redrawn"


@pytest.mark.parametrize("scale", [6.0, 9.0, 12.0, 14.0])
def test_the_road_is_clearly_lighter_than_the_off_road_at_preview_scales(scale):
    """Track previews draw a whole track small, where fine hatching averages out to nearly the
    road's tint: there the off-road is shaded darker (larger scales show the hatching itself)."""
    t = track("starter/paper-oval")
    from game.presentation.board import Board

    board = Board(t, theme.pens(1), seed=3)
    cam = Camera((400, 260), drift_amount=0.0)
    cam.scale = cam.target_scale = scale
    cam.center = cam.target_center = ((t.width - 1) / 2, (t.height - 1) / 2)
    picture = pygame.Surface((400, 260))
    board.blit_layer(picture, cam)
    pixels = pygame.surfarray.array3d(picture).astype(int).sum(axis=2)  # [x, y]
    road = t.region.road_nodes()
    on, off = [], []
    for y in range(road.shape[0]):
        for x in range(road.shape[1]):
            block = road[max(0, y - 1):y + 2, max(0, x - 1):x + 2]
            px, py = (round(v) for v in cam.square_to_screen((x, y)))
            half = max(1, int(scale / 2) - 1)
            if not (half <= px < 400 - half and half <= py < 260 - half):
                continue
            mean = pixels[px - half:px + half + 1, py - half:py + half + 1].mean()
            if block.all():
                on.append(mean)
            elif not block.any():
                off.append(mean)
    assert len(on) > 10 and len(off) > 10
    assert sum(on) / len(on) > sum(off) / len(off) + 25, "the road is lighter than the off-road"


def test_missing_tiles_past_the_frame_budget_show_as_paper_and_are_drawn_in_the_next_frames(screen):
    from game.presentation.paper_plan import FrameBudget

    state, view = view_of("grand-prix/sweepers")
    view.aim(state, None)
    cam = view.camera
    cam.snap()
    sheet = view.board.sheet
    first = sheet.blit(screen, cam, FrameBudget(sync=1))
    assert first.synchronous == 1, "one tile is drawn at once, the others wait"
    frames = 1
    while sheet.blit(screen, cam, FrameBudget(sync=1), idle=True).synchronous and frames < 100:
        frames += 1
    level = sheet._levels[cam.scale]
    assert all(t in level for t in sheet._tile_range(cam.visible_world(), cam.scale)), "every tile arrives"
    assert frames < 100
