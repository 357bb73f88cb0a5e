"""A game closed and started again in one process still sees gamepads plugged in.

pygame-ce's ``pygame.quit()`` left SDL's game-controller subsystem running after the first
quit of a process, and from the third start on no newly plugged pad reached the game
(the quick race quits pygame on its way out; in a test run the modules after two quick races
lost their pads). ``app.quit_pygame`` closes the controller module first.
"""
from __future__ import annotations

import pygame

from game.presentation.app import init_pygame, quit_pygame
from tests.vgamepad import pads_reach_the_game


def test_a_pad_reaches_the_game_after_it_was_closed_and_started_three_times():
    for _ in range(3):
        init_pygame(headless=True)
        pygame.display.set_mode((320, 240))
        quit_pygame()
    init_pygame(headless=True)
    pygame.display.set_mode((320, 240))
    assert pads_reach_the_game() is None
