"""Night races end to end: bad values in files, the CPUs' memory (no peeking), par by day, replays."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from game.core import RaceState, Vec, preset
from game.core.sight import lit_now
from game.drivers.night import NightDriver
from game.race.replay import ReplayError, loads_replay
from game.settings import SETTINGS_FILE, load_settings
from game.tracks.pack import pinned_par, read_pack_text
from tests.core_tracks import LOOP, make_track
from tests.packs import ONE_TRACK_PACK

GOLDEN = Path(__file__).parent / "golden"

REPLAY = '''# Racetrack replay (see docs/replays.md).
format = 3
track = "starter/paper-oval"
laps = 1
seed = 1

[rules]
preset = "arcade"
sight = "night"
sight_radius = {radius}

[[car]]
name = "A"
driver = "human"
'''


# -- bad input: a located message, never a traceback ------------------------------------------

@pytest.mark.parametrize("radius, shown", [("0", "0"), ("500", "500"), ("nan", "nan"), ('"far"', "'far'")])
def test_a_replay_with_a_bad_radius_names_file_key_and_line(radius, shown):
    with pytest.raises(ReplayError) as caught:
        loads_replay(REPLAY.format(radius=radius), "night.replay.toml")
    text = str(caught.value)
    assert "night.replay.toml" in text and "rules.sight_radius" in text and ":10:" in text
    assert f"from 2 to 20, not {shown}" in text


def test_a_replay_with_an_unknown_sight_names_the_values():
    text = REPLAY.format(radius=6).replace('sight = "night"', 'sight = "dusk"')
    with pytest.raises(ReplayError, match=r"rules\.sight.*choose one of 'day', 'night'"):
        loads_replay(text, "night.replay.toml")


PACK = ONE_TRACK_PACK + '''[[cup]]
id = "dark"
name = "Dark"
races = [
  { track = "a", options = { sight = "night", sight_radius = 500 } },
  { track = "a", options = { sight = "midnight" } },
]
'''


def test_a_pack_cup_with_bad_night_options_is_reported_with_file_track_and_key():
    result = read_pack_text(PACK, "p.toml")
    assert [t.id for t in result.tracks] == ["a"]  # the track still loads
    found = {p.key: p for p in result.problems if p.cup == "dark"}
    assert "sight_radius" in found["races[1].options"].message and "500" in found["races[1].options"].message
    assert "'midnight'" in found["races[2].options"].message
    assert all(p.line for p in found.values()) and all("p.toml" in str(p) for p in found.values())


def test_settings_with_a_nan_radius_name_the_key_and_keep_the_other_settings(tmp_path):
    (tmp_path / SETTINGS_FILE).write_text(
        '[sound]\neffects = 30\n\n[rules]\npreset = "arcade"\noptions = { sight = "night", sight_radius = nan }\n')
    settings, problems = load_settings(tmp_path)
    assert settings.effects_volume == 30
    texts = [str(p) for p in problems]
    assert any("rules.options" in t and ":6:" in t and "sight_radius" in t and "nan" in t for t in texts), texts


# -- CPUs at night --------------------------------------------------------------------------------

def loop_race(rows=LOOP, seed=0, names=("A",), radius=4, movement="nine"):
    lines = [r for r in rows.strip("\n").splitlines()]
    track = make_track(lines, finish=((6.5, 5.5), (6.5, 7.5)), forward=(1, 0))
    rules = preset("paper", {"sight": "night", "sight_radius": radius, "movement": movement})
    return RaceState.start(track, rules, list(names), seed=seed)


#: LOOP with its far side changed where the grid's lights do not reach.
DARK_PART_CHANGED = LOOP.replace("XOOOXXXXXXXXXXOOOX\nX222", "XOOOXXXXXXXXXXOOOX\nXOOO").replace(
    "XXOOOOOOO1OOOOOOXX", "XXXXXOOOO1OOOOOOXX")


def test_a_night_cpu_plans_only_on_what_it_has_seen():
    # Two maps alike in everything the car can see from the grid, different in the dark:
    # its first choices are the same on both.
    dark_part_changed = LOOP.replace("XOOOXXXXXXXXXXOOOX\nX222", "XOOOXXXXXXXXXXOOOX\nXOOO")
    dark_part_changed = dark_part_changed.replace("XXOOOOOOO1OOOOOOXX", "XXXXXOOOO1OOOOOOXX")
    a, b = loop_race(), loop_race(dark_part_changed)
    seen = lit_now(a)
    road_a = np.asarray(a.track.region.road_nodes())
    road_b = np.asarray(b.track.region.road_nodes())
    assert (road_a != road_b).any() and not ((road_a != road_b) & seen).any()
    da, db = NightDriver("cpu:champion"), NightDriver("cpu:champion")
    phases = 0
    while not ((road_a != road_b) & (da.memory(a, 0).seen | db.memory(b, 0).seen)).any() and phases < 12:
        pick = da.choose(a, 0, {}, random.Random(phases))
        assert pick == db.choose(b, 0, {}, random.Random(phases)), phases  # what it has not seen changes nothing
        a, _ = a.apply({0: pick})
        b, _ = b.apply({0: pick})
        phases += 1
    assert phases >= 2


def test_a_night_cpus_memory_grows_with_what_is_lit_and_is_forgotten_on_a_new_race():
    state = loop_race()
    driver = NightDriver("cpu:pro")
    first = driver.memory(state, 0).seen.copy()
    assert (first == lit_now(state)).all()
    choice = driver.choose(state, 0, {}, random.Random(0))
    later, _ = state.apply({0: choice})
    driver.choose(later, 0, {}, random.Random(0))
    grown = driver.memory(later, 0).seen
    assert (grown >= first).all() and (grown == first | lit_now(later)).all()
    assert (driver.memory(state, 0).seen == first).all()  # phase 0 again: the race started over


def test_a_night_cpu_race_is_the_same_for_a_seed():
    from game.commands.sim import simulate

    state = loop_race(names=("A", "B"))
    runs = [simulate(state.track, "loop", state.rules, ["cpu:champion", "cpu:rookie"], 1, 3)[0] for _ in range(2)]
    assert runs[0].phases == runs[1].phases and runs[0].phases


def test_par_at_night_is_the_day_par():
    from game.drivers.solver import Solver

    state = loop_race()
    solver = Solver()
    night = solver.solve(state.track, state.rules, 1).par
    assert night == solver.solve(state.track, preset("paper"), 1).par
    track = make_track([r for r in LOOP.strip("\n").splitlines()], finish=((6.5, 5.5), (6.5, 7.5)), forward=(1, 0))
    track = track.__class__(**{**track.__dict__, "meta": {"par": 17}, "default_rules": "paper"})
    assert pinned_par(track, preset("paper", {"sight": "night"}), track.default_laps) == 17


def test_the_golden_night_race_referees_as_pinned_and_was_raced_at_night():
    from game.race.replay import load_replay

    replay = load_replay(GOLDEN / "arcade-night-loop.replay.toml")
    assert replay.rules.night
    # the day goldens keep their reports: the options a night race adds are left out at their defaults
    assert "sight" not in (GOLDEN / "arcade-loop.outcome.json").read_text(encoding="utf-8")


def test_the_day_cpu_hands_a_night_race_to_the_night_driver():
    from game.drivers.cpu import make_driver, make_shared

    state = loop_race()
    shared = make_shared()
    driver = make_driver("cpu:champion", shared=shared)
    choice = driver.choose(state, 0, {}, random.Random(0))
    assert isinstance(choice, Vec)
    assert any(isinstance(s, NightDriver) for s in shared.specialists.values())


def night_specialist(movement: str):
    """The fine-paper or flick CPU a Champion plays at night (without the flick's shaky hand), and its memory."""
    from game.drivers.flick import FlickDriver
    from game.drivers.night import NightFineDriver

    if movement == "fine":
        driver = NightFineDriver("cpu:champion")
        return driver, lambda state: driver.night.memory(state, 0)
    driver = FlickDriver(kind="cpu:champion", noise=0.0)
    return driver, lambda state: driver._night().memory(state, 0)


@pytest.mark.parametrize("movement", ["fine", "flick"])
def test_fine_and_flick_cpus_at_night_plan_only_on_what_they_have_seen(movement):
    # As the grid CPUs: on two maps alike where the car has looked, its choices are the same.
    a, b = loop_race(movement=movement, radius=2), loop_race(DARK_PART_CHANGED, movement=movement, radius=2)
    road_a = np.asarray(a.track.region.road_nodes())
    road_b = np.asarray(b.track.region.road_nodes())
    assert (road_a != road_b).any() and not ((road_a != road_b) & lit_now(a)).any()
    (da, seen_a), (db, seen_b) = night_specialist(movement), night_specialist(movement)
    phases = 0
    while not ((road_a != road_b) & (seen_a(a).seen | seen_b(b).seen)).any() and phases < 12:
        pick = da.choose(a, 0, {}, random.Random(phases))
        assert pick == db.choose(b, 0, {}, random.Random(phases)), phases  # what it has not seen changes nothing
        road_seen = seen_a(a).seen & road_a
        assert road_seen[pick.y, pick.x], (phases, pick)  # it only ever goes where it saw road
        a, _ = a.apply({0: pick})
        b, _ = b.apply({0: pick})
        phases += 1
    assert phases >= 2


def test_a_night_fine_paper_cpu_brakes_to_rest_on_road_it_has_seen():
    from game.drivers.fine import FineDriver

    from tests.core_tracks import STRAIGHT

    rules = preset("paper", {"sight": "night", "sight_radius": 2, "movement": "fine"})
    state = RaceState.start(make_track(STRAIGHT), rules, ["A"], seed=0)
    driver, memory = night_specialist("fine")
    for phase in range(60):
        if state.over:
            break
        pick = driver.choose(state, 0, {}, random.Random(phase))
        seen_road = memory(state).seen & np.asarray(state.track.region.road_nodes())
        here = state.cars[0].position
        assert FineDriver.stops_on_road(state, [pick], [pick - here], seen_road)[0], phase
        state, _ = state.apply({0: pick})
    assert state.cars[0].status == "finished"


def test_the_day_cpu_hands_a_night_race_on_fine_paper_to_the_night_fine_driver():
    from game.drivers.cpu import make_driver, make_shared
    from game.drivers.night import NightFineDriver

    state = loop_race(movement="fine")
    shared = make_shared()
    assert isinstance(make_driver("cpu:pro", shared=shared).choose(state, 0, {}, random.Random(0)), Vec)
    assert any(isinstance(s, NightFineDriver) for s in shared.specialists.values())
