"""Replays: a whole race as a small TOML file a modder can read and hand-edit.

A replay stores what is needed to play a race again through the referee: the track
reference, laps, rule set (preset plus overrides), seed, the cars, and for every phase
each car's choice. Everything else (positions, crashes, the winner) follows from the
rules, so it is never stored. ``docs/replays.md`` describes the file for modders::

    format = 4
    track = "pack.toml#loop"
    track_checksum = "5f0c2a9e81d4b7c3"
    laps = 1
    seed = 7
    title = "Ada against the Champion"

    [rules]
    preset = "paper"
    collision = "spin"

    [[car]]
    name = "Ada"
    driver = "human"

    [[car]]
    name = "Champion"
    driver = "cpu:champion"

    [phases]
    1 = [[4, 2], [4, 3]]
    2 = [[6, 2], "retire"]
    3 = [[9, 2], "-"]

    [orders]
    2 = [2, 1]

    [standings]
    1 = [31, 31]
    2 = [29, "-"]

Each phase line lists one entry per car, in car order: the chosen target node
``[x, y]``, ``"retire"``, or ``"-"`` when the car does not choose that phase (it is
no longer racing, or misses a turn).

The optional ``[orders]`` table holds the choosing order of phases that were played in
an order given from outside the rules (a Karopapier game: whoever logged in first moved
first). It lists car numbers as the file counts its ``[[car]]`` tables, from 1; phases
without a line use the rules' own order. In Python (``Replay.orders``) the same orders
hold car indices from 0, as ``RaceState.apply(order=...)`` takes them.

Car names must differ: the outcome names its winners by name.

The optional ``[standings]`` table (format 4) holds, for the phases of a race under rules
that read it (the ``by_position`` order, catch-up: ``RuleSet.needs_standing``), each car's
moves to go as race control read them from the solver's table before the phase, one entry
per car in car order (``"-"`` where it had none); the referee hands them to the state
again, so the race is refereed exactly as it was played without the solver.

Rule options a replay does not name take their preset's value, except in a replay older
than the option (:data:`OPTION_SINCE`): one of format 3 or older gets every option format 4
added at its default, the value that plays as the game did then, whatever a preset says now.

The optional ``track_checksum`` (format 3) is :func:`track_checksum` of the track the
race was driven on: a debrief (``racetrack debrief``) refuses a replay whose track has
changed since, rather than give wrong numbers. Older replays have none and are read as before.

:func:`load_replay` checks everything and raises :class:`ReplayError` naming the
file, the key and the line; :func:`save_replay` writes atomically.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from game.core.errors import RacetrackError, RulesError
from game.core.limits import laps_problem
from game.core.race import Choice, PhaseRecord
from game.core.rules import OPTIONS, NUMBERS, PRESET_NAMES, PRESETS, RuleSet, preset
from game.core.text import NAME, TITLE, shown, text_problem
from game.core.vec import RETIRE, Retire, Vec
from game.files import LIMITS, DataError, WouldReplace, parse_toml, read_bytes, write_new_or_own
from game.tomlerrors import KeyLines, syntax_problem
from game.tracks import TrackError, load_track_ref
from game.tracks.refs import file_ref, is_file_ref, is_generated_ref, split_file_ref

#: The replay format this code writes. Format 1 was written before terrain had rules of its
#: own: every terrain letter was off-road then, so a format-1 replay that does not name the
#: ``terrain`` option is read with ``terrain = "offroad"`` and plays on as it was recorded.
#: Format 3 adds the optional ``track_checksum``; a format-2 replay is read as it was.
#: Format 4 adds the rule options of issue 26 on (fair orders, slipstream, catch-up, and
#: whatever option comes after) and the ``[standings]`` table.
FORMAT = 4
#: The formats this code reads.
READS = (1, 2, 3, 4)
#: The first replay format that could name each rule option. An option a replay older than
#: that does not name is played at its default: the option's first value, which by the rules'
#: convention is the game as it was before the option existed. An option not listed here is
#: taken as new in the current :data:`FORMAT`, so an option added without a line here still
#: leaves every older replay as it was (add its line when the format moves on).
OPTION_SINCE: dict[str, int] = {
    **dict.fromkeys((
        "movement", "braking", "fine_range", "zero_move", "start", "offroad_check", "offroad_penalty",
        "setback_moves", "collision", "block_passing", "blockers", "collide_in_motion", "finish", "order",
        "checkpoints", "terrain"), 1),
    "slipstream": 4, "catch_up": 4,
}
#: The first line of every replay file the game writes (so it may replace one, and no other file).
REPLAY_MARKER = "# Racetrack replay"
#: Laps a race may have (the same bounds as ``RaceState.start``).
#: More cars than this is never a real race; it keeps hand-edited files sane.
MAX_CARS = 64
#: The most phases a replay holds (real Karopapier games run a few hundred; ``racetrack sim``
#: stops at 2000). Bounds the time and memory a hostile file can cost (docs/limits.md).
MAX_PHASES = 20_000
#: How a phase line spells "this car does not choose".
NO_CHOICE = "-"
RETIRE_WORD = "retire"

#: Top-level keys of a replay file and whether they are required.
_TOP_KEYS = {
    "format": True, "track": True, "laps": True, "seed": True, "rules": True, "car": True,
    "phases": False, "orders": False, "title": False, "date": False, "app_version": False,
    "track_checksum": False, "standings": False,
}
_CAR_KEYS = ("name", "driver")
#: Optional keys of a ``[[car]]`` table, with the value a file without them means.
_CAR_OPTIONAL = {"assist": "", "handicap": 0}
#: How handicaps are given: the rule option ``handicap`` (``[rules] handicap``), see ``game.race.handicap``.
HANDICAP_KINDS = tuple(OPTIONS["handicap"])
#: The largest handicap a car may take, in moves.
MAX_HANDICAP = 10
#: The assists a car may have raced with ("": none; "coach": the coaching rings and stopping distance).
ASSISTS = ("", "coach")


class ReplayError(RacetrackError, ValueError):
    """A replay that cannot be read, written or built; the message names the file, key and line.

    ``file``, ``key`` and ``line`` are kept as attributes (each may be None) so a caller
    can point at the place; ``problem`` is the bare description.
    """

    def __init__(self, problem: str, *, file: str | os.PathLike | None = None, key: str | None = None,
                 line: int | None = None) -> None:
        self.problem = problem
        self.file = None if file is None else str(file)
        self.key = key
        self.line = line
        where = self.file or "replay"
        if line is not None:
            where += f":{line}"
        super().__init__(f"{where}: {key + ': ' if key else ''}{problem}")


@dataclass(frozen=True)
class CarEntry:
    """One car of a replay: its name as the players saw it and who drove it.

    ``driver`` is a driver kind such as ``"human"``, ``"cpu:champion"``, ``"cpu:pro"``
    or ``"cpu:rookie"`` (see ``game.drivers``); the referee does not need it, the
    results and the game's "watch again" show it.
    """

    name: str
    driver: str = "human"
    #: The assist the driver raced with (:data:`ASSISTS`; "" none): an assisted best is told apart.
    assist: str = ""
    #: Its handicap in moves (0 to :data:`MAX_HANDICAP`), given as the rule option ``handicap`` says.
    handicap: int = 0


PhaseChoices = tuple[Choice | None, ...]
#: Each car's moves to go before one phase (None where race control had none).
Standing = tuple[int | None, ...]
#: A choosing order for one phase: every car index (from 0) once, first to choose first.
Order = tuple[int, ...]


@dataclass(frozen=True)
class Replay:
    """A recorded race: enough to referee it again and to watch it again.

    ``phases[k][i]`` is car *i*'s choice in phase *k + 1*: a target ``Vec``, ``RETIRE``,
    or None when the car did not choose. ``orders[k]`` is the choosing order phase
    *k + 1* was played in (car indices from 0), or None for the rules' own order;
    ``orders`` is ``()`` when no phase had an explicit order, and otherwise one entry
    per phase (a shorter tuple is padded with None). ``source`` is the file it was loaded from
    (used in messages, ignored by equality); ``track`` is the reference as written,
    resolved against that file's folder by :func:`resolve_track_ref`.
    """

    track: str
    laps: int
    rules: RuleSet
    seed: int
    cars: tuple[CarEntry, ...]
    phases: tuple[PhaseChoices, ...] = ()
    orders: tuple[Order | None, ...] = ()
    standings: tuple[Standing | None, ...] = ()
    title: str | None = None
    date: str | None = None
    app_version: str | None = None
    track_checksum: str | None = None
    source: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        _check_replay(self)
        # One spelling per meaning, so equal races compare equal however they were built.
        orders = tuple(self.orders)
        if all(o is None for o in orders):
            orders = ()
        else:
            orders += (None,) * (len(self.phases) - len(orders))
        object.__setattr__(self, "orders", orders)
        standings = tuple(self.standings)
        if all(s is None for s in standings):
            standings = ()
        else:
            standings += (None,) * (len(self.phases) - len(standings))
        object.__setattr__(self, "standings", standings)

    @classmethod
    def from_race(cls, track_ref: str, laps: int, rules: RuleSet, seed: int,
                  cars: Sequence[CarEntry | tuple[str, str] | str],
                  phases: Iterable[PhaseRecord | Mapping[int, Choice] | Sequence[Choice | None]] = (),
                  *, orders: Mapping[int, Sequence[int]] | Iterable[Sequence[int] | None] | None = None,
                  standings: Iterable[Sequence[int | None] | None] | None = None, title: str | None = None,
                  date: str | None = None, app_version: str | None = None, track_checksum: str | None = None,
                  ) -> Replay:
        """Build a replay from what race control knows.

        ``cars`` are :class:`CarEntry` values, ``(name, driver)`` pairs or bare names
        (driven by a human); their names must differ. Each phase is a ``PhaseRecord``
        (its ``choices`` are used), a mapping ``{car index: choice}`` (cars left out did
        not choose), or a sequence with one entry per car. ``orders`` gives the phases
        played in an explicit choosing order (car indices from 0, as ``RaceState.apply``
        took them): a mapping ``{phase number: order}`` or one entry per phase (None for
        the rules' own order). A ``PhaseRecord``'s own ``order`` is not taken, since it
        cannot tell an explicit order from the rules' one. ``standings`` are each phase's
        moves to go per car (``RaceState.standing``), one entry per phase; left out, they
        are taken from the ``PhaseRecord`` phases' own ``standing``. ``track_checksum`` is
        :func:`track_checksum` of the race's track (``state.track``). Raises :class:`ReplayError`
        for anything a file could not hold (unknown preset, repeated names, a car index
        out of range, a choice that is not a node, an order that is not a permutation).
        """
        entries = tuple(_car_entry(c) for c in cars)
        phases = tuple(phases)
        rows = tuple(_phase_row(k + 1, p, len(entries)) for k, p in enumerate(phases))
        if standings is None:
            standings = [p.standing if isinstance(p, PhaseRecord) else None for p in phases]
        standing_rows = tuple(None if s is None else tuple(s) for s in standings)
        return cls(track=track_ref, laps=laps, rules=rules, seed=seed, cars=entries, phases=rows,
                   orders=_order_rows(orders, len(rows)), standings=standing_rows, title=title, date=date,
                   app_version=app_version, track_checksum=track_checksum)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.cars)

    def choices(self, phase: int) -> dict[int, Choice]:
        """The choices of phase ``phase`` (1-based) as ``RaceState.apply`` takes them."""
        return {i: c for i, c in enumerate(self.phases[phase - 1]) if c is not None}

    def order(self, phase: int) -> Order | None:
        """The explicit choosing order of phase ``phase`` (1-based), or None for the rules' own."""
        return self.orders[phase - 1] if self.orders else None

    def standing(self, phase: int) -> Standing | None:
        """Each car's moves to go before phase ``phase`` (1-based) as recorded, or None."""
        return self.standings[phase - 1] if self.standings else None


# -- building -----------------------------------------------------------------
def _car_entry(car: CarEntry | tuple[str, str] | str) -> CarEntry:
    if isinstance(car, CarEntry):
        return car
    if isinstance(car, str):
        return CarEntry(car)
    if isinstance(car, tuple) and len(car) == 2:
        return CarEntry(*car)
    raise ReplayError(f"a car must be a CarEntry, a (name, driver) pair or a name, not {car!r}", key="car")


def _phase_row(number: int, phase, n_cars: int) -> PhaseChoices:
    if isinstance(phase, PhaseRecord):
        phase = phase.choices
    if isinstance(phase, Mapping):
        bad = [k for k in phase if not (type(k) is int and 0 <= k < n_cars)]
        if bad:
            raise ReplayError(f"choice for car {bad[0]!r}, but cars are numbered 0 to {n_cars - 1}",
                              key=f"phases.{number}")
        return tuple(phase.get(i) for i in range(n_cars))
    return tuple(phase)  # its length is judged with the rest (_check_replay)


def _order_rows(orders, n_phases: int) -> tuple[Order | None, ...]:
    """``from_race``'s ``orders`` argument as one entry per phase (tuples of ints or None)."""
    if orders is None:
        return ()
    if isinstance(orders, Mapping):
        bad = [k for k in orders if not (type(k) is int and 1 <= k <= n_phases)]
        if bad:
            raise ReplayError(f"an order for phase {bad[0]!r}, but the phases are numbered 1 to {n_phases}",
                              key="orders")
        orders = [orders.get(k) for k in range(1, n_phases + 1)]
    return tuple(tuple(order) if order is not None and not isinstance(order, (str, bytes))
                 and isinstance(order, Iterable) else order for order in orders)


def _check_replay(replay: Replay) -> None:
    """Raise :class:`ReplayError` unless every field could be written to a file and read back.

    The one check of a replay's values, for a replay built in code and one read from a file
    alike (the reader only translates the file's spellings, then builds the :class:`Replay`
    and places the error at the line of its key). Keys and car numbers are as the file
    writes them: ``car 2: name``, ``phases.3``, ``orders.1``, cars counted from 1. The
    checks run in the file's order, one small function per part (``_check_*``); each
    returns ``(key, problem)`` for the first thing wrong, or None.
    """
    for part in (_check_race_keys, _check_cars, _check_texts, _check_phases, _check_orders,
                 _check_standings):
        found = part(replay)
        if found:
            raise ReplayError(found[1], file=replay.source, key=found[0])


#: What a check of :func:`_check_replay` finds: the key as the file writes it and what is wrong, or None.
Found = tuple[str, str] | None


def _check_race_keys(replay: Replay) -> Found:
    """The race's own keys: track, laps, seed and the rules' preset."""
    if not isinstance(replay.track, str) or not replay.track.strip():
        return "track", f"must be a non-empty string, not {shown(replay.track)}"
    if laps_problem(replay.laps):
        return "laps", laps_problem(replay.laps)
    if type(replay.seed) is not int or not -2**63 <= replay.seed < 2**63:
        return "seed", f"must be a whole number (64-bit), not {replay.seed!r}"
    if not isinstance(replay.rules, RuleSet):
        return "rules", f"must be a RuleSet, not {replay.rules!r}"
    if replay.rules.name not in PRESETS:
        return "rules.preset", f"unknown rule preset {replay.rules.name!r}; choose one of {', '.join(PRESET_NAMES)}"
    return None


def _check_cars(replay: Replay) -> Found:
    """1 to MAX_CARS cars, each a name and a driver a screen can show, no name twice."""
    if not 1 <= len(replay.cars) <= MAX_CARS:
        return "car", f"a replay needs 1 to {MAX_CARS} [[car]] tables (cars), not {len(replay.cars)}"
    first: dict[str, int] = {}
    for n, car in enumerate(replay.cars, start=1):
        found = _check_car(n, car)
        if found:
            return found
        if car.name in first:
            return (f"car {n}: name", f"{car.name!r} is already car {first[car.name]}'s name; "
                    "names must differ (the outcome names winners by name)")
        first[car.name] = n
    return None


def _check_car(n: int, car: object) -> Found:
    """Car ``n`` (from 1) is a :class:`CarEntry` whose every field is a drawable name."""
    if not isinstance(car, CarEntry):
        return f"car {n}", f"must be a CarEntry, not {car!r}"
    for key in _CAR_KEYS:
        value = getattr(car, key)
        if not isinstance(value, str) or not value.strip():
            return f"car {n}: {key}", f"must be a non-empty string, not {shown(value)}"
        if text_problem(value, NAME):
            return f"car {n}: {key}", text_problem(value, NAME)
    extra = _car_extras_problem(car)
    if extra:
        return f"car {n}: {extra[0]}", extra[1]
    return None


def _check_texts(replay: Replay) -> Found:
    """The optional texts (title, date, app_version) and the track's checksum."""
    for key in ("title", "date", "app_version"):
        value = getattr(replay, key)
        if value is not None and not isinstance(value, str):
            return key, f"must be a string, not {shown(value)}"
        if value is not None and text_problem(value, TITLE):
            return key, text_problem(value, TITLE)
    checksum = replay.track_checksum
    if checksum is not None and not (isinstance(checksum, str) and re.fullmatch(r"[0-9a-f]{16,64}", checksum)):
        return "track_checksum", f"must be the hexadecimal checksum the game writes, not {shown(checksum)}"
    return None


def _check_phases(replay: Replay) -> Found:
    """At most MAX_PHASES phases, each one choice per car: a node, a retirement or no choice."""
    if len(replay.phases) > MAX_PHASES:
        return "phases", f"{len(replay.phases)} phases is more than the {MAX_PHASES} a replay may hold"
    n_cars = len(replay.cars)
    for number, row in enumerate(replay.phases, start=1):
        if not isinstance(row, tuple) or len(row) != n_cars:
            count = len(row) if isinstance(row, (tuple, list)) else repr(row)
            return f"phases.{number}", f"{count} choices for {n_cars} cars (one per car, in order)"
        for i, choice in enumerate(row):
            if not _is_choice(choice):
                return (f"phases.{number}", f"car {i + 1} ({_name(replay.cars[i])}): {choice!r} is not a choice; "
                        f'write a target node [x, y], "{RETIRE_WORD}" or "{NO_CHOICE}"')
    return None


def _is_choice(choice: object) -> bool:
    """True for what a phase row may hold: None, a retirement or a node of two 64-bit whole numbers."""
    return choice is None or isinstance(choice, Retire) or (
        isinstance(choice, Vec) and type(choice.x) is int and type(choice.y) is int
        and all(-2**63 <= v < 2**63 for v in (choice.x, choice.y)))


def _check_orders(replay: Replay) -> Found:
    """Explicit choosing orders: no more than phases, each a permutation of the cars."""
    if not isinstance(replay.orders, tuple):
        return "orders", f"must be a tuple, not {replay.orders!r}"
    if len(replay.orders) > len(replay.phases):
        return (f"orders.{len(replay.orders)}",
                f"an order for phase {len(replay.orders)}, but the replay has {len(replay.phases)} phases")
    n_cars = len(replay.cars)
    for number, order in enumerate(replay.orders, start=1):
        if order is None:
            continue
        whole = isinstance(order, tuple) and all(type(i) is int for i in order)
        if not whole or sorted(order) != list(range(n_cars)):
            listed = [i + 1 for i in order] if whole else order
            return (f"orders.{number}", f"must list every car number from 1 to {n_cars} once (the [[car]] tables "
                    f"counted from 1), first to choose first, not {listed!r}")
    return None


def _check_standings(replay: Replay) -> Found:
    """``[standings]``: at most one row per phase, each one count (or None) per car."""
    n_cars = len(replay.cars)
    if not isinstance(replay.standings, tuple):
        return "standings", f"must be a tuple, not {replay.standings!r}"
    if len(replay.standings) > len(replay.phases):
        return (f"standings.{len(replay.standings)}", f"a standing for phase {len(replay.standings)}, "
                f"but the replay has {len(replay.phases)} phases")
    for number, row in enumerate(replay.standings, start=1):
        good = row is None or isinstance(row, tuple) and len(row) == n_cars and all(
            d is None or (type(d) is int and 0 <= d < 2**31) for d in row)
        if not good:
            return (f"standings.{number}", f"must list each car's moves to go (a whole number from 0, or "
                    f'"{NO_CHOICE}"), one per car in car order ({n_cars}), not {_standing_text(row)}')
    return None


def _standing_text(row: object) -> str:
    if isinstance(row, tuple):
        return "[" + ", ".join(f'"{NO_CHOICE}"' if d is None else repr(d) for d in row) + "]"
    return shown(row) if isinstance(row, str) else repr(row)


def _car_extras_problem(car: CarEntry) -> tuple[str, str] | None:
    """What is wrong with a car's optional keys (assist, handicap): ``(key, problem)``, or None."""
    if car.assist not in ASSISTS:
        return "assist", f"must be one of {', '.join(repr(a) for a in ASSISTS)}, not {shown(car.assist)}"
    if type(car.handicap) is not int or not 0 <= car.handicap <= MAX_HANDICAP:
        return "handicap", f"must be a whole number of moves from 0 to {MAX_HANDICAP}, not {shown(car.handicap)}"
    return None


def _name(car: object) -> str:
    return repr(getattr(car, "name", car))


# -- track references -----------------------------------------------------------
def is_path_ref(ref: str) -> bool:
    """True for a reference to a file (``path/pack.toml#TRACK`` or a ``.map`` path), False for ``PACK/TRACK``."""
    return is_file_ref(ref)


def resolve_track_ref(ref: str, replay_dir: str | os.PathLike | None) -> str:
    """The track reference with a relative file path made relative to ``replay_dir`` instead.

    Built-in references (``PACK/TRACK``) and absolute paths are returned unchanged, so
    a replay file and the pack it names can be moved together.

    >>> resolve_track_ref("pack.toml#loop", "/games/replays")
    '/games/replays/pack.toml#loop'
    >>> resolve_track_ref("classics/oval", "/games/replays")
    'classics/oval'
    """
    if replay_dir is None or not is_path_ref(ref):
        return ref
    path, track = split_file_ref(ref)  # a # or a byte that is not UTF-8 in a name is escaped (game.tracks.refs)
    if Path(path).is_absolute():
        return ref
    return file_ref(Path(replay_dir) / path, track)


def track_checksum(track) -> str:
    """A short hash of everything about a track a race depends on (road, terrain, grid, gates, scale).

    Give it the race's own track (``RaceState.track``: the track as the rules see it), as
    the replay's writer and the debrief both do. The name, author and par are left out:
    renaming a track does not change a race on it, moving a wall does.
    """

    h = hashlib.sha256(b"racetrack-track/1")
    region = track.region
    h.update(repr((region.height, region.width)).encode() + region.packed_road())
    for ring in getattr(region, "rings", ()):  # an outline's rings: numpy arrays, so numpy is loaded already
        import numpy as np

        h.update(np.ascontiguousarray(ring, dtype=float).tobytes())
    if track.terrain is not None and track.terrain.masks:
        h.update(track.terrain.key())

    def gate(g) -> str:
        if g.is_line:
            return f"line {g.number} {g.a} {g.b} {g.forward}"
        return f"cells {g.number} {sorted(g.cells)} {g.forward} {g.entered}"

    h.update(repr((track.start_slots, track.forward, track.scale, track.terrain_offroad)).encode())
    for g in (track.finish, *track.checkpoints):
        h.update(gate(g).encode())
    return h.hexdigest()[:16]


# -- writing -----------------------------------------------------------------------
def _toml_value(value: Any) -> str:
    """One scalar or small array written as TOML (strings escaped by tomli-w)."""
    import tomli_w  # here: reading and checking a replay never writes one

    return tomli_w.dumps({"v": value})[4:].rstrip("\n")


def _choice_text(choice: Choice | None) -> str:
    if choice is None:
        return f'"{NO_CHOICE}"'
    if isinstance(choice, Retire):
        return f'"{RETIRE_WORD}"'
    return f"[{choice.x}, {choice.y}]"


def load_replay_track(replay: Replay, builtin_dir: str | os.PathLike):
    """The track a loaded replay names, with relative paths taken from the replay's folder.

    ``builtin_dir`` is the folder of the built-in packs (``PACK/TRACK`` references).
    Raises :class:`ReplayError` naming the replay file and its ``track`` key when the
    track cannot be loaded.
    """
    folder = Path(replay.source).parent if replay.source else None
    ref = resolve_track_ref(replay.track, folder)
    if is_generated_ref(ref):  # gen:CODE: made again from its code, the same track everywhere
        # The generator and its solver are imported here: a replay of a pack track needs neither.
        from game.drivers.generated import GenerationError, load_track
        from game.tracks.generator import CodeError

        try:
            return load_track(ref, builtin_dir=builtin_dir)
        except (TrackError, CodeError, GenerationError) as error:
            raise _unloadable(replay, error) from None
    try:
        return load_track_ref(ref, builtin_dir=builtin_dir)
    except TrackError as error:
        raise _unloadable(replay, error) from None


def _unloadable(replay: Replay, error: Exception) -> ReplayError:
    """The error of a replay whose track cannot be loaded, placed at its ``track`` key."""
    problem = str(error).replace("\n", "\n  ")
    return ReplayError(f"cannot load the track {shown(replay.track)}:\n  {problem}", file=replay.source, key="track")


def dumps_replay(replay: Replay) -> str:
    """The replay as TOML text, laid out for reading: one line per phase."""
    lines = [f"{REPLAY_MARKER} (see docs/replays.md).", f"format = {FORMAT}",
             f"track = {_toml_value(replay.track)}"]
    if replay.track_checksum is not None:
        lines.append(f"track_checksum = {_toml_value(replay.track_checksum)}")
    lines += [f"laps = {replay.laps}", f"seed = {replay.seed}"]
    for key in ("title", "date", "app_version"):
        value = getattr(replay, key)
        if value is not None:
            lines.append(f"{key} = {_toml_value(value)}")
    lines += ["", "[rules]", f"preset = {_toml_value(replay.rules.name)}"]
    lines += [f"{key} = {_toml_value(value)}" for key, value in replay.rules.overrides().items()]
    for car in replay.cars:
        lines += ["", "[[car]]", f"name = {_toml_value(car.name)}", f"driver = {_toml_value(car.driver)}"]
        lines += [f"{key} = {_toml_value(getattr(car, key))}" for key, default in _CAR_OPTIONAL.items()
                  if getattr(car, key) != default]
    lines += ["", "# One line per phase: each car's choice in car order:",
              '# a target node [x, y], "retire", or "-" when the car does not choose.', "[phases]"]
    lines += [f"{k} = [{', '.join(_choice_text(c) for c in row)}]" for k, row in enumerate(replay.phases, 1)]
    if replay.orders:
        lines += ["", "# The choosing order of phases played in an explicit order: car numbers (the [[car]]",
                  "# tables counted from 1), first to choose first. Other phases use the rules' order.",
                  "[orders]"]
        lines += [f"{k} = [{', '.join(str(i + 1) for i in order)}]"
                  for k, order in enumerate(replay.orders, 1) if order is not None]
    if replay.standings:
        lines += ["", "# Each car's moves to go before the phase, as the solver counted them (the by_position",
                  '# order and catch-up read them); "-" where there was none.', "[standings]"]
        lines += [f"{k} = {_standing_text(row)}" for k, row in enumerate(replay.standings, 1) if row is not None]
    return "\n".join(lines) + "\n"


def save_replay(replay: Replay, path: str | os.PathLike, *, force: bool = False,
                inputs: Iterable[str | os.PathLike] = ()) -> None:
    """Write ``replay`` to ``path`` atomically (a temporary file, then ``os.replace``).

    A file already at ``path`` is replaced only when the game wrote it (a replay), when
    it holds this very replay, or with ``force`` (a copy kept as ``NAME.old``); never one
    of ``inputs`` (see ``game.files.write_new_or_own``). A replay of the game's that no
    longer reads is kept as ``NAME.broken`` first. Raises :class:`ReplayError` naming the
    file if it cannot or may not be written.
    """
    path = Path(path)
    try:
        write_new_or_own(path, dumps_replay(replay), marker=REPLAY_MARKER, force=force, inputs=inputs,
                         readable=_reads_back)
    except WouldReplace as error:
        raise ReplayError(f"not saved: {error}", file=path) from None
    except OSError as error:
        raise ReplayError(f"cannot write the replay: {error.strerror or error}", file=path) from None


def _reads_back(path: Path) -> bool:
    """True when the replay at ``path`` still reads (a damaged one is kept as ``NAME.broken`` before a save)."""
    try:
        load_replay(path)
    except ReplayError:
        return False
    return True


# -- reading -----------------------------------------------------------------------
def load_replay(path: str | os.PathLike) -> Replay:
    """Read and check a replay file; every problem raises :class:`ReplayError` naming file, key and line."""
    try:
        data = read_bytes(path, limit=LIMITS["replay"])
    except OSError as error:
        raise ReplayError(f"cannot read the replay: {error.strerror or error}", file=path) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ReplayError(f"not UTF-8 text (byte {error.start})", file=path) from None
    return loads_replay(text, file=str(path))


def loads_replay(text: str, file: str | None = None) -> Replay:
    """Parse replay text; ``file`` names it in messages (and anchors relative track paths)."""
    try:
        doc = parse_toml(text)
    except DataError as error:
        raise ReplayError(syntax_problem(error), file=file, line=error.line) from None
    return _Reader(doc, text, file).replay()


class _Reader:
    """Turns a parsed TOML document into a :class:`Replay`, locating each problem."""

    def __init__(self, doc: dict, text: str, file: str | None) -> None:
        self.doc = doc
        self.file = file
        self.lines = KeyLines(text)

    def fail(self, key: str, problem: str) -> ReplayError:
        """An error for ``key`` (as the player reads it) at the line where that key is written."""
        return ReplayError(problem, file=self.file, key=key, line=self.locate(key))

    def locate(self, key: str | None) -> int | None:
        """The line of a key named as the messages name it: ``seed``, ``rules.preset``,
        ``phases.3``, ``car 2: name`` (else of its table's header)."""
        if not key:
            return None
        car = re.fullmatch(r"car (\d+)(?:: (.+))?", key)
        if car:
            return self.lines.place(car.group(2), "car", int(car.group(1)) - 1)
        table, _, name = key.partition(".")
        return self.lines.place(name, table) if name else self.lines.place(table)

    def replay(self) -> Replay:
        """The replay, built from the file's values in its spellings translated; its values are
        judged by :class:`Replay` itself (the one check), the error placed at its key's line."""
        doc = self.doc
        unknown = [k for k in doc if k not in _TOP_KEYS]
        if unknown:
            if unknown[0] in OPTIONS:  # a rule option written at the top, out of its table
                raise self.fail(unknown[0], f"a rule option: write it under [rules] ({unknown[0]} = ...)")
            raise self.fail(unknown[0], f"unknown key; known keys: {', '.join(_TOP_KEYS)}")
        for key, required in _TOP_KEYS.items():
            if required and key not in doc:
                raise self.fail(key, "missing")
        fmt = doc["format"]
        if type(fmt) is not int:
            raise self.fail("format", f"must be a whole number, not {fmt!r}")
        if fmt not in READS:
            newer = " (written by a newer Racetrack?)" if fmt > FORMAT else ""
            reads = " or ".join(str(f) for f in READS)
            raise self.fail("format", f"format {fmt} is not one this Racetrack reads ({reads}){newer}")
        meta = {key: doc[key] for key in ("title", "date", "app_version", "track_checksum") if key in doc}
        rules = self._rules(doc["rules"])
        if fmt == 1 and "terrain" not in doc["rules"]:  # (a table: _rules checked it)
            rules = rules.with_options(terrain="offroad")  # what a format-1 race was played under
        rules = older_rules(rules, doc["rules"], fmt)
        cars = self._cars(doc["car"])
        phases = self._phases(doc.get("phases", {}), cars)
        orders = self._orders(doc.get("orders", {}))
        if fmt <= 3 and "standings" in doc:
            raise self.fail("standings", f"a format {fmt} replay has no standings (format 4 on)")
        standings = self._standings(doc.get("standings", {}))
        try:
            return Replay(track=doc["track"], laps=doc["laps"], rules=rules, seed=doc["seed"], cars=cars,
                          phases=phases, orders=orders, standings=standings, source=self.file, **meta)
        except ReplayError as error:
            raise self.fail(error.key, error.problem) from None

    def _rules(self, table: Any) -> RuleSet:
        """``[rules]``: a preset and the options that differ (a RuleSet is built from them here)."""
        if not isinstance(table, dict):
            raise self.fail("rules", "must be a table: [rules] with preset = \"NAME\"")
        if "preset" not in table:
            raise self.fail("rules.preset", f"missing; choose one of {', '.join(PRESET_NAMES)}")
        name = table["preset"]
        if not isinstance(name, str) or name not in PRESETS:
            raise self.fail("rules.preset", f"unknown rule preset {name!r}; choose one of {', '.join(PRESET_NAMES)}")
        overrides = {k: v for k, v in table.items() if k != "preset"}
        known = [*OPTIONS, *NUMBERS]
        for key, value in overrides.items():
            if key not in known:
                raise self.fail(f"rules.{key}", f"unknown rule option; known: {', '.join(known)}")
            try:
                preset(name, {key: value})
            except (RulesError, TypeError) as error:  # TypeError: an unhashable value such as a list
                if isinstance(error, TypeError):
                    error = f"rule {key!r} cannot be {value!r}; choose one of " + ", ".join(
                        repr(v) for v in OPTIONS.get(key, ()))
                raise self.fail(f"rules.{key}", str(error)) from None
        try:
            return preset(name, overrides)
        except RulesError as error:  # pragma: no cover - each option was checked alone above
            raise self.fail("rules", str(error)) from None

    def _cars(self, cars: Any) -> tuple[CarEntry, ...]:
        """``[[car]]`` tables with their two keys (their values are judged with the replay)."""
        if not isinstance(cars, list) or not all(isinstance(c, dict) for c in cars):
            raise self.fail("car", "must be [[car]] tables, each with name and driver")
        for n, car in enumerate(cars, start=1):
            unknown = [k for k in car if k not in _CAR_KEYS and k not in _CAR_OPTIONAL]
            if unknown:
                raise self.fail(f"car {n}: {unknown[0]}",
                                f"unknown key; known: {', '.join((*_CAR_KEYS, *_CAR_OPTIONAL))}")
            for key in _CAR_KEYS:
                if key not in car:
                    raise self.fail(f"car {n}: {key}", "missing")
        return tuple(CarEntry(car["name"], car["driver"], **{k: car[k] for k in _CAR_OPTIONAL if k in car})
                     for car in cars)

    def _phases(self, table: Any, cars: tuple[CarEntry, ...]) -> tuple[PhaseChoices, ...]:
        """``[phases]``: keys numbered 1, 2, 3, ... without gaps, each a list of choices."""
        if not isinstance(table, dict):
            raise self.fail("phases", "must be a table: [phases] with one line per phase")
        numbers = []
        for key in table:
            if not re.fullmatch(r"[1-9][0-9]{0,6}", key):
                raise self.fail(f"phases.{key}", "phase keys are the phase numbers 1, 2, 3, ...")
            numbers.append(int(key))
        expected = set(range(1, len(numbers) + 1))
        if set(numbers) != expected:
            missing = min(expected - set(numbers))
            raise self.fail(f"phases.{missing}", f"missing: phases must be numbered 1 to {len(numbers)} without gaps")
        rows = []
        for number in range(1, len(numbers) + 1):
            entries = table[str(number)]
            if not isinstance(entries, list):
                raise self.fail(f"phases.{number}", f"must be a list of {len(cars)} choices, one per car")
            rows.append(tuple(_choice(entry) for entry in entries))
        return tuple(rows)

    def _orders(self, table: Any) -> tuple[Order | None, ...]:
        """``[orders]``: car numbers from 1 in the file, indices from 0 in the replay."""
        if not isinstance(table, dict):
            raise self.fail("orders", "must be a table: [orders] with a line N = [car numbers] per phase")
        numbers = {}
        for key, value in table.items():
            if not re.fullmatch(r"[1-9][0-9]{0,6}", key):
                raise self.fail(f"orders.{key}", "order keys are the phase numbers 1, 2, 3, ...")
            whole = isinstance(value, list) and all(type(v) is int for v in value)
            numbers[int(key)] = tuple(v - 1 for v in value) if whole else value
        return tuple(numbers.get(k) for k in range(1, max(numbers, default=0) + 1))

    def _standings(self, table: Any) -> tuple[Standing | None, ...]:
        """``[standings]``: a list per phase, ``"-"`` for a car without one (None in the replay)."""
        if not isinstance(table, dict):
            raise self.fail("standings", "must be a table: [standings] with a line N = [moves to go] per phase")
        numbers = {}
        for key, value in table.items():
            if not re.fullmatch(r"[1-9][0-9]{0,6}", key):
                raise self.fail(f"standings.{key}", "standing keys are the phase numbers 1, 2, 3, ...")
            numbers[int(key)] = tuple(None if v == NO_CHOICE else v for v in value) if isinstance(value, list) \
                else value
        return tuple(numbers.get(k) for k in range(1, max(numbers, default=0) + 1))


def older_rules(rules: RuleSet, named: Mapping[str, Any], fmt: int) -> RuleSet:
    """The rules a replay of format ``fmt`` was played under: every option it does not name
    and that its format did not know yet (:data:`OPTION_SINCE`) at its default, whatever the
    preset says now. Generic over the options: one added later needs nothing here.
    """
    defaults = RuleSet()
    later = {name: getattr(defaults, name) for name in rules.options()
             if fmt < OPTION_SINCE.get(name, FORMAT) and name not in named}
    return rules.with_options(**later) if later else rules


def _choice(entry: Any) -> Any:
    """A choice as a file spells it, as a replay holds it; anything else is kept for the
    replay's check to refuse (with the car and the phase)."""
    if entry == NO_CHOICE:
        return None
    if entry == RETIRE_WORD:
        return RETIRE
    if isinstance(entry, list) and len(entry) == 2 and all(type(v) is int for v in entry):
        return Vec(entry[0], entry[1])
    return entry
