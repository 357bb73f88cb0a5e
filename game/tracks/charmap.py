"""Char maps (Karopapier's letters) compiled into core tracks, with located problems.

One character per grid node: ``X`` off-road, ``O`` road, ``S`` start, ``F`` finish,
``1``-``9`` checkpoints, ``P`` parc fermé (off-road); terrain: ``Y`` sand, ``Z`` mud,
``I`` ice (``N``, Karopapier's snow, is ice too), ``C`` curb and ``W`` water (see
:mod:`game.core.terrain`); ``G L T V .`` are other Karopapier terrains, read as
off-road with a warning. Row = y (0 at the top), column = x. The finish, the driving
direction and the start order are derived with every terrain read as off-road (as the
``karopapier`` rules see the map), so terrain is never the only way round.
How the finish line, the driving direction, the start order and checkpoint gates are
derived is written for modders in ``docs/level-packs.md``; this module is the reference.

>>> track = track_from_charmap('''
... XXXXXXXXX
... XOOFSOOOX
... XOOFSOOOX
... XOXXXXXOX
... XOOOOOOOX
... XXXXXXXXX
... ''')
>>> track.finish.a, track.finish.b, track.forward
((2.5, 0.5), (2.5, 2.5), (1.0, 0.0))
>>> track.start_slots
(Vec(4, 1), Vec(4, 2))
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from game.core.geometry import CellGate, CellRegion, Gate, LineGate
from game.core.rules import PRESET_NAMES
from game.core.terrain import LETTER_NAMES as KIND_LETTER_NAMES, LETTERS as KIND_LETTERS, layout_from_masks
from game.core.track import Track
from game.core.vec import Vec
from game.tracks.limits import sheet_problem
from game.tracks.problems import ERROR, WARNING, Problem, TrackError
from game.core.limits import laps_problem

ROAD_LETTERS = frozenset("OSF123456789")
OFFROAD_LETTERS = frozenset("XP")
#: Karopapier's terrain letters (every one off-road on Karopapier).
TERRAIN_LETTERS = {"Y": "sand", "Z": "mud", "W": "water", "G": "gold", "L": "lava", "N": "snow",
                   "T": "tar", "V": "mountain", ".": "night"}
#: Karopapier letters Racetrack has no terrain for: read as off-road, with a warning.
OFFROAD_TERRAIN_LETTERS = {ch: name for ch, name in TERRAIN_LETTERS.items() if ch not in KIND_LETTERS}
#: ``forward`` words and the unit vectors they mean (y grows downward).
FORWARD_WORDS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}

_NEIGHBOURS = ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1))


@dataclass(frozen=True)
class CharGrid:
    """A char map after trimming: ``rows`` all the same width, ``lines[y]`` the text line of row y."""

    rows: tuple[str, ...]
    lines: tuple[int, ...]

    @property
    def width(self) -> int:
        return len(self.rows[0]) if self.rows else 0

    @property
    def height(self) -> int:
        return len(self.rows)

    def cells(self, letters: str | frozenset[str]) -> list[tuple[int, int]]:
        """Every (x, y) holding one of the letters, row by row."""
        if isinstance(letters, str) and len(letters) == 1:  # one letter: found by str.find, not cell by cell
            found = []
            for y, row in enumerate(self.rows):
                x = row.find(letters)
                while x >= 0:
                    found.append((x, y))
                    x = row.find(letters, x + 1)
            return found
        return [(x, y) for y, row in enumerate(self.rows) for x, ch in enumerate(row) if ch in letters]


def parse_forward(value: object) -> tuple[float, float] | None:
    """A ``forward`` value (a word such as ``"right"`` or a pair ``[dx, dy]``) as a vector.

    Returns None for None; raises ValueError with a modder's message for anything else.
    """
    if value is None:
        return None
    if isinstance(value, str):
        if value not in FORWARD_WORDS:
            raise ValueError(f"must be one of {', '.join(FORWARD_WORDS)} or [dx, dy], not {value!r}")
        dx, dy = FORWARD_WORDS[value]
        return (float(dx), float(dy))
    if isinstance(value, (list, tuple)) and len(value) == 2 \
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        dx, dy = float(value[0]), float(value[1])
        if not (math.isfinite(dx) and math.isfinite(dy)) or (dx == 0 and dy == 0):
            raise ValueError(f"[dx, dy] must be a finite non-zero vector, not {list(value)!r}")
        return (dx, dy)
    raise ValueError(f"must be one of {', '.join(FORWARD_WORDS)} or [dx, dy], not {value!r}")


def parse_charmap(text: str, *, track: str | None = None,
                  keep_terrain: bool = False) -> tuple[CharGrid, list[Problem]]:
    """Trim and square up a char map; report unknown letters, terrains and ragged rows.

    This is the one reader of map text: packs' ``map`` strings, ``.map`` files in the game
    and in ``validate``, and ``racetrack import`` (``game.tracks.karo_import.parse_map``)
    all go through it, so a map gives the same track everywhere. Line ends may be
    ``\n``, ``\r\n`` or a lone ``\r``. Blank lines before and after the map and trailing
    whitespace are dropped, and the indentation common to all rows is removed (so a map
    may be indented inside TOML). Short rows are padded with ``X`` and a warning says so.
    Problem lines count from 1 at the first line of ``text``. Karopapier terrains Racetrack
    has no terrain for become ``X`` with a warning, unless ``keep_terrain`` (the importer,
    which notes them itself).
    """
    problems: list[Problem] = []

    def problem(line, message, severity=ERROR):
        problems.append(Problem(None, line, track, "map", message, severity))

    raw = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    used = [i for i, line in enumerate(raw) if line]
    if not used:
        problem(None, "the map is empty")
        return CharGrid((), ()), problems
    first, last = used[0], used[-1]
    too_big = sheet_problem(max(len(line) for line in raw), last - first + 1, "the map")
    if too_big:  # before any per-cell work: a few bytes must not cost minutes
        problem(first + 1, too_big)
        return CharGrid((), ()), problems
    body = textwrap.dedent("\n".join(raw[first:last + 1])).split("\n")
    lines = tuple(range(first + 1, last + 2))
    width = max(len(row) for row in body)
    short = [lines[i] for i, row in enumerate(body) if len(row) < width]
    if short:
        problem(short[0], f"{len(short)} row(s) shorter than the widest ({width} characters), first on line "
                f"{short[0]}: padded with X (off-road)", WARNING)
    rows = tuple(row.ljust(width, "X") for row in body)
    unknown: dict[str, list[tuple[int, int]]] = {}
    terrain: dict[str, list[tuple[int, int]]] = {}
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch in ROAD_LETTERS or ch in OFFROAD_LETTERS or ch in KIND_LETTERS:
                continue
            (terrain if ch in OFFROAD_TERRAIN_LETTERS else unknown).setdefault(ch, []).append((x, y))
    for ch, where in unknown.items():
        x, y = where[0]
        problem(lines[y], f"unknown letter {ch!r} at x={x}, y={y}" + (f" and {len(where) - 1} more" if len(where) > 1
                else "") + "; use X O S F P, 1-9 or a terrain letter: "
                + ", ".join(f"{ch} {name}" for ch, name in KIND_LETTER_NAMES.items()))
    if keep_terrain:
        return CharGrid(rows, lines), problems
    for ch, where in terrain.items():
        x, y = where[0]
        problem(lines[y], f"{OFFROAD_TERRAIN_LETTERS[ch]} ({ch!r}, {len(where)} cells, first at x={x}, y={y}) "
                "is read as off-road", WARNING)
    clean = tuple("".join("X" if ch in OFFROAD_TERRAIN_LETTERS or ch in unknown else ch for ch in row)
                  for row in rows)
    return CharGrid(clean, lines), problems


#: A grid of cells as rows of bools or ints, ``grid[y][x]`` (what the checks below work on: plain
#: Python lists, so a char map is read without numpy; the track's region makes an array when asked).
Rows = list[list]


def terrain_masks(grid: CharGrid) -> dict:
    """Each terrain kind's cells in a parsed grid, as bool masks (height, width); {} without terrain letters."""
    if not any(ch in row for row in grid.rows for ch in KIND_LETTERS):
        return {}
    import numpy as np  # only a map with terrain letters needs masks

    letters = np.array([list(row) for row in grid.rows]) if grid.rows else np.zeros((0, 0), dtype="<U1")
    masks = {}
    for ch, kind in KIND_LETTERS.items():
        found = letters == ch
        if found.any():
            masks[kind] = masks[kind] | found if kind in masks else found
    return masks


