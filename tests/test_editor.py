"""The track editor, driven like a modder drives it: posted mouse and key events, headless.

Each test opens an editor on a dummy window, paints or draws with posted events, and
checks what a modder would see: the problems in the panel, the par, what undo and redo
do, and that a saved pack loads in the game with the track that was drawn.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import sys
import threading
import time
from pathlib import Path

import numpy as np
import pygame
import pytest

from game.core.rules import preset
from game.drivers.solver import solve
from game.presentation import theme
from game.tracks import load_pack

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from editor.app import Editor  # noqa: E402
from editor.doc import new_map, new_outline  # noqa: E402
from editor.jobs import LatestWorker  # noqa: E402

SIZE = (1280, 800)
LOOP = ("XXXXXXXXXXX",
        "XOOFSOOOOOX",
        "XOOFSOOOOOX",
        "XOXXXXXXXOX",
        "XOOOOOOOOOX",
        "XXXXXXXXXXX")


@pytest.fixture(scope="module")
def screen():
    pygame.display.init()
    pygame.font.init()
    surface = pygame.display.set_mode(SIZE)
    yield surface
    pygame.display.quit()


@pytest.fixture
def make_editor(screen, tmp_path):
    made = []

    def make(doc, **kwargs):
        pygame.event.clear()
        editor = Editor(SIZE, doc, builtin_dir=tmp_path / "builtin", **kwargs)
        made.append(editor)
        return editor

    yield make
    for editor in made:
        editor.close()


# -- driving the editor --------------------------------------------------------------
def frame(ed, screen, dt=0.5):
    ed.step(dt, screen)


def wait_for(ed, screen, condition, timeout=60.0):
    """Run frames until ``condition()`` holds (the workers answer in the background)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the editor did not get there in time"
        time.sleep(0.02)
        frame(ed, screen, 0.05)


def checked(ed, screen):
    wait_for(ed, screen, lambda: ed.check_current)
    return ed.checked


def key(k, mod=0, unicode=""):
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=k, mod=mod, unicode=unicode, scancode=0))


def type_text(text):
    for ch in text:
        key(pygame.key.key_code(ch) if ch.isalnum() else 0, unicode=ch)


def stroke(ed, points, button=1):
    """Press at the first world point, move through the others, release at the last."""
    pixels = [ed.screen_of(p) for p in points]
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pixels[0], button=button))
    for p in pixels[1:]:
        pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=p, rel=(0, 0),
                                             buttons=(button == 1, 0, button == 3)))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pixels[-1], button=button))


def paint_loop(ed, screen):
    """Paint LOOP on a blank sheet: road strokes, then finish and start cells."""
    key(pygame.K_r, unicode="r")
    stroke(ed, [(1, 1), (9, 1)])
    stroke(ed, [(1, 2), (9, 2)])
    stroke(ed, [(1, 4), (9, 4)])
    stroke(ed, [(1, 1), (1, 4)])
    stroke(ed, [(9, 1), (9, 4)])
    frame(ed, screen)
    before = checked(ed, screen)
    key(pygame.K_f, unicode="f")
    stroke(ed, [(3, 1), (3, 2)])
    key(pygame.K_s, unicode="s")
    stroke(ed, [(4, 1)])
    stroke(ed, [(4, 2)])
    frame(ed, screen)
    return before


# -- char maps ---------------------------------------------------------------------------
def test_painting_a_loop_turns_the_problems_from_errors_to_none(make_editor, screen):
    ed = make_editor(new_map(11, 6))
    blank = checked(ed, screen)
    assert any("no start" in p.message for p in blank.errors)
    half_done = paint_loop(ed, screen)
    assert half_done.errors, "road without start and finish must not pass"
    assert ed.doc.shape.rows == LOOP
    done = checked(ed, screen)
    assert done.errors == []
    assert ed.track is not None and len(ed.track.start_slots) == 2


