"""Handicaps: head starts and reduced counts, recorded in replays and refereed from them."""

from __future__ import annotations

import pytest

from game.core import RaceState, preset
from game.drivers.cpu import make_driver, make_shared
from game.race.controller import RaceController, Seat
from game.core import Vec
from game.race.handicap import (auto_handicaps, handicap_problem, handicapped_moves, handicapped_ranks, head_start_state,
                                raw_moves)
from game.race.referee import IllegalReplayError, referee
from game.race.replay import CarEntry, Replay, ReplayError, dumps_replay, loads_replay
from tests.test_debrief import _dogleg, _solver

NAMES = ["Ada", "Bo"]


def _race(kind: str, handicaps, rules_name="paper"):
    """Two Champions on the dog-leg, Bo with a handicap; the replay as a file would hold it, read back."""
    rules = preset(rules_name).with_options(handicap=kind)
    track = _dogleg()
    state = head_start_state(RaceState.start(track, rules, NAMES, laps=1, seed=4), handicaps, rules.handicap)
    shared = make_shared(_solver())
    ctl = RaceController(state, [Seat(n, make_driver("cpu:champion", shared=shared)) for n in NAMES], seed=4)
    for _ in range(200):
        if ctl.over:
            break
        ctl.tick()
    assert ctl.over
    cars = [CarEntry(n, "cpu:champion", handicap=h) for n, h in zip(NAMES, handicaps)]
    replay = Replay.from_race("dogleg.map", 1, rules, 4, cars, ctl.records)
    return loads_replay(dumps_replay(replay)), ctl.state, track


def test_a_head_start_is_refereed_from_the_replay_the_car_moving_first_as_on_paper():
    replay, final, track = _race("head_start", [0, 3])
    assert replay.rules.handicap == "head_start" and [c.handicap for c in replay.cars] == [0, 3]
    result = referee(replay, track)
    assert result.final.cars == final.cars
    # Ada waited three turns while Bo drove off
    assert all(r.choices.get(0) is None and r.choices.get(1) is not None for r in result.records[:3])
    assert result.records[3].choices.get(0) is not None
    # both are Champions from their own places: the same raw moves, and Bo's count is reduced by three
    raw = [raw_moves(result.final, i, [0, 3], "head_start") for i in range(2)]
    assert raw[0] is not None and abs(raw[0] - raw[1]) <= 1
    assert [handicapped_moves(result.final, i, [0, 3], "head_start") for i in range(2)] == [raw[0], raw[1] - 3]
    assert result.final.cars[1].finish_phase < result.final.cars[0].finish_phase  # Bo crossed the line first


def test_a_replay_whose_car_drives_before_its_head_start_is_over_is_refused_naming_it():
    replay, _, track = _race("head_start", [0, 3])
    choice = referee(loads_replay(dumps_replay(Replay.from_race(
        "dogleg.map", 1, replay.rules, 4, [CarEntry(n, "cpu:champion") for n in NAMES], []))), track)
    first_target = choice.states[0].legal_targets(0)[0]
    phases = list(replay.phases)
    phases[0] = (first_target, phases[0][1])
    tampered = Replay(track=replay.track, laps=1, rules=replay.rules, seed=4, cars=replay.cars, phases=tuple(phases))
    with pytest.raises(IllegalReplayError, match="misses"):
        referee(tampered, track)


def test_a_count_handicap_is_taken_off_at_the_finish_and_the_race_starts_together():
    replay, final, track = _race("count", [2, 0])
    assert replay.rules.handicap == "count"
    result = referee(replay, track)
    assert result.final.cars == final.cars
    assert all(c is not None for c in result.records[0].choices.values()) and len(result.records[0].choices) == 2
    raw = [raw_moves(result.final, i, [2, 0], "count") for i in range(2)]
    assert raw == [c.moves for c in result.final.cars]
    assert [handicapped_moves(result.final, i, [2, 0], "count") for i in range(2)] == [raw[0] - 2, raw[1]]


def test_an_old_replay_without_handicaps_still_loads_and_means_none():
    replay = Replay.from_race("dogleg.map", 1, preset("paper"), 1, ["Ada"])
    text = dumps_replay(replay)
    assert "handicap" not in text and "assist" not in text
    back = loads_replay(text)
    assert back.cars[0].handicap == 0 and back.cars[0].assist == "" and back.rules.handicap == "count"


@pytest.mark.parametrize("line, key", [
    ('handicap = 11', "car 2: handicap"), ('handicap = "lots"', "car 2: handicap"),
    ('assist = "autopilot"', "car 2: assist")])
