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


def test_quick_race_cpus_are_called_by_their_drivers_names_not_numbered_levels():
    import argparse

    from game.commands.play import build_race, seat_names

    args = argparse.Namespace(track="starter/first-sprint", cars="human,cpu,cpu:rookie,cpu:champion,cpu:rookie",
                              rules=None, laps=None, seed=3)
    controller = build_race(args).controller
    try:
        assert [s.name for s in controller.seats] == ["Player 1", "Ruler", "Doodle", "Graphite", "Smudge"]
    finally:
        controller.close()
    assert seat_names(["human", "cpu", "cpu", "cpu"]) == ["Player 1", "Ruler", "Compass", "Vector"]


def test_a_quick_race_says_how_far_the_cpus_got_with_a_big_tracks_table(tmp_path):
    """`racetrack play --track my.map`: while the CPUs' table of a Karopapier map is worked out
    (seconds, on a big map with checkpoints), the race screen's note says how far it got."""
    import argparse

    from game.commands.play import build_race
    from tests.test_karopapier_exact import SMALL

    path = tmp_path / "ring.map"
    path.write_text(SMALL.strip() + "\n")
    args = argparse.Namespace(track=str(path), cars="human,cpu:champion", rules=None, laps=None, seed=1)
    race = build_race(args)
    try:
        shared = race.controller.seats[1].driver.shared
        state = race.controller.state
        shared.table(state)  # waits for the head start's build of it, if one is under way
        solver, heard = shared.solver, []
        solver._tables.clear()  # so that it is built again, and heard
        solver.table(state.track, state.rules, state.laps, progress=lambda fraction, what: heard.append(race.cpu_note()))
        assert "the CPUs are studying the track: 100%" in heard
        assert race.cpu_note() == ""
    finally:
        race.controller.close()


def test_quitting_the_couch_game_while_the_kernels_load_does_not_hold_the_window_up(tmp_path, monkeypatch):
    """The load cannot be cut short; the player who quit must not watch a frozen window meanwhile.

    The game returns at once (its display left to the caller), and the wait for the load
    is left to the process's exit, where the window is closed first.
    """
    import atexit
    import threading
    import time

    import pygame

    import game.commands.play as play

    loaded = threading.Event()
    events = []

    class Loading:
        """Kernels still loading when the game quits (the load ends when told to)."""

        status = type("Status", (), {"message": staticmethod(lambda: ""), "stage": "loading"})()

        def start(self):
            return self

        def close(self, timeout: float = 60.0) -> bool:
            events.append(("close", timeout, pygame.display.get_init()))
            if timeout > 0:
                loaded.wait(timeout)
            return loaded.is_set()

    at_exit = []
    monkeypatch.setattr(play, "cpu_kernels", Loading)
    monkeypatch.setattr(atexit, "register", lambda fn, *args: at_exit.append((fn, args)))
    began = time.monotonic()
    assert main(["play", "--headless", "--frames", "5", "--home", str(tmp_path)]) == 0
    assert time.monotonic() - began < 30 and not loaded.is_set()
    assert events == [("close", 0, True)]  # it did not wait, and left the display to its caller
    assert pygame.display.get_init()
    assert len(at_exit) == 1
    loaded.set()
    fn, args = at_exit[0]
    fn(*args)  # what the process's exit runs: the window goes first, then the wait
    assert events[-1][0] == "close" and events[-1][1] > 0 and events[-1][2] is False
    pygame.display.init()  # as the other tests of this process found it


def test_a_quick_race_keeps_the_players_text_size_and_reduce_motion(tmp_path, capsys):
    """`racetrack play --track ...` reads the settings the couch game saved: a player who needs
    large text or still pictures gets them in a quick race too; a broken file is reported."""
    import argparse

    from game.commands.play import quick_race_settings
    from game.settings import Settings, load_settings, save_settings

    args = argparse.Namespace(home=str(tmp_path))
    settings, _ = load_settings(tmp_path / "config")  # the defaults, written
    assert quick_race_settings(args).reduce_motion is False
    save_settings(Settings(scale=1.5, reduce_motion=True, replay_speed=2.0, show_doomed=False), tmp_path / "config")
    chosen = quick_race_settings(args)
    assert (chosen.text_scale, chosen.reduce_motion, chosen.replay_speed, chosen.show_doomed) == (1.5, True, 2.0, False)
    (tmp_path / "config" / "settings.toml").write_text("scale = [\n")
    assert quick_race_settings(args).text_scale == 1.0
    assert "settings.toml" in capsys.readouterr().err
    assert main(["play", "--track", "starter/first-sprint", "--cars", "human", "--headless", "--frames", "3",
                 "--home", str(tmp_path)]) == 0
