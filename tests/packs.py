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
