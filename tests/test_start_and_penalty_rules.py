"""The physics rules of issue 26, hand-checked: start_direction, skip_by_speed, long set-backs.

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

# A sprint whose grid stands right behind the line: x = 4 is the start, the line is at x = 4.5.
SPRINT = """
XXXXXXXXXX
XOOOSFOOOX
XOOOSFOOOX
XXXXXXXXXX
"""

# A corridor ending in a wall at x = 7 on row 1 (row 2 goes on to the finish).
WALL = """
XXXXXXXXXXXX
XSOOOOOXXXXX
XSOOOOOOOOFX
XXXXXXXXXXXX
"""


def sprint():
    return track_from_charmap(SPRINT, id="sprint")


def rolling(track, rules, position: Vec, velocity: Vec) -> RaceState:
    """A one-car race with the car at ``position`` moving at ``velocity`` (not its first move)."""
    state = RaceState.start(track, rules, ["a"])
    return replace(state, cars=(replace(state.cars[0], position=position, velocity=velocity, moves=5),))


# -- start_direction ------------------------------------------------------------------------

@pytest.mark.parametrize("direction,across,behind", [
    ("free", True, True), ("away", False, True), ("formula1", True, False)])
def test_the_first_move_may_cross_the_line_as_the_start_direction_says(direction, across, behind):
    state = RaceState.start(sprint(), preset("paper", {"start_direction": direction}), ["a"])
    judged = {c.node: c for c in state.candidates(0)}
    assert judged[Vec(5, 1)].legal == across  # over the line at x = 4.5
    assert judged[Vec(3, 1)].legal == behind and judged[Vec(4, 1)].legal == behind  # away from it, or standing
    if not across:
        assert judged[Vec(5, 1)].reason == "the first move may not cross the finish line"
    if not behind:
        assert judged[Vec(3, 1)].reason == "the first move must cross the finish line"


def test_only_the_first_move_is_judged_by_the_start_direction():
    rules = preset("paper", {"start_direction": "away"})
    state, _ = RaceState.start(sprint(), rules, ["a"]).apply({0: Vec(4, 1)})  # the first move: stand
    assert Vec(5, 1) in state.legal_targets(0)  # the second move may cross


def test_under_formula1_the_first_crossing_starts_lap_1_and_finishes_nothing():
    free, f1 = preset("paper"), preset("paper", {"start_direction": "formula1"})
    after, record = RaceState.start(sprint(), free, ["a"]).apply({0: Vec(5, 1)})
    assert after.cars[0].status == "finished"  # free: the grid is behind the line, one crossing is the lap
    after, record = RaceState.start(sprint(), f1, ["a"]).apply({0: Vec(5, 1)})
    assert after.cars[0].racing and after.cars[0].progress.laps_done == 0
    assert not [e for e in record.events if e.kind in ("lap", "finish")]


@pytest.mark.parametrize("direction,par", [("free", 1), ("away", 2), ("formula1", None)])
def test_par_under_each_start_direction_on_the_sprint(direction, par):
    # free: over the line at once; away: stand (or back off), then over; formula1: the crossing
    # only starts the lap, and a sprint never comes round to the line again.
    rules = preset("paper", {"start_direction": direction})
    # (without a finish the plain search never ends: a crash's restart behind the line adds a
    # debt each time; its first 300 states find none)
    assert reference_par(sprint(), rules, 1, max_states=300).par == par
    solution = solve(sprint(), rules, 1)
    assert solution.par == par
    if par is not None:
        assert len(solution.path) == par + 1 and solution.path[0] in sprint().start_slots


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
    ("setback_moves", 1000, "from 1 to 99"), ("start_direction", "backwards", "choose one of 'free'")])
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