def _bfs(passable: Rows, seeds: Sequence[tuple[int, int]]) -> Rows:
    """Road distance (in 8-neighbour steps) from the seeds over passable cells; -1 where unreachable.

    Eight neighbours, because a move may pass through the corner where two road squares
    meet diagonally: every move's cells form such a chain, and every chain can be driven.
    The grid is searched flat with a border of closed cells around it, so a neighbour is an
    offset and needs no bounds check; a cell is closed once reached.
    """
    height = len(passable)
    width = len(passable[0]) if height else 0
    stride = width + 2
    open_cells = bytearray(stride * (height + 2))
    for y, row in enumerate(passable):
        start = (y + 1) * stride + 1
        open_cells[start:start + width] = bytes(map(bool, row))
    dist = [-1] * len(open_cells)
    offsets = [dy * stride + dx for dx, dy in _NEIGHBOURS]
    frontier = []
    for x, y in seeds:
        i = (y + 1) * stride + x + 1
        if open_cells[i]:
            open_cells[i] = 0
            dist[i] = 0
            frontier.append(i)
    steps = 0
    while frontier:  # one ring of equal distance at a time
        steps += 1
        reached = []
        for i in frontier:
            for offset in offsets:
                j = i + offset
                if open_cells[j]:
                    open_cells[j] = 0
                    dist[j] = steps
                    reached.append(j)
        frontier = reached
    return [dist[(y + 1) * stride + 1:(y + 1) * stride + 1 + width] for y in range(height)]


