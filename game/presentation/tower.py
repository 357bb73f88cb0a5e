"""The timing tower: beside the race's HUD, every car's exact moves to the finish, ordered, with the gaps.

A car's figure is what the solver says it would still need if it drove alone from its
position, velocity, laps and checkpoints (:func:`game.race.debrief.remaining`, plus the
turns it must miss); the cars are listed fewest first, the others with their gap to the
leader in moves ("+2"), finished cars at the top, cars out of the race at the bottom.
It follows the state on screen, so it changes when the cars land in the replay of a phase.

Nothing is searched in the frame loop: the table is the one the CPUs already use (asked
for on a worker thread; "..." while it is being built); a new state's figures are a few
table lookups, and when a car stands where a lone car never does (spun to rest) they are
worked out on a worker thread (a short search, see ``game.race.debrief``); a frame only
blits the composed tower.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

from game.core.race import FINISHED
from game.presentation import theme
from game.presentation.hud import font_size, hud_size, small_size
from game.presentation.jobs import Job


@dataclass(frozen=True)
class TowerRow:
    """One line of the tower: the car, its moves to go (None: cannot finish or out) and what to show."""

    car: int
    to_go: int | None
    gap: str


def tower_rows(state, values) -> list[TowerRow]:
    """The tower's lines for ``state`` with each car's moves to go (``values[i]``), best first.

    Finished cars lead (by their finishing phase), then racing cars by moves to go, the
    leader showing its count and the others their gap ("+2"); cars that cannot finish
    show "?" and cars out of the race their status.
    """
    cars = state.cars
    racing = [i for i, c in enumerate(cars) if c.racing and values[i] is not None]
    lead = min((values[i] for i in racing), default=None)
    finished = sorted((i for i, c in enumerate(cars) if c.status == FINISHED),
                      key=lambda i: (cars[i].finish_phase or 0, cars[i].finish_key, i))
    rows = [TowerRow(i, 0, "done") for i in finished]
    for i in sorted(racing, key=lambda i: (values[i], i)):
        v = values[i]
        rows.append(TowerRow(i, v, str(v) if v == lead else f"+{v - lead}"))
    rows += [TowerRow(i, None, "?") for i, c in enumerate(cars) if c.racing and values[i] is None]
    rows += [TowerRow(i, None, str(c.status)) for i, c in enumerate(cars) if not c.racing and c.status != FINISHED]
    return rows


class TimingTower:
    """A race scene layer (``RaceConfig.layers``): ``update(race, dt)`` and ``draw(surface, race)``,
    ``race`` the race screen's read-only ``LayerView``.

    ``table_of(state)`` gives the solver's table for the race (the CPUs' shared tables'
    ``table``); it is called on a worker thread, as is every state's count.
    """

    def __init__(self, table_of) -> None:
        self.table_of = table_of
        self._table_job: Job | None = None
        self._state = None  # the state whose figures are shown (or being worked out)
        self._values_job: Job | None = None
        self._values: tuple | None = None
        self._shown_for = None  # the state the shown figures belong to
        self._image: pygame.Surface | None = None
        self._image_key = None
        self._place = (0, 0)

    @property
    def table(self):
        job = self._table_job
        return job.result if job is not None and job.done and job.error is None else None

    def update(self, scene, dt: float) -> None:
        """Start the table's build, and the figures of a state new on screen, on worker threads."""
        state = scene.shown_state
        if self._table_job is None:
            first = scene.controller.states[0]
            self._table_job = Job(lambda: self.table_of(first), name="tower-table")
        table = self.table
        if table is None:
            return
        if self._values_job is not None and self._values_job.done:
            if self._values_job.error is None:
                self._values, self._shown_for = self._values_job.result
            self._values_job = None
        if state is not self._state and self._values_job is None:
            self._state = state
            read = self._read(table, state)
            if read is not None:  # every car is in the table: a few lookups, no search
                self._values, self._shown_for = read, state
            else:  # a car stands where a lone car never does (spun to rest): a short search, off the frame loop
                self._values_job = Job(lambda: (self._count(table, state), state), name="tower-values")

    @staticmethod
    def _read(table, state) -> tuple | None:
        from game.race.debrief import table_remaining

        values = []
        for i in range(len(state.cars)):
            known, value = table_remaining(table, state, i)
            if not known:
                return None
            values.append(value)
        return tuple(values)

    @staticmethod
    def _count(table, state) -> tuple:
        from game.race.debrief import remaining

        return tuple(remaining(table, state, i) for i in range(len(state.cars)))

    def status(self) -> str:
        """"..." until the table and the first figures are ready, then ""."""
        return "" if self._values is not None else "..."

    def draw(self, surface: pygame.Surface, scene) -> None:
        size = surface.get_size()
        text_scale = scene.settings.text_scale
        key = (size, text_scale, self._values, id(self._shown_for), len(scene.pens))
        if key != self._image_key:
            image = self._compose(scene, size, text_scale)
            if pygame.display.get_surface() is not None:
                image = image.convert_alpha()  # a converted surface blits several times faster
            _, top = hud_size(size, len(scene.pens), text_scale)
            pad = max(3, font_size(size, text_scale) // 3)
            self._image, self._image_key = image, key
            self._place = (size[0] - image.get_width() - pad, top + pad)
        surface.blit(self._image, self._place)

    def _compose(self, scene, size, text_scale) -> pygame.Surface:
        """The tower as one surface: a heading, then a line per car (symbol, name, figure)."""
        text = scene.view.text
        name_size = max(12, int(font_size(size, text_scale) * 0.9))
        small = small_size(name_size)
        pad = max(3, name_size // 3)
        line_h = int(name_size * 1.25)
        state = self._shown_for
        names = [c.name for c in scene.controller.states[0].cars]
        name_w = max(text.render(n, name_size, theme.HUD_TEXT, True).get_width() for n in names)
        figure_w = text.render("+88", name_size, theme.HUD_TEXT, True).get_width()
        width = int(pad * 3 + name_size * 1.2 + name_w + figure_w + pad * 2)
        rows = tower_rows(state, self._values) if state is not None and self._values is not None else []
        height = pad * 2 + int(small * 1.3) + line_h * max(1, len(rows or names))
        surf = pygame.Surface((width, height), pygame.SRCALPHA)
        surf.blit(text.panel((width, height), theme.HUD_BG), (0, 0))
        pygame.draw.rect(surf, theme.GRAPHITE_LIGHT, surf.get_rect(), 1)
        text.blit(surf, "moves to go", small, theme.HUD_DIM, (pad, pad))
        y = pad + int(small * 1.3)
        if not rows:
            text.blit(surf, "...", name_size, theme.HUD_TEXT, (pad, y), bold=True)
            return surf
        for row in rows:
            pen = scene.pens[row.car]
            theme.draw_symbol(surf, pen.symbol, (pad + name_size * 0.5, y + line_h * 0.5), name_size * 0.36,
                              pen.color)
            text.blit(surf, names[row.car], name_size, pen.color, (pad * 2 + name_size, y), bold=True)
            color = theme.HUD_DIM if row.to_go is None and row.gap != "done" else theme.HUD_TEXT
            text.blit(surf, row.gap, name_size, color, (width - pad, y), "topright", bold=row.gap[:1] != "+")
            y += line_h
        return surf
