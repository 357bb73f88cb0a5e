"""The race scene: choosing targets, then every phase played out at once.

Modes, in order: ``intro`` (the border is pencilled in, then "3, 2, 1" counts down;
"Go!" stays up over the first moments of choosing), then ``choosing`` and
``replay`` in turn until the race is over, then ``finished`` (results; Confirm opens the
replay viewer). The :class:`~game.race.controller.RaceController` holds the race; this
scene only turns actions into submissions and animates the records it gets back.

Who controls which car: ``devices`` maps an input source (``"kb1"``, ``"kb2"``,
``"pad:<id>"``) to a car. Sources not in the map (``"keys"``: numpad and arrows,
``"mouse"``) act for the human whose turn it is (the first one still choosing). A
gamepad not yet in the map is given to the first human seat without a gamepad on its
first press, which also handles unplugging and plugging back in. A phone (``"phone:<n>"``,
``game.presentation.phones``) acts only for its own car, aims and confirms with ``PickKey``,
and its car's aim is never drawn here (blind picks: its line says "chosen").

One scene plays every race, the quick race and each race of the menus alike; what
differs between them is a :class:`RaceConfig` (the pens, who drives which car, the
pause screen, what happens at the finish, sounds, the pen-flick controls, layers drawn
over the race such as a ghost or the tutorial's card). The quick race uses the defaults;
``game.presentation.menus.race.start_race`` fills one in from the menus' plan.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

import pygame

from game.core.race import FINISHED
from game.core.rules import Movement
from game.core.vec import Vec
from game.presentation.animation import SPEEDS, PhaseAnimation
from game.presentation.assist import DoomedMarks
from game.presentation.hud import CarLine, overtaken
from game.core.movement import GRID_SYSTEMS
from game.presentation import choosing
from game.presentation.input import (Aim, Back, ChangeSpeed, ClickAt, Confirm, DeviceAdded, DeviceRemoved, MoveCursor,
                                     Pause, PickKey, PointAt, Select, SkipReplay, ToggleAssist)
from game.presentation.race_view import Moment, RaceView, Targets
from game.presentation.scene import Scene
from game.presentation.text import TextCache
from game.presentation.timer_ring import HURRY_SECONDS, draw_timer_rings, seconds_text, timer_rings
from game.race.controller import ChoiceRejected, RaceController
from game.race.timer import ManualClock
from game.tracks.pack import pinned_par

#: Seconds the pencil takes to draw the border in, then each number of the countdown.
PENCIL_SECONDS, COUNT_SECONDS = 1.3, 0.6
COUNTDOWN = ("3", "2", "1")
#: The whole intro: the border, then the countdown (then "Go!" shows while players choose).
INTRO_SECONDS = PENCIL_SECONDS + COUNT_SECONDS * len(COUNTDOWN)
GO_SECONDS = 0.8
HINTS = {"kb1": "QWE/ASD/ZXC", "kb2": "UIO/JKL/M,.", "keys": "numpad, arrows+Enter or mouse"}


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
    #: Drawn over the race, each with ``draw(surface, scene)`` and ``update(scene, dt)`` (a ghost, a card).
    layers: tuple = ()


def plain_pause(scene, unplugged: str | None = None) -> None:
    """The quick race's pause: an overlay that waits (a pulled pad says so, unless the race is over)."""
    from game.presentation.pause_scene import PauseScene

    if unplugged is None:
        scene.stack.push(PauseScene(scene.view.text))
    elif scene.mode != "finished":
        scene.stack.push(PauseScene(scene.view.text, f"{unplugged}'s gamepad was unplugged: plug it back in "
                                    "(or play on with the keyboard)"))


