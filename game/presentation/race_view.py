"""One moment of a race drawn on screen: used by the race scene and the replay viewer alike.

A :class:`RaceView` owns the board (cached paper and track), the camera and the HUD
text; :meth:`RaceView.draw` takes everything that changes as arguments (the state, the
phase animation, the targets to show), so drawing never changes the race.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import pygame

from game.core.race import Candidate, PhaseRecord, RaceState
from game.core.vec import Vec
from game.presentation import theme
from game.presentation.animation import PhaseAnimation
from game.presentation.board import Board, Stroke, trail_strokes
from game.presentation.camera import FOLLOW_BELOW, FOLLOW_LEVELS, Camera

#: Fine paper is followed closely (the millimetre lattice needs about 3 pixels a node).
FINE_FOLLOW = FOLLOW_LEVELS[-1]
from game.presentation.easing import out_back, out_cubic
from game.presentation.hud import CarLine, draw_hud, draw_prompt, font_size, hud_size, race_places
from game.presentation.text import TextCache


@dataclass
class Targets:
    """The targets one car is choosing among, as shown on screen."""

    car: int
    candidates: Sequence[Candidate]
    highlight: Vec | None
    doomed: frozenset = frozenset()
    base: Vec | None = None  # the base point (marked with a dot)
    movement: str = "nine"
    reach: int = 1  # fine paper: lattice units the velocity may change per axis


@dataclass
class Moment:
    """Everything :meth:`RaceView.draw` needs to know about one frame."""

    state: RaceState  # the state before the animated phase (or the current one)
    records: Sequence[PhaseRecord]  # phases already drawn as finished strokes
    animation: PhaseAnimation | None = None
    targets: Sequence[Targets] = ()
    show_doomed: bool = True
    intro: float = 1.0  # pencil draw-in of the border, 0..1
    lines: Sequence[CarLine] = ()
    prompt: str = ""
    title: str = ""
    finish_points: Mapping[int, Point] = field(default_factory=dict)
    active: int | None = None  # the car to move in ordered modes (a ring round it)
    clock: float = 0.0  # seconds, for gentle pulsing


Point = tuple[float, float]


def _pt(v: Vec) -> Point:
    return (float(v.x), float(v.y))


class RaceView:
    """Draws a race: board layer, strokes, cars, targets, effects and HUD."""

    def __init__(self, state: RaceState, names: Sequence[str], size: tuple[int, int], text: TextCache | None = None,
                 pens: Sequence[theme.Pen] | None = None, seed: int = 0) -> None:
        self.text = text or TextCache()
        self.pens = list(pens or theme.pens(len(state.cars)))
        self.names = list(names)
        self.board = Board(state.track, self.pens, self.text, seed=seed)
        self.camera = Camera(size, unit=self.board.unit)
        self._strokes_cache: tuple[int, object, list[Stroke]] = (0, None, [])
        self._places: tuple[object, list[int]] = (None, [])  # the HUD's places, per state shown

    # -- camera ---------------------------------------------------------------
    def track_bounds(self) -> tuple[float, float, float, float]:
        left, top, right, bottom = self.board.bounds
        return (left - 1.0, top - 1.0, right + 1.0, bottom + 1.0)

    def aim(self, state: RaceState, animation: PhaseAnimation | None, targets: Sequence[Targets] = ()) -> None:
        """Point the camera at the whole track, or (large tracks) at the cars and their targets."""
        pts: list[Point] = []
        if animation is not None:
            for m in animation.record.moves:
                pts.append(_pt(m.start))
                pts.append(_pt(m.target or m.start))
                pts.append(_pt(m.end))
        else:
            # every car, and round its base point the targets it can reach, so that the phase
            # about to play fits at this zoom (a playing phase only pans: see Camera.aim)
            reach = max(1, state.track.scale)
            for i, car in enumerate(state.cars):
                if car.racing:
                    pts.append(_pt(car.position))
                    bx, by = _pt(state.base_point(i))
                    pts += [(bx - reach, by - reach), (bx + reach, by + reach)]
        for t in targets:
            pts.extend(_pt(c.node) for c in t.candidates)
        focus = None
        if pts:
            u = self.board.unit
            xs, ys = [p[0] / u for p in pts], [p[1] / u for p in pts]
            focus = (min(xs) - 1, min(ys) - 1, max(xs) + 1, max(ys) + 1)
        _, hud_h = hud_size(self.camera.size, len(state.cars))
        prompt = font_size(self.camera.size) * 2
        self.camera.aim(self.track_bounds(), focus, ((0, hud_h, 0, prompt),),
                        zoom_in=animation is None, follow_below=FINE_FOLLOW if self.board.unit > 1 else FOLLOW_BELOW,
                        hold_zoom=animation is not None)
        if self.camera.following and self.board.sheet.overview is None:
            self.board.sheet.enable_overview()

    def resize(self, size: tuple[int, int]) -> None:
        self.camera.size = size

    # -- drawing --------------------------------------------------------------
    def strokes(self, records: Sequence[PhaseRecord]) -> list[Stroke]:
        """Every finished stroke of the given phases (extended, not rebuilt, as a race goes on)."""
        count = len(records)
        done, last, strokes = self._strokes_cache
        if count == done and (not count or records[-1] is last):
            return strokes
        if count > done and (not done or records[done - 1] is last):
            strokes = strokes + trail_strokes(records[done:])
        else:
            strokes = trail_strokes(records)
        self._strokes_cache = (count, records[-1] if count else None, strokes)
        return strokes

    def draw(self, surface: pygame.Surface, moment: Moment) -> None:
        cam, board, state = self.camera, self.board, moment.state
        outline = 1.0 if moment.intro >= 1.0 else out_cubic(moment.intro)
        board.blit_layer(surface, cam, self.strokes(moment.records), len(moment.records), outline,
                         idle=moment.animation is None)
        anim = moment.animation
        positions: dict[int, Point] = {i: _pt(c.position) for i, c in enumerate(state.cars)}
        stages: dict[int, str] = {}
        if anim is not None:
            board.draw_strokes(surface, cam.to_screen, cam.scale, anim.live_strokes())
            for f in anim.frames():
                positions[f.car] = f.point
                stages[f.car] = f.stage
            self._draw_events(surface, anim)
        for car, point in moment.finish_points.items():
            board.draw_flag(surface, cam, point, 1.0)
        if anim is not None:
            for event, age in anim.fired():
                if event.kind == "finish" and event.point is not None:
                    board.draw_flag(surface, cam, event.point, out_back(min(1.0, age / 0.4)))
        else:
            for i, car in enumerate(state.cars):
                if car.racing:
                    board.draw_vector(surface, cam, i, positions[i], _pt(state.base_point(i)))
        for t in moment.targets:
            if t.movement == "fine":
                board.draw_fine_targets(surface, cam, t.car, positions[t.car], t.candidates, t.highlight,
                                        t.base, t.reach)
            else:
                board.draw_candidates(surface, cam, t.car, positions[t.car], t.candidates, t.highlight, t.doomed,
                                      moment.show_doomed, base=t.base)
        if moment.active is not None and anim is None:
            c = cam.to_screen(positions[moment.active])
            r = board.car_radius(cam.scale) * (1.7 + 0.15 * math.sin(moment.clock * 5))
            pygame.draw.circle(surface, self.pens[moment.active].color, c, r, 2)
        for i, car in enumerate(state.cars):
            stage = stages.get(i, "still")
            out = not car.racing and car.status != "finished" and anim is None
            board.draw_car(surface, cam, i, positions[i], faded=out or stage == "crashed")
        hud_state = self._hud_state(moment)
        if self._places[0] is not hud_state:
            self._places = (hud_state, race_places(hud_state))
        draw_hud(surface, self.text, hud_state, self.pens, self.names, moment.lines, moment.title, self._places[1])
        draw_prompt(surface, self.text, moment.prompt)

    def _hud_state(self, moment: Moment) -> RaceState:
        return moment.state

    def _draw_events(self, surface: pygame.Surface, anim: PhaseAnimation) -> None:
        cam, board = self.camera, self.board
        for k, age in anim.collisions_fired():
            col = anim.record.collisions[k]
            board.draw_burst(surface, cam, col.point, age / 0.6, seed=anim.record.phase * 31 + k)
        for event, age in anim.fired():
            if event.kind == "off_track" and event.point is not None:
                board.draw_crash(surface, cam, event.point)
            if event.kind in ("penalty", "disqualified", "off_track", "lap", "checkpoint") and event.point is not None \
                    and age < 1.2:
                size = max(12, int(cam.scale * 0.55))
                x, y = cam.to_screen(event.point)
                rise = age * cam.scale * 0.8
                color = self.pens[event.car].color if event.kind in ("lap", "checkpoint") else theme.DOOM
                text = event.detail.replace(self.names[event.car] + " ", "") if event.detail else event.kind
                self.text.blit(surface, text, size, color, (x, y - cam.scale * 0.6 - rise), "midbottom", bold=True)
