"""The exact solver: fewest moves for one car alone from a start place to the finish (par: the best place).

The search runs over states ``(progress, velocity, road node)`` where progress is the
referee's own :class:`~game.core.race.Progress` (laps, checkpoints, debts for backward
crossings). A forward pass enumerates, layer by layer, every state a lone car can reach
from any start slot; a backward pass gives every state its distance to the finish
(moves until and including the finishing move, as ``CarState.moves`` counts them). The
Champion reads that table. The data model (pages, progress values, move tables) is
Python and numpy; the two passes run as compiled kernels over dense state ids
(:mod:`game.drivers.kernels`, see :class:`SolverTable`); the per-offset geometry comes
from :class:`~game.drivers.moves.MoveTables`. Par is the distance of the best start
place; :meth:`SolverTable.solution` also answers for one given start place.

Tracks whose every gate is a cell gate (every Karopapier map: cell checkpoints and the
``F`` cells as the finish) get a :class:`LayeredTable` instead: there progress never goes
back, so the table is worked out one progress value at a time, most advanced first, over
the (velocity, node) states a car can stand on at all. With nine checkpoints in any order
that is 512 progress values; the general forward pass through all of them would hold every
reachable combination at once (map 167: 17.6 GB), the layers hold one byte a state. With
checkpoints in any order (every Karopapier map) all 512 are searched in one backward pass
that carries a bit set of checkpoint sets per state (``tools/bench_karopapier.py``).

Memory is bounded: a table is estimated before it is built (the states a car can stand on
times the progress values it may meet) and refused with :class:`SolverBudgetError` when it
would pass ``memory_budget`` (2 GB unless told otherwise); the general search also stops
if it grows past the budget anyway. ``progress`` callbacks hear how far a long solve is.

Movement systems: ``nine``, ``cross``, ``scalar`` and ``graded``, with normal or hard
braking, are searched exactly (the steps of each velocity come from
``game.core.movement.allowed_steps``, so a rule set without the zero move is searched without it). ``fine`` paper (441+ targets a move on a lattice
ten times finer) and ``flick`` are refused with a :class:`SolverError`: the CPUs play
them with heuristics (``game.drivers.fine``, ``game.drivers.flick``). Any track size
is exact; time and memory grow with the number of reachable states (a 200x120 ring: 2.2
million states, about 2 s of CPU time with its move rows; ``tools/bench_solver.py`` prints
the figures and the split, against a C++ breadth-first search).

What the search treats exactly, in agreement with :class:`~game.core.race.RaceState`:

- the movement systems above; start ``standstill`` and ``vector1``;
- the three off-road checks (``segment``, ``landing``, ``projection``);
- ``reset``/``reset_skip``/``skip_by_speed``: an off-road move is a transition to the
  restart node at rest (one move and the turns it misses: one under ``reset_skip``, by
  the crash's speed under ``skip_by_speed``), counting the gates crossed before the crash
  and undoing those the restart puts the car back across; a move that crosses the
  finish before leaving the road finishes;
- ``start_direction``: the first move is played by the referee, the search goes on from
  where it leads (``SolverTable._first_moves``);
- ``eliminate``/``forbid``: off-road moves end the race (or are not allowed);
- ordered and any-order checkpoints, line and cell gates, finish debts.

Where it is not exact (``Solution.exact`` is False and ``note`` says why):
``slow_return`` (driving on the paper is not searched: par is the best on-road line) and
``setback`` (a car with no legal move is treated as out, although the referee sets it
back). Progress values with a finish debt above 1 or a checkpoint balance outside
[-3, 3] are not searched: only driving the wrong way reaches them (a car that drives on
gets a debt of 1 at most, when a restart puts it back behind the line, and pays it back
when it crosses again), and leaving out a debt of 2 cuts the states by a third. Par is
the same; a few states with a debt of 1 that head the wrong way get a longer distance
(or none) than a search through a debt of 2 would give, and CPUs there fall back to
looking one move ahead through the referee (``game.drivers.cpu.target_values``);
cell-gate visits are counted once (:meth:`ProgressModel.canonical`), which changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Callable

import numpy as np

from game.atomic import write_text_atomic
from game.core.geometry import LineGate, PolygonRegion
from game.core.movement import allowed_steps
from game.core.progress import Progress, cross_checkpoint, cross_finish
from game.core.race import FINISHED, CarState, RaceState
from game.core.rules import Movement, RuleSet, preset
from game.core.terrain import landing_velocity
from game.core.track import Track
from game.core.vec import ZERO, Vec
from game.drivers.codes import DRIVES, FIN, NONE, OUT, RESTART, UNKNOWN, MoveRules, Moves, Pages
from game.drivers.kernel_source import CompiledKernels
from game.drivers.moves import RESERVE_BYTES, ROW_BYTES, MoveTables
from game.tracks.charmap import track_from_charmap

INF16 = np.iinfo(np.int16).max  # distance of a state that cannot finish
#: Memory a solve may take unless told otherwise (bytes): a couch PC must never swap for a CPU.
DEFAULT_MEMORY_BUDGET = 2 * 1024 ** 3
#: From this many (state, progress) pairs in a group the layered search uses two threads.
LAYER_PARALLEL = 2_000_000
#: Bytes a searched state costs the general search at its peak (bitmap, lists, edges, distances
#: and the backward pass's sorting), measured: 83 a state on Serpentine over 6 laps (615 MB).
GENERAL_STATE_BYTES = 85
#: Bytes a (row, node) pair of move rows takes for a moment while its rows are built (outlines:
#: the exact polygon tests' numerators and denominators), beyond the ROW_BYTES it keeps.
ROW_BUILD_BYTES = 17
#: Move rows built at once: their build's scratch (ROW_BUILD_BYTES a pair) stays this many rows
#: wide (a layer of a wide open track asks for 80 new rows at once: 150 MB of scratch at 400 x 400).
ROW_CHUNK = 16
#: ``progress(fraction, what)``: how far a long solve is (0..1) and what it is doing.
ProgressCallback = Callable[[float, str], None]
SOLVER_VERSION = 4  # solutions cached on disk by another version are recomputed
MAX_DEBT = 1  # finish debts searched (see the module's docstring)
MAX_BALANCE = 3


class SolverError(ValueError):
    """The solver cannot work on this track (for example a start slot off the sheet)."""


class SolverBudgetError(SolverError):
    """The table would take more memory than the solver's budget; the message says how much."""

    def __init__(self, track: Track, rules: RuleSet, laps: int, needed: int, budget: int, states: int,
                 what: str | None = None, per_lap: bool = True) -> None:
        self.needed, self.budget, self.states = needed, budget, states
        #: Whether fewer laps need proportionally less (False: the moves alone are too many).
        self.per_lap = per_lap
        what = what if what is not None else f"{states / 1e6:.1f} million states"
        super().__init__(
            f"track {track.id!r} under {rules.name} rules over {laps} lap(s): the solver would need about "
            f"{_size(needed)} ({what}), more than its memory budget of {_size(budget)}; "
            + ("allow more memory (racetrack solve --memory-budget GB) or race fewer laps" if per_lap else
               "allow more memory (racetrack solve --memory-budget GB)"))


def _size(n: int) -> str:
    if n >= 1024 ** 3:
        return f"{n / 1024 ** 3:.1f} GB"
    return f"{n / 1024 ** 2:.0f} MB" if n >= 1024 ** 2 else f"{n / 1024:.0f} KB"


@dataclass(frozen=True)
class Solution:
    """The result of a solve: ``par`` moves (None when unreachable, with ``reason``).

    ``path`` is the start node followed by the target chosen in every move (a move that
    is a missed turn has no target, so ``len(path) - 1`` can be less than ``par``).
    ``slot`` is the start place it starts from (an index into ``track.start_slots``: car
    ``slot + 1`` stands there). ``states`` counts the searched states, ``seconds`` the time
    the search took.
    """

    par: int | None
    path: list[Vec]
    states: int
    seconds: float
    reason: str | None = None
    exact: bool = True
    note: str = ""
    slot: int = 0

    def to_json(self) -> dict:
        return {"par": self.par, "path": [[v.x, v.y] for v in self.path], "states": self.states,
                "seconds": round(self.seconds, 4), "reason": self.reason, "exact": self.exact, "note": self.note,
                "slot": self.slot}

    @classmethod
    def from_json(cls, data: dict) -> Solution:
        return cls(par=data["par"], path=[Vec(x, y) for x, y in data["path"]], states=data["states"],
                   seconds=data["seconds"], reason=data.get("reason"), exact=data.get("exact", True),
                   note=data.get("note", ""), slot=data.get("slot", 0))


