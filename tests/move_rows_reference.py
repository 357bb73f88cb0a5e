"""Move rows worked out slowly from the referee's own calls: what the row builder is compared with.

The game builds move rows (``game.drivers.moves.MoveTables``) with one compiled builder,
for every road node at once. This reference answers the same question one move at a
time with the calls the referee (``game.core.race.RaceState._drive``) makes: the
region's ``segment_inside`` and ``exit_fraction`` (asked for a row's moves at once),
``leaves_road``'s three checks, each gate's ``crossing`` sorted by time then gate number,
the crash point as ``_lerp`` rounds it, ``Track.nearest_road_node`` and the referee's
``_teleport`` test for the line gates a restart jumps back across. Small, slow and
obviously right: use it on small tracks and a few dozen offsets.
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

import numpy as np

from game.core.race import _between, _lerp, _pt
from game.core.rules import OffroadCheck, RuleSet
from game.core.track import Track
from game.core.vec import Vec

NO_NODE = -1


class Entry(NamedTuple):
    """What a move from one road node by one offset does, as the rows hold it (signatures spelt out)."""

    target: int  # road index of the node it lands on, NO_NODE off the road or off the sheet
    paper: bool  # it lands on the sheet
    inside: bool  # the whole segment stays on the road
    sig: tuple  # (gate index, direction) of every crossing, in the referee's order
    reset: int  # for a move the rules punish with a crash: the restart node
    csig: tuple  # its crossings up to the crash, then the gates the restart puts the car back across


def reference_rows(track: Track, rules: RuleSet, offsets, nodes=None) -> dict[tuple[int, int], list[Entry]]:
    """For each offset, the :class:`Entry` of the move from each road node in ``nodes`` (road
    indexes, row-major order; None: every one).

    The region's answers come from its vectorised calls (``segments_inside``,
    ``exit_fractions``, ``nearest_road_nodes``: what the single-move ones the referee makes
    call), one offset at a time; the gates are asked move by move.
    """
    track = track.for_rules(rules)
    ys, xs = np.nonzero(track.region.road_nodes())
    index = {(int(x), int(y)): k for k, (x, y) in enumerate(zip(xs, ys))}
    nodes = np.arange(len(xs)) if nodes is None else np.asarray(nodes, dtype=np.int64)
    starts = np.stack([xs[nodes], ys[nodes]], axis=1).astype(np.int64)
    return {(dx, dy): _row(track, rules, index, starts, Vec(dx, dy)) for dx, dy in offsets}


def _row(track: Track, rules: RuleSet, index: dict, starts: np.ndarray, d: Vec) -> list[Entry]:
    ends = starts + [d.x, d.y]
    paper = (ends[:, 0] >= 0) & (ends[:, 0] < track.width) & (ends[:, 1] >= 0) & (ends[:, 1] < track.height)
    inside = np.zeros(len(starts), dtype=bool)
    if paper.any():
        inside[paper] = track.region.segments_inside(starts[paper], ends[paper])  # Track.segment_on_road
    targets = [index.get((int(x), int(y)), NO_NODE) for x, y in ends]
    # which moves the rules punish with a crash (leaves_road): under the projection check that
    # depends on the velocity before the move, which a row does not know, so every move
    check = rules.offroad_check
    punished = paper & (~inside if check == OffroadCheck.SEGMENT else
                        np.array([t == NO_NODE for t in targets]) if check == OffroadCheck.LANDING else True)
    if not rules.crash_stops_car:
        punished[:] = False
    stops = [Fraction(1)] * len(starts)
    crash_at = np.flatnonzero(punished)
    if rules.crash_stops_at_exit and len(crash_at):  # as RaceState._travel
        leaves, num, den = track.region.exit_fractions(starts[crash_at], ends[crash_at])
        for k, at in enumerate(crash_at.tolist()):
            if leaves[k]:
                stops[at] = Fraction(int(num[k]), int(den[k]))
    crashes = {at: _lerp(Vec(*map(int, starts[at])), Vec(*map(int, ends[at])), stops[at]) for at in crash_at.tolist()}
    restarts = dict(zip(crashes, track.nearest_road_nodes(np.array(list(crashes.values()), dtype=float))
                        if crashes else []))
    entries = []
    for at, (p, q) in enumerate(zip(starts.tolist(), ends.tolist())):
        p, q = Vec(*p), Vec(*q)
        if not paper[at]:
            entries.append(Entry(NO_NODE, False, False, (), NO_NODE, ()))
            continue
        sig = _crossings(track, p, q, Fraction(1))
        if at not in crashes:
            entries.append(Entry(targets[at], True, bool(inside[at]), sig, NO_NODE, ()))
            continue
        end = Vec(*map(int, restarts[at]))
        csig = _crossings(track, p, q, stops[at]) + _back(track, crashes[at], end)
        entries.append(Entry(targets[at], True, bool(inside[at]), sig, index[(end.x, end.y)], csig))
    return entries


def _crossings(track: Track, p: Vec, q: Vec, stop: Fraction) -> tuple:
    """The gates the move p-q crosses up to ``stop``, as RaceState._cross_gates orders them."""
    found = []
    for gi, gate in enumerate((track.finish, *track.checkpoints)):
        hit = gate.crossing(p, q)
        if hit is not None and hit[1] <= stop:
            found.append((hit[1], gate.number, gi, hit[0]))
    found.sort(key=lambda item: (item[0], item[1]))
    return tuple((gi, direction) for _, _, gi, direction in found)


def _back(track: Track, start: tuple[float, float], end: Vec) -> tuple:
    """The line gates a restart from ``start`` to ``end`` puts the car back across (RaceState._teleport)."""
    out = []
    for gi, gate in enumerate((track.finish, *track.checkpoints)):
        if gate.is_line and gate.signed_distance(start) >= 0 > gate.signed_distance(_pt(end)) \
                and _between(gate, start, _pt(end)):
            out.append((gi, -1))
    return tuple(out)


def built_rows(tables, offsets, nodes=None) -> dict[tuple[int, int], list[Entry]]:
    """The same entries read from a ``MoveTables`` (its rows for ``offsets`` built first)."""
    tables.build_rows(offsets)
    n = tables.n_road
    nodes = range(n) if nodes is None else nodes
    out = {}
    for dx, dy in offsets:
        base = tables.row(dx, dy) * n
        out[(dx, dy)] = [Entry(int(tables.target[base + r]), bool(tables.paper[base + r]),
                               bool(tables.inside[base + r]), tables.signatures[int(tables.sig[base + r])],
                               int(tables.reset[base + r]),
                               tables.signatures[int(tables.csig[base + r])] if tables.reset[base + r] >= 0 else ())
                         for r in nodes]
    return out


def differences(tables, rules: RuleSet, offsets, nodes=None, limit: int = 5) -> list[str]:
    """Where the built rows and the reference differ, for the moves from ``nodes`` (None: every
    road node) by ``offsets``: at most ``limit`` lines, empty when they agree."""
    nodes = list(range(tables.n_road) if nodes is None else nodes)
    ours, theirs = built_rows(tables, offsets, nodes), reference_rows(tables.track, rules, offsets, nodes)
    found = []
    for offset in offsets:
        for r, a, b in zip(nodes, ours[offset], theirs[offset]):
            if a != b:
                node = (int(tables.xs[r]), int(tables.ys[r]))
                fields = [f"{name} {x!r} != {y!r}" for name, x, y in zip(Entry._fields, a, b) if x != y]
                found.append(f"move {offset} from {node}: " + ", ".join(fields))
                if len(found) >= limit:
                    return found
    return found
