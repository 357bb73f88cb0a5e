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
"""
from __future__ import annotations

import os
import sys
import threading

import pytest


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
