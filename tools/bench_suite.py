"""Benchmark: how long the whole test suite takes, and which test files bound it.

How to run (from the checkout; prints a table)::

    python tools/bench_suite.py                    # the README's run: spread over the cores
    python tools/bench_suite.py --serial           # the same tests in one process (-n 0)
    python tools/bench_suite.py -- -k "not slow"   # anything after -- goes to pytest
    python tools/bench_suite.py --report run.xml   # read a finished run's --junitxml instead

It runs ``python -m pytest`` with a JUnit XML report and prints the wall-clock time, the CPU
time of pytest and everything it started (workers, the games and compiles the tests run), the
sum of the tests' own times, and the files and tests that took longest. Goal: the whole suite in
six to eight minutes on a two-core machine. With the suite spread over the workers a whole file
goes to one worker (``--dist loadfile``), so the longest file is a floor for the run. The machine
may be busy with other work: a wall-clock figure far above CPU time / cores is waiting, not testing.
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_suite(report: Path, serial: bool, extra: list[str]) -> tuple[int, float, float]:
    """Run the suite writing ``report``: (pytest's exit status, wall seconds, CPU seconds of its processes)."""
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}"]
    if serial:
        args += ["-n", "0"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    began = time.perf_counter()
    done = subprocess.run(args + extra, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - began
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return done.returncode, wall, usage.ru_utime + usage.ru_stime


def read_report(report: Path) -> tuple[collections.Counter, list[tuple[float, str]], dict[str, int]]:
    """(seconds by test file, [(seconds, test)], counts of tests, failures, errors and skips) of a JUnit report."""
    root = ET.parse(report).getroot()
    files: collections.Counter = collections.Counter()
    tests = []
    counts = collections.Counter()
    for suite in root.iter("testsuite"):
        for key in ("tests", "failures", "errors", "skipped"):
            counts[key] += int(suite.get(key, 0))
    for case in root.iter("testcase"):
        seconds = float(case.get("time", 0))
        module = case.get("classname", "")
        parts = module.split(".")
        last = next((i for i, part in enumerate(parts) if part.startswith("test_")), len(parts) - 1)
        files["/".join(parts[:last + 1]) + ".py"] += seconds  # a test class's name is not the file's
        tests.append((seconds, f"{module}::{case.get('name')}"))
    return files, sorted(tests, reverse=True), dict(counts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serial", action="store_true", help="run in one process (-n 0)")
    parser.add_argument("--report", type=Path, help="read this JUnit XML report instead of running the suite")
    parser.add_argument("--top", type=int, default=15, help="how many files and tests to list (15)")
    parser.add_argument("pytest_args", nargs="*", help="more arguments for pytest (after --)")
    args = parser.parse_args(argv)
    status = wall = cpu = None
    report = args.report
    if report is None:
        report = Path(tempfile.mkdtemp(prefix="bench-suite-")) / "suite.xml"
        status, wall, cpu = run_suite(report, args.serial, args.pytest_args)
    files, tests, counts = read_report(report)
    if wall is not None:
        print(f"wall {wall:.0f} s, CPU {cpu:.0f} s (pytest and its children), {os.cpu_count()} cores, "
              f"exit status {status}")
    total = sum(files.values())
    print(f"{counts.get('tests', 0)} tests ({counts.get('failures', 0)} failed, {counts.get('errors', 0)} errors, "
          f"{counts.get('skipped', 0)} skipped); the tests' own times add up to {total:.0f} s")
    print("slowest files (a floor for a run spread over workers):")
    for name, seconds in files.most_common(args.top):
        print(f"  {seconds:7.1f} s  {name}")
    print("slowest tests:")
    for seconds, name in tests[:args.top]:
        print(f"  {seconds:7.1f} s  {name}")
    return 0 if status in (None, 0) else 1


if __name__ == "__main__":
    sys.exit(main())
