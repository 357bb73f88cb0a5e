"""Track select's pars: one at a time, the one the player moved on from cancelled, answers kept, CPUs never kept waiting."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from types import SimpleNamespace

from game.core import preset
from game.drivers.solver import solve
from game.presentation.menus.par import WORKING, ParWorker
from game.tracks.charmap import track_from_charmap

from tests.test_solver import DOGLEG, OVAL

HERE = Path(__file__).resolve().parents[1]


class StepSolver:
    """A solver the test drives: each solve reports progress until released; records what it was asked."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.finished: list[str] = []
        self.running = 0
        self.most_at_once = 0
        self.release: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def solve(self, track, rules, laps, slot=None, progress=None):
        with self._lock:
            self.started.append(track.id)
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
            gate = self.release.setdefault(track.id, threading.Event())
        try:
            while not gate.wait(0.005):
                progress(0.5, "searching")  # raises when the par is no longer wanted
            self.finished.append(track.id)
            return SimpleNamespace(par=len(track.id))
        finally:
            with self._lock:
                self.running -= 1


def wait_until(condition, timeout=10.0):
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.002)


def tracks(n):
    return [track_from_charmap(OVAL, id=f"track{'x' * k}") for k in range(n)]


def test_scrolling_on_cancels_the_par_left_behind_and_works_one_at_a_time():
    solver = StepSolver()
    worker = ParWorker(ctx=None, solver=solver)
    rules = preset("paper")
    many = tracks(6)
    for track in many:  # the player scrolls through six tracks, a frame on each
        assert worker.par(track, rules, 1) == WORKING
        time.sleep(0.01)
    last = many[-1]
    wait_until(lambda: solver.started and solver.started[-1] == last.id)
    solver.release[last.id].set()
    assert worker.wait(last, rules, 1, timeout=10) == len(last.id)
    assert solver.most_at_once == 1
    assert solver.finished == [last.id]  # every other par was dropped unfinished
    # Every other par was dropped, started or not (on a busy machine the worker may not pick one up
    # within the frame before the player moves on: it is dropped from the queue, never started).
    assert worker.cancelled == len(many) - 1
    # Kept: asked again, the answer comes at once, and the solver is not asked again.
    started = len(solver.started)
    assert worker.par(last, rules, 1) == len(last.id)
    assert len(solver.started) == started
    # A par dropped on the way is worked out afresh when the player comes back to it.
    first = many[0]
    assert worker.par(first, rules, 1) == WORKING
    wait_until(lambda: solver.started[-1] == first.id)
    solver.release[first.id].set()
    assert worker.wait(first, rules, 1, timeout=10) == len(first.id)
    worker.close()


def test_a_par_never_waits_for_the_cpus_tables_and_the_cpus_never_wait_for_a_par():
    from game.drivers.cpu import make_shared

    shared = make_shared()
    ctx = SimpleNamespace(cpu_shared=shared, config_dir=None, kernels=None)
    worker = ParWorker(ctx)
    track = track_from_charmap(DOGLEG, id="dogleg")
    with shared.lock:  # a race's CPUs busy with their table: the par still arrives
        assert worker.wait(track, preset("paper"), 1, timeout=60) == solve(track, preset("paper")).par
    worker.close()


def test_scrolling_through_twenty_large_user_tracks_stays_under_a_gigabyte(tmp_path):
    """In a child process of its own (its peak memory is its own): 20 big outline tracks, a quarter second each."""
    script = textwrap.dedent(f"""
        import math, resource, sys, time
        from dataclasses import replace
        sys.path.insert(0, {str(HERE)!r})
        from types import SimpleNamespace
        from game.core import preset
        from game.presentation.menus.par import WORKING, ParWorker
        from game.tracks.outline import check_outline

        def ring(cx, cy, r, n):
            return [[round(cx + r * math.cos(2 * math.pi * k / n), 2), round(cy + r * math.sin(2 * math.pi * k / n), 2)]
                    for k in range(n)]

        worker = ParWorker(SimpleNamespace(config_dir=None, kernels=None))
        rules = preset("paper")
        r = 200
        big, problems = check_outline({{"outer": ring(r + 1, r + 1, r, 180), "islands": [ring(r + 1, r + 1, r - 40, 90)],
                                        "finish": [[r + 1, 0], [r + 1, 42]], "forward": "right",
                                        "start": [[r + 4, 20]]}}, id="big", laps=3)
        assert big is not None, [str(p) for p in problems]
        for k in range(20):  # twenty tracks as big (made as copies: reading twenty outlines is not the point)
            worker.par(replace(big, id=f"big{{k}}"), rules, 3)
            time.sleep(0.25)
        worker.close()
        # VmHWM is this program's own peak: ru_maxrss keeps the peak of the process that forked it
        # (Linux carries it over exec), which in a whole test run is the big pytest process
        try:
            with open("/proc/self/status") as status:
                peak = next(int(l.split()[1]) for l in status if l.startswith("VmHWM:")) // 1024
        except (OSError, StopIteration):
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(worker.cancelled, len(worker._known), peak)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                         env={**os.environ, "PYTHONPATH": str(HERE), "PYGAME_HIDE_SUPPORT_PROMPT": "1"})
    assert out.returncode == 0, out.stderr
    cancelled, solved, peak_mb = (int(w) for w in out.stdout.split("\n")[-2].split())
    assert solved <= 1 and cancelled >= 17, (cancelled, solved)  # the player moved on before they were done
    assert peak_mb < 1024, peak_mb


def test_a_race_s_own_par_is_read_from_its_cpus_table_not_built_twice():
    from game.drivers.cpu import make_shared

    shared = make_shared()
    track, rules = track_from_charmap(OVAL, id="oval"), preset("paper")
    table = shared.solver.table(track, rules, 2)  # the race's CPUs built it
    own = StepSolver()  # never released: a second build would never end
    worker = ParWorker(SimpleNamespace(_shared=shared), solver=own)
    assert worker.wait(track, rules, 2, timeout=30) == table.solution().par
    assert own.started == []
    worker.close()
