"""CPUs in traffic: collisions judged as the referee judges them, rivals modelled by level, every
collision rule weighed, and a handful of seeded crowded races held to the traffic targets.

The full table (45 races) is ``python tools/bench_cpu.py --traffic``; the races here are a
small seeded sample of it that still fails when the CPUs get worse.
"""

from __future__ import annotations

import random
import sys
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from game.core import RaceState, Vec, preset
from game.drivers.cpu import (CONTESTED, CONTESTED_RISK, HUMAN, LEVELS, OUT_COST, RETIRE, TrafficModel, car_options, make_driver,
                              make_shared, meets, options_from_table, patience)
from game.drivers.solver import Solver
from game.paths import builtin_tracks_dir
from game.tracks.charmap import track_from_charmap
from game.tracks.pack import load_track_ref

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from bench_cpu import TARGETS, TrafficResult, cpu_race  # noqa: E402

FIELD = """
XXXXXXXXXXXXXXXXXXXXXXXX
XSOOOOOOOOOOOOOOOOOOOFOX
XSOOOOOOOOOOOOOOOOOOOFOX
XSOOOOOOOOOOOOOOOOOOOFOX
XSOOOOOOOOOOOOOOOOOOOFOX
XSOOOOOOOOOOOOOOOOOOOFOX
XSOOOOOOOOOOOOOOOOOOOFOX
XXXXXXXXXXXXXXXXXXXXXXXX
"""
LANE = """
XXXXXXXXXXXXXXXXXXXXXXXXXXXX
XSSSSOOOOOOOOOOOOOOOOOOOOFOX
XXXXXXXXXXXXXXXXXXXXXXXXXXXX
"""
SIX = ("cpu:champion", "cpu:pro", "cpu:rookie", "cpu:champion", "cpu:pro", "cpu:rookie")


@lru_cache(maxsize=None)
def builtin(ref):
    """A built-in track, loaded once for this file (reading a pack takes seconds; no test changes a track)."""
    return load_track_ref(ref, builtin_dir=builtin_tracks_dir())


def race_table(controller):
    """The table the race's CPUs read (built once by the race; building it again costs seconds)."""
    return controller.seats[0].driver.shared.table(controller.states[0])


def placed(state, *cars):
    """The state with cars moved: each item (car, position, velocity[, skip])."""
    new = list(state.cars)
    for car, position, velocity, *skip in cars:
        new[car] = replace(new[car], position=position, velocity=velocity, skip=skip[0] if skip else 0)
    return replace(state, cars=tuple(new))


# -- collisions as the referee sees them ------------------------------------------------------

@pytest.mark.parametrize("in_motion", [True, False])
def test_the_collision_matrix_agrees_with_the_referee_on_random_pairs_of_moves(in_motion):
    """meets() is checked against RaceState.apply itself: same node at the end, or meeting on the way."""
    track = track_from_charmap(FIELD, id="field")
    rules = preset("arcade", {"collide_in_motion": in_motion})
    shared = make_shared()
    base = RaceState.start(track, rules, ["a", "b"], seed=0)
    table = shared.table(base)
    rng = random.Random(7)
    checked, hits = 0, {False: 0, True: 0}
    for _ in range(400):
        p = Vec(rng.randint(1, 22), rng.randint(1, 6))
        q = Vec(min(22, max(1, p.x + rng.randint(-3, 3))), min(6, max(1, p.y + rng.randint(-3, 3))))
        cars = [(0, p, Vec(rng.randint(-2, 2), rng.randint(-2, 2))), (1, q, Vec(rng.randint(-2, 2), rng.randint(-2, 2)))]
        state = placed(base, *cars)
        if cars[0][1] == cars[1][1]:
            continue
        cands = [[c for c in state.candidates(car) if c.legal] for car in (0, 1)]
        if not cands[0] or not cands[1]:
            continue
        options = [car_options(table, state, car, cands[car]) for car in (0, 1)]
        matrix = meets(options[0].moves, options[1].moves, in_motion)
        for _ in range(6):
            a, b = rng.randrange(len(cands[0])), rng.randrange(len(cands[1]))
            _, record = state.apply({0: cands[0][a].node, 1: cands[1][b].node})
            assert bool(record.collisions) == bool(matrix[a, b]), (cars, cands[0][a].node, cands[1][b].node)
            checked += 1
            for collision in record.collisions:
                hits[collision.time < 1] += 1
    assert checked > 1000 and hits[False] > 20  # collisions at the landing node are in the sample
    assert hits[True] > 20 if in_motion else not hits[True]  # and on the way, where the rules count them


