"""The first start, as the players see it: what a waiting CPU says, the title screen's note,
and the head start the CPUs' table gets while the race counts down (headless)."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
import pytest

from game.core import RaceState, preset
from game.drivers.compiling import KernelStatus
from game.presentation.app import init_pygame
from game.presentation.race_scene import RaceScene, RaceSettings
from game.race.controller import RaceController, Seat
from game.tracks.charmap import track_from_charmap

SPRINT = """
XXXXXXXXXXXXXXXXXX
XSOOOOOOOOXXXXXXXX
XSOOOOOOOOOOOXXXXX
XXXXXXXOOOOOOOOFFX
XXXXXXXXXXXOOOOFFX
XXXXXXXXXXXXXXXXXX
"""


class Silent:
    """A planner whose CPUs never answer (they are still thinking)."""

    def request(self, *args) -> None:
        pass

    def poll(self, key):
        return None

    def cancel(self) -> None:
        pass


class Compiling:
    """A kernel source stand-in whose status is given."""

    def __init__(self, stage: str, progress: float = 0.0) -> None:
        self.status = KernelStatus(stage, progress)


@pytest.fixture(scope="module")
def screen():
    init_pygame(headless=True)
    return pygame.display.set_mode((960, 540))


def _cpu_race(note):
    from game.drivers.cpu import make_driver

    state = RaceState.start(track_from_charmap(SPRINT, id="sprint"), preset("paper"), ["CPU 1", "CPU 2"], seed=1)
    ctl = RaceController(state, [Seat(n, make_driver("cpu:pro")) for n in ("CPU 1", "CPU 2")], planner=Silent())
    return RaceScene(ctl, (960, 540), settings=RaceSettings(intro=False, camera_drift=False), cpu_status=note)


def test_a_cpu_waiting_for_its_kernels_says_so_with_progress_instead_of_thinking(screen):
    scene = _cpu_race(lambda: KernelStatus("compiling", 0.4).message())
    scene.update(0.016)
    scene.draw(screen)
    assert scene._prompt() == "Preparing the CPU drivers, first start only: 40%"
    markers = [line.marker for line in scene._lines()]
    assert "preparing..." in markers and "thinking..." not in markers


def test_once_the_kernels_are_ready_a_waiting_cpu_is_thinking_again(screen):
    scene = _cpu_race(lambda: KernelStatus("ready").message())
    scene.update(0.016)
    assert scene._prompt().endswith("is thinking...")
    assert "thinking..." in [line.marker for line in scene._lines()]


def test_the_title_screen_says_the_cpus_are_being_prepared(screen, tmp_path):
    from game import paths
    from game.presentation.menus import build_context, build_title_scene

    ctx = build_context(tmp_path / "config", None, paths.builtin_tracks_dir())
    ctx.kernels = Compiling("compiling", 0.25)
    assert ctx.cpu_note() == "preparing the CPU drivers, first start only: 25%"
    title = build_title_scene(ctx)
    surface = pygame.Surface((960, 540))
    title.draw(surface)  # draws the note (and nothing breaks)
    ctx.kernels = Compiling("ready")
    assert ctx.cpu_note() == ""


def test_the_cpus_table_is_built_while_the_race_counts_down():
    from game.drivers.cpu import make_shared
    from game.race.headstart import build_table_early

    shared = make_shared()
    state = RaceState.start(track_from_charmap(SPRINT, id="sprint"), preset("paper"), ["a", "b"], seed=1)
    thread = build_table_early(shared, state)
    thread.join(120)
    assert shared.last_table is not None and shared.last_table[3].track is state.track
    flick = RaceState.start(state.track, preset("paper").with_options(movement="flick"), ["a"], seed=1)
    assert build_table_early(shared, flick) is None  # no table for the party mode


def test_on_a_first_start_the_cpus_table_is_begun_on_the_rules_screen(tmp_path):
    """While the kernels are being prepared the race being set up gets its table the moment they are ready."""
    import time
    from types import SimpleNamespace

    from game import paths
    from game.drivers.cpu import make_shared
    from game.presentation.menus import build_context
    from game.presentation.menus.rules_menu import RulesScene
    from game.presentation.menus.seats import SeatSpec
    from game.tracks import load_track_ref

    ctx = build_context(tmp_path / "config", None, paths.builtin_tracks_dir())
    ctx.kernels = Compiling("compiling", 0.1)
    ctx._shared = shared = make_shared()  # (the compiled kernels here: this checks when the table is built)
    entry = SimpleNamespace(track=load_track_ref("starter/first-sprint", builtin_dir=paths.builtin_tracks_dir()))
    players = [SeatSpec("Player 1", 0, 0, "human", "kb1")]
    RulesScene(ctx, lineup=players, entry=entry)
    assert ctx._prepared is None  # nobody needs a CPU table
    lineup = players + [SeatSpec("Pro", 1, 1, "cpu:pro")]
    rules = RulesScene(ctx, lineup=lineup, entry=entry).rules
    laps = entry.track.default_laps
    deadline = time.monotonic() + 120
    while not shared.solver._tables and time.monotonic() < deadline:
        time.sleep(0.01)
    with shared.lock:  # (the preparing thread holds it until the table is kept)
        (prepared,) = shared.solver._tables.values()
    assert prepared.track is entry.track and prepared.rules == rules and prepared.laps == laps
    state = RaceState.start(entry.track, rules, ["Player 1", "Pro"], laps=laps, seed=1)
    assert shared.table(state) is prepared  # the race finds it: its CPUs need not wait for a search
    assert ctx.prepare_cpu_table(entry.track, rules, laps) is None  # not twice alike
    ctx.kernels = Compiling("ready")
    other = preset("paper").with_options(movement="cross")
    assert ctx.prepare_cpu_table(entry.track, other, laps) is None  # ready kernels take a blink: nothing to begin


# -- no display, no noise --------------------------------------------------------
def _without_display() -> dict:
    import sys

    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER", "SDL_AUDIODRIVER", "PYTHONPATH")}
    env["PYTHONPATH"] = str(__import__("pathlib").Path(__file__).resolve().parent.parent)
    if not sys.platform.startswith("linux"):
        pytest.skip("only Linux can be kept from its display by the environment")
    return env


def test_without_a_display_the_game_says_so_in_one_line_and_exits_with_status_1(tmp_path):
    import subprocess
    import sys

    for args in (["play", "--frames", "3", "--home", str(tmp_path)],
                 ["play", "--track", "starter/first-sprint", "--cars", "cpu", "--frames", "3"]):
        done = subprocess.run([sys.executable, "-m", "game", *args], capture_output=True, text=True,
                              env=_without_display(), cwd=tmp_path, timeout=120)
        assert done.returncode == 1
        assert done.stdout == ""
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("racetrack: no display"), done.stderr
        assert "racetrack sim" in lines[0]


def test_opening_the_sound_device_prints_nothing_even_without_a_sound_card(tmp_path):
    import subprocess
    import sys

    code = ("import pygame\n"
            "from game import paths\n"
            "from game.presentation.audio import Audio\n"
            "audio = Audio.start(paths.sounds_dir())\n"
            "print(audio.silent or 'sound')\n")
    env = _without_display()
    env["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert len(done.stdout.splitlines()) == 1


def test_native_output_is_kept_off_standard_error_only_while_asked(capfd):
    from game.presentation.native import quiet_native_output

    with quiet_native_output():
        os.write(2, b"ALSA lib noise\n")
    os.write(2, b"a real problem\n")
    assert capfd.readouterr().err == "a real problem\n"
