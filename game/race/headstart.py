"""A head start for the CPUs: their solver table is built while the race screen counts down.

A CPU's first choice in a race needs the solver's table for the track, rules and laps
(a fraction of a second with the compiled kernels). :func:`build_table_early` starts that
work on a background thread when the race is set up, so it overlaps the intro instead of
following it; the CPUs' first choice then finds the table ready (the shared tables'
lock makes it wait for a build already under way rather than start a second one). The
menus start even earlier: :func:`prepare_table` builds the table of the race being set
up while the players are on the rules screen.

On the first start after an install the kernels are still compiling
(``game.drivers.compiling``): both threads wait for them without holding the tables'
lock, so the CPUs meanwhile drive by the route heuristic instead of waiting, and read
the table as soon as it is built.
"""

from __future__ import annotations

import threading


def _wait_for_kernels(shared) -> None:
    """Wait until the solver's kernels are loaded (at once, unless they are compiling after an install)."""
    wait = getattr(shared.solver.kernels, "wait", None)
    if wait is not None:
        wait()


def build_table_early(shared, state) -> threading.Thread | None:
    """Build ``shared``'s table for ``state`` on a daemon thread (None when the solver does not play these rules).

    ``shared`` is the CPUs' shared tables (``game.drivers.cpu.make_shared``). Failures
    are left for the CPUs' own first choice to meet and report.
    """
    # Lazy on purpose: the solver loads only when a CPU's table is about to be built.
    from game.drivers.solver import supports

    if shared is None or not supports(state.rules):
        return None

    def work() -> None:
        try:
            shared.waited_table(state)
        except Exception:  # noqa: BLE001 - only a head start: the CPU's own call raises it again
            pass

    thread = threading.Thread(target=work, name="cpu-table-head-start", daemon=True)
    thread.start()
    return thread


def prepare_table(shared, track, rules, laps: int) -> threading.Thread | None:
    """Build ``shared``'s table for a race about to be set up, on a daemon thread (None: the solver does not play these rules).

    The thread holds the shared tables' lock while it builds (as a par being worked out
    does), so the race's own head start and its CPUs find the table or wait for it; a
    table for rules the players then change is finished first, then the right one built.
    """
    from game.drivers.solver import supports

    if shared is None or not supports(rules):
        return None

    def work() -> None:
        try:
            _wait_for_kernels(shared)
            with shared.lock:
                shared.solver.table(track, rules, laps)
        except Exception:  # noqa: BLE001 - only a head start: the race's own call raises it again
            pass

    thread = threading.Thread(target=work, name="cpu-table-prepare", daemon=True)
    thread.start()
    return thread


def cpu_note(kernels, solver) -> str:
    """Why the CPUs are slower than usual, for the race screen and the menus ("" when they are
    not): the kernels being prepared on a first start after an install (``kernels``, from
    ``game.drivers.compiling``, or None), or a big track's table being worked out by
    ``solver`` (a Karopapier map with many checkpoints takes seconds), with how far it is."""
    note = kernels.status.message() if kernels is not None else ""
    building = solver.building if solver is not None else None
    if not note and building is not None and building[1] > 0:
        note = f"the CPUs are studying the track: {round(100 * building[1])}%"
    return note
