"""Race control: who is asked to choose, when a phase plays, and what is kept for replays."""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.core import RETIRE, CellRegion, Gate, RaceState, Track, Vec, preset
from game.drivers.base import HumanDriver
from game.race.controller import ChoiceRejected, RaceController, Seat, first_legal_choice

STRAIGHT = [
    "XXXXXXXXXXXXXXXXXXXX",
    "XOSOOOOOOOOOOOOOOOOX",
    "XOSOOOOOOOOOOOOOOOOX",
    "XOSOOOOOOOOOOOOOOOOX",
    "XXXXXXXXXXXXXXXXXXXX",
]


def straight_track() -> Track:
    road = np.array([[c != "X" for c in row] for row in STRAIGHT])
    slots = tuple(Vec(x, y) for y, row in enumerate(STRAIGHT) for x, c in enumerate(row) if c == "S")
    gate = Gate(0, a=(15.5, 0.5), b=(15.5, 3.5), forward=(1, 0))
    return Track(id="straight", name="Straight", region=CellRegion(road), start_slots=slots, finish=gate,
                 forward=(1, 0))


class Accelerate:
    """A stand-in CPU: speeds up to the right while the road allows, else takes any legal target."""

    kind = "cpu:test"
    is_human = False

    def choose(self, state, car, committed, rng):
        cands = [c for c in state.candidates(car, committed) if c.legal and not c.offroad]
        if not cands:
            return first_legal_choice(state, car, committed)
        speed = state.cars[car].velocity.x
        best = max(cands, key=lambda c: (c.key.x if speed < 3 else -abs(c.key.x), -abs(c.node.y - 2)))
        return best.node


class SlowPlanner:
    """A planner whose answers arrive only after a few polls, like a worker thread."""

    def __init__(self, delay=3):
        self.delay = delay
        self.pending = {}

    def request(self, key, driver, state, car, committed, rng):
        self.pending[key] = [self.delay, driver.choose(state, car, committed, rng)]

    def poll(self, key):
        entry = self.pending.get(key)
        if entry is None:
            return None
        entry[0] -= 1
        if entry[0] > 0:
            return None
        return self.pending.pop(key)[1]

    def cancel(self):
        self.pending.clear()


def make(rules="arcade", seats=("human", "cpu", "cpu"), planner=None, seed=1):
    track = straight_track()
    names = [f"P{i}" for i in range(len(seats))]
    state = RaceState.start(track, preset(rules), names, seed=seed)
    drivers = [HumanDriver() if kind == "human" else Accelerate() for kind in seats]
    return RaceController(state, [Seat(n, d) for n, d in zip(names, drivers)], planner=planner)


def test_simultaneous_phase_waits_for_every_human_then_plays_all_cars_at_once():
    ctl = make(seats=("human", "human", "cpu"))
    assert ctl.tick() is None
    assert set(ctl.waiting_humans()) == {0, 1}
    ctl.submit(0, ctl.state.base_point(0) + Vec(1, 0))
    assert ctl.tick() is None, "the second human has not chosen yet"
    ctl.submit(1, ctl.state.base_point(1) + Vec(1, 0))
    record = ctl.tick()
    assert record is not None and record.phase == 1
    assert {m.car for m in record.moves} == {0, 1, 2}
    assert ctl.state.cars[0].position == Vec(3, 1)


def test_in_simultaneous_mode_a_car_sees_no_other_pick():
    ctl = make(seats=("human", "human", "cpu"))
    ctl.submit(0, ctl.state.base_point(0) + Vec(1, 1))
    assert ctl.committed_for(1) == {}


def test_ordered_mode_asks_one_car_at_a_time_and_later_cars_see_earlier_picks():
    ctl = make(rules="karopapier", seats=("human", "human", "human"))
    order = ctl.must_choose()
    assert ctl.awaiting() == order[:1]
    first = order[0]
    target = ctl.state.base_point(first) + Vec(1, 0)
    ctl.submit(first, target)
    assert ctl.awaiting() == order[1:2]
    assert ctl.committed_for(order[1]) == {first: target}
    with pytest.raises(ChoiceRejected, match="does not choose now"):
        ctl.submit(order[2], ctl.state.base_point(order[2]))


