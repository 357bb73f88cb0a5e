"""Reading the game's input files within bounds, and writing without replacing what a user made.

Every file Racetrack reads (level packs, Karopapier maps and game logs, replays, settings,
best results) goes through :func:`read_text`: only a regular file is read (not a folder, a
named pipe or a device such as ``/dev/zero``), and only up to a size limit for its kind
(:data:`LIMITS`, written for players and modders in ``docs/limits.md``). TOML goes
through :func:`parse_toml` (or :func:`read_toml`, both in one), which refuses nesting
deeper than :data:`MAX_DEPTH` before ``tomllib`` can overflow the stack on it; JSON
through :func:`parse_json` with the same bound. Every refusal is an error that says what
is wrong; callers add the file name and turn it into their own located problem.

Writing follows one rule, shared by every file the game or a command writes (pictures,
packs, maps, replays, cups, settings, best results, the editor's saves):
nothing replaces a file the game did not write itself. :func:`write_new_or_own` writes a
file whole (through :func:`game.atomic.write_bytes_atomic`) when the path is free, when the
file there is the game's own (it starts with the game's first line for that kind of file,
``marker``, or ``owned(path)`` recognises it by content), or when it already holds exactly
the new data; otherwise it raises :class:`WouldReplace`, unless ``force`` is given (or
``keep_foreign``, for the files the game must keep writing): then the file is first copied
to ``NAME.old`` (``.old.2``, ...). An input the command read is never replaced, even with
``force``, and no file is made whose name holds a control character. :func:`keep_aside`
moves or copies a file to the first free numbered name (``settings.toml.broken``,
``settings.toml.broken.2``, ...), never over an earlier copy. :func:`shown` is a path as a
message may print it (control characters and undecodable bytes escaped).
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
import tomllib
from pathlib import Path
from typing import Callable, Iterable

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
    try:
        fd = os.open(os.fspath(path), flags)
    except ValueError:  # a NUL in the name (from a file's reference): no file has that name
        raise UnreadableFile(path, "a name with a NUL character, which no file can have", errno.ENOENT) from None
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


#: Above this many characters :func:`toml_depth` counts in numpy; below, in plain Python, which
#: costs less than numpy's import (a pack or a replay is a few kilobytes; the limits allow megabytes).
_NUMPY_DEPTH_FROM = 256 * 1024

#: The characters that change the nesting count: brackets, dots and the places a key starts again.
_NESTING = re.compile(r"[\[\]{}.\n=,]")


def toml_depth(text: str) -> tuple[int, int]:
    """(deepest nesting, its 1-based line) of a TOML text, counted without parsing it.

    Arrays and inline tables count one level each; a dotted key or table name counts
    its dots; strings and comments are skipped. The larger of the two is returned: table
    names and keys can add up inside a document, which :func:`data_depth` checks after
    parsing. A long text is counted in numpy, so a large file costs little next to parsing
    it; a short one in plain Python (the same count: ``tests/test_files.py`` compares them).
    """
    blank = _STRINGS.sub(lambda m: "0" + "\n" * m.group().count("\n"), text)
    if len(blank) >= _NUMPY_DEPTH_FROM:
        return _depth_in_numpy(blank)
    return _depth_in_python(blank)


def _depth_in_python(blank: str) -> tuple[int, int]:
    """:func:`toml_depth` of a text with its strings and comments blanked, one structural character at a time."""
    depth = chain = deepest = 0
    line = deepest_line = 1
    for ch in _NESTING.findall(blank):
        if ch == ".":
            chain += 1
        else:
            chain = 0  # a key starts again after a newline, =, comma or bracket
            if ch in "[{":
                depth += 1
            elif ch in "]}":
                depth -= 1
            elif ch == "\n":
                line += 1
                continue
        level = max(depth, chain)
        if level > deepest:
            deepest, deepest_line = level, line
    return deepest, deepest_line


def _depth_in_numpy(blank: str) -> tuple[int, int]:
    """:func:`toml_depth` of a text with its strings and comments blanked, in numpy (for long texts)."""
    # Lazy on purpose: game.files is imported by every command, most of which never count a long TOML text.
    import numpy as np

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
    import json  # here: only settings and best results are JSON, and a command reading a pack never needs it

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
#: What a user's file is kept as when the game replaces it (``--force``, or a hand-written
#: settings file): ``NAME.old``, then ``NAME.old.2``, ... (an earlier copy is never replaced).
OLD_SUFFIX = ".old"
#: What a file of the game's own that it can no longer read back is kept as before it is replaced.
BROKEN_SUFFIX = ".broken"
#: Characters no file name the game writes may hold: C0 and C1 controls and DEL (an escape
#: sequence in a name would colour or clear the terminal of whoever lists the folder).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def shown(path: str | os.PathLike) -> str:
    r"""A path as a message shows it: control characters and undecodable bytes escaped, never sent raw.

    >>> shown("race\x1b[31m.png")
    'race\\x1b[31m.png'
    """
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    out = []
    for ch in text:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8 in the file system's name
            out.append(f"\\x{code - 0xDC00:02x}")
        elif _CONTROL.match(ch) or 0xD800 <= code <= 0xDFFF:
            out.append(ch.encode("unicode_escape").decode("ascii"))
        else:
            out.append(ch)
    return "".join(out)


def name_problem(path: str | os.PathLike) -> str | None:
    """Why the game will not make a file of this name (None when it may): control characters in it."""
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if _CONTROL.search(text):
        return (f"{shown(path)}: the name holds a control character (an escape sequence?); "
                "the game does not make such a file, choose a plain name")
    return None


def written_by_game(path: str | os.PathLike, marker: str | bytes | Iterable[str | bytes]) -> bool:
    """True when the regular file at ``path`` starts with one of the game's ``marker`` lines (or bytes)."""
    markers = (marker,) if isinstance(marker, (str, bytes)) else tuple(marker)
    try:
        head = read_bytes_head(path, _MARKER_BYTES)
    except OSError:
        return False
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    return any(head.startswith(m.encode("utf-8") if isinstance(m, str) else m) for m in markers if m)


