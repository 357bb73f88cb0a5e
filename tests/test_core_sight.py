"""Night races: the headlights of game.core.sight, hand-checked on paper, and their properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.core import RulesError, Vec, preset
from game.core.sight import FADE_PHASES, NEAR, fade_weights, glow, lit_by_car, lit_now, rest_radius
from tests.core_tracks import play, race


def picture(mask: np.ndarray) -> list[str]:
    return ["".join("#" if v else "." for v in row) for row in mask]


def test_a_car_at_rest_lights_a_circle_of_half_the_radius():
    # radius 6 -> a circle of 3 squares: every node with dx^2 + dy^2 <= 9.
    assert rest_radius(6) == 3
    assert picture(lit_by_car(Vec(3, 3), Vec(0, 0), 6, (7, 9))) == [
        "...#.....",
        ".#####...",
        ".#####...",
        "#######..",
        ".#####...",
        ".#####...",
        "...#.....",
    ]


def test_a_moving_car_lights_a_cone_ahead_and_a_small_circle_round_it():
    # At (1, 5) moving (2, 0) with radius 3: the cone reaches 3 + 2 = 5 squares, and holds the
    # nodes with 3 (d.v)^2 >= 2 |d|^2 |v|^2 (worked out column by column: dx=2 -> |dy|<=1,
    # dx=3 -> |dy|<=2, dx=4 -> |dy|<=2, dx=5 -> dy=0); the circle of NEAR=2 adds the rest.
    assert NEAR == 2
    assert picture(lit_by_car(Vec(1, 5), Vec(2, 0), 3, (11, 9))) == [
        ".........",
        ".........",
        ".........",
        ".#..##...",
        "######...",
        "#######..",
        "######...",
        ".#..##...",
        ".........",
        ".........",
        ".........",
    ]


def test_nothing_behind_a_moving_car_is_lit_beyond_the_small_circle():
    mask = lit_by_car(Vec(20, 10), Vec(3, 0), 6, (21, 41))
    ys, xs = np.nonzero(mask[:, :20])
    assert ((xs - 20) ** 2 + (ys - 10) ** 2 <= NEAR ** 2).all()
    assert mask[10, 20 + 6 + 3] and not mask[10, 20 + 6 + 4]  # radius beyond the speed, no further


def test_the_light_stops_at_the_edge_of_the_paper():
    mask = lit_by_car(Vec(0, 0), Vec(-2, -2), 6, (5, 5))
    assert picture(mask) == ["###..", "##...", "#....", ".....", "....."]


def test_fine_paper_counts_the_radius_in_squares():
    coarse = lit_by_car(Vec(2, 2), Vec(0, 0), 4, (5, 5))
    fine = lit_by_car(Vec(20, 20), Vec(0, 0), 4, (41, 41), scale=10)
    assert (fine[::10, ::10] == coarse).all()


def test_fading_over_the_last_two_phases():
    # Played out (t = 1): now 1, one phase ago 2/3, two ago 1/3, three ago dark.
    assert fade_weights(4, 1.0) == pytest.approx([0.0, 1 / 3, 2 / 3, 1.0])
    # As a phase starts to play (t = 0) the new light is not there yet and nothing has faded further.
    assert fade_weights(4, 0.0) == pytest.approx([1 / 3, 2 / 3, 1.0, 0.0])
    a, b, c = (np.array([[k == i for k in range(3)]]) for i in range(3))
    assert glow([a, b, c], 1.0)[0].tolist() == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert glow([a | c, b, c], 1.0)[0].tolist() == pytest.approx([1 / 3, 2 / 3, 1.0])  # the brightest wins


def test_lit_now_ignores_cars_out_of_the_race_and_uses_the_rules_radius():
    state = race(rules="paper", overrides={"sight": "night", "sight_radius": 2})
    both = lit_now(state)
    assert both[1, 2] and both[3, 2]  # the grid's cars at (2, 1), (2, 2), (2, 3)
    assert not both[1, 5]  # 3 squares away: beyond the rest circle of 1
    state, _ = play(state, {0: (3, 1), 1: (2, 2), 2: (3, 3)})
    moving = lit_now(state)
    assert moving[1, 3 + 2 + 1]  # car 0 moves (1, 0): its cone reaches radius 2 + speed 1
    from game.core.vec import RETIRE
    state, _ = play(state, {0: RETIRE, 1: (2, 2), 2: (4, 3)})
    assert not lit_now(state)[1, 6]  # car 0 retired: its light is off


@pytest.mark.parametrize("bad", [0, 500, float("nan"), "6", 6.5, True, None])
def test_a_bad_radius_is_refused_with_the_option_named(bad):
    with pytest.raises(RulesError, match="sight_radius.*from 2 to 20"):
        preset("paper", {"sight": "night", "sight_radius": bad})


def test_an_unknown_sight_is_refused_with_its_values():
    with pytest.raises(RulesError, match="'sight' cannot be 'dusk'; choose one of 'day', 'night'"):
        preset("arcade", {"sight": "dusk"})


def test_par_is_worked_out_in_daylight():
    night = preset("arcade", {"sight": "night", "sight_radius": 9})
    assert night.night and not night.by_day().night
    assert night.by_day() == preset("arcade")
    assert preset("paper").by_day() is not None and preset("paper").by_day() == preset("paper")


# -- properties -------------------------------------------------------------------------------

speeds = st.builds(Vec, st.integers(-6, 6), st.integers(-6, 6))
radii = st.integers(2, 20)


@settings(deadline=None)  # timing is not what these check (a loaded machine is slow)
@given(speeds, radii)
def test_a_car_always_lights_its_own_node_and_its_straight_line(velocity, radius):
    size = 2 * (radius + 7) + 1
    mid = size // 2
    mask = lit_by_car(Vec(mid, mid), velocity, radius, (size, size))
    assert mask[mid, mid]
    # the node the car reaches if it keeps its line is lit (it is on the cone's axis)
    assert mask[mid + velocity.y, mid + velocity.x]


@settings(deadline=None)  # timing is not what these check (a loaded machine is slow)
@given(speeds, radii)
def test_a_larger_radius_lights_everything_a_smaller_one_does(velocity, radius):
    size = 2 * (radius + 8) + 1
    mid = size // 2
    small = lit_by_car(Vec(mid, mid), velocity, radius, (size, size))
    large = lit_by_car(Vec(mid, mid), velocity, radius + 1, (size, size))
    assert not (small & ~large).any()


@settings(deadline=None)  # timing is not what these check (a loaded machine is slow)
@given(speeds, radii)
def test_turning_the_car_a_quarter_turns_its_light(velocity, radius):
    size = 2 * (radius + 7) + 1
    mid = size // 2
    mask = lit_by_car(Vec(mid, mid), velocity, radius, (size, size))
    turned = lit_by_car(Vec(mid, mid), Vec(-velocity.y, velocity.x), radius, (size, size))
    # (x, y) -> (-y, x) about the car: row r, column c goes to row c, column size-1-r
    assert (np.rot90(mask, k=-1) == turned).all()


@settings(deadline=None)  # timing is not what these check (a loaded machine is slow)
@given(st.integers(1, 6), st.floats(0.0, 1.0))
def test_light_only_fades_with_age_and_joins_up_between_phases(count, t):
    weights = fade_weights(count, t)
    older = weights[:-1]
    assert all(a <= b for a, b in zip(older, older[1:]))  # older light is never brighter
    assert all(0.0 <= w <= 1.0 for w in weights)
    assert weights[-1] == pytest.approx(t)
    # the end of one phase's replay is the start of the next one's (one more mask remembered)
    assert fade_weights(count + 1, 0.0)[:-1] == pytest.approx(fade_weights(count, 1.0))
    assert all(w == 0 for w in fade_weights(count, 1.0)[:max(0, count - FADE_PHASES - 1)])
