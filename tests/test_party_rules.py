"""Hand-checked scenarios for the fair choosing orders, slipstream and catch-up (issue 26).

Each picture is on the straight test road (``tests/core_tracks.STRAIGHT``: road rows 1 to 3,
x from 1 to 18, the finish between x = 15 and 16); the moves were worked out on paper.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings, strategies as st

from game.core import RaceSetupError, Vec, preset
from game.core.bonus import choosing_order, thue_morse_shift, travel_direction
from game.core.rules import Order
from tests.core_tracks import race
from tests.packs import ONE_TRACK_PACK


def place(state, car, position, velocity=(0, 0)):
    """Put a car somewhere mid-race (as if it had driven there)."""
    cars = list(state.cars)
    cars[car] = replace(cars[car], position=Vec(*position), velocity=Vec(*velocity))
    return replace(state, cars=tuple(cars))


def orders_over(state, phases):
    """The choosing order of each of ``phases`` phases, every car driving one square right."""
    seen = []
    for _ in range(phases):
        seen.append(state.order())
        state, _ = state.apply({i: c.position + Vec(1, 0) for i, c in enumerate(state.cars)})
        state = replace(state, cars=tuple(replace(c, position=c.position - Vec(1, 0), velocity=Vec(0, 0))
                                          for c in state.cars))  # stay on the short road
    return seen


# -- choosing orders ------------------------------------------------------------------

def test_rotate_moves_the_first_chooser_on_by_one_car_each_phase():
    state = race(overrides={"order": "rotate"})
    assert orders_over(state, 4) == [(0, 1, 2), (1, 2, 0), (2, 0, 1), (0, 1, 2)]


def test_snake_with_two_cars_is_the_thue_morse_sequence_abba_baab():
    state = race(names=("A", "B"), overrides={"order": "snake"})
    firsts = [order[0] for order in orders_over(state, 8)]
    assert firsts == [0, 1, 1, 0, 1, 0, 0, 1]
    assert orders_over(race(overrides={"order": "snake"}), 4) == [(0, 1, 2), (1, 2, 0), (2, 0, 1), (1, 2, 0)]


def _position_moments(order_value, cars, phases, power):
    """For each car and each place in the order: the sum of phase**power over the phases it held it."""
    sums = {(car, place): 0 for car in range(cars) for place in range(cars)}
    for phase in range(phases):
        for place, car in enumerate(choosing_order(order_value, phase, cars)):
            sums[car, place] += phase ** power
    return sums


@settings(max_examples=30, deadline=None)
@given(cars=st.integers(2, 6), digits=st.integers(1, 3), place=st.integers(0, 5))
def test_over_a_race_no_car_gains_from_the_snake_order(cars, digits, place):
    """Over cars**k phases every car holds every place in the order equally often and, for
    any power below k, at phases whose powers sum the same (Prouhet): so an advantage of a
    place that grows with the race (a polynomial of the phase of degree below k) is shared
    out exactly evenly. ``rotate`` shares out the counts only."""
    place %= cars
    phases = cars ** digits
    for power in range(digits):
        sums = _position_moments(Order.SNAKE, cars, phases, power)
        assert len({sums[car, place] for car in range(cars)}) == 1, (power, sums)
    if digits >= 2:  # rotate: car 0 is first at phases 0, n, 2n, ... and always the earliest of them
        sums = _position_moments(Order.ROTATE, cars, phases, 1)
        assert len({sums[car, 0] for car in range(cars)}) == cars


def test_thue_morse_shift_is_the_digit_sum_of_the_phase():
    assert [thue_morse_shift(n, 3) for n in range(10)] == [0, 1, 2, 1, 2, 0, 2, 0, 1, 1]
    assert thue_morse_shift(5, 1) == 0


def test_by_position_lets_the_car_with_most_moves_to_go_choose_first():
    state = race(overrides={"order": "by_position"})
    assert state.order() == (0, 1, 2)  # no standing given: the rotating order
    assert state.with_standing((10, 14, 10)).order() == (1, 0, 2)
    # Ties keep the rotating turn: in phase 2 car 1 would be first, then 2, then 0.
    later = replace(state, phase=1).with_standing((12, 12, 12))
    assert later.order() == (1, 2, 0)
    assert replace(state, phase=1).with_standing((10, 14, 10)).order() == (1, 2, 0)
    # A car out of the race (or with no standing) chooses after the others.
    out = replace(state, cars=(replace(state.cars[0], status="finished"),) + state.cars[1:])
    assert out.with_standing((30, 14, 10)).order() == (1, 2, 0)
    assert state.with_standing((None, 5, 9)).order() == (2, 1, 0)


def test_a_standing_that_is_not_one_count_per_car_is_refused():
    with pytest.raises(RaceSetupError, match="one whole number"):
        race().with_standing((1, 2))
    with pytest.raises(RaceSetupError, match="one whole number"):
        race().with_standing((1, -2, 3))


def test_a_phase_record_keeps_the_standing_it_was_chosen_under():
    state = race(overrides={"order": "by_position"}).with_standing((10, 14, 10))
    after, record = state.apply({0: Vec(3, 1), 1: Vec(3, 2), 2: Vec(3, 3)})
    assert record.order == (1, 0, 2) and record.standing == (10, 14, 10)
    assert after.standing is None  # the next phase waits for race control's new standing


# -- slipstream -------------------------------------------------------------------------
#
#   x:  1 2 3 4 5 6 7 8 9 10 11
#   y1  . . . . B . . * o o  +     B drives (5, 1) -> (8, 1), velocity (3, 0)
#   y2  . . A . . * . o o o  +     A drives (3, 2) -> (6, 2), velocity (3, 0): it ends within one
#   y3  . . . . . . . o o o  +     square of (5, 1), where B was, going B's way: in the slipstream.
#
#   A's next targets: the nine (o) round its base point (9, 2), plus the column ahead (+): (11, 1..3).

def slipstream_race(**extra):
    state = race(names=("A", "B"), overrides={"order": "fixed", "slipstream": True, **extra})
    return place(place(state, 0, (3, 2), (3, 0)), 1, (5, 1), (3, 0))


def test_a_car_ending_right_behind_another_gets_the_row_ahead_as_extra_targets():
    state, record = slipstream_race().apply({0: Vec(6, 2), 1: Vec(8, 1)})
    assert [c.slipstream for c in state.cars] == [True, False]
    assert [e.detail for e in record.events if e.kind == "slipstream"] == ["A is in B's slipstream"]
    extra = [c.node for c in state.candidates(0) if c.bonus]
    assert extra == [Vec(11, 1), Vec(11, 2), Vec(11, 3)]
    assert len(state.candidates(0)) == 12 and len(state.candidates(1)) == 9
    after, _ = state.apply({0: Vec(11, 2), 1: Vec(11, 1)})  # the extra target is a legal choice
    assert after.cars[0].position == Vec(11, 2) and after.cars[0].velocity == Vec(5, 0)
    assert not after.cars[0].slipstream  # ahead of B's old node now: the mark is gone


def test_no_slipstream_beside_the_car_or_going_another_way_or_with_the_rule_off():
    state, _ = slipstream_race().apply({0: Vec(6, 3), 1: Vec(8, 1)})  # two rows from B's old node
    assert not state.cars[0].slipstream
    state, _ = slipstream_race().apply({0: Vec(6, 2), 1: Vec(8, 2)})  # B drifts a row down: 18 degrees off, the same way
    assert state.cars[0].slipstream
    moved = place(slipstream_race(), 1, (5, 1), (2, 2))
    state, _ = moved.apply({0: Vec(6, 2), 1: Vec(6, 3)})  # B drives (1, 2), 63 degrees off A's way
    assert not state.cars[0].slipstream
    state, _ = slipstream_race(slipstream=False).apply({0: Vec(6, 2), 1: Vec(8, 1)})
    assert not state.cars[0].slipstream and not any(c.bonus for c in state.candidates(0))


def test_a_spun_car_is_in_nobodys_slipstream():
    state = race(names=("A", "B", "C"), overrides={"order": "fixed", "slipstream": True, "collision": "spin"})
    state = place(place(place(state, 0, (3, 2), (3, 0)), 1, (5, 1), (3, 0)), 2, (6, 3), (0, 0))
    state, _ = state.apply({0: Vec(6, 2), 1: Vec(8, 1), 2: Vec(6, 2)})  # A and C meet at (6, 2)
    assert state.cars[0].velocity == Vec(0, 0) and not state.cars[0].slipstream


# -- catch-up ---------------------------------------------------------------------------
#
#   x:  3 4 5 6 7 8
#   y2  B . o o o +        B at (3, 2) doing (3, 0) has most moves to go: its nine targets (o)
#                          round (6, 2), and one more straight ahead (+), (8, 2).

def test_the_last_car_may_pick_one_square_further_straight_ahead():
    state = race(names=("A", "B"), overrides={"order": "fixed", "catch_up": True})
    state = place(place(state, 0, (8, 1), (3, 0)), 1, (3, 2), (3, 0)).with_standing((3, 5))
    assert state.catches_up(1) and not state.catches_up(0)
    assert [c.node for c in state.candidates(1) if c.bonus] == [Vec(8, 2)]
    assert not any(c.bonus for c in state.candidates(0))
    after, _ = state.apply({0: Vec(11, 1), 1: Vec(8, 2)})
    assert after.cars[1].velocity == Vec(5, 0)


def test_catch_up_needs_someone_ahead_and_a_direction():
    state = race(names=("A", "B"), overrides={"order": "fixed", "catch_up": True})
    state = place(place(state, 0, (8, 1), (3, 0)), 1, (3, 2), (3, 0))
    assert not any(c.bonus for c in state.candidates(1))  # no standing: nobody is known to be last
    assert not any(c.bonus for c in state.with_standing((5, 5)).candidates(1))  # level: nobody is behind
    at_rest = place(state, 1, (3, 2), (0, 0)).with_standing((3, 5))
    assert not any(c.bonus for c in at_rest.candidates(1))  # at rest there is no "straight ahead"


def test_catch_up_after_slipstream_reaches_one_square_further_still():
    state = race(names=("A", "B"), overrides={"order": "fixed", "catch_up": True, "slipstream": True})
    state = place(place(state, 0, (8, 1), (3, 0)), 1, (3, 2), (3, 0)).with_standing((3, 5))
    cars = list(state.cars)
    cars[1] = replace(cars[1], slipstream=True)
    state = replace(state, cars=tuple(cars))
    extra = [c.node for c in state.candidates(1) if c.bonus]
    assert extra == [Vec(8, 1), Vec(8, 2), Vec(9, 2), Vec(8, 3)]  # the row ahead, and (9, 2) beyond it


def test_the_extras_follow_the_travel_direction_diagonally_too():
    assert travel_direction(Vec(3, 1)) == Vec(1, 0) and travel_direction(Vec(3, 2)) == Vec(1, 1)
    assert travel_direction(Vec(-5, 2)) == Vec(-1, 0) and travel_direction(Vec(-5, 3)) == Vec(-1, 1)
    state = race(names=("A", "B"), overrides={"order": "fixed", "catch_up": True})
    state = place(place(state, 0, (8, 1), (3, 0)), 1, (3, 1), (1, 1)).with_standing((3, 5))
    (extra,) = [c for c in state.candidates(1) if c.bonus]
    assert extra.node == Vec(6, 4) and extra.offroad  # base (4, 2) + 2 * (1, 1), into the wall: offered, punished


def test_the_scalar_and_graded_systems_keep_their_own_targets():
    for movement in ("scalar", "graded"):
        state = race(names=("A", "B"), overrides={"order": "fixed", "catch_up": True, "movement": movement})
        state = place(place(state, 0, (8, 1), (2, 0)), 1, (3, 2), (2, 0)).with_standing((3, 5))
        assert not any(c.bonus for c in state.candidates(1))


def test_the_party_preset_is_arcade_taking_turns_with_slipstream_and_catch_up():
    party, arcade = preset("party"), preset("arcade")
    assert party.with_options(order="simultaneous", slipstream=False, catch_up=False).options() == arcade.options()
    assert party.order == "rotate" and party.needs_standing and party.bonus_targets


# -- the CPUs and race control -------------------------------------------------------------

LONG = ["X" * 40] + ["XOS" + "O" * 36 + "X"] * 3 + ["X" * 40]


def long_race(**overrides):
    return race(rows=LONG, names=("A", "B"), overrides={"order": "fixed", **overrides},
                finish=((35.5, 0.5), (35.5, 3.5)))


def test_the_cpus_value_and_take_a_catch_up_target():
    """B at (8, 2) doing (2, 0) is last: with catch-up it may go to (12, 2), doing 4, which the
    table (blind to catch-up) counts as 5 moves to the line at x = 35.5 against 6 for its best
    own target; every level that reads the table well takes it."""
    from game.drivers.cpu import car_options, make_driver, make_shared

    state = place(place(long_race(catch_up=True), 0, (30, 1), (3, 0)), 1, (8, 2), (2, 0)).with_standing((1, 9))
    shared = make_shared()
    legal = [c for c in state.candidates(1) if c.legal]
    values = dict(zip(*(lambda o: (o.nodes, o.value))(car_options(shared.table(state), state, 1, legal))))
    assert values[Vec(12, 2)] == 5 and min(v for n, v in values.items() if n != Vec(12, 2)) == 6
    import random
    for kind in ("cpu:champion", "cpu:pro"):
        assert make_driver(kind, shared=shared).choose(state, 1, {0: Vec(33, 1)}, random.Random(0)) == Vec(12, 2)


def test_race_control_hands_each_phase_the_solvers_standing_and_the_replay_keeps_it():
    from game.drivers.cpu import make_driver, make_shared
    from game.race.controller import RaceController, Seat
    from game.race.referee import RaceLog, referee
    from game.race.replay import dumps_replay, loads_replay
    from game.race.standing import SolverStanding

    shared = make_shared()
    state = long_race(order="by_position", catch_up=True)
    seats = [Seat(n, make_driver(k, shared=shared)) for n, k in (("A", "cpu:rookie"), ("B", "cpu:champion"))]
    ctl = RaceController(state, seats, seed=4, standing=SolverStanding(shared, wait=True))
    log = RaceLog.for_state("long.toml#test", ctl.state, ["cpu:rookie", "cpu:champion"])
    while not ctl.over and len(ctl.records) < 40:
        record = ctl.tick()
        if record is not None:
            log.record(record)
    assert ctl.over and all(r.standing is not None for r in ctl.records)
    first = ctl.records[0]
    assert first.standing[0] == first.standing[1] and first.order == (0, 1)  # level on the grid: rotate
    for record in ctl.records:  # the car with more moves to go chose first
        known = [(d, i) for i, d in enumerate(record.standing) if d is not None]
        if len(known) == 2 and known[0][0] != known[1][0]:
            assert record.order[0] == max(known)[1]
    text = dumps_replay(log.to_replay())
    assert "format = 4" in text and "[standings]" in text
    again = referee(loads_replay(text), state.track)
    assert [r.moves for r in again.records] == [r.moves for r in ctl.records]
    assert again.final.outcome() == ctl.state.outcome()


# -- files: old replays, bad values -------------------------------------------------------

OLD_REPLAY = """format = {fmt}
track = "pack.toml#loop"
laps = 1
seed = 3

