"""Hand-checked scenarios for every rule option: small maps drawn here, moves worked out on paper."""

from __future__ import annotations

from dataclasses import replace

import pytest

from game.core import RETIRE, Gate, IllegalChoiceError, RaceSetupError, RulesError, Vec, preset
from game.core.rules import CHOICES, OPTIONS, PRESETS, RuleSet
from tests.core_tracks import STRAIGHT, play, race

# A bend: the top road turns down on the right.  x: 0..7, y: 0..6
BEND = [
    "XXXXXXXX",
    "XSOOOOOX",
    "XSOOOOOX",
    "XXXXXOOX",
    "XXXXXOOX",
    "XXXXXOOX",
    "XXXXXXXX",
]
BEND_FINISH = {"finish": ((4.5, 4.5), (6.5, 4.5)), "forward": (0, 1)}

# A ring driven clockwise; the finish is on the top straight, cars start just past it.
RING = [
    "XXXXXXXXXXXX",
    "XOOOOOOOOOOX",
    "XOOOOOOOOOOX",
    "XOOXXXXXXOOX",
    "XOOXXXXXXOOX",
    "XOOOOOOOOOOX",
    "XOOOOOOOOOOX",
    "XXXXXXXXXXXX",
]
RING_KW = {"finish": ((5.5, 0.5), (5.5, 2.5)), "forward": (1, 0), "slots": [Vec(6, 1), Vec(6, 2)]}
RIGHT_SIDE = Gate(1, a=(8.5, 3.5), b=(10.5, 3.5), forward=(0, 1))
BOTTOM = Gate(2, a=(5.5, 4.5), b=(5.5, 6.5), forward=(-1, 0))
# One clockwise lap in single steps, from the start slot (6, 1) back across the finish.
LAP = [(7, 1), (8, 1), (9, 1), (10, 2), (10, 3), (10, 4), (10, 5), (9, 6), (8, 6), (7, 6), (6, 6), (5, 6),
       (4, 6), (3, 6), (2, 6), (1, 5), (1, 4), (1, 3), (1, 2), (2, 1), (3, 1), (4, 1), (5, 1), (6, 1)]


def place(state, car, position, velocity=(0, 0)):
    """Put a car somewhere mid-race (as if it had driven there)."""
    cars = list(state.cars)
    cars[car] = replace(cars[car], position=Vec(*position), velocity=Vec(*velocity))
    return replace(state, cars=tuple(cars))


def drive(state, car, nodes):
    for node in nodes:
        state, _ = state.apply({car: Vec(*node)})
    return state


def kinds(records, car=None):
    return [e.kind for r in records for e in r.events if car is None or e.car == car]


# -- movement and start -------------------------------------------------------

def test_nine_targets_surround_the_base_point_and_the_grass_ones_are_flagged():
    state = race(rules="paper")
    cands = state.candidates(0)
    assert [c.node for c in cands] == [Vec(x, y) for y in (0, 1, 2) for x in (1, 2, 3)]
    assert all(c.legal for c in cands)  # leaving the road is allowed, and punished, under paper rules
    assert {c.node for c in cands if c.offroad} == {Vec(1, 0), Vec(2, 0), Vec(3, 0)}


def test_cross_movement_offers_the_base_point_and_its_four_neighbours():
    state = race(rules="paper", overrides={"movement": "cross"})
    assert {c.node for c in state.candidates(1)} == {Vec(2, 1), Vec(1, 2), Vec(2, 2), Vec(3, 2), Vec(2, 3)}


def test_the_last_move_is_repeated_from_the_base_point():
    state, _ = play(race(), {0: (3, 1), 1: (3, 2), 2: (2, 3)})
    assert state.base_point(0) == Vec(4, 1)
    assert {c.node for c in state.candidates(0)} == {Vec(x, y) for x in (3, 4, 5) for y in (0, 1, 2)}
    assert state.base_point(2) == Vec(2, 3)


def test_a_rolling_start_begins_one_square_forward():
    state = race(rules="paper", overrides={"start": "vector1"})
    assert state.cars[0].velocity == Vec(1, 0)
    assert state.base_point(0) == Vec(3, 1)


def test_a_race_needs_enough_start_slots_and_sane_laps():
    with pytest.raises(RaceSetupError, match="start slots"):
        race(names=("A", "B", "C", "D"))
    with pytest.raises(RaceSetupError, match="laps"):
        race(laps=0)


def test_unknown_rules_are_refused_with_the_allowed_values():
    with pytest.raises(RulesError, match="collision"):
        preset("paper", {"collision": "bounce"})
    with pytest.raises(RulesError, match="unknown rule option"):
        preset("paper", {"gravity": True})
    with pytest.raises(RulesError, match="preset"):
        preset("monaco")


# -- off-road check -----------------------------------------------------------