class RaceScene(Scene):
    """Plays a race held by a controller; see the module docstring for the modes and devices."""

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
        if self.seats is not None:
            self.devices = self.seats.devices  # one mapping, shared with the seat manager
        else:
            devices = config.devices
            if devices is None:
                devices = {src: car for src, car in zip(("kb1", "kb2"), humans)}
            self.devices = dict(devices)
        self.title = config.title or f"{controller.state.track.name} · {controller.state.rules.name}"
        start = controller.state  # (a race's track, rules and laps never change: its pinned par neither)
        self._pinned_par = pinned_par(start.track, start.rules, start.laps)
        self.mode = "intro" if self.settings.intro else "choosing"
        self.clock = 0.0
        self.intro_time = 0.0
        self.highlight: dict[int, Vec | None] = {i: None for i in humans}  # None: the base point (home)
        self.shown = 0  # records fully animated
        self.animation: PhaseAnimation | None = None
        self.finish_points: dict[int, tuple[float, float]] = {}
        self.message = ""
        self.message_time = 0.0
        self._doomed = DoomedMarks()  # searched off the frame loop: marks appear once known
        self._last_submitted: int | None = None
        self._kicked: set[int] = set()
        self._stick: dict[str, float] = {}  # last stick deflection per gamepad
        self.on_top: int | None = None  # the player who aimed last: their rings over the others'
        self.podium = None  # the animated podium over the results, once the race is over
        self.go_time = 0.0 if self.settings.intro else GO_SECONDS  # seconds "Go!" has been up
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

    # -- lifecycle ------------------------------------------------------------
    def exit(self) -> None:
        self.controller.close()
        self._doomed.close()

    def resize(self, size: tuple[int, int]) -> None:
        self.view.resize(size)
        self._aim()
        self.view.camera.snap()

    # -- input ----------------------------------------------------------------
    def car_for(self, source: str) -> int | None:
        """The human car an input source acts for right now (None if it has none)."""
        if source.startswith("phone:"):  # a phone acts for its own car only, never another's
            return self.devices.get(source)
        if self.config.any_device and (self.controller.waiting_humans() or source in self.devices):
            return next(iter(self.highlight), None)
        if source in self.devices:
            return self.devices[source]
        if self.seats is not None:
            if source.startswith("pad:"):
                return self.seats.claim(source)  # only a car whose pad was pulled may be taken over
            if source.startswith("kb") and any(s.startswith("kb") for s in self.devices):
                return None  # the other keyboard block belongs to nobody in this race
        phones = self.phone_cars()
        waiting = [i for i in self.controller.waiting_humans() if self.controller.chosen(i) is None and i not in phones]
        if source.startswith("pad:"):
            taken = {car for src, car in self.devices.items() if src.startswith("pad:")}
            free = [i for i in self.highlight if i not in taken]
            if not free:
                return None
            self.devices[source] = free[0]
            return free[0]
        if waiting:
            return waiting[0]
        return self._last_submitted

    def phone_cars(self) -> set[int]:
        """The cars driven from a phone (blind picks: the TV never draws their aim)."""
        away = self.seats.away.values() if self.seats is not None else ()
        return {car for src, car in self.devices.items() if src.startswith("phone:")} | set(away)

    def orphan_message(self) -> str:
        """Which cars wait for a gamepad, for the pause screen ("" when none does)."""
        names = [self.controller.seats[c].name for c in (self.seats.orphans if self.seats is not None else ())]
        if not names:
            return ""
        if set(self.seats.orphans) & set(self.seats.away.values()):
            return (f"{' and '.join(names)}: waiting for the phone (or gamepad) to come back. A phone takes its "
                    "car back on reconnecting; a free gamepad takes it with A; or retire the car.")
        return f"{' and '.join(names)}: gamepad unplugged. Press A on any free gamepad to take the car back."

    def restart_scene(self) -> Scene | None:
        """The same race from the start, for the pause menu's *Restart* (None: the race cannot restart)."""
        return self.config.restart() if self.config.restart is not None else None

    def _pause(self, unplugged: str | None = None) -> None:
        (self.config.pause or plain_pause)(self, unplugged)

    def handle(self, action) -> None:
        if isinstance(action, DeviceRemoved):
            if self.seats is not None:
                car = self.seats.unplugged(action.source)
            else:
                car = self.devices.pop(action.source, None)
            if car is not None:
                self._pause(self.controller.seats[car].name)
            return
        if isinstance(action, DeviceAdded) and self.seats is not None:
            if action.source.startswith("phone:"):
                self.seats.back(action.source)  # a phone back with its token: its own car again
            return  # a new pad takes a car when it presses a button (the pause menu asks for it)
        if isinstance(action, Pause):
            self._pause()
            return
        if self.flick is not None and self.mode == "choosing" and self.flick.handle(action):
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
        if self.mode == "replay":
            if isinstance(action, SkipReplay):
                self._skip_replays()
            elif isinstance(action, (Select, MoveCursor, Confirm, ClickAt)) and self._chooses(action.source):
                # A player ready to choose is not kept waiting by the animation: the press
                # skips to the choice and highlights a target, but never confirms one unseen.
                self._skip_replays()
                if isinstance(action, (Select, MoveCursor)):
                    self._handle_choice(replace(action, confirm=False) if isinstance(action, Select) else action)
            return
        if isinstance(action, SkipReplay) and self.mode == "choosing" and len(self.controller.records) > self.shown:
            self._skip_replays()  # a phase waiting for the camera to pull back: skipped as well
            return
        if self.mode == "intro":
            if isinstance(action, (SkipReplay, Confirm)):
                self.intro_time = INTRO_SECONDS
            return
        if self.mode == "finished":
            if isinstance(action, Confirm) or isinstance(action, ClickAt):
                from game.presentation.replay_scene import ReplayViewerScene
                self.stack.push(ReplayViewerScene(self.controller.states, self.controller.records,
                                                  [s.name for s in self.controller.seats], self.view.camera.size,
                                                  self.view.text, seed=self.controller.seed,
                                                  text_scale=self.view.text_scale))
            elif isinstance(action, Back):
                self.stack.pop()
            return
        self._handle_choice(action)

    def _chooses(self, source: str) -> bool:
        """Whether a press from ``source`` belongs to a human who has a choice to make next."""
        if source not in self.devices and source.startswith("pad:"):
            return False  # an unknown pad takes a seat only in the choosing mode
        car = self.car_for(source)
        return car is not None and car in self.controller.waiting_humans() and self.controller.chosen(car) is None

    def _handle_choice(self, action) -> None:
        car = self.car_for(action.source)
        if car is None or car not in self.highlight:
            return
        self.on_top = car
        ctl = self.controller
        if isinstance(action, Back):
            if ctl.take_back(car):
                self.flash(f"{ctl.seats[car].name}: choice taken back")
            return
        if car not in ctl.waiting_humans():
            return
        cands = ctl.candidates(car)
        if not cands:
            return
        if isinstance(action, PickKey):
            self._pick_key(car, action, {c.key for c in cands})
            return
        movement = ctl.state.rules.movement
        chooser = choosing.chooser_for(movement, cands)
        turn = choosing.Turn(movement, cands, ctl.state.base_point(car), ctl.state.cars[car].velocity,
                             self.current_key(car), self._unit(), self._reach())
        keys = {c.key for c in cands}
        chosen = ctl.chosen(car) is not None
        if isinstance(action, Select):
            new, confirm = chooser.select(turn, action.dx, action.dy, action.source.startswith("pad:"),
                                          action.stick, action.confirm)
            if new is None or new not in keys:
                return
            if chosen:
                if not confirm:
                    return
                ctl.take_back(car)
            self.highlight[car] = new
            if confirm:
                self._submit(car)
        elif isinstance(action, MoveCursor):
            if chosen:
                return
            new = chooser.move(turn, action.dx, action.dy, action.fast)
            if new is not None and new in keys:
                self.highlight[car] = new
        elif isinstance(action, Aim):
            # A stick let go springs back one axis at a time: a sudden drop of the deflection
            # is the release, not an aim (precise aiming moves the stick gradually).
            strength = (action.x * action.x + action.y * action.y) ** 0.5
            last = self._stick.get(action.source, 0.0)
            self._stick[action.source] = strength
            if not chooser.aims or chosen or strength < last * 0.6:
                return
            new = chooser.aim(turn, action.x, action.y)
            if new is not None and new in keys:
                self.highlight[car] = new
        elif isinstance(action, Confirm):
            if not chosen:
                self._submit(car)
        elif isinstance(action, (PointAt, ClickAt)):
            hit = self.candidate_at(car, action.pos)
            if hit is None or chosen and isinstance(action, PointAt):
                return
            if chosen:
                ctl.take_back(car)
            self.highlight[car] = hit
            if isinstance(action, ClickAt):
                self._submit(car)

    def _pick_key(self, car: int, action: PickKey, keys: set) -> None:
        """A phone's tap: aim at its target (``confirm``: and pick it), in the phase it was meant for."""
        ctl = self.controller
        if action.phase != ctl.state.phase or action.key is not None and action.key not in keys:
            return  # a tap meant for another phase, or a target this phase does not have
        if ctl.chosen(car) is not None:
            if not action.confirm or action.key is None:
                return
            ctl.take_back(car)
        if action.key is not None:
            self.highlight[car] = action.key
        if action.confirm:
            self._submit(car)

    def _unit(self) -> int:
        return max(1, self.controller.state.track.scale)

    def _reach(self) -> int:
        """Fine paper: how many lattice units the velocity may change per axis."""
        rules = self.controller.state.rules
        return rules.fine_range * self._unit()

    def current_key(self, car: int) -> Vec | None:
        """The highlighted key of a car (the base point, or the target nearest it, until moved)."""
        key = self.highlight.get(car)
        if key is None:
            ctl = self.controller
            cands = ctl.candidates(car)
            key = choosing.home(ctl.state.rules.movement, cands, ctl.state.base_point(car)) if cands else None
            if ctl.state.rules.movement in GRID_SYSTEMS and cands:
                key = Vec(0, 0)
            self.highlight[car] = key
        return key

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

    def _submit(self, car: int) -> None:
        ctl = self.controller
        key = self.current_key(car)
        cand = next((c for c in ctl.candidates(car) if c.key == key), None)
        if cand is None:
            return
        try:
            ctl.submit(car, cand.node)
        except ChoiceRejected as error:
            self.flash(error.reason)
            return
        self._last_submitted = car

    def flash(self, message: str) -> None:
        self.message, self.message_time = message, 2.0

    # -- time -----------------------------------------------------------------
    def update(self, dt: float) -> None:
        timer = self.controller.timer
        if timer is not None and self.mode == "choosing" and isinstance(timer.clock, ManualClock):
            timer.clock.advance(dt)  # the move timer runs only while players choose
        self._play(dt)
        if timer is not None:
            self._timer_news(timer)
        if self.flick is not None:
            self.flick.update(dt)
        self._sounds()
        if not self._asked_for_pads and self.seats is not None and self.seats.orphans:
            self._asked_for_pads = True
            self._pause(self.controller.seats[self.seats.orphans[0]].name)
            return
        if self.mode == "finished" and not self.done and self.config.finish is not None:
            self.done = True
            self.stack.replace(self.config.finish(self))
        for layer in self.config.layers:
            layer.update(self, dt)

    def _play(self, dt: float) -> None:
        """The race moves on: the intro, the controller's tick, the phases played out."""
        if not self._framed:
            self._framed = True
            self._aim()
            self.view.camera.snap()
        self.clock += dt
        if self.podium is not None:
            self.podium.update(dt)
        self.message_time = max(0.0, self.message_time - dt)
        ctl = self.controller
        if self.mode == "intro":
            self.intro_time += dt
            if self.intro_time >= INTRO_SECONDS:
                self.mode = "choosing"
        elif self.mode == "choosing":
            self.go_time += dt
            ctl.tick()
            # a phase plays once the camera has pulled back to fit it (see _aim): a playing
            # phase only pans, so no frame of it scales the cached paper
            if len(ctl.records) > self.shown and self.view.camera.settled:
                self._start_replay()
            elif ctl.over and len(ctl.records) == self.shown:  # every phase played out first
                self.mode = "finished"
        elif self.mode == "replay":
            anim = self.animation
            anim.advance(dt * self.settings.replay_speed)
            for k, _ in anim.collisions_fired():
                if k not in self._kicked:
                    self._kicked.add(k)
                    if not self.settings.reduce_motion:  # a shake in proportion to the zoom
                        self.view.camera.kick(max(3.0, self.view.camera.scale * 0.35))
            if anim.done:
                self._played(anim.record)
                if len(ctl.records) > self.shown:
                    self._start_replay()
                else:
                    self._to_choice()
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

    def _start_replay(self) -> None:
        states = self.controller.states
        overtake = overtaken(states[self.shown], states[self.shown + 1])
        self.animation = PhaseAnimation(self.controller.records[self.shown], overtake=overtake)
        self._kicked = set()
        self.mode = "replay"

    def _played(self, record) -> None:
        """A phase has been shown: its finish flags stay planted."""
        for event in record.events:
            if event.kind == "finish" and event.point is not None:
                self.finish_points[event.car] = event.point
        self.shown += 1
        self.animation = None

    def _to_choice(self) -> None:
        """Every phase played: the next choice (every highlight back home), or the results."""
        self.mode = "finished" if self.controller.over else "choosing"
        for car in self.highlight:
            self.highlight[car] = None

    def _skip_replays(self) -> None:
        """A skip press: every phase still to play counts as played, straight to the next choice."""
        records = self.controller.records
        while self.shown < len(records):
            self._played(records[self.shown])
        self._to_choice()

    def _aim(self) -> None:
        state = self.shown_state
        records = self.controller.records
        pending = records[self.shown] if self.mode == "choosing" and len(records) > self.shown else None
        # during the intro the camera already frames the first choice (the countdown ends on it)
        targets = self._targets() if self.mode in ("intro", "choosing") and pending is None else ()
        self.view.aim(state, self.animation, targets, pending=pending)

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

    def _targets(self) -> list[Targets]:
        if self.flick is not None:
            return []  # flicks are aimed, not picked from rings
        ctl = self.controller
        out = []
        keys = []
        blind = self.phone_cars()
        for car in ctl.waiting_humans():
            if ctl.chosen(car) is not None:
                continue  # chosen: hidden from the others until the phase plays
            key = (ctl.state.phase, car)
            doomed = None
            if self.settings.show_doomed:
                keys.append(key)
                doomed = self._doomed.get(key, ctl.state, car, ctl.committed_for(car))
            if car in blind:
                continue  # aimed on its phone: never drawn on the TV (its doomed marks go to the phone)
            out.append(Targets(car, ctl.candidates(car), self.current_key(car), doomed or frozenset(),
                               base=ctl.state.base_point(car), movement=ctl.state.rules.movement,
                               reach=self._reach()))
        self._doomed.keep(keys)  # a turn that is over (or a choice made) needs its search no more
        return out

    def _lines(self) -> list[CarLine]:
        ctl = self.controller
        lines = []
        awaiting = set(ctl.awaiting()) if self.mode == "choosing" else set()
        for i, seat in enumerate(ctl.seats):
            marker = ""
            if i in awaiting:
                if not seat.is_human:
                    marker = "preparing..." if self._cpu_note() else "thinking..."
                else:
                    marker = "choosing" if ctl.simultaneous else "to move"
            elif self.mode == "choosing" and seat.is_human and ctl.chosen(i) is not None:
                marker = "chosen" if i in self.phone_cars() else "ready"
            lines.append(CarLine(marker))
        if self.mode == "choosing":
            for ring in timer_rings(ctl):
                lines[ring.car] = CarLine(f"{lines[ring.car].marker} {seconds_text(ring.seconds)}".strip())
        return lines

    def _prompt(self):
        """The help line: a string, or pieces ``(text, colour, bold)`` naming players in their colours."""
        if self.message_time > 0:
            return self.message
        if self.flick is not None and self.mode == "choosing" and self.flick.choosing():
            return "Aim: stick / d-pad / block keys (arrows turn)  ·  flick: A / Enter / middle key  ·  time the meter!"
        ctl = self.controller
        if self.mode == "intro":
            return "Get ready..." if self.intro_time < PENCIL_SECONDS else "Get ready... first phase coming up"
        if self.mode == "replay":
            return f"Tab / Y: skip  ·  replay speed x{self.settings.replay_speed:g} (+/-)"
        if self.mode == "finished":
            ranks = ctl.state.outcome().ranks
            winners = [ctl.seats[i].name for i, r in enumerate(ranks) if r == 1]
            head = (" and ".join(winners) + (" win!" if len(winners) > 1 else " wins!")) if winners else "Race over"
            return f"{head}  Enter: watch the replay  ·  Backspace: leave"
        waiting = [i for i in ctl.waiting_humans() if ctl.chosen(i) is None]
        if waiting:
            from game.presentation.theme import HUD_TEXT

            pieces = [("Choose your target", HUD_TEXT, False)]
            for car in waiting:  # each name in its player's own colour
                src = next((s for s, c in self.devices.items() if c == car), "keys")
                hint = self._hint(src)
                pieces.append(("  ·  ", HUD_TEXT, False))
                pieces.append((ctl.seats[car].name, self.view.pens[car].color, True))
                if hint:
                    pieces.append((f": {hint}", HUD_TEXT, False))
            return pieces
        if ctl.awaiting():
            note = self._cpu_note()
            if note:
                return note[0].upper() + note[1:]
            return f"{ctl.seats[ctl.awaiting()[0]].name} is thinking..."
        return ""

    def _cpu_note(self) -> str:
        return self.cpu_status() if self.cpu_status is not None else ""

    def _hint(self, source: str) -> str:
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
        ctl = self.controller
        intro = min(1.0, self.intro_time / PENCIL_SECONDS) if self.mode == "intro" else 1.0
        countdown, age = "", 0.0
        if self.mode == "intro" and self.intro_time >= PENCIL_SECONDS:
            k = min(len(COUNTDOWN) - 1, int((self.intro_time - PENCIL_SECONDS) / COUNT_SECONDS))
            countdown, age = COUNTDOWN[k], self.intro_time - PENCIL_SECONDS - k * COUNT_SECONDS
        elif self.mode == "choosing" and self.go_time < GO_SECONDS and self.shown == 0:
            countdown, age = "Go!", self.go_time
        active = None
        if self.mode == "choosing" and not ctl.simultaneous and ctl.awaiting():
            active = ctl.awaiting()[0]
        if self.config.heading is not None:
            title = self.config.heading(self)
        else:
            par = self.config.par() if self.config.par is not None else self._pinned_par
            shown = isinstance(par, int) and not isinstance(par, bool)
            title = f"{self.title}  ·  phase {self.phase_number()}" + (f" (par {par})" if shown else "")
        return Moment(state=self.shown_state, records=ctl.records[:self.shown], animation=self.animation,
                      targets=self._targets() if self.mode == "choosing" else (),
                      show_doomed=self.settings.show_doomed, intro=intro, lines=self._lines(),
                      prompt=self._prompt(), title=title, finish_points=dict(self.finish_points), active=active,
                      clock=self.clock, countdown=countdown, countdown_age=age, on_top=self.on_top)

    def draw(self, surface: pygame.Surface) -> None:
        self.view.draw(surface, self.moment())
        if self.mode == "finished":
            self._draw_results(surface)
        if self.flick is not None and self.mode == "choosing":
            from game.presentation.flick import draw_flick

            draw_flick(surface, self, self.flick)
        if self.mode == "choosing":
            draw_timer_rings(surface, self.view, self.controller.state, timer_rings(self.controller), self.clock)
        for layer in self.config.layers:
            layer.draw(surface, self)

    def _draw_results(self, surface: pygame.Surface) -> None:
        """The results: the animated podium, and beneath it every car's place and moves."""
        from game.presentation.podium import Podium, podium_entries
        from game.presentation.theme import GRAPHITE_LIGHT, HUD_BG, HUD_TEXT, draw_symbol

        text = self.view.text
        state = self.controller.state
        ranks = state.outcome().ranks
        names = [seat.name for seat in self.controller.seats]
        if self.podium is None:
            self.podium = Podium(podium_entries(ranks, names, self.view.pens), text, seed=self.controller.seed,
                                 reduce_motion=self.settings.reduce_motion)  # standing at once, no bobbing
        rows = sorted(range(len(state.cars)), key=lambda i: (ranks[i] is None, ranks[i] or 0, i))
        podium_h = int(surface.get_height() * 0.3)
        fit = (surface.get_height() * 0.95 - podium_h) / (1.5 * (len(rows) + 2))  # the table fits the window
        size = max(12, int(min(surface.get_height() / 30 * self.settings.text_scale, fit)))
        w, h = size * 16, int(size * 1.5 * (len(rows) + 2)) + podium_h
        rect = pygame.Rect(0, 0, w, h)
        rect.center = (surface.get_width() // 2, surface.get_height() // 2 + size // 2)
        surface.blit(text.panel(rect.size, (*HUD_BG[:3], 248)), rect)  # opaque enough to read over trails
        pygame.draw.rect(surface, GRAPHITE_LIGHT, rect, 1)
        y = rect.top + size // 2
        text.blit(surface, "Results", int(size * 1.2), HUD_TEXT, (rect.centerx, y), "midtop", bold=True)
        y += int(size * 1.6)
        self.podium.draw(surface, pygame.Rect(rect.left + size, y, rect.width - 2 * size, podium_h - size // 2))
        y += podium_h
        for i in rows:
            car = state.cars[i]
            place = f"{ranks[i]}." if ranks[i] is not None else "-"
            what = f"{car.moves} moves" if car.status == FINISHED else car.status
            pen = self.view.pens[i]
            text.blit(surface, place, size, HUD_TEXT, (rect.left + size, y))
            draw_symbol(surface, pen.symbol, (rect.left + size * 3.2, y + size * 0.5), size * 0.4, pen.color)
            text.blit(surface, names[i], size, pen.color, (rect.left + size * 4.2, y), bold=True)
            text.blit(surface, what, size, HUD_TEXT, (rect.right - size, y), "topright")
            y += int(size * 1.5)
