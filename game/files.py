"""Reading the game's input files within bounds, and writing without replacing what a user made.

Every file Racetrack reads (level packs, Karopapier maps and game logs, replays, settings,
best results) goes through :func:`read_text`: only a regular file is read (not a folder, a
named pipe or a device such as ``/dev/zero``), and only up to a size limit for its kind
(:data:`LIMITS`, written for players and modders in ``docs/limits.md``). TOML goes
through :func:`parse_toml` (or :func:`read_toml`, both in one), which refuses nesting
deeper than :data:`MAX_DEPTH` before ``tomllib`` can overflow the stack on it; JSON
through :func:`parse_json` with the same bound. Every refusal is an error that says what
is wrong; callers add the file name and turn it into their own located problem.

Writing follows one rule, shared by the importer, the editor, replays and settings:
nothing replaces a file the game did not write itself. :func:`write_new_or_own` writes a
file whole (through :func:`game.atomic.write_text_atomic`) when the path is free, when the
file there starts with the game's own first line for that kind of file (``marker``), or
when it already holds exactly the new text; otherwise it raises :class:`WouldReplace`,
unless ``force`` is given. An input the command just read is never replaced, even with
``force``. :func:`keep_aside` moves or copies a file to the first free numbered name
(``settings.toml.broken``, ``settings.toml.broken.2``, ...), never over an earlier copy.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import stat
import tomllib
from pathlib import Path
from typing import Iterable

from game.atomic import write_text_atomic
from game.core.errors import RacetrackError

MIB = 1024 * 1024
#: The largest file of each kind the game reads, in bytes (see ``docs/limits.md``).
LIMITS = {
    "pack": 4 * MIB,
    "map": 1 * MIB,
    "replay": 16 * MIB,
    "settings": 1 * MIB,
    "best": 4 * MIB,
    "game log": 16 * MIB,
    "save": 4 * MIB,
}
#: How deeply arrays, tables and dotted keys may nest in a TOML or JSON file the game reads.
MAX_DEPTH = 32
#: How much of an existing file is read to tell whether the game wrote it.
_MARKER_BYTES = 4096


class UnreadableFile(RacetrackError, OSError):
    """A file the game will not read: not a regular file, too large, or not UTF-8 text.

    ``str()`` is the reason alone (callers name the file); ``filename`` is the path and
    ``strerror`` the reason too, so code that reports ``error.strerror`` shows it.
    """

    def __init__(self, path: str | os.PathLike, reason: str, code: int = errno.EINVAL) -> None:
        super().__init__(code, reason, str(path))
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


class DataError(RacetrackError, ValueError):
    """TOML or JSON text that cannot be read; ``line`` and ``column`` place it when known.

    ``str()`` is ``problem`` alone, without the place; callers put file and line in front.
    """

    def __init__(self, problem: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line
        self.column = column

    def __str__(self) -> str:
        return self.problem


class WouldReplace(RacetrackError, FileExistsError):
    """Refusing to replace a file the game did not write; the message names it and the way out."""


# -- reading ------------------------------------------------------------------------
def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _size_text(limit: int) -> str:
    return f"{limit // MIB} MB" if limit >= MIB and limit % MIB == 0 else f"{limit} bytes"


def read_bytes(path: str | os.PathLike, *, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    Raises :class:`UnreadableFile` for a folder, pipe, device or socket (without waiting
    on a pipe that has no writer) and for a file larger than ``limit``; ``OSError`` when
    the file cannot be opened.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(os.fspath(path), flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(path, f"{_kind_of(info.st_mode)}, not a file the game reads")
        if info.st_size > limit:
            raise UnreadableFile(path, f"{info.st_size} bytes is larger than the {_size_text(limit)} the game reads "
                                 "in such a file", errno.EFBIG)
        chunks, total = [], 0
        while True:  # read to the end, but never past the limit (a file may grow while read)
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise UnreadableFile(path, f"larger than the {_size_text(limit)} the game reads in such a file",
                                     errno.EFBIG)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike, *, limit: int) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes (see :func:`read_bytes`).

    Text that is not UTF-8 raises :class:`UnreadableFile` naming the first bad byte.
    """
    data = read_bytes(path, limit=limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UnreadableFile(path, f"not UTF-8 text (byte {error.start})") from None


# -- TOML and JSON ------------------------------------------------------------------
#: TOML strings and comments: skipped when nesting is counted (brackets in them are text).
_STRINGS = re.compile("|".join([
    r'"""(?:\\.|[^\\])*?"""(?:"{1,2}(?!"))?',  # multi-line basic (escapes; up to two more quotes end it)
    r"'{3}.*?'{3}(?:'{1,2}(?!'))?",  # multi-line literal
    r'"(?:\\.|[^"\\\n])*"?',  # basic, possibly unclosed (tomllib reports that)
    r"'[^'\n]*'?",  # literal
    r"#[^\n]*",  # comment
]), re.S)


def toml_depth(text: str) -> tuple[int, int]:
    """(deepest nesting, its 1-based line) of a TOML text, counted without parsing it.

    Arrays and inline tables count one level each; a dotted key or table name counts
    its dots; strings and comments are skipped. The larger of the two is returned: table
    names and keys can add up inside a document, which :func:`data_depth` checks after
    parsing. The count runs in numpy, so a large file costs little next to parsing it.
    """
    import numpy as np

    blank = _STRINGS.sub(lambda m: "0" + "\n" * m.group().count("\n"), text)
    data = np.frombuffer(blank.encode("utf-8", errors="replace"), dtype=np.uint8)
    if not len(data):
        return 0, 1
    opens = (data == ord("[")) | (data == ord("{"))
    closes = (data == ord("]")) | (data == ord("}"))
    depth = np.cumsum(opens.astype(np.int32) - closes.astype(np.int32))
    # Dots since the last place a key starts again (a newline, =, comma or bracket).
    dots = data == ord(".")
    reset = opens | closes | (data == ord("\n")) | (data == ord("=")) | (data == ord(","))
    count = np.cumsum(dots, dtype=np.int32)
    last = np.maximum.accumulate(np.where(reset, np.arange(len(data), dtype=np.int32), -1))
    chain = count - np.where(last >= 0, count[np.maximum(last, 0)], 0)
    level = np.maximum(depth, chain)
    at = int(np.argmax(level))
    return int(level[at]), int(np.count_nonzero(data[:at] == ord("\n"))) + 1


def data_depth(value: object) -> int:
    """How deeply lists and dicts nest in a parsed document (no recursion, so any depth is safe)."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH + 1:
            return depth  # deep enough to refuse: no need to walk the rest
        stack.extend((child, depth) for child in children)
    return deepest


def parse_toml(text: str, *, max_depth: int = MAX_DEPTH) -> dict:
    """``tomllib.loads`` with nesting bounded: raises :class:`DataError` (problem, line, column).

    Nesting deeper than ``max_depth`` is refused before ``tomllib`` sees the text (its
    parser recurses once per level, and long dotted keys cost it quadratic time).
    """
    depth, line = toml_depth(text)
    if depth > max_depth:
        raise DataError(f"nested more than {max_depth} levels deep (arrays, tables and dotted keys)", line)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        match = re.search(r"\s*\(at line (\d+), column (\d+)\)", message)
        problem = (message[:match.start()] + message[match.end():]) if match else message
        raise DataError(problem.strip() or "invalid TOML", int(match.group(1)) if match else None,
                        int(match.group(2)) if match else None) from None
    except RecursionError:  # pragma: no cover - the depth check above comes first
        raise DataError(f"nested more than {max_depth} levels deep") from None
    if data_depth(doc) > max_depth + 1:  # table names and dotted keys add up inside the document
        raise DataError(f"nested more than {max_depth} levels deep (arrays, tables and dotted keys)")
    return doc


_JSON_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|[\[\]{}\n]')


def parse_json(text: str, *, max_depth: int = MAX_DEPTH):
    """``json.loads`` with nesting bounded; raises :class:`DataError` (problem, line, column)."""
    depth = deepest = 0
    line = where = 1
    for match in _JSON_TOKENS.finditer(text):  # strings are skipped whole: brackets in them do not count
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > deepest:
                deepest, where = depth, line
        elif token in "]}":
            depth -= 1
        elif token == "\n":
            line += 1
    if deepest > max_depth:
        raise DataError(f"nested more than {max_depth} levels deep", where)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise DataError(f"not valid JSON: {error.msg}", error.lineno, error.colno) from None
    except RecursionError:  # pragma: no cover - the depth check above comes first
        raise DataError(f"nested more than {max_depth} levels deep") from None


def read_toml(path: str | os.PathLike, *, limit: int) -> tuple[dict, str]:
    """(document, text) of a TOML file: :func:`read_text` then :func:`parse_toml`."""
    text = read_text(path, limit=limit)
    return parse_toml(text), text


# -- writing ------------------------------------------------------------------------
def written_by_game(path: str | os.PathLike, marker: str | Iterable[str]) -> bool:
    """True when the regular file at ``path`` starts with one of the game's ``marker`` lines."""
    markers = (marker,) if isinstance(marker, str) else tuple(marker)
    try:
        head = read_bytes_head(path, _MARKER_BYTES)
    except OSError:
        return False
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    return any(text.startswith(m) for m in markers if m)


def read_bytes_head(path: str | os.PathLike, size: int) -> bytes:
    """The first ``size`` bytes of a regular file (UnreadableFile for anything else)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(os.fspath(path), flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(path, f"{_kind_of(info.st_mode)}, not a file the game writes")
        return os.read(fd, size)
    finally:
        os.close(fd)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _holds(path: Path, text: str) -> bool:
    """True when the file already holds exactly ``text``."""
    data = text.encode("utf-8")
    try:
        if path.stat().st_size != len(data):
            return False
        return read_bytes(path, limit=len(data)) == data
    except OSError:
        return False


def may_replace(path: str | os.PathLike, text: str | None = None, *, marker: str | Iterable[str] = (),
                force: bool = False, inputs: Iterable[str | os.PathLike] = ()) -> str | None:
    """Why writing ``path`` must not happen (None when it may): the one never-overwrite rule.

    A free path may be written. An existing one only when it is a regular file that the
    game wrote (it starts with a ``marker`` line), that holds ``text`` already, or when
    ``force`` is set. A path that is one of ``inputs`` (files the command read) never.
    """
    path = Path(path)
    for source in inputs:
        if Path(source) == path or _same_file(Path(source), path):
            return f"{path} is the file this command reads; write to another file (-o FILE)"
    if not os.path.lexists(path):
        return None
    if path.is_dir():
        return f"{path} is a folder"
    if not path.is_file():
        return f"{path} is not a regular file"
    if force or written_by_game(path, marker) or (text is not None and _holds(path, text)):
        return None
    return f"{path} already exists and was not written by Racetrack; use --force to replace it, or -o FILE"


def write_new_or_own(path: str | os.PathLike, text: str, *, marker: str | Iterable[str] = (), force: bool = False,
                     inputs: Iterable[str | os.PathLike] = (), make_folder: bool = False) -> None:
    """Write ``text`` to ``path`` whole (atomically) unless :func:`may_replace` says no.

    Raises :class:`WouldReplace` with that reason, or ``OSError`` when the disk refuses.
    """
    inputs = tuple(inputs)
    why = may_replace(path, text, marker=marker, force=force, inputs=inputs)
    if why:
        raise WouldReplace(why)
    write_text_atomic(path, text, make_folder=make_folder)


def free_name(path: str | os.PathLike, suffix: str) -> Path:
    """The first of ``NAME<suffix>``, ``NAME<suffix>.2``, ``NAME<suffix>.3``, ... that does not exist."""
    path = Path(path)
    first = path.with_name(path.name + suffix)
    if not os.path.lexists(first):
        return first
    number = 2
    while os.path.lexists(path.with_name(f"{path.name}{suffix}.{number}")):
        number += 1
    return path.with_name(f"{path.name}{suffix}.{number}")


def keep_aside(path: str | os.PathLike, suffix: str = ".broken", *, copy: bool = False, once: bool = False) -> Path:
    """Move (or ``copy``) ``path`` to the first free numbered name; returns the new path.

    An earlier copy is never replaced: the new name is claimed with an exclusive link or
    create, and the next number is tried if another process took it first. With ``once``
    (copies only), an earlier copy that holds exactly the same bytes is returned instead
    of making another.
    """
    path = Path(path)
    if copy and once:
        same = _same_copy(path, suffix)
        if same is not None:
            return same
    for _ in range(1000):
        target = free_name(path, suffix)
        try:
            if copy:
                with open(path, "rb") as src, open(target, "xb") as dst:
                    shutil.copyfileobj(src, dst)
            else:
                try:
                    os.link(path, target)  # fails if the name was taken meanwhile
                except (AttributeError, NotImplementedError, PermissionError, OSError) as error:
                    if isinstance(error, FileExistsError):
                        raise
                    with open(path, "rb") as src, open(target, "xb") as dst:  # no hard links here
                        shutil.copyfileobj(src, dst)
                os.unlink(path)
            return target
        except FileExistsError:
            continue
    raise OSError(errno.EEXIST, f"no free name for a copy of {path}")


def _same_copy(path: Path, suffix: str) -> Path | None:
    """An earlier numbered copy holding exactly what ``path`` holds now, if there is one."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    candidates = [path.with_name(path.name + suffix)] + sorted(path.parent.glob(f"{glob_escape(path.name)}{suffix}.*"))
    for candidate in candidates[:1000]:
        try:
            if candidate.is_file() and candidate.stat().st_size == len(data) and candidate.read_bytes() == data:
                return candidate
        except OSError:
            continue
    return None


def glob_escape(name: str) -> str:
    """A file name with glob's special characters escaped."""
    return re.sub(r"([*?\[])", r"[\1]", name)


__all__ = ["DataError", "LIMITS", "MAX_DEPTH", "UnreadableFile", "WouldReplace", "data_depth", "free_name",
           "keep_aside", "may_replace", "parse_json", "parse_toml", "read_bytes", "read_text", "read_toml",
           "toml_depth", "write_new_or_own", "written_by_game"]
