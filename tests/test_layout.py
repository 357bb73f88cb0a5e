"""Every screen whole at every size: what a player would see cut off, covered or unreachable.

Each screen is drawn at the text sizes 1.0, 1.25 and 1.5 on 1280x720, 1920x1080 and
3840x2160, with a recorder handed to the game's text cache (``TextCache(recorder=...)``):
it sees every text and every card drawn. From those rectangles (the ink of each text, not
its line box) the test checks that

- no text leaves the screen, or the card it stands on, or is cut by a clip;
- no two texts overlap, and no card half covers another;
- every menu row can be reached: highlighted, it is drawn whole on the screen, clear of
  the hint band.

The title is also drawn after F11 both ways (the font sizes follow the new window). A
failing check names the screen, the size and the texts, and the PNG of the frame is saved
under the test's tmp folder (look at it).
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import shutil
from dataclasses import dataclass, replace
from pathlib import Path
import time
from types import SimpleNamespace

import pygame
import pytest

from game import paths
from game.core.race import FINISHED
from game.core.rules import preset
from game.presentation.app import init_pygame
from game.presentation.menus import build_context
from game.presentation.paper_plan import TILE
from game.presentation.scene import SceneStack
from game.presentation.text import TextCache

SIZES = [(1280, 720), (1920, 1080), (3840, 2160)]
SCALES = [1.0, 1.25, 1.5]
NAMES = ["Ada", "Bix", "Cleo", "Dmitri", "Esmeralda", "Fox", "Gus", "Hildegard"]


# -- the recorder -----------------------------------------------------------------------
@dataclass
class Drawn:
    words: str  # None for a card
    rect: pygame.Rect  # on the surface's top parent: the ink of a text, the whole of a card
    surface: int  # id of the top parent surface
    bounds: pygame.Rect  # that surface's rectangle
    cut: bool = False  # part of the ink lies outside the surface's clip


class Layout:
    """What one frame drew: texts and cards, on which surface (the recorder of ``TextCache``)."""

    def __init__(self) -> None:
        self.texts: list[Drawn] = []
        self.panels: list[Drawn] = []

    def clear(self) -> None:
        self.texts.clear()
        self.panels.clear()

    @staticmethod
    def _where(surface, rect) -> tuple[int, pygame.Rect, pygame.Rect]:
        parent = surface.get_abs_parent()
        return id(parent), pygame.Rect(rect).move(surface.get_abs_offset()), parent.get_rect()

    def text(self, surface, rect, words, image) -> None:
        ink = image.get_bounding_rect()
        if not ink.width or not words.strip() or surface.get_size() == (1, 1):
            return  # (a 1x1 surface is a screen measuring its text before it lays it out)
        ink = ink.move(rect.topleft)
        clip = surface.get_clip()
        where, at, bounds = self._where(surface, ink)
        self.texts.append(Drawn(words, at, where, bounds, cut=not clip.contains(ink)))

    def panel(self, surface, rect) -> None:
        where, at, bounds = self._where(surface, rect)
        self.panels.append(Drawn(None, at, where, bounds))


def problems(layout: Layout, size: tuple[int, int]) -> list[str]:
    """Everything wrong with the frame's layout, in words (empty: whole)."""
    screen = pygame.Rect((0, 0), size)

    def group(d: Drawn):  # a full-window layer (a composed sheet) is the screen
        return "screen" if d.bounds.size == screen.size else d.surface

    found = []
    for t in layout.texts:
        if t.bounds.size == (TILE, TILE) and t.bounds.clip(t.rect):
            continue  # a label on a paper tile runs on into the next tile, which draws the rest of it
        if not t.bounds.contains(t.rect):
            found.append(f"{t.words!r} leaves the {'screen' if group(t) == 'screen' else 'panel image'} at {t.rect}")
        elif t.cut:
            found.append(f"{t.words!r} is cut off by its clip at {t.rect}")
    texts = layout.texts
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if group(a) == group(b) and a.rect.clip(b.rect).width * a.rect.clip(b.rect).height > 0:
                found.append(f"{a.words!r} {a.rect} overlaps {b.words!r} {b.rect}")
    for p in layout.panels:
        if not p.bounds.contains(p.rect):
            found.append(f"a card {p.rect} leaves the screen")
        for t in texts:
            if group(t) == group(p) and t.rect.colliderect(p.rect) and not p.rect.contains(t.rect):
                found.append(f"{t.words!r} {t.rect} runs past the edge of a card {p.rect}")
    for i, a in enumerate(layout.panels):
        for b in layout.panels[i + 1:]:
            if group(a) == group(b) and a.rect.colliderect(b.rect) and not (a.rect.contains(b.rect)
                                                                             or b.rect.contains(a.rect)):
                found.append(f"the cards {a.rect} and {b.rect} half cover each other")
    return list(dict.fromkeys(found))


