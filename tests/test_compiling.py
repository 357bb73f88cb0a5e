"""The first start after an install: the kernels compile in a child while the CPUs drive on.

The background source must report the child's progress, say when a search would wait
for a compile (the CPUs then drive by the route heuristic instead of waiting) and hand
out the compiled kernels once loaded; the compiling child must report progress and fill
the cache.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from game.core import preset
from game.drivers import compiling
from game.drivers.compiling import BackgroundKernels, KernelStatus
from game.tracks.charmap import track_from_charmap

SPRINT = """
XXXXXXXXXXXXXXXXXX
XSOOOOOOOOXXXXXXXX
XSOOOOOOOOOOOXXXXX
XXXXXXXOOOOOOOOFFX
XXXXXXXXXXXOOOOFFX
XXXXXXXXXXXXXXXXXX
"""


# -- the background source -----------------------------------------------------
def _fake_child(script: str) -> list[str]:
    return [sys.executable, "-c", script]


def _compiling_until(go) -> BackgroundKernels:
    """A background source whose (fake) child compiles until the file ``go`` exists."""
    script = ("import time, pathlib, sys\n"
              "print('total 9.8', flush=True)\n"
              "print('compiling cell_rows 4.0', flush=True)\n"
              f"while not pathlib.Path({str(go)!r}).exists(): time.sleep(0.01)\n"
              "print('ready cell_rows', flush=True)\n"
              "print('done', flush=True)\n")
    source = BackgroundKernels(command=_fake_child(script), warm=lambda: False).start()
    deadline = time.monotonic() + 30
    while source.status.progress == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    return source


def test_while_the_child_compiles_the_status_says_how_far_then_the_compiled_kernels_come(tmp_path):
    go = tmp_path / "go"
    source = _compiling_until(go)
    status = source.status
    assert status.compiling and 0 < status.progress < 1 and source.compiling_now()
    assert status.message().startswith("preparing the CPU drivers, first start only: ")
    go.write_text("")
    assert source.wait(600)  # loading the real kernels may compile them on a cold cache
    assert not source.compiling_now() and source.current().expand_layer is not None
    assert source.status.ready and source.status.message() == ""
    assert source.errors == []
    source.close()


def test_a_warm_cache_is_never_taken_for_a_compile():
    source = BackgroundKernels(command=_fake_child("import sys; sys.exit(9)"), warm=lambda: True)
    assert source.compiling_now() is False  # asked before the marker is read: it is read first
    source.close()


def test_while_the_kernels_compile_the_cpus_drive_at_once_by_the_heuristic_then_by_the_table(tmp_path):
    """The first start after an install: a CPU's move never waits for the compile."""
    import random

    from game.core import RaceState
    from game.drivers.cpu import make_driver, make_shared
    from game.drivers.solver import Solver
    from game.race.headstart import build_table_early

    go = tmp_path / "go"
    source = _compiling_until(go)
    shared = make_shared(Solver(kernels=source))
    state = RaceState.start(track_from_charmap(SPRINT, id="sprint"), preset("paper"), ["a", "b"], laps=1, seed=3)
    early = build_table_early(shared, state)  # waits for the kernels, holding no lock
    champion = make_driver("cpu:champion", shared=shared)
    picks = []
    asked = threading.Thread(target=lambda: picks.append(champion.choose(state, 0, {}, random.Random(0))), daemon=True)
    asked.start()
    asked.join(30)  # a CPU waiting for the compile would wait until go exists
    if asked.is_alive():
        go.write_text("")
        pytest.fail("the CPU waited for the kernels being compiled")
    assert picks[0] in [c.node for c in state.candidates(0, {}) if c.legal]
    assert shared.table(state) is None and shared.last_table is None  # nothing kept: asked again later
    assert early.is_alive()
    go.write_text("")
    early.join(120)
    assert shared.last_table is not None and shared.last_table[3].track is state.track
    exact = make_driver("cpu:champion", shared=make_shared()).choose(state, 0, {}, random.Random(0))
    assert champion.choose(state, 0, {}, random.Random(0)) == exact  # the table's pick once it is built
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
    assert source.status.stage == "failed" and not source.compiling_now()


def test_a_warm_cache_is_loaded_here_without_a_child():
    source = BackgroundKernels(command=_fake_child("import sys; sys.exit(9)"), warm=lambda: True)
    assert source.start().wait(60) and source.errors == []


def test_the_status_says_nothing_unless_the_players_wait_for_a_compile():
    assert KernelStatus("checking").message() == KernelStatus("ready").message() == ""
    assert KernelStatus("failed").message() == ""
    assert KernelStatus("compiling", 0.42).message() == "preparing the CPU drivers, first start only: 42%"


@pytest.mark.slow
def test_the_compiling_child_fills_an_empty_cache_and_says_how_far_it_got(tmp_path):
    """The real thing: a fresh numba cache, every kernel compiled in the child, then found warm.

    The child runs at this test's priority: lowered (the game's way, checked by the next test) it
    gets a tenth of a core on a busy machine: its compile (about 10 s of CPU time) took 43 s in a
    suite run and over 13 minutes with the suite on both cores of a loaded machine.
    """
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    python, flag, code = compiling.child_command()
    keep_priority = "import os; os.nice = lambda increment: 0\n"  # child_main lowers it through os.nice
    done = subprocess.run([python, flag, keep_priority + code], capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split("\n")
    assert lines[0].startswith("total ")
    compiled = [line.split()[1] for line in lines if line.startswith("compiling ")]
    ready = [line.split()[1] for line in lines if line.startswith("ready ")]
    assert sorted(compiled) == sorted(ready) == sorted(compiling.KERNEL_WEIGHTS)
    assert "done" in lines
    assert compiling.marker_says_warm(env)


def test_the_compiling_child_lowers_its_priority_before_it_compiles(tmp_path, monkeypatch, capsys):
    """Background work: on a busy machine the game's frames come first."""
    from game.drivers import solver

    happened = []
    monkeypatch.setattr(os, "nice", lambda increment: happened.append(("nice", increment)) or increment)
    monkeypatch.setattr(solver, "warm_up", lambda: happened.append(("compile", None)))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    assert compiling.child_main() == 0
    assert happened == [("nice", compiling.CHILD_NICENESS), ("compile", None)]
    assert compiling.CHILD_NICENESS > 0
    assert capsys.readouterr().out.split("\n")[-2] == "done"


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
