"""A head start for the CPUs: their solver table is built while the race screen counts down.

A CPU's first choice in a race needs the solver's table for the track, rules and laps
(a fraction of a second with the compiled kernels, about a second while they are still
being prepared after an install). :func:`build_table_early` starts that work on a
background thread when the race is set up, so it overlaps the intro instead of
following it; the CPUs' first choice then finds the table ready (the shared tables'
lock makes it wait for a build already under way rather than start a second one).
"""

from __future__ import annotations

import threading


def build_table_early(shared, state) -> threading.Thread | None:
    """Build ``shared``'s table for ``state`` on a daemon thread (None when the solver does not play these rules).

    ``shared`` is the CPUs' shared tables (``game.drivers.cpu.make_shared``). Failures
    are left for the CPUs' own first choice to meet and report.
    """
    from game.drivers.solver import supports

    if shared is None or not supports(state.rules):
        return None

    def work() -> None:
        try:
            shared.table(state)
        except Exception:  # noqa: BLE001 - only a head start: the CPU's own call raises it again
            pass

    thread = threading.Thread(target=work, name="cpu-table-head-start", daemon=True)
    thread.start()
    return thread
