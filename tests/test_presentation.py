"""The race on screen, rendered headless: what a player must see at key moments.

Each test draws the race scene to an off-screen window (dummy video driver), saves the
picture as a PNG under the test's tmp folder, and samples pixels where the camera says
things must be (the 9 targets, the cars mid-move, a collision burst, a finish flag).
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np
import pygame
import pytest

from game.core import CellRegion, Gate, RaceState, Track, Vec, preset
from game.drivers.base import HumanDriver
from game.presentation import theme
from game.presentation.app import App, DisplayConfig, init_pygame
from game.presentation.demo_track import demo_track
from game.presentation.input import (Back, ChangeSpeed, ClickAt, Confirm, InputMapper, MoveCursor, Pause, Select,
                                     SkipReplay, default_bindings, BindingError)
from game.presentation.pause_scene import PauseScene
from game.presentation.race_scene import RaceScene, RaceSettings
from game.presentation.replay_scene import ReplayViewerScene
from tests.standin import StandInCPU
from game.race.controller import RaceController, Seat

SIZE = (960, 540)


@pytest.fixture(scope="module")
def screen():
    init_pygame(headless=True)
    surface = pygame.display.set_mode(SIZE)
    yield surface


def make_scene(track=None, rules="arcade", seats=("human", "cpu"), size=SIZE, seed=2):
    track = track or demo_track()
    names = [f"P{i + 1}" if k == "human" else f"CPU{i + 1}" for i, k in enumerate(seats)]
    drivers = [HumanDriver() if k == "human" else StandInCPU() for k in seats]
    state = RaceState.start(track, preset(rules), names, seed=seed)
    ctl = RaceController(state, [Seat(n, d) for n, d in zip(names, drivers)])
    scene = RaceScene(ctl, size, settings=RaceSettings(intro=False, camera_drift=False))
    return scene


def run(scene, surface, seconds=0.0, dt=1 / 60):
    steps = max(1, int(round(seconds / dt))) if dt > 0 else 1
    for _ in range(steps):
        scene.update(dt)
    scene.view.camera.snap()
    scene.view.camera.shake = 0.0
    surface.fill((0, 0, 0))
    scene.draw(surface)


def pixel(surface, pos) -> tuple[int, int, int]:
    return tuple(surface.get_at((int(round(pos[0])), int(round(pos[1]))))[:3])


def near(surface, pos, color, radius=2, tol=40) -> bool:
    """Is ``color`` found within ``radius`` pixels of ``pos``?"""
    x0, y0 = int(round(pos[0])), int(round(pos[1]))
    for y in range(y0 - radius, y0 + radius + 1):
        for x in range(x0 - radius, x0 + radius + 1):
            if 0 <= x < surface.get_width() and 0 <= y < surface.get_height():
                if sum(abs(a - b) for a, b in zip(surface.get_at((x, y))[:3], color)) <= tol:
                    return True
    return False


def save(surface, tmp_path, name):
    pygame.image.save(surface, str(tmp_path / name))


def straight_track(start=(2, 2), width=20) -> Track:
    rows = ["X" * width] + ["X" + "O" * (width - 2) + "X" for _ in range(3)] + ["X" * width]
    road = np.array([[c != "X" for c in row] for row in rows])
    slots = (Vec(*start), Vec(start[0] - 1, start[1]))
    gate = Gate(0, a=(15.5, 0.5), b=(15.5, 3.5), forward=(1, 0))
    return Track(id="straight", name="Straight", region=CellRegion(road), start_slots=slots, finish=gate,
                 forward=(1, 0), meta={"par": 5})


def test_the_nine_targets_are_drawn_around_the_base_point_where_the_camera_puts_them(screen, tmp_path):
    scene = make_scene(seats=("human",))  # alone, so no other car covers a target
    run(scene, screen, 0.1)
    save(screen, tmp_path, "choosing.png")
    ctl = scene.controller
    cands = ctl.candidates(0)
    assert len(cands) == 9
    cam = scene.view.camera
    pen = scene.view.pens[0]
    r = max(4.0, min(12.0, cam.scale * 0.22))
    for cand in cands:
        x, y = cam.to_screen((cand.node.x, cand.node.y))
        if cand.key == Vec(0, 0):  # highlighted by default; the standing car covers it, its halo shows
            halo = scene.view.board.highlight_radius(cam.scale)
            assert near(screen, (x + halo - 1, y), pen.color), cand
            assert near(screen, (x, y - halo + 1), pen.color), cand
        else:  # open marker: paper inside, pen-coloured ring
            assert near(screen, (x, y), theme.PAPER, radius=1, tol=30), cand
            assert near(screen, (x + r - 1, y), pen.color), cand
    # between the markers there is no marker ink
    x, y = cam.to_screen((cands[0].node.x + 0.5, cands[0].node.y + 0.5))
    assert not near(screen, (x, y), pen.color, radius=0, tol=20)


def test_targets_off_the_road_are_crossed_out_or_marked_as_punished(screen, tmp_path):
    track = straight_track(start=(3, 1))
    forbid = make_scene(track, rules="karopapier", seats=("human", "human"))
    forbid.controller.states[0] = forbid.controller.state  # (no change: readability)
    # let car 0 choose first whatever the lot says
    while forbid.controller.awaiting() and forbid.controller.awaiting()[0] != 0:
        other = forbid.controller.awaiting()[0]
        forbid.controller.submit(other, forbid.controller.state.base_point(other))
    run(forbid, screen, 0.05)
    save(screen, tmp_path, "illegal.png")
    cam = forbid.view.camera
    up = next(c for c in forbid.controller.candidates(0) if c.key == Vec(0, -1))
    assert not up.legal
    assert near(screen, cam.to_screen((up.node.x, up.node.y)), theme.ILLEGAL, radius=1)

    punished = make_scene(track, rules="arcade", seats=("human", "cpu"))
    run(punished, screen, 0.05)
    save(screen, tmp_path, "offroad.png")
    cam = punished.view.camera
    up = next(c for c in punished.controller.candidates(0) if c.key == Vec(0, -1))
    assert up.legal and up.offroad
    r = max(4.0, min(12.0, cam.scale * 0.22))
    x, y = cam.to_screen((up.node.x, up.node.y))
    assert near(screen, (x, y - r * 1.9 + 1), theme.WARN, radius=2)


def test_keys_pick_a_target_by_its_place_in_the_layout():
    mapper = InputMapper()
    e_key = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_e, mod=0, unicode="e", scancode=0)
    assert mapper.actions(e_key) == [Select("kb1", 1, -1, True)]
    numpad_1 = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_KP1, mod=0, unicode="1", scancode=0)
    assert mapper.actions(numpad_1) == [Select("keys", -1, 1, True)]
    comma = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_COMMA, mod=0, unicode=",", scancode=0)
    assert mapper.actions(comma) == [Select("kb2", 0, 1, True)]


def test_bindings_are_data_and_a_broken_one_names_the_key():
    bindings = default_bindings()
    bindings["kb1"]["f"] = ["select", 0, 0]
    mapper = InputMapper(bindings)
    f_key = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_f, mod=0, unicode="f", scancode=0)
    assert mapper.actions(f_key) == [Select("kb1", 0, 0, True)]
    bindings["kb1"]["nokey"] = ["confirm"]
    with pytest.raises(BindingError, match="nokey"):
        InputMapper(bindings)
    with pytest.raises(BindingError, match="jump"):
        InputMapper({"kb1": {"q": ["jump"]}})


def test_two_keyboard_players_choose_blind_and_the_phase_plays_when_both_are_in(screen):
    scene = make_scene(seats=("human", "human", "cpu"))
    run(scene, screen, 0.05)
    ctl = scene.controller
    scene.handle(Select("kb1", 1, 0, True))
    assert ctl.chosen(0) == ctl.state.base_point(0) + Vec(1, 0)
    # player 1's pick is hidden: only player 2's targets are still shown
    assert [t.car for t in scene.moment().targets] == [1]
    scene.handle(Back("kb1"))
    assert ctl.chosen(0) is None
    scene.handle(MoveCursor("keys", -1, 0))  # the shared keys act for the first player still choosing
    assert scene.highlight[0] == Vec(0, 0)
    scene.handle(Confirm("keys"))
    scene.handle(Select("kb2", 0, 0, True))
    scene.update(1 / 60)
    assert scene.mode == "replay"
    assert ctl.state.phase == 1


def test_a_mouse_click_on_a_target_picks_it(screen):
    scene = make_scene()
    run(scene, screen, 0.05)
    cand = next(c for c in scene.controller.candidates(0) if c.key == Vec(-1, 1))
    pos = scene.view.camera.to_screen((cand.node.x, cand.node.y))
    scene.handle(ClickAt("mouse", (int(pos[0]), int(pos[1]))))
    assert scene.controller.state.phase == 0 and scene.mode == "choosing"
    scene.update(1 / 60)
    assert scene.controller.states[1].cars[0].position == cand.node


def test_mid_replay_every_car_is_drawn_part_way_along_its_segment(screen, tmp_path):
    scene = make_scene(seats=("human", "cpu", "cpu"))
    run(scene, screen, 0.05)
    scene.handle(Select("kb1", -1, 0, True))
    scene.update(1 / 60)
    assert scene.mode == "replay"
    anim = scene.animation
    anim.advance(anim.move_seconds / 2 - anim.elapsed)
    run(scene, screen, 0.0, dt=0.0)
    save(screen, tmp_path, "mid_replay.png")
    cam = scene.view.camera
    for move in anim.record.moves:
        frame = anim.frame(move)
        start = (move.start.x, move.start.y)
        assert frame.point != start or move.target == move.start
        assert near(screen, cam.to_screen(frame.point), scene.view.pens[move.car].color, radius=2), move


def _crossing_scene():
    """Two humans whose moves cross in the middle of the phase (arcade: they collide in motion)."""
    track = demo_track()
    scene = make_scene(track, rules="arcade", seats=("human", "human"))
    ctl = scene.controller
    a, b = ctl.state.cars[0].position, ctl.state.cars[1].position  # (20, 16) and (20, 17)
    assert b == a + Vec(0, 1)
    ctl.submit(0, a + Vec(-1, 1))
    ctl.submit(1, b + Vec(-1, -1))
    return scene


def test_a_collision_shows_a_burst_where_and_when_the_cars_meet_and_shakes_the_screen(screen, tmp_path):
    scene = _crossing_scene()
    scene.update(1 / 60)
    assert scene.mode == "replay"
    record = scene.animation.record
    assert len(record.collisions) == 1
    point = record.collisions[0].point
    assert point == (19.5, 16.5)
    anim = scene.animation
    hit_at = anim.collision_at[0]
    assert 0 < hit_at < anim.move_seconds
    anim.advance(hit_at - 0.05 - anim.elapsed)
    scene.update(0.0)
    assert not anim.collisions_fired() and scene.view.camera.shake == 0
    scene.update(0.1)
    assert anim.collisions_fired()
    assert scene.view.camera.shake > 0, "a collision shakes the screen"
    scene.view.camera.shake = 0
    screen.fill((0, 0, 0))
    scene.draw(screen)
    save(screen, tmp_path, "collision.png")
    cam = scene.view.camera
    radius = cam.scale * (0.45 + 1.1 * (anim.collisions_fired()[0][1] / 0.6))
    cx, cy = cam.to_screen(point)
    ring = [near(screen, (cx + radius * np.cos(a), cy + radius * np.sin(a)), theme.DOOM, radius=2, tol=200)
            for a in np.linspace(0, 2 * np.pi, 12, endpoint=False)]
    assert sum(ring) >= 8


def test_a_finish_plants_a_flag_and_shows_the_results(screen, tmp_path):
    track = straight_track(start=(15, 2))
    scene = make_scene(track, rules="paper", seats=("human",))
    run(scene, screen, 0.05)
    scene.handle(Select("kb1", 1, 0, True))
    run(scene, screen, 2.0)
    save(screen, tmp_path, "finish.png")
    assert scene.mode == "finished"
    assert scene.controller.state.outcome().winners == (0,)
    point = scene.finish_points[0]
    cam = scene.view.camera
    x, y = cam.to_screen(point)
    top = (x + 2, y - cam.scale * 1.2 + 2)
    assert near(screen, top, theme.INK, radius=2) and near(screen, top, (255, 255, 255), radius=4)
    assert "wins" in scene.moment().prompt


def test_the_finished_race_can_be_watched_again_step_by_step(screen, tmp_path):
    track = straight_track(start=(13, 2))
    scene = make_scene(track, rules="paper", seats=("human", "cpu"))
    app_stack = _stack_with(scene)
    for _ in range(6):
        run(scene, screen, 1.5)
        if scene.mode == "finished":
            break
        scene.handle(Select("kb1", 1, 0, True))
    assert scene.mode == "finished"
    scene.handle(Confirm("kb1"))
    viewer = app_stack.top
    assert isinstance(viewer, ReplayViewerScene)
    phases = len(scene.controller.records)
    viewer.handle(Confirm("keys"))  # pause
    viewer.handle(MoveCursor("keys", 1, 0))
    assert viewer.index == 1 and not viewer.playing
    viewer.handle(ChangeSpeed("keys", 1))
    assert viewer.speed == 1.5  # the next of the settings' speeds
    viewer.handle(Confirm("keys"))
    for _ in range(400):
        viewer.update(1 / 30)
    assert viewer.index == phases
    viewer.draw(screen)
    save(screen, tmp_path, "replay_viewer.png")
    viewer.handle(Back("keys"))
    assert app_stack.top is scene


def _stack_with(scene):
    from game.presentation.scene import SceneStack

    stack = SceneStack()
    stack.push(scene)
    return stack


def test_pause_overlays_the_race_and_resumes(screen):
    scene = make_scene()
    stack = _stack_with(scene)
    scene.handle(Pause("keys"))
    assert isinstance(stack.top, PauseScene)
    stack.draw(screen)  # the race below is drawn, then the overlay
    stack.handle(Pause("keys"))
    assert stack.top is scene
    stack.handle(Pause("keys"))
    stack.handle(Back("keys"))
    assert stack.quit_requested


def test_replay_speed_and_skip(screen):
    scene = _crossing_scene()
    scene.update(1 / 60)
    scene.handle(ChangeSpeed("keys", 1))
    assert scene.settings.replay_speed == 1.5
    scene.handle(ChangeSpeed("keys", 1))
    assert scene.settings.replay_speed == 2.0
    scene.handle(SkipReplay("keys"))
    scene.update(1 / 60)
    assert scene.mode == "choosing"


def test_the_window_resizes_and_toggles_fullscreen_with_crisp_text(screen):
    app = App(DisplayConfig(size=(800, 450)))
    scene = make_scene(size=app.size)
    app.push(scene)
    app.step(1 / 60, [])
    app.step(1 / 60, [pygame.event.Event(pygame.VIDEORESIZE, w=1000, h=600, size=(1000, 600))])
    assert app.size == (1000, 600) and scene.view.camera.size == (1000, 600)
    f11 = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F11, mod=0, unicode="", scancode=0)
    app.step(1 / 60, [f11])
    assert app.fullscreen and scene.view.camera.size == app.size
    app.step(1 / 60, [f11])
    assert not app.fullscreen and app.size == (1000, 600)
    pygame.display.set_mode(SIZE)


def test_a_large_track_is_followed_and_a_small_one_shown_whole(screen):
    small = make_scene(straight_track())  # fits whole at a zoom legible from the sofa
    run(small, screen, 0.05)
    left, top, right, bottom = small.view.camera.visible_world()
    assert left <= -0.5 and right >= straight_track().width - 0.5
    assert not small.view.camera.following
    big_map = np.ones((120, 300), dtype=bool)
    big_map[[0, -1], :] = False
    big_map[:, [0, -1]] = False
    big = Track(id="big", name="Big", region=CellRegion(big_map), start_slots=(Vec(5, 5), Vec(5, 7)),
                finish=Gate(0, a=(200.5, 0.5), b=(200.5, 119.5), forward=(1, 0)), forward=(1, 0))
    scene = make_scene(big, seats=("human", "cpu"))
    run(scene, screen, 0.05)
    cam = scene.view.camera
    left, top, right, bottom = cam.visible_world()
    assert right - left < 150, "the camera zooms in on the cars"
    assert left <= 5 <= right and top <= 5 <= bottom


def test_play_command_runs_a_race_headless_and_bad_flags_give_one_line(capsys):
    from game.cli import main

    assert main(["play", "--headless", "--frames", "20", "--size", "640x360"]) == 0
    assert main(["play", "--headless", "--track", "no-such-pack/none", "--frames", "5"]) == 1
    err = capsys.readouterr().err
    assert "no-such-pack" in err and "Traceback" not in err
    assert main(["play", "--headless", "--cars", "human,robot", "--frames", "5"]) == 1
    assert "robot" in capsys.readouterr().err
    pygame.display.init()
    pygame.font.init()
    pygame.display.set_mode(SIZE)


def test_the_race_hud_and_the_replay_viewer_number_the_phases_alike(screen):
    import re

    scene = make_scene(straight_track(start=(13, 2)), rules="paper", seats=("human", "cpu"))
    said = {}  # records already played -> the phase the HUD names while the next one is chosen and played
    for _ in range(200):
        run(scene, screen, 0.1)
        if scene.mode == "finished":
            break
        said.setdefault(scene.shown, set()).add(int(re.search(r"phase (\d+)", scene.moment().title).group(1)))
        if scene.mode == "choosing":
            scene.handle(Select("kb1", 1, 0, True))
    assert scene.mode == "finished"
    ctl = scene.controller
    total = len(ctl.records)
    assert said[0] == {1} and total >= 3  # the first move is phase 1
    assert int(re.search(r"phase (\d+)", scene.moment().title).group(1)) == total  # the last, once over
    viewer = ReplayViewerScene(ctl.states, ctl.records, ["P1", "CPU2"], SIZE)
    for shown, numbers in said.items():
        viewer.step(shown - viewer.index)  # paused on the phase about to play
        assert viewer.phase_number() == ctl.records[shown].phase
        assert numbers == {viewer.phase_number()}, (shown, numbers)
    viewer.step(total)
    assert viewer.phase_number() == total
