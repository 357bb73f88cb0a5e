"""Fair choosing orders, slipstream and catch-up: the rules taken from party board games.

Pure functions the referee (:mod:`game.core.race`) calls, kept apart so each can be
checked on its own:

- :func:`choosing_order`: the order of one phase under ``rotate``, ``snake`` and
  ``by_position`` (the lot orders stay in the race state, which holds the seed).
- :func:`travel_direction`: the compass direction of a velocity, exact in integers.
- :func:`in_slipstream`: does a car end a phase right behind another, going its way.
- :func:`bonus_steps`: the targets slipstream and catch-up add to a car's own, as steps
  from its base point.

Nothing here reads the solver: ``by_position`` and catch-up take each car's moves to go
(``standing``) as an input, which race control reads from the solver's table and the
replay keeps (see ``docs/rules.md``).
"""

from __future__ import annotations

from typing import Sequence

from game.core.rules import Movement, Order
from game.core.vec import ZERO, Vec

#: Movement systems whose targets are a block around the base point, which slipstream and
#: catch-up stretch forward. The others (scalar, graded: whole speeds on 8 headings; flick:
#: no inertia) keep their own targets.
BLOCK_SYSTEMS = (Movement.NINE, Movement.CROSS, Movement.FINE)


def thue_morse_shift(phase: int, cars: int) -> int:
    """Who chooses first in phase ``phase`` (from 0) under ``snake``: the sum of the base-``cars``
    digits of ``phase``, modulo ``cars`` (Prouhet's generalisation of the Thue-Morse sequence).

    With two cars it is the Thue-Morse sequence itself, 0 1 1 0 1 0 0 1 (A B B A B A A B):

    >>> [thue_morse_shift(n, 2) for n in range(8)]
    [0, 1, 1, 0, 1, 0, 0, 1]
    >>> [thue_morse_shift(n, 3) for n in range(9)]
    [0, 1, 2, 1, 2, 0, 2, 0, 1]
    """
    if cars <= 1:
        return 0
    total, n = 0, phase
    while n:
        n, digit = divmod(n, cars)
        total += digit
    return total % cars


def choosing_order(order: Order, phase: int, cars: int,
                   standing: Sequence[int | None] | None = None) -> tuple[int, ...]:
    """The choosing order of phase ``phase + 1`` (``phase`` phases played) of ``cars`` cars.

    ``rotate``: car ``phase mod cars`` first, the others following in grid order round
    the table. ``snake``: the same rotation, shifted by :func:`thue_morse_shift` instead
    of the phase. ``by_position``: the cars with the most moves to go (``standing``,
    None for a car out of the race or not known) first; cars with equal moves to go, and
    every car without a standing, keep their ``rotate`` turn among themselves; with no
    standing at all the order is ``rotate``'s. Other values: grid order.

    >>> choosing_order(Order.ROTATE, 4, 3)
    (1, 2, 0)
    >>> choosing_order(Order.BY_POSITION, 0, 3, (10, 14, 10))
    (1, 0, 2)
    """
    if cars <= 0:
        return ()
    if order == Order.SNAKE:
        first = thue_morse_shift(phase, cars)
    elif order in (Order.ROTATE, Order.BY_POSITION):
        first = phase % cars
    else:
        return tuple(range(cars))
    rotated = tuple((first + k) % cars for k in range(cars))
    if order != Order.BY_POSITION or not standing:
        return rotated
    turn = {car: k for k, car in enumerate(rotated)}

    def key(car: int) -> tuple:
        to_go = standing[car] if car < len(standing) else None
        return (to_go is None, -(to_go or 0), turn[car])

    return tuple(sorted(range(cars), key=key))


def trailing(standing: Sequence[int | None] | None, racing: Sequence[bool]) -> frozenset[int]:
    """The cars catch-up helps: the racing cars with the most moves to go.

    Nobody when fewer than two racing cars have a standing, or when they all have the
    same moves to go (nobody is behind). Cars tied for last all get it.

    >>> sorted(trailing((12, 15, 15), (True, True, True)))
    [1, 2]
    >>> sorted(trailing((12, 15, None), (True, False, True)))
    []
    """
    if not standing:
        return frozenset()
    known = {i: d for i, d in enumerate(standing) if d is not None and i < len(racing) and racing[i]}
    if len(known) < 2 or len(set(known.values())) == 1:
        return frozenset()
    worst = max(known.values())
    return frozenset(i for i, d in known.items() if d == worst)


