"""Player settings and best results, kept as small TOML files in a folder passed in.

The game passes ``platformdirs.user_config_dir("racetrack")``; tests pass ``tmp_path``.
Nothing here imports pygame or reads the clock.

- :func:`load_settings` reads ``settings.toml`` into a :class:`Settings` and a list of
  :class:`SettingsProblem` (file, key, line, what was wrong). A key that is wrong falls
  back to its default, and a copy of the file as it was is kept beside it
  (``settings.toml.broken``, then ``.broken.2``, ...: an earlier copy is never replaced);
  a file that cannot be read at all (not TOML, not UTF-8, nested too deeply, too large,
  not a regular file) is moved to such a copy and replaced by the defaults. Keys this
  version does not know are kept and written back on the next save. It never raises for
  bad content; the game shows the problems on the title screen.
- :func:`save_settings` writes atomically (a temporary file, then ``os.replace``) by the
  game's one write rule (``game.files.write_new_or_own``): a ``settings.toml`` that is not
  exactly what the game writes for what it holds (:func:`written_as_game_writes`: a file
  written by hand, with comments or without the marker line) is first copied to
  ``settings.toml.old``; the file's mode is kept.
- :class:`BestResults` keeps the fewest moves per track (and lap count), the same way.
"""

from __future__ import annotations

import copy
import os
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

import tomli_w

from game.core.errors import RacetrackError, RulesError
from game.core.rules import PRESET_NAMES, preset
from game.core.text import NAME, shown, text_problem
from game.drivers.levels import level_kinds
from game.files import (LIMITS, OLD_SUFFIX, DataError, WouldReplace, keep_aside, parse_toml, read_text,
                        write_new_or_own, write_problem)
from game.race.timer import MAX_SECONDS, MIN_SECONDS, valid_seconds
from game.tomlerrors import KeyLines, syntax_problem

SETTINGS_FILE = "settings.toml"
BEST_FILE = "best.toml"
FORMAT = 1
VOLUME_MAX = 100
SCALES = (0.75, 1.0, 1.25, 1.5)
REPLAY_SPEEDS = (0.5, 1.0, 1.5, 2.0, 3.0, 4.0)
#: The timing tower setting's values (see ``Settings.timing_tower``).
TOWER_CHOICES = ("auto", "on", "off")
MAX_NAME = 14
#: The first line of every settings and best-results file the game writes.
SETTINGS_MARKER = "# Racetrack settings"
BEST_MARKER = "# Racetrack best results"
#: The whole first line of each file the game writes (how it recognises its own, with the rest).
SETTINGS_HEAD = f"{SETTINGS_MARKER}: change them in the game's settings menu (or here)."
BEST_HEAD = f"{BEST_MARKER}: fewest moves per track and lap count."
#: What a damaged or set-aside copy is called: ``settings.toml.broken``, ``.broken.2``, ...
BROKEN_SUFFIX = ".broken"


class SettingsError(RacetrackError, OSError):
    """A settings or results file that cannot be written; the message names the file."""


@dataclass(frozen=True)
class SettingsProblem:
    """One thing wrong in a settings file: where (file, key, line) and what."""

    file: str
    key: str | None
    line: int | None
    message: str

    def __str__(self) -> str:
        where = self.file + (f":{self.line}" if self.line else "")
        return f"{where}: {self.key + ': ' if self.key else ''}{self.message}"


