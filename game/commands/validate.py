"""The `racetrack validate` subcommand: check level packs and Karopapier maps, print every problem.

With no paths it checks the install itself: every built-in pack and every sound file,
each problem named by its file (a damaged or missing one), exit status 1 if any.
"""

from __future__ import annotations

from pathlib import Path

from game import paths


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="pack files, .map files, or folders holding them (none: this install's own)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print errors only, not warnings")


def run(args) -> int:
    """Check every given file (folders: every .toml and .map inside); 0 when no errors were found."""
    from game.tracks.pack import load_pack, load_packs, read_map_file
    from game.tracks.problems import Problem

    if not args.paths:
        return check_install()

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


def check_install() -> int:
    """``racetrack validate`` with no paths: the built-in packs and sounds this install carries."""
    # Here, not at the top: the install check reads the package's metadata, which checking a file never needs.
    from game.installation import SOUND_NAMES, check_install as problems_of
    from game.tracks.pack import load_packs

    folder = paths.builtin_tracks_dir()
    results = load_packs([folder])
    problems = problems_of(results)
    for problem in problems:
        print(problem)
    tracks = sum(len(r.tracks) for r in results)
    print(f"built-in packs in {folder}: {len(results)} file(s), {tracks} usable track(s); "
          f"sounds in {paths.sounds_dir()}: {len(SOUND_NAMES)} expected, and the music; {len(problems)} problem(s)")
    return 1 if problems else 0
