"""The solver's par is the true minimum under the rules as the referee plays them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from game.core import CellRegion, Gate, RaceState, Track, Vec, preset
from game.drivers.reference import reference_par
from game.drivers.solver import Solver, SolverTable, solve
from game.tracks.charmap import track_from_charmap
from tests.lines import drive_line

OVAL = """
XXXXXXXXXXXXXXXXXXXXXX
XXXOOOOOOOOOOOOOOOOXXX
XXOOOOOOOOOOOOOOOOOOXX
XOOOOXXXXXXXXXXXXOOOOX
XOOOXXXXXXXXXXXXXXOOOX
XOOOOXXXXXXXXXXXXOOOOX
XXOOOOOOFSOSOOOOOOOOXX
XXXOOOOOFOSOSOOOOOOXXX
XXXXXXXXXXXXXXXXXXXXXX
"""

DOGLEG = """
XXXXXXXXXXXXXXX
XSOOOOOOOXXXXXX
XSOOOOOOOXXXXXX
XXXXXXXOOXXXXXX
XXXXXXXOOXXXXXX
XXXXXXXOOOOOOFX
XXXXXXXOOOOOOFX
XXXXXXXXXXXXXXX
"""


def oval(laps=1):
    return track_from_charmap(OVAL, id="oval", laps=laps)


def play_path(track, rules, laps, path):
    """Drive the solver's line through the real referee, alone from its start place; returns the final car."""
    return drive_line(track, rules, path, laps).cars[0]


@pytest.mark.parametrize("rules_name", ["paper", "karopapier", "tournament", "phases", "arcade"])
@pytest.mark.parametrize("laps", [1, 2])
def test_the_optimal_line_finishes_in_exactly_par_moves_through_the_referee(rules_name, laps):
    track, rules = oval(laps), preset(rules_name)
    solution = solve(track, rules, laps)
    assert solution.par is not None
    car = play_path(track, rules, laps, solution.path)
    assert car.status == "finished"
    assert car.moves == solution.par


@pytest.mark.parametrize("rules_name", ["paper", "karopapier", "arcade"])
@pytest.mark.parametrize("movement", ["nine", "cross"])
def test_par_equals_a_plain_breadth_first_search_over_referee_moves(rules_name, movement):
    track = track_from_charmap(DOGLEG, id="dogleg")
    rules = preset(rules_name).with_options(movement=movement)
    ref = reference_par(track, rules, 1)
    assert ref.complete
    assert solve(track, rules, 1).par == ref.par


def test_a_crash_that_brakes_for_you_counts_when_it_is_faster():
    # Under paper rules a crash stops the car at once; the solver must consider it.
    track = track_from_charmap(DOGLEG, id="dogleg")
    paper = solve(track, preset("paper"), 1).par
    forbid = solve(track, preset("paper").with_options(offroad_penalty="forbid"), 1).par
    assert paper <= forbid
    assert paper == reference_par(track, preset("paper"), 1).par


def test_an_unreachable_finish_gives_no_par_and_says_why():
    track = _random_track([[False] * 7] * 3, 9, 5)  # a wall between start and finish
    solution = solve(track, preset("paper").with_options(offroad_penalty="forbid"), 1)
    assert solution.par is None
    assert "cannot be reached" in solution.reason


def test_the_vector1_start_is_searched_from_a_rolling_car():
    track = track_from_charmap(DOGLEG, id="dogleg")
    rules = preset("paper").with_options(start="vector1")
    assert solve(track, rules, 1).par == reference_par(track, rules, 1).par


def test_solutions_are_cached_on_disk_and_read_back(tmp_path):
    track = track_from_charmap(DOGLEG, id="dogleg")
    first = Solver(tmp_path).solve(track, preset("paper"), 1)
    files = list(tmp_path.glob("solve-*.json"))
    assert len(files) == 1
    second = Solver(tmp_path).solve(track, preset("paper"), 1)
    assert second.par == first.par and second.path == first.path


