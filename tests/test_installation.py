"""What the install must hold: damaged or missing built-in packs and sounds are named by file."""

from __future__ import annotations

import shutil

from game import installation, paths
from game.cli import main
from game.tracks import load_packs


def test_every_sound_the_game_plays_is_expected_by_the_install_check():
    from game.presentation.audio import CHANNELS

    assert set(CHANNELS) == set(installation.SOUND_NAMES)


def test_the_checkout_has_every_sound_and_they_are_readable():
    assert installation.sound_problems() == []


def test_a_missing_and_a_damaged_sound_are_each_named_by_file(tmp_path):
    folder = tmp_path / "sounds"
    shutil.copytree(paths.sounds_dir(), folder)
    (folder / "tick.wav").unlink()
    (folder / "crash.wav").write_bytes(b"RIFF\x10\x00\x00\x00WAVE")
    problems = installation.sound_problems(folder)
    assert any(p.startswith(f"{folder / 'tick.wav'}: missing") for p in problems)
    assert any(p.startswith(f"{folder / 'crash.wav'}: damaged") for p in problems)
    assert len(problems) == 2


def test_the_music_loop_is_checked_and_a_damaged_one_is_named(tmp_path):
    assert installation.music_problems() == []
    copy = tmp_path / "loop.wav"
    copy.write_bytes(paths.music_file().read_bytes()[:60] + b"\x00" * 30)
    assert installation.music_problems(copy) == []  # the header is sound; the mixer says the rest
    copy.write_bytes(b"OggS not a wav")
    assert installation.music_problems(copy)[0].startswith(f"{copy}: damaged")
    assert installation.music_problems(tmp_path / "gone.wav")[0].startswith(f"{tmp_path / 'gone.wav'}: missing")


def test_variants_count_for_their_sound(tmp_path):
    folder = tmp_path / "sounds"
    shutil.copytree(paths.sounds_dir(), folder)
    (folder / "scratch1.wav").unlink()  # scratch2 and scratch3 still play
    assert installation.sound_problems(folder) == []


def test_a_damaged_built_in_pack_is_named_by_file_and_the_others_still_load(tmp_path):
    folder = tmp_path / "tracks"
    folder.mkdir()
    shutil.copy(paths.builtin_tracks_dir() / "starter.toml", folder)
    (folder / "classics.toml").write_text("[pack\nid = ")
    results = load_packs([folder])
    problems = installation.pack_problems(results, folder)
    assert len(problems) == 1 and problems[0].startswith(str(folder / "classics.toml"))
    assert any(r.tracks for r in results)


def test_no_built_in_folder_or_no_usable_pack_is_said(tmp_path):
    assert "missing" in installation.pack_problems([], tmp_path / "gone")[0]
    assert "no built-in track" in installation.pack_problems([], tmp_path)[0]


def test_a_checkout_lists_no_recorded_files():
    """A checkout (or an editable install) has no RECORD of the data, so nothing counts as missing."""
    assert paths.installed_data_dir() is None
    assert installation.recorded_data_files() == []


def test_validate_without_paths_checks_this_install(capsys):
    assert main(["validate"]) == 0
    out = capsys.readouterr().out
    assert str(paths.builtin_tracks_dir()) in out and "0 problem(s)" in out
