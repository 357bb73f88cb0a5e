"""The race screen read from a sofa: sizes measured on the drawn pixels, crowds kept apart.

Every test renders the race scene headless at a television's size, saves the picture
under the test's tmp folder and measures what was drawn: the grid square, a target
ring, a car symbol and the HUD's smallest text at 1920x1080 and 1280x720; all nine
rings of each of two players standing side by side; cars sharing a node; a second
chooser far away shown in an inset; a collision's label naming the cars.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from dataclasses import replace

import numpy as np
import pygame
import pytest

from game import paths
from game.core import RaceState, Vec, preset
from game.drivers.base import HumanDriver
from game.presentation import theme
from game.presentation.app import init_pygame
from game.presentation.hud import font_size, hud_layout, small_size
from game.presentation.input import ClickAt
from game.presentation.race_scene import RaceScene, RaceSettings
from game.presentation.race_view import collision_label
from tests.standin import StandInCPU
from game.race.controller import RaceController, Seat
from game.tracks.pack import load_track_ref

SIZES = [(1920, 1080), (1280, 720)]


@pytest.fixture(scope="module")
def display():
    init_pygame(headless=True)
    pygame.display.set_mode((1920, 1080))
    yield


@pytest.fixture(scope="module")
def sprint():
    return load_track_ref("starter/first-sprint", builtin_dir=paths.builtin_tracks_dir())


def scene_on(track, size, seats=("human", "cpu"), place=(), rules="arcade", names=None, **settings):
    """A race scene at ``size``; ``place`` moves cars first: (car, position, velocity)."""
    names = names or [f"P{i + 1}" if k == "human" else f"CPU{i + 1}" for i, k in enumerate(seats)]
    state = RaceState.start(track, preset(rules) if isinstance(rules, str) else rules, names, seed=3)
    cars = list(state.cars)
    for car, position, velocity in place:
        cars[car] = replace(cars[car], position=position, velocity=velocity)
    state = replace(state, cars=tuple(cars))
    drivers = [HumanDriver() if k == "human" else StandInCPU() for k in seats]
    ctl = RaceController(state, [Seat(n, d) for n, d in zip(names, drivers)])
    return RaceScene(ctl, size, settings=RaceSettings(intro=False, camera_drift=False, **settings))


def shot(scene, size, tmp_path, name, seconds=0.3):
    surface = pygame.Surface(size)
    for _ in range(int(seconds * 60)):
        scene.update(1 / 60)
    scene.view.camera.snap()
    scene.view.camera.shake = 0.0
    for inset in scene.view.insets:
        inset.camera.snap()
    for _ in range(30):  # missing paper tiles are drawn a few per frame
        scene.draw(surface)
    pygame.image.save(surface, str(tmp_path / name))
    return pygame.surfarray.pixels3d(surface).transpose(1, 0, 2).copy()


def mask(pixels, color, tol=40):
    """Where the picture has ``color`` (sum of channel differences within ``tol``)."""
    return np.abs(pixels.astype(int) - np.array(color)).sum(axis=2) <= tol


def extent(m, axis) -> int:
    """How many pixels a mask spans along ``axis`` (0: rows, height; 1: columns, width)."""
    idx = np.nonzero(m.any(axis=1 - axis))[0]
    return int(idx[-1] - idx[0] + 1) if len(idx) else 0


def window(a, centre, half):
    x, y = int(round(centre[0])), int(round(centre[1]))
    return a[max(0, y - half):y + half + 1, max(0, x - half):x + half + 1]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_chooser_is_framed_large_enough_to_read_from_the_sofa(display, sprint, size, tmp_path):
    """First Sprint is 72x27 squares: shown whole it would be 17 px a square at 720 lines."""
    scene = scene_on(sprint, size)
    k = size[1] / 1080  # every size is asked for at 1080 lines and scales with the height
    pixels = shot(scene, size, tmp_path, "sofa.png")
    ctl, cam, view = scene.controller, scene.view.camera, scene.view
    pen = view.pens[0]
    centres = view.target_centres(scene._targets(), 0)
    # the grid square, measured between the drawn rings of two neighbouring targets
    left, right = centres[Vec(-1, -1)], centres[Vec(1, -1)]

    def ring_centre(c):  # the middle of the ring's drawn pixels, in window pixels
        half = int(cam.scale * 0.4)
        ys, xs = np.nonzero(window(mask(pixels, pen.color), c, half))
        return xs.mean() + int(round(c[0])) - half, ys.mean() + int(round(c[1])) - half
    (lx, _), (rx, _) = ring_centre(left), ring_centre(right)
    assert (rx - lx) / 2 >= 36 * k - 1, "a grid square is at least 36 px at 1080 lines"
    # a target ring (open circle in the player's colour) across
    ring = window(mask(pixels, pen.color), centres[Vec(1, 1)], int(cam.scale * 0.45))
    assert extent(ring, 1) >= 14 * k and extent(ring, 0) >= 14 * k
    # the CPU's car symbol (its own colour, filled) across
    cpu = ctl.state.cars[1].position
    car = window(mask(pixels, view.pens[1].color), cam.to_screen((cpu.x, cpu.y)), int(cam.scale * 0.6))
    assert extent(car, 1) >= 24 * k and extent(car, 0) >= 24 * k
    # the HUD's smallest text (the figures line: place, speed, lap) from the drawn ink
    layout = hud_layout(size, 2)
    assert scene.view.text.font(layout.small).get_height() >= 22 * k
    card = pixels[:layout.height, (size[0] - layout.width) // 2:(size[0] - layout.width) // 2 + layout.card_w]
    ink = mask(card, theme.HUD_TEXT, tol=90)
    assert extent(ink, 0) >= 16 * k, "the figures' digits are at least 16 px tall (22-px lines)"
    # the camera follows the chooser rather than shrinking the track to fit
    assert cam.following and cam.scale >= 36 * k - 0.25


def test_the_text_size_setting_makes_the_framing_and_the_hud_larger(display, sprint, tmp_path):
    plain = scene_on(sprint, (1280, 720))
    large = scene_on(sprint, (1280, 720), text_scale=1.5)
    shot(plain, (1280, 720), tmp_path, "plain.png")
    shot(large, (1280, 720), tmp_path, "large.png")
    assert large.view.camera.scale >= plain.view.camera.scale * 1.45
    assert font_size((1280, 720), 1.5) >= font_size((1280, 720)) * 1.45


def ring_found(pixels, pen, centre, r) -> bool:
    """Is there a ring of the pen's colour round ``centre`` (enough of its outline drawn)?"""
    around = window(mask(pixels, pen.color), centre, int(r * 1.3) + 2)
    return around.sum() >= 2 * r  # an outline, not a stray pixel