def test_a_cache_write_that_fails_leaves_no_cache_file_and_the_solve_still_answers(tmp_path, monkeypatch):
    import game.atomic
    from game.drivers.solver import track_fingerprint

    def full_disk(src, dst):
        raise OSError(28, "No space left on device")

    track = track_from_charmap(DOGLEG, id="dogleg")
    monkeypatch.setattr(game.atomic.os, "replace", full_disk)
    solution = Solver(tmp_path).solve(track, preset("paper"), 1)
    assert solution.par == solve(track, preset("paper"), 1).par
    assert list(tmp_path.iterdir()) == []  # neither a truncated cache file nor a temporary one
    monkeypatch.undo()
    # A 0-byte file left by an older version on a full disk is recomputed, then replaced whole.
    cached = tmp_path / f"solve-{track_fingerprint(track, preset('paper'), 1)}-best.json"
    cached.write_text("")
    assert Solver(tmp_path).solve(track, preset("paper"), 1).par == solution.par
    assert '"par"' in cached.read_text()


def test_the_distance_table_counts_down_along_the_optimal_line():
    track, rules = oval(2), preset("paper")
    table = SolverTable(track, rules, 2)
    state = RaceState.start(track, rules, ["solo"], laps=2)
    par = table.solution().par
    for k, target in enumerate(table.solution().path[1:]):
        c = state.cars[0]
        assert table.distance(c.position, c.velocity, c.progress) == par - k
        state, _ = state.apply({0: target})


def _random_track(draw_rows, width, height):
    road = np.zeros((height, width), dtype=bool)
    for y, row in enumerate(draw_rows):
        road[y + 1, 1:width - 1] = row
    road[1:height - 1, 1] = True  # start column
    road[1:height - 1, width - 2] = True  # finish column
    slots = tuple(Vec(1, y) for y in range(1, height - 1))
    finish = Gate(0, a=(width - 2.5, 0.5), b=(width - 2.5, height - 1.5), forward=(1.0, 0.0))
    return Track(id="random", name="random", region=CellRegion(road), start_slots=slots, finish=finish,
                 forward=(1.0, 0.0))


def _rows(*text):
    return [[ch == "O" for ch in row] for row in text]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(st.lists(st.booleans(), min_size=7, max_size=7), min_size=3, max_size=3),
       rules_name=st.sampled_from(["paper", "karopapier", "arcade", "tournament"]))
# Under karopapier rules the only race here stops dead in the pocket at (4, 1) by crashing
# (no legal move: set back two moves, at rest) twice: 8 moves through the referee, none
# without a crash move, which par does not count.
@example(rows=_rows("XOXOXOX", "XOOXOOO", "OXOXXOX"), rules_name="karopapier")
def test_par_matches_the_reference_search_on_random_small_tracks(rows, rules_name):
    width, height = 9, 5
    track = _random_track(rows, width, height)
    rules = preset(rules_name)
    setback = rules.offroad_penalty == "setback"
    ref = reference_par(track, rules, 1, max_states=20000, setbacks=not setback)
    if not ref.complete:
        return
    solution = solve(track, rules, 1)
    if setback:
        # Par under setback rules has no crash moves; a race that crashes on purpose (a
        # set-back brakes and moves the car) may be shorter, never longer.
        crashing = reference_par(track, rules, 1, max_states=20000)
        if crashing.complete and solution.par is not None:
            assert crashing.par is not None and crashing.par <= solution.par
    if rules_name == "tournament":
        # slow_return: the solver only searches on-road lines, so it can be slower (or find
        # none when only a trip over the paper gets there), never faster
        assert not solution.exact
        assert solution.par is None or (ref.par is not None and solution.par >= ref.par)
        return
    assert solution.par == ref.par


def test_under_karopapier_rules_par_counts_no_crash_moves_even_when_crashing_is_faster():
    track = _random_track(_rows("XOXOXOX", "XOOXOOO", "OXOXXOX"), 9, 5)
    rules = preset("karopapier")
    assert reference_par(track, rules, 1).par == 8  # two set-backs stop the car where no move can
    assert reference_par(track, rules, 1, setbacks=False).par is None
    solution = solve(track, rules, 1)
    assert solution.par is None and not solution.exact and "no legal move" in solution.note


@pytest.mark.parametrize("rules_name", ["paper", "karopapier"])
@pytest.mark.parametrize("movement,braking", [("scalar", "normal"), ("graded", "normal"), ("nine", "hard"),
                                              ("cross", "hard")])
def test_velocity_dependent_movement_systems_are_solved_exactly(rules_name, movement, braking):
    """Steps that depend on the velocity (scalar, graded turns, hard braking): par is still the true minimum."""
    track = track_from_charmap(DOGLEG, id="dogleg")
    rules = preset(rules_name).with_options(movement=movement, braking=braking)
    ref = reference_par(track, rules, 1)
    assert ref.complete
    solution = solve(track, rules, 1)
    assert solution.par == ref.par
    car = play_path(track, rules, 1, solution.path)
    assert car.status == "finished" and car.moves == solution.par


