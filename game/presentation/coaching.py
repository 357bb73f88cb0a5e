"""The coaching layer: target rings tinted by the moves they lead to, and the stopping distance.

A race scene layer (``RaceConfig.layers``) for the players who race with the coaching
assist (:mod:`game.race.coaching`): inside each of their target rings a tint says what
the target costs against the best one (green best, yellow +1, orange +2, red doomed,
with a tick, "+1", "+2" or "x" in it for players who do not tell the colours apart),
the ring itself in the player's colour round it, and a
dotted pencil line ahead of the car shows where it would stand braking as hard as it
can from its current speed.

Nothing is searched in the frame loop: the solver's table is the CPUs' own (asked for
on a worker thread; "coach ..." beside the car and untinted rings while it is built),
and a turn's grades are worked out on a worker thread once per (phase, car); a frame only
draws circles.
"""

from __future__ import annotations

import pygame

from game.core.vec import Vec
from game.presentation import crowd, theme
from game.presentation.hud import font_size
from game.presentation.jobs import Job
from game.race.coaching import grade_targets, stopping_path

#: The tint of each grade (green, yellow, orange, red: the yellow light and the orange deep, told apart
#: from the sofa), and the mark in a ring that is not the best (the best has a tick).
TINTS = {"best": (40, 160, 70), "+1": (235, 195, 30), "+2": (215, 105, 0), "doomed": theme.DOOM}
MARKS = {"+1": "+1", "+2": "+2", "doomed": "x"}


