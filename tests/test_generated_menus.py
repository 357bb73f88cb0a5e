"""Generated tracks in the game: track select's random track, track of the day, code keypad and saving one.

Each screen is drawn headless and saved as a PNG under the test's tmp folder.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import datetime

import pygame
import pytest

from game.drivers.generated import Generated
from game.presentation.generated_tracks import GeneratedTracks, Making
from game.presentation.input import Back, Confirm, Select
from game.presentation.menus.seats import SeatTable
from game.presentation.menus.tracks import TrackSelectScene
from game.presentation.scene import SceneStack
from game.tracks.generator import Spec, code_of_day, make_code
from game.tracks.pack import load_pack
from tests.menu_context import headless_display, starter_context

SIZE = (960, 540)


@pytest.fixture(scope="module")
def surface():
    return headless_display(SIZE)


@pytest.fixture
def scene(tmp_path):
    (tmp_path / "packs").mkdir()
    ctx = starter_context(tmp_path, SIZE, tmp_path / "packs")
    ctx.catalogue.start().wait(60)
    table = SeatTable()
    table.join("kb1")
    table.add_cpu()
    found = TrackSelectScene(ctx, table.lineup())
    found.generated.size = "short"  # the quickest to make
    SceneStack().push(found)
    found.update(1 / 60)
    return found


def frame(scene, surface, tmp_path, name):
    scene.update(1 / 60)
    surface.fill((0, 0, 0))
    scene.stack.draw(surface)
    pygame.image.save(surface, str(tmp_path / f"{name}.png"))


def highlight(scene, ref):
    scene.index = [e.ref for e in scene.entries].index(ref)
    scene.update(1 / 60)


def random_ref(scene):
    return f"gen:{scene.generated.random_code('short', start=False)}"


def test_nothing_is_generated_until_a_generated_row_is_highlighted(scene):
    assert scene.entries[0].ref.startswith("starter/")  # the packs come first, as before
    assert scene.generated._worker is None
    labels = [scene.gen_labels[e.ref] for e in scene.entries if e.ref.startswith("gen:")]
    assert labels[1:] == ["Another random track", f"Track of the day  {code_of_day(datetime.date.today())}",
                          "Enter a code...", "Save a generated track to my tracks"]


def test_the_random_track_is_made_off_the_frame_loop_shown_and_raced(scene, surface, tmp_path):
    ref = random_ref(scene)
    highlight(scene, ref)
    assert isinstance(scene.generated.get(ref[4:]), Making)
    frame(scene, surface, tmp_path, "making")  # the frame does not wait: the worker makes it
    made = scene.generated.wait(ref[4:], 300)
    assert isinstance(made, Generated)
    frame(scene, surface, tmp_path, "made")
    assert scene.entry.ref == ref and scene.entry.track is made.track
    scene.handle(Confirm("kb1"))
    assert scene.stack.top.screen_name == "rules"


def test_another_random_track_is_the_one_prepared_ahead(scene):
    first = random_ref(scene)
    highlight(scene, first)
    ahead = scene.generated._ahead["short"]
    highlight(scene, "gen:+another")
    scene.handle(Confirm("kb1"))
    assert scene.generated.random["short"] == ahead != first[4:]
    scene.update(1 / 60)
    assert scene.entry.ref == f"gen:{ahead}"  # the new random track is highlighted


def test_left_and_right_on_the_random_track_change_its_size(scene):
    highlight(scene, random_ref(scene))
    scene.handle(Select("kb1", 1, 0))
    assert scene.generated.size == "medium"
    scene.update(1 / 60)
    assert scene.gen_labels[f"gen:{scene.generated.random_code('medium', start=False)}"].startswith("Random medium")


def test_a_typed_code_gets_its_own_row_and_a_mistyped_one_says_which_character(scene, surface, tmp_path):
    highlight(scene, "gen:+code")
    scene.handle(Confirm("kb1"))
    keypad = scene.stack.top
    assert keypad.screen_name == "gen-code"
    code = make_code(Spec(1, "short", False, 3))
    for ch in code[:5] + ("3" if code[5] != "3" else "4"):  # the last one wrong
        keypad.press(ch)
    keypad.press("ok")
    frame(keypad, surface, tmp_path, "keypad-mistyped")
    assert "mistyped" in keypad.message and scene.stack.top is keypad
    keypad.handle(Back("kb1"))  # deletes the last character
    keypad.press(code[5])
    keypad.press("ok")
    assert scene.stack.top is scene
    assert scene.entry.ref == f"gen:{code}" and scene.gen_labels[scene.entry.ref] == f"Code {code}"


def test_the_keypad_is_walked_with_the_arrows_and_back_leaves_it_empty(scene):
    highlight(scene, "gen:+code")
    scene.handle(Confirm("kb1"))
    keypad = scene.stack.top
    keypad.handle(Select("kb1", 1, 0))
    keypad.handle(Confirm("kb1"))
    assert keypad.code == keypad.keys[1]
    keypad.handle(Back("kb1"))
    keypad.handle(Back("kb1"))
    assert scene.stack.top is scene


def test_a_generated_track_is_saved_to_my_tracks_and_nothing_is_written_over(scene, tmp_path):
    ref = random_ref(scene)
    highlight(scene, ref)
    made = scene.generated.wait(ref[4:], 300)
    scene.update(1 / 60)  # highlighted and made: the one "save" keeps
    highlight(scene, "gen:+save")
    scene.handle(Confirm("kb1"))
    saved = tmp_path / "packs" / f"generated-{made.code}.toml"
    assert saved.read_text() == made.text and "Saved" in scene.message
    pack = load_pack(saved)
    assert pack.ok and pack.tracks[0].meta["par"] == made.checks.par
    saved.write_text("my edited copy\n")
    scene.handle(Confirm("kb1"))
    assert saved.read_text() == "my edited copy\n"
    assert (tmp_path / "packs" / f"generated-{made.code}-2.toml").read_text() == made.text


def test_the_worker_reports_a_bad_code_instead_of_raising():
    tracks = GeneratedTracks(lambda: 1)
    found = tracks.wait("K7F2QX", 30)
    assert "character 4 '2' is not used" in found.message


def test_the_cup_screen_offers_a_random_cup_of_four_generated_tracks(scene, surface, tmp_path):
    import time

    from game.presentation.menus.cup import CupSelectScene

    cups = CupSelectScene(scene.ctx, scene.lineup)
    scene.stack.push(cups)
    scene.ctx.catalogue.wait(60)
    cups.update(1 / 60)
    names = [c.name for c in cups.choices]
    assert names[-3:] == ["Random cup: short", "Random cup: medium", "Random cup: long"]
    cups.index = names.index("Random cup: short")
    cups.update(1 / 60)
    cups.begin()
    assert "still being made" in cups.message and cups.stack.top is cups
    end = time.monotonic() + 600
    while not cups.choice.ok and time.monotonic() < end:
        time.sleep(0.1)
        cups.update(1 / 60)
    frame(cups, surface, tmp_path, "random-cup")
    choice = cups.choice
    assert choice.ok and len(choice.tracks) == 4 and all(r.startswith("gen:") for r in choice.refs)
    assert all(20 <= t.meta["par"] <= 30 for t in choice.tracks)
    cups.begin()
    assert cups.stack.top.screen_name == "cup-race"
