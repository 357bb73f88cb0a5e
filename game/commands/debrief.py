"""The ``racetrack debrief`` subcommand: where each car of a replayed race lost moves, counted by the solver.

Prints every car's moves against its start place's par, the move of the race, each
car's costliest mistake and its remaining moves after every phase (``--json``: the same
as data, every phase's remaining moves before and after, its loss and cause; see
``game.race.debrief``). Exit status 1 when the replay or its track cannot be read, when
the track has changed since the race was recorded, or when the solver does not play
its rules (fine paper, pen flick); 2 when a recorded choice breaks the rules.
"""

from __future__ import annotations

import json
import sys

from game.commands.replay import load_replay_track
from game.drivers.compiling import ForegroundKernels


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="REPLAY", help="the replay file (.toml)")
    parser.add_argument("--json", action="store_true", help="print the debrief as JSON")


def run(args) -> int:
    from game.drivers.solver import Solver
    from game.race.debrief import debrief_replay, debrief_table
    from game.race.replay import load_replay

    replay = load_replay(args.file)
    track = load_replay_track(replay)
    # A run compiles what the cache lacks: the next one only loads it.
    kernels = ForegroundKernels(say=lambda text: print(text, file=sys.stderr, flush=True))
    try:
        debrief = debrief_replay(replay, track, Solver(kernels=kernels))
    finally:
        kernels.close()
    if args.json:
        print(json.dumps(debrief.to_json(), indent=1))
    else:
        print(debrief_table(debrief))
    return 0
