"""The `racetrack cup` subcommand: a Grand Prix cup between CPU drivers, headless, with the standings.

Every race is played as ``racetrack sim`` plays one (the same outcome JSON, each car
with the points it scored); the standings follow (name, driver, points, wins, places,
moves). ``--out FOLDER`` keeps the cup file and each race's replay there, as the game
keeps a cup in progress.
"""

from __future__ import annotations

import sys
from pathlib import Path

from game.commands.sim import MAX_PHASES, simulate
from game.core.errors import RacetrackError
from game.drivers.compiling import ForegroundKernels
from game.drivers.levels import level_kinds, levels_help
from game.files import may_replace, name_problem, shown
from game.paths import builtin_tracks_dir


def add_arguments(parser) -> None:
    parser.add_argument("--pack", required=True, metavar="PACK",
                        help="a built-in pack id (starter, classics, grand-prix) or a path to a pack .toml")
    parser.add_argument("--cup", default=None, metavar="ID",
                        help="one of the pack's [[cup]] tables (default: every track of the pack)")
    parser.add_argument("--cars", default=",".join(reversed(level_kinds())),
                        help=f"comma-separated CPU levels, one per car: {levels_help()} "
                        "(default: champion, pro, rookie)")
    parser.add_argument("--points", default=None, metavar="TABLE",
                        help="points table: classic (10-8-6-5-4-3-2-1), f1 or places (default: the cup's)")
    parser.add_argument("--seed", type=int, default=0, help="cup seed (every race's seed follows from it)")
    parser.add_argument("--json", action="store_true", help="print every race's outcome and the standings as JSON")
    parser.add_argument("--out", default=None, metavar="FOLDER",
                        help="save the cup file and every race's replay in this folder")
    parser.add_argument("--force", action="store_true",
                        help="with --out: replace files there that Racetrack did not write (copies kept as NAME.old)")


def find_pack(ref: str, builtin_dir):
    """The pack result and whether it is built in, for ``--pack``; raises CupError when unusable."""
    from game.race.cup import CupError
    from game.tracks import load_pack

    builtin = not ref.endswith(".toml")
    path = Path(builtin_dir) / f"{ref}.toml" if builtin else Path(ref)
    if not path.is_file():
        known = sorted(p.stem for p in Path(builtin_dir).glob("*.toml"))
        raise CupError(f"no pack {ref!r}" + (f" (built-in packs: {', '.join(known)})" if builtin else ""),
                       file=None if builtin else ref)
    result = load_pack(path)
    if result.pack is None:
        raise CupError("the pack cannot be read:\n" + "\n".join(str(p) for p in result.errors), file=path)
    return result, builtin


def pick_cup(result, cup_id: str | None):
    """The pack's cup named ``cup_id`` (its whole track list when None); raises CupError naming the problems."""
    from game.race.cup import CupError

    cups = {c.id: c for c in result.pack.all_cups()}
    wanted = cup_id or result.pack.id
    if wanted in cups:
        return cups[wanted]
    problems = result.cup_problems(wanted)
    if problems:
        raise CupError(f"cup {wanted!r} has errors:\n" + "\n".join(str(p) for p in problems), file=result.path)
    raise CupError(f"no cup {wanted!r} in this pack (cups: {', '.join(cups) or 'none'})", file=result.path)


def play_cup(cup, tracks, kinds, out: Path | None = None, max_phases: int | None = None, *, force: bool = False,
             inputs=(), kernels=None):
    """Play every race left in ``cup`` with CPUs; returns the finished cup and each race's outcome dict.

    With ``out`` the cup file and each race's replay are written there by the game's one
    write rule (``game.files.write_new_or_own``; see :func:`check_out`, which callers run
    first so a refusal comes before any race is played). ``kernels`` is where the CPUs'
    solver gets its kernels (``game.drivers.compiling``; None: compiled on first use).
    """
    from game.race.cup import CUP_FILE, RaceResult, replay_name, save_cup
    from game.race.replay import save_replay
    from game.race.report import outcome_json

    outcomes = []
    if out is not None:
        make_out(out)
    while not cup.finished:
        k = cup.next_index
        race = cup.races[k]
        replay, final, records = simulate(tracks[k], race.track, race.rules, kinds, race.laps, cup.race_seed(k),
                                          max_phases or MAX_PHASES, kernels=kernels)
        name = ""
        if out is not None:
            name = replay_name(k)
            save_replay(replay, out / name, force=force, inputs=inputs)
        result = RaceResult.from_state(final, name)
        outcome = outcome_json(replay, final, records)
        for car, points in zip(outcome["cars"], cup.points_in(result)):
            car["points"] = points
        outcomes.append({"race": k + 1, **outcome})
        cup = cup.with_result(result)
        if out is not None:
            save_cup(cup, out / CUP_FILE, force=force, keep_foreign=False, inputs=inputs)
    return cup, outcomes


