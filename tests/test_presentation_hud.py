"""The HUD strip: compact at every window size, and composed only when what it says changes
(headless, dummy video driver)."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
import pytest

from game.core import RaceState, preset
from game.presentation.app import init_pygame
from game.presentation.demo_track import demo_track
from game.presentation.hud import font_size, hud_layout, hud_size
from game.presentation.race_scene import RaceScene, RaceSettings
from tests.standin import StandInCPU
from game.race.controller import RaceController, Seat

SIZES = [(960, 540), (1280, 720), (1920, 1080)]


@pytest.fixture(scope="module")
def screen():
    init_pygame(headless=True)
    return pygame.display.set_mode((960, 540))


def scene_of(size, cars=8):
    names = [f"CPU {i + 1}" for i in range(cars)]
    state = RaceState.start(demo_track(), preset("arcade"), names, seed=1)
    ctl = RaceController(state, [Seat(n, StandInCPU()) for n in names], seed=1)
    return RaceScene(ctl, size, settings=RaceSettings(intro=False, camera_drift=False))


@pytest.mark.parametrize("size", SIZES)
def test_the_hud_is_a_narrow_strip_along_the_top_that_grows_with_the_window(size):
    width, height = hud_size(size, 8)
    layout = hud_layout(size, 8)
    assert height <= size[1] * 0.1, "the strip leaves the track on screen"
    assert layout.width <= size[0], "eight cars fit across the window"
    assert layout.card_w >= layout.size * 4.5, "room for a name on each card"
    assert font_size(size) >= 12


def test_hud_text_grows_with_the_window_height():
    sizes = [font_size(s) for s in SIZES]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]


def test_the_hud_strip_is_drawn_at_the_top_and_the_camera_keeps_the_cars_below_it(screen):
    size = (960, 540)
    scene = scene_of(size)
    scene.draw(screen)
    _, height = hud_size(size, 8)
    cam = scene.view.camera
    for car in scene.controller.state.cars:
        x, y = cam.to_screen((car.position.x, car.position.y))
        assert y - scene.view.board.car_radius(cam.scale) >= height - 1, "no car under the HUD"


def test_hud_text_is_not_rendered_again_while_nothing_it_shows_changes(screen):
    scene = scene_of((960, 540))
    text = scene.view.text
    for _ in range(60):  # the paper's tiles round the view are drawn (checkpoint numbers are text too)
        scene.draw(screen)
    renders, compositions = text.renders, text.compositions
    for _ in range(30):
        scene.draw(screen)
    assert text.renders == renders, "no string is rendered twice"
    assert text.compositions == compositions, "the strip is composed once"
    # while a phase plays, the cars' lines (speed, lap, place) stay until it ends
    while scene.mode != "replay":
        scene.update(1 / 60)
    scene.draw(screen)
    compositions = text.compositions
    for _ in range(20):
        scene.update(1 / 60)
        scene.draw(screen)
    assert scene.mode == "replay"
    assert text.compositions == compositions
    # ...and is composed again once the phase is over (speeds changed)
    while scene.mode == "replay":
        scene.update(1 / 60)
    scene.draw(screen)
    assert text.compositions > compositions


def test_eight_long_names_at_large_text_in_720_lines_fill_two_rows_of_whole_names(screen):
    """Large text (1.5) on a 1280x720 window: eight cards do not fit in one row, so they are
    set in two even rows of four, and a long name is drawn smaller on its narrow card
    instead of being cut off at its edge."""
    from game.presentation import theme
    from game.presentation.hud import CarLine, draw_hud
    from game.presentation.text import TextCache

    size = (1280, 720)
    names = ["Alexandra", "Bartholomew", "Cy", "Dee", "Evangeline", "Fitz", "Gus", "Maximiliano"]
    state = RaceState.start(demo_track(), preset("arcade"), names, seed=1)
    layout = hud_layout(size, 8, 1.5)
    assert (layout.per_row, layout.height) == (4, 2 * layout.row_h), "two even rows of four cards"
    surface = pygame.Surface(size)
    surface.fill((255, 255, 255))
    pens = theme.pens(8)
    panel = draw_hud(surface, TextCache(), state, pens, names, [CarLine()] * 8, "Demo  ·  arcade", text_scale=1.5)
    pixels = pygame.surfarray.array3d(surface).astype(int)  # [x, y]
    for k, (name, pen) in enumerate(zip(names, pens)):
        left = panel.left + layout.pad + (k % 4) * layout.card_w
        top = (k // 4) * layout.row_h
        band = pixels[left:left + layout.card_w, top + layout.pad:top + layout.pad + int(layout.size * 1.2)]
        ink = (abs(band - pen.color).sum(axis=2) < 40).any(axis=1)  # columns with the name's (or symbol's) ink
        xs = ink.nonzero()[0]
        right = layout.card_w - layout.pad  # where the card's clip cuts a name that does not fit
        assert len(xs) and xs.max() < right - 3, f"{name!r} runs into the edge of its card"
        assert xs.max() - xs.min() >= layout.size * 0.4 * 2 + len(name) * 6, f"{name!r} is drawn whole"


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (3840, 2160)], ids=lambda s: f"{s[1]}p")
def test_a_cards_note_is_drawn_whole_at_large_text_with_four_cars(screen, size):
    """Large text (1.5), four cars: a penalty ("misses 2 turns") and a CPU's "thinking..." were cut off
    by the card's edge ("misses 1", "thinkin"). Each note now fits its card whole: smaller, then
    without its last word, and keeps the count."""
    from dataclasses import replace

    from game.presentation import theme
    from game.presentation.hud import CarLine, draw_hud
    from game.presentation.text import TextCache

    class Notes:
        def __init__(self):
            self.drawn = []

        def text(self, surface, rect, words, image):
            ink = image.get_bounding_rect().move(rect.topleft)
            if ink.width and surface.get_size() != (1, 1):
                self.drawn.append((words, ink, surface.get_clip()))

        def panel(self, surface, rect):
            pass

    names = ["Ada", "Bix", "Cleo", "Dmitri"]
    state = RaceState.start(demo_track(), preset("arcade"), names, seed=1)
    cars = list(state.cars)
    cars[0] = replace(cars[0], skip=2)
    cars[1] = replace(cars[1], skip=1)
    state = replace(state, cars=tuple(cars))
    notes = Notes()
    lines = [CarLine(), CarLine(), CarLine("thinking..."), CarLine("preparing...")]
    draw_hud(pygame.Surface(size), TextCache(recorder=notes), state, theme.pens(4), names, lines,
             "First Sprint  ·  arcade", text_scale=1.5)
    said = {words: (ink, clip) for words, ink, clip in notes.drawn}
    for words, ink, clip in notes.drawn:
        assert clip.contains(ink), f"{words!r} is cut off by its card's edge at {size}"
    for penalty in ("misses 2", "misses 1"):  # a penalty is always said, with its count
        assert any(w.startswith(penalty) for w in said), f"no note {penalty!r} on the cards: {sorted(said)}"
    for marker in ("thinking...", "preparing..."):  # a marker is said whole, or left to the prompt
        assert marker in said or not any(w.startswith(marker[:4]) for w in said), sorted(said)
