"""Movement systems: which target nodes a car may pick in one move.

:func:`target_steps` gives the allowed steps *from the base point* (the car's last
move repeated), so the new velocity is ``velocity + step``. Systems:

- ``nine``: the base point and its 8 neighbours; ``cross``: the base point and its 4
  orthogonal neighbours. With ``braking = "hard"`` a car may also brake by 2 squares
  on an axis where it is doing at least 2 (never reversing in one move).
- ``scalar`` (the "easy" system): cars drive in the 8 compass directions at a whole
  speed; the speed changes by at most 1 and the heading by at most 45 degrees; a 90
  degree turn is allowed only when the new speed is 1; reversing and sharper turns never.
  A stopped car may stay or step to any neighbour.
- ``graded``: graded turns. At speed n a car may go n-1..n+1 squares straight,
  n-2..n turning 45 degrees, n-3..n-1 turning 90 degrees, and so on; never below 1 while
  moving (a moving car cannot stop dead). A stopped car moves 1 square in any direction.
- ``fine`` (millimetre paper): the track is on a lattice 10 times finer
  (:data:`FINE_LATTICE`); the velocity may change anywhere within +-``fine_range``
  squares per axis, in steps of one lattice unit (1/10 square).
- ``flick`` (party mode): no inertia; the pen slides to any node within
  :data:`FLICK_REACH` squares of the car.

Each candidate also has a layout ``key`` (see :func:`layout_key`): for the 3x3 systems
the step from the base point (numpad 7 is ``(-1, -1)``), for the others the new
velocity, so a screen can draw targets where they really are.
"""

from __future__ import annotations

import math
from functools import lru_cache

from game.core.rules import Braking, Movement
from game.core.vec import ZERO, Vec

NINE = tuple(Vec(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1))
CROSS = (Vec(0, -1), Vec(-1, 0), Vec(0, 0), Vec(1, 0), Vec(0, 1))

#: The 8 compass headings, clockwise on screen from "right".
HEADINGS = (Vec(1, 0), Vec(1, 1), Vec(0, 1), Vec(-1, 1), Vec(-1, 0), Vec(-1, -1), Vec(0, -1), Vec(1, -1))

#: How far a pen flick can slide, in squares (Euclidean).
FLICK_REACH = 6
FLICK = tuple(Vec(dx, dy) for dy in range(-FLICK_REACH, FLICK_REACH + 1) for dx in range(-FLICK_REACH, FLICK_REACH + 1)
              if dx * dx + dy * dy <= FLICK_REACH * FLICK_REACH)

#: Lattice units per paper square on fine (millimetre) paper.
FINE_LATTICE = 10

#: Systems whose targets form the classic 3x3 (or cross) block around the base point.
GRID_SYSTEMS = (Movement.NINE, Movement.CROSS)


def lattice(movement: str) -> int:
    """Grid nodes per paper square under a movement system (10 on fine paper, else 1)."""
    return FINE_LATTICE if movement == Movement.FINE else 1


def target_steps(movement: str, velocity: Vec, braking: str = "normal", fine_range: int = 1) -> tuple[Vec, ...]:
    """The steps from the base point a car may make in one move (new velocity = velocity + step)."""
    if movement in GRID_SYSTEMS:
        base = NINE if movement == Movement.NINE else CROSS
        return _with_hard_braking(base, velocity, movement) if braking == Braking.HARD else base
    if movement == Movement.SCALAR:
        return tuple(v - velocity for v in _scalar_velocities(velocity))
    if movement == Movement.GRADED:
        return tuple(v - velocity for v in _graded_velocities(velocity))
    if movement == Movement.FINE:
        return _fine_steps(fine_range * FINE_LATTICE)
    if movement == Movement.FLICK:
        return _flick_steps(velocity)
    raise ValueError(f"unknown movement system {movement!r}")


