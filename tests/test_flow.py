"""The whole couch game, driven headless: gamepads join, a CPU is added, a track and rules are
picked, the race is driven to the finish with the pads, the results show, the replay is
watched, saved and loaded back; a pad pulled mid-race pauses it until any pad takes over.
"""

from __future__ import annotations

import os
import shutil
import time

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
import pytest

from game import paths
from game.core.race import FINISHED
from game.core.rules import preset
from game.drivers.cpu import make_driver
from game.drivers.solver import warm_up
from game.presentation.app import App, DisplayConfig, init_pygame
from game.presentation.menus import build_context, build_title_scene
from game.presentation.menus.lobby import LobbyScene
from game.presentation.menus.pause import PauseMenuScene
from game.presentation.race_scene import RaceScene
from game.presentation.replay_scene import ReplayViewerScene
from game.presentation.menus.results import ResultsScene
from game.presentation.menus.rules_menu import RulesScene
from game.presentation.menus.settings_menu import CapturingMapper
from game.presentation.menus.title import TitleScene
from game.presentation.menus.tracks import TrackSelectScene
from game.race.referee import referee
from game.race.replay import load_replay
from game.settings import load_best
from game.tracks import load_track_ref
from tests.vgamepad import VirtualGamepad

SIZE = (800, 450)
DPAD = {(0, -1): ["dpup"], (0, 1): ["dpdown"], (-1, 0): ["dpleft"], (1, 0): ["dpright"],
        (-1, -1): ["dpleft", "dpup"], (1, -1): ["dpright", "dpup"], (-1, 1): ["dpleft", "dpdown"],
        (1, 1): ["dpright", "dpdown"], (0, 0): []}


class Couch:
    """An app at the title screen, with virtual gamepads and helpers to press things."""

    def __init__(self, tmp_path) -> None:
        init_pygame(headless=True)
        pygame.display.set_mode(SIZE)
        self.app = App(DisplayConfig(size=SIZE), mapper=CapturingMapper())
        self.builtin = tmp_path / "builtin"  # the starter pack only: loading every outline track is slow
        self.builtin.mkdir(exist_ok=True)  # a second couch on the same folders: the game started again
        shutil.copy(paths.builtin_tracks_dir() / "starter.toml", self.builtin / "starter.toml")
        self.ctx = build_context(tmp_path / "config", tmp_path / "packs", self.builtin,
                                 paths.assets_dir(), app=self.app, seed=11)
        self.ctx.catalogue.start().wait(60)  # as the game does at start-up (players take longer to get there)
        # The game loads (or first compiles) the CPUs' kernels while the title screen shows; these
        # tests count frames, not seconds, so a first compile must not fall inside a race.
        warm_up()
        self.ctx.settings.tutorial_done = True
        self.ctx.settings.replay_speed = 4.0
        self.app.push(build_title_scene(self.ctx))
        self.pads: list[VirtualGamepad] = []
        pygame.event.clear()

    def plug(self) -> VirtualGamepad:
        pad = VirtualGamepad.plug()
        self.pads.append(pad)
        self.step(2)
        return pad

    def step(self, frames: int = 1, dt: float = 1 / 60) -> None:
        for _ in range(frames):
            self.app.step(dt)

    def press(self, pad: VirtualGamepad, *buttons: str) -> None:
        for b in buttons:
            pad.press(b)
        self.step()
        for b in buttons:
            pad.release(b)
        self.step()

    def press_until(self, pad: VirtualGamepad, button: str, done, what: str, presses: int = 40) -> None:
        """Press ``button`` until ``done()`` holds: a menu walked to a row, a list to an entry.

        Bounded: a pad whose presses never arrive (or a row that is not there) fails with what
        was wanted and which screen stayed on top, instead of pressing forever.
        """
        for _ in range(presses):
            if done():
                return
            self.press(pad, button)
        if not done():
            raise AssertionError(f"{presses} presses of {button!r} never reached {what} "
                                 f"(on top: {type(self.top()).__name__})")

    def top(self):
        return self.app.stack.top

    def close(self) -> None:
        for pad in self.pads:
            pad.unplug()
        pygame.event.clear()


@pytest.fixture
def couch(tmp_path):
    c = Couch(tmp_path)
    yield c
    c.close()


def join_two_pads_and_a_cpu(couch):
    one, two = couch.plug(), couch.plug()
    couch.press(one, "a")  # title: Race, and the pad that chose it is seated
    assert isinstance(couch.top(), LobbyScene)
    couch.press(two, "a")
    lobby = couch.top()
    assert [s.device for s in lobby.table.seats] == [f"pad:{one.instance_id}", f"pad:{two.instance_id}"]
    for _ in range(3):
        couch.press(one, "dpdown")  # name -> colour -> symbol -> add CPU
    couch.press(one, "dpleft")  # level: Rookie
    couch.press(one, "a")
    assert [s.kind for s in lobby.table.seats] == ["human", "human", "cpu:rookie"]
    seats = lobby.table.seats
    assert len({s.color for s in seats}) == 3 and len({s.symbol for s in seats}) == 3
    couch.press(one, "start")
    assert isinstance(couch.top(), TrackSelectScene)
    return one, two


