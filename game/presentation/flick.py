"""The pen-flick aiming UI: turn the aim with the stick or keys, time the swinging strength meter.

In the ``flick`` party mode a player does not pick one of nine dots: they aim a
direction (d-pad / stick / a key of their block sets one of 8 directions; the arrow
keys turn the aim 10 degrees at a time; the mouse points), watch a strength meter swing
up and down, and press Confirm (A, Enter, Space, the middle key of their block, or a
click) to flick. The pen slides to the legal node nearest the point the flick reaches
(:func:`game.drivers.flick.landing_node`); a ring shows where a flick now would land.

:class:`FlickAim` is one player's aim and meter (no pygame: time is passed in);
:class:`FlickControls` routes input actions to the aims of the cars that are choosing;
:func:`draw_flick` draws the aim arrow, the landing ring and the meter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from game.core.movement import FLICK_REACH
from game.core.vec import Vec
from game.drivers.flick import flick_point, landing_node
from game.presentation import input as actions
from game.presentation.input import ClickAt, Confirm, MoveCursor, PickKey, PointAt, Select

#: The analog stick action (``Aim(source, x, y)``), where the input layer provides one.
Aim = getattr(actions, "Aim", None)
#: How far the analog stick must lean before it turns the aim (so letting go keeps it).
STICK_LEAN = 0.6

#: Seconds for the meter to swing from empty to full and back.
METER_PERIOD = 1.6
#: Turning the aim with the arrow keys, in degrees per press.
NUDGE_DEGREES = 10.0


def meter_strength(clock: float, period: float = METER_PERIOD) -> float:
    """The swinging meter at ``clock`` seconds: a triangle wave 0 -> 1 -> 0, never quite 0.

    >>> meter_strength(0.4, 1.6), meter_strength(0.8, 1.6), meter_strength(1.2, 1.6)
    (0.55, 1.0, 0.55)
    """
    phase = (clock % period) / period
    wave = 2 * phase if phase < 0.5 else 2 * (1 - phase)
    return round(0.1 + 0.9 * wave, 6)


@dataclass
class FlickAim:
    """One player's flick: the aim angle (radians, 0 = right, pi/2 = down) and the meter clock."""

    angle: float = 0.0
    clock: float = 0.0

    @property
    def strength(self) -> float:
        return meter_strength(self.clock)

    def point_at(self, dx: float, dy: float) -> None:
        if dx or dy:
            self.angle = math.atan2(dy, dx)

    def nudge(self, steps: int) -> None:
        self.angle += math.radians(NUDGE_DEGREES) * steps

    def reach(self, position: Vec) -> tuple[float, float]:
        """The point a flick made now would reach."""
        return flick_point(position, self.angle, self.strength, FLICK_REACH)


@dataclass(frozen=True)
class PhoneFlick(actions.Action):
    """A phone flicked its pen in ``phase`` (``game.presentation.phones`` makes it from the
    phone's message): ``angle`` in radians (0 = right, pi/2 = down), ``strength`` 0..1 as the
    phone's meter stood when its player tapped."""

    angle: float = 0.0
    strength: float = 0.0
    phase: int = 0


