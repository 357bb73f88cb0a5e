"""Solve the Karopapier maps with sand and mud under terrain effects, beside their par with terrain off-road.

Run from the checkout (the maps are test data, never shipped)::

    python tools/bench_terrain.py                     # every map with sand (Y) or mud (Z)
    python tools/bench_terrain.py --only 111 155      # some maps
    python tools/bench_terrain.py --reference         # and the independent search beside each par
    python tools/bench_terrain.py --rules paper       # another preset for the effects (default karopapier)

Per map, in one process of its own (its peak memory is its own), it prints the sand and
mud cells, the par and CPU seconds under the ``karopapier`` preset (``terrain = "offroad"``,
Karopapier's own rule: what the maps' pinned pars are) and under the chosen preset with
``terrain = "effects"`` (sand and mud are road that slows), the ratio of the two times
measured in the same run, and peak resident memory. Then the totals, the slowest maps and
the goal check: every map has a par under effects, none takes more than 30 s of CPU or 2 GB.
With ``--reference`` the plain breadth-first search of ``tests/terrain_reference.py``
(written apart from the game; karopapier rules with effects only) also searches each map,
up to ``--reference-states`` states, and every map where it settles and disagrees is listed.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

GOAL_SECONDS, GOAL_MB = 30.0, 2048.0


def _default_maps() -> Path:
    here = Path(__file__).resolve().parent.parent
    for option in (here.parent / "shared" / "karopapier" / "maps", Path("/work/shared/karopapier/maps")):
        if option.is_dir():
            return option
    return here / "maps"


def solve_one(path: str, rules_name: str, reference_states: int) -> dict:
    """Both pars of one map and what each cost (CPU seconds of this process)."""
    from game.core.rules import preset
    from game.drivers.solver import Solver, SolverError
    from game.tracks.pack import read_map_file

    text = Path(path).read_text(errors="replace")
    row = {"map": Path(path).stem, "sand": text.count("Y"), "mud": text.count("Z"), "note": ""}
    tracks = read_map_file(path).tracks
    if not tracks:
        row["note"] = "does not load"
        return row
    for label, rules in (("off", preset("karopapier")), ("eff", preset(rules_name).with_options(terrain="effects"))):
        began = time.process_time()
        try:
            solution = Solver().solve(tracks[0], rules)
            row[f"{label}_par"], row[f"{label}_states"] = solution.par, solution.states
        except SolverError as error:
            row[f"{label}_par"], row[f"{label}_states"] = None, 0
            row["note"] = str(error)[:80]
        row[f"{label}_cpu"] = time.process_time() - began
    row["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if reference_states:
        from tests.terrain_reference import terrain_par

        began = time.process_time()
        row["ref_par"] = terrain_par(text, max_states=reference_states)
        row["ref_cpu"] = time.process_time() - began
    return row


def _child(path, rules_name, reference_states, out) -> None:
    out.send(solve_one(path, rules_name, reference_states))
    out.close()


def solve_apart(path: str, rules_name: str, reference_states: int) -> dict:
    context = multiprocessing.get_context("spawn")
    here, there = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(path, rules_name, reference_states, there))
    process.start()
    row = here.recv() if here.poll(3600) else {"map": Path(path).stem, "note": "no answer"}
    process.join()
    return row


def _load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--maps", default=str(_default_maps()), help="folder of NAME.map files")
    parser.add_argument("--only", nargs="*", help="map ids (default: every map with sand or mud)")
    parser.add_argument("--rules", default="karopapier", help="preset played with terrain effects (default karopapier)")
    parser.add_argument("--reference", action="store_true", help="also run tests/terrain_reference.py on each map")
    parser.add_argument("--reference-states", type=int, default=300_000, metavar="N",
                        help="states the independent search may visit per map (default 300000)")
    args = parser.parse_args(argv)
    folder = Path(args.maps)
    paths = sorted(folder.glob("*.map"), key=lambda p: (len(p.stem), p.stem))
    if args.only:
        paths = [folder / f"{m}.map" for m in args.only]
    else:
        paths = [p for p in paths if any(ch in p.read_text(errors="replace") for ch in "YZ")]
    if not paths:
        print(f"no maps with sand or mud in {folder}")
        return 1
    reference = args.reference_states if args.reference else 0
    if reference and args.rules != "karopapier":
        parser.error("--reference checks the karopapier rules with effects: leave out --rules")
    print(f"{len(paths)} maps with sand or mud; effects under the {args.rules} preset; {_load()}", flush=True)
    solve_apart(str(paths[0]), args.rules, 0)  # compile or load the kernels once, outside the figures
    print(f"{'map':>5} {'sand':>5} {'mud':>5} {'par off':>7} {'cpu s':>6} {'par eff':>7} {'cpu s':>6} "
          f"{'states eff':>11} {'ratio':>6} {'peak MB':>8}" + (f" {'ref':>5}" if reference else "") + "  note")
    rows = []
    for path in paths:
        row = solve_apart(str(path), args.rules, reference)
        rows.append(row)
        if "off_cpu" not in row:
            print(f"{row['map']:>5}  {row['note']}")
            continue
        ratio = row["eff_cpu"] / max(row["off_cpu"], 1e-3)
        ref = f" {str(row.get('ref_par')):>5}" if reference else ""
        print(f"{row['map']:>5} {row['sand']:>5} {row['mud']:>5} {str(row['off_par']):>7} {row['off_cpu']:6.2f} "
              f"{str(row['eff_par']):>7} {row['eff_cpu']:6.2f} {row['eff_states']:>11} {ratio:6.2f} "
              f"{row['peak_mb']:8.0f}{ref}  {row['note']}", flush=True)
    done = [r for r in rows if "off_cpu" in r]
    total_off, total_eff = sum(r["off_cpu"] for r in done), sum(r["eff_cpu"] for r in done)
    print(f"\ntotal {total_off:.1f} s CPU with terrain off-road, {total_eff:.1f} s with effects "
          f"(ratio {total_eff / max(total_off, 1e-3):.2f}) for {len(done)} maps; largest peak "
          f"{max((r['peak_mb'] for r in done), default=0):.0f} MB (one map)")
    for row in sorted(done, key=lambda r: -r["eff_cpu"])[:5]:
        print(f"  map {row['map']}: {row['eff_cpu']:.1f} s CPU under effects ({row['eff_states']} states)")
    changed = [r for r in done if r["eff_par"] != r["off_par"]]
    print(f"par changed by the terrain on {len(changed)} of {len(done)} maps: "
          + ", ".join(f"{r['map']} ({r['off_par']} -> {r['eff_par']})" for r in changed))
    over = [r for r in done if r["eff_par"] is None or r["eff_cpu"] > GOAL_SECONDS or r["peak_mb"] > GOAL_MB]
    print(f"goal (a par under effects on every map, none above {GOAL_SECONDS:.0f} s CPU or {GOAL_MB / 1024:.0f} GB): "
          + ("met" if not over and len(done) == len(rows) else "missed by " + ", ".join(r["map"] for r in over)))
    differ = []
    if reference:
        settled = [r for r in done if r.get("ref_par") is not None]
        differ = [r for r in settled if r["ref_par"] != r["eff_par"]]
        print(f"independent search (karopapier rules with effects): settled {len(settled)} of {len(done)} maps; "
              + ("agrees on every one" if not differ else "differs on " + ", ".join(
                  f"{r['map']} ({r['eff_par']} vs {r['ref_par']})" for r in differ)))
    print(_load())
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
