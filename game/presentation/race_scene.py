"""The race screen: choosing targets, then every phase played out at once.

Modes, in order (:mod:`game.presentation.race_modes`, one object each): ``intro`` (the
border is pencilled in, then "3, 2, 1" counts down; "Go!" stays up over the first moments
of choosing), then ``choosing`` and ``replay`` in turn until the race is over, then
``finished`` (results; Confirm opens the replay viewer). The
:class:`~game.race.controller.RaceController` holds the race; this scene only turns actions
into submissions and animates the records it gets back.

Who controls which car is :class:`~game.presentation.seating.SeatRouter`'s (``devices``
maps an input source, ``"kb1"``, ``"kb2"``, ``"pad:<id>"``, to a car; other sources act for
the human whose turn it is; a new gamepad takes a free seat); what a press does to a car's
highlighted target is :class:`~game.presentation.choice_input.ChoiceInput`'s. Neither
imports pygame, and both have their own tests. A phone (``"phone:<n>"``,
``game.presentation.phones``) acts only for its own car, aims and confirms with ``PickKey``,
and its car's aim is never drawn here (blind picks: its line says "chosen").

One scene plays every race, the quick race and each race of the menus alike; what
differs between them is a :class:`RaceConfig` (the pens, who drives which car, the
pause screen, what happens at the finish, sounds, the pen-flick controls, layers drawn
over the race such as a ghost or the tutorial's card). The quick race uses the defaults;
``game.presentation.menus.race.start_race`` fills one in from the menus' plan. Layers read
the race through a :class:`LayerView`, never the scene itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

import pygame

from game.core.movement import GRID_SYSTEMS
from game.core.rules import Movement
from game.core.vec import Vec
from game.presentation import choosing
from game.presentation.animation import SPEEDS, PhaseAnimation
from game.presentation.assist import DoomedMarks
from game.presentation.choice_input import ChoiceInput
from game.presentation.hud import CarLine
from game.presentation.input import (Aim, Back, ChangeSpeed, ClickAt, Confirm, DeviceAdded, DeviceRemoved, MoveCursor,
                                     Pause, PickKey, PointAt, Select, ToggleAssist)
from game.presentation.race_modes import (BY_NAME, COUNT_SECONDS, COUNTDOWN, GO_SECONDS, INTRO_SECONDS,  # noqa: F401
                                          PENCIL_SECONDS, Choosing, Finished, Intro, Mode, Replay)
from game.presentation.race_view import Moment, RaceView, Targets
from game.presentation.scene import Scene
from game.presentation.seating import HINTS, SeatRouter
from game.presentation.text import TextCache
from game.presentation.timer_ring import HURRY_SECONDS, timer_rings
from game.race.controller import RaceController
from game.race.timer import ManualClock
from game.tracks.pack import pinned_par

@dataclass
class RaceSettings:
    """Player-facing options of the race screen (a later settings menu edits these)."""

    replay_speed: float = 1.0
    show_doomed: bool = True
    intro: bool = True
    camera_drift: bool = True
    text_scale: float = 1.0  # the player's text-size setting: the legible zoom and the HUD grow with it
    reduce_motion: bool = False  # no shake, drift, pulsing, bouncing or flying confetti

    @classmethod
    def of_player(cls, settings, **fields) -> "RaceSettings":
        """The race options out of the player's saved ``game.settings.Settings``; ``fields``
        set the rest (``intro=False``)."""
        return cls(replay_speed=settings.replay_speed, show_doomed=settings.show_doomed,
                   text_scale=settings.scale, reduce_motion=settings.reduce_motion, **fields)


@dataclass
class RaceConfig:
    """What differs between the races the game plays on the one race screen.

    The defaults are the quick race (``racetrack play --track ...``): the default pens,
    keyboard blocks for the first two humans and a gamepad taking the first free seat,
    the plain pause overlay, the results drawn over the track at the finish (Confirm
    watches the replay), no sound. The menus fill in the rest (``menus.race.start_race``).
    """

    title: str = ""  # the race line's name ("": track · rules)
    settings: RaceSettings = field(default_factory=RaceSettings)
    pens: Sequence | None = None  # each car's colour and symbol (None: the default pens)
    cpu_status: Callable[[], str] | None = None  # why the CPUs are slower than usual ("" when they are not)
    #: Input source -> car (None: "kb1" and "kb2" for the first two humans).
    devices: dict[str, int] | None = None
    #: The menus' seats (``menus.seats.SeatDevices``): only a car whose pad was pulled may be taken
    #: by another pad, and the other keyboard block drives nobody. None: a pad takes the first free seat.
    seats: Any = None
    #: Every input source drives the lone human (the tutorial: whatever the player presses works).
    any_device: bool = False
    #: Opens the pause screen: ``pause(scene, unplugged)``, ``unplugged`` the name of the car whose
    #: gamepad was pulled (None for the Pause key). None: the plain overlay (``pause_scene``).
    pause: Callable[[Any, str | None], None] | None = None
    #: The screen the race hands over to once every phase has played (None: the results over the track).
    finish: Callable[[Any], Scene] | None = None
    #: A new scene of the same race from the start (the pause menu's *Restart*).
    restart: Callable[[], Scene] | None = None
    audio: Any = None  # plays the phase's sounds and the move timer's last seconds (None: silent)
    flick: bool = False  # the pen-flick controls (the party mode) instead of target rings
    #: The race line at the top (None: the title, the phase and the race's par).
    heading: Callable[[Any], str] | None = None
    #: The par of the race being run, under its own rules and laps: a number, None (none), or
    #: anything else while it is being worked out. None here: the par the track's pack pins,
    #: shown only when the race is run under the track's own rules and laps.
    par: Callable[[], Any] | None = None
    #: Drawn over the race, each with ``draw(surface, race)`` and ``update(race, dt)``, ``race`` a
    #: read-only :class:`LayerView` (a ghost, a card, the timing tower).
    layers: tuple = ()


def plain_pause(scene, unplugged: str | None = None) -> None:
    """The quick race's pause: an overlay that waits (a pulled pad says so, unless the race is over)."""
    from game.presentation.pause_scene import PauseScene

    if unplugged is None:
        scene.stack.push(PauseScene(scene.view.text))
    elif not scene.finished:
        scene.stack.push(PauseScene(scene.view.text, f"{unplugged}'s gamepad was unplugged: plug it back in "
                                    "(or play on with the keyboard)"))


