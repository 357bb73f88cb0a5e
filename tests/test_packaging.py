"""The game as it ships: a wheel and an sdist built from this checkout, installed into a fresh
virtual environment and run from a folder that has nothing of the checkout in it.

An editable install hides missing package data (it reads the checkout), so this test
builds the real artefacts. To stay fast and offline it builds without build isolation
(the test extras bring setuptools) and the fresh environment borrows the dependencies
already installed here (numpy, numba, pygame-ce...) through a ``.pth`` file, while the
``game`` package it imports is the wheel's own: every check asserts on ``game.__file__``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: What a build needs from the checkout (copied, so building never writes into the checkout).
SOURCES = ("game", "tracks", "assets", "docs", "tests", "tools", ".ci", "setup.py", "pyproject.toml", "README.md",
           "LICENSE", "MANIFEST.in")
JUNK = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist", ".pytest_cache", ".hypothesis")
#: Modules the game needs that the fresh environment borrows from this one.
DEPENDENCIES = ("numpy", "numba", "llvmlite", "pygame", "tomli_w", "platformdirs", "pip")

pytestmark = pytest.mark.slow


def _run(args, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=600, **kwargs)
    assert done.returncode == 0, f"{args} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done


def _setuptools_is_recent() -> bool:
    """Whether this environment can build offline (setuptools 70.1 builds wheels without the wheel package)."""
    from importlib import metadata

    try:
        version = metadata.version("setuptools")
    except metadata.PackageNotFoundError:
        return False
    major, minor = (int(part) for part in version.split(".")[:2])
    return (major, minor) >= (70, 1)


def _data_files(folder: Path) -> set[str]:
    """Files under ``folder`` relative to it, without caches."""
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(source copy, wheel, sdist) built from a copy of the checkout."""
    work = tmp_path_factory.mktemp("packaging")
    src = work / "src"
    src.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=JUNK)
        elif path.exists():
            shutil.copy2(path, src / name)
    isolation = [] if _setuptools_is_recent() else ["--use-pep517"]  # without setuptools here: fetch it
    offline = ["--no-build-isolation"] if not isolation else []
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", *offline, *isolation, "-q", "-w", work / "dist", src])
    wheel = next((work / "dist").glob("racetrack-*.whl"))
    sdist = None
    if _setuptools_is_recent():
        _run([sys.executable, "-c", "import sys; from setuptools import build_meta; build_meta.build_sdist(sys.argv[1])",
              work / "sdist"], cwd=src)
        sdist = next((work / "sdist").glob("racetrack-*.tar.gz"))
    return src, wheel, sdist


@pytest.fixture(scope="module")
def venv(built, tmp_path_factory):
    """A fresh virtual environment with the wheel installed (its dependencies borrowed from here)."""
    _, wheel, _ = built
    home = tmp_path_factory.mktemp("venv")
    env_dir = home / "env"
    _run([sys.executable, "-m", "venv", "--without-pip", env_dir])
    python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    borrowed = []
    for name in DEPENDENCIES:
        spec = importlib.util.find_spec(name)  # found, not imported
        folder = str(Path(spec.origin).resolve().parent.parent)
        if folder not in borrowed:
            borrowed.append(folder)
    (site / "_borrowed_dependencies.pth").write_text("\n".join(borrowed) + "\n")
    _run([python, "-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed", "-q", wheel],
         env=_clean_env(home))
    return python, site, home


