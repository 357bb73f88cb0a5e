"""CPU thinking never stalls the frame loop, and answers belong to the phase they were asked for."""

from __future__ import annotations

import threading
import time
import traceback
from pathlib import Path

import pytest

from game.core import RaceState, Vec, preset
from game.drivers.cpu import make_driver
from game.race.controller import RaceController, Seat
from game.race.planner import CpuError, Planner, planning_rng
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


class Broken:
    kind = "cpu:broken"
    is_human = False

    def choose(self, state, car, committed, rng):
        raise RuntimeError("bug")


class Cheat:
    """Answers with a node that is not one of its targets."""

    kind = "cpu:cheat"
    is_human = False

    def choose(self, state, car, committed, rng):
        return state.cars[car].position + Vec(5, 5)


def poll_until(planner, key):
    for _ in range(5000):
        answer = planner.poll(key)
        if answer is not None:
            return answer
        time.sleep(0.001)
    raise AssertionError("no answer")


def test_a_crashing_driver_raises_on_the_polling_thread_by_default():
    planner = Planner()
    planner.request("k", Broken(), start(), 0)
    with pytest.raises(CpuError, match=r"cpu:broken driving car 0 raised RuntimeError\('bug'\) in phase 1") as caught:
        poll_until(planner, "k")
    assert isinstance(caught.value.__cause__, RuntimeError)
    planner.close()


def test_when_keeping_the_race_going_a_crashing_driver_is_logged_and_answered_with_a_legal_target(tmp_path):
    logs = []

    def crash_log(error, context):
        path = tmp_path / f"crash-{len(logs)}.txt"
        path.write_text(context + "\n" + "".join(traceback.format_exception(error)), encoding="utf-8")
        logs.append(path)
        return str(path)

    planner = Planner(keep_racing=True, crash_log=crash_log)
    state = start()
    planner.request("k", Broken(), state, 0)
    assert poll_until(planner, "k") in state.legal_targets(0)
    planner.request("k2", Broken(), state, 0)
    assert poll_until(planner, "k2") in state.legal_targets(0)
    assert len(logs) == 1  # the same failure is written once
    text = logs[0].read_text(encoding="utf-8")
    assert "cpu:broken" in text and "RuntimeError: bug" in text and "Traceback" in text
    assert len(planner.errors) == 1 and str(logs[0]) in planner.errors[0]  # listed once too, the repeat counted
    assert planner.repeats == 1
    planner.close()


def test_the_default_crash_log_is_a_file_with_the_traceback():
    from game.crashlog import write_crash_log

    try:
        raise ValueError("the detail")
    except ValueError as error:
        path = write_crash_log(error, "what was going on")
    text = Path(path).read_text(encoding="utf-8")
    Path(path).unlink()
    assert text.startswith("what was going on") and "ValueError: the detail" in text


def test_an_illegal_cpu_choice_is_an_error_not_a_silent_swap():
    controller = RaceController(start(), [Seat("cheat", Cheat()), Seat("pro", make_driver("cpu:pro"))])
    with pytest.raises(CpuError, match="cpu:cheat driving car 0 chose Vec"):
        for _ in range(5):
            controller.tick()


def test_the_game_s_planner_logs_an_illegal_cpu_choice_and_keeps_racing():
    logged = []
    planner = Planner(keep_racing=True, crash_log=lambda error, context: logged.append(str(error)) or None)
    controller = RaceController(start(), [Seat("cheat", Cheat()), Seat("pro", make_driver("cpu:pro"))],
                                planner=planner)
    for _ in range(20000):
        if controller.records:
            break
        controller.tick()
        time.sleep(0.0005)
    assert controller.records and logged and "not a legal target" in logged[0]
    assert controller.records[0].choices[0] in controller.states[0].legal_targets(0)
    controller.close()


def test_a_race_closes_its_planner_when_it_ends_and_the_thread_stops():
    kinds = ["cpu:champion", "cpu:pro"]
    planner = Planner()
    controller = RaceController(start(), [Seat(k, make_driver(k)) for k in kinds], planner=planner)
    for _ in range(200000):
        if controller.over:
            break
        controller.tick()
    assert controller.over and planner.closed
    assert planner.join(10)
