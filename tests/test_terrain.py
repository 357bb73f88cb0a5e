"""Terrain: sand, mud, ice, curbs and water, for the referee, the loaders, the solver and the CPUs.

Hand-checked scenarios of every effect (the pictures are in docs/rules.md), the rule option
(``effects`` / ``offroad``), the char-map letters and outline patches with located errors,
and the solver's par checked against a breadth-first search written apart from the game
(``tests/terrain_reference.py``) and against one that plays every move through the referee.
"""

from __future__ import annotations

import os
import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from game.core import RaceState, Vec, preset
from game.core.terrain import Terrain, held, landing_velocity
from game.drivers.cpu import make_driver
from game.drivers.reference import reference_par
from game.drivers.solver import LayeredTable, Solver, SolverTable
from game.tracks.charmap import check_charmap, track_from_charmap
from game.tracks.pack import read_pack_text
from tests.terrain_reference import terrain_par
from tests.lines import drive_line
from tests.packs import TERRAIN_RING_PACK

PAPER = preset("paper")
KARO_EFFECTS = preset("karopapier").with_options(terrain="effects")

# A straight: the car drives right along y = 2 through a patch of one terrain at x = 5..7.
STRAIGHT = """
XXXXXXXXXXXXXXXX
XOOOOOOOOOOOOOFX
XSOOO{t}{t}{t}OOOOOOFX
XOOOOOOOOOOOOOFX
XXXXXXXXXXXXXXXX
"""


def straight(letter: str):
    return track_from_charmap(STRAIGHT.replace("{t}", letter), id=f"straight-{letter}")


def rolling(track, rules, position: Vec, velocity: Vec) -> RaceState:
    """A one-car race with the car at ``position`` moving at ``velocity``."""
    state = RaceState.start(track, rules, ["a"])
    return replace(state, cars=(replace(state.cars[0], position=position, velocity=velocity),))


# -- the effects, hand-checked --------------------------------------------------------------

def test_a_move_ending_on_sand_loses_one_square_of_speed_on_each_axis():
    state = rolling(straight("Y"), PAPER, Vec(2, 2), Vec(2, 0))
    after, record = state.apply({0: Vec(5, 2)})  # base (4, 2) + (1, 0): a move by (3, 0) onto sand
    assert after.cars[0].position == Vec(5, 2) and after.cars[0].velocity == Vec(2, 0)
    assert after.base_point(0) == Vec(7, 2)
    assert [e.kind for e in record.events] == ["terrain"] and "sand" in record.events[0].detail
    # diagonal: both axes lose one; an axis at one stops
    state = rolling(straight("Y"), PAPER, Vec(3, 1), Vec(1, 0))
    after, _ = state.apply({0: Vec(5, 2)})  # a move by (2, 1)
    assert after.cars[0].velocity == Vec(1, 0)


def test_in_sand_a_car_cannot_gain_speed():
    state = rolling(straight("Y"), PAPER, Vec(4, 2), Vec(1, 0))
    after, _ = state.apply({0: Vec(6, 2)})  # accelerate to 2 onto sand: keeps 1
    assert after.cars[0].velocity == Vec(1, 0)
    after, _ = after.apply({0: Vec(8, 2)})  # accelerate again, off the sand: now it is 2
    assert after.cars[0].velocity == Vec(2, 0)


def test_a_move_ending_in_mud_leaves_the_car_at_most_one_square_per_axis():
    state = rolling(straight("Z"), PAPER, Vec(1, 1), Vec(3, 1))
    after, record = state.apply({0: Vec(5, 2)})  # a move by (4, 1) into mud
    assert after.cars[0].velocity == Vec(1, 1) and after.base_point(0) == Vec(6, 3)
    assert "mud" in record.events[0].detail
    state = rolling(straight("Z"), PAPER, Vec(4, 2), Vec(1, 0))
    after, record = state.apply({0: Vec(5, 2)})  # slow enough: nothing changes, nothing told
    assert after.cars[0].velocity == Vec(1, 0) and not record.events


