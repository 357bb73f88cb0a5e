"""Hostile input: mutated real files and generated documents meet only the errors the readers document.

The mutation fuzzer is ``tools/fuzz_inputs.py`` (run it alone for the big table); here a
small fixed-seed share of it runs for every input class, plus hypothesis properties for the
bounded TOML and JSON readers and the pack, replay and game-log readers. A failure names
the input class, the seed file and the exception.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import fuzz_inputs  # noqa: E402

from game.files import DataError, parse_json, parse_toml  # noqa: E402
from game.race.replay import ReplayError, loads_replay  # noqa: E402
from game.tracks.karo_import import KaroImportError, read_game  # noqa: E402
from game.tracks.pack import read_pack_text  # noqa: E402

#: Mutations per input class in the suite (the tool's default is 1500).
PER_CLASS = {"pack": 120, "map": 120, "replay": 150, "game log": 40, "settings": 150, "file name": 40,
             "write target": 150, "huge size": 10, "number range": 80, "deep nesting": 80}


@pytest.mark.parametrize("kind", fuzz_inputs.KINDS)
def test_mutated_real_files_meet_only_documented_errors(kind):
    if not fuzz_inputs.seeds(kind):
        pytest.skip(f"no {kind} files to start from here")
    tally = fuzz_inputs.run([kind], PER_CLASS[kind], seed=2024, timeout=20)[kind]
    assert tally.tried == PER_CLASS[kind]
    assert tally.failed == 0, "\n".join(tally.failures)
    if kind == "file name":  # every hostile name must race and be read back: nothing is refused
        assert tally.outcomes["ok"] == tally.tried
    else:
        assert tally.outcomes["refused"] > 0  # the mutations do reach the checks


# -- generated documents -----------------------------------------------------------------------
brackets = st.text(st.sampled_from(list("[]{}=,.\"'#\n abc19")), max_size=300)


@settings(max_examples=150, deadline=None)
@given(st.one_of(brackets, st.text(max_size=200)))
def test_parse_toml_raises_only_a_located_data_error(text):
    try:
        parse_toml(text)
    except DataError as error:
        assert error.problem and (error.line is None or error.line >= 1)


@settings(max_examples=150, deadline=None)
@given(st.one_of(brackets, st.text(max_size=200), st.integers(1, 3000).map(lambda n: "[" * n + "]" * n)))
def test_parse_json_raises_only_a_located_data_error(text):
    try:
        parse_json(text)
    except DataError as error:
        assert error.problem


values = st.recursive(st.none() | st.booleans() | st.integers(-10**20, 10**20)
                      | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=8),
                      lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                                 max_size=4), max_leaves=12)
points = st.lists(st.tuples(st.floats(-50, 12000), st.floats(-50, 12000)).map(list), max_size=12)
track_tables = st.fixed_dictionaries({"id": st.sampled_from(["a", "b", "x y"]), "name": st.just("T")}, optional={
    "laps": values, "cars": values, "rules": st.sampled_from(["paper", "bogus"]), "forward": values,
    "map": st.one_of(st.text(st.sampled_from(list("XOSF12P\n")), max_size=200), values),
    "outline": st.fixed_dictionaries({}, optional={"outer": points, "islands": st.lists(points, max_size=2),
                                                   "finish": st.lists(st.lists(st.floats(-5, 60), max_size=2),
                                                                      max_size=2),
                                                   "forward": st.sampled_from(["right", "up", "diagonal"]),
                                                   "start": values, "start_line": values, "slots": values})})


def _toml(doc) -> str | None:
    import tomli_w

    try:
        return tomli_w.dumps(doc, multiline_strings=True)
    except (TypeError, ValueError):
        return None


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(track_tables, max_size=3))
def test_any_pack_document_gives_located_problems_never_an_exception(tracks):
    text = _toml({"format": 1, "pack": {"id": "p", "name": "P"}, "track": tracks})
    if text is None:
        return
    result = read_pack_text(text, file="gen.toml")
    assert all(str(p).startswith("gen.toml") for p in result.problems)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(["format", "track", "laps", "seed", "rules", "car", "phases", "orders",
                                        "title"]), values, max_size=9))
def test_any_replay_document_is_a_replay_or_a_replay_error(doc):
    text = _toml(doc)
    if text is None:
        return
    try:
        loads_replay(text, file="gen.toml")
    except ReplayError as error:
        assert str(error).startswith("gen.toml")


moves = st.lists(st.dictionaries(st.sampled_from(["x", "y", "c", "t", "msg"]), values, max_size=5), max_size=4)
players = st.lists(st.fixed_dictionaries({"moves": moves}, optional={"name": values, "status": values,
                                                                     "position": values}), max_size=3)


@settings(max_examples=100, deadline=None)
@given(st.fixed_dictionaries({"players": st.one_of(players, values)},
                             optional={"game": st.one_of(st.dictionaries(st.sampled_from(
                                 ["id", "map", "zzz", "cps", "finished", "name"]), values), values),
                                       "map": values}))
def test_any_game_log_is_read_or_refused_naming_the_file(tmp_path_factory, log):
    path = tmp_path_factory.mktemp("log") / "g.json"
    path.write_text(json.dumps(log, allow_nan=True), encoding="utf-8")
    try:
        read_game(path)
    except KaroImportError as error:
        assert str(error).startswith(str(path))


def test_the_fuzzer_counts_an_undocumented_exception_as_a_failure(monkeypatch):
    """A reader raising something it does not document is counted, not hidden: the check can fail."""
    def broken(self, text, seed):
        raise KeyError("a bug")

    monkeypatch.setattr(fuzz_inputs.Checks, "map", broken)
    tally = fuzz_inputs.run(["map"], 5, seed=1, timeout=5)["map"]
    assert tally.failed == 5 and tally.outcomes["failure: KeyError"] == 5


def test_the_write_check_catches_a_writer_that_loses_a_users_bytes(monkeypatch):
    """A --force that kept no copy would lose the user's file: the write-target class counts it."""
    import game.files

    monkeypatch.setattr(game.files, "keep_aside", lambda path, *a, **k: Path(path))
    tally = fuzz_inputs.run(["write target"], 60, seed=3, timeout=5)["write target"]
    assert tally.failed > 0 and "failure: a problem without a message" in tally.outcomes


