"""Pack texts the pack-reading tests build on: one small track ``a`` (two start places), to which a test
appends the cups or tracks it is about."""

from __future__ import annotations

ONE_TRACK_PACK = '''format = 1

[pack]
id = "p"
name = "P"

[[track]]
id = "a"
name = "A"
cars = 2
map = """
XXXXXXXXXX
XSOOOOOFOX
XSOOOOOFOX
XXXXXXXXXX
"""

'''

#: An outline ring round an island, with a sand patch on its road and a water patch.
TERRAIN_RING_PACK = """format = 1

[pack]
id = "p"
name = "P"
author = "a"
description = ""

[[track]]
id = "ring"
name = "Ring"
cars = 2

[track.outline]
outer = [[0.5, 0.5], [20.5, 0.5], [20.5, 10.5], [0.5, 10.5]]
islands = [[[4.5, 4.5], [16.5, 4.5], [16.5, 6.5], [4.5, 6.5]]]
finish = [[10, 0.5], [10, 4.5]]
forward = "right"
start = [[11, 2], [11, 3]]

[[track.outline.terrain]]
kind = "sand"
ring = [[12.6, 0.6], [16.4, 0.6], [16.4, 3.4], [12.6, 3.4]]

[[track.outline.terrain]]
kind = "water"
ring = [[12.6, 7.6], [16.4, 7.6], [16.4, 9.4], [12.6, 9.4]]
"""
