"""Replay files: what a player saves is what a player (or modder) loads, and bad files say where they are bad."""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core import RETIRE, IllegalChoiceError, RaceState, Vec, preset
from game.core.rules import PRESET_NAMES
from game.race.replay import (
    CarEntry,
    Replay,
    ReplayError,
    dumps_replay,
    load_replay,
    loads_replay,
    resolve_track_ref,
    save_replay,
)
from game.race.referee import IllegalReplayError, RaceLog, referee
from game.tracks.charmap import track_from_charmap

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

SPRINT = """
XXXXXXXXXXXX
XSOOOOOOOFOX
XSOOOOOOOFOX
XSOOOOOOOFOX
XSOOOOOOOFOX
XXXXXXXXXXXX
"""


@functools.cache
def small_tracks():
    return (track_from_charmap(LOOP, id="loop"), track_from_charmap(SPRINT, id="sprint", forward="right"))


def random_phase(state, rng, retire_chance=0.0, order=None):
    """Apply one phase of random legal choices (each car sees the earlier picks in ordered modes).

    ``order`` is an explicit choosing order for the phase (None: the rules' own).
    ``legal_targets`` cannot know where an earlier car that was stuck this phase will be
    set back to, so a pick ``apply`` refuses is replaced by another and the phase retried.
    """
    committed = {}
    choosing = set(state.to_choose())
    for car in (state.to_choose() if order is None else [i for i in order if i in choosing]):
        legal = state.legal_targets(car, {} if state.rules.simultaneous else committed, order=order)
        if rng.random() < retire_chance:
            committed[car] = RETIRE
        elif legal:
            committed[car] = rng.choice(legal)
    refused = set()
    while True:
        try:
            return state.apply(committed, order=order)
        except IllegalChoiceError as error:
            refused.add((error.car, error.choice))
            others = [t for t in state.legal_targets(error.car, order=order) if (error.car, t) not in refused]
            if others:
                committed[error.car] = rng.choice(others)
            else:
                committed.pop(error.car, None)


def random_race(track, rules, n_cars, laps, seed, rng, max_phases, retire_chance=0.03,
                explicit_orders=0.0):
    """A race of random legal choices, recorded with RaceLog; returns (replay, states, records).

    ``rng`` makes every choice (hypothesis' ``randoms()`` in the property tests, so a failing
    race shrinks). Each phase is played in a random explicit choosing order with chance
    ``explicit_orders``.
    """
    state = RaceState.start(track, rules, [f"car{i}" for i in range(n_cars)], laps=laps, seed=seed)
    kinds = [rng.choice(["human", "cpu:champion", "cpu:pro", "cpu:rookie"]) for _ in range(n_cars)]
    log = RaceLog.for_state(f"pack.toml#{track.id}", state, kinds)
    states, records = [state], []
    while not state.over and state.phase < max_phases:
        order = None
        if rng.random() < explicit_orders:
            order = list(range(n_cars))
            rng.shuffle(order)
        state, record = random_phase(state, rng, retire_chance, order)
        log.record(record, order=order)
        states.append(state)
        records.append(record)
    return log.to_replay(title="random race", date="2024-05-01", app_version="0.1.0"), states, records


race_params = st.fixed_dictionaries({
    "track": st.integers(0, 1),
    "preset": st.sampled_from(PRESET_NAMES),
    "n_cars": st.integers(1, 4),
    "laps": st.integers(1, 2),
    "seed": st.integers(-2**63, 2**63 - 1),
    "choices": st.randoms(use_true_random=False),
    "max_phases": st.integers(0, 25),
    "explicit_orders": st.sampled_from([0.0, 0.5, 1.0]),
})


def make_race(p):
    track = small_tracks()[p["track"]]
    laps = p["laps"] if track.is_circuit else 1  # a sprint is raced over one lap
    return random_race(track, preset(p["preset"]), p["n_cars"], laps, p["seed"],
                       p["choices"], p["max_phases"], explicit_orders=p["explicit_orders"])


