"""A couch evening that flows (issue 23, the menus): no one-press traps, an evening that
remembers its seats, CPU drivers with names, and an old settings file that still loads.

The press count drives the real scenes from the title with virtual gamepads.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from dataclasses import replace
from types import SimpleNamespace

import pygame
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from game.core.race import FINISHED, RaceState
from game.core.rules import PRESET_NAMES, preset
from game.presentation.input import Back, Confirm, DeviceRemoved, MoveCursor, Pause, Select
from game.presentation.menus import build_context, build_title_scene, display_choice
from game.presentation.menus.common import Item, MenuList
from game.presentation.menus.lobby import LobbyScene
from game.presentation.menus.race import RacePlan
from game.presentation.menus.rules_menu import PLAIN_PRESETS
from game.presentation.menus.seats import CPU_LEVELS, LEVEL_NAMES, MAX_SEATS, ROSTER, SeatSpec, SeatTable
from game.presentation.menus.tracks import load_entries
from game.presentation.scene import Scene, SceneStack
from game.settings import SEAT_KINDS, SETTINGS_FILE, Settings, load_settings, save_settings
from tests.menu_context import headless_display, starter_context

SIZE = (960, 540)


@pytest.fixture(scope="module")
def surface():
    return headless_display(SIZE)


@pytest.fixture
def ctx(tmp_path, surface):
    return starter_context(tmp_path, SIZE)


def drawn(scene, surface, tmp_path, name):
    scene.update(1 / 60)
    surface.fill((0, 0, 0))
    scene.stack.draw(surface)
    pygame.image.save(surface, str(tmp_path / f"{name}.png"))


TWO_PADS_TWO_CPUS = [{"name": "Ada", "color": 0, "symbol": 0, "kind": "human", "device": "pad"},
                     {"name": "Bix", "color": 1, "symbol": 1, "kind": "human", "device": "pad"},
                     {"name": "Doodle", "color": 4, "symbol": 7, "kind": "cpu:rookie"},
                     {"name": "Ruler", "color": 2, "symbol": 2, "kind": "cpu:pro"}]


# -- the presses from launch to the first move -------------------------------------
def test_two_pads_and_two_cpus_reach_the_first_move_in_six_presses_from_launch(tmp_path):
    from tests.test_flow import Couch

    from game.presentation.menus.rules_menu import RulesScene
    from game.presentation.menus.tracks import TrackSelectScene
    from game.presentation.race_scene import RaceScene

    # Last evening's line-up, as the lobby saved it; the game starts again.
    save_settings(Settings(lineup=TWO_PADS_TWO_CPUS, tutorial_done=True), tmp_path / "config")
    couch = Couch(tmp_path)
    presses = []

    def press(pad, button):
        presses.append(button)
        couch.press(pad, button)

    try:
        one, two = couch.plug(), couch.plug()
        press(one, "start")  # the title: a gamepad's Start joins, whatever row is highlighted
        lobby = couch.top()
        assert isinstance(lobby, LobbyScene)
        press(two, "a")  # the second pad takes its seat
        assert [(s.name, s.kind) for s in lobby.table.seats] == [
            ("Ada", "human"), ("Bix", "human"), ("Doodle", "cpu:rookie"), ("Ruler", "cpu:pro")]
        assert lobby.table.seats[0].device == f"pad:{one.instance_id}"
        press(one, "start")
        assert isinstance(couch.top(), TrackSelectScene)
        press(one, "a")  # the first track
        assert isinstance(couch.top(), RulesScene)
        press(one, "a")  # "Start the race!" is the row the rules screen opens on
        race = couch.top()
        assert isinstance(race, RaceScene)
        couch.step(60, dt=0.1)  # the countdown runs by itself
        assert race.mode == "choosing"
        car = race.devices[f"pad:{one.instance_id}"]
        assert race.controller.chosen(car) is None
        press(one, "a")  # the first move: the highlighted target
        assert race.controller.chosen(car) is not None
        assert len(presses) <= 6, presses
        print(f"presses from launch to the first move: {len(presses)} {presses}")
    finally:
        couch.close()


# -- the evening remembers -----------------------------------------------------------
def test_the_line_up_stays_from_race_to_cup_to_time_trial_until_changed(ctx, surface):
    from game.presentation.menus.trial import player_seat

    stack = SceneStack()
    lobby = LobbyScene(ctx, joined="kb1")
    stack.push(lobby)
    assert [s.device for s in lobby.table.seats] == ["kb1"]  # seated by the title's join key
    lobby.handle(Select("kb2", confirm=True))  # K: keyboard 2 joins
    lobby.table.cycle(1, "colour", 1)
    lobby.table.add_cpu("cpu:champion")
    ctx.screens = SimpleNamespace(push=lambda *a, **k: None)  # going on is not what this test looks at
    lobby.start()
    seats = lobby.table.lineup()
    cup_lobby = LobbyScene(ctx, next_screen="cup-select")
    assert cup_lobby.table.lineup() == seats  # the cup's lobby: nobody re-seats
    assert player_seat(ctx, "kb2") == seats[1]  # the time trial: the same name and look
    saved, problems = load_settings(ctx.config_dir)  # and the next start offers it again
    assert problems == [] and [r["name"] for r in saved.lineup] == [s.name for s in seats]
    ctx.lineup = None
    ctx.settings = saved
    again = LobbyScene(ctx)
    assert [s.kind for s in again.table.seats] == ["cpu:champion"]  # the CPUs sit at once
    again.handle(Select("kb2", confirm=True))
    assert again.table.seats[0] == seats[1]  # keyboard 2 takes its own name and colour back


def test_the_title_s_join_keys_open_the_lobby_with_that_player_seated(ctx, surface):
    for source, device in (("kb1", "kb1"), ("kb2", "kb2")):
        stack = SceneStack()
        title = build_title_scene(ctx)
        stack.push(title)
        assert title.menu.current.label == "Tutorial"  # a first start highlights the tutorial...
        title.handle(Select(source, confirm=True))  # ...but S / K join, as the card says
        lobby = stack.top
        assert isinstance(lobby, LobbyScene)
        assert [s.device for s in lobby.table.seats] == [device]
    stack = SceneStack()
    title = build_title_scene(ctx)
    stack.push(title)
    title.handle(Select("kb1", dy=1, confirm=True))  # the block's other keys (X here) still move the highlight
    assert stack.top is title and title.menu.current.label == "Replays"


# -- no one-press traps ----------------------------------------------------------------
def test_confirm_never_changes_a_value_and_lists_never_wrap_onto_a_risky_row():
    changed = []
    items = [Item("Resume", lambda: None), Item("Speed", value=lambda: "1", change=changed.append),
             Item("Quit", lambda: changed.append("quit"), risky=True)]
    menu = MenuList(items)
    menu.verb("up")  # from the first row: the last is risky, so the highlight stays
    assert menu.index == 0
    menu.verb("down")
    menu.verb("confirm")
    assert changed == []  # confirm on a value row does nothing
    menu.verb("right")
    assert changed == [1]
    menu.verb("down")
    menu.verb("down")  # from the risky last row down to the first is fine
    assert menu.index == 0


class _Below(Scene):
    def __init__(self) -> None:
        super().__init__()
        self.said_yes = 0
        self.heard = []

    def handle(self, action) -> None:
        self.heard.append(action)


def test_the_confirm_dialog_opens_on_no_and_only_yes_confirmed_does_it(ctx, surface, tmp_path):
    below = _Below()
    stack = SceneStack()
    stack.push(below)

    def ask():
        return ctx.screens.push(stack, "confirm", ctx, question="Retire Ada?",
                                on_yes=lambda: setattr(below, "said_yes", below.said_yes + 1), yes="Yes, retire Ada")

    for refusal in (Confirm("keys"), Back("keys"), Pause("pad:3"), Pause("keys")):
        dialog = ask()
        drawn(dialog, surface, tmp_path, "confirm")
        dialog.handle(refusal)
        assert stack.top is below and below.said_yes == 0, refusal
    dialog = ask()
    dialog.handle(DeviceRemoved("pad:3"))  # a pad pulled meanwhile: the screen below hears of it
    assert stack.top is dialog and below.heard == [DeviceRemoved("pad:3")]
    dialog.handle(MoveCursor("keys", 0, 1))
    dialog.handle(MoveCursor("keys", 0, 1))  # no wrapping back onto No
    assert dialog.menu.current.label == "Yes, retire Ada"
    dialog.handle(Confirm("keys"))
    assert stack.top is below and below.said_yes == 1


def _no_wrap_lands_on(menu, label: str) -> bool:
    """Whether a press past either end of ``menu`` lands on the row ``label``."""
    for start, verb in ((0, "up"), (len(menu.items) - 1, "down")):
        menu.index = start
        menu.verb(verb)
        if menu.current.label == label:
            return False
    return True


def test_every_row_that_loses_progress_asks_first_on_no_and_no_wrap_reaches_it(ctx, surface, tmp_path):
    """Retire, restart, leave the race (pause), reset the keys (bindings), put a cup aside (resume):
    each row is risky, no press past an end lands on it, and confirming it asks with No highlighted,
    where a confirm (or an up press, no wrapping onto Yes) loses nothing."""
    from game.presentation.menus.confirm import ConfirmScene
    from game.presentation.menus.race import RacePlan, start_race
    from game.race.cup import SavedCup

    entry = next(e for e in load_entries(ctx.builtin_dir, None) if e.ref == "starter/first-sprint")
    lineup = (SeatSpec("Ada", 0, 0, device="kb1"), SeatSpec("Bix", 1, 1, device="kb2"))
    race = start_race(ctx, RacePlan(lineup, entry, preset("arcade"), 1), intro=False)
    stack = SceneStack()
    stack.push(race)
    ctx.screens.push(stack, "pause", ctx, race)
    pause = stack.top
    ctx.screens.push(stack, "bindings", ctx)
    bindings = stack.top
    stack.pop()
    asked = 0
    for scene, label in ((pause, "Restart the race"), (pause, "Retire a car"), (pause, "Quit to the main menu"),
                         (bindings, "Reset to the defaults")):
        stack.push(scene) if stack.top is not scene else None
        row = [i.label for i in scene.menu.items].index(label)
        assert scene.menu.items[row].risky and _no_wrap_lands_on(scene.menu, label), label
        scene.menu.index = row
        scene.handle(Confirm("keys"))
        dialog = stack.top
        assert isinstance(dialog, ConfirmScene) and dialog.menu.current.label.startswith("No"), label
        dialog.handle(MoveCursor("keys", 0, -1))  # up from No: the ends stop the highlight
        dialog.handle(Confirm("keys"))
        assert stack.top is scene and dialog.answered is False, label
        asked += 1
    assert race.controller.state.cars[0].racing and race.controller.state.cars[1].racing
    assert ctx.settings.bindings == {}
    race.controller.close() if hasattr(race.controller, "close") else None

    cup_file = tmp_path / "cups" / "broken" / "cup.toml"
    cup_file.parent.mkdir(parents=True)
    cup_file.write_text("not a cup", encoding="utf-8")
    stack = SceneStack()
    ctx.screens.push(stack, "cup-resume", ctx, [SavedCup(cup_file, None, "cup.toml: not a cup")])
    resume = stack.top
    resume.handle(Confirm("keys"))  # the unreadable cup: what is wrong, and the ways on
    unfit = resume.unfit
    assert unfit.menu.items[0].risky and _no_wrap_lands_on(unfit.menu, "Put the cup aside")
    unfit.menu.index = 0
    resume.handle(Confirm("keys"))
    assert unfit.asking and unfit.confirm.current.label.startswith("No")
    resume.handle(MoveCursor("keys", 0, -1))  # up from No never wraps onto Yes
    assert unfit.confirm.current.label.startswith("No")
    resume.handle(Confirm("keys"))
    assert not unfit.asking and cup_file.exists()
    assert asked == 4


def test_the_rules_screen_opens_on_start_and_offers_five_presets_in_plain_words(ctx, surface, tmp_path):
    from game.presentation.menus.rules_menu import RulesScene

    entry = next(e for e in load_entries(ctx.builtin_dir, None) if e.ref == "starter/first-sprint")
    scene = RulesScene(ctx, lineup=[], entry=entry, laps=1)
    SceneStack().push(scene)
    drawn(scene, surface, tmp_path, "rules")
    assert scene.menu.current.label == "Start the race!"
    assert set(PLAIN_PRESETS) == set(PRESET_NAMES)
    for name, (title, sentence) in PLAIN_PRESETS.items():
        assert sentence.endswith(".") and "_" not in sentence and len(sentence) < 140, name
    scene.handle(MoveCursor("keys", 0, 1))
    assert scene.menu.current.label == "Rules"
    scene.handle(Confirm("keys"))
    assert scene.rules.name == ctx.settings.rules().name == "arcade"  # Enter on a value row: unchanged


# -- personality -------------------------------------------------------------------------
def test_cpu_drivers_have_names_and_looks_of_their_own_at_every_level():
    assert set(ROSTER) == set(CPU_LEVELS) and set(SEAT_KINDS) == {"human", *CPU_LEVELS}
    for level in CPU_LEVELS:
        table = SeatTable()
        table.join("kb1")
        while table.add_cpu(level) is not None:
            pass
        cpus = [s for s in table.seats if not s.is_human]
        assert len(cpus) == MAX_SEATS - 1
        assert not any(s.name.startswith(LEVEL_NAMES[level]) for s in cpus)  # no "Pro 2" ... "Pro 7"
        assert len({s.name for s in table.seats}) == MAX_SEATS
        assert len({s.color for s in table.seats}) == MAX_SEATS and len({s.symbol for s in table.seats}) == MAX_SEATS
    firsts = {level: SeatTable() for level in CPU_LEVELS}
    looks = set()
    for level, table in firsts.items():
        table.add_cpu(level)
        looks.add((table.seats[0].color, table.seats[0].symbol))
    assert len(looks) == len(CPU_LEVELS)  # each level's first driver looks different


def test_results_say_in_words_why_cars_on_the_same_move_are_placed_apart(ctx, surface, tmp_path):
    from game.presentation.menus.results import ResultsScene, tie_notes

    entry = next(e for e in load_entries(ctx.builtin_dir, None) if e.ref == "starter/first-sprint")
    start = RaceState.start(entry.track, preset("arcade"), ["Ruler", "Doodle"], laps=1, seed=4)
    cars = (replace(start.cars[0], status=FINISHED, moves=13, finish_phase=13, finish_key=(1,)),
            replace(start.cars[1], status=FINISHED, moves=13, finish_phase=13, finish_key=(0,)))
    final = replace(start, cars=cars, phase=13)
    assert tie_notes(final) == ["Doodle and Ruler crossed the line on the same move (13); Doodle is placed "
                                "ahead for ending that move further past the line."]
    drawn_race = replace(final, rules=preset("phases"), cars=tuple(replace(c, finish_key=()) for c in cars))
    assert "a draw, so they share 1st place" in tie_notes(drawn_race)[0]
    lineup = (SeatSpec("Ruler", 0, 0, "cpu:pro"), SeatSpec("Doodle", 1, 1, "cpu:rookie"))
    controller = SimpleNamespace(states=[start, final], records=[None], seed=4,
                                 seats=[SimpleNamespace(kind=s.kind) for s in lineup])
    scene = ResultsScene(ctx, RacePlan(lineup, entry, preset("arcade"), 1), controller)
    SceneStack().push(scene)
    drawn(scene, surface, tmp_path, "results-tie")
    assert scene.ties


# -- bad input ------------------------------------------------------------------------------
def test_an_older_settings_file_loads_what_still_exists_and_says_what_was_dropped(tmp_path, surface):
    config = tmp_path / "config"
    config.mkdir()
    text = ('format = 1\n[rules]\npreset = "rally"\n[players]\nnames = ["Ada"]\nlineup = [\n'
            '  {name = "Ada", color = 0, symbol = 0, kind = "human", device = "pad"},\n'
            '  {name = "Zed", color = 3, symbol = 3, kind = "cpu:legend"},\n'
            '  {name = "Mo", color = 2, symbol = 2, kind = "cpu:pro"},\n]\n')
    (config / SETTINGS_FILE).write_text(text)
    settings, problems = load_settings(config)
    assert settings.rules_preset == "arcade" and settings.player_names == ["Ada"]
    assert [s["name"] for s in settings.lineup] == ["Ada", "Mo"]
    said = "\n".join(str(p) for p in problems)
    assert "settings.toml:3: rules.preset: unknown rule preset 'rally'" in said
    assert "players.lineup: seat 2 'Zed' is a 'cpu:legend'" in said and "dropped" in said
    assert (config / (SETTINGS_FILE + ".broken")).read_text() == text  # nothing is lost
    builtin = tmp_path / "builtin"
    builtin.mkdir()
    ctx = build_context(config, None, builtin, seed=1)
    ctx.size = SIZE
    assert any("cpu:legend" in p for p in ctx.all_problems())  # listed on the title screen
    stack = SceneStack()
    title = build_title_scene(ctx)
    stack.push(title)
    drawn(title, surface, tmp_path, "title-old-settings")
    lobby = LobbyScene(ctx)
    assert [s.name for s in lobby.table.seats] == ["Mo"]  # the seats that still exist come back


# -- the display -----------------------------------------------------------------------------
def test_a_first_start_opens_fullscreen_on_a_big_display_and_the_command_line_choice_is_kept():
    fresh = Settings()
    assert display_choice(fresh, None, [(1920, 1080)]) and fresh.fullscreen
    fresh = Settings()
    assert display_choice(fresh, None, [(1366, 768)]) and not fresh.fullscreen
    chosen = Settings(fullscreen=False, loaded_keys=frozenset({"display.fullscreen"}))
    assert not display_choice(chosen, None, [(3840, 2160)]) and not chosen.fullscreen  # the player's choice stands
    assert display_choice(chosen, "fullscreen", [(1280, 720)]) and chosen.fullscreen
    assert display_choice(chosen, "window", [(3840, 2160)]) and not chosen.fullscreen


def test_racetrack_play_takes_fullscreen_or_window_and_remembers_it(tmp_path, monkeypatch):
    import argparse

    from game.commands import play

    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    assert parser.parse_args(["--fullscreen"]).display == "fullscreen"
    assert parser.parse_args(["--window"]).display == "window"
    assert parser.parse_args([]).display is None
    with pytest.raises(SystemExit):
        parser.parse_args(["--window", "--fullscreen"])
    args = parser.parse_args(["--fullscreen", "--headless", "--frames", "2", "--home", str(tmp_path)])
    assert play.run(args) == 0
    settings, problems = load_settings(tmp_path / "config")
    assert settings.fullscreen and "display.fullscreen" in settings.loaded_keys
    args = parser.parse_args(["--window", "--headless", "--frames", "2", "--home", str(tmp_path)])
    assert play.run(args) == 0
    assert not load_settings(tmp_path / "config")[0].fullscreen


_SEAT_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 10), st.text(max_size=6),
                         st.sampled_from(["human", "cpu:rookie", "cpu:pro", "cpu:champion", "cpu:legend", "kb1",
                                          "kb2", "pad", "Ada", "  "]))
_SEATS = st.lists(st.one_of(st.dictionaries(st.sampled_from(["name", "color", "symbol", "kind", "device", "x"]),
                                            _SEAT_VALUES, max_size=6), _SEAT_VALUES), max_size=10)


@hsettings(max_examples=80, deadline=None)
@given(_SEATS)
def test_any_saved_line_up_loads_the_seats_that_fit_and_names_each_one_dropped(seats):
    from game.settings import settings_document, settings_from_document

    settings, problems = settings_from_document({"players": {"lineup": seats}}, "settings.toml")
    kept = settings.lineup
    dropped = [p for p in problems if p.key == "players.lineup"]
    assert len(kept) + sum(p.message.startswith("seat ") for p in dropped) == min(len(seats), MAX_SEATS)
    assert all(p.message.startswith("seat ") or "past the 8th" in p.message for p in dropped)
    assert len({s["name"] for s in kept}) == len(kept)  # one seat per name
    for seat in kept:  # every seat kept can be seated
        spec = SeatSpec(seat["name"], seat["color"], seat["symbol"], seat["kind"], seat.get("device"))
        assert spec.kind in SEAT_KINDS and (spec.device in ("kb1", "kb2", "pad")) == spec.is_human
    again, more = settings_from_document(settings_document(settings), "settings.toml")
    assert again.lineup == kept and more == []  # what was kept saves and loads unchanged


def test_the_next_start_offers_each_seats_handicap_and_assist_again(ctx, surface):
    stack = SceneStack()
    lobby = LobbyScene(ctx, joined="kb1")
    stack.push(lobby)
    lobby.handle(Select("kb2", confirm=True))
    lobby.table.add_cpu("cpu:pro")
    lobby.table.cycle(0, "handicap", 3)  # Ada: 3 moves
    lobby.table.cycle(1, "handicap", -1)  # Bix: "auto"
    lobby.table.cycle(1, "assist", 1)  # Bix: coached
    lobby.table.cycle(2, "handicap", 2)
    ctx.screens = SimpleNamespace(push=lambda *a, **k: None)
    lobby.start()
    want = [(s.name, s.handicap, s.assist) for s in lobby.table.seats]
    assert want[0][1:] == (3, "") and want[1][1:] == ("auto", "coach") and want[2][1] == 2
    saved, problems = load_settings(ctx.config_dir)
    assert problems == []
    ctx.lineup, ctx.settings = None, saved  # the game starts again
    again = LobbyScene(ctx)
    assert [(s.name, s.handicap) for s in again.table.seats] == [want[2][:2]]  # the CPU sits with its handicap
    again.handle(Select("kb1", confirm=True))
    again.handle(Select("kb2", confirm=True))  # each person takes back their look, handicap and assist
    assert sorted((s.name, s.handicap, s.assist) for s in again.table.seats) == sorted(want)


def test_a_settings_file_from_before_handicaps_seats_its_line_up_without_them_and_a_bad_one_is_said(tmp_path):
    config = tmp_path / "config"
    config.mkdir()
    text = ('format = 1\n[players]\nlineup = [\n'
            '  {name = "Ada", color = 0, symbol = 0, kind = "human", device = "pad"},\n'
            '  {name = "Mo", color = 2, symbol = 2, kind = "cpu:pro", handicap = 11},\n'
            '  {name = "Cy", color = 3, symbol = 3, kind = "human", device = "kb1", assist = "autopilot"},\n]\n')
    (config / SETTINGS_FILE).write_text(text)
    settings, problems = load_settings(config)
    assert settings.lineup == [{"name": "Ada", "color": 0, "symbol": 0, "kind": "human", "device": "pad"}]
    from game.presentation.menus.seats import seat_from_record

    ada = seat_from_record(settings.lineup[0])
    assert ada.handicap == 0 and ada.assist == ""  # an old file: no handicap, no assist
    said = "\n".join(str(p) for p in problems)
    assert "players.lineup: seat 2 'Mo': handicap must be a whole number of moves from 0 to 10" in said, said
    assert "seat 3 'Cy': assist must be" in said and "autopilot" in said, said
