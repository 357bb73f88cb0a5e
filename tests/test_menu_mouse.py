"""The mouse on the lobby, track select and the lists of rows, and the lobby read from a sofa.

A couch group with a mouse on the table: the pointer shows what a click would act on, a
click acts, the wheel scrolls. In the lobby a click on a person's row puts that seat's
cursor there and a click on its ``<`` / ``>`` steps the value; the footer's rows do what
confirm does. In track select the pointer highlights a track (its preview shows), a click
picks it, the wheel scrolls the list without the rows sliding under the pointer.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from dataclasses import replace

import pygame
import pytest

from game.presentation.input import ClickAt, Confirm, InputMapper, PointAt, Scroll, Select
from game.presentation.menus.common import Item, MenuList
from game.presentation.menus.lobby import LobbyScene
from game.presentation.menus.seats import CPU_LEVELS, ROWS, SeatTable
from game.presentation.menus.tracks import TrackSelectScene, load_entries
from game.presentation.scene import SceneStack
from tests.menu_context import headless_display, starter_context

SIZE = (1280, 720)


@pytest.fixture(scope="module")
def surface():
    return headless_display(SIZE)


@pytest.fixture
def ctx(tmp_path):
    return starter_context(tmp_path, SIZE)


def lobby_of_two(ctx, surface) -> LobbyScene:
    """Keyboards 1 and 2 seated, drawn once (a click acts on what the last frame showed)."""
    lobby = LobbyScene(ctx)
    SceneStack().push(lobby)
    lobby.handle(Confirm("keys"))
    lobby.handle(Select("kb2", 0, 0, True))
    lobby.draw(surface)
    return lobby


def zone(lobby, what: str, seat: int | None = None):
    return next(z for z in lobby.zones if z.what == what and z.seat == seat)


def click(scene, pos, surface) -> None:
    scene.handle(ClickAt("mouse", tuple(int(v) for v in pos)))
    scene.draw(surface)


def test_the_wheel_becomes_a_scroll_action_down_the_list(surface):
    mapper = InputMapper()
    (down,) = mapper.actions(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=-2, flipped=False))
    (up,) = mapper.actions(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=1, flipped=False))
    assert down == Scroll("mouse", 2) and up == Scroll("mouse", -1)


def test_a_click_on_a_seats_row_moves_its_cursor_there_and_its_arrows_step_the_value(ctx, surface):
    lobby = lobby_of_two(ctx, surface)
    bix = lobby.table.seats[1]
    colour = zone(lobby, "colour", 1)
    click(lobby, (colour.rect.left + 4, colour.rect.centery), surface)
    assert ROWS[lobby.table.rows["kb2"]] == "colour" and ROWS[lobby.table.rows["kb1"]] == "name"
    assert lobby.table.seats[1].color == bix.color, "the first click only put the cursor on the row"
    colour = zone(lobby, "colour", 1)  # drawn again: now "colour:  < vermillion >"
    click(lobby, (colour.value_right - 3, colour.rect.centery), surface)
    forward = lobby.table.seats[1].color
    assert forward != bix.color
    colour = zone(lobby, "colour", 1)
    click(lobby, (colour.value_left + 3, colour.rect.centery), surface)
    assert lobby.table.seats[1].color == bix.color, "the < half steps back"


def test_the_pointer_shades_the_row_under_it_and_moves_nobody(ctx, surface):
    lobby = lobby_of_two(ctx, surface)
    symbol = zone(lobby, "symbol", 0)
    before = surface.get_at(symbol.rect.move(2, 2).topleft)
    rows = dict(lobby.table.rows)
    lobby.handle(PointAt("mouse", symbol.rect.center))
    lobby.draw(surface)
    assert surface.get_at(symbol.rect.move(2, 2).topleft) != before
    assert lobby.table.rows == rows


def test_the_footer_rows_add_a_cpu_change_its_level_and_start(ctx, surface):
    lobby = lobby_of_two(ctx, surface)
    cpu = zone(lobby, "cpu")
    level = lobby.table.cpu_level
    click(lobby, (cpu.value_right - 3, cpu.rect.centery), surface)
    assert lobby.table.cpu_level == (level + 1) % len(CPU_LEVELS) and len(lobby.table.seats) == 2
    click(lobby, (zone(lobby, "cpu").rect.right - 10, cpu.rect.centery), surface)
    assert len(lobby.table.seats) == 3 and lobby.table.seats[2].kind == CPU_LEVELS[level + 1]
    click(lobby, zone(lobby, "start").rect.center, surface)
    assert type(lobby.stack.top).__name__ == "TrackSelectScene"


def test_a_click_on_a_free_seat_seats_keyboard_1_whose_keys_the_mouse_shares(ctx, surface):
    lobby = LobbyScene(ctx)
    SceneStack().push(lobby)
    lobby.draw(surface)
    click(lobby, zone(lobby, "free").rect.center, surface)
    assert [s.device for s in lobby.table.seats] == ["kb1"]
    click(lobby, zone(lobby, "free").rect.center, surface)
    assert len(lobby.table.seats) == 1 and "Keyboard 1" in lobby.message


def long_list(ctx) -> list:
    """The starter pack's tracks twelve times over: a list longer than its card."""
    entries = load_entries(ctx.builtin_dir, None)
    return [replace(e, ref=f"{e.ref}-{n}") for n in range(12) for e in entries]


