"""Solve every Karopapier map exactly and print what it costs: time and peak memory per map.

Run from the checkout (the maps are test data, never shipped)::

    python tools/bench_karopapier.py                      # every map, each in its own process
    python tools/bench_karopapier.py --maps DIR --top 10  # another folder, the ten slowest
    python tools/bench_karopapier.py --one-process        # all maps in this process: does it pile up?
    python tools/bench_karopapier.py --only 155 167       # some maps

Each map is solved under the "karopapier" preset from the best start place (its par).
Per map it prints the par, the table's states, CPU seconds, wall seconds and peak resident
memory (of its own process, or of this one with --one-process, where the figure is the
peak so far), then the slowest maps and the largest peak. Wall times depend on what else
the machine runs; CPU times less so. Memory is measured with ``resource.getrusage``.
"""

from __future__ import annotations

import argparse
import multiprocessing
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


def solve_one(path: str) -> dict:
    """Solve one map here; returns its figures (peak memory of this process so far)."""
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
            solution = Solver().solve(tracks[0], preset("karopapier"))
            row.update(par=solution.par, states=solution.states, note=solution.reason or "")
        except SolverError as error:
            row["note"] = str(error)
    row["cpu"] = time.process_time() - began_cpu
    row["wall"] = time.perf_counter() - began
    row["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return row


def _child(path: str, out) -> None:
    out.send(solve_one(path))
    out.close()


def solve_apart(path: str) -> dict:
    """Solve one map in a fresh process (its peak memory is its own)."""
    context = multiprocessing.get_context("spawn")
    here, there = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(path, there))
    process.start()
    row = here.recv() if here.poll(3600) else {"map": Path(path).stem, "note": "no answer", "cpu": 0, "wall": 0,
                                                 "peak_mb": 0, "par": None, "states": 0}
    process.join()
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--maps", default=str(_default_maps()), help="folder of NAME.map files")
    parser.add_argument("--only", nargs="*", help="map ids to solve (default: all)")
    parser.add_argument("--top", type=int, default=5, help="how many of the slowest maps to list at the end")
    parser.add_argument("--one-process", action="store_true", help="solve every map in this process")
    args = parser.parse_args(argv)
    folder = Path(args.maps)
    paths = sorted(folder.glob("*.map"), key=lambda p: (len(p.stem), p.stem))
    if args.only:
        paths = [folder / f"{m}.map" for m in args.only]
    if not paths:
        print(f"no maps in {folder}")
        return 1
    if not args.one_process:
        solve_apart(str(paths[0]))  # compile or load the kernels once, outside the figures
    else:
        solve_one(str(paths[0]))
    rows = []
    print(f"{'map':>5} {'par':>5} {'states':>12} {'cpu s':>7} {'wall s':>7} {'peak MB':>8}  note")
    for path in paths:
        row = solve_one(str(path)) if args.one_process else solve_apart(str(path))
        rows.append(row)
        print(f"{row['map']:>5} {str(row['par']):>5} {row['states']:>12} {row['cpu']:7.2f} {row['wall']:7.2f} "
              f"{row['peak_mb']:8.0f}  {row['note'][:60]}", flush=True)
    slowest = sorted(rows, key=lambda r: -r["cpu"])[:args.top]
    print(f"\nslowest {len(slowest)} by CPU time:")
    for row in slowest:
        print(f"  map {row['map']}: {row['cpu']:.1f} s CPU, {row['wall']:.1f} s wall, peak {row['peak_mb']:.0f} MB")
    print(f"total {sum(r['cpu'] for r in rows):.0f} s CPU for {len(rows)} maps; largest peak "
          f"{max(r['peak_mb'] for r in rows):.0f} MB" + (" (this process)" if args.one_process else " (one map)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
