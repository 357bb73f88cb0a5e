"""An independent par for char maps with terrain: a plain breadth-first search, written apart from the game.

It shares no code with ``game`` (only the Karopapier cell walk of ``tests/karo_reference``,
itself checked against the game's): it reads the map's letters itself and searches states
``(x, y, vx, vy, checkpoints taken)`` under the karopapier rules with ``terrain = "effects"``:

- a car starts at rest on any ``S`` cell; every move changes the velocity by at most one
  per axis and never to (0, 0) (no zero move);
- a car standing on ice (``I``, or snow ``N``) with any speed may only repeat its move;
- a move is allowed when every cell it passes is on the map and not off-road (``X P W``
  and Karopapier's other letters ``G L T V .``); sand ``Y``, mud ``Z`` and curbs ``C`` are road;
- where a move ends on sand each axis of the velocity loses one toward zero, in mud each
  axis is cut to one, and on a curb a velocity above 3 on its longer axis drops to rest;
- passing a digit cell takes that checkpoint; passing an ``F`` cell with every checkpoint
  of the map taken finishes.
"""

from __future__ import annotations

from collections import deque

from tests.karo_reference import passed_cells

OFFROAD = frozenset("XPWGLTV.")
ICE = frozenset("IN")


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


def kept(letter: str, vx: int, vy: int) -> tuple[int, int]:
    """The velocity a move by (vx, vy) keeps when it ends on a cell with this letter."""
    if letter == "Y":
        return vx - _sign(vx), vy - _sign(vy)
    if letter == "Z":
        return max(-1, min(1, vx)), max(-1, min(1, vy))
    if letter == "C" and max(abs(vx), abs(vy)) > 3:
        return 0, 0
    return vx, vy


def terrain_par(text: str, max_states: int = 300_000) -> int | None:
    """Fewest moves from the best start place to the finish (None: no finish, or the search gave up)."""
    rows = [row for row in text.splitlines() if row.strip()]
    height, width = len(rows), max(len(row) for row in rows)
    rows = [row.ljust(width, "X") for row in rows]
    digits = sorted({ch for row in rows for ch in row if ch.isdigit()})
    bit = {d: 1 << i for i, d in enumerate(digits)}
    every = (1 << len(digits)) - 1
    starts = [(x, y, 0, 0, 0) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "S"]
    seen = set(starts)
    queue = deque((state, 0) for state in starts)
    while queue:
        (x, y, vx, vy, taken), depth = queue.popleft()
        if rows[y][x] in ICE and (vx, vy) != (0, 0):
            changes = [(0, 0)]
        else:
            changes = [(ax, ay) for ax in (-1, 0, 1) for ay in (-1, 0, 1)]
        for ax, ay in changes:
            nvx, nvy = vx + ax, vy + ay
            if nvx == 0 and nvy == 0:
                continue
            now = taken
            finished = False
            for cx, cy in passed_cells(nvx, nvy):
                px, py = x + cx, y + cy
                if not (0 <= px < width and 0 <= py < height) or rows[py][px] in OFFROAD:
                    break
                ch = rows[py][px]
                if ch in bit:
                    now |= bit[ch]
                elif ch == "F" and now == every:
                    finished = True
            else:
                if finished:
                    return depth + 1
                qx, qy = x + nvx, y + nvy
                state = (qx, qy, *kept(rows[qy][qx], nvx, nvy), now)
                if state not in seen:
                    if len(seen) >= max_states:
                        return None
                    seen.add(state)
                    queue.append((state, depth + 1))
    return None