def test_a_moving_car_on_ice_has_only_its_base_point():
    state = rolling(straight("I"), PAPER, Vec(5, 2), Vec(2, 1))
    assert [c.node for c in state.candidates(0)] == [Vec(7, 3)]
    after, _ = state.apply({0: Vec(7, 3)})
    assert after.cars[0].velocity == Vec(2, 1) and len(after.candidates(0)) == 9  # off the ice: steering again
    with pytest.raises(Exception, match="not one of the car's targets"):
        state.apply({0: Vec(8, 3)})


def test_a_car_at_rest_on_ice_moves_off_as_anywhere():
    state = rolling(straight("I"), PAPER, Vec(6, 2), Vec(0, 0))
    assert len(state.candidates(0)) == 9
    # Karopapier's snow letter is ice too
    assert straight("N").terrain_at(Vec(6, 2)) == Terrain.ICE


def test_a_curb_taken_faster_than_three_spins_the_car_out():
    state = rolling(straight("C"), PAPER, Vec(1, 2), Vec(3, 0))
    after, record = state.apply({0: Vec(5, 2)})  # a move by 4 onto the curb
    assert after.cars[0].velocity == Vec(0, 0) and after.cars[0].position == Vec(5, 2)
    assert "spins out on the curb" in record.events[0].detail
    state = rolling(straight("C"), PAPER, Vec(2, 2), Vec(3, 0))
    after, _ = state.apply({0: Vec(5, 2)})  # 3 is not too fast
    assert after.cars[0].velocity == Vec(3, 0)


def test_water_is_off_the_road_whatever_the_rules():
    track = straight("W")
    for rules in (PAPER, preset("karopapier")):
        assert not track.for_rules(rules).on_road(Vec(6, 2))
    state = rolling(track, PAPER, Vec(3, 2), Vec(1, 0))
    assert [c.offroad for c in state.candidates(0) if c.node == Vec(5, 2)] == [True]


def test_under_terrain_offroad_every_terrain_is_off_the_road_and_nothing_changes_speed():
    for letter in "YZIC":
        track = straight(letter)
        rules = preset("karopapier")
        assert rules.terrain == "offroad" and PAPER.terrain == "effects"
        state = RaceState.start(track, rules, ["a"])
        assert not state.track.on_road(Vec(6, 2)) and track.on_road(Vec(6, 2))
        assert state.track.for_rules(rules) is state.track
    state = rolling(straight("Y"), PAPER.with_options(terrain="offroad"), Vec(2, 2), Vec(2, 0))
    cand = next(c for c in state.candidates(0) if c.node == Vec(5, 2))
    assert cand.offroad


def test_terrain_effects_on_fine_paper_count_in_squares():
    track = straight("Y")
    rules = PAPER.with_options(movement="fine")
    state = RaceState.start(track, rules, ["a"])
    assert state.track.scale == 10 and state.track.terrain_at(Vec(60, 20)) == Terrain.SAND
    car = replace(state.cars[0], position=Vec(20, 20), velocity=Vec(25, 0))
    state = replace(state, cars=(car,))
    after, _ = state.apply({0: Vec(50, 20)})  # a move of 3 squares onto the sand at x = 5
    assert after.cars[0].velocity == Vec(20, 0)
    assert landing_velocity(Terrain.MUD, Vec(35, -4), 10) == Vec(10, -4)


def test_under_the_pen_flick_ice_makes_the_car_slide_its_last_flick_again():
    rules = PAPER.with_options(movement="flick")
    state = rolling(straight("I"), rules, Vec(5, 2), Vec(3, 0))
    assert [c.node for c in state.candidates(0)] == [Vec(8, 2)]
    assert held(Terrain.ICE, Vec(3, 0)) and not held(Terrain.ICE, Vec(0, 0)) and not held(Terrain.SAND, Vec(1, 0))


# -- loading --------------------------------------------------------------------------------

def test_char_map_letters_become_terrain_masks_over_the_nodes():
    track = straight("Y")
    masks = track.terrain_nodes()
    assert set(masks) == {Terrain.SAND} and masks[Terrain.SAND].shape == (track.height, track.width)
    assert masks[Terrain.SAND].sum() == 3 and track.terrain_at(Vec(5, 2)) == "sand"
    assert track.terrain_at(Vec(4, 2)) is None and track.on_road(Vec(5, 2))


