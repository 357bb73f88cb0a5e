"""The race screen from the sofa: nothing hides a car, an empty grid slot is no target, and
what happened in a phase reads in order beside the cars it names."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from dataclasses import replace

import numpy as np
import pygame
import pytest

from game.core import Vec
from game.core.race import CarMove, Event, PhaseRecord
from game.presentation import theme
from game.presentation.animation import PhaseAnimation
from game.presentation.app import init_pygame
from tests.test_presentation import straight_track
from tests.test_presentation_sofa import mask, scene_on, shot

SIZE = (960, 540)


@pytest.fixture(scope="module")
def display():
    init_pygame(headless=True)
    return pygame.display.set_mode(SIZE)


def test_a_car_standing_on_another_player_s_target_is_drawn_over_the_ring(display, tmp_path):
    """P1's square target one square ahead is where CPU2 stands: the CPU's car shows whole,
    and P1's square is drawn round it, wider than the car, so it can still be picked."""
    scene = scene_on(straight_track(start=(3, 2)), SIZE, seats=("human", "cpu"), rules="arcade",
                     place=[(0, Vec(3, 2), Vec(0, 0)), (1, Vec(4, 2), Vec(0, 0))])
    pixels = shot(scene, SIZE, tmp_path, "car-over-ring.png")
    cam = scene.view.camera
    board = scene.view.board
    x, y = (round(v) for v in cam.to_screen((4, 2)))
    cpu, player = scene.view.pens[1].color, scene.view.pens[0].color
    r = board.car_radius(cam.scale)
    core = pixels[y - int(r * 0.4):y + int(r * 0.4) + 1, x - int(r * 0.4):x + int(r * 0.4) + 1]
    assert mask(core, cpu, tol=30).mean() > 0.9, "the CPU's car is not hidden by the player's ring"
    around = r * 1.3 + board.ring_width(cam.scale)
    rim = pixels[y - int(around) - 2:y + int(around) + 3, x - int(around) - 2:x + int(around) + 3]
    outside = np.ones(rim.shape[:2], bool)
    c = rim.shape[0] // 2
    yy, xx = np.mgrid[0:rim.shape[0], 0:rim.shape[1]]
    outside &= np.maximum(abs(yy - c), abs(xx - c)) > r * 1.05  # beyond the car's own square
    assert (mask(rim, player, tol=30) & outside).sum() > 4 * around, "the ring shows round the car"


def test_an_empty_grid_slot_looks_unlike_a_target(display, tmp_path):
    """An empty slot is an open box: its back is open, where a square ring would be closed."""
    track = straight_track(start=(3, 2))
    track = replace(track, start_slots=(Vec(3, 2), Vec(9, 2)))  # slot 2 stays empty
    scene = scene_on(track, SIZE, seats=("human",), rules="arcade")
    pixels = shot(scene, SIZE, tmp_path, "empty-slot.png")
    cam = scene.view.camera
    x, y = cam.to_screen((9, 2))
    s = cam.scale
    pencil = theme.GRAPHITE_LIGHT

    def inked(px, py, tol=60):
        patch = pixels[int(py) - 1:int(py) + 2, int(px) - 1:int(px) + 2]
        return mask(patch, pencil, tol).any()

    # forward is to the right: a front line across the slot, sides trailing back, the back open
    assert inked(x + 0.3 * s, y) and inked(x, y - 0.32 * s) and inked(x, y + 0.32 * s)
    assert not inked(x - 0.45 * s, y), "the back of the box is open (a target ring would close it)"


def record_with_two_events() -> PhaseRecord:
    """Phase 1: P1 drives off the road early in the move, then P2 crosses the line."""
    moves = (CarMove(0, Vec(3, 1), Vec(3, 0), Vec(3, 1), Vec(0, 0), Vec(0, 0), "racing",
                     crash_point=(3.0, 0.5), crash_time=0.5),
             CarMove(1, Vec(4, 2), Vec(6, 2), Vec(6, 2), Vec(2, 0), Vec(2, 0), "finished"))
    events = (Event(1, 0, "off_track", "P1 leaves the road", (3.0, 0.5), 0.5),
              Event(1, 1, "finish", "P2 finishes", (5.5, 2.0), 0.75))
    return PhaseRecord(phase=1, order=(0, 1), choices={0: Vec(3, 0), 1: Vec(6, 2)}, moves=moves, events=events,
                       collisions=())


def test_event_labels_read_oldest_first_and_stand_beside_the_cars_they_name(display):
    scene = scene_on(straight_track(start=(3, 2)), SIZE, seats=("human", "human"), rules="paper",
                     place=[(0, Vec(3, 1), Vec(0, 0)), (1, Vec(4, 2), Vec(2, 0))])
    view = scene.view
    anim = PhaseAnimation(record_with_two_events())
    anim.advance(anim.move_seconds + 0.05)
    cam = view.camera
    cars = {0: cam.to_screen((3.0, 0.5)), 1: cam.to_screen((6.0, 2.0))}
    labels = view.labels(anim, cars, SIZE)
    assert [words for words, *_ in labels] == ["P1 leaves the road", "P2 finishes"]  # in the order they happened
    (_, first, *_), (_, second, *_) = labels
    assert first.top < second.top or not first.colliderect(second)
    r = view.board.car_radius(cam.scale)
    for (_, band, *_), car in zip(labels, (0, 1)):
        cx, cy = cars[car]
        body = pygame.Rect(int(cx - r), int(cy - r), int(2 * r), int(2 * r))
        assert not any(band.colliderect(pygame.Rect(int(x - r), int(y - r), int(2 * r), int(2 * r)))
                       for x, y in cars.values()), "no label covers a car"
        gap = max(0, band.left - body.right, body.left - band.right, band.top - body.bottom, body.top - band.bottom)
        assert gap <= cam.scale, "the label stands beside the car it names"
