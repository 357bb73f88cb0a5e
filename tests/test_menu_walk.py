"""Every menu row pressed once, with the keyboard, a gamepad and the mouse, as a group would.

From the title, each row is highlighted and confirmed the way that device does it (arrows
and Enter; the d-pad and A; the pointer moved onto the row and a click there), through the game's own event mapping
(``App.step`` with pygame events, as in a real frame). A row that opens a screen has that
screen's rows pressed too (two levels down: settings' keys and buttons, the rules' rows),
and then Back (Backspace, B, the right mouse button) must bring the player back to the
screen the row was on, the same screen, not a new one. A race reached this way is left as
a player leaves it: pause, *Quit to the main menu*, and the confirm dialog's Yes. No press
may raise.

The gamepad is a pad the game's input mapper has opened (``InputMapper.pads``) fed
controller events: the game reads them as from a plugged-in pad, without SDL's virtual
joystick, whose state other test files leave behind.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import shutil
import time
from types import SimpleNamespace

import pygame
import pytest

from game import paths
from game.presentation.input import PAD_BUTTONS, DeviceAdded, _Pad
from game.presentation.menus import prepare_game
from game.presentation.menus.seats import ROWS
from tests.test_layout import KnownPars  # par known at once: the walk presses rows, it runs no solver

SIZE = (1280, 720)
PAD = 77  # the instance id of the walk's gamepad
#: Rows not pressed: Quit ends the game (its own test below).
NOT_PRESSED = ("Quit",)


class Walker:
    """A game at its title screen and one device pressing its rows (``keys``, ``pad`` or ``mouse``)."""

    def __init__(self, tmp_path, device: str) -> None:
        builtin = tmp_path / "builtin"
        builtin.mkdir(exist_ok=True)
        shutil.copy(paths.builtin_tracks_dir() / "starter.toml", builtin / "starter.toml")
        self.app, self.ctx = prepare_game(tmp_path / "config", tmp_path / "packs", builtin, None, headless=True,
                                          size=SIZE)
        self.ctx._pars = KnownPars()
        self.ctx.settings.tutorial_done = True
        self.device = device
        self.target = 0  # the row the next confirm presses
        self.pressed: list[str] = []  # "screen: row -> what it opened", for the failure message
        if device == "pad":
            self.app.mapper.pads[PAD] = _Pad(SimpleNamespace(quit=lambda: None), "walk pad")
            self.app.stack.handle(DeviceAdded(f"pad:{PAD}", "walk pad"))
        self.frames(2)

    @property
    def top(self):
        return self.app.stack.top

    def frames(self, n: int = 1, events: list | None = None) -> None:
        self.app.step(1 / 60, events=events or [])
        for _ in range(n - 1):
            self.app.step(1 / 60, events=[])

    # -- the device's presses ---------------------------------------------------------
    def _key(self, key: int) -> list:
        return [pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode="", scancode=0),
                pygame.event.Event(pygame.KEYUP, key=key, mod=0, unicode="", scancode=0)]

    def _button(self, button: int) -> list:
        return [pygame.event.Event(pygame.CONTROLLERBUTTONDOWN, instance_id=PAD, button=button),
                pygame.event.Event(pygame.CONTROLLERBUTTONUP, instance_id=PAD, button=button)]

    def _click(self, pos) -> list:
        """The pointer moved onto ``pos`` and the left button pressed there."""
        return [pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0)),
                pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=pos),
                pygame.event.Event(pygame.MOUSEBUTTONUP, button=1, pos=pos)]

    def confirm(self) -> None:
        """Confirm the highlighted row: Enter, A, or a click on the row ``highlight`` went to."""
        events = {"keys": self._key(pygame.K_RETURN), "pad": self._button(0)}.get(self.device)
        if events is None:
            events = self._click(self.top.menu.rects[self.target].center)
        self.frames(3, events=events)

    def back(self) -> None:
        events = {"keys": self._key(pygame.K_BACKSPACE), "pad": self._button(1),
                  "mouse": [pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=3, pos=(5, 5)),
                            pygame.event.Event(pygame.MOUSEBUTTONUP, button=3, pos=(5, 5))]}[self.device]
        self.frames(3, events=events)

    def pause(self) -> None:
        events = self._button(6) if self.device == "pad" else self._key(pygame.K_ESCAPE)
        self.frames(3, events=events)

    def visible(self, k: int) -> bool:
        """Whether row ``k`` of the top screen was drawn in sight in the last frame (a mouse can click it)."""
        rects = self.top.menu.rects
        return k < len(rects) and rects[k].height > 0 and pygame.Rect((0, 0), self.app.size).contains(rects[k])

    def highlight(self, k: int) -> None:
        """Move the highlight to row ``k`` the short way, without wrapping. The mouse clicks a row in
        sight directly (the click highlights it); one scrolled out of sight is brought into it with
        the arrows first, as a mouse player would need a keyboard to."""
        menu = self.top.menu
        if self.device == "mouse" and self.visible(k):
            self.target = k
            return
        for _ in range(len(menu.items) * 2):
            if menu.index == k:
                break
            if self.device == "pad":
                self.frames(events=self._button(12 if menu.index < k else 11))
            else:
                self.frames(events=self._key(pygame.K_DOWN if menu.index < k else pygame.K_UP))
        assert menu.index == k, f"{self.where()}: row {menu.items[k].label!r} cannot be reached"
        self.target = k

    def where(self) -> str:
        return type(self.top).__name__

    # -- the walk -------------------------------------------------------------------------
    def leave_race(self, race) -> None:
        """Pause, Quit to the main menu, Yes: the way a player leaves a race."""
        self.pause()
        pause = self.top
        assert pause is not race and hasattr(pause, "menu"), "the pause key opened no pause menu in the race"
        quit_row = next(k for k, item in enumerate(pause.menu.items) if item.label.startswith("Quit"))
        self.highlight(quit_row)
        self.confirm()
        dialog = self.top
        assert type(dialog).__name__ == "ConfirmScene", "leaving a race did not ask first"
        self.highlight(1)
        self.confirm()

    def answer_capture(self, scene, k: int) -> None:
        """A bindings row waits for the new key or button: give it the one it has (nothing changes,
        so the walk's own keys and buttons keep working); the mouse, which has none, cancels."""
        source, name = scene.rows[k]
        if self.device == "mouse":
            self.back()
        elif (source == "pad") != (self.device == "pad"):
            events = self._button(1) if self.device == "pad" else self._key(pygame.K_BACKSPACE)
            self.frames(3, events=events)  # the wrong kind of press: the screen says so and stops waiting
        elif self.device == "pad":
            self.frames(3, events=self._button(PAD_BUTTONS[name]))
        else:
            self.frames(3, events=self._key(pygame.key.key_code(name)))
        assert scene.waiting is None, f"{self.device}: the bindings row {scene.menu.items[k].label!r} still waits"

    def walk(self, scene, depth: int, skip: tuple[str, ...] = (), backwards: bool = False) -> None:
        """Press every row of ``scene`` (on top) but ``skip``; a screen a row opens is walked ``depth``
        levels further down, then left with Back, which must bring ``scene`` back. ``backwards``: the
        last row first (the pause menu's first row, Resume, leaves it)."""
        menu = getattr(scene, "menu", None)
        if menu is None:
            return
        rows = range(len(menu.items))
        for k in reversed(rows) if backwards else rows:
            if self.top is not scene:
                return  # a row went back (the screen's own Back row): the rows after it were pressed
            item = menu.items[k]
            if item.label in NOT_PRESSED + skip or not item.enabled() or item.confirm is None:
                continue
            self.highlight(k)
            self.confirm()
            if getattr(scene, "waiting", None) is not None:
                self.answer_capture(scene, k)
            opened = self.top
            self.pressed.append(f"{type(scene).__name__}: {item.label} -> {type(opened).__name__}")
            if opened is scene or scene not in self.app.stack.scenes:
                continue  # a value, a toggle, or the row that goes back
            self.leave(opened, scene, depth)

    def leave(self, opened, scene, depth: int) -> None:
        """Walk ``opened`` (``depth`` levels), then go back from it to ``scene``."""
        if hasattr(opened, "controller"):
            self.leave_race(opened)
            assert self.top is self.app.stack.scenes[0], f"{self.pressed[-1]}: quitting the race led elsewhere"
            return
        if type(opened).__name__ == "ConfirmScene":
            self.back()  # a question: Back is No
        else:
            if depth > 0:
                self.walk(opened, depth - 1)
            for _ in range(4):  # the lobby's first Back takes the seat back, the second leaves
                if self.top is scene or scene not in self.app.stack.scenes:
                    break
                if hasattr(self.top, "controller"):
                    self.leave_race(self.top)
                else:
                    self.back()
        assert self.top is scene, (f"{self.device}: after {self.pressed[-1]} Back led to {self.where()}, "
                                   f"not back to {type(scene).__name__}")

    def close(self) -> None:
        for s in list(self.app.stack.scenes):
            if hasattr(s, "controller"):
                s.exit()
        self.ctx.audio.close()


@pytest.fixture(scope="module")
def display():
    from game.presentation.app import init_pygame

    init_pygame(headless=True)
    return pygame.display.set_mode(SIZE)


@pytest.mark.parametrize("device", ["keys", "pad", "mouse"])
def test_every_row_from_the_title_down_presses_without_error_and_back_returns(device, display, tmp_path):
    walker = Walker(tmp_path, device)
    try:
        title = walker.top
        assert type(title).__name__ == "TitleScene"
        walker.walk(title, depth=2)
        assert walker.top is title, f"{device}: the walk ended on {walker.where()}, not the title"
        opened = {line.split(" -> ")[0].split(": ")[1] for line in walker.pressed if line.startswith("TitleScene")}
        expected = {item.label for item in title.menu.items if item.confirm is not None} - set(NOT_PRESSED)
        assert opened == expected, f"{device}: title rows not pressed: {expected - opened}"
        print(f"{device}: {len(walker.pressed)} rows pressed")
    finally:
        walker.close()


def test_quit_on_the_title_ends_the_game(display, tmp_path):
    walker = Walker(tmp_path, "keys")
    try:
        title = walker.top
        walker.highlight(next(k for k, item in enumerate(title.menu.items) if item.label == "Quit"))
        walker.confirm()
        assert walker.app.stack.quit_requested
    finally:
        walker.close()


@pytest.mark.parametrize("device", ["keys", "pad", "mouse"])
def test_from_the_lobby_to_a_race_every_rules_and_pause_row_presses_and_back_returns(device, display, tmp_path):
    """Race, seat, track, every row of the rules screen, the race, every row of its pause menu. The mouse
    clicks the lobby's Start row and a track in track select's list (docs/controls.md)."""
    walker = Walker(tmp_path, device)
    steer = device
    try:
        title = walker.top
        walker.highlight(next(k for k, item in enumerate(title.menu.items) if item.label == "Race"))
        walker.confirm()
        lobby = walker.top
        assert type(lobby).__name__ == "LobbyScene" and len(lobby.table.humans) == 1, "Race did not seat its player"
        seated = next(iter(lobby.table.rows))
        if device == "mouse":
            start = next(z for z in lobby.zones if z.what == "start")
            walker.frames(3, events=walker._click(start.rect.center))
        else:
            for _ in range(len(ROWS)):
                if ROWS[lobby.table.rows[seated]] == "start":
                    break
                walker.frames(events=walker._button(12) if steer == "pad" else walker._key(pygame.K_DOWN))
            walker.frames(3, events=walker._button(0) if steer == "pad" else walker._key(pygame.K_RETURN))
        tracks = walker.top
        assert type(tracks).__name__ == "TrackSelectScene", f"Start in the lobby led to {walker.where()}"
        for _ in range(1200):  # the catalogue is read on a worker: up to a minute on a busy machine
            if not tracks.loading:
                break
            walker.frames()
            time.sleep(0.05)
        assert not tracks.loading, "track select never finished reading its packs"
        if device == "mouse":
            walker.frames()  # the list drawn
            _, row = tracks.row_rects[0]
            walker.frames(3, events=walker._click(row.center))
        else:
            walker.frames(3, events=walker._button(0) if steer == "pad" else walker._key(pygame.K_RETURN))
        rules = walker.top
        assert type(rules).__name__ == "RulesScene", f"a track picked led to {walker.where()} ({tracks.message!r})"
        walker.walk(rules, depth=1, skip=("Start the race!",))
        assert walker.top is rules
        walker.highlight(0)
        walker.confirm()
        race = walker.top
        assert hasattr(race, "controller"), f"Start the race! led to {walker.where()}"
        walker.pause()
        pause = walker.top
        assert type(pause).__name__ == "PauseMenuScene"
        walker.walk(pause, depth=1, backwards=True)
        assert walker.top is race, f"{device}: Resume led to {walker.where()}, not back to the race"
        walker.leave_race(race)
        assert walker.top is title, f"{device}: quitting the race led to {walker.where()}"
        pressed = [line for line in walker.pressed if line.startswith("PauseMenuScene")]
        assert len(pressed) == 5, pressed
    finally:
        walker.close()