def _adjacent(cells: set[tuple[int, int]], road: Rows) -> set[tuple[int, int]]:
    """Road cells that touch (8 neighbours) one of ``cells`` without being one."""
    height = len(road)
    width = len(road[0]) if height else 0
    found = set()
    for x, y in cells:
        for dx, dy in _NEIGHBOURS:
            nx, ny = x + dx, y + dy
            if 0 <= nx < width and 0 <= ny < height and road[ny][nx] and (nx, ny) not in cells:
                found.add((nx, ny))
    return found


@dataclass(frozen=True)
class _Band:
    """A straight band of cells (finish or checkpoint) and the axis cars cross it along.

    ``axis`` 0 means cars cross along x (the band is a column), 1 along y (a row).
    ``lo``/``hi`` bound the band along the crossing axis, ``start``/``end`` across it.
    """

    axis: int
    lo: int
    hi: int
    start: int
    end: int

    def along(self, cell: tuple[int, int]) -> int:
        return cell[self.axis]

    def across(self, cell: tuple[int, int]) -> int:
        return cell[1 - self.axis]

    def sides(self, neighbours: set[tuple[int, int]]) -> tuple[list, list, list]:
        """Split neighbouring road cells into (behind lo, past hi, beside the band)."""
        low = [c for c in neighbours if self.along(c) < self.lo]
        high = [c for c in neighbours if self.along(c) > self.hi]
        beside = [c for c in neighbours if self.lo <= self.along(c) <= self.hi]
        return low, high, beside

    def gate(self, number: int, sign: int) -> Gate:
        """The line along the band's back edge (the side cars arrive from), facing ``sign``."""
        edge = self.lo - 0.5 if sign > 0 else self.hi + 0.5
        a, b = (edge, self.start - 0.5), (edge, self.end + 0.5)
        unit = (float(sign), 0.0)
        if self.axis == 1:
            a, b, unit = a[::-1], b[::-1], unit[::-1]
        return LineGate(number, a=a, b=b, forward=unit)


def _band(cells: list[tuple[int, int]], axis: int) -> _Band:
    along = [c[axis] for c in cells]
    across = [c[1 - axis] for c in cells]
    return _Band(axis, min(along), max(along), min(across), max(across))


def _finish_axis(cells: list[tuple[int, int]], forward: tuple[float, float] | None,
                 starts: list[tuple[int, int]]) -> int:
    """Which axis cars cross the F cells along: a column is crossed along x, a row along y."""
    if forward is not None:
        return 0 if abs(forward[0]) >= abs(forward[1]) else 1
    xs = {x for x, _ in cells}
    ys = {y for _, y in cells}
    if len(xs) != len(ys):
        return 0 if len(xs) < len(ys) else 1  # the thin axis is the one crossed
    # A square blob (or one cell): S usually stands beside the finish, along the crossing axis.
    fx, fy = _mean(cells)
    sx, sy = _mean(starts)
    return 0 if abs(sx - fx) >= abs(sy - fy) else 1


def _mean(cells: Sequence[tuple[int, int]]) -> tuple[float, float]:
    """The mean point of some cells (exact sums, one division: what numpy's mean gives for them)."""
    return sum(x for x, _ in cells) / len(cells), sum(y for _, y in cells) / len(cells)


