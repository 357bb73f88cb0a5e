"""The solver's par against the plain referee search, for every value of every rule option.

Not per preset: each value of each option in ``OPTIONS`` (and each end of each range in
``NUMBERS``) is set on its own over the paper rules (with the options it needs to matter,
``CONTEXT``), and on small random maps (road, off-road, every terrain letter, a checkpoint
column; line gates and Karopapier's cell gates, so both the general and the layered
search are checked) the solver's par must equal
:func:`~game.drivers.reference.reference_par`, which plays every move through the referee.
A new rule value gets this check without a line here. Values the solver does not search
exactly are skipped with the reason (``NOT_EXACT``).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core import preset
from game.core.rules import NUMBERS, OPTIONS
from game.drivers.reference import reference_par
from game.drivers.solver import solve
from game.tracks.charmap import track_from_charmap

#: Options that only matter together with others: what is set with them.
CONTEXT = {
    "setback_moves": {"offroad_penalty": "setback"},
    "block_passing": {"collision": "block"},
    "blockers": {"collision": "block"},
    "fine_range": {"movement": "fine"},
    "penalty_exponent": {"offroad_penalty": "skip_by_speed"},
    "penalty_cap": {"offroad_penalty": "skip_by_speed"},
}

#: (option, value) -> why the solver's par is not compared with the referee's.
NOT_EXACT = {
    ("movement", "fine"): "fine paper is not searched (the CPUs play it by heuristics)",
    ("movement", "flick"): "flick is not searched (the CPUs play it by heuristics)",
    ("offroad_penalty", "slow_return"): "slow_return: driving on the paper is not searched (par: the best on-road line)",
}


def _cases():
    for name, values in OPTIONS.items():
        for value in values:
            yield name, value
    for name, (low, high, _) in NUMBERS.items():
        yield name, low
        yield name, high


CASES = list(_cases())

# A map: start column, five random columns with a checkpoint column in the middle, finish
# column; the middle row is plain road, so the finish can be reached even where terrain is
# off-road (a map that cannot is refused by the loader).
ROWS, COLUMNS, CHECKPOINT = 3, 5, 2
squares = st.sampled_from("OOOOOOXXYZIC")


def _charmap(cells: list[str]) -> str:
    lines = ["X" * (COLUMNS + 4)]
    for y in range(ROWS):
        row = cells[y * COLUMNS:(y + 1) * COLUMNS]
        if y == ROWS // 2:
            row = ["O"] * COLUMNS
        row[CHECKPOINT] = "1"
        lines.append("XS" + "".join(row) + "FX")
    lines.append("X" * (COLUMNS + 4))
    return "\n".join(lines)


def _rules(name, value):
    skip = NOT_EXACT.get((name, value)) or next(
        (NOT_EXACT[(n, v)] for n, v in CONTEXT.get(name, {}).items() if (n, v) in NOT_EXACT), None)
    if skip:
        pytest.skip(skip)
    return preset("paper").with_options(**CONTEXT.get(name, {}), **{name: value})


@pytest.mark.parametrize("name,value", CASES, ids=[f"{n}={v}" for n, v in CASES])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cells=st.lists(squares, min_size=ROWS * COLUMNS, max_size=ROWS * COLUMNS), cell_gates=st.booleans())
def test_par_equals_the_referee_search_for_every_option_value(name, value, cells, cell_gates):
    rules = _rules(name, value)
    track = track_from_charmap(_charmap(cells), id="random", karopapier=cell_gates)
    # Par under setback rules counts no crash moves (a car with no legal move is out).
    ref = reference_par(track, rules, 1, max_states=50_000, setbacks=not rules.sets_back)
    assert ref.complete
    assert solve(track, rules, 1).par == ref.par
