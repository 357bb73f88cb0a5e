"""The `racetrack solve` subcommand: par and an optimal line for a track, from the exact solver."""

from __future__ import annotations

import json

from game.commands.rule_args import add_rule_arguments, rules_from_args

HELP = "compute a track's par (fewest moves for one car alone) and an optimal line"


def add_arguments(parser) -> None:
    parser.add_argument("track", metavar="TRACK", help="PACK/TRACK, path/pack.toml#TRACK or path/file.map")
    parser.add_argument("--laps", type=int, default=None, help="laps to race (default: the track's)")
    add_rule_arguments(parser, '; fine and flick are not solved exactly')
    parser.add_argument("--slot", type=int, default=1, help="start slot, 1 = the best (default)")
    parser.add_argument("--json", action="store_true", help="print JSON")


def run(args) -> int:
    from game.core.errors import RacetrackError
    from game.drivers.solver import Solver, SolverError
    from game.paths import builtin_tracks_dir
    from game.tracks.pack import load_track_ref

    track = load_track_ref(args.track, builtin_dir=builtin_tracks_dir())
    rules = rules_from_args(args, track.default_rules)
    laps = track.default_laps if args.laps is None else args.laps
    if not 1 <= laps <= 99:
        raise RacetrackError(f"--laps must be from 1 to 99, not {laps}")
    if not 1 <= args.slot <= len(track.start_slots):
        raise RacetrackError(f"track {track.id!r} has start slots 1 to {len(track.start_slots)}, not {args.slot}")
    from game.drivers.compiling import BackgroundKernels

    kernels = BackgroundKernels().start()  # the first run after an install searches while the kernels compile
    try:
        solution = Solver(kernels=kernels).solve(track, rules, laps, slot=args.slot - 1)
    except SolverError as error:
        raise RacetrackError(str(error)) from error
    finally:
        kernels.close()
    data = {"track": args.track, "laps": laps, "rules": rules.name, "movement": rules.movement,
            "braking": rules.braking,
            **solution.to_json()}
    if args.json:
        print(json.dumps(data))
    elif solution.par is None:
        print(f"{args.track}: no par: {solution.reason}")
    else:
        system = rules.movement + (", hard braking" if rules.braking == "hard" else "")
        print(f"{args.track}: par {solution.par} over {laps} lap(s) under {rules.name} rules ({system}) "
              f"({solution.states} states in {solution.seconds:.2f} s)")
        print("line: " + " ".join(f"{v.x},{v.y}" for v in solution.path))
        if solution.note:
            print(f"note: {solution.note}")
    return 0 if solution.par is not None else 1