def test_segment_check_punishes_cutting_the_corner_landing_check_does_not():
    seg = place(race(BEND, names=("A",), **BEND_FINISH), 0, (3, 2), (1, 1))
    target = Vec(5, 4)  # base point (4, 3) is grass; (5, 4) is road, the segment crosses grass
    assert next(c for c in seg.candidates(0) if c.node == target).offroad
    land = place(race(BEND, names=("A",), overrides={"offroad_check": "landing"}, **BEND_FINISH), 0, (3, 2), (1, 1))
    assert not next(c for c in land.candidates(0) if c.node == target).offroad


def test_projection_check_judges_the_unsteered_move():
    # From (3, 2) at (2, 2) the unsteered move to (5, 4) cuts over grass; steering to (6, 3) would not.
    proj = place(race(BEND, names=("A",), overrides={"offroad_check": "projection"}, **BEND_FINISH), 0, (3, 2), (2, 2))
    seg = place(race(BEND, names=("A",), **BEND_FINISH), 0, (3, 2), (2, 2))
    assert not next(c for c in seg.candidates(0) if c.node == Vec(6, 3)).offroad
    assert next(c for c in proj.candidates(0) if c.node == Vec(6, 3)).offroad


def test_projection_check_looks_ahead_along_the_velocity_not_back():
    # On the straight: A at (16, 2) doing 3 to the right would roll to (19, 2), the wall;
    # behind it, (13, 2), is road. Under projection every target it has leaves the road,
    # even (18, 2) (road, reached by braking): it is the unsteered move that counts.
    proj = place(race(names=("A",), overrides={"offroad_check": "projection"}), 0, (16, 2), (3, 0))
    on_paper = [c for c in proj.candidates(0) if c.reason != "off the paper"]
    assert Vec(18, 2) in {c.node for c in on_paper} and all(c.offroad for c in on_paper)
    # At (2, 2) doing 2 to the right: ahead (4, 2) is road, behind (0, 2) the wall. Nothing leaves.
    ahead = place(race(names=("A",), overrides={"offroad_check": "projection"}), 0, (2, 2), (2, 0))
    assert not any(c.offroad for c in ahead.candidates(0))


# -- off-road penalties -------------------------------------------------------

def into_the_wall(rules, overrides=None):
    """Car A at (3, 1) doing 3 to the right on BEND; its base point is (6, 1) by the wall."""
    state = race(BEND, rules=rules, names=("A",), overrides=overrides, **BEND_FINISH)
    return place(state, 0, (3, 1), (3, 0))


def test_reset_puts_the_car_on_the_nearest_road_node_at_rest():
    state, (record,) = play(into_the_wall("paper"), {0: (7, 1)})
    car = state.cars[0]
    assert (car.position, car.velocity, car.status) == (Vec(6, 1), Vec(0, 0), "racing")
    assert kinds([record]) == ["off_track", "penalty"]
    assert record.moves[0].crash_point == (6.5, 1.0)  # the wall is half a square past x = 6
    assert record.moves[0].crash_time == pytest.approx(7 / 8)


def test_reset_with_a_missed_turn_sits_out_the_next_phase():
    state, _ = play(into_the_wall("paper", {"offroad_penalty": "reset_skip"}), {0: (7, 1)})
    assert state.to_choose() == ()
    with pytest.raises(IllegalChoiceError, match="misses this turn"):
        state.apply({0: Vec(6, 2)})
    state, (record,) = play(state, {})
    assert kinds([record]) == ["penalty"] and state.cars[0].position == Vec(6, 1)
    assert state.to_choose() == (0,)


def test_eliminate_takes_the_car_out():
    state, _ = play(into_the_wall("paper", {"offroad_penalty": "eliminate"}), {0: (7, 1)})
    assert state.cars[0].status == "crashed" and state.over


def test_forbid_makes_grass_moves_illegal_and_a_car_with_no_move_crashes():
    state = into_the_wall("paper", {"offroad_penalty": "forbid"})
    bad = next(c for c in state.candidates(0) if c.node == Vec(7, 1))
    assert (bad.legal, bad.reason) == (False, "leaves the road")
    with pytest.raises(IllegalChoiceError, match="leaves the road"):
        state.apply({0: Vec(7, 1)})
    stuck = place(state, 0, (6, 1), (3, 0))  # every target is off the paper
    assert stuck.legal_targets(0) == ()
    after, (record,) = play(stuck, {})
    assert after.cars[0].status == "crashed"
    with pytest.raises(IllegalChoiceError, match="chose none"):
        state.apply({})


