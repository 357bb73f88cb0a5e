"""Level packs: TOML files of tracks, read with every problem located, and written back.

``load_pack`` never raises for a bad pack: it returns a :class:`PackResult` holding the
good tracks and every problem (a broken track never stops the others). ``load_track_ref``
is the one call a game or a tool needs to get a single track by name; it raises
:class:`TrackError` when that track is unusable. The format is documented for modders in
``docs/level-packs.md``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from game.core.rules import PRESET_NAMES, preset
from game.core.track import Track
from game.files import LIMITS, DataError, parse_toml, read_text, write_new_or_own
from game.files import shown as shown_path
from game.tracks.refs import is_file_ref, typed_file_ref
from game.tomlerrors import KeyLines, syntax_problem
from game.tracks.charmap import check_charmap
from game.tracks.limits import MAX_NODES, MAX_PACK_NODES, MAX_TRACKS
from game.tracks.problems import ERROR, WARNING, Problem, TrackError
from game.core.limits import laps_problem
from game.core.text import AUTHOR, DESCRIPTION, ID, NAME, kept_clean, shown, text_problem

if TYPE_CHECKING:  # cups and the TOML writer load where a pack has cups or is written (issue 28)
    from game.tracks.cups import CupDef

FORMAT = 1
#: The first line of every pack the game or the editor writes; ``racetrack import`` writes the second.
PACK_MARKER = "# Racetrack level pack"
GAME_PACK_MARKERS = (PACK_MARKER, "# Imported from a Karopapier map by `racetrack import`.")
#: How many cars a pack track must hold when it does not say (the couch maximum).
DEFAULT_CARS = 8
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
PACK_KEYS = {"id": str, "name": str, "author": str, "description": str}
#: The pack's text fields and what kind of text each is (``game.core.text``: control characters, length).
_PACK_TEXTS = {"name": NAME, "author": AUTHOR, "description": DESCRIPTION}
TRACK_KEYS = {"id", "name", "laps", "rules", "description", "par", "cars", "forward", "map", "outline",
              "karopapier"}


@dataclass(frozen=True)
class Pack:
    """A level pack: its own details, its usable tracks and its usable ``[[cup]]`` tables, in file order."""

    id: str
    name: str
    author: str = ""
    description: str = ""
    tracks: tuple[Track, ...] = ()
    cups: tuple[CupDef, ...] = ()

    def track(self, track_id: str) -> Track | None:
        return next((t for t in self.tracks if t.id == track_id), None)

    def all_cups(self) -> tuple[CupDef, ...]:
        """Every cup the pack offers: its whole track list as one cup (two tracks or more), then its own cups."""
        from game.tracks.cups import pack_cup

        whole = (pack_cup(self.id, self.name, [t.id for t in self.tracks]),) if len(self.tracks) >= 2 else ()
        return whole + tuple(c for c in self.cups if c.id != self.id)


@dataclass
class PackResult:
    """What reading one pack file gave: the pack (None if unreadable) and every problem."""

    path: Path
    pack: Pack | None
    problems: list[Problem] = field(default_factory=list)

    @property
    def tracks(self) -> tuple[Track, ...]:
        return self.pack.tracks if self.pack else ()

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.is_error]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if not p.is_error]

    @property
    def ok(self) -> bool:
        return not self.errors

    def track_problems(self, track_id: str) -> list[Problem]:
        return [p for p in self.problems if p.track == track_id]

    def cup_problems(self, cup_id: str) -> list[Problem]:
        return [p for p in self.problems if p.cup == cup_id]


# -- finding lines in the TOML text ----------------------------------------------
class _Lines(KeyLines):
    """Where a pack's tracks, cups and their keys sit in its text (see :class:`KeyLines`)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.tracks = self.headers("track")

    def start(self, index: int) -> int:
        """The header line of the n-th ``[[track]]`` (the first line when there is none)."""
        return self.header("track", index) or 1

    def track_key(self, name: str, index: int | None = None, table: str | None = None) -> int | None:
        """Line of ``name = ...`` in the n-th ``[[track]]`` (at the top for None), or in its sub-table
        ``[track.<table>]`` (then of ``table = {...}`` or of the sub-table's header)."""
        if index is None:
            return self.key(name)
        if table is None:
            return self.key(name, "track", index)
        return (self.key(name, f"track.{table}", index) or self.key(table, "track", index)
                or self.header(f"track.{table}", index))

    def cup_key(self, name: str, index: int) -> int | None:
        """Line of ``name = ...`` inside the n-th ``[[cup]]`` (or its header line)."""
        return self.key(name, "cup", index) or self.header("cup", index) or 1

    def cup_race(self, index: int, race: int, entries: list) -> int | None:
        """Line of race ``race`` (from 0) of the n-th cup: the k-th ``track =`` for tables, else ``races =``."""
        first, last = self.section("cup", index) or (1, len(self.lines))
        tables = [n for n in range(first, last + 1) if re.search(r"\btrack\s*=", self.lines[n - 1])]
        if 0 <= race < len(entries) and isinstance(entries[race], dict):
            k = sum(1 for e in entries[:race] if isinstance(e, dict))
            if k < len(tables):
                return tables[k]
        return self.cup_key("races", index)

    def patch_key(self, number: int, name: str | None, index: int) -> int | None:
        """Line of ``name = ...`` in the ``number``-th (from 1) ``[[track.outline.terrain]]`` patch of the
        n-th track (or the patch's header; the outline's when the patch is not written as a table)."""
        tracks = self.headers("track")
        first = tracks[index] if index < len(tracks) else 1
        last = tracks[index + 1] if index + 1 < len(tracks) else len(self.lines) + 1
        heads = [(k, n) for k, n in enumerate(self.headers("track.outline.terrain")) if first < n < last]
        if not 1 <= number <= len(heads):
            return self.track_key("terrain", index, table="outline")
        k, head = heads[number - 1]
        return (self.key(name, "track.outline.terrain", k) if name else None) or head


