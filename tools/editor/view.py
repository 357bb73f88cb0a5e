"""Drawing the editor: the canvas (editing view or the game's own renderer) and the side panel.

Drawing only reads the editor; what it caches (the map image, the game's Board for the
preview, rendered text) lives in a :class:`ViewCache` owned by the editor. The preview
uses :class:`game.presentation.board.Board`, the renderer of the race screen, so a modder
sees exactly what players will see.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

import numpy as np
import pygame

from game.presentation import theme
from game.presentation.board import Board
from game.presentation.paper import arrow
from game.presentation.terrain_art import look, swatch as terrain_swatch
from game.presentation.text import TextCache

from .doc import BRUSHES, TERRAIN_BRUSHES, TERRAIN_KINDS, MapShape, OutlineShape
from .jobs import JobFailed, ParResult

if TYPE_CHECKING:
    from .app import Editor

PANEL_BG = (250, 249, 242)
DESK = (186, 190, 182)  # around the sheet
SHEET_OFF = (214, 219, 204)  # off-road cells
ERROR_RED = (200, 30, 40)
OK_GREEN = (20, 130, 60)
ACCENT = (0, 92, 170)
FORWARD = (213, 94, 0)  # the driving direction arrow
LETTER_COLORS = {"X": SHEET_OFF, "O": theme.PAPER, "S": (150, 198, 236), "F": theme.PAPER, "P": (176, 176, 190),
                 **{str(d): (165, 218, 208) for d in range(1, 10)},
                 # terrain in the strong tints the race uses for a track seen small (Tab: the real look)
                 **{letter: look(kind).small_tint for letter, kind in TERRAIN_BRUSHES.items()}}
UNKNOWN = (240, 120, 210)
TOOL_HINTS = {
    "map": "left drag paints, right drag erases to off-road; Shift+click paints a straight line from the last cell",
    "outer": "click adds a point (into the nearest edge); drag a point to move it, right-click deletes it",
    "island": "click adds a point to this island; N starts a new island",
    "finish": "drag a line across the road; arrows set the direction cars cross it",
    "checkpoint": "drag a line across the road: the next checkpoint (numbered in order)",
    "start": "click a node to add or remove a start slot (the first is the best)",
    "start_line": "drag the start line; + and - set how many slots stand behind it",
    "terrain": "click adds a point to this patch; N starts a new patch, T the next kind (or click a swatch)",
}
CELL_REF = re.compile(r"x=(\d+), y=(\d+)")
NODE_REF = re.compile(r"\[(-?\d+), (-?\d+)\]")


class ViewCache:
    """What drawing keeps between frames: text, the map image, the preview Board."""

    def __init__(self) -> None:
        self.text = TextCache()
        self.map_key: tuple[str, ...] | None = None
        self.map_image: pygame.Surface | None = None
        self.board: Board | None = None
        self.board_track = None
        self.palette: dict[str, pygame.Rect] = {}  # where the brush swatches were drawn (for clicks)
        self.swatches: dict[str, pygame.Surface] = {}  # terrain brushes: a piece of their texture


def draw(surface: pygame.Surface, ed: Editor) -> None:
    """Draw the whole editor window."""
    cw, ch = ed.canvas_size
    canvas = surface.subsurface((0, 0, min(cw, surface.get_width()), min(ch, surface.get_height())))
    if ed.preview:
        draw_preview(canvas, ed)
    else:
        draw_edit(canvas, ed)
    draw_panel(surface, ed, pygame.Rect(cw, 0, surface.get_width() - cw, surface.get_height()))


# -- the canvas ------------------------------------------------------------------------
def _sheet_rect(ed: Editor) -> pygame.Rect:
    shape = ed.doc.shape
    x0, y0 = ed.camera.to_screen((-0.5, -0.5))
    x1, y1 = ed.camera.to_screen((shape.width - 0.5, shape.height - 0.5))
    return pygame.Rect(round(x0), round(y0), round(x1) - round(x0), round(y1) - round(y0))


def draw_edit(canvas: pygame.Surface, ed: Editor) -> None:
    canvas.fill(DESK)
    if isinstance(ed.doc.shape, MapShape):
        _draw_map(canvas, ed, ed.doc.shape)
    else:
        _draw_outline(canvas, ed, ed.doc.shape)
    _draw_rulers(canvas, ed)
    _draw_problem_marks(canvas, ed)
    _draw_hover(canvas, ed)


def _map_image(ed: Editor, shape: MapShape) -> pygame.Surface:
    cache = ed.cache
    if cache.map_key != shape.rows or cache.map_image is None:
        codes = np.frombuffer("".join(shape.rows).encode("latin-1", "replace"), dtype=np.uint8)
        codes = codes.reshape(shape.height, shape.width)
        palette = np.empty((256, 3), dtype=np.uint8)
        palette[:] = UNKNOWN
        for letter, color in LETTER_COLORS.items():
            palette[ord(letter)] = color
        rgb = palette[codes.T]  # surfarray is indexed [x, y]
        cache.map_image = pygame.surfarray.make_surface(rgb)
        cache.map_key = shape.rows
    return cache.map_image


def _visible_cells(ed: Editor, canvas: pygame.Surface, width: int, height: int) -> tuple[int, int, int, int]:
    left, top = ed.camera.to_world((0, 0))
    right, bottom = ed.camera.to_world(canvas.get_size())
    return (max(0, math.floor(left + 0.5)), max(0, math.floor(top + 0.5)),
            min(width, math.ceil(right + 0.5)), min(height, math.ceil(bottom + 0.5)))


def _draw_map(canvas: pygame.Surface, ed: Editor, shape: MapShape) -> None:
    s = ed.camera.scale
    image = _map_image(ed, shape)
    x0, y0, x1, y1 = _visible_cells(ed, canvas, shape.width, shape.height)
    if x1 <= x0 or y1 <= y0:
        return
    px0, py0 = ed.screen_of((x0 - 0.5, y0 - 0.5))
    px1, py1 = ed.screen_of((x1 - 0.5, y1 - 0.5))
    part = image.subsurface((x0, y0, x1 - x0, y1 - y0))
    canvas.blit(pygame.transform.scale(part, (max(1, px1 - px0), max(1, py1 - py0))), (px0, py0))
    # finish cells chequered, other special letters named when there is room
    text = ed.cache.text
    glyph = int(max(10, s * 0.8))
    for y in range(y0, y1):
        row = shape.rows[y]
        for x in range(x0, x1):
            ch = row[x]
            if ch in "XO" or ch in TERRAIN_BRUSHES:
                continue  # terrain shows by its tint (a letter on every square of a dune is noise)
            cx, cy = ed.camera.to_screen((x, y))
            if ch == "F":
                half = s / 2
                for i in range(2):
                    for j in range(2):
                        if (i + j) % 2 == 0:
                            canvas.fill(theme.INK, (math.floor(cx - half + i * half), math.floor(cy - half + j * half),
                                                    math.ceil(half), math.ceil(half)))
            elif s >= 13:
                color = theme.CHECKPOINT if ch.isdigit() else (UNKNOWN if ch not in LETTER_COLORS else theme.INK)
                text.blit(canvas, ch, glyph, color, (cx, cy), "center", bold=True)
    # cell borders: faint, darker every fifth
    if s >= 5:
        for x in range(x0, x1 + 1):
            px = ed.screen_of((x - 0.5, 0))[0]
            color = theme.GRID_MAJOR if x % 5 == 0 else theme.GRID_MINOR
            if x % 5 == 0 or s >= 9:
                pygame.draw.line(canvas, color, (px, py0), (px, py1))
        for y in range(y0, y1 + 1):
            py = ed.screen_of((0, y - 0.5))[1]
            color = theme.GRID_MAJOR if y % 5 == 0 else theme.GRID_MINOR
            if y % 5 == 0 or s >= 9:
                pygame.draw.line(canvas, color, (px0, py), (px1, py))
    pygame.draw.rect(canvas, theme.GRAPHITE, _sheet_rect(ed), 1)
    _draw_track_gates(canvas, ed)


def _draw_track_gates(canvas: pygame.Surface, ed: Editor) -> None:
    """The finish direction and checkpoint lines the game derived (only when the track is valid)."""
    track = ed.track
    if track is None:
        return
    s = ed.camera.scale
    finish = track.finish
    if finish.is_line:
        a, b = ed.camera.to_screen(finish.a), ed.camera.to_screen(finish.b)
        pygame.draw.line(canvas, theme.INK, a, b, max(2, round(s / 6)))
        mid = ((finish.a[0] + finish.b[0]) / 2, (finish.a[1] + finish.b[1]) / 2)
        fx, fy = finish.forward
        n = math.hypot(fx, fy) or 1.0
        tail = ed.camera.to_screen((mid[0] + fx / n * 0.4, mid[1] + fy / n * 0.4))
        tip = ed.camera.to_screen((mid[0] + fx / n * 2.2, mid[1] + fy / n * 2.2))
        arrow(canvas, tail, tip, FORWARD, max(2, round(s / 8)), max(8.0, s * 0.45), spread=0.5)
    for gate in track.checkpoints:
        if gate.is_line:
            pygame.draw.line(canvas, theme.CHECKPOINT, ed.camera.to_screen(gate.a), ed.camera.to_screen(gate.b),
                             max(2, round(s / 7)))


def _draw_outline(canvas: pygame.Surface, ed: Editor, shape: OutlineShape) -> None:
    s = ed.camera.scale
    cam = ed.camera
    sheet = _sheet_rect(ed)
    canvas.fill(SHEET_OFF, sheet)
    if len(shape.outer) >= 3:
        pygame.draw.polygon(canvas, theme.PAPER, [cam.to_screen(p) for p in shape.outer])
    for ring in shape.islands:
        if len(ring) >= 3:
            pygame.draw.polygon(canvas, SHEET_OFF, [cam.to_screen(p) for p in ring])
    for kind, ring in shape.terrain:
        if len(ring) >= 3:
            pygame.draw.polygon(canvas, look(kind).small_tint, [cam.to_screen(p) for p in ring])
    # graph paper: a line through every node, darker every fifth
    x0, y0, x1, y1 = _visible_cells(ed, canvas, shape.width, shape.height)
    if s >= 5:
        clip = canvas.get_clip()
        canvas.set_clip(sheet.clip(canvas.get_rect()))
        for x in range(x0, x1):
            px = ed.screen_of((x, 0))[0]
            if x % 5 == 0 or s >= 9:
                pygame.draw.line(canvas, theme.GRID_MAJOR if x % 5 == 0 else theme.GRID_MINOR, (px, sheet.top),
                                 (px, sheet.bottom))
        for y in range(y0, y1):
            py = ed.screen_of((0, y))[1]
            if y % 5 == 0 or s >= 9:
                pygame.draw.line(canvas, theme.GRID_MAJOR if y % 5 == 0 else theme.GRID_MINOR, (sheet.left, py),
                                 (sheet.right, py))
        canvas.set_clip(clip)
    pygame.draw.rect(canvas, theme.GRAPHITE, sheet, 1)
    keys = _problem_keys(ed)
    width = max(2, round(s / 10))
    for r, ring in enumerate(shape.rings()):
        if not ring:
            continue
        bad = ("outline.outer" if r == 0 else "outline.islands") in keys
        current = ed.outline_tool == "island" and r == ed.current_island or ed.outline_tool == "outer" and r == 0
        color = ERROR_RED if bad else (ACCENT if current else theme.GRAPHITE)
        pts = [cam.to_screen(p) for p in ring]
        if len(pts) >= 2:
            pygame.draw.lines(canvas, color, len(pts) >= 3, pts, width + (1 if current else 0))
    for k, (kind, ring) in enumerate(shape.terrain):
        current = ed.outline_tool == "terrain" and k == ed.current_patch
        bad = f"outline.terrain[{k + 1}].ring" in keys
        color = ERROR_RED if bad else (ACCENT if current else look(kind).ink)
        pts = [cam.to_screen(p) for p in ring]
        if len(pts) >= 2:
            pygame.draw.lines(canvas, color, len(pts) >= 3, pts, max(1, width - 1) + (1 if current else 0))
    text = ed.cache.text
    label = int(max(12, min(22, s * 0.6)))
    for k, line in enumerate(shape.checkpoints, 1):
        color = ERROR_RED if "outline.checkpoints" in keys else theme.CHECKPOINT
        a, b = cam.to_screen(line[0]), cam.to_screen(line[1])
        pygame.draw.line(canvas, color, a, b, max(3, round(s / 6)))
        length = math.hypot(line[1][0] - line[0][0], line[1][1] - line[0][1]) or 1.0
        away = (line[0][0] - (line[1][0] - line[0][0]) / length * 0.8,
                line[0][1] - (line[1][1] - line[0][1]) / length * 0.8)
        _badge(canvas, text, str(k), cam.to_screen(away), color, label)
    if shape.start_line is not None:
        color = ERROR_RED if "outline.slots" in keys or "outline.start_line" in keys else ACCENT
        a, b = cam.to_screen(shape.start_line[0]), cam.to_screen(shape.start_line[1])
        pygame.draw.line(canvas, color, a, b, max(2, round(s / 8)))
        text.blit(canvas, f"start line: {shape.slots} slots", label, color, (b[0] + 8, b[1]), "midleft", bold=True)
    if shape.finish is not None:
        _draw_finish_line(canvas, ed, shape.finish, ERROR_RED if "outline.finish" in keys else theme.INK)
    track = ed.track
    slots = track.start_slots if track is not None else ()
    for k, (x, y) in enumerate(shape.start or [(v.x, v.y) for v in slots]):
        cx, cy = cam.to_screen((x, y))
        r = max(4.0, s * 0.3)
        rect = pygame.Rect(round(cx - r), round(cy - r), round(2 * r), round(2 * r))
        pygame.draw.rect(canvas, (150, 198, 236), rect)
        pygame.draw.rect(canvas, ERROR_RED if "outline.start" in keys else theme.INK, rect, 2)
        if s >= 16:
            text.blit(canvas, str(k + 1), int(r * 1.3), theme.INK, (cx, cy), "center", bold=True)
    if shape.finish is not None and ed.doc.forward is not None:
        _forward_arrow(canvas, ed, shape.finish)  # over the start slots: it points where they drive
    hover = ed.handle_at(ed.mouse) if ed.drag is None and ed.in_canvas(ed.mouse) else None
    dragged = ed.drag.handle if ed.drag is not None and ed.drag.kind == "handle" else None
    for ref, point in ed.handles():
        if ref[0] == "start":
            continue
        p = cam.to_screen(point)
        big = ref in (hover, dragged)
        radius = 7 if big else 4
        pygame.draw.circle(canvas, theme.WARN if big else theme.PAPER, p, radius)
        pygame.draw.circle(canvas, theme.INK, p, radius, 2)


def _draw_finish_line(canvas, ed: Editor, line, color) -> None:
    cam = ed.camera
    (ax, ay), (bx, by) = line
    length = math.hypot(bx - ax, by - ay)
    width = max(4, round(ed.camera.scale / 4))
    pygame.draw.line(canvas, color, cam.to_screen(line[0]), cam.to_screen(line[1]), width)
    dashes = max(1, int(length / 0.25))
    for k in range(1, dashes, 2):  # white squares on the black line: a chequered flag line
        p0 = (ax + (bx - ax) * k / dashes, ay + (by - ay) * k / dashes)
        p1 = (ax + (bx - ax) * (k + 1) / dashes, ay + (by - ay) * (k + 1) / dashes)
        pygame.draw.line(canvas, theme.PAPER, cam.to_screen(p0), cam.to_screen(p1), max(2, width - 2))


def _forward_arrow(canvas, ed: Editor, line) -> None:
    fwd = ed.doc.forward
    from game.tracks import parse_forward

    try:
        fx, fy = parse_forward(fwd)
    except ValueError:
        return
    n = math.hypot(fx, fy) or 1.0
    mid = ((line[0][0] + line[1][0]) / 2, (line[0][1] + line[1][1]) / 2)
    s = ed.camera.scale
    arrow(canvas, ed.camera.to_screen((mid[0] + fx / n * 0.4, mid[1] + fy / n * 0.4)),
          ed.camera.to_screen((mid[0] + fx / n * 2.2, mid[1] + fy / n * 2.2)), FORWARD, max(2, round(s / 8)),
          max(8.0, s * 0.45), spread=0.5)


def _badge(canvas, text: TextCache, label: str, at, color, size: int) -> None:
    pygame.draw.circle(canvas, theme.PAPER, at, size * 0.75)
    pygame.draw.circle(canvas, color, at, size * 0.75, 2)
    text.blit(canvas, label, size, color, at, "center", bold=True)


def _draw_rulers(canvas: pygame.Surface, ed: Editor) -> None:
    """Coordinates every five squares along the sheet's top and left edges (problems name x and y)."""
    s = ed.camera.scale
    step = 5 if s * 5 >= 26 else 10 if s * 10 >= 26 else 20
    shape = ed.doc.shape
    sheet = _sheet_rect(ed)
    text = ed.cache.text
    size = 14
    top = max(2, sheet.top - 16)
    left = max(2, sheet.left - 4)
    for x in range(0, shape.width, step):
        px = ed.screen_of((x, 0))[0]
        if 0 <= px < canvas.get_width():
            text.blit(canvas, str(x), size, theme.HUD_DIM, (px, top), "midtop")
    for y in range(0, shape.height, step):
        py = ed.screen_of((0, y))[1]
        if 0 <= py < canvas.get_height():
            text.blit(canvas, str(y), size, theme.HUD_DIM, (left, py), "midright")


