"""A modest CPU driver for the presentation tests: it heads for the next gate along the road and
avoids targets it could not recover from two moves later. It needs no solver (no numba compile), so
tests that only watch a race being drawn and played stay fast. The game itself always has its real
CPU levels (``game.drivers.cpu``); this driver lived in ``game/presentation`` as their fallback,
which could never be taken.
"""

from __future__ import annotations

import random
from collections import deque
from typing import Mapping

import numpy as np

from game.core.race import Choice, RaceState
from game.core.vec import RETIRE, Vec

_STEPS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]


class StandInCPU:
    """Greedy gate-seeking CPU (the ``cpu:standin`` kind)."""

    kind = "cpu:standin"
    is_human = False

    def __init__(self) -> None:
        self._fields: dict[tuple[int, int], np.ndarray] = {}

    def _distance(self, state: RaceState, gate_index: int) -> np.ndarray:
        key = (id(state.track), gate_index)
        if key not in self._fields:
            track = state.track
            gates = (*track.checkpoints, track.finish)
            gate = gates[gate_index]
            road = track.region.road_nodes()
            h, w = road.shape
            dist = np.full((h, w), 10**6, dtype=np.int64)
            seeds = []
            if gate.is_line:
                (ax, ay), (bx, by) = gate.a, gate.b
                fx, fy = gate.forward
                for k in range(41):
                    x = ax + (bx - ax) * k / 40 + fx * 0.6
                    y = ay + (by - ay) * k / 40 + fy * 0.6
                    seeds.append((int(round(x)), int(round(y))))
            else:
                seeds = list(gate.cells)
            queue = deque()
            for x, y in seeds:
                if 0 <= x < w and 0 <= y < h and road[y, x] and dist[y, x] > 0:
                    dist[y, x] = 0
                    queue.append((x, y))
            while queue:
                x, y = queue.popleft()
                for dx, dy in _STEPS:
                    nx, ny = x + dx, y + dy
                    if 0 <= nx < w and 0 <= ny < h and road[ny, nx] and dist[ny, nx] > dist[y, x] + 1:
                        dist[ny, nx] = dist[y, x] + 1
                        queue.append((nx, ny))
            self._fields[key] = dist
        return self._fields[key]

    def _next_gate(self, state: RaceState, car: int) -> int:
        c = state.cars[car]
        n = len(state.track.checkpoints)
        if state.rules.ordered_checkpoints:
            return min(c.progress.next_checkpoint, n)
        for i, b in enumerate(c.progress.balance):
            if b <= 0:
                return i
        return n

    def _survives(self, state: RaceState, pos: Vec, vel: Vec, depth: int) -> bool:
        if depth == 0:
            return True
        track = state.track
        base = pos + vel
        for dx, dy in [(0, 0)] + sorted(_STEPS, key=lambda s: s[0] * vel.x + s[1] * vel.y):
            q = base + Vec(dx, dy)
            if track.on_paper(q) and track.segment_on_road(pos, q) and self._survives(state, q, q - pos, depth - 1):
                return True
        return False

    def choose(self, state: RaceState, car: int, committed: Mapping[int, Choice], rng: random.Random) -> Choice:
        cands = [c for c in state.candidates(car, committed) if c.legal]
        if not cands:
            return RETIRE
        dist = self._distance(state, self._next_gate(state, car))
        pos = state.cars[car].position
        best, best_score = None, None
        for cand in cands:
            node = cand.node
            safe = not cand.offroad and self._survives(state, node, node - pos, 2)
            d = dist[node.y, node.x] if state.track.on_road(node) else 10**6
            score = (not safe, d, rng.random())
            if best_score is None or score < best_score:
                best, best_score = node, score
        return best