class LayerView:
    """What a layer drawn over the race (a ghost, the tutorial's card, the timing tower) may read
    of the race screen: the race, the view it is drawn in and what is on screen, no more.

    Read-only: a layer that wants the race to change goes through race control like everyone."""

    def __init__(self, scene: "RaceScene") -> None:
        self._scene = scene

    @property
    def controller(self) -> RaceController:
        return self._scene.controller

    @property
    def view(self) -> RaceView:
        return self._scene.view

    @property
    def pens(self):
        return self._scene.view.pens

    @property
    def settings(self) -> RaceSettings:
        return self._scene.settings

    @property
    def title(self) -> str:
        return self._scene.title

    @property
    def mode(self) -> str:
        return self._scene.mode

    @property
    def shown(self) -> int:
        return self._scene.shown

    @property
    def shown_state(self):
        return self._scene.shown_state

    @property
    def animation(self) -> PhaseAnimation | None:
        return self._scene.animation

    @property
    def targets(self):
        """The target rings drawn this frame (the choosing players'; none while a phase plays)."""
        return self._scene._mode.targets(self._scene)

    @property
    def clock(self) -> float:
        return self._scene.clock

    def phase_number(self) -> int:
        return self._scene.phase_number()

    def phone_seats(self) -> list[tuple[str, int]]:
        """The phone seats, ``(device, car)``: seated, then away (their car waits for them)."""
        return self._scene.router.phone_seats()

    def aim(self, car: int) -> Vec | None:
        """The key a human car has highlighted (its home until moved)."""
        return self._scene.current_key(car)

    def doomed(self, car: int):
        """The car's doomed targets this phase (None until the search off the frame loop knows them)."""
        return self._scene.doomed_for(car)