# -- the screens ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def display():
    init_pygame(headless=True)
    return pygame.display.set_mode((320, 200))


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("layout")
    builtin = root / "builtin"  # the starter pack and the terrain tracks: loading every outline track is slow
    builtin.mkdir()
    for pack in ("starter.toml", "terrain.toml"):
        shutil.copy(paths.builtin_tracks_dir() / pack, builtin / pack)
    return root


@pytest.fixture(scope="module")
def entries(home):
    from game.presentation.menus.tracks import load_entries

    return {e.ref: e for e in load_entries(home / "builtin", None)}


class KnownPars:
    """Stands in for the par worker: par is known at once (no solver run in a layout test)."""

    def par(self, track, rules, laps, slot=None):
        return 61

    def seconds(self, *args, **kwargs):
        return 0.0

    def progress(self, *args, **kwargs):
        return None

    def wait(self, *args, **kwargs):
        return 61


def make_ctx(home, size, scale, layout, config=None):
    """A game context drawing through ``layout`` (its own config folder when given: a first best result)."""
    ctx = build_context(config or home / "config", home / "packs", home / "builtin", seed=3)
    ctx.size = size
    ctx.settings.scale = scale
    ctx.settings.player_names = list(NAMES)
    ctx.settings.reduce_motion = True  # the podium and the standings stand still: one frame shows them whole
    ctx.text = TextCache(recorder=layout)
    ctx._pars = KnownPars()
    return ctx


def eight_seats():
    from game.presentation.menus.seats import SeatSpec

    devices = ["kb1", "kb2"] + [f"pad:{k}" for k in range(1, 7)]
    return tuple(SeatSpec(name, k, k, "human", device) for k, (name, device) in enumerate(zip(NAMES, devices)))


def race_plan(entries, lineup=None, ref="terrain/dune-rally", laps=2):
    from game.presentation.menus.race import RacePlan

    entry = entries[ref]
    return RacePlan(lineup or eight_seats(), entry, preset(entry.track.default_rules), laps)


def play_phases(race, phases: int) -> None:
    """A few phases of the race, every car taking its first legal target."""
    ctl = race.controller
    for _ in range(200):
        if len(ctl.records) >= phases:
            return
        for car in ctl.waiting_humans():
            if ctl.chosen(car) is None:
                ctl.submit(car, next(c.node for c in ctl.candidates(car) if c.legal))
        ctl.tick()
    raise AssertionError("the phases were not played")


def finished_controller(race):
    """The race's controller as if every car had crossed the line (results, standings)."""
    ctl = race.controller
    last = ctl.states[-1]
    cars = tuple(replace(c, status=FINISHED, moves=30 + k, finish_phase=30 + k, finish_key=(k,))
                 for k, c in enumerate(last.cars))
    final = replace(last, cars=cars, phase=38)
    return SimpleNamespace(states=list(ctl.states[:-1]) + [final], records=list(ctl.records), seed=ctl.seed,
                           seats=list(ctl.seats))


def a_race(ctx, entries, phases=0, **plan):
    from game.presentation.menus.race import start_race

    race = start_race(ctx, race_plan(entries, **plan), intro=False)
    SceneStack().push(race)
    play_phases(race, phases)
    return race


