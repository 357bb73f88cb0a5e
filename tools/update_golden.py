"""Regenerate the pinned outcomes of the golden replays in tests/golden/.

Run from the checkout:  python tools/update_golden.py [--check]

For every ``tests/golden/*.replay.toml`` it referees the replay and writes the outcome
JSON next to it as ``*.outcome.json``, printing which files changed. Only run it after a
deliberate rules change, and read the diff (``git diff tests/golden``) before committing:
the golden test exists to catch changes nobody meant. ``--check`` writes nothing and
exits 1 when any pinned outcome differs. An outcome that differs only by rule options added
since it was pinned, each at its default, counts as the same and is left as it is.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def golden_outcome_text(replay_path: Path) -> str:
    """The outcome JSON text of one golden replay, exactly as the golden test compares it."""
    from game.commands.replay import load_replay_track
    from game.race.referee import referee
    from game.race.replay import load_replay
    from game.race.report import dumps_outcome, outcome_json

    replay = load_replay(replay_path)
    result = referee(replay, load_replay_track(replay))
    return dumps_outcome(outcome_json(replay, result.final, result.records))


def _same_but_newer_options(old: str, new: str) -> bool:
    """Whether ``new`` differs from the pinned ``old`` only by rule options added since it was
    pinned, each at its default (the game as it was): such an outcome is kept as pinned, as
    the golden test compares it (``tests/test_replay_golden.py``)."""
    import json

    from game.core.rules import RuleSet
    from game.race.report import dumps_outcome

    was, now = json.loads(old), json.loads(new)
    options = now["rules"]["options"]
    newer = set(options) - set(was["rules"]["options"])
    defaults = RuleSet().options()
    if any(options[k] != defaults[k] for k in newer):
        return False
    for key in newer:
        del options[key]
    return dumps_outcome(now) == old


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 on a difference")
    parser.add_argument("--dir", default=str(Path(__file__).resolve().parent.parent / "tests" / "golden"))
    args = parser.parse_args(argv)
    changed = 0
    for replay_path in sorted(Path(args.dir).glob("*.replay.toml")):
        pinned = replay_path.with_name(replay_path.name.replace(".replay.toml", ".outcome.json"))
        text = golden_outcome_text(replay_path)
        old = pinned.read_text(encoding="utf-8") if pinned.exists() else None
        if old == text or (old is not None and _same_but_newer_options(old, text)):
            print(f"same     {pinned.name}")
            continue
        changed += 1
        print(f"{'differs' if args.check else 'written'}  {pinned.name}")
        if not args.check:
            pinned.write_text(text, encoding="utf-8")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
