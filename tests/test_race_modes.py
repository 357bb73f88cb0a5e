"""The race screen's phases as mode objects: intro, choosing, replay, finished, in that order,
and the layers drawn over the race reading it through a read-only view (headless)."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
import pytest

from game import paths
from game.core import RaceState, preset
from game.drivers.base import HumanDriver
from game.presentation.app import init_pygame
from game.presentation.input import Confirm, SkipReplay
from game.presentation.race_modes import INTRO_SECONDS, Choosing, Finished, Intro, Replay
from game.presentation.race_scene import LayerView, RaceScene, RaceSettings
from game.presentation.scene import SceneStack
from game.race.controller import RaceController, Seat
from game.tracks import load_track_ref

SIZE = (640, 360)


@pytest.fixture(scope="module")
def surface():
    init_pygame(headless=True)
    pygame.display.set_mode(SIZE)
    return pygame.Surface(SIZE)


class Spy:
    """A layer that keeps what it was handed."""

    def __init__(self):
        self.seen = []

    def update(self, race, dt):
        self.seen.append(race)

    def draw(self, surface, race):
        self.seen.append(race)


def scene_for(layers=(), intro=True):
    track = load_track_ref("starter/first-sprint", builtin_dir=paths.builtin_tracks_dir())
    state = RaceState.start(track, preset("paper"), ["P1"], seed=5)
    ctl = RaceController(state, [Seat("P1", HumanDriver())])
    scene = RaceScene(ctl, SIZE, settings=RaceSettings(intro=intro, camera_drift=False, show_doomed=False),
                      layers=layers)
    SceneStack().push(scene)
    return scene


def run(scene, surface, seconds, step=1 / 30):
    for _ in range(round(seconds / step)):
        scene.update(step)
        scene.draw(surface)


def test_the_intro_counts_down_then_the_player_chooses_and_the_phase_is_replayed(surface):
    scene = scene_for()
    assert isinstance(scene._mode, Intro) and scene.moment().countdown == ""
    run(scene, surface, INTRO_SECONDS - 0.5)
    assert scene.mode == "intro" and scene.moment().countdown in ("2", "1")
    run(scene, surface, 0.6)
    assert isinstance(scene._mode, Choosing) and scene.moment().countdown == "Go!"
    scene.handle(Confirm("keys"))  # the lone player takes the highlighted target
    seen = set()
    for _ in range(300):
        scene.update(1 / 30)
        seen.add(scene.mode)
        if scene.mode == "choosing" and scene.shown == 1:
            break
    assert "replay" in seen and scene.shown == 1 and scene.animation is None
    assert scene.moment().countdown == "", "Go! is for the first phase only"


def test_a_skip_press_ends_the_intro_and_the_replay(surface):
    scene = scene_for()
    scene.handle(SkipReplay("keys"))
    scene.update(1 / 30)
    assert scene.mode == "choosing"
    scene.handle(Confirm("keys"))
    for _ in range(120):
        scene.update(1 / 30)
        if isinstance(scene._mode, Replay):
            break
    assert scene.mode == "replay"
    scene.handle(SkipReplay("keys"))
    assert scene.mode == "choosing" and scene.shown == 1


def test_a_race_that_is_over_shows_the_results_and_back_leaves(surface):
    scene = scene_for(intro=False)
    stack = scene.stack
    while not scene.controller.over:  # the player retires: the race is over after one phase
        scene.controller.retire(0)
        scene.controller.tick()
    run(scene, surface, 0.2)
    scene.skip_replays()
    run(scene, surface, 0.1)
    assert isinstance(scene._mode, Finished) and scene.finished
    assert "Enter: watch the replay" in scene._prompt()
    scene.handle(Confirm("keys"))
    assert type(stack.top).__name__ == "ReplayViewerScene"


def test_layers_read_the_race_through_a_read_only_view(surface):
    spy = Spy()
    scene = scene_for(layers=(spy,), intro=False)
    run(scene, surface, 0.1)
    assert spy.seen and all(isinstance(race, LayerView) for race in spy.seen)
    race = spy.seen[-1]
    assert race.controller is scene.controller and race.mode == "choosing" and race.shown_state is scene.shown_state
    with pytest.raises(AttributeError):
        race.shown = 3  # a layer cannot move the screen on
    assert not hasattr(race, "handle") and not hasattr(race, "stack")
