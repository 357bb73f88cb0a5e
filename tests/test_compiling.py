"""The first start after an install: the CPUs play exactly the same while their kernels compile.

The interpreted kernels must give the very tables the compiled ones give (the same code,
another executor: numpy's scalar rules differ from numba's), the background source must
hand out the right kernels at each stage, and the compiling child must report progress
and fill the cache.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from game.core import preset
from game.drivers import compiling
from game.drivers.compiling import BackgroundKernels, KernelStatus, interpreted_kernels
from game.drivers.solver import SolverTable
from game.tracks.charmap import track_from_charmap
from tests.core_tracks import LOOP


# The loop with sand, mud, ice and curbs on it (every one beside plain road).
TERRAIN_LOOP = """
XXXXXXXXXXXXXXXXXX
XXOOOYYOO1OOIIOOXX
XOOOOOOOO1OOOOOOOX
XOOOXXXXXXXXXXOZZX
X222XXXXXXXXXXOZZX
XOOOXXXXXXXXXXOOOX
XOOCOOOFSOSOOOOOOX
XXOCOOOFOSOSOOOOXX
XXXXXXXXXXXXXXXXXX
"""

SPRINT = """
XXXXXXXXXXXXXXXXXX
XSOOOOOOOOXXXXXXXX
XSOOOOOOOOOOOXXXXX
XXXXXXXOOOOOOOOFFX
XXXXXXXXXXXOOOOFFX
XXXXXXXXXXXXXXXXXX
"""


class Fixed:
    """A kernel source that always gives one kernel set."""

    def __init__(self, kernels) -> None:
        self.kernels = kernels

    def current(self, work: int = 0):
        return self.kernels


@pytest.fixture(scope="module")
def twin():
    return interpreted_kernels()


def _same_tables(compiled: SolverTable, interpreted: SolverTable) -> None:
    assert interpreted.n_states == compiled.n_states and interpreted.n_pages == compiled.n_pages
    assert np.array_equal(interpreted._bits, compiled._bits)
    reached = np.flatnonzero(np.unpackbits(compiled._bits, bitorder="little"))
    assert np.array_equal(interpreted.dist[reached], compiled.dist[reached])
    ours, theirs = compiled.moves, interpreted.moves
    assert ours.offsets == theirs.offsets
    k = len(ours.offsets) * ours.n_road
    for name in ("target", "inside", "paper", "reset"):  # the numpy rows stand in for the compiled ones
        assert np.array_equal(getattr(ours, name)[:k], getattr(theirs, name)[:k]), name
    packed = theirs.packed[:k]  # numpy's packing, as the kernels read it
    assert np.array_equal((packed & 0xFFFFFFFF) - 1, theirs.target[:k]) and np.array_equal(packed >> 34, theirs.sig[:k])
    assert [ours.signatures[i] for i in ours.sig[:k]] == [theirs.signatures[i] for i in theirs.sig[:k]]
    a, b = compiled.solution(), interpreted.solution()
    assert (a.par, a.path) == (b.par, b.path)


CASES = [  # (name, map, Karopapier letters, rules, options, laps)
    ("sprint", SPRINT, False, "paper", {}, 1),
    ("loop-reset", LOOP, False, "paper", {}, 2),
    ("loop-cells", LOOP, True, "karopapier", {}, 2),
    ("loop-eliminate", LOOP, False, "paper", {"offroad_penalty": "eliminate"}, 2),
    ("loop-skip-projection", LOOP, False, "paper", {"offroad_penalty": "reset_skip", "offroad_check": "projection"}, 2),
    ("loop-cross-hard", LOOP, False, "paper", {"movement": "cross", "braking": "hard"}, 2),
    ("loop-graded-landing", LOOP, False, "paper", {"movement": "graded", "offroad_check": "landing"}, 2),
    # distances past 127 through crash edges (int8 costs: numpy keeps int8 where numba widens)
    ("loop-eleven-laps", LOOP, False, "paper", {}, 11),
    ("terrain-reset", TERRAIN_LOOP, False, "paper", {}, 2),
    ("terrain-skip-projection", TERRAIN_LOOP, False, "arcade", {"offroad_check": "projection"}, 2),
    ("terrain-cells", TERRAIN_LOOP, True, "karopapier", {"terrain": "effects"}, 2),
    ("terrain-scalar", TERRAIN_LOOP, False, "paper", {"movement": "scalar"}, 1),
]


@pytest.mark.parametrize("name, rows, karopapier, rules_name, options, laps", CASES, ids=[c[0] for c in CASES])
def test_the_interpreted_kernels_build_the_same_table_as_the_compiled_ones(twin, name, rows, karopapier, rules_name,
                                                                         options, laps):
    track = track_from_charmap(rows, id=name, karopapier=karopapier)
    rules = preset(rules_name).with_options(**options) if options else preset(rules_name)
    compiled = SolverTable(track, rules, laps)
    interpreted = SolverTable(track, rules, laps, kernels=Fixed(twin))
    assert not interpreted.kernels.current().compiled
    _same_tables(compiled, interpreted)


def test_the_interpreted_kernels_build_the_same_table_on_an_outline(twin):
    from game.core import Gate, Track, Vec
    from game.core.geometry import PolygonRegion

    track = Track(id="box", name="box", region=PolygonRegion([(0.5, 0.5), (14.5, 0.5), (14.5, 6.5), (0.5, 6.5)],
                                                             width=16, height=8),
                  start_slots=(Vec(1, 1), Vec(1, 2)), finish=Gate(0, a=(11.5, 0.5), b=(11.5, 6.5), forward=(1.0, 0.0)),
                  forward=(1.0, 0.0))
    compiled = SolverTable(track, preset("paper"), 1)
    _same_tables(compiled, SolverTable(track, preset("paper"), 1, kernels=Fixed(twin)))


def test_a_cpu_chooses_the_same_target_with_either_kernels(twin):
    import random

    from game.core import RaceState
    from game.drivers.cpu import make_driver, make_shared
    from game.drivers.solver import Solver

    track = track_from_charmap(LOOP, id="loop")
    state = RaceState.start(track, preset("paper"), ["a", "b", "c"], laps=1, seed=3)
    picks = []
    for source in (None, Fixed(twin)):
        shared = make_shared(Solver(kernels=source))
        picks.append([make_driver(kind, shared=shared).choose(state, car, {}, random.Random(car))
                      for car, kind in enumerate(("cpu:champion", "cpu:pro", "cpu:rookie"))])
    assert picks[0] == picks[1]


# -- the background source -----------------------------------------------------
def _fake_child(script: str) -> list[str]:
    return [sys.executable, "-c", script]


def test_while_the_child_compiles_the_interpreted_kernels_are_handed_out_then_the_compiled_ones(tmp_path):
    go = tmp_path / "go"
    script = ("import time, pathlib, sys\n"
              "print('total 9.8', flush=True)\n"
              "print('compiling cell_rows 4.0', flush=True)\n"
              f"while not pathlib.Path({str(go)!r}).exists(): time.sleep(0.01)\n"
              "print('ready cell_rows', flush=True)\n"
              "print('done', flush=True)\n")
    source = BackgroundKernels(command=_fake_child(script), warm=lambda: False)
    source.start()
    deadline = time.monotonic() + 30
    while not source.status.compiling and time.monotonic() < deadline:
        time.sleep(0.01)
    status = source.status
    assert status.compiling and 0 <= status.progress < 1
    assert status.message().startswith("preparing the CPU drivers, first start only: ")
    assert source.current(1000).compiled is False  # small work: go on interpreted
    go.write_text("")
    assert source.wait(60)
    assert source.current(1000).compiled is True and source.status.ready and source.status.message() == ""
    assert source.errors == []
    source.close()


def test_big_work_waits_for_the_compiled_kernels_rather_than_interpreting(tmp_path):
    script = "import time; print('compiling distances 2.2', flush=True); time.sleep(0.5); print('done', flush=True)"
    source = BackgroundKernels(command=_fake_child(script), interpret_limit=10, warm=lambda: False)
    source.start()
    began = time.monotonic()
    assert source.current(1000).compiled is True  # waited for the child and the load
    assert time.monotonic() - began >= 0.3
    source.close()


def test_a_failing_child_is_reported_and_the_kernels_are_loaded_here_anyway():
    source = BackgroundKernels(command=_fake_child("import sys; sys.stderr.write('boom\\n'); sys.exit(3)"),
                               warm=lambda: False)
    assert source.start().wait(60)
    assert source.current().compiled is True
    assert source.errors == ["the compiling process failed: boom"]


def test_closing_stops_a_child_still_compiling():
    script = "import time; print('compiling cell_rows 4.0', flush=True); time.sleep(60)"
    source = BackgroundKernels(command=_fake_child(script), warm=lambda: False)
    source.start()
    deadline = time.monotonic() + 30
    while not source.status.compiling and time.monotonic() < deadline:
        time.sleep(0.01)
    began = time.monotonic()
    source.close()
    assert source.wait(10) is False and time.monotonic() - began < 5
    assert source.status.stage == "failed" and source.current().compiled is False


def test_a_warm_cache_is_loaded_here_without_a_child():
    source = BackgroundKernels(command=_fake_child("import sys; sys.exit(9)"), warm=lambda: True)
    assert source.start().wait(60) and source.errors == []


def test_the_status_says_nothing_unless_the_players_wait_for_a_compile():
    assert KernelStatus("checking").message() == KernelStatus("ready").message() == ""
    assert KernelStatus("failed").message() == ""
    assert KernelStatus("compiling", 0.42).message() == "preparing the CPU drivers, first start only: 42%"


@pytest.mark.slow
def test_the_compiling_child_fills_an_empty_cache_and_says_how_far_it_got(tmp_path):
    """The real thing: a fresh numba cache, every kernel compiled in the child, then found warm."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run(compiling.child_command(), capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split("\n")
    assert lines[0].startswith("total ")
    compiled = [line.split()[1] for line in lines if line.startswith("compiling ")]
    ready = [line.split()[1] for line in lines if line.startswith("ready ")]
    assert sorted(compiled) == sorted(ready) == sorted(compiling.KERNEL_WEIGHTS)
    assert "done" in lines
    check = subprocess.run([sys.executable, "-c", "from game.drivers.compiling import cache_is_warm; "
                            "print(cache_is_warm())"], capture_output=True, text=True, env=env, timeout=300)
    assert check.stdout.strip() == "True", check.stderr


