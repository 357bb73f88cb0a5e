"""The move timer on the race screen: it runs only while players choose, shows a ring and the seconds
in the HUD, and when it runs out the car keeps its line and the screen says so."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
import pytest

from game.core.rules import preset
from game.presentation import theme
from game.presentation.menus.race import RacePlan, TrackEntry, start_race
from game.presentation.menus.rules_menu import RulesScene
from game.presentation.menus.seats import SeatTable
from game.presentation.race_scene import INTRO_SECONDS
from game.presentation.scene import SceneStack
from game.presentation.timer_ring import seconds_text, timer_rings
from game.settings import load_settings
from game.tracks import load_track_ref
from tests.menu_context import headless_display, starter_context

SIZE = (960, 540)


@pytest.fixture(scope="module")
def surface():
    return headless_display(SIZE)


@pytest.fixture
def ctx(tmp_path):
    return starter_context(tmp_path, SIZE, tmp_path / "packs")


def race_with_timer(ctx, seconds=10):
    table = SeatTable()
    table.join("pad:1")
    table.add_cpu("cpu:rookie")
    track = load_track_ref("starter/first-sprint", builtin_dir=ctx.builtin_dir)
    plan = RacePlan(tuple(table.lineup()), TrackEntry("starter/first-sprint", track, "Starter"), preset("arcade"),
                    1, timer=seconds)
    scene = start_race(ctx, plan)
    stack = SceneStack()
    stack.push(scene)
    return scene, stack


def frames(stack, seconds, fps=60):
    for _ in range(round(seconds * fps)):
        stack.update(1 / fps)


def test_the_timer_waits_for_the_intro_then_counts_down_in_the_hud(ctx, surface):
    scene, stack = race_with_timer(ctx)
    frames(stack, INTRO_SECONDS + 0.2)
    assert scene.mode == "choosing"
    ring = timer_rings(scene.controller)
    assert [r.car for r in ring] == [0] and ring[0].seconds == pytest.approx(10 - 0.2, abs=0.05)
    frames(stack, 4)
    assert scene._lines()[0].marker == "choosing 6s"
    stack.draw(surface)


def test_the_ring_turns_red_in_the_last_seconds(ctx, surface):
    scene, stack = race_with_timer(ctx, seconds=5)
    frames(stack, INTRO_SECONDS + 0.1)
    stack.draw(surface)
    car = scene.controller.state.cars[0].position
    centre = scene.view.camera.to_screen((float(car.x), float(car.y)))

    def red_near():
        box = pygame.Rect(0, 0, 120, 120)
        box.center = (int(centre[0]), int(centre[1]))
        box = box.clip(surface.get_rect())
        return sum(1 for x in range(box.left, box.right) for y in range(box.top, box.bottom)
                   if tuple(surface.get_at((x, y)))[:3] == theme.DOOM)

    calm = red_near()
    frames(stack, 3)
    stack.draw(surface)
    assert red_near() > calm + 20


def test_when_the_time_is_up_the_car_keeps_its_line_and_the_screen_says_so(ctx):
    scene, stack = race_with_timer(ctx, seconds=5)
    frames(stack, INTRO_SECONDS + 5.1)
    ctl = scene.controller
    assert ctl.records, "the phase was played without the player"
    assert ctl.records[0].choices[0] == ctl.states[0].base_point(0)
    assert "time's up" in scene.message and "keeps its line" in scene.message
    assert "tick" in ctx.audio.played


def test_time_does_not_run_while_a_phase_plays(ctx):
    scene, stack = race_with_timer(ctx, seconds=10)
    frames(stack, INTRO_SECONDS + 0.1)
    ctl = scene.controller
    ctl.submit(0, ctl.state.base_point(0))
    frames(stack, 0.05)
    assert scene.mode == "replay"
    while scene.mode == "replay":
        frames(stack, 1 / 60)
    assert scene.mode == "choosing"
    frames(stack, 1 / 60)
    left = timer_rings(ctl)[0].seconds
    assert left == pytest.approx(10, abs=0.05)


def test_the_rules_menu_sets_the_timer_and_remembers_it(ctx, tmp_path):
    scene = RulesScene(ctx)
    stack = SceneStack()
    stack.push(scene)
    row = next(i for i, item in enumerate(scene.menu.items) if item.label == "Move timer")
    scene.menu.index = row
    assert scene.menu.current.value() == "off"
    scene.menu.verb("right")
    scene.menu.verb("right")
    assert scene.menu.current.value() == "10 s a move"
    settings, problems = load_settings(tmp_path / "config")
    assert problems == [] and settings.move_timer == 10
    scene.menu.verb("left")
    scene.menu.verb("left")
    scene.menu.verb("left")
    assert ctx.settings.move_timer == 60


def test_seconds_read_as_a_player_counts_them():
    assert [seconds_text(s) for s in (10, 9.01, 0.2, 0.0)] == ["10s", "10s", "1s", "0s"]
