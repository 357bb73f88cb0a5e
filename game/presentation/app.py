"""The app: the window, the frame loop and the scene stack.

The app is the only place that reads the clock: each frame it turns pygame events into
actions (:mod:`game.presentation.input`), hands them to the top scene, calls
``update(dt)`` and draws the visible scenes. Window-level actions (fullscreen toggle,
closing the window) and window resizing are handled here, and so is Python's garbage
collector: with a :class:`~game.presentation.collector.CollectorPolicy` its long passes
run at screen changes, never in the middle of a race (see that module).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

import pygame

from game.core.errors import RacetrackError
from game.presentation.collector import CollectorPolicy
from game.presentation.input import DeviceAdded, DeviceRemoved, InputMapper, Quit, ToggleFullscreen
from game.presentation.native import quiet_native_output
from game.presentation.scene import Scene, SceneStack

WINDOW_TITLE = "Racetrack"
HEADLESS_HINT = ("start it on a desktop, or use the commands that need no window: "
                 "racetrack sim, solve, validate, render, replay (racetrack --help)")


@dataclass
class DisplayConfig:
    """How the window opens."""

    size: tuple[int, int] = (1280, 720)
    fullscreen: bool = False
    fps: int = 60


#: The smallest display a first start opens fullscreen on (a TV or a big monitor); smaller ones get a window.
FULLSCREEN_FROM = (1920, 1080)


def first_start_fullscreen(desktops: list[tuple[int, int]]) -> bool:
    """Whether a first start opens fullscreen: when the (first) display is at least 1920x1080.

    >>> first_start_fullscreen([(1920, 1080)]), first_start_fullscreen([(1280, 720)]), first_start_fullscreen([])
    (True, False, False)
    """
    if not desktops:
        return False
    w, h = desktops[0]
    return w >= FULLSCREEN_FROM[0] and h >= FULLSCREEN_FROM[1]


def desktop_sizes() -> list[tuple[int, int]]:
    """The displays' sizes as SDL reports them (empty when it cannot tell); after :func:`init_pygame`."""
    try:
        return [tuple(size) for size in pygame.display.get_desktop_sizes()]
    except (pygame.error, AttributeError):
        return []


#: SDL's video drivers that draw into memory only: what it falls back to without a display.
NO_WINDOW_DRIVERS = ("offscreen", "dummy")
#: The largest window the game opens (8K UHD): a bigger one costs seconds a frame and gigabytes.
MAX_WINDOW = (7680, 4320)


def fit_window(size: tuple[int, int], desktop: tuple[int, int] | None = None) -> tuple[tuple[int, int], str]:
    """The window size to open when ``size`` is asked for, and why it is smaller ("" when it is not).

    At most the desktop (``desktop``, when there is one to ask) and :data:`MAX_WINDOW`.

    >>> fit_window((100000, 100000), (1920, 1080))
    ((1920, 1080), 'a window of 100000x100000 does not fit the display (1920x1080): opened at 1920x1080')
    >>> fit_window((1280, 720), (1920, 1080))
    ((1280, 720), '')
    """
    limit = MAX_WINDOW if desktop is None else (min(MAX_WINDOW[0], desktop[0]), min(MAX_WINDOW[1], desktop[1]))
    fitted = (min(size[0], limit[0]), min(size[1], limit[1]))
    if fitted == tuple(size):
        return fitted, ""
    where = f"the display ({desktop[0]}x{desktop[1]})" if desktop is not None and limit != MAX_WINDOW else \
        f"the largest window the game opens ({MAX_WINDOW[0]}x{MAX_WINDOW[1]})"
    return fitted, f"a window of {size[0]}x{size[1]} does not fit {where}: opened at {fitted[0]}x{fitted[1]}"


def desktop_size() -> tuple[int, int] | None:
    """The desktop's size, or None where there is none to fit (SDL's drivers that draw into memory)."""
    if (pygame.display.get_driver() or "").lower() in NO_WINDOW_DRIVERS:
        return None
    try:
        sizes = pygame.display.get_desktop_sizes()
    except pygame.error:
        return None
    return tuple(sizes[0]) if sizes and min(sizes[0]) > 0 else None


class NoDisplayError(RacetrackError):
    """There is no display to open the game's window on."""


def init_pygame(headless: bool = False) -> None:
    """Start pygame's video, fonts and gamepads (dummy video and audio drivers when headless).

    Without a usable display (and without ``headless`` or an ``SDL_VIDEODRIVER`` asked
    for) this raises :class:`NoDisplayError` rather than running unseen on SDL's
    offscreen driver. What SDL prints while it looks for devices is kept off the terminal.
    """
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    # SDL would catch SIGINT and SIGTERM and only post a quit event, which a busy frame never
    # reads: leave the signals to Python (``game.cli`` ends the game on both, like any program).
    os.environ.setdefault("SDL_NO_SIGNAL_HANDLERS", "1")
    if headless:
        os.environ["SDL_VIDEODRIVER"] = "dummy"
        os.environ["SDL_AUDIODRIVER"] = "dummy"
    try:
        with quiet_native_output():
            pygame.display.init()
    except pygame.error as error:
        raise NoDisplayError(f"cannot start the display ({error}); {HEADLESS_HINT}") from None
    if not headless and not os.environ.get("SDL_VIDEODRIVER") and pygame.display.get_driver() in NO_WINDOW_DRIVERS:
        pygame.display.quit()
        raise NoDisplayError(f"no display to open the game's window on; {HEADLESS_HINT}")
    pygame.font.init()
    pygame.joystick.init()
    try:
        from pygame._sdl2 import controller

        controller.init()
    except (ImportError, pygame.error):
        pass