def _clean_env(home: Path) -> dict[str, str]:
    """No checkout on the path, headless SDL, a private numba cache and config folder."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1",
               NUMBA_CACHE_DIR=str(home / "numba-cache"), HOME=str(home), XDG_CONFIG_HOME=str(home / "config"),
               XDG_DATA_HOME=str(home / "data"), XDG_CACHE_HOME=str(home / "cache"))
    return env


def _in_venv(venv, code: str) -> str:
    python, _, home = venv
    elsewhere = home / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    return _run([python, "-c", code], cwd=elsewhere, env=_clean_env(home)).stdout


def test_the_wheel_carries_every_track_sound_and_module(built):
    _, wheel, _ = built
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder, inside in (("tracks", "game/data/tracks"), ("assets", "game/data/assets")):
        expected = _data_files(ROOT / folder)
        assert expected, f"{folder}/ is empty in the checkout"
        missing = sorted(f for f in expected if f"{inside}/{f}" not in names)
        assert not missing, f"the wheel lacks these files of {folder}/: {missing}"
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "game").rglob("*.py") if "__pycache__" not in p.parts}
    assert not sorted(modules - names), "modules missing from the wheel"
    assert any(n.endswith("entry_points.txt") for n in names)


def test_the_sdist_builds_a_wheel_with_the_same_files(built, tmp_path):
    src, wheel, sdist = built
    if sdist is None:
        pytest.skip("setuptools>=70.1 (a test extra) is needed to build the sdist offline")
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path, filter="data")
    unpacked = next(tmp_path.glob("racetrack-*"))
    for folder in ("tracks", "assets", "game", "tests", "docs"):
        assert _data_files(src / folder) <= _data_files(unpacked / folder), f"the sdist lacks part of {folder}/"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", tmp_path / "dist",
          unpacked])
    again = next((tmp_path / "dist").glob("racetrack-*.whl"))
    ours = {n for n in zipfile.ZipFile(wheel).namelist() if not n.startswith("racetrack-")}
    theirs = {n for n in zipfile.ZipFile(again).namelist() if not n.startswith("racetrack-")}
    assert ours == theirs


def test_the_installed_game_is_the_wheel_not_the_checkout(venv):
    _, site, _ = venv
    where = _in_venv(venv, "import game, game.paths as p; print(game.__file__); print(p.builtin_tracks_dir())")
    module, tracks = (Path(line) for line in where.split())
    assert module.is_relative_to(site) and tracks.is_relative_to(site)
    assert not module.is_relative_to(ROOT)


def test_the_installed_game_loads_every_built_in_pack(venv):
    """``racetrack validate`` with no paths loads every built-in pack and checks every sound."""
    python, site, home = venv
    done = _run([python.parent / "racetrack", "validate"], cwd=home, env=_clean_env(home))
    packs = len(list((ROOT / "tracks").glob("*.toml")))
    assert f"{packs} file(s)" in done.stdout and "0 problem(s)" in done.stdout, done.stdout
    assert str(site) in done.stdout  # it checked the installed copy


def test_the_installed_game_races_headless_from_another_folder(venv):
    python, _, home = venv
    done = _run([python.parent / "racetrack", "sim", "--track", "starter/first-sprint", "--cars", "cpu:pro",
                 "--json"], cwd=home, env=_clean_env(home))
    import json

    outcome = json.loads(done.stdout)
    assert outcome["cars"][0]["status"] == "finished"
    again = _run([python, "-m", "game", "sim", "--track", "starter/first-sprint", "--cars", "cpu:rookie"],
                 cwd=home, env=_clean_env(home))
    assert "Rookie" in again.stdout


def test_the_installed_game_plays_its_sounds_on_the_dummy_driver(venv):
    out = _in_venv(venv, "import pygame\n"
                         "from game import paths\n"
                         "from game.presentation.audio import Audio\n"
                         "audio = Audio.start(paths.sounds_dir())\n"
                         "assert not audio.silent and not audio.problems, (audio.silent, audio.problems)\n"
                         "audio.play('fanfare')\n"
                         "print(sorted(audio.sounds), pygame.mixer.get_busy())\n")
    assert "'fanfare'" in out and "True" in out


def test_a_damaged_or_missing_built_in_file_is_named_by_validate_and_the_game_still_starts(venv):
    python, site, home = venv
    data = site / "game" / "data"
    pack, sound = data / "tracks" / "classics.toml", data / "assets" / "sounds" / "tick.wav"
    kept = {path: path.read_bytes() for path in (pack, sound)}
    try:
        pack.unlink()
        sound.write_bytes(b"RIFF\x00\x00")
        done = subprocess.run([str(python.parent / "racetrack"), "validate"], cwd=home, env=_clean_env(home),
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 1
        assert f"{pack}: missing" in done.stdout and f"{sound}: damaged" in done.stdout, done.stdout
        started = subprocess.run([str(python.parent / "racetrack"), "play", "--frames", "3", "--headless",
                                  "--home", str(home / "player")], cwd=home, env=_clean_env(home),
                                 capture_output=True, text=True, timeout=300)
        assert started.returncode == 0, started.stderr
    finally:
        for path, content in kept.items():
            path.write_bytes(content)