@dataclass
class Settings:
    """Everything a player can change in the settings menu (and the last rules chosen).

    ``bindings`` holds only the player's changes to the default bindings, as
    ``{source: {key or button name: action spec}}`` (see ``game.presentation.input``).
    ``rules_overrides`` are the options changed from ``rules_preset``.
    """

    fullscreen: bool = False
    window: tuple[int, int] = (1280, 720)
    scale: float = 1.0
    master_volume: int = 80
    effects_volume: int = 100
    menu_volume: int = 70
    music_volume: int = 50
    show_doomed: bool = True
    #: No camera glides, shakes, bouncing podiums or sliding menus: things appear in place.
    reduce_motion: bool = False
    replay_speed: float = 1.0
    #: The timing tower beside the race's HUD (exact moves to go, ``game.presentation.tower``):
    #: "auto" shows it in arcade and phases races (not on paper), "on" always, "off" never.
    timing_tower: str = "auto"
    bindings: dict[str, dict[str, list]] = field(default_factory=dict)
    rules_preset: str = "arcade"
    rules_overrides: dict[str, Any] = field(default_factory=dict)
    player_names: list[str] = field(default_factory=list)
    tutorial_done: bool = False
    move_timer: int = 0  # seconds per choice (0: off); any rules
    #: The lobby's last line-up, offered again at the next start: one table per seat, best grid
    #: place first, ``{"name", "color", "symbol", "kind", "device", "handicap", "assist"}`` (``kind``
    #: "human" or a CPU level; a human's ``device`` "kb1", "kb2" or "pad": which pad is not known from
    #: one start to the next; ``handicap`` moves or "auto", ``assist`` "coach", each left out at none).
    lineup: list[dict[str, Any]] = field(default_factory=list)
    #: What the file held that this version does not know (written back on save, never used).
    extra: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    #: The keys the file set (``"display.fullscreen"``, ...): a key it lacks was never chosen,
    #: so the game may choose for the player (fullscreen on a big display at the first start).
    loaded_keys: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    def rules(self):
        """The remembered rule set (the preset with the overrides that still make sense)."""
        try:
            return preset(self.rules_preset, self.rules_overrides)
        except RulesError:
            return preset(self.rules_preset if self.rules_preset in PRESET_NAMES else "arcade")

    def with_rules(self, rules) -> Settings:
        """A copy remembering ``rules`` (a ``RuleSet``) as preset plus overrides."""
        return replace(self, rules_preset=rules.name, rules_overrides=dict(rules.overrides()))

    def tower_for(self, rules) -> bool:
        """Whether a race under ``rules`` shows the timing tower: "auto" means in the arcade,
        party and phases presets (the couch games, where the gaps are news), not in paper races."""
        if self.timing_tower == "auto":
            return rules.name in ("arcade", "party", "phases")
        return self.timing_tower == "on"

    def volume(self, channel: str) -> float:
        """0..1 for ``"effects"``, ``"menu"`` or ``"music"``, the master volume applied."""
        own = {"effects": self.effects_volume, "music": self.music_volume}.get(channel, self.menu_volume)
        return (self.master_volume / VOLUME_MAX) * (own / VOLUME_MAX)


# -- checking values -------------------------------------------------------------
def _bool(value):
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false, not {value!r}")
    return value


def _volume(value):
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= VOLUME_MAX:
        raise ValueError(f"must be a whole number from 0 to {VOLUME_MAX}, not {value!r}")
    return value


def _word(options):
    def check(value):
        if value not in options:
            raise ValueError(f"must be one of {', '.join(repr(o) for o in options)}, not {value!r}")
        return value
    return check


def _choice(options):
    def check(value):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or float(value) not in options:
            raise ValueError(f"must be one of {', '.join(f'{o:g}' for o in options)}, not {value!r}")
        return float(value)
    return check


def _window(value):
    if (not isinstance(value, list) or len(value) != 2 or any(isinstance(v, bool) or not isinstance(v, int)
                                                              for v in value)
            or not (320 <= value[0] <= 10000 and 240 <= value[1] <= 10000)):
        raise ValueError(f"must be [width, height] in pixels, at least [320, 240], not {value!r}")
    return (value[0], value[1])


def _bindings(value):
    if not isinstance(value, dict):
        raise ValueError("must be a table of input sources")
    out: dict[str, dict[str, list]] = {}
    for source, table in value.items():
        if not isinstance(table, dict):
            raise ValueError(f"[{source}] must be a table of key = [action, ...]")
        for name, spec in table.items():
            if not isinstance(spec, list) or not spec or not isinstance(spec[0], str):
                raise ValueError(f"[{source}] {name!r}: {spec!r} is not an action such as [\"confirm\"]")
            if len(spec) > 3 or any(isinstance(v, bool) or not isinstance(v, int) or not -1 <= v <= 1
                                    for v in spec[1:]):
                raise ValueError(f"[{source}] {name!r}: {spec!r}: an action's steps are whole numbers "
                                 "from -1 to 1, such as [\"select\", -1, 0]")
        out[source] = {name: list(spec) for name, spec in table.items()}
    return out


