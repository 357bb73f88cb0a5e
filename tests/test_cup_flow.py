"""A Grand Prix cup on the couch, headless: two virtual gamepads and two CPUs through a 3-race cup,
quitting after race 2, restarting the game, resuming, and the final podium; the standings match
the ranks and the points table after every race."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import shutil
import time
from pathlib import Path

import pygame
import pytest

from game.presentation.menus.cup import (CupPodiumScene, CupRaceEnd, CupSeatsScene,
                                         CupSelectScene, ResumeCupScene, StandingsScene)
from game.presentation.menus.title import TitleScene
from game.race.cup import CUP_FILE, load_cup, saved_cups
from game.race.referee import referee
from game.race.replay import load_replay
from game.tracks import load_pack
from tests.test_flow import Couch, drive_to_the_finish

MINICUP = Path(__file__).parent / "data" / "packs" / "minicup.toml"
F1 = (25, 18, 15, 12, 10, 8, 6, 4, 2, 1)


class CupCouch(Couch):
    """The couch with the mini-cup pack among the built-in packs (three sprints of a few moves)."""

    def __init__(self, tmp_path) -> None:
        super().__init__(tmp_path)
        shutil.copy(MINICUP, self.builtin / "minicup.toml")


@pytest.fixture
def couch(tmp_path):
    c = CupCouch(tmp_path)
    yield c
    c.close()


def wait_for(couch, condition, seconds=60):
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise AssertionError("timed out")
        couch.step()
        time.sleep(0.002)


def title_row(couch, pad, label):
    title = couch.top()
    assert isinstance(title, TitleScene)
    for _ in range(len(title.menu.items)):
        if title.menu.current.label == label:
            return
        couch.press(pad, "dpdown")
    raise AssertionError(f"no {label!r} on the title")


def check_standings(cup):
    """After every race: each entrant's points are the table's for its place, and the order follows them."""
    totals = [0] * len(cup.entrants)
    for k, result in enumerate(cup.results):
        for i, place in enumerate(result.places):
            totals[i] += F1[place - 1] if place is not None else 0
        standings = cup.standings(k + 1)
        assert {s.entrant: s.points for s in standings} == dict(enumerate(totals))
        assert [s.points for s in standings] == sorted(totals, reverse=True)
        for s in standings:
            assert s.places == tuple(r.places[s.entrant] for r in cup.results[:k + 1])


def test_two_pads_and_two_cpus_race_a_cup_quit_after_race_two_and_resume_it(tmp_path):
    couch = CupCouch(tmp_path)
    try:
        one, two = couch.plug(), couch.plug()
        title_row(couch, one, "Grand Prix cup")
        couch.press(one, "a")
        lobby = couch.top()
        assert lobby.screen_name == "cup-lobby" and lobby.next_screen == "cup-select"
        assert [s.device for s in lobby.table.seats] == [f"pad:{one.instance_id}"]  # seated by choosing the cup
        couch.press(two, "a")
        for _ in range(3):
            couch.press(one, "dpdown")  # to "Add a CPU"
        couch.press(one, "a")
        couch.press(one, "a")
        assert [s.kind for s in lobby.table.seats] == ["human", "human", "cpu:pro", "cpu:pro"]
        couch.press(one, "start")
        select = couch.top()
        assert isinstance(select, CupSelectScene)
        wait_for(couch, lambda: select.choices)
        names = [c.name for c in select.choices]
        assert "Starter Cup" in names and "Sprint Cup" in names and "Mini Cup Cup" in names
        # the Cup row: left/right picks the cup
        couch.press_until(one, "dpright", lambda: select.choice.name == "Sprint Cup", "the Sprint Cup")
        assert select.table().name == "f1"
        couch.press(one, "start")
        race = couch.top()
        assert isinstance(race.config.finish, CupRaceEnd) and race.config.finish.index == 0
        folder = race.config.finish.session.folder
        assert load_cup(folder / CUP_FILE).next_index == 0, "saved before the first race"
        for k in range(2):
            drive_to_the_finish(couch, [one, two])
            standings = couch.top()
            assert isinstance(standings, StandingsScene) and standings.races == k + 1
            saved = load_cup(folder / CUP_FILE)
            assert saved.next_index == k + 1 and saved.results[k].replay == f"race-{k + 1}.toml"
            check_standings(saved)
            couch.step(5)
            couch.press(one, "a")  # the first press ends the points animation
            assert standings.done
            if k == 0:
                couch.press(one, "a")  # next race
                assert isinstance(couch.top().config.finish, CupRaceEnd) and couch.top().config.finish.index == 1
        couch.press(one, "b")  # to "Main menu (the cup is saved)"
        couch.press(one, "a")
        assert isinstance(couch.top(), TitleScene)
        wait_for(couch, lambda: couch.top().cups)
        assert couch.top().menu.current.label == "Resume cup"
    finally:
        couch.close()
    pygame.event.clear()

    # the game starts again (a restart, or after a crash): the cup is offered on the title
    couch = CupCouch(tmp_path)
    try:
        pads = [couch.plug(), couch.plug()]
        title = couch.top()
        wait_for(couch, lambda: title.cups)
        assert title.menu.current.label == "Resume cup" and "race 3 of 3" in title.menu.current.value()
        couch.press(pads[1], "a")
        resume = couch.top()
        assert isinstance(resume, ResumeCupScene)
        couch.press(pads[1], "a")  # resume the first (newest) cup
        wait_for(couch, lambda: isinstance(couch.top(), CupSeatsScene))
        seats = couch.top()
        couch.press(pads[1], "a")  # the second pad takes the first free seat this time
        couch.press(pads[0], "a")
        assert seats.complete and seats.devices == {0: f"pad:{pads[1].instance_id}", 1: f"pad:{pads[0].instance_id}"}
        couch.press(pads[0], "a")
        race = couch.top()
        assert isinstance(race.config.finish, CupRaceEnd) and race.config.finish.index == 2
        assert race.devices == {f"pad:{pads[1].instance_id}": 0, f"pad:{pads[0].instance_id}": 1}
        drive_to_the_finish(couch, pads)
        standings = couch.top()
        assert isinstance(standings, StandingsScene) and standings.session.cup.finished
        couch.press(pads[0], "a")
        couch.press(pads[0], "a")  # the final podium
        podium = couch.top()
        assert isinstance(podium, CupPodiumScene)
        couch.step(10)
        couch.press(pads[0], "a")  # skip the show
        assert podium.podium.done
        final = load_cup(folder / CUP_FILE)
        assert final.finished and [s.position for s in podium.standings] == [s.position for s in final.standings()]
        check_standings(final)
        # every race's replay is kept and referees to the result the cup recorded
        pack = load_pack(couch.builtin / "minicup.toml").pack
        for result, race_def in zip(final.results, final.races):
            replay = load_replay(folder / result.replay)
            track = pack.track(race_def.track.partition("/")[2])
            again = referee(replay, track)
            assert again.outcome.ranks == result.places
            assert tuple(c.moves for c in again.final.cars) == result.moves
        couch.press(pads[0], "a")  # main menu
        assert isinstance(couch.top(), TitleScene)
        wait_for(couch, lambda: "Resume cup" not in [i.label for i in couch.top().menu.items])
        assert couch.top().cups == []
        assert [s.cup.finished for s in saved_cups(couch.ctx.cups_dir)] == [True]
    finally:
        couch.close()


def test_a_broken_cup_is_listed_with_its_problems_and_cannot_start(couch, tmp_path):
    text = MINICUP.read_text() + '\n[[cup]]\nid = "oops"\nname = "Oops"\nraces = ["dash", "nowhere"]\n'
    (couch.builtin / "minicup.toml").write_text(text)
    pad = couch.plug()
    title_row(couch, pad, "Grand Prix cup")
    couch.press(pad, "a")  # the cup's lobby, the pad seated
    couch.press(pad, "start")
    select = couch.top()
    wait_for(couch, lambda: select.choices)
    couch.press_until(pad, "dpright", lambda: select.choice.name == "broken: oops", "the broken cup")
    assert any("no track 'nowhere'" in p and "minicup.toml:" in p for p in select.choice.problems)
    couch.press(pad, "start")
    assert couch.top() is select and "cannot be raced" in select.message
