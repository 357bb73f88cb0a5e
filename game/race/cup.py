"""Grand Prix cups in race control: the programme, the seats, each race's result and the standings.

A :class:`Cup` is a value: the programme (:class:`CupRace`: a track reference, laps and
a rule set each), the entrants who keep their seats through the cup, the points table,
the cup's seed and the results so far. :meth:`Cup.with_result` gives the cup after one
more race; :meth:`Cup.standings` ranks the entrants: most points first, ties broken by
wins, then by best finishes (most seconds, then most thirds, ...), then by the fewest
moves over the races they finished; entrants still level share their position.

A cup in progress is saved after every race as a small TOML file (:func:`save_cup`,
atomic, beside the replays of its races) and read back with every problem located
(:func:`load_cup` raises :class:`CupError` naming the file, key and line). The file::

    format = 1
    id = "starter"
    name = "Starter Cup"
    source = "starter"
    seed = 7
    points = "classic"
    timer = 0

    [[race]]
    track = "starter/paper-oval"
    name = "Paper Oval"
    laps = 2
    rules = { preset = "paper" }

    [[entrant]]
    name = "Ada"
    driver = "human"
    color = 0
    symbol = 0

    [[result]]
    replay = "race-1.toml"
    places = [1, 2, "-"]
    moves = [43, 45, 20]
    status = ["finished", "finished", "retired"]
    phases = 45

Nothing here imports pygame or reads the clock; files are read and written only by the
functions that say so.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import tomli_w

from game.core.errors import RacetrackError, RulesError
from game.core.race import FINISHED, RaceState
from game.core.rules import RuleSet, preset
from game.files import DataError, WouldReplace, parse_toml, read_text, write_new_or_own, written_by_game
from game.tomlerrors import KeyLines, syntax_problem
from game.tracks.cups import CupDef, PointsTable, points_table
from game.tracks.refs import file_ref
from game.core.limits import laps_problem
from game.core.text import NAME, TITLE, TextKind, shown, text_problem

FORMAT = 1
CUP_FILE = "cup.toml"
#: How a results line spells "no place".
NO_PLACE = "-"
MAX_ENTRANTS = 64
MAX_TIMER = 60
#: A file bigger than this is not a cup this game wrote.
MAX_FILE_BYTES = 1_000_000


class CupError(RacetrackError, ValueError):
    """A cup file that cannot be read or a cup that cannot be built; names the file, key and line."""

    def __init__(self, problem: str, *, file: str | os.PathLike | None = None, key: str | None = None,
                 line: int | None = None) -> None:
        self.problem = problem
        self.file = None if file is None else str(file)
        self.key = key
        self.line = line
        where = self.file or "cup"
        if line is not None:
            where += f":{line}"
        super().__init__(f"{where}: {key + ': ' if key else ''}{problem}")


@dataclass(frozen=True)
class CupRace:
    """One race of a cup: the track (a reference ``racetrack`` understands), its name, laps and rules."""

    track: str
    name: str
    laps: int
    rules: RuleSet


@dataclass(frozen=True)
class Entrant:
    """One seat kept through the cup: the name, the driver kind, and the pen (colour and symbol numbers)."""

    name: str
    driver: str = "human"
    color: int = 0
    symbol: int = 0

    @property
    def is_human(self) -> bool:
        return self.driver == "human"


@dataclass(frozen=True)
class RaceResult:
    """How one race of the cup ended: each entrant's place (None: not placed), moves and status.

    ``replay`` is the file name of the race's replay beside the cup file ("" when not kept).
    """

    places: tuple[int | None, ...]
    moves: tuple[int, ...]
    status: tuple[str, ...]
    phases: int = 0
    replay: str = ""

    @classmethod
    def from_state(cls, state: RaceState, replay: str = "") -> RaceResult:
        """The result of a race that has ended (or was stopped) in ``state``."""
        ranks = state.outcome().ranks
        return cls(places=tuple(ranks), moves=tuple(c.moves for c in state.cars),
                   status=tuple(c.status for c in state.cars), phases=state.phase, replay=replay)


@dataclass(frozen=True)
class Standing:
    """One entrant's line in the standings after some races.

    ``position`` is shared by entrants level on every tie-break. ``places`` has one
    entry per race so far (None: not placed); ``gained`` is what the last race gave.
    """

    position: int
    entrant: int
    name: str
    driver: str
    points: int
    gained: int
    wins: int
    places: tuple[int | None, ...]
    moves: int



def standing_key(points: int, places: Sequence[int | None], moves: int, depth: int) -> tuple:
    """What the standings sort by (smaller is better; equal keys share a position).

    Points (more first), then wins, then best finishes: the count-back of places 2, 3,
    ... ``depth`` (most seconds, then most thirds...), then the fewest moves.
    """
    countback = tuple(-sum(1 for p in places if p == k) for k in range(1, depth + 1))
    return (-points, countback, moves)


@dataclass(frozen=True)
class Cup:
    """A cup being played: see the module docstring. Values: keep as many as you like."""

    id: str
    name: str
    races: tuple[CupRace, ...]
    entrants: tuple[Entrant, ...]
    points: PointsTable = PointsTable()
    seed: int = 0
    results: tuple[RaceResult, ...] = ()
    timer: int = 0  # the move timer every race of the cup uses, in seconds (0: off)
    source: str = ""  # where the cup came from: a pack reference, for the player's information

    def __post_init__(self) -> None:
        if not self.races:
            raise CupError(f"cup {self.id!r} has no races")
        if not self.entrants:
            raise CupError(f"cup {self.id!r} has nobody racing")
        names = [e.name for e in self.entrants]
        if len(set(names)) != len(names):
            raise CupError(f"cup {self.id!r}: two entrants share a name ({', '.join(names)})")
        if len(self.results) > len(self.races):
            raise CupError(f"cup {self.id!r} has {len(self.results)} results for {len(self.races)} races")
        for k, result in enumerate(self.results):
            if not len(result.places) == len(result.moves) == len(result.status) == len(self.entrants):
                raise CupError(f"cup {self.id!r}: race {k + 1}'s result does not have one entry per entrant")

    # -- where the cup stands -------------------------------------------------
    @property
    def next_index(self) -> int:
        """Index of the race to play next (== len(races) when the cup is over)."""
        return len(self.results)

    @property
    def finished(self) -> bool:
        return len(self.results) == len(self.races)

    @property
    def next_race(self) -> CupRace | None:
        return None if self.finished else self.races[self.next_index]

    def race_seed(self, index: int) -> int:
        """The seed of race ``index`` (from 0): fixed by the cup's seed, so a cup plays out the same again."""
        return random.Random(f"{self.seed}/cup/{index}").randrange(2 ** 31)

    def with_result(self, result: RaceResult) -> Cup:
        """The cup after its next race ended with ``result``."""
        if self.finished:
            raise CupError(f"cup {self.id!r} is over: no race left for a result")
        return replace(self, results=self.results + (result,))

    # -- points and standings ---------------------------------------------------
    def points_in(self, result: RaceResult) -> tuple[int, ...]:
        """Each entrant's points from one race (a shared place scores that place's points)."""
        cars = len(result.places)
        return tuple(self.points.points(place, cars) for place in result.places)

    def standings(self, races: int | None = None) -> list[Standing]:
        """The standings after the first ``races`` results (default: all so far), best first."""
        results = self.results if races is None else self.results[:races]
        lines = []
        for i, entrant in enumerate(self.entrants):
            earned = [self.points_in(r)[i] for r in results]
            places = tuple(r.places[i] for r in results)
            moves = sum(r.moves[i] for r in results if r.status[i] == FINISHED)
            lines.append((i, entrant, sum(earned), earned[-1] if earned else 0, places, moves))
        depth = len(self.entrants)
        keys = {i: standing_key(points, places, moves, depth) for i, _, points, _, places, moves in lines}
        ordered = sorted(lines, key=lambda line: (keys[line[0]], line[0]))
        out = []
        for i, entrant, points, gained, places, moves in ordered:
            position = 1 + sum(1 for j in keys if keys[j] < keys[i])
            out.append(Standing(position, i, entrant.name, entrant.driver, points, gained,
                                sum(1 for p in places if p == 1), places, moves))
        return out