def _preset(value):
    if value not in PRESET_NAMES:
        raise ValueError(f"unknown rule preset {value!r}; choose one of {', '.join(PRESET_NAMES)}")
    return value


def _overrides(value):
    if not isinstance(value, dict):
        raise ValueError("must be a table of rule options")
    try:
        preset("paper", value)
    except RulesError as error:
        raise ValueError(str(error)) from None
    return dict(value)


def _timer(value):
    if not valid_seconds(value):
        raise ValueError(f"must be 0 (off) or a whole number of seconds from {MIN_SECONDS} to {MAX_SECONDS}, "
                         f"not {value!r}")
    return value


#: What a remembered seat may be: a person, or one of the CPU levels (their one table,
#: ``game.drivers.levels``). A seat of a kind no longer here is dropped when the settings load.
SEAT_KINDS = ("human", *level_kinds())
SEAT_DEVICES = ("kb1", "kb2", "pad")
#: Colours and symbols a seat may have (the lobby's eight of each).
SEAT_LOOKS = 8


def _seat(value) -> dict[str, Any]:
    """One remembered seat, checked; raises ValueError saying what no longer fits."""
    if not isinstance(value, dict):
        raise ValueError(f"{value!r} is not a seat (a table with name, color, symbol, kind)")
    name, kind = value.get("name"), value.get("kind", "human")
    if not isinstance(name, str) or not name.strip():
        raise ValueError("has no name")
    if kind not in SEAT_KINDS:
        raise ValueError(f"{name.strip()!r} is a {kind!r}, which this version does not have "
                         f"(seats are {', '.join(SEAT_KINDS)})")
    seat = {"name": name.strip()[:MAX_NAME], "kind": kind}
    for key in ("color", "symbol"):
        look = value.get(key, 0)
        if isinstance(look, bool) or not isinstance(look, int) or not 0 <= look < SEAT_LOOKS:
            raise ValueError(f"{name.strip()!r}: {key} must be a whole number from 0 to {SEAT_LOOKS - 1}, not {look!r}")
        seat[key] = look
    if kind == "human":
        device = value.get("device", "pad")
        if device not in SEAT_DEVICES:
            raise ValueError(f"{name.strip()!r}: device {device!r} is none of {', '.join(SEAT_DEVICES)}")
        seat["device"] = device
    # The lobby's handicap and assist (a file from before them has neither: none).
    from game.race.handicap import handicap_problem  # the race layer, loaded only when a line-up is read
    from game.race.replay import ASSISTS

    handicap = value.get("handicap", 0)
    if handicap_problem(handicap):
        raise ValueError(f"{name.strip()!r}: handicap {handicap_problem(handicap)}")
    if handicap:
        seat["handicap"] = handicap
    assist = value.get("assist", "")
    if assist not in ASSISTS or (assist and kind != "human"):
        allowed = " or ".join(repr(a) for a in ASSISTS)
        raise ValueError(f"{name.strip()!r}: assist must be {allowed} (a player's only), not {assist!r}")
    if assist:
        seat["assist"] = assist
    return seat


def read_lineup(value) -> tuple[list[dict[str, Any]], list[str]]:
    """The remembered line-up's seats that still make sense, and a sentence for each one dropped.

    A seat this version cannot seat (a CPU level that is gone, a colour out of range) is
    left out and said; the others stay, so one stale seat never costs the whole line-up.
    """
    if not isinstance(value, list):
        raise ValueError("must be a list of seats")
    seats, dropped, names = [], [], set()
    for k, entry in enumerate(value[:MAX_SEATS]):
        try:
            seat = _seat(entry)
        except ValueError as error:
            dropped.append(f"seat {k + 1} {error}; that seat is dropped, the others are kept")
            continue
        if seat["name"] in names:
            dropped.append(f"seat {k + 1} {seat['name']!r} is a second seat of that name; it is dropped")
            continue
        names.add(seat["name"])
        seats.append(seat)
    if len(value) > MAX_SEATS:
        dropped.append(f"{len(value) - MAX_SEATS} seats past the {MAX_SEATS}th are dropped")
    return seats, dropped


