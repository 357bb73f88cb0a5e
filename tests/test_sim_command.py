"""`racetrack solve` and `racetrack sim` from the command line."""

from __future__ import annotations

import json

from game.cli import main


def test_solve_prints_par_and_a_line_as_json(capsys):
    assert main(["solve", "starter/first-sprint", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["par"] == len(data["path"]) - 1
    assert data["laps"] == 1 and data["rules"] == "paper" and data["states"] > 0


def test_solve_names_a_missing_track_without_a_traceback(capsys):
    assert main(["solve", "starter/no-such-track"]) == 1
    err = capsys.readouterr().err
    assert "no-such-track" in err and "Traceback" not in err


def test_sim_races_cpus_to_the_finish_and_saves_a_replay(capsys, tmp_path):
    out = tmp_path / "race.toml"
    assert main(["sim", "--track", "starter/first-sprint", "--cars", "cpu:champion,cpu:rookie", "--seed", "2",
                 "--json", "--replay-out", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["finished"] is True
    assert data["winners"] == ["Champion 1"]
    assert out.is_file() and "cpu:rookie" in out.read_text()


def test_sim_rejects_an_unknown_driver_kind(capsys):
    assert main(["sim", "--track", "starter/first-sprint", "--cars", "cpu:wizard"]) == 1
    assert "cpu:wizard" in capsys.readouterr().err


def test_sim_races_under_another_movement_system_and_solve_reports_its_par(capsys):
    assert main(["sim", "--track", "starter/first-sprint", "--cars", "cpu:champion", "--movement", "graded",
                 "--json"]) == 0
    race = json.loads(capsys.readouterr().out)
    assert race["finished"] is True
    assert main(["solve", "starter/first-sprint", "--movement", "graded", "--braking", "hard", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["movement"] == "graded" and data["braking"] == "hard" and data["par"] == len(data["path"]) - 1


def test_solve_explains_that_fine_paper_is_not_solved_exactly(capsys):
    assert main(["solve", "starter/first-sprint", "--movement", "fine"]) == 1
    err = capsys.readouterr().err
    assert "fine" in err and "Traceback" not in err
