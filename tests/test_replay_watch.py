"""An imported Karopapier game is a normal replay: the game's replay viewer plays it like any race."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from game.commands.replay import load_replay_track  # noqa: E402
from game.race.referee import referee  # noqa: E402
from game.race.replay import load_replay  # noqa: E402

GAME = Path("/work/shared/karopapier/games/44773.details.json")
for _option in (Path(__file__).resolve().parent.parent.parent / "shared" / "karopapier" / "games", GAME.parent):
    if (_option / GAME.name).exists():
        GAME = _option / GAME.name
        break


@pytest.mark.skipif(not GAME.exists(), reason="the Karopapier test data (../shared/karopapier) is absent")
def test_an_imported_karopapier_game_can_be_watched_to_the_end_in_the_replay_viewer(tmp_path):
    import pygame

    from game.commands.import_map import import_game
    from game.presentation.app import init_pygame
    from game.presentation.input import MoveCursor
    from game.presentation.replay_scene import ReplayViewerScene

    out = tmp_path / "karo.toml"
    import_game(GAME, out)
    replay = load_replay(out)  # what the game would load: the file, its track found beside it
    result = referee(replay, load_replay_track(replay))
    init_pygame(headless=True)
    screen = pygame.display.set_mode((640, 360))
    viewer = ReplayViewerScene(result.states, result.records, list(replay.names), (640, 360))
    viewer.handle(MoveCursor("keys", 1, 0))
    for _ in range(len(result.records) + 3):
        viewer.handle(MoveCursor("keys", 1, 0))
    viewer.draw(screen)
    assert viewer.index == len(result.records)
    assert result.outcome.winners == (replay.names.index("Baertman"),)
