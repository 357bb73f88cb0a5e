"""The game's end of the phones: the lobby's Phones row, the QR code, phone seats in a race.

:class:`PhoneLink` owns the server (``game.phones.server``) while the Phones row is on. Each
frame the app polls it (:meth:`PhoneLink.poll`, never waiting) and hands the top scene the
phones' actions, only when that scene takes phones (``takes_phones``: the lobby, the race, its
pause menu): a phone seat acts like a pad, as ``phone:<n>`` (aim and confirm with
:class:`~game.presentation.input.PickKey`, Pause; a dropped connection is a
:class:`PhoneGone`, a return a ``DeviceAdded``). Joins and colour requests wait for the
lobby (:meth:`PhoneLink.lobby_events`). :class:`PhoneLayer` sends each phone seat its
view of the race, only when it changed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import pygame

from game.core.movement import FLICK_REACH
from game.core.rules import Movement
from game.core.vec import Vec
from game.phones import events as ev
from game.phones.view import flick_view, lobby_view, race_view
from game.presentation import theme
from game.presentation.input import Action, DeviceAdded, DeviceRemoved, Pause, PickKey

PREFIX = "phone:"
COLOUR_NAMES = ("blue", "vermillion", "green", "purple", "orange", "black", "sky", "olive")


@dataclass(frozen=True)
class PhoneGone(DeviceRemoved):
    """A phone's connection dropped (``left`` False: its seat waits for it) or it gave up its seat."""

    left: bool = False


@dataclass(frozen=True)
class PhoneAnswer(Action):
    """A phone answered the question on its screen (the confirm dialog): ``yes`` or no.
    Only an answer to the question the phone is shown now arrives (:meth:`PhoneLink.prompt`)."""

    yes: bool = False


def phone_device(phone: int) -> str:
    return f"{PREFIX}{phone}"


def phone_number(device: str | None) -> int | None:
    """The phone's number in the room of a ``phone:<n>`` device, None for any other device."""
    if not device or not device.startswith(PREFIX):
        return None
    try:
        return int(device[len(PREFIX):])
    except ValueError:
        return None


def css(colour) -> str:
    return "#%02x%02x%02x" % tuple(colour[:3])