@settings(max_examples=60, deadline=None)
@given(race_params)
def test_a_saved_random_legal_race_loads_back_as_the_identical_race(params):
    replay, states, records = make_race(params)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "race.toml"
        save_replay(replay, path)
        loaded = load_replay(path)
        assert os.listdir(folder) == ["race.toml"]  # no temporary file left behind
    assert loaded == replay
    assert loaded.source == str(path)
    assert all(loaded.order(k) in (None, r.order) for k, r in enumerate(records, start=1))
    if params["explicit_orders"] == 1.0:
        assert all(loaded.order(k) is not None for k in range(1, len(records) + 1))
    again = referee(loaded, small_tracks()[params["track"]])
    assert again.states == tuple(states)
    assert again.records == tuple(records)


def test_a_phase_played_in_an_explicit_order_is_written_with_car_numbers_from_1():
    track = small_tracks()[1]
    rules = preset("karopapier")
    state = RaceState.start(track, rules, ["Ada", "Bo", "Cy"], seed=0)
    log = RaceLog.for_state("sprint.map", state, ["human"] * 3)
    # Grid order would let Ada (car 1) take (2, 2) first; played Bo first, Bo takes it.
    state, first = state.apply({1: Vec(2, 2), 0: Vec(2, 1), 2: Vec(2, 3)}, order=[1, 2, 0])
    log.record(first, order=[1, 2, 0])
    state, record = state.apply({0: Vec(3, 1), 1: Vec(3, 2), 2: Vec(3, 3)})
    log.record(record)
    replay = log.to_replay()
    assert replay.orders == ((1, 2, 0), None)
    text = dumps_replay(replay)
    assert text.endswith("[orders]\n1 = [2, 3, 1]\n")
    loaded = loads_replay(text)
    assert loaded == replay and loaded.order(1) == (1, 2, 0) and loaded.order(2) is None
    assert referee(loaded, track).records[0].order == (1, 2, 0)
    with pytest.raises(ReplayError, match=r"orders\.1: phase 1 was played in the order \[1, 2, 0\], not \[2, 1, 0\]"):
        RaceLog.for_state("sprint.map", RaceState.start(track, rules, ["Ada", "Bo", "Cy"]), ["human"] * 3)\
            .record(first, order=[2, 1, 0])


def test_without_its_recorded_order_a_phase_can_become_illegal():
    track = small_tracks()[1]
    rules = preset("karopapier", {"blockers": "all"})  # as Karopapier before game 75000 (game 44773)
    # Ada (car 1) stands on (1, 1) and drives to (2, 1); Bo stands on (1, 2) and takes Ada's node.
    # Ada first, the node is free when Bo lands; Bo first, Ada still stands on it: blocked.
    phases = [[Vec(2, 1), Vec(1, 1)]]
    replay = Replay.from_race("sprint.map", 1, rules, 0, ["Ada", "Bo"], phases, orders=[(0, 1)])
    assert referee(replay, track).final.cars[1].position == Vec(1, 1)
    swapped = Replay.from_race("sprint.map", 1, rules, 0, ["Ada", "Bo"], phases, orders={1: (1, 0)})
    with pytest.raises(IllegalReplayError, match=r'phase 1: car 2 "Bo" chose \[1, 1\].*blocked by Ada'):
        referee(swapped, track)


def test_car_names_must_differ_so_winners_are_unambiguous():
    with pytest.raises(ReplayError, match="car 2: name: 'Ada' is already car 1's name"):
        Replay.from_race("a/b", 1, preset("paper"), 0, ["Ada", "Ada"])
    state = RaceState.start(small_tracks()[1], preset("paper"), ["Ada", "Ada"])
    with pytest.raises(ReplayError, match="names must differ"):
        RaceLog.for_state("sprint.map", state, ["human", "cpu:pro"])


