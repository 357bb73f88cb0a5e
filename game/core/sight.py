"""Night races: which grid nodes the cars' headlights light, and how the light fades.

Under ``sight = "night"`` (:class:`game.core.rules.Sight`) players and CPUs see the road
only where headlights reach; the physics does not change. This module is the one
definition of that light, pure and clock-free, read by the night layer of the screen
(``game/presentation/night.py``) and by the CPUs' memory (``game/drivers/night.py``):

- a car at rest lights a circle of :func:`rest_radius` squares around it;
- a moving car lights a *cone* along its velocity, of half-angle ``acos(sqrt(2/3))``
  (about 35 degrees, chosen so that the test is exact in integers: a node ``d`` away is
  inside when ``3 (d.v)^2 >= 2 |d|^2 |v|^2`` and ``d.v >= 0``), reaching
  ``sight_radius`` squares beyond its speed (the velocity's length, rounded up) so that
  a faster car sees further; plus a circle of :data:`NEAR` squares around it;
- only cars still racing light anything (a finished car is parked, a car out is dark).

What any car lit in the last two phases stays in view, fading out over them:
:func:`fade_weights` gives each remembered phase its brightness at an animation time,
and :func:`glow` the brightness of every node. Masks are bool arrays ``[height, width]``
on the track's node grid, like ``Region.road_nodes()``; distances are counted in paper
squares (``track.scale`` nodes each on fine paper).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Iterable, Sequence

from game.core.vec import Vec

if TYPE_CHECKING:
    import numpy as np

#: The circle round a moving car, in squares (lights the targets beside a slow car).
NEAR = 2
#: Phases over which a lit node fades out after its car has moved on (the issue's "last two phases").
FADE_PHASES = 2
#: The car statuses whose headlights are on (a car that finished or is out of the race is dark).
LIGHTS_ON = ("racing",)


def rest_radius(radius: int) -> int:
    """The circle a car at rest lights, in squares: half the sight radius, rounded up."""
    return (radius + 1) // 2


def reach(radius: int, velocity: Vec, scale: int = 1) -> int:
    """How far a moving car's cone reaches, in nodes: ``radius`` squares beyond its speed.

    The speed is the velocity's length rounded up (``isqrt``, exact), so the node the car
    reaches by keeping its line is always inside the cone.
    """
    v2 = velocity.x * velocity.x + velocity.y * velocity.y
    return radius * scale + (math.isqrt(v2 - 1) + 1 if v2 else 0)


def lit_by_car(position: Vec, velocity: Vec, radius: int, shape: tuple[int, int], scale: int = 1) -> np.ndarray:
    """The nodes one car lights: a bool mask ``[height, width]`` (see the module docstring).

    Only the box the light can reach is computed, so a car costs the same on any size of track.
    """
    import numpy as np

    height, width = shape
    out = np.zeros(shape, dtype=bool)
    vx, vy = velocity.x, velocity.y
    moving = bool(vx or vy)
    far = reach(radius, velocity, scale) if moving else rest_radius(radius) * scale
    x0, x1 = max(0, position.x - far), min(width - 1, position.x + far)
    y0, y1 = max(0, position.y - far), min(height - 1, position.y + far)
    if x0 > x1 or y0 > y1:
        return out
    dx = np.arange(x0, x1 + 1, dtype=np.int64)[None, :] - position.x
    dy = np.arange(y0, y1 + 1, dtype=np.int64)[:, None] - position.y
    d2 = dx * dx + dy * dy
    if not moving:
        out[y0:y1 + 1, x0:x1 + 1] = d2 <= far * far
        return out
    near = NEAR * scale
    dot = dx * vx + dy * vy
    v2 = vx * vx + vy * vy
    cone = (dot >= 0) & (3 * dot * dot >= 2 * d2 * v2) & (d2 <= far * far)
    out[y0:y1 + 1, x0:x1 + 1] = cone | (d2 <= near * near)
    return out


def lit_by_cars(cars: Iterable[tuple[Vec, Vec, str]], radius: int, shape: tuple[int, int],
                scale: int = 1) -> np.ndarray:
    """Every node lit by some of ``cars``, each ``(position, velocity, status)``.

    Only racing cars light anything (:data:`LIGHTS_ON`).
    """
    import numpy as np

    out = np.zeros(shape, dtype=bool)
    for position, velocity, status in cars:
        if status in LIGHTS_ON:
            out |= lit_by_car(position, velocity, radius, shape, scale)
    return out


def lit_now(state) -> np.ndarray:
    """Every node some car of a :class:`~game.core.race.RaceState` lights in this phase (the rules' radius)."""
    track = state.track
    return lit_by_cars(((c.position, c.velocity, c.status) for c in state.cars), state.rules.sight_radius,
                       (track.height, track.width), track.scale)


def lit_after(record, radius: int, shape: tuple[int, int], scale: int = 1) -> np.ndarray:
    """The nodes lit once a phase (a :class:`~game.core.race.PhaseRecord`) is played: where its moves end."""
    return lit_by_cars(((m.end, m.velocity_after, m.status_after) for m in record.moves), radius, shape, scale)


def lit_before(record, radius: int, shape: tuple[int, int], scale: int = 1) -> np.ndarray:
    """The nodes lit as a phase begins, told from its record (every car there was still in the race)."""
    return lit_by_cars(((m.start, m.velocity_before, "racing") for m in record.moves), radius, shape, scale)


def fade_weights(count: int, t: float) -> list[float]:
    """The brightness of each of ``count`` remembered phases' light, oldest first, at animation time ``t``.

    The newest mask is the light of the phase now being played (``t`` from 0 to 1 as the
    cars drive there): it comes up with them. A mask ``j`` phases older than the newest
    is ``j - 1 + t`` phases old and fades linearly to nothing at ``FADE_PHASES + 1``:
    when the replay is over (``t = 1``) the phase before shines at 2/3, the one before
    that at 1/3, and older ones not at all.
    """
    t = min(1.0, max(0.0, t))
    weights = []
    for j in range(count - 1, -1, -1):
        if j == 0:
            weights.append(t)
        else:
            weights.append(max(0.0, 1.0 - (j - 1 + t) / (FADE_PHASES + 1)))
    return weights


def glow(masks: Sequence[np.ndarray], t: float = 1.0) -> np.ndarray:
    """How lit each node is, 0 (dark) to 1, from the lit masks of the last phases (oldest first).

    ``t`` is the animation time of the newest phase (1 once it has played); only the
    last ``FADE_PHASES + 2`` masks can still shine.
    """
    import numpy as np

    if not masks:
        raise ValueError("glow needs at least one lit mask")
    masks = list(masks)[-(FADE_PHASES + 2):]
    out = np.zeros(masks[0].shape, dtype=np.float32)
    for mask, weight in zip(masks, fade_weights(len(masks), t)):
        if weight > 0:
            np.maximum(out, np.where(mask, np.float32(weight), np.float32(0)), out=out)
    return out