[rules]
preset = "paper"{extra}

[[car]]
name = "Ada"
driver = "human"

[[car]]
name = "Bo"
driver = "human"

[phases]
1 = [[8, 4], [9, 4]]
2 = [[8, 3], [9, 3]]
{tail}"""


def old(fmt=3, extra="", tail=""):
    return OLD_REPLAY.format(fmt=fmt, extra=extra, tail=tail)


def test_a_replay_older_than_an_option_plays_it_at_its_default_whatever_the_preset_says_now(monkeypatch):
    """Generic over the options: were the paper preset to turn slipstream on (as a preset of another
    option might change), a format-3 paper replay still plays without it; a format-4 one follows the preset."""
    from game.core import rules as rules_module
    from game.race.replay import loads_replay

    monkeypatch.setitem(rules_module.PRESETS, "paper", {"slipstream": True, "order": "snake"})
    three, four = loads_replay(old(3), "old.toml"), loads_replay(old(4), "new.toml")
    assert (three.rules.slipstream, three.rules.order) == (False, "snake")  # order: format 3 knew it
    assert four.rules.slipstream is True
    named = loads_replay(old(3, extra="\nslipstream = true"), "old.toml")
    assert named.rules.slipstream is True  # what a file names, it gets
    # An option someone adds later without a line in OPTION_SINCE is new in the format of the day:
    from game.race import replay as replay_module

    monkeypatch.delitem(replay_module.OPTION_SINCE, "slipstream")
    monkeypatch.setattr(replay_module, "FORMAT", 5)
    assert loads_replay(old(4), "new.toml").rules.slipstream is False  # a format-4 replay is older than it now


@pytest.mark.parametrize("extra, key, words", [
    ('\norder = "sideways"', "rules.order", "rule 'order' cannot be 'sideways'; choose one of"),
    ('\nslipstream = "yes"', "rules.slipstream", "rule 'slipstream' cannot be 'yes'"),
    ("\ncatch_up = 1", "rules.catch_up", "rule 'catch_up' cannot be 1"),
])
def test_an_unknown_value_in_a_replay_is_located_by_file_line_and_key(extra, key, words):
    from game.race.replay import ReplayError, loads_replay

    text = old(4, extra=extra)
    with pytest.raises(ReplayError) as caught:
        loads_replay(text, "races/race.toml")
    line = next(n for n, row in enumerate(text.splitlines(), 1) if row.startswith(key.split(".")[1]))
    assert str(caught.value).startswith(f"races/race.toml:{line}: {key}: ") and words in str(caught.value)


@pytest.mark.parametrize("fmt, tail, where, words", [
    (4, "\n[standings]\n2 = [12]\n", "standings.2", "one per car in car order (2), not [12]"),
    (4, '\n[standings]\n1 = [3, "far"]\n', "standings.1", "a whole number from 0"),
    (4, "\n[standings]\n1 = [3, -1]\n", "standings.1", "a whole number from 0"),
    (4, "\n[standings]\n3 = [3, 4]\n", "standings.3", "but the replay has 2 phases"),
    (4, "\n[standings]\nfirst = [3, 4]\n", "standings.first", "phase numbers"),
    (3, "\n[standings]\n1 = [3, 4]\n", "standings", "a format 3 replay has no standings"),
])
def test_a_bad_standing_in_a_replay_is_located(fmt, tail, where, words):
    from game.race.replay import ReplayError, loads_replay

    with pytest.raises(ReplayError) as caught:
        loads_replay(old(fmt, tail=tail), "race.toml")
    assert f": {where}: " in str(caught.value) and words in str(caught.value)
    assert str(caught.value).startswith("race.toml:")


def test_standings_round_trip_through_the_file():
    from game.race.replay import dumps_replay, loads_replay

    replay = loads_replay(old(4, tail='\n[standings]\n2 = [5, "-"]\n'), "race.toml")
    assert replay.standings == (None, (5, None)) and replay.standing(2) == (5, None)
    assert loads_replay(dumps_replay(replay), "again.toml") == replay


def test_an_unknown_value_in_settings_or_a_cup_is_located_and_the_game_goes_on(tmp_path):
    from game.settings import load_settings
    from game.tracks.pack import read_pack_text

    (tmp_path / "settings.toml").write_text('[rules]\npreset = "party"\noptions = { order = "sideways" }\n')
    settings, problems = load_settings(tmp_path)
    assert settings.rules().name == "party" and settings.rules().order == "rotate"
    problem = problems[0]  # (then a note that the file as it was is kept aside)
    assert problem.file.endswith("settings.toml") and problem.key == "rules.options" and problem.line == 3
    assert "rule 'order' cannot be 'sideways'" in problem.message
    pack = ONE_TRACK_PACK + '''[[cup]]
id = "bad"
name = "Bad"
races = [
  { track = "a", rules = "party", options = { slipstream = "sometimes" } },
]
'''
    result = read_pack_text(pack, "p.toml")
    assert [t.id for t in result.tracks] == ["a"]
    (found,) = [p for p in result.problems if p.cup == "bad"]
    line = next(n for n, row in enumerate(pack.splitlines(), 1) if "sometimes" in row)
    assert str(found).startswith(f'p.toml:{line}: [cup "bad"] races[1].options: ') and "sometimes" in str(found)


def test_par_ignores_slipstream_and_catch_up_and_agrees_with_the_plain_search():
    """Par is a lone car's best: it never has a car ahead nor behind, so under party rules it
    is arcade's par, by the solver and by the independent plain search over referee calls."""
    from game.drivers.reference import reference_par
    from game.drivers.solver import Solver
    from tests.core_tracks import STRAIGHT, make_track

    track = make_track(STRAIGHT)
    solver = Solver()
    party, arcade = solver.solve(track, preset("party"), 1).par, solver.solve(track, preset("arcade"), 1).par
    assert party == arcade == reference_par(track, preset("party"), 1).par == 5


