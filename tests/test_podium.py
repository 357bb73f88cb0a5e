"""The shared animated podium: the order of the show, shared places, and where each car ends up."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
import pytest

from game.presentation import theme
from game.presentation.podium import SHOW_SECONDS, STEP_ORDER, Podium, PodiumEntry, podium_entries

PENS = theme.pens(5)


@pytest.fixture(scope="module")
def surface():
    pygame.display.init()
    pygame.font.init()
    return pygame.Surface((900, 600))


def entries():
    return [PodiumEntry(1, "Ada", PENS[0], "25 pts"), PodiumEntry(2, "Bix", PENS[1]), PodiumEntry(3, "Cleo", PENS[2])]


def colour_columns(surface, rect, colour):
    """x positions (in thirds of the rect) where a colour appears above the rect's bottom fifth."""
    found = set()
    for x in range(rect.left, rect.right, 3):
        for y in range(rect.top, rect.bottom - rect.height // 5, 3):
            if tuple(surface.get_at((x, y)))[:3] == colour:
                found.add(int((x - rect.left) / (rect.width / 3)))
    return found


def test_third_lands_first_and_the_winner_last():
    podium = Podium(entries())
    landed_at = {}
    while not podium.done:
        podium.update(1 / 60)
        for place in (1, 2, 3):
            if podium.landed(place) and place not in landed_at:
                landed_at[place] = podium.time
    assert landed_at[3] < landed_at[2] < landed_at[1] <= SHOW_SECONDS
    assert podium.rise(1) == pytest.approx(1.0) and podium.drop(1) == pytest.approx(1.0)


def test_skip_ends_the_show_at_once():
    podium = Podium(entries())
    assert not podium.done and podium.drop(1) == pytest.approx(0.0)
    podium.skip()
    assert podium.done and all(podium.landed(p) for p in (1, 2, 3))


def test_each_car_stands_on_its_own_step(surface):
    podium = Podium(entries())
    podium.skip()
    rect = pygame.Rect(0, 0, 900, 600)
    surface.fill(theme.PAPER)
    podium.draw(surface, rect)
    for entry in entries():
        assert colour_columns(surface, rect, entry.pen.color) == {STEP_ORDER.index(entry.place)}, entry.name


def test_nobody_is_drawn_before_the_drop(surface):
    podium = Podium(entries())
    podium.update(0.5)  # the steps are rising
    rect = pygame.Rect(0, 0, 900, 600)
    surface.fill(theme.PAPER)
    podium.draw(surface, rect)
    assert all(not colour_columns(surface, rect, e.pen.color) for e in entries())


def test_a_dead_heat_puts_both_cars_on_the_top_step(surface):
    ranks = [1, 1, 3, None, 5]
    made = podium_entries(ranks, ["A", "B", "C", "D", "E"], PENS, ["x"] * 5)
    assert [(e.place, e.name) for e in made] == [(1, "A"), (1, "B"), (3, "C")]
    podium = Podium(made)
    assert [e.name for e in podium.on_step(1)] == ["A", "B"] and podium.on_step(2) == []
    podium.skip()
    rect = pygame.Rect(0, 0, 900, 600)
    surface.fill(theme.PAPER)
    podium.draw(surface, rect)
    assert colour_columns(surface, rect, PENS[0].color) == {1}
    assert colour_columns(surface, rect, PENS[1].color) == {1}


def test_a_tiny_rect_draws_nothing_and_does_not_fail(surface):
    podium = Podium(entries())
    podium.skip()
    surface.fill(theme.PAPER)
    before = pygame.image.tobytes(surface, "RGB")
    podium.draw(surface, pygame.Rect(40, 40, 10, 10))
    assert pygame.image.tobytes(surface, "RGB") == before  # no step, no name, no confetti anywhere
    podium.draw(surface, pygame.Rect(40, 40, 600, 400))
    assert pygame.image.tobytes(surface, "RGB") != before  # the same podium in a real rect does draw


def test_with_reduce_motion_the_podium_stands_at_once_and_keeps_still(surface):
    rect = pygame.Rect(50, 50, 600, 400)
    podium = Podium(entries(), reduce_motion=True)
    assert podium.done and podium.landed(1) and podium.rise(1) == pytest.approx(1.0)
    frames = []
    for dt in (0.0, 0.7, 1.9):
        podium.update(dt)
        surface.fill((255, 255, 255))
        podium.draw(surface, rect)
        frames.append(pygame.image.tobytes(surface, "RGB"))
    assert frames[0] == frames[1] == frames[2]  # no bob, no rays, no confetti
    assert colour_columns(surface, rect, PENS[0].color) == {1}  # the winner on the middle step
    moving = Podium(entries())
    assert not moving.done and moving.rise(1) < 0.5


def test_with_reduce_motion_the_cup_standings_show_the_new_points_and_order_at_once():
    from types import SimpleNamespace

    from game.presentation.menus.common import GameContext
    from game.presentation.menus.cup import StandingsScene
    from game.settings import Settings

    before = [SimpleNamespace(entrant=0, points=10), SimpleNamespace(entrant=1, points=6)]
    after = [SimpleNamespace(entrant=1, points=16), SimpleNamespace(entrant=0, points=12)]
    cup = SimpleNamespace(results=[1, 2], standings=lambda n: before if n == 1 else after, finished=False,
                          races=[SimpleNamespace(name="a"), SimpleNamespace(name="b"), SimpleNamespace(name="c")],
                          next_index=2)
    session = SimpleNamespace(cup=cup, message="")
    for reduce, shown in ((True, (12, 1.0)), (False, (10, 0.0))):  # entrant 0 drops from first to second
        ctx = GameContext(config_dir=None, packs_dir=None, builtin_dir=None, settings=Settings(reduce_motion=reduce))
        scene = StandingsScene(ctx, session)
        assert scene.done is reduce
        assert (scene.shown_points(0), scene.row_of(0)) == shown
