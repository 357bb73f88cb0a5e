"""`racetrack` with no arguments opens the couch game; race flags start a quick race."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from game.cli import main  # noqa: E402


def test_racetrack_with_no_arguments_opens_the_title_screen(tmp_path, monkeypatch):
    shown = []
    import game.presentation.menus as menus

    real = menus.build_title_scene

    def spy(ctx):
        scene = real(ctx)
        shown.append(type(scene).__name__)
        return scene

    monkeypatch.setattr(menus, "build_title_scene", spy)
    monkeypatch.setattr("sys.argv", ["racetrack"])
    assert main(["play", "--headless", "--frames", "10", "--home", str(tmp_path)]) == 0
    assert shown and "Title" in shown[0]


def test_a_race_flag_starts_a_quick_race_without_the_menus(tmp_path, monkeypatch):
    import game.presentation.menus as menus

    def no_menus(ctx):
        raise AssertionError("the menus should not open for a quick race")

    monkeypatch.setattr(menus, "build_title_scene", no_menus)
    assert main(["play", "--headless", "--frames", "10", "--track", "starter/first-sprint",
                 "--cars", "human,cpu:rookie"]) == 0


def test_a_broken_settings_file_never_stops_the_game(tmp_path):
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.toml").write_text("volume = [[[ not toml", encoding="utf-8")
    assert main(["play", "--headless", "--frames", "10", "--home", str(tmp_path)]) == 0


def test_a_bug_in_any_command_is_one_line_and_a_crash_log_never_a_traceback(monkeypatch, capsys):
    import game.commands.validate as validate

    def broken(args):
        raise ZeroDivisionError("a bug of ours")

    monkeypatch.setattr(validate, "run", broken)
    assert main(["validate", "tracks"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "unexpected error" in err and "racetrack-crash-" in err


def test_quick_race_cpus_are_called_by_their_level():
    import argparse

    from game.commands.play import build_race, seat_names

    args = argparse.Namespace(track="starter/first-sprint", cars="human,cpu,cpu:rookie,cpu:champion,cpu:rookie",
                              rules=None, laps=None, seed=3)
    controller, _ = build_race(args)
    try:
        assert [s.name for s in controller.seats] == ["Player 1", "Pro", "Rookie 1", "Champion", "Rookie 2"]
    finally:
        controller.close()
    assert seat_names(["human", "cpu", "cpu", "cpu"]) == ["Player 1", "Pro 1", "Pro 2", "Pro 3"]