velocities = st.builds(Vec, st.integers(-12, 12), st.integers(-12, 12))


@settings(max_examples=200, deadline=None)
@given(velocity=velocities, movement=st.sampled_from(["nine", "cross"]), braking=st.sampled_from(["normal", "hard"]),
       slip=st.booleans(), catch=st.booleans())
def test_extra_targets_are_moved_on_never_repeat_a_target_and_catch_up_adds_one_straight_on(
        velocity, movement, braking, slip, catch):
    from game.core.bonus import bonus_steps
    from game.core.movement import target_steps

    own = target_steps(movement, velocity, braking)
    extra = bonus_steps(movement, velocity, own, slip, catch)
    d = travel_direction(velocity)
    if velocity == Vec(0, 0) or not (slip or catch):
        assert extra == ()
        return
    assert not set(extra) & set(own) and len(set(extra)) == len(extra)
    # every extra target is an own one moved a square on (slipstream) or straight ahead (catch-up)
    assert all((slip and s - d in own) or (catch and s.x * d.y - s.y * d.x == 0 and s.x * d.x + s.y * d.y > 0)
               for s in extra)
    straight = [s for s in extra if s.x * d.y - s.y * d.x == 0]
    if catch:  # exactly one beyond the furthest straight-ahead target the car had without it
        beyond = max(k for k in range(4) if d * k in set(own) | ({s + d for s in own} if slip else set()))
        assert d * (beyond + 1) in straight
    if slip:
        assert {s + d for s in own} - set(own) <= set(extra)