def _lineup(value):
    seats, dropped = read_lineup(value)
    if dropped:
        raise _Dropped(seats, dropped)
    return seats


class _Dropped(ValueError):
    """A list setting read in part: ``kept`` is used, each of ``dropped`` is reported."""

    def __init__(self, kept, dropped: list[str]) -> None:
        super().__init__("; ".join(dropped))
        self.kept, self.dropped = kept, dropped


#: The most seats a line-up has (the lobby's eight).
MAX_SEATS = 8


def _names(value):
    if not isinstance(value, list) or any(not isinstance(v, str) or not v.strip() for v in value):
        raise ValueError("must be a list of names")
    for k, name in enumerate(value[:8]):
        trouble = text_problem(name, NAME)
        if trouble:
            raise ValueError(f"name {k + 1} {trouble}")
    return [v.strip()[:MAX_NAME] for v in value][:8]


#: settings key -> (attribute, checker). Keys are grouped into TOML tables by the prefix.
_KEYS = {
    "display.fullscreen": ("fullscreen", _bool),
    "display.window": ("window", _window),
    "display.scale": ("scale", _choice(SCALES)),
    "sound.master": ("master_volume", _volume),
    "sound.effects": ("effects_volume", _volume),
    "sound.menu": ("menu_volume", _volume),
    "sound.music": ("music_volume", _volume),
    "assists.doomed_marks": ("show_doomed", _bool),
    "display.reduce_motion": ("reduce_motion", _bool),
    "replay.speed": ("replay_speed", _choice(REPLAY_SPEEDS)),
    "display.timing_tower": ("timing_tower", _word(TOWER_CHOICES)),
    "bindings": ("bindings", _bindings),
    "rules.preset": ("rules_preset", _preset),
    "rules.options": ("rules_overrides", _overrides),
    "players.names": ("player_names", _names),
    "players.tutorial_done": ("tutorial_done", _bool),
    "race.move_timer": ("move_timer", _timer),
    "players.lineup": ("lineup", _lineup),
}


def settings_document(settings: Settings) -> dict[str, Any]:
    """The TOML document a settings object is saved as (with the unknown keys it was read with)."""
    doc: dict[str, Any] = {"format": FORMAT}
    for head, value in settings.extra.items():
        if isinstance(value, dict) and head in _TABLES:
            doc[head] = copy.deepcopy(value)
        elif head not in _TABLES and head != "format":
            doc[head] = copy.deepcopy(value)
    for key, (attr, _) in _KEYS.items():
        value = getattr(settings, attr)
        if isinstance(value, tuple):
            value = list(value)
        value = copy.deepcopy(value)
        head, _, tail = key.partition(".")
        if tail:
            doc.setdefault(head, {})[tail] = value
        else:
            doc[head] = value
    return doc


#: The TOML tables settings are grouped in (``display``, ``sound``, ...; ``bindings`` is one value).
_TABLES = {k.partition(".")[0] for k in _KEYS if "." in k}


