"""One moment of a race drawn on screen: used by the race scene and the replay viewer alike.

A :class:`RaceView` owns the board (cached paper and track), the camera and the HUD
text; :meth:`RaceView.draw` takes everything that changes as arguments (the state, the
phase animation, the targets to show), so drawing never changes the race.
"""

from __future__ import annotations

import math
from dataclasses import replace, dataclass, field
from typing import TYPE_CHECKING, Mapping, Sequence

import pygame

from game.core.race import FINISHED, Candidate, PhaseRecord, RaceState
from game.core.rules import Movement
from game.core.vec import Vec
from game.presentation import theme
from game.presentation.board import Board, Stroke, trail_strokes
from game.presentation import crowd
from game.presentation.camera import FOLLOW_LEVELS, Camera, legible_scale
from game.presentation.easing import clamp, out_back, out_cubic
from game.presentation.hud import (CarLine, draw_hud, draw_prompt, font_size, hud_size, prompt_height, race_places,
                                   small_size)
from game.presentation.paper_plan import FrameBudget
from game.presentation.text import TextCache

if TYPE_CHECKING:  # only named here: a still picture (``racetrack render``) loads no animation (nor the settings)
    from game.presentation.animation import PhaseAnimation

#: Fine paper is followed closely (the millimetre lattice needs about 3 pixels a node).
FINE_FOLLOW = FOLLOW_LEVELS[-1]
#: Squares kept round a chooser's car and targets when the camera frames them.
CHOOSER_PAD = 1.5
#: Most picture-in-picture insets shown at once (one per group of far-apart choosers).
MAX_INSETS = 3
#: An inset's paper work a frame: two tiles that have nothing to stand in for them (the rest
#: show as paper and are drawn over the next frames). The main view draws all of its own at
#: once (``RaceView.budget``'s ``sync`` None): a gap in the paper would show.
INSET_BUDGET = FrameBudget(sync=2)
#: Seconds a collision's label ("Ada spins Bo") stays up.
LABEL_SECONDS = 1.8


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
    countdown: str = ""  # "3", "2", "1", "Go!" before the first phase ("" otherwise)
    countdown_age: float = 0.0  # seconds since the countdown's current word appeared
    on_top: int | None = None  # the player whose rings are drawn over the others' (the last to aim)


@dataclass
class Inset:
    """A picture-in-picture view of one chooser far from the others: a window rectangle and
    its own camera at the main camera's zoom (so it blits the same cached paper)."""

    cars: tuple[int, ...]
    rect: pygame.Rect
    camera: Camera


Point = tuple[float, float]


def _pt(v: Vec) -> Point:
    return (float(v.x), float(v.y))


