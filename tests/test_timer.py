"""The move timer in race control, driven by a fake clock: when a player's time starts, what the car
takes when it runs out (the base point, or the Champion's pick when the base point is illegal),
late presses refused, and the replay holding what was taken."""

from __future__ import annotations

import time

import pytest

from game.core.rules import preset
from game.core.vec import Vec
from game.drivers.base import HumanDriver
from game.drivers.cpu import make_driver, make_shared
from game.race.controller import ChoiceRejected, InlinePlanner, RaceController, Seat
from game.race.planner import Planner
from game.race.referee import referee
from game.race.replay import Replay
from game.race.timer import CHOICES, ManualClock, MoveTimer, valid_seconds
from tests.core_tracks import STRAIGHT, make_track, race

SHARED = make_shared()


def champion():
    return make_driver("cpu:champion", shared=SHARED)


def controller(state, kinds=("human",), seconds=5, fallback=True, planner=None):
    clock = ManualClock()
    timer = MoveTimer(seconds, clock, champion() if fallback else None)
    seats = [Seat(state.cars[i].name, HumanDriver() if k == "human" else make_driver(k, shared=SHARED))
             for i, k in enumerate(kinds)]
    return RaceController(state, seats, planner=planner, timer=timer), clock


def test_the_settings_a_race_may_use():
    assert CHOICES[0] == 0 and all(valid_seconds(s) for s in CHOICES)
    assert not any(valid_seconds(s) for s in (4, 61, -5, 7.5, True, "10"))
    with pytest.raises(ValueError):
        MoveTimer(0, ManualClock())


def test_time_starts_when_the_choice_is_wanted_and_the_car_keeps_its_line_when_it_runs_out():
    state = race(names=("Ada",))
    start = state.cars[0].position
    state, _ = state.apply({0: start + Vec(1, 0)})  # rolling right at speed 1
    ctl, clock = controller(state)
    assert ctl.timer.remaining(1, 0) is None
    ctl.tick()
    assert ctl.timer.remaining(1, 0) == 5.0 and ctl.timer.fraction(1, 0) == 1.0
    clock.advance(4.99)
    assert ctl.tick() is None and ctl.chosen(0) is None
    assert ctl.timer.fraction(1, 0) == pytest.approx(0.002)
    clock.advance(0.01)
    record = ctl.tick()
    assert record is not None, "the only car's choice was made for it, so the phase played"
    assert record.choices[0] == start + Vec(2, 0) == state.base_point(0)
    assert ctl.timer.timeouts[0].kept_line and ctl.timer.timeouts[0].phase == 2
    assert ctl.state.cars[0].velocity == Vec(1, 0), "no change of speed"


def test_when_the_base_point_is_illegal_the_car_takes_the_champions_target():
    rules = preset("paper", {"offroad_penalty": "forbid"})
    from game.core.race import RaceState

    state = RaceState.start(make_track(STRAIGHT, slots=[Vec(2, 2)]), rules, ["Ada"], seed=1)
    state, _ = state.apply({0: Vec(2, 1)})  # heading up: the base point (2, 0) is off the road
    base = state.base_point(0)
    judged = {c.node: c for c in state.candidates(0)}
    assert not judged[base].legal and judged[base].reason == "leaves the road"
    expected = champion().choose(state, 0, {}, None)  # the reference: the Champion asked directly
    ctl, clock = controller(state)
    ctl.tick()
    clock.advance(5)
    record = ctl.tick()
    assert record is not None and record.choices[0] == expected != base
    assert judged[expected].legal
    assert not ctl.timer.timeouts[0].kept_line


def test_a_blocked_base_point_is_illegal_too():
    from game.core.race import RaceState

    rules = preset("karopapier")  # cars choose in grid order and block where they land
    state = RaceState.start(make_track(STRAIGHT), rules, ["Bix", "Ada"], seed=2)
    state, _ = state.apply({0: Vec(3, 1), 1: Vec(3, 2)})
    assert state.order() == (0, 1) and state.base_point(1) == Vec(4, 2)
    ctl, clock = controller(state, kinds=("human", "human"))
    ctl.tick()
    ctl.submit(0, Vec(4, 2))  # Bix takes Ada's base point
    ctl.tick()
    judged = {c.node: c for c in ctl.candidates(1)}
    assert not judged[Vec(4, 2)].legal and judged[Vec(4, 2)].reason == "blocked by Bix"
    expected = champion().choose(state, 1, {0: Vec(4, 2)}, None)
    clock.advance(5)
    record = ctl.tick()
    assert record is not None and record.choices == {0: Vec(4, 2), 1: expected}
    assert expected != Vec(4, 2) and judged[expected].legal


