"""The race as the couch game plays it: the race screen plus line-up pens, sound, pad hot-plug,
the pause menu, the pen-flick controls and the results screen at the end.

:class:`GameRaceScene` extends the race screen's :class:`RaceScene` (it does not change
it): cars wear the colours and symbols picked in the lobby, phase events make sounds, a
pulled gamepad pauses the race until any pad takes its car back, Esc / Start opens
:class:`~game.presentation.menus.pause.PauseMenuScene`, and when the race is over the
scene hands over to :class:`~game.presentation.menus.results.ResultsScene`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from game.core.race import RaceState
from game.core.rules import Movement, RuleSet
from game.core.track import Track
from game.drivers.base import HumanDriver
from game.presentation import theme
from game.presentation.flick import FlickControls, draw_flick
from game.presentation.hud import CarLine
from game.presentation.timer_ring import HURRY_SECONDS, draw_timer_rings, seconds_text, timer_rings
from game.presentation.input import Confirm, DeviceAdded, DeviceRemoved, Pause, Select
from game.presentation.race_scene import RaceScene, RaceSettings
from game.presentation.race_view import RaceView
from game.presentation.replay_scene import ReplayViewerScene
from game.presentation.menus.seats import SeatDevices, SeatSpec
from game.race.controller import InlinePlanner, RaceController, Seat
from game.tracks.catalogue import TrackEntry  # noqa: F401 - the menus' name for it
from game.race.timer import ManualClock, MoveTimer


@dataclass(frozen=True)
class RacePlan:
    """Everything needed to start (or restart) a race: line-up, track, rules, laps."""

    lineup: tuple[SeatSpec, ...]
    entry: TrackEntry
    rules: RuleSet
    laps: int
    timer: int = 0  # the move timer, seconds per choice (0: off)


def pens_for(lineup) -> list[theme.Pen]:
    return [theme.Pen(theme.COLORS[s.color], theme.SYMBOLS[s.symbol]) for s in lineup]


def make_driver_for(ctx, spec: SeatSpec, rules: RuleSet):
    """The driver of a seat: a human, the flick CPU in the party mode, else the solver CPUs."""
    if spec.is_human:
        return HumanDriver()
    if rules.movement == Movement.FLICK:
        from game.drivers.flick import RouteFields, make_flick_driver

        if getattr(ctx, "flick_fields", None) is None:
            ctx.flick_fields = RouteFields()  # one set of route fields for every flick CPU of the game
        return make_flick_driver(spec.kind, ctx.flick_fields)
    from game.drivers.cpu import make_driver

    return make_driver(spec.kind, shared=ctx.cpu_shared)


def make_timer(ctx, plan: RacePlan) -> MoveTimer | None:
    """The plan's move timer on a clock of its own (the race scene moves it on while players choose)."""
    if not plan.timer:
        return None
    fallback = make_driver_for(ctx, SeatSpec("Champion", 0, 0, "cpu:champion"), plan.rules)
    if plan.rules.movement != Movement.FLICK:
        from game.drivers.cpu import stand_in

        # The same tables, but the race's CPUs must not take the player's seat for a Champion's.
        fallback = stand_in("cpu:champion", ctx.cpu_shared)
    return MoveTimer(plan.timer, ManualClock(), fallback)


def start_race(ctx, plan: RacePlan, cls=None, seed: int | None = None, **scene_args) -> GameRaceScene:
    """A new race scene for the plan (a fresh seed from the context's rng unless one is given)."""
    seed = ctx.rng.randrange(2 ** 31) if seed is None else seed
    names = [s.name for s in plan.lineup]
    state = RaceState.start(plan.entry.track, plan.rules, names, laps=plan.laps, seed=seed)
    seats = [Seat(s.name, make_driver_for(ctx, s, plan.rules)) for s in plan.lineup]
    planner = ctx.planner() if ctx.planner is not None else InlinePlanner()
    controller = RaceController(state, seats, planner=planner, timer=make_timer(ctx, plan))
    if any(not s.is_human for s in plan.lineup) and plan.rules.movement != Movement.FLICK:
        from game.race.headstart import build_table_early

        build_table_early(ctx.cpu_shared, state)  # while the race screen counts down
    return (cls or GameRaceScene)(ctx, plan, controller, **scene_args)


