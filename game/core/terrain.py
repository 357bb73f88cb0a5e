"""Terrain on the paper: the kinds, the letters that draw them, and what each does to a car.

The one place the terrain rules live. The referee (:mod:`game.core.race`) asks
:func:`landing_velocity` after every move and :func:`held` before offering targets; the
solver and the CPUs ask the same functions (the compiled kernels follow the tables
``game.drivers.moves`` builds from them), so the three never disagree.

Under the rule option ``terrain = "effects"`` (the default of every preset but
``karopapier``) the road kinds are road with an effect; under ``terrain = "offroad"``
(Karopapier's own rule) every kind is off-road, as if the letters were ``X``:

- **sand** (``Y``): a move that ends on sand loses one square of speed on each axis,
  toward zero, before the next move (``(4, -2)`` becomes ``(3, -1)``): in sand a car
  cannot gain speed, it only keeps it by accelerating every move.
- **mud** (``Z``): a move that ends in mud leaves the car at most one square per axis
  (``(4, -2)`` becomes ``(1, -1)``).
- **ice** (``I``; Karopapier's snow ``N`` reads as ice): a car standing on ice with any
  speed cannot steer: its only target is the base point (its last move repeated). A car
  at rest on ice moves off as anywhere.
- **curb** (``C``, a letter of Racetrack's own): road, but a move that ends on a curb
  faster than :data:`CURB_SPEED` squares (on the longer axis) spins the car out to rest.
- **water** (``W``): off-road under both values.

A state is still a position and a velocity: every effect depends only on the node a
car lands on (or stands on) and its velocity. Speeds are in paper squares; on fine
paper (a lattice ``scale`` times finer) a square is ``scale`` lattice units.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Sequence

from game.core.rules import Word
from game.core.vec import ZERO, Vec

if TYPE_CHECKING:
    import numpy as np


class Terrain(Word):
    """A kind of terrain, spelled as the files spell it (``[[track.outline.terrain]] kind = "sand"``)."""

    SAND = "sand"
    MUD = "mud"
    ICE = "ice"
    CURB = "curb"
    WATER = "water"

    @property
    def drivable(self) -> bool:
        """Road (with an effect) under ``terrain = "effects"``; water is off-road whatever the rules."""
        return self is not Terrain.WATER


#: Kinds that are road under ``effects`` (every kind but water).
ROAD_KINDS = tuple(kind for kind in Terrain if kind.drivable)
#: Where two kinds meet on a border node (fine paper), the one earlier here wins.
PRECEDENCE = (Terrain.WATER, Terrain.MUD, Terrain.SAND, Terrain.ICE, Terrain.CURB)
#: A move ending on a curb faster than this (squares, on the longer axis) spins out.
CURB_SPEED = 3

#: Char-map letters of each kind; the first letter of a kind is the one written back.
LETTERS: dict[str, Terrain] = {"Y": Terrain.SAND, "Z": Terrain.MUD, "I": Terrain.ICE, "N": Terrain.ICE,
                               "C": Terrain.CURB, "W": Terrain.WATER}
#: The letter each kind is written with.
LETTER_OF: dict[Terrain, str] = {kind: next(ch for ch, k in LETTERS.items() if k is kind) for kind in Terrain}
#: What a letter is called in messages (Karopapier's snow is ice here).
LETTER_NAMES: dict[str, str] = {"Y": "sand", "Z": "mud", "I": "ice", "N": "snow (ice)", "C": "curb",
                                "W": "water"}


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


def landing_velocity(kind: Terrain | None, velocity: Vec, scale: int = 1) -> Vec:
    """The velocity a car keeps after a move by ``velocity`` that ends on ``kind`` (None: plain road).

    ``scale`` is the lattice units per paper square (10 on fine paper).

    >>> landing_velocity(Terrain.SAND, Vec(4, -2)), landing_velocity(Terrain.SAND, Vec(1, 0))
    (Vec(3, -1), Vec(0, 0))
    >>> landing_velocity(Terrain.MUD, Vec(4, -2)), landing_velocity(Terrain.CURB, Vec(4, 0))
    (Vec(1, -1), Vec(0, 0))
    >>> landing_velocity(Terrain.CURB, Vec(3, -3)), landing_velocity(Terrain.ICE, Vec(5, 2))
    (Vec(3, -3), Vec(5, 2))
    """
    if kind is Terrain.SAND:
        return Vec(_toward_zero(velocity.x, scale), _toward_zero(velocity.y, scale))
    if kind is Terrain.MUD:
        return Vec(max(-scale, min(scale, velocity.x)), max(-scale, min(scale, velocity.y)))
    if kind is Terrain.CURB and velocity.chebyshev() > CURB_SPEED * scale:
        return ZERO
    return velocity


def _toward_zero(n: int, scale: int) -> int:
    return n - _sign(n) * min(abs(n), scale)


def held(kind: Terrain | None, velocity: Vec) -> bool:
    """Whether a car standing on ``kind`` with ``velocity`` cannot steer (ice, moving): its only target is the base point."""
    return kind is Terrain.ICE and velocity != ZERO


def spins_out(kind: Terrain | None, velocity: Vec, scale: int = 1) -> bool:
    """Whether a move by ``velocity`` ending on ``kind`` spins the car out (a curb taken too fast)."""
    return kind is Terrain.CURB and velocity.chebyshev() > CURB_SPEED * scale


#: One line a screen shows for each kind under ``terrain = "effects"`` (the legend card).
_EFFECT_LINES: dict[Terrain, str] = {
    Terrain.SAND: "ending a move here loses a square of speed on each axis",
    Terrain.MUD: "ending a move here leaves at most a square of speed on each axis",
    Terrain.ICE: "a moving car cannot steer here: its last move is repeated",
    Terrain.CURB: f"ending a move here faster than {CURB_SPEED} squares spins the car out",
    Terrain.WATER: "off-road",
}


def effect_text(kind: Terrain | str, rules) -> str:
    """What ``kind`` does to a car under ``rules``, in one line for a screen (the pause menu's legend).

    Every screen takes the words from here, so they follow the rules that apply them.

    >>> from game.core.rules import preset
    >>> effect_text("mud", preset("paper"))
    'ending a move here leaves at most a square of speed on each axis'
    >>> effect_text("mud", preset("karopapier")) == effect_text("sand", preset("karopapier")) == "off-road"
    True
    """
    kind = Terrain(kind)
    if not rules.terrain_effects:
        return "off-road"
    return _EFFECT_LINES[kind]


@dataclass(frozen=True)
class Patch:
    """One terrain patch of an outline track: a closed polygon (points in squares) of one kind."""

    kind: Terrain
    ring: tuple[tuple[float, float], ...]


@dataclass(frozen=True, eq=False)
class TerrainLayout:
    """Where the terrain lies on a track: one boolean mask (height, width) over grid nodes per kind present.

    Masks never overlap. ``patches`` are the polygons an outline track drew them from
    (empty on char maps). A layout with no kinds is a track without terrain.
    """

    masks: Mapping[Terrain, np.ndarray] = field(default_factory=dict)
    patches: tuple[Patch, ...] = ()

    def __post_init__(self) -> None:
        if not self.masks:  # no terrain: nothing to keep (and no numpy to load for it)
            object.__setattr__(self, "masks", {})
            return
        import numpy as np

        kept = {}
        for kind in PRECEDENCE:  # canonical order, only kinds present, read-only
            mask = self.masks.get(kind)
            if mask is not None and mask.any():
                mask = np.array(mask, dtype=bool)
                mask.setflags(write=False)
                kept[kind] = mask
        object.__setattr__(self, "masks", kept)

    def __bool__(self) -> bool:
        return bool(self.masks)

    @property
    def kinds(self) -> tuple[Terrain, ...]:
        return tuple(self.masks)

    def at(self, node: Vec) -> Terrain | None:
        for kind, mask in self.masks.items():
            if 0 <= node.y < mask.shape[0] and 0 <= node.x < mask.shape[1] and mask[node.y, node.x]:
                return kind
        return None

    def drivable_mask(self, shape: tuple[int, int]) -> np.ndarray:
        """Nodes of every road kind (what ``terrain = "offroad"`` takes off the road)."""
        import numpy as np

        out = np.zeros(shape, dtype=bool)
        for kind, mask in self.masks.items():
            if kind.drivable:
                out |= mask
        return out

    def key(self) -> bytes:
        """Bytes that change whenever the terrain does (for cache fingerprints)."""
        import numpy as np

        parts = [f"{kind}:{mask.shape}".encode() + np.packbits(mask).tobytes() for kind, mask in self.masks.items()]
        return b"|".join(parts)


def layout_from_masks(masks: Mapping[Terrain, np.ndarray], patches: Sequence[Patch] = ()) -> TerrainLayout:
    """A layout from possibly overlapping masks: where kinds overlap, :data:`PRECEDENCE` decides."""
    if not masks:
        return TerrainLayout({}, tuple(patches))
    import numpy as np

    taken = None
    out = {}
    for kind in PRECEDENCE:
        mask = masks.get(kind)
        if mask is None:
            continue
        mask = np.asarray(mask, dtype=bool)
        if taken is None:
            taken = np.zeros(mask.shape, dtype=bool)
        mask = mask & ~taken
        taken |= mask
        out[kind] = mask
    return TerrainLayout(out, tuple(patches))
