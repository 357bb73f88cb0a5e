"""What an install of Racetrack must hold, and what is wrong with the one running.

The built-in level packs and the sound files ship with the package (see
:mod:`game.paths`). A damaged or missing one must not stop the game: the title screen
and ``racetrack validate`` (with no paths) list each problem with its file, and the
game goes on without that pack or that sound.

What "missing" means: an installed wheel or sdist lists every file it installed in its
``RECORD``; a file listed there but gone from the disk is missing. A checkout (or an
editable install) has no such list; there the sound names below and "at least one
pack" are what is expected.
"""

from __future__ import annotations

import wave
from importlib import metadata
from pathlib import Path

from game import paths

DISTRIBUTION = "racetrack"
#: Every sound the game plays (``<name>.wav``, or variants ``<name>1.wav``, ``<name>2.wav``...).
SOUND_NAMES = ("back", "confirm", "crash", "fanfare", "join", "scratch", "tick")


def recorded_data_files() -> list[Path]:
    """The built-in data files this install's ``RECORD`` lists (empty in a checkout).

    Only trusted when the distribution found is the one whose ``game`` package is
    running (an environment may hold another install of Racetrack as well).
    """
    installed = paths.installed_data_dir()
    if installed is None:
        return []
    try:
        dist = metadata.distribution(DISTRIBUTION)
        files = dist.files or []
    except metadata.PackageNotFoundError:
        return []
    prefix = f"game/{paths.DATA_PACKAGE_DIR}/"
    found = [Path(dist.locate_file(f)) for f in files if str(f).replace("\\", "/").startswith(prefix)]
    if not found or not any(p.resolve().is_relative_to(installed.resolve()) for p in found):
        return []
    return found


def sound_problems(folder: Path | None = None) -> list[str]:
    """Missing and unreadable sound files, each named by its path (empty when all are fine)."""
    folder = paths.sounds_dir() if folder is None else Path(folder)
    if not folder.is_dir():
        return [f"{folder}: the sound folder is missing (the game stays silent)"]
    problems = []
    files = sorted(folder.glob("*.wav"))
    for name in SOUND_NAMES:
        variants = [p for p in files if p.stem.rstrip("0123456789") == name]
        if not variants:
            problems.append(f"{folder / (name + '.wav')}: missing (that sound stays silent)")
    for path in files:
        problem = _wav_problem(path)
        if problem:
            problems.append(f"{path}: {problem}")
    return problems


def _wav_problem(path: Path) -> str:
    """Why a ``.wav`` file cannot be played ("" when it can)."""
    try:
        with wave.open(str(path), "rb") as sound:
            if sound.getnframes() <= 0:
                return "holds no sound"
            sound.readframes(min(16, sound.getnframes()))
    except (wave.Error, EOFError, OSError) as error:
        return f"damaged ({error or 'cannot be read'})"
    return ""


def music_problems(path: Path | None = None) -> list[str]:
    """What is wrong with the music loop's file (empty when it looks playable).

    The loop is IMA ADPCM, which the ``wave`` module cannot read: only its header is checked.
    """
    path = paths.music_file() if path is None else Path(path)
    if not path.is_file():
        return [f"{path}: missing (the game plays without music)"]
    try:
        with open(path, "rb") as file:
            head = file.read(64)
    except OSError as error:
        return [f"{path}: cannot be read ({error.strerror or error})"]
    fmt = head.find(b"fmt ")
    if head[:4] != b"RIFF" or head[8:12] != b"WAVE" or fmt < 0 or len(head) < fmt + 10 \
            or int.from_bytes(head[fmt + 8:fmt + 10], "little") not in (0x1, 0x11) or b"data" not in head:
        return [f"{path}: damaged (not a PCM or IMA ADPCM .wav file; the game plays without music)"]
    return []


def pack_problems(results, folder: Path | None = None) -> list[str]:
    """What is wrong with the built-in packs, given what loading ``folder`` gave (``load_packs`` results)."""
    folder = paths.builtin_tracks_dir() if folder is None else Path(folder)
    if not folder.is_dir():
        return [f"{folder}: the built-in tracks folder is missing"]
    problems = []
    for result in results:
        problems += [str(p) for p in result.problems if p.is_error]
    if not any(result.tracks for result in results):
        problems.append(f"{folder}: no built-in track could be loaded")
    return problems


def missing_files() -> list[str]:
    """Built-in data files the install's ``RECORD`` lists but the disk no longer has."""
    return [f"{path}: missing (it came with the install)" for path in recorded_data_files() if not path.is_file()]


def check_install(results=None) -> list[str]:
    """Every problem with the running install's built-in packs, sounds and music, one line each.

    ``results`` are the built-in packs as already loaded (``load_packs`` of
    :func:`game.paths.builtin_tracks_dir`); they are loaded here when not given.
    """
    if results is None:
        from game.tracks import load_packs

        results = load_packs([paths.builtin_tracks_dir()])
    problems = missing_files()
    problems += [p for p in pack_problems(results) if p not in problems]
    problems += [p for p in sound_problems() + music_problems()
                 if not any(p.startswith(m.split(": ")[0]) for m in problems)]
    return problems