def test_an_unknown_letter_names_the_terrain_letters():
    _, problems = check_charmap(STRAIGHT.replace("{t}", "Q"))
    assert any("unknown letter 'Q'" in p.message and "Y sand" in p.message and "C curb" in p.message
               for p in problems)


def test_road_terrain_beside_a_finish_line_is_an_error_cars_could_drive_round_it():
    text = STRAIGHT.replace("{t}", "O").replace("XOOOOOOOOOOOOOFX\nXXXX", "XOOOOOOOOOOOOOYX\nXXXX")
    _, problems = check_charmap(text)
    assert any("the finish does not cut the road" in p.message for p in problems if p.is_error)


def test_terrain_is_never_the_only_way_round():
    # the only road from S to F is sand: the track must be raceable under the karopapier rules too
    _, problems = check_charmap("XXXXXXX\nXSOYOFX\nXSOYOFX\nXXXXXXX\n")
    assert any("cannot reach" in p.message for p in problems if p.is_error)


def test_outline_terrain_patches_mark_the_nodes_inside_them():
    result = read_pack_text(TERRAIN_RING_PACK, "p.toml")
    assert result.errors == []
    (track,) = result.tracks
    assert [p.kind for p in track.terrain_patches()] == ["sand", "water"]
    masks = track.terrain_nodes()
    assert masks[Terrain.SAND].sum() == 12 and track.terrain_at(Vec(14, 2)) == "sand"
    assert track.on_road(Vec(14, 2)) and not track.on_road(Vec(14, 8))  # water is an island
    assert track.terrain_at(Vec(14, 8)) == "water"
    assert not track.for_rules(preset("karopapier")).on_road(Vec(14, 2))
    fine = track.refined(10)
    assert fine.terrain_at(Vec(140, 20)) == "sand" and fine.terrain_at(Vec(125, 20)) is None


@pytest.mark.parametrize("patch, line, key, words", [
    ('kind = "lava"\nring = [[12.6, 0.6], [16.4, 0.6], [16.4, 3.4]]', 22, "outline.terrain[1].kind",
     "unknown terrain 'lava'; choose one of sand, mud, ice, curb, water"),
    ('kind = "mud"', 21, "outline.terrain[1].ring", "missing"),
    ('kind = "mud"\nring = [[0.5, 0.5], [3, 0.5], [3, 3]]', 23, "outline.terrain[1].ring",
     "must lie on the road, inside the outer ring without touching it"),
    ('kind = "ice"\nring = [[5, 5], [6, 5], [6, 6]]', 23, "outline.terrain[1].ring", "lies inside an island"),
    ('kind = "ice"\nring = [[1, 1], [2, 1]]', 23, "outline.terrain[1].ring", "at least 3 different points"),
])
def test_bad_outline_patches_are_reported_with_file_track_key_and_line(patch, line, key, words):
    text = TERRAIN_RING_PACK.split("[[track.outline.terrain]]")[0] + "[[track.outline.terrain]]\n" + patch + "\n"
    result = read_pack_text(text, "p.toml")
    messages = [str(p) for p in result.errors]
    assert any(m.startswith(f'p.toml:{line}: [track "ring"] {key}: ') and words in m for m in messages), messages


def test_overlapping_patches_are_an_error_on_the_second():
    text = TERRAIN_RING_PACK.replace("[[12.6, 7.6], [16.4, 7.6], [16.4, 9.4], [12.6, 9.4]]",
                        "[[13, 1], [15, 1], [15, 3]]")
    messages = [str(p) for p in read_pack_text(text, "p.toml").errors]
    assert any(m.startswith('p.toml:27: [track "ring"] outline.terrain[2].ring: terrain patches 1 and 2')
               for m in messages), messages


# -- the solver and the CPUs ----------------------------------------------------------------

