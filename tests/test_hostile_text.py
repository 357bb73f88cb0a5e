"""Text that is safe to draw (issue 27): whatever a file says, the readers keep control characters
and megabyte names out of the game, and the screens draw any string without an error.

The readers: every text field of a pack, a cup, the settings, the best results, a replay, a
saved cup and a Karopapier log either refuses a control character or cleans it, with a message
naming the file, key (and line). The screens: track select, the lobby, cup select and the replay
viewer draw names and descriptions holding one character of every Unicode category, combining
marks, bidirectional overrides, emoji, NUL, lone surrogates and 10 000 characters.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import copy
import json
import sys
import unicodedata
from dataclasses import replace
from pathlib import Path

import pygame
import pytest
from hypothesis import given, settings, strategies as st

from game.core.race import RaceState
from game.core.rules import preset
from game.core.text import DESCRIPTION, NAME, clean_text, text_problem
from game.presentation.menus.cup import CupChoice, CupSelectScene
from game.presentation.menus.lobby import LobbyScene
from game.presentation.menus.race import TrackEntry, replay_viewer
from game.presentation.menus.tracks import TrackSelectScene, load_entries
from game.presentation.scene import SceneStack
from game.presentation.text import TextCache, drawable
from game.race.cup import CupError, loads_cup
from game.race.replay import Replay, ReplayError, dumps_replay, loads_replay
from game.settings import Best, best_key, load_best, load_settings
from game.tracks import read_pack_text
from game.tracks.cups import CupDef, CupRaceDef
from game.tracks.karo_import import KaroImportError, read_game
from tests.menu_context import headless_display, starter_context

SIZE = (960, 540)
DATA = Path(__file__).parent / "data" / "packs"


def one_of_every_category() -> str:
    """The first code point of every Unicode general category (Cs, Co and Cn included)."""
    found: dict[str, str] = {}
    for code in range(sys.maxunicode + 1):
        found.setdefault(unicodedata.category(chr(code)), chr(code))
    return "".join(found.values())


@pytest.fixture(scope="module")
def hostile():
    """Names and texts no reader lets through, as a screen might still be handed them."""
    return ["A\x00da", "\x1b[31mred\x1b[0m", "\u202eevil\u202c", "\u2067iso\u2069", "e" + "\u0301" * 300,
            "\U0001f3c1\U0001f600\U0001f469\u200d\U0001f469\u200d\U0001f467\U0001f1e9\U0001f1ea", "\ud800lone",
            "x" * 10_000, "\n\t\r\x7f\x85", "", " ", "\ufeff\u200b\u200d", "\u0645\u0631\u062d\u0628\u0627 \u05e9\u05dc",
            "\U000e0041tag", "\uffff\ufffe\U0010ffff", one_of_every_category()]


@pytest.fixture(scope="module")
def surface():
    return headless_display(SIZE)


@pytest.fixture
def ctx(tmp_path):
    return starter_context(tmp_path, SIZE)


def frame(scene, surface, stack=None):
    """One frame of a screen: its update, then every scene drawn (an error fails the test)."""
    if scene.stack is None:
        (stack or SceneStack()).push(scene)
    scene.update(1 / 60)
    surface.fill((0, 0, 0))
    scene.stack.draw(surface)


# -- the drawing layer ------------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(exclude_categories=()), max_size=60), st.integers(6, 80))
def test_any_string_draws_at_any_size_without_an_error(surface, text, size):
    cache = TextCache()
    rendered = cache.render(text, size, (0, 0, 0))
    assert 0 < rendered.get_height() <= size * 3  # one line: combining marks do not stack a tower
    assert rendered.get_width() <= 16_000 + size * 4  # clipped to about what a screen could show


def test_a_huge_line_is_cut_before_the_font_sees_it(surface):
    line = drawable("d" * 3_500_000, 16)
    assert len(line) == 1000 and line.endswith("\u2026")
    assert drawable("a\x00b\u202ec\ud800", 16) == "a\ufffdb\ufffdc\ufffd"
    tower = TextCache().render("e" + "\u0301" * 300, 16, (0, 0, 0))
    assert tower.get_height() <= 16 * 2


# -- the screens ------------------------------------------------------------------------------
def test_track_select_draws_any_track_name_description_pack_and_record_holder(ctx, surface, hostile, tmp_path):
    base = next(e for e in load_entries(ctx.builtin_dir, None) if e.track is not None)
    entries = []
    for k, text in enumerate(hostile + ["d" * 3_500_000]):
        track = copy.copy(base.track)
        track.name = text
        track.meta = dict(base.track.meta, description=text)
        ref = f"{base.ref}-{k}"
        entries.append(TrackEntry(ref, track, pack=text))
        ctx.best.entries[best_key(ref, 1)] = Best(7, text)
    entries.append(TrackEntry("broken#x", None, pack=hostile[0], problems=tuple(hostile), user=True))
    scene = TrackSelectScene(ctx, [], entries)
    SceneStack().push(scene)
    for k in range(len(entries)):
        scene.index = k
        frame(scene, surface)
    pygame.image.save(surface, str(tmp_path / "tracks_hostile.png"))


def test_the_lobby_draws_any_player_name(ctx, surface, hostile):
    lobby = LobbyScene(ctx)
    SceneStack().push(lobby)
    for device in ("kb1", "kb2", "pad:3"):
        lobby.table.join(device)
    while lobby.table.add_cpu() is not None:
        pass
    for start in range(0, len(hostile), 8):
        names = hostile[start:start + 8]
        lobby.table.seats = [replace(seat, name=name) for seat, name in zip(lobby.table.seats, names)]
        lobby.message = names[0]
        frame(lobby, surface)


def test_cup_select_draws_any_cup_name_pack_description_and_problem(ctx, surface, hostile):
    base = next(e for e in load_entries(ctx.builtin_dir, None) if e.track is not None)
    choices = []
    for text in hostile:
        definition = CupDef(id="c", name=text, races=(CupRaceDef(base.track.id),), description=text)
        choices.append(CupChoice(text, text, definition, (base.ref,), (base.track,)))
    choices.append(CupChoice("broken: c", hostile[1], None, problems=tuple(hostile)))
    scene = CupSelectScene(ctx, [], choices)
    SceneStack().push(scene)
    for k in range(len(choices)):
        scene.index = k
        frame(scene, surface)


def test_the_replay_viewer_draws_any_car_name(ctx, surface, hostile):
    track = next(e for e in load_entries(ctx.builtin_dir, None) if e.track is not None).track
    slots = min(8, len(track.start_slots))
    for start in range(0, len(hostile), slots):
        names = [f"{k}{text}" for k, text in enumerate(hostile[start:start + slots])]  # names differ
        state = RaceState.start(track, preset("paper"), names, laps=1, seed=1)
        viewer = replay_viewer(ctx, [state], [], names)
        frame(viewer, surface)


# -- the readers --------------------------------------------------------------------------------
def test_the_text_rule_names_the_character_and_the_limit():
    assert text_problem("Ada", NAME) is None
    assert "U+0000, its 2nd character" in text_problem("A\x00da", NAME)
    assert "U+202E" in text_problem("\u202eevil", NAME)
    assert "10000 characters long; a name may be at most 40" in text_problem("x" * 10_000, NAME)
    assert text_problem("two\nlines", DESCRIPTION) is None and text_problem("two\nlines", NAME)
    assert clean_text("A\x00d\u202ea" + "x" * 100, NAME) == "Ada" + "x" * 37


@pytest.mark.parametrize("bad", ["\\u0000", "\\u001b", "\\u202e", "\\u2028"])
def test_a_pack_cleans_control_characters_in_every_text_field_with_a_located_warning(bad):
    text = (DATA / "minicup.toml").read_text()
    text = text.replace('name = "Mini Cup"', f'name = "Mini{bad}Cup"')
    text = text.replace('description = "Tiny sprints for testing cups."', f'description = "Tiny{bad}"')
    text = text.replace('name = "Dash"', f'name = "Da{bad}sh"')
    text = text.replace('name = "Sprint Cup"', f'name = "Sprint{bad}Cup"')
    result = read_pack_text(text, "mini.toml")
    assert result.pack.name == "MiniCup" and result.pack.description == "Tiny"
    assert result.pack.track("dash").name == "Dash"
    assert next(c for c in result.pack.cups if c.id == "sprints").name == "SprintCup"
    found = {(p.key, p.line) for p in result.problems if "control character" in p.message}
    lines = text.splitlines()
    assert found == {("pack.name", lines.index('name = "Mini' + bad + 'Cup"') + 1),
                     ("pack.description", lines.index(f'description = "Tiny{bad}"') + 1),
                     ("name", lines.index(f'name = "Da{bad}sh"') + 1),
                     ("name", lines.index(f'name = "Sprint{bad}Cup"') + 1)}


def test_a_pack_cuts_a_megabyte_track_name_and_description_to_what_a_screen_shows():
    text = (DATA / "minicup.toml").read_text()
    text = text.replace('name = "Dash"', f'name = "{"N" * 1_000_000}"\ndescription = "{"d" * 2_000_000}"')
    result = read_pack_text(text, "mini.toml")
    track = result.pack.track("dash")
    assert len(track.name) == NAME.limit and len(track.meta["description"]) == DESCRIPTION.limit
    messages = [str(p) for p in result.problems if p.track == "dash"]
    assert any("name: warning: is 1000000 characters long" in m for m in messages)
    assert all(len(m) < 400 for m in messages)  # the message quotes a little, not the megabyte


def test_settings_and_best_results_refuse_a_control_character_in_a_name_with_its_line(tmp_path):
    (tmp_path / "settings.toml").write_text('format = 1\n[players]\nnames = ["Ada", "B\\u0000b"]\n')
    (tmp_path / "best.toml").write_text('format = 1\n[track."a x1"]\nmoves = 3\nname = "Z\\u001be"\n'
                                        '[track."b x1"]\nmoves = 4\nname = "Ok"\n')
    settings_, problems = load_settings(tmp_path)
    assert settings_.player_names == []
    assert any(p.key == "players.names" and p.line == 3 and "U+0000" in str(p) for p in problems)
    best, problems = load_best(tmp_path)
    assert list(best.entries) == ["b x1"]
    assert any(p.key == "track.a x1" and p.line == 2 and "U+001B" in str(p) for p in problems)


def replay_text(name: str) -> str:
    """A replay file as the game writes it, its second car named ``name`` (as TOML spells it)."""
    replay = Replay.from_race("starter/first-sprint", 1, preset("paper"), 1, [("Ada", "human"), ("Bix", "cpu:pro")],
                              [])
    return dumps_replay(replay).replace('"Bix"', f'"{name}"')


def test_a_replay_refuses_a_car_name_a_screen_cannot_show_with_its_key_and_line():
    with pytest.raises(ReplayError) as error:
        loads_replay(replay_text("B\\u0000ix"), "r.toml")
    assert "r.toml:15: car 2: name: holds a control character (U+0000" in str(error.value)
    with pytest.raises(ReplayError, match="is 10000 characters long"):
        loads_replay(replay_text("x" * 10_000), "r.toml")


def test_a_saved_cup_refuses_an_entrant_name_a_screen_cannot_show():
    from game.race.cup import Cup, CupRace, Entrant, dumps_cup

    cup = Cup("c", "Cup", (CupRace("starter/first-sprint", "First", 1, preset("paper")),),
              (Entrant("Ada", "human"), Entrant("Bix", "cpu:pro", 1, 1)))
    text = dumps_cup(cup).replace('"Bix"', '"B\\u0000ix"')
    with pytest.raises(CupError, match=r"entrant\[2\]\.name.*U\+0000"):
        loads_cup(text, "cup.toml")


def test_an_imported_karopapier_player_name_with_a_control_character_is_refused(tmp_path):
    log = {"game": {"id": 1, "name": "G\u0000ame", "map": 2},
           "players": [{"name": "A\u0000da", "moves": [{"x": 1, "y": 1}]}],
           "map": {"name": "M\u001bap", "mapcode": "XXX"}}
    path = tmp_path / "1.json"
    path.write_text(json.dumps(log))
    with pytest.raises(KaroImportError, match=r"players\[0\]\.name: .*U\+0000"):
        read_game(path)
    log["players"][0]["name"] = "Ada"
    path.write_text(json.dumps(log))
    game = read_game(path)
    assert game.name == "Game" and game.map_name == "Map"


def test_an_id_past_64_characters_is_an_error_named_by_its_place_not_quoted_whole():
    text = (DATA / "minicup.toml").read_text().replace('id = "dash"', f'id = "{"d" * 5000}"', 1)
    result = read_pack_text(text, "mini.toml")
    problem = next(p for p in result.problems if p.key == "id" and p.track == "#1")
    assert problem.is_error and "is 5000 characters long; an id may be at most 64" in str(problem)
    assert problem.line == text.splitlines().index(f'id = "{"d" * 5000}"') + 1
    assert all(len(str(p)) < 400 for p in result.problems)
    assert [t.id for t in result.pack.tracks] == ["step", "lane"]
