"""Menus that never freeze: packs are read once in the background and again only when a file
changes, track select never reads a pack itself, previews are drawn lazily, and input that
arrives while a screen loads does not reach the next screen (headless)."""

from __future__ import annotations

import os
import shutil
import threading

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
import pytest

from game import paths
from game.presentation.app import App, DisplayConfig, init_pygame
from game.presentation.input import Confirm, DeviceRemoved
from game.presentation.menus import build_context
from game.presentation.menus.rules_menu import RulesScene
from game.presentation.menus.seats import SeatTable
from game.presentation.menus.tracks import TrackSelectScene, load_entries
from game.presentation.scene import Scene
from game.tracks.catalogue import PackCatalogue, read_file

SMALL = """format = 1

[pack]
id = "mine"
name = "My pack"

[[track]]
id = "{id}"
name = "{name}"
cars = 2
map = \"\"\"
XXXXXXXXXXXX
XSOOOOOOOFOX
XSOOOOOOOFOX
XXXXXXXXXXXX
\"\"\"
"""


class Counting:
    """A pack reader that counts what it reads, and on which thread; ``gate`` can hold it back."""

    def __init__(self) -> None:
        self.paths: list = []
        self.threads: set = set()
        self.gate = threading.Event()
        self.gate.set()

    def __call__(self, path):
        self.gate.wait(60)
        self.paths.append(path.name)
        self.threads.add(threading.current_thread().name)
        return read_file(path)


@pytest.fixture
def folders(tmp_path):
    builtin = tmp_path / "builtin"
    builtin.mkdir()
    shutil.copy(paths.builtin_tracks_dir() / "starter.toml", builtin / "starter.toml")
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "mine.toml").write_text(SMALL.format(id="short", name="Short"))
    return builtin, packs


@pytest.fixture(scope="module")
def screen():
    init_pygame(headless=True)
    return pygame.display.set_mode((960, 540))


def test_the_catalogue_lists_what_reading_the_folders_now_gives(folders):
    builtin, packs = folders
    catalogue = PackCatalogue(builtin, packs).start()
    assert catalogue.wait(120) and catalogue.ready
    def summary(entries):
        return [(e.ref, e.name, e.pack, e.problems, e.user, e.track is None) for e in entries]

    assert summary(catalogue.entries()) == summary(load_entries(builtin, packs))
    refs = [e.ref for e in catalogue.entries()]
    assert refs[0].startswith("starter/") and refs[-1] == f"{packs / 'mine.toml'}#short"


def test_a_refresh_reads_only_new_and_changed_files_and_drops_removed_ones(folders):
    builtin, packs = folders
    reader = Counting()
    catalogue = PackCatalogue(builtin, packs, read=reader).start()
    catalogue.wait(120)
    assert sorted(reader.paths) == ["mine.toml", "starter.toml"]
    version = catalogue.version
    catalogue.refresh()
    catalogue.wait(60)
    assert len(reader.paths) == 2 and catalogue.version == version  # nothing changed, nothing read
    (packs / "mine.toml").write_text(SMALL.format(id="longer", name="A longer one"))
    (packs / "more.toml").write_text(SMALL.format(id="other", name="Other"))
    catalogue.refresh()
    catalogue.wait(60)
    assert sorted(reader.paths[2:]) == ["mine.toml", "more.toml"]
    names = [e.name for e in catalogue.entries() if e.user]
    assert names == ["A longer one", "Other"] and catalogue.version > version
    (packs / "more.toml").unlink()
    catalogue.refresh()
    catalogue.wait(60)
    assert [e.name for e in catalogue.entries() if e.user] == ["A longer one"]
    assert reader.threads == {"pack-catalogue"}  # never the frame loop


def test_a_damaged_built_in_pack_is_named_on_the_title_screen_and_the_rest_still_loads(folders, tmp_path, screen):
    builtin, packs = folders
    (builtin / "classics.toml").write_text("[pack\nid =")
    ctx = build_context(tmp_path / "config", packs, builtin)
    ctx.catalogue.start().wait(120)
    problems = ctx.all_problems()
    assert any(p.startswith(str(builtin / "classics.toml")) for p in problems), problems
    assert any(e.ref.startswith("starter/") for e in ctx.catalogue.entries())
    from game.presentation.menus import build_title_scene

    build_title_scene(ctx).draw(pygame.Surface((960, 540)))  # lists it (and nothing breaks)


def _track_select(ctx):
    table = SeatTable()
    table.join("kb1")
    table.add_cpu()
    return TrackSelectScene(ctx, table.lineup())


def _app(ctx, scene):
    app = App(DisplayConfig(size=(960, 540)))
    ctx.size = app.size
    base = Scene()
    app.push(base)
    app.push(scene)
    return app


