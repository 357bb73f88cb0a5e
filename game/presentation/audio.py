"""Sound effects: pencil scratches, crashes, the finish fanfare and menu ticks.

The mixer is optional. :meth:`Audio.start` tries to open it and load the ``.wav`` files
from the folder it is given (``assets/sounds``, made by ``tools/make_sounds.py``); on a
machine without an audio device, or with files missing, the game simply stays silent
(``Audio.silent`` says why). A missing or damaged sound file costs that sound only and
is named in ``Audio.problems`` (the title screen lists them). Volumes come from the
settings and are passed in.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Callable

import pygame

#: Which channel (volume setting) each sound plays on.
CHANNELS = {"scratch": "effects", "crash": "effects", "fanfare": "effects", "tick": "menu", "confirm": "menu",
            "back": "menu", "join": "menu"}


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

    @classmethod
    def start(cls, folder: str | Path, volume: Callable[[str], float] | None = None) -> Audio:
        """Open the mixer and load every ``.wav`` in ``folder``; a silent Audio if either fails."""
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
        return audio

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
