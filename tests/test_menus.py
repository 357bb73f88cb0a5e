"""Every menu screen, headless: what a player sees and what their presses change.

Each screen is drawn to an off-screen window and saved as a PNG under the test's tmp
folder (look at them when a screen changes).
"""

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

from game import paths
from game.core.rules import OPTIONS, preset
from game.presentation.audio import Audio
from game.presentation.input import Back, Confirm, DeviceRemoved, MoveCursor, Pause, Select
from game.presentation.menus import build_context, build_title_scene
from game.presentation.menus.common import nav
from game.presentation.menus.lobby import LobbyScene
from game.presentation.menus.rules_menu import RulesScene
from game.presentation.menus.seats import MAX_SEATS, SeatDevices, SeatTable
from game.presentation.menus.settings_menu import BindingsScene, KeyCaptured, SettingsScene, rebind
from game.presentation.menus.tracks import TrackSelectScene, load_entries
from game.presentation.menus.tutorial import lesson_of, start_tutorial
from game.presentation.scene import SceneStack
from game.settings import SETTINGS_FILE, load_settings
from tests.menu_context import headless_display, starter_context

SIZE = (960, 540)
DATA = Path(__file__).parent / "data" / "packs"


@pytest.fixture(scope="module")
def surface():
    return headless_display(SIZE)


@pytest.fixture
def ctx(tmp_path):
    packs = tmp_path / "packs"
    packs.mkdir()
    shutil.copy(DATA / "broken.toml", packs / "broken.toml")
    return starter_context(tmp_path, SIZE, packs)


def shown(scene, surface, tmp_path, name):
    stack = scene.stack or SceneStack()
    if scene.stack is None:
        stack.push(scene)
    scene.update(1 / 60)
    surface.fill((0, 0, 0))
    stack.draw(surface)
    pygame.image.save(surface, str(tmp_path / f"{name}.png"))
    return surface


def settle(scene):
    """Let a scene's background work end, then give it the frame that takes the result."""
    for job in (getattr(scene, "scanning", None), getattr(scene, "watching", None)):
        if job is not None:
            job.wait(60)
    scene.update(1 / 60)


def test_menu_verbs_come_from_every_device():
    assert nav(Select("kb1", 0, -1, True)) == "up"
    assert nav(Select("kb2", 0, 0, True)) == "confirm"
    assert nav(Select("pad:3", 0, 0, False)) is None  # the stick let go
    assert nav(MoveCursor("keys", 1, 0)) == "right"
    assert nav(Pause("pad:3")) == "start"
    assert nav(Pause("keys")) == "back"  # Esc leaves a menu


def test_the_title_shows_a_broken_settings_file_by_name(tmp_path, surface):
    config = tmp_path / "config"
    config.mkdir()
    (config / SETTINGS_FILE).write_text("[sound]\nmaster = 'loud'\n")
    ctx = build_context(config, None, paths.builtin_tracks_dir())
    ctx.size = SIZE
    assert any(SETTINGS_FILE in p and "sound.master" in p for p in ctx.problems)
    shown(build_title_scene(ctx), surface, tmp_path, "title")


def test_keyboard_players_join_with_space_and_k_and_cpus_fill_the_other_seats(ctx, surface, tmp_path):
    lobby = LobbyScene(ctx)
    SceneStack().push(lobby)
    lobby.handle(Confirm("keys"))  # Space / Enter: keyboard 1
    lobby.handle(Select("kb2", 0, 0, True))  # K: keyboard 2
    assert [s.device for s in lobby.table.seats] == ["kb1", "kb2"]
    lobby.handle(Select("kb2", 1, 0, True))  # L: change the name
    assert lobby.table.seats[1].name != lobby.table.seats[0].name
    for _ in range(3):
        lobby.handle(MoveCursor("keys", 0, 1))
    for _ in range(10):
        lobby.handle(Confirm("keys"))  # add CPUs until the seats are full
    assert len(lobby.table.seats) == MAX_SEATS
    seats = lobby.table.seats
    assert len({s.color for s in seats}) == MAX_SEATS and len({s.symbol for s in seats}) == MAX_SEATS
    shown(lobby, surface, tmp_path, "lobby")
    lobby.handle(Back("keys"))  # on the CPU row: removes the last CPU
    assert len(lobby.table.seats) == MAX_SEATS - 1
    lobby.handle(DeviceRemoved("kb2"))
    assert [s.device for s in lobby.table.humans] == ["kb1"]


