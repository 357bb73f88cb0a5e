"""The truth at the finish: a move that ends the race is never marked doomed.

The doomed marks say "after this you can no longer stay on the road". Once a car
crosses the line on its last lap its race is over, so whatever wall lies past the line
does not matter: the tutorial's last card says "cross the chequered line!" and the
targets across it must not be slashed, on the tutorial and on every built-in track.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from dataclasses import replace

import pytest

from game.core import RaceState, Vec, preset
from game.core.progress import Progress
from game.drivers.safety import doomed_targets, on_home_straight
from tests.builtin_packs import builtin_track, track_refs


def on_last_lap(state: RaceState, car: int, position: Vec, velocity: Vec) -> RaceState:
    """``state`` with ``car`` at ``position`` moving by ``velocity``, every lap but the last one
    done and every checkpoint of it taken (the next forward crossing of the line finishes)."""
    checkpoints = len(state.track.checkpoints)
    progress = Progress(laps_done=state.laps - 1, next_checkpoint=checkpoints, balance=(1,) * checkpoints)
    cars = list(state.cars)
    cars[car] = replace(cars[car], position=position, velocity=velocity, progress=progress)
    return replace(state, cars=tuple(cars))


def finishing(state: RaceState, car: int) -> set[Vec]:
    return {c.node for c in state.candidates(car) if c.legal and state.finishes(car, c.node)}


def tutorial_state(position: Vec, velocity: Vec, rules: str = "paper") -> RaceState:
    from game.presentation.menus.tutorial import tutorial_track

    state = RaceState.start(tutorial_track(), preset(rules), ["You"], seed=0)
    return on_last_lap(state, 0, position, velocity)


@pytest.mark.parametrize("rules", ["paper", "arcade"])
def test_the_tutorial_s_last_step_offers_the_line_unmarked(rules):
    """Coming down the last stretch at speed 3, every ring across the line finishes the race
    (some of them past the wall beyond it): none is slashed."""
    state = tutorial_state(Vec(22, 5), Vec(0, 3), rules)
    across = finishing(state, 0)
    assert len(across) >= 6  # the rings on and past the line, the wall ones included
    assert not across & doomed_targets(state, 0)


def test_on_the_home_straight_a_car_that_can_still_reach_the_line_is_not_doomed():
    """Two squares short of the line at speed 3: the next move must cross it and can no
    longer stop before the wall past it, but crossing the line ends the race."""
    state = tutorial_state(Vec(22, 2), Vec(0, 3))
    assert on_home_straight(state, 0)
    doomed = doomed_targets(state, 0)
    assert Vec(22, 5) not in doomed  # keeps speed 3: the next move crosses the line at 8
    # the same place on the first of two laps: the line does not end the race, the wall does
    early = replace(state, laps=2)
    assert not on_home_straight(early, 0)


def test_a_crash_before_the_line_is_still_doomed():
    """Only crossing the line counts: a move into the wall beside the corner stays slashed."""
    state = tutorial_state(Vec(18, 2), Vec(5, 0))
    doomed = doomed_targets(state, 0)
    assert Vec(24, 2) in doomed  # into the corner at speed 6: no road left to brake on


def fastest_run_at_the_line(state: RaceState):
    """A car on the road moving at the highest speed (up to 5 squares) whose base point lies
    across the finish line: the most doomed-looking last move the track can offer."""
    track = state.track
    gate = track.finish
    nodes = gate.cells if hasattr(gate, "cells") else None
    if nodes:
        centre = (sum(c.x for c in nodes) / len(nodes), sum(c.y for c in nodes) / len(nodes))
    else:
        centre = ((gate.a[0] + gate.b[0]) / 2, (gate.a[1] + gate.b[1]) / 2)
    fx, fy = track.forward
    for speed in range(5, 0, -1):
        v = Vec(round(fx * speed), round(fy * speed))
        if v.is_zero():
            continue
        for dx in range(-6, 7):
            for dy in range(-6, 7):
                p = Vec(round(centre[0] - v.x / 2) + dx, round(centre[1] - v.y / 2) + dy)
                hit = gate.crossing(p, p + v)
                if (track.on_road(p) and track.on_road(p - v) and track.segment_on_road(p - v, p)
                        and hit is not None and hit[0] > 0):
                    return p, v
    return None


@pytest.mark.parametrize("ref", track_refs())
def test_no_finishing_move_is_doomed_on_any_builtin_track(ref):
    track = builtin_track(ref)
    state = RaceState.start(track, preset("arcade"), ["A", "B"], seed=0)
    found = fastest_run_at_the_line(state)
    assert found is not None, f"{ref}: no fast run at the line found"
    state = on_last_lap(state, 0, *found)
    across = finishing(state, 0)
    assert across, f"{ref}: no target finishes from {found}"
    assert not across & doomed_targets(state, 0), f"{ref}: a finishing move is marked doomed"