# -- reading ----------------------------------------------------------------------
def pinned_par(track: Track, rules, laps: int) -> int | None:
    """The par a pack pins on ``track`` (``par = N``) when it is the par of this race: raced
    under the track's own rules (its preset, no option changed) over its own laps. None
    otherwise, or when the pack pins none: another race's par must be worked out (the solver).
    """
    own = track.meta.get("par")
    if not isinstance(own, int) or isinstance(own, bool) or laps != track.default_laps:
        return None
    try:
        default = preset(track.default_rules or "paper").options()
    except ValueError:
        return None
    return own if rules.solving().options() == default else None  # a night race's par is the day par


def load_pack(path: str | Path, *, only: str | None = None) -> PackResult:
    """Read one pack file: its good tracks plus every problem, each placed at its line.

    ``only`` names the one track wanted (see :func:`read_pack_text`).
    """
    path = Path(path)
    name = str(path)
    try:
        text = read_text(path, limit=LIMITS["pack"])
    except OSError as exc:
        return PackResult(path, None, [Problem(name, None, None, None, f"cannot read the file: {_reason(exc)}")])
    return read_pack_text(text, name, path, only=only)


def _reason(error: OSError) -> str:
    """An OS error in a player's words, without the file name the problem already gives."""
    return error.strerror or str(error)