def test_setback_sends_a_stuck_car_back_two_moves_at_rest():
    state = race(BEND, rules="karopapier", names=("A",), **BEND_FINISH)
    state = drive(state, 0, [(2, 1), (4, 1), (6, 1)])
    assert state.legal_targets(0) == ()  # base point (8, 1) is off the paper
    state, (record,) = play(state, {})
    car = state.cars[0]
    assert (car.position, car.velocity, car.moves) == (Vec(2, 1), Vec(0, 0), 4)
    assert kinds([record]) == ["off_track", "penalty"]


WIDE = [
    "XXXXXXXXXXXX",
    "XXXXXXXXXXXX",
    "XSOOOOOOOOOX",
    "XSOOOOOOOOOX",
    "XXXXXXXXXXXX",
    "XXXXXXXXXXXX",
]
WIDE_KW = {"finish": ((10.5, 1.5), (10.5, 3.5)), "forward": (1, 0)}


def test_slow_return_lets_a_car_drive_on_the_paper_and_come_back_gently():
    state = race(WIDE, rules="tournament", names=("A",), overrides={"start": "standstill"}, **WIDE_KW)
    state, records = play(state, {0: (1, 1)}, {0: (1, 1)}, {0: (1, 2)})
    car = state.cars[0]
    assert (car.position, car.on_paper, car.offences, car.status) == (Vec(1, 2), False, 0, "racing")
    assert kinds(records) == ["off_track"]


def test_slow_return_too_fast_costs_a_turn_then_disqualifies():
    state = race(WIDE, rules="tournament", names=("A",), overrides={"start": "standstill"}, **WIDE_KW)
    state, records = play(state, {0: (2, 1)}, {0: (3, 1)}, {0: (5, 2)})
    car = state.cars[0]
    assert (car.offences, car.skip, car.velocity) == (1, 1, Vec(0, 0))
    assert records[-1].events[-1].detail.startswith("came back onto the road too fast")
    state, _ = play(state, {}, {0: (5, 1)}, {0: (6, 1)}, {0: (8, 2)})
    assert state.cars[0].status == "disqualified"
    assert "disqualified" in kinds(_)


# -- collisions ---------------------------------------------------------------

def two_cars(collision, order="fixed", **extra):
    return race(rules="paper", names=("A", "B"), overrides={"collision": collision, "order": order, **extra})


def test_ignored_collisions_are_reported_but_change_nothing():
    state, (record,) = play(two_cars("ignore"), {0: (3, 2), 1: (3, 2)})
    assert [c.cars for c in record.collisions] == [(0, 1)]
    assert all(c.racing and c.velocity != Vec(0, 0) for c in state.cars)


def test_both_out_removes_both_cars():
    state, _ = play(two_cars("both_out"), {0: (3, 2), 1: (3, 2)})
    assert [c.status for c in state.cars] == ["crashed", "crashed"]


def test_later_out_removes_only_the_car_that_chose_later():
    state, _ = play(two_cars("later_out"), {0: (3, 2), 1: (3, 2)})
    assert [c.status for c in state.cars] == ["racing", "crashed"]
    state, _ = play(two_cars("later_out", order="simultaneous"), {0: (3, 2), 1: (3, 2)})
    assert [c.status for c in state.cars] == ["crashed", "crashed"]  # nobody chose later


def test_spin_stops_both_cars_where_they_meet():
    state, _ = play(two_cars("spin"), {0: (3, 2), 1: (3, 2)})
    assert [(c.position, c.velocity) for c in state.cars] == [(Vec(3, 2), Vec(0, 0))] * 2


def test_karopapier_blocking_forbids_only_landing_on_another_car():
    state = place(place(two_cars("block", block_passing=False), 0, (4, 2), (0, 0)), 1, (2, 2), (2, 0))
    assert next(c for c in state.candidates(1) if c.node == Vec(5, 2)).legal  # passes A at (4, 2)
    assert next(c for c in state.candidates(1) if c.node == Vec(4, 2)).reason == "blocked by A"


def test_an_explicit_order_for_one_phase_overrides_the_rules():
    state = two_cars("block")
    assert next(c for c in state.candidates(0, {1: Vec(3, 2)}, order=(1, 0)) if c.node == Vec(3, 2)).reason \
        == "blocked by B"
    with pytest.raises(IllegalChoiceError, match="blocked by B"):
        state.apply({1: Vec(3, 2), 0: Vec(3, 2)}, order=(1, 0))
    with pytest.raises(IllegalChoiceError, match="every car once"):
        state.apply({0: Vec(3, 1), 1: Vec(3, 2)}, order=(0, 0))