def test_orders_that_are_not_permutations_are_refused_when_building():
    rules = preset("paper")
    with pytest.raises(ReplayError, match=r"orders\.1: must list every car number from 1 to 2 once"):
        Replay.from_race("a/b", 1, rules, 0, ["A", "B"], [[None, None]], orders=[(0, 0)])
    with pytest.raises(ReplayError, match=r"orders: an order for phase 2, but the phases are numbered 1 to 1"):
        Replay.from_race("a/b", 1, rules, 0, ["A", "B"], [[None, None]], orders={2: (0, 1)})
    with pytest.raises(ReplayError, match=r"orders\.2: an order for phase 2, but the replay has 1 phases"):
        Replay.from_race("a/b", 1, rules, 0, ["A", "B"], [[None, None]], orders=[None, (1, 0)])
    assert Replay.from_race("a/b", 1, rules, 0, ["A"], [[None]], orders=[None]).orders == ()


def test_a_replay_file_reads_like_the_race_one_line_per_phase():
    track = small_tracks()[1]
    rules = preset("paper", {"collision": "spin"})
    replay = Replay.from_race("../packs/test.toml#sprint", 1, rules, 7, [("Ada", "human"), ("Bo", "cpu:pro")],
                              [{0: Vec(2, 1), 1: Vec(2, 2)}, {0: Vec(4, 1), 1: RETIRE}, {0: Vec(6, 1)}],
                              title="Ada's first win")
    text = dumps_replay(replay)
    assert 'preset = "paper"\ncollision = "spin"\n' in text  # only the overrides, under the preset
    assert "1 = [[2, 1], [2, 2]]\n" in text
    assert '2 = [[4, 1], "retire"]\n' in text
    assert '3 = [[6, 1], "-"]\n' in text
    assert 'title = "Ada\'s first win"' in text
    assert loads_replay(text) == replay
    assert referee(replay, track).final.cars[1].status == "retired"


def test_a_hand_edited_replay_with_comments_and_reordered_tables_loads():
    text = """
# my race
[[car]]
name = "Ada"   # me
driver = "human"

[phases]
2 = [[3, 1]]
1 = [[2, 1]]

[rules]
preset = "karopapier"
setback_moves = 3
"""
    top = 'format = 1\ntrack = "sprint.map"\nlaps = 2\nseed = -5\n'
    replay = loads_replay(top + text)
    assert replay.rules == preset("karopapier", {"setback_moves": 3})
    assert replay.phases == ((Vec(2, 1),), (Vec(3, 1),))
    assert replay.cars == (CarEntry("Ada", "human"),)
    assert (replay.laps, replay.seed, replay.track) == (2, -5, "sprint.map")


def test_relative_track_paths_resolve_against_the_replay_folder_but_builtin_refs_do_not():
    folder = Path("/races/saved")
    assert resolve_track_ref("pack.toml#loop", folder) == str(folder / "pack.toml") + "#loop"
    assert resolve_track_ref("../maps/43.map", folder) == str(folder / "../maps/43.map")
    assert resolve_track_ref("/abs/pack.toml#loop", folder) == "/abs/pack.toml#loop"
    assert resolve_track_ref("classics/oval", folder) == "classics/oval"


def test_saving_into_a_missing_folder_names_the_file(tmp_path):
    replay = Replay.from_race("a/b", 1, preset("paper"), 0, ["Ada"])
    target = tmp_path / "nowhere" / "race.toml"
    with pytest.raises(ReplayError, match="race.toml: cannot write"):
        save_replay(replay, target)


def test_saving_over_an_old_replay_replaces_it_whole(tmp_path):
    path = tmp_path / "race.toml"
    old = Replay.from_race("a/b", 1, preset("paper"), 0, ["Ada"], title="old, and longer than the new one " * 5)
    save_replay(old, path)
    replay = Replay.from_race("a/b", 1, preset("paper"), 0, ["Ada"])
    save_replay(replay, path)
    assert load_replay(path) == replay
    assert sorted(os.listdir(tmp_path)) == ["race.toml"]


