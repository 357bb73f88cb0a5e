"""The ``racetrack replay`` subcommand: referee a replay file again and print how the race ended.

Exit status 0 when every recorded choice is legal; 1 when the replay or its track
cannot be read (the message names the file, key and line); 2 when a recorded choice
breaks the rules (the message names the phase, the car and why).
"""

from __future__ import annotations

from game.paths import builtin_tracks_dir


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", help="the replay file (.toml)")
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")


def load_replay_track(replay, builtin_dir=None):
    """The track a loaded replay names (see :func:`game.race.replay.load_replay_track`), built-in packs by default."""
    from game.race.replay import load_replay_track as load

    return load(replay, builtin_dir or builtin_tracks_dir())


def run(args) -> int:
    from game.race.referee import referee
    from game.race.replay import load_replay
    from game.race.report import dumps_outcome, outcome_json, outcome_table

    replay = load_replay(args.file)
    track = load_replay_track(replay)
    result = referee(replay, track, keep_states=False)
    outcome = outcome_json(replay, result.final, result.records)
    if args.json:
        print(dumps_outcome(outcome), end="")
    else:
        print(outcome_table(outcome))
    return 0
