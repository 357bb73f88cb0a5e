"""Golden replays: small recorded races under each rule preset keep giving the outcome pinned next to them.

A failing comparison means the rules (or the report) changed what happens in a race.
If that was meant, run ``python tools/update_golden.py`` and read ``git diff tests/golden``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from game.commands.replay import load_replay_track
from game.core.rules import RuleSet
from game.core.vec import Vec
from game.race.referee import referee
from game.race.replay import load_replay
from game.race.report import dumps_outcome, outcome_json

GOLDEN = Path(__file__).parent / "golden"
REPLAYS = sorted(GOLDEN.glob("*.replay.toml"))


def outcome_of(path: Path) -> dict:
    replay = load_replay(path)
    result = referee(replay, load_replay_track(replay))
    return outcome_json(replay, result.final, result.records)


def pinned(path: Path) -> str:
    return path.with_name(path.name.replace(".replay.toml", ".outcome.json")).read_text(encoding="utf-8")


def test_the_golden_races_cover_every_preset():
    presets = {load_replay(p).rules.name for p in REPLAYS}
    assert presets == {"paper", "tournament", "phases", "karopapier", "arcade", "party"}


@pytest.mark.parametrize("path", REPLAYS, ids=[p.name.replace(".replay.toml", "") for p in REPLAYS])
def test_a_golden_replay_gives_its_pinned_outcome(path):
    """Every golden replay referees to its pinned outcome. A rule option added after the
    outcome was pinned is not in it: it must be at its default (the game as it was) and
    everything else identical, so old replays are shown to play on unchanged."""
    outcome, text = outcome_of(path), pinned(path)
    options = outcome["rules"]["options"]
    newer = set(options) - set(json.loads(text)["rules"]["options"])
    defaults = RuleSet().options()
    assert {k: options[k] for k in newer} == {k: defaults[k] for k in newer}
    for key in newer:
        del options[key]
    assert dumps_outcome(outcome) == text


def test_golden_arcade_sprint_hand_checked():
    """Checked by hand against the rules, not just pinned (see the replay's phases)."""
    outcome = json.loads(pinned(GOLDEN / "arcade-sprint.replay.toml"))
    events = outcome["events"]
    collisions = [(e["phase"], e["car"], e["point"]) for e in events if e["kind"] == "collision"]
    # Phase 1: Ada (from slot 1, 1) and Bo (from 1, 2) both pick node (2, 2): they meet there and spin.
    assert collisions == [(1, "Ada", [2, 2]), (1, "Bo", [2, 2])]
    spins = [(e["phase"], e["car"]) for e in events if e["detail"] == "spins out to zero speed"]
    assert spins == [(1, "Ada"), (1, "Bo")]
    # Phase 3: Bo, at (3, 1) with velocity (1, -1), picks (4, 0) on the border row; he leaves the road
    # half-way (3.5, 0.5), is put back on (3, 1) at rest and misses phase 4.
    off = [e for e in events if e["car"] == "Bo" and e["phase"] in (3, 4)]
    assert [(e["phase"], e["kind"]) for e in off] == [(3, "off_track"), (3, "penalty"), (4, "penalty")]
    assert off[0]["point"] == [3.5, 0.5] and off[1]["point"] == [3, 1]
    # Phase 4: Cy goes (7, 3) -> (10, 3) at speed 3 and crosses the line x = 8.5 half-way: he wins.
    finish = [e for e in events if e["kind"] == "finish"]
    assert finish == [{"phase": 4, "car": "Cy", "kind": "finish", "detail": "Cy finishes", "point": [8.5, 3],
                       "time": 0.5}]
    assert outcome["winners"] == ["Cy"] and outcome["finished"] is True and outcome["phases"] == 5
    assert [(c["name"], c["status"], c["rank"]) for c in outcome["cars"]] == [
        ("Ada", "retired", None), ("Bo", "retired", None), ("Cy", "finished", 1)]


def test_golden_phases_tie_hand_checked():
    """Ada and Bo drive side by side and cross the line in the same phase: under "draw" both win."""
    outcome = json.loads(pinned(GOLDEN / "phases-sprint-tie.replay.toml"))
    assert outcome["winners"] == ["Ada", "Bo"]
    assert [(c["name"], c["status"], c["rank"], c["moves"]) for c in outcome["cars"]] == [
        ("Ada", "finished", 1, 4), ("Bo", "finished", 1, 4), ("Cy", "retired", None, 1)]
    assert [(e["phase"], e["car"], e["kind"]) for e in outcome["events"]] == [
        (2, "Cy", "retire"), (4, "Ada", "finish"), (4, "Bo", "finish")]


def test_golden_cpu_races_finish_with_every_car_ranked():
    for name in ("paper-loop", "tournament-loop", "karopapier-ring", "arcade-loop"):
        outcome = json.loads(pinned(GOLDEN / f"{name}.replay.toml"))
        assert outcome["finished"], name
        ranks = sorted(c["rank"] for c in outcome["cars"] if c["status"] == "finished")
        assert ranks and ranks[0] == 1, name
        laps = outcome["laps"]
        assert all(c["laps_done"] == laps for c in outcome["cars"] if c["status"] == "finished"), name


def _refereed(name: str):
    replay = load_replay(GOLDEN / f"{name}.replay.toml")
    return replay, referee(replay, load_replay_track(replay))


def test_golden_party_loop_hand_checked():
    """The party race: the first chooser moves on by one each phase, a slipstream and a
    catch-up target are taken where the rules offer them (worked out on the loop's map)."""
    replay, result = _refereed("party-loop")
    assert [r.order[0] for r in result.records[:6]] == [0, 1, 2, 3, 0, 1]  # rotate over four cars
    # Phase 1: the Champion drives (8, 5) -> (9, 5); the Rookies drive (7, 5) -> (8, 5) and (7, 6) -> (8, 6),
    # within a square of (8, 5), going its way: each may pick one square further in phase 2. (The Pro,
    # (8, 6) -> (9, 5), turns 45 degrees off the Champion's way: no slipstream.)
    assert [(m.start, m.end) for m in result.records[0].moves] == [
        (Vec(8, 5), Vec(9, 5)), (Vec(8, 6), Vec(9, 5)), (Vec(7, 5), Vec(8, 5)), (Vec(7, 6), Vec(8, 6))]
    assert [e.detail for e in result.records[0].events if e.kind == "slipstream"] == [
        "Rookie 3 is in Champion 1's slipstream", "Rookie 4 is in Champion 1's slipstream"]
    # Phase 19: Rookie 4 drives (2, 2) -> (2, 4), Rookie 3 (1, 1) -> (1, 2), a square from (2, 2), the same way.
    # Phase 20: Rookie 3 at (1, 2) doing (0, 1), in Rookie 4's slipstream: base (1, 3),
    # its nine targets reach row 4, the slipstream row 5; it takes (2, 5), doing (1, 3).
    before = result.states[19]
    assert (before.cars[2].position, before.cars[2].velocity, before.cars[2].slipstream) == (
        Vec(1, 2), Vec(0, 1), True)
    assert [(m.car, m.start, m.end) for m in result.records[18].moves] == [
        (2, Vec(1, 1), Vec(1, 2)), (3, Vec(2, 2), Vec(2, 4))]
    assert replay.choices(20)[2] == Vec(2, 5) and result.states[20].cars[2].velocity == Vec(1, 3)
    # Phase 14: standings (3, 2, 7, 6): Rookie 3, 7 moves to go, is last. At (9, 2) doing (-1, 0) its
    # base is (8, 2) and its targets reach x = 7; catch-up adds (6, 2), which it takes.
    assert replay.standing(14) == (3, 2, 7, 6)
    here = result.states[13].with_standing(replay.standing(14))
    assert here.catches_up(2) and not any(here.catches_up(k) for k in (0, 1, 3))
    assert [c.node for c in here.candidates(2) if c.bonus] == [Vec(6, 2)] and replay.choices(14)[2] == Vec(6, 2)


def test_golden_snake_and_by_position_orders_hand_checked():
    _, snake = _refereed("paper-loop-snake")
    # Three cars: the first chooser is the digit sum of the phase (from 0) in base 3, modulo 3.
    assert [r.order[0] for r in snake.records[:9]] == [0, 1, 2, 1, 2, 0, 2, 0, 1]
    replay, by_position = _refereed("paper-loop-by-position")
    for number, record in enumerate(by_position.records, start=1):
        standing = replay.standing(number)
        racing = [i for i, d in enumerate(standing) if d is not None]
        first = max(racing, key=lambda i: (standing[i], -((i - (number - 1)) % 3)))
        assert record.order[0] == first, number  # most moves to go first; ties: the rotating turn