@pytest.mark.parametrize("gap", [1, 2])
def test_two_players_side_by_side_each_see_all_nine_of_their_rings(display, sprint, gap, tmp_path):
    """Two keyboard players a square or two apart, at rest: their 3x3 blocks share nodes."""
    base = RaceState.start(sprint, preset("arcade"), ["A", "B"], seed=3).cars[0].position
    scene = scene_on(sprint, (1920, 1080), seats=("human", "human"),
                     place=[(0, base, Vec(0, 0)), (1, base + Vec(gap, 0), Vec(0, 0))])
    pixels = shot(scene, (1920, 1080), tmp_path, f"adjacent-{gap}.png")
    view, cam = scene.view, scene.view.camera
    targets = scene._targets()
    assert len(targets) == 2 and all(len(t.candidates) == 9 for t in targets)
    drawn = {}
    for t in targets:
        centres = view.target_centres(targets, t.car)
        r = view.board.ring_radius(cam.scale, crowded=True)
        for key, c in centres.items():
            assert ring_found(pixels, view.pens[t.car], c, r), (t.car, key)
            drawn[(t.car, key)] = c
    # no two players' rings on the same spot: every ring has room of its own
    for (a, ka), ca in drawn.items():
        for (b, kb), cb in drawn.items():
            if a < b:
                assert np.hypot(ca[0] - cb[0], ca[1] - cb[1]) >= 2 * r - 1, (ka, kb)
    # the shapes differ too: player 1 draws circles, player 2 squares, as their cars are
    assert (view.pens[0].symbol, view.pens[1].symbol) == ("circle", "square")
    r = view.board.ring_radius(cam.scale, crowded=True)

    def corners_inked(car, c):
        return sum(window(mask(pixels, view.pens[car].color), (c[0] + dx * 0.85 * r, c[1] + dy * 0.85 * r), 1).any()
                   for dx in (-1, 1) for dy in (-1, 1))

    for car, shape_has_corners in ((0, False), (1, True)):
        t = targets[car]
        rings = [c for (who, k), c in drawn.items() if who == car and k != Vec(0, 0)  # not on the car itself
                 and (car == 1 or (1, k - Vec(gap, 0)) not in drawn)]  # circles: away from the squares
        cornered = [corners_inked(car, c) >= 3 for c in rings]
        assert rings, car
        assert cornered == [shape_has_corners] * len(rings), (car, cornered)
    # a click on a ring where it is drawn picks exactly that target, for the player choosing
    shared = next(k for (car, k), c in drawn.items() if car == 0 and (1, k - Vec(gap, 0)) in drawn)
    x, y = drawn[(0, shared)]
    scene.handle(ClickAt("mouse", (int(x), int(y))))
    assert scene.controller.chosen(0) is not None
    assert scene.controller.chosen(0) == base + shared