def test_in_simultaneous_choosing_only_the_slow_player_is_chosen_for():
    state = race(names=("Ada", "Bix"), rules="phases")
    ctl, clock = controller(state, kinds=("human", "human"))
    ctl.tick()
    bix = state.legal_targets(1)[0]
    ctl.submit(1, bix)  # Bix chooses in time
    clock.advance(6)
    record = ctl.tick()
    assert record is not None and record.choices == {0: state.base_point(0), 1: bix}
    assert [(t.phase, t.car, t.kept_line) for t in ctl.timer.timeouts] == [(1, 0, True)]
    ctl.tick()  # next phase: both doze off, both are chosen for
    clock.advance(5)
    assert ctl.tick() is not None
    assert {t.car for t in ctl.timer.timeouts if t.phase == 2} == {0, 1}


class HeldPlanner(InlinePlanner):
    """Answers only when released: the Champion "thinking" for as long as a test wants."""

    def __init__(self) -> None:
        super().__init__()
        self.held = True

    def poll(self, key):
        return None if self.held else super().poll(key)


def walls_ahead(order="simultaneous"):
    """Ada and Bix each heading for a wall, so neither base point may be taken."""
    from game.core.race import RaceState

    rules = preset("paper", {"offroad_penalty": "forbid", "order": order})
    state = RaceState.start(make_track(STRAIGHT, slots=[Vec(2, 2), Vec(3, 2)]), rules, ["Ada", "Bix"], seed=1)
    state, _ = state.apply({0: Vec(2, 1), 1: Vec(3, 3)})
    assert not any(c.legal for c in state.candidates(0) if c.node == state.base_point(0))
    return state


def test_the_player_cannot_choose_after_the_time_is_up_while_the_champion_thinks():
    state = walls_ahead()
    planner = HeldPlanner()
    ctl, clock = controller(state, kinds=("human", "human"), planner=planner)
    ctl.tick()
    clock.advance(5)
    assert ctl.tick() is None  # both expired; the Champion has not answered yet
    assert ctl.timed_out(0) and ctl.timed_out(1) and ctl.chosen(0) is None
    with pytest.raises(ChoiceRejected, match="Ada: time is up"):
        ctl.submit(0, next(c.node for c in ctl.candidates(0) if c.legal))
    planner.held = False
    record = ctl.tick()
    assert record is not None
    for car in (0, 1):
        assert record.choices[car] == champion().choose(state, car, {}, None)
    assert not ctl.take_back(0)


def test_the_champions_pick_comes_from_the_planner_thread_without_holding_up_a_frame():
    state = walls_ahead()
    planner = Planner()
    try:
        ctl, clock = controller(state, kinds=("human", "human"), planner=planner)
        ctl.tick()
        clock.advance(5)
        end = time.monotonic() + 30
        record = None
        while record is None and time.monotonic() < end:
            record = ctl.tick()
            time.sleep(0.005)
        assert record is not None
        for car in (0, 1):
            assert record.choices[car] == champion().choose(state, car, {}, None)
    finally:
        planner.close()


def test_in_turns_each_players_time_starts_when_it_is_their_turn():
    state = race(names=("Ada", "Bix"), rules="paper")  # lot_once: cars choose one after the other
    first, second = state.order()
    ctl, clock = controller(state, kinds=("human", "human"), seconds=10)
    ctl.tick()
    assert ctl.timer.remaining(0, first) == 10 and ctl.timer.remaining(0, second) is None
    clock.advance(7)
    ctl.submit(first, state.legal_targets(first)[0])
    ctl.tick()
    assert ctl.timer.remaining(0, second) == 10, "the second player gets the whole time"
    clock.advance(9.5)
    assert ctl.tick() is None
    clock.advance(0.5)
    assert ctl.tick() is not None


def test_cpus_are_never_hurried_and_a_race_without_a_timer_never_expires():
    state = race(names=("Ada", "Champ"), rules="phases")
    ctl, clock = controller(state, kinds=("human", "cpu:champion"))
    ctl.tick()
    assert ctl.timer.remaining(0, 1) is None
    plain = RaceController(state, [Seat("Ada", HumanDriver()), Seat("Champ", champion())])
    plain.tick()
    assert plain.timer is None and not plain.timed_out(0) and plain.chosen(0) is None


def test_the_replay_holds_what_the_timer_took_and_referees_to_the_same_race():
    state = race(names=("Ada", "Champ"), rules="phases")
    ctl, clock = controller(state, kinds=("human", "cpu:champion"), seconds=5)
    while not ctl.over and len(ctl.records) < 60:
        ctl.tick()
        if 0 in ctl.waiting_humans() and ctl.chosen(0) is None:
            if ctl.state.phase % 2:  # Ada plays the Champion's line every other phase, and dozes off between
                ctl.submit(0, champion().choose(ctl.state, 0, {}, None))
            else:
                clock.advance(5)
    assert ctl.over and len(ctl.timer.timeouts) >= 2
    replay = Replay.from_race("test", 1, state.rules, state.seed, [("Ada", "human"), ("Champ", "cpu:champion")],
                              ctl.records)
    again = referee(replay, state.track)
    assert again.final.cars == ctl.state.cars
    for t in ctl.timer.timeouts:
        assert replay.phases[t.phase - 1][t.car] == t.choice
