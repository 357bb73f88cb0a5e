"""Track previews for track select, drawn once for the whole game (a shared part, no screen).

The board is made on a worker thread and its paper drawn in the main thread, one preview a
frame at most, so entering track select never waits. The work is bounded: only the last
:data:`WANTED` tracks asked for are waiting for a board (scrolled past, a track's board is
not made; shown again, it is asked for again), and at most :data:`UNPAINTED` boards wait
to be painted.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

import pygame

from game.presentation import theme
from game.presentation.board import Board
from game.presentation.camera import Camera

if TYPE_CHECKING:
    from game.presentation.menus.race import TrackEntry

#: Previews bigger than this are drawn at this many pixels and scaled up (the paper of a
#: big sheet costs more than a frame to draw at full size).
PREVIEW_PIXELS = 400_000
#: Tracks waiting for a board (the newest asked); boards made but not painted yet.
WANTED, UNPAINTED = 2, 4


class PreviewPainter:
    """Track previews, each drawn once for the game: the board (outline, wobble) is made on a
    worker thread, the paper drawn in the main thread, one preview a frame at most.

    :meth:`get` answers at once with ``(surface, camera)`` or None while it is being made;
    :meth:`new_frame` lets the next frame draw one again.
    """

    def __init__(self, text, keep: int = 32) -> None:
        self.text = text
        self.keep = keep  # previews kept (the least recently shown go first: each is megabytes)
        self._lock = threading.Lock()
        self._boards: dict[tuple, Board | None] = {}  # None: being made; dropped once painted
        self._wanted: list[tuple] = []
        self._done: OrderedDict[tuple, tuple[pygame.Surface, Camera]] = OrderedDict()
        self._drawn_this_frame = False
        self._worker: threading.Thread | None = None
        self._wake = threading.Event()
        self._closed = False

    def new_frame(self) -> None:
        self._drawn_this_frame = False

    def get(self, entry: TrackEntry, size: tuple[int, int]):
        key = (entry.ref, id(entry.track))
        found = self._done.get((key, size))
        if found is not None:
            self._done.move_to_end((key, size))
            return found
        with self._lock:
            if key not in self._boards:
                self._boards[key] = None
                self._wanted.append((key, entry.track))
                while len(self._wanted) > WANTED:  # scrolled past: not worth a board any more
                    dropped, _ = self._wanted.pop(0)
                    if self._boards.get(dropped, False) is None:
                        del self._boards[dropped]
                self._wake.set()
                if self._worker is None:
                    self._worker = threading.Thread(target=self._work, name="track-previews", daemon=True)
                    self._worker.start()
            board = self._boards[key]
        if board is None or self._drawn_this_frame:
            return None
        self._drawn_this_frame = True
        found = self._done[(key, size)] = _paint(board, entry.track, size)
        with self._lock:
            self._boards.pop(key, None)  # another size makes a new one
        while len(self._done) > self.keep:
            self._done.popitem(last=False)
        return found

    def close(self) -> None:
        """Stop the painting thread (after the board it is making); never waits."""
        with self._lock:
            self._closed = True
            self._wanted.clear()
        self._wake.set()

    def _work(self) -> None:
        while True:
            self._wake.wait()
            with self._lock:
                if self._closed:
                    return
                if not self._wanted:
                    self._wake.clear()
                    continue
                key, track = self._wanted.pop()  # the newest first: the one on screen now
            try:
                board = Board(track, theme.pens(1), self.text, seed=3)
            except Exception:  # noqa: BLE001 - a preview that cannot be drawn stays a blank sheet
                board = False
            with self._lock:
                self._boards[key] = board
                made = [k for k, b in self._boards.items() if b is not None]
                for old in made[:-UNPAINTED]:  # made for tracks scrolled past long ago
                    del self._boards[old]


def _paint(board, track, size: tuple[int, int]):
    """The paper of ``track`` fitted into ``size`` (drawn smaller and scaled when ``size`` is big)."""
    w, h = size
    shrink = min(1.0, (PREVIEW_PIXELS / max(1, w * h)) ** 0.5)
    drawn = (max(1, int(w * shrink)), max(1, int(h * shrink)))
    camera = Camera(drawn)
    camera.drift_amount = 0.0
    bounds = (-1.0, -1.0, track.width, track.height)
    camera.scale = camera.target_scale = camera.fit_scale(bounds, margin_px=8)
    camera.center = camera.target_center = ((track.width - 1) / 2, (track.height - 1) / 2)
    surface = pygame.Surface(drawn)
    surface.fill(theme.OFFROAD)
    if board:
        board.blit_layer(surface, camera)
    if drawn != size:
        surface = pygame.transform.smoothscale(surface, size)
        camera = Camera(size)
        camera.drift_amount = 0.0
        camera.scale = camera.target_scale = camera.fit_scale(bounds, margin_px=8 / shrink)
        camera.center = camera.target_center = ((track.width - 1) / 2, (track.height - 1) / 2)
    return surface, camera