def test_seat_colours_and_symbols_never_repeat_when_cycled():
    table = SeatTable()
    for device in ("kb1", "kb2", "pad:1"):
        table.join(device)
    for _ in range(9):
        table.cycle(0, "colour", 1)
        table.cycle(1, "symbol", -1)
        assert len({s.color for s in table.seats}) == 3 and len({s.symbol for s in table.seats}) == 3


def test_a_pulled_pad_leaves_its_car_for_any_other_pad():
    seats = SeatDevices({"pad:1": 0, "pad:2": 1}, [])
    assert seats.unplugged("pad:2") == 1
    assert seats.claim("pad:1") is None  # already drives a car
    assert seats.claim("kb2") is None
    assert seats.claim("pad:7") == 1
    assert seats.devices == {"pad:1": 0, "pad:7": 1}


def test_track_select_lists_built_in_and_user_packs_and_shows_a_broken_pack_s_problems(ctx, surface, tmp_path):
    entries = load_entries(ctx.builtin_dir, ctx.packs_dir)
    refs = [e.ref for e in entries]
    assert refs[0].startswith("starter/")
    broken = [e for e in entries if e.track is None]
    assert broken and all(e.user for e in broken)
    assert any("broken.toml" in p and "no-start" in p for e in broken for p in e.problems)
    scene = TrackSelectScene(ctx, SeatTable().lineup() or [], entries)
    SceneStack().push(scene)
    shown(scene, surface, tmp_path, "tracks")
    scene.index = entries.index(broken[0])
    scene.handle(Confirm("keys"))
    assert isinstance(scene.stack.top, TrackSelectScene) and "cannot be raced" in scene.message
    shown(scene, surface, tmp_path, "tracks_broken")


def test_laps_change_on_track_select_and_too_many_cars_are_refused(ctx):
    table = SeatTable()
    for k in range(8):
        table.add_cpu("cpu:rookie")
    from game.presentation.menus.race import TrackEntry
    from game.tracks import track_from_charmap

    tiny = track_from_charmap("XXXXXXXX\nXOOFSOOX\nXOXXXXOX\nXOOOOOOX\nXXXXXXXX\n", id="tiny", name="Tiny")
    sprint = track_from_charmap("XXXXXX\nXSOOFX\nXSOOFX\nXXXXXX\n", id="dash", name="Dash")
    scene = TrackSelectScene(ctx, table.lineup(), [TrackEntry("x#tiny", tiny, "Test"),
                                                   TrackEntry("x#dash", sprint, "Test")])
    SceneStack().push(scene)
    scene.handle(MoveCursor("keys", 1, 0))
    assert scene.laps_of(scene.entry) == 2
    scene.handle(Confirm("keys"))
    assert "too few for 8 cars" in scene.message
    scene.handle(MoveCursor("keys", 0, 1))  # a sprint: its laps stay at 1, and the player is told why
    assert scene.entry.track is sprint
    scene.handle(MoveCursor("keys", 1, 0))
    assert scene.laps_of(scene.entry) == 1 and "sprint" in scene.message


def test_the_rules_menu_explains_every_option_and_remembers_the_choice(ctx, surface, tmp_path):
    scene = RulesScene(ctx)
    SceneStack().push(scene)
    assert scene.menu.current.label == "Done"  # what goes on is first: one press
    scene.handle(MoveCursor("keys", 0, 1))  # the Rules row
    before = scene.rules.name
    scene.handle(Confirm("keys"))
    assert scene.rules.name == before  # confirm never changes a value
    scene.handle(MoveCursor("keys", 1, 0))  # next preset
    first = scene.rules.name
    assert first != before
    assert "movement" not in scene.option_rows  # the options wait behind Advanced
    scene.menu.index = next(k for k, item in enumerate(scene.menu.items) if item.label.startswith("Advanced"))
    scene.handle(Confirm("keys"))
    assert all(item.help_text() for item in scene.menu.items)  # a line for every row
    movement = scene.option_rows.index("movement")
    scene.menu.index = movement
    for _ in range(20):  # bounded: a movement row that never reaches flick fails below, never hangs
        if scene.rules.movement == "flick":
            break
        scene.handle(MoveCursor("keys", 1, 0))
    assert scene.rules.movement == "flick", "right on the movement row never reached flick"
    assert scene.menu.current.help_text() == OPTIONS["movement"]["flick"]
    shown(scene, surface, tmp_path, "rules")
    again, problems = load_settings(ctx.config_dir)
    assert problems == [] and again.rules() == preset(first, {"movement": "flick"})


