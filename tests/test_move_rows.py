"""The move rows (what every move from every road node does) equal the referee's, move by move.

The solver and the CPUs read moves from one compiled row builder (``MoveTables``); these
tests compare its rows with ``tests/move_rows_reference.py``, which asks the referee's
own calls one move at a time: on built-in tracks, on Karopapier maps, on random maps,
for every value of every rule option that changes a row, and on tracks with the most
gates and moves with more gate events than a signature code holds.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core import CellRegion, Gate, Track, Vec, preset
from game.core.geometry import PolygonRegion
from game.core.rules import OPTIONS
from game.drivers.codes import MAX_CODED_GATES, MAX_EVENTS
from game.drivers.moves import MoveTables
from game.paths import builtin_tracks_dir
from game.tracks.charmap import track_from_charmap
from game.tracks.limits import MAX_CHECKPOINT_LINES
from game.tracks.pack import load_pack, read_map_file, read_pack_text
from tests.move_rows_reference import built_rows, differences
from tests.packs import TERRAIN_RING_PACK
from tests.test_solver import GATES

MAPS = next((p for p in (Path(__file__).resolve().parents[2] / "shared" / "karopapier" / "maps",
                         Path("/work/shared/karopapier/maps")) if p.is_dir()), None)

#: Offsets from standing still to speed 8, every direction.
OFFSETS = [(0, 0), (1, 0), (0, -1), (-1, 1), (2, 1), (-3, 0), (0, 4), (3, -3), (-4, 2), (5, 1), (-2, -6), (7, 0),
           (0, -8), (6, 5), (-8, -3)]
#: The options whose values change a move row: the off-road check, what a crash does, terrain.
ROW_OPTIONS = ("offroad_check", "offroad_penalty", "terrain")


def _builtin(pack: str, track_id: str) -> Track:
    return next(t for t in load_pack(builtin_tracks_dir() / f"{pack}.toml").tracks if t.id == track_id)


def _sample(n: int, count: int = 60) -> list[int]:
    """About ``count`` road nodes spread over the track (the reference is slow)."""
    return list(range(0, n, max(1, n // count)))


def _option_values():
    for option in ROW_OPTIONS:
        for value in OPTIONS[option]:
            yield option, value


@pytest.mark.parametrize("option,value", list(_option_values()))
@pytest.mark.parametrize("pack,track_id", [("classics", "old-town"), ("grand-prix", "serpentine"),
                                           ("terrain", "harbour-streets")])
def test_rows_on_builtin_tracks_equal_the_referee_under_every_value_of_every_row_option(pack, track_id, option, value):
    """A char map with line checkpoints, an outline, a terrain track: each option value on its own."""
    track = _builtin(pack, track_id)
    rules = preset("paper").with_options(**{option: value})
    tables = MoveTables(track, rules)
    assert differences(tables, rules, OFFSETS, _sample(tables.n_road)) == []


@pytest.mark.skipif(MAPS is None, reason="the Karopapier test data (../shared/karopapier) is absent")
@pytest.mark.parametrize("map_id", ["150", "193", "195"])
@pytest.mark.parametrize("check", list(OPTIONS["offroad_check"]))
def test_rows_on_karopapier_maps_equal_the_referee(map_id, check):
    """Cell gates (checkpoints visited, a finish entered) under Karopapier's rules and a crashing variant."""
    (track,) = read_map_file(MAPS / f"{map_id}.map").tracks
    for rules in (preset("karopapier").with_options(offroad_check=check),
                  preset("paper").with_options(offroad_check=check)):
        tables = MoveTables(track, rules)
        assert differences(tables, rules, OFFSETS, _sample(tables.n_road)) == [], rules.name


