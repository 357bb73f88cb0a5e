"""The `racetrack play` subcommand (also what `racetrack` with no arguments runs).

With no race flags it opens the couch game at its title screen (lobby, track select,
rules, results, settings). With ``--track``, ``--cars``, ``--rules`` or ``--laps`` it
starts that race at once (a quick race: the first built-in track and one keyboard player
against CPUs unless told otherwise). Errors never reach the player as a traceback: a bad
flag, track or driver is one clear line on stderr, exit status 1.
"""

from __future__ import annotations

import argparse
import atexit
import os
import random
import sys
from pathlib import Path
from typing import Callable, NamedTuple

from game import paths
from game.atomic import clean_stray_temps
from game.cli import report_error
from game.core.errors import RacetrackError
from game.core.rules import preset
from game.drivers.compiling import BackgroundKernels
from game.race.headstart import build_table_early, cpu_note

QUICK_RACE_CARS = "human,cpu,cpu,cpu"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--track", metavar="REF", help="PACK/TRACK, path/pack.toml#TRACK, a .map file or gen:CODE "
                        "(default: the first built-in track)")
    parser.add_argument("--cars", default=None,
                        help=f"comma-separated seats: human or a CPU kind such as cpu:pro (default: {QUICK_RACE_CARS})")
    parser.add_argument("--rules", help="rule preset (default: the track's own)")
    parser.add_argument("--laps", type=int, help="number of laps (default: the track's own)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (choosing order, CPUs)")
    display = parser.add_mutually_exclusive_group()
    display.add_argument("--fullscreen", dest="display", action="store_const", const="fullscreen",
                         help="open fullscreen, and from now on (F11 toggles; the first start chooses "
                              "fullscreen on a display of 1920x1080 or more)")
    display.add_argument("--window", dest="display", action="store_const", const="window",
                         help="open in a window, and from now on")
    parser.add_argument("--size", default="1280x720", help="window size WxH (default: %(default)s)")
    parser.add_argument("--frames", type=int, default=None, help=argparse.SUPPRESS)  # smoke tests
    parser.add_argument("--headless", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--home", default=None, help=argparse.SUPPRESS)  # tests: config and packs here


class PlayError(RacetrackError):
    """A race that cannot be set up from the command line."""


def load_track(ref: str | None):
    """The track for ``--track`` (or the first built-in one; the demo oval if none loads)."""
    try:
        from game.tracks import TrackError, load_track_ref
    except ImportError:  # the track loader is not installed in this checkout
        from game.presentation.demo_track import demo_track

        if ref:
            raise PlayError(f"cannot load track {ref!r}: the track loader is missing") from None
        return demo_track()
    if ref:
        try:
            from game.drivers.generated import load_track as load_any  # gen:CODE too

            return load_any(ref, builtin_dir=paths.builtin_tracks_dir())
        except TrackError as error:
            raise PlayError(str(error)) from None
    from game.tracks import load_pack

    folder = paths.builtin_tracks_dir()
    files = sorted(folder.glob("*.toml"), key=lambda p: (p.stem != "starter", p.name)) if folder.is_dir() else []
    for path in files:  # beginners first; read one pack at a time (the outline packs take seconds)
        result = load_pack(path)
        if result.pack is not None and result.pack.tracks:
            return result.pack.tracks[0]
    from game.presentation.demo_track import demo_track

    return demo_track()


def make_seat_driver(kind: str, shared=None):
    """A driver for one ``--cars`` entry: ``human``, ``cpu`` (= ``cpu:pro``) or a CPU kind.

    ``shared`` lets several CPUs of one race share the solver's tables.
    """
    from game.drivers.base import HumanDriver

    kind = kind.strip()
    if kind == "human":
        return HumanDriver()
    if kind == "cpu":
        kind = "cpu:pro"
    from game.drivers.cpu import make_driver  # lazy on purpose: the solver loads only for a race with CPUs

    try:
        return make_driver(kind, shared=shared) if shared is not None else make_driver(kind)
    except RacetrackError as error:  # an unknown kind, with the kinds there are
        raise PlayError(str(error)) from None


def _shared_tables(kernels=None):
    """The solver's tables, shared by the CPUs of one race."""
    from game.drivers.cpu import make_shared  # lazy on purpose, as in make_seat_driver
    from game.drivers.solver import Solver

    return make_shared(Solver(kernels=kernels))


def make_planner():
    """The background CPU planner if available (keeps the window responsive), else inline."""
    try:
        from game.race.planner import Planner
    except ImportError:
        return None
    try:
        return Planner(keep_racing=True)  # a CPU bug goes to a crash log; the race goes on
    except TypeError:
        return None


def seat_names(kinds: list[str]) -> list[str]:
    """What a quick race calls its seats: ``Player 1``, ``Player 2`` for humans, CPUs by the names
    of their level's drivers (the lobby's roster, ``menus.seats.ROSTER``), in order.

    >>> seat_names(["human", "cpu", "cpu:rookie", "cpu:pro"])
    ['Player 1', 'Ruler', 'Doodle', 'Compass']

    A kind without a roster is called by its level, numbered when it drives more than one car.
    """
    from game.presentation.menus.seats import ROSTER

    names, taken, counts, humans = [], {}, {}, 0
    kinds = ["cpu:pro" if k.strip() == "cpu" else k.strip() for k in kinds]
    for kind in kinds:
        if kind == "human":
            humans += 1
            names.append(f"Player {humans}")
            continue
        roster = ROSTER.get(kind, ())
        k = taken.get(kind, 0)
        taken[kind] = k + 1
        if k < len(roster):
            names.append(roster[k].name)
            continue
        level = (kind.partition(":")[2] or kind).replace("_", " ").title()
        counts[level] = counts.get(level, 0) + 1
        names.append(f"{level} {counts[level]}" if kinds.count(kind) > 1 else level)
    return names


class QuickRace(NamedTuple):
    """A quick race set up from the command line: its controller, the title the race screen
    shows, and ``cpu_note()``, why its CPUs are slower than usual ("" when they are not)."""

    controller: object
    title: str
    cpu_note: Callable[[], str]


def build_race(args, kernels=None) -> QuickRace:
    """The quick race for the parsed arguments; raises PlayError with a clear message.

    ``kernels`` is where the CPUs' solver gets its kernels (``game.drivers.compiling``).
    """
    from game.core.race import RaceState
    from game.race.controller import RaceController, Seat

    track = load_track(args.track)
    kinds = [k for k in (args.cars or QUICK_RACE_CARS).split(",") if k.strip()]
    if not kinds:
        raise PlayError("--cars needs at least one seat")
    shared = _shared_tables(kernels) if any(k.strip() != "human" for k in kinds) else None
    drivers = [make_seat_driver(k, shared) for k in kinds]
    names = seat_names([k if not d.is_human else "human" for k, d in zip(kinds, drivers)])
    rules = preset(args.rules or track.default_rules or "paper")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    state = RaceState.start(track, rules, names, laps=args.laps, seed=seed)
    seats = [Seat(n, d) for n, d in zip(names, drivers)]
    from game.race.standing import SolverStanding

    if shared is None and rules.needs_standing:
        shared = _shared_tables(kernels)  # by_position and catch-up read the solver's table
    controller = RaceController(state, seats, planner=make_planner(), standing=SolverStanding(shared))
    if shared is not None and (any(not seat.is_human for seat in seats) or rules.needs_standing):
        build_table_early(shared, state)
    solver = shared.solver if shared is not None else None
    return QuickRace(controller, f"{track.name} · {rules.name}", lambda: cpu_note(kernels, solver))


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise PlayError(f"--size must look like 1280x720, not {text!r}") from None
    if w < 320 or h < 240:
        raise PlayError("--size must be at least 320x240")
    return w, h


def wants_quick_race(args) -> bool:
    """A race flag on the command line skips the menus."""
    return any(v is not None for v in (args.track, args.cars, args.rules, args.laps))


def start_kernels():
    """Get the CPUs' compiled kernels ready in the background (compiled in a child process
    the first time after an install; see ``game.drivers.compiling``); returns the source."""
    return cpu_kernels().start()


def cpu_kernels():
    """The CPUs' kernel source, not started yet (it starts itself when first asked)."""
    return BackgroundKernels()


def user_dirs(args):
    """(config folder, data folder): the user's own, or under ``--home`` (tests)."""
    import platformdirs

    config_dir = Path(args.home) / "config" if args.home else Path(platformdirs.user_config_dir("racetrack"))
    data_dir = Path(args.home) / "data" if args.home else Path(platformdirs.user_data_dir("racetrack"))
    return config_dir, data_dir


def user_folders(config_dir, data_dir) -> list:
    """Every folder the game writes into: settings, replays, the solver's cache, packs, cups, trials."""
    config_dir, data_dir = Path(config_dir), Path(data_dir)
    folders = [config_dir, config_dir / "replays", config_dir / "solver", data_dir, data_dir / "packs",
               data_dir / "cups", data_dir / "trials"]
    try:
        folders += [entry for entry in (data_dir / "cups").iterdir() if entry.is_dir()]
    except OSError:
        pass
    return folders


def clean_user_folders(config_dir, data_dir) -> list:
    """Remove the temporary files a killed save left in the user's folders (``game.atomic.clean_stray_temps``)."""
    return clean_stray_temps(user_folders(config_dir, data_dir))


def quick_race_settings(args):
    """The player's race settings (text size, reduce motion, replay speed, doomed marks) for a
    quick race, from the settings file the couch game keeps; a problem in it is printed and
    the defaults stand in, as on the title screen."""
    from game.presentation.race_scene import RaceSettings
    from game.settings import load_settings

    settings, problems = load_settings(user_dirs(args)[0])
    for problem in problems:
        print(f"racetrack: {problem}", file=sys.stderr)
    return RaceSettings.of_player(settings)


def run_couch_game(args) -> int:
    """The full game from its title screen; settings, best results and user packs in the user's folders."""
    kernels = cpu_kernels()  # started once the window is open (no compiling for a game that cannot show)
    try:
        size = _size(args.size) if args.size != "1280x720" else None
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        from game.presentation.menus import run_game

        config_dir, data_dir = user_dirs(args)
        clean_user_folders(config_dir, data_dir)
        return run_game(config_dir, data_dir / "packs",
                        paths.builtin_tracks_dir(), paths.assets_dir(), headless=args.headless,
                        max_frames=args.frames, size=size, kernels=kernels, display=args.display)
    except Exception as error:  # the last line of defence: a message, never a traceback
        return report_error(error)
    finally:
        if not kernels.close(timeout=0):
            # The kernels are still being loaded (a second or two, and it cannot be cut
            # short). The window stays open for whoever called us, but a player who quit
            # must not watch it hang: the wait is left to the process's exit, window closed first.
            atexit.register(_finish_at_exit, kernels)


def _finish_at_exit(kernels) -> None:
    """At the process's exit: close the window, then wait for the kernels being loaded (see run_couch_game)."""
    close_window()
    kernels.close()


def run(args) -> int:
    if not wants_quick_race(args):
        return run_couch_game(args)

    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    from game.presentation.app import App, DisplayConfig, init_pygame
    from game.presentation.race_scene import RaceScene

    kernels = cpu_kernels() if any(k.strip() != "human" for k in (args.cars or QUICK_RACE_CARS).split(",")) \
        else None
    try:
        size = _size(args.size)
        init_pygame(headless=args.headless)
        controller, title, note = build_race(args, kernels)
    except RacetrackError as error:
        print(f"racetrack: {error}", file=sys.stderr)
        if kernels is not None:
            kernels.close()
        return 1
    try:
        if kernels is not None:
            kernels.start()
        from game.presentation.collector import CollectorPolicy

        # The collector's long passes at screen changes, the kernels frozen once loaded (as the couch game).
        loaded = (lambda: kernels.status.stage in ("ready", "failed")) if kernels is not None else (lambda: True)
        app = App(DisplayConfig(size=size, fullscreen=args.display == "fullscreen"),
                  collector=CollectorPolicy(settled=loaded))
        if app.size_note:
            print(f"racetrack: {app.size_note}", file=sys.stderr)
        app.push(RaceScene(controller, app.size, title=title, cpu_status=note, settings=quick_race_settings(args)))
        app.run(max_frames=args.frames)
        return 0
    except Exception as error:  # the last line of defence: a message, never a traceback
        return report_error(error)
    finally:
        controller.close()
        close_window()  # before waiting for the kernels: a quit never shows a frozen window
        if kernels is not None:
            kernels.close()
        try:
            from game.presentation.app import quit_pygame

            quit_pygame()  # the gamepads' subsystem too: a game started again in this process sees new pads
        except Exception:
            pass


def close_window() -> None:
    """Close the window, if pygame was ever started (the rest of pygame is left to whoever quits it)."""
    if "pygame" not in sys.modules:
        return
    try:
        import pygame

        pygame.display.quit()
    except Exception:  # noqa: BLE001 - quitting: nothing left to tell anyone
        pass