def test_blocking_forbids_ending_on_or_passing_through_another_car():
    state = two_cars("block")
    assert next(c for c in state.candidates(0) if c.node == Vec(2, 2)).reason == "blocked by B"
    committed = {0: Vec(3, 2)}
    assert next(c for c in state.candidates(1, committed) if c.node == Vec(3, 2)).reason == "blocked by A"
    passing = place(place(state, 0, (4, 2), (0, 0)), 1, (2, 2), (1, 0))
    assert next(c for c in passing.candidates(1) if c.node == Vec(4, 2)).reason == "blocked by A"
    assert next(c for c in passing.candidates(1) if c.node == Vec(3, 2)).legal
    with_a_gap = place(passing, 1, (2, 2), (2, 0))  # (2,2) -> (5,2) passes through A at (4,2)
    assert next(c for c in with_a_gap.candidates(1) if c.node == Vec(5, 2)).reason == "blocked by A"


def test_cars_meeting_mid_move_collide_when_that_option_is_on():
    swap = {0: (3, 2), 1: (3, 1)}  # A goes (2,1)->(3,2), B (2,2)->(3,1): they cross at (2.5, 1.5)
    _, (plain,) = play(two_cars("spin"), swap)
    assert plain.collisions == ()
    state, (record,) = play(two_cars("spin", collide_in_motion=True), swap)
    (hit,) = record.collisions
    assert (hit.cars, hit.point, hit.time) == ((0, 1), (2.5, 1.5), 0.5)
    assert all(c.velocity == Vec(0, 0) for c in state.cars)


def test_a_car_landing_on_one_that_sits_out_its_turn_collides_with_it():
    # B at (5, 2) misses this turn; A rolls from (3, 2) onto it. Collisions in motion or not,
    # a car standing out its turn is still on the road to be hit: both spin to rest.
    for in_motion in (True, False):
        state = place(place(two_cars("spin", collide_in_motion=in_motion), 0, (3, 2), (1, 0)), 1, (5, 2))
        cars = list(state.cars)
        cars[1] = replace(cars[1], skip=1)
        state = replace(state, cars=tuple(cars))
        after, (record,) = play(state, {0: (5, 2)})
        (hit,) = record.collisions
        assert (hit.cars, hit.point) == ((0, 1), (5.0, 2.0))
        assert after.cars[0].velocity == Vec(0, 0) and after.cars[0].position == Vec(5, 2)
        assert [e.kind for e in record.events if e.car == 1] == ["penalty", "collision", "penalty"]


# -- finishing ----------------------------------------------------------------

def near_the_line(finish, order="fixed"):
    state = race(rules="paper", names=("A", "B"), overrides={"finish": finish, "order": order})
    return place(place(state, 0, (14, 1), (1, 0)), 1, (13, 2), (3, 0))


def test_first_across_in_choosing_order_wins():
    state, records = play(near_the_line("first"), {0: (16, 1), 1: (16, 2)})
    assert state.outcome().ranks == (1, 2) and state.outcome().winners == (0,)
    assert kinds(records) == ["finish", "finish"]


def test_furthest_past_the_line_wins_after_the_phase_is_played_out():
    state, _ = play(near_the_line("furthest"), {0: (16, 1), 1: (17, 2)})
    assert state.outcome().ranks == (2, 1)
    state, _ = play(near_the_line("furthest"), {0: (16, 1), 1: (16, 2)})
    assert state.outcome().ranks == (1, 1) and state.outcome().winners == (0, 1)


def test_finishing_in_the_same_phase_is_a_draw():
    state, _ = play(near_the_line("draw"), {0: (16, 1), 1: (17, 2)})
    assert state.outcome().ranks == (1, 1) and state.outcome().finished


def test_a_later_phase_finish_ranks_behind():
    state, _ = play(near_the_line("draw"), {0: (16, 1), 1: (15, 2)})
    assert state.outcome().ranks == (1, None) and not state.outcome().finished
    state, _ = play(state, {1: (16, 2)})
    assert state.outcome().ranks == (1, 2)


def test_a_finish_counts_even_when_the_run_off_leaves_the_road():
    state = place(race(names=("A",)), 0, (15, 1), (3, 0))
    state, records = play(state, {0: (18, 1)})
    assert state.cars[0].status == "finished"


# -- order ----------------------------------------------------------------------

def test_choosing_order_by_lot_is_drawn_from_the_seed():
    once = [race(overrides={"order": "lot_once"}, seed=s) for s in range(6)]
    assert len({s.order() for s in once}) > 1
    moved, _ = play(once[0], {0: (3, 1), 1: (3, 2), 2: (3, 3)})
    assert moved.order() == once[0].order()
    each = race(overrides={"order": "lot_each"}, seed=3)
    orders = set()
    for _ in range(6):
        orders.add(each.order())
        each, _ = each.apply({i: each.base_point(i) for i in range(3)})
    assert len(orders) > 1
    assert race(overrides={"order": "fixed"}).order() == (0, 1, 2)


