"""Generate the built-in level packs from hand-placed centre lines.

Run from the repository root::

    python tools/make_outline_tracks.py            # rewrite tracks/*.toml, keeping pinned pars
    python tools/make_outline_tracks.py --solve    # also recompute every par with the solver
    python tools/make_outline_tracks.py --check    # only report widths and grids, write nothing

Each track below is a centre line (control points placed by hand on squared paper), a road
width at each control point and a little hand-drawn wobble. The script turns that into
either a char map (every node within half a width of the centre line is road) or an outline
(the two border curves, as a freehand polygon with the infield as an island), then places
the finish line, checkpoints and an eight-car start grid. The output is committed; the
``par`` of each track is read back from the existing pack file (or recomputed with
``--solve``), because a par is pinned by a test and only changes on purpose.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Design:
    """One track as drawn: the centre line and what to put where along it."""

    id: str
    name: str
    kind: str  # "char" or "outline"
    points: list[tuple[float, float]]  # centre-line control points
    widths: list[float]  # road width (squares) at each control point
    laps: int
    description: str
    finish_at: float  # position along the control points (index + fraction)
    checkpoints: list[float] = field(default_factory=list)
    loop: bool = True  # a circuit; False: a point-to-point sprint
    smooth: bool = True  # Catmull-Rom spline through the points; False: straight legs
    wobble: float = 0.25  # amplitude of the hand-drawn wobble of each border, squares
    seed: int = 1
    rules: str = "paper"
    corner_radius: float = 0.0  # for straight legs: round the corners a little
    # Outline tracks: which grid node (0 = furthest along) is slot 1: a car racing alone stands there, so it must be
    # a fastest start, or par could not be driven solo; --solve names the best slot when it is not.
    pole: int = 0
    # The whole drawing shrunk (road widths kept): how long a track was redrawn shorter, so its default
    # race fits a couch evening (issue 23: 2 to 4 minutes, about 20 to 36 moves).
    scale: float | tuple[float, float] = 1.0  # or (across, down)


# ----------------------------------------------------------------------------- curves
def _catmull(points: np.ndarray, samples: int, loop: bool) -> tuple[np.ndarray, np.ndarray]:
    """Dense points on a centripetal-ish uniform Catmull-Rom curve and their parameter u."""
    n = len(points)
    pts, us = [], []
    segments = n if loop else n - 1
    for i in range(segments):
        p0 = points[(i - 1) % n] if loop or i > 0 else 2 * points[0] - points[1]
        p1 = points[i % n]
        p2 = points[(i + 1) % n]
        p3 = points[(i + 2) % n] if loop or i + 2 < n else 2 * points[-1] - points[-2]
        for k in range(samples):
            t = k / samples
            t2, t3 = t * t, t * t * t
            pts.append(0.5 * ((2 * p1) + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t2
                              + (-p0 + 3 * p1 - 3 * p2 + p3) * t3))
            us.append(i + t)
    if not loop:
        pts.append(points[-1])
        us.append(n - 1)
    return np.array(pts), np.array(us)


def _polyline(points: np.ndarray, samples: int, loop: bool, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Dense points along straight legs, corners rounded with a small radius."""
    n = len(points)
    pts, us = [], []
    segments = n if loop else n - 1
    for i in range(segments):
        a, b = points[i % n], points[(i + 1) % n]
        for k in range(samples):
            t = k / samples
            pts.append(a + (b - a) * t)
            us.append(i + t)
    if not loop:
        pts.append(points[-1])
        us.append(n - 1)
    pts = np.array(pts)
    if radius > 0:  # a few passes of neighbour averaging rounds the corners only
        passes = int(radius * samples / 4) + 1
        for _ in range(passes):
            if loop:
                pts = (np.roll(pts, 1, 0) + 2 * pts + np.roll(pts, -1, 0)) / 4
            else:
                pts[1:-1] = (pts[:-2] + 2 * pts[1:-1] + pts[2:]) / 4
    return pts, np.array(us)


