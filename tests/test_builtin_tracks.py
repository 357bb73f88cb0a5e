"""Every built-in track loads cleanly, seats a full grid, keeps its road wide, and has its par pinned."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from game.core.geometry import CellRegion
from game.paths import builtin_tracks_dir
from tests.builtin_packs import builtin_track, builtin_tracks, loaded, pack_paths, track_refs

PACKS = pack_paths()
#: pack/track of every built-in track (read from the pack files' ids: collecting loads no pack)
REFS = track_refs()


def _tracks():
    """Every built-in track, loaded once for the whole run (outline packs take seconds to validate)."""
    return builtin_tracks()


@pytest.fixture(scope="module")
def solver():
    """One solver for this file: the terrain tracks' paper tables, built for their pinned pars,
    are read again by the terrain and Champion tests instead of being built three times."""
    from game.drivers.solver import Solver

    return Solver(max_tables=8)


def test_every_builtin_pack_loads_without_errors_or_warnings():
    assert len(PACKS) >= 2
    for path in PACKS:
        result = loaded(path)
        assert result.ok, [str(p) for p in result.errors]
        assert not result.warnings, [str(p) for p in result.warnings]
        raw = path.read_text(encoding="utf-8").count("[[track]]")
        assert len(result.tracks) == raw, f"{path.name}: a track was dropped"


def test_the_builtin_tracks_offer_variety():
    tracks = [t for _, t in _tracks()]
    assert len(tracks) >= 12
    assert any(t.is_outline for t in tracks) and any(not t.is_outline for t in tracks)
    # (a circuit's default race may be a single lap: a couch race lasts 20 to 45 moves)
    circuits = [t for t in tracks if t.is_circuit]
    sprints = [t for t in tracks if not t.is_circuit]
    assert len(circuits) >= 6 and len(sprints) >= 2
    sizes = [t.width * t.height for t in tracks]
    assert min(sizes) <= 60 * 30 and max(sizes) >= 150 * 100


@pytest.mark.parametrize("ref", REFS)
def test_every_track_seats_eight_cars_on_distinct_road_nodes(ref):
    track = builtin_track(ref)
    slots = track.start_slots[:8]
    assert len(slots) == 8
    assert len(set(slots)) == 8
    assert all(track.on_road(s) for s in slots)


def _wide_core(road: np.ndarray) -> np.ndarray:
    """Road nodes whose four neighbours are road too: what is left with one node shaved off each side."""
    core = road.copy()
    core[1:, :] &= road[:-1, :]
    core[:-1, :] &= road[1:, :]
    core[:, 1:] &= road[:, :-1]
    core[:, :-1] &= road[:, 1:]
    core[0, :] = core[-1, :] = core[:, 0] = core[:, -1] = False
    return core


def _components(mask: np.ndarray) -> int:
    seen = np.zeros_like(mask)
    count = 0
    height, width = mask.shape
    for y0, x0 in zip(*np.nonzero(mask)):
        if seen[y0, x0]:
            continue
        count += 1
        stack = [(y0, x0)]
        seen[y0, x0] = True
        while stack:
            y, x = stack.pop()
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    ny, nx = y + dy, x + dx
                    if 0 <= ny < height and 0 <= nx < width and mask[ny, nx] and not seen[ny, nx]:
                        seen[ny, nx] = True
                        stack.append((ny, nx))
    return count


@pytest.mark.parametrize("ref", REFS)
def test_the_road_is_never_so_narrow_that_two_cars_cannot_pass(ref):
    """Shave one node off every border: the road must still run all the way round (or through)."""
    track = builtin_track(ref)
    road = track.region.road_nodes()
    core = _wide_core(road)
    assert core.any()
    if track.is_circuit:
        # Cut the circuit at the finish line: the rest must be one piece, not two.
        (ax, ay), (bx, by) = track.finish.a, track.finish.b
        ys, xs = np.mgrid[0:road.shape[0], 0:road.shape[1]]
        ex, ey = bx - ax, by - ay
        t = ((xs - ax) * ex + (ys - ay) * ey) / (ex * ex + ey * ey)
        dist = np.abs((xs - ax) * ey - (ys - ay) * ex) / np.hypot(ex, ey)
        core &= ~((dist <= 1.5) & (t >= -0.2) & (t <= 1.2))
    assert _components(core) == 1


@pytest.mark.parametrize("ref", REFS)
def test_every_pinned_par_equals_the_solvers_minimum_under_paper_rules(ref, solver):
    from game.core.rules import preset

    track = builtin_track(ref)
    pack = ref.partition("/")[0]

    assert isinstance(track.meta.get("par"), int), f"{pack}/{track.id} has no par = N"
    table = solver.table(track, preset("paper"), track.default_laps)
    par = table.solution().par
    assert track.meta.get("par") == par, (
        f"{pack}/{track.id}: par is {track.meta.get('par')}, the solver says {par}; "
        "if the change is intended, run python tools/make_outline_tracks.py --solve")
    # a player racing alone stands on slot 1: par must be drivable from there
    assert table.solution(0).par == par, f"{pack}/{track.id}: slot 1 needs {table.solution(0).par}, par is {par}"


def test_char_tracks_are_char_maps_and_outline_tracks_are_outlines():
    kinds = {t.id: isinstance(t.region, CellRegion) for _, t in _tracks()}
    assert kinds["old-town"] and not kinds["sweepers"]


def test_the_generator_script_rebuilds_the_committed_packs(tmp_path, monkeypatch):
    """Editing a pack by hand would be lost at the next run of the script: the two must agree."""
    import importlib.util

    script = Path(__file__).resolve().parent.parent / "tools" / "make_outline_tracks.py"
    spec = importlib.util.spec_from_file_location("make_outline_tracks", script)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    pack = module.designs()["starter"]
    built = [(d, module.build(d)) for d in pack["tracks"]]
    committed = builtin_tracks_dir() / "starter.toml"
    text = module.render_pack(pack, built, module.existing_pars(committed))
    assert text == committed.read_text(encoding="utf-8")


def test_the_terrain_tracks_are_raced_differently_because_of_their_terrain(solver):
    """Each track of the terrain pack has terrain on it, and its par changes when that terrain is
    plain off-road (the karopapier reading): the ground matters to the best line."""
    from game.core.rules import preset

    tracks = [t for pack, t in _tracks() if pack == "terrain"]
    assert {t.id for t in tracks} >= {"dune-rally", "winter-ring", "harbour-streets"}
    kinds = {t.id: {str(k) for k in t.terrain_nodes()} for t in tracks}
    assert "sand" in kinds["dune-rally"] and "ice" in kinds["winter-ring"] and "curb" in kinds["harbour-streets"]
    for track in tracks:
        effects = solver.solve(track, preset("paper"), track.default_laps).par
        offroad = solver.solve(track, preset("paper", {"terrain": "offroad"}), track.default_laps).par
        assert effects == track.meta["par"] and offroad is not None and offroad > effects, (track.id, effects, offroad)


@pytest.mark.parametrize("track_id", ["dune-rally", "winter-ring", "harbour-streets"])
def test_the_champion_alone_makes_par_on_each_terrain_track(track_id, solver):
    """A player racing the Champion alone sees it drive the par the pack pins, every effect
    of the ground counted (the race as the game runs it: slot 1, the referee's rules)."""
    import random

    from game.core.race import RaceState
    from game.core.rules import preset
    from game.drivers.cpu import make_driver

    track = next(t for pack, t in _tracks() if pack == "terrain" and t.id == track_id)
    state = RaceState.start(track, preset(track.default_rules), ["Champion"], laps=track.default_laps)
    champion = make_driver("cpu:champion", solver=solver)
    while state.cars[0].racing:
        state, _ = state.apply({0: champion.choose(state, 0, {}, random.Random(0))})
    assert state.cars[0].status == "finished" and state.cars[0].moves == track.meta["par"]

