"""How long short ``racetrack`` commands take, as whole processes (start-up, imports and exit included).

    PYTHONPATH=. python tools/bench_commands.py                      # this tree
    PYTHONPATH=. python tools/bench_commands.py --against /tmp/old   # ratios against another checkout

Each command runs ``--runs`` times (after one run not counted) in a fresh interpreter with
``PYTHONPATH`` set to the tree being measured; the median wall time is printed, and with
``--against`` the other tree's median and the ratio of each pair of runs (this tree first,
the other next, in turn, so a machine whose speed drifts treats both alike). Bytecode
is written and reused as in an install, whatever ``PYTHONDONTWRITEBYTECODE`` says. The solve runs
on a warm kernel cache (the first, uncounted run warms it). The load average is printed
with the figures: on a shared machine the wall times are only as good as it is quiet; the
processor seconds (user + system, of the command's process) are printed beside them, as they
count far less of the time spent waiting for a core. The last rows are
the floor under them: the interpreter alone, and importing numpy or pygame (what ``render`` cannot
do without: its paper is drawn with both).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def commands(output: str) -> dict[str, list[str]]:
    """The measured commands, by label (the interpreter's arguments: ``-m game ...`` for a command)."""
    game = ["-m", "game"]
    return {
        "--help": [*game, "--help"],
        "validate starter": [*game, "validate", "tracks/starter.toml"],  # holds an outline
        "validate grand-prix": [*game, "validate", "tracks/grand-prix.toml"],  # five outlines, the largest
        "validate classics": [*game, "validate", "tracks/classics.toml"],  # char maps only
        "replay golden": [*game, "replay", "tests/golden/arcade-loop.replay.toml"],
        "render (no --path)": [*game, "render", "starter/first-sprint", "-o", output, "--force"],
        "solve first-sprint": [*game, "solve", "starter/first-sprint"],
        "(python alone)": ["-c", "pass"],
        "(import numpy)": ["-c", "import numpy"],
        "(import pygame)": ["-c", "import pygame"],
    }


def run_once(tree: Path, argv: list[str]) -> tuple[float, float]:
    """Wall seconds and processor seconds (user + system) of one ``python ARGV`` run from ``tree``.

    The processor time is what the process itself spent: on a loaded machine the wall time
    also counts the time it waited for a core, the processor time much less so.
    """
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as an install runs: compiled bytecode kept, not rebuilt each run
    began = time.perf_counter()
    child = subprocess.Popen([sys.executable, *argv], cwd=tree, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    child.returncode = 0  # reaped here: Popen must not wait for it again
    return time.perf_counter() - began, usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="counted runs of each command (default 5)")
    parser.add_argument("--against", type=Path, help="another checkout to compare with (e.g. the main branch)")
    parser.add_argument("--only", action="append", help="measure only the commands whose label holds this")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        table = commands(str(Path(folder) / "track.png"))
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}  ({os.cpu_count()} cores)")
        header = f"{'command':22} {'this s':>8} {'cpu s':>7}"
        if args.against:
            header += f" {'other s':>8} {'cpu s':>7} {'this/other':>10}"
        print(header + "   (medians: wall seconds, processor seconds)")
        for label, argv in table.items():
            if args.only and not any(word in label for word in args.only):
                continue
            run_once(ROOT, argv)  # not counted: warms the disk cache and numba's
            if args.against:
                run_once(args.against, argv)
            mine, theirs, ratios = [], [], []
            for _ in range(args.runs):
                mine.append(run_once(ROOT, argv))
                if args.against:
                    theirs.append(run_once(args.against, argv))
                    ratios.append(mine[-1][0] / theirs[-1][0])
            row = f"{label:22} {statistics.median(w for w, _ in mine):8.3f} {statistics.median(c for _, c in mine):7.3f}"
            if args.against:
                row += (f" {statistics.median(w for w, _ in theirs):8.3f} {statistics.median(c for _, c in theirs):7.3f}"
                        f" {statistics.median(ratios):10.2f}")
            print(row, flush=True)
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
