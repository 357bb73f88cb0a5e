"""Coaching: what each target ring leads to, and how far the car needs to stop.

The coaching assist (time trials and practice; off in races unless a player asks) tints
every target ring by the moves to the finish it leads to, counted exactly from the
solver's table (the one the CPUs use) as in :mod:`game.race.debrief`: a target's value
is ``1 + remaining(after)``, the car driving alone. Against the best target a ring is
graded :data:`GRADES`: ``best``, ``+1``, ``+2``, or ``doomed`` (3 or more moves lost,
as a rule a crash, or no finish from there at all).

The *stopping distance* is the line the car would drive braking as hard as its movement
system allows from its current speed, straight on (:func:`stopping_path`).

Pure: no pygame, no clock; the screen asks :func:`grade_targets` on a worker thread.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from game.core.movement import allowed_steps
from game.core.race import RaceState
from game.core.vec import ZERO, Vec
from game.race.debrief import remaining

#: A ring's grade: its target's moves to the finish against the best target's.
GRADES = ("best", "+1", "+2", "doomed")

#: The assist levels a player can race with ("" none); kept with a best run and shown on the results.
ASSISTS = ("", "coach")

#: The fewest states the search for a target the table does not hold may visit (kept
#: small: a ring without a figure stays untinted, which misleads nobody).
TARGET_SEARCH_LIMIT = 4_000


def target_values(table, state: RaceState, car: int, nodes: Iterable[Vec]) -> dict[Vec, int | None]:
    """Each target node's moves to the finish if ``car`` drove there alone: ``1 + remaining(after)``.

    A node the lone car may not take (a rule only the field makes: a blocked node) is
    left out; None: no finish from there.
    """
    c = state.cars[car]
    solo = RaceState(track=state.track, rules=state.rules, laps=state.laps, seed=state.seed, cars=(c,),
                     phase=state.phase)
    legal = set(solo.legal_targets(0))
    out: dict[Vec, int | None] = {}
    for node in nodes:
        if node not in legal:
            continue
        after, _ = solo.apply({0: node})
        rest = remaining(table, after, 0, limit=TARGET_SEARCH_LIMIT)
        out[node] = None if rest is None else 1 + rest
    return out


def grades(values: Mapping[Vec, int | None]) -> dict[Vec, str]:
    """Each node's grade (:data:`GRADES`) against the best of ``values``; {} when no target finishes."""
    known = [v for v in values.values() if v is not None]
    if not known:
        return {}
    best = min(known)
    return {node: "doomed" if v is None or v - best >= 3 else GRADES[v - best] for node, v in values.items()}


def grade_targets(table, state: RaceState, car: int, nodes: Iterable[Vec]) -> dict[Vec, str]:
    """:func:`grades` of :func:`target_values`: what the screen tints each ring with."""
    return grades(target_values(table, state, car, nodes))


def stopping_path(rules, position: Vec, velocity: Vec, limit: int = 64) -> list[Vec]:
    """The nodes a car passes braking as hard as its rules allow, straight on, until it stands.

    Each move takes the allowed step leaving the slowest velocity that still points the
    way the car goes (within about 40 degrees: a brake, not a turn). The path ends where
    the car stands, or where it can slow no further that way (graded cars never stop:
    there, at their slowest speed); [] for a car that stands, or stops in one move.
    """
    path: list[Vec] = []
    here, v = position, velocity
    for _ in range(limit):
        if v == ZERO:
            break
        speed = v.x * v.x + v.y * v.y
        ahead = [w for w in (v + s for s in allowed_steps(rules, v))
                 if w == ZERO or (w.x * v.x + w.y * v.y) ** 2 > _STRAIGHT * speed * (w.x * w.x + w.y * w.y)
                 and w.x * v.x + w.y * v.y > 0]
        new = min(ahead, key=lambda w: w.x * w.x + w.y * w.y, default=v)
        if new.x * new.x + new.y * new.y >= speed:
            break  # it cannot slow down any more
        if new == ZERO:
            break  # it stands where it is
        here = here + new
        path.append(here)
        v = new
    return path


#: cos² of the widest angle between the old and the new velocity that still counts as braking straight on.
_STRAIGHT = 0.58
