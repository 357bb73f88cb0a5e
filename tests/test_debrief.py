"""The debrief counts every lost move exactly: checked against a plain referee search that shares no solver code."""

from __future__ import annotations

import json
from collections import deque
from dataclasses import replace
from functools import lru_cache

import os

import pytest

from game.commands.sim import simulate
from game.core import RaceState, Vec, preset
from game.core.race import FINISHED
from game.drivers.solver import Solver
from game.race.debrief import DebriefError, debrief_race, debrief_replay, debrief_table, remaining
from game.race.referee import referee
from game.race.replay import dumps_replay, loads_replay, track_checksum
from game.tracks.charmap import track_from_charmap

OVAL = """
XXXXXXXXXXXXXXXXXXXX
XXXOOOOOOOOOOOOOOXXX
XXOOOOOOOOOOOOOOOOXX
XOOOOXXXXXXXXXXOOOOX
XOOOXXXXXXXXXXXXOOOX
XOOOOXXXXXXXXXXOOOOX
XXOOOOOOFSOSOOOOOOXX
XXXOOOOOFOSOSOOOOXXX
XXXXXXXXXXXXXXXXXXXX
"""

#: A short dog-leg for the plain search (a few thousand one-car states): four start places, one corner.
DOGLEG = """
XXXXXXXXXXXXXXX
XSSOOOOOOXXXXXX
XSSOOOOOOXXXXXX
XXXXXXXOOXXXXXX
XXXXXXXOOXXXXXX
XXXXXXXOOOOOOFX
XXXXXXXOOOOOOFX
XXXXXXXXXXXXXXX
"""

FOUR = ("cpu:champion", "cpu:pro", "cpu:rookie", "cpu:rookie")


@lru_cache(maxsize=None)
def _oval():
    return track_from_charmap(OVAL, id="oval")


@lru_cache(maxsize=None)
def _dogleg():
    return track_from_charmap(DOGLEG, id="dogleg")


@lru_cache(maxsize=None)
def _race(rules_name: str, seed: int, kinds: tuple[str, ...] = FOUR, laps: int = 1, short: bool = False):
    """A CPU race on the small oval (``short``: the dog-leg): (replay, refereed result, solver table)."""
    track = _dogleg() if short else _oval()
    rules = preset(rules_name)
    replay, _, _ = simulate(track, "oval.map", rules, list(kinds), laps, seed)
    result = referee(replay, track)
    table = _solver().table(result.states[0].track, rules, laps)
    return replay, result, table


@lru_cache(maxsize=1)
def _solver():
    return Solver()


def _debrief(rules_name: str, seed: int, kinds=FOUR, laps: int = 1):
    replay, result, table = _race(rules_name, seed, tuple(kinds), laps)
    return debrief_race(table, result.states, result.records, [c.driver for c in replay.cars])


# -- an independent yardstick -------------------------------------------------------------
def _key(c):
    return (c.position, c.velocity, c.progress, c.skip, c.on_paper, c.offences)


def reference_to_go(state: RaceState, cars) -> dict:
    """Fewest moves to the finish for lone cars, by referee calls only: every one-car state
    reachable from the given cars is played through ``RaceState.apply``, then distances run
    backward from the finishing moves. Returns {state key: moves} (missing: cannot finish)."""
    solo = {}
    for c in cars:
        solo[_key(c)] = RaceState(track=state.track, rules=state.rules, laps=state.laps, seed=0, cars=(c,))
    queue = deque(solo.values())
    back: dict = {}
    done = set()
    while queue:
        here = queue.popleft()
        k = _key(here.cars[0])
        c = here.cars[0]
        targets = here.legal_targets(0) if not c.skip else ()
        for choice in ([{0: t} for t in targets] or [{}]):
            after, _ = here.apply(choice)
            a = after.cars[0]
            if a.status == FINISHED:
                done.add(k)
                continue
            if not a.racing or a.progress.finish_debt > 1:
                continue  # a second wrong-way crossing: only driving backwards gets there (the solver's limit too)
            k2 = _key(a)
            back.setdefault(k2, set()).add(k)
            if k2 not in solo:
                solo[k2] = replace(after, cars=(replace(a, history=a.history[-1:]),))
                queue.append(solo[k2])
    dist = {k: 1 for k in done}
    frontier = deque(done)
    while frontier:
        k = frontier.popleft()
        for p in back.get(k, ()):
            if p not in dist:
                dist[p] = dist[k] + 1
                frontier.append(p)
    return dist


