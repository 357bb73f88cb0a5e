"""Which car an input device drives on the race screen, and who is choosing now (no pygame).

The race screen asks :class:`SeatRouter` for the car behind every press. ``devices`` maps
an input source (``"kb1"``, ``"kb2"``, ``"pad:<id>"``) to a car. Sources not in the map
(``"keys"``: numpad and arrows, ``"mouse"``) act for the human whose turn it is (the first
one still choosing, else the one who chose last). A gamepad not yet in the map is given to
the first human seat without a gamepad on its first press, which also handles unplugging
and plugging back in. With the menus' seats (``menus.seats.SeatDevices``) only a car whose
pad was pulled may be taken over, and the keyboard block nobody chose drives nobody. In the
tutorial (``any_device``) every source drives the lone human. A phone (``"phone:<n>"``) acts
only for its own car, and a shared source never acts for a phone's car (it is aimed on the phone).

The router reads the race through ``turns``: anything with ``waiting_humans()`` (the human
cars whose choice is wanted now) and ``chosen(car)`` (the choice a car has made this phase),
such as :class:`game.race.controller.RaceController`.
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence

#: Where each keyboard source's player finds their keys (the help line names them).
HINTS = {"kb1": "QWE/ASD/ZXC", "kb2": "UIO/JKL/M,.", "keys": "numpad, arrows+Enter or mouse"}


class Turns(Protocol):
    """What the router reads of the race: who is awaited and who has chosen."""

    def waiting_humans(self) -> Sequence[int]: ...

    def chosen(self, car: int) -> Any: ...


class SeatRouter:
    """Routes input sources to human cars for one race.

    ``humans`` are the human cars in seat order; ``devices`` the fixed map (None: ``kb1`` and
    ``kb2`` for the first two humans); ``seats`` the menus' seat manager, whose ``devices``
    map is shared rather than copied (a pad taking a car over is seen by the next race).
    """

    def __init__(self, humans: Sequence[int], devices: dict[str, int] | None = None, seats: Any = None,
                 any_device: bool = False) -> None:
        self.humans = tuple(humans)
        self.seats = seats
        self.any_device = any_device
        if seats is not None:
            self.devices: dict[str, int] = seats.devices  # one mapping, shared with the seat manager
        else:
            if devices is None:
                devices = {src: car for src, car in zip(("kb1", "kb2"), self.humans)}
            self.devices = dict(devices)
        #: The car that submitted last: a shared source (``keys``, ``mouse``) acts for it when nobody waits.
        self.last_submitted: int | None = None

    def car_for(self, source: str, turns: Turns) -> int | None:
        """The human car ``source`` acts for right now (None if it has none).

        A gamepad's first press may take a seat here (see the module docstring).
        """
        if source.startswith("phone:"):  # a phone acts for its own car only, never another's
            return self.devices.get(source)
        if self.any_device and (turns.waiting_humans() or source in self.devices):
            return self.humans[0] if self.humans else None
        if source in self.devices:
            return self.devices[source]
        if self.seats is not None:
            if source.startswith("pad:"):
                return self.seats.claim(source)  # only a car whose pad was pulled may be taken over
            if source.startswith("kb") and any(s.startswith("kb") for s in self.devices):
                return None  # the other keyboard block belongs to nobody in this race
        if source.startswith("pad:"):
            return self._seat_pad(source)
        phones = self.phone_cars()
        waiting = [car for car in self.choosing(turns) if car not in phones]
        if waiting:
            return waiting[0]
        return self.last_submitted

    def _seat_pad(self, source: str) -> int | None:
        """A new gamepad takes the first human seat that has no gamepad (None: every seat has one)."""
        taken = {car for src, car in self.devices.items() if src.startswith("pad:")}
        free = [car for car in self.humans if car not in taken]
        if not free:
            return None
        self.devices[source] = free[0]
        return free[0]

    @staticmethod
    def choosing(turns: Turns) -> list[int]:
        """The humans whose choice is wanted and not yet made, in choosing order."""
        return [car for car in turns.waiting_humans() if turns.chosen(car) is None]

    def chooses(self, source: str, turns: Turns) -> bool:
        """Whether a press from ``source`` belongs to a human who has a choice to make next.

        An unknown gamepad is not seated by this question: it takes a seat only while choosing.
        """
        if source not in self.devices and source.startswith("pad:"):
            return False
        car = self.car_for(source, turns)
        return car is not None and car in turns.waiting_humans() and turns.chosen(car) is None

    def phone_seats(self) -> list[tuple[str, int]]:
        """The phone seats, ``(device, car)``: seated, then away (their car waits for the phone)."""
        seated = [(src, car) for src, car in self.devices.items() if src.startswith("phone:")]
        away = list(self.seats.away.items()) if self.seats is not None else []
        return seated + away

    def phone_cars(self) -> set[int]:
        """The cars driven from a phone, seated or away (their aim is never shown on the TV)."""
        return {car for _, car in self.phone_seats()}

    def back(self, source: str) -> int | None:
        """A phone came back with its seat token: its own car again (None: it had none away)."""
        return self.seats.back(source) if self.seats is not None else None

    def phone_orphans(self) -> tuple[int, ...]:
        """The orphaned cars whose phone went away (they wait for it, or a pad, to come back)."""
        if self.seats is None:
            return ()
        away = set(self.seats.away.values())
        return tuple(car for car in self.orphans if car in away)

    def unplugged(self, source: str) -> int | None:
        """A device went away: the car it drove (None: it drove none)."""
        if self.seats is not None:
            return self.seats.unplugged(source)
        return self.devices.pop(source, None)

    @property
    def orphans(self) -> tuple[int, ...]:
        """Cars waiting for a gamepad (their pad was pulled; only with the menus' seats)."""
        return tuple(self.seats.orphans) if self.seats is not None else ()

    def source_of(self, car: int) -> str:
        """The source that drives ``car`` (``"keys"`` when none is its own), for the help line."""
        return next((src for src, c in self.devices.items() if c == car), "keys")