def _interp_width(widths: list[float], us: np.ndarray, loop: bool) -> np.ndarray:
    """Widths between control points, eased (cosine) so the road swells smoothly."""
    n = len(widths)
    out = np.empty(len(us))
    for k, u in enumerate(us):
        i = int(math.floor(u)) % n
        t = u - math.floor(u)
        j = (i + 1) % n if loop else min(i + 1, n - 1)
        e = (1 - math.cos(math.pi * t)) / 2
        out[k] = widths[i] * (1 - e) + widths[j] * e
    return out


def _wobble(rng: random.Random, length: float, s: np.ndarray, amplitude: float, loop: bool) -> np.ndarray:
    """A smooth random offset along the arc length: the unsteady hand of whoever drew it."""
    total = np.zeros(len(s))
    for _ in range(4):
        cycles = rng.randint(3, 14) if loop else rng.uniform(2, 12)
        phase = rng.uniform(0, 2 * math.pi)
        total += rng.uniform(0.3, 1.0) * np.sin(2 * math.pi * cycles * s / length + phase)
    return amplitude * total / 2


@dataclass
class Curve:
    centre: np.ndarray  # (n, 2)
    u: np.ndarray
    s: np.ndarray  # arc length
    tangent: np.ndarray
    normal: np.ndarray  # to the left of the tangent in screen coordinates (x right, y down)
    width: np.ndarray
    left: np.ndarray
    right: np.ndarray

    def index_at(self, u: float) -> int:
        return int(np.argmin(np.abs(self.u - u)))


def build_curve(d: Design, spacing: float = 1.0) -> Curve:
    pts = np.array(d.points, dtype=float) * np.array(d.scale, dtype=float)
    if d.smooth:
        dense, us = _catmull(pts, 40, d.loop)
    else:
        dense, us = _polyline(pts, 40, d.loop, d.corner_radius)
    seg = np.linalg.norm(np.diff(dense, axis=0, append=dense[:1] if d.loop else dense[-1:]), axis=1)
    s = np.concatenate([[0], np.cumsum(seg)[:-1]])
    length = float(s[-1] + seg[-1]) if d.loop else float(s[-1])
    count = max(8, int(length / spacing))
    targets = np.linspace(0, length, count, endpoint=not d.loop)
    cx = np.interp(targets, s, dense[:, 0], period=length if d.loop else None)
    cy = np.interp(targets, s, dense[:, 1], period=length if d.loop else None)
    u = np.interp(targets, s, us)
    centre = np.stack([cx, cy], axis=1)
    if d.loop:
        tangent = np.roll(centre, -1, 0) - np.roll(centre, 1, 0)
    else:
        tangent = np.gradient(centre, axis=0)
    tangent /= np.linalg.norm(tangent, axis=1, keepdims=True)
    normal = np.stack([tangent[:, 1], -tangent[:, 0]], axis=1)
    width = _interp_width(d.widths, u, d.loop)
    rng = random.Random(d.seed)
    wl = _wobble(rng, length, targets, d.wobble, d.loop)
    wr = _wobble(rng, length, targets, d.wobble, d.loop)
    left = centre + normal * (width / 2 + wl)[:, None]
    right = centre - normal * (width / 2 + wr)[:, None]
    return Curve(centre, u, targets, tangent, normal, width, left, right)


# ----------------------------------------------------------------------------- checks
def _segments_cross(a, b, c, d) -> bool:
    def orient(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    o1, o2, o3, o4 = orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)
    return o1 * o2 < 0 and o3 * o4 < 0


def ring_is_simple(ring: np.ndarray) -> bool:
    n = len(ring)
    for i in range(n):
        a, b = ring[i], ring[(i + 1) % n]
        lo = np.minimum(a, b)
        hi = np.maximum(a, b)
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue
            c, e = ring[j], ring[(j + 1) % n]
            if max(c[0], e[0]) < lo[0] or min(c[0], e[0]) > hi[0] or max(c[1], e[1]) < lo[1] \
                    or min(c[1], e[1]) > hi[1]:
                continue
            if _segments_cross(a, b, c, e):
                return False
    return True


def min_gap(a: np.ndarray, b: np.ndarray) -> float:
    """Smallest distance from points of a to points of b (dense enough rings)."""
    best = math.inf
    for lo in range(0, len(a), 256):
        d = np.linalg.norm(a[lo:lo + 256, None, :] - b[None, :, :], axis=2)
        best = min(best, float(d.min()))
    return best


