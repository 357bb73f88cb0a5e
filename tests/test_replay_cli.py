"""`racetrack replay FILE [--json]`: exit 0 with the outcome, 1 for a bad file or track, 2 for an illegal move."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from game.cli import main
from game.core.rules import RuleSet

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture
def folder(tmp_path):
    """A copy of the golden folder, so replays can be edited and moved with their pack."""
    target = tmp_path / "races"
    shutil.copytree(GOLDEN, target)
    return target


def run(capsys, *argv):
    status = main(["replay", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def test_replay_prints_a_table_with_the_winner(capsys, folder):
    status, out, err = run(capsys, folder / "arcade-sprint.replay.toml")
    assert status == 0 and err == ""
    assert "won by Cy" in out and "arcade rules" in out
    assert out.splitlines()[2].split()[:3] == ["1", "Cy", "cpu:pro"]


def test_replay_json_is_the_pinned_outcome(capsys, folder):
    status, out, err = run(capsys, folder / "phases-sprint-tie.replay.toml", "--json")
    assert status == 0
    printed, pinned = json.loads(out), json.loads((GOLDEN / "phases-sprint-tie.outcome.json").read_text(encoding="utf-8"))
    for key in set(printed["rules"]["options"]) - set(pinned["rules"]["options"]):  # options added since, at default
        assert printed["rules"]["options"].pop(key) == RuleSet().options()[key]
    assert printed == pinned
    assert printed["winners"] == ["Ada", "Bo"]


def test_relative_track_paths_follow_the_replay_not_the_working_folder(capsys, folder, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # the pack is in races/, not here
    status, out, _ = run(capsys, Path("races") / "karopapier-ring.replay.toml", "--json")
    assert status == 0 and json.loads(out)["track"] == "ring.map"


def test_an_illegal_move_exits_2_naming_phase_and_car(capsys, folder):
    path = folder / "arcade-sprint.replay.toml"
    text = path.read_text()
    assert '4 = [[8, 2], "-", [10, 3]]' in text
    path.write_text(text.replace('4 = [[8, 2], "-", [10, 3]]', '4 = [[8, 2], [4, 1], [10, 3]]'))
    status, out, err = run(capsys, path)
    assert status == 2 and out == ""
    assert str(path) in err
    assert 'phase 4: car 2 "Bo" chose [4, 1], which is illegal: Bo misses this turn' in err
    assert "Traceback" not in err


def test_a_corrupt_replay_exits_1_naming_file_line_and_key(capsys, folder):
    path = folder / "arcade-sprint.replay.toml"
    path.write_text(path.read_text().replace("laps = 1", "laps = 0"))
    status, out, err = run(capsys, path)
    assert status == 1
    assert f"{path}:4: laps: must be a whole number from 1 to 99" in err


def test_broken_toml_exits_1_with_the_line(capsys, folder):
    path = folder / "arcade-sprint.replay.toml"
    path.write_text(path.read_text().replace("[phases]", "[phases"))
    status, _, err = run(capsys, path)
    assert status == 1 and f"{path}:" in err and "not valid TOML" in err


def test_an_unknown_track_exits_1_naming_the_replay_and_the_track(capsys, folder):
    path = folder / "arcade-sprint.replay.toml"
    path.write_text(path.read_text().replace("pack.toml#sprint", "pack.toml#hairpin"))
    status, _, err = run(capsys, path)
    assert status == 1
    assert f"{path}: track: cannot load the track 'pack.toml#hairpin'" in err and "hairpin" in err


def test_a_missing_pack_exits_1(capsys, folder):
    path = folder / "arcade-sprint.replay.toml"
    (folder / "pack.toml").unlink()
    status, _, err = run(capsys, path)
    assert status == 1 and "cannot load the track" in err


def test_a_missing_replay_file_exits_1(capsys, tmp_path):
    status, _, err = run(capsys, tmp_path / "nope.toml")
    assert status == 1 and "nope.toml: cannot read the replay" in err


def test_more_cars_than_the_track_holds_exits_1(capsys, folder):
    path = folder / "arcade-sprint.replay.toml"
    text = path.read_text().replace('track = "pack.toml#sprint"', 'track = "ring.map"')  # 3 start slots
    text = text.replace("# One line per phase", '[[car]]\nname = "Dee"\ndriver = "human"\n\n# One line per phase')
    lines = [line[:-1] + ', "-"]' if line[:1].isdigit() else line for line in text.splitlines()]
    path.write_text("\n".join(lines) + "\n")
    status, _, err = run(capsys, path)
    assert status == 1 and "3 start slots, not enough for 4 cars" in err and str(path) in err