def test_cars_on_one_node_are_fanned_out_with_a_leader_to_it(display, sprint, tmp_path):
    start = RaceState.start(sprint, preset("arcade"), ["A", "B", "C"], seed=3)
    node = start.cars[0].position + Vec(6, 0)
    scene = scene_on(sprint, (1920, 1080), seats=("cpu", "cpu", "cpu"),
                     place=[(0, node, Vec(1, 0)), (1, node, Vec(1, 0)), (2, node, Vec(1, 0))])
    pixels = shot(scene, (1920, 1080), tmp_path, "stacked.png", seconds=0)  # before the CPUs move
    view, cam = scene.view, scene.view.camera
    x, y = cam.to_screen((node.x, node.y))
    spots = []
    for car in range(3):
        m = window(mask(pixels, view.pens[car].color, tol=30), (x, y), int(cam.scale * 1.4))
        ys, xs = np.nonzero(m)
        assert len(xs) >= (0.5 * cam.scale) ** 2, f"car {car} is visible"
        spots.append((xs.mean(), ys.mean()))
        # the whole symbol is there, not a sliver peeking out from under another car
        assert extent(m, 1) >= 24 and extent(m, 0) >= 20
    for a in range(3):
        for b in range(a + 1, 3):
            assert np.hypot(spots[a][0] - spots[b][0], spots[a][1] - spots[b][1]) >= view.board.car_radius(cam.scale)
    # a thin leader runs back to the node, with a dot on it
    assert mask(window(pixels, (x, y), 2), theme.INK, tol=60).any()


def test_choosers_too_far_apart_get_an_inset_each_instead_of_a_smaller_zoom(display, sprint, tmp_path):
    start = RaceState.start(sprint, preset("arcade"), ["A", "B"], seed=3).cars[0].position
    far = next(Vec(x, y) for x in range(sprint.width - 2, 0, -1) for y in range(sprint.height)
               if sprint.on_road(Vec(x, y)) and abs(x - start.x) > 50)
    scene = scene_on(sprint, (1920, 1080), seats=("human", "human"), place=[(0, start, Vec(0, 0)),
                                                                          (1, far, Vec(0, 0))])
    pixels = shot(scene, (1920, 1080), tmp_path, "inset.png")
    view = scene.view
    assert view.camera.scale >= 36, "nobody is shrunk"
    assert len(view.insets) == 1 and view.insets[0].cars == (1,)
    inset = view.insets[0]
    assert inset.camera.scale == view.camera.scale
    targets = scene._targets()
    r = view.board.ring_radius(inset.camera.scale)
    for key, (cx, cy) in view.target_centres(targets, 1, inset.camera).items():
        assert ring_found(pixels, view.pens[1], (cx + inset.rect.left, cy + inset.rect.top), r), key
    # the inset is framed in the player's own colour
    assert mask(pixels[inset.rect.top - 2:inset.rect.top + 1, inset.rect.centerx - 5:inset.rect.centerx + 5],
                view.pens[1].color, tol=30).any()
    # a click inside the inset picks among the far player's rings as drawn there
    scene.devices = {"mouse": 1}
    key, (cx, cy) = next(iter(view.target_centres(targets, 1, inset.camera).items()))
    scene.handle(ClickAt("mouse", (int(cx + inset.rect.left), int(cy + inset.rect.top))))
    assert scene.controller.chosen(1) == far + key


