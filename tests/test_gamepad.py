"""A virtual gamepad, plugged in through SDL, drives a car through a phase (and is unplugged)."""

from __future__ import annotations

import ctypes
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
import pytest

from game.core import RaceState, Vec, preset
from game.drivers.base import HumanDriver
from game.presentation.app import App, DisplayConfig, init_pygame
from game.presentation.demo_track import demo_track
from game.presentation.pause_scene import PauseScene
from game.presentation.race_scene import RaceScene, RaceSettings
from tests.standin import StandInCPU
from game.race.controller import RaceController, Seat

from tests.vgamepad import VirtualGamepad


@pytest.fixture
def app():
    init_pygame(headless=True)
    app = App(DisplayConfig(size=(640, 360)))
    yield app


def race(app, seats=("human", "cpu")):
    names = [f"S{i}" for i in range(len(seats))]
    drivers = [HumanDriver() if k == "human" else StandInCPU() for k in seats]
    state = RaceState.start(demo_track(), preset("arcade"), names, seed=4)
    ctl = RaceController(state, [Seat(n, d) for n, d in zip(names, drivers)])
    scene = RaceScene(ctl, app.size, devices={}, settings=RaceSettings(intro=False))
    app.push(scene)
    return scene


def frames(app, n=3):
    for _ in range(n):
        app.step(1 / 60)


def test_a_plugged_in_gamepad_highlights_with_the_dpad_and_confirms_with_a(app):
    scene = race(app)
    pad = VirtualGamepad.plug()
    try:
        frames(app)
        assert app.mapper.pads, "the pad was opened on CONTROLLERDEVICEADDED"
        start = scene.controller.state.cars[0].position
        pad.press("dpup")
        pad.press("dpleft")
        frames(app)
        assert scene.highlight[0] == Vec(-1, -1)
        pad.release("dpup")
        pad.release("dpleft")
        frames(app)
        assert scene.highlight[0] == Vec(-1, -1), "letting go of the d-pad keeps the highlight"
        pad.press("a")
        frames(app, 2)
        pad.release("a")
        frames(app, 2)
        assert scene.controller.state.phase == 1
        assert scene.controller.state.cars[0].position == start + Vec(-1, -1)
        assert scene.mode == "replay"
    finally:
        pad.unplug()
        frames(app)


def test_the_stick_points_in_eight_directions_and_b_takes_the_choice_back(app):
    scene = race(app, seats=("human", "human"))
    pad = VirtualGamepad.plug()
    try:
        frames(app)
        pad.stick(1.0, 0.9)
        frames(app)
        car = next(c for s, c in scene.devices.items() if s.startswith("pad:"))
        assert scene.highlight[car] == Vec(1, 1)
        pad.press("a")
        frames(app)
        pad.release("a")
        assert scene.controller.chosen(car) is not None
        pad.press("b")
        frames(app)
        pad.release("b")
        assert scene.controller.chosen(car) is None, "B takes the choice back before the phase starts"
        pad.stick(0.0, 0.0)
        frames(app)
        assert scene.highlight[car] == Vec(0, 0), "stick at rest = the base point"
    finally:
        pad.unplug()
        frames(app)


def test_unplugging_a_gamepad_in_use_pauses_the_race_with_a_message(app):
    scene = race(app)
    pad = VirtualGamepad.plug()
    frames(app)
    pad.press("dpright")
    frames(app)
    pad.release("dpright")
    assert any(s.startswith("pad:") for s in scene.devices)
    pad.unplug()
    frames(app)
    assert isinstance(app.stack.top, PauseScene)
    assert "unplugged" in app.stack.top.message


def test_unplugging_several_pads_removes_exactly_the_ones_unplugged(app):
    """Device indices shift when a pad goes; the virtual pad unplugs itself by its own instance id."""
    pads = [VirtualGamepad.plug() for _ in range(3)]
    try:
        frames(app)
        assert {p.instance_id for p in pads} <= set(app.mapper.pads)
        pads[0].unplug()
        frames(app)
        pads[1].unplug()
        frames(app)
        assert pads[0].instance_id not in app.mapper.pads and pads[1].instance_id not in app.mapper.pads
        assert pads[2].instance_id in app.mapper.pads and pads[2].current_index() is not None
    finally:
        for pad in pads:
            pad.unplug()
    frames(app)
    assert not {p.instance_id for p in pads} & set(app.mapper.pads)


def test_the_suite_guard_notices_a_pad_whose_presses_never_reach_the_game(app):
    """tests/conftest.py's check after every module: silent when pads work, a located problem when
    SDL stops sending a pad's controller events (what a later file saw as a pad never reaching
    the lobby)."""
    from tests.vgamepad import pads_reach_the_game, sdl_library

    assert pads_reach_the_game() is None
    sdl = sdl_library()
    sdl.SDL_GameControllerEventState.restype = ctypes.c_int
    sdl.SDL_GameControllerEventState.argtypes = [ctypes.c_int]
    sdl.SDL_GameControllerEventState(0)  # SDL_IGNORE
    try:
        problem = pads_reach_the_game()
    finally:
        sdl.SDL_GameControllerEventState(1)  # SDL_ENABLE
    assert problem is not None and "one press of A on pad:" in problem and "gave 0 confirms" in problem
    assert pads_reach_the_game() is None
