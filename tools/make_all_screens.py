"""Save every screen of the game as a PNG at every window size and text size, to look at them.

Run from the checkout (headless; a few minutes, most of it the 2160-line frames)::

    python tools/make_all_screens.py [--out build/screens] [--only title,lobby] [--sizes 720,1080,2160]
                                     [--scales 1.0,1.5]

For each screen it writes ``<screen>-<lines>p-x<scale>.png`` (1280x720, 1920x1080 and
3840x2160 by default, 1024x768 and 1280x1024 with ``--sizes 768,1024``; text size 1.0 and
1.5), and for the 1080-line frames a quarter-size
``<screen>-sofa-x<scale>.png`` (480x270): a TV seen from the sofa, where text too small to
read and pens that look alike show at once. Open them and look; the tool also prints what
``tests/test_layout.py``'s checks find wrong in each frame (texts off the screen or their
card, overlaps, clipped text), but the eye finds what they cannot (a colour two players
cannot tell apart, a line too small from across the room).

The screens are the ones ``tests/test_layout.py`` lays out (title, lobby with and without
the phones card, track select, rules, a race of eight, pause, a pulled pad's message,
controls, results, replays, the replay viewer, settings, bindings, the cup's screens,
the time trial's start and result, every tutorial card), made by that module's own
builders so the pictures show what the layout test checks, plus the confirm dialog over
the pause menu and a few that need the solver and so are not in it: a race with the
timing tower and two coached players choosing at once, a night race, and the results' debrief tab. The settings, saved files and the kernels' cache of a
run go to a temporary folder (nothing of the player's is touched); nothing outside
``--out`` is written.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pygame  # noqa: E402

from game.core.rules import preset  # noqa: E402
from game.presentation.app import init_pygame  # noqa: E402
from game.presentation.scene import SceneStack  # noqa: E402

#: The windows by height: the three 16:9 ones by default, and 768 (4:3, the dummy driver's F11 desktop)
#: and 1024 (5:4) when asked for.
HEIGHTS = {720: (1280, 720), 1080: (1920, 1080), 2160: (3840, 2160), 768: (1024, 768), 1024: (1280, 1024)}
SOFA = 4  # the sofa copy is a quarter of the 1080-line frame each way


def settle(scene, surface, ready, seconds: float = 60.0) -> None:
    """Draw frames as the game does until the paper's tiles and previews are in and ``ready()``
    (a worker's table, the debrief) or ``seconds`` have passed. The screen is updated only while
    it is not ready: a race left alone would play on."""
    deadline = time.monotonic() + seconds
    while not ready() and time.monotonic() < deadline:
        scene.update(1 / 60)
        for s in _drawn(scene):
            s.draw(surface)
        time.sleep(0.02)
    if getattr(scene, "mode", "") == "choosing":
        from game.presentation.race_modes import GO_SECONDS

        for _ in range(round(GO_SECONDS * 60) + 6):  # the countdown's "Go!" fades before the players choose
            scene.update(1 / 60)
    for _ in range(30):  # tiles and previews still missing are drawn a few per frame
        for s in _drawn(scene):
            s.draw(surface)


def _drawn(scene) -> list:
    """The scenes a frame draws with ``scene`` on top: the opaque one under it and the overlays above."""
    stack = scene.stack
    if stack is None:
        return [scene]
    below = stack.scenes[:stack.scenes.index(scene)]
    start = max((k for k, s in enumerate(below) if s.opaque), default=0)
    return (below[start:] if not scene.opaque else []) + [scene]


# -- the screens the layout test does not make (they need the solver) ------------------------
def _solver_plan(layout_test, ctx, entries, night: bool = False):
    """Four cars on First Sprint, arcade rules: two players, both coached (they choose at once: their
    coached rings side by side), two CPUs; the tower on. ``night``: the same race in the dark."""
    from game.presentation.menus.race import RacePlan
    from game.presentation.menus.seats import SeatSpec

    names = layout_test.NAMES
    lineup = (SeatSpec(names[0], 0, 0, "human", "kb1", assist="coach"), SeatSpec(names[1], 1, 1, "human", "pad:1", assist="coach"),
              SeatSpec(names[2], 2, 2, "cpu:pro"), SeatSpec(names[3], 3, 3, "cpu:rookie"))
    ctx.settings.timing_tower = "on"
    return RacePlan(lineup, entries["starter/first-sprint"], preset("arcade", {"sight": "night"} if night else {}), 1)


def _drive(race, until) -> None:
    """Run the race, the players choosing as the tests' stand-in CPU does, until ``until()`` (or
    twenty thousand frames)."""
    import random

    from tests.standin import StandInCPU

    ctl = race.controller
    player = StandInCPU()
    for _ in range(20_000):
        if until():
            return
        if race.mode == "choosing":
            for car in ctl.waiting_humans():
                if ctl.chosen(car) is None:
                    rng = random.Random(f"{ctl.state.phase}/{car}")
                    ctl.submit(car, player.choose(ctl.state, car, ctl.committed_for(car), rng))
        race.update(1 / 20)
        time.sleep(0.001)


def _solver_race(layout_test, ctx, entries, night: bool):
    """The race of :func:`_solver_plan` two phases in, the coached players to choose."""
    from game.presentation.menus.race import start_race

    race = start_race(ctx, _solver_plan(layout_test, ctx, entries, night), intro=False)
    SceneStack().push(race)
    ctl = race.controller
    _drive(race, lambda: len(ctl.records) >= 2 and race.mode == "choosing")
    return race


def race_tower_coached(layout_test):
    def make(ctx, entries):
        return _solver_race(layout_test, ctx, entries, night=False)
    make.__name__ = "race_tower_coached"
    return make


def race_night(layout_test):
    def make(ctx, entries):
        return _solver_race(layout_test, ctx, entries, night=True)
    make.__name__ = "race_night"
    return make


def results_debrief(layout_test):
    def make(ctx, entries):
        from game.presentation.menus.race import start_race

        race = start_race(ctx, _solver_plan(layout_test, ctx, entries), intro=False)
        stack = SceneStack()
        stack.push(race)
        _drive(race, lambda: stack.top is not race)
        results = stack.top
        results.show_debrief()
        return results
    make.__name__ = "results_debrief"
    return make


def pause_confirm(layout_test):
    def make(ctx, entries):
        menu = layout_test.pause(ctx, entries)
        menu.race.screen_name = "race"  # (as the menus make it: made directly it would count as a cup's race)
        menu.ask_quit()  # the confirm dialog over the pause menu over the race
        return menu.stack.top
    make.__name__ = "pause_confirm"
    return make


def screens(layout_test) -> dict:
    """Every screen by name: the layout test's, the confirm dialog, then the ones needing the solver."""
    extra = (pause_confirm(layout_test), race_tower_coached(layout_test), race_night(layout_test),
             results_debrief(layout_test))
    return {**layout_test.SCREENS, **{f.__name__.replace("_", "-"): f for f in extra}}