def cup_session(ctx, entries, finished: bool):
    from game.presentation.menus.cup import CupSession, entrants_of, load_cup_choices
    from game.race.cup import RaceResult, cup_from_def

    choice = next(c for c in load_cup_choices(ctx.builtin_dir, None) if c.ok and "Starter" in c.name)
    lineup = list(eight_seats())
    cup = cup_from_def(choice.definition, choice.refs, choice.tracks, entrants_of(lineup), seed=4)
    races = len(cup.races) if finished else len(cup.races) - 1
    for k in range(races):
        places = tuple((j + k) % 8 + 1 for j in range(8))
        cup = cup.with_result(RaceResult(places, tuple(20 + p for p in places), (FINISHED,) * 8, phases=30))
    return CupSession(cup, ctx.cups_dir / cup.id, lineup, list(choice.tracks), [choice.pack] * len(cup.races))


def title(ctx, entries):
    from game.presentation.menus.title import TitleScene

    scene = TitleScene(ctx)
    cups = [SimpleNamespace(cup=SimpleNamespace(name="Starter Cup", next_index=2, races=[1, 2, 3]))] * 2
    scene.cups = cups  # two cups in progress: the longest Resume row there is
    scene._show_resume(True)
    scene._scanning = scene._scanned_at = None
    scene.update = lambda dt: None
    return scene


def title_problems(ctx, entries):
    """The title of a game that found damaged files at start-up: they are listed on it, by file and key."""
    ctx.problems += [f"{ctx.config_dir}/settings.toml: line 4: [sound] master: expected a number from 0 to 100, "
                     "got 'loud' (the default, 80, is used; the file was copied to settings.toml.broken)",
                     f"{ctx.config_dir}/best.toml: line 12: [track \"starter/oval\"] moves: not a whole number"]
    return title(ctx, entries)


def lobby(ctx, entries):
    from game.presentation.input import Confirm, MoveCursor, Select
    from game.presentation.menus.lobby import LobbyScene

    scene = LobbyScene(ctx)
    SceneStack().push(scene)
    scene.handle(Confirm("keys"))
    scene.handle(Select("kb2", 0, 0, True))
    for _ in range(3):
        scene.handle(MoveCursor("keys", 0, 1))  # keyboard 1 on the CPU row
    for _ in range(6):
        scene.handle(Confirm("keys"))  # every seat taken
    return scene


class _StillServer:
    """The phones' server as the lobby reads it, without a network (layout only)."""

    code, url, error, ready = "4271", "http://192.168.100.200:8765/", "", True

    def start(self):
        pass

    def stop(self):
        pass

    def events(self):
        return []

    def known(self, phone):
        return True

    def send(self, phone, message):
        pass  # the lobby's view for the seated phone (sent once the lobby is drawn anew, as after F11)

    def wait_ready(self, timeout=None):
        return True


def lobby_phones(ctx, entries):
    """The lobby with the Phones row on (the QR card beside the seats) and a phone seated."""
    from game.presentation.phones import PhoneLink

    ctx.phones = PhoneLink(_StillServer)
    scene = lobby(ctx, entries)
    scene.table.remove_cpu()
    scene.table.join("phone:1")
    scene.toggle_phones()
    assert ctx.phones.wait_ready()
    scene.table.rows["kb1"] = 4  # keyboard 1 on the Phones row
    return scene


def tracks(ctx, entries):
    from game.presentation.menus.tracks import TrackSelectScene

    return TrackSelectScene(ctx, eight_seats(), entries=list(entries.values()))


def rules(ctx, entries):
    from game.presentation.menus.rules_menu import RulesScene

    entry = entries["terrain/dune-rally"]
    return RulesScene(ctx, lineup=list(eight_seats()), entry=entry, laps=2)


def race(ctx, entries):
    return a_race(ctx, entries, phases=2)


def pause(ctx, entries):
    from game.presentation.menus.pause import PauseMenuScene

    scene = a_race(ctx, entries, phases=1)
    pause = PauseMenuScene(ctx, scene)
    scene.stack.push(pause)
    return pause


