"""Karopapier maps and game logs read into Racetrack's own terms.

Karopapier (an online vector-race game) stores a map as plain text, one letter per
cell (see ``game.tracks.charmap`` for the letters), and a finished game as JSON with
every player's positions. This module only reads and converts; it never touches the
solver or replays (they live in layers above): ``racetrack import`` puts it together.

- :func:`read_map` and :func:`map_to_pack` turn a ``.map`` file into a level pack
  (TOML text) and a list of notes on what had to change.
- :func:`read_game` turns a ``<id>.details.json`` game log into a :class:`KaroGame`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from game.core.errors import RacetrackError
from game.core.text import AUTHOR, NAME, clean_text, shown, text_problem
from game.files import LIMITS, DataError, parse_json, read_text, shown as shown_path
from game.core.terrain import LETTER_NAMES as KIND_LETTER_NAMES, LETTERS as KIND_LETTERS
from game.tracks.charmap import OFFROAD_TERRAIN_LETTERS, TERRAIN_LETTERS, parse_charmap

#: Words for the letters a note mentions.
LETTER_NAMES = {"X": "grass", "P": "parc fermé", **TERRAIN_LETTERS}


class KaroImportError(RacetrackError, ValueError):
    """A Karopapier file that cannot be read; the message names the file and what is wrong."""


@dataclass(frozen=True)
class KaroMap:
    """A Karopapier map: ``rows`` of equal width, as letters."""

    id: str
    rows: tuple[str, ...]
    name: str | None = None
    author: str | None = None
    #: What reading the text changed (short rows padded), for the importer to pass on.
    notes: tuple[str, ...] = ()

    @property
    def width(self) -> int:
        return len(self.rows[0]) if self.rows else 0

    @property
    def height(self) -> int:
        return len(self.rows)

    def count(self, letter: str) -> int:
        return sum(row.count(letter) for row in self.rows)


def parse_map(text: str, *, source: str, map_id: str) -> KaroMap:
    """Read a map's text as the game reads it (``game.tracks.charmap.parse_charmap``, the one reader).

    Any line ends, trailing whitespace, blank lines around the map and common indentation
    are accepted; short rows are padded with ``X`` (off-road) and a note says so. An empty
    map or an unknown letter raises :class:`KaroImportError` naming the file and line.
    """
    grid, problems = parse_charmap(text, track=map_id, keep_terrain=True)
    errors = [p for p in problems if p.is_error]
    if errors:
        first = errors[0]
        raise KaroImportError(f"{source}" + (f":{first.line}" if first.line else "") + f": {first.message}")
    notes = tuple(f"line {p.line}: {p.message}" if p.line else p.message for p in problems)
    return KaroMap(map_id, grid.rows, notes=notes)


def read_map(path: str | Path) -> KaroMap:
    """Read a ``.map`` file; its name (without ``.map``, as the game shows it) is the Karopapier map id."""
    path = Path(path)
    try:
        text = read_text(path, limit=LIMITS["map"])
    except OSError as error:
        raise KaroImportError(f"{shown_path(path)}: cannot read the map: {error.strerror or error}") from None
    return parse_map(text, source=shown_path(path), map_id=shown_path(path.stem))


def convert_rows(karo: KaroMap, keep_starts: set[tuple[int, int]] | None = None) -> tuple[list[str], list[str]]:
    """The map in pack letters, and a note for every change made.

    Sand (``Y``), mud (``Z``), snow (``N``, ice here) and water (``W``) keep their letters:
    Racetrack's terrain (off-road under the karopapier rules the pack is given, as on
    Karopapier; with their effects under ``terrain = "effects"``). The other Karopapier
    terrains (gold, lava, tar, mountains, night) become ``X``. With ``keep_starts`` only those S
    cells stay S (the others become road): a replay puts its cars on the start slots
    in order, so its track must offer exactly the cells the players stood on.
    """
    notes = list(karo.notes)
    counts: dict[str, int] = {}
    kept: dict[str, int] = {}
    rows = []
    for y, row in enumerate(karo.rows):
        out = []
        for x, ch in enumerate(row):
            if ch in OFFROAD_TERRAIN_LETTERS:
                counts[ch] = counts.get(ch, 0) + 1
                ch = "X"
            elif ch in KIND_LETTERS:
                kept[ch] = kept.get(ch, 0) + 1
            elif ch == "S" and keep_starts is not None and (x, y) not in keep_starts:
                ch = "O"
            out.append(ch)
        rows.append("".join(out))
    for ch, n in sorted(counts.items()):
        notes.append(f"{n} cells of {TERRAIN_LETTERS[ch]} ({ch}) read as off-road (X)")
    for ch, n in sorted(kept.items()):
        name = TERRAIN_LETTERS.get(ch) or KIND_LETTER_NAMES[ch]  # ice (I) and curbs (C) are Racetrack's own
        notes.append(f"{n} cells of {name} ({ch}) kept: off-road under the karopapier rules, "
                     f"{KIND_LETTERS[ch]} under terrain = \"effects\"")
    if karo.count("P"):
        notes.append(f"{karo.count('P')} parc fermé cells (P) are off-road: finished cars simply stop")
    if keep_starts is not None:
        dropped = karo.count("S") - len(keep_starts)
        if dropped:
            notes.append(f"{dropped} unused start cells (S) became road (O)")
    return rows, notes


def _toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def pack_text(karo: KaroMap, rows: list[str], *, pack_id: str, name: str, description: str,
              author: str = "Karopapier", par: int | None = None, laps: int = 1) -> str:
    """A level pack (TOML) holding the map as one char-map track under Karopapier rules.

    ``karopapier = true`` keeps Karopapier's reading of the map: checkpoints count any
    visit, and the first move entering an ``F`` cell with every checkpoint taken finishes.
    """
    lines = [
        "# Imported from a Karopapier map by `racetrack import`.",
        "format = 1",
        "",
        "[pack]",
        f"id = {_toml_string(pack_id)}",
        f"name = {_toml_string(name)}",
        f"author = {_toml_string(author)}",
        f"description = {_toml_string(description)}",
        "",
        "[[track]]",
        f"id = {_toml_string(pack_id)}",
        f"name = {_toml_string(name)}",
        f"laps = {laps}",
        'rules = "karopapier"',
        "karopapier = true",
        f"description = {_toml_string(description)}",
    ]
    if par is not None:
        lines.append(f"par = {par}")
    lines.append('map = """')
    lines.extend(rows)
    lines.append('"""')
    return "\n".join(lines) + "\n"