def test_simultaneous_choosers_do_not_see_each_others_picks():
    state = race(rules="paper", names=("A", "B"), overrides={"order": "simultaneous", "collision": "block"})
    committed = {0: Vec(3, 2)}
    assert next(c for c in state.candidates(1, committed) if c.node == Vec(3, 2)).legal
    _, (record,) = play(state, {0: (3, 2), 1: (3, 2)})
    assert [c.cars for c in record.collisions] == [(0, 1)]  # met blind: they spin


# -- laps and checkpoints -------------------------------------------------------

def test_one_clockwise_lap_finishes_on_the_move_across_the_line():
    state = race(RING, names=("A",), **RING_KW)
    state = drive(state, 0, LAP[:-1])
    assert state.cars[0].status == "racing"
    state, (record,) = play(state, {0: LAP[-1]})
    assert state.cars[0].status == "finished" and state.cars[0].moves == len(LAP)


def test_laps_count_each_crossing_until_the_last():
    state = race(RING, names=("A",), laps=2, **RING_KW)
    state, records = play(state, *[{0: n} for n in LAP])
    assert kinds(records) == ["lap"] and state.cars[0].laps_done == 1
    state, records = play(state, *[{0: n} for n in LAP])
    assert kinds(records) == ["finish"]


def test_stepping_back_over_the_line_and_forward_again_is_not_a_lap():
    state = race(RING, names=("A",), **RING_KW)
    state, records = play(state, {0: (5, 1)}, {0: (5, 1)}, {0: (6, 1)})
    assert state.cars[0].status == "racing" and kinds(records) == []


def test_a_car_that_rolled_back_over_the_line_still_finishes_its_next_lap():
    # Back over the line, stop, forward again (that only repays the backward crossing),
    # then one whole lap: the crossing at its end is the finish.
    state = race(RING, names=("A",), **RING_KW)
    state, records = play(state, {0: (5, 1)}, {0: (5, 1)}, {0: (6, 1)})
    assert state.cars[0].progress.finish_debt == 0 and kinds(records) == []
    state, records = play(state, *[{0: n} for n in LAP])
    assert kinds(records) == ["finish"] and state.cars[0].status == "finished"
    # On two laps the first crossing after the back and forth is lap 1 of 2, not the finish.
    state = race(RING, names=("A",), laps=2, **RING_KW)
    state, _ = play(state, {0: (5, 1)}, {0: (5, 1)}, {0: (6, 1)}, *[{0: n} for n in LAP])
    assert state.cars[0].laps_done == 1 and state.cars[0].racing


def test_ordered_checkpoints_must_be_taken_in_ascending_order():
    state = race(RING, names=("A",), checkpoints=(RIGHT_SIDE, BOTTOM), **RING_KW)
    state, records = play(state, *[{0: n} for n in LAP])
    assert kinds(records) == ["checkpoint", "checkpoint", "finish"]
    swapped = (replace(BOTTOM, number=1), replace(RIGHT_SIDE, number=2))
    state = race(RING, names=("A",), checkpoints=swapped, **RING_KW)
    state, records = play(state, *[{0: n} for n in LAP])
    assert kinds(records) == ["checkpoint"] and state.cars[0].status == "racing"


def test_any_order_checkpoints_count_as_long_as_all_are_visited():
    swapped = (replace(BOTTOM, number=1), replace(RIGHT_SIDE, number=2))
    state = race(RING, names=("A",), overrides={"checkpoints": "any"}, checkpoints=swapped, **RING_KW)
    state, records = play(state, *[{0: n} for n in LAP])
    assert kinds(records) == ["checkpoint", "checkpoint", "finish"]


def test_a_checkpoint_crossed_backwards_does_not_count():
    state = race(RING, names=("A",), checkpoints=(RIGHT_SIDE,), **RING_KW)
    state = drive(state, 0, LAP[:6])  # down the right side, across checkpoint 1 at (10,3)->(10,4)
    assert state.cars[0].progress.next_checkpoint == 1
    state = drive(state, 0, [(10, 4), (10, 3)])  # stop, then back up across it
    assert state.cars[0].progress.next_checkpoint == 0


# -- retiring --------------------------------------------------------------------

def test_retiring_is_always_allowed():
    state, (record,) = play(race(names=("A", "B")), {0: RETIRE, 1: (3, 2)})
    assert state.cars[0].status == "retired" and kinds([record]) == ["retire"]
    skipping, _ = play(into_the_wall("paper", {"offroad_penalty": "reset_skip"}), {0: (7, 1)})
    state, _ = play(skipping, {0: RETIRE})
    assert state.cars[0].status == "retired"
    with pytest.raises(IllegalChoiceError, match="retired"):
        state.apply({0: Vec(6, 1)})


def test_a_target_not_on_offer_is_refused_with_the_phase_and_car():
    with pytest.raises(IllegalChoiceError) as err:
        race().apply({0: Vec(9, 1), 1: Vec(2, 2), 2: Vec(2, 3)})
    assert (err.value.phase, err.value.car) == (1, 0)