@pytest.mark.parametrize("ref", ["starter/bean", "grand-prix/coast-road"])  # a char map and an outline
def test_a_rival_s_options_read_from_the_table_are_its_legal_targets(ref):
    """The quick reading (table only) equals the one through the referee's candidates, all race long."""
    controller = cpu_race(builtin(ref), preset("arcade"), SIX, seed=1)
    table = race_table(controller)
    compared = crashes = 0
    for state in controller.states[::3]:
        for car, c in enumerate(state.cars):
            if not c.racing or c.skip:
                continue
            quick = options_from_table(table, state, car)
            if quick is None:
                continue
            exact = car_options(table, state, car, [x for x in state.candidates(car) if x.legal])
            assert quick.nodes == exact.nodes
            assert np.array_equal(quick.value, exact.value) and np.array_equal(quick.spun, exact.spun)
            for name in ("ex", "ey", "present"):
                assert np.array_equal(getattr(quick.moves, name), getattr(exact.moves, name))
            present = exact.moves.present  # where a move ends does not matter once the car is through the finish
            assert np.allclose(quick.moves.tend[present], exact.moves.tend[present])
            compared += 1
            crashes += int((quick.moves.tend < 1).sum())
    assert compared > 50 and crashes > 0


# -- the model ---------------------------------------------------------------------------------

def test_rivals_are_modelled_by_the_level_of_the_cpu_driving_them_and_players_as_humans():
    track = builtin("starter/first-sprint")
    shared = make_shared()
    drivers = [make_driver(k, shared=shared) for k in ("cpu:champion", "cpu:rookie")]
    state = RaceState.start(track, preset("arcade"), ["champ", "rookie", "player"], seed=0)
    choices = {car: driver.choose(state, car, {}, random.Random(car)) for car, driver in enumerate(drivers)}
    # in the first phase nobody has been seen choosing yet: every rival is taken for a player
    assert TrafficModel(shared, shared.table(state), state, {}).levels == {0: HUMAN, 1: HUMAN, 2: HUMAN}
    choices[2] = state.legal_targets(2)[0]
    state, _ = state.apply(choices)
    model = TrafficModel(shared, shared.table(state), state, {})
    assert model.levels == {0: LEVELS["cpu:champion"], 1: LEVELS["cpu:rookie"], 2: HUMAN}


@pytest.mark.parametrize("rules", ["arcade", "phases"])  # the presets where CPUs choose blind, in any order
def test_a_cpu_s_choice_does_not_depend_on_which_cpu_was_asked_first(rules):
    # the same race, the CPUs asked in several orders each phase: the same picks, phase by phase
    # (two champions and a pro on the grid: when a CPU's model of its rivals came from whoever
    # had chosen first, these picks differed between orders)
    track = builtin("starter/first-sprint")
    kinds = ("cpu:champion", "cpu:champion", "cpu:pro", "cpu:rookie")
    orders = [(0, 1, 2, 3), (3, 2, 1, 0), (1, 3, 0, 2), (2, 0, 3, 1)]
    picks_by_order = set()
    solver = Solver()  # the tables only: each order gets CPUs that have seen nothing yet
    for order in orders:
        shared = make_shared(solver)
        drivers = [make_driver(k, shared=shared) for k in kinds]
        state = RaceState.start(track, preset(rules), [f"c{i}" for i in range(4)], laps=1, seed=1)
        picks = []
        for _ in range(4):
            committed = {}
            for car in order:
                if car in state.to_choose():
                    committed[car] = drivers[car].choose(state, car, {}, random.Random(f"{car}/{state.phase}"))
            picks.append(tuple(sorted(committed.items())))
            state, _ = state.apply(committed)
        picks_by_order.add(tuple(picks))
    assert len(picks_by_order) == 1


