"""The one write rule, writer by writer (issue 27): nothing of the user's is lost.

Every file the game or a command writes (render -o, cup --out, import -o, sim --replay-out,
the game's replays and cup saves, settings, best results, the editor's saves) goes through
``game.files.write_new_or_own``. For each writer: a user's file is left alone (or, with
``--force``, kept as ``NAME.old``); the file the command reads is never replaced; the
game's own file is replaced; a replaced file keeps its mode; a name with an escape sequence
is never made; a temporary file left by a killed save is removed on the next start.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path

import pytest

from game.atomic import STALE_SECONDS, clean_stray_temps, temp_name, write_text_atomic
from game.cli import main
from game.files import WouldReplace, may_replace, shown, write_new_or_own
from game.race.cup import CUP_FILE, CupError, load_cup, save_cup
from game.settings import (BEST_FILE, SETTINGS_FILE, BestResults, Settings, load_best, load_settings, save_best,
                           save_settings)

HERE = Path(__file__).resolve().parent
MINICUP = HERE / "data" / "packs" / "minicup.toml"
RING = "XXXXXXXXX\nXOOOOOOOX\nXOXXXXXOX\nXSXXXXXFX\nXOXXXXXOX\nXOOOOOOOX\nXXXXXXXXX\n"
MINE = "my own notes, keep them\n"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def pack(tmp_path: Path) -> Path:
    path = tmp_path / "mini.toml"
    path.write_bytes(MINICUP.read_bytes())
    return path


# -- render -o ---------------------------------------------------------------------------------
def render(tmp_path, out, *extra):
    return main(["render", f"{pack(tmp_path)}#dash", "-o", str(out), "--scale", "4", *extra])


def test_render_never_draws_over_the_pack_it_reads_even_with_force(tmp_path, capsys):
    source = pack(tmp_path)
    before = source.read_bytes()
    for extra in ([], ["--force"]):
        assert main(["render", f"{source}#dash", "-o", str(source), *extra]) == 1
        assert "is the file this command reads" in capsys.readouterr().err
        assert source.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mini.toml"]


def test_render_leaves_a_users_picture_alone_and_keeps_a_copy_with_force(tmp_path, capsys):
    out = tmp_path / "holiday.png"
    out.write_text(MINE)
    assert render(tmp_path, out) == 1
    assert "holiday.png already exists and was not written by Racetrack; use --force" in capsys.readouterr().err
    assert out.read_text() == MINE
    assert render(tmp_path, out, "--force") == 0
    assert (tmp_path / "holiday.png.old").read_text() == MINE
    assert out.read_bytes().startswith(b"\x89PNG")


def test_render_replaces_its_own_picture_and_keeps_its_mode(tmp_path):
    out = tmp_path / "track.png"
    assert render(tmp_path, out) == 0
    os.chmod(out, 0o640)
    assert render(tmp_path, out) == 0  # its own picture: replaced without --force, no copy
    assert mode(out) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mini.toml", "track.png"]
    import pygame

    assert pygame.image.load(str(out)).get_size()[0] > 0  # the added text chunk keeps it a valid PNG


def test_render_never_makes_a_file_named_with_an_escape_sequence(tmp_path, capsys):
    assert render(tmp_path, tmp_path / "\x1b[2Jred.png") == 1
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b[2Jred.png" in err and "control character" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mini.toml"]


def test_render_into_a_file_where_a_folder_should_be_is_a_located_message(tmp_path, capsys):
    assert render(tmp_path, tmp_path / "mini.toml" / "x.png") == 1
    err = capsys.readouterr().err
    assert "mini.toml/x.png: cannot write" in err and "Traceback" not in err


# -- cup --out -----------------------------------------------------------------------------------
def cup(tmp_path, out, *extra):
    return main(["cup", "--pack", str(pack(tmp_path)), "--cup", "sprints", "--cars", "cpu:rookie",
                 "--out", str(out), *extra])


def test_cup_out_leaves_a_users_cup_file_alone_before_any_race(tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / CUP_FILE).write_text(MINE)
    assert cup(tmp_path, out) == 1
    assert "cup.toml already exists and was not written by Racetrack" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == [CUP_FILE]  # no race was played, no replay written
    assert cup(tmp_path, out, "--force") == 0
    assert (out / "cup.toml.old").read_text() == MINE and load_cup(out / CUP_FILE).finished
    capsys.readouterr()
    assert cup(tmp_path, out) == 0  # the cup's own files now: replaced without --force
    assert sorted(p.name for p in out.iterdir()) == [CUP_FILE, "cup.toml.old", "race-1.toml", "race-2.toml",
                                                     "race-3.toml"]


def test_cup_out_never_writes_over_the_pack_it_reads(tmp_path, capsys):
    source = tmp_path / CUP_FILE  # a pack that happens to be called cup.toml, in the --out folder
    source.write_bytes(MINICUP.read_bytes())
    argv = ["cup", "--pack", str(source), "--cup", "sprints", "--cars", "cpu:rookie", "--out", str(tmp_path)]
    assert main(argv + ["--force"]) == 1
    assert "is the file this command reads" in capsys.readouterr().err
    assert source.read_bytes() == MINICUP.read_bytes()


@pytest.mark.parametrize("where, words", [("file", "is a file, not a folder"),
                                          ("under a file", "cannot make the folder")])
def test_cup_out_naming_a_file_or_an_unmakeable_folder_is_a_located_message(tmp_path, capsys, where, words):
    blocker = tmp_path / "notes.txt"
    blocker.write_text(MINE)
    out = blocker if where == "file" else blocker / "cups"
    assert cup(tmp_path, out) == 1
    err = capsys.readouterr().err
    assert words in err and "notes.txt" in err and "unexpected" not in err
    assert blocker.read_text() == MINE


# -- import -o and sim --replay-out ------------------------------------------------------------------
def test_import_keeps_a_copy_of_a_users_file_it_replaces_with_force(tmp_path, capsys):
    source = tmp_path / "ring.map"
    source.write_text(RING)
    out = tmp_path / "ring.toml"
    out.write_text(MINE)
    os.chmod(out, 0o604)
    assert main(["import", str(source), "-o", str(out), "--no-par"]) == 1
    assert out.read_text() == MINE
    assert main(["import", str(source), "-o", str(out), "--no-par", "--force"]) == 0
    assert (tmp_path / "ring.toml.old").read_text() == MINE
    assert mode(out) == 0o604  # the file's mode is kept, not changed to 0600
    assert main(["import", str(source), "-o", str(source), "--no-par", "--force"]) == 1
    assert source.read_text() == RING


def test_sim_refuses_a_users_file_before_the_race_and_keeps_a_copy_with_force(tmp_path, capsys):
    out = tmp_path / "race.toml"
    out.write_text(MINE)
    argv = ["sim", "--track", f"{pack(tmp_path)}#dash", "--cars", "cpu:rookie", "--replay-out", str(out)]
    assert main(argv) == 1
    assert "not written by Racetrack" in capsys.readouterr().err and out.read_text() == MINE
    assert main(argv + ["--force"]) == 0
    assert (tmp_path / "race.toml.old").read_text() == MINE
    assert main(["sim", "--track", f"{tmp_path / 'mini.toml'}#dash", "--cars", "cpu:rookie", "--replay-out",
                 str(tmp_path / "mini.toml"), "--force"]) == 1  # the pack it races on
    assert (tmp_path / "mini.toml").read_bytes() == MINICUP.read_bytes()


def test_a_damaged_replay_of_the_games_is_kept_aside_before_it_is_replaced(tmp_path, capsys):
    out = tmp_path / "race.toml"
    argv = ["sim", "--track", f"{pack(tmp_path)}#dash", "--cars", "cpu:rookie", "--replay-out", str(out)]
    assert main(argv) == 0
    damaged = out.read_text().replace("[phases]", "[phases\n")
    out.write_text(damaged)
    assert main(argv) == 0
    assert (tmp_path / "race.toml.broken").read_text() == damaged


# -- the game's own files: cup saves, settings, best results ------------------------------------------
def test_the_games_cup_save_keeps_a_file_it_did_not_write_or_cannot_read(tmp_path):
    from tests.test_cups import cup as a_cup

    path = tmp_path / CUP_FILE
    path.write_text(MINE)
    assert save_cup(a_cup(), path).name == "cup.toml.old"
    assert (tmp_path / "cup.toml.old").read_text() == MINE
    damaged = path.read_text().replace("seed =", "seed = [")
    path.write_text(damaged)  # the game's first line, but no longer a cup
    assert save_cup(a_cup(), path).name == "cup.toml.old.2"
    assert (tmp_path / "cup.toml.old.2").read_text() == damaged
    assert save_cup(a_cup(), path) is None  # its own, readable file: no copy
    with pytest.raises(CupError, match="not written by Racetrack"):
        path.write_text(MINE)
        save_cup(a_cup(), path, keep_foreign=False)


HAND_WRITTEN = """# my settings, tuned for the projector
[sound]
master = 20  # the neighbours