# ----------------------------------------------------------------------------- char maps
DIRS = {(1, 0): "right", (-1, 0): "left", (0, 1): "down", (0, -1): "up"}


def _axis(t: np.ndarray) -> tuple[int, int]:
    if abs(t[0]) >= abs(t[1]):
        return (1 if t[0] > 0 else -1, 0)
    return (0, 1 if t[1] > 0 else -1)


def _run(grid: np.ndarray, x: int, y: int, along: tuple[int, int]) -> list[tuple[int, int]]:
    """The contiguous road nodes through (x, y) in direction ``along`` (both ways)."""
    cells = []
    for sign in (-1, 1):
        k = 0 if sign == 1 else 1
        while True:
            cx, cy = x + sign * k * along[0], y + sign * k * along[1]
            if not (0 <= cy < grid.shape[0] and 0 <= cx < grid.shape[1]) or grid[cy, cx] == "X":
                break
            cells.append((cx, cy))
            k += 1
    return cells


def make_char(d: Design, margin: int = 2) -> dict:
    curve = build_curve(d, spacing=0.25)
    pts = np.concatenate([curve.left, curve.right, curve.centre])
    shift = np.floor(pts.min(axis=0)) - margin
    c = curve.centre - shift
    width = int(math.ceil(pts[:, 0].max() - shift[0])) + margin + 1
    height = int(math.ceil(pts[:, 1].max() - shift[1])) + margin + 1
    rng = random.Random(d.seed + 7)
    half_l = curve.width / 2 + _wobble(rng, curve.s[-1], curve.s, d.wobble, d.loop)
    half_r = curve.width / 2 + _wobble(rng, curve.s[-1], curve.s, d.wobble, d.loop)
    ys, xs = np.mgrid[0:height, 0:width]
    nodes = np.stack([xs.ravel(), ys.ravel()], axis=1).astype(float)
    road = np.zeros(len(nodes), dtype=bool)
    for lo in range(0, len(nodes), 2048):
        p = nodes[lo:lo + 2048]
        diff = p[:, None, :] - c[None, :, :]
        dist = np.linalg.norm(diff, axis=2)
        k = np.argmin(dist, axis=1)
        side = np.sum(diff[np.arange(len(p)), k] * curve.normal[k], axis=1)
        limit = np.where(side >= 0, half_l[k], half_r[k])
        road[lo:lo + 2048] = dist[np.arange(len(p)), k] <= limit
    grid = np.where(road.reshape(height, width), "O", "X").astype("<U1")

    def place_line(u: float, letter: str) -> tuple[list[tuple[int, int]], tuple[int, int]]:
        i = curve.index_at(u)
        fx, fy = _axis(curve.tangent[i])
        x, y = int(round(c[i, 0])), int(round(c[i, 1]))
        across = (abs(fy), abs(fx))
        cells = _run(grid, x, y, across)
        for cx, cy in cells:
            grid[cy, cx] = letter
        return cells, (fx, fy)

    finish, forward = place_line(d.finish_at, "F")
    for number, u in enumerate(d.checkpoints, start=1):
        place_line(u, str(number))
    # The start grid: a checkerboard on the forward side of the finish (circuits), or
    # across the road at the start of a sprint.
    if d.loop:
        base = [(x + forward[0], y + forward[1]) for x, y in finish]
    else:
        i = curve.index_at(0.35)
        fwd0 = _axis(curve.tangent[i])
        x, y = int(round(c[i, 0])), int(round(c[i, 1]))
        base = _run(grid, x, y, (abs(fwd0[1]), abs(fwd0[0])))
        forward_start = fwd0
    step = forward if d.loop else forward_start
    slots = []
    row = 0
    while len(slots) < 8 and row < 12:
        line = [(x + step[0] * row, y + step[1] * row) for x, y in base]
        line = [(x, y) for x, y in line if grid[y, x] == "O"]
        inner = line[1:-1] if len(line) > 4 else line
        for k, (x, y) in enumerate(inner):
            if (k + row) % 2 == 0 and len(slots) < 8:
                slots.append((x, y))
        row += 1
    for x, y in slots:
        grid[y, x] = "S"
    text = "\n".join("".join(r) for r in grid)
    return {"map": text, "forward": DIRS[forward], "size": (width, height), "slots": len(slots)}