def cup_from_def(cup: CupDef, refs: Sequence[str], tracks: Sequence[Any], entrants: Sequence[Entrant], seed: int,
                 points: PointsTable | None = None, rules: RuleSet | None = None, timer: int = 0,
                 source: str = "") -> Cup:
    """A cup ready to play from a pack's definition.

    ``refs[k]`` and ``tracks[k]`` are the reference and the loaded track of race k.
    ``points`` and ``rules`` (one rule set for every race) override the definition's
    when given; otherwise each race keeps its own preset (or its track's).
    """
    races = []
    for race, ref, track in zip(cup.races, refs, tracks, strict=True):
        if rules is not None:
            race_rules = rules
        else:
            race_rules = preset(race.rules or track.default_rules, race.options or None)
        races.append(CupRace(ref, track.name, race.laps or track.default_laps, race_rules))
    return Cup(id=cup.id, name=cup.name, races=tuple(races), entrants=tuple(entrants),
               points=points or cup.points, seed=seed, timer=timer, source=source)


def cup_refs(pack_id: str, pack_path: str | os.PathLike | None, cup: CupDef, builtin: bool) -> list[str]:
    """The track reference of each race of a pack's cup: ``PACK/TRACK`` for a built-in pack,
    ``path/pack.toml#TRACK`` for any other (what replays and cup files store)."""
    if builtin:
        return [f"{pack_id}/{race.track}" for race in cup.races]
    return [file_ref(pack_path, race.track) for race in cup.races]