def test_every_stroke_and_click_is_one_undo_step_and_redo_brings_it_back(make_editor, screen):
    ed = make_editor(new_map(11, 6))
    paint_loop(ed, screen)
    assert checked(ed, screen).errors == []
    key(pygame.K_z, pygame.KMOD_CTRL)  # the second start cell goes: the start holds 1 car, not 2
    frame(ed, screen)
    assert ed.doc.shape.rows[2][4] == "O" and ed.doc.shape.rows[1][4] == "S"
    assert any(p.key == "cars" for p in checked(ed, screen).errors)
    key(pygame.K_y, pygame.KMOD_CTRL)
    frame(ed, screen)
    assert ed.doc.shape.rows == LOOP
    assert checked(ed, screen).errors == []
    for _ in range(9):  # 5 road strokes, finish, 2 starts, and one more undo than there are edits
        key(pygame.K_z, pygame.KMOD_CTRL)
    frame(ed, screen)
    assert set("".join(ed.doc.shape.rows)) == {"X"}
    key(pygame.K_z, pygame.KMOD_CTRL | pygame.KMOD_SHIFT)  # Ctrl+Shift+Z redoes too
    frame(ed, screen)
    assert ed.doc.shape.rows[1] == "XOOOOOOOOOX"


def test_right_drag_erases_to_off_road_with_the_brush_size(make_editor, screen):
    ed = make_editor(new_map(11, 6))
    key(pygame.K_r, unicode="r")
    key(0, unicode="]")  # brush 2 x 2
    stroke(ed, [(2, 2), (8, 2)])
    frame(ed, screen)
    assert ed.doc.shape.rows[1][1:9] == "OOOOOOOO" and ed.doc.shape.rows[2][1:9] == "OOOOOOOO"
    stroke(ed, [(5, 2)], button=3)
    frame(ed, screen)
    assert ed.doc.shape.rows[1][4:6] == "XX" and ed.doc.shape.rows[2][4:6] == "XX"


def test_a_painted_track_saves_to_a_pack_that_the_game_loads_with_its_par(make_editor, screen, tmp_path):
    ed = make_editor(new_map(11, 6))
    paint_loop(ed, screen)
    wait_for(ed, screen, lambda: ed.par_current is not None)
    par = ed.par_current.par
    target = tmp_path / "mine.toml"
    key(pygame.K_s, pygame.KMOD_CTRL)  # never saved: Ctrl+S asks where
    frame(ed, screen)
    assert ed.prompt is not None
    for _ in range(len(ed.prompt.text)):
        key(pygame.K_BACKSPACE)
    type_text(f"{target}#little-loop")
    key(pygame.K_RETURN)
    frame(ed, screen)
    assert not ed.dirty, ed.status
    result = load_pack(target)
    assert result.errors == []
    track = result.pack.track("little-loop")
    assert track is not None and not track.is_outline
    painted = np.array([[ch != "X" for ch in row] for row in LOOP])
    assert (track.region.road_nodes() == painted).all()
    assert track.meta["par"] == par == solve(track, preset(track.default_rules), track.default_laps).par


def test_saving_into_an_existing_pack_keeps_its_other_tracks(make_editor, screen, tmp_path):
    pack = tmp_path / "two.toml"
    pack.write_text('format = 1\n[pack]\nid = "two"\nname = "Two"\n\n[[track]]\nid = "broken"\nname = "B"\n'
                    'map = """\nXQX\n"""\n\n[[track]]\nid = "loop"\nname = "Loop"\nlaps = 2\ncars = 2\nmap = """\n'
                    + "\n".join(LOOP) + '\n"""\n', encoding="utf-8")
    ed = make_editor(new_map(5, 5))
    ed.open(f"{pack}#loop")
    assert ed.doc.id == "loop" and ed.doc.laps == 2 and ed.doc.shape.rows == LOOP
    assert checked(ed, screen).errors == []
    key(pygame.K_x, unicode="x")
    stroke(ed, [(5, 4)])  # block the bottom straight: the finish cannot be reached the long way round
    frame(ed, screen)
    key(pygame.K_s, pygame.KMOD_CTRL)
    frame(ed, screen)
    text = pack.read_text(encoding="utf-8")
    assert 'id = "broken"' in text and "XQX" in text
    result = load_pack(pack)
    assert [p.track for p in result.errors if p.track == "broken"]
    loop = next(p for p in result.problems if p.track == "loop")
    assert loop.is_error  # saved as drawn, errors and all