def travel_direction(velocity: Vec) -> Vec:
    """The compass direction (one of 8 unit steps) nearest a velocity's, ZERO at rest.

    Exact in integers: a velocity is diagonal when its smaller axis is more than
    tan(22.5 degrees) = sqrt(2) - 1 of its larger one, i.e. ``(small + large)**2 > 2 * large**2``
    (never equal for whole numbers).

    >>> travel_direction(Vec(3, 1)), travel_direction(Vec(2, -1)), travel_direction(Vec(-2, 2))
    (Vec(1, 0), Vec(1, -1), Vec(-1, 1))
    """
    x, y = velocity.x, velocity.y
    if x == 0 and y == 0:
        return ZERO
    ax, ay = abs(x), abs(y)
    large, small = max(ax, ay), min(ax, ay)
    sx, sy = (x > 0) - (x < 0), (y > 0) - (y < 0)
    if (small + large) ** 2 > 2 * large * large:
        return Vec(sx, sy)
    return Vec(sx, 0) if ax > ay else Vec(0, sy)


def same_way(a: Vec, b: Vec) -> bool:
    """Two velocities going the same way: both moving, less than 45 degrees apart (exact)."""
    if a == ZERO or b == ZERO:
        return False
    dot = a.x * b.x + a.y * b.y
    return dot > 0 and 2 * dot * dot > (a.x * a.x + a.y * a.y) * (b.x * b.x + b.y * b.y)


def in_slipstream(position: Vec, velocity: Vec, leader_start: Vec, leader_end: Vec, scale: int = 1) -> bool:
    """Whether a car standing at ``position`` after its move ``velocity`` ends a phase in the
    slipstream of a car that drove from ``leader_start`` to ``leader_end`` in that phase.

    It must stand within one square (``scale`` lattice units on fine paper) of the node the
    leader left, both must be moving the same way (:func:`same_way`), and the leader must
    now be ahead of it along the leader's move.

    >>> in_slipstream(Vec(4, 1), Vec(3, 0), Vec(5, 0), Vec(8, 0))
    True
    >>> in_slipstream(Vec(4, 3), Vec(3, 0), Vec(5, 0), Vec(8, 0))
    False
    """
    lead = leader_end - leader_start
    if (position - leader_start).chebyshev() > scale or not same_way(velocity, lead):
        return False
    ahead = leader_end - position
    return ahead.x * lead.x + ahead.y * lead.y > 0


def bonus_steps(movement: str, velocity: Vec, steps: Sequence[Vec], slipstream: bool, catch_up: bool,
                scale: int = 1, zero_move: bool = True) -> tuple[Vec, ...]:
    """The steps (from the base point) slipstream and catch-up add to a car's own ``steps``.

    ``d`` is the car's :func:`travel_direction`, one square long (``scale`` lattice units).
    Slipstream stretches the block of targets one square forward: every own step plus
    ``d``. Catch-up adds one target straight ahead, one square beyond the furthest target
    straight ahead the car already has (with slipstream too). None at rest, none under
    the scalar, graded and flick systems. Returned in a fixed order (by row, then column),
    without the car's own steps; the zero move only when ``zero_move``.

    >>> bonus_steps("nine", Vec(2, 0), [Vec(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)], False, True)
    (Vec(2, 0),)
    >>> len(bonus_steps("nine", Vec(2, 0), [Vec(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)], True, False))
    3
    """
    if not (slipstream or catch_up) or movement not in BLOCK_SYSTEMS:
        return ()
    unit = travel_direction(velocity)
    if unit == ZERO:
        return ()
    d = unit * scale
    own = set(steps)
    reach = set(own)
    if slipstream:
        reach |= {s + d for s in own}
    if catch_up:
        k = 0
        while d * (k + 1) in reach:
            k += 1
        reach.add(d * (k + 1))
    extra = [s for s in reach - own if zero_move or s + velocity != ZERO]
    return tuple(sorted(extra, key=lambda v: (v.y, v.x)))
