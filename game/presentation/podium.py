"""An animated podium for the end of a race or a cup: the steps rise, the cars drop onto them.

One reusable piece for every screen that crowns someone (a race's results, a cup's final
standings). Give it the entries, call :meth:`Podium.update` with the seconds of each
frame and :meth:`Podium.draw` into any rectangle; it scales to the rectangle, so the
same podium reads from a sofa on a 1080p television and in a 540p window::

    podium = Podium([PodiumEntry(1, "Ada", pen, "25 pts"), ...], text)
    podium.update(dt)             # in the scene's update
    podium.draw(surface, rect)    # in the scene's draw (only reads)
    podium.skip()                 # a button press jumps to the end

The timeline (seconds; :data:`TIMELINE`): the three steps rise one after the other
(third, second, first), then the cars drop onto them in the same order with a small
bounce, each name and note fading in as its car lands; the winner lands last, with a
burst of pencil rays and paper confetti in every finisher's colour, and then bobs gently.
Places may be shared (a dead heat): up to three cars stand side by side on one step.
Places past third are not drawn here; the caller's table lists them.

With ``reduce_motion`` the podium is drawn as the show ends, at once: the steps stand,
the cars are on them, no rays, no confetti, no bobbing.

Drawing only reads: everything that changes is :attr:`Podium.time`.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Sequence

import pygame

from game.presentation import theme
from game.presentation.easing import clamp, out_back, out_cubic
from game.presentation.text import TextCache

#: When each part of the show starts, in seconds from the podium's first frame.
TIMELINE = {
    "rise": {3: 0.0, 2: 0.15, 1: 0.3},  # a step starts rising
    "drop": {3: 0.85, 2: 1.2, 1: 1.65},  # its cars start dropping
}
RISE_SECONDS = 0.55
DROP_SECONDS = 0.5
BURST_SECONDS = 1.6
#: After this the podium only bobs the winner: the show is over.
SHOW_SECONDS = TIMELINE["drop"][1] + DROP_SECONDS + BURST_SECONDS
#: Step heights as fractions of the drawing rectangle, by place.
STEP_HEIGHTS = {1: 0.46, 2: 0.33, 3: 0.23}
#: Left to right: second, first, third.
STEP_ORDER = (2, 1, 3)
MAX_PER_STEP = 3
CONFETTI = 46


@dataclass(frozen=True)
class PodiumEntry:
    """One car on the podium: its place (1-3; shared places allowed), name, pen and a note
    under the name (points, moves, a medal...)."""

    place: int
    name: str
    pen: theme.Pen
    note: str = ""


class Podium:
    """The podium of one race or cup; see the module docstring."""

    def __init__(self, entries: Sequence[PodiumEntry], text: TextCache | None = None, seed: int = 0,
                 reduce_motion: bool = False) -> None:
        self.entries = [e for e in entries if 1 <= e.place <= 3]
        self.text = text or TextCache()
        self.reduce_motion = reduce_motion
        self.time = SHOW_SECONDS if reduce_motion else 0.0
        self.seed = seed
        rng = random.Random(f"podium/{seed}")
        colours = [e.pen.color for e in self.entries] or [theme.GRAPHITE]
        # confetti: (x offset -1..1, start delay, fall speed, drift, size, colour, spin)
        self._confetti = [(rng.uniform(-1, 1), rng.uniform(0, 0.5), rng.uniform(0.55, 1.0), rng.uniform(-0.25, 0.25),
                           rng.uniform(0.6, 1.3), colours[k % len(colours)], rng.uniform(2, 7))
                          for k in range(CONFETTI)]

    # -- time -----------------------------------------------------------------
    def update(self, dt: float) -> None:
        self.time += max(0.0, dt)

    def skip(self) -> None:
        """Jump to the end of the show (the cars stand, the confetti has fallen)."""
        self.time = max(self.time, SHOW_SECONDS)

    @property
    def done(self) -> bool:
        return self.time >= SHOW_SECONDS

    # -- the timeline, as fractions (tests read these) --------------------------
    def rise(self, place: int) -> float:
        """How far a step has risen, 0..1 (overshooting a little on the way)."""
        return out_back(clamp((self.time - TIMELINE["rise"][place]) / RISE_SECONDS))

    def drop(self, place: int) -> float:
        """How far a step's cars have dropped onto it, 0 (above the top) .. 1 (standing)."""
        return out_back(clamp((self.time - TIMELINE["drop"][place]) / DROP_SECONDS))

    def landed(self, place: int) -> bool:
        return self.time >= TIMELINE["drop"][place] + DROP_SECONDS

    def on_step(self, place: int) -> list[PodiumEntry]:
        return [e for e in self.entries if e.place == place][:MAX_PER_STEP]

    # -- drawing --------------------------------------------------------------
    def draw(self, surface: pygame.Surface, rect: pygame.Rect) -> None:
        """Draw the podium inside ``rect`` (steps along its bottom, cars and names above)."""
        rect = pygame.Rect(rect)
        if rect.width < 30 or rect.height < 30:
            return
        step_w = rect.width / 3
        size = max(10, int(min(rect.height * 0.1, step_w * 0.18)))
        tops: dict[int, tuple[float, float]] = {}
        for slot, place in enumerate(STEP_ORDER):
            full = rect.height * STEP_HEIGHTS[place]
            h = max(0.0, full * self.rise(place))
            x = rect.left + slot * step_w
            block = pygame.Rect(round(x + step_w * 0.04), round(rect.bottom - h), round(step_w * 0.92), round(h))
            if block.height > 1:
                pygame.draw.rect(surface, theme.PAPER, block)
                # hatching like a shaded pencil block
                gap = max(6, size // 2)
                clip = surface.get_clip()
                surface.set_clip(block.clip(clip) if clip else block)
                for k in range(-block.height, block.width, gap):
                    pygame.draw.line(surface, theme.GRID_MINOR, (block.left + k, block.bottom),
                                     (block.left + k + block.height, block.top))
                surface.set_clip(clip)
                pygame.draw.rect(surface, theme.GRAPHITE, block, max(2, size // 10))
                if block.height > size * 1.2:
                    self.text.blit(surface, str(place), int(size * 1.6), theme.GRAPHITE,
                                   (block.centerx, block.top + size * 0.3), "midtop", bold=True)
            tops[place] = (x + step_w / 2, rect.bottom - full)
        for place in (3, 2, 1):
            self._draw_cars(surface, rect, place, tops[place], step_w, size)
        clip = surface.get_clip()
        surface.set_clip(rect.clip(clip) if clip else rect)  # the rays and the confetti stay on the podium
        self._draw_burst(surface, rect, tops[1], size)
        surface.set_clip(clip)

    def _draw_cars(self, surface, rect, place: int, top: tuple[float, float], step_w: float, size: int) -> None:
        who = self.on_step(place)
        if not who or self.time < TIMELINE["drop"][place]:
            return
        cx, top_y = top
        r = size * (1.05 if place == 1 else 0.85)
        fall = rect.height * 0.55
        d = self.drop(place)
        bob = 0.0
        if place == 1 and self.done and not self.reduce_motion:
            bob = math.sin((self.time - SHOW_SECONDS) * 2.4) * size * 0.12
        spacing = min(step_w / max(1, len(who)), r * 3.2)
        label_alpha = clamp((self.time - TIMELINE["drop"][place] - DROP_SECONDS * 0.6) / 0.35)
        for k, entry in enumerate(who):
            x = cx + (k - (len(who) - 1) / 2) * spacing
            y = top_y - r * 1.02 - (1.0 - d) * fall + bob
            theme.draw_symbol(surface, entry.pen.symbol, (x, y), r, entry.pen.color, width=max(2, size // 8))
            if label_alpha <= 0:
                continue
            name_size = int(size * (0.95 if place == 1 else 0.8))
            colour = _towards(theme.PAPER, entry.pen.color, label_alpha)
            name_rect = self.text.blit(surface, entry.name, name_size, colour, (x, y - r * 1.35), "midbottom",
                                       bold=True)
            if entry.note:
                self.text.blit(surface, entry.note, int(size * 0.75), _towards(theme.PAPER, theme.HUD_TEXT,
                                                                               label_alpha),
                               (x, name_rect.top - 2), "midbottom")

    def _draw_burst(self, surface, rect, top: tuple[float, float], size: int) -> None:
        start = TIMELINE["drop"][1] + DROP_SECONDS
        age = self.time - start
        if age < 0 or not self.on_step(1):
            return
        cx, top_y = top
        cy = top_y - size * 1.2
        if age < BURST_SECONDS * 0.6:
            k = out_cubic(age / (BURST_SECONDS * 0.6))
            colour = _towards(theme.WARN, theme.PAPER, k)
            for n in range(12):
                ang = 2 * math.pi * n / 12 + 0.13
                r0, r1 = size * (1.4 + 2.0 * k), size * (2.0 + 3.2 * k)
                pygame.draw.line(surface, colour, (cx + r0 * math.cos(ang), cy + r0 * math.sin(ang)),
                                 (cx + r1 * math.cos(ang), cy + r1 * math.sin(ang)), max(2, size // 8))
        # paper confetti falls over the whole podium, each piece from its own delay, all gone by the end
        if self.done:
            return
        drop = rect.height + 2 * size
        for x0, delay, speed, drift, scale, colour, spin in self._confetti:
            t = age - delay
            if t <= 0:
                continue
            fraction = t / ((BURST_SECONDS - delay) * speed)
            if fraction >= 1:
                continue
            fall = fraction * fraction * 0.35 * drop + fraction * 0.65 * drop  # a flutter that speeds up a little
            y = rect.top - size + fall
            x = rect.centerx + x0 * rect.width * 0.5 + drift * fall + math.sin(t * spin) * size * 0.4
            w = max(2, int(size * 0.35 * scale))
            h = max(1, int(w * abs(math.cos(t * spin))))
            pygame.draw.rect(surface, colour, (round(x), round(y), w, h))


def _towards(a, b, t: float):
    """Colour ``a`` moved toward ``b`` by ``t`` (0..1): a fade without per-surface alpha."""
    t = clamp(t)
    return tuple(int(x + (y - x) * t) for x, y in zip(a, b))


def podium_entries(ranks: Sequence[int | None], names: Sequence[str], pens: Sequence[theme.Pen],
                   notes: Sequence[str] | None = None) -> list[PodiumEntry]:
    """Podium entries from places (``ranks[i]`` for car i, None when unplaced), best first."""
    out = []
    for i, rank in enumerate(ranks):
        if rank is not None and 1 <= rank <= 3:
            out.append(PodiumEntry(rank, names[i], pens[i], notes[i] if notes else ""))
    return sorted(out, key=lambda e: e.place)