def test_settings_menu_changes_are_saved_at_once(ctx, surface, tmp_path):
    scene = SettingsScene(ctx)
    SceneStack().push(scene)
    scene.menu.index = 2  # master volume
    scene.handle(MoveCursor("keys", -1, 0))
    labels = [item.label for item in scene.menu.items]
    scene.menu.index = labels.index("Doomed-target marks")
    scene.handle(Confirm("keys"))
    assert ctx.settings.show_doomed  # confirm on a value row changes nothing: left/right do
    scene.handle(MoveCursor("keys", 1, 0))
    scene.menu.index = labels.index("Reduce motion")
    scene.handle(MoveCursor("keys", -1, 0))
    scene.menu.index = labels.index("Music volume")
    scene.handle(MoveCursor("keys", -1, 0))
    shown(scene, surface, tmp_path, "settings")
    saved, _ = load_settings(ctx.config_dir)
    assert saved.master_volume == 70 and saved.show_doomed is False
    assert saved.reduce_motion is True and saved.music_volume == 40


def test_a_key_can_be_rebound_and_the_key_it_displaces_swaps_places(ctx, surface, tmp_path):
    scene = BindingsScene(ctx)
    SceneStack().push(scene)
    row = scene.rows.index(("kb1", "w"))
    scene.menu.index = row
    scene.handle(Confirm("keys"))
    assert scene.waiting == ("kb1", "w")
    shown(scene, surface, tmp_path, "bindings")
    scene.handle(KeyCaptured("keys", "e"))
    saved, _ = load_settings(ctx.config_dir)
    assert saved.bindings["kb1"]["e"] == ["select", 0, -1]
    assert saved.bindings["kb1"]["w"] == ["select", 1, -1]
    assert rebind({"s": {"a": [1], "b": [2]}}, "s", "a", "c") == {"s": {"b": [2], "c": [1]}}


def test_the_tutorial_hint_follows_the_player(ctx, surface, tmp_path):
    scene = start_tutorial(ctx)
    SceneStack().push(scene)
    scene.intro_time = 99
    scene.update(0.01)
    assert lesson_of(scene).stage == "start"
    shown(scene, surface, tmp_path, "tutorial")
    ctl = scene.controller

    def drive(step):
        here = ctl.state.cars[0]
        target = here.position + here.velocity + type(here.position)(*step)
        if target in ctl.state.legal_targets(0):
            ctl.submit(0, target)
        assert ctl.tick() is not None  # played (a car with no legal target crashes by itself)

    drive((0, 0))  # staying put: still the first hint, not "you are moving"
    assert lesson_of(scene).current_stage(scene) == "start"
    drive((1, 0))
    assert lesson_of(scene).current_stage(scene) == "rolling"
    for _ in range(3):  # speed up to the right: the corner comes too fast
        drive((1, 0))
    assert lesson_of(scene).current_stage(scene) == "fast"
    for _ in range(4):  # ignore the warning
        drive((0, 0))
    assert lesson_of(scene).current_stage(scene) == "crash"


def test_the_game_is_silent_without_sound_files_but_still_counts_what_it_would_play(tmp_path):
    audio = Audio.start(tmp_path / "nowhere")
    assert audio.silent
    audio.play("crash")
    assert audio.played == ["crash"]


