"""The track being edited, as immutable values, and every edit as a pure function.

A :class:`TrackDoc` holds what a ``[[track]]`` table of a level pack holds (see
``docs/level-packs.md``): id, name, laps, rules, cars, forward and one shape, either a
:class:`MapShape` (a char map) or an :class:`OutlineShape` (rings, lines, start). Edits
return a new document and never change the old one, so the undo history is simply the
list of earlier documents. No pygame here.
"""

from __future__ import annotations

import math
import re
import textwrap
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

from game.core.rules import PRESET_NAMES
from game.core.terrain import LETTER_OF, Terrain
from game.tracks.charmap import FORWARD_WORDS
from game.core.limits import MAX_LAPS, MIN_LAPS

Point = tuple[float, float]
Line = tuple[Point, Point]

#: The terrain brushes: each kind's letter, the one the loader reads (``game.core.terrain``).
TERRAIN_BRUSHES = {LETTER_OF[kind]: str(kind) for kind in Terrain}
#: The kinds an outline's terrain patches may have (``[[track.outline.terrain]] kind``), in palette order.
TERRAIN_KINDS = tuple(TERRAIN_BRUSHES.values())
#: Letters the map brush paints, with what the side panel calls them.
BRUSHES = {"O": "road", "X": "off-road", "S": "start", "F": "finish", "P": "parc fermé", **TERRAIN_BRUSHES,
           **{str(d): f"checkpoint {d}" for d in range(1, 10)}}
MAX_SIZE = 400
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class DocError(ValueError):
    """A request the editor cannot turn into a document (a map of size 0, a bad id ...)."""


# -- shapes -----------------------------------------------------------------------
@dataclass(frozen=True)
class MapShape:
    """A char map: ``rows[y][x]`` is the letter of node (x, y); all rows equally wide."""

    rows: tuple[str, ...]

    @property
    def width(self) -> int:
        return len(self.rows[0]) if self.rows else 0

    @property
    def height(self) -> int:
        return len(self.rows)

    @classmethod
    def blank(cls, width: int, height: int) -> MapShape:
        """An all off-road sheet of ``width`` x ``height`` nodes."""
        check_size(width, height)
        return cls(tuple("X" * width for _ in range(height)))

    def at(self, x: int, y: int) -> str | None:
        return self.rows[y][x] if 0 <= x < self.width and 0 <= y < self.height else None

    def paint(self, cells: Iterable[tuple[int, int]], letter: str) -> MapShape:
        """The map with ``letter`` on every listed cell that lies on the sheet."""
        rows = [list(row) for row in self.rows]
        changed = False
        for x, y in cells:
            if 0 <= x < self.width and 0 <= y < self.height and rows[y][x] != letter:
                rows[y][x] = letter
                changed = True
        return MapShape(tuple("".join(r) for r in rows)) if changed else self

    def resized(self, width: int, height: int) -> MapShape:
        """The map cut or padded with off-road (right and bottom) to a new size."""
        check_size(width, height)
        rows = [row[:width].ljust(width, "X") for row in self.rows[:height]]
        rows += ["X" * width] * (height - len(rows))
        return MapShape(tuple(rows))

    def text(self) -> str:
        return "\n".join(self.rows) + "\n"


