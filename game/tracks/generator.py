"""Generated tracks: a six-character code in, a level pack's text out, the same on every machine.

A *code* (``K7F2QX``) names a generator version, a size (``short``, ``medium``, ``long``),
whether the track carries terrain patches, and a seed; its sixth character is a check
character, so a mistyped code is caught and named (:func:`parse_code`). The generator
draws *candidates* for a code, numbered 0, 1, 2, ...: smooth outline tracks (closed
circuits and point-to-point sprints) with hairpins, chicanes, sweepers, straights and
esses, an eight-car start grid and, for ``--terrain`` codes, a few patches of sand, mud,
ice and curbs under a budget. Which candidate a code stands for is decided by the
solver's checks (``game.drivers.generated``: the first candidate that passes them), which
this content layer cannot run.

Everything that reaches the pack text is integer arithmetic on a 1/8-square lattice with a
fixed pseudo-random generator (splitmix64) and a fixed table of directions, so a code
gives the same text byte for byte on every machine and with every numpy; a later
generator gets a new version number and the old versions stay (:data:`GENERATORS`).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from math import isqrt
from typing import Callable

import numpy as np

from game.core.errors import RacetrackError

#: The characters of a code: digits and capitals without look-alikes (0 O Q D, 1 I L, 2 Z, 5 S, 8 B);
#: 23 of them, a prime, so the check character catches every single slip and every swap of neighbours.
ALPHABET = "34679ACEFGHJKMNPRTUVWXY"
#: The characters a code leaves out, named in messages.
LEFT_OUT = "0 O Q D 1 I L 2 Z 5 S 8 B"
CODE_LENGTH = 6
#: Generator versions this game makes (a code from a later game names a higher one).
VERSIONS = 16
SIZES = ("short", "medium", "long")
#: The moves a default race (the track's laps, its rules, a lone car) takes, per size.
PAR_RANGES = {"short": (20, 30), "medium": (30, 40), "long": (40, 55)}
#: Check-character weights: each, and each difference of neighbours, is coprime with the prime
#: alphabet size, so one wrong character or two swapped neighbours always show.
_WEIGHTS = (1, 2, 3, 4, 5)
#: How many numbers five characters hold, and the fixed shuffle of them (a multiplier coprime with it).
_CODES = 23 ** 5
_SPREAD, _OFFSET = 2_654_435_761 % _CODES, 1_234_567
#: Coordinates are whole eighths of a square until they are written.
Q = 8
_MASK = (1 << 64) - 1
#: 64 directions, (cos, sin) * 4096 rounded, clockwise from east on screen (y grows downward).
#: Written out rather than computed, so no platform's libm can change a track.
DIRS = (
    (4096, 0), (4076, 401), (4017, 799), (3920, 1189), (3784, 1567), (3612, 1931), (3406, 2276), (3166, 2598),
    (2896, 2896), (2598, 3166), (2276, 3406), (1931, 3612), (1567, 3784), (1189, 3920), (799, 4017), (401, 4076),
    (0, 4096), (-401, 4076), (-799, 4017), (-1189, 3920), (-1567, 3784), (-1931, 3612), (-2276, 3406),
    (-2598, 3166), (-2896, 2896), (-3166, 2598), (-3406, 2276), (-3612, 1931), (-3784, 1567), (-3920, 1189),
    (-4017, 799), (-4076, 401), (-4096, 0), (-4076, -401), (-4017, -799), (-3920, -1189), (-3784, -1567),
    (-3612, -1931), (-3406, -2276), (-3166, -2598), (-2896, -2896), (-2598, -3166), (-2276, -3406),
    (-1931, -3612), (-1567, -3784), (-1189, -3920), (-799, -4017), (-401, -4076), (0, -4096), (401, -4076),
    (799, -4017), (1189, -3920), (1567, -3784), (1931, -3612), (2276, -3406), (2598, -3166), (2896, -2896),
    (3166, -2598), (3406, -2276), (3612, -1931), (3784, -1567), (3920, -1189), (4017, -799), (4076, -401),
)


class CodeError(RacetrackError, ValueError):
    """A track code that cannot be read: its message says which character is wrong or which version it needs."""


@dataclass(frozen=True)
class Spec:
    """What a code asks for: generator ``version``, ``size``, ``terrain`` patches or not, and a ``seed``."""

    version: int
    size: str
    terrain: bool
    seed: int

    @property
    def code(self) -> str:
        return make_code(self)


# -- codes ---------------------------------------------------------------------
def seeds_per_kind() -> int:
    """How many seeds a version offers for each size and terrain choice."""
    return len(ALPHABET) ** (CODE_LENGTH - 1) // (VERSIONS * len(SIZES) * 2)


def _check_char(values: list[int]) -> int:
    return sum(w * v for w, v in zip(_WEIGHTS, values)) % len(ALPHABET)


def make_code(spec: Spec) -> str:
    """The six characters of a spec (raises ValueError for a spec no code can name)."""
    if not 1 <= spec.version <= VERSIONS or spec.size not in SIZES or not 0 <= spec.seed < seeds_per_kind():
        raise ValueError(f"no code for {spec!r}")
    number = ((spec.seed * 2 + int(spec.terrain)) * len(SIZES) + SIZES.index(spec.size)) * VERSIONS \
        + spec.version - 1
    return _encode(number)


def _encode(number: int) -> str:
    """The code of one of the numbers five characters hold, with its check character."""
    number = (number * _SPREAD + _OFFSET) % _CODES  # neighbouring seeds get codes that look nothing alike
    base = len(ALPHABET)
    values = []
    for _ in range(CODE_LENGTH - 1):
        number, digit = divmod(number, base)
        values.append(digit)
    values.reverse()
    return "".join(ALPHABET[v] for v in values) + ALPHABET[_check_char(values)]


def normalise_code(text: str) -> str:
    """A typed code as the generator reads it: capitals, without spaces, dashes or a ``gen:`` prefix."""
    text = text.strip()
    if text[:4].lower() == "gen:":
        text = text[4:]
    return "".join(ch for ch in text if ch not in " -_").upper()


def parse_code(text: str, *, newest: int = 1) -> Spec:
    """The spec a typed code stands for; :class:`CodeError` says what is wrong with a bad one.

    ``newest`` is the newest generator version this game makes: a code of a later version
    is refused with the version it needs.
    """
    code = normalise_code(text)
    shown = text.strip() or repr(text)
    if len(code) != CODE_LENGTH:
        raise CodeError(f"track code {shown!r}: a code has {CODE_LENGTH} characters, this one {len(code)}")
    for k, ch in enumerate(code, 1):
        if ch not in ALPHABET:
            raise CodeError(f"track code {shown!r}: character {k} {ch!r} is not used in codes "
                            f"(they leave out the look-alikes {LEFT_OUT}); check that character")
    values = [ALPHABET.index(ch) for ch in code]
    if _check_char(values[:-1]) != values[-1]:
        raise CodeError(f"track code {code}: it does not check out, so a character is mistyped or two are swapped "
                        f"(the last character is a check on the other five)")
    number = 0
    for v in values[:-1]:
        number = number * len(ALPHABET) + v
    number = (number - _OFFSET) * pow(_SPREAD, -1, _CODES) % _CODES
    if number >= VERSIONS * len(SIZES) * 2 * seeds_per_kind():
        raise CodeError(f"track code {code} is not one the generator hands out (it checks out, but names no track)")
    number, version = divmod(number, VERSIONS)
    number, size = divmod(number, len(SIZES))
    seed, terrain = divmod(number, 2)
    version += 1
    if version > newest:
        raise CodeError(f"track code {code} was made by generator version {version}; this game makes versions "
                        f"1 to {newest}: a newer game can make it")
    return Spec(version, SIZES[size], bool(terrain), seed)


def code_of_day(day: datetime.date, size: str = "medium") -> str:
    """The track of the day's code: every copy of the game gives the same one for a date, offline."""
    mixed = _splitmix(day.toordinal() * 0x9E3779B1 + 0x7261636574726163)[0]
    return make_code(Spec(NEWEST, size, day.toordinal() % 2 == 1, mixed % seeds_per_kind()))


