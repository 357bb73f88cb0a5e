"""How far a car is through a race, and what crossing a gate does to that.

The one place the lap and checkpoint rules live: the referee (:mod:`game.core.race`)
applies these functions to every crossing a move makes, and the exact solver
(:mod:`game.drivers.solver`) applies the very same functions to its progress values, so
the two can never count a lap differently.

>>> from game.core.rules import preset
>>> rules = preset("paper")
>>> start = Progress(balance=(0,))
>>> after, lap = cross_finish(start, -1, rules, checkpoints=0)   # rolled back over the line
>>> after.finish_debt, lap
(1, False)
>>> cross_finish(after, +1, rules, checkpoints=0)                # forward again: the debt is repaid
(Progress(laps_done=0, next_checkpoint=0, balance=(0,), finish_debt=0), False)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from game.core.rules import RuleSet


@dataclass(frozen=True)
class Progress:
    """How far a car is through the race: laps, checkpoints, and line crossings to undo."""

    laps_done: int = 0
    next_checkpoint: int = 0  # "ordered" checkpoints: index of the next one due
    balance: tuple[int, ...] = ()  # "any" checkpoints: net forward crossings this lap
    finish_debt: int = 0  # backward crossings of the finish that forward ones must repay


def checkpoints_done(progress: Progress, rules: RuleSet, checkpoints: int) -> bool:
    """Whether every one of the track's ``checkpoints`` counts as taken this lap."""
    if rules.ordered_checkpoints:
        return progress.next_checkpoint >= checkpoints
    return all(b > 0 for b in progress.balance)


def cross_finish(progress: Progress, direction: int, rules: RuleSet, checkpoints: int) -> tuple[Progress, bool]:
    """The progress after crossing the finish (``direction`` +1 forward, -1 backward), and whether a lap counts.

    A backward crossing is a debt the next forward one repays; a forward crossing with
    no debt counts a lap once every checkpoint is taken (the track has ``checkpoints``).
    """
    if direction < 0:
        return replace(progress, finish_debt=progress.finish_debt + 1), False
    if progress.finish_debt:
        return replace(progress, finish_debt=progress.finish_debt - 1), False
    if not checkpoints_done(progress, rules, checkpoints):
        return progress, False
    return Progress(laps_done=progress.laps_done + 1, balance=(0,) * checkpoints), True


def cross_checkpoint(progress: Progress, index: int, direction: int, rules: RuleSet) -> tuple[Progress, bool]:
    """The progress after crossing checkpoint ``index`` (0-based) in ``direction``, and whether it counts.

    Ordered checkpoints count only the one due next (and a backward crossing of the last
    one taken gives it back); in any order, each keeps a balance of net forward crossings.
    """
    if rules.ordered_checkpoints:
        if direction > 0 and index == progress.next_checkpoint:
            return replace(progress, next_checkpoint=index + 1), True
        if direction < 0 and index == progress.next_checkpoint - 1:
            return replace(progress, next_checkpoint=index), False
        return progress, False
    balance = list(progress.balance)
    before = balance[index]
    balance[index] += direction
    return replace(progress, balance=tuple(balance)), before <= 0 < balance[index]