class ProgressModel:
    """Progress values as small ids, and the referee's own rules for crossing gates."""

    def __init__(self, track: Track, rules: RuleSet, laps: int) -> None:
        self.track, self.rules, self.laps = track, rules, laps
        self.gates = (track.finish, *track.checkpoints)
        self.values: list[Progress] = []
        self._ids: dict[Progress, int] = {}
        self._step: dict[tuple[int, int], int] = {}
        self._visit_only = [i for i, gate in enumerate(track.checkpoints) if not gate.is_line]

    def id(self, progress: Progress) -> int:
        found = self._ids.get(progress)
        if found is None:
            found = self._ids[progress] = len(self.values)
            self.values.append(progress)
        return found

    def find(self, progress: Progress) -> int:
        return self._ids.get(self.canonical(progress), -1)

    def canonical(self, progress: Progress) -> Progress:
        """The same progress with cell-gate visits counted once.

        A cell gate (a Karopapier checkpoint) is only ever visited, never crossed back, so a
        balance above 1 behaves exactly like 1; without this a car standing on a
        checkpoint cell would count up to the search's balance limit.
        """
        if not self._visit_only or not any(progress.balance[i] > 1 for i in self._visit_only):
            return progress
        balance = list(progress.balance)
        for i in self._visit_only:
            balance[i] = min(balance[i], 1)
        return replace(progress, balance=tuple(balance))

    def after(self, pid: int, sig_id: int, signatures) -> int:
        """Progress id after the crossings of signature ``sig_id``; FIN when it finishes, NONE if unsearched."""
        key = (pid, sig_id)
        found = self._step.get(key)
        if found is None:
            found = self._step[key] = self._apply(self.values[pid], signatures[sig_id])
        return found

    def _apply(self, progress: Progress, sig) -> int:
        # The referee's own crossing rules (game.core.progress), so that the two can never disagree.
        rules, k = self.rules, len(self.track.checkpoints)
        for gi, direction in sig:
            if gi == 0:
                progress, lap = cross_finish(progress, direction, rules, k)
                if lap and progress.laps_done >= self.laps:
                    return FIN
            else:
                progress, _ = cross_checkpoint(progress, gi - 1, direction, rules)
        progress = self.canonical(progress)
        if progress.finish_debt > MAX_DEBT or any(abs(b) > MAX_BALANCE for b in progress.balance):
            return NONE
        return self.id(progress)