class PhoneLink:
    """Phones on or off, and everything between the frame loop and the server (queues only).

    ``make_server`` builds the server for a new room (tests pass a local one)."""

    def __init__(self, make_server: Callable[[], object] | None = None) -> None:
        self._make = make_server
        self._server = None
        self._starting = None  # the job making the server: importing its modules takes longer than a frame
        self._abandoned: list = []  # jobs of a server turned off while starting: stopped once made
        self._error = ""
        self._lobby: list = []
        self._sent: dict[int, dict] = {}
        self._epochs: dict[int, int] = {}  # counts a phone's returns: a returned page is sent everything again
        self._asked: dict[int, tuple[int, dict]] = {}  # phone -> the question on its screen, by number
        self._questions = 0  # numbers the questions, so an answer to one already gone is dropped

    @property
    def server(self):
        """The server (None while off, and while it is being made on a worker thread)."""
        job = self._starting
        if job is not None and job.done:
            self._starting = None
            if job.error is not None:
                self._error = f"the phones could not start: {job.error}"
            else:
                self._server = job.result
        for old in [j for j in self._abandoned if j.done]:
            self._abandoned.remove(old)
            if old.result is not None:
                old.result.stop()
        return self._server

    @property
    def on(self) -> bool:
        return self._starting is not None or self.server is not None

    def start(self) -> None:
        """Turn the phones on: a new room (new code, no tokens) listening on its own thread.
        Returns at once: the server is made on a worker thread (``url`` is "" until it listens)."""
        if self.on:
            return
        from game.presentation.jobs import Job

        make = self._make

        def build():
            if make is None:
                from game.phones.server import PhoneServer

                server = PhoneServer()
            else:
                server = make()
            server.start()
            return server

        self._error = ""
        self._lobby, self._sent, self._asked = [], {}, {}
        self._starting = Job(build, name="phones-start")

    def wait_ready(self, timeout: float = 10.0) -> bool:
        """For tests and tools: wait until the server listens (the game never calls this)."""
        job = self._starting
        if job is not None:
            job.wait(timeout)
        server = self.server
        return server is not None and server.wait_ready(timeout)

    def stop(self) -> None:
        """Turn the phones off: the server stops and every phone's seat token is void."""
        if self._starting is not None:
            self._abandoned.append(self._starting)
            self._starting = None
        if self._server is not None:
            self._server.stop()
        self._server = None
        self._lobby, self._sent, self._asked = [], {}, {}

    # -- state ------------------------------------------------------------------------
    @property
    def code(self) -> str:
        return self.server.code if self.server is not None else ""

    @property
    def url(self) -> str:
        return self.server.url if self.server is not None else ""

    @property
    def error(self) -> str:
        server = self.server
        return self._error or (getattr(server, "error", "") if server is not None else "")

    def known(self, device: str) -> bool:
        """Whether a phone device still holds its seat token (asleep or not)."""
        phone = phone_number(device)
        return self.server is not None and phone is not None and self.server.known(phone)

    def connected(self, device: str) -> bool:
        phone = phone_number(device)
        return self.server is not None and phone is not None and self.server.connected(phone)

    # -- the frame loop's side ----------------------------------------------------------
    def poll(self) -> list:
        """The phones' actions since the last frame (joins and colours kept for the lobby)."""
        if self.server is None:
            return []
        actions = []
        for event in self.server.events():
            source = phone_device(event.phone)
            if isinstance(event, (ev.Joined, ev.LookWanted)):
                self._lobby.append(event)
            elif isinstance(event, ev.Picked):
                actions.append(PickKey(source, Vec(*event.key), event.phase, event.go))
            elif isinstance(event, ev.Confirmed):
                actions.append(PickKey(source, None, event.phase, True))
            elif isinstance(event, ev.Paused):
                actions.append(Pause(source))
            elif isinstance(event, ev.Flicked):
                from game.presentation.flick import PhoneFlick  # loaded with a flick race, not at start-up

                actions.append(PhoneFlick(source, math.radians(event.angle / 10), event.strength / 1000,
                                          event.phase))
            elif isinstance(event, ev.Answered):
                asked = self._asked.get(event.phone)
                if asked is not None and asked[0] == event.number:  # else a question already gone: dropped
                    actions.append(PhoneAnswer(source, event.yes))
            elif isinstance(event, (ev.Left, ev.Lost)):
                self._sent.pop(event.phone, None)
                self._asked.pop(event.phone, None)
                actions.append(PhoneGone(source, self.server.name_of(event.phone) or "phone",
                                         left=isinstance(event, ev.Left)))
            elif isinstance(event, ev.Back):
                self._sent.pop(event.phone, None)  # a reloaded page has nothing: send it all again
                self._asked.pop(event.phone, None)
                self._epochs[event.phone] = self._epochs.get(event.phone, 0) + 1
                actions.append(DeviceAdded(source, self.server.name_of(event.phone)))
        return actions

    def epoch(self, device: str) -> int:
        """How many times this phone came back (a view cached for an older page is sent again)."""
        return self._epochs.get(phone_number(device), 0) if self._epochs else 0

    def lobby_events(self) -> list:
        """Joins and colour requests waiting for the lobby (taken by it, in order)."""
        found, self._lobby = self._lobby, []
        return found

    def send(self, device: str, message: dict) -> None:
        """Send a phone a view, unless it already has this very one (a view closes its question)."""
        phone = phone_number(device)
        if self.server is None or phone is None or self._sent.get(phone) == message:
            return
        self._asked.pop(phone, None)
        self._sent[phone] = message
        self.server.send(phone, message)

    def prompt(self, device: str, question: dict) -> None:
        """Put a question over the phone's page (``ask_view``: the race paused, a confirm dialog),
        unless it shows this one already. A new question gets a new number: only an answer
        naming it becomes a :class:`PhoneAnswer`. The race's view is sent again once the
        question is gone (the phone's epoch moves on)."""
        phone = phone_number(device)
        if self.server is None or phone is None:
            return
        asked = self._asked.get(phone)
        if asked is not None and asked[1] == question:
            return
        self._questions += 1
        self._asked[phone] = (self._questions, question)
        self._epochs[phone] = self._epochs.get(phone, 0) + 1
        message = {**question, "n": self._questions}
        self._sent[phone] = message
        self.server.send(phone, message)

    def refuse(self, device: str, why: str) -> None:
        """The game will not seat this phone: it is told why and its token is void."""
        phone = phone_number(device)
        if self.server is not None and phone is not None:
            self._sent.pop(phone, None)
            self.server.forget(phone, why)

    def tell(self, device: str, kind: str, why: str) -> None:
        phone = phone_number(device)
        if self.server is not None and phone is not None:
            self.server.send(phone, {"t": "refused", "kind": kind, "why": why})

    def publish_lobby(self, seats) -> None:
        """Every phone seat's lobby view: who sits, the free colours and its own (``seats``: SeatSpecs)."""
        if self.server is None:
            return
        pairs = [(s.name, s.color) for s in seats]
        colours = [css(c) for c in theme.COLORS]
        for spec in seats:
            if phone_number(spec.device) is not None:
                self.send(spec.device, lobby_view(pairs, spec.color, colours, COLOUR_NAMES))