def test_a_replay_is_never_saved_over_a_file_racetrack_did_not_write(tmp_path):
    path = tmp_path / "notes.toml"
    path.write_text("my own notes\n")
    replay = Replay.from_race("a/b", 1, preset("paper"), 0, ["Ada"])
    with pytest.raises(ReplayError, match="notes.toml already exists and was not written by Racetrack"):
        save_replay(replay, path)
    assert path.read_text() == "my own notes\n"
    save_replay(replay, path, force=True)
    assert load_replay(path) == replay


def test_building_a_replay_from_impossible_data_is_refused():
    rules = preset("paper")
    with pytest.raises(ReplayError, match="cars are numbered 0 to 1"):
        Replay.from_race("a/b", 1, rules, 0, ["A", "B"], [{2: Vec(1, 1)}])
    with pytest.raises(ReplayError, match="laps"):
        Replay.from_race("a/b", 0, rules, 0, ["A"])
    with pytest.raises(ReplayError, match="is not a choice"):
        Replay.from_race("a/b", 1, rules, 0, ["A"], [[(1, 2)]])
    with pytest.raises(ReplayError, match="1 choices for 2 cars"):
        Replay.from_race("a/b", 1, rules, 0, ["A", "B"], [[Vec(1, 2)]])
    with pytest.raises(ReplayError, match="unknown rule preset 'custom'"):
        Replay.from_race("a/b", 1, preset("paper").__class__(name="custom"), 0, ["A"])


# -- malformed files: a located ReplayError, never another exception -------------------------
GOOD = """format = 1
track = "pack.toml#loop"
laps = 1
seed = 3

[rules]
preset = "arcade"
collision = "ignore"

[[car]]
name = "Ada"
driver = "human"

[[car]]
name = "Bo"
driver = "cpu:pro"

[phases]
1 = [[9, 4], [8, 5]]
2 = ["-", "retire"]

[orders]
2 = [2, 1]
"""


def edit(old, new):
    assert old in GOOD
    return GOOD.replace(old, new)