def test_the_games_standing_source_never_builds_a_table_and_needs_no_search():
    from game.drivers.cpu import make_shared
    from game.race.standing import SolverStanding

    shared = make_shared()
    state = long_race(order="by_position")
    game, exact = SolverStanding(shared), SolverStanding(shared, wait=True)
    assert game(state) is None  # the table is not there yet: that phase goes without a standing
    assert exact(state) == game(state) == (8, 8)  # built now: from x = 2 at rest 3, 5, 8, 12, 17, 23, 30, 38
    fast = place(state, 1, (8, 2), (5, 0))  # a speed no lone car has at x = 8: the table has no answer
    # Searched: 14, 21, 29, 38 (4 moves). Estimated from the table alone: (14, 2) doing 6 is no lone
    # car's state either, so the best next move it holds is (13, 2) doing 5: one move more than the search.
    assert (exact(fast)[1], game(fast)[1]) == (4, 5)
    assert long_race(order="fixed") is not None and SolverStanding(shared)(long_race()) is None  # not needed


#   y1  . . . . . . B . . . o o                B at (7, 1) doing (3, 0): its targets are the nine
#   y2  . . . . . . . . . . o o                round (10, 1); the best, 5 moves to go, are (11, 1)
#   y3  . . . . . . . . . A . . . A'           and (11, 2). A, at (10, 3) doing (3, 0), chose first:
#                                               (13, 3). (11, 2) stands within one square of (10, 3),
#   going A's way with A ahead: B ends there in A's slipstream, which (11, 1), two rows off, is not.