def test_a_bad_handicap_or_assist_in_a_replay_is_named_by_file_car_key_and_line(line, key):
    cars = [CarEntry("Ada"), CarEntry("Bo", handicap=1)]
    text = dumps_replay(Replay.from_race("dogleg.map", 1, preset("paper").with_options(handicap="head_start"), 1,
                                         cars))
    bad = text.replace("handicap = 1\n", line + "\n") if "handicap" in line else text.replace(
        "handicap = 1\n", "handicap = 1\n" + line + "\n")
    with pytest.raises(ReplayError) as caught:
        loads_replay(bad, file="race.toml")
    message = str(caught.value)
    where = bad.splitlines().index(line) + 1
    assert "race.toml" in message and key in message and f":{where}" in message, message


def test_the_handicap_kind_is_a_rule_option_written_only_away_from_its_default():
    rules = preset("paper").with_options(handicap="head_start")
    text = dumps_replay(Replay.from_race("dogleg.map", 1, rules, 1, [CarEntry("Ada", handicap=2)]))
    assert 'handicap = "head_start"' in text.split("[rules]")[1].split("[[car]]")[0]  # in the rules' table
    assert loads_replay(text).rules.handicap == "head_start"
    plain = dumps_replay(Replay.from_race("dogleg.map", 1, preset("paper"), 1, [CarEntry("Ada", handicap=2)]))
    assert "[rules]\npreset = \"paper\"\n\n" in plain and loads_replay(plain).rules.handicap == "count"
    assert "handicap" not in preset("paper").keyed_options()  # best runs and solver caches keep their names


def test_a_bad_handicap_kind_is_named_by_file_key_and_line():
    rules = preset("paper").with_options(handicap="head_start")
    text = dumps_replay(Replay.from_race("dogleg.map", 1, rules, 1, [CarEntry("Ada", handicap=2)]))
    bad = text.replace('handicap = "head_start"', 'handicap = "slow"')
    with pytest.raises(ReplayError) as caught:
        loads_replay(bad, file="race.toml")
    where = bad.splitlines().index('handicap = "slow"') + 1
    message = str(caught.value)
    assert "race.toml" in message and "rules.handicap" in message and f":{where}" in message, message
    assert "head_start" in message and "count" in message  # the values it may take


def test_a_handicap_kind_written_at_the_top_of_a_replay_is_sent_to_the_rules_table():
    text = dumps_replay(Replay.from_race("dogleg.map", 1, preset("paper"), 1, [CarEntry("Ada", handicap=2)]))
    bad = text.replace("laps = 1\n", 'laps = 1\nhandicap = "count"\n')
    with pytest.raises(ReplayError) as caught:
        loads_replay(bad, file="race.toml")
    message = str(caught.value)
    where = bad.splitlines().index('handicap = "count"') + 1
    assert "race.toml" in message and "[rules]" in message and f":{where}" in message, message


def test_auto_handicaps_give_the_slower_players_a_head_start_so_predicted_finishes_tie():
    assert auto_handicaps([2.0, 5.0, 3.4]) == [0, 3, 1]
    assert auto_handicaps([None, None]) == [0, 0]
    assert auto_handicaps([0.0, 25.0]) == [0, 10]
    assert handicap_problem("auto") == "" and handicap_problem(4) == ""
    assert "0 to 10" in handicap_problem(11) and handicap_problem(True)


# -- in the game -------------------------------------------------------------------------
def test_a_lobby_handicap_gives_a_head_start_shows_raw_and_handicapped_moves_and_the_replay_referees_it(tmp_path):
    """(and the coaching assist, taken on the same card line, coaches only that player)"""
    from game.presentation.menus.results import ResultsScene
    from game.race.handicap import handicapped_moves
    from tests.test_flow import Couch, drive_to_the_finish, pick_first_sprint

    couch = Couch(tmp_path)
    try:
        one, two = couch.plug(), couch.plug()
        couch.press(one, "a")
        couch.press(two, "a")
        lobby = couch.top()
        for _ in range(_lobby_row("handicap")):
            couch.press(two, "dpdown")  # name -> colour -> symbol -> add CPU -> phones -> handicap
        for _ in range(3):
            couch.press(two, "dpright")
        assert [s.handicap for s in lobby.table.seats] == [0, 3]
        couch.press(two, "dpdown")  # the coaching assist, beside the handicap
        couch.press(two, "dpright")
        assert [s.assist for s in lobby.table.seats] == ["", "coach"]
        # the head start is the rules' choice, remembered in the settings like every option (and kept
        # when pick_first_sprint changes the preset below)
        couch.ctx.settings = couch.ctx.settings.with_rules(couch.ctx.settings.rules().with_options(handicap="head_start"))
        couch.press(one, "start")
        race = pick_first_sprint(couch, one)
        assert [c.skip for c in race.controller.states[0].cars] == [3, 0]  # the first car waits three turns
        from game.presentation.coaching import CoachingLayer

        coaching = [layer for layer in race.config.layers if isinstance(layer, CoachingLayer)]
        assert len(coaching) == 1 and coaching[0].cars == {1}  # only the player who asked is coached
        drive_to_the_finish(couch, [one, two])
        results = couch.top()
        assert isinstance(results, ResultsScene)
        replay = loads_replay(dumps_replay(results.replay()))
        assert [c.handicap for c in replay.cars] == [0, 3] and replay.rules.handicap == "head_start"
        assert [c.assist for c in replay.cars] == ["", "coach"]  # told apart in the replay too
        final = referee(replay, results.state.track).final
        assert final.cars == results.state.cars
        counted = [handicapped_moves(final, i, [0, 3], "head_start") for i in range(2)]
        assert counted[1] == final.cars[1].moves - 3 and counted[0] == final.cars[0].moves - 3
        assert results.ranks[1] <= results.ranks[0]  # the same line from a head start: ahead, or level
    finally:
        couch.close()


