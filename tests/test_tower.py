"""The timing tower: exact moves to go beside the HUD, ordered, with gaps; never worked out in the frame loop."""

from __future__ import annotations


import pygame
import pytest

from game.core.rules import preset
from game.drivers.cpu import make_driver, make_shared
from game.drivers.solver import Solver
from game.presentation.app import init_pygame
from game.presentation.race_scene import RaceScene, RaceSettings
from game.presentation.tower import TimingTower, tower_rows
from game.race.controller import RaceController, Seat
from game.race.debrief import remaining
from game.settings import Settings
from game.tracks.pack import load_pack
from game import paths
from tests.screenshots import save_screenshot

KINDS = ("cpu:champion", "cpu:pro", "cpu:rookie", "cpu:rookie")


@pytest.fixture(scope="module")
def race():
    """Four CPUs 9 phases into an arcade race on the first sprint, with their shared tables."""
    init_pygame(headless=True)
    track = next(t for t in load_pack(paths.builtin_tracks_dir() / "starter.toml").tracks if t.id == "first-sprint")
    shared = make_shared(Solver())
    names = ["Ada", "Bo", "Cy", "Di"]
    from game.core.race import RaceState

    state = RaceState.start(track, preset("arcade"), names, laps=1, seed=2)
    controller = RaceController(state, [Seat(n, make_driver(k, shared=shared)) for n, k in zip(names, KINDS)], seed=2)
    while len(controller.records) < 9 and not controller.over:
        controller.tick()
    return controller, shared


def _settle(tower, scene):
    for _ in range(3):
        tower.update(scene, 1 / 60)
        for job in (tower._table_job, tower._values_job):
            if job is not None:
                job.wait(120)
    tower.update(scene, 1 / 60)


def _shot(surface, name):
    save_screenshot(surface, name)


def test_the_tower_orders_cars_by_exact_moves_to_go_with_gaps(race):
    controller, shared = race
    table = shared.table(controller.states[0])
    spread = [(s, [remaining(table, s, i) for i in range(len(s.cars))]) for s in controller.states]
    state, values = next((s, v) for s, v in spread if len(set(v)) > 2)  # a field spread out
    rows = tower_rows(state, values)
    racing = [r for r in rows if r.to_go is not None and r.gap != "done"]
    assert [r.to_go for r in racing] == sorted(r.to_go for r in racing)
    lead = racing[0].to_go
    assert racing[0].gap == str(lead)
    # cars sharing the lead show the count; the others their gap to it
    assert all(r.gap == (str(lead) if r.to_go == lead else f"+{r.to_go - lead}") for r in racing[1:])
    assert any(r.gap.startswith("+") for r in racing)
    assert sorted(r.car for r in rows) == list(range(len(state.cars)))


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_the_tower_shows_dots_until_its_table_is_ready_then_follows_the_cars_as_they_land(race, size):
    controller, shared = race
    tower = TimingTower(shared.table)
    scene = RaceScene(controller, size, settings=RaceSettings(intro=False), layers=(tower,))
    scene.shown = 4
    assert tower.status() == "..."
    surface = pygame.Surface(size)
    scene.draw(surface)  # drawn before anything is known: "...", and no wait
    _settle(tower, scene)
    assert tower.status() == ""
    before = tower._values
    table = shared.table(controller.states[0])
    assert before == tuple(remaining(table, controller.states[4], i) for i in range(4))
    scene.shown = 8  # later phases have landed: the figures follow
    _settle(tower, scene)
    assert tower._values == tuple(remaining(table, controller.states[8], i) for i in range(4))
    assert tower._values != before
    scene._aim()
    scene.view.camera.snap()
    scene.draw(surface)
    _shot(surface, f"tower-{size[1]}")


def test_the_tower_setting_is_on_in_arcade_and_phases_and_off_on_paper_by_default():
    settings = Settings()
    assert settings.timing_tower == "auto"
    assert settings.tower_for(preset("arcade")) and settings.tower_for(preset("phases")) and settings.tower_for(preset("party"))
    assert not settings.tower_for(preset("paper"))
    settings.timing_tower = "on"
    assert settings.tower_for(preset("paper"))
    settings.timing_tower = "off"
    assert not settings.tower_for(preset("arcade"))
