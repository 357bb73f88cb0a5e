"""Resource abuse: how long and how much memory the game spends on hostile files, each case capped.

How to run (from the checkout, with the game installed)::

    python tools/bench_hostile.py                    # every case, 4 GB and 300 s each
    python tools/bench_hostile.py --only replay-10k  # one case
    python tools/bench_hostile.py --memory-gb 2 --timeout 60

Every case runs in its own process under an address-space limit (``--memory-gb``) and a
time limit (``--timeout``), so a case that would take the machine's memory dies instead.
The table gives each case's outcome (the first line of what the game printed, or how it
was stopped), its CPU seconds, wall seconds and peak resident memory. Only the public
``racetrack`` command and long-standing readers are used, so an older checkout can be
measured the same way: ``PYTHONPATH=/path/to/old/checkout python tools/bench_hostile.py``
(the ``racetrack`` subcommands run as ``python -m game.cli``). Wall times on a shared
machine are loose; CPU seconds and peak memory are the figures to compare.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def _pack(track_lines: list[str]) -> str:
    return "\n".join(['format = 1', '[pack]', 'id = "hostile"', 'name = "Hostile"', '', '[[track]]', 'id = "loop"',
                      'name = "Loop"', 'laps = 2', 'cars = 1', *track_lines]) + "\n"


def _ring(cx: float, cy: float, r: float, n: int) -> list[list[float]]:
    return [[round(cx + r * math.cos(2 * math.pi * k / n), 3), round(cy + r * math.sin(2 * math.pi * k / n), 3)]
            for k in range(n)]


def _outline(outer, inner, finish, start) -> str:
    islands = f"[{inner}]" if inner else "[]"
    return _pack(["[track.outline]", f"outer = {outer}", f"islands = {islands}", f"finish = {finish}",
                  'forward = "right"', f"start = [{start}]"])


#: A square the two cars of :func:`_replay` drive round, one step behind the other.
LOOP = ((1, 1), (2, 1), (2, 2), (1, 2))


def _replay(phases: int) -> str:
    """Two cars circling a 2 x 2 square of the golden sprint for ``phases`` phases (a legal, endless race).

    Car A leaves each node just before car B arrives on it (A chooses first), and neither
    ever stops dead, so it is legal under every Karopapier rule, old and new.
    """
    lines = ["# Racetrack replay (see docs/replays.md).", "format = 1", 'track = "pack.toml#sprint"', "laps = 1",
             "seed = 1", "", "[rules]", 'preset = "karopapier"', "", "[[car]]", 'name = "A"', 'driver = "human"', "",
             "[[car]]", 'name = "B"', 'driver = "human"', "", "[phases]"]
    for k in range(1, phases + 1):
        (ax, ay), (bx, by) = LOOP[k % 4], LOOP[(k + 3) % 4]
        lines.append(f"{k} = [[{ax}, {ay}], [{bx}, {by}]]")
    return "\n".join(lines) + "\n"


def make_inputs(folder: Path) -> dict[str, list[str]]:
    """Write the hostile files; returns each case's command (arguments after the Python executable)."""
    cli = ["-m", "game.cli"]
    (folder / "deep.toml").write_text("a = " + "[" * 500 + "]" * 500 + "\n")
    settings = folder / "config"
    settings.mkdir()
    (settings / "settings.toml").write_text("a = " + "[" * 500 + "]" * 500 + "\n")
    shutil.copy(HERE / "tests" / "golden" / "pack.toml", folder / "pack.toml")
    for n in (10_000, 30_000, 1_000_000):
        (folder / f"r{n}.toml").write_text(_replay(n))
    c = 5000.0
    (folder / "sheet.toml").write_text(_outline([[0, 0], [10000, 0], [10000, 10000], [0, 10000]],
                                                [[2, 2], [9998, 2], [9998, 9998], [2, 9998]],
                                                [[5000, -1], [5000, 3]], [4990, 1]))
    r = 1000.0
    (folder / "circle.toml").write_text(_outline(_ring(r + 1, r + 1, r, 500), _ring(r + 1, r + 1, r - 10, 500),
                                                 [[r + 1, 0], [r + 1, 13]], [int(r) - 3, 5]))
    (folder / "disc.toml").write_text(_outline(_ring(r + 1, r + 1, r, 500), None, [[r + 1, 0], [r + 1, 2 * r + 2]],
                                               [int(r) - 3, int(r)]))
    (folder / "vertices.toml").write_text(_outline(_ring(401, 401, 400, 20_000), _ring(401, 401, 380, 200),
                                                   [[401, 0], [401, 23]], [398, 8]))
    rows = ["X" * 5000] + ["X" + "O" * 4998 + "X"] * 4998 + ["X" * 5000]
    rows[1] = "X" + "S" * 8 + "F" + "O" * 4989 + "X"
    (folder / "charmap.toml").write_text(_pack(['map = """', *rows, '"""']).replace("laps = 2", "laps = 1"))
    # A valid 400 x 400 open disc: a car can reach hundreds of velocities, each a row of moves.
    d = 199.0
    (folder / "disc400.toml").write_text(_outline(_ring(d + 1, d + 1, d, 400), _ring(d + 1, d + 1, 60, 100),
                                                  [[d + 1, 0], [d + 1, d + 1 - 58]], [int(d) + 4, 20]))
    if hasattr(os, "mkfifo"):
        os.mkfifo(folder / "pipe.toml")
    snippet = ("import sys; from game.settings import load_settings; s, p = load_settings(sys.argv[1]); "
               "print(p[0] if p else 'no problems')")
    return {
        "deep-toml": [*cli, "validate", str(folder / "deep.toml")],
        "deep-settings": ["-c", snippet, str(settings)],
        "dev-zero": [*cli, "sim", "--track", "/dev/zero#loop", "--cars", "cpu:rookie"],
        "fifo": [*cli, "sim", "--track", f"{folder / 'pipe.toml'}#loop", "--cars", "cpu:rookie"],
        "replay-10k": [*cli, "replay", str(folder / "r10000.toml")],
        "replay-30k": [*cli, "replay", str(folder / "r30000.toml")],
        "replay-1m": [*cli, "replay", str(folder / "r1000000.toml")],
        "outline-sheet": [*cli, "validate", str(folder / "sheet.toml")],
        "outline-circle": [*cli, "validate", str(folder / "circle.toml")],
        "outline-disc": [*cli, "validate", str(folder / "disc.toml")],
        "outline-vertices": [*cli, "validate", str(folder / "vertices.toml")],
        "charmap-5000": [*cli, "validate", str(folder / "charmap.toml")],
        "sprint-2-laps": [*cli, "sim", "--track", "starter/first-sprint", "--laps", "2", "--cars", "cpu:champion"],
        # Tables over the solver's 2 GB budget: refused before they grow, and the CPUs race anyway.
        "solve-disc-400": [*cli, "solve", f"{folder / 'disc400.toml'}#loop"],
        "solve-serpentine-36": [*cli, "solve", "grand-prix/serpentine", "--laps", "36"],
        "solve-budget-0.5": [*cli, "solve", "grand-prix/serpentine", "--laps", "4", "--memory-budget", "0.5"],
        "sim-sweepers-99": [*cli, "sim", "--track", "grand-prix/sweepers", "--laps", "99", "--cars", "cpu:champion"],
    }