def read_bytes_head(path: str | os.PathLike, size: int) -> bytes:
    """The first ``size`` bytes of a regular file (UnreadableFile for anything else)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(os.fspath(path), flags)
    except ValueError:  # a NUL in the name (from a file's reference): no file has that name
        raise UnreadableFile(path, "a name with a NUL character, which no file can have", errno.ENOENT) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(path, f"{_kind_of(info.st_mode)}, not a file the game writes")
        return os.read(fd, size)
    finally:
        os.close(fd)


def _same_file(a: Path, b: Path) -> bool:
    try:
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
        return os.path.abspath(a) == os.path.abspath(b)
    except (OSError, ValueError):
        return False


def _holds(path: Path, data: bytes) -> bool:
    """True when the file already holds exactly ``data``."""
    try:
        if path.stat().st_size != len(data):
            return False
        return read_bytes(path, limit=len(data)) == data
    except OSError:
        return False


def _as_bytes(data: str | bytes | None) -> bytes | None:
    return data.encode("utf-8") if isinstance(data, str) else data


def _is_own(path: Path, marker, owned) -> bool:
    if owned is not None:
        try:
            return bool(owned(path))
        except (OSError, ValueError):
            return False
    return written_by_game(path, marker)


def may_replace(path: str | os.PathLike, data: str | bytes | None = None, *,
                marker: str | bytes | Iterable[str | bytes] = (), owned: Callable[[Path], bool] | None = None,
                force: bool = False, inputs: Iterable[str | os.PathLike] = ()) -> str | None:
    """Why writing ``path`` must not happen (None when it may): the one never-overwrite rule.

    - A path that is one of ``inputs`` (files the command read, by name or the same file
      under another name) never, not even with ``force``.
    - A name with a control character never (:func:`name_problem`).
    - A free path may be written; a folder or anything but a regular file never.
    - A regular file only when the game made it (``owned(path)`` says so, or it starts with
      a ``marker`` line), when it holds exactly ``data`` already, or with ``force`` (then
      :func:`write_new_or_own` keeps a numbered copy aside first).
    """
    path = Path(path)
    for source in inputs:
        if _same_file(Path(source), path):
            return f"{shown(path)} is the file this command reads; write to another file"
    bad = name_problem(path)
    if bad:
        return bad
    if not os.path.lexists(path):
        return None
    if path.is_dir():
        return f"{shown(path)} is a folder; name a file"
    if not path.is_file():
        return f"{shown(path)} is not a regular file"
    if force or _is_own(path, marker, owned):
        return None
    wanted = _as_bytes(data)
    if wanted is not None and _holds(path, wanted):
        return None
    return f"{shown(path)} already exists and was not written by Racetrack; use --force to replace it " \
           f"(a copy is kept as {shown(path.name + OLD_SUFFIX)}), or write to another file"


def write_new_or_own(path: str | os.PathLike, data: str | bytes, *,
                     marker: str | bytes | Iterable[str | bytes] = (), owned: Callable[[Path], bool] | None = None,
                     force: bool = False, inputs: Iterable[str | os.PathLike] = (), make_folder: bool = False,
                     keep_foreign: bool = False, aside: str = OLD_SUFFIX,
                     readable: Callable[[Path], bool] | None = None) -> Path | None:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` whole, by the one rule of :func:`may_replace`.

    This is the writer every file the game or a command makes goes through. A file there
    that the game did not make is refused (:class:`WouldReplace`), unless ``force`` is
    given or ``keep_foreign`` is set (files the game must keep writing, such as settings
    and best results): then it is first copied to the next free ``NAME<aside>``
    (``NAME.old``, ``NAME.old.2``, ...) and that copy's path is returned (None when no copy
    was needed). A file of the game's own that ``readable(path)`` says the game can no
    longer read back (damaged) is copied to ``NAME.broken`` (``.broken.2``, ...) first.
    An input of the command is never replaced. The folder is made when ``make_folder``
    is set; the permissions of a replaced file are kept. Raises ``OSError`` when the disk
    refuses (a copy could not be kept, a folder not made).
    """
    path = Path(path)
    inputs = tuple(inputs)
    wanted = _as_bytes(data)
    why = may_replace(path, wanted, marker=marker, owned=owned, force=force or keep_foreign, inputs=inputs)
    if why:
        raise WouldReplace(why)
    # Here, not at the top: the writer (and the random names of its temporary files) load only to write.
    from game.atomic import clean_stray_temps, write_bytes_atomic

    # A save killed in this folder earlier left a temporary file: gone with the next save here.
    clean_stray_temps([path.parent])
    kept = None
    if os.path.isfile(path) and not _holds(path, wanted):
        if not _is_own(path, marker, owned):
            kept = keep_aside(path, aside, copy=True, once=True)
        elif readable is not None and not _is_own(path, (), readable):
            kept = keep_aside(path, BROKEN_SUFFIX, copy=True, once=True)
    write_bytes_atomic(path, wanted, make_folder=make_folder)
    return kept


def write_problem(path: str | os.PathLike, error: OSError) -> str:
    """The message for a file that could not be written: the path and the system's reason."""
    reason = error.strerror or str(error)
    if isinstance(error, (NotADirectoryError, FileExistsError)) or error.errno in (errno.ENOTDIR, errno.EEXIST):
        reason = f"{reason} (a file stands where a folder of this path should be)"
    return f"{shown(path)}: cannot write: {reason}"


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
    of making another. A copy keeps the file's permissions.
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
                try:
                    shutil.copymode(path, target)
                except OSError:
                    pass
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
    raise OSError(errno.EEXIST, f"no free name for a copy of {shown(path)}")


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


__all__ = ["DataError", "LIMITS", "MAX_DEPTH", "OLD_SUFFIX", "UnreadableFile", "WouldReplace", "data_depth",
           "free_name", "keep_aside", "may_replace", "name_problem", "parse_json", "parse_toml", "read_bytes",
           "read_text", "read_toml", "shown", "toml_depth", "write_new_or_own", "write_problem", "written_by_game"]
