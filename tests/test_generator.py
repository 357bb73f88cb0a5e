"""Generated tracks (issue 24): codes, candidates, the solver's checks, `racetrack generate` and gen:CODE.

The default run checks a few codes of each size the long way; ``-m slow`` runs the 200
codes per size and the 20 races (``tools/bench_generate.py --count 200 --verify`` prints
the same checks with their figures).
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.core.rules import preset
from game.drivers.generated import (MIN_PARTING, GenerationError, generate, lines_parting, load_track,
                                    narrowest_road)
from game.drivers.solver import Solver
from game.tracks.generator import (ALPHABET, NEWEST, PAR_RANGES, SIZES, VERSIONS, CodeError, Spec, candidate,
                                   code_of_day, make_code, pack_document, parse_code, seeds_per_kind)
from game.tracks.pack import load_pack, pack_file_text, read_pack_text

ROOT = Path(__file__).resolve().parent.parent
specs = st.builds(Spec, st.just(NEWEST), st.sampled_from(SIZES), st.booleans(),
                  st.integers(0, seeds_per_kind() - 1))


@pytest.fixture(scope="module")
def solver():
    return Solver(max_tables=1)


def checked_from_text(made, solver) -> list[int]:
    """Every check a player relies on, recomputed from the pack text alone; returns the slot pars."""
    result = read_pack_text(made.text, file=made.code)
    assert not result.problems, [str(p) for p in result.problems]
    (track,) = result.tracks
    assert len(track.start_slots) >= 8
    rules = preset(track.default_rules)
    pars = [solver.solve(track, rules, track.default_laps, slot=k).par for k in range(len(track.start_slots))]
    lo, hi = PAR_RANGES[made.spec.size]
    assert lo <= min(pars) <= hi, (made.code, pars)
    assert track.meta["par"] == min(pars)
    assert pars == sorted(pars), f"{made.code}: slot 1 must be fastest and the grid in order: {pars}"
    assert max(pars) - min(pars) <= 1, (made.code, pars)
    table = solver.table(track, rules, track.default_laps)
    assert lines_parting(table, int(table.start_ids[0])) >= MIN_PARTING
    assert narrowest_road(track, made.candidate.centre_line()) >= 3.0
    return pars


# -- codes ------------------------------------------------------------------------------
@given(specs)
def test_a_code_reads_back_as_what_it_was_made_from(spec):
    code = make_code(spec)
    assert len(code) == 6 and set(code) <= set(ALPHABET)
    assert parse_code(code) == spec
    assert parse_code(f"gen:{code.lower()[:3]} {code.lower()[3:]}") == spec  # typed loosely


@given(specs, st.integers(0, 5), st.sampled_from(ALPHABET))
def test_one_mistyped_character_is_always_caught(spec, position, wrong):
    code = make_code(spec)
    if code[position] == wrong:
        return
    typo = code[:position] + wrong + code[position + 1:]
    with pytest.raises(CodeError, match="mistyped"):
        parse_code(typo)


@given(specs, st.integers(0, 4))
def test_two_swapped_neighbours_are_caught(spec, position):
    code = make_code(spec)
    if code[position] == code[position + 1]:
        return
    swapped = code[:position] + code[position + 1] + code[position] + code[position + 2:]
    with pytest.raises(CodeError, match="swapped"):
        parse_code(swapped)


@pytest.mark.parametrize("wrong", ["0", "O", "1", "I", "L", "5", "S"])
def test_a_look_alike_character_is_named_with_its_place(wrong):
    code = make_code(Spec(1, "medium", False, 7))
    with pytest.raises(CodeError, match=f"character 3 '{wrong}' is not used"):
        parse_code(code[:2] + wrong + code[3:])


def test_a_code_of_a_later_generator_says_which_version_it_needs():
    code = make_code(Spec(VERSIONS, "short", False, 3))
    with pytest.raises(CodeError, match=f"generator version {VERSIONS}; this game makes versions 1 to {NEWEST}"):
        parse_code(code, newest=NEWEST)


def test_a_code_that_checks_out_but_names_no_track_says_so():
    from game.tracks.generator import _encode

    unused = _encode(VERSIONS * len(SIZES) * 2 * seeds_per_kind())
    with pytest.raises(CodeError, match="names no track"):
        parse_code(unused)


def test_a_code_of_the_wrong_length_says_so():
    with pytest.raises(CodeError, match="a code has 6 characters, this one 5"):
        parse_code("K7FQX")


def test_the_track_of_the_day_depends_on_the_date_only():
    day = datetime.date(2026, 12, 3)
    assert code_of_day(day) == code_of_day(datetime.date(2026, 12, 3))
    week = {code_of_day(day + datetime.timedelta(days=k)) for k in range(7)}
    assert len(week) == 7
    assert parse_code(code_of_day(day)).size == "medium"


# -- candidates -------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(specs, st.integers(0, 5))
def test_a_candidate_is_drawn_the_same_way_every_time_on_the_eighth_lattice(spec, attempt):
    first, again = candidate(spec, attempt), candidate(spec, attempt)
    assert (first.problem is None) == (again.problem is None)
    if first.problem:
        return
    text = pack_file_text(pack_document(first))
    assert text == pack_file_text(pack_document(again))
    outline = first.outline
    points = [p for ring in [outline["outer"], *outline.get("islands", [])] for p in ring]
    points += [p for patch in outline.get("terrain", []) for p in patch["ring"]]
    assert all(v >= 0 and (v * 8).is_integer() for p in points for v in p)
    assert len(outline["start"]) == 8
    assert bool(outline.get("terrain")) <= spec.terrain


@settings(max_examples=15, deadline=None)
@given(specs)
def test_a_drawn_candidate_reads_as_a_pack_or_is_rejected_with_a_reason(spec):
    drawn = candidate(spec, 0)
    if drawn.problem:
        assert "road" in drawn.problem
        return
    result = read_pack_text(pack_file_text(pack_document(drawn)))
    assert result.tracks or result.errors  # never an exception, always a verdict


# -- the checked tracks -----------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_a_code_per_size_passes_every_check_from_their_pack_text(size, solver):
    made = generate(Spec(1, size, False, 0), solver=solver)
    assert made.checks.failed is None
    assert checked_from_text(made, solver) == made.checks.slot_pars


def test_a_terrain_code_gets_patches_and_passes_the_checks(solver):
    made = generate(Spec(1, "medium", True, 4), solver=solver)
    assert made.track.terrain is not None and made.track.terrain.patches
    checked_from_text(made, solver)


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("RACETRACK_SLOW") != "1", reason="minutes of solving: run with RACETRACK_SLOW=1")
@pytest.mark.parametrize("size", SIZES)
def test_two_hundred_codes_per_size_are_valid_solvable_fair_and_in_range(size, solver):
    for seed in range(200):
        checked_from_text(generate(Spec(1, size, False, seed), solver=solver), solver)


def race(track, kinds, rules, seed=1):
    from game.commands.sim import simulate

    _, final, _ = simulate(track, f"gen:{track.id}", rules, kinds, None, seed)
    return final


def test_the_champion_alone_makes_par_and_four_cpus_finish_a_couch_race(solver, tmp_path):
    from game.commands.sim import simulate
    from game.race.referee import referee
    from game.race.replay import load_replay, load_replay_track, save_replay

    made = generate(Spec(1, "short", False, 2), solver=solver)
    alone = race(made.track, ["cpu:champion"], preset("paper"))
    assert alone.cars[0].status == "finished" and alone.cars[0].moves == made.checks.par
    replay, four, _ = simulate(made.track, f"gen:{made.code}", preset("arcade"),
                               ["cpu:champion", "cpu:pro", "cpu:rookie", "cpu:pro"], None, 5)
    assert four.over
    # The replay names the track by its code and plays back on the track made again from it.
    save_replay(replay, tmp_path / "race.toml")
    again = load_replay(tmp_path / "race.toml")
    assert again.track == f"gen:{made.code}"
    track = load_replay_track(again, ROOT / "tracks")
    assert referee(again, track).final.outcome() == four.outcome()


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("RACETRACK_SLOW") != "1", reason="minutes of solving: run with RACETRACK_SLOW=1")
@pytest.mark.parametrize("seed", range(20))
def test_on_twenty_codes_the_champion_makes_par_and_a_four_car_race_ends(seed, solver):
    made = generate(Spec(1, SIZES[seed % 3], seed % 4 == 3, seed), solver=solver)
    alone = race(made.track, ["cpu:champion"], preset("paper"))
    assert alone.cars[0].moves == made.checks.par
    assert race(made.track, ["cpu:champion", "cpu:pro", "cpu:rookie", "cpu:pro"], preset("arcade"), seed).over


def test_a_code_gives_the_same_pack_text_in_another_process(solver):
    code = make_code(Spec(1, "short", True, 11))
    here = generate(code, solver=solver).text
    script = ("import sys; from game.drivers.generated import generate; "
              f"sys.stdout.write(generate({code!r}).text)")
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="12345")
    there = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=600)
    assert there.returncode == 0, there.stderr
    assert there.stdout == here


def test_a_code_whose_candidates_all_fail_is_reported_never_raced(solver, monkeypatch):
    import game.drivers.generated as generated
    from game.tracks.generator import Candidate, Centre

    def broken(spec, attempt):  # a generator with a bug: every drawing fails
        return Candidate(spec, attempt, "circuit", 1, {}, [], Centre([], [], True), problem="the road is a knot")

    monkeypatch.setattr(generated, "candidate", broken)
    code = make_code(Spec(1, "short", False, 1))
    with pytest.raises(GenerationError, match=f"track code {code}: none of its first 40 candidates.*knot"):
        load_track(f"gen:{code}", builtin_dir=ROOT / "tracks", solver=solver)


# -- gen:CODE and the command -----------------------------------------------------------
def test_gen_code_names_the_generated_track_wherever_a_track_is_named(solver):
    code = make_code(Spec(1, "short", False, 0))
    track = load_track(f"gen:{code}", builtin_dir=ROOT / "tracks", solver=solver)
    assert track.id == f"gen-{code}" and track.meta["par"] == generate(code, solver=solver).checks.par
    with pytest.raises(CodeError, match="mistyped"):
        load_track(f"gen:{code[:5]}{'3' if code[5] != '3' else '4'}", builtin_dir=ROOT / "tracks")


def run_cli(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "game", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


def test_racetrack_generate_prints_and_writes_a_pack_but_never_over_a_file(tmp_path):
    code = make_code(Spec(1, "short", False, 0))
    out = tmp_path / "mine.toml"
    done = run_cli("generate", code, "--count", "2", "--json", "-o", str(out))
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert rows[0]["code"] == code and len(rows) == 2
    assert rows[0]["slot_pars"][0] == rows[0]["par"]
    pack = load_pack(out)
    assert pack.ok and [t.meta["par"] for t in pack.tracks] == [r["par"] for r in rows]
    theirs = tmp_path / "theirs.toml"
    theirs.write_text("my own notes\n")
    refused = run_cli("generate", code, "-o", str(theirs))
    assert refused.returncode == 1 and "already exists" in refused.stderr
    assert theirs.read_text() == "my own notes\n"


def test_a_mistyped_code_on_the_command_line_is_one_clear_line():
    done = run_cli("solve", "gen:K7F2QX")
    assert done.returncode == 1
    assert done.stderr.strip() == ("racetrack: track code 'gen:K7F2QX': character 4 '2' is not used in codes "
                                   "(they leave out the look-alikes 0 O Q D 1 I L 2 Z 5 S 8 B); "
                                   "check that character")
