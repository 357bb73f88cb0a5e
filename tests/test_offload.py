"""The first start after an install: a CPU's first table is searched in a child process, not on the frame loop's
interpreter, and is exactly the table the game would have searched itself.

Checked against the interpreted search in this process (the same kernel code, which
``test_compiling`` checks against the compiled kernels): same states, same distances,
same successors, same par and line, same CPU choices; and the child's life: it ends
with the search, when it is stopped, and when the game goes away.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time

import numpy as np
import pytest

from game.core import Gate, RaceState, Track, Vec, preset
from game.core.geometry import PolygonRegion
from game.drivers import compiling, offload
from game.drivers.compiling import BackgroundKernels, interpreted_kernels
from game.drivers.offload import TableChild, plain_kernels
from game.drivers.solver import LayeredTable, Solver, SolverTable
from game.tracks.charmap import track_from_charmap
from tests.core_tracks import LOOP


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Fixed:
    """A kernel source that always gives one kernel set."""

    def __init__(self, kernels) -> None:
        self.kernels = kernels

    def current(self, work: int = 0):
        return self.kernels


def _outline() -> Track:
    return Track(id="box", name="box", region=PolygonRegion([(0.5, 0.5), (14.5, 0.5), (14.5, 6.5), (0.5, 6.5)],
                                                            width=16, height=8),
                 start_slots=(Vec(1, 1), Vec(1, 2)), finish=Gate(0, a=(11.5, 0.5), b=(11.5, 6.5), forward=(1.0, 0.0)),
                 forward=(1.0, 0.0))


CASES = [  # (name, track, rules, laps, kind)
    ("loop-reset", lambda: track_from_charmap(LOOP, id="loop"), preset("paper"), 2, SolverTable),
    ("loop-eliminate", lambda: track_from_charmap(LOOP, id="loop"),
     preset("paper").with_options(offroad_penalty="eliminate"), 1, SolverTable),
    ("loop-layered", lambda: track_from_charmap(LOOP, id="loop-cells", karopapier=True), preset("karopapier"), 2,
     LayeredTable),
    ("outline", _outline, preset("paper"), 1, SolverTable),
]


@pytest.mark.parametrize("name, make, rules, laps, kind", CASES, ids=[c[0] for c in CASES])
def test_a_table_searched_in_a_child_is_the_table_searched_here(name, make, rules, laps, kind):
    track = make()
    source = Fixed(interpreted_kernels())
    heard = []
    child = TableChild()
    table = child.build(kind, track, rules, laps, source, 2 ** 31, 10 ** 7, lambda f, what: heard.append((f, what)))
    assert table is not None, child.errors
    here = kind(track, rules, laps, kernels=source)
    # the game's own objects, not copies: the solver's caches compare them by identity
    assert type(table) is kind and table.track is track and table.rules is rules
    assert table.kernels is source and table.moves.kernels is source and table.moves.track is track
    assert table.n_states == here.n_states and table.n_pages == here.n_pages
    assert np.array_equal(table._bits[:len(here._bits)], here._bits[:len(table._bits)])
    reached = np.flatnonzero(np.unpackbits(here._bits, bitorder="little"))[: here.n_states]
    reached = [int(sid) for sid in reached if here._has(int(sid))]
    assert reached and all(table.to_go(sid) == here.to_go(sid) for sid in reached)
    assert all(table.successors(sid) == here.successors(sid) for sid in reached[::7])
    a, b = table.solution(), here.solution()
    assert (a.par, a.path) == (b.par, b.path)
    assert heard and all(0.0 <= f <= 1.0 for f, _ in heard)  # the child said how far it got
    assert child.errors == []


def test_the_child_runs_the_very_kernel_code_without_loading_numba():
    plain, interpreted = plain_kernels(), interpreted_kernels()
    names = [n for n, v in vars(interpreted).items() if callable(v) and getattr(v, "__module__", "") ==
             "game.drivers.kernels" and hasattr(v, "__code__")]
    assert len(names) >= 10
    for name in names:
        assert getattr(plain, name).__code__.co_code == getattr(interpreted, name).__code__.co_code, name
    assert plain.compiled is False and plain.DONE == interpreted.DONE
    code = ("import sys; from game.drivers.offload import plain_kernels; k = plain_kernels(); "
            "print('numba' in sys.modules, k.compiled)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.stdout.split() == ["False", "False"], done.stderr


def test_a_cpu_chooses_the_same_targets_with_a_table_from_the_child():
    import random

    from game.drivers.cpu import make_driver, make_shared

    track = track_from_charmap(LOOP, id="loop")
    state = RaceState.start(track, preset("paper"), ["a", "b", "c"], laps=1, seed=3)
    source = Fixed(interpreted_kernels())
    picks = []
    for elsewhere in (False, True):
        shared = make_shared(Solver(kernels=source))
        if elsewhere:  # the table the child searched, put where the CPUs look for it
            table = TableChild().build(SolverTable, track, state.rules, 1, source, 2 ** 31, 10 ** 7)
            shared.last_table = (state.track, state.rules, state.laps, table)
        picks.append([make_driver(kind, shared=shared).choose(state, car, {}, random.Random(car))
                      for car, kind in enumerate(("cpu:champion", "cpu:pro", "cpu:rookie"))])
    assert picks[0] == picks[1]


def test_a_search_too_big_for_the_interpreter_is_left_to_the_caller():
    child = TableChild()
    track = track_from_charmap(LOOP, id="loop")
    assert child.build(SolverTable, track, preset("paper"), 2, None, 2 ** 31, limit=5) is None
    assert child.errors == [] and child._child.poll() is not None  # it ended


def _compiling_source(tmp_path) -> BackgroundKernels:
    """A background source whose (fake) compile never ends: the kernels stay interpreted."""
    script = "import time; print('compiling cell_rows 4.0', flush=True); time.sleep(120)"
    source = BackgroundKernels(command=[sys.executable, "-c", script], warm=lambda: False).start()
    deadline = time.monotonic() + 30
    while not source.status.compiling and time.monotonic() < deadline:
        time.sleep(0.01)
    assert source.status.compiling
    return source


def test_while_the_kernels_compile_the_solver_searches_in_a_child_not_in_this_process(tmp_path, monkeypatch):
    source = _compiling_source(tmp_path)
    try:
        def here(*args, **kwargs):
            raise AssertionError("the interpreted search ran in the game's own process")

        monkeypatch.setattr(compiling, "interpreted_kernels", here)
        track = track_from_charmap(LOOP, id="loop")
        solver = Solver(kernels=source)
        table = solver.table(track, preset("paper"), 1)
        assert table.track is track and table.kernels is source and source.errors == []
        assert solver.table(track, preset("paper"), 1) is table  # kept, like a table searched here
        assert solver.building is None and source._tables == set()
    finally:
        source.close()


@pytest.fixture
def stalling(monkeypatch):
    """Table children whose search never ends (the list of those made)."""
    stall = "import sys, time; sys.stdin.readline(); time.sleep(120)"
    children = []

    class Stalling(TableChild):
        def __init__(self, env=None) -> None:
            super().__init__(command=[sys.executable, "-c", stall], env=env)
            children.append(self)

    monkeypatch.setattr(offload, "TableChild", Stalling)
    return children


def _build_in_background(source):
    import threading

    results = []
    worker = threading.Thread(target=lambda: results.append(source.build_table(
        SolverTable, track_from_charmap(LOOP, id="loop"), preset("paper"), 1, 2 ** 31)))
    worker.start()
    return worker, results


def _searching(children) -> None:
    deadline = time.monotonic() + 30
    while not (children and children[0]._child is not None) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert children and children[0]._child is not None


def test_closing_the_kernel_source_stops_a_table_child_at_once(tmp_path, stalling):
    source = _compiling_source(tmp_path)
    worker, results = _build_in_background(source)
    _searching(stalling)
    began = time.monotonic()
    source.close()
    worker.join(10)
    assert not worker.is_alive() and time.monotonic() - began < 5
    assert results == [None] and stalling[0]._child.poll() is not None  # the child is gone
    assert source.build_table(SolverTable, None, None, 1, 2 ** 31) is None  # nothing starts after close


def test_a_table_child_started_while_the_cache_is_checked_gives_way_to_a_warm_cache(stalling, monkeypatch):
    import threading

    from game.drivers import solver

    checked = threading.Event()
    monkeypatch.setattr(solver, "warm_up", lambda: None)  # (the compiled kernels load on their first call)
    source = BackgroundKernels(command=[sys.executable, "-c", "import sys; sys.exit(9)"],
                               warm=lambda: checked.wait(30)).start()
    try:
        worker, results = _build_in_background(source)
        _searching(stalling)  # searching at once, while the cache is checked
        assert source.status.stage == "checking"
        checked.set()  # warm after all
        worker.join(30)
        assert results == [None]  # the caller builds it with the compiled kernels
        assert stalling[0].done and stalling[0]._child.poll() is not None
        assert source.wait(30) and source.errors == []
    finally:
        source.close()


def test_a_table_child_ends_when_the_game_goes_away():
    """A child whose game died (its stdin closed) stops searching at once rather than finishing for nobody."""
    big = "X" * 82 + "\n" + "\n".join(  # an open field: its search takes the child a minute
        "X" + ("S" if y < 3 else "O") + "O" * 78 + "F" + "X" for y in range(30)) + "\n" + "X" * 82 + "\n"
    track = track_from_charmap(big, id="big")
    request = pickle.dumps((SolverTable, track, preset("paper"), 1, 2 ** 31, 10 ** 9))
    child = subprocess.Popen(offload.child_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
    child.stdin.write(b"%d\n" % len(request) + request)
    child.stdin.flush()
    time.sleep(1.0)  # it is loading its modules, or searching
    began = time.monotonic()
    child.stdin.close()  # what the game's death does to the pipe
    assert child.wait(timeout=30) == 0
    assert time.monotonic() - began < 5
    assert b"table" not in child.stdout.read()  # it stopped before its table was done
    child.stdout.close()
