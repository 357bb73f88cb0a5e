"""The night layer of the race screen: the paper dark except where headlights light it.

Drawn by :class:`~game.presentation.race_view.RaceView` right over the paper and its
pencil trails, under everything drawn after them (live strokes, vectors, targets, cars),
so the cars are always visible and the choosing player's targets always show, lit or not.

What is lit is :mod:`game.core.sight`'s: the light of the phases shown so far, told from
their records (``lit_before``/``lit_after``), faded by the animation's travel through the
phase being played (time passed in: the same frame on a fast machine and a slow one).
:func:`darkness` is the pure plan (an alpha per node); :class:`NightLayer` paints it: one
small image a node a pixel, the part the camera sees smoothly scaled up to the window.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pygame

from game.core.sight import FADE_PHASES, glow, lit_after, lit_before, lit_now

#: The night's ink: a deep blue, opaque where nothing is lit (no wall shows through).
NIGHT = (8, 12, 30)
DARK_ALPHA = 255
#: Up to how many windows' area the whole track's dark is scaled at once (beyond: only what is in view).
WHOLE_AREA = 2.5
#: Steps in which a phase's light comes up and the older light fades while it plays.
FADE_STEPS = 10
#: Light at or above which a target's off-road warning shows (below it the road there is not seen).
SEEN = 0.5
#: The pale disc under each target of a choosing player: radius in squares, colour (the paper's), alpha.
HALO = 0.42
HALO_COLOUR = (250, 248, 240)
HALO_ALPHA = 235


def darkness(light: np.ndarray) -> np.ndarray:
    """The night's alpha per node (uint8, 0 where fully lit) for a light level per node (0..1).

    Lit areas keep a soft edge: half light is still three-quarters clear.
    """
    clear = np.sqrt(np.clip(light, 0.0, 1.0))
    return np.round(DARK_ALPHA * (1.0 - clear)).astype(np.uint8)


class NightLayer:
    """Paints the dark over the paper for one race (a track and its rules)."""

    def __init__(self, track, rules) -> None:
        self.shape = (track.height, track.width)
        self.radius = rules.sight_radius
        self.scale = track.scale
        self._masks: dict[tuple, tuple] = {}  # (kind, id of a record or state) -> (it, its lit mask)
        self._light: tuple | None = None  # (frame key, light): a frame like the last one is not worked out again
        self._image: tuple | None = None  # (key, alpha image surface)
        self._dark: pygame.Surface | None = None
        self._scaled: tuple | None = None  # (key, the crop scaled to the window): kept while nothing changes

    # -- what is lit (pure reads of the records) ----------------------------------
    def _mask(self, kind: str, thing, make) -> np.ndarray:
        """The lit mask told from ``thing`` (a record or a state), made once: kept with the
        thing itself, so that a new object never takes an old one's mask by its id."""
        key = (kind, id(thing))
        found = self._masks.get(key)
        if found is None or found[0] is not thing:
            found = self._masks[key] = (thing, make())
            while len(self._masks) > 4 * (FADE_PHASES + 2):
                self._masks.pop(next(iter(self._masks)))
        return found[1]

    def light(self, state, records, animation) -> np.ndarray:
        """How lit each node is (0..1) in a frame: the records shown, and the phase being played.

        ``records`` are the phases played out (``state`` is the race after them), ``animation``
        the phase being played, if any: its travel brings up its light.
        """
        shown = len(records)
        played = shown + (1 if animation is not None else 0)
        # the light comes up in FADE_STEPS steps: between two the frame reuses the last one's picture
        t = round(animation.travel * FADE_STEPS) / FADE_STEPS if animation is not None else 1.0
        key = (shown, id(records[-1]) if shown else id(state), id(animation.record) if animation else None, t)
        if self._light is not None and self._light[0] == key:
            return self._light[1]

        def record(i):  # the i-th phase played (0-based)
            return records[i] if i < shown else animation.record

        masks = []
        for k in range(max(0, played - FADE_PHASES - 2), played + 1):
            if k == 0 and played:
                first = record(0)
                masks.append(self._mask("before", first, lambda: lit_before(first, self.radius, self.shape, self.scale)))
            elif k == 0:
                masks.append(self._mask("state", state, lambda: lit_now(state)))
            else:
                done = record(k - 1)
                masks.append(self._mask("after", done, lambda: lit_after(done, self.radius, self.shape, self.scale)))
        found = glow(masks, t)
        self._light = (key, found)
        return found

    @staticmethod
    def veiled(candidates, light: np.ndarray):
        """The targets as a player may see them at night: a target in the dark (light under
        :data:`SEEN`) shows no off-road warning, since that would tell where the road is."""
        h, w = light.shape
        out = []
        for cand in candidates:
            n = cand.node
            lit = 0 <= n.x < w and 0 <= n.y < h and light[n.y, n.x] >= SEEN
            out.append(cand if lit or not cand.offroad else replace(cand, offroad=False))
        return out

    # -- painting -----------------------------------------------------------------
    def _alpha_image(self, light: np.ndarray) -> pygame.Surface:
        key = (light.shape, hash(light.tobytes()))
        if self._image is not None and self._image[0] == key:
            return self._image[1]
        h, w = light.shape
        image = pygame.Surface((w, h), pygame.SRCALPHA)
        image.fill((*NIGHT, 0))
        alpha = pygame.surfarray.pixels_alpha(image)
        alpha[:, :] = darkness(light).T
        del alpha  # unlock the surface
        self._image = (key, image)
        return image

    def draw(self, surface: pygame.Surface, cam, light: np.ndarray, targets=()) -> None:
        """Darken ``surface`` as ``cam`` sees the track, clear where ``light`` is; then a pale
        disc under every target of the choosing players (``targets``: the race view's
        ``Targets``), so that their rings stand out in the dark without lighting the road."""
        self._darken(surface, cam, light)
        r = max(3, round(HALO * cam.scale))
        if not targets:
            return
        halo = pygame.Surface((2 * r + 2, 2 * r + 2), pygame.SRCALPHA)
        pygame.draw.circle(halo, (*HALO_COLOUR, HALO_ALPHA), (r + 1, r + 1), r)
        for t in targets:
            for cand in t.candidates:
                if cand.legal:
                    x, y = cam.to_screen((cand.node.x, cand.node.y))
                    surface.blit(halo, (round(x) - r - 1, round(y) - r - 1))

    def _darken(self, surface: pygame.Surface, cam, light: np.ndarray) -> None:
        h, w = light.shape
        image = self._alpha_image(light)
        u = cam.unit
        size = surface.get_size()
        per_node = cam.scale / u
        if w * h * per_node * per_node <= WHOLE_AREA * size[0] * size[1]:
            # the whole track scaled is not much bigger than the window: scale it all, so a
            # camera panning through a replay reuses the picture (only a zoom scales again)
            x0, y0, x1, y1 = 0, 0, w - 1, h - 1
        else:
            left, top, right, bottom = cam.visible_world()
            x0, y0 = max(0, math.floor(left * u) - 1), max(0, math.floor(top * u) - 1)
            x1, y1 = min(w - 1, math.ceil(right * u) + 1), min(h - 1, math.ceil(bottom * u) + 1)
        if self._dark is None or self._dark.get_size() != size:
            self._dark = pygame.Surface(size, pygame.SRCALPHA)
            self._dark.fill((*NIGHT, DARK_ALPHA))
        if x0 > x1 or y0 > y1:
            surface.blit(self._dark, (0, 0))
            return
        # node (x, y) is the centre of image pixel (x, y): the crop covers nodes x0-0.5 .. x1+0.5
        sx0, sy0 = cam.to_screen((x0 - 0.5, y0 - 0.5))
        size_px = (max(1, round((x1 - x0 + 1) * per_node)), max(1, round((y1 - y0 + 1) * per_node)))
        rect = pygame.Rect((round(sx0), round(sy0)), size_px)
        key = (self._image[0], x0, y0, x1, y1, size_px)
        if self._scaled is None or self._scaled[0] != key:
            crop = image.subsurface(pygame.Rect(x0, y0, x1 - x0 + 1, y1 - y0 + 1))
            # smooth at half the size, then doubled: the edges of the light are soft anyway,
            # and this costs a quarter of a full-size smooth scale
            half = (max(1, size_px[0] // 2), max(1, size_px[1] // 2))
            self._scaled = (key, pygame.transform.scale(pygame.transform.smoothscale(crop, half), size_px))
        surface.blit(self._scaled[1], rect)
        # the paper round the track's grid is dark too
        full = surface.get_rect()
        for band in (pygame.Rect(0, 0, full.width, rect.top), pygame.Rect(0, rect.bottom, full.width,
                                                                           full.height - rect.bottom),
                     pygame.Rect(0, rect.top, rect.left, rect.height),
                     pygame.Rect(rect.right, rect.top, full.width - rect.right, rect.height)):
            band = band.clip(full)
            if band.width > 0 and band.height > 0:
                surface.blit(self._dark, band, area=band)
