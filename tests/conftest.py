"""What every test module is checked for on its way out.

Gamepads: a module that started pygame must leave SDL's gamepad state so that a newly plugged
virtual pad still reaches the game (``tests/vgamepad.pads_reach_the_game``). A module that
breaks it fails here, under its own name; before this check the breakage showed up files later,
as pads that never reached the lobby (test_seats_follow_devices) or a time trial's menu walk
that never ended (test_trial). (The breakage it found: pygame-ce's ``pygame.quit()``, which the
quick race calls on its way out, left SDL's game-controller subsystem running from the second
quit on, and pads plugged after the next start never reached the game; the game now quits
through ``app.quit_pygame``, see tests/test_pads_after_restart.py.)

Background workers: a module's game contexts, races and pack readers start threads (pack
reading, pars, previews, CPU planners) that the game stops on its way out. Tests rarely quit the
game, so every worker thread a module started is closed when the module ends: otherwise they
pile up over the suite (68 threads by test_phones_game) with everything they hold, and the
garbage collector's passes over that heap lengthen later tests' frames.

Workers: with ``SPREAD_WHOLE_SUITE`` on, a run of the whole suite (``python -m pytest``, or folders
named) spreads its test files over one pytest-xdist worker per core (at most four); ``-n N`` always
does, a whole file to a worker (``--dist loadfile``: a module's shared fixtures are made once, and
its tests keep their order). A run that
names files or tests stays in this process, as do ``-n 0``, ``-p no:xdist``, ``--pdb`` and a one-core machine;
``-n N`` or ``--dist`` given on the command line are taken as they are.
"""
from __future__ import annotations

import os
import sys
import threading

import pytest

#: The most workers a whole-suite run starts by itself: past four the suite's longest files bound the run.
MOST_WORKERS = 4
#: On: a whole-suite run spreads over the cores. (It was off while test_layout's F11 case on track select
#: failed after other files in the same worker: a checkpoint number drawn on a paper tile it did not reach,
#: fixed in game/presentation/paper.py.)
SPREAD_WHOLE_SUITE = True


def _usable_cores() -> int:
    """How many cores this process may run on (its affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _names_files_or_tests(config) -> bool:
    """Whether the command line names test files or tests rather than folders (or nothing)."""
    for arg in config.option.file_or_dir or ():
        path = arg.split("::")[0]
        if "::" in arg or not os.path.isdir(os.path.join(config.invocation_params.dir, path)):
            return True
    return False


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """Spread a whole-suite run over the cores (runs before pytest-xdist reads ``-n`` and ``--dist``)."""
    if not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput"):
        return  # xdist blocked (``-p no:xdist``) or not installed, or this is a worker itself
    debugging = config.getoption("usepdb", False) or config.getoption("trace", False)
    if SPREAD_WHOLE_SUITE and config.option.numprocesses is None and config.option.dist == "no" and not debugging \
            and not _names_files_or_tests(config):
        cores = min(_usable_cores(), MOST_WORKERS)
        if cores > 1:
            config.option.numprocesses = cores
    if config.option.numprocesses and config.option.dist == "no":
        config.option.dist = "loadfile"  # ``-n N`` alone: whole files to a worker too


def pytest_configure(config):
    """Hypothesis judges what the tests' inputs do, never how fast this machine made them.

    Its deadline (200 ms a example) and its too-slow health check time the machine: with the suite
    spread over every core and other work beside it, a first example that imports a module or a
    busy moment failed tests whose behaviour was right (test_coaching's stopping-distance property
    "generated 2 valid inputs after 1.46 seconds" in a loaded run). How fast things are is for the
    tools/ benchmarks. Tests still set their own example counts; ``--hypothesis-profile`` wins.
    """
    from hypothesis import HealthCheck, settings

    settings.register_profile("racetrack", deadline=None, suppress_health_check=[HealthCheck.too_slow])
    if not config.getoption("hypothesis_profile", None):
        settings.load_profile("racetrack")


@pytest.fixture(autouse=True, scope="module")
def gamepads_still_reach_the_game(request):
    yield
    if os.environ.get("RACETRACK_PAD_CHECK") == "0":
        return  # asked to skip it (a module being bisected on its own)
    pygame = sys.modules.get("pygame")
    if pygame is None or not (pygame.display.get_init() and pygame.joystick.get_init()):
        return  # pygame never started here (or was closed): nothing a later module inherits
    from tests.vgamepad import pads_reach_the_game

    problem = pads_reach_the_game()
    if problem:
        pytest.fail(f"after {request.node.nodeid} a virtual gamepad no longer reaches the game: {problem}",
                    pytrace=False)


@pytest.fixture(autouse=True, scope="module")
def background_workers_closed():
    before = set(threading.enumerate())
    yield
    for thread in set(threading.enumerate()) - before:
        # A worker thread runs its owner's bound method (``self._work``); the owner knows how to
        # stop it (``close``, never waiting). ``_target`` is the Thread's own record of it.
        owner = getattr(getattr(thread, "_target", None), "__self__", None)
        close = getattr(owner, "close", None)
        if callable(close):
            close()
