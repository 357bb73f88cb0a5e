"""A note on the race screen, once a race, when the CPUs cannot plan the race exactly.

A race whose CPUs' table is over the memory budget (a big track, many laps) is still
raced (issue 27): the CPUs read a table of three laps folded onto the race, or, when not
even that fits, drive by the route heuristic. Players should know why the CPUs seem
weaker than usual, in their words, not the solver's: this layer (a ``RaceConfig.layers``
entry, like the timing tower) asks how the CPUs plan (``plan_of(state)``, the CPUs'
shared tables' ``plan``) until they know, and if the answer is a bounded plan shows one
short note under the HUD for :data:`NOTE_SECONDS` of race time, then never again.
"""

from __future__ import annotations

import pygame

from game.presentation import theme
from game.presentation.hud import font_size, hud_size, small_size

#: How long the note stays (seconds of race time; the last second it fades).
NOTE_SECONDS = 8.0
#: What players read for each bounded plan (``_Shared.plan``'s words); "exact" says nothing.
NOTES = {
    "folded": "This race is long for the CPUs' route planner: they plan three laps at a time, "
              "so they may drive a little below their best.",
    "route": "This track is too big for the CPUs' route planner: they drive by eye along the road "
             "(safe, but slower than their best).",
}


class PlanNote:
    """A race scene layer (``update(scene, dt)``, ``draw(surface, scene)``): the bounded plan's note, once."""

    def __init__(self, plan_of) -> None:
        self.plan_of = plan_of
        self.plan: str | None = None  # known once the CPUs have their table
        self.left = 0.0  # seconds the note still shows
        self._image: pygame.Surface | None = None
        self._image_key = None

    @property
    def text(self) -> str:
        """What the note says ("" when the CPUs plan exactly or it is not known yet)."""
        return NOTES.get(self.plan or "", "")

    def update(self, scene, dt: float) -> None:
        """Ask how the CPUs plan until they know; then count the note's time down."""
        if self.plan is None:
            self.plan = self.plan_of(scene.controller.state)
            if self.text:
                self.left = NOTE_SECONDS
            return
        self.left = max(0.0, self.left - dt)

    def draw(self, surface: pygame.Surface, scene) -> None:
        if self.left <= 0 or not self.text:
            return
        size = surface.get_size()
        key = (size, scene.settings.text_scale)
        if key != self._image_key:
            self._image, self._image_key = self._compose(scene, size), key
        _, top = hud_size(size, len(scene.pens), scene.settings.text_scale)
        image = self._image
        image.set_alpha(int(255 * min(1.0, self.left)))  # the last second fades out
        rect = image.get_rect(midtop=(size[0] // 2, top + max(4, size[1] // 60)))
        surface.blit(image, rect)
        scene.view.text.note_panel(surface, rect)

    def _compose(self, scene, size) -> pygame.Surface:
        """The note as one panel: the words wrapped to at most half the window's width."""
        text = scene.view.text
        points = small_size(font_size(size, scene.settings.text_scale))
        pad = max(4, points // 2)
        width = max(points * 8, size[0] // 2)
        lines, line = [], ""
        for word in self.text.split(" "):
            trial = f"{line} {word}" if line else word
            if line and text.size_of(trial, points)[0] > width - 2 * pad:
                lines.append(line)
                line = word
            else:
                line = trial
        lines.append(line)
        high = text.size_of("Ag", points)[1]
        wide = max(text.size_of(ln, points)[0] for ln in lines) + 2 * pad
        image = pygame.Surface((wide, high * len(lines) + 2 * pad), pygame.SRCALPHA)
        image.blit(text.panel(image.get_size(), theme.HUD_BG), (0, 0))
        pygame.draw.rect(image, theme.WARN, image.get_rect(), 2)
        for k, ln in enumerate(lines):
            text.blit(image, ln, points, theme.HUD_TEXT, (wide // 2, pad + k * high), "midtop")
        return image