# -- outlines ---------------------------------------------------------------------------------
def test_outline_points_are_added_moved_and_undone(make_editor, screen):
    ed = make_editor(new_outline(20, 14))
    for p in [(2, 2), (16, 2), (16, 11), (2, 11)]:
        stroke(ed, [p])
    frame(ed, screen)
    assert ed.doc.shape.outer == ((2, 2), (16, 2), (16, 11), (2, 11))
    stroke(ed, [(16, 11), (16.5, 11.5), (17, 12)])  # drag a corner
    frame(ed, screen)
    assert ed.doc.shape.outer == ((2, 2), (16, 2), (17, 12), (2, 11))
    stroke(ed, [(9, 2)])  # a click near an edge goes into that edge
    frame(ed, screen)
    assert ed.doc.shape.outer == ((2, 2), (9, 2), (16, 2), (17, 12), (2, 11))
    key(pygame.K_z, pygame.KMOD_CTRL)
    key(pygame.K_z, pygame.KMOD_CTRL)
    frame(ed, screen)
    assert ed.doc.shape.outer == ((2, 2), (16, 2), (16, 11), (2, 11))
    key(pygame.K_y, pygame.KMOD_CTRL)
    frame(ed, screen)
    assert ed.doc.shape.outer == ((2, 2), (16, 2), (17, 12), (2, 11))
    stroke(ed, [(17, 12)], button=3)  # right-click deletes a point
    frame(ed, screen)
    assert ed.doc.shape.outer == ((2, 2), (16, 2), (2, 11))


def test_an_outline_drawn_with_the_mouse_becomes_a_raceable_track(make_editor, screen, tmp_path):
    ed = make_editor(new_outline(16, 14))
    for p in [(1, 1), (13, 1), (13, 11), (1, 11)]:
        stroke(ed, [p])
    key(pygame.K_i, unicode="i")
    for p in [(5, 5), (9, 5), (9, 7), (5, 7)]:
        stroke(ed, [p])
    key(pygame.K_f, unicode="f")
    stroke(ed, [(7, 1), (7, 3), (7, 5)])
    frame(ed, screen)
    assert any(p.key == "outline.start" for p in checked(ed, screen).errors)
    key(pygame.K_k, unicode="k")
    stroke(ed, [(7, 7), (7, 11)])
    key(pygame.K_s, unicode="s")
    for p in [(8, 2), (8, 4), (9, 3), (10, 2)]:
        stroke(ed, [p])
    frame(ed, screen)
    assert checked(ed, screen).errors == []
    track = ed.track
    assert track.is_outline and track.forward == (1.0, 0.0) and len(track.checkpoints) == 1
    key(pygame.K_LEFT)  # forward the other way: the start now stands behind the line
    frame(ed, screen)
    assert checked(ed, screen).errors
    key(pygame.K_z, pygame.KMOD_CTRL)
    frame(ed, screen)
    assert checked(ed, screen).errors == []
    slots = ed.track.start_slots
    ed.save_as(f"{tmp_path / 'ring.toml'}#square-ring")
    track = load_pack(tmp_path / "ring.toml").pack.track("square-ring")
    assert track is not None and track.start_slots == slots


# -- par in the background ----------------------------------------------------------------------
def test_par_arrives_from_the_worker_for_a_small_track(make_editor, screen):
    ed = make_editor(new_map(11, 6))
    paint_loop(ed, screen)
    wait_for(ed, screen, lambda: ed.par_current is not None)
    result = ed.par_current
    assert result.par == solve(ed.track, preset("paper"), 1).par
    assert result.path[0] == (ed.track.start_slots[0].x, ed.track.start_slots[0].y)


def test_an_edit_drops_the_par_of_the_old_shape(make_editor, screen):
    ed = make_editor(new_map(11, 6))
    paint_loop(ed, screen)
    wait_for(ed, screen, lambda: ed.par_current is not None)
    old = ed.par_current.par
    key(pygame.K_x, unicode="x")
    stroke(ed, [(7, 1)])  # narrow the top straight to one lane
    frame(ed, screen, dt=0.0)
    assert ed.par_current is None  # the old par is not shown for the new shape
    wait_for(ed, screen, lambda: ed.par_current is not None)
    assert ed.par_current.par >= old


def test_a_stale_job_is_dropped_and_only_the_newest_answer_is_shown():
    release = threading.Event()
    started = threading.Event()

    def work(request, cancelled):
        if request == "slow":
            started.set()
            release.wait(10)
            return "slow answer" if not cancelled() else None
        return f"answer to {request}"

    worker = LatestWorker(work, "test-worker")
    try:
        worker.submit("slow")
        assert started.wait(10)
        worker.submit("new")
        release.set()
        deadline = time.monotonic() + 10
        answer = None
        while answer is None and time.monotonic() < deadline:
            answer = worker.poll()
            time.sleep(0.01)
        assert answer == "answer to new"
        assert worker.dropped == 1 and worker.poll() is None
    finally:
        worker.close()


