"""What every test module is checked for on its way out.

Gamepads: a module that started pygame must leave SDL's gamepad state so that a newly plugged
virtual pad still reaches the game (``tests/vgamepad.pads_reach_the_game``). A module that
breaks it fails here, under its own name; before this check the breakage showed up files later,
as pads that never reached the lobby (test_seats_follow_devices) or a time trial's menu walk
that never ended (test_trial).
"""
from __future__ import annotations

import sys

import pytest


@pytest.fixture(autouse=True, scope="module")
def gamepads_still_reach_the_game(request):
    yield
    pygame = sys.modules.get("pygame")
    if pygame is None or not (pygame.display.get_init() and pygame.joystick.get_init()):
        return  # pygame never started here (or was closed): nothing a later module inherits
    from tests.vgamepad import pads_reach_the_game

    problem = pads_reach_the_game()
    if problem:
        pytest.fail(f"after {request.node.nodeid} a virtual gamepad no longer reaches the game: {problem}",
                    pytrace=False)
