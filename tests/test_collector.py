"""The frame loop's collector policy: long passes at screen changes, start-up frozen, no garbage kept.

A frame's length is measured by ``tools/bench_frames.py`` (with and without the policy) and a
long evening's memory by ``tools/bench_races.py --draw``; these tests check what the policy does.
"""
from __future__ import annotations

import gc
import weakref

import pygame
import pytest

from game.presentation.app import App, DisplayConfig, init_pygame
from game.presentation.collector import CollectorPolicy
from game.presentation.scene import Scene


class Blank(Scene):
    """A screen that draws nothing but holds what it is given."""

    def __init__(self, held=None) -> None:
        super().__init__()
        self.held = held

    def draw(self, surface) -> None:
        surface.fill((0, 0, 0))


class Litter:
    """An object in a reference cycle: only the cyclic collector ever frees it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def app():
    init_pygame(headless=True)
    app = App(DisplayConfig(size=(320, 240)), collector=CollectorPolicy())
    enabled, thresholds = gc.isenabled(), gc.get_threshold()
    gc.disable()  # no automatic pass may free the litter: only the policy's
    yield app
    if app.collector.started:
        app.collector.stop()
    gc.set_threshold(*thresholds)
    if enabled:
        gc.enable()


def test_the_game_runs_with_its_start_up_frozen_and_unfreezes_on_the_way_out(app):
    thresholds = gc.get_threshold()
    app.push(Blank())
    kept = Litter()
    seen = []
    app.run(max_frames=3, on_frame=lambda a: seen.append((gc.get_freeze_count(), frozen(kept))))
    assert min(count for count, _ in seen) > 1000 and all(was for _, was in seen)  # start-up: out of every pass
    assert not frozen(kept)
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == thresholds


def test_a_screen_left_is_reclaimed_at_the_screen_change(app):
    app.collector.start()
    app.push(Blank())
    app.step(1 / 60, [])  # start-up loading is done: the title is frozen with the rest
    litter = Litter()
    gone = weakref.ref(litter)
    app.stack.replace(Blank(held=litter))
    del litter
    app.step(1 / 60, [])
    app.stack.replace(Blank())
    assert gone() is not None
    app.step(1 / 60, [])  # the new screen is drawn, then the collector runs
    assert gone() is None


def test_nothing_is_reclaimed_in_the_middle_of_a_screen(app):
    app.collector.start()
    app.push(Blank())
    app.step(1 / 60, [])
    litter = Litter()
    gone = weakref.ref(litter)
    del litter
    for _ in range(5):
        app.step(1 / 60, [])
    assert gone() is not None  # left to the next screen change (or Python's own thresholds)


def frozen(thing) -> bool:
    """Whether the collector's passes leave ``thing`` alone (frozen: tracked, yet in no generation)."""
    return gc.is_tracked(thing) and not any(o is thing for o in gc.get_objects())


def test_start_up_loading_is_frozen_once_and_a_race_never(app):
    loaded = []
    app.collector.settled = lambda: bool(loaded)
    app.collector.start()
    app.push(Blank())
    app.step(1 / 60, [])
    packs = [Litter() for _ in range(200)]  # what the loading threads read, kept for the evening
    app.stack.replace(Blank())
    app.step(1 / 60, [])
    assert not frozen(packs)  # still loading
    loaded.append(True)
    app.step(1 / 60, [])
    assert frozen(packs) and frozen(packs[0])  # the first frame after loading
    race = Litter()
    gone = weakref.ref(race)
    app.stack.replace(Blank(held=race))
    app.step(1 / 60, [])
    assert not frozen(race)
    del race
    app.stack.replace(Blank())
    app.step(1 / 60, [])
    assert gone() is None  # a race's garbage is never frozen


def test_an_app_without_a_policy_leaves_the_collector_alone():
    init_pygame(headless=True)
    app = App(DisplayConfig(size=(320, 240)))
    app.push(Blank())
    app.run(max_frames=2)
    assert gc.get_freeze_count() == 0
    pygame.display.set_mode((320, 240))