def rolling(track, rules, phases, names=("a", "b")):
    """A state after a lone car 0 drove ``phases`` moves of the champion's line (the others wait at the start)."""
    shared = make_shared()
    state = RaceState.start(track, rules, list(names), seed=0)
    champion = make_driver("cpu:champion", shared=shared)
    solo = replace(state, cars=state.cars[:1])
    for phase in range(phases):
        solo, _ = solo.apply({0: champion.choose(solo, 0, {}, random.Random(phase))})
    return shared, replace(state, cars=(solo.cars[0], *state.cars[1:]), phase=phases), champion


def test_a_collision_costs_what_the_rules_say():
    """Spin-out: the moves lost by standing still where the car lands; both out: the race."""
    track = track_from_charmap(FIELD, id="field")
    for collision in ("spin", "both_out"):
        shared, state, champion = rolling(track, preset("arcade", {"collision": collision}), 3)
        best = champion.choose(replace(state, cars=state.cars[:1]), 0, {}, random.Random(0))
        state = placed(state, (1, best, ZERO_VEC, 1))  # b misses its turn where a wants to go
        model = TrafficModel(shared, shared.table(state), state, {})
        options = model.options[0]
        n = options.nodes.index(best)
        scores = model.scores(0)
        assert model.danger(0, model.picks, model.weight(0))[n] == 1.0  # b surely stands there
        lost = scores[n] - options.value[n]
        if collision == "spin":
            assert scores[n] == options.spun[n] and 0 < lost < 5  # it has to pick up speed again
        else:
            assert lost == OUT_COST
        assert champion.choose(state, 0, {}, random.Random(0)) != best


ZERO_VEC = Vec(0, 0)


def test_under_ordered_choosing_a_cpu_sees_where_the_cars_before_it_went():
    track = track_from_charmap(FIELD, id="field")
    rules = preset("paper", {"collision": "spin", "order": "fixed"})
    shared = make_shared()
    state = RaceState.start(track, rules, ["first", "second"], seed=0)
    state = placed(state, (0, Vec(5, 2), Vec(2, 1)), (1, Vec(5, 4), Vec(2, -1)))
    second = make_driver("cpu:champion", shared=shared)
    alone = second.choose(replace(state, cars=(replace(state.cars[0], status="retired"), state.cars[1])), 1, {},
                          random.Random(1))
    assert alone in state.legal_targets(0)  # the first car can take the node the second wants
    picked = second.choose(state, 1, {0: alone}, random.Random(1))
    assert picked != alone  # it saw the first car go there
    scored = second.scored(state, 1, {0: alone}, list(state.legal_targets(1, {0: alone})))
    assert scored.danger[scored.nodes.index(alone)] == 1.0


def test_under_later_out_only_the_cars_that_chose_earlier_can_put_a_car_out():
    track = track_from_charmap(FIELD, id="field")
    rules = preset("paper", {"collision": "later_out", "order": "fixed"})
    shared = make_shared()
    state = RaceState.start(track, rules, ["early", "late"], seed=0)
    state = placed(state, (0, Vec(5, 3), Vec(2, 0)), (1, Vec(8, 3), ZERO_VEC, 1))  # the later car stands still
    model = TrafficModel(shared, shared.table(state), state, {})
    assert Vec(8, 3) in model.options[0].nodes
    assert not model.danger(0, model.picks, model.weight(0)).any()  # the car standing there would be the one out
    model = TrafficModel(shared, shared.table(state), placed(state, (1, Vec(8, 3), ZERO_VEC, 0)), {0: Vec(8, 3)})
    late = model.danger(1, model.picks, model.weight(1))
    assert late[model.options[1].nodes.index(Vec(8, 3))] == 1.0  # staying put there now puts the later car out
    assert late.sum() == 1.0


