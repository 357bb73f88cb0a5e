"""Mutation fuzzer for every file the game reads: packs, Karopapier maps, replays, game logs, settings.

How to run (from the checkout, with the game installed)::

    python tools/fuzz_inputs.py                  # 1500 mutations of each input class, a table
    python tools/fuzz_inputs.py -n 200 --seed 7  # fewer, another seed
    python tools/fuzz_inputs.py --only replay -v # one class, every failure printed

Each mutation starts from a real file in the tests' data (the built-in and test packs, the
golden replays and their pack, ``tests/golden/ring.map``, the settings samples in
``tests/data/settings``, and the Karopapier maps and game log in ``../shared/karopapier``
when they are there) and changes it: bytes flipped, spans cut or repeated, hostile tokens
put in (deep brackets, ``inf``, huge numbers, stray quotes, control characters, piles of
combining marks, long names), or, for structured files, one value swapped for one of another
type. The mutated input goes through the same calls the game makes (and every name or
description a reader lets through must be one a screen can show, ``game.core.text``), and
the outcome is sorted:

- ``ok``: read without complaint;
- ``refused``: an error the reader documents (a pack's located problems, ``ReplayError``,
  ``RefereeError``, ``KaroImportError``, a settings problem, ``BindingError``);
- ``failure``: any other exception, or an input that took longer than ``--timeout``
  seconds (each input runs under an alarm).

Two more classes (issue 27) try what surrounds the files rather than their text:

- ``file name``: a Karopapier map saved under a hostile name (``#``, ``%23``, bytes that are
  not UTF-8, escape sequences, emoji, combining marks, right-to-left overrides). It must
  race as the game reads it, its reference must be UTF-8 text that a replay stores and
  reads back to the same file, and ``racetrack validate`` on it must end with its usual
  status on a terminal that is not UTF-8 or a closed pipe (141), never an unexpected error.
- ``write target``: one of the game's writers (settings, best results, a replay, a cup
  file, a picture, an imported pack, the editor's save) pointed at a hostile place (a
  user's file, the game's own file damaged, a folder, the command's own input under
  another name, a symlink, a name with control characters), with and without ``--force``.
  Whatever happens, every byte a user had is still there (in place or in a numbered
  copy), an input is never changed, a replaced file keeps its mode and no temporary file
  is left; anything but a documented refusal is a failure.

Three classes (issue 27) push one bound of a real file's values at a time; each starts from a
pack, a replay, the settings or best results (and for ``huge size`` a ``.map`` too) and goes
through the same checks as that file's own class:

- ``huge size``: a text made long (names, descriptions, keys: up to megabytes, within the
  file's size limit and past it), a list made long (start places, outline vertices, phases,
  tracks repeated thousands of times), a map made wide or tall;
- ``number range``: numbers swapped for the edges of their types and beyond (0, -1, 2**31,
  2**53 + 1, 2**63 and past it, 10**30, 1e308, the smallest float, inf, nan);
- ``deep nesting``: a value wrapped in arrays or inline tables, or a key dotted, to just under
  the readers' nesting limit, just over it and far past it (1000 levels).

The ``map`` class also checks that the game and ``racetrack import`` read every mutated
map alike (one reader): both refuse it, or both give the same road, start and finish;
its mutations include line ends (``\r``, ``\r\n``), trailing spaces and short rows.

Only the game's public readers are called, so the same script measures an older checkout:
``PYTHONPATH=/path/to/old/checkout python tools/fuzz_inputs.py``. ``tests/test_fuzz_inputs.py``
runs a small deterministic share of it in the test suite.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent.parent
TESTS = HERE / "tests"
#: Tokens that broke readers before: nesting, numbers out of range, quotes and odd bytes.
HOSTILE = ["[" * 600, "{a=" * 400, "a" + ".a" * 3000, "inf", "-inf", "nan", "1e999", "99999999999999999999",
           "-99999999999999999999", "0", "-1", "\"", "'", '"""', "'''", "\\", "\x00", "\ufffd", "\u202e", "[[", "]]",
           "=", "#", "\n", "true", "[]", "{}", "\"\"", "1.5", "-0", "2000-01-01T00:00:00",
           "\\u0000", "\\u001b", "\\u2066", "\x1b", "\u0301" * 50, "x" * 5000]


@dataclass
class Tally:
    """Outcomes of one input class."""

    tried: int = 0
    outcomes: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def failed(self) -> int:
        return sum(n for kind, n in self.outcomes.items() if kind.startswith("failure"))


class Timeout(Exception):
    """One input ran longer than the fuzzer's per-input limit."""


