"""Exact plane geometry for the rules: is a move on the road, and which gates does it cross.

Two kinds of road region exist, and both answer the same questions:

- :class:`CellRegion` (char maps): each road node stands for the closed unit square
  around it. A segment is on the road when every cell whose *open* square it passes
  through is road, which is exactly the closed union of the road squares: touching a
  border, or passing through the corner where two road squares meet diagonally, is
  allowed ("tangency is not crossing"). Everything is computed in integers.
- :class:`PolygonRegion` (outlines): a closed polygon with islands. Vertices are
  snapped to 1/64 of a square, so every orientation test below is exact in float64.

numpy is imported inside the functions that work on arrays, not here: reading a char map
and refereeing a race on it need none of them, and a command such as ``racetrack replay``
or ``validate`` then starts without numpy's import (issue 28, ``tests/test_fast_commands.py``).

Gates (finish lines and checkpoints) know their direction: a :class:`LineGate` or a
:class:`CellGate`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Protocol, Sequence

from game.core.vec import Vec

if TYPE_CHECKING:
    import numpy as np

Point = tuple[float, float]

#: Side of the square tiles that group points and moves for polygon tests (in squares).
_BAND = 8

#: Outline coordinates are rounded to this many parts of a square (a power of two keeps
#: products of coordinates exact in float64).
SNAP = 64


@lru_cache(maxsize=4096)
def cells_along(dx: int, dy: int) -> tuple[tuple[int, int, Fraction], ...]:
    """The cells a segment from (0, 0) to (dx, dy) passes through, in order.

    Each item is ``(cx, cy, t)``: the cell's centre relative to the start and the
    fraction of the move at which the segment enters its open square. Cells only
    touched at a corner or along an edge are not listed.

    >>> [(x, y) for x, y, _ in cells_along(2, 1)]
    [(0, 0), (1, 0), (1, 1), (2, 1)]
    >>> [(x, y) for x, y, _ in cells_along(1, 1)]
    [(0, 0), (1, 1)]
    """
    ax, ay = max(abs(dx), 1), max(abs(dy), 1)
    whole = 2 * ax * ay  # common denominator of every boundary-crossing time
    times = {0, whole}
    if dx:
        times.update((2 * i + 1) * ay for i in range(abs(dx)))
    if dy:
        times.update((2 * j + 1) * ax for j in range(abs(dy)))
    ordered = sorted(times)
    cells: list[tuple[int, int, Fraction]] = []
    for a, b in zip(ordered, ordered[1:]):
        mid = a + b  # the midpoint time, over 2 * whole
        cx = (dx * mid + whole) // (2 * whole)
        cy = (dy * mid + whole) // (2 * whole)
        cells.append((cx, cy, Fraction(a, whole)))
    if not cells:  # a standstill covers its own cell
        cells.append((0, 0, Fraction(0)))
    return tuple(cells)


@lru_cache(maxsize=16384)
def cell_offsets(dx: int, dy: int) -> tuple[np.ndarray, np.ndarray]:
    """The cells of :func:`cells_along` as two integer arrays ``(cx, cy)``, without the entry times.

    The same arithmetic in numpy, for checking many moves at once (a fine-paper car has
    441 targets or more, each a different move).

    >>> [c.tolist() for c in cell_offsets(2, 1)]
    [[0, 1, 1, 2], [0, 0, 1, 1]]
    """
    import numpy as np

    ax, ay = max(abs(dx), 1), max(abs(dy), 1)
    whole = 2 * ax * ay
    parts = [np.array([0, whole], dtype=np.int64)]
    if dx:
        parts.append((2 * np.arange(abs(dx), dtype=np.int64) + 1) * ay)
    if dy:
        parts.append((2 * np.arange(abs(dy), dtype=np.int64) + 1) * ax)
    times = np.unique(np.concatenate(parts))
    mid = times[:-1] + times[1:]
    if not len(mid):
        mid = np.zeros(1, dtype=np.int64)  # a standstill covers its own cell
    cx, cy = (dx * mid + whole) // (2 * whole), (dy * mid + whole) // (2 * whole)
    cx.flags.writeable = cy.flags.writeable = False
    return cx, cy


class Region(Protocol):
    """The closed road region of a track, on a node grid ``width`` x ``height``."""

    width: int
    height: int

    def road_nodes(self) -> np.ndarray:
        """Bool array ``[height, width]``: which grid nodes lie on the road."""

    def node_on_road(self, x: int, y: int) -> bool:
        """Whether grid node (x, y) lies on the road (False off the sheet)."""

    def road_cells(self) -> list[tuple[int, int]]:
        """Every road node as (x, y), row by row."""

    def packed_road(self) -> bytes:
        """The road nodes as bits, row by row, eight a byte, the first in the high bit (for checksums)."""

    def segment_inside(self, p: Vec, q: Vec) -> bool:
        """True when the whole closed segment p-q lies in the road region."""

    def segments_inside(self, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """Vectorised :meth:`segment_inside` for integer arrays of shape (n, 2)."""

    def exit_fraction(self, p: Vec, q: Vec) -> Fraction | None:
        """Fraction of the move at which it first leaves the road, or None if it never does."""


class CellRegion:
    """Road made of unit squares around road nodes (char maps). ``road[y, x]`` is True on road.

    ``road`` may be a bool array or rows of bools. Rows are kept as Python tuples and the
    numpy array (:attr:`road`, what the drivers and the drawing ask for) is made on first
    use, so a char map is read and a race on it refereed without numpy; an array given is
    kept as it is (the drivers, the generator and fine paper already hold one).
    """

    def __init__(self, road) -> None:
        self._road = None
        self._rows: tuple[tuple[bool, ...], ...] | None = None
        if hasattr(road, "shape"):  # an array: whoever made it has numpy loaded already
            import numpy as np

            self._road = np.asarray(road, dtype=bool)
            self.height, self.width = self._road.shape
        else:
            self._rows = tuple(tuple(map(bool, row)) for row in road)
            self.height = len(self._rows)
            self.width = len(self._rows[0]) if self._rows else 0

    @property
    def road(self) -> np.ndarray:
        """Bool array ``[height, width]`` of the road nodes (made from the rows on first use).

        The region's own array, as before: never change it (the rows it was made from would
        no longer agree). Not made read-only, since numba compiles a kernel again for one.
        """
        if self._road is None:
            import numpy as np

            self._road = np.array(self._rows, dtype=bool).reshape(self.height, self.width)
        return self._road

    def road_nodes(self) -> np.ndarray:
        return self.road

    def node_on_road(self, x: int, y: int) -> bool:
        """Whether grid node (x, y) is road (False off the sheet), without numpy for a region made of rows."""
        return self._is_road(x, y)

    def _is_road(self, x: int, y: int) -> bool:
        if not (0 <= x < self.width and 0 <= y < self.height):
            return False
        return self._rows[y][x] if self._rows is not None else bool(self._road[y, x])

    def road_cells(self) -> list[tuple[int, int]]:
        """Every road node as (x, y), row by row (smallest y, then x, first)."""
        if self._rows is not None:
            return [(x, y) for y, row in enumerate(self._rows) for x, on in enumerate(row) if on]
        import numpy as np

        ys, xs = np.nonzero(self._road)
        return list(zip(xs.tolist(), ys.tolist()))

    def packed_road(self) -> bytes:
        """The road nodes as bits, row by row, eight a byte, the first in the high bit (``numpy.packbits``' layout)."""
        if self._rows is None:
            import numpy as np

            return np.packbits(self._road).tobytes()
        return _packed(self._rows)

    def segment_inside(self, p: Vec, q: Vec) -> bool:
        return all(self._is_road(p.x + cx, p.y + cy) for cx, cy, _ in cells_along(q.x - p.x, q.y - p.y))

    def exit_fraction(self, p: Vec, q: Vec) -> Fraction | None:
        for cx, cy, t in cells_along(q.x - p.x, q.y - p.y):
            if not self._is_road(p.x + cx, p.y + cy):
                return t
        return None

    def exit_fractions(self, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Vectorised :meth:`exit_fraction`: (leaves, num, den) with the fraction num/den exact."""
        import numpy as np

        starts = np.asarray(starts, dtype=np.int64).reshape(-1, 2)
        ends = np.asarray(ends, dtype=np.int64).reshape(-1, 2)
        n = len(starts)
        leaves, num, den = np.zeros(n, dtype=bool), np.zeros(n, dtype=np.int64), np.ones(n, dtype=np.int64)
        if not n:
            return leaves, num, den
        unique, inverse = np.unique(ends - starts, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        for k, (dx, dy) in enumerate(unique):
            rows = np.nonzero(inverse == k)[0]
            pending = np.ones(len(rows), dtype=bool)  # not yet known to have left
            for cx, cy, t in cells_along(int(dx), int(dy)):
                xs, ys = starts[rows, 0] + cx, starts[rows, 1] + cy
                inside = (xs >= 0) & (xs < self.width) & (ys >= 0) & (ys < self.height)
                road = np.zeros(len(rows), dtype=bool)
                road[inside] = self.road[ys[inside], xs[inside]]
                hit = pending & ~road
                leaves[rows[hit]] = True
                num[rows[hit]], den[rows[hit]] = t.numerator, t.denominator
                pending &= road
        return leaves, num, den

    def segments_inside(self, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        import numpy as np

        starts = np.asarray(starts, dtype=np.int64).reshape(-1, 2)
        ends = np.asarray(ends, dtype=np.int64).reshape(-1, 2)
        result = np.ones(len(starts), dtype=bool)
        if not len(starts):
            return result
        deltas = ends - starts
        unique, inverse = np.unique(deltas, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        counts = np.bincount(inverse, minlength=len(unique))
        single = np.flatnonzero(counts[inverse] == 1)
        if len(single):  # moves of their own (one car's targets): every cell of every move in one pass
            result[single] = self._each_inside(starts[single], deltas[single])
        for k in np.flatnonzero(counts > 1):
            dx, dy = unique[k]
            rows = np.nonzero(inverse == k)[0]  # one move from many starts (move tables): cell by cell
            xs0, ys0 = starts[rows, 0], starts[rows, 1]
            ok = np.ones(len(rows), dtype=bool)
            for cx, cy, _ in cells_along(int(dx), int(dy)):
                xs, ys = xs0 + cx, ys0 + cy
                inside = (xs >= 0) & (xs < self.width) & (ys >= 0) & (ys < self.height)
                ok &= inside
                ok[inside] &= self.road[ys[inside], xs[inside]]
            result[rows] = ok
        return result

    def _each_inside(self, starts: np.ndarray, deltas: np.ndarray) -> np.ndarray:
        """:meth:`segments_inside` for moves that each have their own delta."""
        import numpy as np

        cells = [cell_offsets(dx, dy) for dx, dy in deltas.tolist()]
        lengths = np.fromiter((len(cx) for cx, _ in cells), dtype=np.int64, count=len(cells))
        xs = np.repeat(starts[:, 0], lengths) + np.concatenate([cx for cx, _ in cells])
        ys = np.repeat(starts[:, 1], lengths) + np.concatenate([cy for _, cy in cells])
        ok = (xs >= 0) & (xs < self.width) & (ys >= 0) & (ys < self.height)
        ok[ok] = self.road[ys[ok], xs[ok]]
        first = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        return np.logical_and.reduceat(ok, first)


def _packed(rows: Sequence[Sequence[bool]]) -> bytes:
    """Rows of bools as bits, row after row, eight a byte, the first in the high bit (``numpy.packbits``' layout)."""
    bits = "".join("1" if on else "0" for row in rows for on in row)
    if not bits:
        return b""
    size = (len(bits) + 7) // 8
    return int(bits.ljust(size * 8, "0"), 2).to_bytes(size, "big")


def snap(value: float) -> float:
    """Round an outline coordinate to the 1/64 lattice that keeps geometry exact."""
    return round(float(value) * SNAP) / SNAP


def _cross(ax, ay, bx, by):
    return ax * by - ay * bx


def _ring_area2(ring: Sequence[tuple[int, int]]) -> int:
    """Twice the shoelace area of a ring in lattice units; positive when it turns counter-clockwise in maths axes."""
    return sum(ax * by - bx * ay for (ax, ay), (bx, by) in zip(ring, [*ring[1:], ring[0]]))


def fill_rings(rings: Sequence[Sequence[tuple[int, int]]], width: int,
               height: int) -> tuple[tuple[bool, ...], ...]:
    """The grid nodes inside closed polygon rings, row by row: a scanline fill in integers.

    ``rings`` hold vertices in 1/:data:`SNAP` of a square (whole numbers). A node is inside
    when it lies on a border, or when a ray from it towards +x crosses an odd number of
    edges (an edge counts when its ends lie on either side of the node's row, the upper end
    half-open): the very rule :meth:`PolygonRegion.contains_points` computes in numpy,
    here exact without it, so an outline is read and validated without numpy's import.
    """
    by_row: list[list[tuple[int, int, int, int]]] = [[] for _ in range(height)]
    for ring in rings:
        for (ax, ay), (bx, by) in zip(ring, [*ring[1:], ring[0]]):
            first, last = max(0, -(-min(ay, by) // SNAP)), min(height - 1, max(ay, by) // SNAP)
            for y in range(first, last + 1):
                by_row[y].append((ax, ay, bx, by))
    rows = []
    for y, edges in enumerate(by_row):
        level = y * SNAP
        flips = [False] * width  # a crossing flips every node left of it: kept at the rightmost such node
        border = [False] * width
        for ax, ay, bx, by in edges:
            if ay == by:  # along the row: every node from one end to the other lies on the border
                for x in range(max(0, -(-min(ax, bx) // SNAP)), min(width - 1, max(ax, bx) // SNAP) + 1):
                    border[x] = True
                continue
            num, den = ax * (by - ay) + (level - ay) * (bx - ax), (by - ay) * SNAP  # the crossing's x = num / den
            if den < 0:
                num, den = -num, -den
            if num % den == 0 and 0 <= num // den < width:
                border[num // den] = True
            if (ay > level) != (by > level):
                left = -(-num // den) - 1  # the rightmost node strictly left of the crossing
                if left >= 0:
                    flips[min(left, width - 1)] ^= True
        inside, row = False, [False] * width
        for x in range(width - 1, -1, -1):
            inside ^= flips[x]
            row[x] = inside or border[x]
        rows.append(tuple(row))
    return tuple(rows)


@dataclass(eq=False)
class PolygonRegion:
    """Road bounded by an outer ring and optional island rings (outlines).

    Rings are given as sequences of (x, y) points, without repeating the first point.
    Validation (simple rings, islands inside and apart) is the loader's job; this class
    assumes it holds. The paper is ``width`` x ``height`` nodes from (0, 0).

    The rings are kept in whole 1/:data:`SNAP` units and the road filled from them in
    plain Python (:func:`fill_rings`); the numpy arrays the drivers and the drawing read
    (:attr:`rings`, :meth:`road_nodes`) are made on first use.
    """

    outer: Sequence[Point]
    islands: Sequence[Sequence[Point]] = ()
    width: int = 0
    height: int = 0

    def __post_init__(self) -> None:
        rings = [[(round(float(x) * SNAP), round(float(y) * SNAP)) for x, y in ring] for ring in (self.outer, *self.islands)]
        # Orient so that the road lies on the positive (left, in maths axes) side of every edge.
        rings[0] = rings[0] if _ring_area2(rings[0]) > 0 else rings[0][::-1]
        rings[1:] = [r if _ring_area2(r) < 0 else r[::-1] for r in rings[1:]]
        self.lattice_rings = rings
        if not self.width or not self.height:
            self.width = -(-max(x for ring in rings for x, _ in ring) // SNAP) + 1
            self.height = -(-max(y for ring in rings for _, y in ring) // SNAP) + 1
        self._road = None

    @cached_property
    def rings(self) -> list[np.ndarray]:
        """The rings as float arrays (n, 2) in squares, oriented with the road on their left (maths axes)."""
        import numpy as np

        return [np.array(ring, dtype=float) / SNAP for ring in self.lattice_rings]

    @cached_property
    def _a(self) -> np.ndarray:
        """Every edge's start, ring after ring."""
        import numpy as np

        return np.concatenate(self.rings)

    @cached_property
    def _b(self) -> np.ndarray:
        """Every edge's end."""
        import numpy as np

        return np.concatenate([np.roll(r, -1, axis=0) for r in self.rings])

    @cached_property
    def _prev(self) -> np.ndarray:
        """The vertex before each edge's start."""
        import numpy as np

        return np.concatenate([np.roll(r, 1, axis=0) for r in self.rings])

    @cached_property
    def road_rows(self) -> tuple[tuple[bool, ...], ...]:
        """The road nodes as rows of bools (``road_rows[y][x]``), filled without numpy."""
        return fill_rings(self.lattice_rings, self.width, self.height)

    # -- points ---------------------------------------------------------------
    def contains_points(self, points: np.ndarray) -> np.ndarray:
        """Closed containment of many points (n, 2): inside or on the border."""
        import numpy as np

        pts = np.asarray(points, dtype=float).reshape(-1, 2)
        result = np.zeros(len(pts), dtype=bool)
        if not len(pts):
            return result
        # Only edges spanning a point's row can be crossed by its ray or pass through it:
        # handle points in horizontal bands, each against the edges that reach into it.
        band = _BAND
        rows = np.floor(pts[:, 1] / band).astype(np.int64)
        order = np.argsort(rows, kind="stable")
        y_lo, y_hi = np.minimum(self._a[:, 1], self._b[:, 1]), np.maximum(self._a[:, 1], self._b[:, 1])
        bounds = np.flatnonzero(np.diff(rows[order])) + 1
        for group in np.split(order, bounds):
            top = rows[group[0]] * band
            edges = np.flatnonzero((y_hi >= top) & (y_lo <= top + band))
            for lo in range(0, len(group), 4096):
                chunk = group[lo:lo + 4096]
                result[chunk] = self._contains(pts[chunk], edges)
        return result

    def _contains(self, pts: np.ndarray, edges: np.ndarray) -> np.ndarray:
        import numpy as np

        p = pts[:, None, :]
        a, b = self._a[None, edges], self._b[None, edges]
        ex, ey = b[..., 0] - a[..., 0], b[..., 1] - a[..., 1]
        px, py = p[..., 0] - a[..., 0], p[..., 1] - a[..., 1]
        cross = ex * py - ey * px
        within = (np.minimum(a[..., 0], b[..., 0]) <= p[..., 0]) & (p[..., 0] <= np.maximum(a[..., 0], b[..., 0])) \
            & (np.minimum(a[..., 1], b[..., 1]) <= p[..., 1]) & (p[..., 1] <= np.maximum(a[..., 1], b[..., 1]))
        on_border = np.any((cross == 0) & within, axis=1)
        straddle = (a[..., 1] > p[..., 1]) != (b[..., 1] > p[..., 1])
        right_of_point = np.where(ey > 0, cross > 0, cross < 0)
        odd = np.sum(straddle & right_of_point, axis=1) % 2 == 1
        return on_border | odd

    def road_nodes(self) -> np.ndarray:
        """Bool array ``[height, width]`` of the road nodes (made from :attr:`road_rows` on first use)."""
        if self._road is None:
            import numpy as np

            self._road = np.array(self.road_rows, dtype=bool).reshape(self.height, self.width)
        return self._road

    def node_on_road(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height and self.road_rows[y][x]

    def packed_road(self) -> bytes:
        """The road nodes as bits, row by row, eight a byte, the first in the high bit (``numpy.packbits``' layout)."""
        return _packed(self.road_rows)

    def road_cells(self) -> list[tuple[int, int]]:
        """Every road node as (x, y), row by row (smallest y, then x, first)."""
        return [(x, y) for y, row in enumerate(self.road_rows) for x, on in enumerate(row) if on]

    # -- segments -------------------------------------------------------------
    def _in_wedge(self, dx, dy, vertex_index):
        """Is direction (dx, dy) inside the closed road wedge at each given vertex?"""
        import numpy as np

        v = self._a[vertex_index]
        w = self._b[vertex_index]
        u = self._prev[vertex_index]
        ox, oy = w[..., 0] - v[..., 0], w[..., 1] - v[..., 1]
        ix, iy = u[..., 0] - v[..., 0], u[..., 1] - v[..., 1]
        turn = _cross(v[..., 0] - u[..., 0], v[..., 1] - u[..., 1], ox, oy)
        left_of_out = _cross(ox, oy, dx, dy) >= 0
        right_of_in = _cross(dx, dy, ix, iy) >= 0
        return np.where(turn > 0, left_of_out & right_of_in,
                        np.where(turn < 0, left_of_out | right_of_in, left_of_out))

    def segments_inside(self, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        import numpy as np

        starts = np.asarray(starts, dtype=float).reshape(-1, 2)
        ends = np.asarray(ends, dtype=float).reshape(-1, 2)
        result = self.contains_points(starts)
        if not len(starts):
            return result
        # A move can only meet edges near it: group moves by the tile their start lies in and
        # test each group against the edges whose boxes reach the group's box.
        tile = _BAND
        lo, hi = np.minimum(starts, ends), np.maximum(starts, ends)
        keys = np.floor(starts / tile).astype(np.int64)
        key = keys[:, 0] * 1_000_003 + keys[:, 1]
        order = np.argsort(key, kind="stable")
        bounds = np.flatnonzero(np.diff(key[order])) + 1
        e_lo, e_hi = np.minimum(self._a, self._b), np.maximum(self._a, self._b)
        for group in np.split(order, bounds):
            g_lo, g_hi = lo[group].min(axis=0), hi[group].max(axis=0)
            edges = np.flatnonzero(np.all(e_hi >= g_lo, axis=1) & np.all(e_lo <= g_hi, axis=1))
            if not len(edges):
                continue
            chunk = max(1, 200_000 // len(edges))
            for first in range(0, len(group), chunk):
                rows = group[first:first + chunk]
                result[rows] &= self._no_exit(starts[rows], ends[rows], edges)
        return result

    def _no_exit(self, p: np.ndarray, q: np.ndarray, edges: np.ndarray) -> np.ndarray:
        """For segments whose start is on the road: True when they never enter the exterior.

        ``edges`` are the indices of the border edges that can matter (all others lie
        clear of every segment's bounding box).
        """
        import numpy as np

        px, py = p[:, 0:1], p[:, 1:2]
        dx, dy = q[:, 0:1] - px, q[:, 1:2] - py
        ax, ay = self._a[None, edges, 0], self._a[None, edges, 1]
        bx, by = self._b[None, edges, 0], self._b[None, edges, 1]
        ex, ey = bx - ax, by - ay
        o_p = _cross(ex, ey, px - ax, py - ay)  # side of P relative to edge
        o_q = _cross(ex, ey, q[:, 0:1] - ax, q[:, 1:2] - ay)
        o_a = _cross(dx, dy, ax - px, ay - py)  # side of A relative to the move
        o_b = _cross(dx, dy, bx - px, by - py)
        proper = (o_p * o_q < 0) & (o_a * o_b < 0)
        bad = np.any(proper, axis=1)

        moving = (dx != 0) | (dy != 0)
        length2 = dx * dx + dy * dy
        # Vertices lying on the closed segment: the move must stay in the road wedge there.
        along = (ax - px) * dx + (ay - py) * dy
        on_seg = (o_a == 0) & (along >= 0) & (along <= length2) & moving
        at_start = on_seg & (ax == px) & (ay == py)
        at_end = on_seg & (ax == q[:, 0:1]) & (ay == q[:, 1:2])
        idx = np.broadcast_to(edges[None, :], on_seg.shape)
        out_ok = self._in_wedge(dx, dy, idx)
        in_ok = self._in_wedge(-dx, -dy, idx)
        bad |= np.any(on_seg & ~at_end & ~out_ok, axis=1)
        bad |= np.any(on_seg & ~at_start & ~in_ok, axis=1)

        # An end point on the open interior of an edge: the move must come from / go to the road side.
        e_len2 = ex * ex + ey * ey
        t_p = (px - ax) * ex + (py - ay) * ey
        t_q = (q[:, 0:1] - ax) * ex + (q[:, 1:2] - ay) * ey
        p_on_edge = (o_p == 0) & (t_p > 0) & (t_p < e_len2)
        q_on_edge = (o_q == 0) & (t_q > 0) & (t_q < e_len2)
        goes_in = _cross(ex, ey, dx, dy)
        bad |= np.any(p_on_edge & moving & (goes_in < 0), axis=1)
        bad |= np.any(q_on_edge & moving & (goes_in > 0), axis=1)
        return ~bad

    def segment_inside(self, p: Vec, q: Vec) -> bool:
        import numpy as np

        return bool(self.segments_inside(np.array([[p.x, p.y]]), np.array([[q.x, q.y]]))[0])

    def exit_fraction(self, p: Vec, q: Vec) -> Fraction | None:
        import numpy as np

        leaves, num, den = self.exit_fractions(np.array([[p.x, p.y]]), np.array([[q.x, q.y]]))
        return Fraction(int(num[0]), int(den[0])) if leaves[0] else None

    def exit_fractions(self, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Where moves first leave the road, exactly: (leaves, num, den), the fraction num/den.

        A move leaves at its start if it starts off the road or heads outward from a
        border; otherwise at the first point where it crosses a border edge, or passes a
        corner with its way on outside the road. All in integers (coordinates x 64).
        """
        import numpy as np

        starts = np.asarray(starts, dtype=np.int64).reshape(-1, 2)
        ends = np.asarray(ends, dtype=np.int64).reshape(-1, 2)
        n = len(starts)
        leaves = ~self.segments_inside(starts, ends)
        num, den = np.zeros(n, dtype=np.int64), np.ones(n, dtype=np.int64)
        rows = np.flatnonzero(leaves & self.contains_points(starts))
        if not len(rows):
            return leaves, num, den
        a = np.rint(self._a * SNAP).astype(np.int64)
        b = np.rint(self._b * SNAP).astype(np.int64)
        e_lo, e_hi = np.minimum(a, b), np.maximum(a, b)
        for i in rows:  # only moves that do leave: few, and each against nearby edges only
            p, q = starts[i] * SNAP, ends[i] * SNAP
            lo, hi = np.minimum(p, q), np.maximum(p, q)
            edges = np.flatnonzero(np.all(e_hi >= lo, axis=1) & np.all(e_lo <= hi, axis=1))
            best = self._first_exit(p, q, a[edges], b[edges], edges)
            num[i], den[i] = best
        return leaves, num, den

    def _first_exit(self, p, q, a, b, edges) -> tuple[int, int]:
        import numpy as np

        d = q - p
        e = b - a
        o_p = e[:, 0] * (p[1] - a[:, 1]) - e[:, 1] * (p[0] - a[:, 0])
        o_q = e[:, 0] * (q[1] - a[:, 1]) - e[:, 1] * (q[0] - a[:, 0])
        o_a = d[0] * (a[:, 1] - p[1]) - d[1] * (a[:, 0] - p[0])
        o_b = d[0] * (b[:, 1] - p[1]) - d[1] * (b[:, 0] - p[0])
        candidates: list[tuple[int, int]] = []
        # A border edge crossed in the middle of both: t = cross(A - P, E) / cross(D, E).
        for k in np.flatnonzero((o_p * o_q < 0) & (o_a * o_b < 0)):
            t_num = int((a[k, 0] - p[0]) * e[k, 1] - (a[k, 1] - p[1]) * e[k, 0])
            t_den = int(d[0] * e[k, 1] - d[1] * e[k, 0])
            candidates.append((t_num, t_den) if t_den > 0 else (-t_num, -t_den))
        # A corner on the move that it leaves through.
        length2 = int(d @ d)
        along = (a[:, 0] - p[0]) * d[0] + (a[:, 1] - p[1]) * d[1]
        on_seg = (o_a == 0) & (along >= 0) & (along < length2)
        if on_seg.any():
            idx = edges[on_seg]
            bad = ~self._in_wedge(float(d[0]), float(d[1]), idx)
            for k in np.flatnonzero(on_seg)[bad]:
                candidates.append((int(along[k]), length2))
        # Starting on a border and heading outward.
        e_len2 = (e * e).sum(axis=1)
        t_p = (p[0] - a[:, 0]) * e[:, 0] + (p[1] - a[:, 1]) * e[:, 1]
        p_on_edge = (o_p == 0) & (t_p > 0) & (t_p < e_len2)
        if np.any(p_on_edge & (e[:, 0] * d[1] - e[:, 1] * d[0] < 0)):
            candidates.append((0, 1))
        if not candidates:  # cannot happen for a move that leaves; stay safe
            return (0, 1)
        return min(candidates, key=lambda f: Fraction(f[0], f[1]))


@dataclass(frozen=True)
class Gate:
    """A finish line or checkpoint: a :class:`LineGate` or a :class:`CellGate`.

    ``Gate(number, a=..., b=..., forward=...)`` builds a line gate and
    ``Gate(number, cells=..., ...)`` a cell gate, so code that does not care which
    kind it makes may say ``Gate``; code that does says :class:`LineGate` or
    :class:`CellGate`, and code that asks tests ``isinstance`` (or ``is_line``).
    """

    number: int

    def __new__(cls, *args, **kwargs):
        if cls is Gate:  # a bare Gate(...) call: the kind follows from the fields given
            cls = LineGate if kwargs.get("a") is not None or (len(args) > 1 and args[1] is not None) else CellGate
        return object.__new__(cls)

    @property
    def is_line(self) -> bool:
        return isinstance(self, LineGate)

    def crossing(self, p: Vec, q: Vec) -> tuple[int, Fraction] | None:
        """(+1 forward or -1 backward, fraction of the move where it happens), or None."""
        raise NotImplementedError

    def side(self, point: Vec) -> int:
        """-1 behind a line gate, 0 on its line, +1 past it (0 for cell gates)."""
        return 0

    def signed_distance(self, point: tuple[float, float]) -> float:
        """How far a point lies past a line gate, in squares (negative behind it; 0 for cell gates)."""
        return 0.0


@dataclass(frozen=True)
class LineGate(Gate):
    """A directed line from ``a`` to ``b``; ``forward`` points to the side a car must reach.

    A move crosses forward when it starts strictly behind the line and ends on or past
    it, passing between ``a`` and ``b`` (ends included); backward is the reverse. So a
    car standing on the line has not crossed it yet, and stepping back over a line then
    forward again nets zero.
    """

    a: Point
    b: Point
    forward: Point
    # Not fields: a line gate has no cells (plain class attributes answer for both kinds).
    cells = frozenset()
    entered = False

    def crossing(self, p: Vec, q: Vec) -> tuple[int, Fraction] | None:
        return self._line_crossing(p, q)

    @cached_property
    def _exact(self) -> tuple[Fraction, ...]:
        """The line's coordinates and normal as exact fractions (computed once)."""
        return tuple(Fraction(v) for v in (*self.a, *self.b, *self.forward))

    def _line_crossing(self, p: Vec, q: Vec) -> tuple[int, Fraction] | None:
        (ax, ay), (nx, ny) = self.a, self.forward
        # Most moves are nowhere near the line: a float test with a safety margin rejects
        # them; only moves that may touch it are worked out exactly.
        far = 1e-9 * (abs(nx) + abs(ny) + 1)
        f_p = nx * (p.x - ax) + ny * (p.y - ay)
        f_q = nx * (q.x - ax) + ny * (q.y - ay)
        if (f_p > far and f_q > far) or (f_p < -far and f_q < -far):
            return None
        ax, ay, bx, by, nx, ny = self._exact
        s_p = nx * (p.x - ax) + ny * (p.y - ay)
        s_q = nx * (q.x - ax) + ny * (q.y - ay)
        if s_p < 0 <= s_q:
            direction = 1
        elif s_q < 0 <= s_p:
            direction = -1
        else:
            return None
        dx, dy = q.x - p.x, q.y - p.y
        o_a = dx * (ay - p.y) - dy * (ax - p.x)
        o_b = dx * (by - p.y) - dy * (bx - p.x)
        if o_a * o_b > 0:
            return None  # the line is missed beside the gate
        return direction, s_p / (s_p - s_q)

    def side(self, point: Vec) -> int:
        (ax, ay), (nx, ny) = self.a, self.forward
        s = Fraction(nx) * (point.x - Fraction(ax)) + Fraction(ny) * (point.y - Fraction(ay))
        return (s > 0) - (s < 0)

    def signed_distance(self, point: tuple[float, float]) -> float:
        (ax, ay), (nx, ny) = self.a, self.forward
        norm = (nx * nx + ny * ny) ** 0.5 or 1.0
        return ((point[0] - ax) * nx + (point[1] - ay) * ny) / norm


@dataclass(frozen=True)
class CellGate(Gate):
    """A set of ``cells`` (Karopapier checkpoints and finish): a move visits it when it
    passes through one of their open squares.

    With a ``forward`` vector only moves whose direction has a positive component along
    it count; without one any visit counts. ``entered`` makes only cells a move *enters*
    count, not the one it starts on (Karopapier's finish: a car standing on an ``F``
    cell was judged when it arrived, so leaving it is no second finish, and after a lap
    the next one needs a new entry). A cell gate is only ever visited, never crossed back.
    """

    cells: frozenset[tuple[int, int]] = frozenset()
    forward: Point | None = None
    entered: bool = False
    # Not fields: a cell gate has no ends.
    a = b = None

    def crossing(self, p: Vec, q: Vec) -> tuple[int, Fraction] | None:
        if self.forward is not None:
            fx, fy = self.forward
            if (q.x - p.x) * fx + (q.y - p.y) * fy <= 0:
                return None
        for cx, cy, t in cells_along(q.x - p.x, q.y - p.y)[1 if self.entered else 0:]:
            if (p.x + cx, p.y + cy) in self.cells:
                return 1, t
        return None


def meeting_time(p1: Vec, q1: Vec, p2: Vec, q2: Vec) -> Fraction | None:
    """Earliest fraction of a phase at which two cars moving at once share a point.

    Both cars move from p to q at constant speed over the same phase. Returns None when
    they never meet.

    >>> meeting_time(Vec(0, 0), Vec(2, 0), Vec(2, 0), Vec(0, 0))
    Fraction(1, 2)
    """
    rx, ry = p1.x - p2.x, p1.y - p2.y
    vx, vy = (q1.x - p1.x) - (q2.x - p2.x), (q1.y - p1.y) - (q2.y - p2.y)
    if vx == 0 and vy == 0:
        return Fraction(0) if rx == 0 and ry == 0 else None
    # r + t v = 0 must hold on both axes.
    if vx != 0:
        t = Fraction(-rx, vx)
        if ry + t * vy != 0:
            return None
    else:
        if rx != 0:
            return None
        t = Fraction(-ry, vy)
    return t if 0 <= t <= 1 else None