@dataclass
class _MapCheck:
    """What the checks of one char map share: the grid, its road and the problems found so far.

    ``check_charmap`` runs the checks in order, one per rule of the format; each adds its
    problems here (located at the map's text lines) and what later checks need.
    """

    grid: CharGrid
    track: str
    problems: list[Problem]
    karopapier: bool
    road: Rows | None = None
    drivable: Rows | None = None
    layout: object = None
    starts: list[tuple[int, int]] = field(default_factory=list)
    finish_cells: list[tuple[int, int]] = field(default_factory=list)
    band: _Band | None = None
    low: list = field(default_factory=list)
    high: list = field(default_factory=list)
    beside: list = field(default_factory=list)
    passable: Rows | None = None
    dist: Rows | None = None
    #: Problems with the finish line's shape, errors only in packs (Karopapier maps use no line).
    shape: list[tuple[int | None, str]] = field(default_factory=list)

    def error(self, line: int | None, message: str, key: str = "map", severity: str = ERROR) -> None:
        self.problems.append(Problem(None, line, self.track, key, message, severity))

    def nearest(self, cells) -> int | None:
        """The fewest road steps from a start to any of ``cells`` (the finish not passed), or None."""
        reached = [self.dist[y][x] for x, y in cells if self.dist[y][x] >= 0]
        return min(reached) if reached else None


def _check_keys(check: _MapCheck, laps: int, rules: str, forward: object) -> tuple[float, float] | None:
    """The track keys beside the map (laps, rules, forward); the forward vector, or None."""
    if laps_problem(laps):
        check.error(None, laps_problem(laps), "laps")
    if rules not in PRESET_NAMES:
        check.error(None, f"unknown rule preset {rules!r}; choose one of {', '.join(PRESET_NAMES)}", "rules")
    try:
        return parse_forward(forward)
    except ValueError as exc:
        check.error(None, str(exc), "forward")
        return None


def _check_start_and_finish(check: _MapCheck) -> bool:
    """The road, the S and F cells; False (after saying so) when either letter is missing."""
    grid = check.grid
    # The road as the karopapier rules see it (every terrain off it): what the finish, the
    # driving direction and the start are derived from; ``drivable`` adds the road terrain
    # (sand, mud, ice, curbs): no road of either may run beside a finish or checkpoint line.
    check.road = [[ch in ROAD_LETTERS for ch in row] for row in grid.rows]
    check.layout = layout_from_masks(terrain_masks(grid))
    check.drivable = [row[:] for row in check.road]
    if check.layout:
        terrain = check.layout.drivable_mask((grid.height, grid.width)).tolist()
        check.drivable = [[r or t for r, t in zip(road, kinds)] for road, kinds in zip(check.road, terrain)]
    check.starts = grid.cells("S")
    check.finish_cells = grid.cells("F")
    if not check.starts:
        check.error(None, "no start: put at least one S on the road")
    if not check.finish_cells:
        check.error(None, "no finish: put a row or column of F across the road")
    return bool(check.starts and check.finish_cells)


def _check_finish_band(check: _MapCheck, forward_vec: tuple[float, float] | None) -> None:
    """The F cells as a band across the road: road beside it is a shape problem; distances from S."""
    grid = check.grid
    finish_set = set(check.finish_cells)
    check.band = _band(check.finish_cells, _finish_axis(check.finish_cells, forward_vec, check.starts))
    check.low, check.high, check.beside = check.band.sides(_adjacent(finish_set, check.drivable))
    for x, y in sorted(check.beside, key=lambda c: (c[1], c[0]))[:3]:
        check.shape.append((grid.lines[y], f"the finish does not cut the road: road at x={x}, y={y} runs beside the "
                            "F cells, so cars could drive around the line; make the F row/column span the road "
                            "from edge to edge"))
    check.passable = [row[:] for row in check.road]
    for x, y in check.finish_cells:
        check.passable[y][x] = False
    check.dist = _bfs(check.passable, check.starts)


def _finish_sign(check: _MapCheck, forward_vec: tuple[float, float] | None,
                 d_low: int | None, d_high: int | None) -> int:
    """Which way cars cross the finish band (+1 along its axis, -1 against), from ``forward`` or the road."""
    if forward_vec is not None:
        sign = 1 if forward_vec[check.band.axis] > 0 else -1
        arrive = d_low if sign > 0 else d_high
        if arrive is None and (d_low is not None or d_high is not None) and not check.karopapier:
            check.error(None, "cars can only reach the finish from its front: with this forward the line can only "
                        "be crossed backwards; turn forward around", "forward")
        return sign
    if d_low is not None and d_high is not None:
        if d_low != d_high:
            return 1 if d_high < d_low else -1  # cars start just past the line, on the side nearer S
        centre = _mean(check.finish_cells)[check.band.axis]
        return 1 if _mean(check.starts)[check.band.axis] >= centre else -1
    return -1 if d_low is None and d_high is not None else 1  # a sprint: drive away from S's side


