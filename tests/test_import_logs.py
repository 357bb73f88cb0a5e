"""`racetrack import` with real logs in every form Karopapier served them, damaged logs, and the files
around them: located errors naming the log and the key, complete rounds of a game saved mid-round,
and never a file replaced that Racetrack did not write."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from game.cli import main
from game.commands.import_map import import_game
from game.tracks.karo_import import KaroImportError, read_game


def _karo_dir() -> Path | None:
    here = Path(__file__).resolve().parent.parent
    for option in (here.parent / "shared" / "karopapier", Path("/work/shared/karopapier")):
        if (option / "games" / "44773.details.json").is_file():
            return option
    return None


KARO = _karo_dir()
pytestmark = pytest.mark.skipif(KARO is None, reason="the Karopapier test data (../shared/karopapier) is absent")


@pytest.fixture(scope="module")
def log() -> dict:
    return json.loads((KARO / "games" / "44773.details.json").read_text(encoding="utf-8"))


@pytest.fixture
def karo(tmp_path) -> Path:
    """A copy of the Karopapier folder layout: games/44773.details.json and maps/43.map."""
    (tmp_path / "games").mkdir()
    (tmp_path / "maps").mkdir()
    shutil.copy(KARO / "games" / "44773.details.json", tmp_path / "games")
    shutil.copy(KARO / "maps" / "43.map", tmp_path / "maps")
    return tmp_path


def _write(folder: Path, data: dict, name: str = "44773.details.json") -> Path:
    path = folder / "games" / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _without_mapcode(data: dict) -> dict:
    data = copy.deepcopy(data)
    data["map"]["mapcode"] = ""  # as game APIs often cut it: the map comes from ../maps
    return data


# -- the forms Karopapier served ------------------------------------------------------------
def _as_2012_api(data: dict) -> dict:
    """The log as the 2012 API served it: numbers as strings, "c" on every move, older setting keys."""
    old = copy.deepcopy(data)
    for key in ("withCheckpoints", "crashallowed", "startdirection"):
        old["game"].pop(key)
    old["game"]["id"] = str(old["game"]["id"])
    old["game"]["map"] = str(old["game"]["map"])
    old["game"]["zzz"] = str(old["game"]["zzz"])
    for player in old["players"]:
        player["position"] = str(player["position"])
        for move in player["moves"]:
            for key in ("x", "y", "xv", "yv"):
                move[key] = str(move[key])
            move["c"] = bool(move.get("c", False))
    return old


def test_the_2012_api_form_imports_and_referees_exactly_like_todays(karo, log, tmp_path, capsys):
    path = _write(karo, _as_2012_api(log), "2012.details.json")
    game = read_game(path)
    assert game.id == 44773 and game.checkpoints and game.setback == 2 and game.crash_allowed == "forbidden"
    assert sum(m.crash for p in game.players for m in p.moves) == 6
    out = tmp_path / "out" / "old.toml"
    assert main(["import", str(path), "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert "every move legal, every crash and finish as recorded" in said
    assert "finish order Baertman, Yashem, Madeleine, Didi, pacman" in said


def _mid_round(data: dict, rounds: int, ahead: tuple[str, ...]) -> dict:
    """The game as saved after ``rounds`` rounds, with the players in ``ahead`` one move further."""
    cut = copy.deepcopy(data)
    cut["game"]["finished"] = False
    for player in cut["players"]:
        if len(player["moves"]) <= rounds + 1:  # finished (or gone) by then: as in the whole log
            continue
        player["position"] = 0
        player["status"] = "ok"
        player["moves"] = player["moves"][:rounds + 1 + (player["name"] in ahead)]
    return cut


def test_a_game_saved_in_the_middle_of_a_round_imports_its_complete_rounds(karo, log, capsys):
    path = _write(karo, _mid_round(log, 60, ("Didi", "Yashem")), "mid.details.json")
    out = karo / "mid.replay.toml"
    assert main(["import", str(path), "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert "60 phases" in said
    assert "the game is not finished on Karopapier: its 60 complete rounds were imported" in said
    assert "Didi, Yashem made in round 61 are left out" in said
    assert "finish order" not in said  # no empty finish order for a game nobody has finished
    assert main(["replay", str(out)]) == 0


def test_an_unfinished_game_names_who_has_finished_so_far(karo, log, capsys):
    path = _write(karo, _mid_round(log, 148, ()), "open.details.json")  # Baertman finished in round 144
    assert main(["import", str(path), "-o", str(karo / "open.toml")]) == 0
    said = capsys.readouterr().out
    assert "not finished on Karopapier: its 148 complete rounds were imported" in said
    assert "finished so far: Baertman" in said


# -- damaged logs: each a located error naming the file and the key --------------------------
def _set(data: dict, player: int, move: int, key: str, value) -> dict:
    data = copy.deepcopy(data)
    data["players"][player]["moves"][move][key] = value
    return data


@pytest.mark.parametrize("change, where, what", [
    (lambda d: _set(d, 3, 5, "x", "a"), "players[3].moves[5].x", 'expected a whole number, not "a"'),
    (lambda d: _set(d, 3, 5, "x", float("inf")), "players[3].moves[5].x", "expected a whole number, not Infinity"),
    (lambda d: _set(d, 1, 2, "y", [1, 2]), "players[1].moves[2].y", "expected a whole number, not a list"),
    (lambda d: _set(d, 1, 2, "y", None), "players[1].moves[2].y", "missing"),
    (lambda d: _set(d, 0, 7, "y", 10 ** 20), "players[0].moves[7].y", "100000000000000000000 is out of range"),
    (lambda d: _set(d, 0, 7, "y", 1e20), "players[0].moves[7].y", "expected a whole number"),
    (lambda d: _set(d, 0, 7, "y", 300), "players[0].moves[7].y", "300 is off map 43 (rows 0 to 46)"),
    (lambda d: _set(d, 2, 3, "c", "perhaps"), "players[2].moves[3].c", 'expected true or false, not "perhaps"'),
    (lambda d: {**d, "players": [{**d["players"][0], "moves": None}] + d["players"][1:]}, "players[0].moves",
     "missing"),
    (lambda d: {**d, "players": [[1, 2]] + d["players"][1:]}, "players[0]", "expected an object"),
    (lambda d: {**d, "players": d["players"] + [copy.deepcopy(d["players"][0])]}, "players[6].name",
     "'Didi' is also the name of players[0]"),
    (lambda d: {**d, "game": {**d["game"], "zzz": "two"}}, "game.zzz", 'expected a whole number, not "two"'),
    (lambda d: {**d, "game": "44773"}, "game", 'expected an object {...}, not "44773"'),
    (lambda d: {**d, "game": {**d["game"], "startdirection": "backwards"}}, "game.startdirection",
     "'backwards' is not a start direction Karopapier knows; expected one of classic, formula1, free"),
])
def test_a_damaged_log_is_a_located_error_and_leaves_no_file_behind(karo, log, change, where, what, capsys):
    path = _write(karo, _without_mapcode(change(log)), "bad.details.json")
    out = karo / "bad.replay.toml"
    assert main(["import", str(path), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{path}: {where}: {what}" in err, err
    assert "unexpected error" not in err
    assert sorted(p.name for p in karo.iterdir()) == ["games", "maps"]  # no stray .map or replay


def test_json_infinity_and_deep_nesting_are_named_with_the_file(karo, log, capsys):
    path = karo / "games" / "deep.details.json"
    path.write_text('{"game": ' + "[" * 5000 + "]" * 5000 + "}", encoding="utf-8")
    assert main(["import", str(path)]) == 1
    assert f"{path}:1: nested more than 32 levels deep" in capsys.readouterr().err
    path.write_text("{\n\"game\": {\"id\": 1,,}}", encoding="utf-8")
    assert main(["import", str(path)]) == 1
    assert f"{path}:2: not valid JSON" in capsys.readouterr().err


# -- finding the map, and the files around the log ------------------------------------------
def test_a_log_given_by_its_bare_name_finds_the_map_in_dot_dot_maps(karo, log, monkeypatch, capsys):
    _write(karo, _without_mapcode(log))
    monkeypatch.chdir(karo / "games")
    assert main(["import", "44773.details.json"]) == 0
    assert "finish order Baertman" in capsys.readouterr().out
    assert (karo / "games" / "44773.replay.toml").is_file()


def test_the_importer_never_replaces_the_map_it_read(karo, log, capsys):
    _write(karo, _without_mapcode(log))
    before = (karo / "maps" / "43.map").read_text()
    for extra in ([], ["--force"]):
        status = main(["import", str(karo / "games" / "44773.details.json"), "-o", str(karo / "maps" / "43.toml"),
                       *extra])
        assert status == 1
        assert "43.map is the file this command reads" in capsys.readouterr().err
        assert (karo / "maps" / "43.map").read_text() == before
        assert not (karo / "maps" / "43.toml").exists()


def test_a_file_racetrack_did_not_write_is_replaced_only_with_force(karo, log, capsys):
    game = karo / "games" / "44773.details.json"
    mine = karo / "mine.toml"
    mine.write_text("# my notes, not a replay\n")
    assert main(["import", str(game), "-o", str(mine)]) == 1
    assert "mine.toml already exists and was not written by Racetrack; use --force" in capsys.readouterr().err
    assert mine.read_text() == "# my notes, not a replay\n" and not (karo / "mine.map").exists()
    assert main(["import", str(game), "-o", str(mine), "--force"]) == 0
    assert mine.read_text().startswith("# Racetrack replay")
    assert main(["import", str(game), "-o", str(mine)]) == 0  # its own replay and map: replaced freely
    capsys.readouterr()


def test_importing_a_map_without_o_never_writes_over_the_map(karo, capsys):
    source = karo / "maps" / "124.map"
    shutil.copy(KARO / "maps" / "124.map", source)
    before = source.read_text()
    assert main(["import", str(source), "--no-par"]) == 0
    said = capsys.readouterr().out
    assert source.read_text() == before
    written = Path(said.split("wrote ", 1)[1].split(":", 1)[0])
    assert written != source and written.exists()
    assert main(["import", str(source), "--no-par", "-o", str(source)]) == 1
    assert "is the file this command reads" in capsys.readouterr().err
    assert source.read_text() == before


def test_read_game_names_a_missing_file_and_a_folder(tmp_path):
    with pytest.raises(KaroImportError, match="cannot read the game log"):
        read_game(tmp_path / "gone.json")
    with pytest.raises(KaroImportError, match="a folder"):
        read_game(tmp_path)


def test_a_game_import_keeps_its_map_beside_the_replay(karo, log):
    result = import_game(karo / "games" / "44773.details.json", karo / "out.toml")
    assert result.track_path == karo / "out.map" and result.disagreements == []


# -- the start direction: Karopapier's setting becomes the replay's start_direction ---------
def test_the_real_classic_game_is_refereed_under_away_and_agrees_with_the_log(karo, tmp_path):
    """44773 was played "klassisch: erst weg vom Ziel": its replay keeps that as
    ``start_direction = away``, and every car's first move, judged under it, stands."""
    result = import_game(karo / "games" / "44773.details.json", tmp_path / "game.toml")
    assert result.replay.rules.start_direction == "away"
    assert result.referee_problem is None
    assert result.disagreements == []
    assert not any("start direction" in note for note in result.notes)
    assert "start_direction" in (tmp_path / "game.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("key", ["startdirection", "dir"])
@pytest.mark.parametrize("setting, ours", [("classic", "away"), ("formula1", "formula1"), ("free", "free")])
def test_each_karopapier_start_direction_is_kept_in_the_replay_rules(karo, log, key, setting, ours):
    from game.commands.import_map import game_rules
    data = copy.deepcopy(log)
    data["game"].pop("startdirection")
    data["game"]["dir"] = "classic"
    data["game"][key] = setting
    assert game_rules(read_game(_write(karo, data, "set.details.json"))).start_direction == ours
