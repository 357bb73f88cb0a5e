"""Sound effects (pencil scratches, crashes, the finish fanfare, menu ticks) and the music loop.

The mixer is optional. :meth:`Audio.start` tries to open it and load the ``.wav`` files
from the folder it is given (``assets/sounds``, made by ``tools/make_sounds.py``); on a
machine without an audio device, or with files missing, the game simply stays silent
(``Audio.silent`` says why). A missing or damaged sound file costs that sound only and
is named in ``Audio.problems`` (the title screen lists them). Volumes come from the
settings and are passed in.

The music (``assets/music/loop.wav``, made by ``tools/make_music.py``) is one calm loop
that plays under the menus and the races on a channel of its own, for ever. Decoding it
takes a tenth of a second, so :meth:`Audio.start` loads it on a background thread and
starts it when it is ready; the first frames never wait for it.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Callable

import pygame

from game.presentation.jobs import Job

#: Which channel (volume setting) each sound plays on.
CHANNELS = {"scratch": "effects", "crash": "effects", "fanfare": "effects", "tick": "menu", "confirm": "menu",
            "back": "menu", "join": "menu"}
#: The mixer channel kept for the music (effects never take it).
MUSIC_CHANNEL = 0


class Audio:
    """Plays named sounds at the settings' volumes; does nothing when silent.

    ``volume`` is a function ``channel -> 0..1`` (``Settings.volume``), asked at every
    play so a change in the settings menu is heard at once. ``played`` keeps the names of
    the sounds asked for (even when silent) so tests can hear the game without speakers.
    """

    def __init__(self, sounds: dict[str, list] | None = None, volume: Callable[[str], float] | None = None,
                 silent: str = "") -> None:
        self.sounds = sounds or {}
        self.volume = volume or (lambda channel: 1.0)
        self.silent = silent if not self.sounds else ""
        self.played: list[str] = []
        self.problems: list[str] = []  # missing or damaged sound files, each with its path
        self._rng = random.Random(5)
        self.music_level = 0.0  # the music channel's volume, 0..1 (0 while no music plays)
        self._music: tuple[pygame.mixer.Sound, pygame.mixer.Channel] | None = None
        self._music_job: Job | None = None

    @classmethod
    def start(cls, folder: str | Path, volume: Callable[[str], float] | None = None,
              music: str | Path | None = None) -> Audio:
        """Open the mixer and load every ``.wav`` in ``folder``; a silent Audio if either fails.

        ``music`` is the music loop's file; it is loaded in the background and then played.
        """
        from game.installation import sound_problems

        folder = Path(folder)
        problems = sound_problems(folder)
        from game.presentation.native import quiet_native_output

        try:
            if not pygame.mixer.get_init():
                with quiet_native_output():  # ALSA prints its search for a sound card
                    pygame.mixer.init(frequency=22050, size=-16, channels=2, buffer=512)
        except pygame.error as error:
            audio = cls(volume=volume, silent=f"no sound: {error}")
            audio.problems = problems
            return audio
        sounds: dict[str, list] = {}
        for path in sorted(folder.glob("*.wav")) if folder.is_dir() else []:
            name = path.stem.rstrip("0123456789")
            try:
                sounds.setdefault(name, []).append(pygame.mixer.Sound(str(path)))
            except pygame.error as error:  # a damaged file costs that one sound only
                if not any(p.startswith(f"{path}:") for p in problems):
                    problems.append(f"{path}: damaged ({error})")
        audio = cls(sounds, volume, silent="" if sounds else f"no sound files in {folder}")
        audio.problems = problems
        if music is not None:
            audio.start_music(music)
        return audio

    # -- music ------------------------------------------------------------------
    def start_music(self, path: str | Path) -> None:
        """Load the loop at ``path`` on a background thread, then play it for ever at the music volume.

        Nothing happens without a mixer; a missing or damaged file is named in ``problems``.
        """
        path = Path(path)
        if not pygame.mixer.get_init() or self._music_job is not None:
            return
        if not path.is_file():
            self.problems.append(f"{path}: missing (the game plays without music)")
            return
        self._music_job = Job(lambda: self._load_music(path), name="music")

    def _load_music(self, path: Path) -> None:
        try:
            sound = pygame.mixer.Sound(str(path))
            pygame.mixer.set_reserved(MUSIC_CHANNEL + 1)
            channel = pygame.mixer.Channel(MUSIC_CHANNEL)
            channel.set_volume(0.0)
            channel.play(sound, loops=-1)
        except pygame.error as error:  # a damaged file or a mixer closed meanwhile: no music, no crash
            self.problems.append(f"{path}: damaged ({error}; the game plays without music)")
            return
        self._music = (sound, channel)
        self.refresh_music()

    def wait_music(self, timeout: float = 10.0) -> bool:
        """Block until the music is loaded (tests and tools); True when it plays."""
        if self._music_job is not None:
            self._music_job.wait(timeout)
        return self._music is not None

    def refresh_music(self) -> None:
        """Set the music to the settings' music volume (call after the player changes it)."""
        if self._music is None:
            return
        level = max(0.0, min(1.0, self.volume("music")))
        try:
            self._music[1].set_volume(level)
        except pygame.error:
            return
        self.music_level = level

    @property
    def music_playing(self) -> bool:
        """True while the music loop is playing (even at volume 0)."""
        if self._music is None or not pygame.mixer.get_init():
            return False
        return self._music[1].get_sound() is self._music[0]

    def close(self) -> None:
        """Let a music load still running finish, so the mixer is never closed under it."""
        if self._music_job is not None:
            self._music_job.wait(5.0)

    def play(self, name: str) -> None:
        """Play a sound by name (``"scratch"`` picks one of its variants)."""
        self.played.append(name)
        variants = self.sounds.get(name)
        if not variants:
            return
        level = max(0.0, min(1.0, self.volume(CHANNELS.get(name, "effects"))))
        if level <= 0:
            return
        sound = self._rng.choice(variants)
        try:
            sound.set_volume(level)
            sound.play()
        except pygame.error:
            pass
