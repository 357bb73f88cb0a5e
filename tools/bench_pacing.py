"""How long a couch race lasts on every built-in track; prints figures, asserts nothing.

Run from the checkout:  python tools/bench_pacing.py [--seeds N] [--tracks PACK/TRACK ...]

The couch default: four cars, two humans and two CPUs at the lobby's default level
(Pro), under the menus' default rules (the settings' remembered preset, arcade) over the
track's default laps. The humans are played by Pro CPUs too (they drive like a fair
player); what a human adds is time: every phase in which a human must choose costs N
seconds of choosing (the humans choose at once under simultaneous rules, one after the
other otherwise), and every phase costs its replay as the race screen plays it, timed by
the game's own replay timing (``game.presentation.animation.replay_seconds`` at the
settings' default replay speed; an overtake, ``game.presentation.hud.overtaken``, plays at
full length) plus the race screen's intro once. CPU thinking and the
camera's glide between phases are not counted (both are short beside a human's pick).

Per track: the phases (mean over the seeds), the default race's par, the replay time,
and the expected minutes for N = 3 and N = 5 seconds a pick. The last line, for N = 4:
``median M min, longest L min``. Goal: median <= 3.0 min, longest <= 4.0 min.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

HUMANS, CPUS = 2, 2
MAX_PHASES = 2000  # as `racetrack sim`: a race still running after this many phases is stopped


def race(track, rules, kinds, seed: int, shared):
    """One race of CPUs driving every seat: (states, records), as race control keeps them."""
    from game.core.race import RaceState
    from game.drivers.cpu import make_driver
    from game.race.controller import RaceController, Seat

    names = [f"Car {i + 1}" for i in range(len(kinds))]
    state = RaceState.start(track, rules, names, laps=track.default_laps, seed=seed)
    controller = RaceController(state, [Seat(n, make_driver(k, shared=shared)) for n, k in zip(names, kinds)],
                                seed=seed)
    while not controller.over and len(controller.records) < MAX_PHASES:
        controller.tick()
    return controller.states, controller.records


def race_seconds(states, records, rules, human_cars, pick_seconds: float, speed: float) -> tuple[float, float]:
    """(choosing seconds, replay seconds) of one race, as the couch would sit through it: the
    replays timed as the race screen plays them (an overtake plays at full length)."""
    from game.presentation.animation import replay_seconds
    from game.presentation.hud import overtaken

    choosing = replay = 0.0
    for k, record in enumerate(records):
        choosers = [car for car in record.choices if car in human_cars]
        if choosers:
            choosing += pick_seconds if rules.simultaneous else pick_seconds * len(choosers)
        replay += replay_seconds(record, speed, overtaken(states[k], states[k + 1]))
    return choosing, replay


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2, help="races per track (default 2)")
    parser.add_argument("--tracks", nargs="*", default=None, metavar="PACK/TRACK", help="only these tracks")
    args = parser.parse_args()
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

    from game.drivers.cpu import make_shared
    from game.drivers.solver import Solver
    from game.paths import builtin_tracks_dir
    from game.presentation.race_scene import INTRO_SECONDS
    from game.settings import Settings
    from game.tracks.pack import load_pack

    settings = Settings()
    rules, speed = settings.rules(), settings.replay_speed
    kinds = ["cpu:pro"] * (HUMANS + CPUS)  # the lobby seats humans first, then the CPUs
    humans = set(range(HUMANS))
    print(f"couch default: {HUMANS} humans + {CPUS} CPUs (Pro), {rules.name} rules, the track's laps, "
          f"replay speed x{speed:g}, {args.seeds} seed(s) a track")
    print(f"{'track':28} {'laps':>4} {'par':>4} {'phases':>7} {'replay s':>9} {'N=3 min':>8} {'N=5 min':>8}")
    minutes4 = []
    for path in sorted(builtin_tracks_dir().glob("*.toml")):
        for track in load_pack(path).tracks:
            ref = f"{path.stem}/{track.id}"
            if args.tracks and ref not in args.tracks:
                continue
            per_n = {3: [], 4: [], 5: []}
            phases, replays = [], []
            shared = make_shared(Solver())
            for seed in range(args.seeds):
                states, records = race(track, rules, kinds, seed, shared)
                phases.append(len(records))
                for n in per_n:
                    choosing, replay = race_seconds(states, records, rules, humans, n, speed)
                    per_n[n].append((INTRO_SECONDS + choosing + replay) / 60)
                replays.append(race_seconds(states, records, rules, humans, 0, speed)[1])
            mean = {n: statistics.fmean(v) for n, v in per_n.items()}
            minutes4.append(mean[4])
            print(f"{ref:28} {track.default_laps:>4} {track.meta.get('par', '-'):>4} "
                  f"{statistics.fmean(phases):>7.1f} {statistics.fmean(replays):>9.1f} "
                  f"{mean[3]:>8.2f} {mean[5]:>8.2f}", flush=True)
    if not minutes4:
        print("no track matched")
        return 1
    print(f"median {statistics.median(minutes4):.1f} min, longest {max(minutes4):.1f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
