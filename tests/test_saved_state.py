"""Saved state that no longer fits never stops the game (issue 27).

A cup saved by this game and then outgrown (its pack edited: a track holds fewer cars now, a
track is gone; a driver written by a newer version) is reported on the Resume screen, with a
way on: play the rest with what still fits (a copy of the cup file as it was kept), or put it
aside after a question whose first answer is No.
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

from game.presentation.app import init_pygame
from game.presentation.input import Confirm, MoveCursor, Select
from game.presentation.menus import build_context, build_title_scene
from game.presentation.menus.cup import CupSeatsScene, ResumeCupScene
from game.presentation.race_scene import RaceScene
from game.presentation.scene import SceneStack
from game.race.cup import CUP_FILE, Entrant, cup_folder, cup_from_def, cup_refs, fit_cup, load_cup, save_cup
from game.tracks import load_pack

MINICUP = Path(__file__).parent / "data" / "packs" / "minicup.toml"
SIZE = (960, 540)


@pytest.fixture
def ctx(tmp_path):
    init_pygame(headless=True)
    pygame.display.set_mode(SIZE)
    builtin = tmp_path / "builtin"
    builtin.mkdir()
    shutil.copy(MINICUP, builtin / "minicup.toml")
    context = build_context(tmp_path / "config", tmp_path / "packs", builtin, seed=3)
    context.size = SIZE
    return context


def saved_cup(ctx, drivers=("human", "cpu:godlike", "cpu:rookie")):
    """The Sprint Cup of the mini pack, saved as the game saves it, before its first race."""
    result = load_pack(ctx.builtin_dir / "minicup.toml")
    definition = next(c for c in result.pack.cups if c.id == "sprints")
    tracks = [result.pack.track(r.track) for r in definition.races]
    entrants = [Entrant(name, kind, k, k) for k, (name, kind) in enumerate(zip(("Ada", "Zed", "Rookie"), drivers))]
    cup = cup_from_def(definition, cup_refs("minicup", None, definition, True), tracks, entrants, seed=7)
    path = cup_folder(ctx.cups_dir, cup) / CUP_FILE
    save_cup(cup, path)
    return path


def edit_pack(ctx, old, new):
    pack = ctx.builtin_dir / "minicup.toml"
    text = pack.read_text()
    assert old in text
    pack.write_text(text.replace(old, new, 1))


def opened(ctx, tmp_path, name):
    """The Resume screen over the title, its first cup chosen and its tracks loaded."""
    stack = SceneStack()
    stack.push(build_title_scene(ctx))
    ctx.screens.push(stack, "cup-resume", ctx)
    scene = stack.top
    assert isinstance(scene, ResumeCupScene) and scene.saved
    scene.handle(Confirm("keys"))
    end = time.monotonic() + 60
    while scene.loading is not None:
        assert time.monotonic() < end, "the tracks never loaded"
        time.sleep(0.01)
        scene.update(1 / 60)
    surface = pygame.display.get_surface()
    stack.draw(surface)
    pygame.image.save(surface, str(tmp_path / f"{name}.png"))
    return stack, scene


def test_a_cup_whose_pack_shrank_and_whose_driver_is_unknown_plays_on_with_what_fits(ctx, tmp_path):
    path = saved_cup(ctx)
    before = path.read_text()
    edit_pack(ctx, 'id = "step"\nname = "Step"\ncars = 4', 'id = "step"\nname = "Step"\ncars = 2')
    stack, scene = opened(ctx, tmp_path, "resume_unfit")
    assert scene.unfit is not None, scene.message
    problems = "\n".join(scene.unfit.fit.problems)
    assert "Zed" in problems and "cpu:godlike" in problems and "cpu:pro" in problems
    assert "race 2 (Step)" in problems and "2 cars" in problems
    assert scene.unfit.menu.current.label == "Play the rest with what fits"
    scene.handle(Confirm("keys"))
    seats = stack.top
    assert isinstance(seats, CupSeatsScene)
    fitted = load_cup(path)
    assert [r.name for r in fitted.races] == ["Dash", "Lane"]
    assert [e.driver for e in fitted.entrants] == ["human", "cpu:pro", "cpu:rookie"]
    copies = list(path.parent.glob(CUP_FILE + ".before-resume*"))
    assert [c.read_text() for c in copies] == [before]  # the cup as it was, kept
    seats.handle(Confirm("keys"))  # Ada takes her seat
    seats.handle(Confirm("keys"))  # everyone is seated: race
    race = stack.top
    assert isinstance(race, RaceScene)  # the race starts: no traceback in the frame loop
    race.update(1 / 60)
    race.draw(pygame.display.get_surface())
    race.controller.close() if hasattr(race.controller, "close") else None


def test_a_cup_with_no_race_left_to_race_is_put_aside_only_after_a_no_first_question(ctx, tmp_path):
    path = saved_cup(ctx, drivers=("human", "cpu:rookie", "cpu:pro"))
    for track in ("dash", "step", "lane"):
        edit_pack(ctx, f'id = "{track}"\nname = "{track.title()}"\ncars = 4',
                  f'id = "{track}-gone"\nname = "{track.title()}"\ncars = 4')
    edit_pack(ctx, '[[cup]]\nid = "sprints"', '[[cup]]\nid = "sprints-old"')
    stack, scene = opened(ctx, tmp_path, "resume_gone")
    assert scene.unfit is not None and not scene.unfit.fit.playable
    assert "no race of the cup is left" in scene.unfit.fit.problems[-1]
    labels = [item.label for item in scene.unfit.menu.items]
    assert labels == ["Put the cup aside", "Back"]
    scene.handle(Confirm("keys"))  # put aside: asks first
    assert scene.unfit.asking and scene.unfit.confirm.current.label.startswith("No")
    scene.handle(Confirm("keys"))  # the highlighted answer is No
    assert path.exists() and scene.unfit is not None and not scene.unfit.asking
    scene.handle(Confirm("keys"))
    scene.handle(MoveCursor("keys", 0, 1))
    scene.handle(Confirm("keys"))  # Yes
    assert not path.exists() and path.with_name(CUP_FILE + ".put-aside").exists()


def test_fit_cup_keeps_a_cup_that_fits_as_it_is(ctx):
    path = saved_cup(ctx, drivers=("human", "cpu:rookie", "cpu:pro"))
    cup = load_cup(path)
    result = load_pack(ctx.builtin_dir / "minicup.toml")
    tracks = [result.pack.track(r.track.partition("/")[2]) for r in cup.races]
    fit = fit_cup(cup, tracks)
    assert fit.cup == cup and not fit.problems and fit.playable and fit.kept == (0, 1, 2)


def test_a_cup_file_that_cannot_be_read_is_listed_with_why_and_can_be_put_aside(ctx, tmp_path):
    path = saved_cup(ctx, drivers=("human", "cpu:rookie", "cpu:pro"))
    path.write_text(path.read_text().replace('name = "Zed"', 'name = "Z\\u0000ed"'))
    stack = SceneStack()
    stack.push(build_title_scene(ctx))
    ctx.screens.push(stack, "cup-resume", ctx)
    scene = stack.top
    assert scene.menu.current.label.endswith(": cannot be read")
    assert "entrant[2].name" in scene.menu.current.help_text() and "U+0000" in scene.menu.current.help_text()
    scene.handle(Confirm("keys"))
    assert scene.unfit is not None and [i.label for i in scene.unfit.menu.items] == ["Put the cup aside", "Back"]
    stack.draw(pygame.display.get_surface())
    pygame.image.save(pygame.display.get_surface(), str(tmp_path / "resume_unreadable.png"))
    scene.handle(Confirm("keys"))
    scene.handle(MoveCursor("keys", 0, 1))
    scene.handle(Confirm("keys"))  # Yes
    assert not path.exists() and path.with_name(CUP_FILE + ".put-aside").exists()
