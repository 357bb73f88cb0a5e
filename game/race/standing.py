"""Each car's moves to go, read from the solver's table: what ``by_position`` and catch-up read.

The rules core takes the standing as an input (``RaceState.with_standing``) and never runs
the solver; race control asks one of these before each phase
(``RaceController(standing=...)``), and the phase's record and the replay keep what it
said, so a replay is refereed the same without any table.

- :func:`table_standing`: one state's standing from a table (a car's moves to go from
  where it stands at its speed, plus the turns it still has to miss; None for a car out
  of the race or on the paper under ``slow_return``), searched exactly where the table has
  no answer, or estimated from the table alone on the frame loop.
- :class:`SolverStanding`: the CPUs' shared tables as a standing source. With
  ``wait=False`` (the game) it never builds a table on the frame's thread: until the
  race's table is ready (the head start builds it while the race counts down) it gives
  None, and that phase is played as if nobody were known to be behind (the rotating
  order, no catch-up). With ``wait=True`` (``racetrack sim``, tools, tests) it builds it.
"""

from __future__ import annotations

from game.core.movement import allowed_steps
from game.core.race import RaceState
from game.drivers.lone import remaining, table_remaining


def table_standing(table, state: RaceState, search: bool = True) -> tuple[int | None, ...]:
    """Each car's moves to go in ``state`` by ``table`` (a ``SolverTable`` or ``FoldedTable``).

    A car where a lone car never stands (moved by slipstream or catch-up, spun to rest) is
    searched through the referee (``game.drivers.lone.remaining``: exact) with ``search``;
    without it (the frame loop, where a search on an outline track could take a good part
    of a second) it is estimated from the table alone: one more than the best of its own
    next moves the table holds. None for a car out of the race, on the paper, or with no answer.
    """
    found: list[int | None] = []
    for i, car in enumerate(state.cars):
        if not car.racing or car.on_paper:
            found.append(None)
        elif search:
            found.append(remaining(table, state, i))
        else:
            known, to_go = table_remaining(table, state, i)
            found.append(to_go if known else _one_move_on(table, state, i))
    return tuple(found)


def _one_move_on(table, state: RaceState, car: int) -> int | None:
    """Moves to go estimated from the table alone: 1 + the fewest of the car's own next moves it holds."""
    c = state.cars[car]
    base = c.position + c.velocity
    best = None
    for step in allowed_steps(state.rules, c.velocity):
        velocity = c.velocity + step
        to_go = table.distance(base + step, velocity, c.progress)
        if to_go is not None and (best is None or to_go < best):
            best = to_go
    return None if best is None else 1 + best + c.skip


class SolverStanding:
    """A standing source over the CPUs' shared tables (``game.drivers.cpu.make_shared``)."""

    def __init__(self, shared, wait: bool = False) -> None:
        self.shared = shared
        self.wait = wait

    def __call__(self, state: RaceState) -> tuple[int | None, ...] | None:
        # Lazy on purpose: the solver loads only once a race needs the standings.
        from game.drivers.solver import supports

        if self.shared is None or not state.rules.needs_standing or not supports(state.rules):
            return None
        if self.wait:
            table = self.shared.table(state)
        else:
            last = self.shared.last_table  # read without the lock: a build under way holds it
            table = last[3] if last is not None and last[0] is state.track and last[1] == state.rules \
                and last[2] == state.laps else None
        return None if table is None else table_standing(table, state, search=self.wait)
