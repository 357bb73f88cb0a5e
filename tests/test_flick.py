"""The pen-flick party mode: the meter, where a flick lands, the aiming controls and the flick CPU."""

from __future__ import annotations

import math
import os
import random

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pytest
from hypothesis import given, settings, strategies as st

from game import paths
from game.core.movement import FLICK_REACH
from game.core.race import FINISHED, RaceState
from game.core.rules import preset
from game.core.vec import Vec
from game.drivers.flick import FlickDriver, RouteFields, flick_point, landing_node, make_flick_driver
from game.presentation.flick import FlickAim, meter_strength
from game.tracks import load_track_ref

FLICK = preset("paper", {"movement": "flick"})


@pytest.fixture(scope="module")
def sprint():
    return load_track_ref("starter/first-sprint", builtin_dir=paths.builtin_tracks_dir())


@pytest.fixture(scope="module")
def oval():
    return load_track_ref("starter/paper-oval", builtin_dir=paths.builtin_tracks_dir())


@given(st.floats(0, 100, allow_nan=False))
def test_the_meter_swings_between_weak_and_full(clock):
    assert 0.1 <= meter_strength(clock) <= 1.0


def test_the_meter_is_full_half_way_through_its_swing():
    assert meter_strength(0.8) == 1.0
    assert meter_strength(0.0) == pytest.approx(0.1)
    assert meter_strength(0.4) < meter_strength(0.6) < meter_strength(0.8)


@settings(max_examples=80, deadline=None)
@given(st.floats(-math.pi, math.pi), st.floats(0, 1))
def test_a_flick_lands_on_a_legal_node_within_reach(oval, angle, strength):
    state = RaceState.start(oval, FLICK, ["a"], seed=1)
    here = state.cars[0].position
    cands = state.candidates(0)
    node = landing_node(cands, flick_point(here, angle, strength), here)
    assert node in {c.node for c in cands if c.legal}
    assert (node.x - here.x) ** 2 + (node.y - here.y) ** 2 <= FLICK_REACH ** 2


def test_a_flick_lands_on_the_nearest_legal_node_to_where_it_reaches(oval):
    state = RaceState.start(oval, FLICK, ["a"], seed=1)
    here = state.cars[0].position
    point = flick_point(here, 0.0, 0.5)  # 3 squares to the right
    assert landing_node(state.candidates(0), point, here) == Vec(here.x + 3, here.y)


def test_aiming_with_a_direction_points_the_flick_there():
    aim = FlickAim()
    aim.point_at(0, 1)
    assert aim.angle == pytest.approx(math.pi / 2)
    aim.nudge(1)
    assert aim.angle == pytest.approx(math.pi / 2 + math.radians(10))


def test_the_flick_cpu_finishes_a_lap_race_on_every_level(sprint):
    fields = RouteFields()
    state = RaceState.start(sprint, FLICK, ["r", "p", "c"], seed=4)
    drivers = [make_flick_driver(k, fields) for k in ("cpu:rookie", "cpu:pro", "cpu:champion")]
    while not state.over and state.phase < 80:
        state, _ = state.apply({i: drivers[i].choose(state, i, {}, random.Random(f"{i}/{state.phase}"))
                                for i in state.to_choose()})
    assert all(c.status == FINISHED for c in state.cars)
    champion, rookie = state.cars[2].moves, state.cars[0].moves
    assert champion <= rookie


def test_the_flick_cpu_is_the_same_with_the_same_seed_and_shaky_with_others(oval):
    state = RaceState.start(oval, FLICK, ["a"], seed=1)
    driver = FlickDriver(noise=1.5)
    picks = {driver.choose(state, 0, {}, random.Random(seed)) for seed in range(30)}
    again = {driver.choose(state, 0, {}, random.Random(seed)) for seed in range(30)}
    assert picks == again
    assert len(picks) > 1  # the hand shakes
    steady = FlickDriver(noise=0.0)
    assert len({steady.choose(state, 0, {}, random.Random(seed)) for seed in range(5)}) == 1


def test_the_flick_cpu_plays_the_exact_modes_too(sprint):
    state = RaceState.start(sprint, preset("paper"), ["a"], seed=1)
    choice = FlickDriver().choose(state, 0, {}, random.Random(0))
    assert choice in state.legal_targets(0)


def test_an_unknown_flick_level_is_refused_by_name():
    with pytest.raises(ValueError, match="cpu:wizard"):
        make_flick_driver("cpu:wizard")


def test_a_player_flicks_with_the_meter_in_the_race_scene(oval, tmp_path):
    import pygame

    from game.presentation.app import init_pygame
    from game.presentation.input import Confirm, Select
    from game.presentation.menus import build_context
    from game.presentation.menus.race import RacePlan, TrackEntry, start_race
    from game.presentation.menus.seats import SeatSpec

    init_pygame(headless=True)
    surface = pygame.display.set_mode((640, 360))
    ctx = build_context(tmp_path, None, paths.builtin_tracks_dir(), seed=2)
    ctx.size = (640, 360)
    plan = RacePlan((SeatSpec("Ada", 0, 0, "human", "kb1"), SeatSpec("Pro", 1, 1, "cpu:pro")),
                    TrackEntry("starter/paper-oval", oval, "Starter"), preset("arcade", {"movement": "flick"}), 1)
    race = start_race(ctx, plan)
    from game.presentation.scene import SceneStack

    stack = SceneStack()
    stack.push(race)
    race.intro_time = 99
    race.update(0.01)
    assert race.flick is not None and race.flick.choosing() == [0]
    race.handle(Select("kb1", 1, 0, True))  # aim right (a block key only aims)
    assert race.controller.chosen(0) is None
    race.flick.aim(0).clock = 0.8  # the meter at full strength
    expected = race.flick.landing(0)
    here = race.controller.state.cars[0].position
    race.draw(surface)
    race.handle(Confirm("keys"))
    assert race.controller.chosen(0) == expected
    assert expected.x - here.x >= 4  # a full flick slides far



def test_flick_cpus_never_flick_backwards_over_the_finish_and_finish_a_circuit():
    import random as _random

    import tests.test_solver as solver_tests
    from game.core import RaceState, preset
    from game.drivers.cpu import make_driver
    from game.tracks import track_from_charmap

    track = track_from_charmap(solver_tests.OVAL, id="oval")
    for kind in ("cpu:champion", "cpu:pro", "cpu:rookie"):
        state = RaceState.start(track, preset("paper", {"movement": "flick"}), ["A"], laps=1, seed=1)
        driver, rng = make_driver(kind), _random.Random(1)
        while not state.over and state.phase < 200:
            state, _ = state.apply({0: driver.choose(state, 0, {}, rng)})
        assert state.cars[0].status == "finished", kind
        assert state.cars[0].progress.finish_debt == 0
