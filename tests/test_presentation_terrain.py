"""Terrain on the paper, as a player sees it: each kind in its own pencil texture at the race
camera's zoom and when the whole track is shown small, the same every time, drawn into the
cached paper (no frame redraws it), off the road under Karopapier's rules, and explained
in the pause menu's legend with the rules core's words.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import itertools
import math

import pygame
import pytest

from game.core.rules import preset
from game.core.terrain import Terrain, effect_text
from game.presentation import theme
from game.presentation.board import Board
from game.presentation.camera import Camera
from game.presentation.terrain_art import LOOKS, TerrainArt, swatch
from game.presentation.text import TextCache
from game.tracks import read_pack_text

#: A loop with a patch of every kind: sand (Y), mud (Z), ice (I), curb (C) on the road and
#: water (W) in the infield. Each patch is 4 x 3 squares or more, so its middle is all terrain.
MAP = """
XXXXXXXXXXXXXXXXXXXXXXXXXXXX
XOOOOOOOOOFOOOOOOOOOOOOOOOOX
XOOYYYYYOOFOSOSOOZZZZZOOOOOX
XOOYYYYYOOFSOSOOOZZZZZOOOOOX
XOOYYYYYOOFOSOSOOZZZZZOOOOOX
XOOOOOOOOOFSOSOOOOOOOOOOOOOX
XOOOOOXXXXXXXXXXXXXXXXOOOOOX
XOOOOOXXWWWWWWWXXXXXXXOOOOOX
XOOOOOXXWWWWWWWXXXXXXXOOOOOX
XOOOOOXXWWWWWWWXXXXXXXOOOOOX
XOOOOOXXXXXXXXXXXXXXXXOOOOOX
XOOIIIIIOOOOOOOOOCCCCCOOOOOX
XOOIIIIIOOOOOOOOOCCCCCOOOOOX
XOOIIIIIOOOOOOOOOCCCCCOOOOOX
XOOOOOOOOOOOOOOOOOOOOOOOOOOX
XXXXXXXXXXXXXXXXXXXXXXXXXXXX
"""
#: The middle square of each patch (and a plain road square far from every patch).
CENTRES = {"sand": (5, 3), "mud": (19, 3), "water": (11, 8), "ice": (5, 12), "curb": (19, 12), "road": (12, 13)}


@pytest.fixture(scope="module")
def display():
    pygame.display.init()
    pygame.font.init()
    yield pygame.display.set_mode((320, 200))


def terrain_track():
    pack = read_pack_text(f'format = 1\n[pack]\nid = "t"\nname = "T"\n[[track]]\nid = "all"\nname = "All"\n'
                          f'laps = 1\ncars = 4\nmap = """{MAP}"""\n', "terrain.toml")
    assert pack.ok, [str(p) for p in pack.errors]
    return pack.tracks[0]


def draw(track, scale: float, seed: int = 0, size=None):
    """The paper of ``track`` at ``scale`` px a square, whole, as the race draws it: (surface, camera)."""
    board = Board(track, theme.pens(4), TextCache(), seed=seed)
    size = size or (round((track.width + 2) * scale), round((track.height + 2) * scale))
    camera = Camera(size)
    camera.drift_amount = 0.0
    camera.scale = camera.target_scale = float(scale)
    camera.center = camera.target_center = ((track.width - 1) / 2, (track.height - 1) / 2)
    surface = pygame.Surface(size)
    board.blit_layer(surface, camera)
    return surface, camera, board


def square_colour(surface, camera, cell) -> tuple[float, float, float]:
    """The mean colour of the inside of a square (grid lines and edges left out)."""
    pixels = []
    for fx, fy in itertools.product((-0.3, -0.15, 0.0, 0.15, 0.3), repeat=2):
        x, y = camera.to_screen((cell[0] + fx + 0.04, cell[1] + fy + 0.04))
        pixels.append(tuple(surface.get_at((int(x), int(y))))[:3])
    return tuple(sum(p[i] for p in pixels) / len(pixels) for i in range(3))


def test_the_loader_gives_the_painter_every_kind(display):
    track = terrain_track()
    assert {str(k) for k in track.terrain_nodes()} == {"sand", "mud", "ice", "curb", "water"}
    assert all(str(k) in LOOKS for k in Terrain)  # every kind of the core has a look of its own


@pytest.mark.parametrize("scale", [36, 10])
def test_each_kind_is_drawn_in_its_own_colour_at_race_zoom_and_small(display, scale):
    """36 px a square is the race camera at 1080 lines; 10 px is a track shown whole, small."""
    track = terrain_track()
    surface, camera, _ = draw(track, scale)
    colour = {name: square_colour(surface, camera, cell) for name, cell in CENTRES.items()}
    for a, b in itertools.combinations(colour, 2):
        assert math.dist(colour[a], colour[b]) > 20, (a, b, colour[a], colour[b])
    road = colour["road"]

    def warm(c):
        return c[0] + c[1] - 2 * c[2]

    assert warm(colour["sand"]) > warm(road) + 40  # sand: yellow
    assert sum(colour["mud"]) < sum(road) - 150  # mud: dark
    assert colour["ice"][2] - colour["ice"][0] > road[2] - road[0] + 5  # ice: pale blue
    assert colour["water"][2] - colour["water"][0] > 40 and sum(colour["water"]) < sum(colour["ice"])  # deeper blue
    curb = [tuple(surface.get_at((int(x), int(y))))[:3] for x, y in
            (camera.to_screen((19 + dx / 8, 12 + dy / 8)) for dx in range(-3, 4) for dy in range(-3, 4))]
    assert any(r - g > 80 for r, g, _ in curb) and any(min(p) > 200 for p in curb)  # red and white stripes


def test_the_same_track_looks_the_same_every_time_and_the_seed_moves_the_marks(display):
    track = terrain_track()
    first, camera, _ = draw(track, 36, seed=4)
    again, _, _ = draw(track, 36, seed=4)
    other, _, _ = draw(track, 36, seed=5)
    sand = pygame.Rect(*map(round, camera.to_screen((3, 2))), 4 * 36, 2 * 36)
    assert pygame.image.tobytes(first.subsurface(sand), "RGB") == pygame.image.tobytes(again.subsurface(sand), "RGB")
    assert pygame.image.tobytes(first.subsurface(sand), "RGB") != pygame.image.tobytes(other.subsurface(sand), "RGB")


def test_terrain_is_drawn_into_the_cached_paper_and_no_frame_draws_it_again(display, monkeypatch):
    """Terrain is drawn only when a paper tile is drawn (spare tiles round the view included),
    never to show a tile already cached: panning over it costs blits only."""
    track = terrain_track()
    _, camera, board = draw(track, 36, size=(640, 400))
    calls = []
    original = TerrainArt.draw_fill
    monkeypatch.setattr(TerrainArt, "draw_fill", lambda self, *a, **k: (calls.append(1), original(self, *a, **k)))
    surface = pygame.Surface((640, 400))
    quiet = 0
    for _ in range(40):
        camera.center = camera.target_center = (camera.center[0] + 0.1, camera.center[1])  # a slow pan
        before, built = len(calls), board.layer_builds
        board.blit_layer(surface, camera)
        assert len(calls) - before == board.layer_builds - built  # one terrain pass per tile drawn, no more
        if board.layer_builds == built:
            quiet += 1
            assert len(calls) == before
    assert quiet >= 20  # most frames only blit


def test_under_karopapier_rules_terrain_is_drawn_off_the_road_inside_the_pencil_line(display):
    track = terrain_track()
    effects, camera, _ = draw(track, 36)
    offroad, _, _ = draw(track.for_rules(preset("karopapier")), 36)
    # still drawn: the sand is yellowish on the off-road paper, but paler than sand on the road
    sand_fx, sand_off = square_colour(effects, camera, CENTRES["sand"]), square_colour(offroad, camera, CENTRES["sand"])
    assert sand_off[0] + sand_off[1] - 2 * sand_off[2] > 15
    assert math.dist(sand_off, sand_fx) > 20
    # the road's pencil line now runs between the road and the sand (x = 2 | x = 3, at y = 3)
    x, y = camera.to_screen((2.5, 3))
    column = [tuple(offroad.get_at((int(x) + dx, int(y) + dy)))[:3] for dx in range(-3, 4) for dy in (-6, 0, 6)]
    assert sum(1 for p in column if sum(p) < 3 * 100) >= 3
    column = [tuple(effects.get_at((int(x) + dx, int(y) + dy)))[:3] for dx in range(-3, 4) for dy in (-6, 0, 6)]
    assert sum(1 for p in column if sum(p) < 3 * 100) == 0  # with effects no road border there


def test_outline_patches_are_drawn_as_their_polygons(display):
    pack = read_pack_text('format = 1\n[pack]\nid = "t"\nname = "T"\n[[track]]\nid = "o"\nname = "O"\ncars = 4\n'
                          '[track.outline]\nouter = [[1, 1], [25, 1], [25, 15], [1, 15]]\n'
                          'islands = [[[7, 6], [19, 6], [19, 10], [7, 10]]]\n'
                          'finish = [[13, 1], [13, 6]]\nforward = "right"\nstart = [[15, 2], [15, 4], [16, 3], [17, 2]]\n'
                          '[[track.outline.terrain]]\nkind = "sand"\nring = [[2, 11], [12, 11], [2, 14.5]]\n',
                          "outline.toml")
    assert pack.ok, [str(p) for p in pack.errors]
    surface, camera, _ = draw(pack.tracks[0], 36)
    road = square_colour(surface, camera, (20, 12))
    inside = square_colour(surface, camera, (4, 12))  # well inside the triangle
    outside = square_colour(surface, camera, (10, 13.6))  # beyond its long side
    assert inside[0] + inside[1] - 2 * inside[2] > road[0] + road[1] - 2 * road[2] + 40
    assert math.dist(outside, road) < 12


def test_the_pause_menu_legend_shows_each_kind_with_the_cores_effect(display, tmp_path):
    from game.presentation.terrain_legend import legend_entries

    track = terrain_track()
    rules = preset("paper")
    entries = legend_entries(track, rules)
    assert [e.kind for e in entries] == [str(k) for k in track.terrain_nodes()]
    assert all(e.effect == effect_text(e.kind, rules) and e.effect for e in entries)
    karo = preset("karopapier")
    assert {e.effect for e in legend_entries(track.for_rules(karo), karo)} == {effect_text("sand", karo)}
    assert legend_entries(read_pack_text('format = 1\n[pack]\nid = "p"\nname = "P"\n[[track]]\nid = "plain"\n'
                                         'name = "Plain"\ncars = 2\nmap = """\nXXXXXXX\nXOFSOOX\nXOFSOOX\nXOXXXOX\n'
                                         'XOOOOOX\nXXXXXXX\n"""\n', "p.toml").tracks[0], rules) == []


