"""The terrain legend card of the pause menu: each kind on the track, drawn as the race draws
it, with its name and what it does under the rules of this race.

What it is for: a player who meets stippled sand or striped curbs for the first time pauses
and reads what they mean. The kinds come from the track, the one-line effects from the rules
core (:func:`game.core.terrain.effect_text`, the same words whatever screen shows them); this
module only lays them out. The swatches are drawn once, when the card is made.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

from game.presentation import theme
from game.presentation.terrain_art import swatch


@dataclass(frozen=True)
class LegendEntry:
    """One line of the card: a terrain kind, its name and what it does under the race's rules."""

    kind: str
    name: str
    effect: str


def legend_entries(track, rules) -> list[LegendEntry]:
    """The kinds on ``track`` (as the race holds it) with their effect under ``rules``, in the
    core's order; empty for a track without terrain."""
    from game.core.terrain import effect_text

    nodes = getattr(track, "terrain_nodes", None)
    kinds = list(nodes()) if callable(nodes) else []
    return [LegendEntry(str(kind), str(kind).capitalize(), effect_text(kind, rules)) for kind in kinds]


class TerrainLegend:
    """The card for one race: ``entries`` (:func:`legend_entries`), drawn at a font size.

    ``offroad`` draws the swatches as the race draws the kinds under the offroad terrain
    rule (washed, on hatched off-road paper).
    """

    def __init__(self, entries: list[LegendEntry], offroad: bool = False) -> None:
        self.entries = entries
        self.offroad = offroad
        self._swatches: dict[tuple[str, tuple[int, int]], pygame.Surface] = {}

    def __bool__(self) -> bool:
        return bool(self.entries)

    @staticmethod
    def row_height(size: int) -> int:
        """One kind's row: its name over its effect, beside a swatch as tall as both."""
        return round(size * 2.4)

    def height(self, size: int) -> int:
        """Pixels the card needs at font size ``size`` (0 without terrain)."""
        if not self.entries:
            return 0
        return round(size * 2.1) + len(self.entries) * self.row_height(size) + round(size * 0.4)

    def _swatch(self, kind: str, box: tuple[int, int], size: int) -> pygame.Surface:
        key = (kind, box)
        found = self._swatches.get(key)
        if found is None:
            # the texture at about the race camera's zoom for this text size (a square ~1.5 em)
            found = self._swatches[key] = swatch(kind, box, level=max(16.0, size * 1.5), offroad=self.offroad)
        return found

    def draw(self, surface: pygame.Surface, ctx, rect: pygame.Rect, size: int) -> None:
        """The card in ``rect`` (its height from :meth:`height`): heading, then one row per kind."""
        from game.presentation.menus.common import draw_panel

        draw_panel(surface, rect, ctx)
        pad = round(size * 0.7)
        title = "Terrain" + ("  ·  all off-road under these rules" if self.offroad else "")
        ctx.text.blit(surface, title, size, theme.INK, (rect.left + pad, rect.top + round(size * 0.5)), bold=True)
        row_h = self.row_height(size)
        box = (round(size * 3.4), row_h - round(size * 0.4))
        y = rect.top + round(size * 2.1)
        for entry in self.entries:
            surface.blit(self._swatch(entry.kind, box, size), (rect.left + pad, y))
            x = rect.left + 2 * pad + box[0]
            ctx.text.blit(surface, entry.name, size, theme.HUD_TEXT, (x, y), bold=True)
            # the effect on one line: a smaller size when it would run past the card
            small = max(10, round(size * 0.8))
            room = rect.right - pad - x
            while small > 10 and ctx.text.size_of(entry.effect, small)[0] > room:
                small -= 1
            ctx.text.blit(surface, entry.effect, small, theme.HUD_DIM if self.offroad else theme.HUD_TEXT,
                          (x, y + round(size * 1.15)))
            y += row_h
