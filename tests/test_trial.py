"""Time trials: medals at their boundaries, the best run kept per track, rules and laps, the ghost in
step with the phases, a whole trial driven with a gamepad, and medals on a race's results screen."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pytest

from hypothesis import given
from hypothesis import strategies as st

from game.core.race import FINISHED, RaceState
from game.core.rules import preset
from game.drivers.cpu import make_driver, make_shared
from game.presentation.animation import PhaseAnimation
from game.presentation.easing import lerp_pt
from game.presentation.ghost import Ghost
from game.race.referee import referee
from game.race.replay import Replay
from game.race.trial import TrialRecords, medal, medal_limits, trial_file_name
from tests.core_tracks import STRAIGHT, make_track



SHARED = make_shared()


#: starter/first-sprint's par (the pads drive the Champion's line: gold).
FIRST_SPRINT_PAR = 20


# -- medals ------------------------------------------------------------------------
@pytest.mark.parametrize("par, gold, silver, bronze", [
    (1, 1, 2, 2), (4, 4, 5, 5), (10, 10, 11, 13), (11, 11, 13, 14), (20, 20, 22, 25), (21, 21, 24, 27),
    (43, 43, 48, 54), (100, 100, 110, 125),
])
def test_medals_at_their_boundaries(par, gold, silver, bronze):
    limits = medal_limits(par)
    assert (limits.gold, limits.silver, limits.bronze) == (gold, silver, bronze)
    assert medal(gold, par) == "gold" and medal(gold - 1, par) == "gold"
    assert medal(gold + 1, par) == ("silver" if silver > gold else "bronze" if bronze > gold else None)
    assert medal(silver, par) == ("silver" if silver > gold else "gold")
    assert medal(bronze, par) in ("bronze", "silver", "gold")
    assert medal(bronze + 1, par) is None
    if bronze > silver:
        assert medal(bronze, par) == "bronze" and medal(silver + 1, par) == "bronze"


@given(st.integers(1, 5000))
def test_medal_limits_follow_the_rounding_up_rule(par):
    limits = medal_limits(par)
    assert limits.silver == par + (par + 9) // 10  # ceil(par / 10) in whole numbers
    assert limits.bronze == par + (par + 3) // 4  # ceil(par / 4)
    assert limits.gold <= limits.silver <= limits.bronze


def test_no_par_or_no_finish_means_no_medal():
    assert medal(10, None) is None and medal(None, 10) is None
    with pytest.raises(ValueError):
        medal_limits(0)


# -- best runs ---------------------------------------------------------------------
def lone_run(rules="paper", kind="cpu:champion", laps=1, seed=0):
    track = make_track(STRAIGHT, track_id="strip")
    state = RaceState.start(track, preset(rules), ["Ada"], laps=laps, seed=seed)
    driver = make_driver(kind, shared=SHARED)
    import random

    records = []
    while not state.over:
        state, record = state.apply({0: driver.choose(state, 0, {}, random.Random(f"{seed}/{state.phase}"))})
        records.append(record)
    replay = Replay.from_race("tests#strip", laps, preset(rules), seed, [("Ada", "human")], records)
    return track, replay, state


def judge(track):
    def run(replay):
        result = referee(replay, track)
        return result.final, result.records
    return run


def test_the_best_run_is_kept_per_track_rules_and_laps(tmp_path):
    records = TrialRecords(tmp_path / "trials")
    track, slow, slow_state = lone_run(kind="cpu:rookie", seed=3)
    _, fast, fast_state = lone_run()
    assert slow_state.cars[0].moves > fast_state.cars[0].moves
    assert records.load("tests#strip", preset("paper"), 1, judge(track)) == (None, [], "")
    assert records.offer(slow, slow_state.cars[0].moves, None)
    best, ghost, problem = records.load("tests#strip", preset("paper"), 1, judge(track))
    assert problem == "" and best.moves == slow_state.cars[0].moves and best.name == "Ada"
    assert len(ghost) == slow_state.phase
    assert not records.offer(slow, best.moves, best), "an equal run does not replace the best"
    assert records.offer(fast, fast_state.cars[0].moves, best)
    assert records.load("tests#strip", preset("paper"), 1, judge(track))[0].moves == fast_state.cars[0].moves
    # other rules and other laps are other records
    assert records.load("tests#strip", preset("phases"), 1, judge(track))[0] is None
    assert records.load("tests#strip", preset("paper"), 2, judge(track))[0] is None
    assert trial_file_name("tests#strip", preset("paper"), 1) != trial_file_name("tests#strip", preset("phases"), 1)
    assert trial_file_name("a/b", preset("paper", {"collision": "spin"}), 1) != \
        trial_file_name("a/b", preset("paper"), 1)


def test_a_damaged_best_run_is_reported_and_set_aside_never_lost(tmp_path):
    records = TrialRecords(tmp_path)
    track, run, state = lone_run()
    path = records.path("tests#strip", preset("paper"), 1)
    path.write_text("format = 1\nthis is not a replay\n")
    best, ghost, problem = records.load("tests#strip", preset("paper"), 1, judge(track))
    assert best is None and ghost == [] and str(path) in problem
    assert records.offer(run, state.cars[0].moves, best)
    assert path.with_name(path.name + ".broken").read_text() == "format = 1\nthis is not a replay\n"
    assert records.load("tests#strip", preset("paper"), 1, judge(track))[0] is not None


def test_a_kept_run_the_rules_refuse_is_not_a_ghost(tmp_path):
    records = TrialRecords(tmp_path)
    track, run, state = lone_run()
    records.offer(run, state.cars[0].moves, None)
    text = records.path("tests#strip", preset("paper"), 1).read_text()
    records.path("tests#strip", preset("paper"), 1).write_text(text.replace("1 = [[", "1 = [[1", 1))
    best, ghost, problem = records.load("tests#strip", preset("paper"), 1, judge(track))
    assert best is None and problem


# -- the ghost -----------------------------------------------------------------------
def test_the_ghost_moves_in_step_with_the_phase_being_played():
    track, run, state = lone_run()
    result = referee(run, track)
    ghost = Ghost(result.records, "best")
    start = result.states[0].cars[0].position  # (a car's history keeps only what a set-back can reach)
    assert ghost.phases == state.phase and ghost.position(0) == (float(start.x), float(start.y))
    for k, record in enumerate(result.records):
        assert ghost.position(k + 1) == (float(record.moves[0].end.x), float(record.moves[0].end.y))
        anim = PhaseAnimation(record)  # the player's phase k + 1 (here: the same run)
        anim.advance(anim.move_seconds * 0.4)
        strokes, point = ghost.frame(k, anim)
        move = record.moves[0]
        expected = lerp_pt((move.start.x, move.start.y), (move.target.x, move.target.y), anim.travel)
        assert point == pytest.approx(expected)
        assert len(strokes) == k + 1, "the finished strokes and the one being drawn"
    # past its last phase the ghost waits at its finish
    last = result.records[-1].moves[0].end
    assert ghost.frame(len(result.records) + 3, None)[1] == (float(last.x), float(last.y))


# -- the whole time trial on a gamepad ---------------------------------------------------
@pytest.fixture
def couch(tmp_path):
    from tests.test_flow import Couch

    c = Couch(tmp_path)
    yield c
    c.close()


def open_trial(couch, pad):
    from game.presentation.menus.trial import TrialStartScene

    title = couch.top()
    couch.press_until(pad, "dpdown", lambda: title.menu.current.label == "Time trial", "the title's Time trial row")
    couch.press(pad, "a")
    tracks = couch.top()
    assert tracks.screen_name == "trial" and len(tracks.lineup) == 1 and tracks.lineup[0].device == f"pad:{pad.instance_id}"
    couch.press_until(pad, "dpdown", lambda: tracks.entry.ref == "starter/first-sprint", "starter/first-sprint")
    couch.press(pad, "a")
    rules = couch.top()
    assert rules.screen_name == "trial-rules"
    couch.press(pad, "dpdown")  # from "Start the race!" to the preset row
    for _ in range(5):
        if rules.rules.name == "paper":
            break
        couch.press(pad, "dpright")
    assert rules.rules.name == "paper"
    couch.press(pad, "start")
    start = couch.top()
    assert isinstance(start, TrialStartScene)
    return start


def wait_until(couch, condition, frames=600):
    import time

    for _ in range(frames):
        if condition():
            return
        couch.step()
        time.sleep(0.005)
    raise AssertionError("timed out")


def test_a_time_trial_on_a_gamepad_medals_keeps_the_best_and_races_its_ghost(couch):
    from game.presentation.menus.trial import TrialResultScene, TrialStartScene, ghost_of
    from game.presentation.race_scene import RaceScene
    from tests.test_flow import drive_to_the_finish

    pad = couch.plug()
    start = open_trial(couch, pad)
    wait_until(couch, start.ready)
    assert start.par() == FIRST_SPRINT_PAR and start.best is None
    couch.press(pad, "a")  # Start the run!
    race = couch.top()
    assert isinstance(race, RaceScene) and ghost_of(race) is None and len(race.controller.seats) == 1
    assert "par 20 · silver 22 · bronze 25" in race.moment().title
    drive_to_the_finish(couch, [pad])
    result = couch.top()
    assert isinstance(result, TrialResultScene)
    assert result.car.moves == FIRST_SPRINT_PAR and result.medal == "gold" and result.new_best
    wait_until(couch, lambda: result.champion.done)
    assert result.champion_state()[0].cars[0].moves == FIRST_SPRINT_PAR, "the Champion's line is par"
    couch.press(pad, "a")  # confirm on a value row changes nothing...
    assert not result.show_champion
    couch.press(pad, "dpright")  # ...left/right do: the Champion's line on
    assert result.show_champion
    couch.press(pad, "b")  # try again: back at the start, the best run read back as the ghost
    assert isinstance(couch.top(), TrialStartScene)
    wait_until(couch, start.ready)
    assert start.best.moves == FIRST_SPRINT_PAR and start.best_records
    couch.press(pad, "a")
    race = couch.top()
    assert isinstance(race, RaceScene) and ghost_of(race) is not None and ghost_of(race).moves == FIRST_SPRINT_PAR
    kept = [r.choices for r in ghost_of(race).records]
    assert kept == [r.choices for r in result.records]


def test_the_results_screen_shows_each_humans_medal(couch):
    from tests.test_flow import drive_to_the_finish, join_two_pads_and_a_cpu, pick_first_sprint

    one, two = join_two_pads_and_a_cpu(couch)
    pick_first_sprint(couch, one)
    drive_to_the_finish(couch, [one, two])
    results = couch.top()
    couch.ctx.pars.wait(results.plan.entry.track, results.plan.rules, 1)
    medals = results.medals()
    humans = [i for i, s in enumerate(results.plan.lineup) if s.is_human]
    for i in humans:
        car = results.state.cars[i]
        assert car.status == FINISHED and medals.get(i) == medal(car.moves, FIRST_SPRINT_PAR)
    assert 2 not in medals, "CPUs win no medals"
    couch.step()


def test_a_time_trials_par_is_counted_from_where_the_lone_car_stands(tmp_path):
    """On a Kidney Bean whose best start place is not the first one, the trial's par is the first place's."""
    from game import paths
    from game.presentation.menus import build_context
    from game.presentation.menus.race import RacePlan, TrackEntry
    from game.presentation.menus.trial import TRIAL_SLOT, TrialStartScene, champion_line, player_seat
    from game.tracks import load_track_ref

    builtin = tmp_path / "builtin"
    builtin.mkdir()
    text = (paths.builtin_tracks_dir() / "starter.toml").read_text(encoding="utf-8")
    best_first = "[20, 4], [21, 6], [21, 8],"
    assert best_first in text  # the built-in Bean puts its best place first; this one does not
    (builtin / "starter.toml").write_text(text.replace(best_first, "[21, 6], [21, 8], [20, 4],"), encoding="utf-8")
    ctx = build_context(tmp_path / "config", tmp_path / "packs", builtin, seed=1)
    track = load_track_ref("starter/bean", builtin_dir=builtin)
    rules = preset("paper")
    start = TrialStartScene(ctx, RacePlan((player_seat(ctx, "pad:1"),), TrackEntry("starter/bean", track, "S"),
                                          rules, 2))
    par = ctx.pars.wait(track, rules, 2, slot=TRIAL_SLOT)
    assert start.par() == par == ctx.cpu_shared.solver.solve(track, rules, 2, slot=0).par
    assert par > track.meta["par"], "the pack's par is from the best start place"
    final, _ = champion_line(ctx, track, rules, 2)
    assert final.cars[0].moves == par, "the Champion alone from the first place drives exactly that par"
