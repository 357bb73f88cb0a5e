"""The ``racetrack import`` subcommand: Karopapier maps into level packs, game logs into replays.

``racetrack import 43.map -o karo43.toml`` writes a one-track pack and lists what it
had to change (terrain read as off-road, unused start cells...) and the track's par.
``racetrack import 44773.details.json -o game.toml`` writes a replay of a Karopapier
game plus the map it was played on (``game.map`` beside it), with each round's choosing
order taken from the log's timestamps, then referees the replay under the "karopapier"
preset with the game's settings and compares the result with the log: every move, crash
and finish on its recorded round and node, and Karopapier's ranking. ``docs/tracks.md``
says which Karopapier rules Racetrack cannot reproduce exactly.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from pathlib import Path

from game.core.errors import RacetrackError
from game.core.rules import RuleSet, preset
from game.core.track import Track
from game.core.vec import RETIRE, Vec
from game.files import WouldReplace, may_replace, write_new_or_own, write_problem
from game.race.referee import RefereeError, referee
from game.race.replay import CarEntry, REPLAY_MARKER, Replay, ReplayError, dumps_replay, load_replay
from game.tracks.karo_import import (
    KaroGame,
    KaroImportError,
    KaroMap,
    convert_rows,
    game_map,
    map_to_pack,
    read_game,
    read_map,
)
from game.tracks.pack import read_map_text, read_pack_text
from game.tracks.problems import TrackError
from game.tracks.refs import file_ref


#: Tracks larger than this many road nodes get no par unless asked (the solver may take long).
PAR_NODE_LIMIT = 20_000
#: The first line of every pack the importer writes: such a file it may replace (game/files.py).
PACK_MARKER = "# Imported from a Karopapier map by `racetrack import`."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a Karopapier map (NAME.map) or game log (ID.details.json)")
    parser.add_argument("-o", "--output", help="where to write the pack or replay (default: beside the input)")
    parser.add_argument("--map", help="for a game log: the map file, when the log's own map is incomplete")
    parser.add_argument("--no-par", action="store_true", help="do not compute the par with the solver")
    parser.add_argument("--force-par", action="store_true", help="compute the par even on very large maps")
    parser.add_argument("--force", action="store_true",
                        help="replace an output file that Racetrack did not write (never the input)")


def run(args: argparse.Namespace) -> int:
    source = Path(args.file)
    if not source.exists():
        raise KaroImportError(f"{source}: no such file")
    force = getattr(args, "force", False)
    if source.suffix.lower() == ".json":
        out = Path(args.output) if args.output else source.with_name(source.name.split(".")[0] + ".replay.toml")
        result = import_game(source, out, map_file=args.map, force=force)
        for note in result.notes:
            print(f"note: {note}")
        print(f"wrote {result.track_path} and {out}: {len(result.cars)} cars, {result.phases} phases")
        if result.referee_problem:
            print(f"warning: {result.referee_problem}")
            return 1
        if result.disagreements:
            for problem in result.disagreements:
                print(f"warning: the referee disagrees with the log: {problem}")
            return 1
        checked = ("refereed under the karopapier rules in the log's turn order: every move legal, every crash "
                   "and finish as recorded")
        if result.unfinished:
            so_far = f"; finished so far: {', '.join(result.finishers)}" if result.finishers else ""
            print(f"{checked}; the game is not finished on Karopapier: {result.unfinished}{so_far}")
        else:
            print(f"{checked}; finish order {', '.join(result.finishers)} (as on Karopapier)")
        return 0
    result = import_map(source, solve_par=not args.no_par, force_par=args.force_par)
    for note in result.notes:
        print(f"note: {note}")
    if result.error:
        raise KaroImportError(f"{source}: cannot import: {result.error}")
    out = Path(args.output) if args.output else source.with_suffix(".toml")  # never the .map itself
    _write(out, result.pack_text, marker=PACK_MARKER, force=force, inputs=[source])
    par = f"par {result.par}" if result.par is not None else f"no par ({result.par_reason})"
    print(f"wrote {out}: track {result.track.id!r}, {result.track.width} x {result.track.height}, {par}")
    return 0


def _write(path: Path, text: str, *, marker: str | tuple[str, ...] = (), force: bool = False,
           inputs=()) -> None:
    """Write a file whole or not at all, never over a file Racetrack did not write (unless ``force``)."""
    try:
        write_new_or_own(path, text, marker=marker, force=force, inputs=inputs, make_folder=True)
    except WouldReplace as error:
        raise KaroImportError(f"not written: {error}") from None
    except OSError as error:
        raise KaroImportError(write_problem(path, error)) from None


# -- maps -------------------------------------------------------------------------------------
@dataclass
class MapImport:
    """What importing one map gave: the pack text (when it loads), notes, and par or why not."""

    karo: KaroMap
    pack_text: str
    notes: list[str] = field(default_factory=list)
    track: Track | None = None
    error: str | None = None
    par: int | None = None
    par_reason: str | None = None


def import_map(path: str | Path, *, solve_par: bool = True, force_par: bool = False) -> MapImport:
    """Read a ``.map`` and build its pack; never raises for a map that is merely unraceable.

    ``error`` says why the pack cannot be used (no start, a finish that is not a line
    across the road, ...); ``par_reason`` why there is no par.
    """
    karo = read_map(path)
    text, notes = map_to_pack(karo)
    starts = karo.count("S")
    if 0 < starts < 8:
        text = text.replace('rules = "karopapier"\n', f'rules = "karopapier"\ncars = {starts}\n', 1)
        notes.append(f"the start holds {starts} cars (cars = {starts})")
    result = MapImport(karo, text, notes)
    loaded = read_pack_text(text, file=str(Path(path).with_suffix(".toml")))
    for problem in loaded.problems:
        notes.append(problem.message)
    track = loaded.tracks[0] if loaded.tracks else None
    if track is None:
        result.error = next((p.message for p in loaded.errors), "the pack did not load")
        result.par_reason = result.error
        return result
    result.track = track
    if not solve_par:
        result.par_reason = "not asked for (--no-par)"
        return result
    road = int(track.region.road_nodes().sum())
    if road > PAR_NODE_LIMIT and not force_par:
        result.par_reason = f"{road} road nodes is more than {PAR_NODE_LIMIT}: the solver would take long " \
            "(use --force-par)"
        return result
    # The par of the rules the pack names (its `rules` line), from the best start place.
    result.par, result.par_reason = compute_par(track, preset(track.default_rules))
    if result.par is not None:
        result.pack_text = text.replace('rules = "karopapier"\n', f'rules = "karopapier"\npar = {result.par}\n', 1)
    return result


def compute_par(track: Track, rules: RuleSet | None = None) -> tuple[int | None, str | None]:
    """The solver's fewest moves from the best start place under ``rules`` (default: the
    track's own preset), or why there is none."""
    try:
        from game.drivers.solver import solve
    except ImportError:
        return None, "the solver (game.drivers.solver) is not available in this build"
    try:
        result = solve(track, rules or preset(track.default_rules), track.default_laps)
    except RacetrackError as error:
        return None, str(error)
    if result.par is None:
        return None, result.reason or "the solver found no way from the start to the finish"
    return int(result.par), None


