"""Frames of a whole evening's start: the worst frame, and the garbage collector's passes that fell in frames.

How to run (from the checkout; headless, a few minutes on a busy machine)::

    python tools/bench_frames.py                     # the game's collector policy, then none, in two processes
    python tools/bench_frames.py --collector game    # one walk, in this process
    python tools/bench_frames.py --collector off     # the frame loop leaves the collector alone
    python tools/bench_frames.py --size 1920x1080 --cpus 8 --track grand-prix/serpentine

The game is started as ``racetrack`` starts it (``menus.prepare_game``: the window on SDL's
dummy video driver, the CPUs' kernels, the built-in pack catalogue, the phones' link, the
title screen), and played as a couch plays it, one ``App.step`` a frame with the frame's
time passed in (1/60 s, whatever the machine's speed): the title until the packs are read
and the kernels loaded, the lobby (``--cpus`` CPUs seated, one a frame), track select
scrolled over every built-in track (a press every few frames, the previews and pars as
the screen paints them), the rules screen, the race on ``--track`` until the results
show, and the results.

Printed: for each screen the frames, the worst frame and its CPU time; for the whole
walk the worst frame, the 99th percentile, the frames over 50 ms; the collector's passes
(from ``gc.callbacks``) by generation: how many fell inside a frame, the longest and
their total; the objects the collector tracks and how many are frozen. With no
``--collector`` both runs are made, each in a fresh process, and printed one after the other.

Wall-clock times depend on the machine's load: a frame's CPU time (the main thread's) is
printed beside it, and a collector pass is timed as wall time inside the frame.
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FRAME_LIMIT_MS = 50.0


class Passes:
    """The collector's passes, timed through ``gc.callbacks``, each noted with the frame it fell in (or None).

    A pass holds the interpreter's lock, so one that another thread starts (a CPU planner, the
    pack reader) between two frames holds up the next one: it counts as that frame's.
    """

    def __init__(self) -> None:
        self.frame: int | None = None  # the frame being made or next to be made; None before the first
        self.passes: list[dict] = []  # generation, ms (wall), cpu (ms, the collecting thread's), frame, calm, collected
        self._began = (0.0, 0.0)
        self.policy = None  # the app's CollectorPolicy, whose calm points are told apart

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._began = (time.perf_counter(), time.thread_time())
        else:
            self.passes.append({"generation": info["generation"], "frame": self.frame,
                                "ms": (time.perf_counter() - self._began[0]) * 1000,
                                "cpu": (time.thread_time() - self._began[1]) * 1000,
                                "calm": self.policy is not None and self.policy.calming,
                                "collected": info["collected"]})

    def install(self) -> None:
        gc.callbacks.append(self)

    def remove(self) -> None:
        gc.callbacks.remove(self)


def walk(size: tuple[int, int], collector: str, cpus: int, track: str, per_entry: int) -> dict:
    """Play the menus and a race headless; returns the figures (see the module's docstring)."""
    os.environ["SDL_VIDEODRIVER"] = "dummy"
    os.environ["SDL_AUDIODRIVER"] = "dummy"
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    sys.path.insert(0, str(ROOT))
    from game import paths
    from game.commands.play import cpu_kernels
    from game.presentation.input import Select
    from game.presentation.menus import prepare_game

    home = Path(tempfile.mkdtemp(prefix="bench-frames-"))
    kernels = cpu_kernels()
    app, ctx = prepare_game(home / "config", home / "data" / "packs", paths.builtin_tracks_dir(), paths.assets_dir(),
                            headless=True, size=size, kernels=kernels, collector=collector == "game")
    if app.collector is not None:
        app.collector.start()  # as App.run does before the first frame
    ctx.settings.tutorial_done = True
    passes = Passes()
    passes.policy = app.collector
    passes.install()
    dt = 1 / 60
    began = time.monotonic()
    frames: list[tuple[str, float, float]] = []  # (screen, wall ms, CPU ms)

    def frame(act=None) -> None:
        passes.frame = len(frames)
        wall, cpu = time.perf_counter(), time.thread_time()
        if act is not None:
            act()
        app.step(dt, events=[])
        frames.append((type(app.stack.top).__name__ if app.stack.top is not None else "-",
                       (time.perf_counter() - wall) * 1000, (time.thread_time() - cpu) * 1000))
        passes.frame = len(frames)
        time.sleep(0.001)  # what the frame loop's clock gives the other threads

    def note(what: str) -> None:
        print(f"  [{time.monotonic() - began:5.0f} s, frame {len(frames)}] {what}", file=sys.stderr, flush=True)

    def until(done, most: int) -> None:
        for _ in range(most):
            if done():
                return
            frame()

    until(lambda: ctx.catalogue.ready and kernels.status.stage in ("ready", "failed"), 60 * 600)
    until(lambda: False, 60)
    note("packs read, kernels loaded: to the lobby")
    title = app.stack.top
    frame(title.play)  # the "Race" row: keyboard 1 joins, and leaves again for the CPUs
    lobby = app.stack.top
    frame(lambda: lobby.table.leave("kb1"))
    for _ in range(cpus):
        frame(lobby.table.add_cpu)
    until(lambda: False, 30)
    frame(lobby.start)
    select = app.stack.top
    note("track select")
    until(lambda: not select.loading, 60 * 600)
    builtin = [e for e in select.entries if e.track is not None and not e.ref.startswith("gen:")]
    for _ in range(len(select.entries)):
        frame(lambda: select.handle(Select("keys", 0, 1)))
        until(lambda: False, per_entry - 1)
    frame(lambda: select.choose(next(e for e in select.entries if e.ref == track)))
    rules = app.stack.top
    until(lambda: False, 30)
    frame(rules.done)
    race = app.stack.top
    note("the race")
    tracked_race = len(gc.get_objects())
    race_frames = len(frames)
    until(lambda: app.stack.top is not race and type(app.stack.top).__name__ != "PauseMenuScene", 60 * 60 * 30)
    race_frames = len(frames) - race_frames
    until(lambda: False, 120)
    passes.remove()
    figures = {"collector": collector, "frames": frames, "passes": passes.passes, "tracks": len(builtin),
               "race_frames": race_frames, "tracked_at_race": tracked_race, "tracked": len(gc.get_objects()),
               "frozen": gc.get_freeze_count(), "ended_on": type(app.stack.top).__name__}
    ctx.close()
    kernels.close()
    return figures


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))] if ordered else 0.0


