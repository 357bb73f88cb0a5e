"""Party rules against arcade: CPU races side by side, with what slipstream and catch-up did.

Run from the checkout (a few minutes)::

    python tools/bench_party.py [--tracks starter/paper-oval,starter/bean] [--seeds 3] [--presets arcade,party]

For each track, preset and seed it races the Champion, a Pro and two Rookies over one lap
(``racetrack sim``'s race, the solver's standing before every phase) and prints: phases,
the finishers' moves (best first), the spread (last finisher minus the winner), the
slipstream marks and the slipstream or catch-up targets the cars took, and the seconds the
race took (CPU thinking included). Nothing is written.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

KINDS = ("cpu:champion", "cpu:pro", "cpu:rookie", "cpu:rookie")


def extra_targets_taken(replay, track) -> int:
    """How many choices of the race were slipstream or catch-up targets (refereed again)."""
    from game.race.referee import referee

    result = referee(replay, track)
    taken = 0
    for k, record in enumerate(result.records):
        state = result.states[k].with_standing(record.standing) if record.standing else result.states[k]
        for car, choice in record.choices.items():
            if hasattr(choice, "x") and choice - state.base_point(car) in state.bonus_steps(car):
                taken += 1
    return taken


def race_figures(track, ref: str, preset_name: str, seed: int) -> dict:
    from game.commands.sim import simulate
    from game.core.rules import preset

    began = time.perf_counter()
    replay, state, records = simulate(track, ref, preset(preset_name), list(KINDS), 1, seed)
    seconds = time.perf_counter() - began
    moves = sorted(c.moves for c in state.cars if c.status == "finished")
    return {"phases": len(records), "moves": moves, "spread": moves[-1] - moves[0] if moves else None,
            "slipstream": sum(1 for r in records for e in r.events if e.kind == "slipstream"),
            "extra": extra_targets_taken(replay, track), "seconds": seconds}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tracks", default="starter/paper-oval,starter/bean,classics/grand-oval")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--presets", default="arcade,party")
    args = parser.parse_args(argv)
    from game import paths
    from game.drivers.generated import load_track

    print(f"{'track':22} {'rules':7} {'seed':>4} {'phases':>6} {'spread':>6} {'slip':>4} {'extra':>5} {'s':>6}  moves")
    for ref in args.tracks.split(","):
        track = load_track(ref, builtin_dir=paths.builtin_tracks_dir())
        for name in args.presets.split(","):
            for seed in range(args.seeds):
                f = race_figures(track, ref, name, seed)
                print(f"{ref:22} {name:7} {seed:>4} {f['phases']:>6} {f['spread']!s:>6} {f['slipstream']:>4} "
                      f"{f['extra']:>5} {f['seconds']:>6.1f}  {f['moves']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
