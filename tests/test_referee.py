"""The headless referee: replays are played again by the rules, and bad ones are caught by phase and car."""

from __future__ import annotations

import functools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.core import RETIRE, IllegalChoiceError, RaceState, Vec, preset
from game.core.race import EVENT_KINDS
from game.core.rules import PRESET_NAMES
from game.race.replay import Replay, ReplayError
from game.race.referee import IllegalReplayError, RaceLog, RefereeError, referee
from game.race.report import dumps_outcome, outcome_json, outcome_table
from game.tracks.charmap import track_from_charmap

SPRINT = """
XXXXXXXXXXXX
XSOOOOOOOFOX
XSOOOOOOOFOX
XSOOOOOOOFOX
XSOOOOOOOFOX
XXXXXXXXXXXX
"""
LOOP = """
XXXXXXXXXXXXXXXX
XOOOOOOOOOOOOOOX
XOOOOOOOOOOOOOOX
XOOXXXXXXXXXXOOX
XOOXXXXXXXXXXOOX
XOOOOOFSSOOOOOOX
XOOOOOFSSOOOOOOX
XXXXXXXXXXXXXXXX
"""
V = Vec
CARS = [("Ada", "human"), ("Bo", "cpu:rookie"), ("Cy", "cpu:pro")]


@functools.cache
def sprint():
    # Slots (1, 1), (1, 2), (1, 3), (1, 4); the finish line is x = 8.5, driven to the right.
    return track_from_charmap(SPRINT, id="sprint", forward="right")


@functools.cache
def loop():
    return track_from_charmap(LOOP, id="loop")


def arcade_race(changes=None):
    """Three cars on the sprint under arcade rules (simultaneous, spin, off-road costs a turn)."""
    phases = [
        [V(2, 2), V(2, 2), V(2, 3)],  # Ada and Bo both pick (2, 2): they collide and spin
        [V(3, 2), V(3, 1), V(4, 3)],
        [V(5, 2), V(4, 0), V(7, 3)],  # Bo drives off the top of the road: reset, misses a turn
        [V(8, 2), None, V(10, 3)],  # Cy crosses the line at x = 8.5; Bo sits out
        [RETIRE, RETIRE, None],
    ]
    for (phase, car), choice in (changes or {}).items():
        phases[phase - 1][car] = choice
    return Replay.from_race("sprint.map", 1, preset("arcade"), 0, CARS, phases)


def test_hand_checked_arcade_race_collision_offroad_and_win():
    replay = arcade_race()
    result = referee(replay, sprint())
    outcome = outcome_json(replay, result.final, result.records)
    events = [(e["phase"], e["car"], e["kind"]) for e in outcome["events"]]
    assert events[:4] == [(1, "Ada", "collision"), (1, "Bo", "collision"), (1, "Ada", "penalty"),
                          (1, "Bo", "penalty")]
    assert outcome["events"][0]["point"] == [2, 2] and outcome["events"][0]["detail"] == "collision: Ada, Bo"
    assert [e for e in events if e[0] == 3] == [(3, "Bo", "off_track"), (3, "Bo", "penalty")]
    assert outcome["events"][4]["point"] == [3.5, 0.5]  # leaves the road half way up its move
    assert (4, "Cy", "finish") in events and (4, "Bo", "penalty") in events  # the missed turn
    assert outcome["winners"] == ["Cy"] and outcome["finished"] is True
    assert outcome["phases"] == 5
    cars = {c["name"]: c for c in outcome["cars"]}
    assert cars["Cy"] == {"name": "Cy", "driver": "cpu:pro", "status": "finished", "rank": 1, "moves": 4,
                          "laps_done": 1, "position": [10, 3], "velocity": [3, 0]}
    assert cars["Ada"]["status"] == cars["Bo"]["status"] == "retired"
    assert cars["Ada"]["rank"] is None
    assert cars["Bo"]["position"] == [3, 1] and cars["Bo"]["velocity"] == [0, 0]
    assert list(outcome) == ["track", "laps", "seed", "rules", "phases", "finished", "winners", "cars", "events"]
    # the options as outcomes were first named: the later ones (the handicap kind too) left out at their defaults
    assert outcome["rules"] == {"preset": "arcade", "options": preset("arcade").keyed_options()}
    assert "handicap" not in outcome["rules"]["options"] and outcome["rules"]["options"]["collision"] == "spin"
    table = outcome_table(outcome)
    assert "won by Cy" in table and table.splitlines()[2].split()[:2] == ["1", "Cy"]