def unplugged(ctx, entries):
    """The pause menu standing in for a pulled gamepad: the longest name's car waits for a pad."""
    from game.presentation.menus.pause import PauseMenuScene

    scene = a_race(ctx, entries, phases=1)
    scene.seats.unplugged("pad:3")  # Esmeralda's
    scene.seats.unplugged("pad:5")  # and Gus's
    pause = PauseMenuScene(ctx, scene)
    scene.stack.push(pause)
    return pause


def controls(ctx, entries):
    from game.presentation.menus.controls import ControlsScene

    scene = a_race(ctx, entries)
    controls = ControlsScene(ctx, scene, background=False)
    scene.stack.push(controls)
    return controls


def results(ctx, entries):
    from game.presentation.menus.results import ResultsScene

    scene = a_race(ctx, entries, phases=1)
    return ResultsScene(ctx, race_plan(entries), finished_controller(scene))


def replays(ctx, entries):
    from game.presentation.menus.replays import ReplaysScene
    from game.race.replay import Replay, save_replay

    scene = a_race(ctx, entries, phases=2)
    ctl = scene.controller
    folder = ctx.replays_dir
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(3):
        replay = Replay.from_race("terrain/dune-rally", 2, ctl.states[0].rules, ctl.seed,
                                  [(s.name, "human") for s in ctl.seats], ctl.records,
                                  title=f"Dune Rally, race {k + 1}: Esmeralda, Hildegard and six more")
        save_replay(replay, folder / f"race-{k}.toml")
    (folder / "broken.toml").write_text("this is not a replay = [")
    replays = ReplaysScene(ctx)
    replays.scanning.wait(30)
    replays.update(1 / 60)
    return replays


def replay_viewer(ctx, entries):
    from game.presentation.menus.race import replay_viewer

    scene = a_race(ctx, entries, phases=3)
    ctl = scene.controller
    return replay_viewer(ctx, ctl.states, ctl.records, [s.name for s in ctl.seats], seed=ctl.seed)


def settings(ctx, entries):
    from game.presentation.menus.settings_menu import SettingsScene

    return SettingsScene(ctx)


def bindings(ctx, entries):
    from game.presentation.menus.settings_menu import BindingsScene

    return BindingsScene(ctx)


def cup_select(ctx, entries):
    from game.presentation.menus.cup import CupSelectScene, load_cup_choices

    return CupSelectScene(ctx, eight_seats(), choices=load_cup_choices(ctx.builtin_dir, None))


def cup_standings(ctx, entries):
    from game.presentation.menus.cup import StandingsScene

    scene = a_race(ctx, entries, phases=1)
    return StandingsScene(ctx, cup_session(ctx, entries, finished=False), finished_controller(scene))


def cup_podium(ctx, entries):
    from game.presentation.menus.cup import CupPodiumScene

    return CupPodiumScene(ctx, cup_session(ctx, entries, finished=True))


def cup_resume(ctx, entries):
    from game.presentation.menus.cup import ResumeCupScene
    from game.race.cup import SavedCup

    session = cup_session(ctx, entries, finished=False)
    saved = [SavedCup(Path(f"/cups/{k}/cup.toml"), session.cup, modified=1.0) for k in range(2)]
    return ResumeCupScene(ctx, saved)


def cup_seats(ctx, entries):
    """A resumed cup's seats being taken again: the two keyboards have sat down, the pads not yet."""
    from game.presentation.input import Confirm, Select
    from game.presentation.menus.cup import CupSeatsScene

    scene = CupSeatsScene(ctx, cup_session(ctx, entries, finished=False))
    SceneStack().push(scene)
    scene.handle(Confirm("keys"))
    scene.handle(Select("kb2", 0, 0, True))
    return scene


def trial_start(ctx, entries):
    from game.presentation.menus.trial import TrialStartScene, player_seat

    plan = race_plan(entries, lineup=(player_seat(ctx, "pad:1"),))
    scene = TrialStartScene(ctx, plan)
    scene.loading.wait(30)
    return scene