def quit_pygame() -> None:
    """Close pygame altogether, the gamepads' controller subsystem first.

    pygame-ce's ``pygame.quit()`` quits the controller module only the first time in a
    process; after that SDL's game-controller subsystem stays up across the quit, and from the
    third start on SDL reports no newly plugged gamepad to it (no CONTROLLERDEVICEADDED, so no
    pad reaches the game). Quitting the controller module first leaves nothing running.
    """
    try:
        from pygame._sdl2 import controller

        controller.quit()
    except (ImportError, pygame.error):
        pass
    pygame.quit()


class App:
    """Owns the window and runs scenes until the stack empties or the window closes."""

    def __init__(self, config: DisplayConfig | None = None, mapper: InputMapper | None = None,
                 collector: CollectorPolicy | None = None) -> None:
        self.config = config or DisplayConfig()
        # The garbage collector's policy (None: Python's own); started by run, before the first frame.
        self.collector = collector
        self._shown: Scene | None = None  # the top scene of the last frame drawn: a change is a calm point
        # A window larger than the display (or than 8K) is opened at what fits; size_note says so.
        self.windowed_size, self.size_note = fit_window(self.config.size, desktop_size())
        self.fullscreen = self.config.fullscreen
        self.screen = self._open_window()
        self.mapper = mapper or InputMapper()
        self.stack = SceneStack()
        self.frames = 0
        # Told the new window size as soon as it changes (F11, a resized window), before the next
        # frame is drawn: the menus' font sizes follow it in that very frame.
        self.on_resize: Callable[[tuple[int, int]], None] | None = None
        # Phones (game.presentation.phones.PhoneLink): polled each frame, never waited on; their
        # actions reach only a scene that takes phones (the lobby, a race, its pause menu).
        self.feeds: list = []

    def _open_window(self) -> pygame.Surface:
        if self.fullscreen:
            screen = pygame.display.set_mode((0, 0), pygame.FULLSCREEN)
        else:
            screen = pygame.display.set_mode(self.windowed_size, pygame.RESIZABLE)
        pygame.display.set_caption(WINDOW_TITLE)
        return screen

    @property
    def size(self) -> tuple[int, int]:
        return self.screen.get_size()

    def toggle_fullscreen(self) -> None:
        if not self.fullscreen:
            self.windowed_size = self.size
        self.fullscreen = not self.fullscreen
        self.screen = self._open_window()
        self._resized()

    def _resized(self) -> None:
        if self.on_resize is not None:
            self.on_resize(self.size)
        self.stack.resize(self.size)

    def push(self, scene: Scene) -> None:
        self.stack.push(scene)

    def step(self, dt: float, events: list | None = None) -> None:
        """One frame: events -> actions -> top scene, update, draw. Tests call this directly.

        Once an action has changed the top scene, the rest of the frame's input is dropped:
        presses queued behind a confirm were meant for the screen it left, not the next one
        (gamepads plugged in or out still reach the scenes).
        """
        changed = False
        for event in pygame.event.get() if events is None else events:
            if event.type == pygame.VIDEORESIZE and not self.fullscreen:
                self.screen = pygame.display.get_surface()
                if self.screen.get_size() != (event.w, event.h):
                    self.screen = pygame.display.set_mode((event.w, event.h), pygame.RESIZABLE)
                self._resized()
                continue
            for action in self.mapper.actions(event):
                if isinstance(action, ToggleFullscreen):
                    self.toggle_fullscreen()
                elif isinstance(action, Quit):
                    self.stack.quit()
                elif changed and not isinstance(action, (DeviceAdded, DeviceRemoved)):
                    continue
                else:
                    top = self.stack.top
                    self.stack.handle(action)
                    changed = changed or self.stack.top is not top
        for feed in self.feeds:
            for action in feed.poll():
                if getattr(self.stack.top, "takes_phones", False):
                    self.stack.handle(action)
        if self.stack.quit_requested:
            return
        self.stack.update(min(dt, 0.1))
        self.stack.draw(self.screen)
        pygame.display.flip()
        self.frames += 1
        # A new screen is showing: the collector's full pass goes here, after the flip, where no
        # animation is under way (the screen left is let go first, to be reclaimed at once).
        changed = self.stack.top is not self._shown and self._shown is not None
        self._shown = self.stack.top
        if self.collector is not None:
            self.collector.frame(changed)

    def run(self, max_frames: int | None = None, on_frame: Callable[[App], None] | None = None) -> None:
        """Run until the last scene leaves (or ``max_frames`` frames, for smoke tests).

        The collector's policy starts before the first frame and stops (unfreezes) on the way out.
        """
        clock = pygame.time.Clock()
        for action in self.mapper.open_existing_pads():
            self.stack.handle(action)
        if self.collector is not None:
            self.collector.start()
        try:
            while not self.stack.quit_requested:
                dt = clock.tick(self.config.fps) / 1000.0
                self.step(dt)
                if on_frame is not None:
                    on_frame(self)
                if max_frames is not None and self.frames >= max_frames:
                    break
        finally:
            if self.collector is not None:
                self.collector.stop()