def pick_first_sprint(couch, pad):
    tracks = couch.top()
    couch.press_until(pad, "dpdown", lambda: tracks.entry.ref == "starter/first-sprint", "starter/first-sprint")
    couch.press(pad, "a")
    rules = couch.top()
    assert isinstance(rules, RulesScene)
    assert rules.menu.current.label == "Start the race!"
    couch.press(pad, "dpdown")  # the preset row
    for _ in range(5):
        if rules.rules.name == "paper":
            break
        couch.press(pad, "dpright")
    assert rules.rules.name == "paper"
    couch.press(pad, "start")
    race = couch.top()
    assert isinstance(race, RaceScene)
    return race


def drive_to_the_finish(couch, pads, max_frames=4000):
    """Each pad picks the Champion's target for its car: d-pad to the key, then A."""
    race = couch.top()
    champion = make_driver("cpu:champion", shared=couch.ctx.cpu_shared)
    by_car = {car: pad for pad in pads for src, car in race.devices.items() if src == f"pad:{pad.instance_id}"}
    for _ in range(max_frames):
        if not isinstance(couch.top(), RaceScene):
            return
        ctl = race.controller
        if race.mode == "choosing":
            for car in ctl.waiting_humans():
                if ctl.chosen(car) is None:
                    node = champion.choose(ctl.state, car, ctl.committed_for(car), None)
                    key = next(c.key for c in ctl.candidates(car) if c.node == node)
                    pad = by_car[car]
                    for b in DPAD[(key.x, key.y)]:
                        pad.press(b)
                    couch.step()
                    pad.press("a")
                    couch.step()
                    for b in DPAD[(key.x, key.y)] + ["a"]:
                        pad.release(b)
        couch.step(dt=0.1)
    raise AssertionError("the race did not end")


def test_two_pads_and_a_cpu_race_to_the_results_and_the_replay_comes_back(couch, tmp_path):
    one, two = join_two_pads_and_a_cpu(couch)
    race = pick_first_sprint(couch, one)
    assert couch.ctx.settings.rules_preset == "paper"  # remembered
    drive_to_the_finish(couch, [one, two])
    results = couch.top()
    assert isinstance(results, ResultsScene)
    state = results.state
    assert state.cars[0].status == FINISHED and state.cars[1].status == FINISHED
    par = state.track.meta["par"]
    assert state.cars[0].moves == par  # the pads drove the Champion's line: par
    assert "fanfare" in couch.ctx.audio.played and "scratch" in couch.ctx.audio.played
    best, problems = load_best(tmp_path / "config")
    assert problems == [] and best.get("starter/first-sprint", 1).moves == par
    couch.press(one, "a")  # watch the replay
    assert isinstance(couch.top(), ReplayViewerScene)
    couch.step(30, dt=0.1)
    couch.press(one, "b")
    assert couch.top() is results
    couch.press(one, "dpdown")
    couch.press(one, "a")  # save the replay
    saved = load_replay(results.saved_to)
    assert saved.names == tuple(s.name for s in race.controller.seats)
    assert [c.driver for c in saved.cars] == ["human", "human", "cpu:rookie"]
    again = referee(saved, load_track_ref(saved.track, builtin_dir=paths.builtin_tracks_dir()))  # the real one
    assert again.outcome == state.outcome()
    assert [c.moves for c in again.final.cars] == [c.moves for c in state.cars]
    couch.press(one, "dpdown")
    couch.press(one, "dpdown")
    couch.press(one, "a")  # another track
    assert isinstance(couch.top(), TrackSelectScene)
    couch.press(one, "b")
    couch.press(one, "b")
    assert isinstance(couch.top(), LobbyScene)


def test_a_pulled_gamepad_pauses_the_race_until_any_pad_takes_the_car(couch):
    one, two = join_two_pads_and_a_cpu(couch)
    race = pick_first_sprint(couch, one)
    couch.step(30, dt=0.1)  # past the intro
    car = race.devices[f"pad:{two.instance_id}"]
    two.unplug()
    couch.pads.remove(two)
    couch.step(2)
    pause = couch.top()
    assert isinstance(pause, PauseMenuScene)
    assert race.seats.orphans == [car]
    couch.press(one, "start")  # resuming is refused while a car has no pad
    assert couch.top() is pause
    three = couch.plug()
    couch.press(three, "a")
    assert couch.top() is race
    assert race.devices[f"pad:{three.instance_id}"] == car
    assert race.seats.orphans == []


