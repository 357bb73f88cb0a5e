"""The phases of the race screen, one object each: intro, choosing, replay, finished.

The race screen (:class:`game.presentation.race_scene.RaceScene`) holds one :class:`Mode`
at a time and hands it what differs between the phases of a race: the presses it takes
(:meth:`Mode.handle`), how the race moves on in a frame (:meth:`Mode.play`), the help
line, the countdown, the markers beside the players' names and what it draws over the
race (:meth:`Mode.draw`). What is the same in every phase (pause, device changes, the
assist and replay-speed keys, sounds, the move timer's news, the layers) stays in the
scene. A mode moves the screen on by :meth:`RaceScene.switch` to the next one.

- :class:`Intro`: the pencil draws the border in, then "3, 2, 1" counts down (Confirm or
  Tab skips it);
- :class:`Choosing`: the players pick their targets ("Go!" stays up over the first
  moments), the CPUs answer, race control plays the phase once every choice is in;
- :class:`Replay`: the phases race control played are animated one after another (a
  player's choosing press skips to the choice);
- :class:`Finished`: the results over the track (Confirm watches the replay), or the
  config's finish screen in its place.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import pygame

from game.core.race import FINISHED
from game.presentation.animation import PhaseAnimation
from game.presentation.hud import CarLine, overtaken
from game.presentation.input import Back, ClickAt, Confirm, MoveCursor, Select, SkipReplay
from game.presentation.timer_ring import draw_timer_rings, seconds_text, timer_rings

#: Seconds the pencil takes to draw the border in, then each number of the countdown.
PENCIL_SECONDS, COUNT_SECONDS = 1.3, 0.6
COUNTDOWN = ("3", "2", "1")
#: The whole intro: the border, then the countdown (then "Go!" shows while players choose).
INTRO_SECONDS = PENCIL_SECONDS + COUNT_SECONDS * len(COUNTDOWN)
GO_SECONDS = 0.8


class Mode:
    """One phase of the race screen; the defaults are a phase where nothing is chosen."""

    #: The mode's name, as tools and tests ask for it (``scene.mode == "choosing"``).
    name = ""
    #: Whether the camera frames the players' next targets (the intro ends on them).
    frames_choice = False
    #: Whether the move timer runs (it does only while players choose).
    timer_runs = False
    #: The phase being animated (only while replaying).
    animation: PhaseAnimation | None = None

    def handle(self, scene, action) -> None:
        """A press that is not for every mode (pause, assist, replay speed are the scene's)."""

    def play(self, scene, dt: float) -> None:
        """The race moves on by ``dt`` seconds in this mode."""

    def hand_over(self, scene) -> None:
        """After a frame's update: the screen that takes over, if this mode ends the race screen."""

    def draw(self, scene, surface: pygame.Surface) -> None:
        """What this mode draws over the race view (and under the config's layers)."""

    def prompt(self, scene):
        """The help line: a string, or pieces ``(text, colour, bold)`` naming players in their colours."""
        return ""

    def pencil(self) -> float:
        """How much of the border the pencil has drawn (0 to 1)."""
        return 1.0

    def countdown(self, scene) -> tuple[str, float]:
        """The big word in the middle ("3", "2", "1", "Go!"; "" for none) and how long it has been up."""
        return "", 0.0

    def pending(self, scene):
        """A phase played by race control that waits for the camera before it is animated (None: none)."""
        return None

    def targets(self, scene) -> Sequence:
        """The players' target rings drawn this frame."""
        return ()

    def active(self, scene) -> int | None:
        """The car whose turn it is, in an ordered race (None: nobody, or everybody at once)."""
        return None

    def lines(self, scene) -> list[CarLine]:
        """The marker beside each car's name in the HUD."""
        return [CarLine("") for _ in scene.controller.seats]


class Intro(Mode):
    """The border pencilled in, then the countdown; Confirm or Tab skips to the first choice."""

    name = "intro"
    frames_choice = True  # the camera already frames the first choice (the countdown ends on it)

    def __init__(self, time: float = 0.0) -> None:
        self.time = time  # seconds since the race screen opened

    def handle(self, scene, action) -> None:
        if isinstance(action, (SkipReplay, Confirm)):
            self.time = INTRO_SECONDS

    def play(self, scene, dt: float) -> None:
        self.time += dt
        if self.time >= INTRO_SECONDS:
            scene.switch(Choosing(go_time=0.0))

    def prompt(self, scene):
        return "Get ready..." if self.time < PENCIL_SECONDS else "Get ready... first phase coming up"

    def pencil(self) -> float:
        return min(1.0, self.time / PENCIL_SECONDS)

    def countdown(self, scene) -> tuple[str, float]:
        if self.time < PENCIL_SECONDS:
            return "", 0.0
        k = min(len(COUNTDOWN) - 1, int((self.time - PENCIL_SECONDS) / COUNT_SECONDS))
        return COUNTDOWN[k], self.time - PENCIL_SECONDS - k * COUNT_SECONDS


class Choosing(Mode):
    """The players pick their targets; race control plays the phase once every choice is in."""

    name = "choosing"
    frames_choice = True
    timer_runs = True

    def __init__(self, go_time: float = GO_SECONDS) -> None:
        self.go_time = go_time  # seconds "Go!" has been up (GO_SECONDS: it is not shown)

    def handle(self, scene, action) -> None:
        if scene.flick is not None and scene.flick.handle(action):
            return
        if isinstance(action, SkipReplay) and self.pending(scene) is not None:
            scene.skip_replays()  # a phase waiting for the camera to pull back: skipped as well
            return
        scene.choose(action)

    def play(self, scene, dt: float) -> None:
        self.go_time += dt
        ctl = scene.controller
        ctl.tick()
        # a phase plays once the camera has pulled back to fit it (see RaceScene._aim): a
        # playing phase only pans, so no frame of it scales the cached paper
        if len(ctl.records) > scene.shown and scene.view.camera.settled:
            scene.start_replay()
        elif ctl.over and len(ctl.records) == scene.shown:  # every phase played out first
            scene.switch(Finished())

    def draw(self, scene, surface: pygame.Surface) -> None:
        if scene.flick is not None:
            from game.presentation.flick import draw_flick

            draw_flick(surface, scene, scene.flick)
        draw_timer_rings(surface, scene.view, scene.controller.state, timer_rings(scene.controller), scene.clock)

    def prompt(self, scene):
        if scene.flick is not None and scene.flick.shown():  # a phone aims on its phone: not prompted here
            return ("Aim: stick / d-pad / block keys (arrows turn)  ·  flick: A / Enter / middle key  ·  "
                    "time the meter!")
        ctl = scene.controller
        waiting = scene.router.choosing(ctl)
        if waiting:
            from game.presentation.theme import HUD_TEXT

            pieces = [("Choose your target", HUD_TEXT, False)]
            for car in waiting:  # each name in its player's own colour
                hint = scene.hint(scene.router.source_of(car))
                pieces.append(("  ·  ", HUD_TEXT, False))
                pieces.append((ctl.seats[car].name, scene.view.pens[car].color, True))
                if hint:
                    pieces.append((f": {hint}", HUD_TEXT, False))
            return pieces
        if ctl.awaiting():
            note = scene.cpu_note()
            if note:
                return note[0].upper() + note[1:]
            return f"{ctl.seats[ctl.awaiting()[0]].name} is thinking..."
        return ""

    def countdown(self, scene) -> tuple[str, float]:
        if self.go_time < GO_SECONDS and scene.shown == 0:
            return "Go!", self.go_time
        return "", 0.0

    def pending(self, scene):
        records = scene.controller.records
        return records[scene.shown] if len(records) > scene.shown else None

    def targets(self, scene) -> list:
        return scene.choice_targets()

    def active(self, scene) -> int | None:
        ctl = scene.controller
        return ctl.awaiting()[0] if not ctl.simultaneous and ctl.awaiting() else None

    def lines(self, scene) -> list[CarLine]:
        ctl = scene.controller
        awaiting = set(ctl.awaiting())
        lines = []
        for i, seat in enumerate(ctl.seats):
            marker = ""
            if i in awaiting:
                if not seat.is_human:
                    marker = "preparing..." if scene.cpu_note() else "thinking..."
                else:
                    marker = "choosing" if ctl.simultaneous else "to move"
            elif seat.is_human and ctl.chosen(i) is not None:
                marker = "chosen" if i in scene.phone_cars() else "ready"  # a phone's pick: blind until played
            lines.append(CarLine(marker))
        for ring in timer_rings(ctl):
            lines[ring.car] = CarLine(f"{lines[ring.car].marker} {seconds_text(ring.seconds)}".strip())
        return lines


class Replay(Mode):
    """A phase played out: the pens travel, crashes shake the camera; then the next phase or a choice."""

    name = "replay"

    def __init__(self, animation: PhaseAnimation) -> None:
        self.animation = animation
        self._kicked: set[int] = set()  # collisions that have shaken the camera

    @classmethod
    def of_phase(cls, scene) -> "Replay":
        """The replay of the first phase not yet shown."""
        states = scene.controller.states
        overtake = overtaken(states[scene.shown], states[scene.shown + 1])
        return cls(PhaseAnimation(scene.controller.records[scene.shown], overtake=overtake))

    def handle(self, scene, action) -> None:
        if isinstance(action, SkipReplay):
            scene.skip_replays()
        elif isinstance(action, (Select, MoveCursor, Confirm, ClickAt)) and scene.router.chooses(action.source,
                                                                                              scene.controller):
            # A player ready to choose is not kept waiting by the animation: the press
            # skips to the choice and highlights a target, but never confirms one unseen.
            scene.skip_replays()
            if isinstance(action, (Select, MoveCursor)):
                scene.choose(replace(action, confirm=False) if isinstance(action, Select) else action)

    def play(self, scene, dt: float) -> None:
        anim = self.animation
        anim.advance(dt * scene.settings.replay_speed)
        for k, _ in anim.collisions_fired():
            if k not in self._kicked:
                self._kicked.add(k)
                if not scene.settings.reduce_motion:  # a shake in proportion to the zoom
                    scene.view.camera.kick(max(3.0, scene.view.camera.scale * 0.35))
        if anim.done:
            scene.played(anim.record)
            if len(scene.controller.records) > scene.shown:
                scene.start_replay()
            else:
                scene.to_choice()

    def prompt(self, scene):
        return f"Tab / Y: skip  ·  replay speed x{scene.settings.replay_speed:g} (+/-)"


class Finished(Mode):
    """Every phase played: the results over the track (Confirm: the replay viewer, Back: leave),
    or the config's finish screen in the race screen's place."""

    name = "finished"

    def __init__(self) -> None:
        self.podium = None  # the animated podium over the results, made when first drawn

    def handle(self, scene, action) -> None:
        if isinstance(action, (Confirm, ClickAt)):
            from game.presentation.replay_scene import ReplayViewerScene

            ctl = scene.controller
            scene.stack.push(ReplayViewerScene(ctl.states, ctl.records, [s.name for s in ctl.seats],
                                               scene.view.camera.size, scene.view.text, seed=ctl.seed,
                                               text_scale=scene.view.text_scale))
        elif isinstance(action, Back):
            scene.stack.pop()

    def play(self, scene, dt: float) -> None:
        if self.podium is not None:
            self.podium.update(dt)

    def hand_over(self, scene) -> None:
        if not scene.done and scene.config.finish is not None:
            scene.done = True
            scene.stack.replace(scene.config.finish(scene))

    def prompt(self, scene):
        ctl = scene.controller
        ranks = ctl.state.outcome().ranks
        winners = [ctl.seats[i].name for i, r in enumerate(ranks) if r == 1]
        head = (" and ".join(winners) + (" win!" if len(winners) > 1 else " wins!")) if winners else "Race over"
        return f"{head}  Enter: watch the replay  ·  Backspace: leave"

    def draw(self, scene, surface: pygame.Surface) -> None:
        """The results: the animated podium, and beneath it every car's place and moves."""
        from game.presentation.podium import Podium, podium_entries
        from game.presentation.theme import GRAPHITE_LIGHT, HUD_BG, HUD_TEXT, draw_symbol

        text = scene.view.text
        state = scene.controller.state
        ranks = state.outcome().ranks
        names = [seat.name for seat in scene.controller.seats]
        if self.podium is None:
            self.podium = Podium(podium_entries(ranks, names, scene.view.pens), text, seed=scene.controller.seed,
                                 reduce_motion=scene.settings.reduce_motion)  # standing at once, no bobbing
        rows = sorted(range(len(state.cars)), key=lambda i: (ranks[i] is None, ranks[i] or 0, i))
        podium_h = int(surface.get_height() * 0.3)
        fit = (surface.get_height() * 0.95 - podium_h) / (1.5 * (len(rows) + 2))  # the table fits the window
        size = max(12, int(min(surface.get_height() / 30 * scene.settings.text_scale, fit)))
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
            pen = scene.view.pens[i]
            text.blit(surface, place, size, HUD_TEXT, (rect.left + size, y))
            draw_symbol(surface, pen.symbol, (rect.left + size * 3.2, y + size * 0.5), size * 0.4, pen.color)
            text.blit(surface, names[i], size, pen.color, (rect.left + size * 4.2, y), bold=True)
            text.blit(surface, what, size, HUD_TEXT, (rect.right - size, y), "topright")
            y += int(size * 1.5)


#: Every mode by name (tools and tests jump to one: ``scene.mode = "choosing"``).
BY_NAME = {mode.name: mode for mode in (Intro, Choosing, Finished)}