def _check_reach(check: _MapCheck, laps: int, d_low: int | None, d_high: int | None) -> bool:
    """The finish reachable from S, and a sprint (no way round) driven once; True for a circuit."""
    circuit = d_low is not None and d_high is not None
    if d_low is None and d_high is None and not check.beside:
        check.error(None, "the finish cannot be reached from the start: no road path leads from S to the F cells")
    sprint = not circuit and (d_low is not None or d_high is not None)
    if sprint and isinstance(laps, int) and not isinstance(laps, bool) and laps > 1:
        check.error(None, f"a sprint track (the road does not lead from the finish back round to it) must have "
                    f"laps = 1, not {laps}", "laps")
    return circuit


def _check_start_places(check: _MapCheck, finish: Gate, circuit: bool) -> None:
    """Every start node reaches the finish, and on a circuit stands past the line."""
    finish_set = set(check.finish_cells)
    reach = _bfs(check.passable, [c for c in _adjacent(finish_set, check.road) if check.passable[c[1]][c[0]]])
    for x, y in check.starts:
        if reach[y][x] < 0:
            check.error(check.grid.lines[y], f"start at x={x}, y={y} cannot reach the finish by road")
        elif circuit and finish.side(Vec(x, y)) < 0:
            check.shape.append((check.grid.lines[y], f"start at x={x}, y={y} stands behind the finish line: a car "
                                "there would cross it forwards without driving a lap; put S just past the F cells"))


def _start_order(starts: list[tuple[int, int]], forward: tuple[float, float]) -> list[tuple[int, int]]:
    """The start places best first: furthest along the driving direction, then furthest to the left."""
    left = (forward[1], -forward[0])  # y grows downward, so this is the driver's left
    return sorted(starts, key=lambda c: (-(c[0] * forward[0] + c[1] * forward[1]),
                                         -(c[0] * left[0] + c[1] * left[1]), c[1], c[0]))


def _check_checkpoints(check: _MapCheck) -> list[Gate]:
    """A gate per checkpoint digit on the map; a checkpoint no road reaches is an error."""
    grid = check.grid
    checkpoints = []
    around: Rows | None = None  # the road with its terrain, for a checkpoint the plain road does not reach
    for digit in "123456789":
        cells = grid.cells(digit)
        if not cells:
            continue
        if not any(check.dist[y][x] >= 0 for x, y in cells):
            # Every lap must take it, so no car could finish. Terrain counts as a way there
            # (sand slows, it does not stop), and so does the finish: crossing it before the
            # checkpoints are taken counts nothing (Karopapier maps put the start between two F rows).
            if around is None:
                around = _bfs(check.drivable, check.starts)
            if not any(around[y][x] >= 0 for x, y in cells):
                x, y = min(cells, key=lambda c: (c[1], c[0]))
                check.error(grid.lines[y], f"checkpoint {digit} cannot be reached: no road leads from the start to "
                            f"its cells (x={x}, y={y}), so no car could finish a lap; connect it to the road")
                continue
        gate = None if check.karopapier else _checkpoint_line(int(digit), cells, check.drivable, check.dist, grid,
                                                              check.problems, check.track)
        checkpoints.append(gate or CellGate(int(digit), cells=frozenset(cells)))
    return checkpoints