def read_pack_text(text: str, file: str = "<pack>", path: Path | None = None, *,
                   only: str | None = None) -> PackResult:
    """Read a pack from its TOML text; ``file`` names it in problems.

    Each rule of the format is a small check below, run in the file's order: the format
    line, the top-level keys, the ``[pack]`` table, the ``[[track]]`` tables, the cups.
    With ``only`` (a track id) the other tracks' ids and sizes are checked but their maps
    and outlines are not compiled, and the cups are not read: a command that races, draws
    or solves one track pays for that one (``racetrack replay`` of a char map then needs
    no numpy even in a pack that also holds an outline).
    """
    path = Path(file) if path is None else path
    if len(text) > LIMITS["pack"]:  # text from memory (the editor, the importer) obeys the file limit too
        return PackResult(path, None, [Problem(file, None, None, None, f"{len(text)} characters is larger than the "
                                               f"{LIMITS['pack'] // (1024 * 1024)} MB a pack may hold")])
    try:
        data = parse_toml(text)
    except DataError as exc:
        return PackResult(path, None, [Problem(file, exc.line, None, None, syntax_problem(exc))])
    lines = _Lines(text)
    problems: list[Problem] = []

    def problem(line, track, key, message, severity=ERROR):
        problems.append(Problem(file, line, track, key, message, severity))

    if not _format_read(data, lines, problem):
        return PackResult(path, None, problems)
    for key in data:
        if key not in ("format", "pack", "track", "cup"):
            problem(lines.key(key), None, key, "unknown key at the top of the pack", WARNING)
    details = _pack_details(data.get("pack"), lines, problem)
    entries = _track_entries(data.get("track"), lines, problem)
    tracks, seen = _read_tracks(entries, lines, file, details.get("id", path.stem), problems, problem, only)
    cups = () if only is not None else _read_cups(data.get("cup"), tracks, [i for i in seen if i not in {
        t.id for t in tracks}], lines, file, problems)
    if any(p.track is None and p.cup is None and p.is_error for p in problems):
        return PackResult(path, None, problems)
    pack = Pack(id=details.get("id", path.stem), name=details.get("name") or path.stem,
                author=details.get("author", ""), description=details.get("description", ""), tracks=tuple(tracks),
                cups=cups)
    return PackResult(path, pack, problems)


def _format_read(data: Mapping[str, Any], lines: _Lines, problem) -> bool:
    """Whether the pack's format is one this game reads (a missing ``format`` is reported, not fatal)."""
    fmt = data.get("format")
    if fmt is None:
        problem(lines.key("format"), None, "format", f"missing: the first line should be format = {FORMAT}")
    elif fmt != FORMAT or isinstance(fmt, bool):
        problem(lines.key("format"), None, "format", f"this game reads format {FORMAT}, not {fmt!r}")
        return False
    return True


def _pack_details(head: Any, lines: _Lines, problem) -> dict[str, str]:
    """The ``[pack]`` table's texts (id, name, author, description), each checked."""
    details: dict[str, str] = {}
    if not isinstance(head, dict):
        problem(lines.header("pack"), None, "pack", "missing: a [pack] table with id and name")
        return details
    for key, value in head.items():
        if key not in PACK_KEYS:
            problem(lines.header("pack"), None, f"pack.{key}", "unknown key", WARNING)
        elif not isinstance(value, str):
            problem(lines.header("pack"), None, f"pack.{key}", f"must be text, not {shown(value)}")
        elif key in _PACK_TEXTS:
            line = lines.key(key, "pack") or lines.header("pack")
            details[key] = kept_clean(value, _PACK_TEXTS[key], lambda message, key=key, line=line: problem(
                line, None, f"pack.{key}", message, WARNING))
        else:
            details[key] = value
    for key in ("id", "name"):
        if key not in head:
            problem(lines.header("pack"), None, f"pack.{key}", "missing")
    _check_pack_id(head.get("id"), lines, problem)
    return details


def _check_pack_id(pack_id: Any, lines: _Lines, problem) -> None:
    """A pack id of at most ``ID.limit`` characters from the id alphabet."""
    if isinstance(pack_id, str) and len(pack_id) > ID.limit:
        problem(lines.key("id", "pack") or lines.header("pack"), None, "pack.id", text_problem(pack_id, ID))
    elif isinstance(pack_id, str) and not ID_PATTERN.match(pack_id):
        problem(lines.header("pack"), None, "pack.id",
                f"{shown(pack_id)} may use only letters, digits, '-', '_' and '.'")


def _track_entries(entries: Any, lines: _Lines, problem) -> list:
    """The ``[[track]]`` tables, or none when they are missing, not tables, or too many."""
    if entries is None:
        problem(None, None, "track", "the pack has no [[track]] tables")
        return []
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        problem(lines.key("track"), None, "track", "must be [[track]] tables")
        return []
    if len(entries) > MAX_TRACKS:
        problem(lines.tracks[MAX_TRACKS] if len(lines.tracks) > MAX_TRACKS else None, None, "track",
                f"{len(entries)} tracks; a pack holds up to {MAX_TRACKS} (split it into several files)")
        return []
    return entries


