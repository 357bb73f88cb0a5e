"""Seats follow devices (issue 27): a gamepad pulled out on any screen never leaves a seat behind
that nobody can free, and the keyboard's Back always walks back to the title.

One couch (the app with a virtual gamepad, as a player has it); for each screen a pad is plugged
in, drives there, and is pulled out; the keyboard's Esc then walks back to the title (the pause
menu's "Quit to the main menu" in a race). A lobby passed on the way has no seat left for the
pad that is gone.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
import pytest


from game.presentation.menus.confirm import ConfirmScene
from game.presentation.menus.lobby import LobbyScene
from game.presentation.menus.pause import PauseMenuScene
from game.presentation.menus.rules_menu import RulesScene
from game.presentation.menus.seats import SeatDevices, SeatSpec
from game.presentation.menus.title import TitleScene
from game.presentation.race_scene import RaceScene
from tests.test_flow import Couch

#: How a pad gets to each screen from the title: a title row, then buttons pressed on it.
ROUTES = {
    "title": (None, ()),
    "lobby": ("Race", ("a",)),
    "tracks": ("Race", ("a", "start")),
    "rules": ("Race", ("a", "start", "a")),
    "race": ("Race", ("a", "start", "a", "start")),
    "settings": ("Settings", ()),
    "replays": ("Replays", ()),
    "cup-select": ("Grand Prix cup", ("a", "start")),
    "trial": ("Time trial", ()),
    "tutorial": ("Tutorial", ()),
}


@pytest.fixture(scope="module")
def couch(tmp_path_factory):
    c = Couch(tmp_path_factory.mktemp("couch"))
    yield c
    c.close()


def escape(couch) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0, unicode="", scancode=0))
    couch.step(2)


def enter(couch) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0, unicode="\r", scancode=0))
    couch.step(2)


def drive_to(couch, pad, screen: str):
    row, buttons = ROUTES[screen]
    if row is not None:
        title = couch.top()
        assert isinstance(title, TitleScene)
        title.menu.index = [item.label for item in title.menu.items].index(row)
        couch.press(pad, "a")
    for button in buttons:
        couch.press(pad, button)
        couch.step(3)
    return couch.top()


def back_to_title(couch, gone: str) -> list[str]:
    """Esc until the title shows (the pause menu's quit in a race); the screens passed, by class."""
    passed = []
    for _ in range(12):
        top = couch.top()
        if isinstance(top, TitleScene):
            return passed
        passed.append(type(top).__name__)
        if isinstance(top, LobbyScene):
            assert gone not in [s.device for s in top.table.seats], "the pulled pad's seat is still taken"
        if isinstance(top, PauseMenuScene):
            top.menu.index = [item.label for item in top.menu.items].index("Quit to the main menu")
            enter(couch)
        elif isinstance(top, ConfirmScene):  # leaving the race asks first (No is highlighted): answer Yes
            top.menu.index = 1
            enter(couch)
        else:
            escape(couch)
    raise AssertionError(f"Esc never got back to the title: {passed}")


@pytest.mark.parametrize("screen", list(ROUTES))
def test_a_pad_pulled_on_any_screen_leaves_no_seat_behind_and_back_reaches_the_title(couch, screen):
    assert isinstance(couch.top(), TitleScene)
    pad = couch.plug()
    device = f"pad:{pad.instance_id}"
    top = drive_to(couch, pad, screen)
    assert screen == "title" or not isinstance(top, TitleScene), f"the pad never reached {screen}"
    couch.pads.remove(pad)
    pad.unplug()
    couch.step(3)
    if screen == "race":
        assert isinstance(couch.top(), PauseMenuScene)  # the race waits for a pad, and says so
    passed = back_to_title(couch, device)
    if screen in ("tracks", "rules", "cup-select"):  # a race quits straight to the title
        assert "LobbyScene" in passed


def test_a_pad_pulled_before_the_race_leaves_its_car_for_any_free_pad(couch):
    """Pulled on the rules screen: the race starts with the car waiting, asks for a pad at once,
    and the next pad to press A drives it."""
    pad = couch.plug()
    drive_to(couch, pad, "rules")
    couch.pads.remove(pad)
    pad.unplug()
    couch.step(3)
    rules = couch.top()
    assert isinstance(rules, RulesScene) and rules.menu.index == 0  # the screen opens on its Start row
    enter(couch)  # the keyboard starts the race from there
    couch.step(3)
    pause = couch.top()
    assert isinstance(pause, PauseMenuScene) and pause.race.seats.orphans == [0]
    other = couch.plug()
    couch.press(other, "a")
    assert isinstance(couch.top(), RaceScene)
    assert couch.top().seats.devices == {f"pad:{other.instance_id}": 0}
    back_to_title(couch, "")


def test_seat_devices_start_a_car_whose_device_is_gone_as_waiting_for_a_pad():
    lineup = [SeatSpec("Ada", 0, 0, "human", "pad:1"), SeatSpec("Bix", 1, 1, "human", "kb1"),
              SeatSpec("Pro", 2, 2, "cpu:pro")]
    seats = SeatDevices.from_lineup(lineup, present=lambda device: device != "pad:1")
    assert seats.devices == {"kb1": 1} and seats.orphans == [0]
    assert seats.claim("pad:9") == 0
