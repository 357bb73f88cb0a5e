"""Short commands start without the solver, and one solving run leaves numba's cache complete (issue 28)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from game.drivers import compiling

ROOT = Path(__file__).resolve().parent.parent

#: Runs a command in a fresh interpreter, then prints its exit status and which heavy modules it imported.
_PROBE = ("import io, sys, contextlib; from game.cli import main\n"
          "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
          "    try:\n        status = main(sys.argv[1:])\n    except SystemExit as stop:\n        status = stop.code\n"
          "heavy = ('numba', 'llvmlite', 'numpy', 'game.drivers.kernels', 'game.drivers.solver', 'pygame')\n"
          "print(status, ' '.join(sorted(m for m in heavy if m in sys.modules)) or '-')\n")


def _imported_by(*argv: str) -> str:
    """The heavy modules ``racetrack ARGV`` imported ('-' for none), after checking it succeeded."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    status, imported = done.stdout.split(maxsplit=1)
    assert status in ("0", "None"), f"racetrack {' '.join(argv)} failed with status {status}"
    return imported.strip()


@pytest.mark.parametrize("argv", [("validate", "tracks/starter.toml"), ("solve", "--help"),
                                  ("render", "starter/first-sprint", "-o", "{tmp}/sprint.png", "--scale", "6")])
def test_a_command_that_runs_no_search_imports_neither_numba_nor_the_solver(argv, tmp_path):
    imported = _imported_by(*(a.format(tmp=tmp_path) for a in argv)).split()
    assert not {"numba", "llvmlite", "game.drivers.kernels", "game.drivers.solver"} & set(imported)
    assert ("pygame" in imported) == (argv[0] == "render")  # only drawing loads pygame


@pytest.mark.parametrize("argv", [("--help",), ("validate", "tests/golden/pack.toml"), ("validate", "tracks/classics.toml"),
                                  ("replay", "tests/golden/arcade-loop.replay.toml"),
                                  ("replay", "tests/golden/paper-loop.replay.toml"),
                                  ("replay", "tests/golden/karopapier-ring.replay.toml")])
def test_reading_and_refereeing_char_maps_imports_no_numpy(argv):
    """Char-map packs, .map files and their replays are checked with plain Python: numpy's import is a third
    of such a command's time (issue 28); outline tracks and the drivers still load it where arrays are made."""
    assert _imported_by(*argv) == "-"


@pytest.mark.parametrize("pack", ["tracks/starter.toml", "tracks/grand-prix.toml"])
def test_validating_outline_tracks_imports_no_numpy(pack):
    """An outline's road is filled and its course checked in plain Python (issue 28): the starter pack's
    and the Grand Prix's outlines are validated without numpy's import, and found sound."""
    assert _imported_by("validate", pack) == "-"


def test_a_rendered_picture_reads_back_pixel_for_pixel(tmp_path):
    """``render`` writes its PNG itself (faster than pygame's writer): a PNG reader gets the very pixels drawn."""
    from game.cli import main
    from game.commands.render import is_own_picture, load_track, render_picture

    out = tmp_path / "loop.png"
    assert main(["render", "tests/golden/pack.toml#loop", "-o", str(out), "--scale", "7"]) == 0
    drawn = render_picture(load_track("tests/golden/pack.toml#loop"), 7)
    import pygame

    read = pygame.image.load(str(out))
    assert read.get_size() == drawn.get_size()
    assert pygame.image.tobytes(read, "RGB") == pygame.image.tobytes(drawn, "RGB")
    assert is_own_picture(out)


def test_help_still_lists_every_command_with_its_line(capsys):
    from game.cli import SUBCOMMANDS, main

    with pytest.raises(SystemExit):
        main(["--help"])
    shown = " ".join(capsys.readouterr().out.split())
    for name, (_, line) in SUBCOMMANDS.items():
        assert name in shown and " ".join(line.split())[:40] in shown


def test_an_empty_cache_dir_has_no_marker_and_a_warm_up_leaves_one(tmp_path):
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    assert not compiling.marker_says_warm(env)
    compiling.write_marker(env)
    assert compiling.marker_says_warm(env)
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [compiling.marker_path(env).name]  # no stray temp


def test_a_changed_kernel_source_makes_the_marker_stale(tmp_path, monkeypatch):
    sources = []
    for path in compiling._kernel_sources():
        copy = tmp_path / path.name
        copy.write_bytes(path.read_bytes())
        sources.append(copy)
    monkeypatch.setattr(compiling, "_kernel_sources", lambda: sources)
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    compiling.write_marker(env)
    assert compiling.marker_says_warm(env)
    sources[0].write_text(sources[0].read_text() + "\n# a new rule\n")
    assert not compiling.marker_says_warm(env)


def test_a_torn_marker_reads_as_a_cold_cache(tmp_path):
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    compiling.write_marker(env)
    path = compiling.marker_path(env)
    path.write_text(path.read_text()[:10])
    assert not compiling.marker_says_warm(env)


@pytest.mark.slow
def test_one_solve_on_an_empty_cache_leaves_it_complete(tmp_path):
    """The real thing: a fresh numba cache, one ``racetrack solve``, then a warm-up that compiles nothing."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    solve = subprocess.run([sys.executable, "-m", "game", "solve", "starter/first-sprint"], capture_output=True,
                           text=True, cwd=ROOT, env=env, timeout=900)
    assert solve.returncode == 0, solve.stderr
    assert "compiling the solver" in solve.stderr
    assert compiling.marker_says_warm(env)
    probe = ("from numba.core import event\nfrom game.drivers import compiling\nfrom game.drivers.solver import warm_up\n"
             "heard = []\nlistener = compiling.compile_listener(lambda name, depth: heard.append(name))\n"
             "event.register('numba:compile', listener)\nwarm_up()\nprint(' '.join(heard) or '-')\n")
    again = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, env=env,
                           timeout=300)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "-"


@pytest.mark.parametrize("ref", ["starter/first-sprint", "starter/bean", "tests/golden/pack.toml#loop"])
def test_a_still_picture_shows_the_very_paper_a_screen_shows(ref):
    """``render`` draws each paper tile only where it shows on the picture (issue 28): the picture must be
    pixel for pixel what a sheet that draws whole tiles shows, at a size and place cutting tiles anywhere."""
    from game.commands.render import _init_headless, load_track
    from game.presentation.board import Board
    from game.presentation.camera import Camera
    from game.presentation.text import TextCache
    from game.presentation.theme import pens

    pygame = _init_headless()
    track = load_track(ref)
    pictures = []
    for still in (False, True):
        board = Board(track, pens(1), TextCache())
        board.sheet.still = still
        camera = Camera((333, 207), unit=board.unit)
        camera.drift_amount = 0.0
        camera.scale = camera.target_scale = 17.0
        camera.center = camera.target_center = (track.width / 2 - 0.37, track.height / 2 + 0.21)
        surface = pygame.Surface((333, 207))
        board.blit_layer(surface, camera)
        pictures.append(pygame.image.tobytes(surface, "RGB"))
    assert pictures[0] == pictures[1]