def random_spec(entropy: int, size: str = "medium", terrain: bool = False) -> Spec:
    """A spec for a random track from a number the caller drew (the game passes its own randomness in)."""
    return Spec(NEWEST, size, terrain, _splitmix(entropy)[0] % seeds_per_kind())


# -- randomness ----------------------------------------------------------------
def _splitmix(state: int) -> tuple[int, int]:
    """One step of splitmix64: (output, next state), on Python ints masked to 64 bits."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31), state


class Rng:
    """A fixed pseudo-random generator (splitmix64) on ints: the same numbers on every machine and Python."""

    def __init__(self, *parts: int) -> None:
        state = 0x52414345545241434B  # "RACETRACK"
        for part in parts:
            state = _splitmix((state ^ (part & _MASK)) & _MASK)[0]
        self.state = state

    def next(self) -> int:
        out, self.state = _splitmix(self.state)
        return out

    def below(self, n: int) -> int:
        """A whole number from 0 to n - 1."""
        return self.next() % n

    def between(self, lo: int, hi: int) -> int:
        """A whole number from lo to hi, both included."""
        return lo + self.below(hi - lo + 1)

    def chance(self, percent: int) -> bool:
        return self.below(100) < percent

    def pick(self, items):
        return items[self.below(len(items))]


# -- geometry on the eighth-square lattice -------------------------------------
def _catmull(points: list[tuple[int, int]], loop: bool) -> list[tuple[int, int, int, int]]:
    """Points of a uniform Catmull-Rom curve through ``points``, about one square apart: (x, y, tx, ty).

    Exact integer arithmetic: each coordinate is the curve's value floored to the lattice;
    (tx, ty) is the curve's tangent there, unscaled.
    """
    n = len(points)
    out = []
    segments = n if loop else n - 1
    for i in range(segments):
        p0 = points[(i - 1) % n] if loop or i > 0 else _reflect(points[0], points[1])
        p1 = points[i % n]
        p2 = points[(i + 1) % n]
        p3 = points[(i + 2) % n] if loop or i + 2 < n else _reflect(points[-1], points[-2])
        chord = isqrt((p2[0] - p1[0]) ** 2 + (p2[1] - p1[1]) ** 2)
        s = max(2, chord // Q)
        last = s + 1 if (not loop and i == segments - 1) else s
        for j in range(last):
            coords = []
            for a, b, c, d in ((p0[0], p1[0], p2[0], p3[0]), (p0[1], p1[1], p2[1], p3[1])):
                c1, c2, c3 = c - a, 2 * a - 5 * b + 4 * c - d, -a + 3 * b - 3 * c + d
                value = (2 * b * s ** 3 + c1 * j * s ** 2 + c2 * j * j * s + c3 * j ** 3) // (2 * s ** 3)
                slope = c1 * s * s + 2 * c2 * j * s + 3 * c3 * j * j  # derivative times 2 s^2
                coords.append((value, slope))
            out.append((coords[0][0], coords[1][0], coords[0][1], coords[1][1]))
    return out


def _reflect(end: tuple[int, int], inner: tuple[int, int]) -> tuple[int, int]:
    return (2 * end[0] - inner[0], 2 * end[1] - inner[1])


def _offset(x: int, y: int, tx: int, ty: int, distance: int) -> tuple[int, int]:
    """The point ``distance`` (eighths) to the right of heading (tx, ty) on screen (y downward)."""
    length = isqrt(tx * tx + ty * ty) or 1
    return (x + (-ty * distance) // length, y + (tx * distance) // length)


def _dedupe(ring: list[tuple[int, int]], loop: bool = True) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for p in ring:
        if not out or out[-1] != p:
            out.append(p)
    while loop and len(out) > 1 and out[0] == out[-1]:
        out.pop()
    return out


def _thin(ring: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Drop points that lie exactly on the line through their neighbours (shorter files, same ring)."""
    out = list(ring)
    k = 0
    while k < len(out) and len(out) > 3:
        a, b, c = out[k - 1], out[k], out[(k + 1) % len(out)]
        cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
        dot = (b[0] - a[0]) * (c[0] - b[0]) + (b[1] - a[1]) * (c[1] - b[1])
        if cross == 0 and dot > 0:
            out.pop(k)
        else:
            k += 1
    return out


