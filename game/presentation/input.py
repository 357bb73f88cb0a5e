"""Input at the edge: keyboard, mouse and gamepad events become abstract actions.

Scenes never look at pygame events; they receive the small action values below, each
tagged with the ``source`` it came from (``"kb1"``, ``"kb2"``, ``"keys"`` for the shared
keys such as the numpad and arrows, ``"mouse"``, or ``"pad:<SDL instance id>"``), so a
scene can tell which seat pressed what.

Bindings are plain data (:func:`default_bindings`): ``{source: {key name: action spec}}``
with pygame key names (``pygame.key.key_code`` understands them) and specs such as
``["select", -1, -1]``, ``["cursor", 0, 1]``, ``["confirm"]``. Settings can load a
changed copy and pass it to :class:`InputMapper`.

Gamepads are opened through SDL's game-controller API (standard button layout on every
pad) and keyed by their SDL instance id, so unplugging and plugging back in (hot-plug)
works: the mapper emits :class:`DeviceAdded` / :class:`DeviceRemoved`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import pygame


# -- actions --------------------------------------------------------------------------
@dataclass(frozen=True)
class Action:
    source: str


@dataclass(frozen=True)
class Select(Action):
    """Highlight the target at layout step (dx, dy) from the base point; ``confirm`` also picks it."""

    dx: int = 0
    dy: int = 0
    confirm: bool = False
    stick: bool = False  # from a gamepad stick's 8-way direction (fine paper aims with :class:`Aim` instead)


@dataclass(frozen=True)
class MoveCursor(Action):
    """Move the highlight one step (arrow keys); ``fast`` (Shift held) moves a fine-paper reticle 5 units."""

    dx: int = 0
    dy: int = 0
    fast: bool = False


@dataclass(frozen=True)
class Aim(Action):
    """A gamepad's left stick deflection, each axis -1..1 (fine paper aims the reticle with it)."""

    x: float = 0.0
    y: float = 0.0


@dataclass(frozen=True)
class PointAt(Action):
    """The mouse hovers at a window pixel."""

    pos: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class ClickAt(Action):
    """The mouse clicked at a window pixel (pick the node there)."""

    pos: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class Scroll(Action):
    """The mouse wheel turned: ``dy`` notches, positive towards the bottom of a list (menus scroll)."""

    dy: int = 0


@dataclass(frozen=True)
class Confirm(Action):
    pass


@dataclass(frozen=True)
class PickKey(Action):
    """A phone tapped a target: aim at layout key ``key`` (None: the one aimed at) in ``phase``;
    ``confirm`` also picks it. A tap meant for another phase is dropped (``game/phones``)."""

    key: Any = None
    phase: int = 0
    confirm: bool = False


@dataclass(frozen=True)
class Back(Action):
    """Take the choice back (before the phase starts), or leave a menu."""


@dataclass(frozen=True)
class Pause(Action):
    pass


@dataclass(frozen=True)
class SkipReplay(Action):
    pass


@dataclass(frozen=True)
class ToggleAssist(Action):
    """Switch the "doomed targets" assist on or off."""


@dataclass(frozen=True)
class ChangeSpeed(Action):
    """Replay speed up (+1) or down (-1)."""

    step: int = 1


@dataclass(frozen=True)
class ToggleFullscreen(Action):
    pass


@dataclass(frozen=True)
class Quit(Action):
    pass


@dataclass(frozen=True)
class DeviceAdded(Action):
    name: str = ""


@dataclass(frozen=True)
class DeviceRemoved(Action):
    name: str = ""


_SPECS = {
    "select": lambda src, a: Select(src, int(a[0]), int(a[1]), True),
    "highlight": lambda src, a: Select(src, int(a[0]), int(a[1]), False),
    "cursor": lambda src, a: MoveCursor(src, int(a[0]), int(a[1])),
    "confirm": lambda src, a: Confirm(src),
    "back": lambda src, a: Back(src),
    "pause": lambda src, a: Pause(src),
    "skip": lambda src, a: SkipReplay(src),
    "assist": lambda src, a: ToggleAssist(src),
    "faster": lambda src, a: ChangeSpeed(src, 1),
    "slower": lambda src, a: ChangeSpeed(src, -1),
    "fullscreen": lambda src, a: ToggleFullscreen(src),
    "quit": lambda src, a: Quit(src),
}


def _block(keys: str) -> dict[str, list]:
    """Nine keys in reading order (top-left first) -> select specs by layout."""
    names = keys.split()
    return {name: ["select", dx, dy] for name, (dx, dy) in
            zip(names, [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)])}