def _read_tracks(entries: list, lines: _Lines, file: str, pack_id: str, problems: list[Problem],
                 problem, only: str | None = None) -> tuple[list[Track], dict[str, int]]:
    """The tracks that compile, and the place of every id seen; ids short and unique, the pack's size bounded.

    With ``only`` just the track of that id is compiled.
    """
    tracks: list[Track] = []
    seen: dict[str, int] = {}
    budget = MAX_PACK_NODES
    for index, entry in enumerate(entries):
        track_id = entry.get("id") if isinstance(entry.get("id"), str) else f"#{index + 1}"
        if len(track_id) > ID.limit:  # every problem names its track: by its place, not a megabyte
            problems.append(Problem(file, lines.track_key("id", index) or lines.start(index), f"#{index + 1}", "id",
                                    text_problem(track_id, ID)))
            continue
        if track_id in seen:
            problem(lines.track_key("id", index) or lines.start(index), track_id, "id",
                    f"duplicate track id (also the id of track {seen[track_id] + 1} in this pack)")
            continue
        seen[track_id] = index
        nodes = _sheet_nodes(entry)
        budget -= nodes if nodes <= MAX_NODES else 0  # a track too big on its own says so itself
        if budget < 0:  # many big tracks in one file: the reader's time stays bounded per pack too
            problem(lines.start(index), track_id, "track", f"the pack's tracks hold more than "
                    f"{MAX_PACK_NODES:,} grid nodes together; put this one in a pack of its own".replace(",", " "))
            continue
        if only is not None and track_id != only:
            continue
        track, found = _read_track(entry, index, track_id, lines, file, pack_id)
        problems += found
        if track is not None:
            tracks.append(track)
    return tracks, seen


def _read_cups(entries: Any, tracks: list[Track], broken: list[str], lines: _Lines, file: str,
               problems: list[Problem]) -> tuple[CupDef, ...]:
    """Check every ``[[cup]]`` table; a broken cup is left out (and its problems kept), never the tracks."""
    if entries is None:
        return ()
    from game.tracks.cups import read_cup

    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        problems.append(Problem(file, lines.key("cup"), None, "cup", "must be [[cup]] tables", cup="?"))
        return ()
    by_id = {t.id: t for t in tracks}
    cups: list[CupDef] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(entries):
        cup_id = entry.get("id") if isinstance(entry.get("id"), str) else f"#{index + 1}"
        if len(cup_id) > ID.limit:  # every problem names its cup: by its place, not a megabyte
            problems.append(Problem(file, lines.cup_key("id", index), None, "id", text_problem(cup_id, ID),
                                    cup=f"#{index + 1}"))
            continue

        def report(key, message, warning=False, line=None, index=index, cup_id=cup_id):
            where = line if line is not None else lines.cup_key(key.split(".")[0].split("[")[0], index)
            problems.append(Problem(file, where, None, key, message, WARNING if warning else ERROR, cup=cup_id))

        if cup_id in seen:
            report("id", f"duplicate cup id (also the id of cup {seen[cup_id] + 1} in this pack)")
            continue
        seen[cup_id] = index
        races = entry.get("races") if isinstance(entry.get("races"), list) else []
        found = read_cup(entry, by_id, broken, report,
                         lambda k, index=index, races=races: lines.cup_race(index, k, races))
        if found is not None:
            cups.append(found)
    return tuple(cups)


