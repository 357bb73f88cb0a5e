"""The exact solver: fewest moves for one car alone from its start slot to the finish.

The search runs over states ``(progress, velocity, road node)`` where progress is the
referee's own :class:`~game.core.race.Progress` (laps, checkpoints, debts for backward
crossings). A forward pass enumerates, layer by layer, every state a lone car can reach
from any start slot; a backward pass gives every state its distance to the finish
(moves until and including the finishing move, as ``CarState.moves`` counts them). The
Champion reads that table. Both passes are vectorised with numpy over dense state ids
(see :class:`SolverTable`); the per-offset geometry comes from
:class:`~game.drivers.moves.MoveTables`.

Movement systems: ``nine``, ``cross``, ``scalar`` and ``graded``, with normal or hard
braking, are searched exactly (the steps of each velocity come from
``game.core.movement.target_steps``). ``fine`` paper (441+ targets a move on a lattice
ten times finer) and ``flick`` are refused with a :class:`SolverError`: the CPUs play
them with heuristics (``game.drivers.fine``, ``game.drivers.flick``). Any track size
is exact; time and memory grow with the number of reachable states (about 4 million
states, 10-30 s on a loaded 2-core machine, for the largest built-in tracks).

What the search treats exactly, in agreement with :class:`~game.core.race.RaceState`:

- the movement systems above; start ``standstill`` and ``vector1``;
- the three off-road checks (``segment``, ``landing``, ``projection``);
- ``reset``/``reset_skip``: an off-road move is a transition to the restart node at
  rest (one move, two with the missed turn), counting the gates crossed before the crash
  and undoing those the restart puts the car back across; a move that crosses the
  finish before leaving the road finishes;
- ``eliminate``/``forbid``: off-road moves end the race (or are not allowed);
- ordered and any-order checkpoints, line and cell gates, finish debts.

Where it is not exact (``Solution.exact`` is False and ``note`` says why):
``slow_return`` (driving on the paper is not searched: par is the best on-road line) and
``setback`` (a car with no legal move is treated as out, although the referee sets it
back). Progress values with a finish debt above 2 or a checkpoint balance outside
[-3, 3] are not searched (only reachable by driving the wrong way round repeatedly).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from game.core.movement import target_steps
from game.core.race import Progress, RaceState
from game.core.rules import RuleSet
from game.core.track import Track
from game.core.vec import ZERO, Vec
from game.drivers.moves import MoveTables

FIN = -2  # successor code: the move finishes the race
NONE = -1  # successor code: the move is not allowed or ends the race without finishing
INF = np.iinfo(np.int32).max
INF16 = np.iinfo(np.int16).max  # distance of a state that cannot finish
SOLVER_VERSION = 2
#: Movement systems the solver searches exactly (their steps depend only on the velocity).
EXACT_MOVEMENTS = ("nine", "cross", "scalar", "graded")
MAX_DEBT = 2
MAX_BALANCE = 3


class SolverError(ValueError):
    """The solver cannot work on this track (for example a start slot off the sheet)."""


@dataclass(frozen=True)
class Solution:
    """The result of a solve: ``par`` moves (None when unreachable, with ``reason``).

    ``path`` is the start node followed by the target chosen in every move (a move that
    is a missed turn has no target, so ``len(path) - 1`` can be less than ``par``).
    ``states`` counts the searched states, ``seconds`` the time the search took.
    """

    par: int | None
    path: list[Vec]
    states: int
    seconds: float
    reason: str | None = None
    exact: bool = True
    note: str = ""

    def to_json(self) -> dict:
        return {"par": self.par, "path": [[v.x, v.y] for v in self.path], "states": self.states,
                "seconds": round(self.seconds, 4), "reason": self.reason, "exact": self.exact, "note": self.note}

    @classmethod
    def from_json(cls, data: dict) -> Solution:
        return cls(par=data["par"], path=[Vec(x, y) for x, y in data["path"]], states=data["states"],
                   seconds=data["seconds"], reason=data.get("reason"), exact=data.get("exact", True),
                   note=data.get("note", ""))


class ProgressModel:
    """Progress values as small ids, and the referee's own rules for crossing gates."""

    def __init__(self, track: Track, rules: RuleSet, laps: int) -> None:
        self.track, self.laps = track, laps
        self.gates = (track.finish, *track.checkpoints)
        # The referee's crossing rules, used directly so that they can never disagree.
        self._referee = RaceState(track=track, rules=rules, laps=laps, seed=0, cars=())
        self.values: list[Progress] = []
        self._ids: dict[Progress, int] = {}
        self._step: dict[tuple[int, int], int] = {}

    def id(self, progress: Progress) -> int:
        found = self._ids.get(progress)
        if found is None:
            found = self._ids[progress] = len(self.values)
            self.values.append(progress)
        return found

    def find(self, progress: Progress) -> int:
        return self._ids.get(progress, -1)

    def after(self, pid: int, sig_id: int, signatures) -> int:
        """Progress id after the crossings of signature ``sig_id``; FIN when it finishes, NONE if unsearched."""
        key = (pid, sig_id)
        found = self._step.get(key)
        if found is None:
            found = self._step[key] = self._apply(self.values[pid], signatures[sig_id])
        return found

    def _apply(self, progress: Progress, sig) -> int:
        referee = self._referee
        for gi, direction in sig:
            if gi == 0:
                progress, lap = referee._cross_finish(progress, direction)
                if lap and progress.laps_done >= self.laps:
                    return FIN
            else:
                progress, _ = referee._cross_checkpoint(progress, self.gates[gi], direction)
        if progress.finish_debt > MAX_DEBT or any(abs(b) > MAX_BALANCE for b in progress.balance):
            return NONE
        return self.id(progress)