def test_a_collision_is_labelled_with_the_cars_names(display):
    from game.core.race import CarMove, Collision, Event, PhaseRecord
    moves = (CarMove(0, Vec(0, 0), Vec(3, 0), Vec(3, 0), Vec(3, 0), Vec(0, 0), "racing"),
             CarMove(1, Vec(3, 1), Vec(3, 0), Vec(3, 0), Vec(0, -1), Vec(0, 0), "racing"))
    events = (Event(1, 0, "penalty", "spins out to zero speed", (3, 0)),
              Event(1, 1, "penalty", "spins out to zero speed", (3, 0)))
    record = PhaseRecord(1, (1, 0), {}, moves, events, (Collision((1, 0), (3.0, 0.0), 1.0),))
    assert collision_label(record, record.collisions[0], ["Ada", "Bo"]) == "Ada spins Bo"
    out = (Event(1, 1, "penalty", "out of the race after a collision", (3, 0)),)
    assert collision_label(replace(record, events=out), record.collisions[0], ["Ada", "Bo"]) == "Ada knocks Bo out"


def test_a_countdown_comes_before_the_first_phase(display, sprint, tmp_path):
    from game.presentation.race_scene import COUNT_SECONDS, INTRO_SECONDS, PENCIL_SECONDS
    scene = scene_on(sprint, (1280, 720), seats=("human", "cpu"))
    scene.settings.intro = True
    scene.mode, scene.go_time = "intro", 0.0
    seen = []
    for _ in range(int((INTRO_SECONDS + 1.0) * 60)):
        scene.update(1 / 60)
        word = scene.moment().countdown
        if word and (not seen or seen[-1] != word):
            seen.append(word)
        if scene.mode == "intro" and scene.intro_time > PENCIL_SECONDS + COUNT_SECONDS * 0.5:
            assert scene.controller.chosen(0) is None
    assert seen == ["3", "2", "1", "Go!"]
    assert scene.mode == "choosing" and not scene.moment().countdown, "Go! goes away"
    # the count is drawn large in the middle of the window
    scene.mode, scene.intro_time = "intro", PENCIL_SECONDS + 0.3
    pixels = shot(scene, (1280, 720), tmp_path, "countdown.png", seconds=0)
    ink = mask(pixels[100:400, 440:840], theme.INK, tol=40)
    assert extent(ink, 0) >= 720 * 0.12


def test_reduce_motion_stills_the_shake_the_drift_and_the_pulse(display, sprint):
    scene = scene_on(sprint, (1280, 720), reduce_motion=True)
    scene.settings.camera_drift = True
    cam = scene.view.camera
    scene.update(1 / 60)
    before = cam.offset()
    for _ in range(60):
        scene.update(1 / 60)
    assert cam.offset() == before and cam.drift == 0.0
    assert (cam.center, cam.scale) == (cam.target_center, cam.target_scale), "the camera cuts, never glides"
    moving = scene_on(sprint, (1280, 720))
    moving.settings.camera_drift = True
    for _ in range(60):
        moving.update(1 / 60)
    assert moving.view.camera.drift > 0


