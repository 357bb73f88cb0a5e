"""An outline's road is filled in plain Python (issue 28): node for node the road numpy's containment test gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings, strategies as st

from game.core.geometry import SNAP, PolygonRegion, fill_rings
from game.tracks.pack import load_pack

BUILTIN = Path(__file__).resolve().parent.parent / "tracks"


def _numpy_fill(region: PolygonRegion) -> np.ndarray:
    """The road as the vectorised closed containment test sees it, every node of the sheet asked."""
    ys, xs = np.mgrid[0:region.height, 0:region.width]
    return region.contains_points(np.stack([xs.ravel(), ys.ravel()], axis=1)).reshape(region.height, region.width)


def test_every_built_in_outline_and_patch_is_filled_node_for_node_as_numpy_does():
    checked = 0
    for path in sorted(BUILTIN.glob("*.toml")):
        for track in load_pack(path).tracks:
            if not track.is_outline:
                continue
            region = track.region
            assert np.array_equal(np.array(region.road_rows, dtype=bool), _numpy_fill(region)), track.id
            assert region.packed_road() == np.packbits(_numpy_fill(region)).tobytes(), track.id
            for patch in track.terrain.patches:
                area = PolygonRegion(list(patch.ring), width=region.width, height=region.height)
                assert np.array_equal(np.array(area.road_rows, dtype=bool), _numpy_fill(area)), track.id
            checked += 1
    assert checked >= 6


#: A coordinate in 1/64 squares: anywhere, or on a node or half-way between nodes, where a border most
#: often passes exactly through a node (the cases a fill gets wrong).
_COORD = st.one_of(st.integers(0, 12 * SNAP), st.integers(0, 12).map(lambda v: v * SNAP),
                   st.integers(0, 24).map(lambda v: v * SNAP // 2))
_RING = st.lists(st.tuples(_COORD, _COORD), min_size=3, max_size=12)


@settings(max_examples=300, deadline=None)
@given(rings=st.lists(_RING, min_size=1, max_size=3))
def test_any_rings_are_filled_node_for_node_as_numpy_does(rings):
    """Rings that cross, touch, run along rows and columns or fold back: the even-odd rule with borders
    counted as road, whatever the shape (the validator refuses bad rings; the fill must not care)."""
    outer, *islands = [[(x / SNAP, y / SNAP) for x, y in ring] for ring in rings]
    region = PolygonRegion(outer, islands, width=14, height=14)
    rows = fill_rings(region.lattice_rings, 14, 14)
    assert np.array_equal(np.array(rows, dtype=bool), _numpy_fill(region))


def test_a_node_on_a_slanted_border_is_road_and_one_just_outside_is_not():
    """The exact rule at the border, by hand: the triangle (0,0)-(4,0)-(0,4) holds (2, 2) on its long side."""
    rows = fill_rings([[(0, 0), (4 * SNAP, 0), (0, 4 * SNAP)]], 5, 5)
    assert rows[2][2] and not rows[2][3] and rows[0] == (True,) * 5 and rows[4] == (True, False, False, False, False)