# Small maps where each kind matters (Karopapier's reading: cell checkpoints, F cells finish).
MAPS = {
    "sand": """
XXXXXXXXXXXXXXXX
XSOOOOYYYYYYOOFX
XSOOOOYYYYYYOOFX
XOOOOOOOOOOOOOFX
XXXXXXXXXXXXXXXX
""",
    "mud shortcut": """
XXXXXXXXXXXXX
XSOOOOOOOOOOX
XSOOOZZZZZOOX
XXXXXZZZZZOOX
XFFOOOOOOOOOX
XXXXXXXXXXXXX
""",
    "ice": """
XXXXXXXXXXXXXX
XSOOIIIIIOOOOX
XSOOIIIIIOOOOX
XOOOOOOOOOOOOX
XXXXXXXXXXXOOX
XFFFOOOOOOOOOX
XXXXXXXXXXXXXX
""",
    "curbs": """
XXXXXXXXXXXXXXXXX
XSOOOOOOOOOOOOOCX
XSOOOOOOOOOOOOOCX
XXXXXXXXXXXXXXOCX
XFFOOOOOOOOOOOOCX
XXXXXXXXXXXXXXXXX
""",
    "everything": """
XXXXXXXXXXXXXXXX
XSOOYYOOOOZZOO1X
XSOOYYOIIOZZOOOX
XOOOOOOOOOOOOOOX
XXXXXXXXXXXXXOCX
XFFOOOOCCOOWOOOX
XFFOOOOOOOOOOOOX
XXXXXXXXXXXXXXXX
""",
}


@pytest.mark.parametrize("name", MAPS)
def test_par_with_terrain_matches_an_independent_search(name):
    text = MAPS[name]
    track = track_from_charmap(text, id=name, karopapier=True)
    solution = Solver().solve(track, KARO_EFFECTS)
    assert solution.par == terrain_par(text)
    assert solution.par is not None
    plain = Solver().solve(track_from_charmap(text, id=name, karopapier=True), preset("karopapier"))
    # the same map with its terrain as off-road: the independent search agrees, whether or not it can finish
    assert plain.par == terrain_par("".join("X" if ch in "YZICN" else ch for ch in text))
    drive(track, KARO_EFFECTS, solution)


def drive(track, rules, solution):
    """The solver's line through the referee, alone: it finishes in par moves."""
    state = drive_line(track, rules, solution.path)
    assert state.cars[0].status == "finished" and state.cars[0].moves == solution.par


LONG_SAND = """
XXXXXXXXXXXXXXXXXXXXXXXXXXXXXX
XSOOOYYYYYYYYYYYYYYYYYYYYOOOFX
XSOOOYYYYYYYYYYYYYYYYYYYYOOOFX
XOOXXXXXXXXXXXXXXXXXXXXXXXOOFX
XOOXXXXXXXXXXXXXXXXXXXXXXXOOFX
XOOOOOOOOOOOOOOOOOOOOOOOOOOOFX
XXXXXXXXXXXXXXXXXXXXXXXXXXXXXX
"""


def test_terrain_changes_par_where_it_should():
    def par(text, rules=KARO_EFFECTS):
        return Solver().solve(track_from_charmap(text, id="t", karopapier=True), rules).par
    # 20 squares of sand: no quicker than the detour round the bottom; as road it would be
    assert par(LONG_SAND) == par(LONG_SAND.replace("Y", "X")) == terrain_par(LONG_SAND) == 9
    assert par(LONG_SAND.replace("Y", "O")) == 7
    assert par(LONG_SAND, preset("karopapier")) == 9


@st.composite
def terrain_maps(draw, karopapier: bool) -> str:
    """A small char map of random terrain whose finish is always reachable.

    The bottom road row is plain road (terrain is off-road when a pack is checked under the
    Karopapier rules), so every map is a track: no test returns early on a map nobody can
    drive, and hypothesis shrinks a failure towards plain road.
    """
    width, height = draw(st.integers(6, 13)), draw(st.integers(4, 7))
    rows = [["X"] * width for _ in range(height)]
    for y in range(1, height - 1):
        for x in range(2, width - 2):
            rows[y][x] = "O" if y == height - 2 else draw(st.sampled_from("OOOOOOYZICWX"))
        rows[y][1], rows[y][width - 2] = "S" if y < 3 else "O", "F"
    if karopapier and draw(st.booleans()):
        y, x = draw(st.integers(1, height - 2)), draw(st.integers(2, width - 3))
        rows[y][x] = "1"
    return "\n".join("".join(row) for row in rows)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(terrain_maps(karopapier=True))
