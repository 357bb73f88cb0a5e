"""The exact solver on a 200x120 loop against a plain C++ layered breadth-first search, in one run.

Run from the checkout:  python tools/bench_solver.py [--repeats N] [--size WxH]

The track is ``tools/bench_cpu.ring_track`` (a rectangular ring with a chicane, one
checkpoint, the finish on the top straight). Both programs search the same race: one
car, the nine-point moves, a move allowed only when it stays on the road
(``offroad_penalty = "forbid"``), every start place at rest, the checkpoint before the
finish. The C++ program (``tools/bench_solver_bfs.cpp``) is built with ``g++ -O2`` into a
temporary folder at each run (no binary is kept) and finds every reachable state layer
by layer, as the solver's forward pass does; it does not work out distances backwards,
nor finish debts (its figure is a lower bound of the work). Printed:

- both pars (they must agree) and reachable states (ours with those that carry a finish
  debt, which the C++ search does not model);
- the solver's table build (median of ``--repeats``, kernels loaded first, apart), split
  into building move rows (``MoveTables.build_rows``), the backward distances and the
  rest (the forward search and its pages); the move rows' (row, road node) entries
  against the states reached;
- the C++ search alone, its whole process (start, read the track, search, exit) and
  the ratios: ours over its search, ours over its whole process (wall and CPU time),
  and the CPU time per reached state of both;
- the solver under the game's usual rules (``paper``: a crash restarts the car), for
  comparison.

Without a C++ compiler (``g++`` or ``c++`` on the PATH) it says so and prints our figures
alone. Wall-clock times on a shared machine carry the others' work: the load average is
printed at the start and the end.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

SOURCE = ROOT / "tools" / "bench_solver_bfs.cpp"


def track_text(track) -> str:
    """The track in the C++ program's input format (see bench_solver_bfs.cpp)."""
    road = track.region.road
    height, width = road.shape
    lines = [f"{width} {height}"]
    lines += ["".join("." if cell else "#" for cell in row) for row in road]
    lines.append(str(len(track.start_slots)))
    lines += [f"{s.x} {s.y}" for s in track.start_slots]
    for gate in (track.finish, track.checkpoints[0]):
        lines.append(" ".join(str(v) for v in (*gate.a, *gate.b, *gate.forward)))
    return "\n".join(lines) + "\n"


