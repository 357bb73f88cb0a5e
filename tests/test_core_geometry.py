"""Exact geometry: which moves stay on the road, and which gates they cross."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from game.core import CellRegion, Gate, PolygonRegion, Vec
from game.core.geometry import cells_along, meeting_time


def road(rows):
    return CellRegion(np.array([[c != "X" for c in r] for r in rows]))


def open_square_hit(dx: int, dy: int, cx: int, cy: int) -> bool:
    """Oracle: does the segment (0,0)-(dx,dy) meet the open square around (cx, cy)? (Liang-Barsky)."""
    lo, hi = Fraction(0), Fraction(1)
    for start, delta, centre in ((0, dx, cx), (0, dy, cy)):
        low, high = Fraction(2 * centre - 1, 2), Fraction(2 * centre + 1, 2)
        if delta == 0:
            if not low < start < high:
                return False
            continue
        t1, t2 = (low - start) / delta, (high - start) / delta
        lo, hi = max(lo, min(t1, t2)), min(hi, max(t1, t2))
    return lo < hi


@given(st.integers(-7, 7), st.integers(-7, 7))
def test_cells_along_lists_exactly_the_open_squares_a_move_passes(dx, dy):
    expected = {(cx, cy) for cx in range(min(0, dx) - 1, max(0, dx) + 2)
                for cy in range(min(0, dy) - 1, max(0, dy) + 2) if open_square_hit(dx, dy, cx, cy)}
    if dx == dy == 0:
        expected = {(0, 0)}
    cells = cells_along(dx, dy)
    assert {(x, y) for x, y, _ in cells} == expected
    times = [t for _, _, t in cells]
    assert times == sorted(times) and times[0] == 0


def test_moving_along_the_border_of_the_road_is_allowed():
    region = road(["XXXXX", "XOOOX", "XXXXX"])
    assert region.segment_inside(Vec(1, 1), Vec(3, 1))


def test_passing_exactly_through_a_pinch_corner_is_allowed_but_not_beside_it():
    region = road(["XXXX", "XOXX", "XXOX", "XXXX"])
    assert region.segment_inside(Vec(1, 1), Vec(2, 2))
    assert not region.segment_inside(Vec(1, 1), Vec(2, 1))


def test_cutting_a_corner_over_grass_leaves_the_road():
    region = road(["XXXXX", "XOOOX", "XOXXX", "XOXXX", "XXXXX"])
    assert region.segment_inside(Vec(1, 3), Vec(1, 1))
    assert not region.segment_inside(Vec(1, 3), Vec(3, 1))
    # Touching the inner corner of the bend only at a point is fine.
    assert region.segment_inside(Vec(1, 2), Vec(2, 1))


def test_exit_fraction_is_where_the_move_first_enters_grass():
    region = road(["XXXXXX", "XOOOOX", "XXXXXX"])
    assert region.exit_fraction(Vec(1, 1), Vec(4, 1)) is None
    assert region.exit_fraction(Vec(1, 1), Vec(1, 0)) == Fraction(1, 2)
    assert region.exit_fraction(Vec(3, 1), Vec(5, 1)) == Fraction(3, 4)


def test_batch_legality_matches_one_by_one():
    region = road(["XXXXXXX", "XOOOOOX", "XOOXOOX", "XOOOOOX", "XXXXXXX"])
    rng = np.random.default_rng(1)
    starts = rng.integers(-1, 8, size=(400, 2))
    ends = starts + rng.integers(-4, 5, size=(400, 2))
    batch = region.segments_inside(starts, ends)
    single = [region.segment_inside(Vec(*map(int, s)), Vec(*map(int, e))) for s, e in zip(starts, ends)]
    assert list(batch) == single


# -- polygons ---------------------------------------------------------------

L_SHAPE = [(0.5, 0.5), (6.5, 0.5), (6.5, 2.5), (2.5, 2.5), (2.5, 6.5), (0.5, 6.5)]


def test_polygon_allows_moves_touching_a_reflex_corner_but_not_cutting_it():
    region = PolygonRegion(L_SHAPE, width=8, height=8)
    assert region.segment_inside(Vec(1, 1), Vec(6, 1))
    assert region.segment_inside(Vec(2, 6), Vec(2, 1))
    # Through the reflex corner (2.5, 2.5) exactly: the line y = x touches it and stays inside? No:
    # from (1, 4) to (4, 1) passes (2.5, 2.5) with grass on one side only at the point.
    assert region.segment_inside(Vec(1, 4), Vec(4, 1))
    # From (2, 5) to (5, 2) runs beside the corner through grass.
    assert not region.segment_inside(Vec(2, 5), Vec(5, 2))
    # A move outside the paper's road entirely.
    assert not region.segment_inside(Vec(4, 4), Vec(4, 5))


def test_polygon_islands_are_off_road_but_their_borders_are_road():
    outer = [(0, 0), (10, 0), (10, 10), (0, 10)]
    island = [(3, 3), (7, 3), (7, 7), (3, 7)]
    region = PolygonRegion(outer, [island], width=11, height=11)
    assert region.segment_inside(Vec(1, 3), Vec(9, 3))  # along the island's edge
    assert not region.segment_inside(Vec(1, 5), Vec(9, 5))  # through it
    assert region.segment_inside(Vec(1, 1), Vec(3, 3))  # onto its corner
    assert region.segment_inside(Vec(2, 4), Vec(4, 2))  # grazing its corner at one point
    assert not region.segment_inside(Vec(2, 2), Vec(4, 4))  # into it through the corner
    nodes = region.road_nodes()
    assert not nodes[5, 5] and nodes[3, 5] and nodes[0, 0]


def test_polygon_and_cells_agree_on_a_rectangle_for_every_move():
    rows = ["XXXXXXXX", "XOOOOOOX", "XOOOOOOX", "XXXXXXXX"]
    cells = road(rows)
    poly = PolygonRegion([(0.5, 0.5), (6.5, 0.5), (6.5, 2.5), (0.5, 2.5)], width=8, height=4)
    pts = np.array([(x, y) for x in range(8) for y in range(4)])
    starts = np.repeat(pts, len(pts), axis=0)
    ends = np.tile(pts, (len(pts), 1))
    assert (poly.segments_inside(starts, ends) == cells.segments_inside(starts, ends)).all()


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 5), st.integers(1, 5))
def test_polygon_and_cells_agree_on_any_rectangle_of_road(x0, y0, w, h):
    grid = np.zeros((14, 14), dtype=bool)
    grid[y0:y0 + h, x0:x0 + w] = True
    cells = CellRegion(grid)
    left, top, right, bottom = x0 - 0.5, y0 - 0.5, x0 + w - 0.5, y0 + h - 0.5
    poly = PolygonRegion([(left, top), (right, top), (right, bottom), (left, bottom)], width=14, height=14)
    pts = np.array([(x, y) for x in range(x0 - 1, x0 + w + 1) for y in range(y0 - 1, y0 + h + 1)])
    starts = np.repeat(pts, len(pts), axis=0)
    ends = np.tile(pts, (len(pts), 1))
    assert (poly.segments_inside(starts, ends) == cells.segments_inside(starts, ends)).all()


# -- gates ------------------------------------------------------------------

FINISH = Gate(0, a=(5.5, 0.5), b=(5.5, 3.5), forward=(1, 0))


def test_a_gate_is_crossed_forward_only_from_behind_the_line():
    assert FINISH.crossing(Vec(4, 1), Vec(6, 1)) == (1, Fraction(3, 4))
    assert FINISH.crossing(Vec(6, 1), Vec(4, 1)) == (-1, Fraction(1, 4))
    assert FINISH.crossing(Vec(6, 1), Vec(8, 1)) is None
    assert FINISH.crossing(Vec(4, 1), Vec(5, 2)) is None


def test_a_gate_is_missed_when_the_move_passes_beside_it():
    assert FINISH.crossing(Vec(4, 5), Vec(7, 5)) is None
    # Exactly through the gate's end counts (ends are included).
    assert FINISH.crossing(Vec(5, 0), Vec(6, 1)) is not None


def test_landing_on_a_line_counts_once_and_stepping_off_backward_undoes_it():
    gate = Gate(0, a=(5, 0), b=(5, 4), forward=(1, 0))
    assert gate.crossing(Vec(4, 1), Vec(5, 1))[0] == 1
    assert gate.crossing(Vec(5, 1), Vec(6, 1)) is None
    assert gate.crossing(Vec(5, 1), Vec(4, 1))[0] == -1


def test_cell_gates_count_any_visit_or_only_forward_ones():
    undirected = Gate(1, cells=frozenset({(3, 1)}))
    assert undirected.crossing(Vec(1, 1), Vec(4, 1)) == (1, Fraction(1, 2))
    assert undirected.crossing(Vec(5, 1), Vec(2, 1))[0] == 1
    directed = Gate(1, cells=frozenset({(3, 1)}), forward=(1, 0))
    assert directed.crossing(Vec(5, 1), Vec(2, 1)) is None
    assert directed.crossing(Vec(1, 2), Vec(4, 2)) is None


def test_cars_swapping_places_meet_halfway():
    assert meeting_time(Vec(0, 0), Vec(4, 0), Vec(4, 0), Vec(0, 0)) == Fraction(1, 2)
    assert meeting_time(Vec(0, 0), Vec(4, 0), Vec(0, 1), Vec(4, 1)) is None
    assert meeting_time(Vec(0, 0), Vec(2, 2), Vec(2, 0), Vec(0, 2)) == Fraction(1, 2)
    # Crossing paths at different times never meet.
    assert meeting_time(Vec(0, 0), Vec(4, 0), Vec(1, -3), Vec(1, 1)) is None


def test_polygon_and_cells_agree_exactly_on_where_moves_leave_an_l_shaped_road():
    outline = PolygonRegion(L_SHAPE, width=8, height=8)
    cells = road(["XXXXXXXX", "XOOOOOOX", "XOOOOOOX", "XOOXXXXX", "XOOXXXXX", "XOOXXXXX", "XOOXXXXX",
                  "XXXXXXXX"])
    pts = np.array([(x, y) for x in range(8) for y in range(8)])
    starts, ends = np.repeat(pts, len(pts), axis=0), np.tile(pts, (len(pts), 1))
    l1, n1, d1 = outline.exit_fractions(starts, ends)
    l2, n2, d2 = cells.exit_fractions(starts, ends)
    assert (l1 == l2).all()
    on_road = cells.road[starts[:, 1], starts[:, 0]] & l1
    assert on_road.sum() > 500
    assert all(Fraction(int(a), int(b)) == Fraction(int(c), int(d))
               for a, b, c, d in zip(n1[on_road], d1[on_road], n2[on_road], d2[on_road]))


def test_a_move_running_along_a_border_leaves_where_the_border_turns_away():
    region = PolygonRegion([(0, 0), (4, 0), (4, 2), (8, 2), (8, 6), (0, 6)], width=9, height=7)
    # Along y = 0 from x = 0 to x = 6: on the border up to the corner (4, 0), then outside.
    assert region.exit_fraction(Vec(0, 0), Vec(6, 0)) == Fraction(2, 3)
    assert region.exit_fraction(Vec(0, 2), Vec(8, 2)) is None


def test_a_move_sliding_along_a_straight_border_stays_on_the_road():
    # The bottom border y = 1 runs through grid nodes: a move along it touches the border
    # all the way (touching is not crossing), from its start or to its end on the edge.
    region = PolygonRegion([(1, 1), (9, 1), (9, 5), (1, 5)], width=11, height=7)
    starts = np.array([[2, 1], [2, 1], [5, 1], [2, 1], [2, 3]])
    ends = np.array([[6, 1], [8, 1], [3, 1], [4, 0], [2, 1]])
    assert region.segments_inside(starts, ends).tolist() == [True, True, True, False, True]
    assert region.segment_inside(Vec(2, 1), Vec(6, 1))
    assert region.exit_fraction(Vec(3, 1), Vec(7, 1)) is None
    # Up the left border x = 1, and down from the road onto it.
    assert region.segment_inside(Vec(1, 2), Vec(1, 4)) and region.segment_inside(Vec(3, 3), Vec(1, 2))
    assert not region.segment_inside(Vec(1, 2), Vec(0, 4))


def test_road_in_column_and_row_zero_is_road_to_the_moves_and_the_move_tables():
    from game.core import Track
    from game.core.rules import preset
    from game.drivers.moves import MoveTables
    cells = road(["OOOO",
                  "OXXO",
                  "OOOO"])
    assert cells.segment_inside(Vec(0, 0), Vec(0, 2)) and cells.segment_inside(Vec(0, 2), Vec(3, 2))
    assert cells.exit_fraction(Vec(0, 2), Vec(0, 0)) is None
    starts = np.array([[0, 0], [0, 2], [0, 1], [3, 0]])
    ends = np.array([[0, 2], [0, 0], [2, 1], [0, 0]])
    assert cells.segments_inside(starts, ends).tolist() == [True, True, False, True]
    leaves, _, _ = cells.exit_fractions(starts, ends)
    assert leaves.tolist() == [False, False, True, False]
    track = Track(id="edge", name="edge", region=cells, start_slots=(Vec(0, 0),),
                  finish=Gate(0, a=(1.5, 1.5), b=(1.5, 2.5), forward=(-1, 0)), forward=(-1.0, 0.0))
    assert track.on_road(Vec(0, 1)) and not track.on_road(Vec(1, 1))
    tables = MoveTables(track, preset("paper"))
    down = tables.row(0, 2)
    r = int(tables.road_index[0])  # the node (0, 0)
    assert bool(tables.inside[down * tables.n_road + r])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 30), st.floats(0, 20)), min_size=1, max_size=40))
def test_restart_nodes_are_the_nearest_road_nodes_with_ties_to_the_top_left(points):
    from tests.core_tracks import STRAIGHT, make_track
    track = make_track(STRAIGHT)
    road = track.region.road_nodes()
    ys, xs = np.nonzero(road)
    pts = np.round(np.array(points) * 2) / 2  # half squares make ties common
    for (px, py), (x, y) in zip(pts, track.nearest_road_nodes(pts)):
        d2 = (xs - px) ** 2 + (ys - py) ** 2
        best = np.flatnonzero(d2 == d2.min())
        assert (x, y) == (xs[best[0]], ys[best[0]])
        assert track.nearest_road_node((px, py)) == Vec(int(x), int(y))  # the referee's plain-Python one agrees


def test_line_and_cell_gates_are_two_types_each_with_only_its_own_fields():
    from dataclasses import fields

    from game.core import CellGate, LineGate
    line = Gate(0, a=(5.5, 0.5), b=(5.5, 3.5), forward=(1, 0))
    cells = Gate(1, cells=frozenset({(3, 1)}), entered=True)
    assert type(line) is LineGate and type(cells) is CellGate
    assert [f.name for f in fields(line)] == ["number", "a", "b", "forward"]
    assert [f.name for f in fields(cells)] == ["number", "cells", "forward", "entered"]
    assert line == LineGate(0, (5.5, 0.5), (5.5, 3.5), (1, 0)) and line.is_line and not cells.is_line
    assert (line.cells, cells.a, cells.side(Vec(9, 1)), cells.signed_distance((9.0, 1.0))) == (frozenset(), None, 0, 0.0)
    assert line.side(Vec(6, 1)) == 1 and line.side(Vec(5, 1)) == -1
