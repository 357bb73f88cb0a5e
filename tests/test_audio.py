"""Sound: the synthesised effects load and play on the dummy audio driver; no device means silence."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import importlib.util
import wave
from pathlib import Path

import numpy as np
import pygame
import pytest

from game import paths
from game.presentation.audio import CHANNELS, Audio
from game.settings import Settings


def test_every_sound_the_game_plays_is_in_the_assets_folder():
    folder = paths.assets_dir() / "sounds"
    stems = {p.stem.rstrip("0123456789") for p in folder.glob("*.wav")}
    assert set(CHANNELS) <= stems
    for path in folder.glob("*.wav"):
        with wave.open(str(path)) as f:
            assert f.getnframes() / f.getframerate() < 2.0  # small effects, not music


def test_sounds_load_and_play_at_the_settings_volume():
    settings = Settings(master_volume=50, effects_volume=100)
    audio = Audio.start(paths.assets_dir() / "sounds", settings.volume)
    try:
        assert not audio.silent
        assert len(audio.sounds["scratch"]) == 3
        audio.play("crash")
        assert audio.sounds["crash"][0].get_volume() == pytest.approx(0.5, abs=0.02)
    finally:
        pygame.mixer.quit()


def test_without_a_mixer_the_game_stays_silent(monkeypatch, tmp_path):
    def broken(*args, **kwargs):
        raise pygame.error("no audio device")

    monkeypatch.setattr(pygame.mixer, "get_init", lambda: False)
    monkeypatch.setattr(pygame.mixer, "init", broken)
    audio = Audio.start(paths.assets_dir() / "sounds")
    assert "no audio device" in audio.silent
    audio.play("fanfare")  # nothing happens, nothing breaks
    assert audio.played == ["fanfare"]


def test_a_muted_channel_plays_nothing():
    audio = Audio(volume=lambda channel: 0.0)
    audio.play("tick")
    assert audio.played == ["tick"]



MUSIC = paths.assets_dir() / "music" / "loop.wav"


def _make_music():
    tool = Path(__file__).parent.parent / "tools" / "make_music.py"
    spec = importlib.util.spec_from_file_location("make_music", tool)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_music_loop_is_the_tools_small_and_loops_without_a_seam():
    make_music = _make_music()
    data = MUSIC.read_bytes()
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE"
    assert len(data) < 400_000  # a compressed loop, not megabytes of PCM
    pygame.mixer.init(frequency=make_music.RATE, size=-16, channels=2)
    try:
        heard = pygame.sndarray.array(pygame.mixer.Sound(str(MUSIC)))[:, 0].astype(float)
    finally:
        pygame.mixer.quit()
    made = make_music.music() * 32000
    assert len(heard) == len(made) == make_music.LENGTH  # no padding at the end of the loop
    noise = np.mean((heard - made) ** 2)
    assert 10 * np.log10(np.mean(made ** 2) / noise) > 35  # the file is what the tool makes (in dB)
    steps = np.abs(np.diff(heard))
    assert abs(heard[0] - heard[-1]) < 4 * np.percentile(steps, 99)  # no click where it starts again


def test_the_music_plays_for_ever_at_the_music_volume_and_follows_the_setting():
    settings = Settings(master_volume=50, music_volume=60)
    audio = Audio.start(paths.assets_dir() / "sounds", settings.volume, music=MUSIC)
    try:
        assert audio.wait_music()
        assert audio.music_playing
        assert audio.music_level == pytest.approx(0.3, abs=0.01)
        length = audio._music[0].get_length()
        assert 20 < length < 40
        audio.play("tick")  # an effect never takes the music's channel
        assert audio.music_playing
        settings.music_volume = 0
        audio.refresh_music()
        assert audio.music_level == 0 and audio._music[1].get_volume() == 0
    finally:
        audio.close()
        pygame.mixer.quit()


def test_a_missing_or_damaged_music_file_is_named_and_the_game_goes_on(tmp_path):
    audio = Audio.start(paths.assets_dir() / "sounds", music=tmp_path / "loop.wav")
    try:
        assert not audio.wait_music() and not audio.music_playing
        assert any(str(tmp_path / "loop.wav") in p and "missing" in p for p in audio.problems)
    finally:
        pygame.mixer.quit()
    (tmp_path / "loop.wav").write_bytes(b"RIFF\x10\x00\x00\x00WAVEjunk")
    audio = Audio.start(paths.assets_dir() / "sounds", music=tmp_path / "loop.wav")
    try:
        assert not audio.wait_music()
        assert any(str(tmp_path / "loop.wav") in p and "damaged" in p for p in audio.problems)
        audio.play("crash")  # the effects still play
    finally:
        audio.close()
        pygame.mixer.quit()


def test_without_a_mixer_there_is_no_music_and_nothing_breaks(monkeypatch):
    monkeypatch.setattr(pygame.mixer, "get_init", lambda: False)
    monkeypatch.setattr(pygame.mixer, "init", lambda *a, **k: (_ for _ in ()).throw(pygame.error("no device")))
    audio = Audio.start(paths.assets_dir() / "sounds", music=MUSIC)
    audio.refresh_music()
    assert not audio.wait_music() and not audio.music_playing and audio.music_level == 0
    audio.close()