# -- the cup file ----------------------------------------------------------------------
def _place(value: int | None) -> int | str:
    return NO_PLACE if value is None else value


def cup_document(cup: Cup) -> dict[str, Any]:
    """The TOML document a cup is saved as (see the module docstring)."""
    doc: dict[str, Any] = {"format": FORMAT, "id": cup.id, "name": cup.name, "source": cup.source,
                           "seed": cup.seed, "points": cup.points.spec(), "timer": cup.timer}
    doc["race"] = [{"track": r.track, "name": r.name, "laps": r.laps,
                    "rules": {"preset": r.rules.name, **r.rules.overrides()}} for r in cup.races]
    doc["entrant"] = [{"name": e.name, "driver": e.driver, "color": e.color, "symbol": e.symbol}
                      for e in cup.entrants]
    if cup.results:
        doc["result"] = [{"replay": r.replay, "places": [_place(p) for p in r.places], "moves": list(r.moves),
                          "status": list(r.status), "phases": r.phases} for r in cup.results]
    return doc


def _value(value: Any) -> str:
    """A TOML value on one line: scalars through tomli-w, lists and tables inline."""
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_value(v)}" for k, v in value.items()) + " }" if value else "{}"
    return tomli_w.dumps({"v": value})[4:].rstrip("\n")


def dumps_cup(cup: Cup) -> str:
    """The cup file's text: one table per race, entrant and result, each value on one line."""
    doc = cup_document(cup)
    lines = [f"{CUP_MARKER}{cup.name!r} ({len(cup.results)} of {len(cup.races)} races played).",
             "# The game writes this file after every race; the race-N.toml files beside it are the replays."]
    lines += [f"{key} = {_value(value)}" for key, value in doc.items() if not isinstance(value, list)
              or key == "points"]
    for table in ("race", "entrant", "result"):
        for entry in doc.get(table, []):
            lines += ["", f"[[{table}]]"] + [f"{key} = {_value(value)}" for key, value in entry.items()]
    return "\n".join(lines) + "\n"


