"""Render the screenshots of docs/playing.md for cups, time trials, the move timer and the results screen.

Run from the checkout (headless, about a minute)::

    python tools/make_play_screenshots.py [--out docs/screenshots] [--size 1280x720]

It plays a Starter cup with two players driven by a Pro CPU's choices and two CPUs, a
time trial on First Sprint twice (the second run races the first one's ghost), and a race
with the move timer, saving each screen the way a player sees it. Settings and saved
files go to a temporary folder; nothing of the user's is touched.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pygame  # noqa: E402

from game import paths  # noqa: E402
from game.core.rules import preset  # noqa: E402
from game.presentation.app import init_pygame  # noqa: E402


def frames(stack, seconds: float, fps: int = 60, screen=None) -> None:
    for _ in range(round(seconds * fps)):
        stack.update(1 / fps)
        if screen is not None:
            stack.draw(screen)


def settle_pictures(stack, screen, scene) -> None:
    """Let the background jobs draw their pictures (track previews) before the shot."""
    for _ in range(400):
        stack.update(1 / 60)
        stack.draw(screen)
        pictures = getattr(scene, "pictures", None)
        if pictures is not None:
            pictures.wait(5)
        time.sleep(0.002)


def save(stack, screen, out: Path, name: str) -> None:
    stack.draw(screen)
    pygame.image.save(screen, str(out / name))
    print("wrote", out / name)


def drive(stack, scene_type, pick, screen, fps: int = 20) -> None:
    """Play a race scene to its end, the humans choosing with ``pick(controller, car)``, drawing
    every frame as the game does (the paper sharpens its first rough tiles in those frames)."""
    race = stack.top
    while isinstance(stack.top, scene_type):
        ctl = race.controller
        if race.mode == "choosing":
            for car in ctl.waiting_humans():
                if ctl.chosen(car) is None:
                    ctl.submit(car, pick(ctl, car))
        stack.update(1 / fps)
        stack.draw(screen)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docs" / "screenshots"))
    parser.add_argument("--size", default="1280x720")
    args = parser.parse_args(argv)
    size = tuple(int(v) for v in args.size.split("x"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    init_pygame(headless=True)
    screen = pygame.display.set_mode(size)

    from game.drivers.cpu import make_driver
    from game.presentation.menus import build_context
    from game.presentation.menus.cup import CupSelectScene, StandingsScene
    from game.presentation.menus.race import RacePlan, TrackEntry, start_race
    from game.presentation.menus.results import ResultsScene
    from game.presentation.menus.seats import SeatTable
    from game.presentation.menus.title import TitleScene
    from game.presentation.menus.trial import TrialStartScene, player_seat
    from game.presentation.race_scene import RaceScene
    from game.presentation.scene import SceneStack
    from game.tracks import load_track_ref

    home = Path(tempfile.mkdtemp(prefix="racetrack-shots-"))
    ctx = build_context(home / "config", home / "data" / "packs", paths.builtin_tracks_dir(), seed=8)
    ctx.catalogue.start()  # as the game does at start-up
    ctx.size = size
    ctx.settings.replay_speed = 4.0
    ctx.settings.player_names = ["Ada", "Bix"]
    pro = make_driver("cpu:pro", shared=ctx.cpu_shared)
    champion = make_driver("cpu:champion", shared=ctx.cpu_shared)

    def pro_pick(ctl, car):
        return pro.choose(ctl.state, car, ctl.committed_for(car), random.Random(f"{ctl.state.phase}/{car}"))

    def champion_pick(ctl, car):
        return champion.choose(ctl.state, car, ctl.committed_for(car), None)

    # -- a cup -------------------------------------------------------------------------
    table = SeatTable(["Ada", "Bix"])
    table.join("pad:1")
    table.join("pad:2")
    table.add_cpu("cpu:pro")
    table.add_cpu("cpu:rookie")
    stack = SceneStack()
    stack.push(TitleScene(ctx))
    select = CupSelectScene(ctx, table.lineup())
    stack.push(select)
    while not select.choices:
        frames(stack, 0.05)
        time.sleep(0.02)
    settle_pictures(stack, screen, select)
    save(stack, screen, out, "menu_cup_select.png")
    select.begin()
    for k in range(3):
        drive(stack, RaceScene, pro_pick, screen)
        standings = stack.top
        assert isinstance(standings, StandingsScene)
        if k == 1:
            frames(stack, 1.25)
            save(stack, screen, out, "menu_standings_counting.png")
        frames(stack, 4)
        if k == 1:
            save(stack, screen, out, "menu_standings.png")
        if k < 2:
            standings.next_race()
    standings.podium()
    frames(stack, 2.7)  # the winner has landed; the confetti is falling
    save(stack, screen, out, "menu_cup_podium.png")

    # -- a time trial, twice: the second run races the first one's ghost -------------------
    ref = "starter/first-sprint"
    track = load_track_ref(ref, builtin_dir=paths.builtin_tracks_dir())
    plan = RacePlan((player_seat(ctx, "pad:1"),), TrackEntry(ref, track, "Starter"), preset("paper"), 1)
    stack = SceneStack()
    stack.push(TitleScene(ctx))
    for run, pick in enumerate((pro_pick, champion_pick)):
        start = TrialStartScene(ctx, plan)
        stack.push(start)
        while not start.ready():
            frames(stack, 0.05)
            time.sleep(0.02)
        settle_pictures(stack, screen, start)
        if run == 1:
            save(stack, screen, out, "menu_trial_start.png")
        start.start()
        race = stack.top
        shot = False
        while isinstance(stack.top, RaceScene):
            ctl = race.controller
            if race.mode == "choosing" and ctl.waiting_humans() and ctl.chosen(0) is None:
                if run == 1 and ctl.state.phase == 6 and not shot:
                    shot = True
                    save(stack, screen, out, "race-ghost.png")
                ctl.submit(0, pick(ctl, 0))
            stack.update(1 / 20)
            stack.draw(screen)
        result = stack.top
        result.champion.wait(60)
        if run == 1:
            result.show_champion = True
            settle_pictures(stack, screen, result)
            save(stack, screen, out, "menu_trial_result.png")
        stack.pop()
        stack.pop()

    # -- the move timer, and a race's results with the players' medals ------------------------
    table = SeatTable(["Ada", "Bix"])
    table.join("pad:1")
    table.join("pad:2")
    table.add_cpu("cpu:pro")
    plan = RacePlan(tuple(table.lineup()), TrackEntry(ref, track, "Starter"), preset("phases"), 1, timer=10)
    stack = SceneStack()
    stack.push(TitleScene(ctx))
    stack.push(start_race(ctx, plan))
    race = stack.top
    frames(stack, 1.5, screen=screen)
    race.controller.submit(1, champion_pick(race.controller, 1))
    frames(stack, 7.4, screen=screen)
    save(stack, screen, out, "race-timer.png")
    drive(stack, RaceScene, champion_pick, screen)
    results = stack.top
    assert isinstance(results, ResultsScene)
    ctx.pars.wait(track, plan.rules, 1)
    frames(stack, 5)
    save(stack, screen, out, "menu_results.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
