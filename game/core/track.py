"""A track: the road region on its sheet of paper, the start grid and the gates.

numpy is imported where arrays are made (the vectorised nearest nodes, fine paper,
outline terrain), not at the top: a char-map track is read and raced without it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Mapping

from game.core.geometry import CellRegion, Gate, PolygonRegion, Region
from game.core.terrain import Patch, Terrain, TerrainLayout, layout_from_masks
from game.core.vec import Vec
from game.core.limits import laps_problem

if TYPE_CHECKING:
    import numpy as np


@dataclass(eq=False)
class Track:
    """Everything the rules need to know about where cars may drive.

    ``start_slots`` are the grid nodes of the start, best slot first; car *i* stands on
    slot *i*. ``forward`` is the direction cars drive when they cross the finish
    (also the direction of a "vector1" start). ``checkpoints`` are ordered by number.
    ``meta`` carries what the rules ignore (author, par, source file) for the game.

    ``terrain`` says where sand, mud, ice, curbs and water lie (:mod:`game.core.terrain`).
    A loaded track's ``region`` counts the road kinds as road (as ``terrain = "effects"``
    sees it) and water as off-road; :meth:`for_rules` gives the track as a rule set sees
    it (under ``terrain = "offroad"`` every kind off the road, ``terrain_offroad`` True).
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
    scale: int = 1  # grid nodes per paper square (10 on fine paper)
    terrain: TerrainLayout = field(default_factory=TerrainLayout)
    terrain_offroad: bool = False  # the region already counts every terrain as off-road

    # -- terrain ----------------------------------------------------------------
    def terrain_nodes(self) -> Mapping[Terrain, np.ndarray]:
        """Each terrain kind present: a read-only bool mask (height, width) over grid nodes (no entry: absent)."""
        return self.terrain.masks

    def terrain_at(self, node: Vec) -> Terrain | None:
        """The terrain kind of a grid node (None: plain road or plain off-road)."""
        return self.terrain.at(node)

    def terrain_patches(self) -> tuple[Patch, ...]:
        """The polygons (with their kinds) an outline track's terrain was drawn with (empty on char maps)."""
        return self.terrain.patches

    def for_rules(self, rules) -> Track:
        """The track as a rule set sees it: under ``terrain = "offroad"`` every terrain is off the road.

        The same track when nothing changes (no road terrain, effects on, or converted
        already); the converted one is made once and kept.
        """
        if rules.terrain_effects or self.terrain_offroad or not any(k.drivable for k in self.terrain.kinds):
            return self
        found = self.__dict__.get("_offroad_view")
        if found is None:
            region = self.region
            if isinstance(region, PolygonRegion):
                patches = [list(p.ring) for p in self.terrain.patches if p.kind.drivable]
                region = PolygonRegion(region.outer, [*region.islands, *patches], width=region.width,
                                       height=region.height)
            else:
                road = region.road_nodes() & ~self.terrain.drivable_mask(region.road_nodes().shape)
                region = CellRegion(road)
            found = replace(self, region=region, terrain_offroad=True)
            self.__dict__["_offroad_view"] = found
        return found

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
        return self.region.node_on_road(node.x, node.y)

    def segment_on_road(self, p: Vec, q: Vec) -> bool:
        """True when the whole move p-q stays in the closed road region."""
        return self.on_paper(p) and self.on_paper(q) and self.region.segment_inside(p, q)

    def forward_unit(self) -> Vec:
        """The forward direction rounded to one of the four axis steps (for a "vector1" start)."""
        fx, fy = self.forward
        if abs(fx) >= abs(fy):
            return Vec(1 if fx > 0 else -1, 0)
        return Vec(0, 1 if fy > 0 else -1)

    def nearest_road_node(self, point: tuple[float, float], window: int = 3) -> Vec:
        """The road node closest to a point (ties: smallest y, then x); where penalised cars restart.

        The nodes in a small window around the point are tried first; a point whose best node
        there is farther than the window reaches falls back to every road node. Plain Python
        (what :meth:`nearest_road_nodes` computes for many points at once with numpy).
        """
        px, py = float(point[0]), float(point[1])
        bx, by = math.floor(px), math.floor(py)
        region = self.region
        near = [(x, y) for y in range(by - window, by + window + 2) for x in range(bx - window, bx + window + 2)
                if region.node_on_road(x, y)]
        best = _nearest(near, px, py)
        if best is None or best[0] > window * window:
            best = _nearest(region.road_cells(), px, py)
        if best is None:
            raise ValueError(f"track {self.id!r} has no road node")
        return Vec(best[2], best[1])

    def nearest_road_nodes(self, points: np.ndarray, window: int = 3) -> np.ndarray:
        """Vectorised :meth:`nearest_road_node` for points (n, 2): the nodes as an (n, 2) int array.

        Each point is first matched against the nodes in a small window around it; a point
        whose best node there is farther than the window reaches falls back to every road node.
        """
        import numpy as np

        pts = np.asarray(points, dtype=float).reshape(-1, 2)
        road = self.region.road_nodes()
        height, width = road.shape
        offsets = np.arange(-window, window + 2)
        ox, oy = np.meshgrid(offsets, offsets)
        ox, oy = ox.ravel(), oy.ravel()
        base = np.floor(pts).astype(np.int64)
        xs = base[:, 0:1] + ox[None, :]
        ys = base[:, 1:2] + oy[None, :]
        valid = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
        valid[valid] = road[ys[valid], xs[valid]]
        d2 = (xs - pts[:, 0:1]) ** 2 + (ys - pts[:, 1:2]) ** 2
        d2 = np.where(valid, d2, np.inf)
        # Order by distance, then y, then x: the tie rule.
        order = np.lexsort((xs, ys, d2), axis=1)[:, 0]
        rows = np.arange(len(pts))
        result = np.stack([xs[rows, order], ys[rows, order]], axis=1)
        far = d2[rows, order] > window * window
        if far.any():
            ry, rx = np.nonzero(road)  # row-major: ties already in (y, x) order for argmin
            for i in np.flatnonzero(far):
                best = int(np.argmin((rx - pts[i, 0]) ** 2 + (ry - pts[i, 1]) ** 2))
                result[i] = (rx[best], ry[best])
        return result

    def refined(self, scale: int) -> Track:
        """The same track on a lattice ``scale`` times finer than the paper squares (fine paper).

        Node (X, Y) of the fine lattice is road when the point (X/scale, Y/scale) lies in
        the closed road region; gates and start slots keep their places.
        """
        if self.scale != 1:
            raise ValueError(f"track {self.id!r} is already on a lattice of {self.scale}")
        import numpy as np

        k = scale
        region = self.region
        if isinstance(region, PolygonRegion):
            fine_region = PolygonRegion([(x * k, y * k) for x, y in region.outer],
                                        [[(x * k, y * k) for x, y in ring] for ring in region.islands],
                                        width=(region.width - 1) * k + 1, height=(region.height - 1) * k + 1)
        else:
            fine_region = CellRegion(_refine_cells(region.road_nodes(), k))
        def gate(g: Gate) -> Gate:
            if g.is_line:
                return replace(g, a=(g.a[0] * k, g.a[1] * k), b=(g.b[0] * k, g.b[1] * k))
            coarse = np.zeros(region.road_nodes().shape, dtype=bool)
            for x, y in g.cells:
                coarse[y, x] = True
            fine = _refine_cells(coarse, k)
            ys, xs = np.nonzero(fine)
            return replace(g, cells=frozenset(zip(xs.tolist(), ys.tolist())))
        return replace(self, region=fine_region, start_slots=tuple(s * k for s in self.start_slots),
                       finish=gate(self.finish), checkpoints=tuple(gate(g) for g in self.checkpoints),
                       scale=k, terrain=self._refined_terrain(k, fine_region))

    def _refined_terrain(self, k: int, fine_region: Region) -> TerrainLayout:
        """The terrain on the ``k`` times finer lattice: a fine node takes the kind of a coarse
        node whose closed square holds it (outlines: of a patch holding it); water only off the road."""
        if not self.terrain:
            return self.terrain
        fine_road = fine_region.road_nodes()
        if isinstance(self.region, PolygonRegion) and self.terrain.patches:
            patches = tuple(Patch(p.kind, tuple((x * k, y * k) for x, y in p.ring)) for p in self.terrain.patches)
            return patch_layout(patches, fine_road.shape[1], fine_road.shape[0], fine_road)
        masks = {kind: _refine_cells(mask, k) for kind, mask in self.terrain.masks.items()}
        if Terrain.WATER in masks:
            masks[Terrain.WATER] &= ~fine_road
        return layout_from_masks(masks)

    @property
    def is_outline(self) -> bool:
        return isinstance(self.region, PolygonRegion)

    @property
    def is_circuit(self) -> bool:
        """False for a sprint: the loader found no road from the finish back round to it.

        Only a circuit can be raced over more than one lap. A track built without a
        loader (no ``circuit`` in ``meta``) counts as a circuit.
        """
        return bool(self.meta.get("circuit", True))

    def laps_problem(self, laps: int) -> str | None:
        """Why a race of ``laps`` laps cannot be held here (None when it can): 1 to 99, and 1 on a sprint."""
        problem = laps_problem(laps)
        if problem:
            return f"laps {problem}"
        if laps > 1 and not self.is_circuit:
            return (f"track {self.id!r} is a sprint (no road leads from the finish back round to it): "
                    f"it is raced over 1 lap, not {laps}")
        return None


