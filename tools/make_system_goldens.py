"""Record one small golden race per movement system into tests/golden_systems/.

Run from the checkout:  python tools/make_system_goldens.py

Each race is two cars, one lap of the golden loop track under the "paper" preset with the
movement system (and braking / fine range) changed. The cars are driven by a simple
seeded chooser written here (head for the next gate, keep speed down near walls), so the
recorded choices do not depend on the CPU drivers. Then pin the outcomes with
``python tools/update_golden.py --dir tests/golden_systems`` and read the diff. Only
rerun this after a deliberate change to the systems: the golden test exists to catch
changes nobody meant.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from game.core.vec import Vec

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden_systems"

SYSTEMS = {
    "cross": {"movement": "cross"},
    "scalar": {"movement": "scalar"},
    "graded": {"movement": "graded"},
    "hard-braking": {"braking": "hard"},
    "fine": {"movement": "fine"},
    "flick": {"movement": "flick"},
}


def distance_field(track):
    """Road steps (8-neighbour BFS) to the next lap's finish crossing, from every road node."""
    road = track.region.road_nodes()
    h, w = road.shape
    dist = np.full((h, w), 10**9)
    gate = track.finish
    frontier = []
    for y in range(h):
        for x in range(w):
            # Nodes just behind the finish line, within its ends, are the goal.
            if road[y, x] and gate.signed_distance((x, y)) < 0 and gate.signed_distance((x, y)) > -1.5:
                (ax, ay), (bx, by) = gate.a, gate.b
                if min(ay, by) <= y <= max(ay, by) and min(ax, bx) - 1.5 <= x <= max(ax, bx) + 1.5:
                    dist[y, x] = 0
                    frontier.append((x, y))
    while frontier:
        nxt = []
        for x, y in frontier:
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    nx, ny = x + dx, y + dy
                    if 0 <= nx < w and 0 <= ny < h and road[ny, nx] and dist[ny, nx] > dist[y, x] + 1:
                        # Never step back across the line itself from behind it.
                        if gate.crossing(Vec(x, y), Vec(nx, ny)) is not None \
                                or gate.crossing(Vec(nx, ny), Vec(x, y)) is not None:
                            continue
                        dist[ny, nx] = dist[y, x] + 1
                        nxt.append((nx, ny))
        frontier = nxt
    return dist


def choose(state, car, dist, rng):
    c = state.cars[car]
    scale = state.track.scale
    best, best_score = None, None
    for cand in state.candidates(car):
        if not cand.legal:
            continue
        x, y = round(cand.node.x / scale), round(cand.node.y / scale)
        d = dist[y, x] if 0 <= y < dist.shape[0] and 0 <= x < dist.shape[1] else 10**9
        speed = (cand.node - c.position).chebyshev() / scale
        crossing = state.track.finish.crossing(c.position, cand.node)
        if crossing is not None:
            d = -10 if crossing[0] > 0 and not c.progress.finish_debt else 50  # the goal / never back over it
        score = d + (25 if cand.offroad else 0) + 6 * max(0, speed - 2) + rng.random() * 0.5
        if best_score is None or score < best_score:
            best, best_score = cand.node, score
    return best


def record(name, overrides, seed=5):
    from game.core.race import RaceState
    from game.core.rules import preset
    from game.race.replay import Replay, save_replay
    from game.tracks import load_track_ref

    track = load_track_ref(str(ROOT / "tests" / "golden" / "pack.toml") + "#loop", builtin_dir=ROOT / "tracks")
    rules = preset("paper", overrides)
    state = RaceState.start(track, rules, ["Ada", "Bo"], laps=1, seed=seed)
    dist = distance_field(track)
    rng = random.Random(seed)
    phases = []
    while not state.over and state.phase < 80:
        choices = {}
        for car in state.to_choose():
            target = choose(state, car, dist, rng)
            if target is not None:
                choices[car] = target
        state, rec = state.apply(choices)
        phases.append(rec)
    replay = Replay.from_race("../golden/pack.toml#loop", 1, rules, seed, [("Ada", "script"), ("Bo", "script")],
                              phases, title=f"One lap of the loop, {name} movement")
    save_replay(replay, OUT / f"{name}.replay.toml")
    print(f"{name}: {state.phase} phases, outcome {state.outcome().ranks}")


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, overrides in SYSTEMS.items():
        record(name, overrides)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