def _small_outline() -> Track:
    """A small outline ring with a cut corner on its island: line gates across three of its sides."""
    outer = [(0.5, 2.5), (2.5, 0.5), (13.5, 0.5), (15.5, 2.5), (15.5, 8.5), (13.5, 10.5), (2.5, 10.5), (0.5, 8.5)]
    island = [(4.5, 3.5), (11.5, 3.5), (11.5, 6.25), (9.25, 7.5), (4.5, 7.5)]
    region = PolygonRegion(outer, [island], width=17, height=12)
    return Track(id="small-ring", name="small ring", region=region, start_slots=(Vec(6, 9),), forward=(1.0, 0.0),
                 finish=Gate(0, a=(8, 7.5), b=(8, 10.5), forward=(1.0, 0.0)),
                 checkpoints=(Gate(1, a=(8, 0.5), b=(8, 3.5), forward=(-1.0, 0.0)),
                              Gate(2, a=(0.5, 5.5), b=(4.5, 5.5), forward=(0.0, 1.0))))


@pytest.mark.parametrize("kind", ["line-gates", "cell-gates", "outline"])
@pytest.mark.parametrize("check", list(OPTIONS["offroad_check"]))
def test_every_move_on_a_small_track_equals_the_referee_and_crosses_every_gate(kind, check):
    """Every road node, every offset up to speed 6 across and 4 down: nothing sampled away."""
    track = (_small_outline() if kind == "outline"
             else track_from_charmap(GATES, id="gates", karopapier=kind == "cell-gates"))
    rules = preset("paper").with_options(offroad_check=check)
    offsets = [(dx, dy) for dx in range(-6, 7) for dy in range(-4, 5)]
    tables = MoveTables(track, rules)
    assert differences(tables, rules, offsets) == []
    entries = [e for row in built_rows(tables, offsets).values() for e in row]
    assert {gi for e in entries for gi, _ in e.sig} == set(range(1 + len(track.checkpoints)))  # every gate crossed
    assert len({e.reset for e in entries}) > 10  # and many crashes with their restarts


def test_rows_on_an_outline_with_terrain_patches_equal_the_referee_under_either_terrain_rule():
    """Under ``terrain = "offroad"`` the sand patch is off the road too: the rows see it as the referee does."""
    (track,) = read_pack_text(TERRAIN_RING_PACK, "p.toml").tracks
    insides = {}
    for terrain in OPTIONS["terrain"]:
        rules = preset("paper").with_options(terrain=terrain)
        tables = MoveTables(track, rules)
        assert differences(tables, rules, OFFSETS) == [], terrain
        insides[terrain] = sum(e.inside for entries in built_rows(tables, OFFSETS).values() for e in entries)
    assert insides["offroad"] < insides["effects"]


@st.composite
def random_tracks(draw):
    """A small random char-map region with a finish line and up to three line or cell checkpoints."""
    width, height = draw(st.integers(7, 12)), draw(st.integers(5, 8))
    road = np.zeros((height, width), dtype=bool)
    for y in range(1, height - 1):
        road[y, 1:width - 1] = draw(st.lists(st.booleans(), min_size=width - 2, max_size=width - 2))
    road[1:height - 1, 1] = True
    checkpoints = []
    for number in range(1, draw(st.integers(0, 3)) + 1):
        if draw(st.booleans()):
            x = draw(st.integers(1, width - 2)) + 0.5
            sign = draw(st.sampled_from([1.0, -1.0]))
            checkpoints.append(Gate(number, a=(x, 0.5), b=(x, height - 1.5), forward=(sign, 0.0)))
        else:
            cells = draw(st.frozensets(st.tuples(st.integers(1, width - 2), st.integers(1, height - 2)),
                                       min_size=1, max_size=4))
            forward = draw(st.sampled_from([None, (1.0, 0.0), (0.0, -1.0)]))
            checkpoints.append(Gate(number, cells=cells, forward=forward, entered=draw(st.booleans())))
    finish = Gate(0, a=(width - 2.5, 0.5), b=(width - 2.5, height - 1.5), forward=(1.0, 0.0))
    return Track(id="random", name="random", region=CellRegion(road), start_slots=(Vec(1, 1),), finish=finish,
                 forward=(1.0, 0.0), checkpoints=tuple(checkpoints))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(track=random_tracks(), check=st.sampled_from(list(OPTIONS["offroad_check"])),
       penalty=st.sampled_from(list(OPTIONS["offroad_penalty"])))
