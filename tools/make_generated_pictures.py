"""Draw twelve generated tracks (four of each size, two of them with terrain) into one picture for docs/tracks.md.

Run from the checkout::

    python tools/make_generated_pictures.py                  # docs/screenshots/generated-tracks.png
    python tools/make_generated_pictures.py -o /tmp/gen.png --first 40

Each track is drawn by `racetrack render`'s own renderer (``render_picture``) with the
solver's optimal line, then the twelve are laid out in a grid: a column per size (short,
medium, long), rows of plain tracks and tracks with terrain. The codes are printed, so
each picture can be made again with ``racetrack render gen:CODE -o FILE.png --path``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TILE = 520  # pixels per column


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", default=str(ROOT / "docs" / "screenshots" / "generated-tracks.png"))
    parser.add_argument("--first", type=int, default=0, help="first seed (default 0)")
    args = parser.parse_args(argv)
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from game.commands.render import render_picture
    from game.core.rules import preset
    from game.drivers.generated import generate
    from game.drivers.solver import Solver
    from game.tracks.generator import SIZES, Spec

    import pygame

    solver = Solver(max_tables=1)
    columns = []
    for size in SIZES:
        tiles = []
        for terrain, seed in ((False, 0), (False, 1), (True, 0), (True, 1)):
            made = generate(Spec(1, size, terrain, args.first + seed), solver=solver)
            track = made.track
            path = solver.solve(track, preset(track.default_rules), track.default_laps).path
            scale = max(2, TILE // (max(track.width, track.height * 2) + 3))
            picture = render_picture(track, scale, path=path)
            if picture.get_width() > TILE:
                h = picture.get_height() * TILE // picture.get_width()
                picture = pygame.transform.smoothscale(picture, (TILE, h))
            tiles.append(picture)
            print(f"{made.code}: {size} {made.kind}{' with terrain' if terrain else ''}, par {made.checks.par}, "
                  f"slots {made.checks.slot_pars}")
        columns.append(tiles)
    rows = len(columns[0])
    heights = [max(col[r].get_height() for col in columns) for r in range(rows)]
    sheet = pygame.Surface((TILE * len(columns) + 8 * (len(columns) - 1), sum(heights) + 8 * (rows - 1)))
    sheet.fill((200, 200, 200))
    for c, col in enumerate(columns):
        y = 0
        for r, tile in enumerate(col):
            sheet.blit(tile, (c * (TILE + 8), y))
            y += heights[r] + 8
    pygame.image.save(sheet, args.output)
    print(f"wrote {args.output} ({sheet.get_width()}x{sheet.get_height()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