@dataclass
class Centre:
    """A drawn centre line: lattice points with their tangents, road widths (eighths) and what each stretch is."""

    points: list[tuple[int, int, int, int]]
    widths: list[int]
    loop: bool
    features: list[str] = field(default_factory=list)
    finish: int = 0  # index of the sample the finish line crosses
    checkpoints: list[int] = field(default_factory=list)
    start: list[tuple[int, int]] = field(default_factory=list)  # grid nodes (whole squares)
    forward: tuple[int, int] = (1, 0)
    control: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class Candidate:
    """One drawn track before the solver's checks: its outline table and what it was drawn from."""

    spec: Spec
    attempt: int
    kind: str  # "circuit" or "sprint"
    laps: int
    outline: dict
    features: list[str]
    centre: Centre
    problem: str | None = None  # why the drawing itself failed (then outline is empty)
    shift: tuple[int, int] = (0, 0)  # eighths the drawing was moved by onto the paper

    def centre_line(self) -> list[tuple[float, float]]:
        """The centre line as drawn, in squares on the paper (for the road-width check)."""
        dx, dy = self.shift
        return [((x + dx) / Q, (y + dy) / Q) for x, y, _, _ in self.centre.points]

    @property
    def code(self) -> str:
        return self.spec.code


def _interp_widths(control_widths: list[int], owners: list[tuple[int, int, int]], loop: bool) -> list[int]:
    """Road width at each sample: control widths eased between control points (integers)."""
    n = len(control_widths)
    out = []
    for i, j, s in owners:
        a = control_widths[i % n]
        b = control_widths[(i + 1) % n] if loop else control_widths[min(i + 1, n - 1)]
        # a smoothstep 3t^2 - 2t^3 with t = j / s, in integers
        num = 3 * j * j * s - 2 * j ** 3
        out.append(a + (b - a) * num // (s ** 3))
    return out


def _owners(points: list[tuple[int, int]], loop: bool) -> list[tuple[int, int, int]]:
    """For each sample _catmull makes: (segment, step, steps in that segment)."""
    n = len(points)
    segments = n if loop else n - 1
    out = []
    for i in range(segments):
        p1, p2 = points[i % n], points[(i + 1) % n]
        s = max(2, isqrt((p2[0] - p1[0]) ** 2 + (p2[1] - p1[1]) ** 2) // Q)
        last = s + 1 if (not loop and i == segments - 1) else s
        out.extend((i, j, s) for j in range(last))
    return out


# -- circuits ------------------------------------------------------------------
#: Per size: (half width range, half height range, control points, laps) of a circuit.
_CIRCUIT = {
    "short": ((15, 20), (9, 12), (9, 11), 1),
    "medium": ((19, 25), (11, 15), (11, 13), 1),
    "long": ((16, 21), (10, 13), (10, 12), 2),
}
#: Per size: the length of a circuit's and a sprint's centre line, squares: a lone car's par is
#: about 0.215 moves a square round a lap and 0.17 on a sprint, so these aim at each size's middle.
_CIRCUIT_LENGTH = {"short": 114, "medium": 182, "long": 110}
_SPRINT_LENGTH = {"short": 147, "medium": 222, "long": 280}
#: Per size: (stretches, straight length range) of a sprint.
_SPRINT = {"short": (6, (10, 16)), "medium": (8, (10, 18)), "long": (11, (12, 20))}


def _circuit(spec: Spec, rng: Rng) -> Centre:
    (a_lo, a_hi), (b_lo, b_hi), (n_lo, n_hi), _ = _CIRCUIT[spec.size]
    a, b = rng.between(a_lo, a_hi) * Q, rng.between(b_lo, b_hi) * Q
    n = rng.between(n_lo, n_hi)
    leg = rng.between(6, 8) * Q
    # The start straight along the top, heading east: four control points on one line, so the
    # stretch from the finish past the grid is straight and the grid stands square to it.
    top = [(-leg, -b), (0, -b), (leg, -b), (2 * leg, -b)]
    # The rest of the lap on a star round the middle: each control point at its own angle,
    # from the end of the straight round to its beginning, so the centre line never crosses itself.
    first = _angle_of(top[-1]) + 4
    last = _angle_of(top[0]) + 64 - 4
    rest = n - 4
    widths_top = [9 * Q, 9 * Q, 9 * Q, 8 * Q]
    control, widths, features = [], [], []
    squareness = rng.between(0, 4)
    plan = _circuit_plan(rng, rest, fingers=_CIRCUIT_LENGTH[spec.size] >= 150)  # room for a finger
    for k in range(rest):
        angle = first + (last - first) * (2 * k + 1) // (2 * rest)
        cx, cy = DIRS[angle % 64]
        r = _base_radius(a, b, cx, cy, squareness)
        what = plan[k]
        width = rng.between(5, 7) * Q
        if what == "skip":
            continue
        if what == "hairpin":
            # A finger of road into the infield or out of it: down one side, a U-turn, back up
            # the other, the legs a road's width and three squares of grass apart.
            width = rng.between(5, 6) * Q
            gap = width + 3 * Q
            depth = min(rng.between(7, 12) * Q, r * 2 // 5) * (1 if rng.chance(60) else -1)
            vx, vy = DIRS[(angle + 16) % 64]
            for lateral, down in ((-1, 0), (-1, 1), (1, 1), (1, 0)):
                rr = r - depth * down
                control.append((rr * cx // 4096 + lateral * gap // 2 * vx // 4096,
                                rr * cy // 4096 + lateral * gap // 2 * vy // 4096))
                widths.append(width)
            features.append("hairpin" if depth > 0 else "hairpin-out")
            continue
        if what == "sweeper":
            r = r * rng.between(108, 122) // 100
        elif what == "chicane":
            r -= rng.between(3, 5) * Q
        elif what == "ess-out":
            r = r * rng.between(110, 118) // 100
        elif what == "ess-in":
            r = r * rng.between(80, 88) // 100
        control.append((r * cx // 4096, r * cy // 4096))
        widths.append(width)
        features.append(what)
    points = top[1:] + control + top[:1]  # the finish (0, -b) is the first control point
    wide = widths_top[1:] + widths + widths_top[:1]
    points = _scaled(points, _CIRCUIT_LENGTH[spec.size] * Q, loop=True)
    for k in (0, 1, 2, len(points) - 1):  # the start straight stays on a row of grid nodes
        points[k] = (points[k][0], (points[k][1] // Q) * Q)
    mirror = rng.chance(50)
    if mirror:  # the other way round: heading west along the top
        points = [(-x, y) for x, y in points]
    samples = _catmull(points, loop=True)
    sample_widths = _interp_widths(wide, _owners(points, True), True)
    centre = Centre(samples, sample_widths, True, _names(features), control=points)
    centre.finish = 0
    centre.forward = (-1, 0) if mirror else (1, 0)
    count = len(samples)
    centre.checkpoints = [count // 3, 2 * count // 3]
    return centre


def _circuit_plan(rng: Rng, rest: int, fingers: bool) -> list[str]:
    """What each control point round the lap does: a mix with at least one hairpin or chicane.

    Without ``fingers`` (a short lap has no room for one) a hairpin becomes a chicane.
    """
    plan = ["plain"] * rest
    k = 1
    while k < rest - 1:
        what = rng.pick(("hairpin", "sweeper", "chicane", "esses", "plain", "hairpin", "sweeper"))
        if what == "hairpin" and not fingers:
            what = "chicane"
        if what == "esses" and k + 2 < rest:
            plan[k], plan[k + 1], plan[k + 2] = "ess-out", "ess-in", "ess-out"
            k += 4
        elif what == "esses":
            k += 1
        else:
            if what == "hairpin" and plan[k - 1] != "plain":
                what = "chicane"  # a finger needs plain road on both sides, or it meets its neighbours
            plan[k] = what
            if what == "hairpin":  # and room: its neighbours' control points are left out
                plan[k - 1] = plan[k + 1] = "skip"
            k += 3 if what == "hairpin" else 2 if what == "chicane" else 1
    if not any(p in ("hairpin", "chicane") for p in plan):
        plan[rest // 2] = "chicane"
    return plan


def _names(features: list[str]) -> list[str]:
    """The kinds of corner a plan holds, each once, in a fixed order."""
    kinds = []
    for word, name in (("hairpin", "hairpins"), ("hairpin-out", "hairpins"), ("chicane", "a chicane"), ("ess-in", "esses"),
                       ("sweeper", "sweepers"), ("plain", "straights"), ("corner", "corners")):
        if word in features and name not in kinds:
            kinds.append(name)
    return kinds


def _angle_of(point: tuple[int, int]) -> int:
    """The nearest of the 64 directions to a point (from the middle), by exact integer comparison."""
    x, y = point
    best, best_value = 0, None
    for k, (cx, cy) in enumerate(DIRS):
        value = x * cx + y * cy  # the direction most aligned with the point
        if best_value is None or value > best_value:
            best, best_value = k, value
    return best


def _base_radius(a: int, b: int, cx: int, cy: int, squareness: int) -> int:
    """Distance from the middle to the lap's base shape in direction (cx, cy)/4096: an ellipse
    squared off towards a rectangle by ``squareness`` (0 to 4)."""
    ellipse = a * b * 4096 // max(1, isqrt(b * b * cx * cx + a * a * cy * cy))
    rect = min(a * 4096 // max(1, abs(cx)), b * 4096 // max(1, abs(cy)))
    return (ellipse * (4 - squareness) + rect * squareness) // 4


# -- sprints -------------------------------------------------------------------
def _scaled(points: list[tuple[int, int]], length: int, loop: bool) -> list[tuple[int, int]]:
    """The control points scaled about the origin so that the polygon through them is ``length`` long."""
    pairs = zip(points, points[1:] + points[:1]) if loop else zip(points, points[1:])
    drawn = sum(isqrt((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2) for a, b in pairs) or 1
    return [(x * length // drawn, y * length // drawn) for x, y in points]


def _sprint(spec: Spec, rng: Rng) -> Centre:
    stretches, (s_lo, s_hi) = _SPRINT[spec.size]
    heading = 0
    x = y = 0
    step = 4 * Q
    control = [(x, y)]
    widths = [9 * Q]
    features = []

    def walk(turn: int, length: int, width: int) -> None:
        nonlocal heading, x, y
        steps = max(1, length // step)
        for i in range(steps):
            heading += turn * (i + 1) // steps - turn * i // steps
            cx, cy = DIRS[heading % 64]
            x, y = x + cx * step // 4096, y + cy * step // 4096
            control.append((x, y))
            widths.append(width)

    walk(0, 12 * Q, 9 * Q)  # the start straight, wide enough for the grid
    for _ in range(stretches):
        width = rng.between(5, 7) * Q
        options = ["straight", "sweeper", "corner", "chicane", "esses"]
        if abs(heading) >= 12:
            options.append("hairpin")
        what = rng.pick(options)
        side = 1 if rng.chance(50) else -1
        if what == "hairpin":
            side = -1 if heading > 0 else 1
            walk(side * 32, rng.between(16, 20) * Q, width)
        elif what == "straight":
            walk(0, rng.between(s_lo, s_hi) * Q, width)
        elif what == "sweeper":
            turn = side * rng.between(6, 10)
            if abs(heading + turn) > 20:
                turn = -turn
            walk(turn, rng.between(16, 24) * Q, width)
        elif what == "corner":
            turn = side * 16
            if abs(heading + turn) > 20:
                turn = -turn
            walk(turn, rng.between(8, 12) * Q, width)
        elif what == "chicane":
            walk(side * 8, 6 * Q, width)
            walk(-side * 16, 8 * Q, width)
            walk(side * 8, 6 * Q, width)
        else:  # esses
            turn = rng.between(8, 12)
            walk(side * turn, 10 * Q, width)
            walk(-side * 2 * turn, 16 * Q, width)
            walk(side * turn, 10 * Q, width)
        features.append(what)
    # Bring the heading back towards the finish's direction, then the run-off past the line.
    walk(-heading, max(8, abs(heading) // 2) * Q, 7 * Q)
    end_heading = heading
    walk(0, 16 * Q, 7 * Q)
    control = _scaled(control, _SPRINT_LENGTH[spec.size] * Q, loop=False)
    samples = _catmull(control, loop=False)
    owners = _owners(control, False)
    sample_widths = _interp_widths(widths, owners, False)
    centre = Centre(samples, sample_widths, False, _names(features or ["plain"]), control=control)
    centre.forward = _axis(DIRS[end_heading % 64])
    centre.finish = max(0, len(samples) - 11)
    return centre


def _axis(direction: tuple[int, int]) -> tuple[int, int]:
    cx, cy = direction
    return ((1 if cx > 0 else -1), 0) if abs(cx) >= abs(cy) else (0, (1 if cy > 0 else -1))


# -- the whole candidate -------------------------------------------------------
def candidate(spec: Spec, attempt: int) -> Candidate:
    """Candidate number ``attempt`` for a spec: its outline table (or the reason it could not be drawn)."""
    generator = GENERATORS.get(spec.version)
    if generator is None:
        raise CodeError(f"generator version {spec.version} is not part of this game (it makes 1 to {NEWEST})")
    return generator(spec, attempt)


def _candidate_v1(spec: Spec, attempt: int) -> Candidate:
    rng = Rng(spec.version, SIZES.index(spec.size), int(spec.terrain), spec.seed, attempt)
    kind = "sprint" if rng.below(100) < 30 else "circuit"
    centre = _sprint(spec, rng) if kind == "sprint" else _circuit(spec, rng)
    laps = _CIRCUIT[spec.size][3] if kind == "circuit" else 1
    found = Candidate(spec, attempt, kind, laps, {}, centre.features, centre)
    problem = _crowding(centre)
    if problem:
        found.problem = problem
        return found
    left = _border(centre, -1)
    right = _border(centre, 1)
    if centre.loop:
        rings = [_dedupe(left), _dedupe(right)]
        outer_k = 0 if abs(_area2(rings[0])) > abs(_area2(rings[1])) else 1
        outer, islands = rings[outer_k], [rings[1 - outer_k]]
    else:
        outer, islands = _dedupe(left + right[::-1]), []
    patches = _patches(spec, rng, centre) if spec.terrain else []
    all_points = outer + [p for r in islands for p in r] + [p for _, r in patches for p in r]
    # Shift onto the paper with a margin of two squares; whole squares, so grid nodes stay nodes.
    dx = -(min(p[0] for p in all_points) // Q) * Q + 2 * Q
    dy = -(min(p[1] for p in all_points) // Q) * Q + 2 * Q

    def moved(ring):
        return [[(x + dx) / Q, (y + dy) / Q] for x, y in _thin(ring)]

    finish = _gate(centre, centre.finish, dx, dy)
    start = _grid(centre, dx, dy)
    outline = {"forward": list(centre.forward), "finish": finish}
    if centre.loop:
        outline["checkpoints"] = [_gate(centre, i, dx, dy) for i in centre.checkpoints]
    outline["start"] = [list(p) for p in start]
    outline["outer"] = moved(outer)
    if islands:
        outline["islands"] = [moved(r) for r in islands]
    if patches:
        outline["terrain"] = [{"kind": kind, "ring": moved(ring)} for kind, ring in patches]
    found.outline = outline
    found.shift = (dx, dy)
    return found


def _border(centre: Centre, side: int) -> list[tuple[int, int]]:
    """One border of the road (side -1: left of the heading, 1: right), without the loops an inside
    border makes where the centre line turns tighter than the road is wide: a point is kept only
    when it lies ahead of the last kept one along the road."""
    out: list[tuple[int, int]] = []
    for (x, y, tx, ty), w in zip(centre.points, centre.widths):
        p = _offset(x, y, tx, ty, side * (w // 2))
        if out and (p[0] - out[-1][0]) * tx + (p[1] - out[-1][1]) * ty <= 0:
            continue
        out.append(p)
    if centre.loop:  # the lap's end must also lie behind its beginning
        while len(out) > 3:
            x, y, tx, ty = centre.points[0]
            if (out[0][0] - out[-1][0]) * tx + (out[0][1] - out[-1][1]) * ty > 0:
                break
            out.pop()
    return out


def _area2(ring: list[tuple[int, int]]) -> int:
    return sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(ring, ring[1:] + ring[:1]))


def _crowding(centre: Centre) -> str | None:
    """Why the road would touch itself or bend tighter than its width (None when it does not).

    Two stretches of road far apart along the line must keep two squares of grass between
    their borders, and the centre line may not turn tighter than half its road's width (the
    inner border would fold over). Exact integer arithmetic, so the verdict is the same everywhere.
    """
    pts = np.array([(p[0], p[1]) for p in centre.points], dtype=np.int64)
    half = np.array(centre.widths, dtype=np.int64) // 2
    n = len(pts)
    steps = np.sqrt(((np.roll(pts, -1, 0) - pts) ** 2).sum(1)) if n else np.zeros(0)
    arc = np.concatenate([[0], np.cumsum(np.round(steps).astype(np.int64))[:-1]])  # eighths along the line
    total = int(arc[-1] + round(float(steps[-1]))) if centre.loop else int(arc[-1])
    d2 = ((pts[:, None, :] - pts[None, :, :]) ** 2).sum(2)
    along = np.abs(arc[:, None] - arc[None, :])
    if centre.loop:
        along = np.minimum(along, total - along)
    need = half[:, None] + half[None, :] + 2 * Q
    # Far apart along the line: more than the two half widths plus the grass, times 1.6 (a hairpin's arc).
    far = along * 10 > need * 16
    crowded = far & (d2 < need * need)
    if crowded.any():
        i, j = (int(v) for v in np.argwhere(crowded)[0])
        return f"the road comes within {np.sqrt(d2[i, j]) / Q:.1f} squares of itself"
    return None


def _gate(centre: Centre, index: int, dx: int, dy: int) -> list[list[float]]:
    """A line across the road at a sample, reaching half a square past each border."""
    x, y, tx, ty = centre.points[index]
    reach = centre.widths[index] // 2 + Q + Q // 2  # the finish is moved onto the lattice by up to a square
    if index == centre.finish:
        tx, ty = centre.forward  # the finish is square to the forward direction
        x, y = (x // Q) * Q + (Q // 2) * tx, (y // Q) * Q + (Q // 2) * ty  # halfway between nodes
    a = _offset(x, y, tx, ty, -reach)
    b = _offset(x, y, tx, ty, reach)
    return [[(a[0] + dx) / Q, (a[1] + dy) / Q], [(b[0] + dx) / Q, (b[1] + dy) / Q]]


def _grid(centre: Centre, dx: int, dy: int) -> list[tuple[int, int]]:
    """Eight start nodes in two rows of four, square to the start straight (whole squares)."""
    fx, fy = centre.forward
    if centre.loop:  # just past the finish line: a lap is once round to it
        x, y, _, _ = centre.points[centre.finish]
        base = ((x // Q) * Q + (Q // 2) * fx, (y // Q) * Q + (Q // 2) * fy)
        rows = (1, 2)
        base = (base[0] - (Q // 2) * fx, base[1] - (Q // 2) * fy)  # back onto the node before the line
    else:
        x, y, _, _ = centre.points[4]
        base = ((x // Q) * Q, (y // Q) * Q)
        rows = (0, 1)
    nodes = []
    sx, sy = -fy, fx  # across the road
    for row in rows:
        for lane in (-3, -1, 1, 3):
            nx = base[0] // Q + row * fx + lane * sx
            ny = base[1] // Q + row * fy + lane * sy
            nodes.append((nx + dx // Q, ny + dy // Q))
    return nodes


_KINDS = ("sand", "mud", "ice", "curb")


def _patches(spec: Spec, rng: Rng, centre: Centre) -> list[tuple[str, list[tuple[int, int]]]]:
    """A few terrain patches on the road, under the size's budget, away from the start and the finish.

    Each patch is a small quadrilateral lying along the road at least a square inside
    both borders; patches keep ten squares of road between them.
    """
    budget = {"short": 2, "medium": 3, "long": 4}[spec.size]
    count = rng.between(1, budget)
    n = len(centre.points)
    lo = 16 if centre.loop else 24  # clear of the grid
    hi = n - 12 if centre.loop else centre.finish - 8
    out: list[tuple[str, list[tuple[int, int]]]] = []
    used: list[int] = []
    for _ in range(count * 3):
        if len(out) >= count or hi - lo < 4:
            break
        i = rng.between(lo, hi)
        if any(abs(i - j) < 10 for j in used):
            continue
        kind = rng.pick(_KINDS)
        x, y, tx, ty = centre.points[i]
        half = centre.widths[i] // 2
        across = rng.between(3, 5) * Q // 4  # half its width across the road, eighths
        length = rng.between(2, 4) * Q // 2  # half its length along the road
        room = half - Q - across
        if room < 0:
            continue
        lateral = rng.between(-room, room) if kind != "curb" else room * (1 if rng.chance(50) else -1)
        norm = isqrt(tx * tx + ty * ty) or 1
        ux, uy = tx * length // norm, ty * length // norm
        mx, my = _offset(x, y, tx, ty, lateral)
        vx, vy = _offset(0, 0, tx, ty, across)
        ring = [(mx - ux - vx, my - uy - vy), (mx + ux - vx, my + uy - vy), (mx + ux + vx, my + uy + vy),
                (mx - ux + vx, my - uy + vy)]
        if len(set(ring)) < 4:
            continue
        out.append((kind, ring))
        used.append(i)
    return out


def track_id(code: str) -> str:
    return f"gen-{code}"


def pack_document(found: Candidate, *, par: int | None = None) -> dict:
    """The level pack (TOML-ready data) holding one candidate, with its par when the solver gave one."""
    code = found.code
    size, kind = found.spec.size, found.kind
    corners = ", ".join(found.features) or "straights"
    terrain = " with terrain" if found.spec.terrain and found.outline.get("terrain") else ""
    laps = f"{found.laps} laps" if found.laps > 1 else "one lap"
    description = f"A {size} {kind}{terrain} ({laps}): {corners}. Track code {code}."
    track = {"id": track_id(code), "name": f"Track {code}", "laps": found.laps, "rules": "paper",
             "description": description}
    if par is not None:
        track["par"] = par
    track["outline"] = found.outline
    return {"format": 1,
            "pack": {"id": f"generated-{code.lower()}", "name": f"Generated {code}",
                     "author": f"Racetrack track generator, version {found.spec.version}",
                     "description": f"Made from track code {code}: `racetrack generate {code}` makes it again."},
            "track": [track]}


#: Each generator version, by number; a later version is added beside the old ones, never in their place.
GENERATORS: dict[int, Callable[[Spec, int], Candidate]] = {1: _candidate_v1}
NEWEST = max(GENERATORS)