def build_cpp(folder: Path) -> tuple[Path | None, str]:
    """The C++ search compiled into ``folder`` (None and why not, without a compiler or on an error)."""
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        return None, "no C++ compiler (g++ or c++) on the PATH: the C++ search is not run"
    program = folder / "bench_solver_bfs"
    done = subprocess.run([compiler, "-O2", "-std=c++17", "-o", str(program), str(SOURCE)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        return None, f"the C++ search did not build ({compiler}):\n{done.stderr.strip()}"
    return program, compiler


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_cpp(program: Path, text: str) -> dict:
    """One run of the C++ search: its figures and the whole process's wall and CPU time."""
    began, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run([str(program)], input=text, capture_output=True, text=True, check=True)
    whole, whole_cpu = time.perf_counter() - began, _children_cpu() - cpu
    figures = dict(line.split() for line in done.stdout.splitlines() if line.strip())
    return {"par": int(figures["par"]), "states": int(figures["states"]), "search": float(figures["search_seconds"]),
            "to_par": float(figures["par_seconds"]), "search_cpu": float(figures["search_cpu_seconds"]),
            "process": whole, "process_cpu": whole_cpu}


class Timed:
    """Seconds spent in some methods of the solver during a table build (wrapped for this run only)."""

    def __init__(self, owners: dict[str, tuple[type, str]]) -> None:
        self.owners = owners
        self.seconds = dict.fromkeys(owners, 0.0)
        self.cpu = dict.fromkeys(owners, 0.0)  # the process's CPU seconds (the row builder may use two threads)
        self._saved = {}

    def __enter__(self) -> Timed:
        for label, (cls, name) in self.owners.items():
            original = getattr(cls, name)
            self._saved[label] = (cls, name, original)

            def wrapped(*args, _original=original, _label=label, **kwargs):
                began, cpu = time.perf_counter(), time.process_time()
                try:
                    return _original(*args, **kwargs)
                finally:
                    self.seconds[_label] += time.perf_counter() - began
                    self.cpu[_label] += time.process_time() - cpu

            setattr(cls, name, wrapped)
        return self

    def __exit__(self, *exc) -> None:
        for cls, name, original in self._saved.values():
            setattr(cls, name, original)


def bench_ours(track, rules, repeats: int) -> dict:
    """The solver's table for ``track`` under ``rules``: median build time, its split and its figures."""
    from game.drivers.moves import MoveTables
    from game.drivers.solver import SolverTable

    runs = []
    for _ in range(repeats):
        with Timed({"rows": (MoveTables, "build_rows"), "distances": (SolverTable, "_distances")}) as timed:
            began, cpu = time.perf_counter(), time.process_time()
            table = SolverTable(track, rules, 1)
            runs.append((time.perf_counter() - began, time.process_time() - cpu, dict(timed.seconds), dict(timed.cpu),
                         table))
    runs.sort(key=lambda run: run[0])
    wall, cpu, split, split_cpu, table = runs[len(runs) // 2]
    entries = len(table.moves.offsets) * table.moves.n_road
    import numpy as np

    reached = np.flatnonzero(np.unpackbits(table._bits, bitorder="little")[:table.n_pages * table.nr])
    progress = table.page_pid[reached // table.nr]
    debts = np.array([table.progress.values[p].finish_debt > 0 for p in range(len(table.progress.values))])
    in_debt = int(debts[progress].sum())
    return {"wall": wall, "cpu": cpu, "split": split, "split_cpu": split_cpu, "par": table.solution().par,
            "states": table.n_states, "in_debt": in_debt,
            "rows": len(table.moves.offsets), "entries": entries, "road": table.moves.n_road,
            "spread": (runs[0][0], runs[-1][0])}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="table builds (the median is reported)")
    parser.add_argument("--size", default="200x120", help="the ring's size, WxH (default 200x120)")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))

    from bench_cpu import ring_track

    from game.core import preset
    from game.drivers.solver import warm_up

    if hasattr(os, "getloadavg"):
        print(f"machine load (1-minute average) at the start: {os.getloadavg()[0]:.2f}")
    track = ring_track(width, height, 10, f"ring-{width}x{height}")
    forbid = preset("paper").with_options(offroad_penalty="forbid")
    began = time.perf_counter()
    warm_up()
    print(f"solver kernels loaded (or compiled): {time.perf_counter() - began:.2f} s, once per process, apart")
    ours = bench_ours(track, forbid, args.repeats)
    split, split_cpu = ours["split"], ours["split_cpu"]
    rest = ours["wall"] - split["rows"] - split["distances"]
    rest_cpu = ours["cpu"] - split_cpu["rows"] - split_cpu["distances"]
    print(f"track: ring {width}x{height}, {ours['road']} road nodes; rules: paper with offroad_penalty = forbid")
    print(f"ours: par {ours['par']}, {ours['states']:,} states reached, {ours['in_debt']:,} of them with a finish "
          f"debt (a car that drove back over the line; the C++ search has none)")
    print(f"ours: table built in {ours['wall']:.3f} s (median of {args.repeats}, {ours['spread'][0]:.3f}-"
          f"{ours['spread'][1]:.3f} s; CPU {ours['cpu']:.3f} s)")
    print(f"  of which move rows: {split['rows']:.3f} s, CPU {split_cpu['rows']:.3f} s "
          f"({100 * split_cpu['rows'] / ours['cpu']:.0f}% of the CPU), {ours['rows']} velocities x {ours['road']:,} "
          f"road nodes = {ours['entries']:,} entries ({ours['entries'] / max(ours['states'], 1):.1f} a reached state)")
    print(f"  of which backward distances: {split['distances']:.3f} s, CPU {split_cpu['distances']:.3f} s "
          f"({100 * split_cpu['distances'] / ours['cpu']:.0f}%)")
    print(f"  of which forward search and pages: {rest:.3f} s, CPU {rest_cpu:.3f} s ({100 * rest_cpu / ours['cpu']:.0f}%)")

    with tempfile.TemporaryDirectory(prefix="bench-solver-") as folder:
        program, how = build_cpp(Path(folder))
        if program is None:
            print(how)
        else:
            text = track_text(track)
            runs = sorted((run_cpp(program, text) for _ in range(max(args.repeats, 1))), key=lambda r: r["process"])
            cpp = runs[len(runs) // 2]
            print(f"C++ layered BFS ({how} -O2): par {cpp['par']}, {cpp['states']:,} states reached")
            print(f"  search: {cpp['search']:.3f} s, CPU {cpp['search_cpu']:.3f} s (to par alone: {cpp['to_par']:.3f} s); "
                  f"whole process {cpp['process']:.3f} s, CPU {cpp['process_cpu']:.3f} s (median of {len(runs)})")
            agree = "the same par" if cpp["par"] == ours["par"] else "PARS DIFFER"
            print(f"  {agree}; ratio ours / C++ search: {ours['wall'] / cpp['search']:.2f}x wall, "
                  f"{ours['cpu'] / cpp['search_cpu']:.2f}x CPU; ours / C++ whole process: "
                  f"{ours['wall'] / cpp['process']:.2f}x wall, {ours['cpu'] / cpp['process_cpu']:.2f}x CPU "
                  f"(goal: within 1.5x)")
            print(f"  CPU ratio without our move rows, ours / C++ search: "
                  f"{(ours['cpu'] - split_cpu['rows']) / cpp['search_cpu']:.2f}x")
            print(f"  CPU per reached state: ours {1e6 * ours['cpu'] / ours['states']:.2f} us in all, "
                  f"{1e6 * rest_cpu / ours['states']:.2f} us in the forward search; C++ "
                  f"{1e6 * cpp['search_cpu'] / cpp['states']:.2f} us")

    usual = bench_ours(track, preset("paper"), 1)
    print(f"ours under the usual paper rules (a crash restarts the car): par {usual['par']}, "
          f"{usual['states']:,} states, {usual['wall']:.3f} s, CPU {usual['cpu']:.3f} s "
          f"(move rows: CPU {usual['split_cpu']['rows']:.3f} s)")
    if hasattr(os, "getloadavg"):
        print(f"machine load (1-minute average) at the end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
