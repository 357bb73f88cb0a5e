"""A plain breadth-first search for par, one referee call per move: the yardstick for the solver.

Nothing clever: states are whole :class:`~game.core.race.CarState` summaries
``(position, velocity, progress, skip)`` and every move is played by the referee
itself (:meth:`RaceState.apply` on a one-car race), so it agrees with the rules by
construction. Tests compare the fast solver against it on small tracks; the benchmark
times both on the same track. Only on-road moves and the moves the rules make legal
are tried, exactly as a player could.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, replace

from game.core.race import FINISHED, RaceState
from game.core.rules import RuleSet
from game.core.track import Track


@dataclass(frozen=True)
class ReferenceResult:
    par: int | None
    states: int
    seconds: float
    complete: bool  # False when ``max_states`` stopped the search first


def reference_par(track: Track, rules: RuleSet, laps: int | None = None, slot: int | None = None,
                  max_states: int | None = None, setbacks: bool = True) -> ReferenceResult:
    """Fewest moves for a lone car to the finish, by breadth-first search over referee calls.

    From start place ``slot`` (an index into ``track.start_slots``), or with None (the
    default) from every start place at once: the par, the best start place's count.

    Under ``setback`` rules a car with no legal target is set back and restarts at rest:
    a crash move that can brake (and jump) where no legal move does. ``setbacks=False``
    leaves those crashes out (the car is out instead), which is how par is counted under
    those rules (no crash moves; see :mod:`game.drivers.solver`). With setbacks the search
    keys states without the history a set-back looks at, so its count is a real race
    but not always the fewest moves with crashes: it is never more than the crash-free par.
    """
    began = time.perf_counter()
    grid = RaceState.start(track, rules, [f"c{i}" for i in range(len(track.start_slots))], laps=laps)
    starts = [RaceState(track=grid.track, rules=rules, laps=grid.laps, seed=0, cars=(car,))
              for i, car in enumerate(grid.cars) if slot is None or i == slot]

    def key(c):
        # a car that has not moved yet is another state where the first move has a rule of its own
        return (c.position, c.velocity, c.progress, c.skip, c.moves == 0 and rules.first_move_restricted)

    seen = {key(state.cars[0]): 0 for state in starts}
    queue = deque(starts)
    while queue:
        state = queue.popleft()
        c = state.cars[0]
        depth = c.moves
        if max_states is not None and len(seen) > max_states:
            return ReferenceResult(None, len(seen), time.perf_counter() - began, False)
        if c.skip:
            options = [{}]
        else:
            targets = state.legal_targets(0)
            if not targets and not setbacks and rules.sets_back:
                continue
            options = [{0: t} for t in targets] if targets else [{}]
        for choice in options:
            after, _ = state.apply(choice)
            a = after.cars[0]
            if a.status == FINISHED:
                return ReferenceResult(depth + 1, len(seen), time.perf_counter() - began, True)
            if not a.racing:
                continue
            k = key(a)
            if k not in seen:
                seen[k] = depth + 1
                # forget the history (it only matters for setback rules) to keep states small
                queue.append(RaceState(track=state.track, rules=rules, laps=state.laps, seed=0,
                                       cars=(a if rules.sets_back else _trim(a),)))
    return ReferenceResult(None, len(seen), time.perf_counter() - began, True)


def _trim(c):
    return replace(c, history=c.history[-1:])
