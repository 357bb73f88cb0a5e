"""What the server hands the game (through a queue the frame loop drains, never waits on).

Each names the phone by its number in the room; the game calls that device ``phone:<n>``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Joined:
    """A phone typed the right code and a name: it wants a seat (the lobby seats it or refuses)."""

    phone: int
    name: str


@dataclass(frozen=True)
class LookWanted:
    """A seated phone asks for a colour (the lobby gives it when nobody else has it)."""

    phone: int
    colour: int


@dataclass(frozen=True)
class Picked:
    """A phone aimed at (``go``: and confirmed) the target with layout key ``key`` in ``phase``."""

    phone: int
    key: tuple[int, int]
    phase: int
    go: bool = False


@dataclass(frozen=True)
class Confirmed:
    phone: int
    phase: int


@dataclass(frozen=True)
class Paused:
    phone: int


@dataclass(frozen=True)
class Left:
    """The phone gave up its seat (its token opens nothing any more)."""

    phone: int


@dataclass(frozen=True)
class Lost:
    """The phone's connection dropped (asleep, out of Wi-Fi, reloading): its seat waits for it."""

    phone: int


@dataclass(frozen=True)
class Back:
    """A phone came back with its seat token."""

    phone: int


@dataclass(frozen=True)
class Answered:
    """A phone answered question ``number`` (a confirm dialog the game showed it): ``yes`` or no."""

    phone: int
    number: int
    yes: bool


@dataclass(frozen=True)
class Flicked:
    """A phone flicked its pen in ``phase``: ``angle`` in tenths of a degree, ``strength`` in thousandths."""

    phone: int
    angle: int
    strength: int
    phase: int


PhoneEvent = Joined | LookWanted | Picked | Confirmed | Paused | Left | Lost | Back | Answered | Flicked
