"""Which target a player's keys, stick and mouse point at, for every movement system (no pygame).

The race scene keeps one highlighted candidate *key* per human car (``Candidate.key``:
the step from the base point under ``nine``/``cross``, else the new velocity) and asks
this module how an input changes it:

- :func:`is_grid` shapes (``nine`` and ``cross`` without extra braking targets) keep the
  classic 3x3 layout: numpad / QWE blocks and the d-pad name a target by its place.
- Every other shape (``scalar``, ``graded``, ``flick``, hard braking) is stepped through
  by direction (:func:`step`): the nearest candidate that lies in that direction from the
  highlighted one. A numpad / QWE key still picks the node at that place round the base
  point when there is one (:func:`at_layout`), else it highlights the nearest target
  that way (:func:`toward`).
- Fine paper moves a reticle over the lattice (:func:`nudge`, :func:`from_stick`):
  keys move it one lattice unit (or five), the analog stick's deflection maps straight
  onto the velocity change (full deflection = ``fine_range`` squares).
- The mouse picks the candidate nearest the pointer (:func:`nearest`).

Each of these is a :class:`Chooser` (:class:`GridChooser`, :class:`StepChooser`,
:class:`FineChooser`) behind one interface; :func:`chooser_for` picks it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from game.core.movement import GRID_SYSTEMS
from game.core.race import Candidate
from game.core.rules import Movement
from game.core.vec import Vec

#: Stick deflections below this (per axis) do not move the fine-paper reticle, so letting
#: the stick spring back to the centre keeps the aim.
STICK_REST = 0.12


def is_grid(movement: str, candidates: Sequence[Candidate]) -> bool:
    """True when the targets are exactly the classic 3x3 block (or cross) round the base point."""
    return movement in GRID_SYSTEMS and all(abs(c.key.x) <= 1 and abs(c.key.y) <= 1 for c in candidates)


def home(movement: str, candidates: Sequence[Candidate], base: Vec) -> Vec | None:
    """The key highlighted at the start of a turn: the base point, or the target nearest it.

    Legal targets come first; ties go to the smaller key (top row first), so the choice is
    the same every time.
    """
    if not candidates:
        return None
    best = min(candidates, key=lambda c: (not c.legal, _d2(c.node, base), c.key.y, c.key.x))
    return best.key


def at_layout(candidates: Sequence[Candidate], base: Vec, dx: int, dy: int) -> Vec | None:
    """The key of the candidate standing at base + (dx, dy) (a numpad key's place), if any."""
    node = base + Vec(dx, dy)
    return next((c.key for c in candidates if c.node == node), None)


def toward(candidates: Sequence[Candidate], origin: Vec, dx: int, dy: int, exclude: Vec | None = None) -> Vec | None:
    """The key of the candidate nearest ``origin`` in direction (dx, dy) (within 67.5 degrees).

    Candidates further off the direction count as further away, so stepping right from a
    target picks the next one along rather than one a little right and far down.
    """
    if dx == 0 and dy == 0:
        return None
    norm = math.hypot(dx, dy)
    ux, uy = dx / norm, dy / norm
    best, best_cost = None, None
    for c in candidates:
        if exclude is not None and c.key == exclude:
            continue
        vx, vy = c.node.x - origin.x, c.node.y - origin.y
        dist = math.hypot(vx, vy)
        if dist == 0:
            continue
        along = (vx * ux + vy * uy) / dist  # cosine of the angle off the direction
        if along < math.cos(math.radians(67.5)) - 1e-9:
            continue
        cost = dist * (2.0 - along) ** 2
        key = (cost, not c.legal, c.key.y, c.key.x)
        if best_cost is None or key < best_cost:
            best, best_cost = c.key, key
    return best


def step(candidates: Sequence[Candidate], current: Vec | None, dx: int, dy: int) -> Vec | None:
    """The key a d-pad / arrow / stick push in (dx, dy) moves the highlight to (None: stay)."""
    here = next((c for c in candidates if c.key == current), None)
    if here is None:
        return None
    return toward(candidates, here.node, dx, dy, exclude=here.key)


def nearest(candidates: Sequence[Candidate], point: tuple[float, float], reach: float | None = None) -> Vec | None:
    """The key of the candidate whose node is nearest ``point`` (node coordinates), within ``reach``."""
    best, best_d = None, None
    for c in candidates:
        d = (c.node.x - point[0]) ** 2 + (c.node.y - point[1]) ** 2
        if reach is not None and d > reach * reach:
            continue
        if best_d is None or d < best_d:
            best, best_d = c.key, d
    return best


def nudge(current: Vec, dx: int, dy: int, velocity: Vec, reach: int) -> Vec:
    """Fine paper: the reticle (a new-velocity key) moved by (dx, dy) lattice units, kept in range."""
    x = max(velocity.x - reach, min(velocity.x + reach, current.x + dx))
    y = max(velocity.y - reach, min(velocity.y + reach, current.y + dy))
    return Vec(x, y)


def from_stick(x: float, y: float, velocity: Vec, reach: int) -> Vec | None:
    """Fine paper: the key an analog stick at (x, y) in -1..1 aims at (None while at rest).

    Full deflection on an axis changes the velocity by ``reach`` lattice units that way.
    """
    if abs(x) < STICK_REST and abs(y) < STICK_REST:
        return None
    x, y = max(-1.0, min(1.0, x)), max(-1.0, min(1.0, y))
    return Vec(velocity.x + _round(x * reach), velocity.y + _round(y * reach))


def _round(v: float) -> int:
    """Round half away from zero (symmetric for left and right pushes)."""
    return int(math.copysign(math.floor(abs(v) + 0.5), v))


def _d2(a: Vec, b: Vec) -> int:
    return (a.x - b.x) ** 2 + (a.y - b.y) ** 2


# -- one chooser per movement system ---------------------------------------------------

@dataclass(frozen=True)
class Turn:
    """What a chooser needs to know about one car's turn (all keys are ``Candidate.key``)."""

    movement: str
    candidates: Sequence[Candidate]
    base: Vec  # the base point
    velocity: Vec
    current: Vec | None  # the highlighted key
    unit: int  # lattice units per paper square (10 on fine paper)
    reach: int  # fine paper: lattice units the velocity may change per axis


class Chooser:
    """How the keys, the d-pad and the stick move the highlight, for one shape of targets.

    The race scene asks :func:`chooser_for` once per input and hands it the :class:`Turn`;
    the answer is a key (None: the input changes nothing). A new movement system whose
    targets are a 3x3 block, a set to step through, or a lattice needs no new chooser.
    """

    #: Whether the analog stick aims the highlight directly (:meth:`aim`).
    aims = False

    def select(self, turn: Turn, dx: int, dy: int, pad: bool, stick: bool, confirm: bool) -> tuple[Vec | None, bool]:
        """A numpad / QWE key, a d-pad press or a stick push toward (dx, dy): (new key, confirm it?)."""
        raise NotImplementedError

    def move(self, turn: Turn, dx: int, dy: int, fast: bool) -> Vec | None:
        """An arrow key (Shift: ``fast``) moving the highlight."""
        raise NotImplementedError

    def aim(self, turn: Turn, x: float, y: float) -> Vec | None:
        """The analog stick at (x, y) in -1..1 (only for choosers that :attr:`aims`)."""
        return None


class GridChooser(Chooser):
    """The classic 3x3 block (or cross): a key names a target by its place round the base point."""

    def select(self, turn, dx, dy, pad, stick, confirm):
        return Vec(dx, dy), confirm

    def move(self, turn, dx, dy, fast):
        current = turn.current or Vec(0, 0)
        return Vec(max(-1, min(1, current.x + dx)), max(-1, min(1, current.y + dy)))


class StepChooser(Chooser):
    """Targets in any shape (scalar, graded, flick, hard braking): stepped through by direction."""

    def select(self, turn, dx, dy, pad, stick, confirm):
        if pad:
            if (dx, dy) == (0, 0):
                if stick:
                    return None, False  # the stick springing back to the centre keeps the highlight
                return home(turn.movement, turn.candidates, turn.base), confirm
            return step(turn.candidates, turn.current, dx, dy), confirm
        new = at_layout(turn.candidates, turn.base, dx, dy)
        if new is None:  # no target at that place: highlight the nearest one that way
            return toward(turn.candidates, turn.base, dx, dy), False
        return new, confirm

    def move(self, turn, dx, dy, fast):
        return step(turn.candidates, turn.current, dx, dy)


class FineChooser(Chooser):
    """Fine paper: a reticle over the lattice; the stick's deflection maps onto the velocity change."""

    aims = True

    def select(self, turn, dx, dy, pad, stick, confirm):
        if stick:
            return None, False  # the analog stick aims the reticle (Aim)
        if pad:  # d-pad: one lattice unit; L3 (0, 0): back to the base point
            if (dx, dy) == (0, 0):
                return turn.velocity, confirm
            return nudge(turn.current, dx, dy, turn.velocity, turn.reach), confirm
        # numpad / QWE: the classic targets, whole squares round the base point
        return at_layout(turn.candidates, turn.base, dx * turn.unit, dy * turn.unit), confirm

    def move(self, turn, dx, dy, fast):
        step_size = 5 if fast else 1
        return nudge(turn.current, dx * step_size, dy * step_size, turn.velocity, turn.reach)

    def aim(self, turn, x, y):
        return from_stick(x, y, turn.velocity, turn.reach)


_GRID, _STEP, _FINE = GridChooser(), StepChooser(), FineChooser()


def chooser_for(movement: str, candidates: Sequence[Candidate]) -> Chooser:
    """The chooser for a movement system's targets this turn (a shape, not a name, decides)."""
    if movement == Movement.FINE:
        return _FINE
    return _GRID if is_grid(movement, candidates) else _STEP
