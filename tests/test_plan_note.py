"""The race screen says, once and in a player's words, when the CPUs race a bounded plan (over the memory budget)."""

from __future__ import annotations


import pygame
import pytest

from game.core import RaceState, preset
from game.drivers.cpu import make_driver, make_shared
from game.drivers.solver import Solver, SolverBudgetError
from game.presentation.app import init_pygame
from game.presentation.plan_note import NOTE_SECONDS, PlanNote
from game.presentation.race_scene import RaceScene, RaceSettings
from game.race.controller import RaceController, Seat
from game.tracks.charmap import track_from_charmap

from tests.test_solver import OVAL
from tests.screenshots import save_screenshot

SIZE = (1280, 720)


def folding_budget(track, rules, laps):
    """The smallest power of two that refuses ``laps`` laps' table but holds three laps'."""
    for budget in (2 ** k for k in range(12, 30)):
        try:
            Solver(memory_budget=budget).table(track, rules, 3)
        except SolverBudgetError:
            continue
        return budget
    raise AssertionError("no budget folds")


def scene_for(budget, laps=8):
    """A race scene of two CPUs on the oval, its CPUs' solver given ``budget``, with a plan note layer."""
    init_pygame(headless=True)
    track = track_from_charmap(OVAL, id="oval")
    rules = preset("paper")
    budget = folding_budget(track, rules, laps) if budget == "fold" else budget
    shared = make_shared(Solver(memory_budget=budget))
    state = RaceState.start(track, rules, ["Ada", "Bo"], laps=laps, seed=1)
    controller = RaceController(state, [Seat(n, make_driver("cpu:champion", shared=shared)) for n in ("Ada", "Bo")],
                                seed=1)
    note = PlanNote(shared.plan)
    scene = RaceScene(controller, SIZE, settings=RaceSettings(intro=False), layers=(note,))
    return scene, note


def run_until_known(scene, note, seconds=30.0):
    step = 1 / 30
    while note.plan is None and seconds > 0:
        scene.update(step)
        seconds -= step


def pixels_with_and_without(scene, note):
    """The frame drawn with the layer, and with its draw skipped."""
    with_note = pygame.Surface(SIZE)
    scene.draw(with_note)
    without = pygame.Surface(SIZE)
    scene.view.draw(without, scene.moment())
    return with_note, without


@pytest.mark.parametrize("budget, plan", [("fold", "folded"), (1024, "route")])
def test_a_bounded_plan_is_said_once_in_a_player_s_words_then_goes(budget, plan):
    scene, note = scene_for(budget)
    run_until_known(scene, note)
    assert note.plan == plan
    assert "CPUs" in note.text
    for word in ("budget", "GB", "table", "heuristic", "solver"):  # the player's words, not the solver's
        assert word not in note.text
    with_note, without = pixels_with_and_without(scene, note)
    save_screenshot(with_note, f"plan_note_{plan}", sofa=False)
    top = pygame.Rect(0, 0, SIZE[0], SIZE[1] // 3)  # under the HUD, at the top of the track
    assert with_note.subsurface(top).get_view("2").raw != without.subsurface(top).get_view("2").raw
    for _ in range(int((NOTE_SECONDS + 1) * 30)):  # its time passes with the race's
        scene.update(1 / 30)
    assert note.left == 0
    frame = pygame.Surface(SIZE)
    before = frame.copy()
    note.draw(frame, scene)
    assert frame.get_view("2").raw == before.get_view("2").raw  # gone, and it does not come back
    for _ in range(60):
        scene.update(1 / 30)
    assert note.left == 0 and note.plan == plan


def test_a_race_the_cpus_plan_exactly_shows_no_note():
    scene, note = scene_for(None, laps=2)
    run_until_known(scene, note)
    assert note.plan == "exact" and note.text == ""
    frame = pygame.Surface(SIZE)
    before = frame.copy()
    note.draw(frame, scene)
    assert frame.get_view("2").raw == before.get_view("2").raw


def test_the_menus_race_has_the_note_only_with_cpus_on_searched_rules():
    from types import SimpleNamespace

    from game.presentation.menus.race import plan_note_layers
    from game.presentation.menus.seats import SeatSpec

    ctx = SimpleNamespace(cpu_shared=make_shared(Solver()))
    cpu, person = SeatSpec("Doodle", 0, 0, "cpu:rookie"), SeatSpec("Ada", 1, 1, "human", "kb1")
    plan = lambda lineup, rules: SimpleNamespace(lineup=lineup, rules=preset(rules))  # noqa: E731
    assert [type(x) for x in plan_note_layers(ctx, plan([person, cpu], "paper"))] == [PlanNote]
    assert plan_note_layers(ctx, plan([person], "paper")) == ()