class CoachingLayer:
    """Coaching for the cars in ``cars``: ``update(race, dt)`` and ``draw(surface, race)``, ``race``
    the race screen's read-only ``LayerView``.

    ``table_of(state)`` gives the solver's table for the race (the CPUs' shared tables'
    ``waited_table``); it is called on a worker thread, as is every turn's grading.
    """

    def __init__(self, table_of, cars) -> None:
        self.table_of = table_of
        self.cars = frozenset(cars)
        self._table_job: Job | None = None
        self._grades: dict = {}  # (phase, car) -> {node: grade}
        self._job: Job | None = None
        self._job_key = None
        self._stops: tuple = (None, {})  # (the state on screen, {car: its stopping path}): worked out once a state

    @property
    def table(self):
        job = self._table_job
        return job.result if job is not None and job.done and job.error is None else None

    def status(self) -> str:
        """"..." while the table is being built, then ""."""
        return "" if self.table is not None else "..."

    def grades_for(self, phase: int, car: int) -> dict[Vec, str] | None:
        """The grades of ``car``'s targets in ``phase`` (None: not known yet)."""
        return self._grades.get((phase, car))

    def update(self, race, dt: float) -> None:
        """Start the table's build, and the grading of a coached player's new turn, on worker threads."""
        if self._table_job is None:
            first = race.controller.states[0]
            self._table_job = Job(lambda: self.table_of(first), name="coach-table")
        table = self.table
        if table is None:
            return
        if self._job is not None and self._job.done:
            if self._job.error is None:
                self._grades[self._job_key] = self._job.result
            self._job, self._job_key = None, None
        state = race.controller.state
        wanted = [(state.phase, t.car, t) for t in race.targets if t.car in self.cars]
        keys = {(phase, car) for phase, car, _ in wanted}
        self._grades = {k: v for k, v in self._grades.items() if k in keys}
        if self._job is not None:
            return
        for phase, car, t in wanted:
            if (phase, car) not in self._grades:
                nodes = [c.node for c in t.candidates]
                self._job_key = (phase, car)
                self._job = Job(lambda: grade_targets(table, state, car, nodes), name="coach-grades")
                break

    def draw(self, surface: pygame.Surface, race) -> None:
        view = race.view
        cam, board = view.camera, view.board
        targets = race.targets
        state = race.shown_state
        size = max(12, int(font_size(surface.get_size(), race.settings.text_scale) * 0.75))
        if race.animation is None:
            for car in sorted(self.cars):
                c = state.cars[car] if car < len(state.cars) else None
                if c is not None and c.racing:
                    self._draw_stop(surface, cam, board, race, car, c, self._stop_path(state, car))
        for t in targets:
            if t.car not in self.cars:
                continue
            grades = self.grades_for(race.controller.state.phase, t.car)
            if grades is None:
                x, y = cam.to_screen((float(state.cars[t.car].position.x), float(state.cars[t.car].position.y)))
                view.text.blit(surface, "coach ...", size, theme.HUD_DIM,
                               (x + board.car_radius(cam.scale) * 1.6, y), "midleft", bold=True)
                continue
            self._draw_grades(surface, race, t, grades)

    @staticmethod
    def _draw_grades(surface, race, t, grades: dict) -> None:
        """One player's grades, each inside that player's own ring: the ring's shape filled with the
        grade's tint and drawn again round it in the player's colour, the mark in the middle.

        Inside the ring, not round it: tinted rings drawn round the targets were as wide as the
        square between two targets, so two players choosing at once drew one tangle of coloured
        pen marks where nobody could tell whose ring said what. Filled in, a grade never leaves
        its owner's outline, and where two players target one node their rings already stand
        apart (:mod:`game.presentation.crowd`). The highlighted target keeps its filled symbol and
        halo; its grade is a dot in its middle.
        """
        view, cam, board = race.view, race.view.camera, race.view.board
        pen = race.pens[t.car]
        symbol = getattr(pen, "symbol", "circle")
        centres = view.target_centres(race.targets, t.car)
        crowded = crowd.crowded(view.ring_shifts(race.targets), t.car)
        r = board.ring_radius(cam.scale, crowded=crowded, many=len(t.candidates) > 12)
        width = board.ring_width(cam.scale)
        mark_px = int(r * 1.15)
        state = race.shown_state
        cars = [cam.to_screen((float(c.position.x), float(c.position.y))) for c in state.cars]
        round_car = board.car_radius(cam.scale) * 1.45
        for cand in t.candidates:
            grade = grades.get(cand.node)
            at = centres.get(cand.key)
            if grade is None or at is None or not cand.legal:
                continue
            tint = TINTS[grade]
            if any(abs(at[0] - x) < r and abs(at[1] - y) < r for x, y in cars):
                # a car stands there: the tint goes round the car, never over it (a band framed in the
                # player's colour, as the ring a car stands on is drawn round it)
                pygame.draw.circle(surface, pen.color, at, round_car + width * 2, width)
                pygame.draw.circle(surface, tint, at, round_car + width, width + 1)
                continue
            if cand.key == t.highlight:
                pygame.draw.circle(surface, tint, at, max(3.0, r * 0.5))
                pygame.draw.circle(surface, theme.INK, at, max(3.0, r * 0.5), 1)
                continue
            # a paper gap between the tint and the ring keeps the ring the owner's even where the tint is
            # near their colour (a vermillion player's +2)
            theme.draw_symbol(surface, symbol, at, r, theme.PAPER, outline=None)
            gap = max(1, width // 2) if r >= 12 else 0  # (a small ring keeps all its inside for the tint)
            theme.draw_symbol(surface, symbol, at, r - width - gap, tint, outline=None)
            theme.draw_symbol(surface, symbol, at, r, pen.color, filled=False, width=width)
            ink = theme.INK if grade == "+1" else theme.PAPER  # (dark on the yellow, light on the others)
            if grade == "best" and mark_px >= 12:
                k = r * 0.45  # a tick: the best is marked too, for eyes that do not tell the tints apart
                pygame.draw.lines(surface, ink, False, [(at[0] - k, at[1]), (at[0] - k * 0.3, at[1] + k * 0.7),
                                                        (at[0] + k, at[1] - k * 0.7)], max(2, width - 1))
            elif mark_px >= 12:  # (smaller, "+1" and "+2" were one smudge: the tint says it alone)
                view.text.blit(surface, MARKS[grade], mark_px, ink, at, "center", bold=True)

    def _stop_path(self, state, car: int) -> list:
        shown, paths = self._stops
        if shown is not state:
            paths = {}
            self._stops = (state, paths)
        if car not in paths:
            c = state.cars[car]
            paths[car] = stopping_path(state.rules, c.position, c.velocity)
        return paths[car]

    @staticmethod
    def _draw_stop(surface, cam, board, race, car: int, c, path) -> None:
        """The stopping distance: dots on the nodes a hard brake passes, a cross where the car would stand."""
        if not path:
            return
        color = race.pens[car].color
        points = [cam.to_screen((float(c.position.x), float(c.position.y)))]
        points += [cam.to_screen((float(p.x), float(p.y))) for p in path]
        dot = max(2, round(cam.scale / 14))
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            steps = max(1, int(((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5 // (dot * 4)))
            for k in range(1, steps):  # a dotted pencil line: the car is not going there, it could
                pygame.draw.circle(surface, color, (x0 + (x1 - x0) * k / steps, y0 + (y1 - y0) * k / steps), dot / 2)
        for p in points[1:-1]:
            pygame.draw.circle(surface, color, p, dot)
        x, y = points[-1]
        half = board.car_radius(cam.scale) * 0.7
        pygame.draw.line(surface, color, (x - half, y), (x + half, y), max(2, dot))
        pygame.draw.line(surface, color, (x, y - half), (x, y + half), max(2, dot))
