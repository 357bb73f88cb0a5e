"""Transition codes shared by the solver (Python) and its compiled kernels.

A progress transition (progress id, crossing signature) -> progress id uses these for
the outcomes that are not a progress id. The records below are what the kernels take
instead of long rows of positional numbers: the rules (:class:`MoveRules`), the pages
and the move rows.
"""

from __future__ import annotations

from typing import NamedTuple

FIN = -2  # the move finishes the race
NONE = -1  # the move ends the race without finishing, or leads where the search does not go
UNKNOWN = -3  # not worked out yet: the kernel asks, the solver fills it in



class MoveRules(NamedTuple):
    """The rules as the compiled kernels follow them: a small typed record of plain numbers.

    Built from a :class:`~game.core.rules.RuleSet` by :meth:`of` (its predicates), so the
    kernels never see an option string and a new penalty that behaves like an existing
    one needs no kernel change.
    """

    check: int  # the off-road check: 0 segment, 1 landing, 2 projection
    crashes: bool  # an off-road move ends where it leaves the road (reset, reset_skip, eliminate)
    resets: bool  # ...and the car restarts at rest on the nearest road node (reset, reset_skip)
    crash_cost: int  # moves a crash costs a resetting car (2 when it also misses a turn)
    terrain: bool  # terrain has effects here: read Moves.land / Moves.ice and the Pages' land_* tables

    @classmethod
    def of(cls, rules, terrain: bool = False) -> MoveRules:
        """The record of a rule set; ``terrain``: the track has road terrain and the rules give it effects."""
        return cls(check_code(rules), bool(rules.crash_stops_car), bool(rules.resets), int(rules.crash_cost),
                   bool(terrain and rules.terrain_effects))


class Pages(NamedTuple):
    """The solver's pages as the kernels read them: for each page (a progress and a velocity)..."""

    pid: object  # progress id
    row: object  # move-table row of the page's own velocity
    n_steps: object  # how many steps the velocity has
    succ_row: object  # [page, step]: move-table row of the velocity after the step
    succ_page: object  # [page, step]: page after the step (same progress)
    # Terrain (read only when MoveRules.terrain): where a move lands on sand, mud or a curb
    # the car keeps another velocity (game.core.terrain.landing_velocity). Column c - 1 is
    # landing code c (Moves.land) of the road node the move ends on:
    land_row: object  # [page, step, column]: move-table row of the velocity kept after landing
    land_page: object  # [page, step, column]: page of that velocity (same progress)
    keeps: object  # [page, column]: a move by the page's own velocity that lands there keeps it
    still: object  # [page]: the step that changes nothing (the only one on ice), -1 for a page at rest


class Moves(NamedTuple):
    """The move-table rows the search kernels read (flat ``[row * n_road + node]``, see MoveTables)."""

    packed: object  # target + 1, inside << 32, paper << 33, signature << 34
    reset: object  # restart node of a punished move
    csig: object  # signature of a punished move up to the crash, and the restart
    land: object  # [road node]: landing code (0: the velocity stays; c: column c - 1 of the Pages' land_*)
    ice: object  # [road node]: a moving car standing here cannot steer (only Pages.still)




def check_code(rules) -> int:
    """The rules' off-road check as the kernels spell it: 0 segment, 1 landing, 2 projection."""
    from game.core.rules import OffroadCheck
    return (OffroadCheck.SEGMENT, OffroadCheck.LANDING, OffroadCheck.PROJECTION).index(rules.offroad_check)