def _sheet_nodes(entry: Mapping[str, Any]) -> int:
    """About how many grid nodes a ``[[track]]`` table's sheet holds, counted without building it.

    A char map: its rows times its widest row; an outline: the extent of its outer ring.
    Anything unreadable counts 0 (the track's own check reports it).
    """
    shape = entry.get("map")
    if isinstance(shape, str):
        rows = shape.strip("\n").split("\n")
        return len(rows) * max((len(r) for r in rows), default=0)
    outline = entry.get("outline")
    outer = outline.get("outer") if isinstance(outline, Mapping) else None
    if isinstance(outer, list):
        xs = [p[0] for p in outer if isinstance(p, list) and len(p) == 2 and _finite(p[0]) and _finite(p[1])]
        ys = [p[1] for p in outer if isinstance(p, list) and len(p) == 2 and _finite(p[0]) and _finite(p[1])]
        if xs and ys:
            return int(min(max(xs), 1e6) + 1) * int(min(max(ys), 1e6) + 1) if max(xs) >= 0 and max(ys) >= 0 else 0
    return 0


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class _TrackReport:
    """The problems of one ``[[track]]`` table, each placed at the line of its key (or the table's)."""

    def __init__(self, index: int, track_id: str, lines: _Lines, file: str) -> None:
        self.index, self.track_id, self.lines, self.file = index, track_id, lines, file
        self.problems: list[Problem] = []

    def problem(self, key: str, message: str, severity: str = ERROR, line: int | None = None) -> None:
        where = line if line is not None else (self.lines.track_key(key.split(".")[0], self.index)
                                               or self.lines.start(self.index))
        self.problems.append(Problem(self.file, where, self.track_id, key, message, severity))

    @property
    def failed(self) -> bool:
        return any(p.is_error for p in self.problems)


def _read_track(entry: Mapping[str, Any], index: int, track_id: str, lines: _Lines, file: str,
                pack_id: str) -> tuple[Track | None, list[Problem]]:
    """Check one ``[[track]]`` table and build its track.

    Each rule of the format is a small check below; the shape (map or outline) is compiled
    only when the track's own keys are sound.
    """
    report = _TrackReport(index, track_id, lines, file)
    _check_track_key_names(report, entry)
    name, description = _track_texts(report, entry)
    laps, rules, par, cars = _track_numbers(report, entry)
    karopapier, has_map, has_outline = _track_shape(report, entry)
    if report.failed or not (has_map or has_outline):
        return None, report.problems

    meta = {"pack_id": pack_id, "file": file, "par": par, "description": description,
            "cars": cars, "forward_given": entry.get("forward")}
    if has_map:
        track = _charmap_track(report, entry, name, laps, rules, karopapier, meta)
    else:
        track = _outline_track(report, entry, name, laps, rules, meta)
    track = _check_start_holds_cars(report, entry, track, cars)
    if track is not None:
        track.meta["warnings"] = [str(p) for p in report.problems if not p.is_error]
    return (None if report.failed else track), report.problems


def _check_track_key_names(report: _TrackReport, entry: Mapping[str, Any]) -> None:
    """A warning per unknown key; the id present and well formed."""
    for key in entry:
        if key not in TRACK_KEYS:
            report.problem(key, f"unknown key; known: {', '.join(sorted(TRACK_KEYS))}", WARNING)
    if "id" not in entry:
        report.problem("id", "missing", line=report.lines.start(report.index))
    elif not isinstance(entry["id"], str) or not ID_PATTERN.match(entry["id"]):
        report.problem("id", f"{shown(entry['id'])} is not a track id: use letters, digits, '-', '_' and '.'")


def _track_texts(report: _TrackReport, entry: Mapping[str, Any]) -> tuple[Any, Any]:
    """The name (required) and description, as text a screen can show."""
    name = entry.get("name")
    if name is None:
        report.problem("name", "missing", line=report.lines.start(report.index))
    elif not isinstance(name, str):
        report.problem("name", f"must be text, not {shown(name)}")
    else:
        name = kept_clean(name, NAME, lambda message: report.problem("name", message, WARNING)) or report.track_id
    description = entry.get("description", "")
    if not isinstance(description, str):
        report.problem("description", f"must be text, not {shown(description)}")
    else:
        description = kept_clean(description, DESCRIPTION,
                                 lambda message: report.problem("description", message, WARNING))
    return name, description