# -- game logs --------------------------------------------------------------------------------
@dataclass
class GameImport:
    """A Karopapier game turned into a replay and its track."""

    game: KaroGame
    track: Track
    track_path: Path
    replay: object
    cars: list[str]
    player_of_car: list[int]
    phases: int
    notes: list[str] = field(default_factory=list)
    referee_problem: str | None = None  # a recorded move the referee refuses (or a replay it cannot read)
    disagreements: list[str] = field(default_factory=list)  # where the refereed race and the log differ
    finishers: list[str] = field(default_factory=list)
    unfinished: str = ""  # for a game still going on Karopapier: which rounds were imported


#: From this game id on, Karopapier lets only cars that already moved this round block
#: (its Game.js: "only for GID > 75000 limit to those that already moved").
MOVED_BLOCKERS_FROM_GAME = 75000


#: Karopapier's start-direction settings (``startdirection``, formerly ``dir``) as our
#: ``start_direction``: "classic" is "klassisch: erst weg vom Ziel", "formula1" is
#: "Formula 1: erst alle über's Ziel", "free" lets the first move go either way.
KARO_START_DIRECTIONS: dict[str, str] = {"classic": "away", "formula1": "formula1", "free": "free"}


def game_rules(game: KaroGame) -> RuleSet:
    """The "karopapier" preset with this game's own settings (set-back, start direction, and
    who blocks by its id)."""
    blockers = "moved" if game.id >= MOVED_BLOCKERS_FROM_GAME else "all"
    return preset("karopapier", {"setback_moves": max(1, min(99, game.setback)),
                                 "checkpoints": "any", "blockers": blockers,
                                 "start_direction": KARO_START_DIRECTIONS[game.start_direction]})