# -- presets ----------------------------------------------------------------------

def test_every_option_value_is_valid_and_documented():
    for name, values in OPTIONS.items():
        for value, explanation in values.items():
            assert RuleSet().with_options(**{name: value}).options()[name] == value
            assert explanation


def test_every_choice_option_has_its_values_as_a_string_enum_in_the_files_spelling():
    for name, kind in CHOICES.items():
        assert [m.value for m in kind] == list(OPTIONS[name])
        rules = RuleSet().with_options(**{name: list(OPTIONS[name])[-1]})
        value = getattr(rules, name)
        assert type(value) is kind and value == list(OPTIONS[name])[-1] and repr(value) == repr(value.value)
    # the others: yes/no options, and one with numbers for values
    assert set(OPTIONS) - set(CHOICES) == {"zero_move", "block_passing", "collide_in_motion", "slipstream", "catch_up",
                                           "penalty_exponent"}


@pytest.mark.parametrize("penalty, crash_stops, resets, cost, choosable, history", [
    ("reset", True, True, 1, True, 1), ("reset_skip", True, True, 2, True, 1), ("eliminate", True, False, 1, True, 1),
    ("forbid", False, False, 1, False, 1), ("slow_return", False, False, 1, True, 1),
    ("setback", False, False, 1, False, 3), ("skip_by_speed", True, True, 2, True, 1),
])
def test_the_penalty_predicates_say_what_each_penalty_means(penalty, crash_stops, resets, cost, choosable, history):
    rules = preset("paper", {"offroad_penalty": penalty})
    assert (rules.crash_stops_car, rules.resets, rules.crash_cost, rules.offroad_choosable, rules.history_kept) == \
        (crash_stops, resets, cost, choosable, history)
    assert rules.eliminates == (penalty == "eliminate") and rules.sets_back == (penalty == "setback")


def test_the_collision_predicates_say_when_cars_can_meet():
    karo = preset("karopapier")
    assert karo.blocking and not karo.meetings_possible and not karo.collisions_matter
    assert karo.only_moved_cars_block and not karo.ordered_checkpoints
    blind = karo.with_options(order="simultaneous")
    assert blind.meetings_possible and blind.collisions_matter  # blind picks can still meet
    assert preset("tournament").collision_eliminates and preset("tournament").rolling_start
    assert not preset("paper").collisions_matter and preset("arcade").collisions_matter


@pytest.mark.parametrize("name", list(PRESETS))
def test_presets_are_the_documented_rules(name):
    rules = preset(name)
    assert rules.name == name and rules.overrides() == {}
    expected = {
        "paper": ("standstill", "segment", "reset", "ignore", "first", "lot_once"),
        "tournament": ("vector1", "projection", "slow_return", "both_out", "furthest", "lot_once"),
        "phases": ("standstill", "segment", "reset", "ignore", "draw", "simultaneous"),
        "karopapier": ("standstill", "segment", "setback", "block", "first", "fixed"),  # landing-only blocks
        "arcade": ("standstill", "segment", "reset_skip", "spin", "furthest", "simultaneous"),
        "party": ("standstill", "segment", "reset_skip", "spin", "furthest", "rotate"),
    }[name]
    assert (rules.start, rules.offroad_check, rules.offroad_penalty, rules.collision, rules.finish,
            rules.order) == expected
    assert (rules.slipstream, rules.catch_up) == ((True, True) if name == "party" else (False, False))


def test_preset_overrides_are_remembered_as_differences():
    rules = preset("arcade", {"collision": "both_out"})
    assert rules.overrides() == {"collision": "both_out"}


def test_arcade_cars_that_swap_lanes_spin_and_a_grass_trip_costs_a_turn():
    state = race(rules="arcade", names=("A", "B"))
    state, (record,) = play(state, {0: (3, 2), 1: (3, 1)})
    assert record.collisions and all(c.velocity == Vec(0, 0) for c in state.cars)
    state, _ = play(state, {0: (3, 1), 1: (3, 0)})
    assert state.cars[1].skip == 1 and state.to_choose() == (0,)


def test_tournament_cars_start_rolling_and_contact_puts_both_out():
    state = race(rules="tournament", names=("A", "B"))
    assert state.candidates(0)[4].node == Vec(3, 1)
    state, _ = play(state, {0: (3, 2), 1: (3, 2)})
    assert [c.status for c in state.cars] == ["crashed", "crashed"]


def test_phases_cars_crossing_together_share_the_win():
    state = place(place(race(rules="phases", names=("A", "B")), 0, (14, 1), (1, 0)), 1, (12, 2), (3, 0))
    state, _ = play(state, {0: (16, 1), 1: (15, 2)})
    assert state.outcome().ranks == (1, None)
    state, _ = play(state, {1: (18, 2)})
    assert state.outcome().ranks == (1, 2)