def test_saved_replays_are_listed_newest_first_and_a_broken_one_says_why(ctx, surface, tmp_path):
    """Title -> Replays: a good replay opens the viewer; a damaged file and a missing track are explained."""
    import time

    from game.presentation.menus.replays import ReplaysScene
    from game.presentation.replay_scene import ReplayViewerScene

    golden = Path(__file__).parent / "golden"
    folder = ctx.replays_dir
    folder.mkdir(parents=True)
    shutil.copy(golden / "pack.toml", folder / "pack.toml")  # the track the replay names, beside it
    shutil.copy(golden / "arcade-loop.replay.toml", folder / "arcade-loop.toml")
    (folder / "torn.toml").write_text('format = 1\ntrack = "pack.toml#loop"\nlaps = \n', encoding="utf-8")
    text = (golden / "arcade-loop.replay.toml").read_text(encoding="utf-8")
    (folder / "lost-track.toml").write_text(text.replace("pack.toml#loop", "gone.toml#loop"), encoding="utf-8")
    now = time.time()
    for age, name in enumerate(("lost-track.toml", "torn.toml", "arcade-loop.toml")):
        os.utime(folder / name, (now - age * 60, now - age * 60))

    title = build_title_scene(ctx)
    stack = SceneStack()
    stack.push(title)
    row = next(k for k, item in enumerate(title.menu.items) if item.label == "Replays")
    title.menu.index = row
    title.handle(Confirm("keys"))
    scene = stack.top
    assert isinstance(scene, ReplaysScene)
    shown(scene, surface, tmp_path, "replays-reading")  # the folder is read in the background
    settle(scene)
    assert [f.path.name for f in scene.files] == ["lost-track.toml", "torn.toml", "arcade-loop.toml"]  # no pack
    # a replay shows its title; an unreadable file its name
    assert [item.label for item in scene.menu.items] == ["Four CPUs, arcade rules", "torn",
                                                         "Four CPUs, arcade rules", "Back"]
    shown(scene, surface, tmp_path, "replays")

    scene.menu.index = 1  # the damaged file: its problem names the file and the key
    scene.handle(Confirm("keys"))
    assert stack.top is scene
    assert "torn.toml:3:" in scene.message and "not valid TOML" in scene.message

    scene.menu.index = 0  # a replay whose track is gone
    scene.handle(Confirm("keys"))
    settle(scene)
    assert stack.top is scene
    assert "gone.toml" in scene.message and "lost-track.toml" in scene.message
    shown(scene, surface, tmp_path, "replays-problem")

    scene.menu.index = 2  # the good one plays in the viewer, and back returns to the list
    scene.handle(Confirm("keys"))
    settle(scene)
    assert isinstance(stack.top, ReplayViewerScene)
    assert stack.top.records and stack.top.speed == ctx.settings.replay_speed
    shown(stack.top, surface, tmp_path, "replays-viewer")
    stack.top.handle(Back("keys"))
    assert stack.top is scene
    scene.handle(Back("keys"))
    assert stack.top is title


def test_damaged_settings_reach_the_title_and_every_damaged_copy_is_kept(tmp_path, surface):
    from game.presentation.menus import prepare_game

    config = tmp_path / "config"
    config.mkdir()
    builtin = tmp_path / "builtin"
    builtin.mkdir()
    shutil.copy(paths.builtin_tracks_dir() / "starter.toml", builtin / "starter.toml")
    (config / SETTINGS_FILE).write_text("[display\nfullscreen = yes\n")
    app, ctx = prepare_game(config, None, builtin, None, headless=True, size=SIZE)
    assert any("not valid TOML" in p and "kept as settings.toml.broken" in p for p in ctx.problems), ctx.problems
    ctx.size = SIZE
    shown(app.stack.top, surface, tmp_path, "title-problems")
    # A second damaged file gets its own copy; the first one is still there.
    (config / SETTINGS_FILE).write_text("a = " + "[" * 600 + "]" * 600 + "\n")
    app, ctx = prepare_game(config, None, builtin, None, headless=True, size=SIZE)
    assert any("nested more than" in p and "settings.toml.broken.2" in p for p in ctx.problems), ctx.problems
    assert (config / "settings.toml.broken").read_text() == "[display\nfullscreen = yes\n"
    assert (config / "settings.toml.broken.2").read_text().startswith("a = [[[")


def test_a_binding_the_settings_check_lets_through_never_stops_the_game(tmp_path, surface):
    from game.presentation.menus import prepare_game

    config = tmp_path / "config"
    config.mkdir()
    builtin = tmp_path / "builtin"
    builtin.mkdir()
    (config / SETTINGS_FILE).write_text('[bindings.kb1]\nq = ["select", inf, 0]\n[bindings.kb2]\nu = ["bogus"]\n')
    app, ctx = prepare_game(config, None, builtin, None, headless=True, size=SIZE)
    assert any("bindings" in p and "inf" in p for p in ctx.problems), ctx.problems
    assert app.stack.top is not None


