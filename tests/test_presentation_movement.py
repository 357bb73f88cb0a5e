"""Every movement system on screen: targets drawn where they really are, and chosen with
keys, mouse and gamepad (headless, dummy video driver).

Set RACETRACK_SCREENSHOTS to a folder to also write one picture per system there
(that is how docs/screenshots/race-<system>.png are made).
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
import pytest

from game.core import RaceState, Vec, preset
from game.drivers.base import HumanDriver
from game.presentation import choosing, theme
from game.presentation.app import App, DisplayConfig, init_pygame
from game.presentation.input import Aim, ClickAt, Confirm, MoveCursor, Select
from game.presentation.race_scene import RaceScene, RaceSettings
from game.race.controller import RaceController, Seat
from game.tracks import load_track_ref
from game import paths
from tests.test_presentation import near

SIZE = (960, 540)


@pytest.fixture(scope="module")
def screen():
    init_pygame(headless=True)
    return pygame.display.set_mode(SIZE)


@pytest.fixture(scope="module")
def oval():
    return load_track_ref("starter/paper-oval", builtin_dir=paths.builtin_tracks_dir())


def scene_for(track, size=SIZE, humans=1, **options):
    rules = preset("paper").with_options(order="fixed", **options)
    names = [f"P{i + 1}" for i in range(humans)]
    state = RaceState.start(track, rules, names, seed=5)
    ctl = RaceController(state, [Seat(n, HumanDriver()) for n in names])
    return RaceScene(ctl, size, settings=RaceSettings(intro=False, camera_drift=False, show_doomed=False))


def frame(scene, surface, seconds=0.0):
    for _ in range(max(1, int(seconds * 60))):
        scene.update(1 / 60)
    scene.view.camera.snap()
    scene.view.camera.shake = 0.0
    for _ in range(10):  # the paper draws missing tiles a few per frame: let it settle
        scene.draw(surface)


def drive(scene, surface, node):
    """Pick ``node`` for the car to move and play the phase out."""
    ctl = scene.controller
    car = ctl.awaiting()[0]
    ctl.submit(car, node)
    frame(scene, surface, 2.0)
    assert scene.mode == "choosing"


def shoot(surface, tmp_path, name):
    pygame.image.save(surface, str(tmp_path / f"{name}.png"))
    folder = os.environ.get("RACETRACK_SCREENSHOTS")
    if folder:
        pygame.image.save(surface, os.path.join(folder, f"race-{name}.png"))


def assert_markers(scene, surface):
    """Every target is drawn at its node: a pen ring (legal), a grey cross (illegal)."""
    ctl = scene.controller
    car = ctl.awaiting()[0]
    cam = scene.view.camera
    pen = scene.view.pens[car]
    highlight = scene.current_key(car)
    cands = ctl.candidates(car)
    r = max(4.0, min(12.0, cam.scale * 0.22))
    if len(cands) > 12:
        r = max(3.0, min(r, cam.scale * 0.16))
    for cand in cands:
        x, y = cam.to_screen((cand.node.x, cand.node.y))
        if not cand.legal:
            assert near(surface, (x, y), theme.ILLEGAL, radius=1), cand
        elif cand.key == highlight:
            assert near(surface, (x + scene.view.board.highlight_radius(cam.scale) - 1, y), pen.color), cand
        else:
            assert near(surface, (x + r - 1, y), pen.color), cand
            assert near(surface, (x - r + 1, y), pen.color), cand
    return cands


def test_scalar_targets_are_drawn_at_their_real_nodes(screen, oval, tmp_path):
    scene = scene_for(oval, movement="scalar")
    frame(scene, screen)
    start = scene.controller.state.cars[0].position
    drive(scene, screen, start + Vec(1, 0))
    drive(scene, screen, start + Vec(3, 0))  # now speed 2 heading right
    cands = assert_markers(scene, screen)
    velocity = scene.controller.state.cars[0].velocity
    assert velocity == Vec(2, 0)
    assert {c.key for c in cands} >= {Vec(3, 0), Vec(1, 1), Vec(1, -1), Vec(2, 2)}
    # nothing is drawn where the 3x3 block would have a target the scalar system lacks
    base = scene.controller.state.base_point(0)
    cam = scene.view.camera
    assert not near(screen, cam.to_screen((base.x + 1, base.y + 1)), scene.view.pens[0].color, radius=1, tol=20)
    shoot(screen, tmp_path, "scalar")


def test_graded_targets_fan_out_and_a_click_picks_the_nearest(screen, oval, tmp_path):
    scene = scene_for(oval, movement="graded")
    frame(scene, screen)
    start = scene.controller.state.cars[0].position
    drive(scene, screen, start + Vec(1, 0))
    drive(scene, screen, start + Vec(3, 0))
    cands = assert_markers(scene, screen)
    base = scene.controller.state.base_point(0)
    assert any((c.node - base).chebyshev() == 2 for c in cands), "targets beyond the 3x3 block"
    shoot(screen, tmp_path, "graded")
    target = next(c for c in cands if c.legal and c.key == Vec(1, 1))
    x, y = scene.view.camera.to_screen((target.node.x, target.node.y))
    scene.handle(ClickAt("mouse", (int(x) + 2, int(y) - 2)))
    assert scene.controller.chosen(0) == target.node


def test_hard_braking_adds_markers_two_squares_back(screen, oval, tmp_path):
    scene = scene_for(oval, braking="hard")
    frame(scene, screen)
    start = scene.controller.state.cars[0].position
    drive(scene, screen, start + Vec(1, 0))
    drive(scene, screen, start + Vec(3, 0))
    cands = assert_markers(scene, screen)
    assert any(c.key.x == -2 for c in cands)
    shoot(screen, tmp_path, "hard-braking")
    # the numpad still names the 3x3 block; the arrows reach the extra column
    scene.handle(Select("keys", 0, 0, False))
    assert scene.current_key(0) == Vec(0, 0)
    for _ in range(3):
        scene.handle(MoveCursor("keys", -1, 0))
    assert scene.current_key(0).x == -2


@pytest.mark.parametrize("movement, options", [
    ("nine", {}), ("cross", {}), ("scalar", {}), ("graded", {}), ("fine", {}), ("flick", {}),
    ("nine", {"braking": "hard"}),
])
def test_a_player_drives_a_phase_with_the_keyboard_in_every_system(screen, oval, movement, options):
    scene = scene_for(oval, movement=movement, **options)
    frame(scene, screen)
    ctl = scene.controller
    start = ctl.state.cars[0].position
    scene.handle(MoveCursor("keys", 1, 0))
    key = scene.current_key(0)
    node = next(c.node for c in ctl.candidates(0) if c.key == key)
    assert node.x > start.x or movement in ("nine", "cross") and node.x >= start.x
    scene.handle(Confirm("keys"))
    frame(scene, screen, 2.0)
    assert ctl.state.phase == 1
    assert ctl.state.cars[0].position == node
    assert scene.mode == "choosing"


def test_stepping_by_direction_reaches_the_nearest_target_that_way():
    from game.core.race import Candidate

    cands = [Candidate(Vec(x, y), Vec(x, y), True) for x, y in [(0, 0), (2, 0), (5, 0), (2, 3), (-1, 0), (1, -2)]]
    assert choosing.step(cands, Vec(0, 0), 1, 0) == Vec(2, 0)
    assert choosing.step(cands, Vec(2, 0), 1, 0) == Vec(5, 0)
    assert choosing.step(cands, Vec(0, 0), -1, 0) == Vec(-1, 0)
    assert choosing.step(cands, Vec(0, 0), 0, -1) == Vec(1, -2)
    assert choosing.step(cands, Vec(5, 0), 1, 0) is None
    assert choosing.from_stick(0.05, -0.05, Vec(3, 0), 10) is None
    assert choosing.from_stick(1.0, -0.35, Vec(3, 0), 10) == Vec(13, -4)


def _reticle_drawn(scene, surface, key):
    cam = scene.view.camera
    car = 0
    node = scene.controller.state.cars[car].position + key
    x, y = cam.to_screen((node.x, node.y))
    r = max(6.0, min(14.0, cam.scale * 0.3))
    pen = scene.view.pens[car]
    return near(surface, (x + r * 1.2, y), pen.color, radius=1) and near(surface, (x, y - r * 1.2), pen.color, radius=1)


def test_fine_paper_reticle_moves_with_arrow_keys_and_shift(screen, oval, tmp_path):
    scene = scene_for(oval, movement="fine")
    frame(scene, screen)
    ctl = scene.controller
    assert ctl.state.track.scale == 10 and len(ctl.candidates(0)) == 441
    velocity = ctl.state.cars[0].velocity
    assert scene.current_key(0) == velocity
    press = lambda key, mod=0: [scene.handle(a) for a in scene_mapper().actions(
        pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod, unicode="", scancode=0))]
    press(pygame.K_RIGHT)
    press(pygame.K_DOWN, pygame.KMOD_LSHIFT)
    assert scene.current_key(0) == velocity + Vec(1, 5)
    frame(scene, screen)
    assert _reticle_drawn(scene, screen, velocity + Vec(1, 5))
    shoot(screen, tmp_path, "fine")
    for _ in range(10):
        press(pygame.K_RIGHT, pygame.KMOD_RSHIFT)
    assert scene.current_key(0) == velocity + Vec(10, 5), "the reticle stops at the edge of the range"
    scene.handle(Confirm("keys"))
    frame(scene, screen, 2.0)
    assert ctl.state.cars[0].velocity == velocity + Vec(10, 5)


def test_fine_paper_shows_illegal_reticle_positions_and_speeds_in_squares(screen, oval):
    from tests.test_presentation import straight_track

    scene = scene_for(straight_track(start=(3, 1)), movement="fine", offroad_penalty="forbid")
    frame(scene, screen)
    ctl = scene.controller
    illegal = next(c for c in ctl.candidates(0) if not c.legal)
    scene.highlight[0] = illegal.key
    frame(scene, screen)
    x, y = scene.view.camera.to_screen((illegal.node.x, illegal.node.y))
    r = max(6.0, min(14.0, scene.view.camera.scale * 0.3))
    assert near(screen, (x + r - 1, y), theme.ILLEGAL, radius=1) and near(screen, (x, y), theme.ILLEGAL, radius=1)
    assert not near(screen, (x + r - 1, y), scene.view.pens[0].color, radius=1, tol=20)
    scene.handle(Confirm("keys"))
    assert ctl.chosen(0) is None, "an illegal reticle position cannot be picked"
    scene.highlight[0] = None
    drive(scene, screen, ctl.state.cars[0].position + Vec(7, 0))
    from game.presentation.hud import speed_text
    assert speed_text(ctl.state.cars[0].velocity.chebyshev(), ctl.state.track.scale) == "0.7"


def scene_mapper():
    from game.presentation.input import InputMapper

    return InputMapper()


def test_fine_paper_reticle_follows_a_virtual_gamepad_stick(oval, tmp_path):
    from tests.vgamepad import VirtualGamepad

    init_pygame(headless=True)
    app = App(DisplayConfig(size=SIZE))
    scene = scene_for(oval, size=app.size, movement="fine")
    scene.devices = {}
    app.push(scene)
    pygame.event.clear()  # events an earlier test left queued are not this pad's
    pad = VirtualGamepad.plug()
    try:
        for _ in range(3):
            app.step(1 / 60)
        assert pad.instance_id in app.mapper.pads, "the app never opened the plugged-in pad"
        velocity = scene.controller.state.cars[0].velocity
        pad.stick(0.5, -0.3)
        for _ in range(2):
            app.step(1 / 60)
        assert scene.current_key(0) == velocity + Vec(5, -3)
        pad.stick(0.0, 0.0)
        for _ in range(2):
            app.step(1 / 60)
        assert scene.current_key(0) == velocity + Vec(5, -3), "the stick springing back keeps the aim"
        scene.view.camera.snap()
        app.step(1 / 60)
        app.step(1 / 60)
        assert _reticle_drawn(scene, app.screen, velocity + Vec(5, -3))
        pygame.image.save(app.screen, str(tmp_path / "fine-pad.png"))
        pad.press("a")
        app.step(1 / 60)
        pad.release("a")
        app.step(1 / 60)
        assert scene.controller.state.phase == 1
        assert scene.controller.state.cars[0].velocity == velocity + Vec(5, -3)
    finally:
        pad.unplug()
        app.step(1 / 60)
        pygame.display.set_mode(SIZE)


def test_the_stick_steps_between_scalar_targets_by_direction(screen, oval):
    scene = scene_for(oval, movement="scalar")
    frame(scene, screen)
    ctl = scene.controller
    base = ctl.state.base_point(0)
    assert scene.current_key(0) == Vec(0, 0)  # at rest the car may stay: the base point
    scene.handle(Select("pad:1", 1, 0, False, stick=True))
    scene.devices["pad:1"] = 0
    scene.handle(Select("pad:1", 1, 0, False, stick=True))
    node = next(c.node for c in ctl.candidates(0) if c.key == scene.current_key(0))
    assert node == base + Vec(1, 0)
    scene.handle(Select("pad:1", 0, 0, False, stick=True))
    assert scene.current_key(0) == Vec(1, 0), "the stick at rest keeps the highlight"
    scene.handle(Aim("pad:1", 0.9, 0.9))  # the analog aim is for fine paper only
    assert scene.current_key(0) == Vec(1, 0)


def test_nine_and_cross_screenshots(screen, oval, tmp_path):
    for movement in ("nine", "cross"):
        scene = scene_for(oval, movement=movement)
        frame(scene, screen)
        start = scene.controller.state.cars[0].position
        drive(scene, screen, start + Vec(1, 0))
        assert_markers(scene, screen)
        shoot(screen, tmp_path, movement)


def test_each_shape_of_targets_gets_its_chooser():
    from game.core.rules import preset
    from game.presentation.choosing import FineChooser, GridChooser, StepChooser, chooser_for
    from tests.core_tracks import race

    def chooser(rules, overrides, velocity=(0, 0)):
        from dataclasses import replace
        from game.core import Vec
        state = race(rules=preset(rules, overrides), names=("A",))
        cars = (replace(state.cars[0], velocity=Vec(*velocity)),)
        state = replace(state, cars=cars)
        return chooser_for(state.rules.movement, state.candidates(0))

    assert type(chooser("paper", {})) is GridChooser
    assert type(chooser("paper", {"movement": "cross"})) is GridChooser
    assert type(chooser("paper", {"braking": "hard"}, (2, 0))) is StepChooser  # a brake by two: not a 3x3 block
    assert type(chooser("paper", {"movement": "scalar"})) is StepChooser
    assert type(chooser("paper", {"movement": "flick"})) is StepChooser
    assert type(chooser("paper", {"movement": "fine"})) is FineChooser and FineChooser.aims