def map_to_pack(karo: KaroMap, *, par: int | None = None) -> tuple[str, list[str]]:
    """A pack for a Karopapier map, plus notes on what was changed or is missing."""
    rows, notes = convert_rows(karo)
    name = karo.name or f"Karopapier {karo.id}"
    # A pack id may hold only letters, digits, - _ and . (a map's file name may hold anything).
    pack_id = re.sub(r"[^a-z0-9_.-]+", "-", f"karo-{karo.id}".lower()).strip("-.")[:64]
    description = f"Karopapier map {karo.id}" + (f" by {karo.author}" if karo.author else "") \
        + f", {karo.width} x {karo.height}"
    if not karo.count("S"):
        notes.append("the map has no start (S): it cannot be raced")
    if not karo.count("F"):
        notes.append("the map has no finish (F): it cannot be raced")
    return pack_text(karo, rows, pack_id=pack_id, name=name, description=description, par=par), notes


# -- game logs -------------------------------------------------------------------------------
@dataclass(frozen=True)
class KaroMove:
    """One entry of a player's log: where the car stood afterwards and what kind of entry it was."""

    x: int
    y: int
    crash: bool = False  # set back after having no legal move
    time: str = ""
    message: str = ""


@dataclass(frozen=True)
class KaroPlayer:
    name: str
    status: str  # "ok" or "left"
    rank: int  # Karopapier's final place; 0 for a player who left
    moves: tuple[KaroMove, ...]  # moves[0] is the car placed on its start cell

    @property
    def left(self) -> bool:
        return self.status == "left"


@dataclass(frozen=True)
class KaroGame:
    """A finished Karopapier game: its settings, its map id and every player's log."""

    id: int
    name: str
    map_id: str
    map_name: str | None
    map_author: str | None
    mapcode: str
    checkpoints: bool
    setback: int  # Karopapier's ZZZ: moves a crash sets a car back
    start_direction: str
    crash_allowed: str
    players: tuple[KaroPlayer, ...]
    finished: bool | None = None  # what the log says (None: it does not say)

    @property
    def racing(self) -> tuple[int, ...]:
        """Players still in the race when the log was saved: neither finished (a place) nor gone."""
        return tuple(i for i, p in enumerate(self.players) if not p.left and p.rank == 0)

    def complete_rounds(self) -> int:
        """How many rounds every player still racing has moved in (the rest of a round is unfinished).

        A game saved in the middle of a round has some racing players one entry ahead of
        the others; only the rounds all of them played can be refereed.
        """
        longest = max(len(p.moves) for p in self.players) - 1
        racing = self.racing
        if not racing:
            return longest
        return min(len(self.players[i].moves) - 1 for i in racing)