def report(figures: dict) -> None:
    frames, passes = figures["frames"], figures["passes"]
    print(f"collector policy: {figures['collector']}; {len(frames)} frames, {figures['tracks']} built-in tracks "
          f"scrolled past, a race of {figures['race_frames']} frames, ended on {figures['ended_on']}")
    screens: dict[str, list[tuple[float, float]]] = {}
    for name, wall, cpu in frames:
        screens.setdefault(name, []).append((wall, cpu))
    for name, values in screens.items():
        worst = max(values)
        print(f"  {name:22s} {len(values):6d} frames, worst {worst[0]:6.1f} ms (CPU {worst[1]:6.1f} ms), "
              f"99th percentile {percentile([w for w, _ in values], 0.99):6.1f} ms")
    walls = [w for _, w, _ in frames]
    cpus = [c for _, _, c in frames]
    over = sum(w > FRAME_LIMIT_MS for w in walls)
    print(f"  all frames: worst {max(walls):.1f} ms (worst CPU {max(cpus):.1f} ms), 99th percentile "
          f"{percentile(walls, 0.99):.1f} ms, over {FRAME_LIMIT_MS:.0f} ms: {over} "
          f"(CPU over {FRAME_LIMIT_MS:.0f} ms: {sum(c > FRAME_LIMIT_MS for c in cpus)})")
    slow, seen = [], {}
    for name, wall, cpu in frames:
        seen[name] = seen.get(name, 0) + 1
        if cpu > FRAME_LIMIT_MS:
            slow.append(f"{name} frame {seen[name]} ({cpu:.0f} ms)")
    if slow:
        print(f"  frames over {FRAME_LIMIT_MS:.0f} ms of CPU: {', '.join(slow)}")
    calm = [p for p in passes if p["calm"]]
    if calm:
        print(f"  full passes at screen changes (the policy's calm points, after the flip): {len(calm)}, "
              f"longest {max(p['ms'] for p in calm):.1f} ms (CPU {max(p['cpu'] for p in calm):.1f} ms), "
              f"total {sum(p['ms'] for p in calm):.0f} ms, {sum(p['collected'] for p in calm)} objects freed")
    for generation in (0, 1, 2):
        mine = [p for p in passes if p["generation"] == generation and not p["calm"]]
        inside = [p for p in mine if p["frame"] is not None]
        print(f"  gen-{generation} passes{' (the rest)' if calm else ''}: {len(mine)}, {len(inside)} in frames"
              + (f", longest in a frame {max(p['ms'] for p in inside):.1f} ms "
                 f"(CPU {max(p['cpu'] for p in inside):.1f} ms), total in frames {sum(p['ms'] for p in inside):.0f} ms"
                 if inside else "")
              + (f", before the first frame {sum(p['frame'] is None for p in mine)}" if mine else ""))
    print(f"  objects tracked: {figures['tracked_at_race']} at the race's start, {figures['tracked']} at the end; "
          f"frozen at the end: {figures['frozen']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collector", choices=("game", "off"), help="one walk in this process with this policy")
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--cpus", type=int, default=8, help="CPUs in the race (default 8)")
    parser.add_argument("--track", default="grand-prix/serpentine")
    parser.add_argument("--per-entry", type=int, default=4, help="frames on each track in track select (default 4)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.collector is None:
        for collector in ("game", "off"):
            done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--collector", collector,
                                   "--size", args.size, "--cpus", str(args.cpus), "--track", args.track,
                                   "--per-entry", str(args.per_entry)], cwd=str(ROOT))
            if done.returncode:
                return done.returncode
        return 0
    size = tuple(int(v) for v in args.size.split("x"))
    report(walk(size, args.collector, args.cpus, args.track, args.per_entry))
    return 0


if __name__ == "__main__":
    sys.exit(main())