def test_karopapier_cars_block_and_crash_back_two_moves():
    state = race(BEND, rules="karopapier", overrides={"blockers": "all"}, names=("A", "B"), **BEND_FINISH)
    assert not next(c for c in state.candidates(0) if c.node == Vec(1, 2)).legal
    state = drive_two(state, [{0: (2, 1), 1: (2, 2)}, {0: (4, 1), 1: (3, 2)}, {0: (6, 1), 1: (4, 2)}])
    state, (record,) = play(state, {1: (5, 2)})
    assert state.cars[0].position == Vec(2, 1) and state.cars[0].velocity == Vec(0, 0)


def test_under_moved_blockers_only_a_car_that_already_moved_blocks():
    # Karopapier from game 75000: A chooses first, B (on (1, 2)) has not moved yet and is
    # about to leave, so A may pick B's node; once A stands on (2, 2), B may not land there.
    state = race(BEND, rules="karopapier", names=("A", "B"), **BEND_FINISH)
    assert state.rules.blockers == "moved"
    assert next(c for c in state.candidates(0) if c.node == Vec(1, 2)).legal
    after_a = {c.node: c for c in state.candidates(1, {0: Vec(2, 2)})}
    assert not after_a[Vec(2, 2)].legal and after_a[Vec(2, 2)].reason == "blocked by A"
    assert after_a[Vec(2, 1)].legal  # A's old node is free: A has left it
    state, _ = state.apply({0: Vec(1, 2), 1: Vec(2, 1)})
    assert state.cars[0].position == Vec(1, 2) and state.cars[1].position == Vec(2, 1)
    # Under "all" the same first pick is refused: B still stands there.
    old = race(BEND, rules="karopapier", overrides={"blockers": "all"}, names=("A", "B"), **BEND_FINISH)
    with pytest.raises(IllegalChoiceError, match="blocked by B"):
        old.apply({0: Vec(1, 2), 1: Vec(2, 1)})


def test_without_the_zero_move_a_car_never_stops_dead_nor_stays_put():
    paper = race(STRAIGHT, names=("A",))
    karo = race(STRAIGHT, rules="karopapier", names=("A",))
    start = paper.cars[0].position
    assert start in paper.legal_targets(0) and len(paper.candidates(0)) == 9
    assert start not in {c.node for c in karo.candidates(0)} and len(karo.candidates(0)) == 8
    moving = place(karo, 0, (3, 2), (1, 0))
    targets = {c.node for c in moving.candidates(0)}
    assert Vec(3, 2) not in targets and len(targets) == 8  # velocity (0, 0) is never offered
    assert place(paper, 0, (3, 2), (1, 0)).candidates(0)[3].node == Vec(3, 2)
    with pytest.raises(IllegalChoiceError, match="not one of the car's targets"):
        moving.apply({0: Vec(3, 2)})


def drive_two(state, phases):
    for choices in phases:
        state, _ = state.apply({car: Vec(*node) for car, node in choices.items()})
    return state


def test_a_pen_flick_reaches_any_node_within_six_squares_whatever_the_speed():
    state = place(race(rules="paper", overrides={"movement": "flick"}, names=("A",)), 0, (8, 2), (3, 0))
    nodes = {c.node for c in state.candidates(0)}
    assert Vec(8, 2) in nodes and Vec(14, 2) in nodes and Vec(2, 2) in nodes
    assert Vec(15, 2) not in nodes and Vec(13, 6) not in nodes  # 7 away; sqrt(25 + 16) > 6
    assert all(c.key == c.node - Vec(8, 2) for c in state.candidates(0))
    state, _ = play(state, {0: (4, 1)})
    assert state.cars[0].velocity == Vec(-4, -1)


# -- the other movement systems (scalar, graded, hard braking, fine paper) --------------

def velocities(state, car=0):
    c = state.cars[car]
    return {cand.node - c.position for cand in state.candidates(car)}


def on_open_paper(movement, velocity, **extra):
    """Car A in the middle of a big empty road, at the given velocity."""
    rows = ["X" * 41] + ["X" + "O" * 39 + "X" for _ in range(39)] + ["X" * 41]
    state = race(rows, names=("A",), overrides={"movement": movement, **extra}, slots=[Vec(20, 20)],
                 finish=((35.5, 0.5), (35.5, 39.5)))
    scale = state.track.scale
    return place(state, 0, (20 * scale, 20 * scale), velocity)


def V(*pairs):
    return {Vec(x, y) for x, y in pairs}


def test_scalar_from_rest_stays_or_steps_to_any_neighbour():
    assert velocities(on_open_paper("scalar", (0, 0))) == V(*[(x, y) for x in (-1, 0, 1) for y in (-1, 0, 1)])


