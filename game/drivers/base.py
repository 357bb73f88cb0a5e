"""The one interface every driver implements, human or CPU (as OpenSpiel's bots do)."""

from __future__ import annotations

import random
from typing import Mapping, Protocol, runtime_checkable

from game.core.race import Choice, RaceState


@runtime_checkable
class Driver(Protocol):
    """Picks one legal target (or ``RETIRE``) for a car.

    ``committed`` holds the choices of cars that chose earlier this phase in ordered
    modes (empty when choices are simultaneous: nobody sees another's pick).
    ``rng`` is the only source of randomness a driver may use. ``kind`` is how replays
    and results name the driver: ``"human"``, ``"cpu:champion"``, ``"cpu:pro"``, ...
    A human driver's choice comes from the input devices, so ``is_human`` drivers are
    never asked to ``choose``; race control waits for the player instead.
    """

    kind: str
    is_human: bool

    def choose(self, state: RaceState, car: int, committed: Mapping[int, Choice], rng: random.Random) -> Choice:
        ...


class HumanDriver:
    """A seat taken by a player; its choices arrive as input actions."""

    kind = "human"
    is_human = True

    def choose(self, state: RaceState, car: int, committed: Mapping[int, Choice], rng: random.Random) -> Choice:
        raise RuntimeError("a human driver's choice comes from the player, not from choose()")
