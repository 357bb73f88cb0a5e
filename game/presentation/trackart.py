"""The track as pencil art, in world coordinates (no pygame here, so it is easy to test).

- :func:`cell_outline` traces the border of a char map's road: the closed loops of cell
  edges between road and off-road squares (a road node's square spans +-0.5 around it).
- :func:`wobble` turns a ruler-straight loop into a hand-drawn one: points every third
  of a square, nudged by a smooth seeded displacement field, so the same track always
  looks the same and neighbouring loops never tear apart at shared corners.
- :func:`track_loops` gives the loops of any track (cell outline or polygon rings).
"""

from __future__ import annotations

import math
import random

import numpy as np

from game.core.geometry import CellRegion, PolygonRegion
from game.core.track import Track

Point = tuple[float, float]


def cell_outline(road: np.ndarray) -> list[list[Point]]:
    """Closed loops along the edges between road cells and the rest, corners only.

    Each loop runs with the road on its right (clockwise around road on a y-down screen);
    the last point is not repeated. Where two road cells touch only at a corner, the
    loops are kept apart there (each turns back into its own cell).
    """
    road = np.asarray(road, dtype=bool)
    h, w = road.shape
    padded = np.zeros((h + 2, w + 2), dtype=bool)
    padded[1:-1, 1:-1] = road
    # Corners in doubled integer coordinates: cell (x, y) spans (2x-1 .. 2x+1, 2y-1 .. 2y+1).
    edges: dict[tuple[int, int], list[tuple[int, int]]] = {}

    def add(a, b):
        edges.setdefault(a, []).append(b)

    ys, xs = np.nonzero(road)
    for x, y in zip(xs.tolist(), ys.tolist()):
        px, py = x + 1, y + 1
        l, r, t, b = 2 * x - 1, 2 * x + 1, 2 * y - 1, 2 * y + 1
        if not padded[py - 1, px]:
            add((l, t), (r, t))  # top edge, going right
        if not padded[py, px + 1]:
            add((r, t), (r, b))  # right edge, going down
        if not padded[py + 1, px]:
            add((r, b), (l, b))  # bottom edge, going left
        if not padded[py, px - 1]:
            add((l, b), (l, t))  # left edge, going up
    loops: list[list[Point]] = []
    while edges:
        start = next(iter(edges))
        loop = [start]
        prev_dir = None
        current = start
        while True:
            outs = edges.get(current)
            if not outs:
                break
            if len(outs) > 1 and prev_dir is not None:
                # A pinch corner: turn right (stay with the cell we came along).
                right = (-prev_dir[1], prev_dir[0])
                nxt = next((o for o in outs if (o[0] - current[0], o[1] - current[1]) == (
                    2 * np.sign(right[0]), 2 * np.sign(right[1]))), outs[0])
            else:
                nxt = outs[0]
            outs.remove(nxt)
            if not outs:
                del edges[current]
            prev_dir = (nxt[0] - current[0], nxt[1] - current[1])
            current = nxt
            if current == start:
                break
            loop.append(current)
        loops.append(_simplify([(x / 2, y / 2) for x, y in loop]))
    return loops


def _simplify(loop: list[Point]) -> list[Point]:
    """Drop points in the middle of straight runs."""
    n = len(loop)
    if n < 4:
        return loop
    kept = []
    for i in range(n):
        a, b, c = loop[i - 1], loop[i], loop[(i + 1) % n]
        if (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]) != 0:
            kept.append(b)
    return kept or loop


def track_loops(track: Track) -> list[list[Point]]:
    """The border loops of a track's road, straight (before any wobble)."""
    region = track.region
    if isinstance(region, PolygonRegion):
        return [[(float(x), float(y)) for x, y in ring] for ring in region.rings]
    if isinstance(region, CellRegion):
        return cell_outline(region.road)
    return cell_outline(region.road_nodes())


class Wobble:
    """A smooth seeded displacement field: ``offset(x, y)`` in squares, the same for the same seed."""

    def __init__(self, seed: int, amplitude: float = 0.06) -> None:
        rng = random.Random(f"wobble/{seed}")
        self.waves = [(rng.uniform(0.6, 1.9) * rng.choice((-1, 1)), rng.uniform(0.6, 1.9) * rng.choice((-1, 1)),
                       rng.uniform(0, 2 * math.pi)) for _ in range(6)]
        self.amplitude = amplitude

    def offset(self, x: float, y: float) -> Point:
        a = self.amplitude / 1.5
        w = self.waves
        dx = sum(math.sin(fx * x + fy * y + ph) for fx, fy, ph in w[:3]) * a
        dy = sum(math.sin(fx * x + fy * y + ph) for fx, fy, ph in w[3:]) * a
        return dx, dy

    def offsets(self, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`offset` of many points at once (arrays of x and y)."""
        a = self.amplitude / 1.5
        w = self.waves
        dx = sum((np.sin(fx * xs + fy * ys + ph) for fx, fy, ph in w[:3]), np.zeros_like(xs)) * a
        dy = sum((np.sin(fx * xs + fy * ys + ph) for fx, fy, ph in w[3:]), np.zeros_like(xs)) * a
        return dx, dy


def wobble(loop: list[Point], field: Wobble, step: float = 0.34, closed: bool = True) -> list[Point]:
    """Resample a loop (or open line) every ``step`` squares and displace it by the field.

    Worked out with numpy: an outline track's border has thousands of points, and the race
    screen does this as it opens.
    """
    pts = np.asarray(list(loop) + ([loop[0]] if closed and loop else []), dtype=float).reshape(-1, 2)
    a, b = pts[:-1], pts[1:]
    n = np.maximum(1, np.ceil(np.hypot(b[:, 0] - a[:, 0], b[:, 1] - a[:, 1]) / step)).astype(np.int64)
    seg = np.repeat(np.arange(len(a)), n)
    t = (np.arange(len(seg)) - np.repeat(np.cumsum(n) - n, n)) / n[seg]
    xy = a[seg] + (b - a)[seg] * t[:, None]
    if not closed and len(pts):
        xy = np.concatenate([xy, pts[-1:]])
    dx, dy = field.offsets(xy[:, 0], xy[:, 1])
    return list(zip((xy[:, 0] + dx).tolist(), (xy[:, 1] + dy).tolist()))


def loop_length(loop: list[Point], closed: bool = True) -> float:
    pts = list(loop) + ([loop[0]] if closed and loop else [])
    return sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(pts, pts[1:]))


def clip_polygon(points: list, left: float, top: float, right: float, bottom: float) -> list:
    """A polygon cut to a rectangle (Sutherland-Hodgman); fills the same pixels inside it."""
    def cut(pts, inside, cross):
        out = []
        n = len(pts)
        for i in range(n):
            p, q = pts[i - 1], pts[i]
            pin, qin = inside(p), inside(q)
            if qin:
                if not pin:
                    out.append(cross(p, q))
                out.append(q)
            elif pin:
                out.append(cross(p, q))
        return out

    def at_x(x):
        return lambda p, q: (x, p[1] + (q[1] - p[1]) * (x - p[0]) / (q[0] - p[0]))

    def at_y(y):
        return lambda p, q: (p[0] + (q[0] - p[0]) * (y - p[1]) / (q[1] - p[1]), y)

    pts = points
    for inside, cross in ((lambda p: p[0] >= left, at_x(left)), (lambda p: p[0] <= right, at_x(right)),
                          (lambda p: p[1] >= top, at_y(top)), (lambda p: p[1] <= bottom, at_y(bottom))):
        if not pts:
            break
        pts = cut(pts, inside, cross)
    return pts