#: The largest coordinate a log may give (Karopapier maps are a few hundred cells at most).
MAX_COORDINATE = 100_000


class _Log:
    """Reads one game log's values, each checked and named by its key (``players[3].moves[5].x``).

    Karopapier served its logs in several forms over the years: the 2012 API sends numbers
    and flags as strings (``"x": "19"``, ``"c": "0"``), marks every move with ``"c"`` and
    leaves out ``withCheckpoints``, ``crashallowed`` and ``startdirection`` (the older
    ``cps``, ``tcrash`` and ``dir`` say the same). All of them are read here.
    """

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, message: str) -> KaroImportError:
        return KaroImportError(f"{self.source}: {where}: {message}")

    def table(self, data, key: str, where: str, required: bool = True) -> dict | None:
        value = self._value(data, key, where, required)
        if value is None and not required:
            return None
        if not isinstance(value, dict):
            raise self.fail(where + key, f"expected an object {{...}}, not {_kind(value)}")
        return value

    def items(self, data, key: str, where: str) -> list:
        value = self._value(data, key, where, True)
        if not isinstance(value, list):
            raise self.fail(where + key, f"expected a list [...], not {_kind(value)}")
        return value

    def integer(self, data, key: str, where: str, default: int | None = None, low: int = -MAX_COORDINATE,
            high: int = MAX_COORDINATE) -> int:
        value = self._value(data, key, where, default is None)
        if value is None:
            return default
        number = value
        if isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,12}\s*", value):
            number = int(value)  # the 2012 API's numbers
        elif isinstance(value, float) and value.is_integer() and abs(value) <= MAX_COORDINATE:
            number = int(value)
        if isinstance(number, bool) or not isinstance(number, int):
            raise self.fail(where + key, f"expected a whole number, not {_kind(value)}")
        if not low <= number <= high:
            raise self.fail(where + key, f"{number} is out of range ({low} to {high})")
        return number

    def flag(self, data, key: str, where: str, default: bool | None = None) -> bool | None:
        value = self._value(data, key, where, False)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in _FLAG_WORDS:
            return _FLAG_WORDS[value.strip().lower()]
        raise self.fail(where + key, f"expected true or false, not {_kind(value)}")

    def text(self, data, key: str, where: str, default: str | None = None) -> str:
        value = self._value(data, key, where, default is None)
        if value is None:
            return default
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            raise self.fail(where + key, f"expected text, not {_kind(value)}")
        return value

    def _value(self, data, key: str, where: str, required: bool):
        if not isinstance(data, dict):
            raise self.fail(where.rstrip(".") or "the log", f"expected an object {{...}}, not {_kind(data)}")
        if key not in data or data[key] is None:
            if required:
                raise self.fail(where + key, "missing")
            return None
        return data[key]


_FLAG_WORDS = {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False, "": False}


def _kind(value) -> str:
    """A value in a message: short, and its JSON type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "a list"
    text = json.dumps(value) if isinstance(value, (str, int, float)) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


#: The start-direction settings Karopapier knows ("klassisch: erst weg vom Ziel",
#: "Formula 1: erst alle über's Ziel", free).
START_DIRECTIONS = ("classic", "formula1", "free")


def _start_direction(log: _Log, game: dict) -> str:
    """The game's start-direction setting: ``startdirection``, or the older ``dir``, else "classic"."""
    key = "startdirection" if log.text(game, "startdirection", "game.", "") else "dir"
    value = log.text(game, key, "game.", "classic")
    if value not in START_DIRECTIONS:
        raise log.fail("game." + key, f"{value!r} is not a start direction Karopapier knows; "
                                      f"expected one of {', '.join(START_DIRECTIONS)}")
    return value