def test_the_referee_keeps_every_state_and_record_for_watching_again():
    result = referee(arcade_race(), sprint())
    assert len(result.states) == 6 and len(result.records) == 5
    assert [s.phase for s in result.states] == [0, 1, 2, 3, 4, 5]
    assert [r.phase for r in result.records] == [1, 2, 3, 4, 5]
    assert result.states[1].cars[0].position == V(2, 2)
    assert result.records[0].collisions[0].cars == (0, 1)
    assert result.final is result.states[-1] and result.outcome.winners == (2,)


def test_a_choice_for_a_car_that_misses_its_turn_is_illegal_naming_phase_and_car():
    replay = arcade_race({(4, 1): V(3, 1)})
    with pytest.raises(IllegalReplayError) as caught:
        referee(replay, sprint())
    error = caught.value
    assert (error.phase, error.car, error.name) == (4, 1, "Bo")
    assert 'phase 4: car 2 "Bo" chose [3, 1], which is illegal: Bo misses this turn' in str(error)
    assert error.exit_status == 2 and isinstance(error, IllegalChoiceError)


def test_a_target_outside_the_nine_is_illegal():
    replay = arcade_race({(2, 2): V(9, 3)})
    with pytest.raises(IllegalReplayError, match='phase 2: car 3 "Cy" chose \\[9, 3\\], which is illegal: '
                                                 "not one of the car's targets"):
        referee(replay, sprint())


def test_leaving_out_a_car_that_could_move_is_illegal():
    replay = arcade_race({(2, 0): None})
    with pytest.raises(IllegalReplayError, match='phase 2: car 1 "Ada" chose nothing.*has legal targets'):
        referee(replay, sprint())


def test_a_target_off_the_paper_is_illegal_even_where_off_road_is_allowed():
    # Ada drives right, stops, then backs up to the left edge at speed 2: base point (0, 1).
    moves = [(2, 1), (4, 1), (5, 1), (5, 1), (4, 1), (2, 1), (-1, 1)]
    replay = Replay.from_race("sprint.map", 1, preset("paper"), 0, ["Ada"], [[V(*m)] for m in moves])
    with pytest.raises(IllegalReplayError, match='phase 7: car 1 "Ada" chose \\[-1, 1\\].*off the paper'):
        referee(replay, sprint())


def test_blocked_targets_under_karopapier_rules_are_illegal():
    # Fixed order: Ada (slot 0) moves first to (2, 2); Bo may then not land there.
    replay = Replay.from_race("sprint.map", 1, preset("karopapier"), 0, ["Ada", "Bo"], [[V(2, 2), V(2, 2)]])
    with pytest.raises(IllegalReplayError, match='car 2 "Bo".*blocked by Ada'):
        referee(replay, sprint())


def test_phases_after_the_race_is_over_are_refused():
    replay = arcade_race()
    longer = Replay.from_race(replay.track, replay.laps, replay.rules, replay.seed, replay.cars,
                              [*replay.phases, (None, None, None)])
    with pytest.raises(RefereeError, match="phases.6: the race was over after phase 5"):
        referee(longer, sprint())


def test_an_unfinished_race_is_refereed_as_far_as_it_goes():
    replay = Replay.from_race("sprint.map", 1, preset("arcade"), 0, CARS, arcade_race().phases[:2])
    outcome = outcome_json(replay, *_final_and_records(replay))
    assert outcome["finished"] is False and outcome["winners"] == []
    assert [c["status"] for c in outcome["cars"]] == ["racing"] * 3


