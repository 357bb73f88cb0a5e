"""The better line over the replay: from a lost move in the debrief, the replay opens on that phase with
the Champion's line from there drawn over it."""

from __future__ import annotations

import pygame

from game.presentation.input import Confirm, Select
from game.presentation.replay_scene import BetterLine, ReplayViewerScene
from tests.test_debrief_screen import _scene, race  # noqa: F401 - the fixture
from tests.screenshots import save_screenshot


def test_from_a_lost_move_the_replay_opens_on_its_phase_with_the_champions_line_over_it(race):  # noqa: F811
    size = (1280, 720)
    scene = _scene(race, size)
    scene.handle(Select("keys", 1, 0))  # right: the debrief tab
    scene.debrief.start()
    scene.debrief.job.wait(300)
    picks = scene.debrief.picks()
    assert picks
    scene.handle(Select("keys", 0, 1))  # down: the second lost move
    car, loss = picks[1]
    scene.handle(Select("keys", 1, 0))  # right: over the replay
    viewer = scene.stack.top
    assert isinstance(viewer, ReplayViewerScene) and viewer.better is not None
    better = viewer.better
    assert (better.car, better.phase) == (car, loss.phase)
    assert better.nodes[0] == loss.start  # from where the car stood before the move it lost moves on
    assert better.nodes == tuple(scene.debrief.debrief.lines[(car, loss.phase)])
    assert not viewer.playing and viewer.phase_number() == loss.phase  # paused there
    for big in (False, True):
        if big:
            size = (1920, 1080)
            viewer.resize(size)
        surface = pygame.Surface(size)
        plain = pygame.Surface(size)
        viewer.draw(surface)
        keep, viewer.better = viewer.better, None
        viewer.draw(plain)
        viewer.better = keep
        # The line's nodes in view (the camera follows the paused phase; the line may run out of it)
        points = [viewer.view.camera.to_screen((float(n.x), float(n.y))) for n in better.nodes[1:]]
        inside = [(int(x), int(y)) for x, y in points if 0 <= x < size[0] and 0 <= y < size[1]]
        assert inside, "the better line starts in view"
        assert any(surface.get_at(p) != plain.get_at(p) for p in inside)  # its nodes are drawn
        save_screenshot(surface, f"better-line-{size[1]}")
    viewer.handle(Confirm("keys"))  # it plays on from there, the line staying over the replay
    assert viewer.playing and viewer.better is better


def test_a_better_line_counts_its_moves():
    from game.core.vec import Vec

    assert BetterLine(0, 3, (Vec(0, 0), Vec(1, 0), Vec(3, 0))).moves == 2
