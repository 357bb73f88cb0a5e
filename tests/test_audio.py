"""Sound: the synthesised effects load and play on the dummy audio driver; no device means silence."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import wave

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

