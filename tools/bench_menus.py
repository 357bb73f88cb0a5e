"""Benchmark: the first frames of the menu screens (a screen's first frame builds what it caches).

How to run (headless, prints a table)::

    python tools/bench_menus.py                                # 1920x1080 at text sizes 1.0 and 1.5
    python tools/bench_menus.py --sizes 1280x720 --scales 1.25 --repeat 3

The way a couch goes into a race: the title, then the lobby, track select (with a keyboard
player and a CPU seated), and the rules screen, pushed one over the other as the game does
(the built-in packs read and the screens' modules imported first, as at start-up while the
title shows). For each screen it prints the first frame and the next (``update`` + drawing
the stack, on the dummy video driver: what the frame loop does; the first frame also makes
the screen, as the press that opens it does in the game), in wall-clock and CPU milliseconds
(the frame loop's thread's own: the workers drawing previews and working out pars run on the
other core meanwhile). Goal: no frame over 50 ms. The machine may be
busy with other work: a wall-clock figure far above its CPU figure is waiting, not drawing.
With ``--repeat`` each figure is the median of that many fresh runs (a new context each:
the caches start empty, as at a start of the game).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SCREENS = ("title", "lobby", "tracks", "rules")


def one_run(size: tuple[int, int], scale: float) -> dict[str, list[tuple[float, float]]]:
    """screen -> [(wall ms, CPU ms) of its first frame, of its second]."""
    import pygame

    from game import paths
    from game.presentation.menus import build_context, build_title_scene
    try:
        from game.presentation.menus.screens import ImportAhead
    except ImportError:  # (an older tree, measured for comparison)
        ImportAhead = None
    from game.presentation.menus.seats import SeatTable
    from game.presentation.scene import SceneStack

    surface = pygame.display.set_mode(size)
    ctx = build_context(Path(tempfile.mkdtemp()) / "config", None, paths.builtin_tracks_dir(), seed=1)
    ctx.size = size
    ctx.settings.scale = scale
    ctx.catalogue.start().wait(300)
    if ImportAhead is not None:  # as the game does while the title shows (a tree from before it: none)
        ImportAhead(ctx.screens.modules()).start().wait(300)
    stack = SceneStack()
    figures: dict[str, list[tuple[float, float]]] = {}

    def frames(name: str, opening=None) -> None:
        for _ in range(2):
            wall, cpu = time.perf_counter(), time.thread_time()
            if opening is not None:  # the press that opens the screen: the scene is made in the frame
                opening()
                opening = None
            stack.top.update(1 / 60)
            stack.draw(surface)
            figures.setdefault(name, []).append(((time.perf_counter() - wall) * 1000,
                                                 (time.thread_time() - cpu) * 1000))

    frames("title", lambda: stack.push(build_title_scene(ctx)))
    frames("lobby", lambda: ctx.screens.push(stack, "lobby", ctx))
    table = SeatTable()
    table.join("kb1")
    table.add_cpu()
    frames("tracks", lambda: ctx.screens.push(stack, "tracks", ctx, table.lineup()))
    frames("rules", lambda: ctx.screens.push(stack, "rules", ctx, table.lineup(), stack.top.entry, None))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1920x1080", help="window sizes, comma-separated (default 1920x1080)")
    parser.add_argument("--scales", default="1.0,1.5", help="text sizes, comma-separated (default 1.0,1.5)")
    parser.add_argument("--repeat", type=int, default=1, help="fresh runs per figure (default 1)")
    args = parser.parse_args()
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    from game.presentation.app import init_pygame

    init_pygame(headless=True)
    print(f"{'size':>10} {'text':>5} {'screen':8} {'1st wall':>9} {'1st cpu':>8} {'2nd wall':>9} {'2nd cpu':>8}  (ms)")
    worst = 0.0
    for spec in args.sizes.split(","):
        size = tuple(int(v) for v in spec.lower().split("x"))
        for scale in (float(s) for s in args.scales.split(",")):
            runs = [one_run(size, scale) for _ in range(max(1, args.repeat))]
            for name in SCREENS:
                cols = [statistics.median(run[name][k][m] for run in runs) for k in (0, 1) for m in (0, 1)]
                worst = max(worst, cols[1], cols[3])
                print(f"{spec:>10} {scale:>5g} {name:8} {cols[0]:>9.1f} {cols[1]:>8.1f} {cols[2]:>9.1f} "
                      f"{cols[3]:>8.1f}", flush=True)
    print(f"slowest menu frame: {worst:.1f} ms of CPU (goal: none over 50 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