def default_bindings() -> dict[str, dict[str, Any]]:
    """The default key and pad bindings, as data (a fresh copy each call).

    ``kb1`` is the left-hand block QWE/ASD/ZXC, ``kb2`` the right-hand block UIO/JKL/M,.
    (both pick at once), ``keys`` the keys any player may use: numpad 1-9 (5 is the base
    point), arrows + Enter/Space, Backspace to take back, Esc/P to pause, Tab to skip a
    replay, F11 for fullscreen. ``pad`` applies to every gamepad (standard layout names).
    """
    keys = {
        **_block("[7] [8] [9] [4] [5] [6] [1] [2] [3]"),
        "up": ["cursor", 0, -1], "down": ["cursor", 0, 1], "left": ["cursor", -1, 0], "right": ["cursor", 1, 0],
        "return": ["confirm"], "enter": ["confirm"], "space": ["confirm"], "backspace": ["back"],
        "escape": ["pause"], "p": ["pause"], "tab": ["skip"], "f11": ["fullscreen"], "h": ["assist"],
        "=": ["faster"], "[+]": ["faster"], "-": ["slower"], "[-]": ["slower"],
    }
    return {
        "kb1": {**_block("q w e a s d z x c"), "left shift": ["back"]},
        "kb2": {**_block("u i o j k l m , ."), "right shift": ["back"]},
        "keys": keys,
        "pad": {"a": ["confirm"], "b": ["back"], "start": ["pause"], "y": ["skip"], "x": ["assist"],
                "leftstick": ["highlight", 0, 0],
                "rightshoulder": ["faster"], "leftshoulder": ["slower"], "back": ["pause"]},
    }


# SDL game-controller button numbers (SDL_GameControllerButton) by standard name.
PAD_BUTTONS = {"a": 0, "b": 1, "x": 2, "y": 3, "back": 4, "guide": 5, "start": 6, "leftstick": 7,
               "rightstick": 8, "leftshoulder": 9, "rightshoulder": 10, "dpup": 11, "dpdown": 12,
               "dpleft": 13, "dpright": 14}
DPAD = {11: (0, -1), 12: (0, 1), 13: (-1, 0), 14: (1, 0)}
STICK_DEADZONE = 0.5


class BindingError(ValueError):
    """A binding names an unknown key, button or action; the message says which."""


@dataclass
class _Pad:
    """One open gamepad and what is held on it (for 8-way d-pad and stick directions)."""

    device: Any
    name: str
    held: set = field(default_factory=set)
    stick: tuple[float, float] = (0.0, 0.0)
    direction: tuple[int, int] = (0, 0)