# -- the sums -------------------------------------------------------------------------------
@pytest.mark.parametrize("rules_name, seed", [("arcade", 1), ("arcade", 4), ("paper", 2)])
def test_every_finishers_losses_add_up_to_its_moves_over_its_start_places_par(rules_name, seed):
    debrief = _debrief(rules_name, seed)
    finished = [c for c in debrief.cars if c.status == "finished"]
    assert len(finished) >= 3
    for c in finished:
        assert all(p.loss is not None for p in c.phases), c.name
        # a phase gains moves (a negative loss) only when a collision spun the car to rest for free
        assert all(p.cause == "spin" for p in c.phases if p.loss < 0), c.name
        assert sum(p.loss for p in c.phases) == c.moves - c.start_par
        # its own start place's par, as the solver gives it for that place
        assert c.start_par == _solver().solve(_oval(), preset(rules_name), 1, slot=c.car).par
    assert debrief.par == min(c.start_par for c in debrief.cars)


def test_a_rookie_field_loses_moves_and_the_debrief_names_why():
    debrief = _debrief("arcade", 1)
    causes = {p.cause for c in debrief.cars for p in c.phases if p.loss}
    assert causes and causes <= {"line", "crash", "spin", "block", "penalty", "terrain"}
    rookies = [c for c in debrief.cars if c.driver == "cpu:rookie"]
    assert all(c.lost > 0 and c.costliest is not None for c in rookies)
    for c in rookies:  # the costliest mistake is the biggest loss, the first of equal ones
        worst = c.costliest
        assert worst.loss == max(p.loss for p in c.phases if p.loss is not None)
        assert all(p.loss < worst.loss for p in c.phases if p.loss is not None and p.phase < worst.phase)
    text = debrief_table(debrief)
    assert "Move of the race" in text and all(c.name in text for c in debrief.cars)


@pytest.mark.parametrize("rules_name", ["arcade", "paper", "phases"])
def test_the_champion_alone_loses_nothing_in_any_phase(rules_name):
    debrief = _debrief(rules_name, 0, kinds=("cpu:champion",))
    (champ,) = debrief.cars
    assert champ.status == "finished" and champ.phases
    assert [p.loss for p in champ.phases] == [0] * len(champ.phases)
    assert champ.moves == champ.start_par == debrief.par
    assert debrief.move_of_race is None  # no field to gain on


# -- against the plain search ---------------------------------------------------------------------
@pytest.mark.parametrize("rules_name, seed", [("arcade", 1), ("paper", 2)])
def test_remaining_moves_equal_a_plain_referee_search_at_every_phase(rules_name, seed):
    """Every car's remaining moves after every phase (crashes, spins and missed turns
    included) equal what a breadth-first search through the referee finds."""
    _, result, table = _race(rules_name, seed, FOUR, 1, short=True)
    cars = [c for s in result.states for c in s.cars if c.racing]
    truth = reference_to_go(result.states[0], cars)
    checked = 0
    for state in result.states:
        for i, c in enumerate(state.cars):
            if c.racing:
                assert remaining(table, state, i) == truth.get(_key(c)), (state.phase, c)
                checked += 1
    assert checked > 20


