"""Long evenings: does one process's memory stay flat over many CPU races?

How to run (from the checkout)::

    python tools/bench_races.py                      # 200 races on Paper Oval, 3 CPUs
    python tools/bench_races.py --races 50 --track starter/bean --laps 2
    python tools/bench_races.py --python-heap        # also the Python heap (tracemalloc, slower)

An older checkout is measured with its own copy of this file (``python OLD/tools/bench_races.py``).

Every race is played as the game plays one: the CPUs share one set of tables for the
whole evening (``make_shared``), each race has its own background planner
(``Planner(keep_racing=True)``, closed when the race is over) and a new seed. After each
race the garbage is collected and the resident memory read (``/proc/self/status``).
The figure to watch is the growth per race over the second half of the evening (the
first races fill the caches the game keeps: tables, traffic models, compiled kernels);
the goal is under 0.1 MB a race. Also printed: threads alive, and with
``--python-heap`` the Python heap (so a growth can be told apart: Python objects, or
native memory).
"""

from __future__ import annotations

import argparse
import gc
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


def rss_mb() -> float:
    """This process's resident memory now (MB)."""
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def play(track, rules, kinds, laps, seed, shared, crash_log) -> int:
    """One race as the game runs it; returns its phases."""
    from game.core import RaceState
    from game.drivers.cpu import make_driver
    from game.race.controller import RaceController, Seat
    from game.race.planner import Planner

    names = [f"{k.split(':')[-1]} {i + 1}" for i, k in enumerate(kinds)]
    state = RaceState.start(track, rules, names, laps=laps, seed=seed)
    planner = Planner(keep_racing=True, crash_log=crash_log) if crash_log is not None else Planner(keep_racing=True)
    controller = RaceController(state, [Seat(n, make_driver(k, shared=shared)) for n, k in zip(names, kinds)],
                                planner=planner, seed=seed)
    while not controller.over and len(controller.records) < 2000:
        controller.tick()
        time.sleep(0.0005)  # a frame's worth of waiting for the planner thread
    controller.close()
    planner.join(5)
    return len(controller.records)


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares growth of ys per unit of xs."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--races", type=int, default=200)
    parser.add_argument("--track", default="starter/paper-oval")
    parser.add_argument("--laps", type=int, default=1)
    parser.add_argument("--cars", default="cpu:champion,cpu:pro,cpu:rookie")
    parser.add_argument("--python-heap", action="store_true", help="also trace the Python heap (tracemalloc)")
    args = parser.parse_args(argv)

    from game.core.rules import preset
    from game.drivers.cpu import make_shared
    from game.drivers.solver import Solver
    from game.paths import builtin_tracks_dir
    from game.tracks.pack import load_track_ref

    if args.python_heap:
        import tracemalloc
        tracemalloc.start()
    track = load_track_ref(args.track, builtin_dir=builtin_tracks_dir())
    rules = preset(track.default_rules)
    kinds = [k.strip() for k in args.cars.split(",") if k.strip()]
    shared = make_shared(Solver())
    try:  # one set of crash logs for the evening, as the game keeps (an older checkout has none)
        from game.crashlog import CrashLogs
        crash_log = CrashLogs()
    except ImportError:
        crash_log = None
    xs, rss, heap = [], [], []
    began = time.perf_counter()
    print(f"{args.races} races on {track.id} ({args.laps} lap(s), {', '.join(kinds)}); memory after each race:")
    for race in range(args.races):
        phases = play(track, rules, kinds, args.laps, race, shared, crash_log)
        gc.collect()
        xs.append(race + 1)
        rss.append(rss_mb())
        if args.python_heap:
            heap.append(tracemalloc.get_traced_memory()[0] / 1024 ** 2)
        if (race + 1) % max(1, args.races // 10) == 0 or race == 0:
            extra = f", Python heap {heap[-1]:7.1f} MB" if heap else ""
            print(f"  race {race + 1:4d}: {phases:4d} phases, resident {rss[-1]:7.1f} MB, "
                  f"threads {threading.active_count()}{extra}", flush=True)
    half = len(xs) // 2
    print(f"growth per race over the second half: {slope(xs[half:], rss[half:]):.3f} MB resident"
          + (f", {slope(xs[half:], heap[half:]):.3f} MB Python heap" if heap else "")
          + f"  (goal: under 0.1 MB); {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
