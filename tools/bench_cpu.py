"""Benchmark the solver and the CPU drivers; prints figures, asserts nothing.

Run from the checkout:  python tools/bench_cpu.py [--quick] [--tracks PACK/TRACK ...]

Per track (built-in tracks plus generated 60x40 and 200x120 circuits): par, the
Champion's moves alone, solver precompute time, decision time of the Champion
(median and 95th percentile, alone and in an 8-car field), and the time of the plain
breadth-first reference search (one referee call per move) on the same track in the
same run, as a ratio to the solver. The reference is stopped after --ref-states states
(the ratio is then a lower bound, printed with ">"). Then levels: mean moves of
Champion, Pro and Rookie racing alone over seeded races.

Then the doomed-target check's time per turn, and for a small sprint: par under every
exactly solved movement system (and none for fine and flick) with a race of the three
levels under every system. Times are wall clock, with the process's CPU time beside the
precompute (the machine may be shared).

Precompute is the median of --repeats builds (with their spread and CPU time); the
one-time load of the solver's compiled kernels is printed first, apart.

Targets: precompute <= 0.2 s at 60x40 and <= 1 s at 200x120; a decision <= 1 ms alone
and <= 20 ms at the 95th percentile in an 8-car field.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from game.core import CellRegion, Gate, RaceState, Track, Vec, preset  # noqa: E402
from game.drivers.cpu import make_driver, make_shared  # noqa: E402
from game.drivers.reference import reference_par  # noqa: E402
from game.drivers.solver import SolverTable  # noqa: E402


def ring_track(width: int, height: int, lane: int, track_id: str) -> Track:
    """A rectangular ring circuit with a chicane, finish on the top straight, driving right."""
    road = np.zeros((height, width), dtype=bool)
    road[1:height - 1, 1:width - 1] = True
    road[1 + lane:height - 1 - lane, 1 + lane:width - 1 - lane] = False
    mid = width // 2
    road[1:1 + lane // 2, mid + 4:mid + 7] = False  # a chicane on the top straight
    road[1 + lane - lane // 2:1 + lane, mid + 12:mid + 15] = False
    fx = mid - 10 + 0.5
    finish = Gate(0, a=(fx, 0.5), b=(fx, lane + 0.5), forward=(1.0, 0.0))
    checkpoint = Gate(1, a=(width - fx, height - 1 - lane - 0.5), b=(width - fx, height - 1.5), forward=(-1.0, 0.0))
    slots = tuple(Vec(int(fx - 0.5) - dx, 1 + y) for dx in range(0, 6, 2) for y in range(lane))[:8]
    return Track(id=track_id, name=track_id, region=CellRegion(road), start_slots=slots, finish=finish,
                 forward=(1.0, 0.0), checkpoints=(checkpoint,), default_laps=1)


SPRINT = """
XXXXXXXXXXXXXXXXXXXXXXXXX
XSOOOOOOOOOOOOOOOOOXXXXXX
XSOOOOOOOOOOOOOOOOOOXXXXX
XSOOOOOOOOOOOOOOOOOOOXXXX
XSOOOOOOOOOOOOOOOOOOOOXXX
XXXXXXXXXXXXXXXXXXXXOOXXX
XXXXXXXXXXXXXXXXXXXXOOXXX
XXXXXXXXXXXXXXXXXFFFFFXXX
XXXXXXXXXXXXXXXXXOOOOOXXX
XXXXXXXXXXXXXXXXXXXXXXXXX
"""


def report_kernels():
    """Load (or, first after an install, compile) the solver's numba kernels and say how long it took."""
    from game.drivers import kernels
    from game.tracks.charmap import track_from_charmap
    began = time.perf_counter()
    SolverTable(track_from_charmap(SPRINT, id="sprint"), preset("paper"), 1)
    seconds = time.perf_counter() - began
    compiled = sum(len(k.stats.cache_misses) for k in (kernels.expand_layer, kernels.distances, kernels.cell_rows))
    how = "compiled (first run after an install or a change)" if compiled else "loaded from numba's cache"
    print(f"solver kernels {how}: {seconds:.3f} s, once per process (not in the precompute figures below)",
          flush=True)


