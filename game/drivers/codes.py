"""Transition codes shared by the solver (Python) and its compiled kernels.

A progress transition (progress id, crossing signature) -> progress id uses these for
the outcomes that are not a progress id. The records below are what the kernels take
instead of long rows of positional numbers: the rules (:class:`MoveRules`), the pages
and the move rows.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from game.core.rules import OffroadCheck

FIN = -2  # the move finishes the race
NONE = -1  # the move ends the race without finishing, or leads where the search does not go
UNKNOWN = -3  # not worked out yet: the kernel asks, the solver fills it in

#: A move's gate events as the row builder codes them in one int64 (``kernels._encode``):
EVENT_BITS = 7  # bits of one event: 2 * gate + (1 forward, 0 backward) + 1
MAX_EVENTS = 9  # events one code holds (9 * 7 = 63 bits); a move with more is spelt out (RowsOut.only)
MAX_CODED_GATES = 63  # gates a code can name (2 * 62 + 1 + 1 < 2 ** 7): a track has at most 51



#: What one move does (the ``kind`` of :func:`game.drivers.kernels.move_outcome`):
SKIP = 0  # not a target: off the sheet, or a steering step of a car held on ice
DRIVES = 1  # legal: the car lands on ``node`` keeping the velocity of move-table ``row`` (``page``: same progress)
RESTART = 2  # a crash: the car restarts at rest on ``node``, missing ``cost - 1`` turns
OUT = 3  # a crash that puts the car out of the race (``node`` -1)
BARRED = 4  # leaves the road and the rules do not let it be chosen (or the search does not follow it)

#: What a crash leads to (``MoveRules.restart``): the car is out of the race, or it
#: restarts at rest on the road node nearest its crash point.
RESTART_OUT = 0
RESTART_NEAREST = 1


class MoveRules(NamedTuple):
    """The rules as the drivers follow them: a small typed record of plain numbers.

    The one channel through which rule meaning reaches the drivers: built from a
    :class:`~game.core.rules.RuleSet` by :meth:`of` (its predicates), so the kernels, the
    move rows and the CPUs never see an option string, and a new penalty that behaves
    like an existing one needs no driver change. :func:`game.drivers.kernels.move_outcome`
    reads it.
    """

    check: int  # the off-road check: 0 segment, 1 landing, 2 projection
    crashes: bool  # an off-road move ends where it leaves the road (reset, reset_skip, skip_by_speed, eliminate)
    restart: int  # what a crash leads to: RESTART_OUT or RESTART_NEAREST
    skips: object  # int64 [speed]: turns a crash at that speed (larger axis) misses; the last holds for faster
    terrain: bool  # terrain has effects here: read Moves.land / Moves.ice and the Pages' land_* tables
    max_cost: int  # the dearest move, in moves: 1 + the most turns a crash misses

    @classmethod
    def of(cls, rules, terrain: bool = False) -> MoveRules:
        """The record of a rule set; ``terrain``: the track has road terrain and the rules give it effects."""
        skips = np.array(rules.crash_skip_table(), dtype=np.int64)
        restart = RESTART_NEAREST if rules.resets else RESTART_OUT
        return cls(check_code(rules), bool(rules.crash_stops_car), restart, skips,
                   bool(terrain and rules.terrain_effects), 1 + int(skips.max()))

    @property
    def resets(self) -> bool:
        """A crash restarts the car at rest (Python callers; the kernels compare ``restart``)."""
        return self.restart == RESTART_NEAREST

    def crash_cost(self, speed: int) -> int:
        """Moves a crash at ``speed`` costs a restarting car: the crash and the turns it then misses."""
        return 1 + int(self.skips[min(speed, len(self.skips) - 1)])


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
    speed: object  # [row]: the speed (larger axis) of the row's velocity, what a crash by it costs




def check_code(rules) -> int:
    """The rules' off-road check as the kernels spell it: 0 segment, 1 landing, 2 projection."""
    return (OffroadCheck.SEGMENT, OffroadCheck.LANDING, OffroadCheck.PROJECTION).index(rules.offroad_check)


class Walks(NamedTuple):
    """The cells each move-row offset passes through (``cells_along``): row i's are ``start[i]:start[i + 1]``."""

    start: object  # int64 [rows + 1]
    x: object  # int64 [cells]: the cell's offset from the start node
    y: object
    tn: object  # entry time numerator / denominator
    td: object


class Sheet(NamedTuple):
    """The road as the row builder reads it."""

    xs: object  # [road node]: x
    ys: object  # [road node]: y
    road_index: object  # [y * width + x]: road node, -1 off the road
    width: int
    height: int
    grid: object  # the road cells with a border of ``pad`` off-road cells, flattened
    pad: int


class Outline(NamedTuple):
    """An outline's exact on-road tests, worked out before the rows (``given`` False: a char map, empty arrays)."""

    given: bool
    inside: object  # [i * n + node]: the move stays on the road
    num: object  # where it first leaves: num / den
    den: object


class GateArrays(NamedTuple):
    """The gates (finish first, then the checkpoints) as the row builder reads them."""

    kind: object  # 0 a line, 1 a cell set
    ints: object  # [gate, 6]: a line's ends and normal times 1024
    floats: object  # [gate, 6]: the same as floats
    number: object  # the gate's number (ties in time: the smaller first)
    cells: object  # [gate, y, x]: a cell gate's cells
    open: object  # [row, gate]: the row's direction counts for the cell gate
    entered: object  # [gate]: the start cell does not count (entered gates)


class RowsOut(NamedTuple):
    """What the row builder writes: the tables at ``row * n + node``, the codes at ``i * n + node``."""

    target: object
    paper: object
    inside: object
    sig_code: object
    reset: object
    csig_code: object
    slow: object  # the move has more gate events than a code holds
    # One node asked again (``only`` >= 0; -1: every node): its events, spelt out
    only: int
    events: object  # int64 [4, columns]: the move's gates, their directions; a punished move's gates, directions
    counts: object  # int64 [2]: how many events of each
