"""The editor window: input turned into document edits, background checks, the frame loop.

:class:`Editor` holds the document, its history and the editing tools; ``handle(event)``
turns pygame events into edits, ``update(dt)`` collects validation and par from the
workers, and :mod:`.view` draws it all (drawing only reads). ``step(dt)`` does one
frame; ``run()`` loops until the window closes. Tests drive an Editor with posted
events and ``step``.
"""

from __future__ import annotations

import math
import traceback
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import pygame

from game.core.rules import PRESET_NAMES
from game.presentation.camera import Camera
from game.core.limits import MAX_LAPS, MIN_LAPS

from . import view
from .doc import (BRUSHES, TERRAIN_KINDS, DocError, MapShape, OutlineShape, TrackDoc, bresenham, brush_cells,
                  distance_to_segment, insert_point, new_map, new_outline, snap, valid_id)
from .history import History
from .jobs import CheckRequest, Checked, JobFailed, LatestWorker, ParRequest, ParResult, check, solve_in_process, \
    solve_in_thread
from .packio import SaveError, default_head, open_track, pack_text, save_track

PANEL_WIDTH = 400
#: Seconds without edits before par is asked for (a brush stroke is many edits).
PAR_DELAY = 0.4
HIT_PIXELS = 10
MIN_ZOOM, MAX_ZOOM = 3.0, 80.0
BRUSH_SIZES = (1, 2, 3, 5, 7)
SNAP_STEPS = (0.5, 1.0, 0.25)
OUTLINE_TOOLS = {"outer": "outer ring", "island": "island", "finish": "finish line", "checkpoint": "checkpoint line",
                 "start": "start slots", "start_line": "start line", "terrain": "terrain patch"}
ARROWS = {pygame.K_UP: "up", pygame.K_DOWN: "down", pygame.K_LEFT: "left", pygame.K_RIGHT: "right"}


@dataclass
class Prompt:
    """A one-line question in the side panel; ``done(text)`` gets the answer on Enter."""

    label: str
    text: str
    done: Callable[[str], None]


@dataclass
class Drag:
    """A mouse drag in progress: painting, moving a handle, or panning."""

    kind: str  # "paint", "handle", "pan"
    base: TrackDoc | None = None  # the document before the drag (one undo step per drag)
    letter: str = "O"
    last_cell: tuple[int, int] | None = None
    handle: tuple | None = None
    last_pixel: tuple[int, int] = (0, 0)