#: The first words of every cup file the game writes (see :func:`dumps_cup`).
CUP_MARKER = "# Racetrack: the cup "


def is_own_cup(path: str | os.PathLike) -> bool:
    """True when the file at ``path`` is a cup file the game wrote and can read back.

    A file without the game's first line is a user's; one that no longer reads as a cup
    cannot be read back: either is kept aside before a save replaces it.
    """
    if not written_by_game(path, CUP_MARKER):
        return False
    try:
        load_cup(path)
    except CupError:
        return False
    return True


def save_cup(cup: Cup, path: str | os.PathLike, *, force: bool = False, keep_foreign: bool = True,
             inputs: Iterable[str | os.PathLike] = ()) -> Path | None:
    """Write the cup file whole or not at all (a crash leaves the previous race's file). Raises CupError.

    Goes by the game's one write rule (``game.files.write_new_or_own``): a file there that
    the game did not write, or cannot read back, is first copied to ``cup.toml.old``
    (``.old.2``, ...; that copy is returned), or with ``keep_foreign=False`` refused
    unless ``force``; one of ``inputs`` is never replaced.
    """
    try:
        return write_new_or_own(path, dumps_cup(cup), owned=is_own_cup, force=force, keep_foreign=keep_foreign,
                                inputs=inputs, make_folder=True)
    except WouldReplace as error:
        raise CupError(f"not saved: {error}", file=path) from None
    except OSError as error:
        raise CupError(f"cannot write: {error.strerror or error}", file=path) from None


def load_cup(path: str | os.PathLike) -> Cup:
    """Read a cup file; raises :class:`CupError` naming the file, key and line of the first problem."""
    path = Path(path)
    try:  # a regular file of at most MAX_FILE_BYTES (not a pipe or a device), as every reader (game.files)
        text = read_text(path, limit=MAX_FILE_BYTES)
    except OSError as error:
        raise CupError(f"cannot read the file: {error.strerror or error}", file=path) from None
    return loads_cup(text, str(path))


def loads_cup(text: str, file: str | None = None) -> Cup:
    """A cup from the text of its file (``file`` names it in messages)."""
    try:
        doc = parse_toml(text)  # nesting bounded: deep brackets are a located error, not a RecursionError
    except DataError as error:
        raise CupError(syntax_problem(error), file=file, line=error.line) from None
    return _Reader(doc, text, file).cup()


