"""The doomed-target marks of the race screen are searched off the frame loop.

A player racing at a wall must see the slashed targets once the search is done, and no
frame may wait for that search: while it runs, the race screen draws the targets
unmarked and goes on reading input.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import threading
import time
from dataclasses import replace

import pygame
import pytest

from game.core import RaceState, Vec, preset
from game.drivers import safety
from game.drivers.base import HumanDriver
from game.presentation.app import init_pygame
from game.presentation.assist import DoomedMarks
from game.presentation.input import Select
from game.presentation.race_scene import RaceScene, RaceSettings
from game.race.controller import RaceController, Seat
from game.tracks.charmap import track_from_charmap

WALL = """
XXXXXXXXXXXXXXXXXXXXXXXXX
XSOOOOOOOOOOOOOOOOOXXXXXX
XSOOOOOOOOOOOOOOOOOOXXXXX
XSOOOOOOOOOOOOOOOOOOOXXXX
XSOOOOOOOOOOOOOOOOOOOOXXX
XXXXXXXXXXXXXXXXXXXXOOXXX
XXXXXXXXXXXXXXXXXXXXOOXXX
XXXXXXXXXXXXXXXXXFFFFFXXX
XXXXXXXXXXXXXXXXXXXXXXXXX
"""


@pytest.fixture(scope="module")
def screen():
    init_pygame(headless=True)
    return pygame.display.set_mode((640, 360))


def at_the_wall() -> RaceState:
    """One car 6 squares a move, 2 squares short of the wall ahead: most targets are doomed."""
    state = RaceState.start(track_from_charmap(WALL, id="wall"), preset("paper"), ["P1"], seed=0)
    return replace(state, cars=(replace(state.cars[0], position=Vec(12, 1), velocity=Vec(5, 0)),))


def race_scene(state: RaceState) -> RaceScene:
    controller = RaceController(state, [Seat("P1", HumanDriver())])
    return RaceScene(controller, (640, 360), settings=RaceSettings(intro=False, camera_drift=False))


def frame(scene: RaceScene, surface) -> float:
    """One frame as the app runs it; its wall time in seconds."""
    began = time.perf_counter()
    scene.update(1 / 60)
    scene.draw(surface)
    return time.perf_counter() - began


def shown_marks(scene: RaceScene) -> frozenset:
    (targets,) = scene.moment().targets
    return targets.doomed


def test_the_marks_appear_once_searched_and_are_the_search_s_answer(screen):
    state = at_the_wall()
    expected = safety.doomed_targets(state, 0)
    assert Vec(18, 1) in expected and Vec(14, 1) not in expected
    scene = race_scene(state)
    deadline = time.monotonic() + 30
    while not shown_marks(scene) and time.monotonic() < deadline:
        frame(scene, screen)
        time.sleep(0.01)
    assert shown_marks(scene) == expected
    scene.exit()


def test_no_frame_waits_for_the_search_and_none_shows_marks_before_it_ends(screen, monkeypatch):
    release, started = threading.Event(), threading.Event()
    real = safety.doomed_targets

    def slow_search(state, car, committed=None, oracle=None):
        started.set()
        release.wait(20)  # a search far longer than any frame
        return real(state, car, committed)

    monkeypatch.setattr(safety, "doomed_targets", slow_search)
    state = at_the_wall()
    scene = race_scene(state)
    longest = frame(scene, screen)  # asks for the marks
    assert started.wait(10), "the search never started"
    longest = max(longest, *(frame(scene, screen) for _ in range(20)))
    assert longest < 5, f"a frame waited {longest:.1f} s for the search"
    assert shown_marks(scene) == frozenset()  # nothing half-known is drawn
    scene.handle(Select("kb1", 1, 0))  # input goes on being read meanwhile
    assert scene.highlight[0] == Vec(1, 0)
    release.set()
    deadline = time.monotonic() + 30
    while not shown_marks(scene) and time.monotonic() < deadline:
        frame(scene, screen)
        time.sleep(0.01)
    assert shown_marks(scene) == real(state, 0)
    scene.exit()


def test_a_search_for_a_turn_that_is_over_is_abandoned(monkeypatch):
    searched = []

    def endless_search(state, car, committed=None, oracle=None):
        searched.append(car)
        while True:  # ends only by the checkpoint's say-so
            oracle.checkpoint()
            time.sleep(0.001)

    monkeypatch.setattr(safety, "doomed_targets", endless_search)
    state = at_the_wall()
    marks = DoomedMarks()
    assert marks.get((0, 0), state, 0) is None and marks.busy
    marks.keep([(1, 0)])  # the turn is over
    deadline = time.monotonic() + 10
    while marks.busy and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not marks.busy
    assert marks.get((0, 0), state, 0) is None  # asked again: searched again, not a stale answer
    marks.close()
    deadline = time.monotonic() + 10
    while marks.busy and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not marks.busy and searched == [0, 0]


def test_a_failing_search_leaves_that_turn_unmarked_and_the_race_goes_on(screen, monkeypatch):
    def broken(state, car, committed=None, oracle=None):
        raise ValueError("boom")

    monkeypatch.setattr(safety, "doomed_targets", broken)
    scene = race_scene(at_the_wall())
    marks = scene._doomed
    frame(scene, screen)
    deadline = time.monotonic() + 10
    while marks.busy and time.monotonic() < deadline:
        time.sleep(0.01)
    frame(scene, screen)
    assert shown_marks(scene) == frozenset() and not marks.busy
    state = scene.controller.state
    assert marks.get((state.phase, 0), state, 0) == frozenset()  # answered "no marks", not searched again
    scene.exit()