def test_track_select_highlights_under_the_pointer_picks_on_a_click_and_scrolls_with_the_wheel(ctx, surface):
    scene = TrackSelectScene(ctx, SeatTable().lineup(), long_list(ctx))
    SceneStack().push(scene)
    scene.draw(surface)
    shown = [k for k, _ in scene.row_rects]
    assert len(shown) < len(scene.entries), "the list should be longer than its card"
    k, rect = scene.row_rects[3]
    scene.handle(PointAt("mouse", rect.center))
    scene.draw(surface)
    assert scene.index == k and [r for _, r in scene.row_rects][3] == rect, "the rows slid under the pointer"
    scene.handle(Scroll("mouse", 2))
    scene.draw(surface)
    assert [k for k, _ in scene.row_rects][0] == shown[0] + 2 and scene.index == k
    k, rect = scene.row_rects[-1]
    click(scene, rect.center, surface)
    assert type(scene.stack.top).__name__ == "RulesScene" and scene.stack.top.entry is scene.entries[k]


def test_a_click_on_the_laps_arrows_changes_them(ctx, surface):
    scene = TrackSelectScene(ctx, SeatTable().lineup(), load_entries(ctx.builtin_dir, None))
    SceneStack().push(scene)
    for _ in range(60):  # the preview is drawn on a worker; the laps line is drawn whatever
        scene.draw(surface)
        if scene.laps_rect is not None:
            break
    entry = scene.entry
    laps = scene.laps_of(entry)
    click(scene, (scene.laps_rect.right - 2, scene.laps_rect.centery), surface)
    assert scene.laps_of(entry) == laps + 1
    click(scene, (scene.laps_rect.left + 2, scene.laps_rect.centery), surface)
    assert scene.laps_of(entry) == laps


def test_the_pointer_and_the_wheel_move_a_menus_highlight_but_only_a_click_confirms():
    pressed = []
    menu = MenuList([Item("One", confirm=lambda: pressed.append(1)), Item("Two", confirm=lambda: pressed.append(2)),
                     Item("Three", confirm=lambda: pressed.append(3))])
    menu.rects = [pygame.Rect(0, 40 * k, 200, 40) for k in range(3)]
    menu.click(PointAt("mouse", (10, 50)))
    assert menu.index == 1 and not pressed
    menu.click(Scroll("mouse", 5))
    assert menu.index == 2 and not pressed
    menu.click(ClickAt("mouse", (10, 5)))
    assert pressed == [1]


def test_a_lobby_seats_rows_are_read_from_a_sofa(tmp_path, monkeypatch):
    """At 1920x1080 (seen at a quarter of its size from the sofa) a person's rows on their card
    (name, colour, symbol, handicap, assist, the device) are drawn no smaller than 30 px: at 24
    px they were the smallest text on the screen, unreadable from across the room."""
    ctx = starter_context(tmp_path, (1920, 1080))
    used = []
    real = ctx.text.render
    monkeypatch.setattr(ctx.text, "render", lambda text, px, *a, **k: used.append((px, text)) or real(text, px, *a, **k))
    lobby = LobbyScene(ctx)
    SceneStack().push(lobby)
    lobby.handle(Confirm("keys"))
    lobby.handle(Select("kb2", 0, 0, True))
    lobby.draw(pygame.Surface((1920, 1080)))
    rows = [(px, text) for px, text in used if text.split(":")[0] in ("name", "colour", "symbol", "handicap",
                                                                       "assist") or text.startswith("keys ")]
    assert len(rows) == 12 and min(rows)[0] >= 30, min(rows)


def test_the_phones_lobby_in_a_5_4_window_leaves_no_half_of_it_empty(tmp_path):
    """With the phones' card beside the seats a 1280x1024 lobby ended 330 px above its help band;
    the card now stands beside the footer, and the two reach down to the band."""
    from tests.test_layout import _StillServer
    from game.presentation.phones import PhoneLink

    size = (1280, 1024)
    ctx = starter_context(tmp_path, size)
    ctx.phones = PhoneLink(_StillServer)
    lobby = LobbyScene(ctx)
    SceneStack().push(lobby)
    lobby.toggle_phones()
    surface = pygame.Surface(size)
    lobby.draw(surface)
    plan = lobby.shown
    hint_top = size[1] - ctx.font(17) * 3
    lowest = max(r.bottom for r in [*plan.cards, plan.phones, plan.footer])
    assert hint_top - lowest < plan.size * 2.5, (lowest, hint_top)
    assert plan.phones.top >= max(r.bottom for r in plan.cards), "the phones' card should stand below the seats"
    assert plan.footer.right <= plan.phones.left