def test_a_swatch_is_the_kind_on_a_piece_of_paper(display):
    sand = swatch("sand", (80, 48))
    middle = [tuple(sand.get_at((x, y)))[:3] for x in range(20, 60, 3) for y in range(14, 34, 3)]
    mean = tuple(sum(p[i] for p in middle) / len(middle) for i in range(3))
    assert mean[0] + mean[1] - 2 * mean[2] > 60


@pytest.mark.parametrize("size,scale", [((1280, 720), 1.0), ((1280, 720), 1.5), ((1920, 1080), 1.0),
                                        ((1920, 1080), 1.5), ((1024, 768), 1.5)])
def test_the_pause_menus_legend_fits_the_screen_at_every_text_size(display, tmp_path, size, scale, monkeypatch):
    """Five kinds on a track and a large text size: the pause panel and the legend both stay
    whole on screen, clear of each other and of the hint band, their text still large."""
    from game import paths
    from game.presentation.menus import build_context
    from game.presentation.menus.pause import PauseMenuScene
    from game.presentation.menus.race import RacePlan, TrackEntry, start_race
    from game.presentation.menus.seats import SeatSpec
    from game.presentation.scene import SceneStack
    from game.presentation.terrain_legend import TerrainLegend

    pygame.display.set_mode(size)
    ctx = build_context(tmp_path / "config", None, paths.builtin_tracks_dir(), seed=1)
    ctx.size = size
    ctx.settings.scale = scale
    track = terrain_track()
    lineup = (SeatSpec("Ada", 0, 0, device="kb1"), SeatSpec("Bix", 1, 1, device="kb2"))
    race = start_race(ctx, RacePlan(lineup, TrackEntry("t/all", track, "T"), preset("paper"), 1), intro=False)
    stack = SceneStack()
    stack.push(race)
    pause = PauseMenuScene(ctx, race)
    stack.push(pause)
    drawn = []
    real = TerrainLegend.draw
    monkeypatch.setattr(TerrainLegend, "draw", lambda self, surface, c, rect, px: drawn.append((rect.copy(), px))
                        or real(self, surface, c, rect, px))
    import game.presentation.menus.pause as pause_module

    panels = []
    real_panel = pause_module.draw_panel
    monkeypatch.setattr(pause_module, "draw_panel", lambda surface, rect, c: panels.append(rect.copy())
                        or real_panel(surface, rect, c))
    surface = pygame.Surface(size)
    pause.draw(surface)
    pygame.image.save(surface, str(tmp_path / f"pause-{size[1]}-{scale}.png"))
    (card, px), = drawn
    panel = panels[0]
    screen = pygame.Rect((0, 0), size)
    hint_top = size[1] - ctx.font(24) * 2
    assert len(pause.legend.entries) == 5
    assert screen.contains(card) and card.bottom <= hint_top, (card, size)
    assert screen.contains(panel) and panel.bottom <= hint_top, (panel, size)  # "Paused" and every item on screen
    assert not panel.colliderect(card)
    assert px >= min(ctx.font(20), 14), "the legend's text stays readable"
    race.exit()
