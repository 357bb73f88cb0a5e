"""What a phone may send, checked before anything else reads it.

Every message is one JSON object of at most :data:`MAX_MESSAGE` bytes with a ``t`` (its
kind) and only the fields that kind has, each of a fixed type and range. Anything else is
a :class:`Refused` with a reason in words; nothing a phone sends is used in any other
way than as one of the messages below (never a path, never a rule).

>>> parse('{"t": "join", "code": "0427", "name": "Ada"}')
Join(code='0427', name='Ada')
>>> parse('{"t": "pick", "k": [1, -1], "p": 3, "go": true}')
Pick(key=(1, -1), phase=3, go=True)
>>> parse('{"t": "answer", "n": 2, "yes": false}')
Answer(number=2, yes=False)
>>> parse('{"t": "flick", "a": 900, "s": 500, "p": 4}')
Flick(angle=900, strength=500, phase=4)
>>> parse('{"t": "pick", "k": [1, 99999], "p": 3}').reason
'pick: k must be two whole numbers from -64 to 64'
"""

from __future__ import annotations

import json
from dataclasses import dataclass

#: The largest message a phone may send, in bytes (a join with a 16-letter name is ~80).
MAX_MESSAGE = 512
#: A name on the TV: at most this many characters, letters, digits, spaces and a few marks.
MAX_NAME = 12
#: Keys of targets lie within this many steps of the base point on every movement system.
MAX_KEY = 64
CODE_DIGITS = 4


@dataclass(frozen=True)
class Refused:
    """A message that was not accepted, and why (logged once per connection and kind)."""

    reason: str
    kind: str = "malformed"


@dataclass(frozen=True)
class Join:
    """The room code and a name: a new phone asks for a seat."""

    code: str
    name: str


@dataclass(frozen=True)
class Hello:
    """A phone that had a seat comes back (a reload, a wake-up) with its seat token."""

    token: str


@dataclass(frozen=True)
class Colour:
    """Take a free colour (an index into the game's colours)."""

    colour: int


@dataclass(frozen=True)
class Pick:
    """Aim at the target with layout key ``key`` in phase ``phase``; ``go`` confirms it too."""

    key: tuple[int, int]
    phase: int
    go: bool = False


@dataclass(frozen=True)
class Confirm:
    """Confirm the target aimed at in phase ``phase``."""

    phase: int


@dataclass(frozen=True)
class Pause:
    """Pause the race (or resume it when the pause was the phone's)."""


@dataclass(frozen=True)
class Leave:
    """Give up the seat."""


@dataclass(frozen=True)
class Answer:
    """Answer the question the game put to this phone (a confirm dialog): ``number`` is the
    question's, so an answer to a question already gone is dropped; ``yes`` the answer."""

    number: int
    yes: bool


@dataclass(frozen=True)
class Flick:
    """Flick the pen in phase ``phase`` (the pen-flick party mode): ``angle`` in tenths of a
    degree (0 = right, 900 = down), ``strength`` in thousandths of the full reach, as the
    phone's swinging meter stood when the player tapped."""

    angle: int
    strength: int
    phase: int


Message = Join | Hello | Colour | Pick | Confirm | Pause | Leave | Answer | Flick
COLOURS = 8
_FIELDS = {"join": {"code", "name"}, "hello": {"token"}, "colour": {"c"}, "pick": {"k", "p", "go"},
           "confirm": {"p"}, "pause": set(), "leave": set(), "answer": {"n", "yes"},
           "flick": {"a", "s", "p"}}


def _int(value, low: int, high: int) -> bool:
    return type(value) is int and low <= value <= high


def clean_name(name: str) -> str | None:
    """The name as the TV shows it (spaces squeezed), or None when it has a character the TV should not draw."""
    name = " ".join(name.split())
    if not 1 <= len(name) <= MAX_NAME:
        return None
    if not all(ch.isalnum() or ch in " .-_'!?" for ch in name):
        return None
    return name


def parse(data: str | bytes) -> Message | Refused:
    """One message from a phone, checked: its kind, its fields and their ranges."""
    if len(data) > MAX_MESSAGE:
        return Refused(f"message of {len(data)} bytes is over the {MAX_MESSAGE}-byte limit", "oversized")
    if isinstance(data, bytes):
        return Refused("binary messages are not accepted")
    try:
        found = json.loads(data, parse_constant=lambda _: None)  # NaN and Infinity are not numbers here
    except (ValueError, RecursionError):
        return Refused("not JSON")
    if not isinstance(found, dict) or not isinstance(found.get("t"), str) or found["t"] not in _FIELDS:
        return Refused("not a message this game knows (a JSON object with a known 't')")
    kind = found.pop("t")
    extra = set(found) - _FIELDS[kind]
    if extra:
        return Refused(f"{kind}: unknown field {sorted(extra)[0]!r}")
    return _build(kind, found)


def _build(kind: str, f: dict) -> Message | Refused:
    if kind == "join":
        code, name = f.get("code"), f.get("name")
        if not (isinstance(code, str) and len(code) == CODE_DIGITS and code.isascii() and code.isdigit()):
            return Refused(f"join: code must be {CODE_DIGITS} digits")
        shown = clean_name(name) if isinstance(name, str) else None
        if shown is None:
            return Refused(f"join: name must be 1 to {MAX_NAME} letters, digits, spaces or . - _ ' ! ?")
        return Join(code, shown)
    if kind == "hello":
        token = f.get("token")
        if not (isinstance(token, str) and len(token) == 32 and all(c in "0123456789abcdef" for c in token)):
            return Refused("hello: token must be 32 hex digits")
        return Hello(token)
    if kind == "colour":
        if not _int(f.get("c"), 0, COLOURS - 1):
            return Refused(f"colour: c must be a whole number from 0 to {COLOURS - 1}")
        return Colour(f["c"])
    if kind == "pick":
        key = f.get("k")
        if not (isinstance(key, list) and len(key) == 2 and all(_int(v, -MAX_KEY, MAX_KEY) for v in key)):
            return Refused(f"pick: k must be two whole numbers from -{MAX_KEY} to {MAX_KEY}")
        if not _int(f.get("p"), 0, 1_000_000):
            return Refused("pick: p must be a phase number")
        go = f.get("go", False)
        if not isinstance(go, bool):
            return Refused("pick: go must be true or false")
        return Pick((key[0], key[1]), f["p"], go)
    if kind == "confirm":
        if not _int(f.get("p"), 0, 1_000_000):
            return Refused("confirm: p must be a phase number")
        return Confirm(f["p"])
    if kind in ("answer", "flick"):
        return _build_in_race(kind, f)
    return Pause() if kind == "pause" else Leave()


def _build_in_race(kind: str, f: dict) -> Message | Refused:
    """The messages only a race asks for: an answer to the TV's question, a pen flick."""
    if kind == "answer":
        if not _int(f.get("n"), 0, 1_000_000):
            return Refused("answer: n must be a question's number")
        if not isinstance(f.get("yes"), bool):
            return Refused("answer: yes must be true or false")
        return Answer(f["n"], f["yes"])
    if not _int(f.get("a"), 0, 3599):
        return Refused("flick: a must be tenths of a degree from 0 to 3599")
    if not _int(f.get("s"), 0, 1000):
        return Refused("flick: s must be thousandths from 0 to 1000")
    if not _int(f.get("p"), 0, 1_000_000):
        return Refused("flick: p must be a phase number")
    return Flick(f["a"], f["s"], f["p"])
