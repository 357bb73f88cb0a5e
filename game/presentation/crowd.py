"""Where crowded things are drawn, so that every car and every target stays visible (no pygame).

Two players choosing near each other often have targets on the same node, and cars that
collided stand on one node. Drawn where they really are, one hides the other. This
module moves them apart *on screen* by a fixed fraction of a square, the same way for
drawing and for mouse picking (the race view and the race scene both ask it):

- :func:`ring_offsets`: a node targeted by several players gets one ring per player,
  each pushed into its own quarter of the square round the node. A player's quarter is
  fixed by their rank among the players choosing (first: up-left, second: down-right,
  third: up-right, fourth: down-left), so one player's rings keep the same shift over a
  whole crowded area and never touch another player's rings on a neighbouring node.
- :func:`fan_offsets`: cars standing on one node are fanned out round it (the caller
  draws a thin leader from each back to the node).

Offsets are in paper squares; multiply by the camera's scale for pixels.
"""

from __future__ import annotations

import math
from typing import Hashable, Mapping, Sequence

Point = tuple[float, float]

#: How far (per axis, in squares) a shared target's ring is pushed into its player's quarter.
QUARTER = 0.25
#: Ring radius (squares) on a crowded node: two rings in neighbouring quarters just miss.
CROWDED_RING = 0.24
#: The quarters, by the player's rank among those choosing (then the sides, for ranks 4-7).
_QUARTERS = ((-1, -1), (1, 1), (1, -1), (-1, 1))
_SIDES = ((0, -1), (1, 0), (0, 1), (-1, 0))


def ring_offsets(sets: Sequence[tuple[int, Sequence[tuple[Hashable, Point]]]]) -> dict[tuple[int, Hashable], Point]:
    """Screen shifts (squares) of the target rings of several players choosing at once.

    ``sets`` holds, per player choosing (in a fixed order: their rank), the car and its
    targets as ``(key, node)`` pairs (nodes in squares). Returns ``{(car, key): (dx, dy)}``
    for every target; a target no other player shares gets (0, 0).

    >>> a = (0, [("k1", (0.0, 0.0)), ("k2", (1.0, 0.0))])
    >>> b = (1, [("k1", (0.0, 0.0))])
    >>> ring_offsets([a, b])[(0, "k1")], ring_offsets([a, b])[(1, "k1")], ring_offsets([a, b])[(0, "k2")]
    ((-0.25, -0.25), (0.25, 0.25), (0.0, 0.0))
    """
    sharers: dict[tuple[float, float], set[int]] = {}
    for rank, (_, targets) in enumerate(sets):
        for _, node in targets:
            sharers.setdefault(_key(node), set()).add(rank)
    out: dict[tuple[int, Hashable], Point] = {}
    for rank, (car, targets) in enumerate(sets):
        dx, dy = _QUARTERS[rank % 4] if rank < 4 else _SIDES[rank % 4]
        reach = QUARTER if rank < 4 else QUARTER * 1.2
        for key, node in targets:
            shared = len(sharers[_key(node)]) > 1
            out[(car, key)] = (dx * reach, dy * reach) if shared else (0.0, 0.0)
    return out


def crowded(offsets: Mapping[tuple[int, Hashable], Point], car: int) -> bool:
    """Does any of ``car``'s rings stand shifted (its rings are then drawn a little smaller)?"""
    return any(v != (0.0, 0.0) for (c, _), v in offsets.items() if c == car)


def fan_offsets(points: Mapping[int, Point], spacing: float = 1.0) -> dict[int, Point]:
    """Screen shifts (squares) that fan out cars drawn on the same point.

    ``points`` maps car -> where it is drawn (squares); ``spacing`` is the distance
    between neighbouring cars of a fan, in squares (a car is about 0.8 square across).
    Cars alone on their point get (0, 0). The fan's cars sit on a circle round the
    point, in car order, starting to the right (two cars: right and left).

    >>> fan_offsets({0: (3.0, 4.0), 1: (3.0, 4.0), 2: (9.0, 9.0)})
    {0: (0.5, 0.0), 1: (-0.5, 0.0), 2: (0.0, 0.0)}
    """
    groups: dict[tuple[float, float], list[int]] = {}
    for car in sorted(points):
        groups.setdefault(_key(points[car]), []).append(car)
    out: dict[int, Point] = {}
    for members in groups.values():
        k = len(members)
        if k == 1:
            out[members[0]] = (0.0, 0.0)
            continue
        radius = spacing / 2 / math.sin(math.pi / k)
        for j, car in enumerate(members):
            angle = 2 * math.pi * j / k
            out[car] = (_tidy(radius * math.cos(angle)), _tidy(radius * math.sin(angle)))
    return out


def _key(p: Point) -> tuple[float, float]:
    return (round(float(p[0]), 6), round(float(p[1]), 6))


def _tidy(v: float) -> float:
    """Round away floating-point dust (cos(pi/2) is not quite 0)."""
    return round(v, 9) + 0.0