def test_auto_handicaps_come_from_each_names_last_results_kept_in_the_best_results_file(tmp_path):
    from types import SimpleNamespace

    from game.presentation.menus.race import RacePlan, resolve_handicaps
    from game.presentation.menus.seats import SeatSpec
    from game.settings import BestResults, load_best, save_best

    best = BestResults()
    for over in (1, 2, 3, 9, 1, 2):  # the oldest falls out: five kept
        best.note_over_par("Ada", over)
    best.note_over_par("Bo", 9)
    save_best(best, tmp_path)
    back, problems = load_best(tmp_path)
    assert problems == [] and back.over_par == {"Ada": [2, 3, 9, 1, 2], "Bo": [9]}
    lineup = (SeatSpec("Ada", 0, 0, handicap="auto"), SeatSpec("Bo", 1, 1, handicap="auto"),
              SeatSpec("Cy", 2, 2, handicap=2))
    plan = resolve_handicaps(SimpleNamespace(best=back), RacePlan(lineup, None, preset("paper"), 1))
    assert [s.handicap for s in plan.lineup] == [0, 6, 2]  # Bo is 6 over Ada's 3.4 on average; Cy keeps his


def test_a_bad_over_par_entry_in_the_best_results_is_named_by_file_and_line_and_dropped(tmp_path):
    from game.settings import BestResults, load_best, save_best

    best = BestResults()
    best.note_over_par("Ada", 1)
    path = save_best(best, tmp_path)
    text = path.read_text()
    text = text[:text.index("over_par")] + 'over_par = ["lots"]\n'

    path.write_text(text)
    back, problems = load_best(tmp_path)
    assert back.over_par == {} and len(problems) == 1
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "lots" in t)
    assert "best" in problems[0].file and problems[0].line == line and "over_par" in problems[0].message


def test_the_rules_screen_offers_the_head_start_once_someone_took_a_handicap_and_remembers_it(tmp_path):
    from game.presentation.menus.results import ResultsScene
    from game.presentation.race_scene import RaceScene
    from game.presentation.menus.rules_menu import RulesScene
    from tests.test_flow import Couch, drive_to_the_finish

    couch = Couch(tmp_path)
    try:
        one, two = couch.plug(), couch.plug()
        couch.press(one, "a")
        couch.press(two, "a")
        for _ in range(_lobby_row("handicap")):
            couch.press(one, "dpdown")  # Ada's handicap
        couch.press(one, "dpright")
        couch.press(one, "start")
        tracks = couch.top()
        couch.press_until(one, "dpdown", lambda: tracks.entry.ref == "starter/first-sprint", "starter/first-sprint")
        couch.press(one, "a")
        rules = couch.top()
        assert isinstance(rules, RulesScene) and rules.rules.handicap == "count"
        couch.press_until(one, "dpdown", lambda: rules.menu.current.label == "Handicaps", "the Handicaps row")
        assert rules.menu.current.value() == "count"
        couch.press(one, "dpright")
        assert rules.menu.current.value() == "head start" and rules.rules.handicap == "head_start"
        assert couch.ctx.settings.rules().handicap == "head_start"  # remembered for the next race
        couch.press(one, "start")
        race = couch.top()
        assert isinstance(race, RaceScene) and [c.skip for c in race.controller.states[0].cars] == [0, 1]
        drive_to_the_finish(couch, [one, two])
        results = couch.top()
        assert isinstance(results, ResultsScene) and results.plan.rules.handicap == "head_start"
        cars = results.state.cars
        replay = loads_replay(dumps_replay(results.replay()))
        assert replay.rules.handicap == "head_start" and referee(replay, results.state.track).final.cars == cars
    finally:
        couch.close()