def test_hard_braking_is_never_slower_and_sometimes_faster():
    track = oval()
    normal = solve(track, preset("paper"), 1).par
    hard = solve(track, preset("paper").with_options(braking="hard"), 1).par
    assert hard <= normal


def test_fine_paper_and_flick_are_refused_by_the_exact_solver_with_a_clear_error():
    from game.drivers.solver import SolverError
    track = oval()
    for movement in ("fine", "flick"):
        with pytest.raises(SolverError, match=movement):
            solve(track, preset("paper").with_options(movement=movement), 1)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), movement=st.sampled_from(["scalar", "graded", "cross"]),
       braking=st.sampled_from(["normal", "hard"]))
def test_par_matches_the_reference_on_random_small_tracks_under_every_exact_system(data, movement, braking):
    width, height = 9, 5
    rows = [data.draw(st.lists(st.booleans(), min_size=width - 2, max_size=width - 2)) for _ in range(height - 2)]
    track = _random_track(rows, width, height)
    rules = preset("paper").with_options(movement=movement, braking=braking)
    ref = reference_par(track, rules, 1, max_states=20000)
    if ref.complete:
        assert solve(track, rules, 1).par == ref.par


#: A char map with two checkpoints, 1 and 2, round a wall (test_move_rows compares its rows with the
#: referee's too).
GATES = """
XXXXXXXXXXXXXXXXXXXXXXXX
XXXOOOOOOO1OOOOOOOOOOXXX
XXOOOOOOOO1OOOOOOOOOOOXX
XOOOOXXXXXXXXXXXXXXOOOOX
X2222XXXXXXXXXXXXXXOOOOX
XOOOOXXXXXXXXXXXXXXOOOOX
XXOOOOOOFSOSOOOOOOOOOOXX
XXXOOOOOFOSOSOOOOOOOOXXX
XXXXXXXXXXXXXXXXXXXXXXXX
"""


def test_standing_on_a_checkpoint_cell_counts_a_visit_as_the_referee_does():
    """A standstill on a Karopapier checkpoint cell visits it; the solver's progress counts it once."""
    track = track_from_charmap(GATES, id="gates", karopapier=True)
    rules = preset("karopapier")
    table = SolverTable(track, rules, 1)
    cell = next(iter(track.checkpoints[0].cells))
    moves = table.moves
    r = int(moves.road_index[cell[1] * track.width + cell[0]])
    sig = moves.signatures[int(moves.sig[moves.row(0, 0) * moves.n_road + r])]
    assert sig == ((1, 1),)
    state = RaceState.start(track, rules, ["solo"], seed=0)
    hit = track.checkpoints[0].crossing(Vec(*cell), Vec(*cell))
    assert hit is not None and hit[0] == 1
    visited = table.progress.canonical(state.cars[0].progress.__class__(balance=(5, 0)))
    assert visited.balance == (1, 0)


def test_warm_up_loads_every_solver_kernel():
    """The game's start-up warm-up leaves the kernels ready, so the first CPU in a race does not compile them.

    In a fresh interpreter: in this one other tests may have loaded them already.
    """
    import subprocess
    import sys

    code = ("from game.drivers import kernels\n"
            "from game.drivers.solver import warm_up\n"
            "warm_up()\n"
            "ks = (kernels.expand_layer, kernels.distances, kernels.rest_sources, kernels.cell_rows, "
            "kernels.polygon_rows, kernels.pack_rows)\n"
            "print(','.join(k.__name__ for k in ks if not k.signatures) or 'all loaded')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=str(Path(__file__).resolve().parent.parent))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "all loaded"


def test_the_search_looks_at_each_move_without_counting_references():
    """The functions the search kernels call for every move or state are compiled without numba's
    reference counting (they allocate nothing). Inlined with it, each call counted every array of
    the records it takes in and out: the table of a 200x120 ring took six times as long, so a CPU
    on a big track waited seconds for its first move (``tools/bench_solver.py`` shows the split)."""
    from game.drivers import kernels

    per_move = (kernels.move_outcome, kernels.spin_cost, kernels._seen, kernels._visit, kernels._rest_edge,
                kernels._room, kernels._forget, kernels._lower, kernels._plain_into, kernels._crossings_span)
    counted = [f.__name__ for f in per_move if f.targetoptions.get("_nrt", True)]
    assert counted == []
