"""The debrief and the better line from the Replays list: a saved replay opened there."""

from __future__ import annotations

import shutil
from pathlib import Path

import pygame
import pytest

from game.presentation.input import Back, MoveCursor
from game.presentation.scene import SceneStack
from game.race.referee import start_state
from game.race.replay import load_replay, load_replay_track, track_checksum
from tests.menu_context import headless_display, starter_context

SIZE = (1920, 1080)
GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
def surface():
    return headless_display(SIZE)


def _folder(ctx, checksum: str | None):
    """The replays folder with the golden arcade loop (four CPUs), its track's checksum written in it."""
    folder = ctx.replays_dir
    folder.mkdir(parents=True)
    shutil.copy(GOLDEN / "pack.toml", folder / "pack.toml")
    path = folder / "arcade-loop.toml"
    shutil.copy(GOLDEN / "arcade-loop.replay.toml", path)
    replay = load_replay(path)
    right = track_checksum(start_state(replay, load_replay_track(replay, ctx.builtin_dir)).track)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('track = "pack.toml#loop"\n',
                                 f'track = "pack.toml#loop"\ntrack_checksum = "{checksum or right}"\n'),
                    encoding="utf-8")
    return path


def _open(ctx):
    from game.presentation.menus.replays import ReplaysScene

    stack = SceneStack()
    scene = ReplaysScene(ctx)
    stack.push(scene)
    scene.scanning.wait(60)
    scene.update(1 / 60)
    scene.menu.index = 0
    return stack, scene


def _shot(stack, surface, tmp_path, name):
    stack.top.update(1 / 60)
    surface.fill((0, 0, 0))
    stack.draw(surface)
    pygame.image.save(surface, str(tmp_path / f"{name}.png"))


def test_a_saved_replay_opens_its_debrief_and_the_better_line_over_the_replay(tmp_path, surface):
    from game.presentation.menus.replays import ReplayDebriefScene
    from game.presentation.replay_scene import ReplayViewerScene

    ctx = starter_context(tmp_path, SIZE)
    _folder(ctx, None)
    stack, scene = _open(ctx)
    scene.handle(MoveCursor("keys", 1, 0))  # right on the file: its debrief
    assert scene.watching is not None and stack.top is scene  # refereed on a worker thread, the list drawn
    _shot(stack, surface, tmp_path, "replays-debrief-refereeing")
    scene.watching.wait(60)
    scene.update(1 / 60)
    debrief = stack.top
    assert isinstance(debrief, ReplayDebriefScene)
    debrief.update(1 / 60)  # the debrief starts on its own worker thread
    assert debrief.tab.job is not None
    assert debrief.tab.job.wait(300)
    assert debrief.tab.debrief is not None, debrief.tab.status()
    names = [c.name for c in debrief.file.replay.cars]
    assert [c.name for c in debrief.tab.debrief.cars] == names
    assert debrief.tab.picks(), "four CPUs in arcade traffic lose moves somewhere"
    _shot(stack, surface, tmp_path, "replays-debrief")
    debrief.handle(MoveCursor("keys", 1, 0))  # right: the picked lost move's better line over the replay
    viewer = stack.top
    assert isinstance(viewer, ReplayViewerScene)
    car, loss = debrief.tab.picks()[0]
    assert viewer.better is not None and viewer.better.car == car and viewer.better.phase == loss.phase
    _shot(stack, surface, tmp_path, "replays-debrief-better-line")
    viewer.handle(Back("keys"))
    assert stack.top is debrief
    debrief.handle(Back("keys"))
    assert stack.top is scene


def test_a_saved_replay_whose_track_changed_gets_no_debrief_but_the_checksum_message(tmp_path, surface):
    ctx = starter_context(tmp_path, SIZE)
    _folder(ctx, "0123456789abcdef")
    stack, scene = _open(ctx)
    scene.handle(MoveCursor("keys", 1, 0))
    scene.watching.wait(60)
    scene.update(1 / 60)
    assert stack.top is scene
    assert "arcade-loop.toml" in scene.message and "track_checksum" in scene.message, scene.message
    assert "has changed" in scene.message
    _shot(stack, surface, tmp_path, "replays-debrief-refused")