def check_charmap(text: str, *, id: str = "map", name: str | None = None, laps: int = 1, rules: str = "paper",
                  forward: object = None, karopapier: bool = False,
                  meta: Mapping[str, object] | None = None) -> tuple[Track | None, list[Problem]]:
    """Compile a char map into a :class:`Track` and list every problem found.

    Returns ``(track, problems)``; ``track`` is None when any problem is an error.
    Problem lines count from 1 at the first line of ``text``; ``file`` is None (a pack
    loader places them in its file with :meth:`Problem.moved`). The checks run in order,
    one small function per rule of the format (``_check_*``); add a rule as a new one.
    """
    grid, problems = parse_charmap(text, track=id)
    check = _MapCheck(grid, id, problems, karopapier)
    forward_vec = _check_keys(check, laps, rules, forward)
    if not grid.rows or any(p.is_error and p.key == "map" for p in problems):
        return None, problems  # unknown letters: every later check would only repeat the confusion
    if not _check_start_and_finish(check):
        return None, problems
    _check_finish_band(check, forward_vec)
    d_low, d_high = check.nearest(check.low), check.nearest(check.high)
    sign = _finish_sign(check, forward_vec, d_low, d_high)
    circuit = _check_reach(check, laps, d_low, d_high)
    finish = check.band.gate(0, sign)
    _check_start_places(check, finish, circuit)
    if karopapier:
        # Karopapier's own rule: the first move that enters an F cell once every checkpoint
        # is taken finishes, whatever direction it comes from. A line derived from the F
        # cells' bounding box can cross road where no F cell is (map 58), so none is made.
        finish = CellGate(0, cells=frozenset(check.finish_cells), entered=True)
    else:
        for line, why in check.shape:
            check.error(line, why)
    forward_vec_out = check.band.gate(0, sign).forward
    forward_out = (float(forward_vec_out[0]), float(forward_vec_out[1]))
    slots = _start_order(check.starts, forward_out)
    checkpoints = _check_checkpoints(check)
    if any(p.is_error for p in problems):
        return None, problems
    info = dict(meta or {})
    info.setdefault("shape", "map")
    info.setdefault("source", text)
    info.setdefault("karopapier", karopapier)
    info.setdefault("circuit", circuit)
    info["warnings"] = [str(p) for p in problems]
    track = Track(id=id, name=name if name is not None else id, region=CellRegion(check.drivable),
                  start_slots=tuple(Vec(x, y) for x, y in slots), finish=finish, forward=forward_out,
                  checkpoints=tuple(checkpoints), default_laps=laps, default_rules=rules, meta=info,
                  terrain=check.layout)
    return track, problems


def _checkpoint_line(number: int, cells: list[tuple[int, int]], road: Rows, dist: Rows,
                     grid: CharGrid, problems: list[Problem], track: str) -> Gate | None:
    """A directed line gate for a straight run of digit cells across the road, or None for a cell gate."""
    xs = {x for x, _ in cells}
    ys = {y for _, y in cells}
    if len(cells) < 2 or (len(xs) > 1 and len(ys) > 1):
        return None
    band = _band(cells, 0 if len(xs) == 1 else 1)
    if band.end - band.start + 1 != len(cells):
        return None  # gaps: not one straight line
    low, high, beside = band.sides(_adjacent(set(cells), road))
    line = grid.lines[cells[0][1]]
    if beside:
        x, y = min(beside, key=lambda c: (c[1], c[0]))
        problems.append(Problem(None, grid.lines[y], track, "map",
                                f"checkpoint {number} does not span the road (road at x={x}, y={y} beside it); "
                                "any visit to its cells counts", WARNING))
        return None

    def nearest(side):
        reached = [dist[y][x] for x, y in side if dist[y][x] >= 0]
        return min(reached) if reached else None

    d_low, d_high = nearest(low), nearest(high)
    if d_low is None or d_high is None or d_low == d_high:
        problems.append(Problem(None, line, track, "map",
                                f"cannot tell which way cars drive through checkpoint {number}; "
                                "any visit to its cells counts", WARNING))
        return None
    return band.gate(number, 1 if d_low < d_high else -1)


def track_from_charmap(text: str, *, id: str = "map", name: str | None = None, laps: int = 1,
                       rules: str = "paper", forward: object = None, karopapier: bool = False,
                       meta: Mapping[str, object] | None = None) -> Track:
    """Compile a char map into a core :class:`Track`; raise :class:`TrackError` listing every error.

    ``forward`` is ``"up"``, ``"down"``, ``"left"``, ``"right"``, ``[dx, dy]`` or None
    (derived: see ``docs/level-packs.md``). ``karopapier=True`` reads the map with
    Karopapier's rules: every checkpoint is a cell gate that counts any visit, and the
    finish is the set of ``F`` cells, entered from any direction. Warnings (Karopapier letters read as
    off-road, padded rows, undirected checkpoints) do not stop the track; they are kept as
    strings in ``track.meta["warnings"]``.
    """
    track, problems = check_charmap(text, id=id, name=name, laps=laps, rules=rules, forward=forward,
                                    karopapier=karopapier, meta=meta)
    if track is None:
        raise TrackError(problems)
    return track
