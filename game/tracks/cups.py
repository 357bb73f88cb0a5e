"""Cup definitions: an ordered list of a pack's tracks, each with laps and rules, and a points table.

A level pack may define its own cups in ``[[cup]]`` tables (``docs/level-packs.md``);
every pack also offers all its tracks as one cup (:func:`pack_cup`). This module holds
the content side: what a cup is made of, the points tables, and checking a ``[[cup]]``
table with every problem located (:func:`read_cup`, called by the pack reader). Playing
a cup (seats, results, standings, the saved cup in progress) is race control's
business: ``game.race.cup``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from game.core.errors import RulesError
from game.core.rules import PRESET_NAMES, preset
from game.core.limits import laps_problem
from game.core.text import DESCRIPTION, NAME, clean_text, kept_clean, shown

#: The named points tables: points for 1st, 2nd, ... (places past the end score nothing).
#: ``places`` has no fixed list: see :meth:`PointsTable.points`.
POINTS_TABLES: dict[str, tuple[int, ...]] = {
    "classic": (10, 8, 6, 5, 4, 3, 2, 1),
    "f1": (25, 18, 15, 12, 10, 8, 6, 4, 2, 1),
    "places": (),
}
POINTS_NAMES = tuple(POINTS_TABLES)
POINTS_DESCRIPTIONS = {
    "classic": "10-8-6-5-4-3-2-1 for the first eight",
    "f1": "25-18-15-12-10-8-6-4-2-1 for the first ten",
    "places": "one point for every car you finish ahead of, plus one (last finisher 1)",
    "custom": "the pack's own table",
}
#: More races than this is not a cup a couch finishes in an evening; it keeps packs sane.
MAX_RACES = 32
CUP_KEYS = ("id", "name", "description", "points", "rules", "races")
RACE_KEYS = ("track", "laps", "rules", "options")
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class PointsTable:
    """How many points each place of a race is worth.

    ``name`` is one of :data:`POINTS_NAMES` or ``"custom"`` (a pack's own list in
    ``values``). Shared places score alike: two cars sharing 1st both get the points
    of 1st, and the next car is 3rd.
    """

    name: str = "classic"
    values: tuple[int, ...] = POINTS_TABLES["classic"]

    def points(self, rank: int | None, cars: int) -> int:
        """Points for finishing in place ``rank`` (None: not placed) in a race of ``cars`` cars.

        >>> PointsTable().points(1, 4), PointsTable().points(9, 12), PointsTable().points(None, 4)
        (10, 0, 0)
        >>> points_table("places").points(1, 4), points_table("places").points(4, 4)
        (4, 1)
        """
        if rank is None or rank < 1:
            return 0
        if self.name == "places":
            return max(0, cars - rank + 1)
        return self.values[rank - 1] if rank <= len(self.values) else 0

    @property
    def label(self) -> str:
        """How the table reads on screen: ``classic 10-8-6-...`` or ``places``."""
        if self.name == "places":
            return "places"
        return f"{self.name} {'-'.join(str(v) for v in self.values)}"

    def spec(self) -> str | list[int]:
        """The table as a pack or cup file writes it: its name, or the list for a custom table."""
        return list(self.values) if self.name == "custom" else self.name


def points_table(spec: Any) -> PointsTable:
    """The points table a pack or cup file names: a table's name or a list of whole numbers.

    A list must hold 1 to 64 whole numbers of 0 or more, never rising (a better place is
    never worth less). Raises ``ValueError`` with a message fit for a modder.
    """
    if isinstance(spec, str):
        if spec not in POINTS_TABLES:
            raise ValueError(f"unknown points table {spec!r}; choose one of {', '.join(POINTS_NAMES)} "
                             "or give a list such as [10, 6, 3, 1]")
        return PointsTable(spec, POINTS_TABLES[spec])
    if isinstance(spec, list) and spec and len(spec) <= 64 and all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in spec):
        if any(later > earlier for earlier, later in zip(spec, spec[1:])):
            raise ValueError(f"the points must never rise from one place to the next, not {spec!r}")
        return PointsTable("custom", tuple(spec))
    raise ValueError(f"must be {', '.join(repr(n) for n in POINTS_NAMES)} or a list of 1 to 64 whole numbers "
                     f"of 0 or more, not {spec!r}")


@dataclass(frozen=True)
class CupRaceDef:
    """One race of a cup definition: a track of the pack (by id), its laps and rule preset.

    ``laps`` and ``rules`` are None to use the track's own; ``options`` are rule options
    changed from the preset (e.g. ``{"collision": "spin"}``).
    """

    track: str
    laps: int | None = None
    rules: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CupDef:
    """A cup as a pack defines it (or as :func:`pack_cup` makes it from a whole pack)."""

    id: str
    name: str
    races: tuple[CupRaceDef, ...]
    points: PointsTable = PointsTable()
    description: str = ""
    whole_pack: bool = False  # made from every track of the pack, not written in it


def pack_cup(pack_id: str, pack_name: str, track_ids: Sequence[str]) -> CupDef:
    """The cup every pack offers: all its tracks in order, each at its own laps and rules."""
    return CupDef(id=pack_id, name=f"{pack_name} Cup", races=tuple(CupRaceDef(t) for t in track_ids),
                  description=f"every track of {pack_name}, each at its own laps and rules", whole_pack=True)


# -- reading a [[cup]] table ---------------------------------------------------------
#: ``problem(key, message, line=None)`` as the pack reader passes it in.
Report = Callable[..., None]


def read_cup(entry: Mapping[str, Any], tracks: Mapping[str, Any], broken: Sequence[str], report: Report,
             race_line: Callable[[int], int | None]) -> CupDef | None:
    """Check one ``[[cup]]`` table; returns the cup, or None when it has errors (each reported).

    ``tracks`` maps the pack's usable track ids to their tracks (for laps checks),
    ``broken`` lists track ids that exist but have errors; ``report(key, message,
    warning=False)`` records a problem and ``race_line(k)`` gives the line of race k
    (from 0) when it can be found.
    """
    errors = 0

    def error(key, message, line=None):
        nonlocal errors
        errors += 1
        report(key, message, line=line)

    for key in entry:
        if key not in CUP_KEYS:
            report(key, f"unknown key; known: {', '.join(CUP_KEYS)}", warning=True)
    cup_id = entry.get("id")
    if cup_id is None:
        error("id", "missing")
    elif not isinstance(cup_id, str) or not ID_PATTERN.match(cup_id):
        error("id", f"{shown(cup_id)} is not a cup id: use letters, digits, '-', '_' and '.'")
    name = entry.get("name")
    if name is None:
        error("name", "missing")
    elif not isinstance(name, str) or not clean_text(name, NAME):
        error("name", f"must be text, not {shown(name)}")
    else:
        name = kept_clean(name, NAME, lambda message: report("name", message, warning=True))
    description = entry.get("description", "")
    if not isinstance(description, str):
        error("description", f"must be text, not {shown(description)}")
    else:
        description = kept_clean(description, DESCRIPTION, lambda message: report("description", message,
                                                                                  warning=True))
    points = PointsTable()
    if "points" in entry:
        try:
            points = points_table(entry["points"])
        except ValueError as problem:
            error("points", str(problem))
    default_rules = entry.get("rules")
    if default_rules is not None and default_rules not in PRESET_NAMES:
        error("rules", f"unknown rule preset {default_rules!r}; choose one of {', '.join(PRESET_NAMES)}")
        default_rules = None
    races_value = entry.get("races")
    races: list[CupRaceDef] = []
    if races_value is None:
        error("races", "missing: list the tracks, e.g. races = [\"oval\", { track = \"hill\", laps = 3 }]")
    elif not isinstance(races_value, list) or not races_value:
        error("races", "must be a list of races: track ids or { track = \"id\", laps = 2, rules = \"arcade\" }")
    elif len(races_value) > MAX_RACES:
        error("races", f"{len(races_value)} races is too many for one cup (at most {MAX_RACES})")
    else:
        for k, race in enumerate(races_value):
            found = _read_race(k, race, tracks, broken, default_rules, error, report, race_line(k))
            if found is not None:
                races.append(found)
    if errors:
        return None
    return CupDef(id=cup_id, name=name.strip(), races=tuple(races), points=points, description=description)


def _read_race(k: int, race: Any, tracks: Mapping[str, Any], broken: Sequence[str], default_rules: str | None,
               error, report, line: int | None) -> CupRaceDef | None:
    key = f"races[{k + 1}]"
    if isinstance(race, str):
        race = {"track": race}
    if not isinstance(race, dict):
        error(key, f"must be a track id or a table such as {{ track = \"id\", laps = 2 }}, not {race!r}", line)
        return None
    bad = False
    for name in race:
        if name not in RACE_KEYS:
            report(f"{key}.{name}", f"unknown key; known: {', '.join(RACE_KEYS)}", warning=True, line=line)
    track_id = race.get("track")
    track = None
    if track_id is None:
        error(f"{key}.track", "missing: which track of this pack", line)
        bad = True
    elif not isinstance(track_id, str):
        error(f"{key}.track", f"must be a track id, not {track_id!r}", line)
        bad = True
    elif track_id in broken:
        error(f"{key}.track", f"track {track_id!r} has errors of its own (listed with it), so this cup cannot "
                              "be raced", line)
        bad = True
    elif track_id not in tracks:
        known = ", ".join(tracks) or "none usable"
        error(f"{key}.track", f"no track {track_id!r} in this pack (tracks: {known})", line)
        bad = True
    else:
        track = tracks[track_id]
    laps = race.get("laps")
    if laps is not None and laps_problem(laps):
        error(f"{key}.laps", laps_problem(laps), line)
        bad = True
    elif laps is not None and laps > 1 and track is not None and track.meta.get("sprint"):
        error(f"{key}.laps", f"track {track_id!r} is a sprint (point to point): it can only be raced with laps = 1",
              line)
        bad = True
    rules = race.get("rules", default_rules)
    known_rules = rules
    if rules is not None and rules not in PRESET_NAMES:
        error(f"{key}.rules", f"unknown rule preset {rules!r}; choose one of {', '.join(PRESET_NAMES)}", line)
        bad = True
        known_rules = None
    options = race.get("options", {})
    if not isinstance(options, dict):
        error(f"{key}.options", f"must be a table of rule options such as {{ collision = \"spin\" }}, not "
                                f"{options!r}", line)
        bad = True
    elif options:
        base = known_rules or (track.default_rules if track is not None else "paper")
        try:
            preset(base, options)
        except RulesError as problem:
            # The race's track is named: one cup may race the same options on several tracks.
            error(f"{key}.options", f"track {track_id!r}: {problem}", line)
            bad = True
    if bad:
        return None
    return CupRaceDef(track_id, laps, rules, dict(options))
