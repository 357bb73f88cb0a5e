"""The `racetrack sim` subcommand: a headless race between CPU drivers, printed as the race outcome."""

from __future__ import annotations

import sys

from game.commands.rule_args import add_rule_arguments, rules_from_args
from game.core.errors import RacetrackError
from game.drivers.compiling import ForegroundKernels
from game.drivers.levels import level_kinds, levels_help
from game.files import may_replace
from game.paths import builtin_tracks_dir


MAX_PHASES = 2000  # a race still running after this many phases is stopped (and reported unfinished)


def add_arguments(parser) -> None:
    parser.add_argument("--track", required=True, metavar="TRACK",
                        help="PACK/TRACK, path/pack.toml#TRACK, path/file.map or gen:CODE (a generated track)")
    parser.add_argument("--cars", default=",".join(reversed(level_kinds())),
                        help=f"comma-separated CPU levels, one per car: {levels_help()} "
                        "(default: champion, pro, rookie)")
    parser.add_argument("--laps", type=int, default=None, help="laps to race (default: the track's)")
    add_rule_arguments(parser)
    parser.add_argument("--seed", type=int, default=0, help="race seed (choosing order, CPU randomness)")
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")
    parser.add_argument("--replay-out", default=None, metavar="FILE", help="save the race as a replay file")
    parser.add_argument("--force", action="store_true",
                        help="with --replay-out: replace a file there that Racetrack did not write")


def simulate(track, track_ref: str, rules, kinds, laps: int | None, seed: int, max_phases: int = MAX_PHASES,
             kernels=None, notes: list | None = None, memory_budget: int | None = None):
    """Race the given driver kinds on ``track``; returns (replay, final state, records).

    ``kernels`` is where the solver gets its kernels (``game.drivers.compiling``; None:
    compiled here on first use); ``memory_budget`` bounds the CPUs' tables (bytes; None:
    the solver's default). ``notes``, when given, receives what the CPUs could not do
    exactly (a table over the budget: they raced with a bounded one).
    """
    from game.core.race import RaceState
    from game.drivers.cpu import make_driver, make_shared
    from game.drivers.solver import Solver
    from game.race.controller import RaceController, Seat
    from game.race.referee import RaceLog

    shared = make_shared(Solver(kernels=kernels, memory_budget=memory_budget))
    names = [f"{kind.split(':')[-1].capitalize()} {i + 1}" for i, kind in enumerate(kinds)]
    drivers = [make_driver(kind, shared=shared) for kind in kinds]
    state = RaceState.start(track, rules, names, laps=laps, seed=seed)
    from game.race.standing import SolverStanding

    controller = RaceController(state, [Seat(n, d) for n, d in zip(names, drivers)], seed=seed,
                                standing=SolverStanding(shared, wait=True))
    log = RaceLog.for_state(track_ref, state, list(kinds))
    while not controller.over and len(controller.records) < max_phases:
        record = controller.tick()
        if record is not None:
            log.record(record)
    if notes is not None:
        notes.extend(shared.notes)
    return log.to_replay(), controller.state, controller.records


def run(args) -> int:
    from game.race.replay import save_replay
    from game.race.report import dumps_outcome, outcome_json, outcome_table
    from game.drivers.generated import load_track
    from game.tracks.refs import canonical_ref

    kinds = [k.strip() for k in args.cars.split(",") if k.strip()]
    if not kinds:
        raise RacetrackError("--cars needs at least one driver kind, e.g. cpu:champion")
    if not -2**63 <= args.seed < 2**63:  # a replay keeps the seed as a 64-bit number
        raise RacetrackError(f"--seed must be a whole number from -2**63 to 2**63 - 1, not {args.seed}")
    track = load_track(args.track, builtin_dir=builtin_tracks_dir())
    rules = rules_from_args(args, track.default_rules)
    inputs = [f for f in (track.meta.get("file"),) if f]
    if args.replay_out:  # refused before the race, not after it
        from game.race.replay import REPLAY_MARKER, ReplayError

        why = may_replace(args.replay_out, marker=REPLAY_MARKER, force=args.force, inputs=inputs)
        if why:
            raise ReplayError(f"not saved: {why}", file=args.replay_out)
    # As replays store it: a # or a byte that is not UTF-8 in a file name escaped (game.tracks.refs).
    ref = canonical_ref(args.track)

    # A run compiles what the cache lacks: the next one only loads it.
    kernels = ForegroundKernels(say=lambda text: print(text, file=sys.stderr, flush=True))
    notes: list[str] = []
    try:
        replay, final, records = simulate(track, ref, rules, kinds, args.laps, args.seed, kernels=kernels,
                                          notes=notes)
    finally:
        kernels.close()
    for note in notes:  # a table over the memory budget: the race was run with a bounded one
        print(f"racetrack: note: {note}", file=sys.stderr)
    outcome = outcome_json(replay, final, records)
    if args.replay_out:
        save_replay(replay, args.replay_out, force=args.force, inputs=inputs)
    print(dumps_outcome(outcome) if args.json else outcome_table(outcome), end="" if args.json else "\n")
    return 0
