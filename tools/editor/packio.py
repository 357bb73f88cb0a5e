"""Opening a track of a level pack (even a broken one) and saving a track into a pack file.

Saving keeps every other ``[[track]]`` of the pack as it was in the file (also broken
ones: the editor does not drop a modder's work because it cannot read it), replaces the
edited track's table or appends it, and writes the file atomically. The format is the
one :func:`game.tracks.write_pack` writes (``docs/level-packs.md``).

Nothing a modder wrote is lost: saving into a pack the game did not write (a hand-written
one, whose comments and layout a rewrite cannot keep) first keeps the file as it was
beside it (``NAME.toml.before-edit``, numbered if that exists), once per contents; a
file that is not a level pack at all is never written into.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from game.core.errors import RacetrackError
from game.files import LIMITS, DataError, WouldReplace, parse_toml, read_text, shown, write_new_or_own
from game.tracks import load_pack
from game.tracks.refs import split_file_ref
from game.tracks.pack import FORMAT, GAME_PACK_MARKERS, pack_file_text

#: What the copy of a hand-written pack is called before the editor first rewrites it.
BEFORE_EDIT = ".before-edit"

from .doc import TrackDoc, doc_from_table


class SaveError(RacetrackError):
    """The track could not be written (unreadable pack, duplicate id, disk error); the message says which."""


@dataclass
class Opened:
    """What opening a reference gave: the document (None if nothing usable) and notes for the panel."""

    path: Path | None
    doc: TrackDoc | None
    pack_head: dict[str, str]
    notes: list[str] = field(default_factory=list)
    track_ids: list[str] = field(default_factory=list)


def parse_ref(ref: str, builtin_dir: Path) -> tuple[Path, str | None]:
    """``pack.toml#TRACK``, ``pack.toml`` (its first track) or ``PACK/TRACK`` (a built-in pack)."""
    if "#" in ref:  # a stored reference escapes # and % in names (game.tracks.refs); a typed one may not
        raw, _, track_id = ref.rpartition("#")
        file, _ = split_file_ref(ref)
        if not Path(file).exists() and Path(raw).exists():
            file = raw
        return Path(file), track_id or None
    if ref.endswith(".toml"):
        return Path(ref), None
    if ref.count("/") == 1:
        pack_id, _, track_id = ref.partition("/")
        return builtin_dir / f"{pack_id}.toml", track_id or None
    return Path(ref), None


def default_head(path: Path) -> dict[str, str]:
    """The ``[pack]`` table of a new pack file, named after the file."""
    stem = re.sub(r"[^A-Za-z0-9_.-]", "-", path.stem).strip("-.") or "my-pack"
    if not stem[0].isalnum():
        stem = "p" + stem
    return {"id": stem, "name": stem.replace("-", " ").replace("_", " ").title()}


def open_track(ref: str, builtin_dir: Path) -> Opened:
    """Open one track for editing. Never raises for bad input: problems become ``notes``."""
    path, track_id = parse_ref(ref, builtin_dir)
    if not path.is_file():
        return Opened(path, None, default_head(path), [f"{path}: no such pack file"])
    result = load_pack(path)
    # The track's own problems show in the live check; the notes keep what is about the pack.
    notes = [str(p) for p in result.problems if p.track is None]
    try:
        data = parse_toml(read_text(path, limit=LIMITS["pack"]))
    except (OSError, DataError):
        return Opened(path, None, default_head(path), notes or [f"{path}: cannot read the pack"])
    head = data.get("pack") if isinstance(data.get("pack"), dict) else {}
    head = {k: v for k, v in head.items() if isinstance(v, str)} or default_head(path)
    tables = [t for t in data.get("track", []) if isinstance(t, dict)] if isinstance(data.get("track"), list) else []
    ids = [str(t.get("id", f"#{i + 1}")) for i, t in enumerate(tables)]
    if not tables:
        return Opened(path, None, head, notes or [f"{path}: the pack has no [[track]] tables"], ids)
    if track_id is None:
        index = 0
    elif track_id in ids:
        index = ids.index(track_id)
    else:
        return Opened(path, None, head, notes + [f"{path}: no track {track_id!r} (tracks: {', '.join(ids)})"], ids)
    doc, doc_notes = doc_from_table(tables[index])
    return Opened(path, doc, head, notes + [f"{path}: [track \"{doc.id}\"] {n}" for n in doc_notes], ids)


def pack_text(doc: TrackDoc, head: dict[str, str], par: int | None = None) -> str:
    """The TOML text of a pack holding just this track (what the live validation reads)."""
    return tomli_w.dumps({"format": FORMAT, "pack": dict(head), "track": [doc.table(par)]}, multiline_strings=True)


def save_track(doc: TrackDoc, path: Path, par: int | None = None, replace_id: str | None = None) -> str:
    """Write the track into the pack at ``path`` (created if missing); returns what was done.

    The table whose id is ``replace_id`` (the id the track was opened with; by default the
    track's own id) is replaced; otherwise the track is appended. A pack the game did not
    write is first kept as it was (``NAME.toml.before-edit``); a file that is not a pack
    is refused.
    """
    path = Path(path)
    data: dict[str, Any]
    kept = None
    if path.exists():
        try:
            data = parse_toml(read_text(path, limit=LIMITS["pack"]))
        except OSError as exc:
            raise SaveError(f"{path}: cannot read the pack to save into it: {exc.strerror or exc}") from None
        except DataError as exc:
            where = f" (line {exc.line})" if exc.line else ""
            raise SaveError(f"{path}: the pack has a TOML syntax error{where}: {exc.problem}; fix it in a text "
                            "editor or save as another file (Ctrl+Shift+S)") from None
        if data and not ({"pack", "track", "format"} & set(data)):
            raise SaveError(f"{path}: this file is not a level pack (no [pack], [[track]] or format); "
                            "save as another file (Ctrl+Shift+S)")
    else:
        data = {"format": FORMAT, "pack": default_head(path), "track": []}
    tracks = data.get("track", [])
    if not isinstance(tracks, list):
        raise SaveError(f"{path}: 'track' is not a list of [[track]] tables; cannot save into it")
    table = doc.table(par)
    old = replace_id or doc.id
    ids = [t.get("id") if isinstance(t, dict) else None for t in tracks]
    if doc.id != old and doc.id in ids:
        raise SaveError(f"{path}: the pack already has a track {doc.id!r}; choose another id (F2)")
    if old in ids:
        tracks[ids.index(old)] = table
        done = f"saved track {doc.id!r} into {path}"
    else:
        tracks.append(table)
        done = f"added track {doc.id!r} to {path}"
    data["track"] = tracks
    data.setdefault("format", FORMAT)
    data.setdefault("pack", default_head(path))
    text = pack_file_text(data)
    # The game's one write rule: whole or nothing (a crash never leaves half a pack), the
    # file's mode kept, and a pack the game did not write kept as NAME.toml.before-edit first.
    try:
        kept = write_new_or_own(path, text, marker=GAME_PACK_MARKERS, keep_foreign=True, aside=BEFORE_EDIT,
                                make_folder=True)
    except WouldReplace as exc:
        raise SaveError(f"{exc}; save as another file (Ctrl+Shift+S)") from None
    except OSError as exc:
        raise SaveError(f"{shown(path)}: cannot write the pack (or keep a copy of it before rewriting it): "
                        f"{exc.strerror or exc}") from None
    if kept is not None:
        done += f" (the file as you wrote it is kept as {kept.name})"
    return done
