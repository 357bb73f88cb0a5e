"""Integer grid vectors: nodes of the squared paper and the moves between them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, order=True)
class Vec:
    """A point or a move on the grid; ``x`` grows to the right, ``y`` downward.

    >>> Vec(2, 1) + Vec(1, -1)
    Vec(3, 0)
    >>> Vec(3, -4).chebyshev()
    4
    """

    x: int
    y: int

    def __add__(self, other: Vec) -> Vec:
        return Vec(self.x + other.x, self.y + other.y)

    def __sub__(self, other: Vec) -> Vec:
        return Vec(self.x - other.x, self.y - other.y)

    def __neg__(self) -> Vec:
        return Vec(-self.x, -self.y)

    def __mul__(self, k: int) -> Vec:
        return Vec(self.x * k, self.y * k)

    def __repr__(self) -> str:
        return f"Vec({self.x}, {self.y})"

    def chebyshev(self) -> int:
        """Speed in squares as the paper game counts it: the larger axis."""
        return max(abs(self.x), abs(self.y))

    def is_zero(self) -> bool:
        return self.x == 0 and self.y == 0

    def as_tuple(self) -> tuple[int, int]:
        return (self.x, self.y)


ZERO = Vec(0, 0)


@dataclass(frozen=True, slots=True)
class Retire:
    """The choice to leave the race; always allowed for a racing car."""

    def __repr__(self) -> str:
        return "RETIRE"


RETIRE = Retire()
