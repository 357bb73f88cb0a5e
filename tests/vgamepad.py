"""A virtual gamepad for tests, plugged in through SDL's virtual joystick API.

It talks (via ctypes) to the very SDL library pygame-ce bundles, so pygame sees a real
device: JOYDEVICEADDED / CONTROLLERDEVICEADDED when plugged, button, hat and axis events
when pressed, JOYDEVICEREMOVED when unplugged. Use after ``pygame.init()``::

    pad = VirtualGamepad.plug()
    pad.press("a"); ...; pad.release("a")
    pad.unplug()
"""

from __future__ import annotations

import ctypes
import glob
import os

import pygame

SDL_JOYSTICK_TYPE_GAMECONTROLLER = 1
# Button numbers SDL's automatic mapping gives a virtual game controller (standard layout).
BUTTONS = {"a": 0, "b": 1, "x": 2, "y": 3, "back": 4, "guide": 5, "start": 6, "leftstick": 7, "rightstick": 8,
           "leftshoulder": 9, "rightshoulder": 10, "dpup": 11, "dpdown": 12, "dpleft": 13, "dpright": 14}
N_BUTTONS, N_AXES, N_HATS = 15, 6, 0


def sdl_library() -> ctypes.CDLL:
    """The SDL2 shared library loaded by pygame-ce (same process-wide instance)."""
    base = os.path.dirname(os.path.dirname(pygame.__file__))
    found = sorted(glob.glob(os.path.join(base, "pygame_ce.libs", "libSDL2-*.so*")))
    if not found:
        raise RuntimeError("cannot find the SDL2 library bundled with pygame-ce")
    sdl = ctypes.CDLL(found[0])
    sdl.SDL_JoystickAttachVirtual.restype = ctypes.c_int
    sdl.SDL_JoystickAttachVirtual.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    sdl.SDL_JoystickDetachVirtual.restype = ctypes.c_int
    sdl.SDL_JoystickDetachVirtual.argtypes = [ctypes.c_int]
    sdl.SDL_JoystickOpen.restype = ctypes.c_void_p
    sdl.SDL_JoystickOpen.argtypes = [ctypes.c_int]
    sdl.SDL_JoystickClose.restype = None
    sdl.SDL_JoystickClose.argtypes = [ctypes.c_void_p]
    sdl.SDL_JoystickInstanceID.restype = ctypes.c_int
    sdl.SDL_JoystickInstanceID.argtypes = [ctypes.c_void_p]
    sdl.SDL_JoystickSetVirtualButton.restype = ctypes.c_int
    sdl.SDL_JoystickSetVirtualButton.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint8]
    sdl.SDL_JoystickSetVirtualAxis.restype = ctypes.c_int
    sdl.SDL_JoystickSetVirtualAxis.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int16]
    sdl.SDL_NumJoysticks.restype = ctypes.c_int
    sdl.SDL_NumJoysticks.argtypes = []
    sdl.SDL_JoystickGetDeviceInstanceID.restype = ctypes.c_int
    sdl.SDL_JoystickGetDeviceInstanceID.argtypes = [ctypes.c_int]
    sdl.SDL_JoystickIsVirtual.restype = ctypes.c_int
    sdl.SDL_JoystickIsVirtual.argtypes = [ctypes.c_int]
    sdl.SDL_GetError.restype = ctypes.c_char_p
    return sdl


class VirtualGamepad:
    """One plugged-in virtual game controller.

    Device indices shift as other pads come and go, so the pad is found again by its SDL
    instance id (which never changes) when it is unplugged.
    """

    def __init__(self, sdl: ctypes.CDLL, device_index: int, handle: int) -> None:
        self.sdl = sdl
        self.device_index = device_index
        self.handle = handle
        self.instance_id = sdl.SDL_JoystickInstanceID(handle)

    @classmethod
    def plug(cls) -> VirtualGamepad:
        sdl = sdl_library()
        index = sdl.SDL_JoystickAttachVirtual(SDL_JOYSTICK_TYPE_GAMECONTROLLER, N_AXES, N_BUTTONS, N_HATS)
        if index < 0:
            raise RuntimeError(f"SDL_JoystickAttachVirtual failed: {sdl.SDL_GetError().decode()}")
        handle = sdl.SDL_JoystickOpen(index)
        if not handle:
            raise RuntimeError(f"SDL_JoystickOpen failed: {sdl.SDL_GetError().decode()}")
        return cls(sdl, index, handle)

    def press(self, button: str) -> None:
        self.sdl.SDL_JoystickSetVirtualButton(self.handle, BUTTONS[button], 1)

    def release(self, button: str) -> None:
        self.sdl.SDL_JoystickSetVirtualButton(self.handle, BUTTONS[button], 0)

    def stick(self, x: float, y: float) -> None:
        """Left stick position, -1..1 on each axis."""
        self.sdl.SDL_JoystickSetVirtualAxis(self.handle, 0, int(max(-1, min(1, x)) * 32767))
        self.sdl.SDL_JoystickSetVirtualAxis(self.handle, 1, int(max(-1, min(1, y)) * 32767))

    def current_index(self) -> int | None:
        """This pad's device index now (None once it is gone)."""
        for index in range(self.sdl.SDL_NumJoysticks()):
            if self.sdl.SDL_JoystickGetDeviceInstanceID(index) == self.instance_id:
                return index
        return None

    def unplug(self) -> None:
        if self.handle:
            index = self.current_index()
            self.sdl.SDL_JoystickClose(self.handle)
            self.handle = 0
            if index is not None and self.sdl.SDL_JoystickIsVirtual(index):
                self.sdl.SDL_JoystickDetachVirtual(index)


def pads_reach_the_game() -> str | None:
    """What stops a gamepad's presses reaching the game right now; None when nothing does.

    A pad is plugged, a fresh :class:`~game.presentation.input.InputMapper` (the game's own
    way in) reads SDL's events, A is pressed once and the pad is pulled out: the game must see
    the pad added, exactly one Confirm from it, and the pad removed. ``tests/conftest.py`` asks
    this after every test module that started pygame, so a file that leaves SDL's gamepad state
    broken is named where it happens, not by a later file whose pads stop working. Events still
    queued from before are dropped (they were the earlier test's).
    """
    from game.presentation.input import Confirm, DeviceAdded, DeviceRemoved, InputMapper

    mapper = InputMapper()
    pygame.event.clear()

    def actions() -> list:
        return [action for event in pygame.event.get() for action in mapper.actions(event)]

    pad = VirtualGamepad.plug()
    source = f"pad:{pad.instance_id}"
    try:
        added = [a for a in actions() if isinstance(a, DeviceAdded)]
        pad.press("a")
        confirms = [a for a in actions() if isinstance(a, Confirm)]
        pad.release("a")
        actions()
    finally:
        pad.unplug()
    removed = [a for a in actions() if isinstance(a, DeviceRemoved)]
    problems = []
    if [a.source for a in added] != [source]:
        problems.append(f"plugging in {source} was seen as {added}")
    if [a.source for a in confirms] != [source]:
        problems.append(f"one press of A on {source} gave {len(confirms)} confirms: {confirms}")
    if [a.source for a in removed] != [source]:
        problems.append(f"pulling {source} out was seen as {removed}")
    return "; ".join(problems) or None