def pct(values, q):
    return float(np.percentile(values, q)) if values else float("nan")


def play(state, drivers, rng_key, phases, clock=time.perf_counter, timed=None):
    """``drivers`` choose for every car through up to ``phases`` phases; returns the last state.

    ``rng_key(car, state)`` seeds each choice; ``timed(car, seconds)`` is told how long each
    choice took on ``clock``.
    """
    for _ in range(phases):
        if state.over:
            break
        committed = {}
        for car in state.to_choose():
            if not state.legal_targets(car, committed):
                continue
            rng = random.Random(rng_key(car, state))
            began = clock()
            committed[car] = drivers[car].choose(state, car, committed, rng)
            if timed is not None:
                timed(car, clock() - began)
        state, _ = state.apply(committed)
    return state


def decision_times(track, rules, kinds, seed, max_phases=400):
    """Times of the Champion's choose() calls in a race of ``kinds`` (first car is the champion)."""
    shared = make_shared()
    drivers = [make_driver(k, shared=shared) for k in kinds]
    state = RaceState.start(track, rules, [f"c{i}" for i in range(len(kinds))], seed=seed)
    shared.table(state)  # precompute outside the timings
    times = []
    champion_moves = None
    state = play(state, drivers, lambda car, state: f"{seed}/{car}/{state.phase}", max_phases,
                 timed=lambda car, seconds: times.append(seconds) if car == 0 else None)
    if state.cars[0].status == "finished":
        champion_moves = state.cars[0].moves
    return times, champion_moves


def bench_track(label, track, rules, laps, ref_states, quick, repeats):
    walls, cpus = [], []
    for _ in range(repeats):  # the first build of a size also pays for fresh memory; report the spread
        began, cpu_began = time.perf_counter(), time.process_time()
        table = SolverTable(track, rules, laps)
        walls.append(time.perf_counter() - began)
        cpus.append(time.process_time() - cpu_began)
    precompute = statistics.median(walls)
    precompute_cpu = statistics.median(cpus)
    solution = table.solution()
    alone, champ_moves = decision_times(track, rules, ["cpu:champion"], 0)
    field = []
    if len(track.start_slots) >= 8:
        kinds = ["cpu:champion"] + ["cpu:pro", "cpu:rookie"] * 3 + ["cpu:pro"]
        field, _ = decision_times(track, rules, kinds, 1)
    ref = reference_par(track, rules, laps, max_states=ref_states)
    ratio = ref.seconds / precompute
    agree = "agrees" if ref.complete and ref.par == solution.par else ("stopped" if not ref.complete else "DIFFERS")
    print(f"{label:<28} {track.width:>3}x{track.height:<3} laps {laps}  par {solution.par!s:>4}  "
          f"champion {champ_moves!s:>4}  states {solution.states:>8}  precompute median {precompute:6.3f} s "
          f"of {repeats} (min {min(walls):.3f}, max {max(walls):.3f}; cpu {precompute_cpu:6.3f} s)  "
          f"decide alone med {1e3 * pct(alone, 50):6.3f} p95 {1e3 * pct(alone, 95):6.3f} ms  "
          f"8-car med {1e3 * pct(field, 50):6.3f} p95 {1e3 * pct(field, 95):6.3f} ms  "
          f"reference {ref.seconds:7.2f} s ({'>' if not ref.complete else ''}{ratio:.1f}x, {agree}; "
          f"at its {1e3 * ref.seconds / max(ref.states, 1):.2f} ms a state all {solution.states} states would take "
          f"~{ref.seconds / max(ref.states, 1) * solution.states:.0f} s)", flush=True)