def test_a_node_that_is_not_one_of_the_targets_is_refused():
    ctl = make(rules="karopapier", seats=("human", "human", "human"))
    car = ctl.awaiting()[0]
    with pytest.raises(ChoiceRejected, match="not one of"):
        ctl.submit(car, ctl.state.cars[car].position + Vec(0, -3))


def test_a_target_blocked_by_another_car_is_refused_naming_the_blocker():
    ctl = make(rules="karopapier", seats=("human", "human", "human"))
    first = ctl.awaiting()[0]
    pos = ctl.state.cars[first].position
    ctl.submit(first, pos + Vec(1, 0))  # Karopapier: only a car that already moved blocks
    second = ctl.awaiting()[0]
    assert abs(ctl.state.cars[second].position.y - pos.y) == 1
    with pytest.raises(ChoiceRejected, match=f"blocked by {ctl.seats[first].name}"):
        ctl.submit(second, pos + Vec(1, 0))


def test_a_choice_can_be_taken_back_until_the_phase_starts():
    ctl = make(seats=("human", "human", "cpu"))
    ctl.submit(0, ctl.state.base_point(0))
    assert ctl.take_back(0)
    assert 0 in ctl.waiting_humans()
    ctl.submit(0, ctl.state.base_point(0) + Vec(0, 1))
    ctl.submit(1, ctl.state.base_point(1))
    ctl.tick()
    assert not ctl.take_back(0), "the phase has been played"
    assert ctl.state.cars[0].position == Vec(2, 2)


def test_a_slow_cpu_does_not_hold_the_frame_and_its_pick_arrives_later():
    ctl = make(seats=("human", "cpu"), planner=SlowPlanner(delay=3))
    ctl.submit(0, ctl.state.base_point(0))
    assert ctl.tick() is None
    assert ctl.tick() is None
    assert ctl.tick() is not None


def test_a_race_of_cpus_runs_to_the_end_and_keeps_every_phase_for_the_replay():
    ctl = make(rules="paper", seats=("cpu", "cpu", "cpu"))
    for _ in range(60):
        ctl.tick()
        if ctl.over:
            break
    assert ctl.over
    assert len(ctl.states) == len(ctl.records) + 1
    assert [r.phase for r in ctl.records] == list(range(1, len(ctl.records) + 1))
    assert ctl.state.outcome().winners
    assert ctl.tick() is None


def test_a_retiring_car_leaves_the_race():
    ctl = make(seats=("human", "cpu"))
    ctl.retire(0)
    ctl.tick()
    assert ctl.state.cars[0].status == "retired"
    assert 0 not in ctl.must_choose()


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["arcade", "paper", "karopapier", "tournament"]), st.integers(0, 2**16),
       st.lists(st.tuples(st.integers(0, 99), st.integers(0, 8)), min_size=1, max_size=25))
def test_whatever_humans_pick_the_records_stay_consistent(rules, seed, picks):
    ctl = make(rules=rules, seats=("human", "human", "cpu"), seed=seed)
    for pick, spread in picks:  # pick 99 retires; the second human's pick is `spread` targets on
        ctl.tick()
        if ctl.over:
            break
        for k, car in enumerate(ctl.waiting_humans()):
            legal = [c.node for c in ctl.candidates(car) if c.legal]
            if pick == 99:
                ctl.submit(car, RETIRE)
            elif legal:
                ctl.submit(car, legal[(pick + k * spread) % len(legal)])
        assert len(ctl.states) == len(ctl.records) + 1
        for i in ctl.awaiting():
            assert ctl.state.cars[i].racing
    for k, record in enumerate(ctl.records):
        assert record.phase == k + 1
        assert ctl.states[k + 1].phase == k + 1
