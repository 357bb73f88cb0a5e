"""Outline tracks (polygons in grid units) compiled into core tracks, with located problems.

An outline is an ``outer`` ring, optional ``islands``, a ``finish`` line across the
road, optional ``checkpoints`` lines, the start (explicit ``start`` nodes, or a
``start_line`` plus ``slots``), the track's ``forward`` direction and optional terrain
patches (``[[track.outline.terrain]]``: a ``kind`` and a ``ring``, lying on the road like
an island). The rules for each key and every check are written for modders in
``docs/level-packs.md``.
"""

from __future__ import annotations

import math
from collections import deque
from typing import TYPE_CHECKING, Any, Mapping, NamedTuple

from game.core.geometry import SNAP, Gate, LineGate, PolygonRegion, snap
from game.core.rules import PRESET_NAMES
from game.core.terrain import Patch, Terrain
from game.core.track import Track, patch_layout
from game.core.vec import Vec
from game.tracks.charmap import parse_forward
from game.tracks.limits import (MAX_CHECKPOINT_LINES, MAX_ISLANDS, MAX_OUTLINE_POINTS, MAX_RING_POINTS,
                                MAX_START_NODES, MAX_TERRAIN_PATCHES, sheet_problem)
from game.tracks.problems import ERROR, Problem
from game.core.limits import laps_problem

if TYPE_CHECKING:
    import numpy as np

Point = tuple[float, float]
#: The road graph's steps to the eight neighbours, one of each opposite pair (going down or right).
_HALF_STEPS = ((1, 0), (-1, 1), (0, 1), (1, 1))
#: How far behind a ``start_line`` slots may be placed, in squares.
START_DEPTH = 12


