"""Keys and buttons as the menus use them: the bindings in force, the capture mode of the
bindings menu, and how a key is called on screen.

Shared parts (no screen here): the title's help, the bindings menu and the controls card
all read the bindings through :func:`effective_bindings` and name keys with :func:`key_label`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import pygame

from game.presentation.input import PAD_BUTTONS, Action, InputMapper, default_bindings

#: Key names as printed on the keys.
KEY_NAMES = {"return": "Enter", "enter": "keypad Enter", "escape": "Esc", "backspace": "Backspace",
             "space": "Space", "tab": "Tab", "left shift": "Left Shift", "right shift": "Right Shift",
             "up": "Up", "down": "Down", "left": "Left", "right": "Right", "[+]": "keypad +", "[-]": "keypad -"}
#: Gamepad buttons by their standard names (SDL's game-controller layout).
PAD_NAMES = {"a": "A", "b": "B", "x": "X", "y": "Y", "start": "Start", "back": "Back / View", "guide": "Guide",
             "leftstick": "left stick click", "rightstick": "right stick click", "leftshoulder": "LB",
             "rightshoulder": "RB", "dpup": "d-pad up", "dpdown": "d-pad down", "dpleft": "d-pad left",
             "dpright": "d-pad right"}

@dataclass(frozen=True)
class KeyCaptured(Action):
    """A raw key or button press, delivered while the bindings menu waits for one."""

    name: str = ""
    pad: bool = False


class CapturingMapper(InputMapper):
    """The input mapper, plus a capture mode for the bindings menu.

    While ``capturing`` is True the next key press or gamepad button press becomes a
    :class:`KeyCaptured` action instead of its usual actions (then capturing stops).
    """

    capturing = False

    def actions(self, event) -> list[Action]:
        if self.capturing:
            if event.type == pygame.KEYDOWN:
                self.capturing = False
                return [KeyCaptured("keys", pygame.key.name(event.key))]
            if event.type == pygame.CONTROLLERBUTTONDOWN and event.instance_id in self.pads:
                names = {v: k for k, v in PAD_BUTTONS.items()}
                if event.button in names:
                    self.capturing = False
                    return [KeyCaptured(f"pad:{event.instance_id}", names[event.button], True)]
        return super().actions(event)


def effective_bindings(overrides) -> dict:
    """The default bindings with the player's changed tables in place of the defaults."""
    bindings = default_bindings()
    for source, table in (overrides or {}).items():
        bindings[source] = copy.deepcopy(table)
    return bindings


def key_label(name: str, pad: bool = False) -> str:
    """How a key or button is called on screen: ``"[7]"`` -> ``"7"``, ``"a"`` -> ``"A"`` (pad)."""
    if pad:
        return PAD_NAMES.get(name, name)
    if name in KEY_NAMES:
        return KEY_NAMES[name]
    if name.startswith("[") and name.endswith("]"):
        return name[1:-1]  # the numpad's own digits
    return name.upper() if len(name) == 1 else name.title()


def target_grid(table: dict) -> list[list[str]] | None:
    """The nine target keys of a table as three rows (top-left first), or None when it has none.

    A target without a key shows as ``"-"``; a target with several keys shows them all.
    """
    grid = [[[] for _ in range(3)] for _ in range(3)]
    found = False
    for name, spec in table.items():
        if spec and spec[0] == "select" and len(spec) == 3 and -1 <= spec[1] <= 1 and -1 <= spec[2] <= 1:
            grid[spec[2] + 1][spec[1] + 1].append(key_label(name))
            found = True
    if not found:
        return None
    return [["/".join(cell) or "-" for cell in row] for row in grid]
