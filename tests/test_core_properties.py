"""Invariants of the rules core, checked over random legal races (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from game.core import RETIRE, Vec, preset
from game.core.movement import target_steps
from game.core.rules import NUMBERS, OPTIONS, PRESETS
from tests.core_tracks import make_track
from tests.test_core_rules import RING, RING_KW

from game.core import RaceState

TRACK = make_track(RING, **RING_KW)
MANY_SLOTS = make_track(RING, finish=RING_KW["finish"], forward=(1, 0),
                        slots=[Vec(6, 1), Vec(6, 2), Vec(7, 1), Vec(7, 2)])


def random_race(data, rules, cars=3, phases=25, retire=True):
    """Play random legal choices; returns the list of (state, record) after each phase."""
    state = RaceState.start(MANY_SLOTS, rules, [f"car{i}" for i in range(cars)], laps=1,
                            seed=data.draw(st.integers(0, 10**6)))
    history = [(state, None)]
    for _ in range(phases):
        if state.over:
            break
        committed = {}
        for car in state.to_choose():
            options = list(state.legal_targets(car, committed))
            if retire and data.draw(st.integers(0, 40)) == 0:
                committed[car] = RETIRE
            elif options:
                committed[car] = data.draw(st.sampled_from(options))
        state, record = state.apply(committed)
        history.append((state, record))
    return history


rule_sets = st.builds(
    lambda name, extra: preset(name, extra),
    st.sampled_from(list(PRESETS)),
    st.fixed_dictionaries({}, optional={**{k: st.sampled_from(list(v)) for k, v in OPTIONS.items()},
                                        **{k: st.integers(lo, hi) for k, (lo, hi, _) in NUMBERS.items()}}),
)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_under_the_default_rules_a_legal_move_never_ends_off_the_road(data):
    for state, _ in random_race(data, preset("paper")):
        for car in state.cars:
            if car.racing:
                assert TRACK.on_road(car.position)


@settings(max_examples=30, deadline=None)
@given(st.data(), rule_sets)
def test_under_any_rules_cars_stay_on_the_paper_and_change_velocity_as_their_system_allows(data, rules):
    history = random_race(data, rules)
    track = history[0][0].track
    for (before, _), (after, record) in zip(history, history[1:]):
        for move in record.moves:
            old, new = before.cars[move.car], after.cars[move.car]
            assert track.on_paper(new.position)
            if move.target is not None and move.crash_point is None and new.racing and not new.skip \
                    and new.velocity != Vec(0, 0):
                step = new.velocity - old.velocity
                # slipstream and catch-up offer a step beyond the system's own (and only then)
                extra = before.bonus_steps(move.car)
                if step in extra:
                    continue
                assert step in target_steps(rules.movement, old.velocity, rules.braking, rules.fine_range)
                if rules.movement == "nine" and rules.braking == "normal":
                    assert abs(step.x) <= 1 and abs(step.y) <= 1


@settings(max_examples=25, deadline=None)
@given(st.data(), rule_sets)
def test_the_same_choices_always_give_the_same_race(data, rules):
    history = random_race(data, rules)
    start = history[0][0]
    replayed = start
    for state, record in history[1:]:
        replayed, again = replayed.apply(record.choices)
        assert again == record
        assert replayed.cars == state.cars


@settings(max_examples=25, deadline=None)
@given(st.data(), rule_sets)
def test_playing_a_phase_never_changes_the_state_it_came_from(data, rules):
    history = random_race(data, rules, phases=8)
    road = history[0][0].track.region.road_nodes().copy()
    for (state, _), (after, record) in zip(history, history[1:]):
        # A text taken before the phase is played again: it shares no object with the state.
        before = repr((state.cars, state.phase, state.rules, state.laps, state.seed))
        again, _ = state.apply(record.choices)
        assert repr((state.cars, state.phase, state.rules, state.laps, state.seed)) == before
        assert again.cars == after.cars
    assert (history[0][0].track.region.road_nodes() == road).all()


@settings(max_examples=25, deadline=None)
@given(st.data(), rule_sets)
def test_ranks_go_only_to_finished_cars_and_winners_have_rank_one(data, rules):
    state = random_race(data, rules, phases=40)[-1][0]
    outcome = state.outcome()
    for car, rank in zip(state.cars, outcome.ranks):
        assert (rank is not None) == (car.status == "finished")
    if any(c.status == "finished" for c in state.cars):
        assert outcome.winners
    assert outcome.finished == state.over


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_blocked_cars_never_drive_onto_each_other(data):
    rules = preset("karopapier")
    history = random_race(data, rules, cars=4)
    for (before, _), (after, record) in zip(history, history[1:]):
        set_back = {e.car for e in record.events if e.detail.startswith("set back")}
        spots = [c.position for i, c in enumerate(after.cars) if c.racing and i not in set_back]
        assert len(spots) == len(set(spots))  # only a set-back car may land on another (Karopapier)


def test_a_car_missing_its_turn_blocks_under_moved_blockers_as_the_targets_said():
    # Found by the property above under preset("karopapier", {"offroad_penalty": "reset_skip"}):
    # car1 crashed and misses phase 3 on (5, 1); the targets offered car2 that node, but the
    # phase refused it ("blocked by car1"). A car sitting out its turn never leaves its node,
    # so it blocks, and what the targets offer is what the phase accepts.
    rules = preset("karopapier", {"offroad_penalty": "reset_skip"})
    state = RaceState.start(MANY_SLOTS, rules, ["car0", "car1", "car2"], laps=1, seed=0)
    state, _ = state.apply({0: RETIRE, 1: Vec(6, 1), 2: Vec(6, 0)})
    state, _ = state.apply({1: Vec(5, 0)})
    assert state.cars[1].position == Vec(5, 1) and state.cars[1].skip and state.to_choose() == (2,)
    offered = state.candidates(2)
    refused = next(c for c in offered if c.node == Vec(5, 1))
    assert not refused.legal and refused.reason == "blocked by car1"
    for target in state.legal_targets(2):
        state.apply({2: target})  # every offered target is accepted
