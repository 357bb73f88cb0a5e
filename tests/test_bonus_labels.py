"""Slipstream and catch-up in words on the race screen (issue 26): the phase that puts a car in
another's slipstream says so beside it, and while a car chooses, the reason for its extra
target (the ring with a plus) stands beside it ("P2: slipstream", "P2: catch-up"), never over
a ring. Under formula1 the first crossing of the line is labelled "starts lap 1"."""

from __future__ import annotations

import os
from dataclasses import replace

import pygame
import pytest

from game.core import RaceState, Vec, preset
from game.core.race import CarMove, Event, PhaseRecord
from game.drivers.base import HumanDriver
from game.presentation.animation import PhaseAnimation
from game.presentation.app import init_pygame
from game.presentation.race_scene import RaceScene, RaceSettings
from game.presentation.race_view import Targets
from game.race.controller import RaceController, Seat
from tests.test_presentation import straight_track
from tests.test_presentation_sofa import shot

SIZE = (1920, 1080)


@pytest.fixture(scope="module")
def display():
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    init_pygame()
    yield  # pygame stays up: quitting it here unplugged later test files' virtual pads


def party_scene(slipstream: bool, standing=None, rules="party", behind=1):
    """Two humans on the straight, one right behind the other (car ``behind``, P2 unless said)
    and both moving right; it is in the other's slipstream when ``slipstream``; ``standing``
    the moves each has to go (catch-up reads it)."""
    state = RaceState.start(straight_track(start=(5, 2)), preset(rules), ["P1", "P2"], seed=3)
    ahead = dict(position=Vec(6, 2), velocity=Vec(2, 0), moves=3)
    back = dict(position=Vec(4, 2), velocity=Vec(2, 0), moves=3, slipstream=slipstream)
    cars = tuple(replace(c, **(back if i == behind else ahead)) for i, c in enumerate(state.cars))
    state = replace(state, cars=cars).with_standing(standing)
    ctl = RaceController(state, [Seat(n, HumanDriver()) for n in ("P1", "P2")])
    return RaceScene(ctl, SIZE, settings=RaceSettings(intro=False, camera_drift=False)), state


def offered(scene, state, car=1):
    view = scene.view
    targets = [Targets(car, state.candidates(car), None, base=state.base_point(car))]
    cars = {i: view.camera.to_screen((c.position.x, c.position.y)) for i, c in enumerate(state.cars)}
    return view, targets, view.offer_labels(state, targets, cars, SIZE)


@pytest.mark.parametrize("slip, standing, words", [
    (True, None, "P2: slipstream"),
    (False, (5, 9), "P2: catch-up"),
    (True, (5, 9), "P2: slipstream + catch-up"),
])
def test_the_reason_for_an_extra_target_stands_beside_the_chooser_and_over_no_ring(display, slip, standing, words):
    scene, state = party_scene(slip, standing)
    assert any(c.bonus for c in state.candidates(1))  # the plus ring is there to explain
    view, targets, labels = offered(scene, state)
    assert [w for w, *_ in labels] == [words]
    (_, band, color, _), = labels
    assert color == view.pens[1].color
    scale = view.camera.scale
    group = [view.camera.to_screen((4, 2)), *view.target_centres(targets, 1).values()]  # P2 and its rings
    near = pygame.Rect(group[0], (1, 1)).unionall([pygame.Rect(p, (1, 1)) for p in group])
    gap = max(0, band.left - near.right, near.left - band.right, band.top - near.bottom, near.top - band.bottom)
    assert gap <= scale, "the words stand beside P2 and its rings"
    for x, y in group[1:]:
        assert not band.inflate(-2, -2).colliderect(pygame.Rect(x - scale / 4, y - scale / 4, scale / 2, scale / 2)), \
            "the words cover no target"


def test_no_words_when_nothing_extra_is_offered(display):
    scene, state = party_scene(False, (9, 5))  # P2 ahead by the standing: no catch-up, no slipstream
    assert not any(c.bonus for c in state.candidates(1))
    assert offered(scene, state)[2] == []
    scene, state = party_scene(True, None, rules="arcade")  # the rule off: a stale mark gives nothing
    assert offered(scene, state)[2] == []


def test_a_slipstream_and_a_formula1_lap_start_are_labelled_when_they_happen(display):
    scene, state = party_scene(False)
    moves = (CarMove(0, Vec(6, 2), Vec(8, 2), Vec(8, 2), Vec(2, 0), Vec(2, 0), "racing"),
             CarMove(1, Vec(4, 2), Vec(6, 2), Vec(6, 2), Vec(2, 0), Vec(2, 0), "racing"))
    events = (Event(1, 1, "slipstream", "P2 is in P1's slipstream", (6.0, 2.0), 1.0),
              Event(1, 0, "lap", "P1 starts lap 1", (7.5, 2.0), 0.75))
    record = PhaseRecord(phase=1, order=(0, 1), choices={0: Vec(8, 2), 1: Vec(6, 2)}, moves=moves,
                         events=events, collisions=())
    anim = PhaseAnimation(record)
    anim.advance(anim.move_seconds + 0.05)
    view = scene.view
    cars = {0: view.camera.to_screen((8.0, 2.0)), 1: view.camera.to_screen((6.0, 2.0))}
    labels = {w: color for w, _, color, _ in view.labels(anim, cars, SIZE)}
    assert labels == {"P2 is in P1's slipstream": view.pens[1].color, "P1 starts lap 1": view.pens[0].color}


def state_chooser() -> int:
    """The car that chooses first in the party race of :func:`party_scene` (rotate order)."""
    return party_scene(False)[1].to_choose()[0]


def test_a_party_race_screen_shows_the_slipstream_words(display, tmp_path):
    scene, state = party_scene(True, behind=state_chooser())
    chooser = state.to_choose()[0]
    shot(scene, SIZE, tmp_path, "party-slipstream.png")
    assert [w for w, *_ in scene.view.drawn_labels] == [f"P{chooser + 1}: slipstream"]
    if os.environ.get("RACETRACK_SHOTS"):
        pygame.image.save(pygame.image.load(str(tmp_path / "party-slipstream.png")),
                          os.path.join(os.environ["RACETRACK_SHOTS"], "party-slipstream.png"))