def test_the_map_check_catches_import_reading_a_map_unlike_the_game(monkeypatch):
    """Were import to read line ends its own way again, the map class would count it."""
    import game.tracks.karo_import as karo

    real = karo.parse_map
    monkeypatch.setattr(karo, "parse_map", lambda text, **k: real(text.replace("\r", "X"), **k))
    tally = fuzz_inputs.run(["map"], 80, seed=4, timeout=5)["map"]
    assert tally.failed > 0


def test_the_huge_size_check_catches_a_reader_that_stops_bounding_names(monkeypatch, tmp_path):
    """Were the pack reader to keep a name of megabytes, the huge-size class's check would fail on it."""
    import tomllib

    import game.tracks.pack as pack

    seed = fuzz_inputs.TESTS / "golden" / "pack.toml"
    doc = tomllib.loads(seed.read_text(encoding="utf-8"))
    doc["pack"]["name"] = "Long " * 200_000
    text = fuzz_inputs.dump_toml(doc)
    checks = fuzz_inputs.Checks(tmp_path)
    assert checks.huge_size(text, seed) == "ok"  # kept, cut to what a screen shows, with a warning
    monkeypatch.setattr(pack, "kept_clean", lambda value, kind, warn: value)
    with pytest.raises(AssertionError, match="at most 40"):
        checks.huge_size(text, seed)


def test_the_bounds_classes_push_each_bound_of_a_real_file():
    """Each bounds class changes what it says it does: long texts and lists, edge numbers, deep values."""
    import random
    import tomllib

    from game.files import data_depth

    seed = fuzz_inputs.TESTS / "golden" / "pack.toml"
    doc = tomllib.loads(seed.read_text(encoding="utf-8"))
    rng = random.Random(0)
    longest = [max(len(v) for _, v in fuzz_inputs._paths(fuzz_inputs.huge(doc, rng), 4) if isinstance(v, (str, list)))
               for _ in range(8)]
    assert max(longest) >= 100_000  # a text of megabytes or a list of many thousand items
    numbers = [v for _ in range(100) for _, v in fuzz_inputs._paths(fuzz_inputs.edge_numbers(doc, rng), 40)
               if isinstance(v, (int, float)) and not isinstance(v, bool)]
    assert any(v != v for v in numbers) and any(isinstance(v, int) and v >= 2 ** 63 for v in numbers)
    depths = {data_depth(fuzz_inputs.deep(doc, rng)) for _ in range(20)}
    assert min(depths) < 32 < max(depths)
