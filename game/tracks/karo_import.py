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
from dataclasses import dataclass
from pathlib import Path

from game.core.errors import RacetrackError
from game.tracks.charmap import OFFROAD_LETTERS, ROAD_LETTERS, TERRAIN_LETTERS

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

    @property
    def width(self) -> int:
        return len(self.rows[0]) if self.rows else 0

    @property
    def height(self) -> int:
        return len(self.rows)

    def count(self, letter: str) -> int:
        return sum(row.count(letter) for row in self.rows)


def parse_map(text: str, *, source: str, map_id: str) -> KaroMap:
    """Check a map's text: not empty, rectangular, letters Karopapier knows."""
    rows = [line.rstrip("\r") for line in text.split("\n")]
    while rows and not rows[-1].strip():
        rows.pop()
    while rows and not rows[0].strip():
        rows.pop(0)
    if not rows:
        raise KaroImportError(f"{source}: the map is empty")
    width = len(rows[0])
    for number, row in enumerate(rows, start=1):
        if len(row) != width:
            raise KaroImportError(f"{source}:{number}: row is {len(row)} cells wide, the first row {width}; "
                                  "a Karopapier map is a rectangle")
        bad = sorted({ch for ch in row if ch not in ROAD_LETTERS and ch not in OFFROAD_LETTERS
                      and ch not in TERRAIN_LETTERS})
        if bad:
            raise KaroImportError(f"{source}:{number}: unknown letter {bad[0]!r} at column {row.index(bad[0]) + 1}; "
                                  "Karopapier maps use X O S F P 1-9 and the terrain letters "
                                  + " ".join(TERRAIN_LETTERS))
    return KaroMap(map_id, tuple(rows))


def read_map(path: str | Path) -> KaroMap:
    """Read a ``.map`` file; its name (without ``.map``) is the Karopapier map id."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise KaroImportError(f"{path}: cannot read the map: {error}") from None
    return parse_map(text, source=str(path), map_id=path.stem)


def convert_rows(karo: KaroMap, keep_starts: set[tuple[int, int]] | None = None) -> tuple[list[str], list[str]]:
    """The map in pack letters, and a note for every change made.

    Terrain letters (sand, mud, ...) become ``X``: Racetrack has one kind of off-road,
    and Karopapier counts them all as off-road too. With ``keep_starts`` only those S
    cells stay S (the others become road): a replay puts its cars on the start slots
    in order, so its track must offer exactly the cells the players stood on.
    """
    notes = []
    counts: dict[str, int] = {}
    rows = []
    for y, row in enumerate(karo.rows):
        out = []
        for x, ch in enumerate(row):
            if ch in TERRAIN_LETTERS:
                counts[ch] = counts.get(ch, 0) + 1
                ch = "X"
            elif ch == "S" and keep_starts is not None and (x, y) not in keep_starts:
                ch = "O"
            out.append(ch)
        rows.append("".join(out))
    for ch, n in sorted(counts.items()):
        notes.append(f"{n} cells of {TERRAIN_LETTERS[ch]} ({ch}) read as off-road (X)")
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
    pack_id = f"karo-{karo.id}".lower()
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


def _get(data: dict, key: str, kind, source: str, where: str):
    if not isinstance(data, dict) or key not in data:
        raise KaroImportError(f"{source}: {where}{key}: missing")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise KaroImportError(f"{source}: {where}{key}: expected {getattr(kind, '__name__', kind)}, "
                              f"not {type(value).__name__}")
    return value


def read_game(path: str | Path) -> KaroGame:
    """Read a Karopapier game log (``<id>.details.json``); every missing key is named."""
    path = Path(path)
    source = str(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise KaroImportError(f"{source}: cannot read the game log: {error}") from None
    except json.JSONDecodeError as error:
        raise KaroImportError(f"{source}:{error.lineno}: not valid JSON: {error.msg}") from None
    game = _get(data, "game", dict, source, "")
    karo_map = _get(data, "map", dict, source, "")
    players_raw = _get(data, "players", list, source, "")
    players = []
    for index, raw in enumerate(players_raw):
        where = f"players[{index}]."
        moves = []
        for k, move in enumerate(_get(raw, "moves", list, source, where)):
            mwhere = f"{where}moves[{k}]."
            moves.append(KaroMove(_get(move, "x", int, source, mwhere), _get(move, "y", int, source, mwhere),
                                  bool(move.get("c", False)), str(move.get("t", "")), str(move.get("msg", ""))))
        if not moves:
            raise KaroImportError(f"{source}: {where}moves: empty; every player stands on a start cell first")
        players.append(KaroPlayer(str(_get(raw, "name", str, source, where)), str(raw.get("status", "ok")),
                                  int(raw.get("position", 0) or 0), tuple(moves)))
    if not players:
        raise KaroImportError(f"{source}: players: the game has no players")
    return KaroGame(
        id=int(_get(game, "id", int, source, "game.")),
        name=str(game.get("name", "")),
        map_id=str(_get(game, "map", int, source, "game.")),
        map_name=karo_map.get("name"),
        map_author=karo_map.get("author"),
        mapcode=str(karo_map.get("mapcode", "")),
        checkpoints=bool(game.get("withCheckpoints", game.get("cps", True))),
        setback=int(game.get("zzz", 2)),
        start_direction=str(game.get("startdirection", game.get("dir", "classic"))),
        crash_allowed=str(game.get("crashallowed", game.get("tcrash", "forbidden"))),
        players=tuple(players),
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
            folder = source.parent
            for option in (folder / f"{game.map_id}.map", folder / "maps" / f"{game.map_id}.map",
                           folder.parent / "maps" / f"{game.map_id}.map"):
                if option.exists():
                    karo = read_map(option)
                    break
        if karo is None:
            raise KaroImportError(f"{source}: the log's mapcode is incomplete and no {game.map_id}.map was found "
                                  "beside it or in ../maps; pass the map with --map FILE")
    return KaroMap(karo.id, karo.rows, name=game.map_name, author=game.map_author)