def _track_numbers(report: _TrackReport, entry: Mapping[str, Any]) -> tuple[Any, Any, Any, int | None]:
    """``(laps, rules, par, cars)``: a lap count the game races, a known preset, a positive par,
    1 to 64 cars (None when that is wrong)."""
    laps = entry.get("laps", 1)
    if laps_problem(laps):
        report.problem("laps", laps_problem(laps))
    rules = entry.get("rules", "paper")
    if rules not in PRESET_NAMES:
        report.problem("rules", f"unknown rule preset {rules!r}; choose one of {', '.join(PRESET_NAMES)}")
    par = entry.get("par")
    if par is not None and (isinstance(par, bool) or not isinstance(par, int) or par < 1):
        report.problem("par", f"must be a whole number of moves (1 or more), not {par!r}")
    cars = entry.get("cars", DEFAULT_CARS)
    if isinstance(cars, bool) or not isinstance(cars, int) or not 1 <= cars <= 64:
        report.problem("cars", f"must be a whole number from 1 to 64, not {cars!r}")
        cars = None
    return laps, rules, par, cars


def _track_shape(report: _TrackReport, entry: Mapping[str, Any]) -> tuple[bool, bool, bool]:
    """``(karopapier, has_map, has_outline)``: exactly one shape, a map as text, Karopapier only for maps."""
    karopapier = entry.get("karopapier", False)
    if not isinstance(karopapier, bool):
        report.problem("karopapier", f"must be true or false, not {karopapier!r}")
        karopapier = False
    has_map, has_outline = "map" in entry, "outline" in entry
    if karopapier and has_outline:
        report.problem("karopapier", "only a char map can be read with Karopapier's rules")
    if has_map == has_outline:
        report.problem("map", "give exactly one shape: map = \"\"\"...\"\"\" or a [track.outline] table",
                       line=report.lines.start(report.index))
    if has_map and not isinstance(entry["map"], str):
        report.problem("map", f"must be a multi-line string, not {type(entry['map']).__name__}")
        has_map = False
    return karopapier, has_map, has_outline


def _charmap_track(report: _TrackReport, entry: Mapping[str, Any], name, laps, rules, karopapier: bool,
                   meta: dict) -> Track | None:
    """The char map compiled, its problems placed at their lines inside the pack's string."""
    lines, index = report.lines, report.index
    map_line = lines.track_key("map", index)
    track, found = check_charmap(entry["map"], id=report.track_id, name=name, laps=laps, rules=rules,
                                 forward=entry.get("forward"), karopapier=karopapier, meta=meta)
    offset = lines.string_start(map_line)
    for p in found:
        line = p.line + offset if p.line is not None else lines.track_key(p.key or "map", index) or map_line
        report.problems.append(Problem(report.file, line, report.track_id, p.key, p.message, p.severity))
    return track


def _outline_track(report: _TrackReport, entry: Mapping[str, Any], name, laps, rules, meta: dict) -> Track | None:
    """The outline compiled, each problem placed at the line of its key in the outline tables."""
    # Here, not at the top: the outline checks work on numpy arrays, which a pack of char maps never needs.
    from game.tracks.outline import check_outline

    lines, index = report.lines, report.index
    track, found = check_outline(entry["outline"], id=report.track_id, name=name, laps=laps, rules=rules,
                                 forward=entry.get("forward"), meta=meta)
    for p in found:
        key = p.key or "outline"
        patch = re.match(r"outline\.terrain\[(\d+)\](?:\.(\w+))?$", key)
        if patch:
            line = lines.patch_key(int(patch.group(1)), patch.group(2), index)
        elif key.startswith("outline."):
            line = lines.track_key(key.split(".", 1)[1], index, table="outline")
        else:
            line = lines.track_key(key, index)
        report.problems.append(Problem(report.file, line or lines.track_key("outline", index) or lines.start(index),
                                       report.track_id, key, p.message, p.severity))
    return track


def _check_start_holds_cars(report: _TrackReport, entry: Mapping[str, Any], track: Track | None,
                            cars: int | None) -> Track | None:
    """The track, unless its start holds fewer cars than ``cars`` says (a warning when ``cars`` is unsaid)."""
    if track is None:
        return None
    lines, index = report.lines, report.index
    slots = len(track.start_slots)
    where = (lines.track_key("cars", index) or lines.track_key("map", index)
             or lines.track_key("outline", index, table="outline"))
    if "cars" not in entry and slots < DEFAULT_CARS:
        # A pack that says nothing about cars is raced by as many as its start holds.
        report.problem("cars", f"the start holds {slots} car{'s' if slots != 1 else ''}, fewer than the "
                       f"{DEFAULT_CARS} a track holds by default: raced by at most {slots}; say cars = {slots} "
                       "to make that explicit", WARNING, line=where)
        track.meta["cars"] = slots
    elif cars is not None and slots < cars:
        report.problem("cars", f"the start holds {slots} cars, fewer than cars = {cars}", line=where)
        return None
    return track