def patch_layout(patches, width: int, height: int, road: np.ndarray | None = None) -> TerrainLayout:
    """The terrain of outline patches: each node in a patch's closed polygon takes its kind
    (water only where it is off the ``road``, the region's road nodes, when given)."""
    if not patches:  # no terrain: no arrays, no numpy (an outline is validated without it)
        return layout_from_masks({}, patches)
    import numpy as np

    ys, xs = np.mgrid[0:height, 0:width]
    nodes = np.stack([xs.ravel(), ys.ravel()], axis=1)
    masks: dict[Terrain, np.ndarray] = {}
    for patch in patches:
        inside = PolygonRegion(list(patch.ring), width=width, height=height).contains_points(nodes)
        inside = inside.reshape(height, width)
        masks[patch.kind] = masks[patch.kind] | inside if patch.kind in masks else inside
    if road is not None and Terrain.WATER in masks:
        masks[Terrain.WATER] &= ~road
    return layout_from_masks(masks, patches)


def _nearest(nodes, px: float, py: float) -> tuple[float, int, int] | None:
    """(squared distance, y, x) of the node nearest (px, py), ties to the smallest y then x; None for no nodes."""
    best = None
    for x, y in nodes:
        dx, dy = x - px, y - py
        key = (dx * dx + dy * dy, y, x)
        if best is None or key < best:
            best = key
    return best


def _refine_cells(road: np.ndarray, k: int) -> np.ndarray:
    """Fine-lattice nodes lying in the closed union of the road squares of a coarse grid."""
    import numpy as np

    height, width = road.shape
    fine_x = np.arange((width - 1) * k + 1)
    fine_y = np.arange((height - 1) * k + 1)
    # Coarse cells whose closed square contains the fine node: x in [ceil((X - k/2)/k), floor((X + k/2)/k)].
    x_lo, x_hi = -((k - 2 * fine_x) // (2 * k)), (2 * fine_x + k) // (2 * k)
    y_lo, y_hi = -((k - 2 * fine_y) // (2 * k)), (2 * fine_y + k) // (2 * k)
    x_lo, x_hi = np.clip(x_lo, 0, width - 1), np.clip(x_hi, 0, width - 1)
    y_lo, y_hi = np.clip(y_lo, 0, height - 1), np.clip(y_hi, 0, height - 1)
    return (road[np.ix_(y_lo, x_lo)] | road[np.ix_(y_lo, x_hi)] | road[np.ix_(y_hi, x_lo)] | road[np.ix_(y_hi, x_hi)])