class _Reader:
    """Builds a Cup from a parsed document, failing with the first problem's place."""

    def __init__(self, doc: dict, text: str, file: str | None) -> None:
        self.doc, self.file = doc, file
        self.lines = KeyLines(text)

    def line(self, key: str, table: str | None = None, index: int = 0) -> int | None:
        """Line of ``key =`` (in the index-th ``[[table]]`` when given, else of that table's header)."""
        if table is None:
            return self.lines.key(key)
        return self.lines.place(key, table, index)

    def fail(self, key: str, problem: str, table: str | None = None, index: int = 0) -> CupError:
        name = f"{table}[{index + 1}].{key}" if table else key
        return CupError(problem, file=self.file, key=name, line=self.line(key, table, index))

    def value(self, key: str, kind, table: str | None = None, index: int = 0, where: dict | None = None):
        where = self.doc if where is None else where
        if key not in where:
            raise self.fail(key, "missing", table, index)
        value = where[key]
        if kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise self.fail(key, f"must be a whole number, not {value!r}", table, index)
        elif not isinstance(value, kind):
            raise self.fail(key, f"must be {kind.__name__ if kind is not str else 'text'}, not {value!r}", table,
                            index)
        return value

    def text(self, key: str, table: str | None = None, index: int = 0, where: dict | None = None,
             default: str | None = None, kind: TextKind = NAME) -> str:
        """A text value that a screen can show (``game.core.text``: no control characters, a name's length)."""
        where = self.doc if where is None else where
        value = where.get(key, default) if default is not None else self.value(key, str, table, index, where)
        if not isinstance(value, str):
            raise self.fail(key, f"must be text, not {shown(value)}", table, index)
        if text_problem(value, kind):
            raise self.fail(key, text_problem(value, kind), table, index)
        return value

    def cup(self) -> Cup:
        fmt = self.doc.get("format")
        if fmt != FORMAT or isinstance(fmt, bool):
            raise self.fail("format", f"this game reads cup files of format {FORMAT}, not {fmt!r}")
        cup_id = self.value("id", str)
        name = self.text("name", kind=TITLE)  # a pack's own cup is called "<pack name> Cup"
        source = self.doc.get("source", "")
        if not isinstance(source, str):
            raise self.fail("source", f"must be text, not {source!r}")
        seed = self.value("seed", int)
        try:
            points = points_table(self.doc.get("points", "classic"))
        except ValueError as error:
            raise self.fail("points", str(error)) from None
        timer = self.doc.get("timer", 0)
        if isinstance(timer, bool) or not isinstance(timer, int) or not (timer == 0 or 5 <= timer <= MAX_TIMER):
            raise self.fail("timer", f"must be 0 (off) or a whole number of seconds from 5 to {MAX_TIMER}, "
                                     f"not {timer!r}")
        races = tuple(self._race(k, r) for k, r in enumerate(self._tables("race")))
        if not races:
            raise self.fail("race", "the cup has no [[race]] tables")
        entrants = tuple(self._entrant(k, e) for k, e in enumerate(self._tables("entrant")))
        if not entrants:
            raise self.fail("entrant", "the cup has no [[entrant]] tables")
        if len(entrants) > MAX_ENTRANTS:
            raise self.fail("entrant", f"{len(entrants)} entrants is more than {MAX_ENTRANTS}")
        results = tuple(self._result(k, r, len(entrants)) for k, r in enumerate(self._tables("result")))
        if len(results) > len(races):
            raise self.fail("result", f"{len(results)} results for {len(races)} races", "result", len(races))
        names = [e.name for e in entrants]
        for k, entrant_name in enumerate(names):
            if names.index(entrant_name) != k:
                raise self.fail("name", f"two entrants are called {entrant_name!r}", "entrant", k)
        return Cup(id=cup_id, name=name, races=races, entrants=entrants, points=points, seed=seed,
                   results=results, timer=timer, source=source)

    def _tables(self, key: str) -> list[dict]:
        value = self.doc.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.fail(key, f"must be [[{key}]] tables")
        return value

    def _race(self, k: int, table: dict) -> CupRace:
        track = self.value("track", str, "race", k, table)
        name = self.text("name", "race", k, table, default=track[-NAME.limit:])
        laps = self.value("laps", int, "race", k, table)
        if laps_problem(laps):
            raise self.fail("laps", laps_problem(laps), "race", k)
        rules = table.get("rules", {"preset": "paper"})
        if not isinstance(rules, dict) or not isinstance(rules.get("preset"), str):
            raise self.fail("rules", "must be a table with a preset, such as { preset = \"paper\" }", "race", k)
        options = {key: value for key, value in rules.items() if key != "preset"}
        try:
            rule_set = preset(rules["preset"], options or None)
        except RulesError as error:
            raise self.fail("rules", str(error), "race", k) from None
        return CupRace(track, name, laps, rule_set)

    def _entrant(self, k: int, table: dict) -> Entrant:
        name = self.text("name", "entrant", k, table).strip()
        if not name:
            raise self.fail("name", "must not be empty", "entrant", k)
        driver = self.text("driver", "entrant", k, table)
        looks = []
        for key in ("color", "symbol"):
            value = table.get(key, 0)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 64:
                raise self.fail(key, f"must be a whole number from 0 to 63, not {value!r}", "entrant", k)
            looks.append(value)
        return Entrant(name, driver, looks[0], looks[1])

    def _result(self, k: int, table: dict, n: int) -> RaceResult:
        def row(key, check, what):
            value = table.get(key)
            if not isinstance(value, list) or len(value) != n:
                raise self.fail(key, f"must list one {what} per entrant ({n})", "result", k)
            out = []
            for item in value:
                ok, parsed = check(item)
                if not ok:
                    raise self.fail(key, f"{item!r} is not a {what}", "result", k)
                out.append(parsed)
            return tuple(out)

        def place(item):
            if item == NO_PLACE:
                return True, None
            return (isinstance(item, int) and not isinstance(item, bool) and 1 <= item <= n), item

        places = row("places", place, f"place (1 to {n} or \"{NO_PLACE}\")")
        moves = row("moves", lambda v: (isinstance(v, int) and not isinstance(v, bool) and v >= 0, v), "move count")
        status = row("status", lambda v: (isinstance(v, str), v), "status")
        phases = table.get("phases", 0)
        if isinstance(phases, bool) or not isinstance(phases, int) or phases < 0:
            raise self.fail("phases", f"must be a whole number, not {phases!r}", "result", k)
        replay = table.get("replay", "")
        if not isinstance(replay, str) or "/" in replay or "\\" in replay or replay.startswith("."):
            raise self.fail("replay", f"must be a file name beside the cup file, not {replay!r}", "result", k)
        return RaceResult(places, moves, status, phases, replay)


