"""A phase played out on screen: every car moving at once along its segment (no pygame).

:class:`PhaseAnimation` turns a :class:`~game.core.race.PhaseRecord` into positions over
time. All cars share one eased clock, so a collision the rules found at fraction ``t``
of the move happens on screen exactly where both pens meet. Events (collisions,
crashes, finishes) "fire" when the pens reach their fraction; the scene reads which
fired and for how long, to draw bursts, flags and shakes.

The pace adapts to the phase (:func:`pace`): a phase where something happens (a
collision, a crash, a finish, an overtake) plays at full length, one where every car
just drives on is over in a fraction of a second. Both are then scaled by the player's
replay speed, and both depend on the record alone (and the overtake flag the scene
passes in), never on the machine: :func:`replay_seconds` is the time a phase takes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from game.core.race import CarMove, Event, PhaseRecord
from game.presentation.board import Stroke
from game.presentation.easing import in_out_cubic, lerp_pt
from game.settings import REPLAY_SPEEDS

Point = tuple[float, float]

#: Seconds the pens take to draw a phase where something happens, at speed 1.
MOVE_SECONDS = 0.9
#: Seconds the pens take, and the pause after them, in a phase where every car just drives
#: on: long enough to see every car go, short enough that a quiet lap does not drag.
QUICK_SECONDS, QUICK_AFTER = 0.3, 0.12
#: Replay speeds a player can pick (the first is the slowest): the settings' own list, so
#: the keys step through exactly the speeds the settings menu offers and keeps.
SPEEDS = REPLAY_SPEEDS

#: Events that make a phase worth watching at full length (laps, checkpoints and terrain do not).
_DRAMATIC = ("off_track", "collision", "penalty", "disqualified", "finish")
#: Anticipation and follow-through, drawn on a moving car's symbol only (its pen line stays
#: exact): for the first WINDUP of the move the car rears back against its direction, up to
#: LEAN squares; over the last RUN_ON of it the car runs ahead of its pen, past the node as
#: it lands, and swings back to rest on it within SETTLE seconds (less when the phase ends
#: sooner). Every part starts and ends at zero, so nothing jumps.
WINDUP, RUN_ON, LEAN, SETTLE = 0.2, 0.15, 0.14, 0.3
#: After a crash: seconds (after the move) before the pencil starts drawing the way back to
#: the restart node, and how long the car takes along it.
RESTART_DELAY, RESTART_SECONDS = 0.25, 0.5


def _inverse_ease(value: float) -> float:
    """The animation fraction at which the eased travel reaches ``value`` (bisection)."""
    lo, hi = 0.0, 1.0
    for _ in range(30):
        mid = (lo + hi) / 2
        if in_out_cubic(mid) < value:
            lo = mid
        else:
            hi = mid
    return hi


def _pt(v) -> Point:
    return (float(v.x), float(v.y))


def eventful(record: PhaseRecord, overtake: bool = False) -> bool:
    """Whether something happens in the phase: a collision, a crash or penalty, a finish, or
    (``overtake``, which the record alone cannot tell) a change of places. A car sitting out
    a turn it lost earlier is no news (its label still shows)."""
    sitting = {m.car for m in record.moves if m.target is None and m.crash_point is None and m.end == m.start}
    return overtake or bool(record.collisions) or any(
        e.kind in _DRAMATIC and not (e.kind == "penalty" and e.car in sitting) for e in record.events)


def pace(record: PhaseRecord, overtake: bool = False) -> tuple[float, float]:
    """(seconds the pens draw, seconds after them) of the phase at replay speed 1: full length
    where something happens, quick where every car just drives on; a crashed car's way back
    to the road always gets its time."""
    restarts = any(m.target is not None and _pt(m.end) != PhaseAnimation._find_reach(m)[0] for m in record.moves)
    if restarts:
        return MOVE_SECONDS, RESTART_DELAY + RESTART_SECONDS + 0.2
    if eventful(record, overtake):
        return MOVE_SECONDS, 0.45
    return QUICK_SECONDS, QUICK_AFTER


@dataclass
class CarFrame:
    """Where a car is drawn at one moment of a phase, and how."""

    car: int
    point: Point
    stage: str  # "moving", "crashed" (stopped at its crash point), "restarting", "restarted", "still"


class PhaseAnimation:
    """Time through one phase: ``advance(dt)`` moves it on; the rest only reads."""

    def __init__(self, record: PhaseRecord, move_seconds: float | None = None, overtake: bool = False) -> None:
        """``move_seconds`` None: the phase's own :func:`pace` (``overtake``: places change in
        it); a number keeps another animation's pace (the ghost runs in step with the race)."""
        self.record = record
        own_move, self.after_seconds = pace(record, overtake)
        self.move_seconds = own_move if move_seconds is None else move_seconds
        self.quick = self.move_seconds < MOVE_SECONDS
        # where each pen stops, read for every car every frame (by identity: the record holds its moves)
        self._reaches = {id(m): self._find_reach(m) for m in record.moves}
        self.elapsed = 0.0
        self.fire_at: dict[int, float] = {
            k: _inverse_ease(e.time) * self.move_seconds for k, e in enumerate(record.events)}
        self.collision_at = [_inverse_ease(c.time) * self.move_seconds for c in record.collisions]

    @property
    def length(self) -> float:
        return self.move_seconds + self.after_seconds

    @property
    def done(self) -> bool:
        return self.elapsed >= self.length

    def advance(self, seconds: float) -> None:
        self.elapsed = min(self.length, self.elapsed + max(0.0, seconds))

    def finish(self) -> None:
        self.elapsed = self.length

    @property
    def travel(self) -> float:
        """How far along its segment every pen is, 0..1 (eased)."""
        return in_out_cubic(self.elapsed / self.move_seconds)

    def _reach(self, move: CarMove) -> tuple[Point, float]:
        """Where the pen stops and at which travel fraction."""
        found = self._reaches.get(id(move))
        return found if found is not None else self._find_reach(move)

    @staticmethod
    def _find_reach(move: CarMove) -> tuple[Point, float]:
        if move.target is None:
            return _pt(move.start), 0.0
        if move.crash_point is not None:
            return move.crash_point, float(move.crash_time or 0.0)
        return _pt(move.target), 1.0

    def _restarts(self, move: CarMove) -> bool:
        """Is the car put back somewhere else after it stopped (a crash and a restart)?"""
        return move.target is not None and _pt(move.end) != self._reach(move)[0]

    def restart_fraction(self, move: CarMove) -> float | None:
        """How far along the way back to its restart node a crashed car is drawn, 0..1
        (None: the car is not restarted, or the pencil has not started yet)."""
        if not self._restarts(move):
            return None
        t = (self.elapsed - self.move_seconds - RESTART_DELAY) / RESTART_SECONDS
        if t < 0:
            return None
        return in_out_cubic(min(1.0, t))

    def frame(self, move: CarMove) -> CarFrame:
        travel = self.travel
        if move.target is None:
            stage = "restarted" if move.end != move.start and self.elapsed >= self.move_seconds else "still"
            return CarFrame(move.car, _pt(move.end) if stage == "restarted" else _pt(move.start), stage)
        reach, stop = self._reach(move)
        if travel < stop or stop >= 1.0 and self.elapsed < self.move_seconds:
            return CarFrame(move.car, lerp_pt(_pt(move.start), _pt(move.target), travel), "moving")
        if _pt(move.end) != reach:
            back = self.restart_fraction(move)
            if back is None:
                return CarFrame(move.car, reach, "crashed")
            if back < 1.0:  # led back to the road along the pencil line
                return CarFrame(move.car, lerp_pt(reach, _pt(move.end), back), "restarting")
            return CarFrame(move.car, _pt(move.end), "restarted")
        return CarFrame(move.car, reach, "still")

    def lean(self, move: CarMove) -> Point:
        """The anticipation and follow-through of ``move``'s car now, as a shift in squares
        along its move (see :data:`LEAN`): back while it winds up, forward as it lands on its
        target and settles. (0, 0) for a car that stands, crashed or is being restarted.
        """
        if move.target is None or move.crash_point is not None or _pt(move.end) != _pt(move.target):
            return (0.0, 0.0)
        dx, dy = move.target.x - move.start.x, move.target.y - move.start.y
        length = (dx * dx + dy * dy) ** 0.5
        if length == 0:
            return (0.0, 0.0)
        p = self.elapsed / self.move_seconds
        settle = min(SETTLE, self.after_seconds)
        if p < WINDUP:
            amount = -LEAN * math.sin(math.pi * p / WINDUP)
        elif 1.0 - RUN_ON <= p < 1.0:
            amount = LEAN * math.sin(math.pi / 2 * (p - 1.0 + RUN_ON) / RUN_ON)
        elif p >= 1.0 and settle > 0 and self.elapsed - self.move_seconds < settle:
            q = (self.elapsed - self.move_seconds) / settle
            amount = LEAN * (1.0 - q) ** 2 * math.cos(1.5 * math.pi * q)  # past, a little back, at rest
        else:
            return (0.0, 0.0)
        return (amount * dx / length, amount * dy / length)

    def frames(self) -> list[CarFrame]:
        return [self.frame(m) for m in self.record.moves]

    def live_strokes(self) -> list[Stroke]:
        """The part of every car's stroke drawn so far."""
        out = []
        travel = self.travel
        for move in self.record.moves:
            if move.target is None:
                continue
            reach, stop = self._reach(move)
            if travel >= stop:
                b = reach
            else:
                b = lerp_pt(_pt(move.start), _pt(move.target), travel)
            out.append(Stroke(move.car, _pt(move.start), b, b))
        return out

    def fired(self) -> list[tuple[Event, float]]:
        """Events that have happened by now, with their age in seconds."""
        return [(e, self.elapsed - self.fire_at[k]) for k, e in enumerate(self.record.events)
                if self.elapsed >= self.fire_at[k]]

    def collisions_fired(self) -> list[tuple[int, float]]:
        """Indices of collisions that have happened, with their age in seconds."""
        return [(k, self.elapsed - t) for k, t in enumerate(self.collision_at) if self.elapsed >= t]


def replay_seconds(record: PhaseRecord, speed: float = 1.0, overtake: bool = False) -> float:
    """Seconds of the race screen a phase's replay takes at replay ``speed`` (the settings'
    speed: 1 is normal; ``overtake``: places change in the phase): what
    ``tools/bench_pacing.py`` adds up for a race."""
    return PhaseAnimation(record, overtake=overtake).length / speed