@contextlib.contextmanager
def alarm(seconds: float):
    """Raise :class:`Timeout` in this (main) thread after ``seconds`` (no-op where alarms do not exist)."""
    if seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return

    def ring(signum, frame):
        raise Timeout()

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# -- mutations --------------------------------------------------------------------------------
def mutate_text(text: str, rng: random.Random) -> str:
    """One to three edits of a text: flips, cuts, repeats, hostile tokens, swapped lines."""
    for _ in range(rng.randint(1, 3)):
        if not text:
            text = rng.choice(HOSTILE)
            continue
        i = rng.randrange(len(text) + 1)
        j = min(len(text), i + rng.randint(0, 40))
        kind = rng.randrange(7)
        if kind == 0:
            text = text[:i] + chr(rng.randrange(32, 127)) + text[i + 1:]
        elif kind == 1:
            text = text[:i] + text[j:]
        elif kind == 2:
            text = text[:j] + text[i:j] * rng.randint(1, 8) + text[j:]
        elif kind == 3:
            values = [k + 1 for k, ch in enumerate(text) if ch in "=:"]
            if values and rng.random() < 0.6:  # where a value starts: the token is read as one
                i = rng.choice(values)
                j = i + len(text[i:].split("\n", 1)[0].split(",", 1)[0]) if rng.random() < 0.5 else i
                text = text[:i] + " " + rng.choice(HOSTILE) + text[j:]
            else:
                text = text[:i] + rng.choice(HOSTILE) + text[i:]
        elif kind == 4:
            lines = text.split("\n")
            a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
        elif kind == 5:
            text = text[:i]
        else:
            digits = [k for k, ch in enumerate(text) if ch.isdigit()]
            if digits:
                k = rng.choice(digits)
                text = text[:k] + rng.choice(["9" * rng.randint(2, 25), "-", ".5", "e9", "0"]) + text[k + 1:]
    return text


def mutate_layout(text: str, rng: random.Random) -> str:
    """A map's text as another editor may have left it: other line ends, trailing blanks, a short row."""
    lines = text.split("\n")
    kind = rng.randrange(4)
    if kind == 0:
        return rng.choice(["\r\n", "\r"]).join(lines)
    if kind == 1:
        return "\n".join(line + rng.choice([" ", "  ", "\t", " \t "]) if rng.random() < 0.5 else line
                         for line in lines)
    if kind == 2 and lines:
        k = rng.randrange(len(lines))
        lines[k] = lines[k][:rng.randrange(len(lines[k]) + 1)]
        return "\n".join(lines)
    pad = rng.choice([" ", "  ", "\t"])
    return "\n".join(pad + line if line else line for line in lines)


#: Pieces hostile file names are made of: the reference separator and its escape, bytes that
#: are not UTF-8 (as Python holds them), terminal escapes, and text that is hard to draw.
NAME_PIECES = ["#", "%", "%23", "%25", "%FF", "\udcff", "\udc80\udcfe", "\x1b[31m", "\x1b]0;title\x07", "\x9b2J",
               "\x7f", "\t", "\n", "ä", "ß", "🏎", "👩\u200d👩\u200d👧", "e\u0301", "\u202e", "\u200b", " ", ".", "..", "-",
               "'", '"', "\\", "*", "?", "[", "a" * 60, "ring", "Ünïcödé"]


def hostile_name(rng: random.Random) -> str:
    """A file name (no folder, at most ~150 bytes) made of :data:`NAME_PIECES` and plain letters."""
    while True:
        name = "".join(rng.choice(NAME_PIECES) for _ in range(rng.randint(1, 4)))
        if name not in (".", "..") and len(os.fsencode(name)) < 150:
            return name


def random_value(rng: random.Random, depth: int = 0):
    """A value of any JSON/TOML type, now and then a hostile one."""
    choice = rng.randrange(11)
    if choice == 0:
        return rng.randint(-3, 3)
    if choice == 1:
        return rng.choice([10 ** 20, -(10 ** 20), 2 ** 63, 10 ** 6, 2 ** 31])
    if choice == 2:
        return rng.choice([float("inf"), float("-inf"), float("nan"), 1e20, 0.5, -0.0])
    if choice == 3:
        return rng.choice(["", "a", "19", "-5", "true", "x" * 300, "[[", "\x00", "ü"])
    if choice == 4:
        return rng.choice([True, False])
    if choice == 5:
        return None
    if choice == 6 and depth < 3:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if choice == 7 and depth < 3:
        return {rng.choice(["a", "x", "id", "moves", "name", "track"]): random_value(rng, depth + 1)
                for _ in range(rng.randint(0, 3))}
    if choice == 8:
        nested: object = 1
        for _ in range(rng.choice([40, 400])):  # deeper ones come from the text edits ("[" * 600)
            nested = [nested]
        return nested
    if choice == 9:
        return [[rng.randint(0, 40), rng.randint(0, 40)] for _ in range(rng.randint(0, 5))]
    return rng.randint(0, 1000)