def allowed_steps(rules, velocity: Vec) -> tuple[Vec, ...]:
    """The steps a rule set lets a car with ``velocity`` make: :func:`target_steps` of its
    movement system, without the zero move (new velocity 0) when ``rules.zero_move`` is off.

    >>> from game.core.rules import preset
    >>> len(allowed_steps(preset("paper"), Vec(1, 0))), len(allowed_steps(preset("karopapier"), Vec(1, 0)))
    (9, 8)
    """
    steps = target_steps(rules.movement, velocity, rules.braking, rules.fine_range)
    if rules.zero_move:
        return steps
    stop = -velocity
    return tuple(step for step in steps if step != stop)


def layout_key(movement: str, velocity: Vec, step: Vec) -> Vec:
    """Where a target sits in the on-screen layout (see module docstring)."""
    return step if movement in GRID_SYSTEMS else step + velocity


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


def _with_hard_braking(base: tuple[Vec, ...], velocity: Vec, movement: str) -> tuple[Vec, ...]:
    """Add braking by 2 on each axis where the car does at least 2 (never a reversal)."""
    brake_x = -2 * _sign(velocity.x) if abs(velocity.x) >= 2 else None
    brake_y = -2 * _sign(velocity.y) if abs(velocity.y) >= 2 else None
    extra: list[Vec] = []
    if movement == Movement.NINE:
        xs = (-1, 0, 1) + ((brake_x,) if brake_x is not None else ())
        ys = (-1, 0, 1) + ((brake_y,) if brake_y is not None else ())
        extra = [Vec(dx, dy) for dy in ys for dx in xs if abs(dx) == 2 or abs(dy) == 2]
    else:
        extra = [Vec(brake_x, 0)] if brake_x is not None else []
        extra += [Vec(0, brake_y)] if brake_y is not None else []
    return base + tuple(sorted(extra, key=lambda v: (v.y, v.x)))


def heading_and_speed(velocity: Vec) -> tuple[int, int]:
    """Compass heading (an index into HEADINGS) and whole speed of a velocity.

    A velocity off the 8 headings (only a change of rules mid-race could leave one)
    takes the nearest heading by angle.
    """
    speed = velocity.chebyshev()
    if speed == 0:
        return 0, 0
    if abs(velocity.x) in (0, speed) and abs(velocity.y) in (0, speed):
        return HEADINGS.index(Vec(_sign(velocity.x), _sign(velocity.y))), speed
    return round(math.atan2(velocity.y, velocity.x) / (math.pi / 4)) % 8, speed


def _turn_steps(heading: int, eighths: int) -> set[int]:
    return {(heading + eighths) % 8, (heading - eighths) % 8}


@lru_cache(maxsize=1024)
def _scalar_velocities(velocity: Vec) -> tuple[Vec, ...]:
    heading, speed = heading_and_speed(velocity)
    if speed == 0:
        return (ZERO,) + HEADINGS
    result: set[Vec] = set()
    for new_speed in (speed - 1, speed, speed + 1):
        if new_speed == 0:
            result.add(ZERO)
            continue
        headings = {heading} | _turn_steps(heading, 1)
        if new_speed == 1:
            headings |= _turn_steps(heading, 2)
        result.update(HEADINGS[h] * new_speed for h in headings)
    return tuple(sorted(result, key=lambda v: (v.y, v.x)))


@lru_cache(maxsize=1024)
def _graded_velocities(velocity: Vec) -> tuple[Vec, ...]:
    heading, speed = heading_and_speed(velocity)
    if speed == 0:
        return HEADINGS
    result: set[Vec] = set()
    for eighths in range(0, 5):  # 0, 45, 90, 135, 180 degrees
        low, high = max(1, speed - 1 - eighths), speed + 1 - eighths
        for new_speed in range(low, high + 1):
            result.update(HEADINGS[h] * new_speed for h in _turn_steps(heading, eighths))
    return tuple(sorted(result, key=lambda v: (v.y, v.x)))


@lru_cache(maxsize=4)
def _fine_steps(reach: int) -> tuple[Vec, ...]:
    return tuple(Vec(dx, dy) for dy in range(-reach, reach + 1) for dx in range(-reach, reach + 1))


@lru_cache(maxsize=1024)
def _flick_steps(velocity: Vec) -> tuple[Vec, ...]:
    return tuple(step - velocity for step in FLICK)