# -- broken packs and the screen ----------------------------------------------------------------------
def test_a_pack_with_a_syntax_error_lists_its_problem_instead_of_crashing(make_editor, screen, tmp_path):
    pack = tmp_path / "bad.toml"
    pack.write_text('format = 1\n[pack\nid = "x"\n', encoding="utf-8")
    ed = make_editor(new_map(5, 5))
    key(pygame.K_o, pygame.KMOD_CTRL)
    type_text(f"{pack}#t")
    key(pygame.K_RETURN)
    frame(ed, screen)
    assert ed.running
    assert any("bad.toml:2" in note and "not valid TOML" in note for note in ed.notes)


def test_a_broken_track_opens_with_its_problems_listed(make_editor, screen, tmp_path):
    pack = tmp_path / "broken.toml"
    pack.write_text('format = 1\n[pack]\nid = "b"\nname = "B"\n[[track]]\nid = "t"\nname = "T"\nlaps = "two"\n'
                    'map = """\nXXXXX\nXOQOX\nXXXXX\n"""\n[[track]]\nid = "o"\nname = "O"\n[track.outline]\n'
                    'outer = [[1, 1], "no", [5, 5]]\n', encoding="utf-8")
    ed = make_editor(new_map(5, 5))
    ed.open(f"{pack}#t")
    assert ed.doc.id == "t" and ed.doc.shape.rows[1] == "XOQOX"
    assert any("laps" in note for note in ed.notes)
    assert any("unknown letter 'Q'" in p.message for p in checked(ed, screen).errors)
    ed.open(f"{pack}#o")
    assert ed.doc.shape.outer == ((1, 1), (5, 5))
    assert any("outline.outer" in p.key for p in checked(ed, screen).errors)
    frame(ed, screen)  # draws without crashing


def test_the_preview_draws_the_track_with_the_games_renderer(make_editor, screen, tmp_path):
    ed = make_editor(new_map(11, 6))
    paint_loop(ed, screen)
    checked(ed, screen)
    key(pygame.K_TAB)
    frame(ed, screen)
    assert ed.preview
    pygame.image.save(screen, str(tmp_path / "preview.png"))

    def near(pixel, color):
        return sum(abs(a - b) for a, b in zip(screen.get_at(ed.screen_of(pixel))[:3], color))

    road, off = (6.3, 4.3), (6.3, 2.7)  # between the grid lines, on the bottom straight and the infield
    assert near(road, theme.PAPER) < near(road, theme.OFFROAD)
    assert near(off, theme.OFFROAD) < near(off, theme.PAPER)
    assert ed.cache.board is not None and ed.cache.board.track is ed.track


def test_ctrl_s_on_a_built_in_pack_asks_for_another_file_instead_of_overwriting_it(make_editor, screen, tmp_path):
    (tmp_path / "builtin").mkdir()
    builtin = tmp_path / "builtin" / "starter.toml"  # the editors of these tests find built-in packs there
    text = ('format = 1\n[pack]\nid = "starter"\nname = "S"\n[[track]]\nid = "loop"\nname = "Loop"\ncars = 2\n'
            'map = """\n' + "\n".join(LOOP) + '\n"""\n')
    builtin.write_text(text, encoding="utf-8")
    ed = make_editor(new_map(5, 5))
    ed.open("starter/loop")
    assert ed.doc.shape.rows == LOOP
    key(pygame.K_f, unicode="f")
    stroke(ed, [(6, 4)])
    key(pygame.K_s, pygame.KMOD_CTRL)
    frame(ed, screen)
    assert ed.prompt is not None and builtin.read_text(encoding="utf-8") == text
    for _ in range(len(ed.prompt.text)):
        key(pygame.K_BACKSPACE)
    type_text(f"{tmp_path / 'copy.toml'}#loop")
    key(pygame.K_RETURN)
    frame(ed, screen)
    assert builtin.read_text(encoding="utf-8") == text
    assert load_pack(tmp_path / "copy.toml").pack is not None and not ed.dirty


def test_closing_with_unsaved_changes_asks_once_more_and_a_clean_editor_just_closes(make_editor, screen):
    clean = make_editor(new_map(8, 5))
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    frame(clean, screen)
    assert not clean.running
    ed = make_editor(new_map(8, 5))
    stroke(ed, [(2, 2)])
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    frame(ed, screen)
    assert ed.running and "unsaved" in ed.status
    key(pygame.K_ESCAPE)
    frame(ed, screen)
    assert not ed.running