def test_a_long_replay_is_refereed_off_the_frame_loop_with_progress_and_back_stops_it(ctx, surface, tmp_path):
    from game.presentation.menus.replays import ReplaysScene
    from game.presentation.replay_scene import ReplayViewerScene

    folder = ctx.replays_dir
    folder.mkdir(parents=True)
    shutil.copy(Path(__file__).parent / "golden" / "pack.toml", folder / "pack.toml")
    lines = ['format = 1', 'track = "pack.toml#sprint"', 'laps = 1', 'seed = 1', '[rules]', 'preset = "karopapier"',
             '[[car]]', 'name = "A"', 'driver = "human"', '[[car]]', 'name = "B"', 'driver = "human"', '[phases]']
    loop = ((1, 1), (2, 1), (2, 2), (1, 2))  # two cars round a square, one step apart, never stopping
    lines += [f"{k} = [[{loop[k % 4][0]}, {loop[k % 4][1]}], [{loop[(k + 3) % 4][0]}, {loop[(k + 3) % 4][1]}]]"
              for k in range(1, 8001)]
    (folder / "long.toml").write_text("\n".join(lines) + "\n")
    stack = SceneStack()
    scene = ReplaysScene(ctx)
    stack.push(scene)
    settle(scene)
    scene.menu.index = 0
    scene.handle(Confirm("keys"))
    assert scene.watching is not None and stack.top is scene  # the frame goes on while it works
    scene.update(1 / 60)
    shown(scene, surface, tmp_path, "replays-refereeing")
    scene.handle(Back("keys"))  # giving up waiting: the list stays
    assert scene.watching is None and "stopped" in scene.message and stack.top is scene
    scene.handle(Confirm("keys"))
    job = scene.watching
    job.wait(120)
    assert job.total == 8000 and job.done == 8000
    scene.update(1 / 60)
    assert isinstance(stack.top, ReplayViewerScene) and len(stack.top.records) == 8000


def test_a_tied_track_record_goes_to_the_car_placed_ahead_not_the_first_seat(ctx, surface, tmp_path):
    from dataclasses import replace
    from types import SimpleNamespace

    from game.core.race import FINISHED, RaceState
    from game.presentation.menus.race import RacePlan
    from game.presentation.menus.results import ResultsScene
    from game.presentation.menus.seats import SeatSpec

    entry = next(e for e in load_entries(ctx.builtin_dir, None) if e.ref == "starter/first-sprint")
    rules = preset("arcade")
    start = RaceState.start(entry.track, rules, ["Pro", "Rookie"], laps=1, seed=4)
    # Both finish in phase 13 with 13 moves; Rookie (seat 2) got further past the line: 1st.
    cars = (replace(start.cars[0], status=FINISHED, moves=13, finish_phase=13, finish_key=(1,)),
            replace(start.cars[1], status=FINISHED, moves=13, finish_phase=13, finish_key=(0,)))
    final = replace(start, cars=cars, phase=13)
    assert final.outcome().ranks == (2, 1)
    lineup = (SeatSpec("Pro", 0, 0, "cpu:pro"), SeatSpec("Rookie", 1, 1, "cpu:rookie"))
    controller = SimpleNamespace(states=[start, final], records=[None], seed=4,
                                 seats=[SimpleNamespace(kind=s.kind) for s in lineup])
    scene = ResultsScene(ctx, RacePlan(lineup, entry, rules, 1), controller)
    assert scene.new_best == {1}
    assert ctx.best.get(entry.ref, 1).name == "Rookie"
    shown(scene, surface, tmp_path, "results-tied-record")


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_the_rules_screen_opens_on_start_the_race_and_its_options_scroll_behind_advanced(ctx, tmp_path, size):
    entry = next(e for e in load_entries(ctx.builtin_dir, None) if e.ref == "starter/first-sprint")
    ctx.size = size
    scene = RulesScene(ctx, lineup=[], entry=entry, laps=1)
    surface = pygame.Surface(size)
    shown(scene, surface, tmp_path, f"rules-{size[1]}")
    rects = scene.menu.rects
    assert scene.menu.index == 0 and scene.menu.current.label == "Start the race!"  # one press from any device
    assert all(r.height > 0 for r in rects)  # every row on screen
    assert rects[0].bottom <= size[1] - ctx.font(17) * 2  # above the hint band
    assert len(scene.menu.items) <= 5  # the preset, the timer and Advanced: no jargon first
    ctx.settings.scale = 1.5  # the largest text, every option open: the list scrolls with the highlight
    scene.menu.index = 3
    scene.handle(Confirm("keys"))  # Advanced
    assert len(scene.menu.items) > 10
    scene.menu.index = len(scene.menu.items) - 1
    shown(scene, surface, tmp_path, f"rules-{size[1]}-large-last")
    assert scene.menu.rects[-1].height > 0
    assert scene.menu.rects[-1].bottom <= size[1] - ctx.font(17) * 2
    assert sum(r.height > 0 for r in scene.menu.rects) < len(scene.menu.items)


