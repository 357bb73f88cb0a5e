"""The camera: which part of the paper is on screen, at what zoom (pure arithmetic, no pygame).

World coordinates are paper squares; screen coordinates are window pixels. Track nodes
are given in the track's own lattice (``unit`` nodes per square: 10 on fine paper, else
1), so :meth:`Camera.to_screen` takes node coordinates and divides by ``unit``; the
centre, the scale (pixels per *square*) and :meth:`Camera.visible_world` are in squares. The camera eases toward a target centre and scale (``update(dt)``); a
small drift at rest and a screen shake are added on top without moving the target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from game.presentation.easing import approach

Point = tuple[float, float]

#: Smallest and largest zoom, in pixels per grid square.
MIN_SCALE, MAX_SCALE = 6.0, 128.0
#: When the whole track fits at this many pixels per square or more, the camera shows it all.
FOLLOW_BELOW = 13.0
#: Zoom levels of the following camera (pixels per square) at the default legible scale of
#: a 720-line window (:func:`legible_scale`). Zooming redraws the cached paper, so the
#: camera moves between a few fixed levels, and zooms only between phases (see
#: :meth:`Camera.aim`); panning at a fixed zoom costs nothing.
FOLLOW_LEVELS = (13.0, 16.0, 20.0, 24.0, 30.0, 36.0)
#: Pixels per square a player choosing must see at 1080 lines (read from a sofa three
#: metres away): rings, cars and labels are sized from the scale, so this sets them all.
SOFA_SQUARE_1080 = 36.0
#: The following camera's levels as fractions of the legible scale: a player chooses at the
#: largest when their car and targets fit there, else at 1 (never less); the smaller ones
#: are for pulling back over a phase replay.
PULL_BACK = (0.4, 0.5, 0.625, 0.75, 1.0, 1.25)


def legible_scale(size: tuple[int, int], text_scale: float = 1.0) -> float:
    """Pixels per square for a player choosing: 36 at 1080 lines, in proportion to the window
    height and the player's text-size setting (rounded down to a quarter pixel, so cached
    paper levels are reused)."""
    raw = SOFA_SQUARE_1080 * size[1] / 1080 * max(0.5, text_scale)
    return max(MIN_SCALE, math.floor(raw * 4) / 4)


def follow_levels(legible: float) -> tuple[float, ...]:
    """The zoom levels of a following camera whose choosing zoom is ``legible``."""
    return tuple(sorted({max(MIN_SCALE, math.floor(legible * k * 4) / 4) for k in PULL_BACK}))


@dataclass
class Camera:
    """Centre (world), scale (pixels per square) and the window size it maps onto."""

    size: tuple[int, int]
    center: Point = (0.0, 0.0)
    scale: float = 24.0
    target_center: Point = (0.0, 0.0)
    target_scale: float = 24.0
    drift: float = 0.0  # seconds of drift animation so far
    drift_amount: float = 0.12  # squares
    shake: float = 0.0  # remaining shake strength, in pixels
    pan_rate: float = 4.0
    zoom_rate: float = 6.0
    unit: int = 1  # track lattice nodes per paper square (10 on fine paper)
    following: bool = False  # the track is too big to show whole: the camera follows the cars
    _offset: tuple = field(default=(), init=False, repr=False, compare=False)  # (inputs, offset) of the last offset()

    # -- mapping --------------------------------------------------------------
    def offset(self) -> Point:
        """The current drift and shake, in pixels (added to every world->screen mapping)."""
        key = (self.drift, self.drift_amount, self.scale, self.shake)
        if self._offset and self._offset[0] == key:  # (asked for every point drawn in a frame)
            return self._offset[1]
        dx = math.sin(self.drift * 0.37) * self.drift_amount * self.scale
        dy = math.sin(self.drift * 0.29 + 1.3) * self.drift_amount * self.scale
        if self.shake > 0.05:
            dx += math.sin(self.drift * 71.0) * self.shake
            dy += math.cos(self.drift * 53.0) * self.shake
        self._offset = (key, (dx, dy))
        return dx, dy

    def to_screen(self, point: Point) -> tuple[float, float]:
        """Window pixel of a track node (node coordinates, ``unit`` per square)."""
        ox, oy = self.offset()
        u = self.unit
        return ((point[0] / u - self.center[0]) * self.scale + self.size[0] / 2 + ox,
                (point[1] / u - self.center[1]) * self.scale + self.size[1] / 2 + oy)

    def square_to_screen(self, point: Point) -> tuple[float, float]:
        """Window pixel of a point given in paper squares."""
        ox, oy = self.offset()
        return ((point[0] - self.center[0]) * self.scale + self.size[0] / 2 + ox,
                (point[1] - self.center[1]) * self.scale + self.size[1] / 2 + oy)

    def to_world(self, pixel: Point) -> Point:
        """The point (in node coordinates, like :meth:`to_screen` takes) under a window pixel."""
        x, y = self._to_squares(pixel)
        return x * self.unit, y * self.unit

    def _to_squares(self, pixel: Point) -> Point:
        ox, oy = self.offset()
        return ((pixel[0] - self.size[0] / 2 - ox) / self.scale + self.center[0],
                (pixel[1] - self.size[1] / 2 - oy) / self.scale + self.center[1])

    def visible_world(self, margin: float = 0.0) -> tuple[float, float, float, float]:
        """(left, top, right, bottom) of the paper on screen in squares, widened by ``margin`` pixels."""
        left, top = self._to_squares((-margin, -margin))
        right, bottom = self._to_squares((self.size[0] + margin, self.size[1] + margin))
        return left, top, right, bottom

    @property
    def settled(self) -> bool:
        """True when the zoom is where it is going (cached paper at this scale can be reused)."""
        return self.scale == self.target_scale

    # -- aiming ---------------------------------------------------------------
    def fit_scale(self, bounds: tuple[float, float, float, float], margin_px: float = 20.0,
                  inset: tuple[float, float, float, float] = (0, 0, 0, 0)) -> float:
        """The scale at which a world rectangle (left, top, right, bottom) fits the window.

        ``inset`` (left, top, right, bottom pixels) is window space kept free (the HUD).
        """
        w = max(bounds[2] - bounds[0], 1.0)
        h = max(bounds[3] - bounds[1], 1.0)
        avail_w = max(self.size[0] - 2 * margin_px - inset[0] - inset[2], 50)
        avail_h = max(self.size[1] - 2 * margin_px - inset[1] - inset[3], 50)
        return max(MIN_SCALE, min(MAX_SCALE, avail_w / w, avail_h / h))

    def aim(self, track_bounds: tuple[float, float, float, float], focus: tuple[float, float, float, float] | None,
            insets: tuple[tuple[float, float, float, float], ...] = ((0, 0, 0, 0),), zoom_in: bool = True,
            follow_below: float = FOLLOW_BELOW, hold_zoom: bool = False, pull_back: bool = True,
            pad: float = 6.0) -> None:
        """Set the target: the whole track if it fits legibly, else the ``focus`` rectangle.

        ``focus`` is the area that must stay visible (the cars and their targets).
        ``insets`` are alternative window areas to keep free (the HUD at the top, or at the
        left); the one leaving the track biggest is used. Scales are rounded to quarter
        pixels per square so cached layers can be reused.

        ``follow_below`` is the legible scale: when the whole track fits at it or more, the
        camera shows it all; else it follows the focus at one of :func:`follow_levels`.
        With ``pull_back`` False (a player is choosing) the zoom is the top level when the
        padded focus fits there, else the legible scale however wide the focus (the caller
        shows far-apart choosers in insets);
        otherwise the largest level at which the padded focus fits. It zooms out at once
        when the focus does not fit, but zooms in only when ``zoom_in`` (the race passes
        False while a phase plays, so replays only pan). ``hold_zoom`` keeps a following
        camera's zoom and only pans (a phase playing: zooming would scale the cached paper
        every frame; the race pulls back before the phase plays so that it fits).
        """
        whole, inset = max((self.fit_scale(track_bounds, inset=i), i) for i in insets)
        self.following = whole < follow_below
        if whole >= follow_below or focus is None:
            self.target_scale = float(math.floor(whole * 4) / 4)
            self.target_center = self._centred(track_bounds, inset, self.target_scale)
            return
        levels = follow_levels(follow_below)
        fx0, fy0, fx1, fy1 = focus
        padded = (fx0 - pad, fy0 - pad, fx1 + pad, fy1 + pad)
        scale, inset = max((self.fit_scale(padded, inset=i), i) for i in insets)
        legible = max(MIN_SCALE, math.floor(follow_below * 4) / 4)
        current = self.target_scale if self.target_scale in levels else None
        if not pull_back:  # choosing: close up if it all fits, else legible, never smaller
            wanted = levels[-1] if scale >= levels[-1] else legible
        else:  # the close-up is kept if it fits, never zoomed into (CPUs racing are seen at most legible)
            cap = max(legible, current or legible)
            fitting = [level for level in levels if level <= min(scale, cap)] or [levels[0]]
            wanted = fitting[-1]
        if current is not None and hold_zoom:
            wanted = current
        elif current is not None and wanted > current and not zoom_in:
            wanted = current
        self.target_scale = wanted
        self.target_center = self._centred(focus, inset, self.target_scale)

    def fits(self, focus: tuple[float, float, float, float], scale: float,
             inset: tuple[float, float, float, float] = (0, 0, 0, 0), pad: float = 0.0) -> bool:
        """Does the ``focus`` rectangle (squares), widened by ``pad``, fit the window minus ``inset`` at ``scale``?"""
        w = (focus[2] - focus[0] + 2 * pad) * scale
        h = (focus[3] - focus[1] + 2 * pad) * scale
        return w <= self.size[0] - inset[0] - inset[2] and h <= self.size[1] - inset[1] - inset[3]

    def _centred(self, bounds, inset, scale: float) -> Point:
        """The world centre that puts ``bounds`` in the middle of the window minus ``inset``."""
        shift_x = (inset[0] - inset[2]) / 2 / scale
        shift_y = (inset[1] - inset[3]) / 2 / scale
        return ((bounds[0] + bounds[2]) / 2 - shift_x, (bounds[1] + bounds[3]) / 2 - shift_y)

    def snap(self) -> None:
        """Jump to the target at once (first frame, window resized)."""
        self.center, self.scale = self.target_center, self.target_scale

    def update(self, dt: float, drift: bool = True) -> None:
        self.center = (approach(self.center[0], self.target_center[0], self.pan_rate, dt),
                       approach(self.center[1], self.target_center[1], self.pan_rate, dt))
        scale = approach(self.scale, self.target_scale, self.zoom_rate, dt)
        # Land exactly on the target so static layers cached at that scale are reused.
        self.scale = self.target_scale if abs(scale - self.target_scale) < 0.15 else scale
        if drift:
            self.drift += dt
        self.shake = approach(self.shake, 0.0, 6.0, dt)

    def kick(self, strength: float) -> None:
        """Start a screen shake (a collision), ``strength`` pixels at its start."""
        self.shake = max(self.shake, strength)