@dataclass(frozen=True)
class OutlineShape:
    """An outline: border rings, finish and checkpoint lines, start nodes or a start line.

    ``paper`` is the size of the sheet the editor shows (the game sizes the paper to the
    outline, so it is not saved). Either ``start`` (nodes, best first) or ``start_line``
    with ``slots`` is used; setting one clears the other.
    """

    paper: tuple[int, int]
    outer: tuple[Point, ...] = ()
    islands: tuple[tuple[Point, ...], ...] = ()
    finish: Line | None = None
    checkpoints: tuple[Line, ...] = ()
    start: tuple[tuple[int, int], ...] = ()
    start_line: Line | None = None
    slots: int = 4
    terrain: tuple[tuple[str, tuple[Point, ...]], ...] = ()

    @property
    def width(self) -> int:
        return self.paper[0]

    @property
    def height(self) -> int:
        return self.paper[1]

    def rings(self) -> list[tuple[Point, ...]]:
        """The outer ring then every island (ring 0 is the outer one)."""
        return [self.outer, *self.islands]

    def with_ring(self, index: int, ring: tuple[Point, ...]) -> OutlineShape:
        """Ring ``index`` (0 outer, k island k) replaced; an island index one past the end adds one."""
        if index == 0:
            return replace(self, outer=ring)
        islands = list(self.islands)
        if index - 1 == len(islands):
            islands.append(ring)
        else:
            islands[index - 1] = ring
        return replace(self, islands=tuple(islands))

    def with_patch(self, index: int, kind: str, ring: tuple[Point, ...]) -> OutlineShape:
        """Terrain patch ``index`` set to ``kind`` and ``ring``; the index one past the end adds one."""
        patches = list(self.terrain)
        if index == len(patches):
            patches.append((kind, ring))
        else:
            patches[index] = (kind, ring)
        return replace(self, terrain=tuple(patches))

    def without_patch(self, index: int) -> OutlineShape:
        return replace(self, terrain=self.terrain[:index] + self.terrain[index + 1:])

    def without_ring(self, index: int) -> OutlineShape:
        if index == 0:
            return replace(self, outer=())
        return replace(self, islands=self.islands[:index - 1] + self.islands[index:])

    def table(self, forward: object) -> dict[str, Any]:
        """The ``[track.outline]`` table (what :func:`game.tracks.check_outline` reads)."""
        data: dict[str, Any] = {"outer": [_pt_out(p) for p in self.outer]}
        if self.islands:
            data["islands"] = [[_pt_out(p) for p in ring] for ring in self.islands]
        if self.finish is not None:
            data["finish"] = [_pt_out(p) for p in self.finish]
        if self.checkpoints:
            data["checkpoints"] = [[_pt_out(p) for p in line] for line in self.checkpoints]
        if forward is not None:
            data["forward"] = _forward_out(forward)
        if self.start_line is not None:
            data["start_line"] = [_pt_out(p) for p in self.start_line]
            data["slots"] = self.slots
        elif self.start:
            data["start"] = [[x, y] for x, y in self.start]
        if self.terrain:
            data["terrain"] = [{"kind": kind, "ring": [_pt_out(p) for p in ring]} for kind, ring in self.terrain]
        return data


Shape = MapShape | OutlineShape


def check_size(width: int, height: int) -> None:
    if not (isinstance(width, int) and isinstance(height, int)) or not (2 <= width <= MAX_SIZE
                                                                        and 2 <= height <= MAX_SIZE):
        raise DocError(f"a sheet must be from 2 to {MAX_SIZE} squares each way, not {width} x {height}")


def _num_out(v: float) -> int | float:
    return int(v) if float(v).is_integer() else round(float(v), 4)


def _pt_out(p: Point) -> list:
    return [_num_out(p[0]), _num_out(p[1])]


def _forward_out(forward: object) -> object:
    if isinstance(forward, str):
        return forward
    return [_num_out(v) for v in forward]  # type: ignore[union-attr]


# -- the document -------------------------------------------------------------------
@dataclass(frozen=True)
class TrackDoc:
    """One track of a pack, as the editor holds it (everything the ``[[track]]`` table says).

    ``forward`` is None (derived, char maps only), a word (``"right"``) or a pair.
    ``keep`` holds keys of the opened table the editor does not edit (``par`` is not
    kept: the editor writes the par it computed for the saved shape).
    """

    id: str
    name: str
    shape: Shape
    laps: int = 1
    rules: str = "paper"
    cars: int | None = None
    description: str = ""
    forward: object = None
    keep: tuple[tuple[str, Any], ...] = field(default=(), compare=True)

    @property
    def is_map(self) -> bool:
        return isinstance(self.shape, MapShape)

    def par_key(self) -> tuple:
        """What the par depends on: a new name or id keeps the par, a new shape does not."""
        return (self.shape, self.forward, self.laps, self.rules)

    def table(self, par: int | None = None) -> dict[str, Any]:
        """The ``[[track]]`` table for a pack file (``par`` added when given)."""
        data: dict[str, Any] = {"id": self.id, "name": self.name, "laps": self.laps, "rules": self.rules}
        if self.description:
            data["description"] = self.description
        if par is not None:
            data["par"] = par
        if self.cars is not None:
            data["cars"] = self.cars
        for key, value in self.keep:
            data.setdefault(key, value)
        if isinstance(self.shape, MapShape):
            if self.forward is not None:
                data["forward"] = _forward_out(self.forward)
            data["map"] = self.shape.text()
        else:
            data["outline"] = self.shape.table(self.forward)
        return data


