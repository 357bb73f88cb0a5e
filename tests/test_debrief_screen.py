"""The results screen's Debrief tab: worked out off the frame loop, then the chart, the marks and the better line."""

from __future__ import annotations

import shutil
from types import SimpleNamespace

import pygame
import pytest

from game import paths
from game.commands.sim import simulate
from game.core.rules import preset
from game.presentation.app import init_pygame
from game.presentation.input import Back, Confirm, Select
from game.presentation.menus import build_context
from game.presentation.menus.race import RacePlan
from game.presentation.menus.results import ResultsScene
from game.presentation.menus.seats import SeatSpec
from game.presentation.menus.tracks import load_entries
from game.presentation.scene import SceneStack
from game.race.referee import referee
from tests.screenshots import save_screenshot

KINDS = ("cpu:champion", "cpu:pro", "cpu:rookie", "cpu:rookie")


@pytest.fixture(scope="module")
def race(tmp_path_factory):
    """A finished four-CPU race on the first sprint (arcade rules), and a context to show it in."""
    init_pygame(headless=True)
    root = tmp_path_factory.mktemp("debrief")
    builtin = root / "builtin"
    builtin.mkdir()
    shutil.copy(paths.builtin_tracks_dir() / "starter.toml", builtin / "starter.toml")
    ctx = build_context(root / "config", root / "packs", builtin, seed=5)
    entry = next(e for e in load_entries(ctx.builtin_dir, None) if e.ref == "starter/first-sprint")
    rules = preset("arcade")
    replay, _, _ = simulate(entry.track, entry.ref, rules, list(KINDS), 1, 2)
    result = referee(replay, entry.track)
    lineup = tuple(SeatSpec(c.name, i, i, c.driver) for i, c in enumerate(replay.cars))
    controller = SimpleNamespace(states=list(result.states), records=list(result.records), seed=2,
                                 seats=[SimpleNamespace(kind=k) for k in KINDS])
    return ctx, RacePlan(lineup, entry, rules, 1), controller


def _scene(race, size):
    ctx, plan, controller = race
    ctx.size = size
    scene = ResultsScene(ctx, plan, controller)
    SceneStack().push(scene)
    return scene


def _frame(scene, size, name=None):
    surface = pygame.Surface(size)
    scene.update(1 / 60)
    scene.draw(surface)
    if name:
        save_screenshot(surface, name)
    return surface


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_the_debrief_tab_shows_dots_then_the_chart_and_the_better_line(race, size, monkeypatch):
    scene = _scene(race, size)
    _frame(scene, size, f"results-{size[1]}")
    assert any(item.label.startswith("Debrief") for item in scene.menu.items)
    scene.handle(Select("keys", 1, 0))  # right: the debrief tab
    assert scene.tab == "debrief"
    scene.debrief.job = None  # as on a slow machine: not started yet
    scene.debrief.start()
    if not scene.debrief.job.done:
        assert scene.debrief.status() == "..."
    scene.debrief.job.wait(120)
    assert scene.debrief.status() == "" and scene.debrief.debrief is not None
    picks = scene.debrief.picks()
    assert picks, "the rookies lose moves somewhere"
    assert picks[0][1].loss == max(p.loss for c in scene.debrief.debrief.cars for p in c.phases if p.loss)
    plain = _frame(scene, size, f"debrief-{size[1]}")
    scene.handle(Confirm("keys"))  # the better line from the biggest loss
    assert scene.debrief.show_line and scene.debrief.debrief.lines.get((picks[0][0], picks[0][1].phase))
    lined = _frame(scene, size, f"debrief-{size[1]}-line")
    redrawn = []
    for name in ("_draw_map", "_draw_chart"):
        drawing = getattr(scene.debrief, name)
        monkeypatch.setattr(scene.debrief, name, lambda *args, _d=drawing, _n=name: redrawn.append(_n) or _d(*args))
    _frame(scene, size)  # a frame once the map and chart are cached: it only blits them
    assert redrawn == [], "the map and the chart are drawn again on every frame"
    # the better line is drawn: the map changed where it runs, in ink
    box = scene.debrief.map_rect
    diff = sum(plain.get_at((x, y)) != lined.get_at((x, y))
               for x in range(box.left, box.right, 2) for y in range(box.top, box.bottom, 2))
    assert diff > 40
    scene.handle(Back("keys"))
    assert scene.tab == "results"


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=lambda s: f"{s[1]}p")
def test_every_line_of_the_debrief_stays_in_its_card_at_the_largest_text(race, size):
    """Text size 1.5 ran "Move of the race: Bix, phase 24, +1.5 on the field" past the card's edge."""
    from game.presentation.text import TextCache
    from tests.test_layout import Layout, problems

    ctx = race[0]
    scale, text = ctx.settings.scale, ctx.text
    layout = Layout()
    ctx.settings.scale, ctx.text = 1.5, TextCache(recorder=layout)
    try:
        scene = _scene(race, size)
        scene.show_debrief()
        scene.debrief.job.wait(120)
        assert scene.debrief.debrief is not None
        _frame(scene, size)
        layout.clear()
        _frame(scene, size, f"debrief-{size[1]}-x1.5")
        assert any(t.words.startswith("Move of the race") for t in layout.texts)
        found = problems(layout, size)
        assert not found, "\n".join(found)
    finally:
        ctx.settings.scale, ctx.text = scale, text