def trial_result(ctx, entries):
    from game.presentation.menus import trial
    from game.presentation.menus.trial import TrialResultScene, player_seat

    plan = race_plan(entries, lineup=(player_seat(ctx, "pad:1"),))
    scene = a_race(ctx, entries, phases=1, lineup=plan.lineup)
    real, trial.champion_line = trial.champion_line, lambda *a: None  # the solver is not what is tested here
    try:
        result = TrialResultScene(ctx, plan, finished_controller(scene), par=61)
        result.champion.wait(30)
    finally:
        trial.champion_line = real
    return result


def tutorial(ctx, entries):
    from game.presentation.menus.tutorial import start_tutorial

    scene = start_tutorial(ctx)
    SceneStack().push(scene)
    scene.intro_time = 99
    scene.update(0.01)
    return scene


def tutorial_card(stage: str):
    """The tutorial with the hint card of ``stage`` (each card its own screen: their texts differ)."""
    def make(ctx, entries):
        from game.presentation.menus.tutorial import lesson_of

        scene = tutorial(ctx, entries)
        lesson = lesson_of(scene)
        lesson.stage = stage
        lesson.update = lambda scene, dt: None  # the card stays while the test looks at it
        return scene
    make.__name__ = f"tutorial_{stage}"
    return make


def tutorial_stages() -> list[str]:
    from game.presentation.menus.tutorial import HINTS

    return list(HINTS)


SCREENS = {f.__name__.replace("_", "-"): f for f in (
    title, title_problems, lobby, lobby_phones, tracks, rules, race, pause, unplugged, controls, results, replays, replay_viewer, settings,
    bindings, cup_select, cup_standings, cup_podium, cup_resume, cup_seats, trial_start, trial_result,
    *[tutorial_card(stage) for stage in tutorial_stages()])}


def draw_top(scene, surface, layout: Layout) -> None:
    """The scenes under an overlay first, unrecorded; then the screen itself, recorded."""
    stack = scene.stack
    if stack is not None:
        below = stack.scenes[:stack.scenes.index(scene)]
        start = max((k for k, s in enumerate(below) if s.opaque), default=0)
        if not scene.opaque:
            for s in below[start:]:
                s.draw(surface)
    layout.clear()
    scene.draw(surface)


def check_screen(name, scene, surface, layout, size, tmp_path) -> list[str]:
    found = [f"{name} {size[0]}x{size[1]}: {p}" for p in problems(layout, size)]
    menu = getattr(scene, "menu", None)
    if menu is not None and menu.items:
        hint = [p.rect for p in layout.panels if p.rect.bottom >= size[1] - 2 and p.rect.width < size[0]]
        keep = menu.index
        for k in range(len(menu.items)):
            menu.index = k
            draw_top(scene, surface, layout)
            row = menu.rects[k] if k < len(menu.rects) else pygame.Rect(0, 0, 0, 0)
            if not row.height or not pygame.Rect((0, 0), size).contains(row) or row.collidelist(hint) >= 0:
                found.append(f"{name} {size[0]}x{size[1]}: the menu row {menu.items[k].label!r} cannot be "
                             f"reached (drawn at {row})")
            found += [f"{name} {size[0]}x{size[1]}, row {menu.items[k].label!r} highlighted: {p}"
                      for p in problems(layout, size)]
            inside = " ".join(t.words for t in layout.texts if row.contains(t.rect))  # (a label on two lines too)
            if not any(t.words == menu.items[k].label and row.contains(t.rect) for t in layout.texts) and \
                    menu.items[k].label not in inside:
                found.append(f"{name} {size[0]}x{size[1]}: the menu row {menu.items[k].label!r} is not drawn "
                             f"whole in its row {row}")
        menu.index = keep
    if found:
        pygame.image.save(surface, str(tmp_path / f"{name}-{size[1]}.png"))
    return list(dict.fromkeys(found))