def new_map(width: int, height: int, track_id: str = "new-track", name: str = "New Track") -> TrackDoc:
    """A blank char-map track: all off-road, one lap, paper rules, room for 2 cars."""
    return TrackDoc(id=track_id, name=name, shape=MapShape.blank(width, height), laps=1, cars=2)


def new_outline(width: int, height: int, track_id: str = "new-track", name: str = "New Track") -> TrackDoc:
    """A blank outline track: no rings yet, driving ``right`` across the finish, room for 2 cars."""
    check_size(width, height)
    return TrackDoc(id=track_id, name=name, shape=OutlineShape(paper=(width, height)), cars=2, forward="right")


# -- reading a [[track]] table (possibly broken) -------------------------------------
def doc_from_table(table: Mapping[str, Any]) -> tuple[TrackDoc, list[str]]:
    """The document for a pack's ``[[track]]`` table, even a broken one, plus notes.

    Values the editor cannot hold (a map that is not text, a point that is not a pair)
    are left out and each gets a note naming the key, so a broken track still opens.
    """
    notes: list[str] = []

    def text(key, default):
        value = table.get(key, default)
        if not isinstance(value, str):
            notes.append(f"{key}: {value!r} is not text; using {default!r}")
            return default
        return value

    def whole(key, default, low, high):
        value = table.get(key, default)
        if value is None or isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            notes.append(f"{key}: {value!r} is not a whole number from {low} to {high}; using {default!r}")
            return default
        return value

    track_id = text("id", "track")
    name = text("name", track_id)
    laps = whole("laps", 1, MIN_LAPS, MAX_LAPS)
    rules = table.get("rules", "paper")
    if rules not in PRESET_NAMES:
        notes.append(f"rules: unknown preset {rules!r}; using 'paper'")
        rules = "paper"
    cars = table.get("cars")
    if cars is not None:
        cars = whole("cars", 8, 1, 64)
    description = text("description", "")
    forward = _forward_in(table.get("forward"), "forward", notes)
    keep = tuple((k, v) for k, v in table.items()
                 if k not in {"id", "name", "laps", "rules", "cars", "description", "forward", "map", "outline",
                              "par"})
    if isinstance(table.get("map"), str):
        rows = map_rows(table["map"])
        shape: Shape = MapShape(rows) if rows else MapShape.blank(20, 12)
        if not rows:
            notes.append("map: the map is empty; starting from a blank 20 x 12 sheet")
    elif isinstance(table.get("outline"), Mapping):
        shape, outline_forward = _outline_in(table["outline"], notes)
        forward = forward if forward is not None else outline_forward
    else:
        notes.append("no usable map or outline; starting from a blank 20 x 12 map")
        shape = MapShape.blank(20, 12)
    return TrackDoc(id=track_id, name=name, shape=shape, laps=laps, rules=rules, cars=cars,
                    description=description, forward=forward, keep=keep), notes


def map_rows(text: str) -> tuple[str, ...]:
    """A map string's rows as the game reads them (blank edges, trailing spaces and common
    indentation dropped, short rows padded with ``X``), keeping unknown letters so the
    editor can show them where the problems say they are."""
    raw = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    used = [i for i, line in enumerate(raw) if line]
    if not used:
        return ()
    body = textwrap.dedent("\n".join(raw[used[0]:used[-1] + 1])).split("\n")
    width = max(len(row) for row in body)
    return tuple(row.ljust(width, "X")[:MAX_SIZE] for row in body[:MAX_SIZE])


def _forward_in(value: Any, key: str, notes: list[str]) -> object:
    if value is None:
        return None
    if isinstance(value, str) and value in FORWARD_WORDS:
        return value
    if _is_pair(value) and (value[0] or value[1]):
        return (float(value[0]), float(value[1]))
    notes.append(f"{key}: {value!r} is not a direction; left out")
    return None


def _is_pair(value: Any) -> bool:
    return (isinstance(value, (list, tuple)) and len(value) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value))


def _points(value: Any, key: str, notes: list[str]) -> tuple[Point, ...]:
    if not isinstance(value, (list, tuple)):
        notes.append(f"{key}: {value!r} is not a list of points; left out")
        return ()
    good = tuple((float(p[0]), float(p[1])) for p in value if _is_pair(p))
    if len(good) != len(value):
        notes.append(f"{key}: {len(value) - len(good)} entries are not [x, y] points; left out")
    return good


def _line_in(value: Any, key: str, notes: list[str]) -> Line | None:
    points = _points(value, key, notes)
    if len(points) != 2:
        notes.append(f"{key}: a line needs exactly two points; left out")
        return None
    return (points[0], points[1])