def bench_systems(track, races_seed=0):
    """Par under every exactly solved movement system, and a race of each level under every system."""
    from game.drivers.solver import solve
    for movement, braking in (("nine", "normal"), ("cross", "normal"), ("scalar", "normal"), ("graded", "normal"),
                              ("nine", "hard"), ("cross", "hard"), ("fine", "normal"), ("flick", "normal")):
        rules = preset("paper").with_options(movement=movement, braking=braking)
        began = time.process_time()
        try:
            par = solve(track, rules, 1).par
        except Exception:  # fine and flick are not solved exactly
            par = "-"
        solve_s = time.process_time() - began
        shared = make_shared()
        kinds = ["cpu:champion", "cpu:pro", "cpu:rookie"]
        drivers = [make_driver(k, shared=shared) for k in kinds]
        state = RaceState.start(track, rules, kinds, seed=races_seed)
        times = []
        state = play(state, drivers, lambda car, state: f"{car}/{state.phase}", 300, clock=time.process_time,
                     timed=lambda car, seconds: times.append(seconds))
        moves = [c.moves if c.status == "finished" else None for c in state.cars]
        print(f"system {movement:<6} braking {braking:<6} on {track.id}: par {par!s:>3} (solve cpu {solve_s:5.2f} s)  "
              f"champion/pro/rookie moves {moves}  decision p95 {1e3 * pct(times, 95):7.2f} ms", flush=True)


def bench_doomed(track, rules, turns=200):
    """Time of the doomed-target check (safety.py) over the turns of a champion's race."""
    from game.drivers.safety import SafetyOracle, doomed_targets
    oracle = SafetyOracle(track, rules)
    driver = make_driver("cpu:champion")
    state = RaceState.start(track, rules, ["a"], seed=0)
    times = []
    for phase in range(turns):
        if state.over:
            break
        began = time.perf_counter()
        doomed_targets(state, 0, {}, oracle)
        times.append(time.perf_counter() - began)
        state, _ = state.apply({0: driver.choose(state, 0, {}, random.Random(phase))})
    print(f"doomed-target check on {track.id}: median {1e3 * pct(times, 50):.2f} ms, p95 {1e3 * pct(times, 95):.2f} ms "
          f"over {len(times)} turns", flush=True)


def bench_levels(track, rules, races):
    totals = {k: [] for k in ("cpu:champion", "cpu:pro", "cpu:rookie")}
    for seed in range(races):
        for kind in totals:
            shared = make_shared()
            driver = make_driver(kind, shared=shared)
            state = RaceState.start(track, rules, ["solo"], seed=seed)
            state = play(state, [driver], lambda car, state: f"{seed}/{state.phase}", 1000)
            totals[kind].append(state.cars[0].moves if state.cars[0].status == "finished" else None)
    parts = []
    for kind, moves in totals.items():
        done = [m for m in moves if m is not None]
        parts.append(f"{kind} mean {statistics.mean(done):.1f} ({len(done)}/{len(moves)} finished)")
    print(f"levels on {track.id} over {races} seeded races: " + ", ".join(parts), flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="generated tracks only")
    parser.add_argument("--tracks", nargs="*", default=None, help="built-in track references to include")
    parser.add_argument("--ref-states", type=int, default=20_000, help="cap on the reference search")
    parser.add_argument("--races", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3, help="precompute runs per track (median reported)")
    args = parser.parse_args(argv)
    rules = preset("paper")
    report_kernels()
    tracks = [("generated 60x40", ring_track(60, 40, 7, "ring-60x40")),
              ("generated 200x120", ring_track(200, 120, 10, "ring-200x120"))]
    if not args.quick:
        from game.paths import builtin_tracks_dir
        from game.tracks.pack import load_packs
        refs = args.tracks
        for result in load_packs([builtin_tracks_dir()]):
            for track in result.tracks if result.pack else []:
                ref = f"{result.pack.id}/{track.id}"
                if refs is None or ref in refs:
                    tracks.append((ref, track))
    for label, track in tracks:
        try:
            bench_track(label, track, preset(track.default_rules) if label.startswith(("gen",)) is False else rules,
                        track.default_laps, args.ref_states, args.quick, args.repeats)
        except Exception as error:  # keep benchmarking the other tracks
            print(f"{label:<28} failed: {error!r}", flush=True)
    bench_levels(tracks[0][1], rules, args.races)
    bench_doomed(tracks[0][1], rules)
    from game.tracks.charmap import track_from_charmap
    sprint = track_from_charmap(SPRINT, id="sprint")
    bench_systems(sprint)
    return 0


if __name__ == "__main__":
    sys.exit(main())