class PhoneLayer:
    """Drawn over the race, it draws nothing on the TV: it sends each phone seat its view of the race.

    A view is built only when what it shows changed (the state, the mode, the aim, the
    doomed marks arriving), so eight phones cost a frame next to nothing."""

    def __init__(self, link: PhoneLink) -> None:
        self.link = link
        self._keys: dict[str, tuple] = {}
        self._views: dict[str, tuple] = {}  # device -> (what the view shows but the aim, the view)
        self._doomed: dict[str, tuple] = {}  # device -> (state, car) and its doomed marks, once known

    def draw(self, surface, scene) -> None:
        pass

    def update(self, scene, dt: float) -> None:
        """``scene`` is the race screen's read-only ``race_scene.LayerView``."""
        if not self.link.on:
            return
        from game.presentation.hud import race_places

        ctl = scene.controller
        places = None
        waiting = set(ctl.waiting_humans()) if scene.mode == "choosing" else set()  # once a frame, not per phone
        state = id(ctl.state)
        for device, car in scene.phone_seats():
            turn = car in waiting
            chosen = ctl.chosen(car) is not None
            aim = scene.aim(car) if turn else None
            doomed = None
            if turn and scene.settings.show_doomed:
                known = self._doomed.get(device)
                if known is not None and known[0] == (state, car):
                    doomed = known[1]
                else:
                    doomed = scene.doomed(car)
                    if doomed is not None:
                        self._doomed[device] = ((state, car), doomed)
            shows = (state, scene.mode, turn, chosen, doomed is None, ctl.over, self.link.epoch(device))
            key = (shows, aim)
            if self._keys.get(device) == key:
                continue
            self._keys[device] = key
            cached = self._views.get(device)
            if cached is not None and cached[0] == shows:  # only the aim moved: the page has the rest
                self.link.send(device, {"t": "aim", "phase": ctl.state.phase,
                                        "aim": [aim.x, aim.y] if aim is not None else None})
                continue
            else:
                if places is None:
                    places = race_places(ctl.state)
                flick = None
                if turn and ctl.state.rules.movement == Movement.FLICK:
                    from game.presentation.flick import METER_PERIOD

                    flick = flick_view(ctl.state, car, FLICK_REACH, METER_PERIOD)
                view = race_view(
                    ctl.state, car, candidates=ctl.candidates(car) if turn else (), doomed=doomed or frozenset(),
                    aim=aim, chosen=chosen, turn=turn, colours=[css(p.color) for p in scene.pens],
                    place=places[car], message=_phone_message(scene, car, turn, chosen), flick=flick)
                self._views[device] = (shows, view)
            self.link.send(device, view)


def _phone_message(scene, car: int, turn: bool, chosen: bool) -> str:
    ctl = scene.controller
    me = ctl.state.cars[car]
    if ctl.over or scene.mode == "finished":
        return "Race over: look at the TV."
    if not me.racing:
        return f"Your race is over ({me.status})."
    if scene.mode == "intro":
        return "Get ready..."
    if scene.mode == "replay":
        return "Watch the TV!"
    if turn and chosen:
        return "Chosen: waiting for the others."
    if turn and ctl.state.rules.movement == Movement.FLICK:
        return "Your turn: touch the paper to aim, tap Flick! when the meter is right."
    if turn:
        return "Your turn: tap a ring, tap it again (or Confirm)."
    return "Wait for your turn."


def qr_matrix(text: str):
    """The QR code of ``text`` as rows of dark (1) and light (0) modules, None without segno.
    Slow the first time (segno's import): the lobby asks for it on a worker thread."""
    try:
        import segno
    except ImportError:
        return None
    return [bytes(row) for row in segno.make(text, error="m").matrix]


def qr_surface(matrix, size: int) -> pygame.Surface:
    """A QR matrix (:func:`qr_matrix`) as a square surface of about ``size`` pixels, quiet zone included."""
    import numpy as np

    modules = len(matrix) + 8  # the quiet zone: four modules each side
    scale = max(1, size // modules)
    light = np.full((modules, modules), 255, dtype=np.uint8)
    light[4:-4, 4:-4] = 255 * (1 - np.array([list(row) for row in matrix], dtype=np.uint8))
    pixels = np.repeat(np.repeat(light.T, scale, axis=0), scale, axis=1)  # surfarray is indexed [x, y]
    return pygame.surfarray.make_surface(np.stack([pixels] * 3, axis=-1))