class _Bad(Exception):
    """One malformed value; caught by the checker and turned into a :class:`Problem`."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key
        self.message = message


def _short(value: Any) -> str:
    """A value for a message, cut short (a modder's list may hold thousands of points)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _number(value: Any, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _Bad(key, f"expected a number, not {_short(value)}")
    if abs(value) > 10_000:
        raise _Bad(key, f"{value!r} is too far from the paper (keep coordinates within 10000 squares)")
    return float(value)


def _point(value: Any, key: str) -> Point:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise _Bad(key, f"expected a point [x, y], not {_short(value)}")
    return (_number(value[0], key), _number(value[1], key))


def _ring(value: Any, key: str) -> list[Point]:
    if not isinstance(value, (list, tuple)):
        raise _Bad(key, f"expected a list of points [[x, y], ...], not {_short(value)}")
    if len(value) > MAX_RING_POINTS:
        raise _Bad(key, f"a ring of {len(value)} points; the game reads rings of up to {MAX_RING_POINTS} points")
    ring = [_point(v, key) for v in value]
    snapped = [(snap(x), snap(y)) for x, y in ring]
    if len(snapped) > 1 and snapped[0] == snapped[-1]:
        snapped.pop()  # a closing repeat of the first point is harmless
    if len(set(snapped)) < 3:
        raise _Bad(key, "a ring needs at least 3 different points")
    if any(a == b for a, b in zip(snapped, snapped[1:] + snapped[:1])):
        raise _Bad(key, "a ring repeats a point twice in a row")
    return snapped


def _line(value: Any, key: str) -> tuple[Point, Point]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise _Bad(key, f"expected a line [[x1, y1], [x2, y2]], not {_short(value)}")
    a, b = _point(value[0], key), _point(value[1], key)
    a, b = (snap(a[0]), snap(a[1])), (snap(b[0]), snap(b[1]))
    if a == b:
        raise _Bad(key, "the two ends of the line are the same point")
    return a, b


def _orient(a: Point, b: Point, c: Point) -> float:
    """Twice the signed area of the triangle a, b, c (exact: outline points lie on the 1/64 lattice)."""
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def _sign(value: float) -> int:
    return (value > 0) - (value < 0)


def _within(a: Point, b: Point, c: Point) -> bool:
    """Point c in the closed box of a and b."""
    return min(a[0], b[0]) <= c[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= c[1] <= max(a[1], b[1])


def _segments_meet(p1: Point, p2: Point, q1: Point, q2: Point) -> bool:
    """Whether closed segments p1-p2 and q1-q2 share a point (exact on 1/64)."""
    o1, o2 = _sign(_orient(p1, p2, q1)), _sign(_orient(p1, p2, q2))
    if o1 * o2 > 0:  # q1 and q2 strictly on one side of p's line: no common point (most pairs end here)
        return False
    o3, o4 = _sign(_orient(q1, q2, p1)), _sign(_orient(q1, q2, p2))
    if o1 * o2 < 0 and o3 * o4 < 0:
        return True
    return (o1 == 0 and _within(p1, p2, q1)) or (o2 == 0 and _within(p1, p2, q2)) \
        or (o3 == 0 and _within(q1, q2, p1)) or (o4 == 0 and _within(q1, q2, p2))


def _edges(ring: list[Point]) -> list[tuple[Point, Point]]:
    return list(zip(ring, [*ring[1:], ring[0]]))


def _box_pairs(boxes: list[tuple[float, float, float, float]]):
    """Every pair (i, j), i before j in x order, whose closed boxes (x0, y0, x1, y1) overlap: a sweep along x,
    so rings of hundreds of edges cost about their length, not its square."""
    order = sorted(range(len(boxes)), key=lambda k: boxes[k][0])
    for pos, i in enumerate(order):
        _, y0, x1, y1 = boxes[i]
        for j in order[pos + 1:]:
            other = boxes[j]
            if other[0] > x1:
                break
            if other[1] <= y1 and y0 <= other[3]:
                yield i, j


def _box(edge: tuple[Point, Point]) -> tuple[float, float, float, float]:
    (ax, ay), (bx, by) = edge
    return min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)


def ring_self_crossing(ring: list[Point]) -> tuple[int, int] | None:
    """The first pair of edges (by index) of a ring that meet though they are not neighbours,
    or neighbours that fold back over each other."""
    n = len(ring)
    for k in range(n):  # neighbours share a vertex; they must not run back along each other
        shared, a, b = ring[k], ring[k - 1], ring[(k + 1) % n]
        if _collinear_overlap(shared, a, b):
            return ((k - 1) % n, k) if k else (0, n - 1)
    edges = _edges(ring)
    hits = []
    for i, j in _box_pairs([_box(e) for e in edges]):
        i, j = min(i, j), max(i, j)
        if j == i + 1 or (i == 0 and j == n - 1):
            continue
        if _segments_meet(*edges[i], *edges[j]):
            hits.append((i, j))
    return min(hits) if hits else None


def _collinear_overlap(shared, a, b) -> bool:
    """Two edges from ``shared`` to ``a`` and to ``b`` fold back onto each other."""
    ax, ay, bx, by = a[0] - shared[0], a[1] - shared[1], b[0] - shared[0], b[1] - shared[1]
    return ax * by - ay * bx == 0 and ax * bx + ay * by > 0


def _rings_meet(r1: list[Point], r2: list[Point]) -> bool:
    edges = _edges(r1) + _edges(r2)
    split = len(r1)
    return any((i < split) != (j < split) and _segments_meet(*edges[i], *edges[j])
               for i, j in _box_pairs([_box(e) for e in edges]))


def _strictly_inside(ring: list[Point], point: Point) -> bool:
    """Point in the open interior of a simple ring (even-odd rule)."""
    x, y = point
    inside = False
    n = len(ring)
    for i in range(n):
        (ax, ay), (bx, by) = ring[i], ring[(i + 1) % n]
        if (ay > y) != (by > y):
            cx = ax + (y - ay) * (bx - ax) / (by - ay)
            if cx == x:
                return False
            if cx > x:
                inside = not inside
        elif ay == by == y and min(ax, bx) <= x <= max(ax, bx):
            return False
    return inside


def _on_open_road(outer: list[Point], islands: list[list[Point]], point: Point) -> bool:
    """Point strictly inside the road: inside the outer ring, off every island and its border."""
    return _strictly_inside(outer, point) and not any(
        _strictly_inside(i, point) or _on_ring(i, point) for i in islands)


def _on_ring(ring: list[Point], point: Point) -> bool:
    return any(_orient(a, b, point) == 0 and _within(a, b, point) for a, b in _edges(ring))


def _edges_by(region: PolygonRegion, line: tuple[Point, Point]) -> list[tuple[float, float, float, float]]:
    """The region's edges (ax, ay, bx, by, in squares) that can matter to a point of the line's box:
    those reaching into its rows and not wholly left of it (a ray towards +x never meets those)."""
    (x1, y1), (x2, y2) = line
    lo_y, hi_y, lo_x = min(y1, y2), max(y1, y2), min(x1, x2)
    out = []
    for ring in region.lattice_rings:
        for (ax, ay), (bx, by) in zip(ring, [*ring[1:], ring[0]]):
            ax, ay, bx, by = ax / SNAP, ay / SNAP, bx / SNAP, by / SNAP
            if max(ay, by) >= lo_y and min(ay, by) <= hi_y and max(ax, bx) >= lo_x:
                out.append((ax, ay, bx, by))
    return out


def _in_region(edges: list[tuple[float, float, float, float]], point: Point) -> bool:
    """Closed containment of one point (on a border, or an odd number of edges crossed by a ray
    towards +x), given the edges that can matter (:func:`_edges_by`):
    :meth:`PolygonRegion.contains_points` for one point, without numpy."""
    px, py = point
    odd = False
    for ax, ay, bx, by in edges:
        if not min(ay, by) <= py <= max(ay, by):
            continue
        ex, ey = bx - ax, by - ay
        cross = ex * (py - ay) - ey * (px - ax)
        if cross == 0 and min(ax, bx) <= px <= max(ax, bx):
            return True
        if (ay > py) != (by > py) and (cross > 0 if ey > 0 else cross < 0):
            odd = not odd
    return odd


def _normal(a: Point, b: Point, forward: Point) -> Point | None:
    """The line a-b's normal pointing along ``forward``; None if the line runs along forward."""
    nx, ny = -(b[1] - a[1]), b[0] - a[0]
    dot = nx * forward[0] + ny * forward[1]
    if abs(dot) < 1e-9 * math.hypot(nx, ny) * math.hypot(*forward):
        return None
    return (nx, ny) if dot > 0 else (-nx, -ny)


class _Graph:
    """Road nodes of a polygon region and the single-square moves between them that stay on the road.

    Plain Python lists (a few thousand nodes on the largest built-in outline): validating an
    outline needs no numpy. ``links[i]`` are the nodes one step from node ``i``.
    """

    def __init__(self, region: PolygonRegion) -> None:
        road = region.road_rows
        self.height, self.width = region.height, region.width
        self.road = road
        self.nodes = [(x, y) for y, row in enumerate(road) for x, on in enumerate(row) if on]
        self.index = {node: i for i, node in enumerate(self.nodes)}
        # Validation only needs which road connects to which, not the core's exact
        # tangency rules, so a step counts when no border edge properly crosses it. Each
        # step is tested only against the edges passing its unit square, so the cost grows
        # with the road and the border's length, never with their product. A step and its
        # reverse share their square and their test: half the steps are tested, both kept.
        edges = [edge for ring in region.lattice_rings for edge in _edges([(x / SNAP, y / SNAP) for x, y in ring])]
        squares = _edge_squares(edges)
        index = self.index
        self.links: list[list[int]] = [[] for _ in self.nodes]
        for i, (x, y) in enumerate(self.nodes):
            for dx, dy in _HALF_STEPS:
                q = (x + dx, y + dy)
                j = index.get(q)
                if j is None:
                    continue
                near = squares.get((min(x, q[0]), y))  # dy >= 0: the lower corner's row is y
                if near and _step_crossed((x, y), q, edges, near):
                    continue
                self.links[i].append(j)
                self.links[j].append(i)

    def crossing(self, gate_a: Point, gate_b: Point, normal: Point) -> set[tuple[int, int]]:
        """The steps ``(from, to)`` that cross the line gate (either way), by the core's rule.

        A step that crosses it meets the gate's segment, so only nodes within a square of the
        gate's box are asked.
        """
        out = set()
        x_lo, x_hi = math.floor(min(gate_a[0], gate_b[0])) - 1, math.ceil(max(gate_a[0], gate_b[0])) + 1
        y_lo, y_hi = math.floor(min(gate_a[1], gate_b[1])) - 1, math.ceil(max(gate_a[1], gate_b[1])) + 1
        for i, (px, py) in enumerate(self.nodes):
            if not (x_lo <= px <= x_hi and y_lo <= py <= y_hi):
                continue
            for j in self.links[i]:
                qx, qy = self.nodes[j]
                s_p = normal[0] * (px - gate_a[0]) + normal[1] * (py - gate_a[1])
                s_q = normal[0] * (qx - gate_a[0]) + normal[1] * (qy - gate_a[1])
                dx, dy = qx - px, qy - py
                o_a = dx * (gate_a[1] - py) - dy * (gate_a[0] - px)
                o_b = dx * (gate_b[1] - py) - dy * (gate_b[0] - px)
                if ((s_p < 0 and s_q >= 0) or (s_q < 0 and s_p >= 0)) and o_a * o_b <= 0:
                    out.add((i, j))
        return out

    def bfs(self, seeds: list[int], blocked: set[tuple[int, int]]) -> list[int]:
        """Steps from the seed nodes, not using blocked steps; -1 where unreachable."""
        dist = [-1] * len(self.nodes)
        queue = deque()
        for s in seeds:
            if dist[s] < 0:
                dist[s] = 0
                queue.append(s)
        links = self.links
        while queue:
            i = queue.popleft()
            step = dist[i] + 1
            for j in links[i]:
                if dist[j] < 0 and (i, j) not in blocked:
                    dist[j] = step
                    queue.append(j)
        return dist


def _edge_squares(edges: list[tuple[Point, Point]]) -> dict[tuple[int, int], list[int]]:
    """The edges each unit square may touch (a superset), by square.

    Square (cx, cy) is ``[cx, cx + 1] x [cy, cy + 1]``. For each column the edge spans, the
    rows between its lowest and highest y there are taken, one more on each side, so an
    edge touching a square only at its border is never missed.
    """
    squares: dict[tuple[int, int], list[int]] = {}
    for k, ((x1, y1), (x2, y2)) in enumerate(edges):
        lo_x, hi_x = min(x1, x2), max(x1, x2)
        for cx in range(math.floor(lo_x) - 1, math.floor(hi_x) + 1):
            a, b = max(lo_x, cx), min(hi_x, cx + 1)
            if a > b:
                continue
            if x1 == x2:
                ya, yb = y1, y2
            else:
                ya = y1 + (y2 - y1) * (a - x1) / (x2 - x1)
                yb = y1 + (y2 - y1) * (b - x1) / (x2 - x1)
            for cy in range(math.floor(min(ya, yb)) - 1, math.floor(max(ya, yb)) + 1):
                squares.setdefault((cx, cy), []).append(k)
    return squares


def _step_crossed(p: tuple[int, int], q: tuple[int, int], edges: list[tuple[Point, Point]],
                  near: list[int]) -> bool:
    """Whether a border edge properly crosses the unit step p-q (neighbour nodes).

    ``near`` are the edges passing the square at the step's lower corner (:func:`_edge_squares`):
    every crossing point of a step lies in that square, so none is missed.
    """
    for k in near:
        c, d = edges[k]
        if _orient(p, q, c) * _orient(p, q, d) < 0 and _orient(c, d, p) * _orient(c, d, q) < 0:
            return True
    return False


def _near_line(nodes: list[tuple[int, int]], a: Point, b: Point, normal: Point,
               depth: float) -> tuple[list[int], list[int]]:
    """The nodes (their indices) just behind and just past a line (within ``depth`` squares, beside it)."""
    length = math.hypot(*normal)
    ux, uy = b[0] - a[0], b[1] - a[1]
    square = ux * ux + uy * uy
    behind, past = [], []
    for i, (x, y) in enumerate(nodes):
        along = ((x - a[0]) * ux + (y - a[1]) * uy) / square
        if not 0 <= along <= 1:
            continue
        s = (normal[0] * (x - a[0]) + normal[1] * (y - a[1])) / length
        if -depth <= s < 0:
            behind.append(i)
        elif 0 <= s <= depth:
            past.append(i)
    return behind, past


#: The keys an ``[track.outline]`` table may have.
OUTLINE_KEYS = frozenset({"outer", "islands", "finish", "checkpoints", "start", "start_line", "slots", "forward",
                          "terrain"})


class _Report:
    """The problems found in one outline, each placed on its track and key, in the order found."""

    def __init__(self, track_id: str) -> None:
        self.track_id = track_id
        self.problems: list[Problem] = []

    def error(self, key: str, message: str, severity: str = ERROR) -> None:
        self.problems.append(Problem(None, None, self.track_id, key, message, severity))

    @property
    def failed(self) -> bool:
        """Whether any error (not a warning) was found so far: later checks build on earlier ones."""
        return any(p.is_error for p in self.problems)


class _Parts(NamedTuple):
    """The outline table's values, each read by its own parser (None or empty where it failed)."""

    outer: list[Point] | None
    islands: list[list[Point]]
    patches: list[Patch]
    finish_line: tuple[Point, Point] | None
    checkpoint_lines: list[tuple[Point, Point]]
    forward: Point | None
    start_nodes: list[tuple[int, int]] | None
    start_line: tuple[Point, Point] | None
    slots: int | None


def check_outline(data: Any, *, id: str = "outline", name: str | None = None, laps: int = 1,
                  rules: str = "paper", forward: object = None,
                  meta: Mapping[str, object] | None = None) -> tuple[Track | None, list[Problem]]:
    """Compile an outline table into a :class:`Track` and list every problem found.

    ``data`` is the ``[track.outline]`` table; its keys are reported as ``outline.KEY``.
    ``forward`` may be given here (the track's key) or inside the outline table.
    Returns ``(track, problems)``; ``track`` is None when there is any error.

    The checks run in stages, one small function per rule of the format; a stage runs only
    when the ones before it found no error, since it builds on what they read.
    """
    report = _Report(id)
    _check_track_keys(report, laps, rules)
    if not isinstance(data, Mapping):
        report.error("outline", f"must be a table, not {type(data).__name__}")
        return None, report.problems
    _check_known_keys(report, data)
    parts = _read_parts(report, data, forward)
    if parts.outer is None or report.failed:
        return None, report.problems
    if not _check_size(report, parts):
        return None, report.problems
    _check_rings(report, parts.outer, parts.islands)
    _check_patches(report, parts.outer, parts.islands, parts.patches)
    if report.failed:
        return None, report.problems
    if min(min(x, y) for x, y in parts.outer) < 0:
        report.error("outline.outer", "the outline must lie on the paper: no negative coordinates")
        return None, report.problems
    return _check_course(report, data, parts, id=id, name=name, laps=laps, rules=rules, forward=forward, meta=meta)


def _check_course(report: _Report, data: Mapping, parts: _Parts, *, id: str, name: str | None, laps: int,
                  rules: str, forward: object, meta: Mapping[str, object] | None) -> tuple[Track | None, list[Problem]]:
    """The road, gates and start of rings that are sound: where cars can drive, and the track."""
    # Water is off the road whatever the rules: an island drawn as water. Every other patch is
    # road under terrain = "effects" and off it under "offroad"; the start and the direction
    # are derived on the road without any terrain (as the karopapier rules see it), so terrain
    # is never the only way round, and a line must reach past terrain to the road's edge.
    outer, patches = parts.outer, parts.patches
    region = PolygonRegion(outer, parts.islands + [list(p.ring) for p in patches if not p.kind.drivable])
    plain = PolygonRegion(outer, parts.islands + [list(p.ring) for p in patches],
                          width=region.width, height=region.height) if patches else region
    islands = parts.islands + [list(p.ring) for p in patches if not p.kind.drivable]

    finish = _line_gate(report, 0, parts.finish_line, "outline.finish", parts.forward, outer, islands, region)
    if finish is None or report.failed:
        return None, report.problems
    graph = _Graph(plain)
    start_nodes = _check_start_nodes(report, graph, region, parts)
    if report.failed:
        return None, report.problems

    seeds = [graph.index[x, y] for x, y in start_nodes]
    dist = graph.bfs(seeds, graph.crossing(finish.a, finish.b, finish.forward))
    circuit = _check_finish_reached(report, graph, finish, dist, forward, laps)
    _check_start_before_finish(report, graph, finish, dist, start_nodes, circuit)
    checkpoints = _checkpoint_gates(report, graph, dist, parts, outer, islands, region)
    if report.failed:
        return None, report.problems

    info = dict(meta or {})
    info.setdefault("shape", "outline")
    info.setdefault("source", dict(data))
    info.setdefault("circuit", circuit)
    info["warnings"] = [str(p) for p in report.problems]
    terrain = patch_layout(tuple(patches), region.width, region.height,
                           region.road_nodes() if patches else None)  # no numpy for an outline without terrain
    track = Track(id=id, name=name if name is not None else id, region=region, start_slots=tuple(
        Vec(x, y) for x, y in start_nodes), finish=finish, forward=parts.forward, checkpoints=tuple(checkpoints),
        default_laps=laps, default_rules=rules, meta=info, terrain=terrain)
    return track, report.problems


def _check_track_keys(report: _Report, laps: object, rules: object) -> None:
    """The track's own keys an outline depends on: a lap count the game races, a known preset."""
    if laps_problem(laps):
        report.error("laps", laps_problem(laps))
    if rules not in PRESET_NAMES:
        report.error("rules", f"unknown rule preset {rules!r}; choose one of {', '.join(PRESET_NAMES)}")


def _check_known_keys(report: _Report, data: Mapping) -> None:
    """A warning for each key the format does not know (a typo would otherwise be silently ignored)."""
    for key in data:
        if key not in OUTLINE_KEYS:
            report.error(f"outline.{key}", f"unknown key; known: {', '.join(sorted(OUTLINE_KEYS))}", "warning")


def _value(report: _Report, data: Mapping, key: str, parse, required: bool = True, default=None):
    """``outline.KEY`` read by ``parse``; its problem reported and ``default`` returned when it is bad."""
    if key not in data:
        if required:
            report.error(f"outline.{key}", "missing")
        return default
    try:
        return parse(data[key], f"outline.{key}")
    except _Bad as bad:
        report.error(bad.key, bad.message)
        return default


def _read_parts(report: _Report, data: Mapping, forward: object) -> _Parts:
    """Every value of the table, each parsed on its own so all their problems are reported at once."""
    outer = _value(report, data, "outer", _ring)
    islands = _value(report, data, "islands",
                     lambda v, k: [_ring(r, k) for r in _list(v, k, MAX_ISLANDS, "islands")],
                     required=False, default=[])
    patches = _value(report, data, "terrain", lambda v, k: _patches(v, k, report.error), required=False, default=[])
    finish_line = _value(report, data, "finish", _line)
    checkpoint_lines = _value(report, data, "checkpoints",
                              lambda v, k: [_line(c, k) for c in
                                            _list(v, k, MAX_CHECKPOINT_LINES, "checkpoint lines")],
                              required=False, default=[])
    fwd = _read_forward(report, data, forward)
    start_nodes, start_line, slots = _read_start(report, data)
    return _Parts(outer, islands, patches, finish_line, checkpoint_lines, fwd, start_nodes, start_line, slots)


def _read_forward(report: _Report, data: Mapping, forward: object) -> Point | None:
    """The direction cars cross the finish: the track's ``forward`` key, else the outline's."""
    fwd_value = data.get("forward", forward) if forward is None else forward
    fwd_key = "outline.forward" if forward is None else "forward"
    if fwd_value is None:
        report.error(fwd_key, "missing: outlines need the direction cars cross the finish (a word or [dx, dy])")
        return None
    try:
        return parse_forward(fwd_value)
    except ValueError as exc:
        report.error(fwd_key, str(exc))
        return None


def _read_start(report: _Report, data: Mapping):
    """``(start nodes, start line, slots)``: exactly one of the two ways to give the start."""
    if "start" in data and "start_line" in data:
        report.error("outline.start", "give either start (nodes) or start_line with slots, not both")
    elif "start" in data:
        start_nodes = _value(report, data, "start",
                             lambda v, k: [_node(p, k) for p in _list(v, k, MAX_START_NODES, "start nodes")])
        if start_nodes is not None and not start_nodes:
            report.error("outline.start", "the start needs at least one node")
        return start_nodes, None, None
    elif "start_line" in data:
        start_line = _value(report, data, "start_line", _line)
        return None, start_line, _value(report, data, "slots", _count)
    else:
        report.error("outline.start", "missing: give start = [[x, y], ...] or start_line = [[x1, y1], [x2, y2]] "
                     "with slots = N")
    return None, None, None


def _check_size(report: _Report, parts: _Parts) -> bool:
    """Whether the rings fit the game's limits, checked before anything grows with them
    (crossing matrices, the sheet's nodes)."""
    outer, islands = parts.outer, parts.islands
    points = len(outer) + sum(len(i) for i in islands) + sum(len(p.ring) for p in parts.patches)
    if points > MAX_OUTLINE_POINTS:
        report.error("outline.islands" if islands else "outline.outer",
                     f"the rings have {points} points in all; the game reads outlines of up to {MAX_OUTLINE_POINTS}")
        return False
    too_big = sheet_problem(math.ceil(max(x for x, _ in outer)) + 1, math.ceil(max(y for _, y in outer)) + 1)
    if too_big:
        report.error("outline.outer", too_big)
        return False
    return True


def _check_rings(report: _Report, outer: list[Point], islands: list[list[Point]]) -> None:
    """Simple rings: the outer one and each island uncrossed, the islands inside it and apart."""
    crossing = ring_self_crossing(outer)
    if crossing:
        report.error("outline.outer", f"the outer ring crosses itself (edges {crossing[0] + 1} and {crossing[1] + 1})")
    for k, island in enumerate(islands, 1):
        crossing = ring_self_crossing(island)
        if crossing:
            report.error("outline.islands",
                         f"island {k} crosses itself (edges {crossing[0] + 1} and {crossing[1] + 1})")
        elif _rings_meet(outer, island):
            report.error("outline.islands", f"island {k} touches or crosses the outer ring")
        elif not _strictly_inside(outer, island[0]):
            report.error("outline.islands", f"island {k} lies outside the outer ring")
        for m, other in enumerate(islands[:k - 1], 1):
            if _apart(island, other):
                continue
            report.error("outline.islands", f"islands {m} and {k} touch, cross or lie inside each other")


def _apart(ring: list[Point], other: list[Point]) -> bool:
    """Whether two rings neither meet nor lie one inside the other."""
    return not (_rings_meet(ring, other) or _strictly_inside(other, ring[0]) or _strictly_inside(ring, other[0]))


def _check_patches(report: _Report, outer: list[Point], islands: list[list[Point]], patches: list[Patch]) -> None:
    """Terrain patches: each an uncrossed ring on the road, clear of the islands and of each other."""
    for k, patch in enumerate(patches, 1):
        key = f"outline.terrain[{k}].ring"
        ring = list(patch.ring)
        crossing = ring_self_crossing(ring)
        if crossing:
            report.error(key, f"the {patch.kind} patch crosses itself (edges {crossing[0] + 1} and {crossing[1] + 1})")
        elif _rings_meet(outer, ring) or not _strictly_inside(outer, ring[0]):
            report.error(key, f"the {patch.kind} patch must lie on the road, inside the outer ring without touching it")
        elif not all(_apart(ring, island) for island in islands):
            report.error(key, f"the {patch.kind} patch touches, crosses or lies inside an island; keep it on the road")
        else:
            for m, other in enumerate(patches[:k - 1], 1):
                if not _apart(ring, list(other.ring)):
                    report.error(key, f"terrain patches {m} and {k} touch, cross or lie inside each other")
                    break


def _line_gate(report: _Report, number: int, line, key: str, fwd: Point, outer: list[Point],
               islands: list[list[Point]], region: PolygonRegion) -> LineGate | None:
    """A finish or checkpoint line as a gate: across the road, reaching its edges on both sides."""
    a, b = line
    normal = _normal(a, b, fwd)
    if normal is None:
        report.error(key, "the line runs along the forward direction instead of across the road")
        return None
    if _on_open_road(outer, islands, a) or _on_open_road(outer, islands, b):
        report.error(key, f"the line {list(a)}-{list(b)} ends on the road: it must reach the road's edges "
                     "on both sides, or cars drive around it")
    # 257 points along the line, the middle ones first (where a line across the road is on it).
    ts = sorted((k / 256 for k in range(257)), key=lambda t: abs(t - 0.5))
    near = _edges_by(region, line)
    if not any(_in_region(near, (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)) for t in ts):
        report.error(key, f"the line {list(a)}-{list(b)} does not cross the road")
    return LineGate(number, a=a, b=b, forward=normal)


def _check_start_nodes(report: _Report, graph: _Graph, region: PolygonRegion,
                       parts: _Parts) -> list[tuple[int, int]]:
    """The start nodes (placed behind the start line when slots are given): on the road, each once."""
    start_nodes = parts.start_nodes
    if start_nodes is None:
        start_nodes = _place_slots(graph, parts.start_line, parts.forward, parts.slots)
        if len(start_nodes) < parts.slots:
            report.error("outline.slots", f"only {len(start_nodes)} road nodes fit within {START_DEPTH} squares "
                         f"behind the start line, not {parts.slots}")
    for x, y in start_nodes:
        if not (0 <= x < region.width and 0 <= y < region.height and graph.road[y][x]):
            report.error("outline.start", f"start node [{x}, {y}] is not on the road")
    if len(set(start_nodes)) != len(start_nodes):
        report.error("outline.start", "a start node is listed twice")
    return start_nodes


def _check_finish_reached(report: _Report, graph: _Graph, finish: LineGate, dist: list[int], forward: object,
                          laps: object) -> bool:
    """Whether the track is a circuit; the finish must be reached from behind, a sprint raced once."""
    behind, past = _near_line(graph.nodes, finish.a, finish.b, finish.forward, 2.0)
    reach_behind = any(dist[i] >= 0 for i in behind)
    reach_past = any(dist[i] >= 0 for i in past)
    circuit = reach_behind and reach_past
    if not reach_behind and not reach_past:
        report.error("outline.finish", "the finish cannot be reached from the start by road")
    elif not reach_behind:
        report.error("forward" if forward is not None else "outline.forward",
                     "cars can only reach the finish from its front: the line could only be crossed backwards; "
                     "turn forward around")
    if not circuit and isinstance(laps, int) and laps > 1:
        report.error("laps", f"a sprint track (the road does not lead from the finish back round to it) must have "
                     f"laps = 1, not {laps}")
    return circuit


def _check_start_before_finish(report: _Report, graph: _Graph, finish: LineGate, dist: list[int],
                               start_nodes: list[tuple[int, int]], circuit: bool) -> None:
    """Each start node on one road with the others, and not behind a circuit's finish line."""
    for x, y in start_nodes:
        if circuit and finish.side(Vec(x, y)) < 0 and _beside(finish, (x, y)):
            report.error("outline.start", f"start node [{x}, {y}] stands behind the finish line: a car there would "
                         "cross it forwards without driving a lap")
        elif dist[graph.index[x, y]] < 0:
            report.error("outline.start", f"start node [{x}, {y}] cannot reach the road of the other start nodes")


def _checkpoint_gates(report: _Report, graph: _Graph, dist: list[int], parts: _Parts, outer: list[Point],
                      islands: list[list[Point]], region: PolygonRegion) -> list[LineGate]:
    """The checkpoints as gates, each turned so that cars pass it the way they arrive from the start."""
    checkpoints = []
    for number, line in enumerate(parts.checkpoint_lines, 1):
        gate = _line_gate(report, number, line, "outline.checkpoints", parts.forward, outer, islands, region)
        if gate is None:
            continue
        lo, hi = _near_line(graph.nodes, gate.a, gate.b, gate.forward, 2.0)
        d_lo = [dist[i] for i in lo if dist[i] >= 0]
        d_hi = [dist[i] for i in hi if dist[i] >= 0]
        if not d_lo or not d_hi:
            report.error("outline.checkpoints", f"checkpoint {number} cannot be reached from the start on both sides")
            continue
        if min(d_lo) == min(d_hi):
            report.error("outline.checkpoints", f"cannot tell which way cars drive through checkpoint {number}")
            continue
        if min(d_lo) > min(d_hi):  # cars arrive from the side the normal points to: turn it round
            gate = LineGate(number, a=gate.a, b=gate.b, forward=(-gate.forward[0], -gate.forward[1]))
        checkpoints.append(gate)
    return checkpoints


def _patches(value: Any, key: str, error) -> list[Patch]:
    """The ``[[track.outline.terrain]]`` patches: each a table with a ``kind`` and a ``ring``.

    A bad patch is reported under ``outline.terrain[k].KEY`` and left out; the others are read.
    """
    entries = _list(value, key, MAX_TERRAIN_PATCHES, "terrain patches")
    kinds = ", ".join(Terrain)
    out = []
    for k, entry in enumerate(entries, 1):
        where = f"{key}[{k}]"
        if not isinstance(entry, Mapping):
            error(where, f"expected a table with kind and ring ([[track.outline.terrain]]), not {_short(entry)}")
            continue
        for extra in sorted(set(entry) - {"kind", "ring"}):
            error(f"{where}.{extra}", "unknown key; known: kind, ring", "warning")
        kind = entry.get("kind")
        if kind is None:
            error(f"{where}.kind", f"missing: the kind of terrain ({kinds})")
            continue
        if not isinstance(kind, str) or kind not in Terrain._value2member_map_:
            error(f"{where}.kind", f"unknown terrain {_short(kind)}; choose one of {kinds}")
            continue
        if "ring" not in entry:
            error(f"{where}.ring", "missing: the patch's outline, a list of points [[x, y], ...]")
            continue
        try:
            ring = _ring(entry["ring"], f"{where}.ring")
        except _Bad as bad:
            error(bad.key, bad.message)
            continue
        out.append(Patch(Terrain(kind), tuple(ring)))
    return out


def _beside(gate: Gate, point: Point) -> bool:
    (ax, ay), (bx, by) = gate.a, gate.b
    ux, uy = bx - ax, by - ay
    t = ((point[0] - ax) * ux + (point[1] - ay) * uy) / (ux * ux + uy * uy)
    return 0 <= t <= 1


def _list(value: Any, key: str, limit: int | None = None, what: str = "entries") -> list:
    if not isinstance(value, (list, tuple)):
        raise _Bad(key, f"expected a list, not {_short(value)}")
    if limit is not None and len(value) > limit:
        raise _Bad(key, f"{len(value)} {what}; the game reads up to {limit}")
    return list(value)


def _node(value: Any, key: str) -> tuple[int, int]:
    if not isinstance(value, (list, tuple)) or len(value) != 2 \
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise _Bad(key, f"expected a grid node [x, y] of whole numbers, not {_short(value)}")
    return (value[0], value[1])


def _count(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 64:
        raise _Bad(key, f"expected a whole number from 1 to 64, not {value!r}")
    return value


def _place_slots(graph: _Graph, line: tuple[Point, Point], forward: Point, slots: int) -> list[tuple[int, int]]:
    """Road nodes just behind a start line, nearest row first, each row from the driver's left.

    A node's row is how many whole squares it stands behind the line (rounded up); only
    nodes whose foot on the line falls between its ends are used.
    """
    a, b = line
    normal = _normal(a, b, forward)
    if normal is None:
        return []
    behind, _ = _near_line(graph.nodes, a, b, normal, START_DEPTH)
    length = math.hypot(*normal)
    left = (normal[1], -normal[0])  # y grows downward

    def place(node: tuple[int, int]) -> tuple[int, float]:
        """The node's row behind the line, then its place from the left (ties: road order)."""
        x, y = node
        depth = -((normal[0] * (x - a[0]) + normal[1] * (y - a[1])) / length)
        return math.ceil(depth - 1e-9), -(x * left[0] + y * left[1])

    return sorted((graph.nodes[i] for i in behind), key=place)[:slots]


def track_outline_data(track: Track) -> dict:
    """The outline table a track was built from (for writing a pack back)."""
    return dict(track.meta.get("source", {}))


def cells_to_rings(road: np.ndarray) -> tuple[list[Point], list[list[Point]]]:
    """The border of a char map's road (union of unit squares round road nodes) as outline rings.

    Returns ``(outer, islands)``. Only for road that is one piece without diagonal
    pinches (two road squares meeting only at a corner): there a border corner would be
    visited twice and the rings are not simple. Raises ValueError for such road.
    """
    import numpy as np

    road = np.asarray(road, dtype=bool)
    height, width = road.shape
    nxt: dict[tuple[float, float], tuple[float, float]] = {}

    def add(a, b):
        if a in nxt:
            raise ValueError(f"the road pinches at corner {a}: two road squares meet only diagonally there")
        nxt[a] = b

    def cell(x, y):
        return 0 <= x < width and 0 <= y < height and bool(road[y, x])

    # Walk every square's border with the road on the same side; shared sides cancel.
    for y, x in zip(*np.nonzero(road)):
        x, y = int(x), int(y)
        l, r, t, b = x - 0.5, x + 0.5, y - 0.5, y + 0.5
        if not cell(x, y - 1):
            add((l, t), (r, t))
        if not cell(x + 1, y):
            add((r, t), (r, b))
        if not cell(x, y + 1):
            add((r, b), (l, b))
        if not cell(x - 1, y):
            add((l, b), (l, t))
    rings = []
    while nxt:
        start, point = next(iter(nxt.items()))
        ring = [start]
        del nxt[start]
        while point != start:
            ring.append(point)
            point = nxt.pop(point)
        rings.append(ring)
    if not rings:
        raise ValueError("there is no road")
    areas = [abs(_area(r)) for r in rings]
    outer = rings.pop(int(np.argmax(areas)))
    for ring in rings:
        if not _strictly_inside(outer, ring[0]):
            raise ValueError("the road is in more than one piece")
    return outer, rings


def _area(ring: list[Point]) -> float:
    return sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(ring, ring[1:] + ring[:1])) / 2
