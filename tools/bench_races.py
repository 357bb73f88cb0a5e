"""Long evenings: does one process's memory stay flat over many CPU races?

How to run (from the checkout)::

    python tools/bench_races.py                      # 200 races on Paper Oval, 3 CPUs
    python tools/bench_races.py --races 50 --track starter/bean --laps 2
    python tools/bench_races.py --python-heap        # also the Python heap (tracemalloc, slower)
    python tools/bench_races.py --draw               # each race on the race screen, drawn (dummy video)
    python tools/bench_races.py --collector off      # without the frame loop's garbage-collector policy

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

With ``--draw`` every race is also played on the race screen as the menus start one
(``RaceScene`` with the timing tower and the plan note as layers, one text cache for the
evening as the game keeps), updated and drawn at ``--fps`` frames a second of race time
on SDL's dummy video driver (no window; the drawing is real) until the results show: the
screen's caches (text, paper tiles, the HUD, the podium) are measured with the race.

The garbage collector runs as the game's frame loop runs it (``--collector game``, the
default: ``presentation.collector.CollectorPolicy``, started before the first race, with a
calm point where the game changes screens: a race's start and its results; what was alive
after the first race is frozen, as the game freezes its start-up loading), or as Python
runs it alone (``--collector off``). A race's garbage kept frozen would show as growth here.
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


def play_drawn(track, rules, kinds, laps, seed, shared, crash_log, screen, fps: float) -> int:
    """One race on the race screen, drawn to ``screen`` (dummy video) until its results show; returns its phases.

    ``screen`` is ``(surface, text cache)``, kept for the evening as the game keeps its window and fonts.
    """
    from game.core import RaceState
    from game.drivers.cpu import make_driver
    from game.presentation.race_scene import RaceScene, RaceSettings
    from game.race.controller import RaceController, Seat
    from game.race.planner import Planner

    surface, text = screen
    names = [f"{k.split(':')[-1]} {i + 1}" for i, k in enumerate(kinds)]
    state = RaceState.start(track, rules, names, laps=laps, seed=seed)
    planner = Planner(keep_racing=True, crash_log=crash_log) if crash_log is not None else Planner(keep_racing=True)
    controller = RaceController(state, [Seat(n, make_driver(k, shared=shared)) for n, k in zip(names, kinds)],
                                planner=planner, seed=seed)
    scene = RaceScene(controller, surface.get_size(), text=text, settings=RaceSettings(intro=False),
                      layers=_layers(shared, rules))
    dt, after = 1.0 / fps, 0
    for _ in range(200_000):  # a frame cap (about 2 hours of race time at 30 frames a second)
        scene.update(dt)
        scene.draw(surface)
        if controller.over:
            after += 1
            if after > 2 * fps:  # two seconds of the results (the podium) drawn too
                break
        time.sleep(0.0005)  # a frame's worth of waiting for the planner thread
    controller.close()
    planner.join(5)
    return len(controller.records)


def _layers(shared, rules) -> tuple:
    """The menus' race layers: the timing tower (where the solver plays the rules) and the plan note."""
    from game.drivers.solver import supports

    if not supports(rules):
        return ()
    from game.presentation.tower import TimingTower

    layers = [TimingTower(shared.table)]
    try:  # an older checkout has no plan note
        from game.presentation.plan_note import PlanNote
        layers.append(PlanNote(shared.plan))
    except ImportError:
        pass
    return tuple(layers)


def open_screen(size: tuple[int, int]):
    """A window on SDL's dummy video driver and one text cache, as the game opens them once."""
    import os

    os.environ["SDL_VIDEODRIVER"] = "dummy"
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    from game.presentation.text import TextCache

    pygame.display.init()
    pygame.font.init()
    return pygame.display.set_mode(size), TextCache()


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
    parser.add_argument("--draw", action="store_true", help="play each race on the race screen, drawn (dummy video)")
    parser.add_argument("--size", default="960x540", help="with --draw: the window's size (default 960x540)")
    parser.add_argument("--collector", choices=("game", "off"), default="game",
                        help="the frame loop's garbage-collector policy, or Python's own (default: game)")
    parser.add_argument("--fps", type=float, default=15.0,
                        help="with --draw: frames per second of race time (default 15)")
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
    screen = open_screen(tuple(int(v) for v in args.size.split("x"))) if args.draw else None
    xs, rss, heap = [], [], []
    policy = None
    if args.collector == "game":
        try:
            from game.presentation.collector import CollectorPolicy
        except ImportError:  # an older checkout has none
            CollectorPolicy = None
        if CollectorPolicy is not None:  # the first race loads the kernels and fills the tables: then settled
            policy = CollectorPolicy(settled=lambda: len(xs) >= 1)
            policy.start()
    began = time.perf_counter()
    drawn = f", drawn at {args.size}" if args.draw else ""
    managed = "the game's collector policy" if policy is not None else "Python's own collector"
    print(f"{args.races} races on {track.id} ({args.laps} lap(s), {', '.join(kinds)}{drawn}, {managed}); "
          "memory after each race:")
    for race in range(args.races):
        if policy is not None:
            policy.frame(screen_changed=True)  # the race screen comes in
        if screen is not None:
            phases = play_drawn(track, rules, kinds, args.laps, race, shared, crash_log, screen, args.fps)
        else:
            phases = play(track, rules, kinds, args.laps, race, shared, crash_log)
        if policy is not None:
            policy.frame(screen_changed=True)  # the results come in
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
          + f"  (goal: under 0.1 MB); {time.perf_counter() - began:.0f} s"
          + (f"; objects frozen {gc.get_freeze_count()}" if policy is not None else ""))
    if policy is not None:
        policy.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
