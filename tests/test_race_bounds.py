"""Every CPU race ends, whatever the laps, the track and the solver's memory budget; failures logged once."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core import RaceState, preset
from game.crashlog import CrashLogs
from game.drivers.cpu import make_driver, make_shared
from game.drivers.solver import FoldedTable, Solver, SolverBudgetError
from game.race.controller import RaceController, Seat
from game.race.planner import Planner
from game.tracks.charmap import track_from_charmap

from tests.test_cpu_drivers import SPRINT
from tests.test_solver import DOGLEG, OVAL

TRACKS = {"oval": OVAL, "dogleg": DOGLEG, "sprint": SPRINT}


def run_race(track, rules, kinds, laps, budget, seed=0, limit=20_000):
    """A CPU race to its end (or ``limit`` phases); returns (controller, shared tables)."""
    shared = make_shared(Solver(memory_budget=budget))
    names = [f"{k} {i}" for i, k in enumerate(kinds)]
    state = RaceState.start(track, rules, names, laps=laps, seed=seed)
    controller = RaceController(state, [Seat(n, make_driver(k, shared=shared)) for n, k in zip(names, kinds)],
                                seed=seed)
    while not controller.over and len(controller.records) < limit:
        controller.tick()
    return controller, shared


def exact_moves(track, rules, laps):
    """What a lone Champion takes with every byte it wants."""
    controller, _ = run_race(track, rules, ["cpu:champion"], laps, budget=None)
    return controller.state.cars[0].moves


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(TRACKS)), laps=st.integers(1, 12),
       budget=st.sampled_from([2 ** 10, 2 ** 16, 2 ** 19, 2 ** 21, 2 ** 23, None]),
       kinds=st.lists(st.sampled_from(["cpu:champion", "cpu:pro", "cpu:rookie"]), min_size=1, max_size=2),
       rules_name=st.sampled_from(["paper", "karopapier", "arcade"]), seed=st.integers(0, 2 ** 16))
def test_every_cpu_race_ends_within_the_retire_limit_whatever_the_memory_budget(name, laps, budget, kinds,
                                                                                 rules_name, seed):
    track = track_from_charmap(TRACKS[name], id=name)
    laps = laps if track.meta.get("circuit") else 1
    rules = preset(rules_name)
    controller, shared = run_race(track, rules, kinds, laps, budget, seed)
    limit = shared.patience(controller.states[0])
    assert controller.over  # no CPU froze on the grid, none raised
    assert len(controller.records) <= limit + 1
    assert all(c.status != "racing" for c in controller.state.cars)


def test_a_long_race_over_the_budget_is_raced_on_a_folded_table_at_the_exact_pace():
    track = track_from_charmap(OVAL, id="oval")
    rules = preset("paper")
    solver = Solver()
    per_lap = solver.table(track, rules, 1).nbytes
    exact = exact_moves(track, rules, 8)
    budget = None
    for budget in (2 ** k for k in range(12, 30)):  # the smallest budget that refuses 8 laps but holds 3
        try:
            Solver(memory_budget=budget).table(track, rules, 3)
        except SolverBudgetError:
            continue
        break
    with pytest.raises(SolverBudgetError):
        Solver(memory_budget=budget).table(track, rules, 8)
    controller, shared = run_race(track, rules, ["cpu:champion"], 8, budget)
    assert isinstance(shared.table(controller.states[0]), FoldedTable)
    assert shared.notes and "exact table of 3" in shared.notes[0]
    car = controller.state.cars[0]
    assert car.status == "finished"
    assert car.moves <= exact + 2, (car.moves, exact)
    assert per_lap > 0


def test_with_no_table_inside_the_budget_the_cpus_drive_the_route_heuristic_to_the_finish():
    track = track_from_charmap(OVAL, id="oval")
    controller, shared = run_race(track, preset("paper"), ["cpu:champion", "cpu:rookie"], 4, budget=1024)
    assert shared.table(controller.states[0]) is None
    assert any("route heuristic" in note for note in shared.notes)
    assert [c.status for c in controller.state.cars] == ["finished", "finished"]


def test_a_refused_table_is_refused_again_at_once_without_a_second_estimate():
    track = track_from_charmap(OVAL, id="oval")
    solver = Solver(memory_budget=1024)
    with pytest.raises(SolverBudgetError) as first:
        solver.table(track, preset("paper"), 5)
    with pytest.raises(SolverBudgetError) as again:
        solver.table(track, preset("paper"), 5)
    assert again.value is first.value


class Broken:
    """A CPU with a bug: raises on every choice."""

    kind = "cpu:broken"
    is_human = False

    def choose(self, state, car, committed, rng):
        raise ZeroDivisionError("a bug")


def test_a_cpu_failing_every_phase_for_every_car_writes_one_crash_log_for_the_game():
    written = []
    logs = CrashLogs(write=lambda error, context: written.append(context) or f"/tmp/log{len(written)}")
    track = track_from_charmap(OVAL, id="oval")
    for race in range(2):  # two races in one game: still one log
        state = RaceState.start(track, preset("paper"), ["a", "b", "c"], laps=1, seed=race)
        planner = Planner(keep_racing=True, crash_log=logs)
        controller = RaceController(state, [Seat(n, Broken()) for n in ("a", "b", "c")], planner=planner, seed=race)
        deadline = time.monotonic() + 30
        while len(controller.records) < 10 and time.monotonic() < deadline:
            controller.tick()
            time.sleep(0.001)
        controller.close()
        assert len(controller.records) >= 10  # the race went on
        assert len(planner.errors) == 1 and "/tmp/log1" in planner.errors[0]
        assert planner.repeats >= 29
    assert len(written) == 1 and logs.written == 1
