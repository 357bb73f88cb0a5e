"""Render the terrain pictures of docs/rules.md and docs/tracks.md (the game's own drawing).

Run from the checkout (headless, about a minute)::

    python tools/make_terrain_screenshots.py [--out docs/screenshots]

It saves, each drawn by the race screen's own renderer:

- ``terrain-sand.png``, ``terrain-mud.png``, ``terrain-ice.png``, ``terrain-curb.png``,
  ``terrain-water.png``: one move onto a patch of the kind on a small strip of road, cut
  from a 1920x1080 race screen (36 px a square): the car's pen stroke, where it stands
  and the targets the rules give it next (water: the targets before the move, those in
  the water marked off-road);
- ``terrain-dune-rally.png``, ``terrain-winter-ring.png``, ``terrain-harbour-streets.png``:
  each built-in terrain track whole, with the Champion's line (the solver's), 24 px a square;
- ``terrain-karopapier.png``: Harbour Streets as the karopapier rules see it (every kind
  off the road: drawn, washed, outside the road's pencil line), 24 px a square.

Nothing outside ``--out`` is written.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pygame  # noqa: E402

from game import paths  # noqa: E402
from game.core import RaceState, Vec, preset  # noqa: E402
from game.core.terrain import LETTER_OF, Terrain  # noqa: E402
from game.drivers.base import HumanDriver  # noqa: E402
from game.presentation.app import init_pygame  # noqa: E402
from game.presentation.race_scene import RaceScene, RaceSettings  # noqa: E402
from game.race.controller import RaceController, Seat  # noqa: E402
from game.tracks import read_pack_text  # noqa: E402
from game.tracks.pack import load_track_ref  # noqa: E402

BIG = (1920, 1080)
#: A straight strip of road, finish on the right with room to stop past it (a car sliding
#: off the ice at speed 4 is not doomed); ``K`` is where the kind goes (rows 2-3 only:
#: terrain is never the only way through).
STRIP = """
XXXXXXXXXXXXXXXXXXXXXXX
XOOOOOOOOOOOOOOFOOOOOOX
XSOOOOKKKKKOOOOFOOOOOOX
XSOOOOKKKKKOOOOFOOOOOOX
XOOOOOOOOOOOOOOFOOOOOOX
XXXXXXXXXXXXXXXXXXXXXXX
"""
#: Per kind: where the car stands, its velocity, and the target it picks (landing on the patch).
MOVES = {
    Terrain.SAND: (Vec(2, 2), Vec(3, 0), Vec(6, 2)),
    Terrain.MUD: (Vec(2, 2), Vec(3, 0), Vec(6, 2)),
    Terrain.ICE: (Vec(2, 2), Vec(3, 0), Vec(6, 2)),
    Terrain.CURB: (Vec(1, 2), Vec(4, 0), Vec(6, 2)),
    Terrain.WATER: (Vec(2, 2), Vec(3, 0), None),
}


def strip(kind: Terrain):
    text = STRIP.replace("K", LETTER_OF[kind])
    pack = read_pack_text(f'format = 1\n[pack]\nid = "doc"\nname = "Doc"\n[[track]]\nid = "{kind}"\n'
                          f'name = "{kind}"\ncars = 1\nmap = """{text}"""\n', "doc.toml")
    assert pack.ok, [str(p) for p in pack.errors]
    return pack.tracks[0]


def scene(track, rules, place):
    state = RaceState.start(track, rules, ["Ada"], seed=3)
    car = state.cars[0]
    if place is not None:
        state = replace(state, cars=(replace(car, position=place[0], velocity=place[1]),))
    ctl = RaceController(state, [Seat("Ada", HumanDriver())], seed=3)
    return RaceScene(ctl, BIG, settings=RaceSettings(intro=False))


def frame(s) -> pygame.Surface:
    surface = pygame.Surface(BIG)
    s.view.camera.snap()
    for _ in range(40):  # paper tiles still missing are drawn a few per frame
        s.draw(surface)
    return surface


def cut(surface, s, centre, squares=(15, 6)) -> pygame.Surface:
    """The part of a race frame around a node, ``squares`` wide and high."""
    scale = s.view.camera.scale
    cx, cy = s.view.camera.to_screen((centre.x, centre.y))
    w, h = round(squares[0] * scale), round(squares[1] * scale)
    rect = pygame.Rect(round(cx - w / 2), round(cy - h / 2), w, h).clip(surface.get_rect())
    return surface.subsurface(rect).copy()


def kind_picture(kind: Terrain, out: Path) -> None:
    track = strip(kind)
    start, velocity, target = MOVES[kind]
    s = scene(track, preset("paper"), (start, velocity))
    for _ in range(20):
        s.update(1 / 60)
    if target is not None:
        s.controller.submit(0, target)
        for _ in range(600):
            s.update(1 / 60)
            if s.mode == "choosing" and s.controller.state.phase > 0 and s.animation is None:
                break
        for _ in range(30):
            s.update(1 / 60)
    name = out / f"terrain-{kind}.png"
    pygame.image.save(cut(frame(s), s, Vec(8, 2)), str(name))
    s.exit()
    print("wrote", name)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/screenshots")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    init_pygame(headless=True)
    pygame.display.set_mode(BIG)
    for kind in Terrain:
        kind_picture(kind, out)

    from game.commands.render import render_picture
    from game.drivers.solver import solve

    for track_id in ("dune-rally", "winter-ring", "harbour-streets"):
        track = load_track_ref(f"terrain/{track_id}", builtin_dir=paths.builtin_tracks_dir())
        result = solve(track, preset(track.default_rules), track.default_laps)
        name = out / f"terrain-{track_id}.png"
        pygame.image.save(render_picture(track, 24, path=result.path), str(name))
        print("wrote", name)

    track = load_track_ref("terrain/harbour-streets", builtin_dir=paths.builtin_tracks_dir())
    name = out / "terrain-karopapier.png"
    pygame.image.save(render_picture(track.for_rules(preset("karopapier")), 24), str(name))
    print("wrote", name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