def _final_and_records(replay, track=None):
    result = referee(replay, track or sprint())
    return result.final, result.records


def test_more_cars_than_start_slots_is_a_replay_error():
    replay = Replay.from_race("sprint.map", 1, preset("paper"), 0, [f"c{i}" for i in range(5)])
    with pytest.raises(ReplayError, match="4 start slots, not enough for 5 cars"):
        referee(replay, sprint())


def test_race_log_records_what_race_control_played():
    state = RaceState.start(sprint(), preset("paper"), ["Ada", "Bo"], seed=11)
    log = RaceLog.for_state("sprint.map", state, ["human", "cpu:pro"])
    state, record = state.apply({0: V(2, 1), 1: V(2, 2)})
    log.record(record)
    log.record({0: RETIRE, 1: V(3, 2)})
    replay = log.to_replay(title="t")
    assert replay.phases == ((V(2, 1), V(2, 2)), (RETIRE, V(3, 2)))
    assert replay.title == "t" and replay.seed == 11 and replay.cars[1].driver == "cpu:pro"
    with pytest.raises(ReplayError, match="expected the record of phase 3, got phase 1"):
        log.record(record)
    with pytest.raises(ReplayError, match="must start before phase 1"):
        RaceLog.for_state("sprint.map", state, ["human", "cpu:pro"])


race_params = st.fixed_dictionaries({
    "preset": st.sampled_from(PRESET_NAMES),
    "n_cars": st.integers(1, 4),
    "seed": st.integers(0, 10**9),
    "choices": st.randoms(use_true_random=False),
    "phases": st.integers(1, 30),
})


def random_phase(state, rng, retire_chance=0.0):
    """Apply one phase of random legal choices (each car sees the earlier picks in ordered modes).

    ``legal_targets`` cannot know where an earlier car that was stuck this phase will be
    set back to, so a pick ``apply`` refuses is replaced by another and the phase retried.
    """
    committed = {}
    for car in state.to_choose():
        legal = state.legal_targets(car, {} if state.rules.simultaneous else committed)
        if rng.random() < retire_chance:
            committed[car] = RETIRE
        elif legal:
            committed[car] = rng.choice(legal)
    refused = set()
    while True:
        try:
            return state.apply(committed)
        except IllegalChoiceError as error:
            refused.add((error.car, error.choice))
            others = [t for t in state.legal_targets(error.car) if (error.car, t) not in refused]
            if others:
                committed[error.car] = rng.choice(others)
            else:
                committed.pop(error.car, None)


def random_replay(p, track):
    rng = p["choices"]
    rules = preset(p["preset"])
    state = RaceState.start(track, rules, [f"car{i}" for i in range(p["n_cars"])], laps=1, seed=p["seed"])
    log = RaceLog.for_state("loop.map", state, ["cpu:rookie"] * p["n_cars"])
    while not state.over and state.phase < p["phases"]:
        state, record = random_phase(state, rng)
        log.record(record)
    return log.to_replay()


@settings(max_examples=40, deadline=None)
@given(race_params)
def test_a_replay_gives_the_same_outcome_however_often_it_is_refereed(params):
    replay = random_replay(params, loop())
    texts = {dumps_outcome(outcome_json(replay, *_final_and_records(replay, loop()))) for _ in range(3)}
    assert len(texts) == 1
    outcome = json.loads(texts.pop())
    assert outcome["phases"] == len(replay.phases)
    assert all(e["kind"] in EVENT_KINDS for e in outcome["events"])
    assert all(c["status"] in ("finished", "racing", "crashed", "disqualified", "retired") for c in outcome["cars"])
    assert set(outcome["winners"]) == {c["name"] for c in outcome["cars"] if c["rank"] == 1}