class RaceView:
    """Draws a race: board layer, strokes, cars, targets, effects and HUD."""

    def __init__(self, state: RaceState, names: Sequence[str], size: tuple[int, int], text: TextCache | None = None,
                 pens: Sequence[theme.Pen] | None = None, seed: int = 0, text_scale: float = 1.0,
                 reduce_motion: bool = False, progressive: bool = False) -> None:
        # progressive: drawn frame after frame (a screen, not a one-off picture), so a first
        # frame may show the paper rough and sharpen it over the next few (PaperSheet): no
        # frame draws a screenful of tiles.
        self.text = text or TextCache()
        self.text_scale = text_scale
        self.reduce_motion = reduce_motion
        self.insets: list[Inset] = []
        self.budget = FrameBudget()  # the main view's paper work a frame, in tiles
        self._fans: tuple[object, object] = (None, None)  # (state, record) -> the fans before and after
        self.pens = list(pens or theme.pens(len(state.cars)))
        self.names = list(names)
        self.board = Board(state.track, self.pens, self.text, seed=seed, progressive=progressive)
        self.camera = Camera(size, unit=self.board.unit)
        self._strokes_cache: tuple[int, object, list[Stroke]] = (0, None, [])
        self._places: tuple[object, list[int]] = (None, [])  # the HUD's places, per state shown
        self.drawn_labels: list = []  # the event labels of the last frame drawn: (words, rect, colour, size)
        self.night = None  # a night race's dark over the paper (game.presentation.night)
        if state.rules.night:
            from game.presentation.night import NightLayer
            self.night = NightLayer(state.track, state.rules)

    # -- camera ---------------------------------------------------------------
    def track_bounds(self) -> tuple[float, float, float, float]:
        left, top, right, bottom = self.board.bounds
        return (left - 1.0, top - 1.0, right + 1.0, bottom + 1.0)

    def legible(self) -> float:
        """Pixels per square while a player chooses (fine paper: at least its close-up zoom)."""
        scale = legible_scale(self.camera.size, self.text_scale)
        return max(scale, FINE_FOLLOW) if self.board.unit > 1 else scale

    def _keep_free(self, cars: int) -> tuple[float, float, float, float]:
        """Window space the camera keeps the track out of: the HUD above, the prompt below."""
        _, hud_h = hud_size(self.camera.size, cars, self.text_scale)
        return (0, hud_h, 0, prompt_height(self.camera.size, self.text_scale))

    def _box(self, pts: Sequence[Point], pad: float = 1.0) -> tuple[float, float, float, float]:
        u = self.board.unit
        xs, ys = [p[0] / u for p in pts], [p[1] / u for p in pts]
        return (min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad)

    def chooser_focus(self, state: RaceState, t: Targets) -> tuple[float, float, float, float]:
        """The squares one chooser must see: their car, base point and every target."""
        pts = [_pt(state.cars[t.car].position)] + [_pt(c.node) for c in t.candidates]
        if t.base is not None:
            pts.append(_pt(t.base))
        return self._box(pts, 0.5)

    def aim(self, state: RaceState, animation: PhaseAnimation | None, targets: Sequence[Targets] = (),
            pending: PhaseRecord | None = None) -> None:
        """Point the camera for this moment of the race.

        - Players choosing (``targets``): their cars, base points and targets, at the legible
          zoom (:meth:`legible`). Choosers too far apart to fit together at that zoom get
          one picture-in-picture inset per group instead of a smaller zoom for everyone.
        - A phase about to play (``pending``): pulled back, if need be, until every moving
          car's whole move fits (the race waits for the zoom to settle before playing it).
        - A phase playing (``animation``): panning only, following the moving cars.
        - Otherwise (CPUs thinking): every car and round its base point.
        Small tracks that fit whole at the legible zoom are shown whole.
        """
        keep = self._keep_free(len(state.cars))
        legible = self.legible()
        record = animation.record if animation is not None else pending
        groups: list[list[Targets]] = []
        if record is not None:
            pts = []
            for m in record.moves:
                pts += [_pt(m.start), _pt(m.target or m.start), _pt(m.end)]
            focus = self._box(pts) if pts else None
        elif targets:
            groups = self._group_choosers(state, targets, legible, keep)
            focus = self._group_focus(state, groups[0])
        else:
            reach = max(1, state.track.scale)
            pts = []
            for i, car in enumerate(state.cars):
                if car.racing:
                    pts.append(_pt(car.position))
                    bx, by = _pt(state.base_point(i))
                    pts += [(bx - reach, by - reach), (bx + reach, by + reach)]
            focus = self._box(pts) if pts else None
        choosing = record is None and bool(targets)
        main_keep = keep
        if len(groups) > 1:
            main_keep = (keep[0], keep[1], keep[2] + self._inset_width(), keep[3])
        self.camera.aim(self.track_bounds(), focus, (main_keep,), zoom_in=animation is None, follow_below=legible,
                        hold_zoom=animation is not None, pull_back=not choosing,
                        pad=CHOOSER_PAD if choosing else 2.0)
        self._place_insets(state, groups[1:] if self.camera.following else [], keep)
        if self.camera.following and self.board.sheet.overview is None:
            self.board.sheet.enable_overview()

    def _group_focus(self, state, group: Sequence[Targets]):
        boxes = [self.chooser_focus(state, t) for t in group]
        return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))

    def _group_choosers(self, state, targets: Sequence[Targets], legible: float, keep) -> list[list[Targets]]:
        """Choosers in groups that each fit the window at the legible zoom (the first: the main view)."""
        groups: list[list[Targets]] = []
        for t in targets:
            for group in groups:
                if self.camera.fits(self._group_focus(state, [*group, t]), legible, keep, CHOOSER_PAD):
                    group.append(t)
                    break
            else:
                groups.append([t])
        if len(groups) > 1 + MAX_INSETS:  # too many to show apart: the rest share the last inset
            groups = groups[:MAX_INSETS] + [[t for g in groups[MAX_INSETS:] for t in g]]
        return groups

    def _inset_width(self) -> int:
        return int(self.camera.size[0] * 0.34)

    def _place_insets(self, state, groups: Sequence[Sequence[Targets]], keep) -> None:
        """One inset per far group, stacked down the right edge between the HUD and the prompt."""
        if not groups:
            self.insets = []
            return
        w = self._inset_width()
        gap = max(4, int(self.camera.size[1] * 0.01))
        top, bottom = keep[1] + gap, self.camera.size[1] - keep[3] - gap
        h = int((bottom - top - gap * (len(groups) - 1)) / len(groups))
        old = {inset.cars: inset for inset in self.insets}
        insets = []
        for k, group in enumerate(groups):
            cars = tuple(t.car for t in group)
            rect = pygame.Rect(self.camera.size[0] - w - gap, top + k * (h + gap), w, h)
            inset = old.get(cars)
            if inset is None:
                inset = Inset(cars, rect, Camera(rect.size, unit=self.board.unit, drift_amount=0.0))
                fresh = True
            else:
                fresh = inset.rect != rect
                inset.rect = rect
                inset.camera.size = rect.size
            focus = self._group_focus(state, group)
            cam = inset.camera
            cam.target_scale = self.camera.target_scale
            cam.target_center = ((focus[0] + focus[2]) / 2, (focus[1] + focus[3]) / 2)
            cam.following = True
            if fresh:
                cam.snap()
            insets.append(inset)
        self.insets = insets

    def update(self, dt: float, drift: bool = True) -> None:
        """Move the camera (and the insets' cameras) on by ``dt`` seconds (under reduce motion
        it cuts straight to where it is going instead of gliding)."""
        self.camera.update(dt, drift=drift and not self.reduce_motion)
        if self.reduce_motion:
            self.camera.snap()
        for inset in self.insets:
            inset.camera.update(dt, drift=False)
            inset.camera.scale = self.camera.scale  # same zoom as the main view: same cached paper

    def resize(self, size: tuple[int, int]) -> None:
        self.camera.size = size
        self.insets = []

    # -- where targets are drawn ------------------------------------------------
    def ring_shifts(self, targets: Sequence[Targets]) -> dict[tuple[int, Vec], Point]:
        """How far (squares) each shown target's ring is moved off its node (shared nodes)."""
        u = self.board.unit
        sets = [(t.car, [(c.key, (c.node.x / u, c.node.y / u)) for c in t.candidates])
                for t in targets if t.movement != Movement.FINE]
        return crowd.ring_offsets(sets)

    def target_centres(self, targets: Sequence[Targets], car: int,
                       camera: Camera | None = None) -> dict[Vec, tuple[float, float]]:
        """Window pixels where ``car``'s rings are drawn, by candidate key (mouse picking uses these)."""
        cam = camera or self.camera
        shifts = self.ring_shifts(targets)
        out = {}
        for t in targets:
            if t.car != car:
                continue
            for c in t.candidates:
                x, y = cam.to_screen(_pt(c.node))
                dx, dy = shifts.get((car, c.key), (0.0, 0.0))
                out[c.key] = (x + dx * cam.scale, y + dy * cam.scale)
        return out

    def camera_at(self, pos: tuple[int, int]) -> tuple[Camera, tuple[int, int]]:
        """The camera showing a window pixel (an inset's, inside one) and the pixel in its frame."""
        for inset in self.insets:
            if inset.rect.collidepoint(pos):
                return inset.camera, (pos[0] - inset.rect.left, pos[1] - inset.rect.top)
        return self.camera, pos

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
        """Draw one frame: the paper and everything on it, the insets, the labels, the HUD."""
        shifts = self.ring_shifts(moment.targets)
        cars = self._draw_world(surface, self.camera, moment, shifts, main=True)
        for inset in self.insets:
            self._draw_inset(surface, inset, moment, shifts)
        if moment.animation is not None:
            self._draw_labels(surface, moment.animation, cars)
        elif moment.targets:
            self.drawn_labels = self.offer_labels(moment.state, moment.targets, cars, surface.get_size())
            self._blit_labels(surface)
        else:
            self.drawn_labels = []
        hud_state = self._hud_state(moment)
        if self._places[0] is not hud_state:
            self._places = (hud_state, race_places(hud_state))
        draw_hud(surface, self.text, hud_state, self.pens, self.names, moment.lines, moment.title, self._places[1],
                 text_scale=self.text_scale)
        draw_prompt(surface, self.text, moment.prompt, text_scale=self.text_scale)
        if moment.countdown:
            self._draw_countdown(surface, moment.countdown, moment.countdown_age)

    def _draw_inset(self, surface: pygame.Surface, inset: Inset, moment: Moment, shifts) -> None:
        rect = inset.rect.clip(surface.get_rect())
        if rect.width < 20 or rect.height < 20:
            return
        sub = surface.subsurface(rect)
        self._draw_world(sub, inset.camera, moment, shifts, main=False)
        pen = self.pens[inset.cars[0]]
        border = max(3, round(self.camera.size[1] / 270))
        pygame.draw.rect(surface, theme.PAPER, rect.inflate(border * 2 + 2, border * 2 + 2), 1)
        pygame.draw.rect(surface, pen.color, rect.inflate(border * 2, border * 2), border)
        size = small_size(font_size(self.camera.size, self.text_scale))
        label = " · ".join(self.names[c] for c in inset.cars)
        image = self.text.render(label, size, pen.color, bold=True)
        at = image.get_rect(topleft=(rect.left + border, rect.top + border))
        surface.blit(self.text.panel(at.inflate(size // 2, 2).size, theme.HUD_BG), at.inflate(size // 2, 2))
        self.text.put(surface, image, at, label)

    def _draw_world(self, surface: pygame.Surface, cam: Camera, moment: Moment, shifts,
                    main: bool) -> dict[int, Point]:
        """Paper, strokes, vectors, targets, cars and effects as ``cam`` sees them; returns
        where each car's symbol was drawn (pixels)."""
        board, state = self.board, moment.state
        outline = 1.0 if moment.intro >= 1.0 else out_cubic(moment.intro)
        # an inset draws no spare tiles of its own (the main view's idle work covers both) and
        # spends little time on missing ones, so opening one never stalls a frame
        board.blit_layer(surface, cam, self.strokes(moment.records), len(moment.records), outline,
                         idle=main and moment.animation is None, budget=self.budget if main else INSET_BUDGET)
        anim = moment.animation
        light = None
        if self.night is not None:  # at night: dark over the paper, under the cars and targets
            light = self.night.light(state, moment.records, anim)
            self.night.draw(surface, cam, light, moment.targets)
        positions: dict[int, Point] = {i: _pt(c.position) for i, c in enumerate(state.cars)}
        stages: dict[int, str] = {}
        if anim is not None:
            board.draw_strokes(surface, cam.to_screen, cam.scale, anim.live_strokes())
            for move, f in zip(anim.record.moves, anim.frames()):
                lean = (0.0, 0.0) if self.reduce_motion else anim.lean(move)
                positions[f.car] = (f.point[0] + lean[0], f.point[1] + lean[1])
                stages[f.car] = f.stage
            self._draw_events(surface, cam, anim)
        for car, point in moment.finish_points.items():
            board.draw_flag(surface, cam, point, 1.0)
        if anim is not None:
            for event, age in anim.fired():
                if event.kind == "finish" and event.point is not None:
                    board.draw_flag(surface, cam, event.point, 1.0 if self.reduce_motion else out_back(min(1.0, age / 0.4)))
                    if age < 1.4:
                        board.draw_confetti(surface, cam, event.point, self.pens[event.car], age / 1.4,
                                            seed=event.phase * 13 + event.car, still=self.reduce_motion)
        else:
            for i, car in enumerate(state.cars):
                if car.racing:
                    board.draw_vector(surface, cam, i, positions[i], _pt(state.base_point(i)))
        fan = self._fan(state, positions, anim)
        if moment.active is not None and anim is None:
            x, y = cam.to_screen(positions[moment.active])
            fx, fy = fan.get(moment.active, (0.0, 0.0))
            pulse = 0.0 if self.reduce_motion else 0.15 * math.sin(moment.clock * 5)
            r = board.car_radius(cam.scale) * (1.5 + pulse)
            pygame.draw.circle(surface, self.pens[moment.active].color, (x + fx * cam.scale, y + fy * cam.scale), r,
                               max(2, round(cam.scale / 12)))
        # the targets go under the cars (a player's rings never hide a car), the player who
        # aimed last on top of the other players' rings ...
        order = sorted(moment.targets, key=lambda t: t.car == moment.on_top)
        for t in order:
            if light is not None:  # no off-road warning on a target in the dark: that would show the road
                t = replace(t, candidates=self.night.veiled(t.candidates, light))
            if t.movement == Movement.FINE:
                board.draw_fine_targets(surface, cam, t.car, positions[t.car], t.candidates, t.highlight,
                                        t.base, t.reach)
            else:
                board.draw_candidates(surface, cam, t.car, positions[t.car], t.candidates, t.highlight, t.doomed,
                                      moment.show_doomed, base=t.base, shifts=self._pixel_shifts(shifts, t.car, cam),
                                      crowded=crowd.crowded(shifts, t.car))
        centres = {}
        for i, car in enumerate(state.cars):
            stage = stages.get(i, "still")
            out = not car.racing and car.status != FINISHED and anim is None
            fx, fy = fan.get(i, (0.0, 0.0))
            x, y = cam.to_screen(positions[i])
            centres[i] = (x + fx * cam.scale, y + fy * cam.scale)
            board.draw_car(surface, cam, i, positions[i], faded=out or stage == "crashed",
                           shift=(fx * cam.scale, fy * cam.scale), leader=stage not in ("moving", "restarting"))
        # ... and a ring a car stands on is drawn again round that car, so it can still be seen and picked
        for t in order:
            if t.movement != Movement.FINE:
                board.draw_rings_round_cars(surface, cam, t.car, t.candidates, t.highlight, centres.values(),
                                            shifts=self._pixel_shifts(shifts, t.car, cam))
        return centres

    @staticmethod
    def _pixel_shifts(shifts, car: int, cam: Camera) -> dict:
        """One car's ring shifts (squares, keyed by (car, key)) in pixels, keyed by candidate key."""
        return {key: (dx * cam.scale, dy * cam.scale) for (c, key), (dx, dy) in shifts.items() if c == car}

    def _fan(self, state: RaceState, positions: Mapping[int, Point], anim: PhaseAnimation | None) -> dict[int, Point]:
        """Shifts (squares) that fan out cars sharing a node. While a phase plays, the fan of
        the nodes the cars left gives way to the fan of the nodes they stop on, so cars that
        start or end together never pass through one another's symbols."""
        u = self.board.unit

        def fan_of(points):
            return crowd.fan_offsets({i: (p[0] / u, p[1] / u) for i, p in points.items()})
        if anim is None:
            return fan_of(positions)
        key = self._fans[0]
        if key is None or key[0] is not state or key[1] is not anim.record:  # the same fans all phase long
            before = fan_of({i: _pt(c.position) for i, c in enumerate(state.cars)})
            after = fan_of({**{i: _pt(c.position) for i, c in enumerate(state.cars)},
                            **{m.car: _pt(m.end) for m in anim.record.moves}})
            self._fans = ((state, anim.record), (before, after))
        before, after = self._fans[1]
        t = clamp(anim.travel, 0.0, 1.0)
        return {i: (before.get(i, (0.0, 0.0))[0] * (1 - t) + after.get(i, (0.0, 0.0))[0] * t,
                    before.get(i, (0.0, 0.0))[1] * (1 - t) + after.get(i, (0.0, 0.0))[1] * t) for i in positions}

    def _hud_state(self, moment: Moment) -> RaceState:
        return moment.state

    def _draw_events(self, surface: pygame.Surface, cam: Camera, anim: PhaseAnimation) -> None:
        board = self.board
        for k, age in anim.collisions_fired():
            col = anim.record.collisions[k]
            board.draw_burst(surface, cam, col.point, age / 0.6, seed=anim.record.phase * 31 + k)
        for move in anim.record.moves:
            restart = anim.restart_fraction(move)
            if restart is not None and move.crash_point is not None:
                board.draw_restart(surface, cam, move.crash_point, _pt(move.end), restart)
        for event, age in anim.fired():
            if event.kind == "off_track" and event.point is not None:
                board.draw_crash(surface, cam, event.point)

    def _draw_labels(self, surface: pygame.Surface, anim: PhaseAnimation, cars: Mapping[int, Point]) -> None:
        self.drawn_labels = self.labels(anim, cars, surface.get_size())  # where they were last drawn (tests)
        self._blit_labels(surface)

    def _blit_labels(self, surface: pygame.Surface) -> None:
        for words, band, color, size in self.drawn_labels:
            image = self.text.render(words, size, color, bold=True)
            surface.blit(self.text.panel(band.size, theme.HUD_BG), band)
            self.text.put(surface, image, image.get_rect(center=band.center), words)

    def labels(self, anim: PhaseAnimation, cars: Mapping[int, Point],
               size: tuple[int, int]) -> list[tuple[str, pygame.Rect, tuple, int]]:
        """What happened, in words, beside the cars it names ("Ada spins Bo", "Bo leaves the
        road"), as ``(words, rect, colour, font size)`` for a window of ``size``. Read from the
        top, the labels tell the phase in the order it happened (the oldest first), and none
        covers a car (``cars``: where each car's symbol is drawn, in pixels)."""
        cam = self.camera
        font = max(small_size(font_size(cam.size, self.text_scale)), int(cam.scale * 0.6))
        in_collision = {(m, "penalty") for col in anim.record.collisions for m in col.cars}
        items = []  # (age, words, point, colour, the cars it names)
        for k, age in anim.collisions_fired():
            if age < LABEL_SECONDS:
                col = anim.record.collisions[k]
                items.append((age, collision_label(anim.record, col, self.names), col.point, theme.DOOM, col.cars))
        for event, age in anim.fired():
            if event.point is None or age >= LABEL_SECONDS or (event.car, event.kind) in in_collision:
                continue
            if event.kind in ("penalty", "disqualified", "off_track", "lap", "checkpoint", "finish", "slipstream"):
                good = event.kind in ("lap", "checkpoint", "finish", "slipstream")
                color = self.pens[event.car].color if good else theme.DOOM
                items.append((age, event_label(event, self.names), event.point, color, (event.car,)))
        return self._placed(items, cars, size, font)

    def offer_labels(self, state: RaceState, targets: Sequence[Targets], cars: Mapping[int, Point],
                     size: tuple[int, int]) -> list[tuple[str, pygame.Rect, tuple, int]]:
        """While cars choose: beside each chooser that slipstream or catch-up gives an extra
        target this phase, the reason in words ("Ada: slipstream", "Bo: catch-up"), so a
        player knows why a ring with a plus appeared. Same form as :meth:`labels`."""
        cam = self.camera
        font = max(small_size(font_size(cam.size, self.text_scale)), int(cam.scale * 0.6))
        items = []
        for t in targets:
            if not any(getattr(c, "bonus", False) for c in t.candidates):
                continue
            car = state.cars[t.car]
            why = [w for w, on in (("slipstream", state.rules.slipstream and car.slipstream),
                                   ("catch-up", state.catches_up(t.car))) if on]
            if why:
                items.append((1.0, f"{self.names[t.car]}: {' + '.join(why)}", _pt(car.position),
                              self.pens[t.car].color, (t.car,)))
        # the words stand beside the car and its rings, never over a ring a player may choose
        rings = {t.car: list(self.target_centres(targets, t.car).values()) for t in targets} if items else {}
        return self._placed(items, cars, size, font, rings)

    def _placed(self, items, cars: Mapping[int, Point], size: tuple[int, int], font: int,
                rings: Mapping[int, Sequence[Point]] | None = None) -> list[tuple[str, pygame.Rect, tuple, int]]:
        """``items`` (age, words, point, colour, the cars it names) placed on screen, oldest
        first, covering no car and none of ``rings`` (each car's target centres, pixels):
        a label stands beside its cars and their rings together."""
        rings = rings or {}
        cam = self.camera
        items.sort(key=lambda item: -item[0])  # (a stable sort: what happened at once keeps the record's order)
        reach = self.board.car_radius(cam.scale)

        def box(x, y):
            return pygame.Rect(int(x - reach), int(y - reach), int(2 * reach) + 1, int(2 * reach) + 1)
        blocked = {car: box(*at) for car, at in cars.items()}
        taken: list[pygame.Rect] = []
        out = []
        for age, words, point, color, named in items:
            near = box(*cam.to_screen(point))
            near = near.unionall([blocked[c] for c in named if c in blocked] or [near])
            near = near.unionall([box(*at) for c in named for at in rings.get(c, ())] or [near])
            text_size = self.text.render(words, font, color, bold=True).get_size()
            band = self._place_label(text_size, font, near, age, pygame.Rect((0, 0), size), taken,
                                     list(blocked.values()) + [box(*at) for few in rings.values() for at in few])
            taken.append(band)
            out.append((words, band, color, font))
        return out

    def _place_label(self, text_size: tuple[int, int], font: int, near: pygame.Rect, age: float,
                     bounds: pygame.Rect, taken: Sequence[pygame.Rect], cars: Sequence[pygame.Rect]) -> pygame.Rect:
        """Where one label goes beside ``near`` (the cars it names): to their right, else their
        left, below or above, wherever it covers no car and stays on screen; below the labels
        already up (so they read in order), never over them."""
        gap = max(4, int(self.camera.scale * 0.2))
        slide = 0 if self.reduce_motion else int((1.0 - min(1.0, age / 0.3)) * self.camera.scale * 0.3)  # slides in
        best = None
        for side in ("right", "left", "below", "above"):
            band = pygame.Rect((0, 0), text_size).inflate(font // 2, font // 6)
            if side == "right":
                band.midleft = (near.right + gap + slide, near.centery)
            elif side == "left":
                band.midright = (near.left - gap - slide, near.centery)
            elif side == "below":
                band.midtop = (near.centerx, near.bottom + gap + slide)
            else:
                band.midbottom = (near.centerx, near.top - gap - slide)
            band.clamp_ip(bounds)
            for _ in range(len(taken)):
                hit = band.collidelist(list(taken))
                if hit < 0:
                    break
                band.top = taken[hit].bottom + 1  # below the older labels
            if best is None:
                best = band
            if band.collidelist(list(cars)) < 0 and bounds.contains(band):
                return band
        return best

    def _draw_countdown(self, surface: pygame.Surface, word: str, age: float) -> None:
        """The big "3, 2, 1, Go!" in the middle of the window before the first phase."""
        h = surface.get_height()
        base = int(h * 0.22 * max(0.5, min(1.5, self.text_scale)))
        grow = 1.0 if self.reduce_motion else 0.75 + 0.25 * out_back(clamp(age / 0.25, 0.0, 1.0))
        size = max(24, int(base * grow))
        color = theme.CHECKPOINT if word.lower().startswith("go") else theme.INK
        image = self.text.render(word, size, color, bold=True)
        rect = image.get_rect(center=(surface.get_width() // 2, int(h * 0.3)))  # above the framed car
        band = rect.inflate(size // 2, size // 8)
        surface.blit(self.text.panel(band.size, theme.HUD_BG), band)
        self.text.put(surface, image, rect, word)


def collision_label(record: PhaseRecord, collision, names: Sequence[str]) -> str:
    """A collision in words, naming the cars: "Ada spins Bo", "Ada knocks Bo out", "Ada and Bo crash out".

    The car that came in faster is named first (it did the hitting); what follows says
    what the rules did to them (the penalty events of the phase).
    """
    speed = {m.car: m.velocity_before.chebyshev() for m in record.moves}
    cars = sorted(collision.cars, key=lambda c: (-speed.get(c, 0), collision.cars.index(c)))
    out = {e.car for e in record.events if e.kind == "penalty" and e.car in cars and "out of the race" in e.detail}
    spun = {e.car for e in record.events if e.kind == "penalty" and e.car in cars and "spins" in e.detail}

    def listing(few) -> str:
        few = [names[c] for c in few]
        return few[0] if len(few) == 1 else ", ".join(few[:-1]) + " and " + few[-1]

    first, rest = cars[0], cars[1:]
    if out and set(cars) <= out:
        return f"{listing(cars)} crash out"
    if out:
        return f"{listing(sorted(set(cars) - out, key=cars.index))} knocks {listing(sorted(out, key=cars.index))} out"
    if spun:
        return f"{names[first]} spins {listing(rest)}"
    return f"{names[first]} hits {listing(rest)}"


def event_label(event, names: Sequence[str]) -> str:
    """One event in words with the car's name in it ("Bo leaves the road", "Ada: lap 2 of 3")."""
    name = names[event.car] if 0 <= event.car < len(names) else ""
    detail = event.detail or event.kind.replace("_", " ")
    if name and name in detail:
        return detail
    return f"{name}: {detail}" if name else detail
