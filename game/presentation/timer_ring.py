"""The move timer on screen: a ring round each choosing car that shrinks as its time runs out.

A separate layer of the race screen, drawn over the board after the race view (so a
restyled board or HUD does not touch it, and it does not touch them). It only reads the
controller's :class:`~game.race.timer.MoveTimer`; the seconds left also go into the HUD
card through the race scene's car lines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pygame

from game.presentation import theme

#: Below this many seconds the ring turns red and pulses.
HURRY_SECONDS = 3.0


@dataclass(frozen=True)
class TimerRing:
    """One car's ring: the share of its time left (1..0) and the seconds left."""

    car: int
    fraction: float
    seconds: float


def timer_rings(controller) -> list[TimerRing]:
    """A ring for every car whose choice is wanted now, has a running timer and has not chosen."""
    timer = getattr(controller, "timer", None)
    if timer is None or controller.over:
        return []
    phase = controller.state.phase
    out = []
    for car in controller.waiting_humans():
        if controller.chosen(car) is not None or timer.expired(phase, car):
            continue
        left = timer.remaining(phase, car)
        if left is not None:
            out.append(TimerRing(car, left / timer.seconds, left))
    return out


def seconds_text(seconds: float) -> str:
    """Seconds left as a player reads them: whole seconds, rounded up (1 until the time is up)."""
    return f"{max(0, math.ceil(seconds - 1e-9))}s"


def draw_timer_rings(surface: pygame.Surface, view, state, rings: list[TimerRing], clock: float) -> None:
    """Draw each ring round its car (``view`` is the race's RaceView; ``clock`` in seconds, for the pulse)."""
    cam, board = view.camera, view.board
    for ring in rings:
        car = state.cars[ring.car]
        centre = cam.to_screen((float(car.position.x), float(car.position.y)))
        pen = view.pens[ring.car]
        tall = surface.get_height()
        # big enough to read from a sofa whatever the zoom: about a fortieth of the screen's height
        radius = max(15.0, tall / 40, board.car_radius(cam.scale) * 1.75)
        hurry = ring.seconds <= HURRY_SECONDS
        width = max(4, round(radius / 5), round(tall / 220))
        if hurry:
            width += round(1.5 + 1.5 * math.sin(clock * 12))
        colour = theme.DOOM if hurry else pen.color
        pygame.draw.circle(surface, pen.light, centre, radius, max(1, width // 3))
        fraction = max(0.0, min(1.0, ring.fraction))
        if fraction > 0:
            steps = max(2, int(48 * fraction))
            # from 12 o'clock clockwise round to where the time left ends
            pts = [(centre[0] + radius * math.sin(2 * math.pi * fraction * k / steps),
                    centre[1] - radius * math.cos(2 * math.pi * fraction * k / steps)) for k in range(steps + 1)]
            pygame.draw.lines(surface, colour, False, pts, width)
            for p in (pts[0], pts[-1]):  # round caps
                pygame.draw.circle(surface, colour, p, width / 2)
        size = max(12, int(radius * 0.9), tall // 36)
        label = view.text.render(seconds_text(ring.seconds), size, colour, True)
        rect = label.get_rect(midbottom=(int(centre[0]), int(centre[1] - radius - width)))
        surface.blit(view.text.panel(rect.inflate(6, 2).size, theme.HUD_BG), rect.inflate(6, 2))
        view.text.put(surface, label, rect, seconds_text(ring.seconds))
