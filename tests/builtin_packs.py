"""The built-in packs, read once for the whole test run.

Several test files check every built-in track, and reading the outline packs takes
seconds: they share one reading here (no test changes a track). Test parameters are made
from the ``[[track]]`` ids of the pack files alone, so collecting the tests reads and
validates no pack; a track that fails to load fails its own tests, naming it.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

from game.paths import builtin_tracks_dir
from game.tracks.pack import load_pack


def pack_paths() -> list[Path]:
    """The built-in pack files, by name."""
    return sorted(builtin_tracks_dir().glob("*.toml"))


@lru_cache(maxsize=None)
def loaded(path: Path):
    """``load_pack(path)``, read once (the result, problems and all, is shared by every caller)."""
    return load_pack(path)


def track_refs() -> list[str]:
    """``pack/track`` of every built-in track in pack order, from the pack files' ids (nothing validated)."""
    refs = []
    for path in pack_paths():
        with path.open("rb") as file:
            document = tomllib.load(file)
        refs += [f"{path.stem}/{entry.get('id')}" for entry in document.get("track", [])]
    return refs


def builtin_tracks() -> tuple:
    """``(pack, track)`` of every built-in track that loads, in pack order."""
    return tuple((path.stem, track) for path in pack_paths() for track in loaded(path).tracks)


def builtin_track(ref: str):
    """The built-in track ``pack/track``, from the shared reading."""
    pack, _, track_id = ref.partition("/")
    track = next((t for name, t in builtin_tracks() if name == pack and t.id == track_id), None)
    assert track is not None, f"{ref} does not load: {[str(p) for p in loaded(builtin_tracks_dir() / f'{pack}.toml').errors]}"
    return track
