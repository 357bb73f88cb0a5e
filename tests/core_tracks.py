"""Small tracks drawn inside core tests, built from game.core types only.

The rules core is tested without the level-pack loader: a map here is a list of
strings where ``X`` is off-road and anything else is road; ``S`` nodes are the start
slots in reading order. The finish is given as an explicit line gate.
"""

from __future__ import annotations

import numpy as np

from game.core import CellRegion, Gate, RaceState, Track, Vec, preset

# A straight road, 3 nodes wide, finish line between x=15 and x=16 driving right.
STRAIGHT = [
    "XXXXXXXXXXXXXXXXXXXX",
    "XOSOOOOOOOOOOOOOOOOX",
    "XOSOOOOOOOOOOOOOOOOX",
    "XOSOOOOOOOOOOOOOOOOX",
    "XXXXXXXXXXXXXXXXXXXX",
]


def make_track(rows, finish=((15.5, 0.5), (15.5, 3.5)), forward=(1, 0), checkpoints=(), slots=None,
               laps=1, track_id="test") -> Track:
    road = np.array([[c != "X" for c in row] for row in rows])
    if slots is None:
        slots = [Vec(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "S"]
    gate = Gate(0, a=finish[0], b=finish[1], forward=forward)
    return Track(id=track_id, name=track_id, region=CellRegion(road), start_slots=tuple(slots), finish=gate,
                 forward=forward, checkpoints=tuple(checkpoints), default_laps=laps)


def race(rows=STRAIGHT, rules="paper", names=("A", "B", "C"), laps=1, seed=0, overrides=None, **track_kw):
    rules = preset(rules, overrides) if isinstance(rules, str) else rules
    track = make_track(rows, **track_kw)
    return RaceState.start(track, rules, list(names), laps=laps, seed=seed)


def play(state, *phases):
    """Apply phases given as dicts {car: (x, y) | RETIRE}; returns final state and records."""
    records = []
    for choices in phases:
        choices = {car: Vec(*c) if isinstance(c, tuple) else c for car, c in choices.items()}
        state, record = state.apply(choices)
        records.append(record)
    return state, records


#: A small loop with two ordered checkpoints (1 then 2): the kernel and table-child tests' map.
LOOP = """
XXXXXXXXXXXXXXXXXX
XXOOOOOOO1OOOOOOXX
XOOOOOOOO1OOOOOOOX
XOOOXXXXXXXXXXOOOX
X222XXXXXXXXXXOOOX
XOOOXXXXXXXXXXOOOX
XOOOOOOFSOSOOOOOOX
XXOOOOOFOSOSOOOOXX
XXXXXXXXXXXXXXXXXX
"""
