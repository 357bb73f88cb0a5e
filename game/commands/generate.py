"""The `racetrack generate` subcommand: generated tracks from codes, checked by the solver, printed or packed.

    racetrack generate                      # a random medium track: its code, par and checks
    racetrack generate K7F2QX               # the track of a code (the same on every machine)
    racetrack generate --size long --terrain --count 4 -o my-cup.toml
    racetrack generate K7F2QX --json

Every other command takes ``gen:CODE`` wherever it takes a track (``racetrack sim --track gen:K7F2QX``).
"""

from __future__ import annotations

import json
import os
import sys

from game.core.errors import RacetrackError
from game.drivers.compiling import ForegroundKernels
from game.files import WouldReplace, write_new_or_own


def add_arguments(parser) -> None:
    from game.tracks.generator import SIZES

    parser.add_argument("code", nargs="?", metavar="CODE",
                        help="a track code such as K7F2QX (default: a random one of --size)")
    parser.add_argument("--size", choices=SIZES, default=None,
                        help="short (a race of 20-30 moves), medium (30-40) or long (40-55); default medium "
                             "(a code carries its own size)")
    parser.add_argument("--terrain", action="store_true", help="with sand, mud, ice and curb patches")
    parser.add_argument("--count", type=int, default=1, metavar="N",
                        help="N tracks: the code's and the next ones (default 1)")
    parser.add_argument("-o", "--output", metavar="PACK.toml",
                        help="write the tracks as a level pack (never over an existing file)")
    parser.add_argument("--json", action="store_true", help="print JSON, one object per track")


def run(args) -> int:
    from game.drivers.generated import generate_many, spec_of
    from game.drivers.solver import Solver
    from game.tracks.generator import Spec, random_spec

    if not 1 <= args.count <= 100:
        raise RacetrackError(f"--count must be from 1 to 100, not {args.count}")
    if args.code:
        spec = spec_of(args.code)
        if args.size and args.size != spec.size:
            raise RacetrackError(f"code {spec.code} is a {spec.size} track; --size {args.size} does not apply")
        if args.terrain and not spec.terrain:
            raise RacetrackError(f"code {spec.code} has no terrain; --terrain does not apply")
    else:
        spec = random_spec(int.from_bytes(os.urandom(8), "little"), args.size or "medium", args.terrain)

    # A run compiles what the cache lacks: the next one only loads it.
    kernels = ForegroundKernels(say=lambda text: print(text, file=sys.stderr, flush=True))
    solver = Solver(max_tables=1, kernels=kernels)
    made = generate_many(Spec(spec.version, spec.size, spec.terrain, spec.seed), args.count, solver=solver)
    for g in made:
        if args.json:
            print(json.dumps(g.to_json()))
        else:
            print(describe(g))
    if args.output:
        try:
            write_new_or_own(args.output, pack_text(made))
        except WouldReplace as error:
            raise RacetrackError(f"-o: {error}") from None
        except OSError as error:
            raise RacetrackError(f"-o {args.output}: {error.strerror or error}") from None
        if not args.json:
            print(f"wrote {args.output}: {len(made)} track(s)")
    return 0


def describe(g) -> str:
    """Two lines for a generated track: what it is and its par, then the checks' figures."""
    c = g.checks
    laps = f"{g.track.default_laps} laps" if g.track.default_laps > 1 else "1 lap"
    terrain = ", terrain" if g.spec.terrain else ""
    head = f"{g.code}  {g.spec.size} {g.kind} ({laps}{terrain})  par {c.par}"
    slots = " ".join(str(p) for p in c.slot_pars)
    parting = f"{c.parting}+" if c.parting >= 8 else str(c.parting)
    checks = (f"  slots 1-{len(c.slot_pars)}: {slots}  ·  optimal lines part for {parting} phases  ·  "
              f"narrowest road {c.narrowest:.1f}  ·  candidate {g.attempt + 1}, {g.seconds:.2f} s")
    return head + "\n" + checks


def pack_text(made) -> str:
    """One level pack holding every generated track (a cup of them when there are several)."""
    from game.tracks.generator import pack_document
    from game.tracks.pack import pack_file_text

    documents = [pack_document(g.candidate, par=g.checks.par) for g in made]
    doc = documents[0]
    if len(made) > 1:
        codes = [g.code for g in made]
        doc["pack"] = {"id": f"generated-{codes[0].lower()}-{len(made)}", "name": f"Generated {codes[0]} +{len(made) - 1}",
                       "author": doc["pack"]["author"],
                       "description": "Made from track codes " + ", ".join(codes) + "."}
        doc["track"] = [d["track"][0] for d in documents]
    return pack_file_text(doc)
