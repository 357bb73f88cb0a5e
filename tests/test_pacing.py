"""A couch race that flows: quiet phases replay in a flash, eventful ones at full length,
a skip goes straight to the next choice, and a player ready to choose never waits.

Replay times depend on the phase record alone (and the replay speed), never on the
machine: the scene advances them by the time passed in.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from dataclasses import replace

import pygame
import pytest

from game.core import RaceState, Vec, preset
from game.drivers.base import HumanDriver
from game.presentation.animation import MOVE_SECONDS, PhaseAnimation, replay_seconds
from game.presentation.app import init_pygame
from game.presentation.hud import overtaken
from game.presentation.input import Confirm, Select, SkipReplay
from game.presentation.race_scene import RaceScene, RaceSettings
from game.race.controller import RaceController, Seat
from tests.test_presentation import straight_track


@pytest.fixture(scope="module")
def display():
    init_pygame(headless=True)
    return pygame.display.set_mode((640, 360))


def placed(rules: str, cars) -> RaceState:
    """A straight track with cars at given places and speeds: ``cars`` is ``[(position, velocity)]``."""
    state = RaceState.start(straight_track(start=(3, 2)), preset(rules), [f"P{i + 1}" for i in range(len(cars))],
                            seed=0)
    moved = tuple(replace(c, position=p, velocity=v) for c, (p, v) in zip(state.cars, cars))
    return replace(state, cars=moved)


def phase(state: RaceState, targets):
    return state.apply(dict(enumerate(targets)))


def test_a_quiet_phase_replays_in_a_fraction_of_a_second_and_a_collision_at_full_length():
    state = placed("arcade", [(Vec(3, 1), Vec(1, 0)), (Vec(3, 3), Vec(1, 0))])
    after, quiet = phase(state, [Vec(4, 1), Vec(4, 3)])
    assert not quiet.events and not overtaken(state, after)
    assert replay_seconds(quiet) < 0.5
    _, crash = phase(state, [Vec(5, 2), Vec(5, 2)])  # both end on one node: a spin-out
    assert crash.collisions
    assert replay_seconds(crash) >= MOVE_SECONDS + 0.4
    # both within the player's replay speed
    assert replay_seconds(quiet, 2.0) == pytest.approx(replay_seconds(quiet) / 2)
    assert replay_seconds(crash, 0.5) == pytest.approx(replay_seconds(crash) * 2)


def test_a_crash_and_a_finish_play_at_full_length():
    state = placed("paper", [(Vec(13, 2), Vec(2, 0))])
    _, finish = phase(state, [Vec(16, 2)])
    assert any(e.kind == "finish" for e in finish.events)
    assert replay_seconds(finish) >= MOVE_SECONDS
    state = placed("paper", [(Vec(3, 2), Vec(0, 1))])
    _, crash = phase(state, [Vec(3, 4)])  # into the wall below
    assert any(e.kind == "off_track" for e in crash.events)
    assert replay_seconds(crash) > MOVE_SECONDS + 0.5  # and the pencil leads the car back


def test_an_overtake_plays_at_full_length():
    state = placed("arcade", [(Vec(6, 1), Vec(1, 0)), (Vec(4, 3), Vec(3, 0))])
    after, record = phase(state, [Vec(7, 1), Vec(8, 3)])  # P2 draws past P1
    assert not record.events and overtaken(state, after)
    assert replay_seconds(record, overtake=True) >= MOVE_SECONDS
    assert replay_seconds(record) < 0.5


def test_replay_timing_is_the_same_however_the_frames_fall():
    state = placed("arcade", [(Vec(3, 1), Vec(1, 0)), (Vec(3, 3), Vec(1, 0))])
    _, record = phase(state, [Vec(5, 2), Vec(5, 2)])
    coarse, fine = PhaseAnimation(record), PhaseAnimation(record)
    for _ in range(10):
        coarse.advance(0.1)
    for _ in range(100):
        fine.advance(0.01)
    assert coarse.elapsed == pytest.approx(fine.elapsed)
    assert [c for f in coarse.frames() for c in f.point] == pytest.approx([c for f in fine.frames() for c in f.point])
    assert len(coarse.collisions_fired()) == len(fine.collisions_fired()) == 1


def two_players(display) -> RaceScene:
    state = placed("arcade", [(Vec(3, 1), Vec(0, 0)), (Vec(3, 3), Vec(0, 0))])
    ctl = RaceController(state, [Seat("P1", HumanDriver()), Seat("P2", HumanDriver())])
    return RaceScene(ctl, (640, 360), settings=RaceSettings(intro=False, camera_drift=False))


def both_choose(scene: RaceScene) -> None:
    scene.update(1 / 60)
    scene.handle(Select("kb1", 1, 0, True))
    scene.handle(Select("kb2", 1, 0, True))
    for _ in range(120):  # the camera pulls back, then the phase plays
        scene.update(1 / 60)
        if scene.mode == "replay":
            break
    assert scene.mode == "replay"


def test_a_skip_press_goes_straight_to_the_next_choice(display):
    scene = two_players(display)
    both_choose(scene)
    scene.handle(SkipReplay("kb1"))
    assert scene.mode == "choosing" and scene.animation is None
    assert scene.shown_state is scene.controller.state  # the cars stand where the phase put them
    assert [t.car for t in scene.moment().targets] == [0, 1]


def test_a_player_ready_to_choose_is_not_kept_waiting_but_picks_nothing_unseen(display):
    scene = two_players(display)
    both_choose(scene)
    ctl = scene.controller
    scene.handle(Select("kb2", -1, 0, True))  # P2 presses a target key while the phase still plays
    assert scene.mode == "choosing"
    assert scene.highlight[1] == Vec(-1, 0)  # highlighted, ...
    assert ctl.chosen(1) is None  # ... not picked: the player has not seen the new rings yet
    scene.handle(Confirm("kb2"))
    assert ctl.chosen(1) is not None


def test_a_car_sitting_out_a_lost_turn_is_no_news():
    state = placed("arcade", [(Vec(3, 1), Vec(1, 0)), (Vec(3, 3), Vec(0, 0))])
    state = replace(state, cars=(state.cars[0], replace(state.cars[1], skip=1)))
    _, record = state.apply({0: Vec(4, 1)})
    assert [e.detail for e in record.events] == ["P2 misses a turn"]
    assert replay_seconds(record) < 0.5


#: Built-in tracks still outside the couch race's 20 to 45 moves, and why (strict: a redraw that
#: brings one inside fails here until it is taken off this list).
NOT_YET_PACED: dict[str, str] = {}


def _builtin_refs():
    from tests.builtin_packs import track_refs

    return [pytest.param(ref, marks=pytest.mark.xfail(reason=NOT_YET_PACED[ref], strict=True))
            if ref in NOT_YET_PACED else ref for ref in track_refs()]


@pytest.mark.parametrize("ref", _builtin_refs())
def test_every_builtin_track_s_default_race_lasts_20_to_45_moves(ref):
    """A couch race lasts two to four minutes: the default race's par (its laps, its rules)."""
    from tests.builtin_packs import builtin_track

    track = builtin_track(ref)
    assert 20 <= track.meta["par"] <= 45, f"{ref}: par {track.meta['par']} over {track.default_laps} lap(s)"