def game_choices(game: KaroGame, player_of_car: list[int]) -> list[tuple]:
    """Each phase's choices in car order, from the players' logs.

    Entry k of a log is the car after round k (entry 0 is the car on its start cell).
    Only complete rounds are taken (:meth:`KaroGame.complete_rounds`): in a game saved
    in the middle of a round, the moves of players who already moved in it are left out.
    A crash entry (set back after having no legal move) is no choice: the referee finds
    the car stuck and sets it back itself. A player's last entry is the parc-fermé move
    after finishing (dropped: a finished car stops) or, for a player who left, the
    retirement.
    """
    rounds = game.complete_rounds()
    phases = []
    for k in range(1, rounds + 1):
        row = []
        for p in player_of_car:
            player = game.players[p]
            last = len(player.moves) - 1
            if k > last or player.moves[k].crash:
                row.append(None)
            elif k == last and player.left:
                row.append(RETIRE)
            elif k == last and player.rank > 0:
                row.append(None)  # the parc-fermé move
            else:
                move = player.moves[k]
                row.append(Vec(move.x, move.y))
        phases.append(tuple(row))
    while phases and all(c is None for c in phases[-1]):
        phases.pop()
    return phases


def game_orders(game: KaroGame, player_of_car: list[int], phases: int) -> list[tuple[int, ...] | None]:
    """Each round's choosing order (car indices), from the log's timestamps.

    Karopapier players move in whatever order they log in, so round k's order is its
    entries sorted by time (equal times by car index); cars with no entry that round
    (finished, or gone) come last, in car order: they do not choose. A round where some
    entry has no timestamp gets no order (None: the rules' grid order).
    """
    orders: list[tuple[int, ...] | None] = []
    for k in range(1, phases + 1):
        timed, rest = [], []
        for car, p in enumerate(player_of_car):
            moves = game.players[p].moves
            if k < len(moves):
                timed.append((moves[k].time, car))
            else:
                rest.append(car)
        if any(not time for time, _ in timed):
            orders.append(None)
        else:
            orders.append(tuple(car for _, car in sorted(timed)) + tuple(rest))
    return orders