def _paths(doc, limit: int = 12):
    """Every (path, value) inside a document down to ``limit`` levels, containers included."""
    stack = [((), doc)]
    while stack:
        prefix, value = stack.pop()
        yield prefix, value
        if len(prefix) >= limit:
            continue
        if isinstance(value, dict):
            stack.extend((prefix + (k,), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((prefix + (k,), v) for k, v in enumerate(value))


def mutate_doc(doc, rng: random.Random):
    """A copy of a parsed document with one to three values replaced, removed or repeated."""
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        places = [p for p, _ in _paths(doc) if p]
        if not places:
            return random_value(rng)
        # Pick a key name first, then a place with that name: rare keys (a game's "zzz")
        # are hit as often as the thousands of move coordinates.
        groups: dict = {}
        for place in places:
            groups.setdefault(place[-1] if isinstance(place[-1], str) else "[]", []).append(place)
        path = rng.choice(groups[rng.choice(sorted(groups, key=str))])
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        kind = rng.randrange(4)
        if kind == 0 or not isinstance(parent, (dict, list)):
            parent[last] = random_value(rng)
        elif kind == 1:
            del parent[last]
        elif kind == 2 and isinstance(parent, list):
            parent.insert(last, copy.deepcopy(parent[last]))
        else:
            value = parent[last]
            if isinstance(value, int) and not isinstance(value, bool):
                parent[last] = rng.choice([str(value), value * 10 ** 9, -value, float(value)])
            else:
                parent[last] = random_value(rng)
    return doc


def dump_toml(doc) -> str | None:
    """A mutated document written back as TOML, or None when TOML cannot hold it (None values)."""
    import tomli_w

    if not isinstance(doc, dict):
        return None
    try:
        return tomli_w.dumps(doc, multiline_strings=True)
    except (TypeError, ValueError, AttributeError, RecursionError):
        return None


# -- the input classes and how the game reads them --------------------------------------------
def karo_dir() -> Path | None:
    for option in (HERE.parent / "shared" / "karopapier", Path("/work/shared/karopapier")):
        if (option / "maps").is_dir():
            return option
    return None


def seeds(kind: str) -> list[Path]:
    """The real files mutations start from."""
    karo = karo_dir()
    if kind == "pack":
        found = sorted((TESTS / "data" / "packs").glob("*.toml")) + [TESTS / "golden" / "pack.toml"]
        return found + [HERE / "tracks" / "starter.toml", HERE / "tracks" / "classics.toml"]
    if kind == "map":
        maps = [TESTS / "golden" / "ring.map"]
        if karo:
            maps += [karo / "maps" / f"{n}.map" for n in (11, 105, 140, 150, 165, 168, 193, 195, 196)]
        return [p for p in maps if p.exists()]
    if kind == "replay":
        return sorted((TESTS / "golden").glob("*.replay.toml")) + sorted((TESTS / "golden_systems").glob("*.toml"))
    if kind == "game log":
        return [karo / "games" / "44773.details.json"] if karo else []
    if kind == "settings":
        return [TESTS / "data" / "settings" / "settings.toml", TESTS / "data" / "settings" / "best.toml"]
    if kind == "file name":
        return [TESTS / "golden" / "ring.map"]
    if kind == "write target":
        return [TESTS / "data" / "packs" / "minicup.toml"]
    if kind in BOUNDS:
        files = [TESTS / "golden" / "pack.toml", TESTS / "data" / "packs" / "good.toml", HERE / "tracks" / "starter.toml",
                 *sorted((TESTS / "golden").glob("*.replay.toml"))[:2], *seeds("settings")]
        if kind == "huge size":
            files.append(TESTS / "golden" / "ring.map")
        return [p for p in files if p.exists()]
    raise ValueError(kind)


def shown_safely(texts, kind: str = "name") -> None:
    """Every name (or description) a reader let through is one a screen can show (``game.core.text``)."""
    from game.core.text import DESCRIPTION, NAME, text_problem

    try:  # an author may be longer than a name (60 characters); an older checkout has one rule
        from game.core.text import AUTHOR
    except ImportError:
        AUTHOR = NAME
    rule = {"description": DESCRIPTION, "author": AUTHOR}.get(kind, NAME)
    for text in texts:
        trouble = text_problem(text, rule)
        assert trouble is None, f"a {kind} the reader let through {trouble}: {text[:60]!r}"


class Checks:
    """Feeds one mutated input to the game's readers; returns "ok" or "refused", raises otherwise."""

    def __init__(self, work: Path) -> None:
        from game.core.errors import RacetrackError

        self.work = work
        self.racetrack_error = RacetrackError
        (work / "replays").mkdir(parents=True, exist_ok=True)
        (work / "golden").mkdir(parents=True, exist_ok=True)  # the systems goldens name ../golden/pack.toml
        for folder in ("replays", "golden"):
            shutil.copy(TESTS / "golden" / "pack.toml", work / folder / "pack.toml")
            shutil.copy(TESTS / "golden" / "ring.map", work / folder / "ring.map")
        karo = karo_dir()
        if karo:
            (work / "maps").mkdir(exist_ok=True)
            shutil.copy(karo / "maps" / "43.map", work / "maps" / "43.map")
            (work / "games").mkdir(exist_ok=True)

    def pack(self, text: str, seed: Path) -> str:
        from game.tracks.pack import read_pack_text

        result = read_pack_text(text, file=seed.name)
        assert all(str(p) for p in result.problems)
        if result.pack is not None:
            pack = result.pack
            shown_safely([pack.name] + [t.name for t in pack.tracks] + [c.name for c in pack.cups])
            shown_safely([pack.author], "author")
            shown_safely([pack.description] + [t.meta.get("description", "") for t in pack.tracks]
                         + [c.description for c in pack.cups], "description")
        return "refused" if result.errors else "ok"

    def map(self, text: str, seed: Path) -> str:
        from game.tracks.karo_import import KaroImportError, map_to_pack, parse_map
        from game.tracks.pack import read_map_file

        path = self.work / seed.name
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        result = read_map_file(path)
        assert all(str(p) for p in result.problems)
        try:
            karo = parse_map(text, source=seed.name, map_id=seed.stem)
            map_to_pack(karo)
        except KaroImportError:
            karo = None
        # One reader: the importer refuses only maps the game refuses too, and the pack it
        # writes for any other races on the same road from the same start as the map file.
        if karo is None:
            assert result.errors, "import refused a map the game reads"
            return "refused"
        if result.tracks:
            from game.tracks.pack import read_pack_text

            imported = read_pack_text(map_to_pack(karo)[0], file="imported.toml").tracks
            assert imported, "the game reads the map, but not the pack import writes for it"
            game, other = result.tracks[0], imported[0]
            assert (game.region.road_nodes() == other.region.road_nodes()).all(), "import read another road"
            assert game.start_slots == other.start_slots, "import read another start"
        return "refused" if result.errors else "ok"

    def file_name(self, name: str, seed: Path) -> str:
        """A map under a hostile name: raced, stored in a replay and read back, validated on odd terminals."""
        import io

        from game.cli import main
        from game.race.replay import Replay, load_replay, load_replay_track, save_replay
        from game.core.rules import preset
        from game.tracks.pack import read_map_file

        try:
            from game.tracks.refs import file_ref
        except ImportError:  # an older checkout: the path itself was the reference
            def file_ref(path):
                return str(path)

        folder = self.work / "names"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        path = folder / (name + ".map")
        try:
            path.write_bytes(seed.read_bytes())
        except (OSError, ValueError):  # a name this file system does not take: nothing to read
            return "refused"
        result = read_map_file(path)
        assert result.tracks, "a good map under an odd name no longer reads"
        track = result.tracks[0]
        for text in (track.id, track.name):
            text.encode("utf-8")  # storable and drawable: no undecodable bytes left in it
            assert not any(ord(ch) < 32 or 0x7f <= ord(ch) <= 0x9f for ch in text), "control characters kept"
        ref = file_ref(path)
        ref.encode("utf-8")
        replay = Replay.from_race(ref, 1, preset("karopapier"), 0, [("A", "human")])
        out = folder / "race.toml"
        save_replay(replay, out)
        again = load_replay_track(load_replay(out), HERE / "tracks")
        assert again.start_slots == track.start_slots, "the replay's reference names another track"
        pipe = Counter()
        for target in (io.TextIOWrapper(io.BytesIO(), encoding="ascii"),
                       io.TextIOWrapper(io.BytesIO(), encoding="latin-1"), ClosedPipe()):
            err = io.StringIO()
            with contextlib.redirect_stdout(target), contextlib.redirect_stderr(err):
                status = main(["validate", str(path)])
            assert "unexpected" not in err.getvalue(), err.getvalue()
            assert status in (0, 1, 141), f"validate ended with {status}"
            pipe[status] += 1
        return "ok"

    def write_target(self, spec: str, seed: Path) -> str:
        """One writer at one hostile place; the user's bytes, the inputs and the modes must survive."""
        return write_scenario(json.loads(spec), self.work / "writes", seed)

    def replay(self, text: str, seed: Path) -> str:
        from game.race.referee import RefereeError, referee
        from game.race.replay import ReplayError, load_replay, load_replay_track

        path = self.work / "replays" / "fuzz.replay.toml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            replay = load_replay(path)
            shown_safely([car.name for car in replay.cars])
            track = load_replay_track(replay, HERE / "tracks")
            referee(replay, track)
        except (ReplayError, RefereeError):
            return "refused"
        return "ok"

    def game_log(self, text: str, seed: Path) -> str:
        from game.commands.import_map import import_game
        from game.tracks.karo_import import KaroImportError, read_game

        path = self.work / "games" / "44773.details.json"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            read_game(path)
        except KaroImportError:
            return "refused"
        out = self.work / "games" / "fuzz.replay.toml"
        try:
            result = import_game(path, out)
        except self.racetrack_error:  # documented: KaroImportError, TrackError, ReplayError
            return "refused"
        finally:
            for stray in (out, out.with_suffix(".map")):
                stray.unlink(missing_ok=True)
        return "refused" if result.referee_problem or result.disagreements else "ok"

    def settings(self, text: str, seed: Path) -> str:
        from game.settings import load_best, load_settings

        folder = self.work / "config"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        (folder / seed.name).write_text(text, encoding="utf-8", errors="surrogatepass")
        settings, problems = load_settings(folder)
        best, more = load_best(folder)
        assert all(str(p) for p in problems + more)
        shown_safely(list(settings.player_names) + [b.name for b in best.entries.values()])
        settings.rules()
        from game.presentation.input import BindingError, InputMapper
        from game.presentation.menus.settings_menu import effective_bindings

        try:  # what the game builds from the settings before the first frame
            InputMapper(effective_bindings(settings.bindings))
        except BindingError:
            return "refused"
        return "refused" if problems or more else "ok"


    def huge_size(self, text: str, seed: Path) -> str:
        """A bounds class's input goes to the reader of the file it was made from."""
        return getattr(self, seed_kind(seed))(text, seed)

    number_range = deep_nesting = huge_size


class ClosedPipe(io.TextIOBase):
    """Standard output after its reader went away (``| head -1``): every write raises BrokenPipeError."""

    encoding = "utf-8"

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self):
        raise io.UnsupportedOperation("no file descriptor")


#: The writers the ``write target`` class points at hostile places.
WRITERS = ("settings", "best", "replay", "cup", "picture", "import", "editor")
#: What may stand at the target before the write.
PLACES = ("free", "user", "own", "own damaged", "folder", "input", "input by link", "symlink to user",
          "control name")


def write_spec(rng: random.Random) -> str:
    return json.dumps({"writer": rng.choice(WRITERS), "place": rng.choice(PLACES), "force": rng.random() < 0.5,
                       "mode": rng.choice([0o600, 0o640, 0o644, 0o664]), "user": hostile_name(rng)[:20]})


def _snapshot(folder: Path) -> dict[str, bytes]:
    found = {}
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            found[str(path.relative_to(folder))] = path.read_bytes()
    return found


def write_scenario(spec: dict, folder: Path, seed: Path) -> str:
    """Run one writer of :data:`WRITERS` at one place of :data:`PLACES`; check nothing of the user's is lost."""
    import re

    from game.core.errors import RacetrackError

    try:
        from game.atomic import TEMP_PATTERN
    except ImportError:  # an older checkout: its temporary files were .NAME.XXXX.tmp
        TEMP_PATTERN = re.compile(r"^\..*\.tmp$")

    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    writer, place, force = spec["writer"], spec["place"], spec["force"]
    source = folder / "input.toml"  # what the command reads (a pack)
    source.write_bytes(seed.read_bytes())
    names = {"settings": "settings.toml", "best": "best.toml", "replay": "race.toml", "cup": "cup.toml",
             "picture": "track.png", "import": "pack.toml", "editor": "pack.toml"}
    target = folder / names[writer]
    user = f"{spec['user']} wrote this\n".encode("utf-8", "surrogateescape")
    if writer in ("settings", "best"):
        target = folder / names[writer]  # the game's own names: no -o, no input
        if place in ("input", "input by link", "control name"):
            place = "user"
    if place == "control name":
        target = folder / ("\x1b[2J" + names[writer])
    elif place == "user":
        target.write_bytes(user)
    elif place in ("own", "own damaged"):
        _write_own(writer, target, folder, source)
        if place == "own damaged":
            target.write_bytes(target.read_bytes()[: max(1, len(target.read_bytes()) // 3)] + b"[[[\n")
    elif place == "folder":
        target.mkdir()
    elif place == "input":
        target = source
    elif place == "input by link":
        os.link(source, target)
    elif place == "symlink to user":
        real = folder / "real-user-file"
        real.write_bytes(user)
        target.symlink_to(real)
    if target.is_file():
        os.chmod(target, spec["mode"])
    before = _snapshot(folder)
    old_mode = os.stat(target).st_mode & 0o7777 if target.is_file() else None
    input_bytes = source.read_bytes()
    try:
        _write_own(writer, target, folder, source, force=force)
        outcome = "ok"
    except (RacetrackError, FileExistsError) as error:  # documented refusals: the messages name the file
        assert str(error), "a refusal without a message"
        outcome = "refused"
    after = _snapshot(folder)
    kept = set(after.values())
    for name, data in before.items():
        if name == str(source.relative_to(folder)) and writer != "editor":
            continue
        assert after.get(name) == data or data in kept, f"{writer} at {place}: the bytes of {name} were lost"
    if writer != "editor":  # the editor's job is rewriting the pack it opened (it keeps a copy first)
        assert source.read_bytes() == input_bytes, f"{writer} at {place}: the command's input was changed"
    assert not [p for p in folder.rglob("*") if TEMP_PATTERN.match(p.name)], "a temporary file was left"
    if outcome == "ok" and old_mode is not None and target.is_file():
        assert os.stat(target).st_mode & 0o7777 == old_mode, f"{writer} at {place}: the mode changed"
    return outcome


def _write_own(writer: str, target: Path, folder: Path, source: Path, force: bool = False) -> None:
    """What each writer of the game does to ``target`` (the command's input is ``source``)."""
    from game.files import WouldReplace, write_new_or_own

    if writer == "settings":
        from game.settings import Settings, save_settings

        if target.parent != folder or target.name != "settings.toml":
            raise WouldReplace("settings go to their own file")
        save_settings(Settings(master_volume=33), folder)
    elif writer == "best":
        from game.settings import BestResults, save_best

        best = BestResults()
        best.record("starter/bean x1", 1, 20, "Ada")
        save_best(best, folder)
    elif writer == "replay":
        from game.core.rules import preset
        from game.race.replay import Replay, save_replay

        save_replay(Replay.from_race("starter/bean", 1, preset("paper"), 0, [("A", "human")]), target, force=force,
                    inputs=[source])
    elif writer == "cup":
        from game.race.cup import Cup, CupRace, Entrant, save_cup
        from game.core.rules import preset
        from game.tracks.cups import points_table

        cup = Cup("c", "C", (CupRace("starter/bean", "Bean", 1, preset("paper")),), (Entrant("A"),),
                  points_table("classic"), 1, ())
        try:
            save_cup(cup, target, force=force, keep_foreign=False, inputs=[source])
        except TypeError:  # an older checkout: save_cup(cup, path) wrote over anything
            save_cup(cup, target)
    elif writer == "picture":
        try:
            from game.commands.render import PNG_SOFTWARE, is_own_picture
        except ImportError:  # an older checkout: render -o saved with pygame over whatever was there
            with open(target, "wb") as out:
                out.write(b"\x89PNG\r\n\x1a\n")
            return
        png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 25 + len(PNG_SOFTWARE).to_bytes(4, "big") + b"tEXt" + PNG_SOFTWARE
        write_new_or_own(target, png + b"\x00" * 4, owned=is_own_picture, force=force, inputs=[source])
    elif writer == "import":
        from game.tracks.pack import GAME_PACK_MARKERS

        write_new_or_own(target, "# Imported from a Karopapier map by `racetrack import`.\nformat = 1\n",
                         marker=GAME_PACK_MARKERS + ("# Imported from a Karopapier map",), force=force,
                         inputs=[source], make_folder=True)
    elif writer == "editor":
        if str(HERE) not in sys.path:
            sys.path.insert(0, str(HERE))
        from tools.editor.packio import open_track, save_track

        opened = open_track(f"{source}#dash", HERE / "tracks")
        save_track(opened.doc, target)
    else:  # pragma: no cover
        raise ValueError(writer)


KINDS = ("pack", "map", "replay", "game log", "settings", "file name", "write target", "huge size",
         "number range", "deep nesting")
#: The classes that push one bound of a real file (a pack, a replay, settings, a map) at a time.
BOUNDS = ("huge size", "number range", "deep nesting")
#: Values past the edges of the numbers a file may hold (``number range``).
EDGE_NUMBERS = [0, -1, 1, 2 ** 31, -2 ** 31 - 1, 2 ** 53 + 1, 2 ** 63 - 1, 2 ** 63, -2 ** 63 - 1, 2 ** 64, 10 ** 30,
                -10 ** 30, 10 ** 6, -10 ** 6, 1e308, -1e308, 5e-324, -0.0, 0.5, float("inf"), float("-inf"),
                float("nan")]
#: Nesting depths tried (``deep nesting``): the readers' limit is 32 levels.
DEPTHS = [2, 16, 30, 31, 32, 33, 34, 40, 100, 1000]


def seed_kind(seed: Path) -> str:
    """Which reader a bounds class's seed goes to: ``pack``, ``replay``, ``settings`` or ``map``."""
    if seed.suffix == ".map":
        return "map"
    if seed.parent.name == "settings":
        return "settings"
    if seed.name.endswith(".replay.toml") or seed.parent.name == "golden_systems":
        return "replay"
    return "pack"


def _leaves(doc, want) -> list[tuple]:
    """Paths to every value in ``doc`` for which ``want(value)`` holds."""
    return [p for p, v in _paths(doc, limit=40) if p and want(v)]


def _set(doc, path, value) -> None:
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value


def _get(doc, path):
    for step in path:
        doc = doc[step]
    return doc


def huge(doc, rng: random.Random):
    """A copy of ``doc`` with one text or list made long (thousands of items, up to megabytes)."""
    doc = copy.deepcopy(doc)
    texts = _leaves(doc, lambda v: isinstance(v, str))
    lists = _leaves(doc, lambda v: isinstance(v, list) and v)
    if texts and (not lists or rng.random() < 0.5):
        path = rng.choice(texts)
        text = _get(doc, path) or "a"
        length = rng.choice([300, 5000, 100_000, 1_000_000, 3_000_000, 5_000_000])
        _set(doc, path, (text * (length // len(text) + 1))[:length])
    elif lists:
        path = rng.choice(lists)
        items = _get(doc, path)
        count = rng.choice([100, 1000, 10_000, 100_000])
        _set(doc, path, [copy.deepcopy(items[k % len(items)]) for k in range(count)])
    return doc


def huge_map(text: str, rng: random.Random) -> str:
    """A map made wide (rows repeated along), tall (rows repeated down) or both, up to a few megabytes."""
    rows = text.splitlines()
    wide = rng.choice([1, 1, 3, 20, 200])
    tall = rng.choice([1, 3, 20, 200, 2000]) if wide < 200 else 1
    rows = [row * wide for row in rows]
    return "\n".join([*rows[:1], *(rows[1:-1] * tall), *rows[-1:]]) + "\n"


def edge_numbers(doc, rng: random.Random):
    """A copy of ``doc`` with one to three numbers swapped for :data:`EDGE_NUMBERS`."""
    doc = copy.deepcopy(doc)
    numbers = _leaves(doc, lambda v: isinstance(v, (int, float)) and not isinstance(v, bool))
    for _ in range(rng.randint(1, 3)):
        if numbers:
            _set(doc, rng.choice(numbers), rng.choice(EDGE_NUMBERS))
    return doc


def nested(value, depth: int, rng: random.Random):
    """``value`` wrapped ``depth`` times in arrays or single-key tables (one kind, or both mixed)."""
    style = rng.choice(["list", "table", "mixed"])
    for _ in range(depth):
        as_list = style == "list" or (style == "mixed" and rng.random() < 0.5)
        value = [value] if as_list else {"a": value}
    return value


def deep(doc, rng: random.Random):
    """A copy of ``doc`` with one value wrapped :data:`DEPTHS` deep (or a new deep key beside the others)."""
    doc = copy.deepcopy(doc)
    places = _leaves(doc, lambda v: True)
    depth = rng.choice(DEPTHS)
    if places and rng.random() < 0.8:
        path = rng.choice(places)
        _set(doc, path, nested(_get(doc, path), depth, rng))
    else:
        doc["deep"] = nested(1, depth, rng)
    return doc


def dotted(text: str, rng: random.Random) -> str:
    """``text`` with a line of a key dotted :data:`DEPTHS` levels deep added (tables by dotted keys)."""
    depth = rng.choice(DEPTHS)
    line = ".".join(["a"] * depth) + " = 1"
    lines = text.splitlines()
    at = rng.randint(0, len(lines))
    return "\n".join([*lines[:at], line, *lines[at:]]) + "\n"


def bounded_input(kind: str, seed: Path, rng: random.Random, cache: dict) -> str:
    """One input of a bounds class (:data:`BOUNDS`) made from ``seed``."""
    text = cache.setdefault(("text", seed), seed.read_text(encoding="utf-8"))
    if seed_kind(seed) == "map":
        return huge_map(text, rng)
    if kind == "deep nesting" and rng.random() < 0.25:
        return dotted(text, rng)
    doc = cache.setdefault(("doc", seed), tomllib.loads(text))
    change = {"huge size": huge, "number range": edge_numbers, "deep nesting": deep}[kind]
    for _ in range(5):  # TOML cannot hold every value (a nan key, 1000 levels for the writer)
        try:
            dumped = dump_toml(change(doc, rng))
        except (RecursionError, ValueError, TypeError, OverflowError):
            dumped = None
        if dumped is not None:
            return dumped
    return dotted(text, rng)


def structured(kind: str) -> bool:
    return kind in ("pack", "replay", "game log", "settings")


def one_input(kind: str, seed: Path, rng: random.Random, cache: dict) -> str:
    """A mutated text of ``seed``: half the time text edits, else (structured files) a changed value.

    For ``file name`` a hostile name, for ``write target`` a scenario (JSON), for ``map``
    now and then a layout change (line ends, trailing blanks, a short row) on top.
    """
    if kind == "file name":
        return hostile_name(rng)
    if kind == "write target":
        return write_spec(rng)
    if kind in BOUNDS:
        return bounded_input(kind, seed, rng, cache)
    text = cache.setdefault(("text", seed), seed.read_text(encoding="utf-8"))
    if kind == "map" and rng.random() < 0.4:
        return mutate_layout(text if rng.random() < 0.5 else mutate_text(text, rng), rng)
    if structured(kind) and rng.random() < 0.5:
        if kind == "game log":
            doc = cache.setdefault(("doc", seed), json.loads(text))
            return json.dumps(mutate_doc(doc, rng))
        doc = cache.setdefault(("doc", seed), tomllib.loads(text))
        dumped = dump_toml(mutate_doc(doc, rng))
        if dumped is not None:
            return dumped
    return mutate_text(text, rng)


def run(kinds, per_kind: int, seed: int, timeout: float, verbose: bool = False,
        progress: Callable[[str], None] | None = None) -> dict[str, Tally]:
    """Fuzz each kind ``per_kind`` times; returns a :class:`Tally` per kind."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    pygame.display.init()  # key names for the bindings check
    tallies = {}
    with tempfile.TemporaryDirectory(prefix="racetrack-fuzz-") as tmp:
        checks = Checks(Path(tmp))
        for kind in kinds:
            files = seeds(kind)
            tally = tallies[kind] = Tally()
            if not files:
                continue
            rng = random.Random(f"{seed}/{kind}")
            check = getattr(checks, kind.replace(" ", "_"))
            cache: dict = {}
            start = time.process_time()
            for number in range(per_kind):
                source = files[number % len(files)]
                text = one_input(kind, source, rng, cache)
                tally.tried += 1
                try:
                    with alarm(timeout):
                        outcome = check(text, source)
                except Timeout:
                    outcome = "failure: took longer than the time limit"
                except AssertionError:
                    outcome = "failure: a problem without a message"
                except (Exception, RecursionError) as error:  # noqa: BLE001 - this is what is counted
                    outcome = f"failure: {type(error).__name__}"
                    if verbose:
                        print(f"  {kind} #{number} from {source.name}: {type(error).__name__}: "
                              f"{str(error)[:200]}", file=sys.stderr)
                tally.outcomes[outcome] += 1
                if outcome.startswith("failure") and len(tally.failures) < 20:
                    tally.failures.append(f"#{number} from {source.name}: {outcome}")
            tally.seconds = time.process_time() - start
            if progress:
                progress(kind)
    return tallies


def table(tallies: dict[str, Tally]) -> str:
    rows = ["| input class | inputs tried | ok | refused (documented) | failures | CPU s |", "|---|---:|---:|---:|---:|---:|"]
    for kind, t in tallies.items():
        rows.append(f"| {kind} | {t.tried} | {t.outcomes.get('ok', 0)} | {t.outcomes.get('refused', 0)} | "
                    f"{t.failed} | {t.seconds:.1f} |")
    return "\n".join(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=1500, help="mutations per input class (default 1500)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds one input may take (default 20)")
    parser.add_argument("--only", choices=KINDS, action="append", help="fuzz only this class (repeatable)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every failure")
    parser.add_argument("--json", metavar="FILE", help="also write the outcomes as JSON")
    args = parser.parse_args(argv)
    import game

    print(f"fuzzing {Path(game.__file__).parent}: {args.n} inputs per class, seed {args.seed}", flush=True)
    tallies = run(args.only or KINDS, args.n, args.seed, args.timeout, args.verbose,
                  progress=lambda kind: print(f"  {kind} done", flush=True))
    print(table(tallies))
    for kind, t in tallies.items():
        kinds = {k: n for k, n in t.outcomes.items() if k.startswith("failure")}
        if kinds:
            print(f"{kind}: " + ", ".join(f"{n} x {k[9:]}" for k, n in sorted(kinds.items(), key=lambda i: -i[1])))
    if args.json:
        Path(args.json).write_text(json.dumps({k: {"tried": t.tried, "outcomes": dict(t.outcomes),
                                                   "failures": t.failures, "cpu_seconds": t.seconds}
                                               for k, t in tallies.items()}, indent=1))
    return 1 if any(t.failed for t in tallies.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
