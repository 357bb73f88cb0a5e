"""The `racetrack validate` subcommand: check level packs and Karopapier maps, print every problem."""

from __future__ import annotations

from pathlib import Path

HELP = "check level packs (.toml) and Karopapier maps (.map): print every problem, exit 1 on errors"


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="pack files, .map files, or folders holding them")
    parser.add_argument("-q", "--quiet", action="store_true", help="print errors only, not warnings")


def run(args) -> int:
    """Check every given file (folders: every .toml and .map inside); 0 when no errors were found."""
    from game.tracks.pack import load_pack, load_packs, read_map_file
    from game.tracks.problems import Problem

    results = []
    for name in args.paths:
        path = Path(name)
        if path.is_dir():
            found = load_packs([path])
            if not found:
                print(f"{path}: no .toml packs or .map files here")
            results += found
        elif path.suffix == ".map":
            results.append(read_map_file(path))
        elif path.exists():
            results.append(load_pack(path))
        else:
            print(Problem(str(path), None, None, None, "no such file"))
            results.append(None)
    errors = warnings = tracks = 0
    missing = results.count(None)
    for result in results:
        if result is None:
            continue
        tracks += len(result.tracks)
        for problem in result.problems:
            if problem.is_error or not args.quiet:
                print(problem)
        errors += len(result.errors)
        warnings += len(result.warnings)
    files = len(results)
    print(f"{files} file(s), {tracks} usable track(s): {errors + missing} error(s), {warnings} warning(s)")
    return 1 if errors or missing else 0