class SolverTable:
    """Every state a lone car can reach and its distance to the finish.

    States are ``(progress, velocity, road node)``. A *page* is one (progress, velocity)
    pair; state id = ``page * n_road + road index``, so dense arrays over state ids (a
    reached bitmap, distances) need no hashing. The forward pass finds the reachable
    states layer by layer (Python prepares each layer's pages and move rows, then
    :func:`~game.drivers.kernels.expand_layer` expands it, asking back for what it
    lacks); the backward pass (:func:`~game.drivers.kernels.distances`) gives each its
    distance to the finish, finding the predecessors of plain on-road moves
    arithmetically (the move into ``(v', q)`` came from node ``q - v'`` with a velocity
    ``v`` such that ``v' - v`` is one of ``v``'s steps) and those of gate crossings,
    crashes and spins from the edge lists the forward pass kept.

    ``distance(position, velocity, progress)`` answers in microseconds; the Champion
    uses :meth:`move_values` to rank its targets.
    """

    def __init__(self, track: Track, rules: RuleSet, laps: int, tables: MoveTables | None = None,
                 kernels=None, *, memory_budget: int | None = None, progress: ProgressCallback | None = None) -> None:
        track = track.for_rules(rules)  # terrain = "offroad": every terrain off the road
        self.track, self.rules, self.laps = track, rules, laps
        self.memory_budget = DEFAULT_MEMORY_BUDGET if memory_budget is None else int(memory_budget)
        self._report = progress
        if not supports(rules):
            raise SolverError(f"the exact solver handles the {', '.join(exact_movements())} movement systems, "
                              f"not {rules.movement!r}")
        began = time.perf_counter()
        # Where the search kernels come from, asked before each piece of work (see game.drivers.compiling).
        self.kernels = kernels if kernels is not None else CompiledKernels()
        self.moves = tables if tables is not None else MoveTables(track, rules, kernels=self.kernels)
        self.progress = ProgressModel(track, rules, laps)
        self.width, self.height = track.width, track.height
        self.nr = self.moves.n_road
        self.exact = not (rules.slow_return or rules.sets_back)
        self.note = ("slow_return rules: driving on the paper is not searched (par is the best on-road line)"
                     if rules.slow_return else
                     "setback rules: a car with no legal move is treated as out" if rules.sets_back else "")
        self._steps: dict[tuple[int, int], tuple[Vec, ...]] = {}
        self._succ_velocities: dict[tuple[int, int], tuple] = {}  # see _successor_velocities
        self.amax = max(len(self.steps_of(x, y)) for x in range(-8, 9) for y in range(-8, 9))  # saturated by speed 8
        # Terrain with effects (sand, mud, curbs change the velocity a move keeps; ice holds a car's line):
        self.move_rules = MoveRules.of(rules, self.moves.has_terrain)
        self.land_kinds = self.moves.land_kinds
        n_cols = max(1, len(self.land_kinds))
        self.land_row = np.zeros((0, self.amax, n_cols), dtype=np.int64)
        self.land_page = np.zeros((0, self.amax, n_cols), dtype=np.int64)
        self.keeps = np.zeros((0, n_cols), dtype=np.bool_)
        self.still = np.zeros(0, dtype=np.int64)
        self._pages: dict[tuple[int, int, int], int] = {}
        self._page_cap = 0
        self.n_pages = 0
        self.page_pid = np.zeros(0, dtype=np.int64)
        self.page_vx = np.zeros(0, dtype=np.int64)
        self.page_vy = np.zeros(0, dtype=np.int64)
        self.page_row = np.zeros(0, dtype=np.int64)  # move-table row of the page's own velocity
        self.n_steps = np.zeros(0, dtype=np.int64)
        self.succ_row = np.zeros((0, self.amax), dtype=np.int64)
        self.succ_page = np.zeros((0, self.amax), dtype=np.int64)
        self.ready = np.zeros(0, dtype=bool)
        # page_index[progress id, move-table row] -> page (-1: none yet), for the kernels
        self._page_index = np.full((4, 64), -1, dtype=np.int64)
        self._trans = np.full((4, 4), UNKNOWN, dtype=np.int64)  # see _fit_lookups
        self._bits = np.zeros(0, dtype=np.uint8)  # the reached states, a bit each (state_id reads it too)
        self.n_states = 0
        self._held = 0  # bytes the search holds so far besides the move rows (see _held_bytes)
        self.inf = INF16  # the distance of a state that cannot finish (the largest the table's type holds)
        # Under a start direction rule the first move is the referee's (see _first_moves).
        self._firsts = self._first_moves() if rules.first_move_restricted else None
        self._build()
        self.seconds = time.perf_counter() - began

    # -- steps and pages ------------------------------------------------------
    def steps_of(self, vx: int, vy: int) -> tuple[Vec, ...]:
        """The steps (velocity changes) a car with velocity (vx, vy) may make, in the core's order."""
        found = self._steps.get((vx, vy))
        if found is None:
            found = self._steps[(vx, vy)] = allowed_steps(self.rules, Vec(vx, vy))
        return found

    def page(self, pid: int, vx: int, vy: int) -> int:
        """The page of (progress id, velocity), created on first use."""
        key = (pid, vx, vy)
        found = self._pages.get(key)
        if found is None:
            found = self._pages[key] = self.n_pages
            self.n_pages += 1
            if self.n_pages > self._page_cap:
                self._grow_pages(max(64, 2 * self._page_cap))
            row = self.moves.row(vx, vy)
            self.page_pid[found], self.page_vx[found], self.page_vy[found] = pid, vx, vy
            self.page_row[found] = row
            velocity = Vec(vx, vy)
            steps = self.steps_of(vx, vy)
            self.still[found] = steps.index(ZERO) if velocity != ZERO and ZERO in steps else -1
            for c, kind in enumerate(self.land_kinds):
                self.keeps[found, c] = landing_velocity(kind, velocity) == velocity
            self._fit_lookups()
            self._page_index[pid, row] = found
        return found

    def _kernel_pages(self) -> Pages:
        """The page arrays as the kernels take them (made anew: the arrays are replaced as they grow)."""
        return Pages(self.page_pid, self.page_row, self.n_steps, self.succ_row, self.succ_page, self.land_row,
                     self.land_page, self.keeps, self.still)

    def _grow_pages(self, cap: int) -> None:
        def grow(arr, fill):
            new = np.full((cap,) + arr.shape[1:], fill, dtype=arr.dtype)
            new[:len(arr)] = arr
            return new
        self.page_pid, self.page_vx = grow(self.page_pid, 0), grow(self.page_vx, 0)
        self.page_vy, self.page_row = grow(self.page_vy, 0), grow(self.page_row, 0)
        self.n_steps = grow(self.n_steps, 0)
        self.succ_row, self.succ_page = grow(self.succ_row, -1), grow(self.succ_page, -1)
        self.land_row, self.land_page = grow(self.land_row, -1), grow(self.land_page, -1)
        self.keeps, self.still = grow(self.keeps, True), grow(self.still, -1)
        self.ready = grow(self.ready, False)
        if (cap * self.nr + 7) // 8 > len(self._bits):
            # Reserved generously: np.zeros costs nothing until a page of it is written,
            # while each regrowth copies everything so far.
            bits = np.zeros((max(4 * cap, 2048) * self.nr + 7) // 8, dtype=np.uint8)
            bits[:len(self._bits)] = self._bits
            self._bits = bits
        self._page_cap = cap

    def _successor_velocities(self, vx: int, vy: int) -> tuple:
        """Per step of velocity (vx, vy), in the core's order: the velocity after it and, per
        landing kind (``land_kinds``), the velocity a move by it keeps landing there (worked out once a velocity)."""
        found = self._succ_velocities.get((vx, vy))
        if found is None:
            out, kinds = [], self.land_kinds
            for step in self.steps_of(vx, vy):
                after = (vx + step.x, vy + step.y)
                out.append((after, tuple(landing_velocity(kind, Vec(*after)).as_tuple() for kind in kinds)
                            if kinds else ()))
            found = self._succ_velocities[(vx, vy)] = tuple(out)
        return found

    def _prepare(self, pages: np.ndarray) -> None:
        """Fill the successor rows and same-progress pages of pages about to be expanded.

        The move rows are counted against the memory budget before they are built (a wide
        open sheet lets a car reach hundreds of velocities, each a row over every road node).
        """
        todo = [(g, int(self.page_pid[g]), int(self.page_vx[g]), int(self.page_vy[g])) for g in pages.tolist()]
        wanted: dict[tuple[int, int], None] = {}  # the rows these pages' moves read, in a fixed order
        for vx, vy in dict.fromkeys((vx, vy) for _, _, vx, vy in todo):  # pages of one velocity share them
            for velocity, kept in self._successor_velocities(vx, vy):
                wanted[velocity] = None
                if kept:
                    wanted.update(dict.fromkeys(kept))
        fresh = [o for o in wanted if not self.moves.has_row(*o)]
        new = len(fresh)
        if new:
            rows = len(self.moves.offsets) + new
            needed = rows * self.nr * ROW_BYTES + min(new, ROW_CHUNK) * self.nr * ROW_BUILD_BYTES + self._held_bytes()
            if rows > getattr(self.moves, "_cap", rows):  # the rows move to bigger arrays: one copied at a time
                needed += len(self.moves.offsets) * self.nr * 8
            if needed > self.memory_budget:
                raise SolverBudgetError(self.track, self.rules, self.laps, needed, self.memory_budget, 0,
                                        what=f"the moves of {rows} velocities over {self.nr} road nodes",
                                        per_lap=False)
        for k in range(0, new, ROW_CHUNK):  # in chunks: the build's scratch stays small (see ROW_CHUNK)
            self.moves.build_rows(fresh[k:k + ROW_CHUNK])
        row, page = self.moves.row, self.page
        for g, pid, vx, vy in todo:
            successors = self._successor_velocities(vx, vy)
            for j, ((nvx, nvy), kept) in enumerate(successors):
                self.succ_row[g, j] = row(nvx, nvy)
                self.succ_page[g, j] = page(pid, nvx, nvy)
                for c, (kx, ky) in enumerate(kept):
                    self.land_row[g, j, c] = row(kx, ky)
                    self.land_page[g, j, c] = page(pid, kx, ky)
            self.n_steps[g] = len(successors)
            self.ready[g] = True

    # -- building -----------------------------------------------------------
    def _start_states(self) -> np.ndarray:
        track, rules = self.track, self.rules
        velocity = track.forward_unit() if rules.rolling_start else ZERO
        empty = Progress(balance=(0,) * len(track.checkpoints))
        pid0 = self.progress.id(empty)
        sids = []
        for slot in track.start_slots:
            if not track.on_road(slot):
                raise SolverError(f"track {track.id!r}: start slot {slot.as_tuple()} is not on the road")
            r = int(self.moves.road_index[slot.y * self.width + slot.x])
            sids.append(self.page(pid0, velocity.x, velocity.y) * self.nr + r)
        return np.array(sids, dtype=np.int64)

    def _first_moves(self) -> list[list[tuple[Vec | None, CarState]]]:
        """Per start place, each first move the rules allow and the lone car after it, played by the referee.

        A start direction rule (``away``, ``formula1``) judges a car's first move by its
        finish crossing, and ``formula1`` counts that crossing as nothing: no state of the
        search knows whether a car has moved yet, so the first move is the referee's and the
        search goes on from where it leads (its states are seeded, :meth:`_first_seeds`).
        The target is None for a car with no legal first move (it crashes where it stands).
        """
        grid = RaceState.start(self.track, self.rules, [f"c{i}" for i in range(len(self.track.start_slots))],
                               laps=self.laps)
        out = []
        for car in grid.cars:
            solo = RaceState(track=grid.track, rules=self.rules, laps=grid.laps, seed=0, cars=(car,))
            choices = [(target, {0: target}) for target in solo.legal_targets(0)] or [(None, {})]
            out.append([(target, solo.apply(choice)[0].cars[0]) for target, choice in choices])
        return out

    def _first_seeds(self) -> list[int]:
        """The states the referee's first moves lead to (none without a start direction rule)."""
        seeds = []
        for car in (a for moves in self._firsts or () for _, a in moves):
            if car.racing and self.track.on_road(car.position):
                pid = self.progress.id(self.progress.canonical(car.progress))
                r = int(self.moves.road_index[car.position.y * self.width + car.position.x])
                seeds.append(self.page(pid, car.velocity.x, car.velocity.y) * self.nr + r)
        return seeds

    @cached_property
    def start_values(self) -> list[int]:
        """Moves to the finish from each start place (``inf``: cannot finish): the table's distance,
        or under a start direction rule the best first move the referee allows and what follows it."""
        if self._firsts is None:
            return [int(self.dist[int(sid)]) for sid in self.start_ids]
        return [min((self._value_after(car) for _, car in moves), default=self.inf) for moves in self._firsts]

    def _value_after(self, car: CarState) -> int:
        """Moves to the finish of a lone car after its first move (that move and the turns it misses included)."""
        if car.status == FINISHED:
            return 1
        d = self.distance(car.position, car.velocity, car.progress) if car.racing else None
        return self.inf if d is None else 1 + car.skip + d

    def _fit_lookups(self) -> np.ndarray:
        """Grow the kernels' lookup tables to every progress id, signature and row made so far.

        The compiled code does not check its indices, so this runs before every call.
        Returns the transition table: progress id x signature id -> progress id after it
        (or FIN / NONE / UNKNOWN).
        """
        n_pids, n_sigs, n_rows = len(self.progress.values), len(self.moves.signatures), len(self.moves.offsets)
        table = self._trans
        if n_pids > table.shape[0] or n_sigs > table.shape[1]:
            grown = np.full((max(n_pids, 2 * table.shape[0]), max(n_sigs, 2 * table.shape[1])), UNKNOWN,
                            dtype=np.int64)
            grown[:table.shape[0], :table.shape[1]] = table
            self._trans = table = grown
        index = self._page_index
        if n_pids > index.shape[0] or n_rows > index.shape[1]:
            grown = np.full((max(n_pids, 2 * index.shape[0]), max(n_rows, 2 * index.shape[1])), -1, dtype=np.int64)
            grown[:index.shape[0], :index.shape[1]] = index
            self._page_index = grown
        return table

    # -- memory and progress ---------------------------------------------------
    def progress_estimate(self) -> int:
        """About how many progress values the general search meets: laps x finish debts x checkpoint states.

        Ordered checkpoints give one value per checkpoint due; any order one per subset of
        checkpoints taken (a balance below 0 needs driving through a line backwards).
        """
        k = len(self.track.checkpoints)
        inner = k + 1 if self.rules.ordered_checkpoints or k == 0 else 2 ** k
        return self.laps * (1 + MAX_DEBT) * inner

    def _estimate(self) -> None:
        """Refuse a search that would take more memory than the budget, before starting it."""
        probe = _Universe(self.track, self.rules, self.laps, self.moves, kernels=self.kernels,
                          memory_budget=self.memory_budget, progress=self._report)
        states = probe.n_states * self.progress_estimate()
        self._expected = states
        needed = states * GENERAL_STATE_BYTES + self._rows_bytes()
        if needed > self.memory_budget:
            raise SolverBudgetError(self.track, self.rules, self.laps, needed, self.memory_budget, states)

    def _rows_bytes(self) -> int:
        """Memory the move rows built so far hold."""
        return len(self.moves.offsets) * self.moves.n_road * ROW_BYTES

    def _held_bytes(self) -> int:
        """Memory the search holds besides the move rows so far (a lower bound: the states found)."""
        return self._held

    def _tell(self, fraction: float, what: str) -> None:
        if self._report is not None:
            self._report(max(0.0, min(1.0, fraction)), what)

    @property
    def nbytes(self) -> int:
        """Memory the finished table holds (its arrays and the move rows), in bytes."""
        rows = len(self.moves.offsets) * self.moves.n_road * ROW_BYTES
        return int(self.dist.nbytes + self._bits.nbytes + rows)

    def _build(self) -> None:
        """Forward search (compiled, layer by layer) for every reachable state, then the distances."""
        self._estimate()
        nr, m = self.nr, self.moves
        rules = self.move_rules
        self.start_ids = self._start_states()
        rest_row = m.row(0, 0)  # pages at rest (crash and spin destinations) are page_index[:, rest_row]
        # Room for up to a thousand velocity pages of states (RESERVE_BYTES at most): on
        # Linux np.empty only reserves it and memory is touched as the search fills it;
        # growing by copies is far slower. 25 bytes a state: order, rest_src/key/cost.
        order = np.empty(max(16 * nr, min(1024 * max(nr, 64), RESERVE_BYTES // 25)), dtype=np.int64)
        cross_src, cross_dst = np.empty(4096, dtype=np.int64), np.empty(4096, dtype=np.int64)
        rest_src, rest_key = np.empty(len(order), dtype=np.int64), np.empty(len(order), dtype=np.int64)
        rest_cost = np.empty(len(order), dtype=np.int8)
        finishers = np.empty(1024, dtype=np.int64)
        counts = np.zeros(4, dtype=np.int64)  # states, crossings, rest edges, finishers
        for sid in dict.fromkeys(self.start_ids.tolist() + self._first_seeds()):
            self._bits[sid >> 3] |= np.uint8(1 << (sid & 7))
            order[counts[0]] = sid
            counts[0] += 1
        head = 0
        while head < counts[0]:
            tail = int(counts[0])
            in_layer = np.zeros(self.n_pages, dtype=bool)
            in_layer[order[head:tail] // nr] = True
            todo = np.flatnonzero(in_layer & ~self.ready[:self.n_pages])
            if len(todo):
                self._prepare(todo)
            kernels = self.kernels.current(tail - head)
            while True:
                trans = self._fit_lookups()
                head, ask, a, b = kernels.expand_layer(
                    head, tail, order, self._bits, nr, self._kernel_pages(), m.kernel_moves(), rules,
                    trans, rest_row, self._page_index, counts, cross_src, cross_dst, rest_src, rest_key, rest_cost,
                    finishers)
                self._held = int(counts[0]) * GENERAL_STATE_BYTES
                if self._held + self._rows_bytes() > self.memory_budget:  # the estimate was too low
                    raise SolverBudgetError(self.track, self.rules, self.laps, self._held + self._rows_bytes(),
                                            self.memory_budget, int(counts[0]))
                if ask == kernels.DONE:
                    break
                if ask == kernels.ASK_TRANSITION:
                    trans[a, b] = self.progress.after(int(a), int(b), m.signatures)
                elif ask == kernels.ASK_PAGE:
                    vx, vy = m.offsets[int(b)]
                    self.page(int(a), vx, vy)
                elif ask == kernels.ASK_REST_PAGE:
                    self.page(int(a), 0, 0)
                elif ask == kernels.ASK_ROOM:  # double what is full
                    n_states, n_cross, n_rest, n_fin = (int(c) for c in counts)
                    if n_states + self.amax + 1 > len(order):
                        order = _doubled(order, n_states)
                    if n_cross + self.amax > len(cross_src):
                        cross_src, cross_dst = _doubled(cross_src, n_cross), _doubled(cross_dst, n_cross)
                    if n_rest + self.amax + 1 > len(rest_src):
                        rest_src, rest_key = _doubled(rest_src, n_rest), _doubled(rest_key, n_rest)
                        rest_cost = _doubled(rest_cost, n_rest)
                    if n_fin + 1 > len(finishers):
                        finishers = _doubled(finishers, n_fin)
                else:
                    raise SolverError(f"internal error: the forward kernel asked for {ask!r}")
            self._tell(0.9 * int(counts[0]) / max(self._expected, int(counts[0]) + 1), "searching")
        n_states, n_cross, n_rest, n_fin = (int(c) for c in counts)
        self.n_states = n_states
        self._tell(0.9, "distances")
        # Only reached states are ever read (state_id checks the bitmap first), so the
        # rest of the array may stay as np.empty left it; the kernel sets the others.
        self.dist = np.empty(self.n_pages * nr, dtype=np.int16)
        by_dst = np.argsort(cross_dst[:n_cross], kind="stable")
        self._distances(self.kernels.current(n_states), order[:n_states], finishers[:n_fin], rules, cross_src[:n_cross],
                        cross_dst[:n_cross][by_dst], by_dst, rest_src[:n_rest], rest_key[:n_rest], rest_cost[:n_rest])

    def _distances(self, kernels, reached, finishers, rules, cross_src, cross_dst_sorted, cross_order,
                   rest_src, rest_key, rest_cost) -> None:
        """Backward search from the finishing states (:func:`game.drivers.kernels.distances`)."""
        nr, m, dist = self.nr, self.moves, self.dist
        rest_start, rest_index = kernels.rest_sources(len(self.progress.values) * nr, rest_key)
        preds = self._predecessor_pages()
        cross_pages = np.zeros(self.n_pages, dtype=bool)
        cross_pages[cross_dst_sorted // nr] = True
        kernels.distances(dist, reached, self._bits, finishers, nr, self.width, self.height, m.xs, m.ys, m.road_index,
                          self._kernel_pages(), self.page_vx, self.page_vy, preds, m.kernel_moves(), rules,
                          cross_src, cross_dst_sorted, cross_order, cross_pages, rest_src, rest_cost,
                          rest_start, rest_index)

    def _predecessor_pages(self) -> np.ndarray:
        """``[page, k]``: the pages (same progress) whose plain moves lead into each page (-1 pads)."""
        n = self.n_pages
        src = np.repeat(np.arange(n), self.amax)
        dst = self.succ_page[:n].ravel()
        ok = dst >= 0
        src, dst = src[ok], dst[ok]
        order = np.argsort(dst, kind="stable")
        src, dst = src[order], dst[order]
        counts = np.bincount(dst, minlength=n)
        width = max(1, int(counts.max()) if len(counts) else 1)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        rank = np.arange(len(dst)) - starts[dst]
        out = np.full((n, width), -1, dtype=np.int64)
        out[dst, rank] = src
        return out

    # -- asking -------------------------------------------------------------
    @property
    def states(self) -> int:
        return self.n_states

    def state_id(self, position: Vec, velocity: Vec, progress: Progress) -> int:
        """The table's id of a state, or -1 when a lone car could never be there."""
        if not self.track.on_paper(position):
            return -1
        pid = self.progress.find(progress)
        g = self._pages.get((pid, velocity.x, velocity.y))
        r = int(self.moves.road_index[position.y * self.width + position.x])
        if g is None or r < 0:
            return -1
        sid = g * self.nr + r
        return sid if self._bits[sid >> 3] >> (sid & 7) & 1 else -1

    def distance(self, position: Vec, velocity: Vec, progress: Progress) -> int | None:
        """Fewest moves to the finish from this state (None: cannot finish, or unknown state)."""
        sid = self.state_id(position, velocity, progress)
        if sid < 0 or self.dist[sid] >= self.inf:
            return None
        return int(self.dist[sid])

    def _decode(self, sid: int) -> tuple[int, int, int]:
        """(progress id, page, road index) of a state id; the page gives the velocity and its rows."""
        g, r = divmod(sid, self.nr)
        return int(self.page_pid[g]), g, r

    def _locate(self, pid: int, vx: int, vy: int, r: int) -> int:
        """The id of state (progress id, velocity, road index), or -1 when the table has none."""
        page = self._pages.get((pid, vx, vy))
        return -1 if page is None else page * self.nr + r

    def _moves_of(self, sid: int) -> list[tuple[Vec, int, int]]:
        """Every selectable move of a reached state: (step, successor id or FIN, cost)."""
        return [move[:3] for move in self.outcomes(sid)]

    def outcomes(self, sid: int) -> list[tuple[Vec, int, int, bool]]:
        """Every selectable move of a reached state: (step, successor id or FIN, cost, crashes:
        the car leaves the road and restarts at rest).

        Each move's outcome is the search kernels' own :func:`~game.drivers.kernels.move_outcome`,
        run by the interpreter (a CPU asks per turn): what the search counted is what the CPUs read.
        """
        from game.drivers.kernels import move_outcome  # a table was searched: the kernels module is loaded

        outcome = move_outcome.py_func  # run by the interpreter: no compiling, no waiting for the kernel source
        nr, m = self.nr, self.moves
        pid, g, r = self._decode(sid)
        vx, vy = int(self.page_vx[g]), int(self.page_vy[g])
        pages, moves, rules = self._kernel_pages(), m.kernel_moves(), self.move_rules
        out = []
        for j, step in enumerate(self.steps_of(vx, vy)):
            kind, node, row, _, sig, cost = outcome(g, r, j, nr, pages, moves, rules)
            if kind not in (DRIVES, RESTART, OUT):
                continue
            pid2 = self.progress.after(pid, int(sig), m.signatures) if sig else pid
            if pid2 == FIN:  # a finishing move counts one, even one that leaves the road after the line
                out.append((step, FIN, 1, False))
            elif pid2 >= 0 and kind != OUT:
                kept = m.offsets[int(row)] if kind == DRIVES else (0, 0)
                code = self._locate(pid2, kept[0], kept[1], int(node))
                if code >= 0:
                    out.append((step, code, int(cost), kind == RESTART))
        return out

    def move_values(self, sid: int) -> dict[Vec, int]:
        """For a state id: step (velocity change) -> moves to the finish after taking it (finite only)."""
        out: dict[Vec, int] = {}
        for step, code, cost in self._moves_of(sid):
            value = 1 if code == FIN else (cost + int(self.dist[code]) if self.dist[code] < self.inf else None)
            if value is not None and (step not in out or value < out[step]):
                out[step] = value
        return out

    # -- stepping through the table (the CPUs' look-ahead in traffic) ---------
    def successors(self, sid: int) -> list[tuple[Vec, int, int]]:
        """Every selectable move of a reached state: ``(step, successor id or FIN, cost in moves)``.

        The cost is 1 and the turns a crash then misses (``reset_skip``: 1; ``skip_by_speed``: by its speed).
        """
        return self._moves_of(sid)

    def where(self, sid: int) -> tuple[Vec, Vec]:
        """The road node and the velocity of a state id."""
        _, g, r = self._decode(sid)
        return Vec(int(self.moves.xs[r]), int(self.moves.ys[r])), Vec(int(self.page_vx[g]), int(self.page_vy[g]))

    def landed(self, node: Vec, velocity: Vec) -> Vec:
        """The velocity a car keeps after a move by ``velocity`` that stays on the road and ends on ``node``
        (sand, mud and curbs change it where the rules give terrain its effects)."""
        if not self.move_rules.terrain or not self.track.on_paper(node):
            return velocity
        r = int(self.moves.road_index[node.y * self.width + node.x])
        code = int(self.moves.land[r]) if r >= 0 else 0
        return landing_velocity(self.land_kinds[code - 1], velocity) if code else velocity

    def at_rest(self, sid: int) -> int:
        """The state of the same node and progress at zero speed (a spun car); -1 if a lone car never has it."""
        rest = self._spin(sid)
        return rest if rest >= 0 and self._has(rest) else -1

    def to_go(self, sid: int) -> int | None:
        """Moves to the finish from a reached state id (None: it cannot finish)."""
        d = self.dist[sid]
        return None if d >= self.inf else int(d)

    def _has(self, sid: int) -> bool:
        """Whether a located state id was reached (has a distance)."""
        return bool(self._bits[sid >> 3] >> (sid & 7) & 1)

    def _spin(self, sid: int) -> int:
        """Where a car with no selectable target ends up (reset rules): at rest where it stands."""
        pid, _, r = self._decode(sid)
        return self._locate(pid, 0, 0, r)

    def path_from(self, sid: int) -> list[Vec]:
        """Targets of an optimal line from a state (first the state's own node)."""
        m = self.moves
        _, _, r = self._decode(sid)
        path = [Vec(int(m.xs[r]), int(m.ys[r]))]
        guard = 0
        while sid >= 0 and guard < 100000:
            guard += 1
            _, g, r = self._decode(sid)
            values = self.move_values(sid)
            if not values:
                if not self.rules.resets:
                    break
                sid = self._spin(sid)
                continue
            steps = self.steps_of(int(self.page_vx[g]), int(self.page_vy[g]))
            step = min(values, key=lambda s: (values[s], steps.index(s)))
            base = Vec(int(m.xs[r] + self.page_vx[g]), int(m.ys[r] + self.page_vy[g]))
            path.append(base + step)
            code = next(c for s, c, cost in self._moves_of(sid)
                        if s == step and (1 if c == FIN else cost + int(self.dist[c])) == values[step])
            if code == FIN:
                break
            sid = code
        return path

    def best_slot(self) -> int:
        """The start place with the fewest moves to the finish (the first of equal ones)."""
        values = self.start_values
        return min(range(len(values)), key=lambda i: (values[i], i))

    def solution(self, slot: int | None = None) -> Solution:
        """Par and an optimal line from start place ``slot`` (None: the best start place, which is par)."""
        best = slot is None
        if best:
            slot = self.best_slot()
        sid = int(self.start_ids[slot])
        d = self.start_values[slot]
        if d >= self.inf:
            where = "any start place" if best or len(self.start_ids) == 1 else f"start slot {slot + 1}"
            return Solution(None, [self.track.start_slots[slot]], self.states, self.seconds,
                            reason=f"the finish of track {self.track.id!r} cannot be reached from {where}",
                            exact=self.exact, note=self.note, slot=slot)
        return Solution(int(d), self._path_from_slot(slot, sid), self.states, self.seconds, exact=self.exact,
                        note=self.note, slot=slot)

    def _path_from_slot(self, slot: int, sid: int) -> list[Vec]:
        """An optimal line from start place ``slot`` (under a start direction rule: its best first move, then on)."""
        if self._firsts is None:
            return self.path_from(sid)
        best = self.start_values[slot]
        target, car = next((t, a) for t, a in self._firsts[slot] if self._value_after(a) == best)
        head = [self.track.start_slots[slot]] + ([] if target is None else [target])
        if car.status == FINISHED:
            return head
        after = self.state_id(car.position, car.velocity, car.progress)
        return head + self.path_from(after)[1:]


class _Universe(SolverTable):
    """Every (velocity, road node) a lone car can stand on at all, ignoring every gate.

    One page per velocity (page keys carry progress id 0). It is the layered search's
    state space and the general search's yardstick for its memory estimate; building it
    costs one plain breadth-first pass with no progress.
    """

    def _build(self) -> None:
        self._reach()

    def _reach(self) -> None:
        self._tell(0.01, "moves")  # under way (a screen shows a share above 0)
        nr, m, track = self.nr, self.moves, self.track
        resets = self.rules.resets
        rules = self.move_rules
        velocity = track.forward_unit() if self.rules.rolling_start else ZERO
        self.rest_page = self.page(0, 0, 0) if resets else -1
        starts = []
        for slot in track.start_slots:
            if not track.on_road(slot):
                raise SolverError(f"track {track.id!r}: start slot {slot.as_tuple()} is not on the road")
            starts.append(self.page(0, velocity.x, velocity.y) * nr + int(m.road_index[slot.y * self.width + slot.x]))
        self.start_states = np.array(starts, dtype=np.int64)
        order = np.empty(max(16 * nr, 4096), dtype=np.int64)
        count = 0
        for sid in dict.fromkeys(starts):
            self._bits[sid >> 3] |= np.uint8(1 << (sid & 7))
            order[count] = sid
            count += 1
        head = 0
        while head < count:
            self._tell(0.01, "moves")  # each layer: a listener may stop a search nobody wants any more
            tail = count
            pages = np.unique(order[head:tail] // nr)
            todo = pages[~self.ready[pages]]
            if len(todo):
                self._prepare(todo)
            kernels = self.kernels.current(tail - head)
            while head < tail:
                count, head = kernels.reach_layer(head, tail, order, self._bits, count, nr, self._kernel_pages(),
                                                  m.kernel_moves(), rules, self.rest_page)
                if head < tail:
                    order = _doubled(order, count)
            self._held = count * 9  # 8 bytes a state in the list, one in the index
            if self._held + self._rows_bytes() > self.memory_budget:
                raise SolverBudgetError(track, self.rules, self.laps, self._held + self._rows_bytes(),
                                        self.memory_budget, count, per_lap=False)
        self.n_states = count
        # Velocity-major order (as state ids): the layered search works through the states of
        # one distance in this order, and the moves into neighbouring nodes at one velocity
        # come from neighbouring nodes at a few velocities, so it reads and writes in streams.
        self.reached = np.sort(order[:count])


class LayeredTable(_Universe):
    """The distance table of a track whose every gate is a cell gate (every Karopapier map).

    On such a track progress never goes back: a checkpoint visited stays taken, the finish
    cells are only ever entered. So the progress values can be ordered so that every move
    keeps a car's progress or raises it, and the table is worked out one progress value at
    a time, from the most advanced down: for progress ``p`` only the states of ``p`` are
    searched (backwards from the finish, or from the states of higher progress that moves
    lead into, whose distances are known by then). Nothing is searched forwards through
    the product of progress and position (with nine checkpoints in any order that is 512
    times the road), and the states are the universe's (:class:`_Universe`): a state id is
    ``progress id * n_u + u`` where ``u`` numbers the (velocity, node) a car can stand on.

    With checkpoints in any order over one lap (every Karopapier map) the progress values
    are the sets of checkpoints taken, and instead of one search per set a single backward
    breadth-first search carries them all: each state holds a bit set of the checkpoint
    sets whose distance is known, a move passes a frontier's sets to its source (shifted
    down by the checkpoints it takes, :func:`~game.drivers.kernels.all_sets_level`), and
    state ids are then ``u * progress values + progress id`` (the distances of one state
    lie together). Map 167 (nine checkpoints, 512 sets) needs a third of the time the
    searches one set at a time took, with the same distances.

    Every state of every progress value gets its true distance, so the CPUs read it like
    the general table; it answers the same calls (:meth:`state_id`, :meth:`move_values`,
    :meth:`solution`).
    """

    def _build(self) -> None:
        self._reach()
        nr, m = self.nr, self.moves
        n_u = self.n_u = len(self.reached)
        kernels = self.kernels.current(n_u)
        values = self._progress_values()
        n_pid = len(values)
        dist_bytes = n_pid * n_u  # one byte a distance (two if one does not fit)
        edge_bytes = n_u * (self.amax * 4 + 24)
        needed = dist_bytes + edge_bytes + len(m.offsets) * m.n_road * ROW_BYTES
        if needed > self.memory_budget:
            raise SolverBudgetError(self.track, self.rules, self.laps, needed, self.memory_budget, n_pid * n_u)
        self._tell(0.05, "moves")
        self.uidx = np.full(self.n_pages * nr, -1, dtype=np.int32)
        self.uidx[self.reached] = np.arange(n_u, dtype=np.int32)
        counts = np.zeros(n_u + 1, dtype=np.int64)
        none32, none8 = np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int8)
        args = (self.reached, self.uidx, nr, self._kernel_pages(), m.kernel_moves(),
                self.move_rules, self.rest_page)
        n_spec = kernels.layer_edges(False, *args, counts, none32, none32, none32, none32, none8)
        plain_start = np.cumsum(counts)
        cursor = plain_start.copy()
        plain_src = np.empty(int(plain_start[-1]), dtype=np.int32)
        spec_src, spec_dst = np.empty(n_spec, dtype=np.int32), np.empty(n_spec, dtype=np.int32)
        spec_sig, spec_cost = np.empty(n_spec, dtype=np.int32), np.empty(n_spec, dtype=np.int8)
        kernels.layer_edges(True, *args, cursor, plain_src, spec_src, spec_dst, spec_sig, spec_cost)
        plain_start = plain_start.astype(np.int32)
        trans = self._transitions(n_pid, np.unique(spec_sig))
        self._u_major = False
        dist = None
        plan = self._all_sets_plan(n_pid, trans, spec_sig, spec_cost)
        if plan is not None and needed + n_u * 24 * plan[2] + 8 * (len(plain_src) + n_spec) <= self.memory_budget:
            incoming = _incoming(n_u, plain_start, plain_src, spec_src, spec_dst, spec_sig)
            del plain_start, plain_src, cursor, counts
            # One byte a distance while every distance fits (all Karopapier maps), two otherwise.
            for dtype in (np.uint8, np.int16):
                if dtype is np.int16 and n_pid * n_u * 2 + edge_bytes > self.memory_budget:
                    raise SolverBudgetError(self.track, self.rules, self.laps, n_pid * n_u * 2 + edge_bytes,
                                            self.memory_budget, n_pid * n_u)
                dist = self._all_sets(dtype, n_pid, n_u, incoming, spec_src, spec_sig, *plan)
                if dist is not None:
                    self._u_major = True
                    break
        else:
            # Special moves by signature, then destination: all moves of one signature lead into
            # one other progress in a given layer, so its distances are read front to back.
            by_sig = np.lexsort((spec_dst, spec_sig))
            spec_src, spec_dst, spec_sig, spec_cost = (spec_src[by_sig], spec_dst[by_sig], spec_sig[by_sig],
                                                       spec_cost[by_sig])
            into = np.flatnonzero(spec_dst >= 0)
            spec_index = into[np.argsort(spec_dst[into], kind="stable")].astype(np.int32)
            spec_start = np.zeros(n_u + 1, dtype=np.int32)
            spec_start[1:] = np.cumsum(np.bincount(spec_dst[into], minlength=n_u))
            edges = (plain_start, plain_src, spec_src, spec_dst, spec_sig, spec_cost, spec_start, spec_index)
            # One byte a distance while every distance fits (all Karopapier maps), two otherwise.
            dist = self._layers(np.uint8, n_pid, n_u, trans, edges)
            if dist is None:
                if n_pid * n_u * 2 + edge_bytes > self.memory_budget:
                    raise SolverBudgetError(self.track, self.rules, self.laps, n_pid * n_u * 2 + edge_bytes,
                                            self.memory_budget, n_pid * n_u)
                dist = self._layers(np.int16, n_pid, n_u, trans, edges)
        self.inf = int(np.iinfo(dist.dtype).max)
        self.dist = dist.reshape(-1)
        self.n_states = n_pid * n_u
        self.n_pid = n_pid
        start_u = self.uidx[self.start_states].astype(np.int64)
        self.start_ids = self._sid(self.progress.find(Progress(balance=(0,) * len(self.track.checkpoints))), start_u)

    def _sid(self, pid, u):
        """The state id of (progress id, universe index): progress-major, or (after the search
        of every checkpoint set at once) universe-major, as the distances lie in memory."""
        return u * self.n_pid + pid if self._u_major else pid * self.n_u + u

    def _all_sets_plan(self, n_pid: int, trans: np.ndarray, spec_sig: np.ndarray, spec_cost: np.ndarray):
        """``(sig_bits, fin_sets, words)`` when every checkpoint set can be searched at once
        (:func:`~game.drivers.kernels.all_sets_level`), else None.

        That needs progress ids that are sets of checkpoints (bit ``i``: checkpoint ``i``
        taken), every move that takes checkpoints ``b`` leading from ``c`` to ``c | b`` or
        finishing, and every move costing one: any-order cell checkpoints over one lap, no
        crash that misses a turn. It is read off the transition table, so what the
        referee's rules say decides (ordered checkpoints and laps fail the test).
        """
        if len(spec_cost) and not (spec_cost == 1).all():
            return None
        words = (n_pid + 63) // 64
        pids = np.arange(n_pid, dtype=np.int64)
        sig_bits = np.zeros(trans.shape[1], dtype=np.int64)
        fin_sets = np.zeros((trans.shape[1], words), dtype=np.uint64)
        for sig in np.unique(spec_sig).tolist():
            if sig == 0:
                continue
            after = trans[:n_pid, sig]
            fin = after == FIN
            bits = int(np.bitwise_or.reduce(after[~fin] ^ pids[~fin])) if (~fin).any() else 0
            if (after[~fin] != (pids[~fin] | bits)).any():
                return None
            sig_bits[sig] = bits
            for c in pids[fin].tolist():
                fin_sets[sig, c >> 6] |= np.uint64(1 << (c & 63))
        return sig_bits, fin_sets, words

    def _all_sets(self, dtype, n_pid: int, n_u: int, incoming: tuple, spec_src: np.ndarray, spec_sig: np.ndarray,
                  sig_bits: np.ndarray, fin_sets: np.ndarray, words: int) -> np.ndarray | None:
        """Every checkpoint set's distances at once, ``[u, progress id]`` in a ``dtype`` array (None
        when one does not fit in it); see :func:`~game.drivers.kernels.all_sets_level`."""
        inf = int(np.iinfo(dtype).max)
        finishing = fin_sets[spec_sig].any(axis=1)
        fin_src, fin_sig = spec_src[finishing], spec_sig[finishing]
        # First the states that can finish at all (with every checkpoint taken): how much
        # there is to do, for the progress report (a small search: one set a state).
        full = fin_sets[:, (n_pid - 1) >> 6] >> np.uint64((n_pid - 1) & 63) & np.uint64(1)
        live = self._level_by_level(np.zeros((n_u, 1), dtype=dtype), inf, 1, incoming, np.zeros_like(sig_bits),
                                    full.reshape(-1, 1), fin_src, fin_sig, None)
        dist = np.full((n_u, n_pid), inf, dtype=dtype)
        total = max(1, live * n_pid)
        self._tell(0.1, "distances")
        done = self._level_by_level(dist, inf, words, incoming, sig_bits, fin_sets, fin_src, fin_sig,
                                    lambda settled: self._tell(0.1 + 0.9 * settled / total, "distances"))
        if done is None:
            return None
        self._tell(1.0, "distances")
        return dist

    def _level_by_level(self, dist, inf, words, incoming, sig_bits, fin_sets, fin_src, fin_sig, heard):
        """Run :func:`~game.drivers.kernels.all_sets_level` to the end; the distances written (None
        on an overflow). A call per distance, each asking for the kernels anew and telling
        ``heard`` how many distances are written so far."""
        n_u = dist.shape[0]
        sets = np.zeros((n_u, 3, words), dtype=np.uint64)
        frontier = np.zeros((2, (n_u + 63) // 64), dtype=np.uint64)
        lo = hi = settled = 0
        d = 0
        while d == 0 or lo < hi:
            kernels = self.kernels.current(dist.size)
            lo, hi, count, overflow = kernels.all_sets_level(d, lo, hi, dist, inf, words, *incoming, sig_bits,
                                                             fin_sets, fin_src, fin_sig, sets, frontier)
            if overflow:
                return None
            settled += int(count)
            d += 1
            if heard is not None and d % 4 == 0:
                heard(settled)
        return settled

    def _layers(self, dtype, n_pid: int, n_u: int, trans: np.ndarray, edges: tuple) -> np.ndarray | None:
        """Every progress value's distances in a ``dtype`` array, or None when one does not fit in it."""
        kernels = self.kernels.current(n_pid * n_u)
        dist = np.empty((n_pid, n_u), dtype=dtype)
        inf = int(np.iinfo(dtype).max)
        done = 0
        queues = max(3, self.move_rules.max_cost + 1)  # distances waiting, modulo more than the dearest move
        for group in self._independent_groups(n_pid):
            # The progress values of one group never lead into each other: two threads share them.
            halves = [group[0::2], group[1::2]] if len(group) > 1 and n_u * len(group) >= LAYER_PARALLEL else [group]
            failed: list[BaseException] = []
            overflow: list[bool] = []

            def work(pids, marks):
                try:
                    for pid in pids:
                        if kernels.layer_distances(pid, dist, inf, trans, *edges, marks):
                            overflow.append(True)
                            return
                except BaseException as error:  # noqa: BLE001 - raised again below
                    failed.append(error)

            helpers = [threading.Thread(target=work, args=(h, np.zeros((queues, (n_u + 63) // 64), dtype=np.uint64)),
                                        name="solver-layers") for h in halves[1:]]
            for helper in helpers:
                helper.start()
            work(halves[0], np.zeros((queues, (n_u + 63) // 64), dtype=np.uint64))
            for helper in helpers:
                helper.join()
            if failed:
                raise failed[0]
            if overflow:
                return None
            done += len(group)
            self._tell(0.1 + 0.9 * done / n_pid, "distances")
        return dist

    def _independent_groups(self, n_pid: int) -> list[list[int]]:
        """The progress ids in the order they are worked out (most advanced first), in groups
        whose members no move connects (one lap and as many checkpoints taken): a group can
        be searched in any order, or at once, once the groups before it are done."""
        k = len(self.track.checkpoints)
        ordered = self.rules.ordered_checkpoints
        inner = k + 1 if ordered else 2 ** k
        ids = np.arange(n_pid)
        level = ids % inner if ordered else np.array([bin(i % inner).count("1") for i in ids])
        key = (ids // inner) * (k + 1) + level
        groups: dict[int, list[int]] = {}
        for pid in sorted(range(n_pid), key=lambda p: (-key[p], -p)):
            groups.setdefault(int(key[pid]), []).append(pid)
        return list(groups.values())

    def _progress_values(self) -> list[Progress]:
        """Every progress value, registered in the progress model in growing order (id = rank)."""
        k, laps = len(self.track.checkpoints), self.laps
        if not self.rules.ordered_checkpoints:
            inner = [Progress(balance=tuple((mask >> i) & 1 for i in range(k))) for mask in range(2 ** k)]
        else:
            inner = [Progress(next_checkpoint=n, balance=(0,) * k) for n in range(k + 1)]
        values = [replace(p, laps_done=lap) for lap in range(laps) for p in inner]
        for i, value in enumerate(values):
            if self.progress.id(value) != i:
                raise SolverError("internal error: the layered solver's progress model was not empty")
        return values

    def _transitions(self, n_pid: int, used: np.ndarray) -> np.ndarray:
        """Progress id x signature id -> progress id after the move's visits (or FIN / NONE).

        Worked out for all progress values at once with whole-array arithmetic (cell
        gates only ever count a visit), then checked against the referee's own rules
        (:class:`ProgressModel`) on a sample of progress values for every signature some
        move has (``used``); should they ever disagree, every transition is asked of the
        referee instead. Signatures no move has stay NONE.
        """
        sigs = self.moves.signatures
        used = [int(sig) for sig in used if sig > 0]
        trans = self._cell_transitions(n_pid, sigs, used)
        rng = np.random.default_rng(n_pid)
        sample = np.unique(np.concatenate([[0, n_pid - 1], rng.integers(0, n_pid, size=min(n_pid, 24))]))
        if trans is not None and all(self.progress.after(int(pid), sig, sigs) == trans[pid, sig]
                                     for sig in used for pid in sample):
            return trans
        trans = np.full((n_pid, max(1, len(sigs))), NONE, dtype=np.int64)
        trans[:, 0] = np.arange(n_pid)
        for pid in range(n_pid):
            for sig in used:
                trans[pid, sig] = self.progress.after(pid, sig, sigs)
        if len(self.progress.values) != n_pid or ((trans >= 0) & (trans < np.arange(n_pid)[:, None])).any():
            raise SolverError(f"internal error: the progress on track {self.track.id!r} can go back")
        return trans

    def _cell_transitions(self, n_pid: int, sigs, used: list[int]) -> np.ndarray | None:
        """The transitions of the ``used`` signatures by arithmetic on (lap, checkpoints) (None
        when one holds an event it does not know)."""
        k, laps = len(self.track.checkpoints), self.laps
        ordered = self.rules.ordered_checkpoints
        inner = k + 1 if ordered else 2 ** k
        pids = np.arange(n_pid, dtype=np.int64)
        trans = np.full((n_pid, max(1, len(sigs))), NONE, dtype=np.int64)
        trans[:, 0] = pids
        for sig_id in used:
            lap, part = np.divmod(pids, inner)  # part: checkpoints taken (a bit each), or the next one due
            fin = np.zeros(n_pid, dtype=bool)
            for gate, direction in sigs[sig_id]:
                if direction != 1:
                    return None
                live = ~fin
                if gate == 0:
                    done = live & (part == (k if ordered else inner - 1))
                    fin |= done & (lap + 1 >= laps)
                    more = done & ~fin
                    lap = np.where(more, lap + 1, lap)
                    part = np.where(more, 0, part)
                elif ordered:
                    part = np.where(live & (part == gate - 1), part + 1, part)
                else:
                    part = np.where(live, part | (1 << (gate - 1)), part)
            trans[:, sig_id] = np.where(fin, FIN, lap * inner + part)
        return trans

    # -- asking -------------------------------------------------------------
    @property
    def nbytes(self) -> int:
        rows = len(self.moves.offsets) * self.moves.n_road * ROW_BYTES
        return int(self.dist.nbytes + self.uidx.nbytes + self._bits.nbytes + rows)

    def _decode(self, sid: int) -> tuple[int, int, int]:
        if self._u_major:
            u, pid = divmod(sid, self.n_pid)
        else:
            pid, u = divmod(sid, self.n_u)
        g, r = divmod(int(self.reached[u]), self.nr)
        return pid, g, r

    def _locate(self, pid: int, vx: int, vy: int, r: int) -> int:
        page = self._pages.get((0, vx, vy))
        if page is None or pid < 0:
            return -1
        u = int(self.uidx[page * self.nr + r])
        return -1 if u < 0 else self._sid(pid, u)

    def state_id(self, position: Vec, velocity: Vec, progress: Progress) -> int:
        if not self.track.on_paper(position):
            return -1
        r = int(self.moves.road_index[position.y * self.width + position.x])
        if r < 0:
            return -1
        return self._locate(self.progress.find(progress), velocity.x, velocity.y, r)

    def _has(self, sid: int) -> bool:
        return sid >= 0  # every state _locate finds has its distance here


def layered(track: Track, rules: RuleSet) -> bool:
    """Whether :class:`LayeredTable` applies: every gate (finish and checkpoints) is a cell gate."""
    return all(not gate.is_line for gate in (track.finish, *track.checkpoints))


def _incoming(n_u: int, plain_start, plain_src, spec_src, spec_dst, spec_sig) -> tuple:
    """Every state's incoming moves (plain and special) in one list grouped by destination:
    ``(start, source, signature)`` as :func:`~game.drivers.kernels.all_sets_level` reads them."""
    n_plain = np.diff(plain_start).astype(np.int64)
    into = spec_dst >= 0
    sd, ss, sg = spec_dst[into], spec_src[into], spec_sig[into]
    n_spec = np.bincount(sd, minlength=n_u).astype(np.int64)
    start = np.zeros(n_u + 1, dtype=np.int64)
    start[1:] = np.cumsum(n_plain + n_spec)
    src = np.empty(int(start[-1]), dtype=np.int32)
    sig = np.zeros(int(start[-1]), dtype=np.int32)
    shift = start[:-1] - plain_start[:-1]
    src[np.arange(len(plain_src)) + np.repeat(shift, n_plain)] = plain_src
    order = np.argsort(sd, kind="stable")
    sd, ss, sg = sd[order], ss[order], sg[order]
    first = np.concatenate([[0], np.cumsum(n_spec)[:-1]])
    at = start[sd] + n_plain[sd] + np.arange(len(sd)) - first[sd]
    src[at], sig[at] = ss, sg
    return start.astype(np.int32) if start[-1] < 2 ** 31 else start, src, sig


def _doubled(array: np.ndarray, used: int) -> np.ndarray:
    """A twice as long copy of ``array`` whose first ``used`` items are kept (the rest is garbage)."""
    grown = np.empty(2 * len(array), dtype=array.dtype)
    grown[:used] = array[:used]
    return grown


def supports(rules: RuleSet) -> bool:
    """Whether the exact solver searches this rule set (movement systems whose steps depend only on the velocity)."""
    return rules.exact_movement


def exact_movements() -> tuple[str, ...]:
    """The movement systems the solver searches exactly (as the rules' ``exact_movement`` says)."""
    return tuple(m for m in Movement if RuleSet(movement=m).exact_movement)


def track_fingerprint(track: Track, rules: RuleSet, laps: int) -> str:
    """A hash of everything the solution depends on (for the disk cache)."""
    rules = rules.solving()
    h = hashlib.sha256()
    h.update(f"v{SOLVER_VERSION}/{track.id}/{laps}/{json.dumps(rules.keyed_options(), sort_keys=True)}".encode())
    h.update(np.ascontiguousarray(track.region.road_nodes()).tobytes())
    h.update(repr((track.start_slots, track.finish, track.checkpoints, track.forward)).encode())
    h.update(type(track.region).__name__.encode())
    if rules.terrain_effects and track.terrain:
        h.update(track.terrain.key())
    if hasattr(track.region, "rings"):
        for ring in track.region.rings:
            h.update(np.ascontiguousarray(ring).tobytes())
    return h.hexdigest()[:32]


#: Laps of the table a race too long for its exact table is read through (:class:`FoldedTable`).
FOLDED_LAPS = 3


class FoldedTable:
    """A table of fewer laps read as the table of a longer race: the bounded planner of long races.

    ``table`` is the exact table of ``table.laps`` laps (3 or 2), ``laps`` the race's. A
    car's progress is folded onto the table's laps: its first lap is the table's first,
    its last lap the table's last, and every lap between them the table's middle lap
    (with a two-lap table: the last). So a CPU drives the first and last laps exactly and
    every other lap as the middle lap of a three-lap race, which is the same lap: crossing
    the line at speed, with the next lap in mind. Memory is that of the short table, at
    most three laps' worth, whatever the race's length. Everything else is read from
    ``table``; ``lap_factor`` scales its par to the race's laps (for the CPUs' patience).
    """

    def __init__(self, table: SolverTable, laps: int, refused: SolverBudgetError | None = None) -> None:
        self.table, self.race_laps = table, laps
        self.lap_factor = laps / table.laps
        self.exact = False
        self.note = (f"{laps} laps are read through the exact table of {table.laps}"
                     + (f" (the exact one would need {_size(refused.needed)}, over the budget of "
                        f"{_size(refused.budget)})" if refused is not None else ""))

    def fold(self, progress: Progress) -> Progress:
        """The table's progress standing for a car's progress in the race."""
        done, short = progress.laps_done, self.table.laps
        if done == 0:
            return progress
        folded = short - 1 if done >= self.race_laps - 1 else min(1, short - 1)
        return replace(progress, laps_done=folded)

    def state_id(self, position: Vec, velocity: Vec, progress: Progress) -> int:
        return self.table.state_id(position, velocity, self.fold(progress))

    def distance(self, position: Vec, velocity: Vec, progress: Progress) -> int | None:
        return self.table.distance(position, velocity, self.fold(progress))

    def __getattr__(self, name: str):
        return getattr(self.table, name)

    def __repr__(self) -> str:
        return f"FoldedTable({self.table.track.id!r}, laps={self.race_laps}, table laps={self.table.laps})"


class Solver:
    """Solves tracks and keeps the tables, in memory and (optionally) solutions on disk.

    ``cache_dir`` is passed in explicitly (the game gives its user cache folder); without
    it nothing is written. One Solver can be shared by every CPU driver of a race.
    ``memory_budget`` (bytes, default 2 GB) bounds one table (a bigger one is refused
    with :class:`SolverBudgetError`) and the tables kept together: the oldest are
    dropped to make room, so solving many tracks in one process never piles them up.
    """

    def __init__(self, cache_dir: str | Path | None = None, max_tables: int = 4, kernels=None,
                 memory_budget: int | None = None) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.max_tables = max_tables
        self.kernels = kernels  # a kernel source (game.drivers.compiling); None: compiled, on first use
        self.memory_budget = DEFAULT_MEMORY_BUDGET if memory_budget is None else int(memory_budget)
        self._tables: dict[tuple, SolverTable] = {}
        #: Tables refused for the budget, by key: asked again, the refusal is raised at once
        #: (working out the estimate again would cost as much as the first time).
        self._refused: dict[tuple, tuple[Track, SolverBudgetError]] = {}
        self._folded: dict[tuple, FoldedTable] = {}
        #: While a table is being built: (track name, fraction done, what it is doing), for a
        #: screen to show (read from any thread); None otherwise.
        self.building: tuple[str, float, str] | None = None

    def table(self, track: Track, rules: RuleSet, laps: int, progress: ProgressCallback | None = None) -> SolverTable:
        """The distance table of a track under a rule set and lap count (built on first use).

        A night race's table is its day table: sight changes what drivers see, not the moves.
        """
        rules = rules.solving()
        key = (id(track), track.id, tuple(sorted(rules.options().items())), laps)
        refused = self._refused.get(key)
        if refused is not None and refused[0] is track:
            raise refused[1]
        found = self._tables.get(key)
        if found is None or found.track is not track:
            self._tables.pop(key, None)
            kind = LayeredTable if layered(track, rules) else SolverTable

            def hear(fraction: float, what: str) -> None:
                self.building = (track.name, fraction, what)
                if progress is not None:
                    progress(fraction, what)

            self.building = (track.name, 0.0, "moves")
            try:
                found = kind(track, rules, laps, kernels=self.kernels, memory_budget=self.memory_budget, progress=hear)
            except SolverBudgetError as error:
                self._refused[key] = (track, error)
                while len(self._refused) > 64:
                    self._refused.pop(next(iter(self._refused)))
                raise
            finally:
                self.building = None
            self._tables[key] = found
            while len(self._tables) > 1 and (len(self._tables) > self.max_tables or
                                             sum(t.nbytes for t in self._tables.values()) > self.memory_budget):
                self._tables.pop(next(iter(self._tables)))  # the oldest first, never the new one
        return found

    def cached_table(self, track: Track, rules: RuleSet, laps: int) -> SolverTable | None:
        """The table of this race if it is built and kept already (None: it is not; nothing is built)."""
        rules = rules.solving()
        found = self._tables.get((id(track), track.id, tuple(sorted(rules.options().items())), laps))
        return found if found is not None and found.track is track else None

    def race_table(self, track: Track, rules: RuleSet, laps: int,
                   progress: ProgressCallback | None = None) -> SolverTable | FoldedTable:
        """The table the CPUs race a long race with: the exact one, or a bounded stand-in.

        When the exact table of ``laps`` laps is over the memory budget, a table of
        :data:`FOLDED_LAPS` laps (or fewer) that fits is read as a :class:`FoldedTable`:
        the race's first and last laps as they are, every lap between them as the middle
        one. Raises :class:`SolverBudgetError` when not even that fits (the CPUs then
        drive by a heuristic, ``game.drivers.cpu``).
        """
        rules = rules.solving()
        try:
            return self.table(track, rules, laps, progress)
        except SolverBudgetError as error:
            refused = error
        for fewer in range(min(FOLDED_LAPS, laps - 1), 1, -1):
            if not refused.per_lap or refused.needed * fewer / laps > self.memory_budget:
                continue  # the estimate grows with the laps: this one cannot fit either
            key = (id(track), track.id, tuple(sorted(rules.options().items())), laps, fewer)
            try:
                table = self.table(track, rules, fewer, progress)
            except SolverBudgetError:
                continue
            found = self._folded.get(key)
            if found is None or found.table is not table:
                found = self._folded[key] = FoldedTable(table, laps, refused)
                while len(self._folded) > self.max_tables:
                    self._folded.pop(next(iter(self._folded)))
            return found
        raise refused

    def solve(self, track: Track, rules: RuleSet, laps: int | None = None, slot: int | None = None,
              progress: ProgressCallback | None = None) -> Solution:
        """Par and an optimal line for a lone car.

        ``slot`` None (the default) gives the par: the fewest moves from the best start
        place. A number gives the fewest moves from that start place (an index into
        ``track.start_slots``, where car ``slot + 1`` stands). ``progress`` hears how far
        a table being built is.
        """
        laps = track.default_laps if laps is None else laps
        rules = rules.solving()  # par is the day par, at night too
        path = None
        if self.cache_dir is not None:
            name = "best" if slot is None else str(slot)
            path = self.cache_dir / f"solve-{track_fingerprint(track, rules, laps)}-{name}.json"
            if path.is_file():
                try:
                    return Solution.from_json(json.loads(path.read_text(encoding="utf-8")))
                except (OSError, ValueError, KeyError, TypeError):
                    pass  # a damaged cache file is recomputed
        solution = self.table(track, rules, laps, progress).solution(slot)
        if path is not None:
            try:
                # whole or not at all: a full disk must never leave a truncated cache file
                write_text_atomic(path, json.dumps(solution.to_json()), make_folder=True)
            except OSError:
                pass  # the cache is an optimisation only
        return solution


WARM_UP_TRACK = """
XXXXXXXXX
XSOOOOOFX
XSOOOOOFX
XXXXXXXXX
"""


def warm_up() -> None:
    """Load the solver's compiled kernels (compiling them, the first time after an install) on a tiny track.

    Meant for a background thread at start-up: loading holds the interpreter for a few
    tens of milliseconds and a first compile for seconds, which should happen on the
    title screen rather than when the first CPU thinks in a race.
    """
    char_map = track_from_charmap(WARM_UP_TRACK, id="warm-up")
    outline = Track(id="warm-up-outline", name="warm-up", region=PolygonRegion([(0.5, 0.5), (8.5, 0.5), (8.5, 3.5),
                                                                                (0.5, 3.5)], width=10, height=5),
                    start_slots=(Vec(1, 1), Vec(1, 2)), finish=LineGate(0, a=(6.5, 0.5), b=(6.5, 3.5), forward=(1.0, 0.0)),
                    forward=(1.0, 0.0))
    karo = track_from_charmap(WARM_UP_TRACK, id="warm-up-karo", karopapier=True)
    for track in (char_map, outline):  # char maps and outlines build their move rows with different kernels
        SolverTable(track, preset("paper"), 1)
    LayeredTable(karo, preset("karopapier"), 1)  # the layered search's kernels: every checkpoint set at once,
    LayeredTable(karo, preset("paper", {"offroad_penalty": "reset_skip"}), 1)  # and one at a time


def solve(track: Track, rules: RuleSet, laps: int | None = None, cache_dir: str | Path | None = None) -> Solution:
    """Par of a track: the fewest moves for one car alone from the best start place (see :class:`Solver`)."""
    return Solver(cache_dir).solve(track, rules, laps)