def test_a_collision_shakes_in_proportion_to_the_zoom_and_is_labelled_on_screen(display, tmp_path):
    from tests.test_presentation import _crossing_scene
    scene = _crossing_scene()
    scene.update(1 / 60)
    anim = scene.animation
    anim.advance(anim.collision_at[0] + 0.01 - anim.elapsed)
    scene.update(1 / 60)
    cam = scene.view.camera
    assert cam.shake == pytest.approx(cam.scale * 0.35, rel=0.1), "the shake grows with the zoom"
    cam.shake = 0.0
    anim.advance(0.3)
    surface = pygame.Surface(cam.size)
    scene.draw(surface)
    pygame.image.save(surface, str(tmp_path / "collision.png"))
    pixels = pygame.surfarray.pixels3d(surface).transpose(1, 0, 2).copy()
    x, y = cam.to_screen(anim.record.collisions[0].point)
    words = collision_label(anim.record, anim.record.collisions[0], scene.view.names)
    assert words in ("P1 spins P2", "P2 spins P1")
    (band,) = [band for said, band, *_ in scene.view.drawn_labels if said == words]
    assert abs(band.centery - y) <= cam.scale * 1.5 and min(abs(band.left - x), abs(band.right - x)) <= cam.scale * 2.5, \
        "the label stands beside the collision"
    label = mask(pixels[band.top:band.bottom, band.left:band.right], theme.DOOM, tol=60)
    assert extent(label, 1) >= 60, "a label in red beside the collision"

    still = _crossing_scene()
    still.settings.reduce_motion = True
    still.update(1 / 60)
    still.animation.advance(still.animation.collision_at[0] + 0.01 - still.animation.elapsed)
    still.update(1 / 60)
    assert still.view.camera.shake == 0.0, "no shake under reduce motion"


def test_a_car_off_the_road_is_led_back_to_its_restart_node_along_a_pencil_line(display, tmp_path):
    from tests.test_presentation import straight_track
    rules = preset("arcade").with_options(offroad_check="segment", offroad_penalty="reset")
    scene = scene_on(straight_track(start=(3, 2)), (960, 540), seats=("human",), rules=rules,
                     place=[(0, Vec(3, 2), Vec(0, -2))])
    ctl = scene.controller
    ctl.submit(0, ctl.state.base_point(0))  # two squares up: off the three-row road
    scene.update(1 / 60)
    anim = scene.animation
    move = anim.record.moves[0]
    assert move.crash_point is not None and (move.end.x, move.end.y) != move.crash_point, "a crash and a restart"
    stages, between = [], []
    while not anim.done:
        anim.advance(1 / 60)
        frame = anim.frame(move)
        if not stages or stages[-1] != frame.stage:
            stages.append(frame.stage)
        if frame.stage == "restarting":
            between.append(frame.point)
    assert stages[-3:] == ["crashed", "restarting", "restarted"], stages
    (cx, cy), (ex, ey) = move.crash_point, (move.end.x, move.end.y)
    assert any(min(cy, ey) < y < max(cy, ey) or min(cx, ex) < x < max(cx, ex) for x, y in between), \
        "the car slides back along the line instead of jumping"
    anim.elapsed = anim.length - 0.01
    surface = pygame.Surface(scene.view.camera.size)
    scene.view.camera.snap()
    for _ in range(10):
        scene.draw(surface)
    pygame.image.save(surface, str(tmp_path / "restart.png"))


def test_the_race_ends_on_screen_only_after_every_phase_has_played(display, sprint):
    """The CPUs may finish the race in one go while the camera still zooms between phases."""
    scene = scene_on(sprint, (1280, 720), seats=("cpu", "cpu"))
    ctl = scene.controller
    while not ctl.over:
        ctl.tick()
    assert len(ctl.records) > 1
    scene.view.camera.target_scale = scene.view.camera.scale + 5  # mid-zoom when the race is over
    scene.update(1 / 60)
    assert scene.mode != "finished", "the phases not yet shown are played first"
    for _ in range(60 * 60):
        scene.update(1 / 60)
        if scene.mode == "finished":
            break
    assert scene.mode == "finished" and scene.shown == len(ctl.records)


