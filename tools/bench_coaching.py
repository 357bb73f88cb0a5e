"""Benchmark: frame cost of the coaching layer while a player chooses (tinted rings, stopping distance).

How to run (headless, prints a table)::

    python tools/bench_coaching.py                        # the demo oval, 1920x1080 and 1280x720
    python tools/bench_coaching.py --frames 600 --repeat 3 --sizes 1920x1080

Set-up: one human car on the demo oval (paper rules) drives a few of the best moves so it
has speed, then the race screen sits in its choosing mode, its rings shown, for
``--frames`` frames of ``update(1/60)`` + ``draw``, without the coaching layer and with it
(its table and the turn's grades ready beforehand, as after the first moment of a turn),
taking turns ``--repeat`` times. Printed per size: the median and slowest frame of each,
and the median with coaching as a ratio of the median without (target: no frame over
16 ms; the layer draws circles and a dotted line, it searches nothing).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _scene(size, layer, table):
    from game.core.race import RaceState
    from game.core.rules import preset
    from game.drivers.base import HumanDriver
    from game.presentation.demo_track import demo_track
    from game.presentation.race_scene import RaceScene, RaceSettings
    from game.presentation.scene import SceneStack
    from game.race.coaching import target_values
    from game.race.controller import RaceController, Seat

    state = RaceState.start(demo_track(), preset("paper"), ["Ada"], laps=1, seed=1)
    for _ in range(3):  # a few best moves: the car has speed, the stopping distance shows
        values = target_values(table, state, 0, state.legal_targets(0))
        best = min(v for v in values.values() if v is not None)
        state, _ = state.apply({0: max((n for n, v in values.items() if v == best),
                                       key=lambda n: abs(n.x - state.cars[0].position.x))})
    ctl = RaceController(state, [Seat("Ada", HumanDriver())])
    scene = RaceScene(ctl, size, settings=RaceSettings(intro=False, camera_drift=False, show_doomed=False),
                      layers=(layer,) if layer is not None else ())
    SceneStack().push(scene)
    return scene


def run(size, coached: bool, table, frames: int) -> list[float]:
    import pygame

    from game.presentation.coaching import CoachingLayer

    layer = CoachingLayer(lambda s: table, {0}) if coached else None
    scene = _scene(size, layer, table)
    surface = pygame.display.set_mode(size)
    for _ in range(200):  # settle: the table and grades ready, the camera where it stays
        scene.update(1 / 60)
        if layer is not None:
            for job in (layer._table_job, layer._job):
                if job is not None:
                    job.wait(60)
        if layer is None or layer.grades_for(scene.controller.state.phase, 0) is not None:
            break
    scene.view.camera.snap()
    times = []
    for _ in range(frames):
        began = time.perf_counter()
        scene.update(1 / 60)
        scene.draw(surface)
        pygame.display.flip()
        times.append((time.perf_counter() - began) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1920x1080,1280x720")
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    from game.drivers.solver import Solver
    from game.core.race import RaceState
    from game.core.rules import preset
    from game.presentation.app import init_pygame
    from game.presentation.demo_track import demo_track

    init_pygame(headless=True)
    start = RaceState.start(demo_track(), preset("paper"), ["Ada"], laps=1, seed=1)
    table = Solver().table(start.track, start.rules, 1)
    print(f"{'size':>10} {'coaching':>8} {'median ms':>10} {'max ms':>8}")
    for text in args.sizes.split(","):
        size = tuple(int(v) for v in text.split("x"))
        got = {False: [], True: []}
        for _ in range(args.repeat):
            for coached in (False, True):  # taking turns, so a busy machine weighs on both alike
                got[coached] += run(size, coached, table, args.frames)
        for coached in (False, True):
            print(f"{text:>10} {'on' if coached else 'off':>8} {statistics.median(got[coached]):10.2f} "
                  f"{max(got[coached]):8.2f}")
        print(f"{text:>10} ratio on/off of the median frame: "
              f"{statistics.median(got[True]) / statistics.median(got[False]):.2f}")


if __name__ == "__main__":
    main()
