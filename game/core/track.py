"""A track: the road region on its sheet of paper, the start grid and the gates."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from game.core.geometry import Gate, PolygonRegion, Region
from game.core.vec import Vec


@dataclass(eq=False)
class Track:
    """Everything the rules need to know about where cars may drive.

    ``start_slots`` are the grid nodes of the start, best slot first; car *i* stands on
    slot *i*. ``forward`` is the direction cars drive when they cross the finish
    (also the direction of a "vector1" start). ``checkpoints`` are ordered by number.
    ``meta`` carries what the rules ignore (author, par, source file) for the game.
    """

    id: str
    name: str
    region: Region
    start_slots: tuple[Vec, ...]
    finish: Gate
    forward: tuple[float, float]
    checkpoints: tuple[Gate, ...] = ()
    default_laps: int = 1
    default_rules: str = "paper"
    meta: Mapping[str, object] = field(default_factory=dict)

    @property
    def width(self) -> int:
        return self.region.width

    @property
    def height(self) -> int:
        return self.region.height

    def on_paper(self, node: Vec) -> bool:
        """True for nodes on the sheet: moves may never leave it, on any rules."""
        return 0 <= node.x < self.width and 0 <= node.y < self.height

    def on_road(self, node: Vec) -> bool:
        """True when the node lies in the closed road region."""
        return self.on_paper(node) and bool(self.region.road_nodes()[node.y, node.x])

    def segment_on_road(self, p: Vec, q: Vec) -> bool:
        """True when the whole move p-q stays in the closed road region."""
        return self.on_paper(p) and self.on_paper(q) and self.region.segment_inside(p, q)

    def forward_unit(self) -> Vec:
        """The forward direction rounded to one of the four axis steps (for a "vector1" start)."""
        fx, fy = self.forward
        if abs(fx) >= abs(fy):
            return Vec(1 if fx > 0 else -1, 0)
        return Vec(0, 1 if fy > 0 else -1)

    def nearest_road_node(self, point: tuple[float, float]) -> Vec:
        """The road node closest to a point (ties: smallest y, then x); where penalised cars restart."""
        road = self.region.road_nodes()
        ys, xs = np.nonzero(road)
        d2 = (xs - point[0]) ** 2 + (ys - point[1]) ** 2
        best = int(np.argmin(d2))  # nonzero() is row-major, so argmin keeps the tie rule
        return Vec(int(xs[best]), int(ys[best]))

    @property
    def is_outline(self) -> bool:
        return isinstance(self.region, PolygonRegion)