def test_the_race_line_shows_the_par_of_the_race_being_run(display, sprint):
    """The pack's par holds for the track's own rules and laps only: raced another way the
    race line shows the par it is given (the menus work it out), or none at all."""
    own = scene_on(sprint, (1280, 720), rules=sprint.default_rules)
    assert f"(par {sprint.meta['par']})" in own.moment().title
    other = scene_on(sprint, (1280, 720), rules=preset(sprint.default_rules).with_options(terrain="offroad",
                                                                                          collision="spin"))
    assert "par" not in other.moment().title
    other.config = replace(other.config, par=lambda: 12)
    assert "(par 12)" in other.moment().title
    other.config = replace(other.config, par=lambda: "working")
    assert "par" not in other.moment().title


def test_a_replayed_car_winds_up_before_it_moves_and_runs_on_as_it_lands(display):
    """Anticipation and follow-through: drawn on the car only (its pen line stays exact),
    behind its start node as it winds up, past its target as it lands, on the node when the
    phase ends; never under reduce motion."""
    from tests.test_presentation import straight_track

    def car_x(reduce_motion, when):
        scene = scene_on(straight_track(start=(3, 2)), (960, 540), seats=("human",), rules="paper",
                         place=[(0, Vec(3, 2), Vec(2, 0))], reduce_motion=reduce_motion)
        scene.controller.submit(0, scene.controller.state.base_point(0))  # on to (5, 2)
        scene.update(1 / 60)
        anim = scene.animation
        anim.advance(when(anim) - anim.elapsed)  # (a quiet phase is quick: times go by its own length)
        cam = scene.view.camera
        cam.snap()
        surface = pygame.Surface(cam.size)
        for _ in range(5):
            scene.draw(surface)
        pixels = pygame.surfarray.pixels3d(surface).transpose(1, 0, 2).copy()
        colour = scene.view.pens[0].color
        # a row through the car's symbol above its pen line (the line is the car's colour too)
        row = int(round(cam.to_screen((3, 2))[1] - scene.view.board.car_radius(cam.scale) * 0.5))
        xs = np.nonzero(mask(pixels[row - 1:row + 2], colour, tol=30).any(axis=0))[0]
        return (xs.min() + xs.max()) / 2, cam.to_screen((3, 2))[0], cam.to_screen((5, 2))[0], cam.scale, anim

    x, start, target, scale, anim = car_x(False, lambda a: a.move_seconds * 0.1)
    assert x < start - scale * 0.05, "winding up, the car rears back behind its start node"
    x, start, target, scale, anim = car_x(False, lambda a: a.move_seconds + 0.01)
    assert x > target + scale * 0.05, "landing, it runs on past its target"
    x, start, target, scale, anim = car_x(False, lambda a: a.length)
    assert abs(x - target) <= 1, "and settles on it"
    x, start, target, scale, anim = car_x(True, lambda a: a.move_seconds * 0.1)
    assert abs(x - start) <= 2, "under reduce motion the car starts from its node"
    x, start, target, scale, anim = car_x(True, lambda a: a.move_seconds + 0.02)
    assert abs(x - target) <= 2, "and lands on its target"


def test_the_hud_shows_whose_turn_it_is_in_each_players_own_colour(display, sprint, tmp_path):
    """From the sofa: every player still to choose has their HUD card washed in their colour
    and underlined with it; a CPU's card and a player who has chosen have neither."""
    size = (1920, 1080)
    scene = scene_on(sprint, size, seats=("human", "human", "cpu"))
    layout = hud_layout(size, 3)

    def underlined(pixels, car):
        strip = pixels[:layout.height + 4]
        colour = scene.view.pens[car].color
        widest = max(int(mask(strip[y:y + 1], colour, tol=12).sum()) for y in range(strip.shape[0]))
        return widest >= layout.card_w * 0.8

    pixels = shot(scene, size, tmp_path, "turns.png")
    assert underlined(pixels, 0) and underlined(pixels, 1) and not underlined(pixels, 2)
    ctl = scene.controller
    ctl.submit(0, ctl.state.base_point(0))
    pixels = shot(scene, size, tmp_path, "turns-after.png", seconds=0)
    assert not underlined(pixels, 0) and underlined(pixels, 1), "Ada has chosen: only Bo's card is lit"
