"""Party rules against arcade: CPU races side by side, with what slipstream and catch-up did.

Run from the checkout (a few minutes)::

    python tools/bench_party.py [--tracks starter/paper-oval,starter/bean] [--seeds 3] [--presets arcade,party]
    python tools/bench_party.py --presets party --seek both   # CPUs seeking a slipstream or not, one run

For each track, preset and seed it races the Champion, a Pro and two Rookies over one lap
(``racetrack sim``'s race, the solver's standing before every phase) and prints: phases,
the finishers' moves (best first), the spread (last finisher minus the winner), the
slipstream marks (all cars, then the Champion's and the Pro's: ``c+p``) and the slipstream or
catch-up targets the cars took, and the seconds the race took (CPU thinking included). With
``--seek both`` each race is run with the Pro and the Champion seeking a slipstream that
costs nothing and without, and the totals are printed side by side. Nothing is written.
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


def race_figures(track, ref: str, preset_name: str, seed: int, seek: bool = True) -> dict:
    """One race's figures; ``seek`` False: the Pro and the Champion do not look for a slipstream
    (``seeks_slipstream``, as before they did), for the comparison of ``--seek both``."""
    from game.commands.sim import simulate
    from game.core.rules import preset
    from game.drivers.cpu import ChampionDriver, ProDriver

    began = time.perf_counter()
    kept = ChampionDriver.seeks_slipstream, ProDriver.seeks_slipstream
    ChampionDriver.seeks_slipstream = ProDriver.seeks_slipstream = seek
    try:
        replay, state, records = simulate(track, ref, preset(preset_name), list(KINDS), 1, seed)
    finally:
        ChampionDriver.seeks_slipstream, ProDriver.seeks_slipstream = kept
    seconds = time.perf_counter() - began
    moves = sorted(c.moves for c in state.cars if c.status == "finished")
    smart = [car for car, kind in enumerate(KINDS) if kind in ("cpu:champion", "cpu:pro")]
    return {"phases": len(records), "moves": moves, "spread": moves[-1] - moves[0] if moves else None,
            "slipstream": sum(1 for r in records for e in r.events if e.kind == "slipstream"),
            "smart_slip": sum(1 for r in records for e in r.events if e.kind == "slipstream" and e.car in smart),
            "smart_moves": [state.cars[car].moves if state.cars[car].status == "finished" else None
                            for car in smart],
            "extra": extra_targets_taken(replay, track), "seconds": seconds}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tracks", default="starter/paper-oval,starter/bean,classics/grand-oval")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--presets", default="arcade,party")
    parser.add_argument("--seek", choices=("on", "off", "both"), default="on",
                        help="the Pro and the Champion look for a slipstream that costs nothing (both: each "
                             "race twice, off then on, and the totals side by side)")
    args = parser.parse_args(argv)
    from game import paths
    from game.drivers.generated import load_track

    seeks = {"on": (True,), "off": (False,), "both": (False, True)}[args.seek]
    totals = {seek: {"slip": 0, "smart": 0, "moves": [], "races": 0} for seek in seeks}
    print(f"{'track':22} {'rules':7} {'seed':>4} {'seek':>4} {'phases':>6} {'spread':>6} {'slip':>4} {'c+p':>4} "
          f"{'extra':>5} {'s':>6}  moves (champion, pro)  all finishers")
    for ref in args.tracks.split(","):
        track = load_track(ref, builtin_dir=paths.builtin_tracks_dir())
        for name in args.presets.split(","):
            for seed in range(args.seeds):
                for seek in seeks:
                    f = race_figures(track, ref, name, seed, seek)
                    t = totals[seek]
                    t["slip"] += f["slipstream"]
                    t["smart"] += f["smart_slip"]
                    t["moves"] += [m for m in f["smart_moves"] if m is not None]
                    t["races"] += 1
                    print(f"{ref:22} {name:7} {seed:>4} {'on' if seek else 'off':>4} {f['phases']:>6} "
                          f"{f['spread']!s:>6} {f['slipstream']:>4} {f['smart_slip']:>4} {f['extra']:>5} "
                          f"{f['seconds']:>6.1f}  {f['smart_moves']}  {f['moves']}", flush=True)
    print("\nslipstream seeking: races, slipstream marks (all cars), marks of the Champion and Pro, "
          "their mean finishing moves")
    for seek, t in totals.items():
        mean = sum(t["moves"]) / len(t["moves"]) if t["moves"] else float("nan")
        print(f"  {'on ' if seek else 'off'}  {t['races']:3d} races  {t['slip']:4d}  {t['smart']:4d}  {mean:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