def make_out(out: Path) -> None:
    """Make the ``--out`` folder (and its parents); a CupError naming it when that cannot be done."""
    from game.race.cup import CupError

    if out.exists() and not out.is_dir():
        raise CupError(f"--out {shown(out)}: is a file, not a folder; name a folder to keep the cup in")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = error.strerror or str(error)
        if isinstance(error, (FileExistsError, NotADirectoryError)):
            reason += " (a file stands where a folder of this path should be)"
        raise CupError(f"--out {shown(out)}: cannot make the folder: {reason}") from None


def check_out(out: Path, cup, *, force: bool = False, inputs=()) -> None:
    """Refuse, before any race is played, an ``--out`` folder where the cup would replace a user's file.

    Checks the folder (a file there, a name with control characters) and every file the
    cup will write in it (``cup.toml``, ``race-N.toml``) by the game's write rule: a file
    Racetrack did not write is replaced only with ``--force``, an input (the pack) never.
    """
    from game.race.cup import CUP_FILE, CupError, is_own_cup, replay_name
    from game.race.replay import REPLAY_MARKER

    bad = name_problem(out)
    if bad:
        raise CupError(f"--out {bad}")
    if out.exists() and not out.is_dir():
        raise CupError(f"--out {shown(out)}: is a file, not a folder; name a folder to keep the cup in")
    targets = [(out / CUP_FILE, {"owned": is_own_cup})]
    targets += [(out / replay_name(k), {"marker": REPLAY_MARKER}) for k in range(cup.next_index, len(cup.races))]
    for path, how in targets:
        why = may_replace(path, force=force, inputs=inputs, **how)
        if why:
            raise CupError(f"--out: not written: {why}")


def standings_json(cup) -> list[dict]:
    return [{"position": s.position, "name": s.name, "driver": s.driver, "points": s.points, "wins": s.wins,
             "places": [p for p in s.places], "moves": s.moves} for s in cup.standings()]


def standings_table(cup) -> str:
    lines = [f"{cup.name}: standings after {len(cup.results)} race(s), points {cup.points.label}"]
    width = max(len(e.name) for e in cup.entrants)
    lines.append(f"  {'#':>3}  {'car':<{width}}  {'driver':<13} {'points':>6} {'wins':>4}  places")
    for s in cup.standings():
        places = " ".join("-" if p is None else str(p) for p in s.places)
        lines.append(f"  {s.position:>3}  {s.name:<{width}}  {s.driver:<13} {s.points:>6} {s.wins:>4}  {places}")
    return "\n".join(lines)


def run(args) -> int:
    from game.race.cup import Entrant, cup_from_def, cup_refs
    from game.race.report import dumps_outcome, outcome_table
    from game.tracks.cups import points_table

    kinds = [k.strip() for k in args.cars.split(",") if k.strip()]
    if not kinds:
        raise RacetrackError("--cars needs at least one driver kind, e.g. cpu:champion")
    if "human" in kinds:
        raise RacetrackError(f"a headless cup has no players: use CPU levels ({', '.join(level_kinds())})")
    from game.drivers.cpu import KINDS
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise RacetrackError(f"unknown driver kind {unknown[0]!r}; choose among {', '.join(KINDS)}")
    builtin_dir = builtin_tracks_dir()
    result, builtin = find_pack(args.pack, builtin_dir)
    definition = pick_cup(result, args.cup)
    try:
        points = points_table(args.points) if args.points else None
    except ValueError as error:
        raise RacetrackError(f"--points: {error}") from None
    by_id = {t.id: t for t in result.tracks}
    tracks = [by_id[race.track] for race in definition.races]
    too_small = [t for t in tracks if len(t.start_slots) < len(kinds)]
    if too_small:
        raise RacetrackError(f"track {too_small[0].id!r} has {len(too_small[0].start_slots)} start places, "
                             f"too few for {len(kinds)} cars")
    entrants = [Entrant(f"{kind.split(':')[-1].capitalize()} {i + 1}", kind) for i, kind in enumerate(kinds)]
    refs = cup_refs(result.pack.id, result.path, definition, builtin)
    cup = cup_from_def(definition, refs, tracks, entrants, args.seed, points=points,
                       source=args.pack)
    out = Path(args.out) if args.out else None
    inputs = [result.path]
    if out is not None:
        check_out(out, cup, force=args.force, inputs=inputs)

    # A run compiles what the cache lacks: the next one only loads it.
    kernels = ForegroundKernels(say=lambda text: print(text, file=sys.stderr, flush=True))
    cup, outcomes = play_cup(cup, tracks, kinds, out, force=args.force, inputs=inputs, kernels=kernels)
    if args.json:
        doc = {"cup": cup.id, "name": cup.name, "pack": args.pack, "seed": cup.seed,
               "points": {"table": cup.points.name, "values": list(cup.points.values)},
               "races": outcomes, "standings": standings_json(cup)}
        print(dumps_outcome(doc), end="")
    else:
        for outcome in outcomes:
            points = ", ".join(f"{c['name']} {c['points']}" for c in outcome["cars"])
            print(f"race {outcome['race']}: " + outcome_table(outcome) + f"\n  points: {points}")
        print(standings_table(cup))
    return 0