def test_without_handicaps_the_rules_screen_asks_nothing_about_them(tmp_path):
    from types import SimpleNamespace

    from game.presentation.menus.rules_menu import RulesScene
    from game.presentation.menus.seats import SeatSpec
    from tests.test_flow import Couch

    couch = Couch(tmp_path)
    try:
        scene = RulesScene(couch.ctx, [SeatSpec("Ada", 0, 0)], None)
        assert "Handicaps" not in [item.label for item in scene.menu.items]
        scene = RulesScene(couch.ctx, [SeatSpec("Ada", 0, 0, handicap="auto")], None)
        assert "Handicaps" in [item.label for item in scene.menu.items]
    finally:
        couch.close()


@pytest.mark.parametrize("kind", ["count", "head_start"])
def test_the_hand_checked_handicap_scenarios_of_docs_rules_md(kind):
    """docs/rules.md, "handicap": Ada flat out (5 moves), Bo with a handicap of 2 at 3 squares a move
    (6 moves) on the straight; Bo wins on handicapped moves either way, refereed from the replay."""
    from tests.core_tracks import STRAIGHT, make_track

    track = make_track(STRAIGHT)
    rules = preset("paper").with_options(handicap=kind)
    start = head_start_state(RaceState.start(track, rules, NAMES, laps=1, seed=0), [0, 2], rules.handicap)
    ada = [(3, 1), (5, 1), (8, 1), (12, 1), (17, 1)]  # 1, 2, 3, 4, 5 squares a move
    bo = [(3, 2), (5, 2), (8, 2), (11, 2), (14, 2), (17, 2)]  # 1, 2, 3, 3, 3, 3
    wait = 2 if kind == "head_start" else 0  # Ada misses two turns while Bo drives off
    phases = [{i: p[k - w] for i, (p, w) in enumerate([(ada, wait), (bo, 0)]) if 0 <= k - w < len(p)}
              for k in range(max(len(ada) + wait, len(bo)))]
    state = start
    for choices in phases:
        state, _ = state.apply({i: Vec(*c) for i, c in choices.items()})
    cars = [CarEntry(n, handicap=h) for n, h in zip(NAMES, [0, 2])]
    replay = loads_replay(dumps_replay(Replay.from_race("straight.map", 1, rules, 0, cars,
                                                        [[Vec(*p[i]) if i in p else None for i in range(2)]
                                                         for p in phases])))
    final = referee(replay, track).final
    assert final.cars == state.cars
    assert [c.finish_phase for c in final.cars] == ([7, 6] if kind == "head_start" else [5, 6])
    assert [raw_moves(final, i, [0, 2], kind) for i in range(2)] == [5, 6]
    assert [handicapped_moves(final, i, [0, 2], kind) for i in range(2)] == [5, 4]
    assert handicapped_ranks(final, [0, 2], kind) == [2, 1]


def test_the_handicap_kind_never_changes_par_the_solvers_table_or_a_best_runs_key():
    from game.drivers.solver import track_fingerprint
    from game.race.trial import trial_key
    from tests.core_tracks import STRAIGHT, make_track

    track = make_track(STRAIGHT)
    plain, head = preset("arcade"), preset("arcade").with_options(handicap="head_start")
    assert head.solving() == plain.solving() == plain  # what par and the table are worked out under
    assert track_fingerprint(track, head, 1) == track_fingerprint(track, plain, 1)  # one disk cache file
    assert trial_key("starter/first-sprint", head, 1) == trial_key("starter/first-sprint", plain, 1)
    solver = _solver()
    assert solver.table(track, head, 1) is solver.table(track, plain, 1)  # one table in memory, not two


def test_a_replay_from_before_the_handicap_option_plays_it_at_its_default():
    from game.race.replay import FORMAT, OPTION_SINCE, older_rules

    assert OPTION_SINCE.get("handicap", FORMAT) == FORMAT == 4  # new in format 4, with nothing listed for it
    head = preset("paper").with_options(handicap="head_start")
    assert older_rules(head, {}, 3).handicap == "count"
    assert older_rules(head, {}, 4).handicap == "head_start"


def _lobby_row(name: str) -> int:
    """How many presses down from a new seat's name row reach row ``name`` of the lobby card."""
    from game.presentation.menus.seats import ROWS

    return ROWS.index(name)
