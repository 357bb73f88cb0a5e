"""An independent par for Karopapier maps: a plain breadth-first search from Karopapier's own rules.

Written apart from the game on purpose (it shares no code with ``game``): it reads the
map's letters itself, walks each move's cells with Karopapier's modified Bresenham
algorithm (as its ``Vector.getPassedVectors`` describes it), and searches states
``(x, y, vx, vy, checkpoints taken)``:

- a car starts at rest on any ``S`` cell; every move changes the velocity by at most one
  per axis and never to (0, 0) (Karopapier's clients do not offer the zero move);
- a move is allowed when every cell it passes is on the map and not off-road (Karopapier's
  off-road letters ``X P L G N V T W Y Z``); there are no crash moves;
- passing a digit cell takes that checkpoint; passing an ``F`` cell once every
  checkpoint of the map is taken finishes (cells in the order the walk passes them).

The result is the fewest moves from the best start place, or None when the search
gave up (``max_states``) or found no finish (:func:`karopapier_search` tells them apart).
"""

from __future__ import annotations

from collections import deque

OFFROAD = frozenset("XPLGNVTWYZ")


def passed_cells(dx: int, dy: int) -> list[tuple[int, int]]:
    """The cells a move by (dx, dy) passes, from its start cell (0, 0) to its end, in order.

    Karopapier's walk: step along the longer axis; an error term (doubled here, so it
    stays whole) says when to step across instead, and a step is diagonal when the line
    runs exactly through a corner.
    """
    sx = (dx > 0) - (dx < 0)
    sy = (dy > 0) - (dy < 0)
    ax, ay = abs(dx), abs(dy)
    if ax > ay:
        along, across, short, long = (sx, 0), (0, sy), ay, ax
    else:
        along, across, short, long = (0, sy), (sx, 0), ax, ay
    x = y = 0
    cells = [(0, 0)]
    err = long - short  # twice Karopapier's (long - short) / 2
    while True:
        if err < 0:
            err += 2 * long
            x, y = x + across[0], y + across[1]
        elif err > 0:
            err -= 2 * short
            x, y = x + along[0], y + along[1]
        else:
            err += 2 * long - 2 * short
            x, y = x + sx, y + sy
        cells.append((x, y))
        if abs(x) == ax and abs(y) == ay:
            return cells


def karopapier_par(text: str, max_states: int = 200_000) -> int | None:
    """Fewest moves from the best start place to the finish of a map under Karopapier's rules."""
    return karopapier_search(text, max_states)[1]


def karopapier_search(text: str, max_states: int = 200_000) -> tuple[bool, int | None]:
    """(settled, par): settled is False when the search gave up at ``max_states``; a settled
    None means no finish can be reached."""
    rows = [row for row in text.splitlines() if row.strip()]
    height, width = len(rows), max(len(row) for row in rows)
    rows = [row.ljust(width, "X") for row in rows]
    digits = sorted({ch for row in rows for ch in row if ch.isdigit()})
    bit = {d: 1 << i for i, d in enumerate(digits)}
    every = (1 << len(digits)) - 1
    walks: dict[tuple[int, int], list[tuple[int, int]]] = {}
    starts = [(x, y, 0, 0, 0) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "S"]
    seen = set(starts)
    queue = deque((state, 0) for state in starts)
    while queue:
        (x, y, vx, vy, taken), depth = queue.popleft()
        for ax in (-1, 0, 1):
            for ay in (-1, 0, 1):
                nvx, nvy = vx + ax, vy + ay
                if nvx == 0 and nvy == 0:
                    continue
                walk = walks.get((nvx, nvy))
                if walk is None:
                    walk = walks[(nvx, nvy)] = passed_cells(nvx, nvy)
                now = taken
                finished = False
                for cx, cy in walk:
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
                        return True, depth + 1
                    state = (x + nvx, y + nvy, nvx, nvy, now)
                    if state not in seen:
                        if len(seen) >= max_states:
                            return False, None
                        seen.add(state)
                        queue.append((state, depth + 1))
    return True, None