class InputMapper:
    """Turns pygame events into actions, using bindings given as data.

    Call :meth:`actions` with each event; it returns zero or more actions. Gamepads are
    opened when SDL reports them (``CONTROLLERDEVICEADDED``) and closed when removed.
    """

    def __init__(self, bindings: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        bindings = copy.deepcopy(dict(bindings if bindings is not None else default_bindings()))
        self.keys: dict[int, list[Action]] = {}
        for source, table in bindings.items():
            if source == "pad":
                continue
            for name, spec in table.items():
                try:
                    code = pygame.key.key_code(name)
                except ValueError:
                    raise BindingError(f"bindings: [{source}] {name!r} is not a key name pygame knows") from None
                self.keys.setdefault(code, []).append(_build(source, spec, name))
        self.pad_buttons: dict[int, list] = {}
        for name, spec in bindings.get("pad", {}).items():
            if name not in PAD_BUTTONS:
                raise BindingError(f"bindings: [pad] {name!r} is not a gamepad button; use one of "
                                   + ", ".join(PAD_BUTTONS))
            _build("pad", spec, name)  # validate now
            self.pad_buttons.setdefault(PAD_BUTTONS[name], []).append(spec)
        self.pads: dict[int, _Pad] = {}

    # -- gamepads -------------------------------------------------------------
    def open_pad(self, device_index: int) -> Action | None:
        """Open a newly reported gamepad; returns its DeviceAdded action (None if it will not open)."""
        from pygame._sdl2 import controller

        try:
            if not controller.get_init():
                controller.init()
            if not controller.is_controller(device_index):
                return None
            device = controller.Controller(device_index)
            joystick = device.as_joystick()
            instance = joystick.get_instance_id()
            name = device.name or "gamepad"
        except pygame.error:
            return None
        if instance in self.pads:
            return None
        self.pads[instance] = _Pad(device, name)
        return DeviceAdded(f"pad:{instance}", name)

    def open_existing_pads(self) -> list[Action]:
        """Open every gamepad already plugged in (at start-up)."""
        found = []
        for index in range(pygame.joystick.get_count()):
            action = self.open_pad(index)
            if action is not None:
                found.append(action)
        return found

    def close_pad(self, instance: int) -> Action | None:
        pad = self.pads.pop(instance, None)
        if pad is None:
            return None
        try:
            pad.device.quit()
        except (pygame.error, AttributeError):
            pass
        return DeviceRemoved(f"pad:{instance}", pad.name)

    # -- events ---------------------------------------------------------------
    def actions(self, event) -> list[Action]:
        kind = event.type
        if kind == pygame.QUIT:
            return [Quit("window")]
        if kind == pygame.KEYDOWN:
            found = list(self.keys.get(event.key, ()))
            if getattr(event, "mod", 0) & pygame.KMOD_SHIFT:
                found = [MoveCursor(a.source, a.dx, a.dy, True) if isinstance(a, MoveCursor) else a for a in found]
            return found
        if kind == pygame.MOUSEMOTION:
            return [PointAt("mouse", tuple(event.pos))]
        if kind == pygame.MOUSEBUTTONDOWN and event.button == 1:
            return [ClickAt("mouse", tuple(event.pos))]
        if kind == pygame.MOUSEBUTTONDOWN and event.button == 3:
            return [Back("mouse")]
        if kind == pygame.MOUSEWHEEL and event.y:
            return [Scroll("mouse", -int(event.y))]  # SDL's y is positive when the wheel turns away
        if kind == pygame.CONTROLLERDEVICEADDED:
            action = self.open_pad(event.device_index)
            return [action] if action else []
        if kind == pygame.CONTROLLERDEVICEREMOVED:
            action = self.close_pad(event.instance_id)
            return [action] if action else []
        if kind == pygame.CONTROLLERBUTTONDOWN:
            return self._pad_button(event.instance_id, event.button, True)
        if kind == pygame.CONTROLLERBUTTONUP:
            return self._pad_button(event.instance_id, event.button, False)
        if kind == pygame.CONTROLLERAXISMOTION:
            return self._pad_axis(event.instance_id, event.axis, event.value)
        return []

    def _pad_button(self, instance: int, button: int, down: bool) -> list[Action]:
        pad = self.pads.get(instance)
        if pad is None:
            return []
        source = f"pad:{instance}"
        if button in DPAD:
            # The d-pad highlights on press only: letting go of a diagonal one button at a
            # time must not leave a half-released direction highlighted.
            (pad.held.add if down else pad.held.discard)(button)
            if not down:
                return []
            dx = max(-1, min(1, sum(DPAD[b][0] for b in pad.held)))
            dy = max(-1, min(1, sum(DPAD[b][1] for b in pad.held)))
            return [Select(source, dx, dy, False)]
        if not down:
            return []
        return [_build(source, spec, str(button)) for spec in self.pad_buttons.get(button, ())]

    def _pad_axis(self, instance: int, axis: int, value: int) -> list[Action]:
        pad = self.pads.get(instance)
        if pad is None or axis not in (0, 1):
            return []
        v = max(-1.0, value / 32767)
        pad.stick = (v, pad.stick[1]) if axis == 0 else (pad.stick[0], v)
        source = f"pad:{instance}"
        return self._pad_direction(pad, source) + [Aim(source, pad.stick[0], pad.stick[1])]

    def _pad_direction(self, pad: _Pad, source: str) -> list[Action]:
        """The 8-way direction of the left stick (centre = base point); an action only when it changes."""
        sx, sy = pad.stick
        direction = ((sx > STICK_DEADZONE) - (sx < -STICK_DEADZONE), (sy > STICK_DEADZONE) - (sy < -STICK_DEADZONE))
        if direction == pad.direction:
            return []
        pad.direction = direction
        return [Select(source, direction[0], direction[1], False, stick=True)]


def _build(source: str, spec: Any, name: str) -> Action:
    if not isinstance(spec, (list, tuple)) or not spec or spec[0] not in _SPECS:
        raise BindingError(f"bindings: [{source}] {name!r}: {spec!r} is not an action; use one of "
                           + ", ".join(_SPECS))
    try:
        return _SPECS[spec[0]](source, list(spec[1:]))
    except (IndexError, ValueError, TypeError, OverflowError):  # OverflowError: int(inf)
        raise BindingError(f"bindings: [{source}] {name!r}: {spec!r} needs whole-number arguments") from None


def sources_of(actions: Iterable[Action]) -> set[str]:
    return {a.source for a in actions}