def _exact_movement(rules: RuleSet) -> bool:
    return rules.movement in EXACT_MOVEMENTS


class SolverTable:
    """Every state a lone car can reach and its distance to the finish.

    States are ``(progress, velocity, road node)``. A *page* is one (progress, velocity)
    pair; state id = ``page * n_road + road index``, so dense numpy arrays over state ids
    (reached, distance) need no hashing. The forward pass finds the reachable states layer
    by layer; the backward pass gives each its distance to the finish, finding the
    predecessors of plain on-road moves arithmetically (the move into ``(v', q)`` came
    from node ``q - v'`` with a velocity ``v`` such that ``v' - v`` is one of ``v``'s
    steps) and those of gate crossings, crashes and spins from explicit edge lists.

    ``distance(position, velocity, progress)`` answers in microseconds; the Champion
    uses :meth:`move_values` to rank its targets.
    """

    def __init__(self, track: Track, rules: RuleSet, laps: int, tables: MoveTables | None = None) -> None:
        self.track, self.rules, self.laps = track, rules, laps
        if not supports(rules):
            raise SolverError(f"the exact solver handles the {', '.join(EXACT_MOVEMENTS)} movement systems, "
                              f"not {rules.movement!r}")
        began = time.perf_counter()
        self.moves = tables if tables is not None else MoveTables(track, rules)
        self.progress = ProgressModel(track, rules, laps)
        self.width, self.height = track.width, track.height
        self.nr = self.moves.n_road
        self.exact = rules.offroad_penalty not in ("slow_return", "setback")
        self.note = {"slow_return": "slow_return rules: driving on the paper is not searched (par is the best on-road line)",
                     "setback": "setback rules: a car with no legal move is treated as out"}.get(rules.offroad_penalty, "")
        self._steps: dict[tuple[int, int], tuple[Vec, ...]] = {}
        self.amax = max(len(self.steps_of(x, y)) for x in range(-8, 9) for y in range(-8, 9))  # saturated by speed 8
        self._pages: dict[tuple[int, int, int], int] = {}
        self._page_cap = 0
        self.n_pages = 0
        self.page_pid = np.zeros(0, dtype=np.int64)
        self.page_vx = np.zeros(0, dtype=np.int64)
        self.page_vy = np.zeros(0, dtype=np.int64)
        self.page_row = np.zeros(0, dtype=np.int64)  # move-table row of the page's own velocity
        self.succ_row = np.zeros((0, self.amax), dtype=np.int64)
        self.succ_page = np.zeros((0, self.amax), dtype=np.int64)
        self.ready = np.zeros(0, dtype=bool)
        self.seen = np.zeros(0, dtype=bool)
        self._stamp = np.zeros(0, dtype=np.int32)
        self.n_states = 0
        self._rest = np.zeros(0, dtype=np.int64)
        self._build()
        self.seconds = time.perf_counter() - began

    # -- steps and pages ------------------------------------------------------
    def steps_of(self, vx: int, vy: int) -> tuple[Vec, ...]:
        """The steps (velocity changes) a car with velocity (vx, vy) may make, in the core's order."""
        found = self._steps.get((vx, vy))
        if found is None:
            rules = self.rules
            found = self._steps[(vx, vy)] = tuple(target_steps(rules.movement, Vec(vx, vy), rules.braking,
                                                               rules.fine_range))
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
            self.page_pid[found], self.page_vx[found], self.page_vy[found] = pid, vx, vy
            self.page_row[found] = self.moves.row(vx, vy)
        return found

    def _grow_pages(self, cap: int) -> None:
        def grow(arr, fill):
            new = np.full((cap,) + arr.shape[1:], fill, dtype=arr.dtype)
            new[:len(arr)] = arr
            return new
        self.page_pid, self.page_vx = grow(self.page_pid, 0), grow(self.page_vx, 0)
        self.page_vy, self.page_row = grow(self.page_vy, 0), grow(self.page_row, 0)
        self.succ_row, self.succ_page = grow(self.succ_row, -1), grow(self.succ_page, -1)
        self.ready = grow(self.ready, False)
        n = self.nr
        seen = np.zeros(cap * n, dtype=bool)
        seen[:len(self.seen)] = self.seen
        self.seen = seen
        self._stamp = np.zeros(cap * n, dtype=np.int32)
        self._page_cap = cap

    def _prepare(self, pages: np.ndarray) -> None:
        """Fill the successor rows and same-progress pages of pages about to be expanded."""
        for g in pages.tolist():
            pid, vx, vy = int(self.page_pid[g]), int(self.page_vx[g]), int(self.page_vy[g])
            for j, step in enumerate(self.steps_of(vx, vy)):
                nvx, nvy = vx + step.x, vy + step.y
                self.succ_row[g, j] = self.moves.row(nvx, nvy)
                self.succ_page[g, j] = self.page(pid, nvx, nvy)
            self.ready[g] = True

    def _unique_new(self, sids: np.ndarray) -> np.ndarray:
        """The ids in ``sids`` not reached before, each once; marks them reached."""
        sids = sids[~self.seen[sids]]
        if not len(sids):
            return sids
        stamp = self._stamp
        order = np.arange(len(sids), dtype=np.int32)
        stamp[sids] = order
        sids = sids[stamp[sids] == order]
        self.seen[sids] = True
        return sids

    def _after(self, pid: np.ndarray, sig: np.ndarray) -> np.ndarray:
        """Progress ids after crossing signatures (FIN: finished, NONE: not searched)."""
        out = pid.copy()
        crossing = np.flatnonzero(sig != 0)
        if len(crossing):
            keys = pid[crossing] * (1 << 32) + sig[crossing]
            uniq, inv = np.unique(keys, return_inverse=True)
            sigs = self.moves.signatures
            mapped = np.array([self.progress.after(int(u >> 32), int(u & 0xFFFFFFFF), sigs) for u in uniq],
                              dtype=np.int64)
            out[crossing] = mapped[inv.reshape(-1)]
        return out

    def _pages_for(self, pid: np.ndarray, row: np.ndarray) -> np.ndarray:
        """Pages of (progress id, velocity of move-table row) pairs, created as needed."""
        keys = pid * (1 << 32) + row
        uniq, inv = np.unique(keys, return_inverse=True)
        offsets = self.moves.offsets
        pages = np.array([self.page(int(u >> 32), *offsets[int(u & 0xFFFFFFFF)]) for u in uniq], dtype=np.int64)
        return pages[inv.reshape(-1)]

    def _rest_pages(self, pid: np.ndarray) -> np.ndarray:
        """Pages of (progress id, at rest) for many progress ids (crash and spin destinations)."""
        n = len(self.progress.values)
        if len(self._rest) < n:
            self._rest = np.concatenate([self._rest, np.full(n - len(self._rest), -1, dtype=np.int64)])
        pages = self._rest[pid]
        if (pages < 0).any():
            for p in np.flatnonzero(np.bincount(pid[pages < 0], minlength=n)).tolist():
                self._rest[p] = self.page(p, 0, 0)
            pages = self._rest[pid]
        return pages

    # -- building -----------------------------------------------------------
    def _start_states(self) -> np.ndarray:
        track, rules = self.track, self.rules
        velocity = track.forward_unit() if rules.start == "vector1" else ZERO
        empty = Progress(balance=(0,) * len(track.checkpoints))
        pid0 = self.progress.id(empty)
        sids = []
        for slot in track.start_slots:
            if not track.on_road(slot):
                raise SolverError(f"track {track.id!r}: start slot {slot.as_tuple()} is not on the road")
            r = int(self.moves.road_index[slot.y * self.width + slot.x])
            sids.append(self.page(pid0, velocity.x, velocity.y) * self.nr + r)
        return np.array(sids, dtype=np.int64)

    def _legal(self, flat: np.ndarray, pages: np.ndarray, roads: np.ndarray) -> np.ndarray:
        """Which moves (move-table cells ``flat``, made from ``pages``/``roads``) the rules do not punish."""
        m = self.moves
        check = self.rules.offroad_check
        if check == "segment":
            return m.inside[flat]
        if check == "landing":
            return m.target[flat] >= 0
        # projection: the landing node and the unsteered move must both be on the road
        return (m.target[flat] >= 0) & m.inside[self.page_row[pages] * self.nr + roads]

    def _build(self) -> None:
        nr, m = self.nr, self.moves
        penalty = self.rules.offroad_penalty
        resets = penalty in ("reset", "reset_skip")
        crashes = penalty in ("reset", "reset_skip", "eliminate")
        crash_cost = 2 if penalty == "reset_skip" else 1
        self.start_ids = self._start_states()
        frontier = self._unique_new(self.start_ids.copy())
        finishers: list[np.ndarray] = []
        cross_src: list[np.ndarray] = []
        cross_dst: list[np.ndarray] = []
        rest_src: list[np.ndarray] = []  # crashes and spins: to a state at rest
        rest_key: list[np.ndarray] = []  # ... keyed by (progress id, road node) of the rest state
        self.n_states = len(frontier)
        while len(frontier):
            g = frontier // nr
            r = frontier % nr
            todo = g[~self.ready[g]]
            if len(todo):
                self._prepare(np.unique(todo))
            pid = self.page_pid[g]
            everyone = np.arange(len(frontier))
            segment = self.rules.offroad_check == "segment"
            new = []
            any_paper = np.zeros(len(frontier), dtype=bool)
            last_key = np.full(len(frontier), -1, dtype=np.int64)
            for j in range(self.amax):
                rows = self.succ_row[g, j]
                sel = None
                if not (rows >= 0).all():
                    sel = np.flatnonzero(rows >= 0)
                    if not len(sel):
                        continue
                    rows = rows[sel]
                gj, rj = (g, r) if sel is None else (g[sel], r[sel])
                flat = rows * nr + rj
                paper = m.paper[flat]
                target = m.target[flat]
                legal = m.inside[flat] if segment else paper & self._legal(flat, gj, rj)  # inside implies paper
                sig = m.sig[flat]
                plain = legal & (sig == 0)
                nxt = self.succ_page[gj[plain], j]
                new.append(nxt * nr + target[plain])
                where = everyone if sel is None else sel  # frontier row of each move
                if resets:
                    if sel is None:
                        any_paper |= paper
                    else:
                        any_paper[sel[paper]] = True
                cross = np.flatnonzero(legal & (sig != 0))
                if len(cross):
                    pid2 = self._after(pid[where[cross]], sig[cross].astype(np.int64))
                    finishers.append(frontier[where[cross[pid2 == FIN]]])
                    keep = pid2 >= 0
                    c = cross[keep]
                    if len(c):
                        dst = self._pages_for(pid2[keep], rows[c]) * nr + target[c]
                        cross_src.append(frontier[where[c]]), cross_dst.append(dst)
                        new.append(dst)
                if crashes:
                    hit = np.flatnonzero(paper & ~legal)
                    if len(hit):
                        fh = where[hit]
                        csig = m.csig[flat[hit]]
                        pid2 = pid[fh]
                        if csig.any():
                            pid2 = self._after(pid2, csig.astype(np.int64))
                            finishers.append(frontier[fh[pid2 == FIN]])
                        if resets:
                            keep = pid2 >= 0
                            fh, hit, pid2 = fh[keep], hit[keep], pid2[keep]
                            key = pid2 * nr + m.reset[flat[hit]]
                            fresh = key != last_key[fh]  # the same crash again from one state adds nothing
                            last_key[fh[fresh]] = key[fresh]
                            fh, key, pid2, hit = fh[fresh], key[fresh], pid2[fresh], hit[fresh]
                            rest_src.append(frontier[fh]), rest_key.append(key)
                            new.append(self._rest_pages(pid2) * nr + m.reset[flat[hit]])
            if resets:
                stuck = np.flatnonzero(~any_paper)
                if len(stuck):
                    rest_src.append(frontier[stuck]), rest_key.append(pid[stuck] * nr + r[stuck])
                    new.append(self._rest_pages(pid[stuck]) * nr + r[stuck])
            frontier = self._unique_new(np.concatenate(new)) if new else np.zeros(0, dtype=np.int64)
            self.n_states += len(frontier)
        cat = (lambda parts, dt: np.concatenate(parts).astype(dt) if parts else np.zeros(0, dtype=dt))
        self._finishers = np.unique(cat(finishers, np.int64))
        self._cross = (cat(cross_src, np.int64), cat(cross_dst, np.int64))
        self._rest_edges = (cat(rest_src, np.int64), cat(rest_key, np.int64), crash_cost)
        self.dist = self._distances()
        del self._cross, self._rest_edges

    def _predecessor_pages(self) -> np.ndarray:
        """``[page, k]``: the pages (same progress) whose plain moves lead into each page."""
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

    def _distances(self) -> np.ndarray:
        """Distance to the finish of every state (moves), by a bucketed backward search."""
        nr, m = self.nr, self.moves
        dist = np.full(len(self.seen), INF16, dtype=np.int16)
        preds = self._predecessor_pages()
        c_src, c_dst = self._cross
        order = np.argsort(c_dst, kind="stable")
        cross = _Csr(c_src[order], c_dst[order])
        r_src, r_key, crash_cost = self._rest_edges
        order = _argsort_ids(r_key)
        rest = _Csr(r_src[order], r_key[order])
        w, h = self.width, self.height
        xs, ys = m.xs, m.ys
        stamp = self._stamp
        buckets: dict[int, list[np.ndarray]] = {}
        if len(self._finishers):
            dist[self._finishers] = 1
            buckets[1] = [self._finishers]
        d = 1
        while buckets:
            parts = buckets.pop(d, None)
            if parts is None:
                d += 1
                continue
            front = np.concatenate(parts)
            front = front[dist[front] == d]
            order_ = np.arange(len(front), dtype=np.int32)
            stamp[front] = order_
            front = front[stamp[front] == order_]
            if not len(front):
                d += 1
                continue
            found = []
            # plain on-road moves, found arithmetically
            g2 = front // nr
            r2 = front % nr
            px = xs[r2] - self.page_vx[g2]
            py = ys[r2] - self.page_vy[g2]
            ok = (px >= 0) & (px < w) & (py >= 0) & (py < h)
            idx = np.flatnonzero(ok)
            rp = m.road_index[py[idx] * w + px[idx]].astype(np.int64)
            ok2 = rp >= 0
            idx, rp = idx[ok2], rp[ok2]
            flat = self.page_row[g2[idx]] * nr + rp
            plain = (m.sig[flat] == 0) & m.paper[flat]
            if self.rules.offroad_check == "segment":
                plain &= m.inside[flat]
            idx, rp = idx[plain], rp[plain]
            gsrc = preds[g2[idx]]
            for k in range(preds.shape[1]):
                gk = gsrc[:, k]
                sel = gk >= 0
                cand = gk[sel] * nr + rp[sel]
                if self.rules.offroad_check == "projection":
                    cand = cand[m.inside[self.page_row[gk[sel]] * nr + rp[sel]]]
                cand = cand[self.seen[cand]]
                cand = cand[dist[cand] > d + 1]
                dist[cand] = d + 1
                found.append(cand)
            if found:
                buckets.setdefault(d + 1, []).append(np.concatenate(found))
            # explicit edges: gate crossings (cost 1), crashes and spins into states at rest
            for csr, cost, keys in ((cross, 1, front), (rest, crash_cost, None)):
                if csr is None or not len(csr.dst):
                    continue
                if keys is None:
                    at_rest = front[(self.page_vx[g2] == 0) & (self.page_vy[g2] == 0)]
                    keys = self.page_pid[at_rest // nr] * nr + at_rest % nr
                srcs = csr.sources(keys)
                srcs = srcs[dist[srcs] > d + cost]
                if len(srcs):
                    dist[srcs] = d + cost
                    buckets.setdefault(d + cost, []).append(srcs)
            d += 1
        return dist

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
        return sid if self.seen[sid] else -1

    def distance(self, position: Vec, velocity: Vec, progress: Progress) -> int | None:
        """Fewest moves to the finish from this state (None: cannot finish, or unknown state)."""
        sid = self.state_id(position, velocity, progress)
        if sid < 0 or self.dist[sid] >= INF16:
            return None
        return int(self.dist[sid])

    def _moves_of(self, sid: int) -> list[tuple[Vec, int, int]]:
        """Every selectable move of a reached state: (step, successor id or FIN, cost). Plain Python: a CPU asks per turn."""
        nr, m = self.nr, self.moves
        g, r = divmod(sid, nr)
        pid, vx, vy = int(self.page_pid[g]), int(self.page_vx[g]), int(self.page_vy[g])
        penalty = self.rules.offroad_penalty
        check = self.rules.offroad_check
        crashes = penalty in ("reset", "reset_skip", "eliminate")
        sigs = self.moves.signatures
        unsteered = bool(m.inside[int(self.page_row[g]) * nr + r]) if check == "projection" else True
        out = []
        for j, step in enumerate(self.steps_of(vx, vy)):
            flat = int(self.succ_row[g, j]) * nr + r
            if not m.paper[flat]:
                continue
            target = int(m.target[flat])
            if check == "segment":
                legal = bool(m.inside[flat])
            else:
                legal = target >= 0 and unsteered
            if legal:
                sig = int(m.sig[flat])
                pid2 = self.progress.after(pid, sig, sigs) if sig else pid
                if pid2 == FIN:
                    out.append((step, FIN, 1))
                elif pid2 >= 0:
                    page = self._pages.get((pid2, vx + step.x, vy + step.y))
                    if page is not None:
                        out.append((step, page * nr + target, 1))
            elif crashes:
                sig = int(m.csig[flat])
                pid2 = self.progress.after(pid, sig, sigs) if sig else pid
                if pid2 == FIN:
                    out.append((step, FIN, 1))
                elif pid2 >= 0 and penalty != "eliminate":
                    page = self._pages.get((pid2, 0, 0))
                    if page is not None:
                        out.append((step, page * nr + int(m.reset[flat]), 2 if penalty == "reset_skip" else 1))
        return out

    def move_values(self, sid: int) -> dict[Vec, int]:
        """For a state id: step (velocity change) -> moves to the finish after taking it (finite only)."""
        out: dict[Vec, int] = {}
        for step, code, cost in self._moves_of(sid):
            value = 1 if code == FIN else (cost + int(self.dist[code]) if self.dist[code] < INF16 else None)
            if value is not None and (step not in out or value < out[step]):
                out[step] = value
        return out

    def _spin(self, sid: int) -> int:
        """Where a car with no selectable target ends up (reset rules): at rest where it stands."""
        g, r = divmod(sid, self.nr)
        page = self._pages.get((int(self.page_pid[g]), 0, 0))
        return -1 if page is None else page * self.nr + r

    def path_from(self, sid: int) -> list[Vec]:
        """Targets of an optimal line from a state (first the state's own node)."""
        m, nr = self.moves, self.nr
        path = [Vec(int(m.xs[sid % nr]), int(m.ys[sid % nr]))]
        guard = 0
        while sid >= 0 and guard < 100000:
            guard += 1
            g, r = divmod(sid, nr)
            values = self.move_values(sid)
            if not values:
                if self.rules.offroad_penalty not in ("reset", "reset_skip"):
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

    def solution(self, slot: int = 0) -> Solution:
        sid = int(self.start_ids[slot])
        d = self.dist[sid]
        if d >= INF16:
            return Solution(None, [self.track.start_slots[slot]], self.states, self.seconds,
                            reason=f"the finish of track {self.track.id!r} cannot be reached from start slot {slot + 1}",
                            exact=self.exact, note=self.note)
        return Solution(int(d), self.path_from(sid), self.states, self.seconds, exact=self.exact, note=self.note)


def supports(rules: RuleSet) -> bool:
    """Whether the exact solver searches this rule set (movement systems whose steps depend only on the velocity)."""
    return rules.movement in EXACT_MOVEMENTS


class _Csr:
    """Edges sorted by destination key, with the sources of many keys found at once."""

    def __init__(self, src: np.ndarray, dst: np.ndarray) -> None:
        self.src, self.dst = src, dst
        if len(dst):
            self.first = np.concatenate([[0], np.flatnonzero(np.diff(dst)) + 1])
            self.keys = dst[self.first]
            self.counts = np.diff(np.concatenate([self.first, [len(dst)]]))

    def sources(self, keys: np.ndarray) -> np.ndarray:
        at = np.searchsorted(self.keys, keys)
        at = np.minimum(at, len(self.keys) - 1)
        at = at[self.keys[at] == keys]
        if not len(at):
            return np.zeros(0, dtype=np.int64)
        lens = self.counts[at]
        offs = np.repeat(self.first[at] - (np.cumsum(lens) - lens), lens)
        return self.src[np.arange(int(lens.sum())) + offs]


def _argsort_ids(keys: np.ndarray) -> np.ndarray:
    """A stable argsort of non-negative ids by 16-bit radix passes (far faster than a comparison sort)."""
    order = np.arange(len(keys))
    if not len(keys):
        return order
    top = int(keys.max())
    shift = 0
    while True:
        digit = ((keys[order] >> shift) & 0xFFFF).astype(np.uint16)
        order = order[np.argsort(digit, kind="stable")]
        shift += 16
        if top >> shift == 0:
            return order


def track_fingerprint(track: Track, rules: RuleSet, laps: int) -> str:
    """A hash of everything the solution depends on (for the disk cache)."""
    h = hashlib.sha256()
    h.update(f"v{SOLVER_VERSION}/{track.id}/{laps}/{json.dumps(rules.options(), sort_keys=True)}".encode())
    h.update(np.ascontiguousarray(track.region.road_nodes()).tobytes())
    h.update(repr((track.start_slots, track.finish, track.checkpoints, track.forward)).encode())
    h.update(type(track.region).__name__.encode())
    if hasattr(track.region, "rings"):
        for ring in track.region.rings:
            h.update(np.ascontiguousarray(ring).tobytes())
    return h.hexdigest()[:32]


class Solver:
    """Solves tracks and keeps the tables, in memory and (optionally) solutions on disk.

    ``cache_dir`` is passed in explicitly (the game gives its user cache folder); without
    it nothing is written. One Solver can be shared by every CPU driver of a race.
    """

    def __init__(self, cache_dir: str | Path | None = None, max_tables: int = 4) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.max_tables = max_tables
        self._tables: dict[tuple, SolverTable] = {}

    def table(self, track: Track, rules: RuleSet, laps: int) -> SolverTable:
        key = (id(track), track.id, tuple(sorted(rules.options().items())), laps)
        found = self._tables.get(key)
        if found is None or found.track is not track:
            found = SolverTable(track, rules, laps)
            if len(self._tables) >= self.max_tables:
                self._tables.pop(next(iter(self._tables)))
            self._tables[key] = found
        return found

    def solve(self, track: Track, rules: RuleSet, laps: int | None = None, slot: int = 0) -> Solution:
        """Par and an optimal line for a lone car from ``slot`` (0 is the best slot)."""
        laps = track.default_laps if laps is None else laps
        path = None
        if self.cache_dir is not None:
            path = self.cache_dir / f"solve-{track_fingerprint(track, rules, laps)}-{slot}.json"
            if path.is_file():
                try:
                    return Solution.from_json(json.loads(path.read_text()))
                except (ValueError, KeyError, TypeError):
                    pass  # a damaged cache file is recomputed
        solution = self.table(track, rules, laps).solution(slot)
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(solution.to_json()))
            except OSError:
                pass  # the cache is an optimisation only
        return solution


def solve(track: Track, rules: RuleSet, laps: int | None = None, cache_dir: str | Path | None = None) -> Solution:
    """Par of a track for one car from the best start slot (see :class:`Solver`)."""
    return Solver(cache_dir).solve(track, rules, laps)
