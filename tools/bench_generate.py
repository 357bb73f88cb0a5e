"""How long a generated track and its solver checks take, per size, and how many candidates are rejected.

Run from the checkout::

    python tools/bench_generate.py                       # 100 codes per size (seeds 0-99 of version 1)
    python tools/bench_generate.py --count 200 --verify  # and check every track again from its pack text
    python tools/bench_generate.py --sizes medium --terrain --first 500

Per size it prints the median and 95th percentile of the seconds one code takes (drawing
every candidate until one passes, with the solver's checks), the rejection rate (rejected
candidates over all candidates drawn) with the reasons, and the machine's load average
before and after (the machine may be shared: the figures are only comparable at a
similar load). The solver's kernels are loaded before the clock starts.

With ``--verify`` every track is checked again the long way, apart from the generator's own
bookkeeping: its final pack text is read back as any pack is (no problem allowed), the
solver solves every start place of the track read back (``Solver.solve(slot=k)``), and
the checks are recomputed: at least 8 places, par in the size's range and equal to the
pinned ``par``, every place within 1 move of the best and the grid in order (slot 1
fastest), two optimal lines parting for 3 phases or more, the road 3 squares wide.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def verify(made, solver) -> list[str]:
    """Every check recomputed from the pack text alone; the problems found (empty: all hold)."""
    from game.core.rules import preset
    from game.drivers.generated import MIN_PARTING, MIN_WIDTH, lines_parting, narrowest_road
    from game.tracks.generator import PAR_RANGES
    from game.tracks.pack import read_pack_text

    problems = []
    result = read_pack_text(made.text, file=f"gen:{made.code}")
    if result.problems or len(result.tracks) != 1:
        return [f"pack text: {p}" for p in result.problems] or ["pack text: no track"]
    track = result.tracks[0]
    if len(track.start_slots) < 8:
        problems.append(f"{len(track.start_slots)} start places")
    rules = preset(track.default_rules)
    pars = [solver.solve(track, rules, track.default_laps, slot=k).par for k in range(len(track.start_slots))]
    if None in pars:
        return problems + [f"a start place cannot finish: {pars}"]
    lo, hi = PAR_RANGES[made.spec.size]
    best = min(pars)
    if not lo <= best <= hi:
        problems.append(f"par {best} outside {lo}-{hi}")
    if track.meta.get("par") != best:
        problems.append(f"pinned par {track.meta.get('par')} but the solver says {best}")
    if max(pars) - best > 1:
        problems.append(f"start places need {best} to {max(pars)} moves")
    if pars != sorted(pars):
        problems.append(f"grid not in par order: {pars}")
    table = solver.table(track, rules, track.default_laps)
    if lines_parting(table, int(table.start_ids[0])) < MIN_PARTING:
        problems.append("optimal lines do not part for 3 phases")
    if narrowest_road(track, made.candidate.centre_line()) < MIN_WIDTH:
        problems.append("road narrower than 3 squares")
    return problems


def main(argv: list[str] | None = None) -> int:
    from game.drivers.generated import GenerationError, generate
    from game.drivers.solver import Solver
    from game.tracks.generator import SIZES, Spec

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="codes per size (default 100)")
    parser.add_argument("--first", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--sizes", nargs="+", choices=SIZES, default=list(SIZES))
    parser.add_argument("--terrain", action="store_true", help="codes with terrain patches")
    parser.add_argument("--verify", action="store_true", help="check every track again from its pack text")
    args = parser.parse_args(argv)

    solver = Solver(max_tables=1)
    generate(Spec(1, "short", False, 0), solver=solver)  # load the kernels before the clock runs
    failed = 0
    for size in args.sizes:
        load_before = os.getloadavg()
        times, attempts, reasons, kinds = [], 0, Counter(), Counter()
        bad = []
        for seed in range(args.first, args.first + args.count):
            spec = Spec(1, size, args.terrain, seed)
            began = time.perf_counter()
            try:
                made = generate(spec, solver=solver)
            except GenerationError as error:
                bad.append(f"{spec.code}: {error}")
                continue
            times.append(time.perf_counter() - began)
            attempts += made.attempt + 1
            kinds[made.kind] += 1
            for _, why in made.rejected:
                reasons[why.split(":")[0] if not why.startswith("par") else "par out of range"] += 1
            if args.verify:
                found = verify(made, Solver(max_tables=1))
                if found:
                    bad.append(f"{made.code}: " + "; ".join(found))
        load_after = os.getloadavg()
        times.sort()
        rejected = attempts - len(times)
        print(f"{size}{' terrain' if args.terrain else ''}: {len(times)} codes, median {statistics.median(times):.2f} s, "
              f"p95 {times[min(len(times) - 1, int(0.95 * len(times)))]:.2f} s, max {times[-1]:.2f} s; "
              f"rejection rate {rejected}/{attempts} = {rejected / max(1, attempts):.0%} "
              f"({', '.join(f'{n} {w}' for w, n in reasons.most_common()) or 'none'}); "
              f"{', '.join(f'{n} {k}s' for k, n in sorted(kinds.items()))}; "
              f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after")
        if args.verify:
            print(f"  verified from the pack text: {len(times) - len(bad)}/{args.count} pass every check")
        for line in bad:
            print("  FAILED " + line)
        failed += len(bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
