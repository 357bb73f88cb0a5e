"""The `racetrack solve` subcommand: par and an optimal line for a track, from the exact solver."""

from __future__ import annotations

import json
import sys
import time

from game.commands.rule_args import add_rule_arguments, rules_from_args
from game.core.errors import RacetrackError
from game.drivers.compiling import ForegroundKernels
from game.paths import builtin_tracks_dir



def add_arguments(parser) -> None:
    parser.add_argument("track", metavar="TRACK", help="PACK/TRACK, path/pack.toml#TRACK, path/file.map or gen:CODE")
    parser.add_argument("--laps", type=int, default=None, help="laps to race (default: the track's)")
    add_rule_arguments(parser, '; fine and flick are not solved exactly')
    parser.add_argument("--slot", type=int, default=None, metavar="N",
                        help="solve from the N-th start place of the grid, where car N stands (1 = the front "
                             "of the grid); default: the best start place, which gives the par")
    parser.add_argument("--memory-budget", type=float, default=None, metavar="GB",
                        help="most memory the solver may take, in GB (default 2); a bigger table is refused")
    parser.add_argument("--json", action="store_true", help="print JSON")


class _ProgressLine:
    """Prints how far a long solve is to stderr, at most once a second, from its second second on."""

    def __init__(self, name: str, stream=None) -> None:
        self.name, self.stream, self.clock = name, stream or sys.stderr, time.monotonic
        self.began = self.last = self.clock()
        self.shown = False

    def __call__(self, fraction: float, what: str) -> None:
        now = self.clock()
        if now - self.began >= 1.0 and now - self.last >= 1.0:
            self.last = now
            self.shown = True
            print(f"solving {self.name}: {fraction:4.0%} ({what})", file=self.stream, flush=True)


def run(args) -> int:
    from game.drivers.solver import Solver, SolverError
    from game.drivers.generated import load_track

    track = load_track(args.track, builtin_dir=builtin_tracks_dir())
    rules = rules_from_args(args, track.default_rules)
    laps = track.default_laps if args.laps is None else args.laps
    problem = track.laps_problem(laps)
    if problem:
        raise RacetrackError(f"--laps: {problem}")
    if args.slot is not None and not 1 <= args.slot <= len(track.start_slots):
        raise RacetrackError(f"track {track.id!r} has start slots 1 to {len(track.start_slots)}, not {args.slot}")
    budget = args.memory_budget
    if budget is not None and not (0.01 <= budget <= 1024):
        raise RacetrackError(f"--memory-budget must be from 0.01 to 1024 GB, not {budget:g}")

    kernels = ForegroundKernels(say=lambda text: print(text, file=sys.stderr, flush=True))  # a run compiles what the cache lacks: the next one only loads it
    try:
        solver = Solver(kernels=kernels, memory_budget=None if budget is None else int(budget * 1024 ** 3))
        solution = solver.solve(track, rules, laps, slot=None if args.slot is None else args.slot - 1,
                                progress=_ProgressLine(args.track))
    except SolverError as error:
        raise RacetrackError(str(error)) from error
    finally:
        kernels.close()
    data = {"track": args.track, "laps": laps, "rules": rules.name, "movement": rules.movement,
            "braking": rules.braking, **({"terrain": rules.terrain} if track.terrain else {}),
            **solution.to_json()}
    if args.json:
        print(json.dumps(data))
    elif solution.par is None:
        print(f"{args.track}: no par: {solution.reason}")
    else:
        system = rules.movement + (", hard braking" if rules.hard_braking else "")
        if track.terrain:
            system += f", terrain {rules.terrain}"
        start = solution.path[0]
        where = (f"from start slot {solution.slot + 1} ({start.x},{start.y})" if args.slot is not None
                 else f"from the best start place, slot {solution.slot + 1} ({start.x},{start.y})")
        what = "par" if args.slot is None else "fewest moves"
        print(f"{args.track}: {what} {solution.par} over {laps} lap(s) under {rules.name} rules ({system}) "
              f"{where} ({solution.states} states in {solution.seconds:.2f} s)")
        print("line: " + " ".join(f"{v.x},{v.y}" for v in solution.path))
        if solution.note:
            print(f"note: {solution.note}")
    return 0 if solution.par is not None else 1
