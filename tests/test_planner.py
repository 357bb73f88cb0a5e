"""CPU thinking never stalls the frame loop, and answers belong to the phase they were asked for."""

from __future__ import annotations

import threading
import time

from game.core import RaceState, preset
from game.drivers.cpu import make_driver
from game.race.controller import RaceController, Seat
from game.race.planner import Planner, planning_rng
from game.tracks.charmap import track_from_charmap

from tests.test_solver import DOGLEG


class SlowDriver:
    """Thinks until released, then picks its first legal target."""

    kind = "cpu:slow"
    is_human = False

    def __init__(self) -> None:
        self.release = threading.Event()

    def choose(self, state, car, committed, rng):
        self.release.wait(5)
        return state.legal_targets(car, committed)[0]


def start():
    track = track_from_charmap(DOGLEG, id="dogleg")
    return RaceState.start(track, preset("paper"), ["a", "b"], seed=4)


def test_the_frame_loop_keeps_ticking_while_a_cpu_thinks_and_the_answer_arrives():
    planner = Planner()
    slow = SlowDriver()
    state = start()
    planner.request((0, 0), slow, state, 0, {}, planning_rng(4, 0, 0))
    frames = 0
    for _ in range(50):  # the main thread is never blocked by the thinking driver
        assert planner.poll((0, 0)) is None
        frames += 1
    assert frames == 50
    slow.release.set()
    answer = None
    for _ in range(2000):
        answer = planner.poll((0, 0))
        if answer is not None:
            break
        time.sleep(0.001)
    assert answer in state.legal_targets(0)
    planner.close()


def test_an_answer_for_a_cancelled_request_is_dropped():
    planner = Planner()
    slow = SlowDriver()
    state = start()
    planner.request((0, 0), slow, state, 0)
    planner.cancel()
    slow.release.set()
    planner.request((1, 1), make_driver("cpu:champion"), state, 1)
    got = None
    for _ in range(5000):
        got = planner.poll_all()
        if got:
            break
        time.sleep(0.001)
    assert set(got) == {1}  # only the live request is answered
    assert planner.poll((0, 0)) is None
    planner.close()


def test_a_race_run_through_the_planner_matches_the_same_race_run_inline():
    kinds = ["cpu:champion", "cpu:pro"]
    threaded = RaceController(start(), [Seat(k, make_driver(k)) for k in kinds], planner=Planner())
    inline = RaceController(start(), [Seat(k, make_driver(k)) for k in kinds])
    for controller in (threaded, inline):
        for _ in range(200000):
            if controller.over:
                break
            controller.tick()
        controller.close()
    assert [r.choices for r in threaded.records] == [r.choices for r in inline.records]


def test_a_crashing_driver_is_answered_with_a_legal_target_and_reported():
    class Broken:
        kind = "cpu:broken"
        is_human = False

        def choose(self, state, car, committed, rng):
            raise RuntimeError("bug")

    planner = Planner()
    state = start()
    planner.request("k", Broken(), state, 0)
    for _ in range(5000):
        answer = planner.poll("k")
        if answer is not None:
            break
        time.sleep(0.001)
    assert answer in state.legal_targets(0)
    assert planner.errors and "bug" in planner.errors[0]
    planner.close()
