"""The CPU levels, one table: what each level is called and how it drives on every kind of paper.

The lobby (its "add CPU" row and the names on a card), the command line's help, the
settings reader, the traffic model of :mod:`game.drivers.cpu`, fine paper
(:mod:`game.drivers.fine`) and the flick CPU (:mod:`game.drivers.flick`) all read
:data:`CPU_LEVELS`; a new level is one row here (and its driver class in ``cpu.KINDS``).
A kind that is not in the table is an error (:func:`cpu_level` raises
:class:`UnknownLevelError`), never silently the Champion.

>>> [level.name for level in CPU_LEVELS]
['Rookie', 'Pro', 'Champion']
>>> cpu_level("cpu:pro").fine_noise
0.6
>>> cpu_level("cpu:wizard")  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
  ...
UnknownLevelError: unknown CPU level 'cpu:wizard'; choose one of cpu:rookie, cpu:pro, cpu:champion
"""

from __future__ import annotations

from dataclasses import dataclass

from game.core.errors import RacetrackError


class UnknownLevelError(RacetrackError, ValueError):
    """A CPU kind the level table does not hold (say, a saved seat written by a newer version)."""


@dataclass(frozen=True)
class Level:
    """How a car of one level is expected to choose (the traffic model's view of it).

    ``temperature``: moves of score difference that make a target e times less likely (a
    sharper driver takes its best target more surely). ``care``: the chance it avoids a
    pick it can see (ordered choosing). ``caution``: the share of a collision's cost it
    weighs. ``answers``: whether it reads the traffic at all when choosing.
    """

    temperature: float
    care: float
    caution: float
    answers: bool = True


@dataclass(frozen=True)
class CpuLevel:
    """One CPU level: its driver kind, the name players read, and its settings on each kind of paper.

    ``traffic``: how it chooses among cars (squared paper, :class:`Level`). ``fine_noise``
    and ``flick_noise``: the standard deviation, in squares, of the noise on its scores
    on fine paper and on its aim with the pen flick. ``colour``: where its cars' colours
    start in the lobby (a Champion tends to the darker inks). ``blurb``: a few words for
    the command line's help.
    """

    kind: str
    name: str
    traffic: Level
    fine_noise: float
    flick_noise: float
    colour: int
    blurb: str


#: Every CPU level, weakest first (the order the lobby offers them in).
CPU_LEVELS: tuple[CpuLevel, ...] = (
    CpuLevel("cpu:rookie", "Rookie", Level(temperature=1.0, care=0.7, caution=0.5, answers=False),
             fine_noise=1.5, flick_noise=1.6, colour=4, blurb="blurred reading, often brakes late"),
    CpuLevel("cpu:pro", "Pro", Level(temperature=0.35, care=0.95, caution=1.0),
             fine_noise=0.6, flick_noise=0.8, colour=2, blurb="the optimum, now and then a move slower"),
    CpuLevel("cpu:champion", "Champion", Level(temperature=0.1, care=1.0, caution=1.0),
             fine_noise=0.0, flick_noise=0.35, colour=5, blurb="the exact optimum"),
)


def level_kinds() -> tuple[str, ...]:
    """The driver kinds of every level, weakest first: ``("cpu:rookie", "cpu:pro", "cpu:champion")``."""
    return tuple(level.kind for level in CPU_LEVELS)


def cpu_level(kind: str) -> CpuLevel:
    """The level of driver kind ``kind``; raises :class:`UnknownLevelError` naming the known ones."""
    for level in CPU_LEVELS:
        if level.kind == kind:
            return level
    raise UnknownLevelError(f"unknown CPU level {kind!r}; choose one of {', '.join(level_kinds())}")


def levels_help() -> str:
    """The levels as the command line's help lists them: ``cpu:rookie (blurred ...), ...``."""
    return ", ".join(f"{level.kind} ({level.blurb})" for level in CPU_LEVELS)