def test_rows_on_random_maps_equal_the_referee(track, check, penalty):
    rules = preset("paper").with_options(offroad_check=check, offroad_penalty=penalty)
    offsets = [(dx, dy) for dx in range(-4, 5) for dy in range(-4, 5)]
    assert differences(MoveTables(track, rules), rules, offsets) == []


def _many_gates(count: int) -> Track:
    """A straight outline 4 squares high with ``count`` checkpoint lines two squares apart."""
    width = 2 * count + 12
    region = PolygonRegion([(0.5, 0.5), (width - 1.5, 0.5), (width - 1.5, 3.5), (0.5, 3.5)], width=width, height=5)
    checkpoints = tuple(Gate(i, a=(1.5 + 2 * i, 0.5), b=(1.5 + 2 * i, 3.5), forward=(1.0, 0.0))
                        for i in range(1, count + 1))
    return Track(id="many", name="many", region=region, start_slots=(Vec(1, 1),),
                 finish=Gate(0, a=(width - 3.5, 0.5), b=(width - 3.5, 3.5), forward=(1.0, 0.0)),
                 forward=(1.0, 0.0), checkpoints=checkpoints)


def test_the_most_gates_a_track_may_have_fit_a_signature_code():
    assert 1 + MAX_CHECKPOINT_LINES <= MAX_CODED_GATES


def test_a_track_with_the_most_checkpoints_and_moves_across_many_gates_equals_the_referee():
    """50 checkpoint lines (the format's limit) two squares apart: a long move crosses more gates
    than a code holds, forward or backward, and a crash restarts the car back across some."""
    track = _many_gates(MAX_CHECKPOINT_LINES)
    offsets = [(3, 0), (-3, 0), (2 * MAX_EVENTS + 4, 0), (-(2 * MAX_EVENTS + 4), 1), (2 * MAX_EVENTS + 2, 3),
               (-(2 * MAX_EVENTS + 6), -2), (1, 4)]
    for penalty in ("reset", "forbid"):
        rules = preset("paper").with_options(offroad_penalty=penalty)
        tables = MoveTables(track, rules)
        assert differences(tables, rules, offsets) == [], penalty
        assert max(len(sig) for sig in tables.signatures) > MAX_EVENTS  # the spelt-out moves were compared
    row = tables.row(3, 0)
    start = int(tables.road_index[2 * track.width + 96])  # node (96, 2): its move crosses checkpoint 48 at x = 97.5
    assert tables.signatures[int(tables.sig[row * tables.n_road + start])] == ((48, 1),)


def test_every_built_in_track_is_one_the_row_builder_reads():
    """No track the game ships falls outside the one builder (it refuses those, see below). Char maps
    (Karopapier's too) hold integer cells and up to 9 checkpoints: the builder reads every one."""
    tracks = [t for f in sorted(builtin_tracks_dir().glob("*.toml")) for t in load_pack(f).tracks]
    assert len(tracks) > 10
    for track in tracks:
        for rules in (preset("paper"), preset("karopapier")):
            MoveTables(track, rules)  # raises for a track it cannot read


def test_a_track_the_row_builder_cannot_read_is_refused_with_its_name():
    """Gates off the 1/1024 grid come from no loader; a hand-made one is refused, not misread."""
    track = _many_gates(2)
    odd = Track(id="odd", name="odd", region=track.region, start_slots=track.start_slots, forward=(1.0, 0.0),
                finish=Gate(0, a=(5 + 1 / 3, 0.5), b=(5 + 1 / 3, 3.5), forward=(1.0, 0.0)))
    with pytest.raises(ValueError, match="'odd'.*gate 0"):
        MoveTables(odd, preset("paper"))