def settings_from_document(doc: Mapping[str, Any], file: str = SETTINGS_FILE,
                           text: str = "") -> tuple[Settings, list[SettingsProblem]]:
    """Settings from a parsed document: every bad key is reported and left at its default."""
    settings = Settings()
    problems: list[SettingsProblem] = []
    lines = KeyLines(text)
    known_tables = {k.partition(".")[0] for k in _KEYS}
    known_keys = {k for k in _KEYS}
    found: set[str] = set()
    for top, value in doc.items():
        if top != "format" and top not in known_tables:
            problems.append(SettingsProblem(file, top, _line_of(lines, top), "unknown setting (kept, not used)"))
            settings.extra[top] = copy.deepcopy(value)
        elif top in _TABLES and isinstance(value, dict):
            unknown = {k: v for k, v in value.items() if f"{top}.{k}" not in known_keys}
            for k in unknown:
                problems.append(SettingsProblem(file, f"{top}.{k}", _line_of(lines, k, top),
                                                "unknown setting (kept, not used)"))
            if unknown:
                settings.extra[top] = copy.deepcopy(unknown)
    for key, (attr, check) in _KEYS.items():
        head, _, tail = key.partition(".")
        table = doc.get(head)
        if tail:
            if table is None:
                continue
            if not isinstance(table, dict):
                problems.append(SettingsProblem(file, head, _line_of(lines, head), "must be a table"))
                continue
            if tail not in table:
                continue
            value = table[tail]
        elif head in doc:
            value = table
        else:
            continue
        found.add(key)
        try:
            setattr(settings, attr, check(value))
        except _Dropped as partly:  # what still fits is used; each part dropped is said
            setattr(settings, attr, partly.kept)
            for message in partly.dropped:
                problems.append(SettingsProblem(file, key, _line_of(lines, tail or head, head if tail else None),
                                                message))
        except ValueError as error:
            problems.append(SettingsProblem(file, key, _line_of(lines, tail or head, head if tail else None),
                                            f"{error}; using the default"))
    settings.loaded_keys = frozenset(found)
    return settings, problems


def _line_of(lines: KeyLines, key: str, table: str | None = None) -> int | None:
    """1-based line of ``key =`` inside ``[table]`` (or as ``table.key =``), else at the top
    of the file or as the table ``[key]``."""
    if table is not None:
        return lines.key(key, table) or lines.key(f"{table}.{key}")
    return lines.place(key)


# -- files --------------------------------------------------------------------------
def game_text(head: str, doc: Mapping[str, Any]) -> str:
    """The whole text the game writes for a settings or best-results document (``head`` its first line)."""
    return head + "\n" + tomli_w.dumps(doc)


def written_as_game_writes(path: Path, head: str, limit: int) -> bool:
    """True when the file at ``path`` is exactly what the game writes for what it holds.

    Settings and best results are recognised by their content, not by their first line
    alone: the file must start with ``head`` and the rest must be what ``tomli_w`` writes
    for the document it parses to. A file with a comment, another layout or no marker
    line is the player's own, and one that does not parse cannot be read back: either is
    kept as a copy before the game replaces it.
    """
    try:
        text = read_text(path, limit=limit)
        first, newline, rest = text.partition("\n")
        return bool(newline) and first == head and tomli_w.dumps(parse_toml(rest)) == rest
    except (OSError, DataError, ValueError, TypeError):
        return False


def write_atomic(path: Path, text: str, head: str | None = None, limit: int = LIMITS["settings"]) -> Path | None:
    """Write ``text`` to ``path`` whole or not at all; raises :class:`SettingsError` naming the file.

    With ``head`` (the first line the game writes), a file there that is not exactly as the
    game writes it (:func:`written_as_game_writes`) is first copied to ``NAME.old``
    (``.old.2``, ...; the same contents are copied once); that copy is returned.
    """
    owned = (lambda p: written_as_game_writes(p, head, limit)) if head is not None else None
    try:
        return write_new_or_own(path, text, owned=owned, keep_foreign=head is not None, make_folder=True)
    except (OSError, WouldReplace) as error:
        raise SettingsError(write_problem(path, error) if isinstance(error, OSError) and
                            not isinstance(error, WouldReplace) else str(error)) from None


def _read_document(path: Path, limit: int) -> tuple[dict | None, str, list[SettingsProblem]]:
    """(document or None if unusable, text, problems); a missing file is no problem."""
    if not os.path.lexists(path):
        return {}, "", []
    try:
        text = read_text(path, limit=limit)
    except OSError as error:
        return None, "", [SettingsProblem(str(path), None, None, f"cannot read the file ({error.strerror or error})")]
    try:
        return parse_toml(text), text, []
    except DataError as error:
        return None, text, [SettingsProblem(str(path), None, error.line, syntax_problem(error))]