def test_scalar_at_speed_one_may_stop_turn_45_or_90_but_not_reverse():
    assert velocities(on_open_paper("scalar", (1, 0))) == V(
        (0, 0), (1, 0), (1, 1), (1, -1), (0, 1), (0, -1), (2, 0), (2, 2), (2, -2))


def test_scalar_at_speed_four_straight_changes_speed_by_one_and_turns_45():
    assert velocities(on_open_paper("scalar", (4, 0))) == V(
        (3, 0), (3, 3), (3, -3), (4, 0), (4, 4), (4, -4), (5, 0), (5, 5), (5, -5))


def test_scalar_heading_diagonally_turns_to_the_neighbouring_headings():
    assert velocities(on_open_paper("scalar", (4, 4))) == V(
        (3, 3), (3, 0), (0, 3), (4, 4), (4, 0), (0, 4), (5, 5), (5, 0), (0, 5))
    assert velocities(on_open_paper("scalar", (1, -1))) == V(
        (0, 0), (1, -1), (1, 0), (0, -1), (1, 1), (-1, -1), (2, -2), (2, 0), (0, -2))


def test_graded_turns_cost_speed_and_a_moving_car_never_stops():
    assert velocities(on_open_paper("graded", (0, 0))) == V(
        (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
    assert velocities(on_open_paper("graded", (1, 0))) == V((1, 0), (2, 0), (1, 1), (1, -1))
    # Speed 4: straight 3-5, 45 degrees 2-4, 90 degrees 1-3, 135 degrees 1-2, reversing 1.
    assert velocities(on_open_paper("graded", (4, 0))) == (
        V((3, 0), (4, 0), (5, 0))
        | V(*[(n, s * n) for n in (2, 3, 4) for s in (1, -1)])
        | V(*[(0, s * n) for n in (1, 2, 3) for s in (1, -1)])
        | V(*[(-n, s * n) for n in (1, 2) for s in (1, -1)])
        | V((-1, 0)))
    diagonal = velocities(on_open_paper("graded", (2, 2)))
    assert V((1, 1), (2, 2), (3, 3), (1, 0), (2, 0), (0, 1), (0, 2), (1, -1), (-1, 1)) == diagonal


def test_hard_braking_adds_braking_by_two_on_fast_axes_only():
    assert velocities(on_open_paper("nine", (1, 0), braking="hard")) == V(
        *[(1 + dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)])
    fast = velocities(on_open_paper("nine", (4, -2), braking="hard"))
    assert V((2, -2), (2, 0), (2, -1), (2, -3), (3, 0), (4, 0), (5, 0)) <= fast and len(fast) == 16
    assert V((6, -2), (4, -4)).isdisjoint(fast)
    cross = velocities(on_open_paper("cross", (4, -2), braking="hard"))
    assert cross == V((4, -2), (3, -2), (5, -2), (4, -1), (4, -3), (2, -2), (4, 0))


def test_fine_paper_puts_the_track_on_a_tenfold_lattice_and_steers_in_tenths():
    state = on_open_paper("fine", (0, 0))
    assert state.track.scale == 10 and state.track.start_slots == (Vec(200, 200),)
    assert len(velocities(state)) == 21 * 21
    assert Vec(10, -10) in velocities(state) and Vec(11, 0) not in velocities(state)
    wide = on_open_paper("fine", (7, 3), fine_range=2)
    assert len(velocities(wide)) == 41 * 41 and Vec(27, -17) in velocities(wide)


def test_fine_paper_keeps_the_road_edges_within_a_tenth_of_a_square():
    state = race(rules="paper", names=("A",), overrides={"movement": "fine"})
    track = state.track
    # The top road row is y = 1 on the paper, so its border y = 0.5 is y = 5 on the lattice.
    assert track.on_road(Vec(20, 5)) and not track.on_road(Vec(20, 4))
    assert track.segment_on_road(Vec(20, 10), Vec(150, 5))
    assert not track.segment_on_road(Vec(20, 10), Vec(150, 3))
    # The finish line x = 15.5 sits at x = 155: a car reaching it finishes.
    state = place(state, 0, (150, 20), (5, 0))
    state, records = play(state, {0: (155, 20)})
    assert state.cars[0].status == "finished"


def test_a_rolling_start_on_fine_paper_is_one_square_long():
    state = race(rules="tournament", names=("A",), overrides={"movement": "fine"})
    assert state.cars[0].velocity == Vec(10, 0)


def test_under_blocking_a_car_may_always_stay_where_it_stands():
    state = two_cars("block")
    assert next(c for c in state.candidates(0) if c.node == Vec(2, 1)).legal


def test_option_values_of_the_wrong_kind_are_refused_as_rules_errors():
    for bad in ([1], {"a": 1}, 1.5, None):
        with pytest.raises(RulesError):
            preset("paper", {"collision": bad})