def test_track_select_says_it_is_loading_and_a_confirm_meanwhile_picks_nothing(folders, tmp_path, screen):
    builtin, packs = folders
    ctx = build_context(tmp_path / "config", packs, builtin)
    reader = Counting()
    reader.gate.clear()  # the reading is slow today
    ctx.catalogue = PackCatalogue(builtin, packs, read=reader)
    scene = _track_select(ctx)
    app = _app(ctx, scene)
    app.step(0.016, events=[])
    assert scene.loading and scene.entries == []
    scene.handle(Confirm("kb1"))
    app.step(0.016, events=[])
    assert app.stack.top is scene  # not on to the rules
    reader.gate.set()
    ctx.catalogue.wait(120)
    app.step(0.016, events=[])
    assert not scene.loading and scene.entry is not None and scene.entry.ref.startswith("starter/")
    assert app.stack.top is scene


def test_entering_track_select_again_reads_no_pack(folders, tmp_path, screen):
    builtin, packs = folders
    ctx = build_context(tmp_path / "config", packs, builtin)
    reader = Counting()
    ctx.catalogue = PackCatalogue(builtin, packs, read=reader).start()
    ctx.catalogue.wait(120)
    read = len(reader.paths)
    scene = _track_select(ctx)
    app = _app(ctx, scene)
    ctx.catalogue.wait(60)
    assert len(reader.paths) == read and not scene.loading and scene.entries
    scene.handle(Confirm("kb1"))  # the list is there at once: confirm goes on to the rules
    assert isinstance(app.stack.top, RulesScene)


def test_previews_are_made_off_the_frame_and_drawn_one_a_frame(folders, tmp_path, screen):
    builtin, packs = folders
    ctx = build_context(tmp_path / "config", packs, builtin)
    entries = load_entries(builtin, packs)
    painter = ctx.previews
    first, second = entries[0], entries[1]
    assert painter.get(first, (400, 240)) is None  # the board is being made on the worker thread
    assert painter.get(second, (400, 240)) is None
    import time

    deadline = time.monotonic() + 60
    while any(painter._boards.get((e.ref, id(e.track))) is None for e in (first, second)):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    painter.new_frame()
    drawn = painter.get(first, (400, 240))
    assert drawn is not None and drawn[0].get_size() == (400, 240)
    assert painter.get(second, (400, 240)) is None  # one a frame
    painter.new_frame()
    assert painter.get(second, (400, 240)) is not None
    assert painter.get(first, (400, 240)) is drawn  # kept


def test_a_big_preview_is_drawn_smaller_and_scaled_to_its_place(folders, tmp_path, screen):
    from game.presentation.menus.tracks import PREVIEW_PIXELS, _paint
    from game.presentation.board import Board
    from game.presentation import theme

    entry = load_entries(folders[0], None)[0]
    board = Board(entry.track, theme.pens(1), seed=3)
    surface, camera = _paint(board, entry.track, (1600, 900))
    assert surface.get_size() == (1600, 900) and 1600 * 900 > PREVIEW_PIXELS
    slot = entry.track.start_slots[0]
    x, y = camera.to_screen((slot.x, slot.y))
    assert 0 <= x < 1600 and 0 <= y < 900


class Pusher(Scene):
    """Confirm pushes another screen (the next one, say)."""

    def __init__(self, log, name) -> None:
        super().__init__()
        self.log, self.name = log, name

    def handle(self, action) -> None:
        self.log.append((self.name, type(action).__name__))
        if isinstance(action, Confirm):
            self.stack.push(Pusher(self.log, self.name + "+"))


def test_presses_queued_behind_a_confirm_do_not_reach_the_screen_it_opens(screen):
    app = App(DisplayConfig(size=(320, 240)))
    log = []
    app.push(Pusher(log, "first"))
    enter = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0, unicode="\r", scancode=0)
    app.step(0.016, events=[enter, enter, enter])
    assert [name for name, _ in log] == ["first"] and app.stack.top.name == "first+"
    app.step(0.016, events=[enter])  # the next frame's press is for the new screen
    assert log[-1] == ("first+", "Confirm")


def test_an_unplugged_gamepad_still_reaches_the_new_screen_after_a_change(screen):
    app = App(DisplayConfig(size=(320, 240)))
    log = []
    app.push(Pusher(log, "first"))
    app.mapper.actions = lambda event: [Confirm("keys"), Confirm("keys"), DeviceRemoved("pad:1")]
    app.step(0.016, events=[pygame.event.Event(pygame.USEREVENT)])
    assert log == [("first", "Confirm"), ("first+", "DeviceRemoved")]


def test_only_the_latest_previews_are_kept(folders, screen):
    import time

    from game.presentation.menus.tracks import PreviewPainter

    painter = PreviewPainter(None, keep=2)
    entries = load_entries(folders[0], None)[:3]
    deadline = time.monotonic() + 120
    for entry in entries:
        while painter.get(entry, (200, 120)) is None:
            assert time.monotonic() < deadline
            painter.new_frame()
            time.sleep(0.01)
    assert len(painter._done) == 2
    assert ((entries[0].ref, id(entries[0].track)), (200, 120)) not in painter._done
