"""Where Racetrack finds its own files; every path is computed on request, never at import.

The repository keeps the built-in level packs in ``tracks/`` and the sounds in
``assets/`` at its top level. An install carries them inside the package, as
``game/data/tracks`` and ``game/data/assets`` (``setup.py`` maps the two folders there),
so a wheel, an sdist or ``pip install .`` finds them through :mod:`importlib.resources`
from any working directory. An editable install or a plain checkout has no
``game/data``: there the folders next to ``game/`` are used.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

#: The sub-folder of the installed package that holds the built-in data.
DATA_PACKAGE_DIR = "data"


def project_root() -> Path:
    """The checkout the game runs from (the folder holding ``game/``, ``tracks/``, ``assets/``)."""
    return Path(__file__).resolve().parent.parent


def installed_data_dir() -> Path | None:
    """``game/data`` inside an installed package, or None in a checkout / editable install."""
    try:
        packaged = resources.files("game") / DATA_PACKAGE_DIR
    except (ModuleNotFoundError, TypeError):  # pragma: no cover - ``game`` is always importable here
        return None
    if not packaged.is_dir():
        return None
    return Path(str(packaged))  # a wheel installs as plain files (pip never installs zipped)


def _data_dir(name: str) -> Path:
    installed = installed_data_dir()
    if installed is not None:
        return installed / name
    return project_root() / name


def builtin_tracks_dir() -> Path:
    """The built-in level packs (``tracks/`` of the repository)."""
    return _data_dir("tracks")


def assets_dir() -> Path:
    """The game's assets folder (``assets/`` of the repository)."""
    return _data_dir("assets")


def sounds_dir() -> Path:
    """The sound effects (``assets/sounds``)."""
    return assets_dir() / "sounds"


def music_file() -> Path:
    """The music loop (``assets/music/loop.wav``)."""
    return assets_dir() / "music" / "loop.wav"