[display]
fullscreen = true
"""


def test_a_valid_hand_written_settings_file_is_kept_aside_before_the_first_save(tmp_path):
    path = tmp_path / SETTINGS_FILE
    path.write_text(HAND_WRITTEN)
    os.chmod(path, 0o644)
    settings, problems = load_settings(tmp_path)
    assert problems == [] and settings.master_volume == 20 and settings.fullscreen
    save_settings(settings, tmp_path)
    assert (tmp_path / "settings.toml.old").read_text() == HAND_WRITTEN  # comments and all
    assert mode(path) == 0o644
    again, _ = load_settings(tmp_path)
    assert again == settings
    save_settings(again, tmp_path)  # the game's own file now: no second copy
    assert sorted(p.name for p in tmp_path.iterdir()) == [SETTINGS_FILE, "settings.toml.old"]


def test_a_settings_file_with_the_marker_but_edited_by_hand_is_recognised_by_content(tmp_path):
    save_settings(Settings(), tmp_path)
    path = tmp_path / SETTINGS_FILE
    edited = path.read_text().replace("[sound]", "# louder on Fridays\n[sound]")
    path.write_text(edited)
    save_settings(Settings(master_volume=5), tmp_path)
    assert (tmp_path / "settings.toml.old").read_text() == edited


def test_best_results_written_by_hand_are_kept_aside_before_the_game_replaces_them(tmp_path):
    path = tmp_path / BEST_FILE
    text = '# who is fastest at home\n[track."starter/bean x1"]\nmoves = 30\nname = "Ada"\n'
    path.write_text(text)
    best, problems = load_best(tmp_path)
    assert problems == [] and best.get("starter/bean", 1).moves == 30
    best.record("starter/bean", 1, 25, "Bo")
    save_best(best, tmp_path)
    assert (tmp_path / "best.toml.old").read_text() == text
    save_best(best, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [BEST_FILE, "best.toml.old"]


def test_settings_saved_through_a_symlink_keep_the_link(tmp_path):
    real = tmp_path / "dotfiles" / "racetrack.toml"
    real.parent.mkdir()
    save_settings(Settings(), real.parent)
    (real.parent / SETTINGS_FILE).rename(real)
    config = tmp_path / "config"
    config.mkdir()
    (config / SETTINGS_FILE).symlink_to(real)
    save_settings(Settings(master_volume=7), config)
    assert (config / SETTINGS_FILE).is_symlink() and load_settings(config)[0].master_volume == 7


# -- the editor ----------------------------------------------------------------------------------------
def test_the_editor_keeps_a_hand_written_pack_and_its_mode(tmp_path):
    from tools.editor.packio import open_track, save_track

    path = pack(tmp_path)
    os.chmod(path, 0o664)
    opened = open_track(f"{path}#dash", HERE.parent / "tracks")
    done = save_track(opened.doc, path)
    assert "kept as mini.toml.before-edit" in done
    assert (tmp_path / "mini.toml.before-edit").read_bytes() == MINICUP.read_bytes()
    assert mode(path) == 0o664


# -- temporary files and the rule itself --------------------------------------------------------------------
def test_temporary_files_of_a_killed_save_are_removed_on_the_next_start(tmp_path):
    from game.commands.play import clean_user_folders

    config, data = tmp_path / "config", tmp_path / "data"
    cups = data / "cups" / "sprints-1"
    for folder in (config, config / "replays", data / "packs", cups):
        folder.mkdir(parents=True)
    dead = 2 ** 22 + 12345  # beyond the kernel's usual pid range: no such process
    strays = [config / f".settings.toml.racetrack-{dead}-0123abcd.tmp",
              config / "replays" / f".race.toml.racetrack-{dead}-89abcdef.tmp",
              cups / f".cup.toml.racetrack-{dead}-00000000.tmp"]
    live = temp_name(data / "packs" / "mine.toml")  # a save under way in this very process
    for path in strays + [live]:
        path.write_text("half a file")
    users = config / ".settings.toml.tmp"  # not a name the game makes: never touched
    users.write_text(MINE)
    removed = clean_user_folders(config, data)
    assert sorted(removed) == sorted(strays)
    assert live.exists() and users.exists()
    old = time.time() + STALE_SECONDS + 60
    assert clean_stray_temps([data / "packs"], now=old) == [live]  # a day old: its pid may be another's now


def test_the_next_save_in_a_folder_removes_a_stray_temporary_file_there(tmp_path):
    stray = tmp_path / f".race.toml.racetrack-{2 ** 22 + 12345}-0123abcd.tmp"  # a killed sim --replay-out
    stray.write_text("half a replay")
    write_new_or_own(tmp_path / "other.toml", "# Racetrack replay\n", marker="# Racetrack replay")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.toml"]


def test_an_atomic_write_that_fails_leaves_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "x.toml"

    def refuse(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError):
        write_text_atomic(path, "text")
    assert list(tmp_path.iterdir()) == []


def test_a_new_file_gets_the_umask_mode_not_0600(tmp_path):
    old = os.umask(0o022)
    try:
        write_text_atomic(tmp_path / "new.toml", "x")
    finally:
        os.umask(old)
    assert mode(tmp_path / "new.toml") == 0o644


def test_force_keeps_numbered_copies_and_never_replaces_an_earlier_one(tmp_path):
    path = tmp_path / "out.png"
    for n in range(3):
        path.write_text(f"user {n}\n")
        kept = write_new_or_own(path, b"game", force=True)
        assert kept.read_text() == f"user {n}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.png", "out.png.old", "out.png.old.2",
                                                          "out.png.old.3"]


def test_the_input_check_sees_the_same_file_under_another_name(tmp_path):
    source = tmp_path / "pack.toml"
    source.write_text(MINE)
    (tmp_path / "link.toml").symlink_to(source)
    os.link(source, tmp_path / "hard.toml")
    for other in ("link.toml", "hard.toml", "./pack.toml"):
        assert "is the file this command reads" in may_replace(tmp_path / other, force=True, inputs=[source])
    with pytest.raises(WouldReplace):
        write_new_or_own(tmp_path / "hard.toml", "x", force=True, inputs=[source])
    assert source.read_text() == MINE


def test_shown_escapes_control_characters_and_undecodable_bytes():
    assert shown("a\x1b[31mb\x9bc") == "a\\x1b[31mb\\x9bc"
    assert shown(os.fsdecode(b"p\xffck.toml")) == "p\\xffck.toml"
    assert shown("Bäume 🏎.png") == "Bäume 🏎.png"