def ready(scene) -> bool:
    """Whether what the screen waits for has come in: the countdown's "Go!" gone (the tutorial's
    cards), its layers' tables, the debrief."""
    if getattr(scene, "mode", "") == "intro":
        return False
    for layer in getattr(getattr(scene, "config", None), "layers", ()) or ():
        table = getattr(layer, "table", None)
        if callable(table) and table() is None:
            return False
    if getattr(scene, "tab", "") == "debrief" and scene.debrief.status() == "...":
        return False
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "build" / "screens"))
    parser.add_argument("--only", default="", help="comma-separated screen names (default: all)")
    parser.add_argument("--sizes", default="720,1080,2160", help="window heights: 720, 1080, 2160 (16:9), 768 (4:3), "
                        "1024 (5:4)")
    parser.add_argument("--scales", default="1.0,1.5", help="text sizes")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="racetrack-screens-"))
    os.environ.setdefault("NUMBA_CACHE_DIR", str(home / "numba"))
    init_pygame(headless=True)
    pygame.display.set_mode((320, 200))

    from tests import test_layout as layout_test  # the layout test's screens, so the pictures show what it checks
    from game import paths
    from game.presentation.menus.tracks import load_entries

    builtin = home / "builtin"
    builtin.mkdir()
    for pack in ("starter.toml", "terrain.toml"):
        (builtin / pack).write_bytes((paths.builtin_tracks_dir() / pack).read_bytes())
    entries = {e.ref: e for e in load_entries(builtin, None)}
    every = screens(layout_test)
    names = [n for n in args.only.split(",") if n] or list(every)
    unknown = [n for n in names if n not in every]
    if unknown:
        parser.error(f"no screen {', '.join(unknown)}; the screens are {', '.join(every)}")
    sizes = [HEIGHTS[int(h)] for h in args.sizes.split(",")]
    scales = [float(s) for s in args.scales.split(",")]
    flagged = 0
    for name in names:
        for size in sizes:
            for scale in scales:
                layout = layout_test.Layout()
                ctx = layout_test.make_ctx(home, size, scale, layout, config=Path(tempfile.mkdtemp(dir=home)))
                scene = every[name](ctx, entries)
                if scene.stack is None:
                    SceneStack().push(scene)
                scene.resize(size)
                surface = pygame.Surface(size)
                settle(scene, surface, lambda: ready(scene))
                layout_test.draw_top(scene, surface, layout)  # (an overlay's screens below it unrecorded)
                tag = f"{name}-{size[1]}p-x{scale:g}"
                pygame.image.save(surface, str(out / f"{tag}.png"))
                if size[1] == 1080:
                    sofa = pygame.transform.smoothscale(surface, (size[0] // SOFA, size[1] // SOFA))
                    pygame.image.save(sofa, str(out / f"{name}-sofa-x{scale:g}.png"))
                found = layout_test.problems(layout, size)
                flagged += bool(found)
                print(f"{tag}: " + ("; ".join(found[:3]) + (f" (+{len(found) - 3})" if len(found) > 3 else "")
                                    if found else "whole"), flush=True)
                for s in list(scene.stack.scenes) if scene.stack is not None else ():
                    if hasattr(s, "controller"):
                        s.exit()
                ctx.audio.close()
    print(f"wrote {out}: {len(names)} screens, {flagged} frames with layout problems")
    return 0


if __name__ == "__main__":
    sys.exit(main())