def _set_aside(path: Path, *, copy: bool) -> str:
    """Keep the file as the next free ``<name>.broken`` copy (moved, or copied); says what was done.

    A copy is made only once for the same contents: when an earlier copy already holds
    exactly this file, that copy is named instead.
    """
    try:
        kept = keep_aside(path, BROKEN_SUFFIX, copy=copy, once=copy)
        return f"the file as it was is kept as {kept.name}"
    except OSError as error:
        return f"no copy of it could be kept ({error.strerror or error})"


def _whole_file_problem(path: Path, problems: list[SettingsProblem], then: str) -> list[SettingsProblem]:
    """The problems of an unusable file, the first one saying where the file went and what now."""
    kept = _set_aside(path, copy=False)
    first = problems[0]
    return [SettingsProblem(first.file, first.key, first.line, f"{first.message}; {kept}; {then}"), *problems[1:]]


def load_settings(folder: str | os.PathLike) -> tuple[Settings, list[SettingsProblem]]:
    """The saved settings (defaults where missing or wrong) and every problem found.

    A file that cannot be read is moved aside (``settings.toml.broken``, ``.broken.2``,
    ...) and the defaults are written in its place; one with wrong values is copied
    aside once, so the next save loses nothing the player wrote.
    """
    path = Path(folder) / SETTINGS_FILE
    doc, text, problems = _read_document(path, LIMITS["settings"])
    if doc is None:
        settings = Settings()
        problems = _whole_file_problem(path, problems, "the defaults are used")
        try:
            save_settings(settings, folder)
        except SettingsError as error:
            problems.append(SettingsProblem(str(path), None, None, str(error)))
        return settings, problems
    settings, found = settings_from_document(doc, str(path), text)
    if any(p.message.endswith(("using the default", "dropped", "kept")) for p in found):
        found.append(SettingsProblem(str(path), None, None, f"{_set_aside(path, copy=True)}; the next save writes "
                                     "the defaults for the keys above"))
    return settings, problems + found


def save_settings(settings: Settings, folder: str | os.PathLike) -> Path:
    """Write the settings atomically; returns the path. Raises :class:`SettingsError`."""
    path = Path(folder) / SETTINGS_FILE
    write_atomic(path, game_text(SETTINGS_HEAD, settings_document(settings)), SETTINGS_HEAD, LIMITS["settings"])
    return path


# -- best results -------------------------------------------------------------------
@dataclass(frozen=True)
class Best:
    """The fewest moves anyone needed on a track: by whom, under which rules."""

    moves: int
    name: str
    rules: str = ""


def best_key(track_ref: str, laps: int) -> str:
    """How best results are keyed: the track reference and the lap count."""
    return f"{track_ref} x{laps}"


@dataclass
class BestResults:
    """Fewest moves per track and lap count (see :func:`best_key`)."""

    entries: dict[str, Best] = field(default_factory=dict)
    #: Each player's moves over par in their last finishes (at most :data:`KEEP_OVER_PAR`, newest last),
    #: what the lobby's "auto" handicap is worked out from.
    over_par: dict[str, list[int]] = field(default_factory=dict)

    def note_over_par(self, name: str, over: int) -> None:
        """Keep a finish's moves over par for ``name`` (the oldest of more than :data:`KEEP_OVER_PAR` dropped)."""
        runs = self.over_par.setdefault(name[:MAX_NAME], [])
        runs.append(int(over))
        del runs[:-KEEP_OVER_PAR]

    def get(self, track_ref: str, laps: int) -> Best | None:
        return self.entries.get(best_key(track_ref, laps))

    def record(self, track_ref: str, laps: int, moves: int, name: str, rules: str = "") -> bool:
        """Remember a finish if it beats (or is the first) result; True when it is a new best."""
        if moves < 1:
            return False
        key = best_key(track_ref, laps)
        old = self.entries.get(key)
        if old is not None and old.moves <= moves:
            return False
        self.entries[key] = Best(moves, name[:MAX_NAME], rules)
        return True

    def record_race(self, track_ref: str, laps: int, finishers: list[tuple[int, str]], rules: str = "") -> int | None:
        """Offer a race's finishers as ``(moves, name)``, best placed first; which one set a new record.

        Finishers are offered in their race order, so when two tie on moves the record goes
        to the one placed ahead (not the one sitting first on the grid). Returns the index
        into ``finishers`` of the new record holder, or None when nobody beat the record.
        """
        holder = None
        for k, (moves, name) in enumerate(finishers):
            if self.record(track_ref, laps, moves, name, rules):
                holder = k
        return holder