def _current_problems(ed: Editor):
    return ed.checked.problems if ed.checked is not None else []


def _problem_keys(ed: Editor) -> set[str]:
    return {p.key for p in _current_problems(ed) if p.is_error and p.key}


def _draw_problem_marks(canvas: pygame.Surface, ed: Editor) -> None:
    """Red rings round the cells and nodes that problem messages name."""
    s = ed.camera.scale
    for p in _current_problems(ed):
        color = ERROR_RED if p.is_error else theme.WARN
        for match in list(CELL_REF.finditer(p.message)) + list(NODE_REF.finditer(p.message)):
            x, y = int(match.group(1)), int(match.group(2))
            cx, cy = ed.camera.to_screen((x, y))
            pygame.draw.circle(canvas, color, (cx, cy), max(7.0, s * 0.75), 3)


def _draw_hover(canvas: pygame.Surface, ed: Editor) -> None:
    if not ed.mouse_seen or not ed.in_canvas(ed.mouse) or ed.prompt is not None:
        return
    if isinstance(ed.doc.shape, MapShape):
        if ed.drag is not None and ed.drag.kind == "pan":
            return
        x, y = ed.cell_at(ed.mouse)
        lo = -(ed.brush_size // 2)
        a = ed.camera.to_screen((x + lo - 0.5, y + lo - 0.5))
        b = ed.camera.to_screen((x + lo + ed.brush_size - 0.5, y + lo + ed.brush_size - 0.5))
        rect = pygame.Rect(round(a[0]), round(a[1]), round(b[0] - a[0]), round(b[1] - a[1]))
        pygame.draw.rect(canvas, ACCENT, rect, 2)
        here = ed.doc.shape.at(x, y)
        name = f"  ·  {BRUSHES[here]}" if here in BRUSHES and here not in "XO" else ""
        ed.cache.text.blit(canvas, f"x={x}, y={y}{name}", 15, theme.INK, (rect.right + 6, rect.bottom + 2),
                           "topleft")
    else:
        wx, wy = ed.camera.to_world(ed.mouse)
        from .doc import snap

        px, py = snap((wx, wy), ed.snap_step)
        pygame.draw.circle(canvas, ACCENT, ed.camera.to_screen((px, py)), 3)
        ed.cache.text.blit(canvas, f"[{px:g}, {py:g}]", 15, theme.INK, (ed.mouse[0] + 12, ed.mouse[1] + 10))


# -- the preview -------------------------------------------------------------------------
def draw_preview(canvas: pygame.Surface, ed: Editor) -> None:
    """The track drawn by the race screen's own renderer, with the optimal line when known."""
    track = ed.track
    if track is None:
        draw_edit(canvas, ed)
        _banner(canvas, ed, "no preview: the track has errors (see the panel)" if ed.check_current
                else "checking the track ...", ERROR_RED if ed.check_current else theme.HUD_DIM)
        return
    cache = ed.cache
    if cache.board_track is not track:
        cache.board = Board(track, theme.pens(8), cache.text)
        cache.board_track = track
    cache.board.blit_layer(canvas, ed.camera)
    par = ed.par_current
    if isinstance(par, ParResult) and par.path:
        pts = [ed.camera.to_screen(p) for p in par.path]
        if len(pts) > 1:
            pygame.draw.lines(canvas, theme.MARGIN, False, pts, max(2, round(ed.camera.scale / 8)))
        for p in pts:
            pygame.draw.circle(canvas, theme.MARGIN, p, max(2.0, ed.camera.scale * 0.12))
    line = "preview: as players see it" + (f"  ·  optimal line, par {par.par}" if isinstance(par, ParResult)
                                           and par.par else "") + "  ·  Tab to edit"
    _banner(canvas, ed, line, theme.HUD_TEXT)


def _banner(canvas: pygame.Surface, ed: Editor, line: str, color) -> None:
    text = ed.cache.text
    surf = text.render(line, 18, color, bold=True)
    back = text.panel((surf.get_width() + 20, surf.get_height() + 10), theme.HUD_BG)
    canvas.blit(back, (10, 10))
    canvas.blit(surf, (20, 15))


# -- the side panel ------------------------------------------------------------------------
def _wrap(text: TextCache, line: str, size: int, width: int) -> list[str]:
    font = text.font(size)
    words, out, current = line.split(" "), [], ""
    for word in words:
        trial = f"{current} {word}".strip()
        if font.size(trial)[0] <= width or not current:
            current = trial
        else:
            out.append(current)
            current = word
    if current:
        out.append(current)
    return out


def shortcuts(ed: Editor) -> list[tuple[str, str]]:
    """The keyboard and mouse shortcuts shown on screen (those of the current mode first)."""
    if ed.doc.is_map:
        terrain = " ".join(TERRAIN_BRUSHES)
        mode = [("R X S F P", "road, off-road, start, finish, parc"),
                (terrain, ", ".join(TERRAIN_BRUSHES.values())), ("1 - 9", "checkpoint brush"),
                ("[  ]", "brush size"), ("left / right drag", "paint / erase"), ("Shift+click", "straight line"),
                ("arrows, Bksp", "forward / derive it")]
    else:
        mode = [("O  I  N", "outer ring, island, new island"), ("F  K", "finish, checkpoint (drag a line)"),
                ("S  L  + -", "start slots, start line, slots"), ("T  (T)  N", "terrain patch, next kind, new patch"),
                ("drag / right-click", "move / delete a point"),
                ("G", f"snap: {ed.snap_step:g} square"), ("arrows", "forward direction")]
    return mode + [("Ctrl+Z  Ctrl+Y", "undo, redo"), ("Ctrl+S  Ctrl+Shift+S", "save, save as"),
                   ("Ctrl+O  Ctrl+N  Ctrl+R", "open, new, resize"), ("F2 F3 F4 F5 F6", "id name laps cars rules"),
                   ("Tab", "preview (the game's look)"), ("wheel, mid-drag, Home", "zoom, pan, fit"),
                   ("Esc", "quit")]


def draw_panel(surface: pygame.Surface, ed: Editor, rect: pygame.Rect) -> None:
    text = ed.cache.text
    surface.fill(PANEL_BG, rect)
    pygame.draw.line(surface, theme.GRAPHITE_LIGHT, rect.topleft, rect.bottomleft, 2)
    x, width = rect.left + 16, rect.width - 32
    y = rect.top + 12
    doc = ed.doc
    shape = doc.shape
    title = f"{doc.name}" + ("  *" if ed.dirty else "")
    y = text.blit(surface, title, 24, theme.HUD_TEXT, (x, y), bold=True).bottom + 2
    where = f"{ed.path}#{doc.id}" if ed.path else f"{doc.id}  (not saved yet)"
    for line in _wrap(text, where, 15, width):
        y = text.blit(surface, line, 15, theme.HUD_DIM, (x, y)).bottom
    kind = f"char map {shape.width} x {shape.height}" if doc.is_map else f"outline on {shape.width} x {shape.height}"
    forward = doc.forward if doc.forward is None or isinstance(doc.forward, str) else \
        f"[{doc.forward[0]:g}, {doc.forward[1]:g}]"
    props = f"{kind}  ·  {doc.laps} lap{'s' if doc.laps != 1 else ''}  ·  {doc.rules}  ·  " \
            f"{doc.cars or 8} cars  ·  forward {forward or 'derived'}"
    for line in _wrap(text, props, 16, width):
        y = text.blit(surface, line, 16, theme.HUD_TEXT, (x, y + 2)).bottom
    y += 10
    # tool
    if doc.is_map:
        swatch = LETTER_COLORS.get(ed.brush, UNKNOWN)
        pygame.draw.rect(surface, swatch, (x, y + 2, 18, 18))
        pygame.draw.rect(surface, theme.INK, (x, y + 2, 18, 18), 1)
        tool = f"brush: {BRUSHES[ed.brush]} ({ed.brush})  ·  {ed.brush_size} x {ed.brush_size}"
    else:
        tool = f"tool: {ed.outline_tool.replace('_', ' ')}"
        if ed.outline_tool == "terrain":
            tool += f" {ed.current_patch + 1}: {ed.terrain_kind}" + \
                (" (new)" if ed.current_patch >= len(shape.terrain) else "")
        if ed.outline_tool == "island":
            tool += f" {ed.current_island}" + (" (new)" if ed.current_island > len(shape.islands) else "")
        pygame.draw.circle(surface, ACCENT, (x + 9, y + 11), 8)
    y = text.blit(surface, tool, 18, theme.HUD_TEXT, (x + 26, y + 2), bold=True).bottom + 2
    for line in _wrap(text, TOOL_HINTS["map" if doc.is_map else ed.outline_tool], 15, width):
        y = text.blit(surface, line, 15, theme.HUD_DIM, (x, y)).bottom
    y += 6
    if doc.is_map:
        ed.cache.palette = palette_rects(rect, y)
        for letter, box in ed.cache.palette.items():
            fill = LETTER_COLORS.get(letter, UNKNOWN)
            pygame.draw.rect(surface, fill, box)
            if letter in TERRAIN_BRUSHES:
                tile = ed.cache.swatches.get(letter)
                if tile is None:
                    tile = ed.cache.swatches[letter] = terrain_swatch(TERRAIN_BRUSHES[letter], box.size, level=14.0)
                surface.blit(tile, box)
                text.blit(surface, letter, 13, look(TERRAIN_BRUSHES[letter]).ink, (box.right - 5, box.bottom - 6),
                          "center", bold=True)
            elif letter == "F":
                half = box.width // 2
                surface.fill(theme.INK, (box.left, box.top, half, half))
                surface.fill(theme.INK, (box.left + half, box.top + half, box.width - half, box.height - half))
            else:
                text.blit(surface, letter, 15, theme.CHECKPOINT if letter.isdigit() else theme.INK, box.center,
                          "center", bold=True)
            pygame.draw.rect(surface, ACCENT if letter == ed.brush else theme.GRAPHITE_LIGHT, box,
                             3 if letter == ed.brush else 1)
        y = max(box.bottom for box in ed.cache.palette.values()) + 10
    else:  # outlines: the terrain kinds a patch may have (a click picks the kind and the tool)
        ed.cache.palette = {kind: pygame.Rect(x + i * (PALETTE_SIZE + 3), y, PALETTE_SIZE, PALETTE_SIZE)
                            for i, kind in enumerate(TERRAIN_KINDS)}
        for kind, box in ed.cache.palette.items():
            tile = ed.cache.swatches.get(kind)
            if tile is None:
                tile = ed.cache.swatches[kind] = terrain_swatch(kind, box.size, level=14.0)
            surface.blit(tile, box)
            chosen = ed.outline_tool == "terrain" and kind == ed.terrain_kind
            pygame.draw.rect(surface, ACCENT if chosen else theme.GRAPHITE_LIGHT, box, 3 if chosen else 1)
        text.blit(surface, "terrain patches (T)", 15, theme.HUD_DIM, (x + len(TERRAIN_KINDS) * (PALETTE_SIZE + 3) + 6,
                                                                     y + PALETTE_SIZE // 2), "midleft")
        y += PALETTE_SIZE + 10
    y += 4
    # par
    y = _draw_par(surface, ed, x, y, width) + 10
    # problems
    y = _draw_problems(surface, ed, x, y, width, rect.bottom - 330)
    # prompt or status, then shortcuts at the bottom
    keys = shortcuts(ed)
    keys_top = rect.bottom - 12 - len(keys) * 19
    if ed.prompt is not None:
        box = pygame.Rect(x - 6, keys_top - 74, width + 12, 62)
        pygame.draw.rect(surface, (255, 255, 255), box)
        pygame.draw.rect(surface, ACCENT, box, 2)
        text.blit(surface, ed.prompt.label, 15, theme.HUD_DIM, (x, box.top + 6))
        entry = ed.prompt.text + "_"
        text.blit(surface, entry[-44:], 20, theme.INK, (x, box.top + 28), bold=True)
    elif ed.status:
        lines = _wrap(text, ed.status, 16, width)[:3]
        sy = keys_top - 14 - 19 * len(lines)
        for line in lines:
            sy = text.blit(surface, line, 16, ACCENT, (x, sy)).bottom + 1
    pygame.draw.line(surface, theme.GRID_MAJOR, (x, keys_top - 6), (x + width, keys_top - 6))
    for k, (combo, action) in enumerate(keys):
        ky = keys_top + k * 19
        text.blit(surface, combo, 15, theme.INK, (x, ky), bold=True)
        text.blit(surface, action, 15, theme.HUD_DIM, (x + 168, ky))


PALETTE_SIZE = 22
PALETTE_TOP = 88  # below the title, the file and the properties


#: The palette's rows: the track's own letters and the terrain, then the checkpoints.
PALETTE_ROWS = ("OXSFP" + "".join(TERRAIN_BRUSHES), "123456789")


def palette_rects(panel: pygame.Rect, top: int = PALETTE_TOP) -> dict[str, pygame.Rect]:
    """Where each brush's swatch sits in the side panel (clicking one picks the brush)."""
    x = panel.left + 16
    return {letter: pygame.Rect(x + i * (PALETTE_SIZE + 3) + (6 if row == 0 and i >= 5 else 0),
                                top + row * (PALETTE_SIZE + 4), PALETTE_SIZE, PALETTE_SIZE)
            for row, letters in enumerate(PALETTE_ROWS) for i, letter in enumerate(letters)}


def _draw_par(surface, ed: Editor, x: int, y: int, width: int) -> int:
    text = ed.cache.text
    par = ed.par_current
    if not ed.check_current:
        line, color = "par: waiting for the check ...", theme.HUD_DIM
    elif ed.track is None:
        line, color = "par: fix the errors first", theme.HUD_DIM
    elif par is None:
        line, color = "par: solving ...", theme.HUD_DIM
    elif isinstance(par, JobFailed):
        line, color = f"par: the solver failed: {par.message}", ERROR_RED
    elif par.par is None:
        line, color = f"par: no way to the finish ({par.reason})", ERROR_RED
    else:
        laps = f"{par.laps} lap{'s' if par.laps != 1 else ''}"
        line = f"par {par.par} moves  ({laps}, {par.rules} rules{'' if par.exact else ', approximate'})"
        color = OK_GREEN
    for part in _wrap(text, line, 20, width):
        y = text.blit(surface, part, 20, color, (x, y), bold=True).bottom
    return y


def _draw_problems(surface, ed: Editor, x: int, y: int, width: int, bottom: int) -> int:
    text = ed.cache.text
    problems = _current_problems(ed)
    errors = [p for p in problems if p.is_error]
    warnings = [p for p in problems if not p.is_error]
    stale = not ed.check_current
    if ed.checked is None:
        head, color = "checking ...", theme.HUD_DIM
    elif errors:
        head = f"{len(errors)} error{'s' if len(errors) != 1 else ''}" + \
               (f", {len(warnings)} warning{'s' if len(warnings) != 1 else ''}" if warnings else "")
        color = ERROR_RED
    elif warnings:
        head, color = f"ready to race, {len(warnings)} warning{'s' if len(warnings) != 1 else ''}", theme.WARN
    else:
        head, color = "no problems: ready to race", OK_GREEN
    if stale and ed.checked is not None:
        head += "  (checking ...)"
    y = text.blit(surface, head, 20, color, (x, y), bold=True).bottom + 4
    shown = [(p.is_error, (f"{p.key}: " if p.key else "") + p.message) for p in errors + warnings]
    shown += [(False, f"note: {n}") for n in ed.notes]
    for is_error, message in shown:
        lines = _wrap(text, message, 15, width - 16)
        if y + 17 * len(lines) > bottom:
            text.blit(surface, f"... and more ({len(shown)} in all)", 15, theme.HUD_DIM, (x, y))
            y += 17
            break
        pygame.draw.circle(surface, ERROR_RED if is_error else theme.WARN, (x + 5, y + 8), 4)
        for line in lines:
            y = text.blit(surface, line, 15, theme.HUD_TEXT if not stale else theme.HUD_DIM, (x + 16, y)).bottom
        y += 3
    return y