@pytest.mark.parametrize("rules_name, velocity, skip, on_paper, in_table", [
    ("paper", (2, 0), 0, False, False),  # at the start with a speed no lone car has there (it came from off the paper)
    ("arcade", (2, 0), 1, False, True),  # the same but a turn to miss: it will stand, at rest, as the table knows
    # on the paper beside the road (slow return): the plain search covers the whole sheet, a minute
    pytest.param("tournament", (0, 0), 0, True, False, marks=pytest.mark.slow),
])
def test_states_a_lone_car_never_reaches_count_as_the_referee_plays_them(rules_name, velocity, skip, on_paper,
                                                                          in_table):
    from game.race.debrief import table_remaining

    rules = preset(rules_name)
    start = RaceState.start(_dogleg(), rules, ["Ada"])
    c = start.cars[0]
    where = Vec(2, 2) if not on_paper else Vec(3, 3)  # (3, 3) is off the road below the first straight
    car = replace(c, position=where, velocity=Vec(*velocity), skip=skip, on_paper=on_paper)
    state = replace(start, cars=(car,))
    table = _solver().table(state.track, rules, 1)
    assert table_remaining(table, state, 0)[0] == in_table  # else searched through the referee
    truth = reference_to_go(state, [car]).get(_key(car))
    assert truth is not None
    assert remaining(table, state, 0) == truth


def crash_and_solve_again(track, rules, solver: Solver, laps: int = 1, limit: int = 3000):
    """Find a legal target that leaves the road before any gate is crossed (a breadth-first
    walk from the grid over on-road moves), take it, and return (the debrief's remaining
    moves there, a fresh solve from the restart node as the only start place, plus the turns
    to miss); None when no such crash is found within ``limit`` states."""
    start = RaceState.start(track, rules, ["Ada"], laps=laps)
    table = solver.table(start.track, rules, laps)
    fresh_start = start.cars[0].progress  # what a car on a grid has: no gate crossed yet
    queue, seen = deque([start]), {_key(start.cars[0])}
    while queue and len(seen) < limit:
        state = queue.popleft()
        for cand in (x for x in state.candidates(0) if x.legal):
            after, record = state.apply({0: cand.node})
            a = after.cars[0]
            if not a.racing or a.progress != fresh_start:
                continue
            if cand.offroad and any(e.kind == "off_track" for e in record.events):
                fresh = replace(after.track, start_slots=(a.position,))
                assert RaceState.start(fresh, rules, ["x"], laps=laps).cars[0].progress == a.progress
                again = Solver().solve(fresh, rules, laps, slot=0).par
                return remaining(table, after, 0), None if again is None else again + a.skip
            if not cand.offroad and _key(a) not in seen:
                seen.add(_key(a))
                queue.append(after)
    return None


@pytest.mark.parametrize("rules_name", ["paper", "arcade"])
def test_a_cars_remaining_moves_after_a_crash_equal_a_fresh_solve_from_its_restart_state(rules_name):
    """Crash a car off the oval's first bend: where it is put back on the road at rest (and,
    under arcade rules, misses a turn), a new solve from that node as the start place gives
    the same count."""
    found = crash_and_solve_again(_oval(), preset(rules_name), _solver())
    assert found is not None, "no crash found on the first bend"
    assert found[0] == found[1]


def _builtin_packs():
    from game import paths

    return sorted(path.stem for path in paths.builtin_tracks_dir().glob("*.toml"))


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("RACETRACK_SLOW") != "1", reason="minutes of solving: run with RACETRACK_SLOW=1")
@pytest.mark.parametrize("pack", _builtin_packs())
def test_on_every_builtin_track_a_crash_leaves_the_remaining_moves_of_a_fresh_solve(pack):
    """Every built-in track (loaded in the test: reading the outline packs takes seconds)."""
    from game import paths
    from game.tracks.pack import load_pack

    for track in load_pack(paths.builtin_tracks_dir() / f"{pack}.toml").tracks:
        found = crash_and_solve_again(track, preset("arcade"), Solver())
        assert found is not None, f"{pack}/{track.id}: no crash found along the Champion's line"
        assert found[0] == found[1], f"{pack}/{track.id}"


