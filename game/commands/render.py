"""The `racetrack render` subcommand: a PNG of a track on graph paper, headless.

Draws with the race screen's own board renderer: paper, road, pencil border, start
grid, chequered finish and numbered checkpoints; optionally the trails of a replay
(``--replay``) or the solver's optimal line (``--path``), with a legend.

    racetrack render starter/paper-oval -o oval.png --scale 28 --path
"""

from __future__ import annotations

import argparse
import os
import sys
import zlib

from game import paths
from game.core.errors import RacetrackError
from game.core.rules import preset
from game.files import WouldReplace, may_replace, read_bytes_head, shown, write_new_or_own, write_problem
from game.tracks.refs import is_generated_ref

MAX_PIXELS = 8000


class RenderError(RacetrackError):
    """The picture cannot be made (bad scale, unwritable file, ...)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("track", metavar="TRACK", help="PACK/TRACK, path/pack.toml#TRACK, a .map file or gen:CODE")
    parser.add_argument("-o", "--output", required=True, metavar="FILE.png", help="where to write the picture")
    parser.add_argument("--replay", metavar="FILE", help="draw the trails of this replay")
    parser.add_argument("--path", action="store_true", help="draw the solver's optimal line")
    parser.add_argument("--rules", help="rule preset for --path (default: the track's own)")
    parser.add_argument("--scale", type=int, default=24, metavar="PX", help="pixels per square (default: 24)")
    parser.add_argument("--force", action="store_true",
                        help="replace a file at FILE.png that Racetrack did not write (a copy is kept as FILE.png.old)")


def _init_headless():
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    import pygame

    pygame.display.init()
    pygame.font.init()
    if pygame.display.get_surface() is None:
        pygame.display.set_mode((1, 1))
    return pygame


def render_picture(track, scale: int, replay_result=None, path=None, names=None):
    """A pygame Surface with the track (and trails / optimal line) at ``scale`` px per square."""
    pygame = _init_headless()
    # Lazy on purpose (see game.commands): the drawing code and pygame load only to draw a picture.
    from game.core.race import RaceState
    from game.presentation import theme
    from game.presentation.board import trail_strokes
    from game.presentation.race_view import RaceView
    from game.presentation.text import TextCache

    if not 2 <= scale <= 200:
        raise RenderError(f"--scale must be from 2 to 200 pixels per square, not {scale}")
    scale = min(scale, max(2, MAX_PIXELS // (max(track.width, track.height) + 4)))
    title_h = max(28, scale + 10)
    size = ((track.width + 3) * scale, (track.height + 3) * scale + title_h)
    surface = pygame.Surface(size)
    state = replay_result.final if replay_result is not None else RaceState.start(
        track, preset("paper"), ["-"], laps=track.default_laps)
    car_names = list(names or [c.name for c in state.cars])
    text = TextCache()
    view = RaceView(state, car_names, size, text)
    view.board.sheet.still = True  # drawn once: no paper tile is drawn past the picture's edge
    cam = view.camera
    cam.size = (size[0], size[1] - title_h)
    cam.drift_amount = 0.0
    cam.scale = cam.target_scale = float(scale)
    cam.center = cam.target_center = ((track.width - 1) / 2, (track.height - 1) / 2)
    board_area = surface.subsurface((0, title_h, *cam.size))  # the board drawn in place, under the title
    strokes = trail_strokes(replay_result.records) if replay_result is not None else []
    view.board.blit_layer(board_area, cam, strokes, ("render", len(strokes)))
    if path:
        pts = [cam.to_screen((v.x, v.y)) for v in path]
        width = max(2, scale // 8)
        if len(pts) > 1:
            pygame.draw.lines(board_area, theme.MARGIN, False, pts, width)
        for p in pts:
            pygame.draw.circle(board_area, theme.MARGIN, p, max(2.0, scale * 0.12))
    if replay_result is not None:
        for record in replay_result.records:
            for event in record.events:
                if event.kind == "finish" and event.point is not None:
                    view.board.draw_flag(board_area, cam, event.point, 1.0)
        for i, car in enumerate(state.cars):
            view.board.draw_car(board_area, cam, i, (car.position.x, car.position.y))
    surface.fill(theme.PAPER, (0, 0, size[0], title_h))
    font = max(14, min(30, title_h - 10))
    par = track.meta.get("par")
    title = track.name + (f"  ·  par {par}" if par else "") + (f"  ·  optimal line: {len(path) - 1} moves"
                                                               if path else "")
    x = text.blit(surface, title, font, theme.HUD_TEXT, (scale // 2, title_h // 2), "midleft", bold=True).right
    if replay_result is not None:
        ranks = state.outcome().ranks
        x += font
        for i, name in enumerate(car_names):
            pen = view.pens[i]
            theme.draw_symbol(surface, pen.symbol, (x + font * 0.4, title_h // 2), font * 0.35, pen.color)
            label = f"{name}" + (f" ({ranks[i]}.)" if ranks[i] is not None else f" ({state.cars[i].status})")
            x = text.blit(surface, label, int(font * 0.8), pen.color, (x + font, title_h // 2), "midleft").right + font
    return surface


def load_track(ref: str):
    """The track to draw; the generator (and its solver) load only for a ``gen:CODE`` track.

    Not ``game.commands.play.load_track``: that module starts the CPUs' kernels, which a
    picture never needs (``racetrack render`` without ``--path`` imports no numba).
    """
    from game.tracks import TrackError, load_track_ref

    try:
        if is_generated_ref(ref):
            from game.drivers.generated import load_track as generated_track

            return generated_track(ref, builtin_dir=paths.builtin_tracks_dir())
        return load_track_ref(ref, builtin_dir=paths.builtin_tracks_dir())
    except TrackError as error:
        raise RenderError(str(error)) from None


def run(args) -> int:
    try:
        track = load_track(args.track)
        # Every file this command reads: the picture never lands on one of them, not even with --force.
        inputs = [f for f in (track.meta.get("file"), args.replay) if f]
        why = may_replace(args.output, owned=is_own_picture, force=args.force, inputs=inputs)
        if why:  # said before the drawing, which can take seconds
            raise RenderError(f"not written: {why}")
        replay_result = None
        names = None
        if args.replay:
            from game.race.referee import referee
            from game.race.replay import load_replay

            replay = load_replay(args.replay)
            replay_result = referee(replay, track)
            names = list(replay.names)
        path = None
        if args.path:
            path = _optimal_path(track, args.rules)
        surface = render_picture(track, args.scale, replay_result, path, names)
        try:
            kept = write_new_or_own(args.output, png_bytes(surface), owned=is_own_picture, force=args.force,
                                    inputs=inputs)
        except WouldReplace as error:
            raise RenderError(f"not written: {error}") from None
        except OSError as error:
            raise RenderError(write_problem(args.output, error)) from None
    except RacetrackError as error:
        print(f"racetrack render: {error}", file=sys.stderr)
        return 1
    if kept is not None:
        print(f"kept the file that was there as {shown(kept)}")
    print(f"wrote {shown(args.output)} ({surface.get_width()}x{surface.get_height()})")
    return 0


#: The text chunk every picture Racetrack writes carries: how it knows its own pictures again.
PNG_SOFTWARE = b"Software\x00Racetrack"


#: zlib's level for the picture's pixels: 3 packs a paper picture about as small as pygame's own PNG
#: writer does (within 1 %) in a quarter of its time, which was most of a ``racetrack render``.
PNG_LEVEL = 3


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")


def png_bytes(surface) -> bytes:
    """The surface as PNG bytes (8-bit RGB), with a ``tEXt`` chunk (Software: Racetrack) right after the header.

    Written here rather than by ``pygame.image.save``, which compresses harder than a
    picture of graph paper repays (see :data:`PNG_LEVEL`); the pixels are the same.
    """
    import pygame

    width, height = surface.get_size()
    pixels = pygame.image.tobytes(surface, "RGB")
    stride = width * 3
    rows = b"".join(b"\x00" + pixels[y * stride:(y + 1) * stride] for y in range(height))  # filter 0: none
    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])  # 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) + _png_chunk(b"tEXt", PNG_SOFTWARE)
            + _png_chunk(b"IDAT", zlib.compress(rows, PNG_LEVEL)) + _png_chunk(b"IEND", b""))


def is_own_picture(path) -> bool:
    """True when the file at ``path`` is a PNG that Racetrack wrote (see :func:`png_bytes`)."""
    head = read_bytes_head(path, 64)
    return head.startswith(b"\x89PNG\r\n\x1a\n") and head[33 + 8:33 + 8 + len(PNG_SOFTWARE)] == PNG_SOFTWARE


def _optimal_path(track, rules_name):
    try:
        from game.drivers.solver import SolverError, solve
    except ImportError:
        raise RenderError("--path needs the solver (game.drivers.solver), which is not installed") from None
    rules = preset(rules_name or track.default_rules or "paper")
    try:
        solution = solve(track, rules, track.default_laps)
    except SolverError as error:
        raise RenderError(f"track {track.id!r}: cannot find the optimal line: {error}") from None
    if solution.par is None:
        raise RenderError(f"track {track.id!r}: no way to the finish ({solution.reason})")
    return solution.path