def test_the_champion_looks_a_phase_ahead_where_rivals_will_still_stand():
    """Cars missing two turns stand on every best target of the champion's line the phase after next."""
    track = track_from_charmap(LANE, id="lane")
    shared, state, champion = rolling(track, preset("arcade"), 2, names=("champ", "b", "c", "d"))
    table = shared.table(state)
    first = champion.choose(replace(state, cars=state.cars[:1]), 0, {}, random.Random(0))
    options = TrafficModel(shared, table, replace(state, cars=state.cars[:1]), {}).options[0]
    n = options.nodes.index(first)
    here, velocity = table.where(options.succ[n])
    nxt = [(here + velocity + step, table.to_go(code)) for step, code, _ in table.successors(options.succ[n])]
    best = [node for node, d in nxt if d == min(d for _, d in nxt)]
    assert 1 <= len(best) <= 3
    state = placed(state, *[(1 + k, node, ZERO_VEC, 2) for k, node in enumerate(best)])
    model = TrafficModel(shared, table, replace(state, cars=state.cars[:1 + len(best)]), {})
    one, two = model.scores(0), model.scores(0, look_ahead=True)
    assert one[n] == options.value[n]  # nothing stands on this phase's targets
    assert two[n] > one[n]  # but the next phase's best targets are taken
    alone = TrafficModel(shared, table, replace(state, cars=state.cars[:1]), {})
    assert alone.second_phase(0, alone.picks) is None  # no rival near: the table's values hold


# -- choosing -------------------------------------------------------------------------------------

def test_two_champions_standing_on_the_same_node_split_up_instead_of_meeting_for_ever():
    track = builtin("classics/dogleg-dash")
    rules = preset("arcade")
    shared = make_shared()
    drivers = [make_driver("cpu:champion", shared=shared) for _ in range(2)]
    state = RaceState.start(track, rules, ["one", "two"], laps=1, seed=3)
    state = placed(state, (0, Vec(50, 9), ZERO_VEC), (1, Vec(50, 9), ZERO_VEC))  # where they met 2000 times
    meetings = 0
    for phase in range(6):
        choices = {car: drivers[car].choose(state, car, {}, random.Random(f"3/cpu/{car}/{phase}")) for car in (0, 1)}
        state, record = state.apply(choices)
        meetings += bool(record.collisions)
    assert meetings <= 2 and state.cars[0].position != state.cars[1].position


def test_the_race_from_the_issue_ends_with_both_champions_finishing_near_par(capsys):
    """racetrack sim --track classics/dogleg-dash --cars champion,pro,rookie x2 --rules arcade --laps 1 --seed 3."""
    track = builtin("classics/dogleg-dash")
    controller = cpu_race(track, preset("arcade"), SIX, seed=3)
    table = race_table(controller)
    assert controller.over and len(controller.records) < 80
    for car in (0, 3):
        start = controller.states[0].cars[car]
        par = table.distance(start.position, start.velocity, start.progress)
        assert controller.state.cars[car].status == "finished"
        assert controller.state.cars[car].moves <= par + 5  # (it was still racing after 2000 phases)


def test_a_cpu_retires_once_the_race_has_gone_on_for_four_times_the_slowest_par_and_forty_phases():
    track = builtin("starter/first-sprint")
    state = RaceState.start(track, preset("arcade"), ["a"], laps=1, seed=0)
    champion = make_driver("cpu:champion")
    table = champion.shared.table(state)
    par = max(table.solution(slot).par for slot in range(len(track.start_slots)))  # from the slowest start place
    limit = champion.shared.patience(state)
    assert limit == patience(par) == 4 * par + 40 and patience(None) > 1000
    assert champion.choose(replace(state, phase=limit - 1), 0, {}, random.Random(0)) != RETIRE
    assert champion.choose(replace(state, phase=limit), 0, {}, random.Random(0)) == RETIRE