class GameRaceScene(RaceScene):
    """A race started from the menus; see the module docstring."""

    def __init__(self, ctx, plan: RacePlan, controller: RaceController, intro: bool = True) -> None:
        self.ctx = ctx
        self.plan = plan
        self.seats = SeatDevices.from_lineup(list(plan.lineup))
        settings = RaceSettings(replay_speed=ctx.settings.replay_speed, show_doomed=ctx.settings.show_doomed,
                                intro=intro, text_scale=ctx.settings.scale,
                                reduce_motion=ctx.settings.reduce_motion)
        title = f"{plan.entry.name} · {plan.rules.name}" + (" · pen flick" if plan.rules.movement == Movement.FLICK else "")
        self.pens = pens_for(plan.lineup)
        super().__init__(controller, ctx.size, devices=self.seats.devices, settings=settings, text=ctx.text,
                         title=title, cpu_status=ctx.cpu_note, pens=self.pens)
        self.devices = self.seats.devices  # one mapping, shared with the seat manager
        self.flick = FlickControls(self) if plan.rules.movement == Movement.FLICK else None
        self._heard: set[tuple[int, int]] = set()
        self._scratched = -1
        self._timeouts_told = 0
        self._ticked: set[tuple[int, int, int]] = set()
        self.done = False

    # -- devices --------------------------------------------------------------
    def car_for(self, source: str) -> int | None:
        if source in self.devices:
            return self.devices[source]
        if source.startswith("pad:"):
            return self.seats.claim(source)  # only a car whose pad was pulled may be taken over
        if source.startswith("kb") and source not in self.devices and any(
                s.startswith("kb") for s in self.devices):
            return None  # the other keyboard block belongs to nobody in this race
        return super().car_for(source)

    def orphan_message(self) -> str:
        names = [self.controller.seats[c].name for c in self.seats.orphans]
        if not names:
            return ""
        return f"{' and '.join(names)}: gamepad unplugged. Press A on any free gamepad to take the car back."

    def handle(self, action) -> None:
        if isinstance(action, DeviceRemoved):
            car = self.seats.unplugged(action.source)
            if car is not None and not self.controller.over:
                self.ctx.screens.push(self.stack, "pause", self.ctx, self)
            return
        if isinstance(action, DeviceAdded):
            return
        if isinstance(action, Pause):
            if not self.controller.over:
                self.ctx.screens.push(self.stack, "pause", self.ctx, self)
            return
        if self.flick is not None and self.mode == "choosing" and self.flick.handle(action):
            return
        super().handle(action)

    # -- time -----------------------------------------------------------------
    def update(self, dt: float) -> None:
        timer = self.controller.timer
        if timer is not None and self.mode == "choosing" and isinstance(timer.clock, ManualClock):
            timer.clock.advance(dt)  # the move timer runs only while players choose
        super().update(dt)
        if timer is not None:
            self._timer_news(timer)
        if self.flick is not None:
            self.flick.update(dt)
        self._sounds()
        if self.mode == "finished" and not self.done:
            self.done = True
            self.stack.replace(self.results_scene())

    def results_scene(self):
        """The screen the race hands over to when it is over (a cup shows its standings instead)."""
        return self.ctx.screens.make("results", self.ctx, self.plan, self.controller)

    def restart_scene(self):
        """The same race from the start, for the pause menu's *Restart* (a new seed)."""
        return start_race(self.ctx, self.plan)

    def _timer_news(self, timer) -> None:
        """Say what the move timer took, and tick through a player's last seconds."""
        while self._timeouts_told < len(timer.timeouts):
            told = timer.timeouts[self._timeouts_told]
            self._timeouts_told += 1
            name = self.controller.seats[told.car].name
            self.flash(f"{name}: time's up, " + ("the car keeps its line" if told.kept_line
                                                  else "the Champion steers this move"))
            self.ctx.audio.play("back")
        for ring in timer_rings(self.controller):
            second = math.ceil(ring.seconds)
            key = (self.controller.state.phase, ring.car, second)
            if second <= HURRY_SECONDS and key not in self._ticked:
                self._ticked.add(key)
                self.ctx.audio.play("tick")

    def _lines(self):
        lines = super()._lines()
        if self.mode != "choosing":
            return lines
        for ring in timer_rings(self.controller):
            lines[ring.car] = CarLine(f"{lines[ring.car].marker} {seconds_text(ring.seconds)}".strip())
        return lines

    def _sounds(self) -> None:
        anim = self.animation
        if anim is None:
            return
        phase = anim.record.phase
        if self._scratched != phase and any(m.target is not None for m in anim.record.moves):
            self._scratched = phase
            self.ctx.audio.play("scratch")
        for k, (event, _) in enumerate(anim.fired()):
            key = (phase, hash((event.car, event.kind, event.detail, event.time)))
            if key in self._heard:
                continue
            self._heard.add(key)
            if event.kind == "finish":
                self.ctx.audio.play("fanfare")
            elif event.kind in ("off_track", "collision"):
                self.ctx.audio.play("crash")

    # -- drawing --------------------------------------------------------------
    def _targets(self):
        return [] if self.flick is not None else super()._targets()

    def _prompt(self) -> str:
        if self.flick is not None and self.mode == "choosing" and self.message_time <= 0 and self.flick.choosing():
            return "Aim: stick / d-pad / block keys (arrows turn)  ·  flick: A / Enter / middle key  ·  time the meter!"
        return super()._prompt()

    def draw(self, surface) -> None:
        super().draw(surface)
        if self.flick is not None and self.mode == "choosing":
            draw_flick(surface, self, self.flick)
        if self.mode == "choosing":
            draw_timer_rings(surface, self.view, self.controller.state, timer_rings(self.controller), self.clock)


class GameReplayViewer(ReplayViewerScene):
    """The replay viewer with the line-up's pens (so a replay looks like the race)."""

    def __init__(self, ctx, states, records, lineup, seed: int = 0) -> None:
        names = [s.name for s in lineup]
        super().__init__(states, records, names, ctx.size, ctx.text, seed=seed)
        self.view = RaceView(states[0], names, ctx.size, ctx.text, pens=pens_for(lineup), seed=seed)
        self.speed = ctx.settings.replay_speed
        self._aim()
        self.view.camera.snap()
