"""Karopapier maps solved exactly: true pars from the best start place, checked against a search
written apart from the game (``tests/karo_reference.py``), and the layered search against the
general one."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import pytest

from game.cli import main
from game.core import RaceState, Vec, preset
from game.core.geometry import cells_along
from game.drivers.solver import LayeredTable, Solver, SolverBudgetError, SolverTable, layered
from game.tracks.charmap import track_from_charmap
from game.tracks.pack import read_map_file, read_pack_text
from tests.karo_reference import karopapier_par, karopapier_search, passed_cells
from tests.lines import drive_line

MAPS = next((p for p in (Path(__file__).resolve().parents[2] / "shared" / "karopapier" / "maps",
                         Path("/work/shared/karopapier/maps")) if p.is_dir()), None)
needs_maps = pytest.mark.skipif(MAPS is None, reason="the Karopapier test data (../shared/karopapier) is absent")
SLOW = os.environ.get("RACETRACK_SLOW") == "1"


def karo_track(map_id: str):
    (track,) = read_map_file(MAPS / f"{map_id}.map").tracks
    return track


@lru_cache(maxsize=None)
def karopapier_solution(map_id: str):
    """The solver's par and line of a real map under the karopapier rules, solved once for this
    file (three of the four pinned maps are among the ones the independent search checks)."""
    return Solver().solve(karo_track(map_id), preset("karopapier"))


def test_karopapiers_cell_walk_passes_the_cells_of_the_rules_cell_rule():
    # The independent search walks cells with Karopapier's Bresenham variant; the game uses
    # "every cell whose open square the segment passes through". They agree, in order.
    for dx in range(-15, 16):
        for dy in range(-15, 16):
            if (dx, dy) != (0, 0):
                assert passed_cells(dx, dy) == [(x, y) for x, y, _ in cells_along(dx, dy)], (dx, dy)


PINNED = {"140": 30, "201": 42, "122": 90, "155": 72}


@needs_maps
@pytest.mark.parametrize("map_id, par", PINNED.items())
def test_the_true_pars_of_four_real_maps_from_the_best_start_place(map_id, par):
    track, rules = karo_track(map_id), preset("karopapier")
    solution = karopapier_solution(map_id)
    assert solution.par == par
    final = drive_line(track, rules, solution.path)
    assert final.cars[0].status == "finished" and final.cars[0].moves == par


@needs_maps
def test_par_is_the_best_start_place_and_slot_says_which_grid_place_it_solves(capsys):
    track = karo_track("140")
    table = Solver().table(track, preset("karopapier"), 1)
    per_slot = [table.solution(i).par for i in range(len(track.start_slots))]
    assert per_slot == [31, 31, 31, 30] and table.solution().par == 30 and table.solution().slot == 3
    assert main(["solve", str(MAPS / "140.map")]) == 0
    out = capsys.readouterr().out
    assert "par 30" in out and "best start place, slot 4 (20,9)" in out
    assert main(["solve", str(MAPS / "140.map"), "--slot", "1"]) == 0
    assert "fewest moves 31" in capsys.readouterr().out and track.start_slots[0] == Vec(23, 12)


@needs_maps
def test_map_58_finishes_only_in_an_f_cell():
    # The old reading drew a finish line along the bounding box of all F cells (y = 41.5 from
    # x = 34.5 to 77.5, stretched by the "FEB" letters drawn in F at the bottom right), so a
    # 25-move line "finished" by crossing it on the right-hand straight at x = 72, where no F
    # cell is. Karopapier finishes a car only in an F cell: 48 moves.
    track, rules = karo_track("58"), preset("karopapier")
    assert track.finish.cells and not track.finish.is_line
    old_line = [(47, 23), (47, 22), (46, 20), (44, 17), (41, 15), (39, 13), (38, 10), (38, 7), (38, 5), (39, 3),
                (41, 2), (44, 2), (48, 3), (53, 5), (59, 8), (64, 11), (68, 13), (71, 14), (73, 15), (74, 16),
                (74, 18), (73, 21), (72, 25), (71, 30), (71, 36), (72, 42)]
    final = drive_line(track, rules, [Vec(*p) for p in old_line])
    assert final.cars[0].racing  # every move is legal, but the last one enters no F cell
    assert Solver().solve(track, rules).par == 48 == karopapier_par((MAPS / "58.map").read_text())


@needs_maps
def test_an_imported_map_carries_its_karopapier_par_not_the_paper_rules_one():
    # Under paper rules a crash is a free brake (map 58: 44); the pack says rules = "karopapier"
    # and gets that par, from the best start place (map 140: slot 4's 30, not slot 1's 31).
    from game.commands.import_map import import_map

    for map_id, par in (("58", 48), ("140", 30)):
        result = import_map(MAPS / f"{map_id}.map")
        assert result.par == par and f'rules = "karopapier"\npar = {par}\n' in result.pack_text
    assert Solver().solve(karo_track("58"), preset("paper")).par == 44


# Maps the independent search settles in well under a second each (always run); with
# RACETRACK_SLOW=1 every map it can search within its state limit.
QUICK = ["6", "9", "11", "15", "16", "19", "20", "22", "27", "140", "201", "122"]


def _all_maps():
    return sorted((p.stem for p in MAPS.glob("*.map")), key=int) if MAPS else []


@needs_maps
@pytest.mark.parametrize("map_id", _all_maps() if SLOW else QUICK)
def test_the_solvers_par_equals_an_independent_search_on_real_maps(map_id):
    text = (MAPS / f"{map_id}.map").read_text()
    settled, expected = karopapier_search(text, max_states=400_000 if SLOW else 150_000)
    if not settled:
        pytest.skip("beyond the independent search's state limit")
    assert karopapier_solution(map_id).par == expected


SMALL = """
XXXXXXXXXXXXX
XOOOO1OOOOOOX
XOOOO1OOOOOOX
XOOXXXXXXXOOX
XOFXXXXXXX2OX
XOFXXXXXXX2OX
XSOXXXXXXXOOX
XSOOOOOO3OOOX
XOOOOOOO3OOOX
XXXXXXXXXXXXX
"""


@pytest.mark.parametrize("rules_name, options, laps", [
    ("karopapier", {}, 1), ("karopapier", {"zero_move": True}, 2), ("karopapier", {"checkpoints": "ordered"}, 1),
    ("paper", {}, 2), ("paper", {"offroad_penalty": "reset_skip"}, 1), ("paper", {"offroad_penalty": "eliminate"}, 1),
    ("paper", {"offroad_check": "projection"}, 1), ("paper", {"start": "vector1", "movement": "scalar"}, 1),
])
def test_the_layered_table_gives_every_state_the_general_searchs_distance(rules_name, options, laps):
    track = track_from_charmap(SMALL, id="small", karopapier=True)
    rules = preset(rules_name, options)
    assert layered(track, rules)
    general, layers = SolverTable(track, rules, laps), LayeredTable(track, rules, laps)
    compared = 0
    for page in range(general.n_pages):
        progress = general.progress.values[int(general.page_pid[page])]
        velocity = Vec(int(general.page_vx[page]), int(general.page_vy[page]))
        for r in range(general.nr):
            sid = page * general.nr + r
            if not general._bits[sid >> 3] >> (sid & 7) & 1:
                continue
            node = Vec(int(general.moves.xs[r]), int(general.moves.ys[r]))
            assert layers.distance(node, velocity, progress) == general.distance(node, velocity, progress)
            compared += 1
    assert compared > 1000
    assert layers.solution().par == general.solution().par


def test_a_solve_beyond_the_memory_budget_is_refused_with_the_size(capsys):
    track = track_from_charmap(SMALL, id="small", karopapier=True)
    with pytest.raises(SolverBudgetError, match=r"would need about .* more than its memory budget of 64 KB"):
        Solver(memory_budget=2 ** 16).solve(track, preset("karopapier"), 9)
    assert main(["solve", "starter/paper-oval", "--laps", "99", "--memory-budget", "0.05"]) == 1
    err = capsys.readouterr().err
    assert "over 99 lap(s)" in err and "more than its memory budget of 51 MB" in err and "--memory-budget" in err


def test_long_solves_report_their_progress():
    track = track_from_charmap(SMALL, id="small", karopapier=True)
    heard = []
    Solver().solve(track, preset("karopapier"), 3, progress=lambda fraction, what: heard.append((fraction, what)))
    fractions = [f for f, _ in heard]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and {w for _, w in heard} >= {"distances"}


@needs_maps
def test_the_champion_alone_drives_the_tables_count_on_a_real_map_with_nine_checkpoints():
    from game.drivers.cpu import make_driver
    from game.race.planner import planning_rng

    track, rules = karo_track("159"), preset("karopapier")  # nine checkpoints, any order
    solver = Solver()
    expected = solver.table(track, rules, 1).solution(0).par  # car 1 stands on start slot 1
    champion = make_driver("cpu:champion", solver)
    state = RaceState.start(track, rules, ["Champion"])
    while state.cars[0].racing and state.phase < 200:
        state, _ = state.apply({0: champion.choose(state, 0, {}, planning_rng(0, state.phase, 0))})
    assert state.cars[0].status == "finished" and state.cars[0].moves == expected


def test_the_editor_keeps_karopapiers_reading_of_a_map_it_saves(tmp_path):
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    from editor.doc import doc_from_table
    from editor.packio import open_track, save_track

    table = {"id": "k", "name": "K", "rules": "karopapier", "karopapier": True, "cars": 1,
             "map": "XXXXXXX\nXSO1OFX\nXXXXXXX\n"}
    doc, _ = doc_from_table(table)
    save_track(doc, tmp_path / "k.toml")
    assert "karopapier = true" in (tmp_path / "k.toml").read_text()
    opened = open_track(f"{tmp_path / 'k.toml'}#k", tmp_path)
    (track,) = read_pack_text((tmp_path / "k.toml").read_text(), "k.toml").tracks
    assert opened.doc is not None and track.finish.cells == {(5, 1)} and track.checkpoints[0].cells == {(3, 1)}


@needs_maps
def test_searching_every_checkpoint_set_at_once_gives_the_distances_of_one_set_at_a_time(monkeypatch):
    # Map 159: nine checkpoints in any order (512 sets). The fast path (one search carrying
    # every set) against the searches one set at a time, for every state of every set.
    import numpy as np

    track, rules = karo_track("159"), preset("karopapier")
    heard = []
    together = LayeredTable(track, rules, 1, progress=lambda fraction, what: heard.append(fraction))
    assert heard == sorted(heard) and heard[0] > 0 and heard[-1] == 1.0 and len(set(heard)) > 5
    monkeypatch.setattr(LayeredTable, "_all_sets_plan", lambda *args: None)
    one_by_one = LayeredTable(track, rules, 1)
    assert together._u_major and not one_by_one._u_major and together.n_pid == 512
    by_set = together.dist.reshape(together.n_u, together.n_pid).T
    assert np.array_equal(by_set, one_by_one.dist.reshape(one_by_one.n_pid, one_by_one.n_u))
    assert (by_set < together.inf).sum() > 1_000_000
    assert together.solution().par == one_by_one.solution().par == 62
    assert together.solution().path == one_by_one.solution().path
    node, velocity = together.where(int(together.start_ids[0]))
    empty = together.progress.values[0]
    assert together.distance(node, velocity, empty) == one_by_one.distance(node, velocity, empty)


def test_while_a_big_table_is_built_the_race_screen_says_how_far_the_cpus_got(tmp_path):
    from game import paths
    from game.presentation.menus import build_context

    ctx = build_context(tmp_path / "config", None, paths.builtin_tracks_dir())
    assert ctx.cpu_note() == ""
    track = track_from_charmap(SMALL, id="small", karopapier=True)
    heard = []
    solver = ctx.cpu_shared.solver
    solver.table(track, preset("karopapier"), 2, progress=lambda fraction, what: heard.append(ctx.cpu_note()))
    assert "the CPUs are studying the track: 100%" in heard and solver.building is None
    assert ctx.cpu_note() == ""


def test_leaving_an_f_cell_is_no_finish_and_a_second_lap_needs_a_new_entry():
    # No checkpoints: a car that finished lap 1 in the F column must come round again; the
    # move that leaves the F cell it stands on does not count as entering it.
    ring = """