# -- a saved cup and the game as it is now -------------------------------------------------
#: What an entrant whose driver this version does not know races as (a level every version has).
STAND_IN_DRIVER = "cpu:pro"


@dataclass(frozen=True)
class CupFit:
    """How a saved cup fits the game as it is now: ``cup`` is the cup as it can be played on
    (an unknown driver raced by :data:`STAND_IN_DRIVER`, the races still to come that cannot be
    raced left out), ``tracks`` its races' tracks (None for a played race whose track is gone),
    and ``problems`` says in a player's words what changed (empty when the cup fits as saved)."""

    cup: Cup
    tracks: tuple
    problems: tuple[str, ...] = ()
    playable: bool = True  # False: no race is left that can be raced (the cup can only be put aside)
    kept: tuple[int, ...] = ()  # which races of the saved cup the fitted one holds (their indices)


def fit_cup(cup: Cup, tracks: Sequence[Any], missing: Mapping[int, str] | None = None,
            kinds: Iterable[str] | None = None) -> CupFit:
    """Check a saved cup against its tracks as loaded now (``tracks[k]`` None when race k's
    track cannot be loaded, ``missing[k]`` saying why) and the driver ``kinds`` this version
    knows (default: the CPU levels and ``"human"``): a pack edited since (fewer start places, a
    sprint now, a track gone) or a cup file from a newer version (an unknown driver) is told
    here, never found out when the race starts. Pure: the tracks are passed in.
    """
    if kinds is None:
        # Lazy on purpose: the CPU drivers bring in the solver, which a cup's standings never need.
        from game.drivers.cpu import KINDS

        kinds = set(KINDS)
    known = set(kinds) | {"human"}
    missing = dict(missing or {})
    problems: list[str] = []
    entrants = list(cup.entrants)
    for i, entrant in enumerate(entrants):
        if entrant.driver not in known:
            problems.append(f"{entrant.name}: the driver {shown(entrant.driver)} is unknown to this version; "
                            f"races as {STAND_IN_DRIVER}")
            entrants[i] = replace(entrant, driver=STAND_IN_DRIVER)
    names = [e.name for e in entrants]
    races, kept = list(cup.races[:cup.next_index]), list(tracks[:cup.next_index])
    indices = list(range(cup.next_index))
    for k in range(cup.next_index, len(cup.races)):
        race, track = cup.races[k], tracks[k] if k < len(tracks) else None
        why = _race_problem(race, track, names) if track is not None else missing.get(k, "the track cannot be found")
        if why:
            problems.append(f"race {k + 1} ({race.name}): {why}; left out")
            continue
        races.append(race)
        kept.append(track)
        indices.append(k)
    every = tuple(range(len(cup.races)))
    if not problems:
        return CupFit(cup, tuple(tracks), kept=every)
    if len(races) == cup.next_index:  # no race left to play: the cup as saved, only to be put aside
        return CupFit(cup, tuple(tracks), tuple(problems + ["no race of the cup is left that can be raced"]), False,
                      every)
    return CupFit(replace(cup, entrants=tuple(entrants), races=tuple(races)), tuple(kept), tuple(problems),
                  kept=tuple(indices))