class RaceScene(Scene):
    """Plays a race held by a controller; see the module docstring for the modes and devices.

    The phase of the race on screen is a :mod:`~game.presentation.race_modes` object; who
    drives which car is the :class:`~game.presentation.seating.SeatRouter`'s, the highlighted
    targets and what a press does to them the :class:`~game.presentation.choice_input.ChoiceInput`'s.
    """

    takes_phones = True  # phone seats (``phone:<n>``, game.presentation.phones) drive their cars here

    def __init__(self, controller: RaceController, size: tuple[int, int], config: RaceConfig | None = None,
                 text: TextCache | None = None, **fields) -> None:
        """``fields`` are :class:`RaceConfig` fields given one by one (``settings=...``, ``devices=...``)."""
        super().__init__()
        config = replace(config or RaceConfig(), **fields)
        self.config = config
        self.controller = controller
        # Why the CPUs are slower than usual ("" when they are not): the first start after an
        # install, while their compiled search is being prepared (game.drivers.compiling).
        self.cpu_status = config.cpu_status
        self.settings = config.settings
        names = [seat.name for seat in controller.seats]
        self.view = RaceView(controller.state, names, size, text, pens=config.pens, seed=controller.seed,
                             text_scale=self.settings.text_scale, reduce_motion=self.settings.reduce_motion,
                             progressive=True)
        self.pens = self.view.pens
        humans = [i for i, s in enumerate(controller.seats) if s.is_human]
        self.seats = config.seats
        self.router = SeatRouter(humans, config.devices, config.seats, config.any_device)
        self.choice = ChoiceInput(controller, humans, on_submit=self._submitted)
        self.title = config.title or f"{controller.state.track.name} · {controller.state.rules.name}"
        start = controller.state  # (a race's track, rules and laps never change: its pinned par neither)
        self._pinned_par = pinned_par(start.track, start.rules, start.laps)
        self._mode: Mode = Intro() if self.settings.intro else Choosing()
        self.clock = 0.0
        self.shown = 0  # records fully animated
        self.finish_points: dict[int, tuple[float, float]] = {}
        self.message = ""
        self.message_time = 0.0
        self._doomed = DoomedMarks()  # searched off the frame loop: marks appear once known
        self.layer_view = LayerView(self)
        self.view.aim(controller.state, None)
        self.view.camera.snap()
        self._framed = False  # the first update frames the players' targets at once (no zoom to wait for)
        if config.flick:
            from game.presentation.flick import FlickControls

            self.flick = FlickControls(self)
        else:
            self.flick = None
        self._heard: set[tuple[int, int]] = set()  # phase events already sounded
        self._scratched = -1
        self._timeouts_told = 0
        self._ticked: set[tuple[int, int, int]] = set()
        self.done = False  # handed over to the finish screen
        self._asked_for_pads = False  # a car whose pad was pulled before the race asks for one on the first frame

    # -- the mode -------------------------------------------------------------
    @property
    def mode(self) -> str:
        """The name of the phase on screen: ``intro``, ``choosing``, ``replay`` or ``finished``."""
        return self._mode.name

    @mode.setter
    def mode(self, name: str) -> None:
        """Tools and tests jump to a phase by name (a fresh intro, choice or results)."""
        self.switch(BY_NAME[name]())

    def switch(self, mode: Mode) -> None:
        """The race screen goes on in ``mode``."""
        self._mode = mode

    @property
    def intro_time(self) -> float:
        """Seconds into the intro (the whole intro once it is over)."""
        return self._mode.time if isinstance(self._mode, Intro) else INTRO_SECONDS

    @intro_time.setter
    def intro_time(self, seconds: float) -> None:
        if isinstance(self._mode, Intro):
            self._mode.time = seconds

    @property
    def animation(self) -> PhaseAnimation | None:
        """The phase being animated (None unless replaying)."""
        return self._mode.animation

    @property
    def finished(self) -> bool:
        """Whether every phase has played and the results are up."""
        return isinstance(self._mode, Finished)

    # -- lifecycle ------------------------------------------------------------
    def exit(self) -> None:
        self.controller.close()
        self._doomed.close()

    def resize(self, size: tuple[int, int]) -> None:
        self.view.resize(size)
        self._aim()
        self.view.camera.snap()

    # -- input ----------------------------------------------------------------
    @property
    def devices(self) -> dict[str, int]:
        """Input source -> car (shared with the menus' seats when there are some)."""
        return self.router.devices

    @devices.setter
    def devices(self, devices: dict[str, int]) -> None:
        """Tools and tests seat the devices afresh."""
        self.router.devices = devices

    @property
    def highlight(self) -> dict[int, Vec | None]:
        """Each human car's highlighted key (None: home)."""
        return self.choice.highlight

    @property
    def on_top(self) -> int | None:
        """The player who acted last: their rings are drawn over the others'."""
        return self.choice.on_top

    def car_for(self, source: str) -> int | None:
        """The human car an input source acts for right now (None if it has none)."""
        return self.router.car_for(source, self.controller)

    def phone_cars(self) -> set[int]:
        """The cars driven from a phone (blind picks: the TV never draws their aim)."""
        return self.router.phone_cars()

    def orphan_message(self) -> str:
        """Which cars wait for a gamepad, for the pause screen ("" when none does)."""
        names = [self.controller.seats[c].name for c in self.router.orphans]
        if not names:
            return ""
        if self.router.phone_orphans():
            return (f"{' and '.join(names)}: waiting for the phone (or gamepad) to come back. A phone takes its "
                    "car back on reconnecting; a free gamepad takes it with A; or retire the car.")
        return f"{' and '.join(names)}: gamepad unplugged. Press A on any free gamepad to take the car back."

    def restart_scene(self) -> Scene | None:
        """The same race from the start, for the pause menu's *Restart* (None: the race cannot restart)."""
        return self.config.restart() if self.config.restart is not None else None

    def _pause(self, unplugged: str | None = None) -> None:
        (self.config.pause or plain_pause)(self, unplugged)

    def handle(self, action) -> None:
        """Presses for every phase here (devices, pause, assist, replay speed); the rest to the mode."""
        if isinstance(action, DeviceRemoved):
            car = self.router.unplugged(action.source)
            if car is not None:
                self._pause(self.controller.seats[car].name)
            return
        if isinstance(action, DeviceAdded) and self.seats is not None:
            if action.source.startswith("phone:"):
                self.router.back(action.source)  # a phone back with its token: its own car again
            return  # a new pad takes a car when it presses a button (the pause menu asks for it)
        if isinstance(action, Pause):
            self._pause()
            return
        if isinstance(action, ToggleAssist):
            self.settings.show_doomed = not self.settings.show_doomed
            self.flash("assist " + ("on" if self.settings.show_doomed else "off"))
            return
        if isinstance(action, ChangeSpeed):
            speeds = list(SPEEDS)
            k = min(range(len(speeds)), key=lambda j: abs(speeds[j] - self.settings.replay_speed))
            self.settings.replay_speed = speeds[max(0, min(len(speeds) - 1, k + action.step))]
            self.flash(f"replay speed x{self.settings.replay_speed:g}")
            return
        self._mode.handle(self, action)

    def choose(self, action) -> None:
        """A choosing press: routed to its car, then to that car's highlight or choice."""
        car = self.car_for(action.source)
        choice = self.choice
        if not choice.acts(car):
            return
        if isinstance(action, Back):
            said = choice.take_back(car)
        elif isinstance(action, Select):
            said = choice.select(car, action.dx, action.dy, action.source.startswith("pad:"), action.stick,
                                 action.confirm)
        elif isinstance(action, MoveCursor):
            said = choice.move(car, action.dx, action.dy, action.fast)
        elif isinstance(action, Aim):
            said = choice.aim(car, action.source, action.x, action.y)
        elif isinstance(action, Confirm):
            said = choice.confirm(car)
        elif isinstance(action, PickKey):
            said = choice.pick(car, action.key, action.phase, action.confirm)
        elif isinstance(action, (PointAt, ClickAt)):
            said = choice.point(car, lambda: self.candidate_at(car, action.pos), isinstance(action, ClickAt))
        else:
            said = ""
        if said:
            self.flash(said)

    def _submitted(self, car: int) -> None:
        self.router.last_submitted = car

    def current_key(self, car: int) -> Vec | None:
        """The highlighted key of a car (the base point, or the target nearest it, until moved)."""
        return self.choice.current_key(car)

    def candidate_at(self, car: int, pos: tuple[int, int]) -> Vec | None:
        """The key of the car's target nearest a window pixel, if within reach of a click.

        On fine paper every lattice node in range is a target: the one under the pointer.
        """
        cam, pos = self.view.camera_at(pos)
        cands = self.controller.candidates(car)
        if self.controller.state.rules.movement == Movement.FINE:
            return choosing.nearest(cands, cam.to_world(pos), reach=1.5)
        # the rings where they are drawn (moved apart where players share a node)
        centres = self.view.target_centres(self._targets(), car, cam)
        if not centres:
            return None
        reach = max(10.0, cam.scale * 0.45)
        key, (x, y) = min(centres.items(), key=lambda kv: (kv[1][0] - pos[0]) ** 2 + (kv[1][1] - pos[1]) ** 2)
        return key if (x - pos[0]) ** 2 + (y - pos[1]) ** 2 <= reach * reach else None

    def flash(self, message: str) -> None:
        self.message, self.message_time = message, 2.0

    # -- time -----------------------------------------------------------------
    def update(self, dt: float) -> None:
        timer = self.controller.timer
        if timer is not None and self._mode.timer_runs and isinstance(timer.clock, ManualClock):
            timer.clock.advance(dt)  # the move timer runs only while players choose
        self._play(dt)
        if timer is not None:
            self._timer_news(timer)
        if self.flick is not None:
            self.flick.update(dt)
        self._sounds()
        if not self._asked_for_pads and self.router.orphans:
            self._asked_for_pads = True
            self._pause(self.controller.seats[self.router.orphans[0]].name)
            return
        self._mode.hand_over(self)
        for layer in self.config.layers:
            layer.update(self.layer_view, dt)

    def _play(self, dt: float) -> None:
        """The race moves on: the intro, the controller's tick, the phases played out."""
        if not self._framed:
            self._framed = True
            self._aim()
            self.view.camera.snap()
        self.clock += dt
        self.message_time = max(0.0, self.message_time - dt)
        self._mode.play(self, dt)
        self._aim()
        self.view.update(dt, drift=self.settings.camera_drift)

    def _timer_news(self, timer) -> None:
        """Say what the move timer took, and tick through a player's last seconds."""
        audio = self.config.audio
        while self._timeouts_told < len(timer.timeouts):
            told = timer.timeouts[self._timeouts_told]
            self._timeouts_told += 1
            name = self.controller.seats[told.car].name
            self.flash(f"{name}: time's up, " + ("the car keeps its line" if told.kept_line
                                                  else "the Champion steers this move"))
            if audio is not None:
                audio.play("back")
        if audio is None:
            return
        for ring in timer_rings(self.controller):
            second = math.ceil(ring.seconds)
            key = (self.controller.state.phase, ring.car, second)
            if second <= HURRY_SECONDS and key not in self._ticked:
                self._ticked.add(key)
                audio.play("tick")

    def _sounds(self) -> None:
        """The phase's sounds as it plays: the pens' scratch, a fanfare at the line, crashes."""
        anim, audio = self.animation, self.config.audio
        if anim is None or audio is None:
            return
        phase = anim.record.phase
        if self._scratched != phase and any(m.target is not None for m in anim.record.moves):
            self._scratched = phase
            audio.play("scratch")
        for event, _ in anim.fired():
            key = (phase, hash((event.car, event.kind, event.detail, event.time)))
            if key in self._heard:
                continue
            self._heard.add(key)
            if event.kind == "finish":
                audio.play("fanfare")
            elif event.kind in ("off_track", "collision"):
                audio.play("crash")

    def start_replay(self) -> None:
        """Animate the first phase not yet shown."""
        self.switch(Replay.of_phase(self))

    def played(self, record) -> None:
        """A phase has been shown: its finish flags stay planted."""
        for event in record.events:
            if event.kind == "finish" and event.point is not None:
                self.finish_points[event.car] = event.point
        self.shown += 1

    def to_choice(self) -> None:
        """Every phase played: the next choice (every highlight back home), or the results."""
        self.switch(Finished() if self.controller.over else Choosing())
        self.choice.home_all()

    def skip_replays(self) -> None:
        """A skip press: every phase still to play counts as played, straight to the next choice."""
        records = self.controller.records
        while self.shown < len(records):
            self.played(records[self.shown])
        self.to_choice()

    def _aim(self) -> None:
        pending = self._mode.pending(self)
        targets = self._targets() if self._mode.frames_choice and pending is None else ()
        self.view.aim(self.shown_state, self.animation, targets, pending=pending)

    # -- drawing --------------------------------------------------------------
    def phase_number(self) -> int:
        """The phase the HUD names: the one being chosen or played (phase 1 is the first move),
        the last one once the race is over; the replay viewer counts the same way."""
        shown = self.shown_state
        return shown.phase if shown.over and self.animation is None else shown.phase + 1

    @property
    def shown_state(self):
        """The state on screen: before the phase being animated, else the current one."""
        return self.controller.states[self.shown]

    def doomed_for(self, car: int):
        """The car's doomed targets this phase (None until known; searched off the frame loop)."""
        ctl = self.controller
        return self._doomed.get((ctl.state.phase, car), ctl.state, car, ctl.committed_for(car))

    def choice_targets(self) -> list[Targets]:
        """The target rings of the humans choosing now (what the choosing mode draws)."""
        return self._targets()

    def _targets(self) -> list[Targets]:
        if self.flick is not None:
            return []  # flicks are aimed, not picked from rings
        ctl = self.controller
        out = []
        keys = []
        blind = self.phone_cars()
        for car in self.router.choosing(ctl):  # a car that has chosen: hidden from the others until the phase plays
            key = (ctl.state.phase, car)
            doomed = None
            if self.settings.show_doomed:
                keys.append(key)
                doomed = self._doomed.get(key, ctl.state, car, ctl.committed_for(car))
            if car in blind:
                continue  # aimed on its phone: never drawn on the TV (its doomed marks go to the phone)
            out.append(Targets(car, ctl.candidates(car), self.current_key(car), doomed or frozenset(),
                               base=ctl.state.base_point(car), movement=ctl.state.rules.movement,
                               reach=self.choice.reach()))
        self._doomed.keep(keys)  # a turn that is over (or a choice made) needs its search no more
        return out

    def _lines(self) -> list[CarLine]:
        return self._mode.lines(self)

    def _prompt(self):
        """The help line: a string, or pieces ``(text, colour, bold)`` naming players in their colours."""
        if self.message_time > 0:
            return self.message
        return self._mode.prompt(self)

    def cpu_note(self) -> str:
        """Why the CPUs are slower than usual ("" when they are not)."""
        return self.cpu_status() if self.cpu_status is not None else ""

    def hint(self, source: str) -> str:
        """How to choose, for one input source under this race's movement system."""
        ctl = self.controller
        movement = ctl.state.rules.movement
        pad = source.startswith("pad:")
        if source.startswith("phone:"):
            return "on the phone"
        if movement == Movement.FINE:
            return "stick aims + A" if pad else "arrows (Shift: x5), numpad or mouse, Enter"
        if movement in GRID_SYSTEMS and not ctl.state.rules.hard_braking:
            return "d-pad/stick + A" if pad else HINTS.get(source, "")
        return "d-pad/stick steps + A" if pad else "arrows step, numpad or mouse, Enter"

    def moment(self) -> Moment:
        """What to draw this frame (used by draw, and by tests that check positions)."""
        mode = self._mode
        countdown, age = mode.countdown(self)
        if self.config.heading is not None:
            title = self.config.heading(self)
        else:
            par = self.config.par() if self.config.par is not None else self._pinned_par
            shown = isinstance(par, int) and not isinstance(par, bool)
            word = "day par" if self.controller.state.rules.night else "par"  # at night par stays the day's
            title = f"{self.title}  ·  phase {self.phase_number()}" + (f" ({word} {par})" if shown else "")
        return Moment(state=self.shown_state, records=self.controller.records[:self.shown], animation=self.animation,
                      targets=mode.targets(self), show_doomed=self.settings.show_doomed, intro=mode.pencil(),
                      lines=self._lines(), prompt=self._prompt(), title=title, finish_points=dict(self.finish_points),
                      active=mode.active(self), clock=self.clock, countdown=countdown, countdown_age=age,
                      on_top=self.on_top)

    def draw(self, surface: pygame.Surface) -> None:
        self.view.draw(surface, self.moment())
        self._mode.draw(self, surface)
        for layer in self.config.layers:
            layer.draw(surface, self.layer_view)
