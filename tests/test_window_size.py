"""A window asked for bigger than the display (or 8K) opens at what fits, and the player is told."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402

from game import paths  # noqa: E402
from game.cli import main  # noqa: E402
from game.presentation.app import MAX_WINDOW, fit_window  # noqa: E402


def test_a_window_is_never_bigger_than_the_display_or_8k():
    assert fit_window((100000, 100000), (2560, 1440))[0] == (2560, 1440)
    assert fit_window((100000, 100000), None)[0] == MAX_WINDOW
    assert fit_window((100000, 500), (16000, 9000))[0] == (MAX_WINDOW[0], 500)
    assert fit_window((1280, 720), (1920, 1080)) == ((1280, 720), "")
    size, note = fit_window((9000, 720), (1920, 1080))
    assert size == (1920, 720) and "9000x720" in note and "1920x1080" in note


def test_a_quick_race_with_a_huge_size_opens_at_the_display_s_size_and_says_so(monkeypatch, capsys):
    monkeypatch.setattr("game.presentation.app.desktop_size", lambda: (1024, 768))
    assert main(["play", "--headless", "--frames", "3", "--size", "100000x100000", "--track", "starter/first-sprint",
                 "--cars", "cpu:rookie"]) == 0
    assert "does not fit the display (1024x768): opened at 1024x768" in capsys.readouterr().err


def test_the_couch_game_lists_a_window_that_did_not_fit_on_the_title_screen(monkeypatch, tmp_path):
    from game.presentation.menus import prepare_game

    monkeypatch.setattr("game.presentation.app.desktop_size", lambda: (1024, 768))
    app, ctx = prepare_game(tmp_path / "config", None, paths.builtin_tracks_dir(), paths.assets_dir(),
                            headless=True, size=(100000, 100000))
    assert app.size == (1024, 768)
    assert any("100000x100000 does not fit" in p for p in ctx.all_problems())
    app.step(0.016)  # the title screen draws it (looked at: the start-up problems box under the menu)
    pygame.image.save(app.screen, str(tmp_path / "title.png"))
