"""Writing files whole or not at all: what settings, replays, packs and pictures are saved with.

Every write goes through a temporary file in the same folder, then ``os.replace``: a
crash or a full disk never leaves half a file behind. The temporary file is named
recognisably (``.NAME.racetrack-PID-XXXXXXXX.tmp``), so one left behind by a killed save
is found and removed on the next start (:func:`clean_stray_temps`). A file that is
replaced keeps its permissions (a settings file a user made readable to the group stays
so); a new one gets the usual ``0666`` less the umask, as any program's would. A path that
is a symbolic link is written through: the file it points at is replaced, the link stays.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
import time
from pathlib import Path
from typing import Iterable

#: What the temporary files of an atomic write are called: ``.NAME.racetrack-PID-RANDOM.tmp``.
TEMP_PATTERN = re.compile(r"^\..*\.racetrack-(\d+)-[0-9a-f]{8}\.tmp$", re.S)
#: A stray temporary file this old is removed even when its process id is in use again.
STALE_SECONDS = 24 * 3600


def temp_name(path: Path) -> Path:
    """A fresh temporary name beside ``path`` that :func:`clean_stray_temps` recognises."""
    return path.with_name(f".{path.name}.racetrack-{os.getpid()}-{secrets.token_hex(4)}.tmp")


def _target(path: Path) -> Path:
    """The file a write to ``path`` replaces: the end of a chain of symbolic links, else ``path``."""
    if path.is_symlink():
        return Path(os.path.realpath(path))
    return path


def write_bytes_atomic(path: str | os.PathLike, data: bytes, make_folder: bool = False) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and ``os.replace``.

    Readers see the old file or the new one, never half of one. The permissions of a file
    that is replaced are kept. With ``make_folder`` a missing folder is created; raises
    ``OSError`` when it cannot write (the temporary file is removed again).
    """
    path = _target(Path(path))
    if make_folder:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        old_mode = stat.S_IMODE(os.stat(path).st_mode) if path.is_file() else None
    except OSError:
        old_mode = None
    tmp = None
    for _ in range(100):
        candidate = temp_name(path)
        try:  # 0o666 here lets the umask decide a new file's mode, as for any file a program makes
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        except FileExistsError:
            continue
        tmp = candidate
        break
    else:  # pragma: no cover - a hundred random names all taken
        raise FileExistsError(f"no free temporary name beside {path}")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            if old_mode is not None:
                os.fchmod(out.fileno(), old_mode)
        os.replace(tmp, path)
        tmp = None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def write_text_atomic(path: str | os.PathLike, text: str, make_folder: bool = False) -> None:
    """Write ``text`` as UTF-8 (``\\n`` line ends) to ``path`` whole or not at all (see :func:`write_bytes_atomic`)."""
    write_bytes_atomic(path, text.encode("utf-8"), make_folder=make_folder)


def _alive(pid: int) -> bool:
    """True when a process with this id exists (or cannot be asked: then it is left alone)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):
        return True
    return True


def clean_stray_temps(folders: Iterable[str | os.PathLike], *, now: float | None = None) -> list[Path]:
    """Remove the temporary files a killed save left in ``folders``; returns what was removed.

    Only files named as :func:`temp_name` names them are touched, and only when the process
    that made them is gone (or the file is older than :data:`STALE_SECONDS`): a save under
    way in another running game is never cut short. Missing folders are skipped; nothing
    here raises. ``now`` is the wall-clock time to compare ages with (passed in by callers
    that have it; read once here otherwise).
    """
    now = time.time() if now is None else now
    removed = []
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            match = TEMP_PATTERN.match(entry.name)
            if not match:
                continue
            try:
                if not entry.is_file(follow_symlinks=False):
                    continue
                old = now - entry.stat(follow_symlinks=False).st_mtime > STALE_SECONDS
                if _alive(int(match.group(1))) and not old:
                    continue
                os.unlink(entry.path)
                removed.append(Path(entry.path))
            except (OSError, ValueError):
                continue
    return removed


__all__ = ["STALE_SECONDS", "TEMP_PATTERN", "clean_stray_temps", "temp_name", "write_bytes_atomic",
           "write_text_atomic"]