def drawn_screen(name: str, size, scale: float, home, entries, tmp_path):
    """Screen ``name`` made and drawn once at ``size`` and text ``scale``; returns (scene, surface, layout)."""
    layout = Layout()
    ctx = make_ctx(home, size, scale, layout, config=tmp_path / "config")
    scene = SCREENS[name](ctx, entries)
    if scene.stack is None:
        SceneStack().push(scene)
    scene.resize(size)
    surface = pygame.Surface(size)
    draw_top(scene, surface, layout)
    return scene, surface, layout


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[1]}p")
@pytest.mark.parametrize("name", list(SCREENS))
def test_every_screen_is_whole_at_every_size(name, size, scale, display, home, entries, tmp_path):
    scene, surface, layout = drawn_screen(name, size, scale, home, entries, tmp_path)
    assert layout.texts, f"{name} drew no text"
    found = check_screen(name, scene, surface, layout, size, tmp_path)
    try:
        assert not found, "\n".join(found[:20]) + (f"\n... and {len(found) - 20} more" if len(found) > 20 else "")
    finally:
        for s in scene.stack.scenes if scene.stack is not None else ():
            if hasattr(s, "controller"):
                s.exit()


@pytest.mark.parametrize("name", ["title", "lobby", "settings", "bindings"])
def test_after_f11_both_ways_a_screen_is_laid_out_for_the_new_window(name, display, home, entries, tmp_path):
    """F11: the very next frame, and every one after, has the font sizes of the new window (the title
    keeps a composed layer: it was kept with the 720-line sizes for as long as the game ran)."""
    from game.presentation.menus import prepare_game
    from game.presentation.menus.title import TitleScene

    app, ctx = prepare_game(tmp_path / "config", home / "packs", home / "builtin", None, headless=True,
                            size=(1280, 720))
    layout = Layout()
    ctx.text = TextCache(recorder=layout)
    ctx.settings.player_names = list(NAMES)
    if name != "title":
        app.push(SCREENS[name](ctx, entries))
    f11 = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F11, mod=0, unicode="", scancode=pygame.KSCAN_F11)
    app.step(1 / 60, events=[])
    sizes = [app.size]
    for _ in range(2):  # into fullscreen (the dummy desktop's size), then back to the window
        layout.clear()
        app.step(1 / 60, events=[f11])
        sizes.append(app.size)
        toggled = [(t.words, tuple(t.rect)) for t in layout.texts]
        layout.clear()
        app.step(1 / 60, events=[])
        later = [(t.words, tuple(t.rect)) for t in layout.texts]
        fresh_layout = Layout()
        fresh = make_ctx(home, app.size, 1.0, fresh_layout, config=tmp_path / "config")
        fresh.settings = ctx.settings
        scene = TitleScene(fresh) if name == "title" else SCREENS[name](fresh, entries)  # (no cup in progress)
        if scene.stack is None:
            SceneStack().push(scene)
        surface = pygame.Surface(app.size)
        scene.draw(surface)
        expected = [(t.words, tuple(t.rect)) for t in fresh_layout.texts]
        assert toggled == expected, f"after F11 at {app.size} the {name} screen is not laid out for it"
        assert set(later) <= set(expected) and later, "the next frame changed the layout again"
        assert not problems(layout, app.size)
        pygame.image.save(app.screen, str(tmp_path / f"{name}-f11-{app.size[1]}.png"))
    assert sizes[0] == sizes[2] == (1280, 720) and sizes[1] != sizes[0]
    ctx.audio.close()


#: The screens the exact test above compares text for text with a fresh screen: the others draw
#: what changes by itself (a par worked out, a race under way, a clock), so below they are held to
#: a whole layout and the new window's text sizes.
F11_EXACT = ("title", "lobby", "settings", "bindings")
#: The controls page is composed as one picture for its window size (on a worker in the game, so
#: its texts are not recorded there): the test above checks it at every size.
F11_PICTURE = ("controls",)