def test_closing_waits_for_kernels_being_loaded_and_starts_nothing_after(monkeypatch):
    import threading

    from game.drivers import solver

    loading, threads = threading.Event(), []

    def slow_load():
        threads.append(threading.current_thread())
        loading.set()
        time.sleep(0.5)

    monkeypatch.setattr(solver, "warm_up", slow_load)
    source = BackgroundKernels(command=_fake_child("import sys; sys.exit(9)"), warm=lambda: True)
    source.start()
    assert loading.wait(30)
    source.close()
    assert not threads[0].is_alive()  # the load ended before close() returned
    assert source.status.stage == "ready"
    later = BackgroundKernels(command=_fake_child("import sys; sys.exit(9)"), warm=lambda: True)
    later.close()
    assert later.start().wait(1) is False and later.status.stage == "failed" and len(threads) == 1


QUIT_WHILE_LOADING = """
import sys, time
from game.drivers.compiling import BackgroundKernels
source = BackgroundKernels(warm=lambda: True).start()
while source.status.stage != "loading":
    time.sleep(0.001)
source.close()
print(source.status.stage)
"""


@pytest.mark.slow
def test_quitting_while_the_kernels_load_exits_cleanly():
    """The real load from numba's cache, cut short by the process ending: no C++ abort, status 0."""
    from game.drivers.solver import warm_up

    warm_up()  # the cache the child loads from (compiled here the first time)
    done = subprocess.run([sys.executable, "-c", QUIT_WHILE_LOADING], capture_output=True, text=True, timeout=300,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert "terminate called" not in done.stderr
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ready"]