# ----------------------------------------------------------------------------- outlines
def _q(v: float) -> float:
    """Outline coordinates in eighths of a square: exact in TOML and on the 1/64 lattice."""
    return round(float(v) * 8) / 8


def make_outline(d: Design, margin: float = 2.0) -> dict:
    curve = build_curve(d, spacing=1.6)
    pts = np.concatenate([curve.left, curve.right])
    shift = np.floor(pts.min(axis=0)) - margin
    left, right, centre = curve.left - shift, curve.right - shift, curve.centre - shift
    if d.loop:
        outer, island = (left, right) if _area(left) ** 2 > _area(right) ** 2 else (right, left)
        islands = [island]
    else:
        outer = np.concatenate([left, right[::-1]])
        islands = []
    outer = np.array([[_q(x), _q(y)] for x, y in outer])
    islands = [np.array([[_q(x), _q(y)] for x, y in r]) for r in islands]
    i = curve.index_at(d.finish_at)
    t = curve.tangent[i]
    finish = _gate(left[i], right[i])
    checkpoints = [_gate(left[curve.index_at(u)], right[curve.index_at(u)]) for u in d.checkpoints]
    # Start grid: integer nodes just past the line (circuits) or near the start (sprints).
    from_i = i if d.loop else curve.index_at(0.3)
    origin, fwd = centre[from_i], curve.tangent[from_i]
    ring_pts = np.concatenate([outer, *islands]) if islands else outer
    slots = _grid_slots(outer, islands, origin, fwd, ring_pts, behind=not d.loop)
    slots.insert(0, slots.pop(d.pole))
    width = int(math.ceil(pts[:, 0].max() - shift[0] + margin)) + 1
    height = int(math.ceil(pts[:, 1].max() - shift[1] + margin)) + 1
    return {
        "outer": outer, "islands": islands, "finish": finish, "checkpoints": checkpoints,
        "start": slots, "forward": (round(float(t[0]), 3), round(float(t[1]), 3)), "size": (width, height),
    }


def _area(ring: np.ndarray) -> float:
    x, y = ring[:, 0], ring[:, 1]
    return float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) / 2)


def _gate(a: np.ndarray, b: np.ndarray) -> list[list[float]]:
    """A gate from border to border, reaching half a square past each so it spans the road."""
    v = (b - a) / np.linalg.norm(b - a)
    a2, b2 = a - v * 0.5, b + v * 0.5
    return [[_q(a2[0]), _q(a2[1])], [_q(b2[0]), _q(b2[1])]]


