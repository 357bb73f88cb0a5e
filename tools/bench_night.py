"""Night races: how often do the CPUs finish at night, and how many moves over the day par?

How to run (from the checkout)::

    python tools/bench_night.py                        # 20 races: 4 starter/classic tracks x 5 seeds
    python tools/bench_night.py --races 8 --radius 4   # fewer races, shorter headlights
    python tools/bench_night.py --tracks starter/bean,starter/paper-oval --rules paper
    python tools/bench_night.py --movement fine         # fine paper (or flick): against each level's day moves

Each race puts a Champion, a Pro and a Rookie on the grid under the track's rules (or
``--rules``) with ``sight = "night"``, played headless through race control as
``racetrack sim`` plays one. Par is the day par (the solver's, which ignores sight) from
each car's own start place over the race's laps. Printed per level: the finishing
rate, the mean moves over that par of the cars that finished, and the mean crashes
(off-track events) a race; then the same for one lone Champion by day, as the yardstick
(it drives exactly par). The figure to watch: Champion before Pro before Rookie, and
most cars finishing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

DEFAULT_TRACKS = "starter/paper-oval,starter/bean,starter/first-sprint,classics/dogleg-dash"
LEVELS = ("cpu:champion", "cpu:pro", "cpu:rookie")


class DayMoves:
    """The yardstick on fine paper and under the flick: each car's moves in the same race by day."""

    def __init__(self, final) -> None:
        self.final = final

    def solution(self, car: int):
        c = self.final.cars[car]
        return type("Par", (), {"par": c.moves if c.status == "finished" else float("nan")})


def main(argv=None) -> int:
    from game.commands.sim import simulate
    from game.core.rules import preset
    from game.drivers.generated import load_track
    from game.drivers.solver import Solver
    from game.paths import builtin_tracks_dir

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--races", type=int, default=20)
    parser.add_argument("--tracks", default=DEFAULT_TRACKS)
    parser.add_argument("--rules", default=None, help="rule preset (default: each track's)")
    parser.add_argument("--radius", type=int, default=6, help="sight_radius in squares")
    parser.add_argument("--movement", default=None, choices=("fine", "flick"),
                        help="fine paper or the pen flick: no solver par there, so each car's yardstick is "
                             "its own moves in the same race by day")
    args = parser.parse_args(argv)

    refs = [r.strip() for r in args.tracks.split(",") if r.strip()]
    solver = Solver()
    stats = {kind: {"cars": 0, "finished": 0, "over": [], "crashes": 0} for kind in LEVELS}
    started = time.perf_counter()
    for n in range(args.races):
        ref = refs[n % len(refs)]
        seed = n // len(refs)
        track = load_track(ref, builtin_dir=builtin_tracks_dir())
        extra = {"movement": args.movement} if args.movement else {}
        rules = preset(args.rules or track.default_rules or "paper",
                       {"sight": "night", "sight_radius": args.radius, **extra})
        _, final, records = simulate(track, ref, rules, list(LEVELS), None, seed)
        if args.movement:  # the same race by day: each level's own moves are its par
            _, day, _ = simulate(track, ref, rules.with_options(sight="day"), list(LEVELS), None, seed)
            table = DayMoves(day)
        else:
            table = solver.table(final.track, rules, final.laps)
        line = []
        for car, kind in enumerate(LEVELS):
            s = stats[kind]
            s["cars"] += 1
            crashes = sum(1 for r in records for e in r.events if e.car == car and e.kind == "off_track")
            s["crashes"] += crashes
            c = final.cars[car]
            if c.status == "finished":
                par = table.solution(car).par
                s["finished"] += 1
                s["over"].append(c.moves - par)
                line.append(f"{kind[4:]} {c.moves}/{par}")
            else:
                line.append(f"{kind[4:]} {c.status}")
            line[-1] += f" ({crashes} crash{'es' if crashes != 1 else ''})"
        print(f"race {n + 1:2d} {ref} seed {seed}: " + ", ".join(line), flush=True)
    print(f"\n{args.races} night races, sight_radius {args.radius}, {time.perf_counter() - started:.0f} s")
    yard = "over own day moves" if args.movement else "moves over day par"
    print(f"{'level':10s} {'finished':>9s} {yard:>19s} {'crashes a race':>15s}")
    for kind, s in stats.items():
        rate = s["finished"] / max(1, s["cars"])
        over = sum(s["over"]) / len(s["over"]) if s["over"] else float("nan")
        print(f"{kind[4:]:10s} {rate:9.0%} {over:19.1f} {s['crashes'] / max(1, s['cars']):15.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