def read_map_file(path: str | Path) -> PackResult:
    """A Karopapier ``.map`` file read as a one-track pack under Karopapier's rules (id = file stem).

    The track is read as Karopapier reads it (cell checkpoints, any move into an ``F`` cell
    with every checkpoint taken finishes) and raced under the "karopapier" preset by default,
    exactly as :func:`game.commands.import_map.import_map` writes it into a pack.
    """
    path = Path(path)
    name = str(path)
    try:
        text = read_text(path, limit=LIMITS["map"])
    except OSError as exc:
        return PackResult(path, None, [Problem(name, None, None, None, f"cannot read the file: {_reason(exc)}")])
    return read_map_text(text, path)


def map_track_id(path: str | Path) -> str:
    """The track id of a ``.map`` file: its name without ``.map``, with control characters and
    bytes that are not UTF-8 escaped (``\\xff``), so it can be shown, stored and written as TOML."""
    return shown_path(Path(path).stem)


def read_map_text(text: str, path: str | Path) -> PackResult:
    """A ``.map`` file's text read as :func:`read_map_file` reads it; ``path`` names the file it is."""
    path = Path(path)
    name = str(path)
    track_id = map_track_id(path)
    meta = {"pack_id": track_id, "file": name, "par": None, "description": "", "cars": None, "forward_given": None}
    track, found = check_charmap(text, id=track_id, name=f"Karopapier {track_id}", rules="karopapier",
                                 karopapier=True, meta=meta)
    problems = [Problem(name, p.line, p.track, p.key, p.message, p.severity) for p in found]
    if track is not None and len(track.start_slots) < DEFAULT_CARS:
        track.meta["cars"] = len(track.start_slots)  # so the pack it writes holds what the map holds
    pack = Pack(id=track_id, name=f"Karopapier {track_id}", author="Karopapier", tracks=(track,) if track else ())
    return PackResult(path, pack, problems)


def load_packs(dirs: Iterable[str | Path]) -> list[PackResult]:
    """Every pack (``*.toml``) and Karopapier map (``*.map``) in the folders, by file name.

    A missing folder is skipped; a broken pack is returned with its problems and never
    stops the others.
    """
    results = []
    for folder in dirs:
        folder = Path(folder)
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if path.suffix == ".toml":
                results.append(load_pack(path))
            elif path.suffix == ".map":
                results.append(read_map_file(path))
    return results


def load_track_ref(ref: str, *, builtin_dir: str | Path) -> Track:
    """The track a reference names: ``PACK/TRACK`` (built-in), ``path/pack.toml#TRACK`` or ``path.map``.

    Raises :class:`TrackError` naming the reference when the file, the pack or the track is
    missing or the track has errors.
    """
    def fail(message, file=None):
        raise TrackError([Problem(file, None, None, None, message)])

    partial = True  # a pack is read for the one track (load_pack's ``only``), a .map file whole
    if is_file_ref(ref):  # path/pack.toml#TRACK or path.map, a # in a name written %23 (game.tracks.refs)
        file, track_id = typed_file_ref(ref)
        if track_id is None:
            result = read_map_file(file)
            track_id = map_track_id(file)
            partial = False
        else:
            result = load_pack(file, only=track_id)
    elif ref.count("/") == 1 and not ref.endswith(".toml"):
        pack_id, _, track_id = ref.partition("/")
        path = Path(builtin_dir) / f"{pack_id}.toml"
        if not _exists(path, file=True):
            known = sorted(p.stem for p in Path(builtin_dir).glob("*.toml")) if Path(builtin_dir).is_dir() else []
            fail(f"no built-in pack {pack_id!r} (known: {', '.join(known) or 'none'})")
        result = load_pack(path, only=track_id)
    else:
        fail(f"track reference {shown(ref)}: use PACK/TRACK, path/to/pack.toml#TRACK or path/to/file.map")
    if not _exists(result.path):
        fail(f"track reference {shown(ref)}: no such file", shown_path(result.path))
    track = result.pack.track(track_id) if result.pack else None
    if track is None and partial and result.pack is not None:
        result = load_pack(result.path)  # read whole again: the message names the pack's usable tracks
        track = result.pack.track(track_id) if result.pack else None
    if track is None:
        own = result.track_problems(track_id) or [p for p in result.errors if p.track is None and p.cup is None]
        if own:
            raise TrackError(own)
        known = ", ".join(t.id for t in result.tracks) or "none usable"
        fail(f"no track {track_id!r} in this pack (tracks: {known})", str(result.path))
    return track


