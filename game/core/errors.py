"""Typed errors of the rules core; every message names what was wrong."""

from __future__ import annotations


class RacetrackError(Exception):
    """Base of every error Racetrack raises on purpose."""


class RulesError(RacetrackError, ValueError):
    """An unknown preset, option or option value."""


class RaceSetupError(RacetrackError, ValueError):
    """A race that cannot start: too many cars for the start grid, bad lap count, ..."""


class IllegalChoiceError(RacetrackError, ValueError):
    """A driver chose a target the rules do not allow.

    ``phase`` and ``car`` locate the choice; ``reason`` says why in a player's words.
    """

    def __init__(self, phase: int, car: int, choice: object, reason: str) -> None:
        self.phase = phase
        self.car = car
        self.choice = choice
        self.reason = reason
        super().__init__(f"phase {phase}, car {car}: {choice!r} is illegal: {reason}")
