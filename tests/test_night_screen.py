"""Night races on screen, rendered headless: dark paper, lit road, cars and one's own targets always seen."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import shutil

import numpy as np
import pygame
import pytest

from game import paths
from game.core import RaceState, preset
from game.drivers.base import HumanDriver
from game.presentation.app import init_pygame
from game.presentation.menus import build_context, build_title_scene
from game.presentation.night import NIGHT, darkness
from game.presentation.race_scene import RaceScene, RaceSettings
from game.presentation.scene import SceneStack
from tests.standin import StandInCPU
from game.race.controller import RaceController, Seat
from game.settings import load_settings
from game.tracks.pack import load_track_ref

SIZE = (960, 540)


@pytest.fixture(scope="module")
def surface():
    init_pygame(headless=True)
    return pygame.display.set_mode(SIZE)


def night_scene(sight="night", seed=2, rules="arcade"):
    track = load_track_ref("starter/paper-oval", builtin_dir=paths.builtin_tracks_dir())
    state = RaceState.start(track, preset(rules, {"sight": sight}), ["P1", "CPU2"], seed=seed)
    ctl = RaceController(state, [Seat("P1", HumanDriver()), Seat("CPU2", StandInCPU())])
    scene = RaceScene(ctl, SIZE, settings=RaceSettings(intro=False, camera_drift=False))
    for _ in range(3):
        scene.update(1 / 60)
    scene.view.camera.snap()
    scene.view.camera.shake = 0.0
    return scene


def frame(scene, surface, tmp_path, name):
    surface.fill((0, 0, 0))
    for _ in range(30):  # the paper's tiles come in a few a frame
        scene.draw(surface)
    pygame.image.save(surface, str(tmp_path / f"{name}.png"))
    return pygame.surfarray.array3d(surface).swapaxes(0, 1)  # [y, x, rgb]


def at(cam, node):
    x, y = cam.to_screen((node.x, node.y))
    return round(x), round(y)


def test_the_paper_is_dark_away_from_the_cars_and_lit_round_them(surface, tmp_path):
    scene = night_scene()
    pixels = frame(scene, surface, tmp_path, "night")
    cam = scene.view.camera
    state = scene.controller.state
    road = np.asarray(state.track.region.road_nodes())
    ys, xs = np.nonzero(road)
    far = max(zip(xs, ys), key=lambda n: min(abs(n[0] - c.position.x) + abs(n[1] - c.position.y)
                                             for c in state.cars))
    x, y = cam.to_screen((float(far[0]), float(far[1])))
    if 0 <= x < SIZE[0] and 0 <= y < SIZE[1]:
        assert tuple(pixels[round(y), round(x)]) == NIGHT  # the road far from every car: night
    assert pixels[..., :].mean() < 120  # most of the window is dark
    day = frame(night_scene("day"), surface, tmp_path, "day")
    assert day.mean() > pixels.mean() + 60
    # a lit square beside the car: the paper shows (bright), as by day
    car = state.cars[0].position
    px, py = at(cam, car)
    side = (px + round(cam.scale / 2), py + round(cam.scale / 2))  # the middle of a square next to the car
    assert pixels[side[1], side[0]].mean() > 180


def test_the_choosing_players_targets_show_even_where_it_is_dark(surface, tmp_path):
    scene = night_scene()
    view = scene.view
    # Put the lights out (a light of 0 everywhere): the targets' pale discs must still be there.
    view.night.light = lambda state, records, animation: np.zeros(view.night.shape, dtype=np.float32)
    pixels = frame(scene, surface, tmp_path, "targets-in-the-dark")
    targets = scene.moment().targets
    assert targets and targets[0].car == 0
    for cand in targets[0].candidates:
        if cand.legal and cand.node != scene.controller.state.cars[0].position:  # (the car itself sits there)
            x, y = at(view.camera, cand.node)
            ring_inside = pixels[y - 2:y + 3, x - 2:x + 3].reshape(-1, 3).mean(axis=0)
            assert ring_inside.mean() > 150, (cand.node, ring_inside)  # pale on the dark paper


def test_darkness_is_clear_where_lit_and_opaque_where_not():
    alpha = darkness(np.array([[0.0, 1 / 3, 2 / 3, 1.0]]))
    assert alpha[0, 0] == 255 and alpha[0, -1] == 0
    assert list(alpha[0]) == sorted(alpha[0], reverse=True)


def test_the_light_fades_in_with_the_phase_being_played(surface, tmp_path):
    scene = night_scene()
    ctl = scene.controller
    here = ctl.state.cars[0].position
    ctl.submit(0, next(c.node for c in ctl.state.candidates(0) if c.legal and not c.offroad and c.node != here))
    for _ in range(10):
        scene.update(1 / 60)
        if scene.animation is not None:
            break
    anim = scene.animation
    assert anim is not None
    night = scene.view.night
    moment = scene.moment()
    anim.elapsed = 0.0
    before = night.light(moment.state, moment.records, anim)
    anim.elapsed = anim.move_seconds
    after = night.light(moment.state, moment.records, anim)
    ends = [m.end for m in anim.record.moves]
    assert all(after[e.y, e.x] == 1.0 for e in ends)
    assert (after >= 0).all() and not np.array_equal(before, after)


def test_the_title_s_night_row_switches_the_saved_rules_with_left_and_right_only(tmp_path, surface):
    builtin = tmp_path / "builtin"
    builtin.mkdir()
    shutil.copy(paths.builtin_tracks_dir() / "starter.toml", builtin / "starter.toml")
    ctx = build_context(tmp_path / "config", None, builtin, seed=5)
    ctx.size = SIZE
    stack = SceneStack()
    title = build_title_scene(ctx)
    stack.push(title)
    title.menu.index = [item.label for item in title.menu.items].index("Night")
    assert title.menu.current.value() == "off"
    title.menu.verb("confirm")  # a confirm never changes a value
    assert not ctx.settings.rules().night
    title.menu.verb("right")
    assert title.menu.current.value() == "on" and ctx.settings.rules().night
    saved, problems = load_settings(tmp_path / "config")
    assert not problems and saved.rules().night  # kept for the next race
    title.menu.verb("left")
    assert not ctx.settings.rules().night
    surface.fill((0, 0, 0))
    stack.draw(surface)
    pygame.image.save(surface, str(tmp_path / "title.png"))


def test_a_target_in_the_dark_shows_no_off_road_warning_but_a_lit_one_does():
    from game.core.race import Candidate
    from game.core.vec import Vec
    from game.presentation.night import NightLayer

    light = np.zeros((3, 3), dtype=np.float32)
    light[0, 0] = 1.0
    lit = Candidate(node=Vec(0, 0), key=Vec(0, 0), legal=True, offroad=True)
    dark = Candidate(node=Vec(2, 2), key=Vec(1, 1), legal=True, offroad=True)
    shown = NightLayer.veiled([lit, dark], light)
    assert shown[0].offroad and not shown[1].offroad and shown[1].legal


def test_the_race_screen_shows_the_day_par_at_night():
    # Paper Oval pins its par under its own rules (paper): a night race keeps it, named as the day's
    pinned = night_scene("day", rules="paper")._pinned_par
    assert isinstance(pinned, int)
    assert f"(day par {pinned})" in night_scene(rules="paper").moment().title
    assert f"(par {pinned})" in night_scene("day", rules="paper").moment().title