def _race_problem(race: CupRace, track: Any, names: Sequence[str]) -> str:
    """Why ``race`` cannot be raced on ``track`` by these cars now ("" when it can)."""
    cars = track.meta.get("cars") if isinstance(getattr(track, "meta", None), dict) else None
    if isinstance(cars, int) and len(names) > cars:
        return f"the track now holds {cars} cars, and the cup has {len(names)}"
    try:
        RaceState.start(track, race.rules, list(names), laps=race.laps, seed=0)
    except (RacetrackError, ValueError) as error:
        return str(error)
    return ""


# -- cups on disk ------------------------------------------------------------------------
@dataclass(frozen=True)
class SavedCup:
    """A cup file found in the cups folder: the cup, or the reason it cannot be read."""

    path: Path
    cup: Cup | None = None
    problem: str = ""
    modified: float = 0.0

    @property
    def folder(self) -> Path:
        return self.path.parent


def cup_folder(root: str | os.PathLike, cup: Cup) -> Path:
    """Where a new cup is kept: ``root/<cup id>-<seed>/`` (the cup file and its races' replays)."""
    return Path(root) / f"{cup.id}-{cup.seed}"


def replay_name(index: int) -> str:
    """The file name of race ``index``'s replay (from 0) beside the cup file."""
    return f"race-{index + 1}.toml"


def saved_cups(root: str | os.PathLike) -> list[SavedCup]:
    """Every cup file under ``root`` (one folder each), newest first; unreadable ones say why."""
    root = Path(root)
    if not root.is_dir():
        return []
    found = []
    for folder in root.iterdir():
        path = folder / CUP_FILE
        try:
            if not folder.is_dir() or not path.is_file():
                continue
            modified = path.stat().st_mtime
        except OSError:
            continue
        try:
            found.append(SavedCup(path, load_cup(path), modified=modified))
        except CupError as error:
            found.append(SavedCup(path, None, str(error), modified))
    return sorted(found, key=lambda s: (-s.modified, str(s.path)))


def unfinished_cups(root: str | os.PathLike) -> list[SavedCup]:
    """The cups that can be resumed, newest first."""
    return [s for s in saved_cups(root) if s.cup is not None and not s.cup.finished]


def cups_to_resume(root: str | os.PathLike) -> list[SavedCup]:
    """What *Resume cup* offers, newest first: the unfinished cups, and the cup files that cannot
    be read now (edited, or written by a newer version), so the player hears why and can put them aside."""
    return [s for s in saved_cups(root) if s.cup is None or not s.cup.finished]


def points_rows(cup: Cup) -> Iterable[tuple[int, tuple[int, ...]]]:
    """(race index, each entrant's points) for every race played: what the standings add up."""
    for k, result in enumerate(cup.results):
        yield k, cup.points_in(result)


__all__ = ["Cup", "CupError", "CupFit", "CupRace", "Entrant", "RaceResult", "SavedCup", "Standing", "cup_folder",
           "cup_from_def", "cup_refs", "cup_document", "cups_to_resume", "dumps_cup", "fit_cup", "load_cup", "loads_cup",
           "points_rows", "replay_name", "CUP_MARKER", "is_own_cup", "save_cup", "saved_cups", "standing_key",
           "unfinished_cups"]
