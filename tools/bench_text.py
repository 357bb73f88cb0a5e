"""Benchmark: what hostile text costs the screens (issue 27): one line drawn, and a track-select frame.

How to run (headless, prints a table)::

    python tools/bench_text.py
    python tools/bench_text.py --repeat 5 --size 1920x1080

For each kind of text a file could hold (a 3.5 MB description, a 10 000-character name, a NUL,
a lone surrogate, 300 combining marks on one letter, one character of every Unicode category)
it prints the time to render the line with a fresh text cache (``TextCache.render``: the font
opened beforehand, so only the line is measured), the size of the rendered line, and the
median and slowest of ``--repeat`` track-select frames (``update`` + ``draw``) with that text as
the selected track's name and description, after ten frames (the preview is drawn by then, and
the text cached: the frames show what drawing such a text costs every frame).
The goal: no frame over 50 ms, whatever the text. A text that makes the font raise prints the
error instead.
"""

from __future__ import annotations

import argparse
import copy
import os
import shutil
import statistics
import sys
import tempfile
import time
import unicodedata
from pathlib import Path


#: Frames drawn before the measured ones: the preview is painted, the par job started, the text cached.
WARM_UP = 10


def texts() -> dict[str, str]:
    every = {}
    for code in range(sys.maxunicode + 1):
        every.setdefault(unicodedata.category(chr(code)), chr(code))
    return {"plain name": "Little Loop", "3.5 MB description": "d" * 3_500_000, "10 000-char name": "x" * 10_000,
            "NUL": "A\x00da", "lone surrogate": "\ud800", "300 combining marks": "e" + "\u0301" * 300,
            "RTL override": "\u202eevil", "every category": "".join(every.values())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="track-select frames measured per text")
    parser.add_argument("--size", default="1280x720", help="window size, WIDTHxHEIGHT")
    args = parser.parse_args(argv)
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import pygame

    from game import paths
    from game.presentation.app import init_pygame
    from game.presentation.menus import build_context
    from game.presentation.menus.race import TrackEntry
    from game.presentation.menus.tracks import TrackSelectScene, load_entries
    from game.presentation.scene import SceneStack
    from game.presentation.text import TextCache

    width, height = (int(v) for v in args.size.split("x"))
    init_pygame(headless=True)
    surface = pygame.display.set_mode((width, height))
    with tempfile.TemporaryDirectory() as folder:
        builtin = Path(folder) / "builtin"
        builtin.mkdir()
        shutil.copy(paths.builtin_tracks_dir() / "starter.toml", builtin / "starter.toml")
        ctx = build_context(Path(folder) / "config", None, builtin, seed=1)
        ctx.size = (width, height)
        base = next(e for e in load_entries(builtin, None) if e.track is not None)
        print(f"{'text':<22} {'line ms':>8} {'line size':>14} {'frame median ms':>16} {'slowest ms':>11}")
        for label, text in texts().items():
            cache = TextCache()
            cache.font(16)
            start = time.perf_counter()
            try:
                size = "x".join(str(v) for v in cache.render(text, 16, (0, 0, 0)).get_size())
            except Exception as error:  # the measurement names what raised; the game must not raise
                size = type(error).__name__
            line = (time.perf_counter() - start) * 1000
            track = copy.copy(base.track)
            track.name = text
            track.meta = dict(base.track.meta, description=text)
            scene = TrackSelectScene(ctx, [], [TrackEntry(base.ref, track, pack="starter")])
            SceneStack().push(scene)
            frames = []
            for k in range(args.repeat + WARM_UP):
                start = time.perf_counter()
                scene.update(1 / 60)
                scene.stack.draw(surface)
                if k >= WARM_UP:
                    frames.append((time.perf_counter() - start) * 1000)
            print(f"{label:<22} {line:8.1f} {size:>14} {statistics.median(frames):16.1f} {max(frames):11.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