class Editor:
    """The track editor: one document, its history, tools, checks and par."""

    def __init__(self, size: tuple[int, int], doc: TrackDoc, path: Path | None = None,
                 head: dict[str, str] | None = None, *, builtin_dir: Path | None = None,
                 notes: list[str] | None = None, par_in_process: bool = True) -> None:
        self.size = size
        self.builtin_dir = builtin_dir or Path("tracks")
        self.checker = LatestWorker(check, "editor-check")
        self.solver = LatestWorker(solve_in_process if par_in_process else solve_in_thread, "editor-par")
        self.camera = Camera(size=self.canvas_size, drift_amount=0.0)
        self.cache = view.ViewCache()
        self.last_paint_cell: tuple[int, int] | None = None
        self.brush = "O"
        self.brush_size = 1
        self.outline_tool = "outer"
        self.terrain_kind = TERRAIN_KINDS[0]  # the kind of the next terrain patch (outlines)
        self.snap_step = SNAP_STEPS[0]
        self.preview = False
        self.running = True
        self.prompt: Prompt | None = None
        self.drag: Drag | None = None
        self.mouse: tuple[int, int] = (0, 0)
        self.mouse_seen = False  # no hover marks before the mouse has been over the window
        self.space_held = False
        self.status = ""
        self.quit_armed = False
        self._load(doc, path, head, notes or [])

    # -- the document ------------------------------------------------------------------
    def _load(self, doc: TrackDoc, path: Path | None, head: dict[str, str] | None, notes: list[str]) -> None:
        self.doc = doc
        self.path = path
        self.head = head or default_head(path or Path("my-pack.toml"))
        self.origin_id = doc.id
        self.saved_doc: TrackDoc | None = doc  # unchanged since opened (or blank): nothing to lose yet
        self.notes = list(notes)
        self.history: History[TrackDoc] = History()
        self.checked: Checked | None = None
        self.par: ParResult | JobFailed | None = None
        self.par_key: tuple | None = None  # the par_key() of the document ``par`` is for
        self.par_asked: tuple | None = None
        self.current_island = len(doc.shape.islands) + 1 if isinstance(doc.shape, OutlineShape) else 1
        self.current_patch = len(doc.shape.terrain) if isinstance(doc.shape, OutlineShape) else 0
        self.fit()
        self._changed()

    @property
    def dirty(self) -> bool:
        return self.doc != self.saved_doc

    def edit(self, new: TrackDoc, record: bool = True) -> None:
        """Make ``new`` the document; ``record`` keeps the old one for undo."""
        if new == self.doc:
            return
        if record:
            self.history.record(self.doc)
        self.doc = new
        self.quit_armed = False
        self._changed()

    def _changed(self) -> None:
        self._check_due = True
        if self.doc.par_key() != self.par_asked:
            self.par_wait = PAR_DELAY
            self.solver.cancel()
            self.par_asked = None

    def undo(self) -> None:
        self._end_drag()
        doc = self.history.undo(self.doc)
        if doc is None:
            self.say("nothing to undo")
            return
        self.doc = doc
        self._changed()
        self.say(f"undone ({len(self.history)} more to undo)")

    def redo(self) -> None:
        self._end_drag()
        doc = self.history.redo(self.doc)
        if doc is None:
            self.say("nothing to redo")
            return
        self.doc = doc
        self._changed()
        self.say("redone")

    def say(self, message: str) -> None:
        self.status = message

    # -- checks and par ----------------------------------------------------------------
    @property
    def check_current(self) -> bool:
        """True when the shown problems are those of the document as it is now."""
        return self.checked is not None and self.checked.doc is self.doc and not self._check_due

    @property
    def track(self):
        """The game's track for the current document (None while it has errors or is unchecked)."""
        return self.checked.track if self.check_current else None

    @property
    def par_current(self) -> ParResult | JobFailed | None:
        return self.par if self.par_key == self.doc.par_key() else None

    def update(self, dt: float) -> None:
        """Ask for checks and par when due and collect what the workers finished."""
        if self._check_due and (self.drag is None or self.drag.kind != "paint" or self._paint_check_due()):
            self._check_due = False
            self.checker.submit(CheckRequest(self.doc, pack_text(self.doc, self.head), self.doc.id,
                                             str(self.path or "new pack")))
        checked = self.checker.poll()
        if isinstance(checked, JobFailed):
            self.say(f"validation failed: {checked.message}")
        elif checked is not None:
            self.checked = checked
        self.par_wait = max(0.0, self.par_wait - dt)
        track = self.track
        key = self.doc.par_key()
        if track is not None and self.par_key != key and self.par_asked != key and self.par_wait <= 0 \
                and self.drag is None:
            self.par_asked = key
            self.solver.submit(ParRequest(pack_text(self.doc, self.head), self.doc.id, track.default_rules,
                                          track.default_laps))
        result = self.solver.poll()
        if result is not None and self.par_asked == key:
            self.par, self.par_key = result, key

    def _paint_check_due(self) -> bool:
        return False  # while a brush stroke goes on, check once it ends (mouse up)

    @property
    def par_busy(self) -> bool:
        return self.track is not None and self.par_current is None

    # -- geometry ------------------------------------------------------------------------
    @property
    def canvas_size(self) -> tuple[int, int]:
        return (max(100, self.size[0] - PANEL_WIDTH), self.size[1])

    def fit(self) -> None:
        """Zoom and centre so the whole sheet fits the canvas."""
        shape = self.doc.shape
        w, h = self.canvas_size
        scale = min((w - 60) / (shape.width + 1), (h - 60) / (shape.height + 1))
        self.camera.size = (w, h)
        self.camera.scale = self.camera.target_scale = max(MIN_ZOOM, min(MAX_ZOOM, math.floor(scale * 4) / 4))
        self.camera.center = self.camera.target_center = ((shape.width - 1) / 2, (shape.height - 1) / 2)

    def zoom(self, factor: float, pixel: tuple[int, int]) -> None:
        """Zoom by ``factor`` keeping the world point under ``pixel`` in place."""
        before = self.camera.to_world(pixel)
        scale = max(MIN_ZOOM, min(MAX_ZOOM, self.camera.scale * factor))
        self.camera.scale = self.camera.target_scale = scale
        after = self.camera.to_world(pixel)
        cx, cy = self.camera.center
        self.camera.center = self.camera.target_center = (cx + before[0] - after[0], cy + before[1] - after[1])

    def cell_at(self, pixel: tuple[int, int]) -> tuple[int, int]:
        wx, wy = self.camera.to_world(pixel)
        return (math.floor(wx + 0.5), math.floor(wy + 0.5))

    def screen_of(self, point: tuple[float, float]) -> tuple[int, int]:
        """The window pixel of a world point (cell centres are whole numbers)."""
        x, y = self.camera.to_screen(point)
        return (round(x), round(y))

    def in_canvas(self, pixel: tuple[int, int]) -> bool:
        return 0 <= pixel[0] < self.canvas_size[0] and 0 <= pixel[1] < self.canvas_size[1]

    # -- events ----------------------------------------------------------------------------
    def handle(self, event: pygame.event.Event) -> None:
        """Turn one pygame event into an edit, a tool change or a view change."""
        if event.type == pygame.QUIT:
            self.request_quit()
        elif event.type == pygame.VIDEORESIZE:
            self.resize((event.w, event.h))
        elif event.type == pygame.KEYDOWN:
            if self.prompt is not None:
                self._prompt_key(event)
            else:
                self._key(event)
        elif event.type == pygame.KEYUP and event.key == pygame.K_SPACE:
            self.space_held = False
        elif event.type == pygame.MOUSEBUTTONDOWN:
            self.mouse = event.pos
            self._mouse_down(event.pos, event.button)
        elif event.type == pygame.MOUSEMOTION:
            self.mouse, self.mouse_seen = event.pos, True
            self._mouse_move(event.pos)
        elif event.type == pygame.MOUSEBUTTONUP:
            self.mouse = event.pos
            if self.drag is not None and (event.button in (1, 3) or self.drag.kind == "pan"):
                self._end_drag()
        elif event.type == pygame.MOUSEWHEEL:
            if self.in_canvas(self.mouse):
                self.zoom(1.15 ** event.y, self.mouse)

    def resize(self, size: tuple[int, int]) -> None:
        self.size = (max(640, size[0]), max(400, size[1]))
        self.camera.size = self.canvas_size

    def request_quit(self) -> None:
        if self.dirty and not self.quit_armed:
            self.quit_armed = True
            self.say("unsaved changes: Ctrl+S saves; press Esc (or close) again to quit without saving")
            return
        self.running = False

    def _key(self, event) -> None:
        key, mod = event.key, event.mod
        ctrl = bool(mod & pygame.KMOD_CTRL)
        shift = bool(mod & pygame.KMOD_SHIFT)
        if ctrl:
            if key == pygame.K_z and shift or key == pygame.K_y:
                self.redo()
            elif key == pygame.K_z:
                self.undo()
            elif key == pygame.K_s:
                self.save_as_prompt() if shift or self.path is None else self.save()
            elif key == pygame.K_o:
                self.ask("open (pack.toml#track or PACK/TRACK)", "", self.open)
            elif key == pygame.K_n:
                self.ask("new: W H for a map, or: outline W H", "40 24", self.new)
            elif key == pygame.K_r:
                shape = self.doc.shape
                self.ask("resize the sheet: W H", f"{shape.width} {shape.height}", self.resize_sheet)
            elif key == pygame.K_q:
                self.request_quit()
            return
        if key == pygame.K_ESCAPE:
            if self.drag is not None:
                self._cancel_drag()
            else:
                self.request_quit()
        elif key == pygame.K_TAB:
            self.preview = not self.preview
            self.say("preview: what players will see" if self.preview else "editing")
        elif key == pygame.K_HOME:
            self.fit()
        elif key == pygame.K_SPACE:
            self.space_held = True
        elif key in ARROWS:
            self.edit(replace(self.doc, forward=ARROWS[key]))
            self.say(f"forward: {ARROWS[key]}")
        elif key == pygame.K_BACKSPACE and self.doc.is_map:
            self.edit(replace(self.doc, forward=None))
            self.say("forward: derived from the map")
        elif key == pygame.K_F2:
            self.ask("track id (letters, digits, - _ .)", self.doc.id, self.set_id)
        elif key == pygame.K_F3:
            self.ask("track name", self.doc.name, lambda t: self.edit(replace(self.doc, name=t.strip() or self.doc.name)))
        elif key == pygame.K_F4:
            self.ask(f"laps ({MIN_LAPS}-{MAX_LAPS})", str(self.doc.laps),
                     lambda t: self._set_number("laps", t, MIN_LAPS, MAX_LAPS))
        elif key == pygame.K_F5:
            self.ask("cars the start must hold (1-64)", str(self.doc.cars or 8),
                     lambda t: self._set_number("cars", t, 1, 64))
        elif key == pygame.K_F6:
            rules = PRESET_NAMES[(PRESET_NAMES.index(self.doc.rules) + 1) % len(PRESET_NAMES)] \
                if self.doc.rules in PRESET_NAMES else PRESET_NAMES[0]
            self.edit(replace(self.doc, rules=rules))
            self.say(f"rules: {rules}")
        elif self.doc.is_map:
            self._map_key(key, event.unicode)
        else:
            self._outline_key(key, event.unicode)

    def _map_key(self, key: int, char: str) -> None:
        letter = {"r": "O", "o": "O", "e": "X"}.get(char.lower(), char.upper()) if char else ""
        if letter in BRUSHES:
            self.brush = letter
            self.say(f"brush: {BRUSHES[letter]}")
        elif char in ("[", "]"):
            i = BRUSH_SIZES.index(self.brush_size) if self.brush_size in BRUSH_SIZES else 0
            i = max(0, min(len(BRUSH_SIZES) - 1, i + (1 if char == "]" else -1)))
            self.brush_size = BRUSH_SIZES[i]
            self.say(f"brush size {self.brush_size} x {self.brush_size}")

    def _outline_key(self, key: int, char: str) -> None:
        tools = {"o": "outer", "i": "island", "f": "finish", "k": "checkpoint", "s": "start", "l": "start_line"}
        shape = self.doc.shape
        assert isinstance(shape, OutlineShape)
        c = char.lower() if char else ""
        if c in tools:
            self.outline_tool = tools[c]
            self.say(f"tool: {OUTLINE_TOOLS[self.outline_tool]}")
        elif c == "t":
            if self.outline_tool == "terrain":  # again: the next kind
                self.pick_terrain(TERRAIN_KINDS[(TERRAIN_KINDS.index(self.terrain_kind) + 1) % len(TERRAIN_KINDS)])
            else:
                self.pick_terrain(self.terrain_kind)
        elif c == "n" and self.outline_tool == "terrain":
            self.current_patch = len(shape.terrain)
            self.say(f"next click starts a new {self.terrain_kind} patch")
        elif c == "n":
            self.outline_tool = "island"
            self.current_island = len(shape.islands) + 1
            self.say("next click starts a new island")
        elif c == "g":
            self.snap_step = SNAP_STEPS[(SNAP_STEPS.index(self.snap_step) + 1) % len(SNAP_STEPS)]
            self.say(f"points snap to {self.snap_step:g} squares")
        elif c in ("+", "=", "-"):
            slots = max(1, min(64, shape.slots + (-1 if c == "-" else 1)))
            self.edit(replace(self.doc, shape=replace(shape, slots=slots)))
            self.say(f"start line slots: {slots}")
        elif key == pygame.K_DELETE:
            self._delete_at(self.mouse)

    def pick_terrain(self, kind: str) -> None:
        """The terrain tool with ``kind``: clicks add points to the current patch (a patch
        being drawn takes the new kind at once; ``N`` starts another)."""
        self.outline_tool = "terrain"
        self.terrain_kind = kind
        shape = self.doc.shape
        if isinstance(shape, OutlineShape) and self.current_patch < len(shape.terrain) \
                and shape.terrain[self.current_patch][0] != kind:
            self.edit(replace(self.doc, shape=shape.with_patch(self.current_patch, kind,
                                                               shape.terrain[self.current_patch][1])))
        self.say(f"tool: terrain patch, {kind} (T: next kind, N: new patch)")

    # -- prompts ---------------------------------------------------------------------------
    def ask(self, label: str, text: str, done: Callable[[str], None]) -> None:
        self._end_drag()
        self.prompt = Prompt(label, text, done)

    def _prompt_key(self, event) -> None:
        prompt = self.prompt
        assert prompt is not None
        if event.key == pygame.K_ESCAPE:
            self.prompt = None
            self.say("cancelled")
        elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            self.prompt = None
            prompt.done(prompt.text)
        elif event.key == pygame.K_BACKSPACE:
            prompt.text = prompt.text[:-1]
        elif event.unicode and event.unicode.isprintable():
            prompt.text += event.unicode

    def set_id(self, text: str) -> None:
        text = text.strip()
        if not valid_id(text):
            self.say(f"{text!r} is not a track id: use letters, digits, '-', '_' and '.'")
            return
        self.edit(replace(self.doc, id=text))

    def _set_number(self, key: str, text: str, low: int, high: int) -> None:
        try:
            value = int(text.strip())
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            self.say(f"{key} must be a whole number from {low} to {high}, not {text!r}")
            return
        self.edit(replace(self.doc, **{key: value}))
        self.say(f"{key}: {value}")

    # -- files -------------------------------------------------------------------------------
    def open(self, ref: str) -> None:
        """Open a pack's track; a broken pack opens with its problems listed."""
        ref = ref.strip()
        if not ref:
            return
        opened = open_track(ref, self.builtin_dir)
        if opened.doc is None:
            self.notes = opened.notes
            self.say(f"cannot open {ref}: see the notes")
            return
        self._load(opened.doc, opened.path, opened.pack_head, opened.notes)
        self.say(f"opened {ref}" + (f" with {len(opened.notes)} note(s)" if opened.notes else ""))

    def new(self, text: str) -> None:
        parts = text.lower().split()
        outline = bool(parts) and parts[0] == "outline"
        try:
            w, h = (int(v) for v in parts[1 if outline else 0:][:2])
            doc = (new_outline if outline else new_map)(w, h)
        except (ValueError, DocError) as exc:
            self.say(f"new track: {exc if isinstance(exc, DocError) else 'give the size as W H'}")
            return
        self._load(doc, None, self.head, [])
        self.say(f"new {'outline' if outline else 'map'} track, {w} x {h}")

    def resize_sheet(self, text: str) -> None:
        try:
            w, h = (int(v) for v in text.split()[:2])
            shape = self.doc.shape
            new_shape = shape.resized(w, h) if isinstance(shape, MapShape) else replace(shape, paper=(w, h))
            if isinstance(shape, OutlineShape):
                from .doc import check_size
                check_size(w, h)
        except (ValueError, DocError) as exc:
            self.say(f"resize: {exc if isinstance(exc, DocError) else 'give the size as W H'}")
            return
        self.edit(replace(self.doc, shape=new_shape))
        self.fit()

    def save_as_prompt(self) -> None:
        default = f"{self.path or 'my-pack.toml'}#{self.doc.id}"
        self.ask("save as (pack.toml#track)", default, self.save_as)

    def save_as(self, ref: str) -> None:
        file, _, track_id = ref.strip().rpartition("#") if "#" in ref else (ref.strip(), "", "")
        if not file.endswith(".toml"):
            self.say("save as: give a .toml file, e.g. my-pack.toml#my-track")
            return
        if track_id and track_id != self.doc.id:
            if not valid_id(track_id):
                self.say(f"{track_id!r} is not a track id")
                return
            self.edit(replace(self.doc, id=track_id))
        path = Path(file)
        if path != self.path:
            self.origin_id = self.doc.id
            self.head = default_head(path) if not path.exists() else self.head
        self.path = path
        self.save(chosen=True)

    def save(self, chosen: bool = False) -> None:
        """Write the track into its pack; the par is written when it is known for this shape.

        A built-in pack is only written when its file was chosen with save as (``chosen``).
        """
        if self.path is None:
            self.save_as_prompt()
            return
        if not chosen and self.path.resolve().parent == self.builtin_dir.resolve():
            self.save_as_prompt()
            self.say("this is a built-in pack: save your copy as another file (or type this one to overwrite it)")
            return
        par_result = self.par_current
        par = par_result.par if isinstance(par_result, ParResult) else None
        try:
            done = save_track(self.doc, self.path, par, replace_id=self.origin_id)
        except SaveError as exc:
            self.say(str(exc))
            return
        self.saved_doc = self.doc
        self.origin_id = self.doc.id
        self.quit_armed = False
        errors = len(self.checked.errors) if self.check_current and self.checked else 0
        extra = f" with par {par}" if par is not None else " (par not known yet, not written)"
        if errors:
            extra = f"; it has {errors} error(s): the game will not load it until they are fixed"
        self.say(done + extra)

    # -- mouse ---------------------------------------------------------------------------------
    def _mouse_down(self, pos: tuple[int, int], button: int) -> None:
        if self.prompt is not None:
            return
        if not self.in_canvas(pos):
            for letter, box in self.cache.palette.items():
                if self.doc.is_map and button == 1 and box.collidepoint(pos):
                    self.brush = letter
                    self.say(f"brush: {BRUSHES[letter]}")
                elif not self.doc.is_map and button == 1 and box.collidepoint(pos) and letter in TERRAIN_KINDS:
                    self.pick_terrain(letter)
            return
        if button == 2 or (button == 1 and self.space_held):
            self.drag = Drag("pan", last_pixel=pos)
            return
        if button not in (1, 3) or self.preview:
            if self.preview and button in (1, 3):
                self.say("preview: press Tab to edit")
            return
        if self.doc.is_map:
            letter = self.brush if button == 1 else "X"
            cell = self.cell_at(pos)
            start = self.last_paint_cell if pygame.key.get_mods() & pygame.KMOD_SHIFT else None
            self.drag = Drag("paint", base=self.doc, letter=letter, last_cell=cell)
            self._paint(bresenham(start, cell) if start is not None else [cell])
            self.last_paint_cell = cell
        elif button == 3:
            self._delete_at(pos)
        else:
            self._outline_press(pos)

    def _mouse_move(self, pos: tuple[int, int]) -> None:
        drag = self.drag
        if drag is None:
            return
        if drag.kind == "pan":
            dx, dy = pos[0] - drag.last_pixel[0], pos[1] - drag.last_pixel[1]
            cx, cy = self.camera.center
            self.camera.center = self.camera.target_center = (cx - dx / self.camera.scale, cy - dy / self.camera.scale)
            drag.last_pixel = pos
        elif drag.kind == "paint":
            cell = self.cell_at(pos)
            if cell != drag.last_cell:
                self._paint(bresenham(drag.last_cell or cell, cell))
                drag.last_cell = self.last_paint_cell = cell
        elif drag.kind == "handle" and drag.handle is not None:
            self._move_handle(drag.handle, self.camera.to_world(pos))

    def _end_drag(self) -> None:
        drag, self.drag = self.drag, None
        if drag is None or drag.base is None:
            return
        if isinstance(self.doc.shape, OutlineShape):
            self.doc = replace(self.doc, shape=_drop_empty_lines(self.doc.shape))
        if self.doc != drag.base:
            self.history.record(drag.base)
            self._changed()
        else:
            self.doc = drag.base

    def _cancel_drag(self) -> None:
        drag, self.drag = self.drag, None
        if drag is not None and drag.base is not None and self.doc != drag.base:
            self.doc = drag.base
            self._changed()

    def _paint(self, line: list[tuple[int, int]]) -> None:
        shape = self.doc.shape
        assert isinstance(shape, MapShape) and self.drag is not None
        cells = {c for center in line for c in brush_cells(center, self.brush_size)}
        new = shape.paint(cells, self.drag.letter)
        if new is not shape:
            self.doc = replace(self.doc, shape=new)  # recorded for undo when the stroke ends
            self._changed()

    # -- outline handles ---------------------------------------------------------------------------
    def handles(self) -> list[tuple[tuple, tuple[float, float]]]:
        """Every draggable point: (reference, world point); later ones are on top."""
        shape = self.doc.shape
        assert isinstance(shape, OutlineShape)
        found: list[tuple[tuple, tuple[float, float]]] = []
        for r, ring in enumerate(shape.rings()):
            found += [(("ring", r, i), p) for i, p in enumerate(ring)]
        for k, (_, ring) in enumerate(shape.terrain):
            found += [(("patch", k, i), p) for i, p in enumerate(ring)]
        for k, line in enumerate(shape.checkpoints):
            found += [(("checkpoint", k, e), line[e]) for e in (0, 1)]
        if shape.start_line is not None:
            found += [(("start_line", e), shape.start_line[e]) for e in (0, 1)]
        if shape.finish is not None:
            found += [(("finish", e), shape.finish[e]) for e in (0, 1)]
        found += [(("start", k), (float(x), float(y))) for k, (x, y) in enumerate(shape.start)]
        return found

    def handle_at(self, pos: tuple[int, int]) -> tuple | None:
        """The handle under a window pixel (the nearest within a few pixels), or None."""
        best, best_d = None, HIT_PIXELS + 0.5
        for ref, point in reversed(self.handles()):
            sx, sy = self.camera.to_screen(point)
            d = math.hypot(sx - pos[0], sy - pos[1])
            if d < best_d:
                best, best_d = ref, d
        return best

    def _outline_press(self, pos: tuple[int, int]) -> None:
        shape = self.doc.shape
        assert isinstance(shape, OutlineShape)
        base = self.doc
        hit = self.handle_at(pos)
        world = self.camera.to_world(pos)
        point = snap(world, self.snap_step)
        tool = self.outline_tool
        if hit is not None and not (tool == "start" and hit[0] == "start"):
            if hit[0] == "ring" and hit[1] > 0:
                self.current_island = hit[1]
            if hit[0] == "patch":
                self.current_patch = hit[1]
            self.drag = Drag("handle", base=base, handle=hit)
            return
        if tool == "terrain":
            index = min(self.current_patch, len(shape.terrain))
            self.current_patch = index
            kind, ring = shape.terrain[index] if index < len(shape.terrain) else (self.terrain_kind, ())
            new_ring = insert_point(ring, point)
            at = next(i for i, p in enumerate(new_ring) if i >= len(ring) or p != ring[i])
            new_shape = shape.with_patch(index, kind, new_ring)
            handle = ("patch", index, at)
        elif tool in ("outer", "island"):
            index = 0 if tool == "outer" else min(self.current_island, len(shape.islands) + 1)
            self.current_island = index if tool == "island" else self.current_island
            ring = shape.rings()[index] if index < len(shape.rings()) else ()
            new_ring = insert_point(ring, point)
            at = next(i for i, p in enumerate(new_ring) if i >= len(ring) or p != ring[i])
            new_shape = shape.with_ring(index, new_ring)
            handle = ("ring", index, at)
        elif tool == "finish":
            new_shape, handle = replace(shape, finish=(point, point)), ("finish", 1)
        elif tool == "checkpoint":
            new_shape = replace(shape, checkpoints=shape.checkpoints + ((point, point),))
            handle = ("checkpoint", len(shape.checkpoints), 1)
        elif tool == "start_line":
            new_shape, handle = replace(shape, start_line=(point, point), start=()), ("start_line", 1)
        else:  # start slots: a click toggles the node
            node = (math.floor(world[0] + 0.5), math.floor(world[1] + 0.5))
            start = tuple(s for s in shape.start if s != node) if node in shape.start else shape.start + (node,)
            self.edit(replace(self.doc, shape=replace(shape, start=start, start_line=None)))
            self.say(f"start slots: {len(start)}")
            return
        self.doc = replace(self.doc, shape=new_shape)
        self._changed()
        self.drag = Drag("handle", base=base, handle=handle)

    def _move_handle(self, handle: tuple, world: tuple[float, float]) -> None:
        shape = self.doc.shape
        assert isinstance(shape, OutlineShape)
        point = snap(world, self.snap_step)
        kind = handle[0]
        if kind == "ring":
            _, r, i = handle
            ring = list(shape.rings()[r])
            ring[i] = point
            new = shape.with_ring(r, tuple(ring))
        elif kind == "patch":
            _, k, i = handle
            patch_kind, ring = shape.terrain[k]
            points = list(ring)
            points[i] = point
            new = shape.with_patch(k, patch_kind, tuple(points))
        elif kind == "finish" and shape.finish is not None:
            new = replace(shape, finish=_set_end(shape.finish, handle[1], point))
        elif kind == "checkpoint":
            lines = list(shape.checkpoints)
            lines[handle[1]] = _set_end(lines[handle[1]], handle[2], point)
            new = replace(shape, checkpoints=tuple(lines))
        elif kind == "start_line" and shape.start_line is not None:
            new = replace(shape, start_line=_set_end(shape.start_line, handle[1], point))
        elif kind == "start":
            node = (math.floor(world[0] + 0.5), math.floor(world[1] + 0.5))
            start = list(shape.start)
            if node in start and start.index(node) != handle[1]:
                return
            start[handle[1]] = node
            new = replace(shape, start=tuple(start))
        else:
            return
        if new != shape:
            self.doc = replace(self.doc, shape=new)
            self._changed()

    def _delete_at(self, pos: tuple[int, int]) -> None:
        """Remove the point, line or start slot under the mouse (one undo step)."""
        shape = self.doc.shape
        if not isinstance(shape, OutlineShape):
            return
        hit = self.handle_at(pos)
        if hit is None:
            self.say("nothing to delete here: point at a handle")
            return
        kind = hit[0]
        if kind == "ring":
            _, r, i = hit
            ring = shape.rings()[r][:i] + shape.rings()[r][i + 1:]
            new = shape.with_ring(r, ring) if ring or r == 0 else shape.without_ring(r)
        elif kind == "patch":
            _, k, i = hit
            patch_kind, ring = shape.terrain[k]
            ring = ring[:i] + ring[i + 1:]
            new = shape.with_patch(k, patch_kind, ring) if ring else shape.without_patch(k)
            if not ring and self.current_patch > k:
                self.current_patch -= 1
        elif kind == "finish":
            new = replace(shape, finish=None)
        elif kind == "checkpoint":
            new = replace(shape, checkpoints=shape.checkpoints[:hit[1]] + shape.checkpoints[hit[1] + 1:])
        elif kind == "start_line":
            new = replace(shape, start_line=None)
        else:
            new = replace(shape, start=shape.start[:hit[1]] + shape.start[hit[1] + 1:])
        self.edit(replace(self.doc, shape=new))
        self.say(f"deleted a {kind.replace('_', ' ')} point")

    # -- the frame ---------------------------------------------------------------------------------
    def step(self, dt: float, surface: pygame.Surface | None = None) -> None:
        """One frame: every waiting event, then update, then draw (when given a surface)."""
        for event in pygame.event.get():
            self.handle(event)
        self.update(dt)
        if surface is not None:
            view.draw(surface, self)

    def close(self) -> None:
        """Stop the background workers (a running solve is terminated)."""
        self.checker.close()
        self.solver.close()


def _set_end(line, end: int, point):
    return (point, line[1]) if end == 0 else (line[0], point)


def _drop_empty_lines(shape: OutlineShape) -> OutlineShape:
    """Lines of zero length (a click without a drag) are not lines: drop them."""
    def real(line):
        return line is not None and line[0] != line[1]

    return replace(shape, finish=shape.finish if real(shape.finish) else None,
                   start_line=shape.start_line if real(shape.start_line) else None,
                   checkpoints=tuple(c for c in shape.checkpoints if real(c)))


def run(editor: Editor, fps: int = 60) -> None:
    """The frame loop: the only place that reads the clock."""
    clock = pygame.time.Clock()
    screen = pygame.display.get_surface()
    pygame.key.set_repeat(350, 40)
    try:
        while editor.running:
            dt = clock.tick(fps) / 1000.0
            if screen.get_size() != editor.size:
                editor.resize(screen.get_size())
            try:
                editor.step(dt, screen)
            except Exception as exc:  # a bug in one tool must not close the window and lose the work
                traceback.print_exc()
                editor.drag = None
                editor.say(f"internal error (please report it; your track is safe, save it): "
                           f"{type(exc).__name__}: {exc}")
            pygame.display.flip()
    finally:
        editor.close()