# -- refusals ------------------------------------------------------------------------------------
def test_a_replay_whose_track_changed_is_refused_with_the_reason():
    replay, _, _ = _race("arcade", 1, FOUR, 1)
    text = dumps_replay(replay)
    assert "track_checksum = " in text
    assert loads_replay(text).track_checksum == track_checksum(RaceState.start(_oval(), replay.rules, ["a"]).track)
    walled = track_from_charmap(OVAL.replace("XXXOOOOOOOOOOOOOOXXX", "XXXOOOOOOXOOOOOOOXXX", 1), id="oval")
    with pytest.raises(DebriefError) as caught:
        debrief_replay(loads_replay(text, "race.toml"), walled, _solver())
    message = str(caught.value)
    assert message.startswith("race.toml: track_checksum:") and "changed since this race was recorded" in message
    # the same replay on the track as it was: a debrief
    assert debrief_replay(loads_replay(text, "race.toml"), _oval(), _solver()).cars


def test_a_replay_from_before_checksums_is_still_debriefed():
    replay, _, _ = _race("arcade", 1, FOUR, 1)
    old = dumps_replay(replay).replace("format = 3", "format = 2")
    old = "\n".join(line for line in old.splitlines() if not line.startswith("track_checksum"))
    loaded = loads_replay(old, "old.toml")
    assert loaded.track_checksum is None
    assert debrief_replay(loaded, _oval(), _solver()).to_json()["cars"][0]["remaining"]


def test_a_damaged_checksum_is_named_with_its_line():
    replay, _, _ = _race("arcade", 1, FOUR, 1)
    text = dumps_replay(replay)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if row.startswith("track_checksum"))
    bad = "\n".join('track_checksum = "not a checksum"' if row.startswith("track_checksum") else row
                    for row in text.splitlines())
    from game.race.replay import ReplayError
    with pytest.raises(ReplayError) as caught:
        loads_replay(bad, "race.toml")
    assert str(caught.value).startswith(f"race.toml:{line}: track_checksum:")


# -- the command ------------------------------------------------------------------------------------
def _saved_race(tmp_path):
    """A four-CPU race on the dog-leg, its map and replay files side by side."""
    from game.tracks import load_track_ref

    (tmp_path / "dogleg.map").write_text(DOGLEG.strip() + "\n")
    track = load_track_ref(str(tmp_path / "dogleg.map"), builtin_dir=tmp_path)
    replay, _, _ = simulate(track, "dogleg.map", preset("arcade"), list(FOUR), 1, 1)
    path = tmp_path / "race.toml"
    path.write_text(dumps_replay(replay))
    return path


def test_racetrack_debrief_prints_every_cars_phases_and_json_that_adds_up(capsys, tmp_path):
    from game.cli import main

    path = _saved_race(tmp_path)
    assert main(["debrief", str(path)]) == 0
    out, err = capsys.readouterr()
    # Nothing on stderr but, on a cold kernel cache, the one line saying the solver compiles first.
    assert [line for line in err.splitlines() if not line.startswith("compiling the solver")] == []
    assert "Move of the race" in out and "Costliest mistake of Rookie 3" in out
    assert [line.split()[0] for line in out.splitlines()[2:6]] == ["Champion", "Pro", "Rookie", "Rookie"]
    assert main(["debrief", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for car in data["cars"]:
        assert len(car["remaining"]) == data["phases"] + 1
        if car["status"] == "finished":
            assert sum(p["loss"] for p in car["phases"]) == car["moves"] - car["start_par"] == car["over_par"]
            assert [p["after"] for p in car["phases"]] == car["remaining"][1:len(car["phases"]) + 1]


def test_racetrack_debrief_refuses_a_changed_track_in_one_line(capsys, tmp_path):
    from game.cli import main

    path = _saved_race(tmp_path)
    (tmp_path / "dogleg.map").write_text(DOGLEG.strip().replace("XSSOOOOOOX", "XSSOOXOOOX", 1) + "\n")
    assert main(["debrief", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert err.startswith(f"racetrack: {path}: track_checksum: the track 'dogleg.map' has changed")
