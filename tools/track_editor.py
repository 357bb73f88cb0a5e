"""The track editor for modders: paint a char map or draw an outline, check it live, save it to a pack.

Run it with:

    python tools/track_editor.py                      # a new 40 x 24 char map
    python tools/track_editor.py --new 60 30          # a new char map of that size
    python tools/track_editor.py --new 60 30 --outline
    python tools/track_editor.py my-pack.toml#my-track
    python tools/track_editor.py starter/paper-oval   # a built-in track (save it elsewhere!)

Problems (from the game's own pack validation) and the par (from the game's solver, in
the background) show in the side panel while you edit; Tab previews the track with the
race screen's renderer; the keyboard shortcuts are listed on screen. ``docs/editor.md``
describes every tool.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="track_editor", description=__doc__.splitlines()[0])
    parser.add_argument("track", nargs="?", metavar="PACK.toml#TRACK",
                        help="the track to open: pack.toml#TRACK, pack.toml (its first track) or PACK/TRACK")
    parser.add_argument("--new", nargs=2, type=int, metavar=("W", "H"), help="start a new track of W x H squares")
    parser.add_argument("--outline", action="store_true", help="with --new: an outline track instead of a char map")
    parser.add_argument("--save-to", metavar="PACK.toml", help="with --new: the pack file Ctrl+S saves into")
    parser.add_argument("--size", nargs=2, type=int, default=(1280, 800), metavar=("W", "H"), help="window size")
    parser.add_argument("--screenshot", metavar="FILE.png",
                        help="draw one frame (after the checks and par finish), save it and quit (works headless)")
    parser.add_argument("--force", action="store_true",
                        help="with --screenshot: replace a file Racetrack did not write (a copy is kept as FILE.old)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    if args.screenshot:
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import pygame

    from editor.app import Editor, run
    from editor.doc import DocError, new_map, new_outline
    from editor.packio import open_track
    from game.paths import builtin_tracks_dir

    notes: list[str] = []
    path = Path(args.save_to) if args.save_to else None
    head = None
    doc = None
    if args.track and not args.new:
        opened = open_track(args.track, builtin_tracks_dir())
        notes = opened.notes
        if opened.doc is not None:
            doc, path, head = opened.doc, opened.path, opened.pack_head
        else:
            notes.insert(0, f"could not open {args.track}; starting a new track instead")
    if path is not None:  # temporary files a killed save left beside the pack
        from game.atomic import clean_stray_temps

        clean_stray_temps([path.parent])
    if doc is None:
        width, height = args.new or (40, 24)
        try:
            doc = (new_outline if args.outline else new_map)(width, height)
        except DocError as exc:
            print(f"track_editor: {exc}", file=sys.stderr)
            return 2
    flags = 0 if args.screenshot else pygame.RESIZABLE
    try:
        pygame.display.init()
        pygame.font.init()
        screen = pygame.display.set_mode(tuple(args.size), flags)
    except pygame.error as exc:
        print(f"track_editor: cannot open a window: {exc} (headless? try --screenshot FILE.png)", file=sys.stderr)
        return 1
    pygame.display.set_caption("Racetrack track editor")
    editor = Editor(screen.get_size(), doc, path, head, builtin_dir=builtin_tracks_dir(), notes=notes)
    if args.screenshot:
        return _screenshot(editor, screen, args.screenshot, force=args.force)
    run(editor)
    pygame.quit()
    return 0


def _screenshot(editor, screen, output: str, timeout: float = 120.0, force: bool = False) -> int:
    import time

    deadline = time.monotonic() + timeout
    editor.update(1.0)
    while time.monotonic() < deadline and (not editor.check_current or editor.par_busy):
        time.sleep(0.05)
        editor.update(0.05)
    editor.step(0.0, screen)
    editor.close()
    from game.commands.render import is_own_picture, png_bytes
    from game.files import WouldReplace, shown, write_new_or_own, write_problem

    try:  # the game's one write rule: never over a picture or file Racetrack did not make
        write_new_or_own(output, png_bytes(screen), owned=is_own_picture, force=force)
    except WouldReplace as exc:
        print(f"track_editor: not written: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"track_editor: {write_problem(output, exc)}", file=sys.stderr)
        return 1
    print(f"wrote {shown(output)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