def drafting_race(leader_start):
    state = place(place(long_race(slipstream=True), 0, (leader_start.x, leader_start.y), (3, 0)), 1, (7, 1), (3, 0))
    return state.with_standing((8, 9)), {0: leader_start + Vec(3, 0)}


@pytest.mark.parametrize("kind", ["cpu:champion", "cpu:pro"])
def test_a_cpu_takes_a_slipstream_that_costs_nothing(kind):
    import random

    from game.drivers.cpu import make_driver, make_shared

    state, committed = drafting_race(Vec(10, 3))
    driver = make_driver(kind, shared=make_shared())
    assert driver.choose(state, 1, committed, random.Random(0)) == Vec(11, 2)
    after, record = state.apply({**committed, 1: Vec(11, 2)})
    assert after.cars[1].slipstream and [c.node for c in after.candidates(1) if c.bonus]  # its extra row


def test_a_cpu_never_pays_a_move_for_a_slipstream_and_the_rookie_does_not_look_for_one():
    import random

    from game.drivers.cpu import make_driver, make_shared, slipstream_ends

    # A from (9, 3): the slipstream squares round it are (8..10, 2); (10, 2) has 6 moves to go, not 5.
    state, committed = drafting_race(Vec(9, 3))
    nodes = [c.node for c in state.candidates(1, committed) if c.legal]
    assert {nodes[i] for i in slipstream_ends(state, 1, committed, nodes)} == {Vec(9, 2), Vec(10, 2)}
    assert make_driver("cpu:champion", shared=make_shared()).choose(state, 1, committed, random.Random(0)) \
        == Vec(11, 1)  # the first of the two best: no slipstream among them
    assert not make_driver("cpu:rookie").seeks_slipstream
    state, committed = drafting_race(Vec(10, 3))
    assert slipstream_ends(replace(state, rules=state.rules.with_options(slipstream=False)), 1, committed,
                           nodes) == set()  # the rule off: nothing to seek