class FlickControls:
    """Turns actions into aims and flicks for the cars choosing in a flick race.

    ``scene`` is the race scene: it supplies ``car_for(source)``, the ``controller`` and
    its ``view.camera`` (for the mouse). :meth:`handle` returns True when it used the
    action; a flick submits the landing node to the controller.
    """

    def __init__(self, scene) -> None:
        self.scene = scene
        self.aims: dict[int, FlickAim] = {}
        self.flicked: list[tuple[int, Vec]] = []  # (car, node) of every flick made (for sound and tests)

    def aim(self, car: int) -> FlickAim:
        if car not in self.aims:
            ctl = self.scene.controller
            fx, fy = ctl.state.track.forward
            # Start aiming along the car's motion (or the track's forward direction at rest).
            v = ctl.state.cars[car].velocity
            self.aims[car] = FlickAim(angle=math.atan2(v.y, v.x) if (v.x or v.y) else math.atan2(fy, fx),
                                      clock=0.37 * car)
        return self.aims[car]

    def update(self, dt: float) -> None:
        for aim in self.aims.values():
            aim.clock += dt

    def choosing(self) -> list[int]:
        ctl = self.scene.controller
        return [car for car in ctl.waiting_humans() if ctl.chosen(car) is None]

    def landing(self, car: int) -> Vec | None:
        """Where a flick by ``car`` right now would land (None if it has no legal target)."""
        ctl = self.scene.controller
        here = ctl.state.cars[car].position
        return landing_node(ctl.candidates(car), self.aim(car).reach(here), here)

    def handle(self, action) -> bool:
        if isinstance(action, PhoneFlick):
            self.phone_flick(action)
            return True
        if isinstance(action, PickKey):
            return True  # a phone flicks (PhoneFlick): it never puts its pen on a node of its choosing
        if Aim is not None and isinstance(action, Aim):
            car = self.scene.car_for(action.source)
            if car is not None and car in self.choosing() and math.hypot(action.x, action.y) >= STICK_LEAN:
                self.aim(car).point_at(action.x, action.y)  # the stick aims at any angle
            return True
        if not isinstance(action, (Select, MoveCursor, Confirm, PointAt, ClickAt)):
            return False
        car = self.scene.car_for(action.source)
        if car is None or car not in self.choosing():
            return isinstance(action, (Select, MoveCursor, Confirm))
        aim = self.aim(car)
        if isinstance(action, Select):
            if getattr(action, "stick", False) and Aim is not None:
                return True  # the analog stick aims through Aim, at any angle
            if action.dx or action.dy:
                aim.point_at(action.dx, action.dy)
            elif action.confirm:
                self.flick(car)
        elif isinstance(action, MoveCursor):
            aim.nudge(action.dx or action.dy)
        elif isinstance(action, Confirm):
            self.flick(car)
        else:
            wx, wy = self.scene.view.camera.to_world(action.pos)
            here = self.scene.controller.state.cars[car].position
            aim.point_at(wx - here.x, wy - here.y)
            if isinstance(action, ClickAt):
                self.flick(car)
        return True

    def phone_flick(self, action) -> Vec | None:
        """A phone's flick: its own aim and meter, read when its player tapped (a flick meant
        for another phase, or from a car not choosing, is dropped)."""
        car = self.scene.car_for(action.source)
        ctl = self.scene.controller
        if car is None or car not in self.choosing() or action.phase != ctl.state.phase:
            return None
        here = ctl.state.cars[car].position
        node = landing_node(ctl.candidates(car), flick_point(here, action.angle, action.strength), here)
        if node is None:
            return None
        ctl.submit(car, node)
        self.flicked.append((car, node))
        return node

    def shown(self) -> list[int]:
        """The choosing cars whose aim and meter the TV draws: not a phone's (it aims on the
        phone, and under blind picks the TV shows nothing of it)."""
        phones = self.scene.phone_cars()
        return [car for car in self.choosing() if car not in phones]

    def flick(self, car: int) -> Vec | None:
        """Flick now: submit the landing node at the meter's current strength."""
        node = self.landing(car)
        if node is None:
            return None
        self.scene.controller.submit(car, node)
        self.flicked.append((car, node))
        self.aims.pop(car, None)  # the next move starts a fresh swing
        return node


def draw_flick(surface, scene, controls: FlickControls) -> None:
    """The aim arrow, the reach of the flick, the landing ring and the meter of each choosing car."""
    import pygame

    from game.presentation import theme

    cam, board = scene.view.camera, scene.view.board
    ctl = scene.controller
    for car in controls.shown():
        pen = board.pens[car]
        aim = controls.aim(car)
        here = ctl.state.cars[car].position
        c = cam.to_screen((here.x, here.y))
        ring = FLICK_REACH * cam.scale
        pygame.draw.circle(surface, pen.light, c, ring, 1)
        full = flick_point(here, aim.angle, 1.0)
        tip = cam.to_screen(aim.reach(here))
        pygame.draw.line(surface, pen.light, c, cam.to_screen(full), max(1, int(cam.scale / 10)))
        pygame.draw.line(surface, pen.color, c, tip, max(2, int(cam.scale / 6)))
        pygame.draw.circle(surface, pen.color, tip, max(3.0, cam.scale * 0.12))
        node = controls.landing(car)
        if node is not None:
            p = cam.to_screen((node.x, node.y))
            pygame.draw.circle(surface, pen.color, p, board.highlight_radius(cam.scale), 2)
            theme.draw_symbol(surface, pen.symbol, p, max(3.0, cam.scale * 0.18), pen.light, outline=None)
        # The meter: a pencil-box bar beside the car, filled to the current strength.
        h = max(40.0, cam.scale * 3.0)
        w = max(8.0, cam.scale * 0.45)
        x = c[0] + board.car_radius(cam.scale) + w
        top = c[1] - h / 2
        pygame.draw.rect(surface, theme.PAPER, (x, top, w, h))
        fill = h * aim.strength
        pygame.draw.rect(surface, pen.color, (x, top + h - fill, w, fill))
        pygame.draw.rect(surface, theme.INK, (x, top, w, h), 1)
