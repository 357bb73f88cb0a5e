"""A small built-in circuit made from core types alone.

The game falls back on it when no track pack can be loaded, and the presentation
tests and benchmarks race on it, so they do not depend on the track loader.
"""

from __future__ import annotations

import numpy as np

from game.core.geometry import CellRegion, Gate
from game.core.track import Track
from game.core.vec import Vec

#: ``#`` is off the road, anything else is road; ``S`` marks start slots (best first, reading order
#: by column from the line backwards). The finish line runs across the bottom straight at x = 20.5.
DEMO_MAP = (
    "##########################################",
    "##########################################",
    "######..............................######",
    "####..................................####",
    "###....................................###",
    "##......................................##",
    "##..........######################......##",
    "##........##########################....##",
    "##.......############################...##",
    "##......#############################...##",
    "##......#############################...##",
    "##......#############################...##",
    "##.......############################...##",
    "##........##########################....##",
    "##..........######################......##",
    "##......................................##",
    "###.................SSSS...............###",
    "####................SSSS..............####",
    "######..............................######",
    "##########################################",
    "##########################################",
)


def demo_track() -> Track:
    """An oval of about 40 x 20 squares: the finish on the bottom straight, driven to the left.

    Two checkpoints (top straight, right bend) make a lap count only when driven all round.
    """
    road = np.array([[c != "#" for c in row] for row in DEMO_MAP])
    slots = [(x, y) for y, row in enumerate(DEMO_MAP) for x, c in enumerate(row) if c == "S"]
    # Cars drive to the left on the bottom straight: the best slots are the leftmost.
    slots.sort(key=lambda s: (s[0], s[1]))
    finish = Gate(0, a=(19.5, 14.5), b=(19.5, 18.5), forward=(-1.0, 0.0))
    checkpoints = (
        Gate(1, a=(20.5, 1.5), b=(20.5, 6.5), forward=(1.0, 0.0)),
        Gate(2, a=(35.5, 10.5), b=(40.5, 10.5), forward=(0.0, 1.0)),
    )
    return Track(id="demo", name="Demo Oval", region=CellRegion(road),
                 start_slots=tuple(Vec(x, y) for x, y in slots), finish=finish, forward=(-1.0, 0.0),
                 checkpoints=checkpoints, default_laps=1, default_rules="arcade",
                 meta={"par": 16, "author": "Racetrack"})