def _outline_in(data: Mapping[str, Any], notes: list[str]) -> tuple[OutlineShape, object]:
    outer = _points(data.get("outer", []), "outline.outer", notes)
    islands = []
    raw_islands = data.get("islands", [])
    if isinstance(raw_islands, (list, tuple)):
        islands = [_points(r, f"outline.islands[{k}]", notes) for k, r in enumerate(raw_islands, 1)]
    finish = _line_in(data["finish"], "outline.finish", notes) if "finish" in data else None
    checkpoints = []
    if isinstance(data.get("checkpoints"), (list, tuple)):
        for k, raw in enumerate(data["checkpoints"], 1):
            line = _line_in(raw, f"outline.checkpoints[{k}]", notes)
            if line is not None:
                checkpoints.append(line)
    start = tuple((int(p[0]), int(p[1])) for p in _points(data.get("start", []), "outline.start", notes))
    start_line = _line_in(data["start_line"], "outline.start_line", notes) if "start_line" in data else None
    slots = data.get("slots", 4)
    if isinstance(slots, bool) or not isinstance(slots, int) or not 1 <= slots <= 64:
        slots = 4
    terrain = []
    raw_terrain = data.get("terrain", [])
    for k, raw in enumerate(raw_terrain if isinstance(raw_terrain, (list, tuple)) else [], 1):
        if not isinstance(raw, Mapping) or raw.get("kind") not in TERRAIN_KINDS:
            notes.append(f"outline.terrain[{k}]: not a patch with a kind of {', '.join(TERRAIN_KINDS)}; left out")
            continue
        terrain.append((raw["kind"], _points(raw.get("ring", []), f"outline.terrain[{k}].ring", notes)))
    every = [*outer, *(p for r in islands for p in r), *(finish or ()), *(p for ln in checkpoints for p in ln),
             *start, *(start_line or ()), *(p for _, ring in terrain for p in ring)]
    width = max([20] + [math.ceil(p[0]) + 3 for p in every])
    height = max([12] + [math.ceil(p[1]) + 3 for p in every])
    shape = OutlineShape(paper=(min(width, MAX_SIZE), min(height, MAX_SIZE)), outer=outer, islands=tuple(islands),
                         finish=finish, checkpoints=tuple(checkpoints), start=start, start_line=start_line,
                         slots=slots, terrain=tuple(terrain))
    return shape, _forward_in(data.get("forward"), "outline.forward", notes)


# -- geometry helpers for the outline tools ---------------------------------------------
def snap(point: Point, step: float) -> Point:
    """A point rounded to the nearest multiple of ``step`` squares."""
    return (round(point[0] / step) * step, round(point[1] / step) * step)


def distance_to_segment(p: Point, a: Point, b: Point) -> float:
    ax, ay = a
    bx, by = b
    ux, uy = bx - ax, by - ay
    length2 = ux * ux + uy * uy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p[0] - ax) * ux + (p[1] - ay) * uy) / length2))
    return math.hypot(p[0] - ax - t * ux, p[1] - ay - t * uy)


def insert_point(ring: tuple[Point, ...], point: Point) -> tuple[Point, ...]:
    """The ring with ``point`` added: appended while it has fewer than 3 points, else into its nearest edge."""
    if len(ring) < 3:
        return ring + (point,)
    n = len(ring)
    best = min(range(n), key=lambda i: distance_to_segment(point, ring[i], ring[(i + 1) % n]))
    return ring[:best + 1] + (point,) + ring[best + 1:]


def bresenham(a: tuple[int, int], b: tuple[int, int]) -> list[tuple[int, int]]:
    """The cells of a straight line of cells from a to b, both ends included."""
    (x0, y0), (x1, y1) = a, b
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx, sy = (1 if x1 >= x0 else -1), (1 if y1 >= y0 else -1)
    err = dx + dy
    cells = []
    while True:
        cells.append((x0, y0))
        if (x0, y0) == (x1, y1):
            return cells
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy


def brush_cells(center: tuple[int, int], size: int) -> list[tuple[int, int]]:
    """The cells under a square brush of ``size`` cells centred on a cell (even sizes lean up-left)."""
    lo = -(size // 2)
    return [(center[0] + dx, center[1] + dy) for dy in range(lo, lo + size) for dx in range(lo, lo + size)]


def valid_id(text: str) -> bool:
    return bool(ID_PATTERN.match(text))
