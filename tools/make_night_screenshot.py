"""Render the night-race screenshot of docs/rules.md (and its look from the sofa, at a quarter size).

Run from the checkout (headless, some seconds)::

    python tools/make_night_screenshot.py [--out docs/screenshots] [--track starter/paper-oval]

It plays a few phases of a night race (arcade rules, ``sight = "night"``: one player, three
CPUs) and saves ``race-night.png`` (1920x1080) while the player chooses, and
``race-night-quarter.png``, the same picture at 480x270: what the screen looks like from a
sofa's distance, where one's own targets must still stand out. Nothing outside ``--out``
is written.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pygame  # noqa: E402

from game import paths  # noqa: E402
from game.core import RaceState, preset  # noqa: E402
from game.drivers.base import HumanDriver  # noqa: E402
from game.presentation.app import init_pygame  # noqa: E402
from game.presentation.race_scene import RaceScene, RaceSettings  # noqa: E402
from game.presentation.standin import StandInCPU  # noqa: E402
from game.race.controller import RaceController, Seat  # noqa: E402
from game.tracks.pack import load_track_ref  # noqa: E402

NAMES = ("Ada", "Bo", "Cy", "Di")


def night_scene(track, size, phases: int, seed: int = 3, radius: int = 6) -> RaceScene:
    """A night race with one player (car 0) and three CPUs, ``phases`` phases in, the player to choose."""
    rules = preset("arcade", {"sight": "night", "sight_radius": radius})
    state = RaceState.start(track, rules, list(NAMES), seed=seed)
    drivers = [HumanDriver()] + [StandInCPU() for _ in NAMES[1:]]
    ctl = RaceController(state, [Seat(n, d) for n, d in zip(NAMES, drivers)], seed=seed)
    s = RaceScene(ctl, size, settings=RaceSettings(intro=False))
    scratch = pygame.Surface(size)
    for _ in range(phases):
        for _ in range(20):
            s.update(1 / 60)
            s.draw(scratch)
        if 0 in ctl.waiting_humans() and ctl.chosen(0) is None:
            node = StandInCPU().choose(ctl.state, 0, ctl.committed_for(0), random.Random(ctl.state.phase))
            ctl.submit(0, node)
        for _ in range(240):
            s.update(1 / 60)
            s.draw(scratch)
    for _ in range(30):
        s.update(1 / 60)
    return s


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/screenshots")
    parser.add_argument("--track", default="starter/paper-oval")
    parser.add_argument("--phases", type=int, default=6)
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    init_pygame(headless=True)
    size = (1920, 1080)
    pygame.display.set_mode(size)
    track = load_track_ref(args.track, builtin_dir=paths.builtin_tracks_dir())
    s = night_scene(track, size, args.phases)
    surface = pygame.Surface(size)
    s.view.camera.snap()
    for _ in range(40):  # paper tiles still missing are drawn a few per frame
        s.draw(surface)
    pygame.image.save(surface, str(out / "race-night.png"))
    pygame.image.save(pygame.transform.smoothscale(surface, (480, 270)), str(out / "race-night-quarter.png"))
    print("wrote", out / "race-night.png", "and", out / "race-night-quarter.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