def _exists(path: Path, file: bool = False) -> bool:
    """Whether ``path`` is there (a regular file with ``file``); False for a name the system refuses
    (too long, a NUL), which ``Path.exists`` raises on instead."""
    try:
        return path.is_file() if file else path.exists()
    except (OSError, ValueError):
        return False


# -- writing ----------------------------------------------------------------------
def track_table(track: Track) -> dict[str, Any]:
    """The ``[[track]]`` table that reads back as this track (from what it was built from)."""
    meta = track.meta
    table: dict[str, Any] = {"id": track.id, "name": track.name, "laps": track.default_laps,
                             "rules": track.default_rules}
    if meta.get("description"):
        table["description"] = meta["description"]
    if meta.get("par") is not None:
        table["par"] = meta["par"]
    if meta.get("cars") is not None:
        table["cars"] = meta["cars"]
    if meta.get("forward_given") is not None:
        table["forward"] = meta["forward_given"]
    if meta.get("karopapier"):
        table["karopapier"] = True
    if meta.get("shape") == "outline":
        table["outline"] = dict(meta["source"])
    else:
        table["map"] = _map_text(str(meta["source"]))
    return table


def _map_text(source: str) -> str:
    """A map string that TOML writes as a readable block: trimmed rows, one per line."""
    rows = [row.rstrip() for row in source.strip("\n").splitlines()]
    return "\n".join(rows) + "\n"


def pack_document(pack: Pack) -> dict[str, Any]:
    """The whole pack as TOML-ready data."""
    head = {"id": pack.id, "name": pack.name}
    if pack.author:
        head["author"] = pack.author
    if pack.description:
        head["description"] = pack.description
    doc: dict[str, Any] = {"format": FORMAT, "pack": head, "track": [track_table(t) for t in pack.tracks]}
    if pack.cups:
        doc["cup"] = [cup_table(c) for c in pack.cups]
    return doc


def cup_table(cup: CupDef) -> dict[str, Any]:
    """The ``[[cup]]`` table that reads back as this cup."""
    table: dict[str, Any] = {"id": cup.id, "name": cup.name}
    if cup.description:
        table["description"] = cup.description
    if cup.points.name != "classic":
        table["points"] = cup.points.spec()
    races = []
    for race in cup.races:
        entry: dict[str, Any] = {"track": race.track}
        if race.laps is not None:
            entry["laps"] = race.laps
        if race.rules is not None:
            entry["rules"] = race.rules
        if race.options:
            entry["options"] = dict(race.options)
        races.append(entry)
    table["races"] = races
    return table


def pack_file_text(document: Mapping[str, Any]) -> str:
    """A pack document as the text of a pack file the game wrote (its first line says so)."""
    import tomli_w

    return f"{PACK_MARKER} (see docs/level-packs.md).\n" + tomli_w.dumps(dict(document), multiline_strings=True)


def write_pack(pack: Pack, path: str | Path, *, force: bool = False) -> None:
    """Write a pack as TOML; reading it back with :func:`load_pack` gives the same tracks.

    An existing file is replaced only when the game wrote it (or with ``force``); raises
    :class:`game.files.WouldReplace` otherwise (see ``game.files.write_new_or_own``).
    """
    write_new_or_own(path, pack_file_text(pack_document(pack)), marker=GAME_PACK_MARKERS, force=force)
