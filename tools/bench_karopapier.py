"""Solve every Karopapier map exactly and print what it costs: time and peak memory per map.

Run from the checkout (the maps are test data, never shipped)::

    python tools/bench_karopapier.py                      # every map, each in its own process
    python tools/bench_karopapier.py --maps DIR --top 10  # another folder, the ten slowest
    python tools/bench_karopapier.py --one-process        # all maps in this process: does it pile up?
    python tools/bench_karopapier.py --only 155 167       # some maps
    python tools/bench_karopapier.py --reference          # and the independent search beside each par

Each map is solved under the "karopapier" preset from the best start place (its par).
Per map it prints the par, the table's states, CPU seconds, wall seconds and peak resident
memory (of its own process, or of this one with --one-process, where the figure is the
peak so far), then the slowest maps, the largest peak and the goal check: no map above
30 s or 2 GB (judged on CPU seconds, since wall seconds grow with whatever else the
machine runs; both are printed, with the load average before and after). The solver
runs within its memory budget (``--memory-budget``, 2 GB as in the game), so a map that
would need more is refused with its size and shows as over the goal.

With ``--reference`` each map is also searched by ``tests/karo_reference.py``, the plain
breadth-first search written apart from the game, up to ``--reference-states`` states:
the maps it settles are counted, with every one where its par and the solver's differ.
Memory is measured with ``resource.getrusage`` (peak resident set size).
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


def _default_maps() -> Path:
    here = Path(__file__).resolve().parent.parent
    for option in (here.parent / "shared" / "karopapier" / "maps", Path("/work/shared/karopapier/maps")):
        if option.is_dir():
            return option
    return here / "maps"


#: The goal for every real map: solved within this many seconds and this much resident memory.
GOAL_SECONDS, GOAL_MB = 30.0, 2048.0


def solve_one(path: str, memory_budget: int | None = None, reference_states: int = 0) -> dict:
    """Solve one map here; returns its figures (peak memory of this process so far).

    With ``reference_states`` the independent search runs too (after the figures are taken).
    """
    from game.core.rules import preset
    from game.drivers.solver import Solver, SolverError
    from game.tracks.pack import read_map_file

    began_cpu, began = time.process_time(), time.perf_counter()
    tracks = read_map_file(path).tracks
    row = {"map": Path(path).stem, "par": None, "states": 0, "note": ""}
    if not tracks:
        row["note"] = "does not load"
    else:
        try:
            solution = Solver(memory_budget=memory_budget).solve(tracks[0], preset("karopapier"))
            row.update(par=solution.par, states=solution.states, note=solution.reason or "")
        except SolverError as error:
            row["note"] = str(error)
    row["cpu"] = time.process_time() - began_cpu
    row["wall"] = time.perf_counter() - began
    row["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if reference_states:
        from tests.karo_reference import karopapier_search

        began = time.perf_counter()
        row["ref_settled"], row["ref_par"] = karopapier_search(Path(path).read_text(errors="replace"),
                                                               max_states=reference_states)
        row["ref_seconds"] = time.perf_counter() - began
    return row


def _child(path: str, memory_budget: int | None, reference_states: int, out) -> None:
    out.send(solve_one(path, memory_budget, reference_states))
    out.close()


def solve_apart(path: str, memory_budget: int | None = None, reference_states: int = 0) -> dict:
    """Solve one map in a fresh process (its peak memory is its own)."""
    context = multiprocessing.get_context("spawn")
    here, there = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(path, memory_budget, reference_states, there))
    process.start()
    row = here.recv() if here.poll(3600) else {"map": Path(path).stem, "note": "no answer", "cpu": 0, "wall": 0,
                                                 "peak_mb": 0, "par": None, "states": 0}
    process.join()
    return row


def _load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--maps", default=str(_default_maps()), help="folder of NAME.map files")
    parser.add_argument("--only", nargs="*", help="map ids to solve (default: all)")
    parser.add_argument("--top", type=int, default=5, help="how many of the slowest maps to list at the end")
    parser.add_argument("--one-process", action="store_true", help="solve every map in this process")
    parser.add_argument("--memory-budget", type=float, default=2.0, metavar="GB",
                        help="the solver's memory budget per map, in GB (default 2, as in the game)")
    parser.add_argument("--reference", action="store_true",
                        help="also run the independent search (tests/karo_reference.py) on each map")
    parser.add_argument("--reference-states", type=int, default=150_000, metavar="N",
                        help="states the independent search may visit per map before it gives up (default 150000)")
    args = parser.parse_args(argv)
    budget = int(args.memory_budget * 1024 ** 3)
    reference = args.reference_states if args.reference else 0
    folder = Path(args.maps)
    paths = sorted(folder.glob("*.map"), key=lambda p: (len(p.stem), p.stem))
    if args.only:
        paths = [folder / f"{m}.map" for m in args.only]
    if not paths:
        print(f"no maps in {folder}")
        return 1
    print(f"{len(paths)} maps, memory budget {args.memory_budget:g} GB; {_load()}", flush=True)
    if not args.one_process:
        solve_apart(str(paths[0]))  # compile or load the kernels once, outside the figures
    else:
        solve_one(str(paths[0]))
    rows = []
    print(f"{'map':>5} {'par':>5} {'states':>12} {'cpu s':>7} {'wall s':>7} {'peak MB':>8}"
          + (f" {'ref par':>7} {'ref s':>6}" if reference else "") + "  note")
    for path in paths:
        row = (solve_one(str(path), budget, reference) if args.one_process
               else solve_apart(str(path), budget, reference))
        rows.append(row)
        ref = ""
        if reference and "ref_settled" in row:
            ref = f" {str(row['ref_par']) if row['ref_settled'] else 'gave up':>7} {row['ref_seconds']:6.1f}"
        print(f"{row['map']:>5} {str(row['par']):>5} {row['states']:>12} {row['cpu']:7.2f} {row['wall']:7.2f} "
              f"{row['peak_mb']:8.0f}{ref}  {row['note'][:60]}", flush=True)
    slowest = sorted(rows, key=lambda r: -r["cpu"])[:args.top]
    print(f"\nslowest {len(slowest)} by CPU time:")
    for row in slowest:
        print(f"  map {row['map']}: {row['cpu']:.1f} s CPU, {row['wall']:.1f} s wall, peak {row['peak_mb']:.0f} MB")
    print(f"total {sum(r['cpu'] for r in rows):.0f} s CPU for {len(rows)} maps; largest peak "
          f"{max(r['peak_mb'] for r in rows):.0f} MB" + (" (this process)" if args.one_process else " (one map)"))
    over = [r for r in rows if r["cpu"] > GOAL_SECONDS or r["peak_mb"] > GOAL_MB or "memory budget" in r["note"]]
    print(f"goal (no map above {GOAL_SECONDS:.0f} s CPU or {GOAL_MB / 1024:.0f} GB): "
          + ("met" if not over else "missed by " + ", ".join(
              f"map {r['map']} ({r['cpu']:.1f} s, {r['peak_mb']:.0f} MB{', refused by the budget' if 'memory budget' in r['note'] else ''})"
              for r in over)))
    if reference:
        settled = [r for r in rows if r.get("ref_settled")]
        differ = [r for r in settled if r["ref_par"] != r["par"]]
        print(f"independent search: settled {len(settled)} of {len(rows)} maps within {reference} states "
              f"(slowest {max((r['ref_seconds'] for r in settled), default=0):.1f} s); the solver's par "
              + ("agrees on every one" if not differ else "differs on " + ", ".join(
                  f"map {r['map']} ({r['par']} vs {r['ref_par']})" for r in differ)))
    print(_load())
    return 1 if reference and differ else 0


if __name__ == "__main__":
    sys.exit(main())