@pytest.mark.parametrize("name", [n for n in SCREENS if n not in F11_EXACT + F11_PICTURE])
def test_after_f11_both_ways_every_screen_is_whole_and_sized_for_the_new_window(name, display, home, entries,
                                                                               tmp_path):
    """F11 into fullscreen and back on every other screen: the very next frame is whole at the new
    size (nothing off the screen or its card, no overlaps, no clipped text), and its texts come in
    the heights a screen made for that window draws."""
    from game.presentation.menus import prepare_game

    app, ctx = prepare_game(tmp_path / "config", home / "packs", home / "builtin", None, headless=True,
                            size=(1280, 720))
    layout = Layout()
    ctx.text = TextCache(recorder=layout)
    ctx.settings.player_names = list(NAMES)
    screen = SCREENS[name](ctx, entries)
    app.push(screen.stack.scenes[0] if screen.stack is not None else screen)
    for above in screen.stack.scenes[1:] if screen.stack is not None else ():
        app.push(above)  # an overlay with the screens it lies over
    f11 = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F11, mod=0, unicode="", scancode=pygame.KSCAN_F11)
    app.step(1 / 60, events=[])
    sizes = [app.size]
    try:
        for _ in range(2):  # into fullscreen (the dummy desktop's size), then back to the window
            app.step(1 / 60, events=[f11])
            sizes.append(app.size)
            for _ in range(120):  # the screen alone, as the layout test draws it (a page made on a worker: once made)
                draw_top(screen, pygame.Surface(app.size), layout)
                if layout.texts:
                    break
                time.sleep(0.05)
                app.step(1 / 60, events=[])
            assert layout.texts, f"{name} drew no text after F11"
            found = problems(layout, app.size)
            heights = {t.words: t.rect.height for t in layout.texts}
            fresh_layout = Layout()
            fresh = make_ctx(home, app.size, 1.0, fresh_layout, config=tmp_path / "fresh")
            fresh.settings = ctx.settings
            scene = SCREENS[name](fresh, entries)
            if scene.stack is None:
                SceneStack().push(scene)
            scene.resize(app.size)
            draw_top(scene, pygame.Surface(app.size), fresh_layout)
            expected = {t.words: t.rect.height for t in fresh_layout.texts}
            for s in scene.stack.scenes:
                if hasattr(s, "controller"):
                    s.exit()
            pygame.image.save(app.screen, str(tmp_path / f"{name}-f11-{app.size[1]}.png"))
            assert not found, f"after F11 at {app.size} on {name}: " + "\n".join(found[:10])
            # (texts both draw; one animated text, the countdown's "Go!" growing, may differ between the two)
            resized = {words: (h, expected[words]) for words, h in heights.items()
                       if words in expected and abs(h - expected[words]) > 1}
            assert len(resized) <= 1, (
                f"after F11 at {app.size} {name} draws texts at other heights than a fresh one: {resized}")
        assert sizes[0] == sizes[2] == (1280, 720) and sizes[1] != sizes[0]
    finally:
        for s in list(app.stack.scenes) if hasattr(app, "stack") else ():
            if hasattr(s, "controller"):
                s.exit()
        ctx.audio.close()


@pytest.mark.parametrize("size", [(960, 540), (1280, 720)], ids=lambda s: f"{s[1]}p")
def test_settings_keep_back_on_the_screen_whatever_row_is_highlighted(display, home, size):
    """Largest text: at 720 lines every row fits; in a smaller window the list scrolls, Back stays."""
    from game.presentation.menus.settings_menu import SettingsScene

    layout = Layout()
    ctx = make_ctx(home, size, 1.5, layout)
    scene = SettingsScene(ctx)
    SceneStack().push(scene)
    surface = pygame.Surface(size)
    for k in range(len(scene.menu.items)):
        scene.menu.index = k
        draw_top(scene, surface, layout)
        back = scene.menu.rects[-1]
        assert back.height and any(t.words == "Back" and back.contains(t.rect) for t in layout.texts), \
            f"Back scrolled away with row {scene.menu.items[k].label!r} highlighted"