def _inside(ring: np.ndarray, p: np.ndarray) -> bool:
    x, y = p
    inside = False
    n = len(ring)
    for k in range(n):
        (x1, y1), (x2, y2) = ring[k], ring[(k + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _grid_slots(outer, islands, origin, fwd, ring_pts, behind: bool) -> list[list[int]]:
    """Eight grid nodes in pairs of rows, on the road at least 0.9 from any border."""
    side = np.array([fwd[1], -fwd[0]])
    cands = []
    lo = np.floor(origin - 14).astype(int)
    for y in range(lo[1], lo[1] + 29):
        for x in range(lo[0], lo[0] + 29):
            p = np.array([x, y], dtype=float)
            along = float(np.dot(p - origin, fwd))
            if not 0.9 <= along <= 12:
                continue
            if not _inside(outer, p) or any(_inside(r, p) for r in islands):
                continue
            if np.min(np.linalg.norm(ring_pts - p, axis=1)) < 1.2:
                continue
            cands.append((along, float(np.dot(p - origin, side)), x, y))
    cands.sort()
    chosen: list[tuple[float, int, int]] = []
    for along, lateral, x, y in cands:
        if all(max(abs(x - cx), abs(y - cy)) >= 2 for _, cx, cy in chosen):
            chosen.append((along, x, y))
        if len(chosen) == 8:
            break
    # Pole position is the slot furthest along the lap.
    chosen.sort(key=lambda item: -item[0])
    return [[x, y] for _, x, y in chosen]


# ----------------------------------------------------------------------------- the tracks
def designs() -> dict[str, dict]:
    """Every pack: its header and its tracks, in play order."""
    starter = {
        "pack": {"id": "starter", "name": "Starter", "author": "Racetrack team",
                 "description": "Three friendly tracks to learn how a vector car turns and brakes."},
        "tracks": [
            Design("paper-oval", "Paper Oval", "char",
                   [(12, 5), (24, 5), (36, 5), (42, 8), (44, 13), (42, 18), (36, 21), (24, 21), (12, 21),
                    (6, 18), (4, 13), (6, 8)],
                   [6, 6, 6, 6.5, 7, 6.5, 6, 6, 6, 6.5, 7, 6.5], laps=1, finish_at=1.0, checkpoints=[7.0], seed=11,
                   description="A fat oval: learn to brake before the ends.", wobble=0.2),
            Design("bean", "Kidney Bean", "outline",
                   [(8, 10), (24, 6), (42, 9), (48, 20), (40, 28), (30, 24), (22, 27), (9, 26)],
                   [7, 6.5, 7, 7.5, 7, 6, 7, 7.5], laps=1, finish_at=0.6, checkpoints=[4.4], seed=12, pole=2,
                   description="One gentle bend inward on the back straight; a good first race."),
            Design("first-sprint", "First Sprint", "char",
                   [(3, 6), (20, 6), (34, 8), (44, 16), (52, 28), (64, 34), (78, 32), (88, 24), (100, 20),
                    (114, 21)],
                   [6, 6, 6.5, 6, 6, 6, 6.5, 6, 6, 6], laps=1, finish_at=8.75, loop=False, seed=15,
                   description="Point to point: gather speed, swing through two bends, then stop at the other end.",
                   wobble=0.2),
        ],
    }
    classics = {
        "pack": {"id": "classics", "name": "Classics", "author": "Racetrack team",
                 "description": "Char-map tracks in the spirit of the school exercise book."},
        "tracks": [
            Design("hairpin-hill", "Hairpin Hill", "char",
                   [(8, 30), (8, 18), (10, 7), (18, 5), (22, 12), (22, 26), (27, 33), (34, 26),
                    (35, 12), (40, 5), (48, 6), (54, 14), (54, 36), (47, 45), (36, 47), (12, 44)],
                   [5, 5, 5, 4.5, 4.5, 5, 4.5, 4.5, 5, 4.5, 4.5, 5, 6, 6, 6, 5],
                   laps=1, finish_at=0.5, checkpoints=[5.0, 9.0, 12.0], seed=21, smooth=True, wobble=0.25, scale=(0.8, 0.6),
                   description="Three hairpins up and down the hill: brake early, turn late."),
            Design("old-town", "Old Town", "char",
                   [(4, 4), (28, 4), (28, 14), (42, 14), (42, 4), (56, 4), (56, 32), (4, 32)],
                   [4] * 8, laps=1, finish_at=0.5, checkpoints=[2.5, 5.5, 6.5], seed=22, smooth=False,
                   corner_radius=0.3, wobble=0.0, scale=0.55,
                   description="Right-angle streets between the houses; every corner is a stop."),
            Design("grand-oval", "Grand Oval", "char",
                   [(14, 8), (50, 7), (84, 8), (96, 22), (84, 36), (50, 37), (14, 36), (3, 22)],
                   [12, 12, 12, 11, 12, 12, 12, 11], laps=1, finish_at=1.0, checkpoints=[5.0], seed=23, scale=0.62,
                   description="Wide enough for eight side by side: pick your line, mind the traffic.",
                   wobble=0.3),
            Design("dogleg-dash", "Dogleg Dash", "char",
                   [(3, 30), (24, 30), (38, 24), (44, 10), (58, 5), (80, 6), (92, 14), (94, 28), (104, 34),
                    (122, 34)],
                   [6, 6, 5.5, 5, 5.5, 6, 5, 5, 6, 6], laps=1, finish_at=8.75, loop=False, seed=24,
                   description="A sprint with two doglegs: carry speed, but not too much.", wobble=0.3),
            Design("lakeside", "Lakeside", "char",
                   [(10, 36), (8, 18), (17, 6), (33, 8), (41, 18), (51, 10), (64, 10), (70, 24),
                    (62, 36), (48, 33), (37, 43), (21, 45)],
                   [6, 6, 6, 5.5, 5, 5.5, 6, 6, 5.5, 5, 5.5, 6], laps=1, finish_at=0.45,
                   checkpoints=[4.0, 8.0], seed=25, scale=0.65,
                   description="Round the lake and through the village kink; the back straight is long.",
                   wobble=0.3),
        ],
    }
    grand_prix = {
        "pack": {"id": "grand-prix", "name": "Grand Prix", "author": "Racetrack team",
                 "description": "Freehand outline circuits: fast sweepers, a sprint and a giant."},
        "tracks": [
            Design("sweepers", "Long Sweepers", "outline",
                   [(20, 64), (22, 30), (45, 12), (90, 10), (130, 20), (165, 14), (188, 34), (180, 66),
                    (150, 80), (150, 108)],
                   [7, 7, 6.5, 7, 6, 6.5, 7, 6, 6.5, 7], laps=1, finish_at=8.7, loop=False, seed=31, wobble=0.35, scale=(0.85, 1.0),
                   description="A giant sprint of fast curves that tighten at the exit: brake late and you are "
                               "in the grass."),
            Design("coast-road", "Coast Road", "outline",
                   [(4, 40), (22, 34), (34, 18), (54, 12), (70, 24), (86, 36), (106, 30), (118, 14),
                    (136, 10), (150, 18)],
                   [7, 6.5, 6, 6.5, 6, 6.5, 6, 6, 6.5, 7], laps=1, finish_at=8.7, loop=False, seed=32, scale=0.85,
                   description="Point to point along the cliffs, one bend after another.", wobble=0.3),
            Design("serpentine", "Serpentine", "outline",
                   [(10, 38), (10, 14), (21, 6), (30, 14), (30, 28), (40, 36), (50, 28), (50, 14), (60, 6),
                    (70, 14), (70, 40), (45, 47), (20, 46)],
                   [6, 6, 5.5, 5, 5.5, 5, 5, 5.5, 5, 5.5, 6.5, 7, 6.5],
                   laps=1, finish_at=0.4, checkpoints=[4.5, 8.5, 10.0], seed=33, wobble=0.25, scale=(0.85, 0.6),
                   description="Three hairpins in a row: a test of patience and precise braking."),
            Design("speed-bowl", "Speed Bowl", "outline",
                   [(20, 10), (60, 8), (100, 10), (118, 30), (100, 50), (60, 52), (20, 50), (3, 30)],
                   [14, 13, 14, 13, 14, 13, 14, 13], laps=1, finish_at=1.0, checkpoints=[5.0], seed=34, scale=0.65,
                   description="A wide freehand oval for a full field of eight.", wobble=0.4),
            Design("riverside", "Riverside", "outline",
                   [(10, 34), (14, 12), (34, 6), (50, 16), (66, 8), (88, 12), (96, 30), (84, 46), (62, 40),
                    (46, 52), (24, 52)],
                   [6.5, 6, 6.5, 5.5, 6, 6.5, 6, 6, 5.5, 6, 6.5], laps=1, finish_at=0.5,
                   checkpoints=[3.5, 7.5], seed=35, wobble=0.3, scale=0.6,
                   description="Flowing bends along the water, one tricky double apex."),
        ],
    }
    return {"starter": starter, "classics": classics, "grand-prix": grand_prix}


# ----------------------------------------------------------------------------- writing
def _num(v: float) -> str:
    return repr(float(v)).removesuffix(".0") if float(v).is_integer() else repr(float(v))


def _points(points) -> str:
    rows = []
    line = []
    for x, y in points:
        line.append(f"[{_num(x)}, {_num(y)}]")
        if len(line) == 6:
            rows.append(", ".join(line))
            line = []
    if line:
        rows.append(", ".join(line))
    return "[\n    " + ",\n    ".join(rows) + ",\n]"


def render_pack(pack: dict, built: list[tuple[Design, dict]], pars: dict[str, int | None]) -> str:
    head = pack["pack"]
    out = [
        "# Generated by tools/make_outline_tracks.py from hand-placed centre lines; edit the script, not this file.",
        "format = 1", "", "[pack]",
        f'id = "{head["id"]}"', f'name = "{head["name"]}"', f'author = "{head["author"]}"',
        f'description = "{head["description"]}"',
    ]
    for d, data in built:
        out += ["", "[[track]]", f'id = "{d.id}"', f'name = "{d.name}"', f"laps = {d.laps}",
                f'rules = "{d.rules}"', f'description = "{d.description}"']
        if pars.get(d.id) is not None:
            out.append(f"par = {pars[d.id]}")
        if d.kind == "char":
            out.append(f'forward = "{data["forward"]}"')
            out.append(f'map = """\n{data["map"]}\n"""')
        else:
            out.append("")
            out.append("[track.outline]")
            out.append(f"forward = [{_num(data['forward'][0])}, {_num(data['forward'][1])}]")
            out.append(f"finish = {_points(data['finish'])}")
            if data["checkpoints"]:
                out.append("checkpoints = [\n" + ",\n".join(_points(c) for c in data["checkpoints"]) + ",\n]")
            out.append(f"start = {_points(data['start'])}")
            out.append(f"outer = {_points(data['outer'])}")
            if data["islands"]:
                out.append("islands = [\n" + ",\n".join(_points(r) for r in data["islands"]) + ",\n]")
    return "\n".join(out) + "\n"


def build(d: Design) -> dict:
    return make_char(d) if d.kind == "char" else make_outline(d)


def report(d: Design, data: dict) -> list[str]:
    """Problems a designer must fix: crossing borders, a thin road, a short grid."""
    problems = []
    if d.kind == "outline":
        rings = [data["outer"], *data["islands"]]
        for k, ring in enumerate(rings):
            if not ring_is_simple(ring):
                problems.append(f"ring {k} crosses itself")
        if data["islands"]:
            gap = min_gap(data["outer"], data["islands"][0])
            if gap < 3.0:
                problems.append(f"road only {gap:.2f} wide somewhere")
        if len(data["start"]) < 8:
            problems.append(f"only {len(data['start'])} start slots")
    elif data["slots"] < 8:
        problems.append(f"only {data['slots']} start slots")
    return problems


def existing_pars(path: Path) -> dict[str, int]:
    if not path.exists():
        return {}
    with path.open("rb") as f:
        data = tomllib.load(f)
    return {t["id"]: t["par"] for t in data.get("track", []) if "par" in t}


def solve_pars(path: Path) -> dict[str, int]:
    """Par of every track in a written pack, from the exact solver."""
    from game.core.rules import preset
    from game.drivers.solver import Solver
    from game.tracks import load_pack

    pack = load_pack(path)
    pars = {}
    for track in pack.tracks:
        table = Solver().table(track, preset("paper"), track.default_laps)
        pars[track.id] = table.solution().par
        slot_one = table.solution(0).par
        warning = "" if slot_one == pars[track.id] else (
            f"  (slot 1 needs {slot_one}: set pole so slot {table.best_slot() + 1} comes first)")
        print(f"  {track.id}: par {pars[track.id]}{warning}")
    return pars


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solve", action="store_true", help="recompute every par with the solver")
    parser.add_argument("--check", action="store_true", help="report only; write nothing")
    parser.add_argument("--only", help="only this pack id")
    args = parser.parse_args(argv)
    failed = False
    for pack_id, pack in designs().items():
        if args.only and pack_id != args.only:
            continue
        path = ROOT / "tracks" / f"{pack_id}.toml"
        built = []
        for d in pack["tracks"]:
            data = build(d)
            problems = report(d, data)
            w, h = data["size"]
            print(f"{pack_id}/{d.id}: {w}x{h} {'; '.join(problems) or 'ok'}")
            failed |= bool(problems)
            built.append((d, data))
        if args.check:
            continue
        pars = existing_pars(path)
        path.write_text(render_pack(pack, built, pars), encoding="utf-8")
        if args.solve:
            path.write_text(render_pack(pack, built, solve_pars(path)), encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
