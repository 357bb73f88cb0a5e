"""Easing curves and interpolation: every animation in the game is ``lerp(a, b, ease(t))``.

All functions map a fraction ``t`` in [0, 1] to [0, 1] (overshooting ones excepted) and
clamp their input, so callers may pass raw elapsed / duration ratios.
"""

from __future__ import annotations

import math

Point = tuple[float, float]


def clamp(t: float, low: float = 0.0, high: float = 1.0) -> float:
    return low if t < low else high if t > high else t


def linear(t: float) -> float:
    return clamp(t)


def in_out_cubic(t: float) -> float:
    """Slow start, slow end: a pen that accelerates and brakes (the car moves)."""
    t = clamp(t)
    return 4 * t * t * t if t < 0.5 else 1 - (-2 * t + 2) ** 3 / 2


def out_cubic(t: float) -> float:
    """Fast start, gentle landing (markers popping in, the camera settling)."""
    t = clamp(t)
    return 1 - (1 - t) ** 3


def out_back(t: float) -> float:
    """Overshoots a little and settles (a flag being planted)."""
    t = clamp(t)
    c = 1.70158
    return 1 + (c + 1) * (t - 1) ** 3 + c * (t - 1) ** 2


def pulse(t: float) -> float:
    """0 -> 1 -> 0 over the interval (a burst that flares and fades)."""
    t = clamp(t)
    return math.sin(math.pi * t)


def lerp(a: float, b: float, t: float) -> float:
    return a + (b - a) * t


def lerp_pt(a: Point, b: Point, t: float) -> Point:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def approach(current: float, target: float, rate: float, dt: float) -> float:
    """Exponential smoothing toward a target, independent of frame rate (camera follow).

    ``rate`` is how many e-foldings of the remaining distance pass per second.
    """
    return target + (current - target) * math.exp(-rate * dt)
