"""Track references: how a replay, a cup file, best results and the command line name a track.

Three forms (``docs/replays.md``, "Track references"):

- ``PACK/TRACK``: a track of a built-in pack;
- ``path/to/pack.toml#TRACK``: a track in a pack file;
- ``path/to/file.map``: a Karopapier map.

``#`` separates the file from the track, so a ``#`` that is part of a file or folder name
is written ``%23`` in a stored reference, and ``%`` itself ``%25``. A byte of the name that
is not UTF-8 (file systems allow any) is written ``%XX`` too (``%FF``), so every reference
is plain UTF-8 text that TOML can hold. :func:`file_ref` writes a reference that way,
:func:`split_file_ref` reads one back. Only those escapes are read back (``%23``, ``%25``
and ``%80`` to ``%FF``): any other ``%`` in an older reference means itself.

A reference typed on the command line is taken as the user typed it too: ``my#track.map``
names that file when it exists (:func:`typed_file_ref`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_UNESCAPE = re.compile(rb"%(2[35]|[89A-Fa-f][0-9A-Fa-f])")


def is_generated_ref(ref: str) -> bool:
    """Whether a track reference names a generated track (``gen:CODE``).

    >>> is_generated_ref("GEN:abc123"), is_generated_ref("starter/first-sprint")
    (True, False)
    """
    return ref[:4].lower() == "gen:"


def escape_path(path: str | os.PathLike) -> str:
    """A file path as a reference writes it: ``%`` -> ``%25``, ``#`` -> ``%23``, non-UTF-8 bytes -> ``%XX``.

    >>> escape_path("maps/50% #2.map")
    'maps/50%25 %232.map'
    """
    raw = os.fsencode(path).replace(b"%", b"%25").replace(b"#", b"%23")
    text = raw.decode("utf-8", "surrogateescape")
    return "".join(f"%{ord(ch) - 0xDC00:02X}" if 0xDC80 <= ord(ch) <= 0xDCFF else ch for ch in text)


def unescape_path(text: str) -> str:
    """The file path a reference's file part stands for (the inverse of :func:`escape_path`).

    >>> unescape_path("maps/50%25 %232.map")
    'maps/50% #2.map'
    """
    if "%" not in text:
        return text
    raw = _UNESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), os.fsencode(text))
    return os.fsdecode(raw)


def is_file_ref(ref: str) -> bool:
    """True for a reference to a file (``path/pack.toml#TRACK`` or a ``.map`` path), False for ``PACK/TRACK``."""
    return "#" in ref or ref.lower().endswith(".map")


def file_ref(path: str | os.PathLike, track_id: str | None = None) -> str:
    """The stored reference to ``track_id`` in the pack at ``path`` (or to the ``.map`` at ``path``)."""
    return escape_path(path) + (f"#{track_id}" if track_id is not None else "")


def split_file_ref(ref: str) -> tuple[str, str | None]:
    """(file path, track id) of a file reference; the track id is None for a ``.map`` path."""
    if "#" in ref:
        file, _, track_id = ref.rpartition("#")
        return unescape_path(file), track_id
    return unescape_path(ref), None


def typed_file_ref(ref: str) -> tuple[str, str | None]:
    """(file path, track id) of a reference as a user typed it or a file stored it.

    A stored reference is read as :func:`split_file_ref` reads it; when that names no file
    but the reference as typed is an existing ``.map`` file (``my#track.map``), that file
    is meant.
    """
    file, track_id = split_file_ref(ref)
    if track_id is not None and not os.path.exists(file) and ref.lower().endswith(".map") and os.path.isfile(ref):
        return ref, None
    return file, track_id


def canonical_ref(ref: str) -> str:
    """The reference as replays and cup files store it: a typed file reference escaped (see module doc)."""
    if not is_file_ref(ref):
        return ref
    file, track_id = typed_file_ref(ref)
    return file_ref(file, track_id)


def ref_stem(ref: str) -> str:
    """A short readable name for a reference: the file's stem (and the track id), for labels and file names."""
    if not is_file_ref(ref):
        return ref
    file, track_id = split_file_ref(ref)
    stem = Path(file).stem
    return f"{stem}-{track_id}" if track_id is not None else stem


__all__ = ["canonical_ref", "escape_path", "file_ref", "is_file_ref", "ref_stem", "split_file_ref",
           "typed_file_ref", "unescape_path"]