# -- terrain ------------------------------------------------------------------------------------
def test_every_terrain_kind_is_painted_with_its_key_and_saved_as_the_letter_the_game_reads(make_editor, screen,
                                                                                           tmp_path):
    from editor.doc import TERRAIN_BRUSHES
    from game.core.terrain import LETTERS

    ed = make_editor(new_map(11, 6))
    paint_loop(ed, screen)
    assert checked(ed, screen).errors == []
    painted = {}
    for x, letter in zip((6, 7, 8, 9), "YZIC"):
        key(pygame.key.key_code(letter.lower()), unicode=letter.lower())
        stroke(ed, [(x, 4)])
        painted[(x, 4)] = letter
    key(pygame.K_w, unicode="w")
    stroke(ed, [(5, 3)])  # water in the infield (off-road, whatever the rules)
    painted[(5, 3)] = "W"
    frame(ed, screen)
    assert set(TERRAIN_BRUSHES) == set(painted.values())  # every kind has its key
    assert all(ed.doc.shape.at(x, y) == letter for (x, y), letter in painted.items())
    assert checked(ed, screen).errors == []
    ed.save_as(f"{tmp_path / 'terrain.toml'}#terrain-loop")
    track = load_pack(tmp_path / "terrain.toml").pack.track("terrain-loop")
    from game.core.vec import Vec

    assert {cell: track.terrain_at(Vec(*cell)) for cell in painted} == {c: LETTERS[ch] for c, ch in painted.items()}
    reopened = make_editor(new_map(5, 5))
    reopened.open(f"{tmp_path / 'terrain.toml'}#terrain-loop")
    assert reopened.doc.shape == ed.doc.shape  # the letters read back as painted


def test_outline_terrain_patches_are_drawn_given_a_kind_and_saved_as_the_loader_reads_them(make_editor, screen,
                                                                                          tmp_path):
    ed = make_editor(new_outline(16, 14))
    for p in [(1, 1), (13, 1), (13, 11), (1, 11)]:
        stroke(ed, [p])
    key(pygame.K_i, unicode="i")
    for p in [(5, 5), (9, 5), (9, 7), (5, 7)]:
        stroke(ed, [p])
    key(pygame.K_f, unicode="f")
    stroke(ed, [(7, 1), (7, 3), (7, 5)])
    key(pygame.K_s, unicode="s")
    for p in [(8, 2), (8, 4), (9, 3), (10, 2)]:
        stroke(ed, [p])
    key(pygame.K_t, unicode="t")  # the terrain tool: sand first
    for p in [(2, 8), (4.5, 8), (4.5, 10.5), (2, 10.5)]:
        stroke(ed, [p])
    key(pygame.K_n, unicode="n")  # a new patch, and T again: the next kind
    key(pygame.K_t, unicode="t")
    for p in [(10, 8), (12, 8), (11, 10.5)]:
        stroke(ed, [p])
    frame(ed, screen)
    assert ed.doc.shape.terrain == (("sand", ((2, 8), (4.5, 8), (4.5, 10.5), (2, 10.5))),
                                    ("mud", ((10, 8), (12, 8), (11, 10.5))))
    assert checked(ed, screen).errors == []
    palette = ed.cache.palette  # the panel's swatches pick a kind too
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=palette["curb"].center, button=1))
    frame(ed, screen)
    assert ed.terrain_kind == "curb" and ed.doc.shape.terrain[1][0] == "curb"
    stroke(ed, [(11, 10.5)], button=3)  # right-click deletes a patch point
    frame(ed, screen)
    assert ed.doc.shape.terrain[1][1] == ((10, 8), (12, 8))
    key(pygame.K_z, pygame.KMOD_CTRL)
    frame(ed, screen)
    assert checked(ed, screen).errors == []
    ed.save_as(f"{tmp_path / 'patches.toml'}#patches")
    track = load_pack(tmp_path / "patches.toml").pack.track("patches")
    assert [(str(p.kind), tuple(p.ring)) for p in track.terrain_patches()] == [
        ("sand", ((2, 8), (4.5, 8), (4.5, 10.5), (2, 10.5))), ("curb", ((10, 8), (12, 8), (11, 10.5)))]
    from game.core.vec import Vec

    assert str(track.terrain_at(Vec(3, 9))) == "sand" and str(track.terrain_at(Vec(11, 9))) == "curb"
    reopened = make_editor(new_map(5, 5))
    reopened.open(f"{tmp_path / 'patches.toml'}#patches")
    assert reopened.doc.shape.terrain == ed.doc.shape.terrain