def test_pause_menu_retires_a_car_and_quits_to_the_title(couch):
    one, two = join_two_pads_and_a_cpu(couch)
    race = pick_first_sprint(couch, one)
    couch.step(30, dt=0.1)
    couch.press(one, "start")
    pause = couch.top()
    assert isinstance(pause, PauseMenuScene)
    couch.press(one, "dpdown")
    couch.press(one, "dpdown")  # "Retire a car"
    couch.press(one, "dpright")  # the second car
    couch.press(one, "a")
    confirm = couch.top()
    assert confirm.question == f"Retire {race.controller.seats[1].name}?"
    couch.press(one, "a")  # the dialog opens on No
    assert couch.top() is pause and confirm.answered is False
    assert race.controller.state.cars[1].status != "retired"
    couch.press(one, "a")
    couch.press(one, "dpdown")
    couch.press(one, "dpdown")  # no wrapping past Yes either
    couch.press(one, "a")
    assert couch.top() is race
    for _ in range(6):  # the other player moves, so the phase is played
        couch.press(one, "a")
        couch.step(20, dt=0.1)
    assert race.controller.state.cars[1].status == "retired"
    couch.press(one, "start")
    couch.press(one, "dpup")  # no wrapping onto "Quit to the main menu"
    assert couch.top().menu.index == 0
    for _ in range(4):
        couch.press(one, "dpdown")
    couch.press(one, "a")
    couch.press(one, "dpdown")  # "Yes, leave it"
    couch.press(one, "a")
    assert isinstance(couch.top(), TitleScene)


def test_the_game_command_entry_opens_at_the_title_and_runs_headless(tmp_path):
    from game.presentation.menus import run_game

    assert run_game(tmp_path / "config", tmp_path / "packs", paths.builtin_tracks_dir(), paths.assets_dir(),
                    headless=True, max_frames=3, size=(640, 360)) == 0


def test_ten_races_from_the_menus_leave_no_cpu_planner_thread_behind(tmp_path):
    """Every race's planner thread ends when the race ends (results) or is left (restart, quit)."""
    import threading

    from game.race.planner import Planner

    def planners():
        return [t for t in threading.enumerate() if t.name == "cpu-planner"]

    before = planners()
    made = []

    def planner():
        made.append(Planner())  # the tests' planner: a CPU failure raises
        return made[-1]

    couch = Couch(tmp_path)
    couch.ctx.planner = planner
    try:
        pad = couch.plug()

        def start_from_the_title():
            couch.press(pad, "a")  # title: Race, the pad seated
            if not any(not s.is_human for s in couch.top().table.seats):  # the evening's line-up is kept after
                for _ in range(3):
                    couch.press(pad, "dpdown")  # name -> colour -> symbol -> add CPU
                couch.press(pad, "a")  # a CPU (the lobby offers a Pro first)
            couch.press(pad, "start")
            return pick_first_sprint(couch, pad)

        def pause_and(item):
            couch.press(pad, "start")
            assert isinstance(couch.top(), PauseMenuScene)
            for _ in range(item):
                couch.press(pad, "dpdown")
            couch.press(pad, "a")
            couch.press(pad, "dpdown")  # restart, retire and quit ask first: yes
            couch.press(pad, "a")

        def retire_the_player_and_watch_the_cpu_finish():
            couch.step(30, dt=0.1)  # past the intro
            pause_and(2)  # retire a car: the first is the player's
            # The CPU thinks on its own thread while frames run as fast as they can, so how many
            # frames its race takes depends on the machine's load: bound the wait in seconds.
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline:
                if isinstance(couch.top(), ResultsScene):
                    return couch.top()
                couch.step(dt=0.1)
            raise AssertionError("the CPU did not finish within 240 s")

        race = start_from_the_title()
        results = retire_the_player_and_watch_the_cpu_finish()  # race 1 ends
        assert results.state.cars[1].status == FINISHED
        results.again()  # race 2
        for _ in range(6):  # races 3 to 8: the one before is left by a restart
            couch.step(10, dt=0.1)
            pause_and(1)
            assert isinstance(couch.top(), RaceScene) and couch.top() is not race
            race = couch.top()
        couch.step(10, dt=0.1)
        pause_and(4)  # quit to the title (below Controls): race 8 is left
        assert isinstance(couch.top(), TitleScene)
        start_from_the_title()  # race 9
        couch.step(10, dt=0.1)
        pause_and(1)  # race 10
        retire_the_player_and_watch_the_cpu_finish()
        assert len(made) == 10
        for p in made:
            assert p.closed
            assert p.join(10), "a planner thread is still running"
        assert planners() == [t for t in before if t.is_alive()]
    finally:
        couch.close()