@pytest.mark.parametrize("text, where, words", [
    (edit("laps = 1", "laps = -1"), "race.toml:3: laps:", "from 1 to 99"),
    (edit("laps = 1", 'laps = "1"'), "race.toml:3: laps:", "whole number"),
    (edit("format = 1", "format = 5"), "race.toml:1: format:", "newer"),
    (edit('preset = "arcade"', 'preset = "rally"'), "race.toml:7: rules.preset:", "unknown rule preset 'rally'"),
    (edit('collision = "ignore"', 'collision = "bounce"'), "race.toml:8: rules.collision:", "'spin'"),
    (edit('collision = "ignore"', 'colision = "spin"'), "race.toml:8: rules.colision:", "unknown rule option"),
    (edit('collision = "ignore"', "collision = [1]"), "race.toml:8: rules.collision:", "cannot be [1]"),
    (edit('collision = "ignore"', "setback_moves = 0"), "race.toml:8: rules.setback_moves:", "1 to 99"),
    (edit('1 = [[9, 4], [8, 5]]', '1 = [[9, 4]]'), "race.toml:19: phases.1:", "1 choices for 2 cars"),
    (edit('2 = ["-", "retire"]', '2 = ["-", "quit"]'), "race.toml:20: phases.2:", "car 2 ('Bo'): 'quit'"),
    (edit('2 = ["-", "retire"]', '2 = ["-", [1.5, 2]]'), "race.toml:20: phases.2:", "is not a choice"),
    (edit('2 = ["-", "retire"]', '3 = ["-", "-"]'), "race.toml:18: phases.2:", "without gaps"),
    (edit('2 = ["-", "retire"]', 'x = ["-", "-"]'), "race.toml:20: phases.x:", "phase numbers"),
    (edit('name = "Bo"', 'name = ""'), "race.toml:15: car 2: name:", "non-empty"),
    (edit('name = "Bo"\n', ''), "race.toml:14: car 2: name:", "missing"),
    (edit('driver = "human"', 'driver = "human"\ncolour = "red"'), "race.toml:13: car 1: colour:", "unknown key"),
    (edit('seed = 3', 'seed = 3.5'), "race.toml:4: seed:", "whole number"),
    (edit('seed = 3\n', ''), "race.toml: seed:", "missing"),
    (edit('track = "pack.toml#loop"', 'track = ""'), "race.toml:2: track:", "non-empty"),
    (edit('laps = 1', 'laps = 1\nlap = 2'), "race.toml:4: lap:", "unknown key"),
    (edit('[phases]', '[phases]\n1 = 2'), "race.toml:", "not valid TOML"),
    (edit('laps = 1', 'laps = [1,'), "race.toml:", "not valid TOML"),
    (GOOD.split("\n[[car]]")[0].replace("seed = 3", "seed = 3\ncar = []"), "race.toml:", "1 to 64 [[car]]"),
    (edit('name = "Bo"', 'name = "Ada"'), "race.toml:15: car 2: name:", "'Ada' is already car 1's name"),
    (edit("2 = [2, 1]", "2 = [1, 1]"), "race.toml:23: orders.2:", "every car number from 1 to 2 once"),
    (edit("2 = [2, 1]", "2 = [0, 1]"), "race.toml:23: orders.2:", "every car number from 1 to 2 once"),
    (edit("2 = [2, 1]", "2 = [1]"), "race.toml:23: orders.2:", "every car number from 1 to 2 once"),
    (edit("2 = [2, 1]", '2 = ["Ada", "Bo"]'), "race.toml:23: orders.2:", "every car number"),
    (edit("2 = [2, 1]", "3 = [2, 1]"), "race.toml:23: orders.3:", "but the replay has 2 phases"),
    (edit("2 = [2, 1]", "first = [2, 1]"), "race.toml:23: orders.first:", "phase numbers"),
    (edit("[orders]\n2 = [2, 1]", "").replace("seed = 3", "seed = 3\norders = 5"), "race.toml:5: orders:",
     "must be a table"),
])
def test_a_broken_replay_names_file_line_and_key(tmp_path, text, where, words):
    path = tmp_path / "race.toml"
    path.write_text(text)
    with pytest.raises(ReplayError) as caught:
        load_replay(path)
    message = str(caught.value)
    assert message.startswith(str(tmp_path / where)), message
    assert words in message


def test_the_good_example_itself_loads(tmp_path):
    path = tmp_path / "race.toml"
    path.write_text(GOOD)
    replay = load_replay(path)
    assert replay.phases == ((Vec(9, 4), Vec(8, 5)), (None, RETIRE))
    assert replay.orders == (None, (1, 0))


def test_toml_syntax_errors_give_the_line():
    with pytest.raises(ReplayError) as caught:
        loads_replay(edit("laps = 1", "laps = = 1"), file="r.toml")
    assert caught.value.line == 3 and str(caught.value).startswith("r.toml:3: not valid TOML")


def test_unreadable_and_non_utf8_files_are_replay_errors(tmp_path):
    with pytest.raises(ReplayError, match="missing.toml: cannot read"):
        load_replay(tmp_path / "missing.toml")
    path = tmp_path / "latin1.toml"
    path.write_bytes(GOOD.replace("Bo", "B\xf6").encode("latin-1"))
    with pytest.raises(ReplayError, match="latin1.toml: not UTF-8"):
        load_replay(path)


def assert_loads_or_replay_error(text):
    try:
        loads_replay(text, file="fuzz.toml")
    except ReplayError as error:
        assert str(error).startswith("fuzz.toml")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_a_replay_or_a_replay_error(text):
    assert_loads_or_replay_error(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.sampled_from(["delete", "duplicate", "cut", "swap"]),
                          st.integers(0, 40)), min_size=1, max_size=4))
def test_a_damaged_replay_gives_a_replay_or_a_replay_error(damage):
    lines = GOOD.splitlines()
    for index, how, where in damage:
        if not lines:
            break
        index %= len(lines)
        if how == "delete":
            del lines[index]
        elif how == "duplicate":
            lines.insert(index, lines[index])
        elif how == "cut":
            lines[index] = lines[index][:where]
        else:
            j = where % len(lines)
            lines[index], lines[j] = lines[j], lines[index]
    assert_loads_or_replay_error("\n".join(lines))


