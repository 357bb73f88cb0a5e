"""The pure rules core: no pygame, no I/O, no clock, no global random.

Everything a race needs to be refereed lives here: integer grid vectors, exact
segment-in-region geometry, tracks with directed gates, rule sets with named
presets, and the immutable race state whose ``apply`` plays one phase.
"""

from game.core.errors import IllegalChoiceError, RacetrackError, RaceSetupError, RulesError
from game.core.geometry import CellGate, CellRegion, Gate, LineGate, PolygonRegion, Region
from game.core.race import (
    Candidate,
    CarMove,
    CarState,
    Collision,
    Event,
    Outcome,
    PhaseRecord,
    RaceState,
)
from game.core.rules import PRESET_NAMES, RuleSet, preset
from game.core.track import Track
from game.core.vec import RETIRE, Retire, Vec

__all__ = [
    "Candidate", "CarMove", "CarState", "CellGate", "CellRegion", "Collision", "Event", "Gate", "LineGate",
    "IllegalChoiceError", "Outcome", "PRESET_NAMES", "PhaseRecord", "PolygonRegion",
    "RETIRE", "RaceSetupError", "RaceState", "RacetrackError", "Region", "Retire",
    "RulesError", "RuleSet", "Track", "Vec", "preset",
]
