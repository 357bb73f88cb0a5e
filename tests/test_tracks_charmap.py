"""Char maps: where the finish line, the driving direction, the start grid and checkpoints end up."""

from __future__ import annotations

import pytest

from game.core.race import RaceState
from game.core.rules import preset
from game.core.vec import Vec
from game.tracks.charmap import check_charmap, track_from_charmap
from game.tracks.problems import TrackError

# A small loop: F column at x=3, S just past it; the road goes right, down and back left.
LOOP = """
XXXXXXXXXX
XOOFSOOOOX
XOOFSOOOOX
XOXXXXXXOX
XOOOOOOOOX
XXXXXXXXXX
"""

# A sprint: S on the left, F column on the right, no way back round.
SPRINT = """
XXXXXXXX
XSOOOOFX
XSOOOOFX
XXXXXXXX
"""


def test_finish_line_lies_on_the_back_edge_of_the_f_column():
    track = track_from_charmap(LOOP)
    assert track.finish.is_line
    assert track.finish.a == (2.5, 0.5) and track.finish.b == (2.5, 2.5)
    assert track.finish.forward == (1.0, 0.0)
    assert track.forward == (1.0, 0.0)


def test_circuit_cars_drive_away_from_the_finish_towards_the_side_s_is_on():
    mirrored = "\n".join(row[::-1] for row in LOOP.strip().splitlines())
    track = track_from_charmap(mirrored)
    assert track.forward == (-1.0, 0.0)
    assert track.finish.a[0] == 6.5  # back edge of the F column, now on its right
    assert track.meta["circuit"] is True


def test_sprint_forward_points_away_from_the_start_side():
    track = track_from_charmap(SPRINT)
    assert track.forward == (1.0, 0.0)
    assert track.finish.a[0] == 5.5
    assert track.meta["circuit"] is False


def test_sprint_on_the_right_drives_left():
    mirrored = "\n".join(row[::-1] for row in SPRINT.strip().splitlines())
    track = track_from_charmap(mirrored)
    assert track.forward == (-1.0, 0.0)
    assert track.finish.a[0] == 1.5


def test_a_row_of_f_is_crossed_vertically():
    rotated = """
    XXXXXX
    XOOOOX
    XOXXOX
    XOXXOX
    XFFXOX
    XSSXOX
    XOOOOX
    XXXXXX
    """
    track = track_from_charmap(rotated)
    assert track.forward == (0.0, 1.0)  # S is below F, cars drive down first
    assert track.finish.a == (0.5, 3.5) and track.finish.b == (2.5, 3.5)


def test_start_slots_best_first_then_left_to_right_across_the_road():
    track = track_from_charmap(LOOP)
    # Driving right, the driver's left is up: row 1 before row 2.
    assert track.start_slots == (Vec(4, 1), Vec(4, 2))


def test_start_slots_furthest_forward_first():
    text = """
    XXXXXXXXXX
    XOOFSSOOOX
    XOOFOSOOOX
    XOXXXXXXOX
    XOOOOOOOOX
    XXXXXXXXXX
    """
    track = track_from_charmap(text)
    assert track.start_slots == (Vec(5, 1), Vec(5, 2), Vec(4, 1))


def _race(track, laps=1):
    return RaceState.start(track, preset("paper").with_options(order="fixed"), ["a"], laps=laps)


def test_stepping_back_over_the_finish_from_the_start_is_no_finish():
    track = track_from_charmap(LOOP)
    state = _race(track)
    state, _ = state.apply({0: Vec(3, 1)})  # onto the F cell: no line crossed
    state, _ = state.apply({0: Vec(2, 1)})  # over the line backwards
    assert state.cars[0].progress.finish_debt == 1
    state, record = state.apply({0: Vec(2, 1) + Vec(0, 0)})
    state, record = state.apply({0: Vec(3, 1)})  # forwards again: repays the debt only
    assert state.cars[0].racing
    assert not any(e.kind == "finish" for e in record.events)


def test_driving_the_lap_finishes():
    track = track_from_charmap(LOOP)
    state = _race(track)
    path = [Vec(5, 1), Vec(6, 1), Vec(7, 1), Vec(8, 2), Vec(8, 3), Vec(7, 4), Vec(6, 4), Vec(5, 4), Vec(4, 4),
            Vec(3, 4), Vec(2, 4), Vec(1, 3), Vec(1, 2), Vec(2, 1)]
    for node in path:
        state, record = state.apply({0: node})
        assert state.cars[0].racing
    state, record = state.apply({0: Vec(3, 1)})
    assert any(e.kind == "finish" for e in record.events)


