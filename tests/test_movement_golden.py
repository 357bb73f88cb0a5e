"""Golden replays, one per movement system: each keeps giving the outcome pinned next to it.

The races were recorded by tools/make_system_goldens.py; if a deliberate rules change moves
an outcome, rerun ``python tools/update_golden.py --dir tests/golden_systems`` and read the diff.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from game.commands.replay import load_replay_track
from game.core.movement import heading_and_speed
from game.core.rules import RuleSet
from game.race.referee import referee
from game.race.replay import load_replay
from game.race.report import dumps_outcome, outcome_json

GOLDEN = Path(__file__).parent / "golden_systems"
REPLAYS = sorted(GOLDEN.glob("*.replay.toml"))


def refereed(path: Path):
    replay = load_replay(path)
    return replay, referee(replay, load_replay_track(replay))


def test_every_movement_system_has_a_golden_replay():
    systems = {(r.rules.movement, r.rules.braking) for r in map(load_replay, REPLAYS)}
    assert systems == {("cross", "normal"), ("scalar", "normal"), ("graded", "normal"), ("nine", "hard"),
                       ("fine", "normal"), ("flick", "normal")}


@pytest.mark.parametrize("path", REPLAYS, ids=[p.name.replace(".replay.toml", "") for p in REPLAYS])
def test_a_movement_golden_replay_gives_its_pinned_outcome(path):
    replay, result = refereed(path)
    pinned = path.with_name(path.name.replace(".replay.toml", ".outcome.json")).read_text(encoding="utf-8")
    outcome = outcome_json(replay, result.final, result.records)
    # A rule option added after the outcome was pinned must be at its default (the game
    # as it was); everything else must be identical (as in test_replay_golden).
    options = outcome["rules"]["options"]
    newer = set(options) - set(json.loads(pinned)["rules"]["options"])
    defaults = RuleSet().options()
    assert {k: options[k] for k in newer} == {k: defaults[k] for k in newer}
    for key in newer:
        del options[key]
    assert dumps_outcome(outcome) == pinned
    assert json.loads(pinned)["finished"]


def test_the_golden_scalar_race_only_ever_drives_along_the_eight_headings():
    _, result = refereed(GOLDEN / "scalar.replay.toml")
    for record in result.records:
        for move in record.moves:
            if move.target is not None and move.crash_point is None:
                v = move.target - move.start
                heading, speed = heading_and_speed(v)
                assert abs(v.x) in (0, speed) and abs(v.y) in (0, speed)


def test_the_golden_fine_race_runs_on_the_tenfold_lattice():
    _, result = refereed(GOLDEN / "fine.replay.toml")
    assert result.final.track.scale == 10
    steps = [m.target - m.start for r in result.records for m in r.moves if m.target is not None]
    assert any(v.x % 10 or v.y % 10 for v in steps)  # some moves are not whole squares
