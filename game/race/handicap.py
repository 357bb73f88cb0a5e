"""Fair handicaps for mixed groups: a head start on the grid, or a count reduced at the finish.

A car's handicap is a whole number of moves, 0 to ``MAX_HANDICAP``, exact and visible.
The rule option ``handicap`` (:data:`HANDICAP_KINDS`, ``RuleSet.handicap``) says how it
is given:

- ``head_start``: as on paper, the car makes its first moves before the others start.
  The cars with less handicap than the most miss their first turns (the difference), so
  the car with handicap ``h`` has made ``h`` moves more than the field when the last car
  sets off. Race control and the referee both start the race with
  :func:`head_start_state`, so a replay's head starts are refereed like any phase.
- ``count``: everybody starts together; the car's count is reduced by ``h`` at the finish.

Either way the results show a car's *raw* moves (the moves it drove) and its
*handicapped* moves (raw minus its handicap, :func:`handicapped_moves`); under a head
start the handicapped moves are the phase the car finished in, counted from the phase
the last car set off in.

``auto`` handicaps (:func:`auto_handicaps`) come from each player's moves over par in
their last results on this machine: the better players give the others a head start so
that the predicted finishes tie.

Pure: no pygame, no clock.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping, Sequence

from game.core.race import FINISHED, RaceState
from game.race.replay import HANDICAP_KINDS, MAX_HANDICAP

__all__ = ["HANDICAP_KINDS", "MAX_HANDICAP", "auto_handicaps", "handicap_problem", "handicapped_moves",
           "head_start_state", "missed_turns", "raw_moves"]


def handicap_problem(value) -> str:
    """Why ``value`` is no handicap ("" when it is one): a whole number of moves 0-10, or "auto"."""
    if value == "auto":
        return ""
    if type(value) is not int or not 0 <= value <= MAX_HANDICAP:
        return f'must be a whole number of moves from 0 to {MAX_HANDICAP} or "auto", not {value!r}'
    return ""


def missed_turns(handicaps: Sequence[int], kind: str) -> list[int]:
    """The turns each car misses at the start: under a head start the most handicap less its own, else 0."""
    if kind != "head_start" or not handicaps:
        return [0] * len(handicaps)
    most = max(handicaps)
    return [most - h for h in handicaps]


def head_start_state(state: RaceState, handicaps: Sequence[int], kind: str) -> RaceState:
    """The race's first state with the head starts given (the others miss their first turns); unchanged
    for the ``count`` kind or when nobody has a handicap."""
    waits = missed_turns(handicaps, kind)
    if not any(waits):
        return state
    cars = tuple(replace(c, skip=c.skip + w) for c, w in zip(state.cars, waits))
    return replace(state, cars=cars)


def raw_moves(state: RaceState, car: int, handicaps: Sequence[int], kind: str) -> int | None:
    """The moves ``car`` drove (None unless it finished): its count less the turns it waited at the start."""
    c = state.cars[car]
    if c.status != FINISHED:
        return None
    return c.moves - missed_turns(handicaps, kind)[car]


def handicapped_moves(state: RaceState, car: int, handicaps: Sequence[int], kind: str) -> int | None:
    """The moves ``car`` is ranked by: its raw moves less its handicap (None unless it finished)."""
    raw = raw_moves(state, car, handicaps, kind)
    return None if raw is None else raw - handicaps[car]


def auto_handicaps(over_par: Sequence[float | None]) -> list[int]:
    """Handicaps that make predicted finishes tie: each player's expected moves over par less the
    best player's, rounded, at most ``MAX_HANDICAP`` (None: nothing known, no handicap).

    >>> auto_handicaps([1.0, 4.6, None, 30])
    [0, 4, 0, 10]
    """
    known = [v for v in over_par if v is not None]
    if not known:
        return [0] * len(over_par)
    best = min(known)
    return [0 if v is None else min(MAX_HANDICAP, max(0, round(v - best))) for v in over_par]


def over_par_of(history: Mapping[str, Sequence[int]], names: Sequence[str]) -> list[float | None]:
    """Each name's mean moves over par in its last results (None: no result kept)."""
    out: list[float | None] = []
    for name in names:
        runs = list(history.get(name, ()))
        out.append(sum(runs) / len(runs) if runs else None)
    return out


def handicapped_ranks(state: RaceState, handicaps: Sequence[int], kind: str) -> list[int | None]:
    """Places by handicapped moves (fewest first, equal moves share a place); None for cars that did
    not finish. Without handicaps: the race's own outcome (its tie-breaks kept)."""
    if not any(handicaps):
        return list(state.outcome().ranks)
    moves = [handicapped_moves(state, i, handicaps, kind) for i in range(len(state.cars))]
    return [None if m is None else 1 + sum(1 for o in moves if o is not None and o < m) for m in moves]