#: How many of a player's last finishes the best results keep for the "auto" handicap.
KEEP_OVER_PAR = 5


def _read_over_par(doc: dict, best: BestResults, path: Path, lines, problems: list) -> None:
    """``[player."NAME"] over_par = [..]``: bad entries reported with their line and dropped."""
    players = doc.get("player", {})
    if not isinstance(players, dict):
        problems.append(SettingsProblem(str(path), "player", _line_of(lines, "player"), "must be a table; ignored"))
        return
    for name, entry in players.items():
        runs = entry.get("over_par") if isinstance(entry, dict) else None
        if not isinstance(runs, list) or not all(type(v) is int and -1000 < v < 1000 for v in runs) \
                or text_problem(name, NAME):
            problems.append(SettingsProblem(str(path), f"player.{name}",
                                            lines.place("over_par", f"player.{name}") or lines.place("player"),
                                            f"over_par must be a list of whole numbers, not {shown(runs)}; "
                                            "entry dropped"))
            continue
        best.over_par[name[:MAX_NAME]] = runs[-KEEP_OVER_PAR:]


def load_best(folder: str | os.PathLike) -> tuple[BestResults, list[SettingsProblem]]:
    """The best results file; bad entries are reported and dropped, a broken file set aside."""
    path = Path(folder) / BEST_FILE
    doc, text, problems = _read_document(path, LIMITS["best"])
    best = BestResults()
    if doc is None:
        return best, _whole_file_problem(path, problems, "best results start again")
    tracks = doc.get("track", {})
    lines = KeyLines(text)
    if not isinstance(tracks, dict):
        problems.append(SettingsProblem(str(path), "track", _line_of(lines, "track"),
                                        f"must be a table; {_set_aside(path, copy=True)}; best results start again"))
        return best, problems
    _read_over_par(doc, best, path, lines, problems)
    dropped = False
    for key, entry in tracks.items():
        try:
            if not isinstance(entry, dict):
                raise ValueError("must be a table with moves and name")
            moves, name = entry.get("moves"), entry.get("name", "")
            if isinstance(moves, bool) or not isinstance(moves, int) or moves < 1:
                raise ValueError(f"moves must be a whole number of 1 or more, not {moves!r}")
            if not isinstance(name, str):
                raise ValueError(f"name must be text, not {shown(name)}")
            if text_problem(name, NAME):
                raise ValueError(f"name {text_problem(name, NAME)}")
            best.entries[key] = Best(moves, name[:MAX_NAME], str(entry.get("rules", "")))
        except ValueError as error:
            dropped = True
            problems.append(SettingsProblem(str(path), f"track.{key}", _line_of(lines, f"track.{key}") or
                                            _line_of(lines, key, "track"), f"{error}; entry dropped"))
    if dropped:
        problems.append(SettingsProblem(str(path), None, None, f"{_set_aside(path, copy=True)}; the next save "
                                        "leaves the dropped entries out"))
    return best, problems


def save_best(best: BestResults, folder: str | os.PathLike) -> Path:
    """Write the best results atomically; returns the path. Raises :class:`SettingsError`."""
    path = Path(folder) / BEST_FILE
    doc = {"format": FORMAT, "track": {k: asdict(v) for k, v in sorted(best.entries.items())}}
    if best.over_par:
        doc["player"] = {name: {"over_par": runs} for name, runs in sorted(best.over_par.items())}
    write_atomic(path, game_text(BEST_HEAD, doc), BEST_HEAD, LIMITS["best"])
    return path


def setting_fields() -> tuple[str, ...]:
    """Names of every setting (used by tests to check the round trip covers them all)."""
    return tuple(f.name for f in fields(Settings) if f.name not in ("extra", "loaded_keys"))