@pytest.mark.parametrize("scale", [1.0, 1.5])
def test_nothing_of_the_race_shows_through_the_pause_menus_hint(scale, display, home, entries, tmp_path):
    """The race's prompt sits where the pause menu's hint goes: under the translucent veil it read
    as one jumbled line with the hint ("up/down: choose · your target · Fox"). The foot of the
    pause menu is the same whatever the race below it draws."""
    size = (1920, 1080)
    ctx = make_ctx(home, size, scale, Layout(), config=tmp_path / "config")
    menu = pause(ctx, entries)
    race = menu.stack.scenes[0]
    feet = []
    try:
        for below in (race.draw, lambda surface: surface.fill((20, 20, 20))):
            surface = pygame.Surface(size)
            below(surface)
            menu.draw(surface)
            strip = ctx.font(22) * 2
            feet.append(pygame.image.tobytes(surface.subsurface((0, size[1] - strip, size[0], strip)), "RGB"))
    finally:
        race.exit()
    assert feet[0] == feet[1], "the race below shows through at the foot of the pause menu"


#: Squarer windows: a 4:3 or 5:4 monitor, and the dummy driver's desktop that F11 opens in tests.
#: Text sizes follow the window's height, so these are the narrowest a screen gets for its text.
SQUARE_SIZES = [(1024, 768), (1280, 1024)]
#: The screens held whole there so far (the others are listed in docs/architecture.md).
SQUARE_SCREENS = ["title", "title-problems", "controls", "lobby", "lobby-phones", "cup-select", "trial-start", "rules",
                  "cup-podium", "cup-seats", "replays", "replay-viewer"]


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("size", SQUARE_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", SQUARE_SCREENS)
def test_screens_are_whole_in_a_4_3_and_a_5_4_window(name, size, scale, display, home, entries, tmp_path):
    """At the largest text in 4:3 the title's join card ran off the screen ("aim with the d-pad or
    the stick, A to") and its menu cut "Resume cup" to "Resume..."; at every text size the controls
    page's "Enter, keypad Enter, Space" ran into the rules card; with the phones' card the lobby's seat
    cards cut names ("Compas") and ran "handicap" into "assist"; the cup's programme and the trial's medal
    lines ran off the screen from text size 1.25. The same checks as above."""
    scene, surface, layout = drawn_screen(name, size, scale, home, entries, tmp_path)
    found = check_screen(name, scene, surface, layout, size, tmp_path)
    try:
        assert not found, "\n".join(found[:20])
    finally:
        for s in scene.stack.scenes if scene.stack is not None else ():
            if hasattr(s, "controller"):
                s.exit()


@pytest.mark.parametrize("size", SQUARE_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_long_replay_title_takes_two_lines_of_its_row_and_a_title_cut_even_then_is_read_in_the_help_line(
        size, display, home, entries, tmp_path):
    """At the largest text in a squarer window a saved race's title ("Dune Rally, race 3: Esmeralda,
    Hildegard and six more") did not fit its row and was cut ("... and six..."), the full title
    nowhere. It now takes two lines of its row; a title too long even for two is cut at a word and
    the help line says it whole when its row is highlighted. The highlighted row's date keeps its
    "<  >" (it was cut to "19:06..." with them)."""
    scene, surface, layout = drawn_screen("replays", size, 1.5, home, entries, tmp_path)
    long_title = "Dune Rally, race 9: " + ", ".join(NAMES * 3) + " and the whole street"
    scene.files[1].replay = replace(scene.files[1].replay, title=long_title)
    scene._listed(scene.files)
    two = 0
    for k, f in enumerate(scene.files):
        if f.replay is None:
            continue
        scene.menu.index = k
        draw_top(scene, surface, layout)
        row = scene.menu.rects[k]
        in_row = [t for t in layout.texts if row.contains(t.rect)]
        words = [t.words for t in layout.texts]
        assert any(w.startswith("<") and w.endswith(">") for w in words), f"the date lost its arrows: {words}"
        if f.label == long_title:
            assert long_title not in " ".join(t.words for t in in_row)
            assert long_title in " ".join(words), "a title cut in its row is said whole in the help line"
        elif f.label not in [t.words for t in in_row]:
            two += 1
            assert f.label in " ".join(t.words for t in in_row), f"{f.label!r} not whole in its row"
    assert two, "no title took two lines at this size: the test shows nothing"