def test_straight_digit_column_becomes_a_directed_line_checkpoint():
    text = """
    XXXXXXXXXXX
    XOOFSOO1OOX
    XOOFSOO1OOX
    XOXXXXXXXOX
    XOOOOOOOOOX
    XXXXXXXXXXX
    """
    track = track_from_charmap(text)
    (gate,) = track.checkpoints
    assert gate.number == 1 and gate.is_line
    assert gate.a == (6.5, 0.5) and gate.forward == (1.0, 0.0)


def test_karopapier_checkpoints_are_cell_gates():
    text = """
    XXXXXXXXXXX
    XOOFSOO1OOX
    XOOFSOO1OOX
    XOXXXXXXXOX
    XOOOOO3OOOX
    XXXXXXXXXXX
    """
    track = track_from_charmap(text, karopapier=True)
    assert [g.number for g in track.checkpoints] == [1, 3]
    assert all(not g.is_line for g in track.checkpoints)
    assert track.checkpoints[1].cells == frozenset({(6, 4)})


def test_karopapier_terrains_without_a_kind_are_off_road_with_a_warning():
    text = LOOP.replace("XOXXXXXXOX", "XOXXXLTXOX")
    track, problems = check_charmap(text)
    assert track is not None and not track.on_road(Vec(5, 3)) and not track.on_road(Vec(6, 3))
    warnings = [p for p in problems if not p.is_error]
    assert any("lava" in p.message for p in warnings) and any("tar" in p.message for p in warnings)
    assert not track.terrain_nodes()


def test_ragged_rows_are_padded_with_off_road_and_warned_about():
    text = LOOP.replace("XOOOOOOOOX\nXXXXXXXXXX", "XOOOOOOOOX\nXXXXX")
    track, problems = check_charmap(text)
    assert track is not None
    assert any("padded" in p.message and p.line == 7 for p in problems)


def test_unknown_letter_is_an_error_on_its_line():
    with pytest.raises(TrackError) as info:
        track_from_charmap(LOOP.replace("XOXXXXXXOX", "XOXX#XXXOX"))
    (problem,) = info.value.errors
    assert problem.line == 5 and "'#'" in problem.message and "x=4, y=3" in problem.message


def test_finish_that_does_not_span_the_road_is_an_error():
    text = LOOP.replace("XOOFSOOOOX\nXOOFSOOOOX", "XOOFSOOOOX\nXOOOSOOOOX")
    with pytest.raises(TrackError) as info:
        track_from_charmap(text)
    assert any("does not cut the road" in p.message for p in info.value.errors)


def test_start_behind_the_line_on_a_circuit_is_an_error():
    text = LOOP.replace("XOOFSOOOOX\nXOOFSOOOOX", "XOOFSOOOOX\nXOSFOOOOOX")
    with pytest.raises(TrackError) as info:
        track_from_charmap(text)
    (problem,) = info.value.errors
    assert "behind the finish line" in problem.message and problem.line == 4


def test_sprint_with_more_than_one_lap_is_an_error():
    with pytest.raises(TrackError) as info:
        track_from_charmap(SPRINT, laps=3)
    assert [p.key for p in info.value.errors] == ["laps"]


def test_missing_start_and_finish_are_both_reported():
    with pytest.raises(TrackError) as info:
        track_from_charmap("XXXX\nXOOX\nXXXX")
    messages = [p.message for p in info.value.errors]
    assert any("no start" in m for m in messages) and any("no finish" in m for m in messages)


def test_unreachable_finish_is_an_error():
    text = """
    XXXXXXXX
    XSOXOOFX
    XSOXOOFX
    XXXXXXXX
    """
    with pytest.raises(TrackError) as info:
        track_from_charmap(text)
    assert any("cannot be reached" in p.message or "cannot reach" in p.message for p in info.value.errors)


def test_forward_pointing_the_wrong_way_on_a_sprint_is_an_error():
    with pytest.raises(TrackError) as info:
        track_from_charmap(SPRINT, forward="left")
    assert [p.key for p in info.value.errors] == ["forward"]