def test_property_the_layered_search_agrees_with_the_independent_one_on_random_terrain(text):
    track, problems = check_charmap(text, id="r", karopapier=True)
    assert track is not None, problems
    solution = Solver().solve(track, KARO_EFFECTS)
    assert solution.par == terrain_par(text), text
    if solution.par is not None:
        drive(track, KARO_EFFECTS, solution)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(terrain_maps(karopapier=False), st.sampled_from(["paper", "arcade"]),
       st.sampled_from(["segment", "landing", "projection"]))
@example("XXXXXXXX\nXSOWOOFX\nXSYWOOFX\nXOOOOOFX\nXXXXXXXX", "arcade", "projection")  # a crash's missed turn
def test_property_the_general_search_agrees_with_the_referee_on_random_terrain(text, name, check):
    # line gates (the general search), crash moves and restarts: the referee's own breadth-first search
    track, problems = check_charmap(text, id="r")
    assert track is not None, problems
    rules = preset(name).with_options(offroad_check=check)
    table = Solver().table(track, rules, 1)
    assert not isinstance(table, LayeredTable) and isinstance(table, SolverTable)
    solution = table.solution()
    assert solution.par == reference_par(track, rules).par, text
    if solution.par is not None:
        drive(track, rules, solution)


def test_the_champion_makes_par_alone_on_terrain():
    for name in ("everything", "mud shortcut", "ice"):
        track = track_from_charmap(MAPS[name], id=name, karopapier=True)
        solver = Solver()  # one table per map: the par, the best start place and the Champion's reading
        solution = solver.solve(track, KARO_EFFECTS)
        par, best = solution.par, solution.slot
        champion = make_driver("cpu:champion", solver=solver)
        grid = RaceState.start(track, KARO_EFFECTS, [f"c{i}" for i in range(len(track.start_slots))])
        state = replace(grid, cars=(grid.cars[best],))
        while state.cars[0].racing:
            state, _ = state.apply({0: champion.choose(state, 0, {}, random.Random(0))})
        assert state.cars[0].status == "finished" and state.cars[0].moves == par, name


def test_solve_and_sim_take_the_terrain_option(tmp_path, capsys):
    from game.cli import main
    path = tmp_path / "sand.map"
    path.write_text(LONG_SAND.strip() + "\n")
    assert main(["solve", str(path)]) == 0  # a .map is raced under the karopapier rules: terrain off-road
    assert "par 9" in capsys.readouterr().out
    assert main(["solve", str(path), "--terrain", "effects", "--rules", "paper"]) == 0
    out = capsys.readouterr().out
    assert "under paper rules (nine, terrain effects)" in out
    assert main(["sim", "--track", str(path), "--cars", "cpu:champion", "--terrain", "effects"]) == 0


# Real Karopapier maps with sand (Y) and mud (Z), raced under terrain effects: the ones the
# independent search settles in well under a second (always run); with RACETRACK_SLOW=1
# every one of the 47 (tools/bench_terrain.py prints what each costs).
QUICK_TERRAIN_MAPS = ["111", "150", "161", "162", "168", "189", "196"]


def _terrain_maps():
    from tests.test_karopapier_exact import MAPS

    if MAPS is None:
        return []
    return sorted((p.stem for p in MAPS.glob("*.map") if any(ch in p.read_text(errors="replace") for ch in "YZ")),
                  key=int)


@pytest.mark.parametrize("map_id", _terrain_maps() if os.environ.get("RACETRACK_SLOW") == "1" else
                         QUICK_TERRAIN_MAPS if _terrain_maps() else [])
def test_real_maps_with_sand_and_mud_have_the_independent_searchs_par_under_effects(map_id):
    from tests.test_karopapier_exact import MAPS, karo_track

    text = (MAPS / f"{map_id}.map").read_text(errors="replace")
    track = karo_track(map_id)
    solution = Solver().solve(track, KARO_EFFECTS)
    assert solution.par is not None, "every one of these maps can be raced under effects"
    expected = terrain_par(text, max_states=2_000_000 if os.environ.get("RACETRACK_SLOW") == "1" else 300_000)
    if expected is None:
        pytest.skip("beyond the independent search's state limit")
    assert solution.par == expected
    final = drive_line(track, KARO_EFFECTS, solution.path)
    assert final.cars[0].status == "finished" and final.cars[0].moves == solution.par