toml_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.floats(allow_nan=False) | st.text(max_size=8)
    | st.sampled_from(["-", "retire", "paper", "arcade", "spin", "human"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8)


def _drop_none(value):
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value if v is not None]
    return value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["format", "track", "laps", "seed", "rules", "car", "phases", "title", "extra",
                        "rules.preset", "rules.collision", "rules.setback_moves", "car.0", "car.1.name",
                        "car.0.driver", "phases.1", "phases.2", "phases.1.0", "phases.3", "orders",
                        "orders.1", "orders.2", "orders.2.0"]),
       toml_values)
def test_wrong_types_anywhere_give_a_replay_or_a_replay_error(key, value):
    import tomllib
    doc = tomllib.loads(GOOD)
    *parents, last = key.split(".")
    target = doc
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    if isinstance(target, list):
        index = int(last)
        if value is None:
            del target[index]
        else:
            target[index] = value
    elif value is None:
        target.pop(last, None)
    else:
        target[last] = value
    assert_loads_or_replay_error(tomli_w.dumps(_drop_none(doc)))


SAND = """
XXXXXXXXXXXXX
XSOOYYYOOOOFX
XOOOOOOOOOOFX
XXXXXXXXXXXXX
"""


def test_a_format_1_replay_plays_as_recorded_when_terrain_was_off_road():
    """Format 1 was written before sand had rules of its own: Ada drove into the sand, crashed
    and was put back on the road at rest. Read as format 1, her race plays as she drove it;
    the same moves under terrain effects (where sand only slows) are not a race at all."""
    track = track_from_charmap(SAND, id="sand")
    rules = preset("paper").with_options(terrain="offroad")
    state = RaceState.start(track, rules, ["Ada"])
    log = RaceLog.for_state("sand.map", state, [("Ada", "human")])
    for target in (Vec(2, 1), Vec(4, 1), Vec(3, 2)):  # the second move ends in the sand
        state, record = state.apply({0: target})
        log.record(record)
    assert "off_track" in [e.kind for e in referee(log.to_replay(), track).records[1].events]
    text = dumps_replay(log.to_replay())
    assert text.count("format = 4") == 1 and 'terrain = "offroad"' in text
    old = text.replace("format = 4", "format = 1").replace('terrain = "offroad"\n', "")
    replay = loads_replay(old, "old.toml")
    assert replay.rules.terrain == "offroad"
    assert referee(replay, track).final.cars[0].position == Vec(3, 2)
    assert 'terrain = "offroad"' in dumps_replay(replay)  # saved again, it says so itself
    with pytest.raises(IllegalReplayError) as caught:
        referee(loads_replay(old.replace("format = 1", "format = 2"), "new.toml"), track)
    assert caught.value.phase == 3


@pytest.mark.parametrize("ref", ["pack.toml#sprint" * 300, "x" * 5000 + "/sprint", "a\x00b.toml#t"])
def test_a_track_reference_the_file_system_cannot_name_is_a_short_located_error(tmp_path, ref):
    """A name too long for the file system (or with a NUL) is a replay error at its track key, not an OSError."""
    from game import paths
    from game.race.replay import Replay, load_replay, load_replay_track, save_replay

    path = tmp_path / "long.replay.toml"
    save_replay(Replay.from_race("pack.toml#sprint", 1, preset("paper"), 0, [("A", "human")]), path)
    text = path.read_text(encoding="utf-8").replace('"pack.toml#sprint"', tomli_w.dumps({"v": ref})[4:].strip(), 1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReplayError) as caught:
        load_replay_track(load_replay(path), paths.builtin_tracks_dir())
    message = str(caught.value)
    assert "track" in message and "long.replay.toml" in message
    assert len(message.splitlines()[0]) < 300  # the reference is shortened in the message
