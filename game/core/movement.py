"""Movement systems: which target nodes a car may pick in one move.

Each candidate has a ``key``: its place in the on-screen layout. For the 9- and
5-target systems the key is the step from the base point, so numpad 7 is
``(-1, -1)``; for the pen flick it is the step from the car itself.
"""

from __future__ import annotations

from game.core.vec import Vec

NINE = tuple(Vec(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1))
CROSS = (Vec(0, -1), Vec(-1, 0), Vec(0, 0), Vec(1, 0), Vec(0, 1))

#: How far a pen flick can slide, in squares (Euclidean).
FLICK_REACH = 6
FLICK = tuple(Vec(dx, dy) for dy in range(-FLICK_REACH, FLICK_REACH + 1) for dx in range(-FLICK_REACH, FLICK_REACH + 1)
              if dx * dx + dy * dy <= FLICK_REACH * FLICK_REACH)


def target_steps(movement: str, velocity: Vec) -> tuple[Vec, ...]:
    """The changes of velocity a car may make in one move (relative to its base point)."""
    if movement == "nine":
        return NINE
    if movement == "cross":
        return CROSS
    if movement == "flick":
        # A flicked pen has no inertia: any node within reach of the car itself.
        return tuple(step - velocity for step in FLICK)
    raise ValueError(f"unknown movement system {movement!r}")


def layout_key(movement: str, velocity: Vec, step: Vec) -> Vec:
    """Where a target sits in the on-screen layout (see module docstring)."""
    return step + velocity if movement == "flick" else step
