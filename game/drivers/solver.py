"""The exact solver: fewest moves for one car alone from its start slot to the finish.

The search runs over states ``(node, velocity, progress)`` where progress is the
referee's own :class:`~game.core.race.Progress` (laps, checkpoints, debts for backward
crossings). It is a breadth-first enumeration of every state a lone car can reach from
any start slot, vectorised with numpy, followed by a backward pass that gives every
state its distance to the finish (moves until and including the finishing move, as
``CarState.moves`` counts them). The Champion reads that table.

What the search treats exactly, in agreement with :class:`~game.core.race.RaceState`:

- movement ``nine`` and ``cross``; start ``standstill`` and ``vector1``;
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
from typing import Iterable

import numpy as np

from game.core.movement import target_steps
from game.core.race import Progress, RaceState
from game.core.rules import RuleSet
from game.core.track import Track
from game.core.vec import ZERO, Vec
from game.drivers.moves import OffsetTables

FIN = -2  # successor code: the move finishes the race
NONE = -1  # successor code: the move is not allowed or ends the race without finishing
INF = np.iinfo(np.int32).max
SOLVER_VERSION = 1
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


class _Index:
    """Dense maps from (progress, velocity, node) to state ids, grown as states appear."""

    def __init__(self, width: int, height: int) -> None:
        self.hw = width * height
        self.vb = max(width, height) + 2
        side = 2 * self.vb + 1
        self.vlut = np.full(side * side, -1, dtype=np.int32)
        self.n_vel = 0
        self.geo = np.full((16, self.hw), -1, dtype=np.int32)
        self.n_geo = 0
        self.pm = np.full((4, 1024), -1, dtype=np.int32)
        self.n = 0

    def vkey(self, vx: np.ndarray, vy: np.ndarray) -> np.ndarray:
        return (vx + self.vb) * (2 * self.vb + 1) + (vy + self.vb)

    def lookup(self, p, vx, vy, pid) -> np.ndarray:
        """State ids, or -1 for states never seen."""
        out = np.full(len(p), -1, dtype=np.int64)
        ok = (np.abs(vx) <= self.vb) & (np.abs(vy) <= self.vb)
        vc = np.full(len(p), -1, dtype=np.int64)
        vc[ok] = self.vlut[self.vkey(vx[ok], vy[ok])]
        ok &= vc >= 0
        gid = np.full(len(p), -1, dtype=np.int64)
        gid[ok] = self.geo[vc[ok], p[ok]]
        ok &= (gid >= 0) & (pid >= 0) & (pid < self.pm.shape[0])
        out[ok] = self.pm[pid[ok], gid[ok]]
        return out

    def assign(self, p, vx, vy, pid) -> tuple[np.ndarray, np.ndarray]:
        """State ids for the given states, creating new ones; returns (ids, first index of each new id)."""
        keys = self.vkey(vx, vy)
        vc = self.vlut[keys]
        if (vc < 0).any():
            new = np.unique(keys[vc < 0])
            self.vlut[new] = np.arange(self.n_vel, self.n_vel + len(new))
            self.n_vel += len(new)
            if self.n_vel > self.geo.shape[0]:
                grow = np.full((max(self.n_vel, 2 * self.geo.shape[0]) - self.geo.shape[0], self.hw), -1,
                               dtype=np.int32)
                self.geo = np.concatenate([self.geo, grow])
            vc = self.vlut[keys]
        gid = self.geo[vc, p]
        if (gid < 0).any():
            gkeys = vc[gid < 0].astype(np.int64) * self.hw + p[gid < 0]
            new = np.unique(gkeys)
            self.geo[new // self.hw, new % self.hw] = np.arange(self.n_geo, self.n_geo + len(new))
            self.n_geo += len(new)
            gid = self.geo[vc, p]
        rows, cols = self.pm.shape
        if pid.max() >= rows or self.n_geo > cols:
            bigger = np.full((max(rows, int(pid.max()) + 1), max(cols, 2 * self.n_geo)), -1, dtype=np.int32)
            bigger[:rows, :cols] = self.pm
            self.pm = bigger
        sid = self.pm[pid, gid].astype(np.int64)
        first = np.zeros(0, dtype=np.int64)
        if (sid < 0).any():
            skeys = pid[sid < 0].astype(np.int64) * (1 << 32) + gid[sid < 0]
            new, first_pos = np.unique(skeys, return_index=True)
            self.pm[new >> 32, new & ((1 << 32) - 1)] = np.arange(self.n, self.n + len(new))
            self.n += len(new)
            first = np.nonzero(sid < 0)[0][first_pos]
            sid = self.pm[pid, gid].astype(np.int64)
        return sid, first


class SolverTable:
    """Every state a lone car can reach, its moves, and its distance to the finish.

    ``distance(position, velocity, progress)`` answers in microseconds; the Champion
    uses :meth:`move_values` to rank its targets.
    """

    def __init__(self, track: Track, rules: RuleSet, laps: int, tables: OffsetTables | None = None) -> None:
        self.track, self.rules, self.laps = track, rules, laps
        if not supports(rules):
            raise SolverError(f"the solver handles the nine and cross movement systems with normal braking, "
                              f"not movement {rules.movement!r} with {getattr(rules, 'braking', 'normal')!r} braking")
        self.tables = tables if tables is not None else OffsetTables(track, rules)
        self.progress = ProgressModel(track, rules, laps)
        self.steps = tuple(target_steps(rules.movement, ZERO))
        self.width, self.height = track.width, track.height
        self.index = _Index(self.width, self.height)
        self.exact = rules.offroad_penalty not in ("slow_return", "setback")
        self.note = {"slow_return": "slow_return rules: driving on the paper is not searched (par is the best on-road line)",
                     "setback": "setback rules: a car with no legal move is treated as out"}.get(rules.offroad_penalty, "")
        self.seconds = 0.0
        self._build()

    # -- building -----------------------------------------------------------
    def _start_states(self):
        track, rules = self.track, self.rules
        velocity = track.forward_unit() if rules.start == "vector1" else ZERO
        empty = Progress(balance=(0,) * len(track.checkpoints))
        for slot in track.start_slots:
            if not track.on_paper(slot):
                raise SolverError(f"track {track.id!r}: start slot {slot.as_tuple()} is off the sheet")
        return [(s.y * self.width + s.x, velocity.x, velocity.y) for s in track.start_slots], self.progress.id(empty)

    def _build(self) -> None:
        began = time.perf_counter()
        starts, pid0 = self._start_states()
        index = self.index
        fp = np.array([s[0] for s in starts], dtype=np.int64)
        fvx = np.array([s[1] for s in starts], dtype=np.int64)
        fvy = np.array([s[2] for s in starts], dtype=np.int64)
        fpid = np.full(len(fp), pid0, dtype=np.int64)
        sid, first = index.assign(fp, fvx, fvy, fpid)
        self.start_ids = sid
        fp, fvx, fvy, fpid, fsid = fp[first], fvx[first], fvy[first], fpid[first], sid[first]
        A = len(self.steps)
        succ_chunks, cost_chunks, id_chunks = [], [], []
        attr_p, attr_vx, attr_vy, attr_pid = [], [], [], []
        while len(fsid):
            attr_p.append(fp), attr_vx.append(fvx), attr_vy.append(fvy), attr_pid.append(fpid)
            succ, cost, nxt = self._expand(fp, fvx, fvy, fpid, A)
            succ_chunks.append(succ), cost_chunks.append(cost), id_chunks.append(fsid)
            fp, fvx, fvy, fpid, fsid = nxt
        n = index.n
        order = np.concatenate(id_chunks) if id_chunks else np.zeros(0, dtype=np.int64)
        self.succ = np.full((n, A + 1), NONE, dtype=np.int64)
        self.cost = np.ones((n, A + 1), dtype=np.int8)
        if n:
            self.succ[order] = np.concatenate(succ_chunks)
            self.cost[order] = np.concatenate(cost_chunks)
        self.pos = np.zeros(n, dtype=np.int64)
        self.vx = np.zeros(n, dtype=np.int64)
        self.vy = np.zeros(n, dtype=np.int64)
        self.pid = np.zeros(n, dtype=np.int64)
        if n:
            self.pos[order] = np.concatenate(attr_p)
            self.vx[order] = np.concatenate(attr_vx)
            self.vy[order] = np.concatenate(attr_vy)
            self.pid[order] = np.concatenate(attr_pid)
        self.dist = self._distances()
        self.seconds = time.perf_counter() - began

    def _leaves(self, fp, fvx, fvy, p, nvx, nvy, q, src, on_road):
        """Which of the moves leave the road under the rules' off-road check."""
        check = self.rules.offroad_check
        road = self.tables.road_flat
        if check == "segment":
            return ~on_road
        if check == "landing":
            return ~road[q]
        # projection: the landing node and the unsteered move must both be on the road
        proj = np.zeros(len(fp), dtype=bool)
        w, h = self.width, self.height
        bx, by = fp % w + fvx, fp // w + fvy
        paper = (bx >= 0) & (bx < w) & (by >= 0) & (by < h)
        for (vx, vy), rows in _groups(fvx, fvy, paper):
            proj[rows] = self.tables.get(int(vx), int(vy)).on_road[fp[rows]]
        return ~(road[q] & proj[src])

    def _expand(self, fp, fvx, fvy, fpid, A):
        """Successors of a frontier: (succ codes [n, A+1], costs, next frontier arrays)."""
        n = len(fp)
        w, h = self.width, self.height
        steps = self.steps
        src = np.repeat(np.arange(n), A)
        col = np.tile(np.arange(A), n)
        sx = np.array([s.x for s in steps])[col]
        sy = np.array([s.y for s in steps])[col]
        p = fp[src]
        nvx, nvy = fvx[src] + sx, fvy[src] + sy
        qx, qy = p % w + nvx, p // w + nvy
        paper = (qx >= 0) & (qx < w) & (qy >= 0) & (qy < h)
        q = np.where(paper, qy * w + qx, 0)
        m = len(p)
        on_road = np.zeros(m, dtype=bool)
        sig = np.zeros(m, dtype=np.int64)
        groups = list(_groups(nvx, nvy, paper))
        for (dx, dy), rows in groups:
            table = self.tables.get(int(dx), int(dy))
            on_road[rows] = table.on_road[p[rows]]
            sig[rows] = table.sig[p[rows]]
        leaves = self._leaves(fp, fvx, fvy, p, nvx, nvy, q, src, on_road) & paper
        penalty = self.rules.offroad_penalty
        out_code = np.full(m, NONE, dtype=np.int64)
        cost = np.ones(m, dtype=np.int8)
        # target state of every move: (node, velocity, signature)
        tp, tvx, tvy, tsig = q.copy(), nvx.copy(), nvy.copy(), sig
        usable = paper & ~leaves
        if penalty in ("reset", "reset_skip", "eliminate"):
            crash = paper & leaves
            tsig = sig.copy()
            for (dx, dy), rows in _groups(nvx, nvy, crash):
                node, csig = self.tables.crash(int(dx), int(dy), p[rows])
                tp[rows], tsig[rows] = node, csig
            tvx = np.where(crash, 0, tvx)
            tvy = np.where(crash, 0, tvy)
            if penalty == "reset_skip":
                cost[crash] = 2
            usable = paper.copy()
        # progress after each usable move
        pid_src = fpid[src]
        tpid = np.full(m, NONE, dtype=np.int64)
        plain = usable & (tsig == 0)
        tpid[plain] = pid_src[plain]
        crossing = np.nonzero(usable & (tsig != 0))[0]
        if len(crossing):
            pairs = pid_src[crossing] * (1 << 32) + tsig[crossing]
            uniq, inv = np.unique(pairs, return_inverse=True)
            sigs = self.tables.signatures
            mapped = np.array([self.progress.after(int(u >> 32), int(u & 0xFFFFFFFF), sigs) for u in uniq],
                              dtype=np.int64)
            tpid[crossing] = mapped[inv.reshape(-1)]
        finishing = usable & (tpid == FIN)
        if penalty == "eliminate":
            alive = usable & (tpid >= 0) & ~(paper & leaves)
        else:
            alive = usable & (tpid >= 0)
        out_code[finishing] = FIN
        cost[finishing] = 1
        codes = out_code.reshape(n, A)
        # A car with no legal target at all: under reset rules it spins to a stop where it is.
        selectable = (paper & (~leaves | (penalty in ("reset", "reset_skip", "eliminate", "slow_return")))).reshape(n, A)
        stuck = ~selectable.any(axis=1)
        extra_code = np.full(n, NONE, dtype=np.int64)
        extra_cost = np.ones(n, dtype=np.int8)
        new_p, new_vx, new_vy, new_pid = [tp[alive], tvx[alive], tvy[alive], tpid[alive]]
        alive_idx = np.nonzero(alive)[0]
        if stuck.any() and penalty in ("reset", "reset_skip"):
            s_rows = np.nonzero(stuck)[0]
            new_p = np.concatenate([new_p, fp[s_rows]])
            new_vx = np.concatenate([new_vx, np.zeros(len(s_rows), dtype=np.int64)])
            new_vy = np.concatenate([new_vy, np.zeros(len(s_rows), dtype=np.int64)])
            new_pid = np.concatenate([new_pid, fpid[s_rows]])
            extra_cost[s_rows] = 2 if penalty == "reset_skip" else 1
        ids, first = self.index.assign(new_p, new_vx, new_vy, new_pid) if len(new_p) else (
            np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        flat = codes.reshape(-1)
        flat[alive_idx] = ids[:len(alive_idx)]
        if stuck.any() and penalty in ("reset", "reset_skip"):
            extra_code[s_rows] = ids[len(alive_idx):]
        succ = np.concatenate([codes, extra_code[:, None]], axis=1)
        costs = np.concatenate([cost.reshape(n, A), extra_cost[:, None]], axis=1)
        nxt = (new_p[first], new_vx[first], new_vy[first], new_pid[first], ids[first])
        return succ, costs, nxt

    def _distances(self) -> np.ndarray:
        """Distance to the finish of every state (moves), by a bucketed backward search."""
        n = len(self.succ)
        dist = np.full(n, INF, dtype=np.int64)
        if not n:
            return dist
        width = self.succ.shape[1]
        flat = self.succ.reshape(-1)
        valid = flat >= 0
        src = (np.arange(n * width) // width)[valid]
        dst = flat[valid]
        cst = self.cost.reshape(-1)[valid].astype(np.int64)
        order = np.argsort(dst)
        src, cst = src[order], cst[order]
        counts = np.bincount(dst, minlength=n)
        starts = np.concatenate([[0], np.cumsum(counts)])
        finishers = np.nonzero((self.succ == FIN).any(axis=1))[0]
        dist[finishers] = 1
        buckets: dict[int, list[np.ndarray]] = {1: [finishers]}
        d = 1
        while buckets:
            if d not in buckets:
                d += 1
                continue
            front = np.unique(np.concatenate(buckets.pop(d)))
            front = front[dist[front] == d]
            if len(front):
                lens = counts[front]
                total = int(lens.sum())
                if total:
                    offs = np.repeat(starts[front] - (np.cumsum(lens) - lens), lens)
                    idx = np.arange(total) + offs
                    preds, nd = src[idx], d + cst[idx]
                    for c in (1, 2):
                        sel = preds[(nd == d + c) & (dist[preds] > d + c)]
                        if len(sel):
                            dist[sel] = d + c
                            buckets.setdefault(d + c, []).append(sel)
            d += 1
        return dist

    # -- asking -------------------------------------------------------------
    @property
    def states(self) -> int:
        return len(self.succ)

    def state_id(self, position: Vec, velocity: Vec, progress: Progress) -> int:
        """The table's id of a state, or -1 when a lone car could never be there."""
        if not self.track.on_paper(position):
            return -1
        pid = self.progress.find(progress)
        if pid < 0:
            return -1
        found = self.index.lookup(np.array([position.y * self.width + position.x]), np.array([velocity.x]),
                                  np.array([velocity.y]), np.array([pid]))
        return int(found[0])

    def distance(self, position: Vec, velocity: Vec, progress: Progress) -> int | None:
        """Fewest moves to the finish from this state (None: cannot finish, or unknown state)."""
        sid = self.state_id(position, velocity, progress)
        if sid < 0 or self.dist[sid] >= INF:
            return None
        return int(self.dist[sid])

    def move_values(self, sid: int) -> dict[Vec, int]:
        """For a state id: step (velocity change) -> moves to the finish after taking it (finite only)."""
        out = {}
        for j, step in enumerate(self.steps):
            code = int(self.succ[sid, j])
            if code == FIN:
                out[step] = 1
            elif code >= 0 and self.dist[code] < INF:
                out[step] = int(self.cost[sid, j]) + int(self.dist[code])
        return out

    def path_from(self, sid: int) -> list[Vec]:
        """Targets of an optimal line from a state (first the state's own node)."""
        w = self.width
        path = [Vec(int(self.pos[sid] % w), int(self.pos[sid] // w))]
        guard = 0
        while sid >= 0 and guard < 100000:
            guard += 1
            values = self.move_values(sid)
            base = Vec(int(self.pos[sid] % w + self.vx[sid]), int(self.pos[sid] // w + self.vy[sid]))
            if not values:
                code = int(self.succ[sid, len(self.steps)])  # spun to a stop with no legal target
                if code < 0:
                    break
                sid = code
                continue
            step = min(values, key=lambda s: (values[s], self.steps.index(s)))
            path.append(base + step)
            code = int(self.succ[sid, self.steps.index(step)])
            if code == FIN:
                break
            sid = code
        return path

    def solution(self, slot: int = 0) -> Solution:
        sid = int(self.start_ids[slot])
        d = self.dist[sid]
        if d >= INF:
            return Solution(None, [self.track.start_slots[slot]], self.states, self.seconds,
                            reason=f"the finish of track {self.track.id!r} cannot be reached from start slot {slot + 1}",
                            exact=self.exact, note=self.note)
        return Solution(int(d), self.path_from(sid), self.states, self.seconds, exact=self.exact, note=self.note)


def supports(rules: RuleSet) -> bool:
    """Whether the solver searches this rule set (its movement system has fixed steps)."""
    return rules.movement in ("nine", "cross") and getattr(rules, "braking", "normal") == "normal"


def _groups(vx: np.ndarray, vy: np.ndarray, mask: np.ndarray) -> Iterable[tuple[tuple[int, int], np.ndarray]]:
    """Rows of ``mask`` grouped by their (vx, vy) pair."""
    rows = np.nonzero(mask)[0]
    if not len(rows):
        return
    keys = (vx[rows] + 4096) * 8192 + (vy[rows] + 4096)
    order = np.argsort(keys)
    rows, keys = rows[order], keys[order]
    cuts = np.nonzero(np.diff(keys))[0] + 1
    bounds = np.concatenate([[0], cuts, [len(rows)]])
    for a, b in zip(bounds[:-1], bounds[1:]):
        r = rows[a:b]
        yield (int(vx[r[0]]), int(vy[r[0]])), r


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