@pytest.mark.parametrize("overrides", [
    {"collision": "spin"},  # ordered spin-outs (paper order: lot once)
    {"collision": "both_out"},
    {"collision": "later_out"},
    {"collision": "both_out", "order": "simultaneous"},
    {"collision": "later_out", "order": "simultaneous", "collide_in_motion": True},
    {"collision": "block", "order": "simultaneous"},
    {"collision": "block", "order": "fixed", "offroad_penalty": "setback"},
    {"collision": "block", "order": "fixed", "offroad_penalty": "setback", "blockers": "moved", "zero_move": False},
], ids=lambda o: "-".join(str(v) for v in o.values()))
def test_six_cpus_finish_a_sprint_under_every_collision_rule_and_the_champions_beat_the_rookies(overrides):
    track = builtin("starter/first-sprint")
    rules = preset("paper", overrides)
    result = TrafficResult()
    for seed in (1, 2):
        controller = cpu_race(track, rules, SIX, seed=seed)
        assert controller.over
        result.add("first-sprint", "x", controller, race_table(controller))
    assert result.champions_finished == result.champions == 4, result.rows
    assert result.ratio("cpu:rookie") >= 0.75, result.rows  # 6 of the 8 pairs (the field is tight at the start)


def test_a_handful_of_seeded_crowded_races_meets_the_traffic_targets():
    """Six cars (two of each level) under arcade, phases and paper rules on built-in tracks.

    The same counts as the benchmark's traffic table, on fewer races: every champion
    finishes, their median is within one move of par, and they rank ahead of the rookies
    and the pros as often as the targets say.
    """
    result = TrafficResult()
    for ref, name, seed in (("starter/first-sprint", "arcade", 0), ("starter/first-sprint", "arcade", 1),
                            ("starter/first-sprint", "phases", 2), ("classics/dogleg-dash", "arcade", 3),
                            ("starter/bean", "arcade", 1), ("starter/paper-oval", "paper", 0)):
        track = builtin(ref)
        rules = preset(name)
        controller = cpu_race(track, rules, SIX, seed=seed)
        result.add(ref, name, controller, race_table(controller))
    assert result.champions_finished == result.champions == 12
    assert result.median_over_par() <= TARGETS["median_over_par"]
    assert result.ratio("cpu:rookie") >= TARGETS["ahead_of_rookie"]
    assert result.ratio("cpu:pro") >= TARGETS["ahead_of_pro"]


def test_a_contested_best_target_is_drawn_for_and_an_uncontested_one_is_taken():
    from game.drivers.cpu import Scored, _draw_near_best

    nodes = (Vec(0, 0), Vec(1, 0), Vec(2, 0))
    scores = np.array([5.0, 5.2, 6.0])
    clear = Scored(nodes, scores, np.array([0.2, 0.0, 0.0]), np.array([0.2, 0.0, 0.0]))
    likely = Scored(nodes, scores, np.array([CONTESTED + 0.1, 0.0, 0.0]), np.array([0.4, 0.0, 0.0]))
    costly = Scored(nodes, scores, np.array([0.1, 0.0, 0.0]), np.array([CONTESTED_RISK + 0.5, 0.0, 0.0]))
    assert {_draw_near_best(clear, [0, 1, 2], random.Random(i), 0.25) for i in range(50)} == {Vec(0, 0)}
    for contested in (likely, costly):
        picks = [_draw_near_best(contested, [0, 1, 2], random.Random(i), 0.25) for i in range(200)]
        assert picks.count(Vec(0, 0)) > picks.count(Vec(1, 0)) > 20 and Vec(2, 0) in picks