def compare_with_log(game: KaroGame, player_of_car: list[int], cars: list[str], refereed) -> list[str]:
    """Where a refereed replay of ``game`` differs from its log; empty when they agree.

    Checked: after every round each racing car stands on its logged node; the referee
    sets a car back exactly on the rounds the log marks as crashes; each finisher
    finishes on the round before its parc-fermé entry; the ranks are Karopapier's.
    """
    problems: list[str] = []
    crashes, finishes = set(), {}
    for number, (state, record) in enumerate(zip(refereed.states[1:], refereed.records), start=1):
        for event in record.events:
            if event.kind == "penalty" and event.detail.startswith("set back"):
                crashes.add((number, event.car))
            elif event.kind == "finish":
                finishes[event.car] = number
        for car, p in enumerate(player_of_car):
            moves = game.players[p].moves
            here = state.cars[car]
            if here.racing and number < len(moves) and (here.position.x, here.position.y) != \
                    (moves[number].x, moves[number].y):
                problems.append(f"round {number}: {cars[car]} stands on ({here.position.x}, {here.position.y}), "
                                f"the log says ({moves[number].x}, {moves[number].y})")
    rounds = len(refereed.records)
    for car, p in enumerate(player_of_car):
        player = game.players[p]
        logged = {k for k, m in enumerate(player.moves) if m.crash and k <= rounds}
        refereed_crashes = {k for k, c in crashes if c == car}
        for k in sorted(logged - refereed_crashes):
            problems.append(f"round {k}: {player.name} crashed on Karopapier but not in the replay")
        for k in sorted(refereed_crashes - logged):
            problems.append(f"round {k}: {player.name} crashed in the replay but not on Karopapier")
        expected = len(player.moves) - 2 if player.rank > 0 else None
        if finishes.get(car) != expected:
            problems.append(f"{player.name} finished in round {finishes.get(car)} in the replay, "
                            f"in round {expected} on Karopapier")
    ranks = refereed.outcome.ranks
    for car, p in enumerate(player_of_car):
        player = game.players[p]
        karo_rank = player.rank if player.rank > 0 else None
        if ranks[car] != karo_rank:
            problems.append(f"{player.name} ranks {ranks[car]} in the replay, {karo_rank} on Karopapier")
    return problems


def import_game(path: str | Path, out: str | Path, *, map_file: str | Path | None = None,
                force: bool = False) -> GameImport:
    """Write a replay of a Karopapier game (and the map beside it), referee it and compare it with the log.

    Everything is checked before anything is written, and every problem with the log is
    a :class:`KaroImportError` naming the log and the key. Neither the log nor the map it
    was read with is ever replaced; another existing file only with ``force`` (or when
    Racetrack wrote it, or it already holds the same text).
    """
    path, out = Path(path), Path(out)
    game = read_game(path)
    karo = game_map(game, path, map_file)
    inputs = [path] + ([Path(map_file)] if map_file is not None else []) + [
        p for p in _map_candidates(game, path) if p.exists()]
    _check_moves_on_map(game, karo, path)
    used = _check_starts(game, karo, path)
    rows, notes = _game_rows(game, karo, used)
    track_path = out.with_suffix(".map") if out.suffix != ".map" else out.with_name(out.stem + "-track.map")
    map_text = "\n".join(rows) + "\n"
    loaded = read_map_text(map_text, track_path)
    if not loaded.tracks:
        raise TrackError(loaded.problems)
    track = loaded.tracks[0]
    slot_index = {(s.x, s.y): i for i, s in enumerate(track.start_slots)}
    player_of_car = [0] * len(game.players)
    for p, player in enumerate(game.players):
        player_of_car[slot_index[(player.moves[0].x, player.moves[0].y)]] = p
    cars = [CarEntry(game.players[p].name, "human") for p in player_of_car]
    phases = game_choices(game, player_of_car)
    orders = game_orders(game, player_of_car, len(phases))
    rules = game_rules(game)
    try:
        replay = Replay.from_race(file_ref(track_path.name), 1, rules, 0, cars, phases, orders=orders,
                                  title=f"Karopapier game {game.id}: {game.name}"[:200])
    except ReplayError as error:
        raise KaroImportError(f"{path}: the game cannot be a replay: {error.problem}") from None
    _write_both(track_path, map_text, out, dumps_replay(replay), REPLAY_MARKER, force=force, inputs=inputs)
    notes.append("the parc-fermé move after each finish is dropped: a finished car stops on the line")
    notes.append(_turn_order_note(orders))
    result = GameImport(game, track, track_path, replay, [c.name for c in cars], player_of_car, len(phases), notes)
    result.unfinished = _unfinished(game, len(phases))
    try:
        refereed = referee(load_replay(out), track)
    except (RefereeError, ReplayError) as error:
        result.referee_problem = str(error)
        return result
    outcome = refereed.outcome
    ranked = sorted((r, i) for i, r in enumerate(outcome.ranks) if r is not None)
    result.finishers = [cars[i].name for _, i in ranked]
    result.disagreements = compare_with_log(game, player_of_car, result.cars, refereed)
    return result


