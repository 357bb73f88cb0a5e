"""Driving a line (the solver's, or one from a game log) through the real referee, alone."""

from __future__ import annotations

from game.core import RaceState


def drive_line(track, rules, path, laps: int = 1) -> RaceState:
    """Drive ``path`` through the referee, alone from the start place it begins on; returns the final state.

    The path lists the targets the car chose; the turns a crash makes it miss are phases in which
    it chooses none. Each target must be legal when it is chosen."""
    grid = RaceState.start(track, rules, [f"c{i}" for i in range(len(track.start_slots))], laps=laps)
    car = next(c for c in grid.cars if c.position == path[0])
    state = RaceState(track=grid.track, rules=rules, laps=laps, seed=0, cars=(car,))
    for target in path[1:]:
        while state.cars[0].skip:
            state, _ = state.apply({})
        assert target in state.legal_targets(0), (state.phase, target)
        state, _ = state.apply({0: target})
    return state
