"""Movement systems: which target nodes a car may pick from its base point.

A candidate carries the node and a ``key``: its place in the on-screen layout
(for the 9- and 5-target systems the step from the base point, so numpad 7 is
``(-1, -1)``). Later systems add their own shapes here.
"""

from __future__ import annotations

from game.core.vec import Vec

NINE = tuple(Vec(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1))
CROSS = (Vec(0, -1), Vec(-1, 0), Vec(0, 0), Vec(1, 0), Vec(0, 1))


def target_steps(movement: str, velocity: Vec) -> tuple[Vec, ...]:
    """The changes of velocity a car may make in one move under a movement system."""
    if movement == "nine":
        return NINE
    if movement == "cross":
        return CROSS
    raise ValueError(f"unknown movement system {movement!r}")
