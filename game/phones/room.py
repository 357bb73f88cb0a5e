"""The room: its code, the phones that hold a seat token, and the limits on guessing and flooding.

Pure and clock-free: every call that depends on time takes ``now`` (seconds, any origin).
The server thread owns one :class:`Room` per time the phones row is turned on; a new room
has a new code and no tokens, so nothing from an earlier evening gets back in.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Callable

from game.phones.protocol import CODE_DIGITS, Refused

#: At most this many phones hold a seat token at once (the game has eight seats).
MAX_PHONES = 8
#: Wrong codes one address may send before it must wait; the wait doubles with each further one.
FREE_TRIES, FIRST_WAIT, LONGEST_WAIT = 3, 10.0, 300.0


def new_code(randbelow: Callable[[int], int] = secrets.randbelow) -> str:
    """A fresh room code: four digits from the system's secure random source."""
    return f"{randbelow(10 ** CODE_DIGITS):0{CODE_DIGITS}d}"


@dataclass
class PhoneSeat:
    """A phone that took a seat: its number in the room (``phone:<id>`` in the game) and secret token."""

    id: int
    token: str
    name: str


@dataclass
class Bucket:
    """A token bucket: ``rate`` messages a second on average, ``burst`` at once. One per connection."""

    rate: float = 20.0
    burst: float = 40.0
    level: float = field(default=-1.0)
    last: float = 0.0

    def take(self, now: float) -> bool:
        """Whether one more message may pass now."""
        if self.level < 0:
            self.level, self.last = self.burst, now
        self.level = min(self.burst, self.level + (now - self.last) * self.rate)
        self.last = now
        if self.level < 1.0:
            return False
        self.level -= 1.0
        return True


@dataclass
class _Guesses:
    wrong: int = 0
    until: float = 0.0


class Room:
    """One evening's room: the code to join, the seat tokens handed out, wrong codes counted per address."""

    def __init__(self, code: str | None = None, token: Callable[[], str] = lambda: secrets.token_hex(16)) -> None:
        self.code = code if code is not None else new_code()
        self._token = token
        self.phones: dict[int, PhoneSeat] = {}
        self._next = 1
        self._guesses: dict[str, _Guesses] = {}

    def admit(self, address: str, code: str, name: str, now: float) -> PhoneSeat | Refused:
        """A join from ``address``: a seat token for the right code, else why not (wrong codes counted)."""
        guess = self._guesses.setdefault(address, _Guesses())
        if now < guess.until:
            return Refused(f"too many wrong codes: try again in {int(guess.until - now) + 1} s", "rate-limited")
        if not secrets.compare_digest(code, self.code):
            guess.wrong += 1
            if guess.wrong >= FREE_TRIES:
                guess.until = now + min(LONGEST_WAIT, FIRST_WAIT * 2 ** (guess.wrong - FREE_TRIES))
            return Refused("wrong room code: it is on the TV", "wrong-code")
        if len(self.phones) >= MAX_PHONES:
            return Refused(f"all {MAX_PHONES} phone seats are taken", "full")
        guess.wrong = 0
        seat = PhoneSeat(self._next, self._token(), name)
        self._next += 1
        self.phones[seat.id] = seat
        return seat

    def find(self, token: str) -> PhoneSeat | None:
        """The phone whose seat token this is (compared in constant time), or None."""
        return next((p for p in self.phones.values() if secrets.compare_digest(p.token, token)), None)

    def forget(self, phone: int) -> None:
        """The phone gave up its seat (or the game refused it): its token opens nothing any more."""
        self.phones.pop(phone, None)