def read_game(path: str | Path) -> KaroGame:
    """Read a Karopapier game log (``<id>.details.json``) in any form Karopapier served.

    Every problem is a :class:`KaroImportError` naming the log file and the key, such as
    ``44773.details.json: players[3].moves[5].x: expected a whole number, not "a"``.
    """
    path = Path(path)
    source = str(path)
    try:
        data = parse_json(read_text(path, limit=LIMITS["game log"]))
    except OSError as error:
        raise KaroImportError(f"{source}: cannot read the game log: {error.strerror or error}") from None
    except DataError as error:
        line = f":{error.line}" if error.line else ""
        raise KaroImportError(f"{source}{line}: {error.problem}") from None
    log = _Log(source)
    if not isinstance(data, dict):
        raise log.fail("the log", f"expected an object {{...}} with game, players and map, not {_kind(data)}")
    game = log.table(data, "game", "")
    karo_map = log.table(data, "map", "", required=False) or {}
    players_raw = log.items(data, "players", "")
    players = []
    names: dict[str, int] = {}
    for index, raw in enumerate(players_raw):
        where = f"players[{index}]."
        moves = []
        for k, move in enumerate(log.items(raw, "moves", where)):
            mwhere = f"{where}moves[{k}]."
            moves.append(KaroMove(log.integer(move, "x", mwhere), log.integer(move, "y", mwhere),
                                  bool(log.flag(move, "c", mwhere, False)), log.text(move, "t", mwhere, ""),
                                  log.text(move, "msg", mwhere, "")))
        if not moves:
            raise log.fail(f"{where}moves", "empty; every player stands on a start cell first")
        name = log.text(raw, "name", where).strip()
        if not name:
            raise log.fail(f"{where}name", "empty; every player needs a name")
        if text_problem(name, NAME):
            raise log.fail(f"{where}name", f"{shown(name)} {text_problem(name, NAME)}")
        if name in names:
            raise log.fail(f"{where}name", f"{name!r} is also the name of players[{names[name]}]; "
                           "the names in a log must differ")
        names[name] = index
        players.append(KaroPlayer(name, log.text(raw, "status", where, "ok"),
                                  log.integer(raw, "position", where, 0, low=0, high=1000), tuple(moves)))
    if not players:
        raise log.fail("players", "the game has no players")
    checkpoints = log.flag(game, "withCheckpoints", "game.", None)
    if checkpoints is None:
        checkpoints = log.flag(game, "cps", "game.", True)
    return KaroGame(
        id=log.integer(game, "id", "game.", low=0, high=10**12),
        # Names that only label the imported pack and replay are cleaned, not refused.
        name=clean_text(log.text(game, "name", "game.", ""), NAME),
        map_id=str(log.integer(game, "map", "game.", low=0, high=10**12)),
        map_name=clean_text(log.text(karo_map, "name", "map.", ""), NAME) or None,
        map_author=clean_text(log.text(karo_map, "author", "map.", ""), AUTHOR) or None,
        mapcode=log.text(karo_map, "mapcode", "map.", ""),
        checkpoints=bool(checkpoints),
        setback=log.integer(game, "zzz", "game.", 2, low=0, high=1000),
        start_direction=_start_direction(log, game),
        crash_allowed=log.text(game, "crashallowed", "game.", "") or log.text(game, "tcrash", "game.", "forbidden"),
        players=tuple(players),
        finished=log.flag(game, "finished", "game.", None),
    )


def game_map(game: KaroGame, source: Path, map_file: str | Path | None = None) -> KaroMap:
    """The map a game was played on: its own mapcode when whole, else ``<map id>.map`` nearby.

    Looked for, in order: ``map_file``; the mapcode in the log (game APIs often cut it
    short); ``<id>.map`` beside the log, in ``maps/`` beside it and in ``../maps/``.
    """
    if map_file is not None:
        karo = read_map(map_file)
    else:
        karo = None
        try:
            candidate = parse_map(game.mapcode, source=f"{source}: map.mapcode", map_id=game.map_id)
            if candidate.height > 2 and candidate.count("S") and candidate.count("F"):
                karo = candidate
        except KaroImportError:
            pass
        if karo is None:
            folder = source.resolve().parent  # a bare file name has "." as parent, whose parent is "."
            for option in (folder / f"{game.map_id}.map", folder / "maps" / f"{game.map_id}.map",
                           folder.parent / "maps" / f"{game.map_id}.map"):
                if option.exists():
                    karo = read_map(option)
                    break
        if karo is None:
            raise KaroImportError(f"{source}: the log's mapcode is incomplete and no {game.map_id}.map was found "
                                  "beside it or in ../maps; pass the map with --map FILE")
    return KaroMap(karo.id, karo.rows, name=game.map_name, author=game.map_author, notes=karo.notes)