def test_the_controls_rules_card_speaks_the_rules_screens_words_not_the_rule_files():
    from game.presentation.menus.common import rule_label
    from game.presentation.menus.controls import rules_card

    rules = preset("phases").with_options(offroad_penalty="reset_skip", collision="both_out")
    card = rules_card(rules, 2, timer=10)
    text = "  ".join(card)
    assert "_" not in text, f"raw rule words on the card: {card}"
    assert "off the road reset skip" in text and "collisions both out" in text
    assert f"{rule_label('offroad_penalty').lower()} reset skip" in card[-1]  # the changed line: the screen's label
    assert "terrain effects" in text  # sand slows, ice slides: whether the ground acts is in force too
    assert "terrain offroad" in "  ".join(rules_card(preset("karopapier"), 1))


def test_pause_controls_show_every_seats_bindings_as_they_are_now_and_the_rules(ctx, tmp_path):
    from game.presentation.menus.controls import ControlsScene, device_controls, rules_card, target_grid
    from game.presentation.menus.pause import PauseMenuScene
    from game.presentation.menus.race import RacePlan, start_race
    from game.presentation.menus.seats import SeatSpec
    from game.presentation.menus.settings_menu import effective_bindings

    ctx.settings.bindings = rebind(effective_bindings({}), "kb1", "w", "t")  # keyboard 1 moved "up" to T
    entry = next(e for e in load_entries(ctx.builtin_dir, None) if e.ref == "starter/first-sprint")
    lineup = (SeatSpec("Ada", 0, 0, device="kb1"), SeatSpec("Bix", 1, 1, device="pad:7"))
    race = start_race(ctx, RacePlan(lineup, entry, preset("arcade"), 1), intro=False)
    stack = SceneStack()
    stack.push(race)
    stack.push(PauseMenuScene(ctx, race))
    pause = stack.top
    pause.menu.index = [i.label for i in pause.menu.items].index("Controls")
    pause.handle(Confirm("keys"))
    controls = stack.top
    assert isinstance(controls, ControlsScene)
    assert [(name, kind) for name, _, kind in controls.seats()] == [("Ada", "kb1"), ("Bix", "pad")]
    bindings = effective_bindings(ctx.settings.bindings)
    assert target_grid(bindings["kb1"]) == [["Q", "T", "E"], ["A", "S", "D"], ["Z", "X", "C"]]
    assert target_grid(bindings["keys"])[1] == ["4", "5", "6"]
    pad = dict(device_controls("pad", bindings["pad"]))
    assert pad["pick"] == "A" and pad["take back"] == "B" and pad["aim"] == "d-pad, left stick"
    keys = dict(device_controls("keys", bindings["keys"]))
    assert keys["pause"] == "Esc, P" and keys["highlight"] == "arrows"
    card = rules_card(race.controller.state.rules, 1)
    assert card[0].startswith("arcade") and "1 lap" in card[0] and any("collisions spin" in line for line in card)
    for size in ((1920, 1080), (1280, 720)):
        ctx.size = size
        surface = pygame.Surface(size)
        shown(controls, surface, tmp_path, f"controls-{size[1]}-composing")  # composed on a job meanwhile
        controls.wait()
        shown(controls, surface, tmp_path, f"controls-{size[1]}")
        colours = {tuple(surface.get_at((x, y)))[:3] for x in range(0, size[0], 2) for y in range(0, size[1] // 3, 2)}
        assert all(pen.color in colours for pen in race.pens)  # each seat's card in its own colour
    controls.handle(Back("keys"))
    assert stack.top is pause
    race.exit()


@pytest.mark.parametrize("size, scale", [((1280, 720), 1.0), ((1920, 1080), 1.0), ((1920, 1080), 1.5)])
def test_the_tutorial_card_leaves_the_hud_uncovered(ctx, tmp_path, monkeypatch, size, scale):
    import game.presentation.race_view as race_view

    drawn = []
    real = race_view.draw_hud
    monkeypatch.setattr(race_view, "draw_hud", lambda *a, **k: drawn.append(real(*a, **k)) or drawn[-1])
    ctx.size = size
    ctx.settings.scale = scale
    scene = start_tutorial(ctx)
    SceneStack().push(scene)
    scene.intro_time = 99
    scene.resize(size)
    scene.update(0.01)
    surface = pygame.Surface(size)
    for k in range(200):  # missing paper tiles (and the first frame's rough stand-ins) are drawn a few per frame
        scene.draw(surface)
        if k >= 30 and scene.view.board.sheet.settled:
            break
    shown(scene, surface, tmp_path, f"tutorial-{size[1]}")
    with_card = surface.copy()

    def without_card() -> pygame.Surface:
        layers, scene.config.layers = scene.config.layers, ()
        scene.draw(surface)  # the same frame without the hint card
        scene.config.layers = layers
        return surface.copy()

    # Doomed marks and the timing tower finish on worker threads; one landing between
    # the two frames would count as the card's pixels, so the frame without the card
    # is taken once the drawing stands still.
    before = without_card()
    for _ in range(100):
        after = without_card()
        if after.get_view("1").raw == before.get_view("1").raw:
            break
        before = after
        time.sleep(0.05)
    scene.draw(with_card)
    hud = drawn[-1]
    changed = [y for y in range(0, size[1], 2) for x in range(0, size[0], 4)
               if surface.get_at((x, y)) != with_card.get_at((x, y))]
    assert changed, "the hint card is drawn"
    assert min(changed) >= hud.bottom  # nothing of the HUD strip is covered
    assert lesson_of(scene).card_rect.top >= hud.bottom and lesson_of(scene).card_rect.right <= size[0]
    car = scene.controller.state.cars[0].position
    assert not lesson_of(scene).card_rect.collidepoint(scene.view.camera.to_screen((car.x, car.y)))  # nor over the car
    scene.exit()


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_the_title_fills_a_tv_screen_and_stands_still_with_reduce_motion(ctx, tmp_path, size):
    ctx.size = size
    surface = pygame.Surface(size)
    title = build_title_scene(ctx)
    shown(title, surface, tmp_path, f"title-{size[1]}")
    menu, how_to = title.cards
    w, h = size
    assert menu.right < how_to.left and menu.left < w * 0.1 and how_to.right > w * 0.9  # side by side, edge to edge
    assert (menu.width * menu.height + how_to.width * how_to.height) > 0.3 * w * h
    assert min(r.top for r in title.cards) < h * 0.25  # right under the heading, not half way down
    assert ctx.font(24) * 1080 // h >= 22 * 1.5  # the menu's rows read from the sofa
    rows = [r for r in title.menu.rects if r.height]
    assert len(rows) == len(title.menu.items) and all(menu.contains(r) for r in rows)
    # Without reduce motion the pencil races grow; with it they stand there whole.
    frames = []
    for reduce in (False, True):
        ctx.settings.reduce_motion = reduce
        for clock in (0.0, 2.6):
            title.clock = clock
            title.draw(surface)
            frames.append(pygame.image.tobytes(surface, "RGB"))
    assert frames[0] != frames[1] and frames[2] == frames[3]
    shown(title, surface, tmp_path, f"title-{size[1]}-still")


def test_every_line_of_text_on_the_changed_screens_is_22_px_high_at_1080(ctx, tmp_path, monkeypatch):
    """Read from a sofa three metres away: no font on these screens is shorter than 22 px at 1080 lines."""
    from game.presentation.menus.controls import ControlsScene
    from game.presentation.menus.pause import PauseMenuScene
    from game.presentation.menus.race import RacePlan, start_race
    from game.presentation.menus.seats import SeatSpec

    size = (1920, 1080)
    ctx.size = size
    surface = pygame.Surface(size)
    used = []
    real = ctx.text.render
    monkeypatch.setattr(ctx.text, "render", lambda text, px, *a, **k: used.append((px, text)) or real(text, px, *a, **k))
    entry = next(e for e in load_entries(ctx.builtin_dir, None) if e.ref == "starter/first-sprint")
    lineup = (SeatSpec("Ada", 0, 0, device="kb1"), SeatSpec("Bix", 1, 1, device="pad:7"))
    race = start_race(ctx, RacePlan(lineup, entry, preset("arcade"), 1), intro=False)
    rules = RulesScene(ctx, lineup=[], entry=entry, laps=1)
    movement = RulesScene(ctx, lineup=[], entry=entry, laps=1)
    movement.menu.index = 1
    screens = {"title": build_title_scene(ctx), "settings": SettingsScene(ctx), "rules": rules,
               "rules-movement": movement, "pause": PauseMenuScene(ctx, race),
               "controls": ControlsScene(ctx, race, background=False)}
    for name, scene in screens.items():
        SceneStack().push(scene)
        used.clear()
        scene.update(1 / 60)
        scene.draw(surface)
        assert used, name
        px, text = min(used)
        assert ctx.text.font(px).get_height() >= 22, (name, px, text)
    race.exit()


def test_the_results_show_the_par_once_worked_out_and_stop_asking_for_it(ctx, surface, tmp_path):
    """The par line says "working it out" until the par worker answers, then shows the par with
    the humans' medals; from then on the screen keeps the answer (asked for every row every frame,
    the par's lookup cost more than drawing the table)."""
    from dataclasses import replace
    from types import SimpleNamespace

    from game.core.race import FINISHED, RaceState
    from game.presentation.menus.par import WORKING
    from game.presentation.menus.race import RacePlan
    from game.presentation.menus.results import ResultsScene
    from game.presentation.menus.seats import SeatSpec

    class Pars:
        """A par worker that answers on the third question."""

        def __init__(self) -> None:
            self.asked = 0

        def par(self, track, rules, laps, slot=None):
            self.asked += 1
            return 13 if self.asked >= 3 else WORKING

        def close(self) -> None:
            pass

    entry = next(e for e in load_entries(ctx.builtin_dir, None) if e.ref == "starter/first-sprint")
    rules = preset("arcade")
    start = RaceState.start(entry.track, rules, ["Ann", "Rookie"], laps=1, seed=4)
    cars = (replace(start.cars[0], status=FINISHED, moves=13, finish_phase=13, finish_key=(1,)),
            replace(start.cars[1], status=FINISHED, moves=15, finish_phase=15, finish_key=(0,)))
    final = replace(start, cars=cars, phase=15)
    lineup = (SeatSpec("Ann", 0, 0, "human", "kb1"), SeatSpec("Rookie", 1, 1, "cpu:rookie"))
    controller = SimpleNamespace(states=[start, final], records=[None], seed=4,
                                 seats=[SimpleNamespace(kind=s.kind) for s in lineup])
    pars = ctx._pars = Pars()
    scene = ResultsScene(ctx, RacePlan(lineup, entry, rules, 1), controller)
    texts = []
    for _ in range(6):
        texts.append(scene.par_text())
        scene.update(1 / 60)
        scene.draw(surface)
    assert texts[0] == "par: working it out..."
    assert texts[-1] == "par 13"
    assert scene.medals() == {0: "gold"}  # Ann (a human) drove the par; the CPU gets no medal
    asked = pars.asked
    for _ in range(5):
        scene.update(1 / 60)
        scene.draw(surface)
    assert pars.asked == asked
    shown(scene, surface, tmp_path, "results-par-known")


@pytest.mark.parametrize("count", [1, 5, 7])
def test_the_title_picks_its_how_to_text_size_as_the_first_that_fits_with_few_measurements(count):
    """The how-to card's text: the largest size that fits, found without measuring every size
    (each measurement opens fonts: the title's first frame measured up to twelve)."""
    from game.presentation.menus.title import _largest_fitting

    shrinks = tuple(1.0 - 0.07 * k for k in range(count))
    for limit in range(count + 1):  # sizes from index ``limit`` on fit; limit == count: none does
        asked = []

        def fits(shrink):
            asked.append(shrink)
            return shrinks.index(shrink) >= limit

        assert _largest_fitting(shrinks, fits) == (shrinks[limit] if limit < count else None)
        assert len(asked) <= (1 if limit == 0 else 1 + max(1, (count - 1).bit_length()))
