"""How far a lone car is from the finish: the solver's table, and a short referee search where it has no answer.

The table (``SolverTable``) holds every state a lone car can reach from the grid; a car
can stand where a lone car never does (spun to rest, on the paper, or moved by slipstream
or catch-up beyond what its own targets reach). :func:`remaining` then searches through the
referee until every line meets a state the table holds. The debrief, the timing tower, the
standing of the ``by_position`` order and catch-up (``game.race.standing``) and the CPUs'
value of a slipstream or catch-up target all read it.
"""

from __future__ import annotations

from collections import deque

from game.core.race import FINISHED, CarState, RaceState
from game.core.vec import ZERO

#: The most states :func:`remaining`'s search visits before it gives up (None).
SEARCH_LIMIT = 20_000


def remaining(table, state: RaceState, car: int, limit: int = SEARCH_LIMIT) -> int | None:
    """The fewest moves ``car`` still needs to finish from ``state`` if it drove alone (0: finished).

    Read from the solver's ``table`` (the one the CPUs use) with the turns the car must
    still miss added; a state the table does not hold (a car spun to rest where a lone
    car never stops, a car on the paper) is searched through the referee until every
    line reaches a state the table holds (:func:`_search`). None: the car is out of the
    race or cannot finish.
    """
    c = state.cars[car]
    if c.status == FINISHED:
        return 0
    if not c.racing:
        return None
    known = _known(table, c)
    if known is not _UNKNOWN:
        return known
    return _search(table, state, c, limit)


def table_remaining(table, state: RaceState, car: int) -> tuple[bool, int | None]:
    """:func:`remaining` read from the table alone, for the frame loop: ``(True, moves)``, or
    ``(False, None)`` when the car stands where a lone car never does (then only
    :func:`remaining`, which searches, knows)."""
    c = state.cars[car]
    if c.status == FINISHED:
        return True, 0
    if not c.racing:
        return True, None
    known = _known(table, c)
    return (False, None) if known is _UNKNOWN else (True, known)


_UNKNOWN = object()


def _known(table, c: CarState):
    """The table's remaining moves for a car (None: cannot finish), or ``_UNKNOWN`` if it has no such state."""
    if c.on_paper:
        return _UNKNOWN
    velocity = ZERO if c.skip else c.velocity  # a car missing its turn stands: it starts again at rest
    sid = table.state_id(c.position, velocity, c.progress)
    if sid < 0:
        return _UNKNOWN
    d = table.to_go(sid)
    return None if d is None else d + c.skip


def _search(table, state: RaceState, c: CarState, limit: int) -> int | None:
    """Breadth-first search through the referee from one car alone, stopping at states the table holds.

    Exact: a state the table holds is worth its depth plus its distance, and the search
    stops once no shallower line can beat the best found. None when no line finishes
    within ``limit`` states.
    """
    solo = RaceState(track=state.track, rules=state.rules, laps=state.laps, seed=state.seed, cars=(c,),
                     phase=state.phase)
    best: int | None = None
    seen = {_key(c)}
    queue = deque([(solo, 0)])
    while queue:
        here, depth = queue.popleft()
        if best is not None and depth + 1 >= best:
            break
        targets = here.legal_targets(0) if not here.cars[0].skip else ()
        for choice in ([{0: t} for t in targets] or [{}]):
            after, _ = here.apply(choice)
            a = after.cars[0]
            if a.status == FINISHED:
                return depth + 1 if best is None else min(best, depth + 1)
            if not a.racing or _key(a) in seen:
                continue
            seen.add(_key(a))
            known = _known(table, a)
            if known is _UNKNOWN:
                if len(seen) < limit:
                    queue.append((after, depth + 1))
            elif known is not None:
                best = depth + 1 + known if best is None else min(best, depth + 1 + known)
    return best


def _key(c: CarState) -> tuple:
    return (c.position, c.velocity, c.progress, c.skip, c.on_paper, c.offences)
