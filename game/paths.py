"""Where Racetrack finds its own files; every path is computed on request, never at import."""

from __future__ import annotations

from pathlib import Path


def project_root() -> Path:
    """The checkout the game runs from (the folder holding ``game/``, ``tracks/``, ``assets/``)."""
    return Path(__file__).resolve().parent.parent


def builtin_tracks_dir() -> Path:
    return project_root() / "tracks"


def assets_dir() -> Path:
    return project_root() / "assets"
