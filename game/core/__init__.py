"""The pure rules core: no pygame, no I/O, no clock, no global random.

Everything a race needs to be refereed lives here: integer grid vectors, exact
segment-in-region geometry, tracks with directed gates, rule sets with named
presets, and the immutable race state whose ``apply`` plays one phase.
"""

import importlib

#: Where each name of the package's interface lives. They are imported on first use
#: (:func:`__getattr__`), not with the package: ``game.core.errors`` alone must not pull in
#: numpy and the geometry, or every ``racetrack`` command would pay for them.
_HOMES = {
    "IllegalChoiceError": "errors", "RacetrackError": "errors", "RaceSetupError": "errors", "RulesError": "errors",
    "CellGate": "geometry", "CellRegion": "geometry", "Gate": "geometry", "LineGate": "geometry",
    "PolygonRegion": "geometry", "Region": "geometry",
    "Candidate": "race", "CarMove": "race", "CarState": "race", "Collision": "race", "Event": "race",
    "Outcome": "race", "PhaseRecord": "race", "RaceState": "race",
    "PRESET_NAMES": "rules", "RuleSet": "rules", "preset": "rules",
    "Track": "track",
    "RETIRE": "vec", "Retire": "vec", "Vec": "vec",
}


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'game.core' has no attribute {name!r}")
    return getattr(importlib.import_module(f"game.core.{home}"), name)


__all__ = [
    "Candidate", "CarMove", "CarState", "CellGate", "CellRegion", "Collision", "Event", "Gate", "LineGate",
    "IllegalChoiceError", "Outcome", "PRESET_NAMES", "PhaseRecord", "PolygonRegion",
    "RETIRE", "RaceSetupError", "RaceState", "RacetrackError", "Region", "Retire",
    "RulesError", "RuleSet", "Track", "Vec", "preset",
]