@dataclass
class Measured:
    outcome: str
    cpu: float
    wall: float
    peak_mb: float


def measure(argv: list[str], memory_gb: float, timeout: float, cwd: Path) -> Measured:
    """Run ``python argv`` in ``cwd``, capped; its outcome line, CPU seconds, wall seconds and peak RSS (its own)."""
    import threading

    limit = int(memory_gb * 1024 ** 3)

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        os.setsid()

    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, *argv], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            preexec_fn=cap, cwd=cwd, env={**os.environ, "PYGAME_HIDE_SUPPORT_PROMPT": "1"})
    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.append(proc.stdout.read()), daemon=True)
    reader.start()
    stopped = ""
    while True:  # wait4 gives this child's own CPU time and peak memory
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - start > timeout and not stopped:
            os.killpg(proc.pid, signal.SIGKILL)
            stopped = f"stopped after {timeout:.0f} s"
        time.sleep(0.05)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - start
    reader.join(5)
    out = b"".join(chunks).decode("utf-8", errors="replace")
    text = out.strip().splitlines()
    line = next((ln for ln in text if ln.startswith("racetrack:")), "")  # an error, or what the command said
    line = line or next((ln for ln in text if "phases," in ln), "") or (text[0] if text else "")
    if "MemoryError" in out:
        line = "MemoryError: " + line
    outcome = stopped or (line[:150] if line else f"exit {proc.returncode}")
    return Measured(outcome, usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory-gb", type=float, default=4.0, help="address-space limit per case (default 4)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per case (default 300)")
    parser.add_argument("--only", action="append", help="run only this case (repeatable)")
    args = parser.parse_args(argv)
    import game

    print(f"hostile inputs against {Path(game.__file__).parent} (each case: {args.memory_gb:g} GB, "
          f"{args.timeout:g} s)", flush=True)
    rows = ["| case | outcome | CPU s | wall s | peak MB |", "|---|---|---:|---:|---:|"]
    with tempfile.TemporaryDirectory(prefix="racetrack-hostile-") as tmp:
        cases = make_inputs(Path(tmp))
        for name, command in cases.items():
            if args.only and name not in args.only:
                continue
            m = measure(command, args.memory_gb, args.timeout, Path(tmp))  # not the checkout: PYTHONPATH decides
            rows.append(f"| {name} | {m.outcome.replace('|', '/')} | {m.cpu:.1f} | {m.wall:.1f} | "
                        f"{m.peak_mb:.0f} |")
            print(rows[-1], flush=True)
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