def _check_moves_on_map(game: KaroGame, karo, path: Path) -> None:
    """Every logged move lies on the map (a KaroImportError names the first that does not)."""
    for index, p in enumerate(game.players):
        for k, move in enumerate(p.moves):
            for key, value, size in (("x", move.x, karo.width), ("y", move.y, karo.height)):
                if not 0 <= value < size:
                    raise KaroImportError(f"{path}: players[{index}].moves[{k}].{key}: {value} is off map {karo.id} "
                                          f"({'columns' if key == 'x' else 'rows'} 0 to {size - 1})")


def _check_starts(game: KaroGame, karo, path: Path) -> set[tuple[int, int]]:
    """The cells the players start on: each a start cell (S) of the map, none shared."""
    used = {(p.moves[0].x, p.moves[0].y) for p in game.players}
    for index, p in enumerate(game.players):
        x, y = p.moves[0].x, p.moves[0].y
        if karo.rows[y][x] != "S":
            raise KaroImportError(f"{path}: players[{index}].moves[0]: player {p.name!r} starts at x={x}, y={y}, "
                                  f"which is not a start cell (S) of map {karo.id}")
    if len(used) != len(game.players):
        raise KaroImportError(f"{path}: players: two players start on the same cell")
    return used


def _game_rows(game: KaroGame, karo, used: set[tuple[int, int]]) -> tuple[list[str], list[str]]:
    """The map's rows as this game was played on it, and notes on what the replay does not reproduce."""
    rows, notes = convert_rows(karo, keep_starts=used)
    if not game.checkpoints:
        rows = ["".join("O" if ch.isdigit() else ch for ch in row) for row in rows]
        notes.append("the game was played without checkpoints: their cells became road")
    if game.crash_allowed != "forbidden":
        notes.append(f"tactical crashes were {game.crash_allowed!r} in this game; Racetrack's setback rule "
                     "forbids moves off the road")
    return rows, notes


def _write_both(track_path: Path, map_text: str, out: Path, replay_text: str, replay_marker, *, force: bool,
                inputs: list[Path]) -> None:
    """Write the map and the replay, or neither: both are checked first, and a new map is taken back
    when the replay cannot be written."""
    for target, text, marker in ((track_path, map_text, ()), (out, replay_text, replay_marker)):
        why = may_replace(target, text, marker=marker, force=force, inputs=inputs)
        if why:
            raise KaroImportError(f"not written: {why}")
    new_map = not os.path.lexists(track_path)
    _write(track_path, map_text, force=force, inputs=inputs)
    try:
        _write(out, replay_text, marker=replay_marker, force=force, inputs=inputs)
    except KaroImportError:
        if new_map:  # do not leave a map behind for a replay that was not written
            track_path.unlink(missing_ok=True)
        raise


def _turn_order_note(orders: list) -> str:
    """How the replay orders each round's moves, naming the rounds that fall back to the grid order."""
    untimed = [k for k, o in enumerate(orders, start=1) if o is None]
    return ("turn order: each round is played in the order the players moved on Karopapier "
            "(their log's timestamps), kept in the replay's [orders] table"
            + (f"; rounds {', '.join(map(str, untimed[:5]))}{'...' if len(untimed) > 5 else ''} have "
               "entries without a time and use the grid order" if untimed else ""))


def _unfinished(game: KaroGame, rounds: int) -> str:
    """What was left out of a game still running, or "" for a finished one."""
    if not (game.racing or game.finished is False):
        return ""
    ahead = [game.players[i].name for i in game.racing if len(game.players[i].moves) - 1 > rounds]
    note = f"its {rounds} complete round{'s' if rounds != 1 else ''} were imported"
    if ahead:
        note += f" (the moves {', '.join(ahead)} made in round {rounds + 1} are left out: the others had not moved yet)"
    return note


def _map_candidates(game: KaroGame, log: Path) -> list[Path]:
    """Where :func:`game_map` looks for the game's map file (each one an input never to replace)."""
    folder = log.resolve().parent
    name = f"{game.map_id}.map"
    return [folder / name, folder / "maps" / name, folder.parent / "maps" / name]