XXXXXXXXXX
XOOOOOOOOX
XOXXXXXXOX
XFXXXXXXOX
XSXXXXXXOX
XOOOOOOOOX
XXXXXXXXXX
"""
    track = track_from_charmap(ring, id="ring", karopapier=True)
    assert track.finish.entered and not track.finish.crossing(Vec(1, 3), Vec(1, 2))
    assert track.finish.crossing(Vec(1, 4), Vec(1, 3)) == (1, 0.5)
    rules = preset("karopapier")
    one, two = (Solver().solve(track, rules, laps) for laps in (1, 2))
    assert one.par is not None and two.par > one.par + 10
    final = drive_line(track, rules, two.path, laps=2)
    assert final.cars[0].status == "finished" and final.cars[0].moves == two.par


def test_a_solver_kept_for_many_tracks_holds_no_more_tables_than_its_budget():
    tracks = [track_from_charmap(SMALL, id=f"small-{laps}", karopapier=True) for laps in range(1, 6)]
    first = Solver().table(tracks[0], preset("karopapier"), 1).nbytes
    solver = Solver(memory_budget=int(2.5 * first))
    for laps, track in enumerate(tracks, start=1):
        solver.solve(track, preset("karopapier"), laps)
        held = list(solver._tables.values())
        assert held[-1].track is track  # the newest is always kept
        assert len(held) == 1 or sum(t.nbytes for t in held) <= solver.memory_budget
    assert len(solver._tables) < len(tracks)


def test_distances_past_254_moves_switch_the_layered_table_to_two_bytes():
    track = track_from_charmap(SMALL, id="small", karopapier=True)
    rules = preset("karopapier")
    long_race = LayeredTable(track, rules, 25)
    assert long_race.dist.dtype.itemsize == 2 and long_race.solution().par > 254
    assert long_race.solution().par == SolverTable(track, rules, 25).solution().par
    assert LayeredTable(track, rules, 1).dist.dtype.itemsize == 1
