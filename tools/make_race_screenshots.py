"""Render the race-screen screenshots of the README and docs/ (the look from the sofa).

Run from the checkout (headless, under a minute)::

    python tools/make_race_screenshots.py [--out docs/screenshots]

It sets up races on First Sprint (72x27 squares, too big to show whole at a legible zoom)
and saves, each the way a player sees it:

- ``race-choosing.png`` (1920x1080): two players choosing side by side, two CPUs;
- ``race-hud-1080.png`` / ``race-hud-720.png``: one player choosing, at both sizes;
- ``race-crowd.png``: two players a square apart at rest, their rings split per player;
- ``race-inset.png``: two players far apart, the second in a picture-in-picture inset;
- ``race-countdown.png``: the countdown before the first phase;
- ``race-replay.png``: a collision mid-replay, its burst and the label naming the cars;
- ``race-finish.png``: the winner crossing the line; ``race-finished.png``: the results.

Nothing outside ``--out`` is written.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from dataclasses import replace
from pathlib import Path

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pygame  # noqa: E402

from game import paths  # noqa: E402
from game.core import RaceState, Vec, preset  # noqa: E402
from game.drivers.base import HumanDriver  # noqa: E402
from game.presentation.app import init_pygame  # noqa: E402
from game.presentation.race_scene import INTRO_SECONDS, PENCIL_SECONDS, RaceScene, RaceSettings  # noqa: E402
from game.presentation.standin import StandInCPU  # noqa: E402
from game.race.controller import RaceController, Seat  # noqa: E402
from game.tracks.pack import load_track_ref  # noqa: E402

NAMES = ("Ada", "Bo", "Cy", "Di")


def scene(track, size, kinds, place=(), intro=False, seed=3):
    names = list(NAMES[:len(kinds)])
    state = RaceState.start(track, preset("arcade"), names, seed=seed)
    cars = list(state.cars)
    for car, position, velocity in place:
        cars[car] = replace(cars[car], position=position, velocity=velocity)
    state = replace(state, cars=tuple(cars))
    drivers = [HumanDriver() if k == "human" else StandInCPU() for k in kinds]
    ctl = RaceController(state, [Seat(n, d) for n, d in zip(names, drivers)], seed=seed)
    return RaceScene(ctl, size, settings=RaceSettings(intro=intro))


def run(s, seconds):
    """Play ``seconds`` of the scene, drawing every frame as the game does (the paper's first
    rough tiles are sharpened in the frames where players choose)."""
    scratch = pygame.Surface(s.view.camera.size)
    for _ in range(round(seconds * 60)):
        s.update(1 / 60)
        s.draw(scratch)


def save(s, size, out: Path, name: str, settle: bool = True) -> None:
    surface = pygame.Surface(size)
    if settle:
        s.view.camera.snap()
        for inset in s.view.insets:
            inset.camera.snap()
    for _ in range(40):  # paper tiles still missing are drawn a few per frame
        s.draw(surface)
    pygame.image.save(surface, str(out / name))
    print("wrote", out / name)


def pick(s, car, node=None):
    """Submit ``node`` for a human car (default: what a CPU would choose)."""
    ctl = s.controller
    if node is None:
        node = StandInCPU().choose(ctl.state, car, ctl.committed_for(car), random.Random(car))
    ctl.submit(car, node)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/screenshots")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    init_pygame(headless=True)
    pygame.display.set_mode((1920, 1080))
    sprint = load_track_ref("starter/first-sprint", builtin_dir=paths.builtin_tracks_dir())
    big = (1920, 1080)
    start = RaceState.start(sprint, preset("arcade"), list(NAMES), seed=3)
    a, b = start.cars[0].position, start.cars[1].position

    # two players choosing after a few phases, two CPUs
    s = scene(sprint, big, ("human", "human", "cpu", "cpu"))
    for _ in range(3):
        run(s, 0.2)
        for car in (0, 1):
            if s.controller.chosen(car) is None and car in s.controller.waiting_humans():
                pick(s, car)
        run(s, 3.0)
    run(s, 0.5)
    save(s, big, out, "race-choosing.png")

    for size, name in ((big, "race-hud-1080.png"), ((1280, 720), "race-hud-720.png")):
        s = scene(sprint, size, ("human", "cpu", "cpu"))
        run(s, 0.3)
        save(s, size, out, name)

    s = scene(sprint, big, ("human", "human", "cpu"), place=[(0, a, Vec(0, 0)), (1, a + Vec(1, 0), Vec(0, 0))])
    run(s, 0.3)
    save(s, big, out, "race-crowd.png")

    road = [Vec(x, y) for x in range(sprint.width) for y in range(sprint.height) if sprint.on_road(Vec(x, y))]
    far = min(road, key=lambda v: abs(v.x - (a.x + 54)) + abs(v.y - 21))  # near the finish, far ahead
    s = scene(sprint, big, ("human", "human"), place=[(0, a, Vec(1, 0)), (1, far, Vec(1, 0))])
    run(s, 0.3)
    save(s, big, out, "race-inset.png")

    s = scene(sprint, big, ("human", "cpu", "cpu", "cpu"), intro=True)
    run(s, PENCIL_SECONDS + (INTRO_SECONDS - PENCIL_SECONDS) * 0.4)
    save(s, big, out, "race-countdown.png", settle=False)

    # two players aim at one node: the collision, mid-replay
    meet = a + Vec(2, 1)
    s = scene(sprint, big, ("human", "human", "cpu"), place=[(0, a, Vec(1, 0)), (1, b, Vec(1, -1))])
    run(s, 0.5)
    pick(s, 0, meet)
    pick(s, 1, meet)
    for _ in range(600):
        s.update(1 / 60)
        anim = s.animation
        if anim is not None and any(age > 0.35 for _, age in anim.collisions_fired()):
            break
    s.view.camera.shake = 0.0
    save(s, big, out, "race-replay.png", settle=False)

    # a whole race to the finish line, then the results
    s = scene(sprint, big, ("human", "cpu", "cpu", "cpu"))
    finished = False
    scratch = pygame.Surface(big)
    for _ in range(4000):
        if s.mode == "choosing" and 0 in s.controller.waiting_humans() and s.controller.chosen(0) is None:
            pick(s, 0)
        s.update(1 / 60)
        s.draw(scratch)
        anim = s.animation
        if not finished and anim is not None and any(e.kind == "finish" and age > 0.3 for e, age in anim.fired()):
            finished = True
            save(s, big, out, "race-finish.png", settle=False)
        if s.mode == "finished":
            break
    run(s, 3.0)  # the podium rises and the cars land on it
    save(s, big, out, "race-finished.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
