"""The physics rules of issue 26, hand-checked: skip_by_speed, long set-backs.

Each value has a scenario worked out by hand (the same pictures are in docs/rules.md), and
the solver's par is checked against the plain referee search on them; the random-map
comparison for every value is tests/test_differential_options.py.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from game.core import RaceState, Vec, preset
from game.core.errors import RulesError
from game.drivers.reference import reference_par
from game.drivers.solver import solve
from game.tracks.charmap import track_from_charmap

# A corridor ending in a wall at x = 7 on row 1 (row 2 goes on to the finish).
WALL = """
XXXXXXXXXXXX
XSOOOOOXXXXX
XSOOOOOOOOFX
XXXXXXXXXXXX
"""


def rolling(track, rules, position: Vec, velocity: Vec) -> RaceState:
    """A one-car race with the car at ``position`` moving at ``velocity`` (not its first move)."""
    state = RaceState.start(track, rules, ["a"])
    return replace(state, cars=(replace(state.cars[0], position=position, velocity=velocity, moves=5),))


# -- skip_by_speed ---------------------------------------------------------------------------

@pytest.mark.parametrize("exponent,cap,speed,skips", [
    (1, 8, 1, 1), (1, 8, 4, 4), (1, 3, 4, 3), (1.5, 8, 1, 1), (1.5, 8, 2, 3), (1.5, 8, 3, 6), (1.5, 8, 4, 8),
    (1.5, 8, 9, 8), (1.5, 20, 5, 12)])
def test_a_crash_misses_min_cap_and_ceil_speed_to_the_exponent_turns(exponent, cap, speed, skips):
    rules = preset("paper", {"offroad_penalty": "skip_by_speed", "penalty_exponent": exponent, "penalty_cap": cap})
    assert rules.crash_skips_at(speed) == skips


def test_a_car_crashing_at_speed_4_misses_4_turns_and_restarts_at_rest():
    rules = preset("paper", {"offroad_penalty": "skip_by_speed"})
    state = rolling(track_from_charmap(WALL, id="wall"), rules, Vec(3, 1), Vec(3, 0))
    after, record = state.apply({0: Vec(7, 1)})  # base (6, 1) + (1, 0): into the wall at speed 4
    car = after.cars[0]
    assert car.skip == 4 and car.velocity == Vec(0, 0) and car.position == Vec(6, 1)
    assert any("misses 4 turns" in e.detail for e in record.events)
    for _ in range(4):  # the turns it misses: it stands
        assert after.to_choose() == ()
        after, _ = after.apply({})
    assert after.to_choose() == (0,)


def test_the_exponent_makes_a_fast_crash_dearer_up_to_the_cap():
    rules = preset("paper", {"offroad_penalty": "skip_by_speed", "penalty_exponent": 1.5, "penalty_cap": 5})
    state = rolling(track_from_charmap(WALL, id="wall"), rules, Vec(3, 1), Vec(3, 0))
    after, _ = state.apply({0: Vec(7, 1)})  # ceil(4 ** 1.5) = 8, capped at 5
    assert after.cars[0].skip == 5


def test_the_solver_prices_each_crash_by_its_speed():
    # From the grid on the wall track a crash is never worth it: par equals the plain search's
    # under every exponent, and no line crashes.
    track = track_from_charmap(WALL, id="wall")
    for exponent in (1, 1.5):
        rules = preset("paper", {"offroad_penalty": "skip_by_speed", "penalty_exponent": exponent})
        assert solve(track, rules, 1).par == reference_par(track, rules, 1).par


@pytest.mark.parametrize("name,value,words", [
    ("penalty_exponent", float("nan"), "cannot be nan"), ("penalty_exponent", 2, "choose one of 1, 1.5"),
    ("penalty_cap", 0, "from 1 to 20"), ("penalty_cap", 21, "from 1 to 20"),
    ("setback_moves", 1000, "from 1 to 99")])
def test_bad_values_are_refused_with_the_rule_named(name, value, words):
    with pytest.raises(RulesError, match=name) as error:
        preset("paper", {name: value})
    assert words in str(error.value)


def test_an_exponent_written_as_a_float_is_the_same_rule():
    assert preset("paper", {"penalty_exponent": 1.0}) == preset("paper")


# -- long set-backs --------------------------------------------------------------------------

def test_a_car_remembers_at_most_setback_moves_plus_one_places_however_long_the_race():
    rules = preset("paper", {"offroad_penalty": "setback", "setback_moves": 99})
    state = RaceState.start(track_from_charmap(WALL, id="wall"), rules, ["a"], laps=1)
    for _ in range(150):  # standing still is a move: each phase adds a place
        state, _ = state.apply({0: state.cars[0].position})
    assert len(state.cars[0].history) == 100


def test_a_stuck_car_is_set_back_99_moves():
    rules = preset("paper", {"offroad_penalty": "setback", "setback_moves": 99})
    state = rolling(track_from_charmap(WALL, id="wall"), rules, Vec(6, 1), Vec(3, 0))  # every target off the road
    places = tuple((Vec(1 + k % 5, 2), state.cars[0].progress) for k in range(100))
    state = replace(state, cars=(replace(state.cars[0], history=places),))
    assert state.legal_targets(0) == ()
    after, record = state.apply({})
    assert after.cars[0].position == places[0][0] and after.cars[0].velocity == Vec(0, 0)
    assert any(e.detail == "set back 99 moves" for e in record.events)
