"""Doomed targets: moves after which the car can no longer avoid leaving the road.

A car at rest on the road is safe forever (it can stay put), so a state is safe when
some continuation of on-road moves brings it to rest. Where the rules never offer the
zero move (Karopapier) a car cannot stay put; there slowing to speed 1 counts as safe
(an approximation: from there a car can turn on a little road). The search tries the strongest
braking first and remembers every state it settled, so a whole turn costs a few
hundred checks at most; :class:`SafetyOracle` keeps that memory between turns.

The finish ends a car's race, so what lies past the line does not matter to it: a move
that finishes the race is never doomed (``RaceState.finishes`` judges it as the referee
does), and on the home straight (last lap, every checkpoint taken) a state from which the
car can still drive across the line on the road counts as safe too.
"""

from __future__ import annotations

from typing import Callable, Mapping

from game.core.movement import allowed_steps
from game.core.progress import checkpoints_done
from game.core.race import Choice, RaceState, leaves_road
from game.core.rules import Movement, RuleSet
from game.core.terrain import held, landing_velocity
from game.core.track import Track
from game.core.vec import ZERO, Vec


#: Movement systems in which a moving car can never come to rest (graded turns: never
#: below speed 1), so the question this module asks has no useful answer.
NEVER_AT_REST = frozenset({Movement.GRADED})


class SafetyOracle:
    """Remembers which (node, velocity) states of one track can still come to rest on the road.

    ``budget`` bounds the states one question may explore; past it an unsettled state
    counts as safe (the answer errs on the side of not scaring the player).

    ``checkpoint``, when given, is called every :attr:`checkpoint_every` states explored:
    a search run off the frame loop uses it to give the interpreter back to the frame
    loop often, and to abandon a question nobody needs any more by raising (what was
    settled so far stays remembered: a state is only remembered once its own search is
    done, so the memory holds what an uninterrupted search would have put there).
    """

    #: Deepest chain of moves one question follows (deeper counts as safe, like the budget):
    #: keeps the search well inside Python's recursion limit on any track.
    max_depth = 300
    #: States explored between two calls of ``checkpoint``.
    checkpoint_every = 4

    def __init__(self, track: Track, rules: RuleSet, budget: int = 20000,
                 checkpoint: Callable[[], None] | None = None) -> None:
        self.track, self.rules, self.budget = track, rules, budget
        self.checkpoint = checkpoint
        self._memo: dict[tuple[Vec, Vec, bool], bool] = {}
        self._left = budget
        self._home = False  # the question being asked: does crossing the line end the race?

    def _steps(self, p: Vec, v: Vec) -> tuple[Vec, ...]:
        if self.rules.terrain_effects and held(self.track.terrain_at(p), v):
            return (ZERO,)  # on ice a moving car cannot steer
        return allowed_steps(self.rules, v)

    def kept_velocity(self, q: Vec, v: Vec) -> Vec:
        """The velocity a move by ``v`` keeps landing on ``q`` (sand, mud, curbs)."""
        if not self.rules.terrain_effects:
            return v
        return landing_velocity(self.track.terrain_at(q), v, self.track.scale)

    def _settled(self, v: Vec) -> bool:
        """At rest; or, where the zero move is never offered (Karopapier), down to speed 1,
        from where a car can keep circling on a little road without speeding up."""
        return v.is_zero() or (not self.rules.zero_move and v.chebyshev() <= 1)

    def move_on_road(self, p: Vec, v: Vec, q: Vec) -> bool:
        """Whether moving from p (having velocity v) to q stays on the road, as the referee checks it."""
        return self.track.on_paper(q) and not leaves_road(self.track, self.rules, p, v, q)

    def can_stop(self, p: Vec, v: Vec, home: bool = False) -> bool:
        """True when the car at p with velocity v can still come to rest without leaving the road.

        ``home``: the car's next forward crossing of the finish line ends its race (its last
        lap, every checkpoint taken), so driving across the line on the road is as good as
        stopping. (A backward crossing on the way is not counted: it errs towards safe.)
        """
        self._left = self.budget
        self._home = home
        return self._search(p, v, set())

    def _finishes(self, p: Vec, q: Vec) -> bool:
        hit = self.track.finish.crossing(p, q)
        return hit is not None and hit[0] > 0

    def _search(self, p: Vec, v: Vec, path: set) -> bool:
        if self._settled(v):
            return True
        key = (p, v, self._home)
        known = self._memo.get(key)
        if known is not None:
            return known
        if key in path:
            return False  # going round in circles does not bring the car to rest
        self._left -= 1
        if self.checkpoint is not None and self._left % self.checkpoint_every == 0:
            self.checkpoint()
        if self._left < 0 or len(path) >= self.max_depth:
            return True
        path.add(key)
        options = sorted(self._steps(p, v), key=lambda s: ((v + s).chebyshev(), abs((v + s).x) + abs((v + s).y)))
        result = False
        for step in options:
            nv = v + step
            if nv.chebyshev() > v.chebyshev():
                continue  # speeding up never helps to stop
            q = p + nv
            if not self.move_on_road(p, v, q):
                continue
            if self._home and self._finishes(p, q) or self._search(q, self.kept_velocity(q, nv), path):
                result = True
                break
        path.discard(key)
        if result or self._left >= 0:
            self._memo[key] = result
        return result


def doomed_targets(state: RaceState, car: int, committed: Mapping[int, Choice] | None = None,
                   oracle: SafetyOracle | None = None) -> frozenset[Vec]:
    """The legal targets of ``car`` after which leaving the road can no longer be avoided.

    A target that leaves the road at once is doomed too, unless the move finishes the race
    first: a finishing move is never doomed, and on the home straight a target from which
    the car can still cross the line on the road is not either. Pass an ``oracle`` kept for
    the track to reuse what earlier turns learned (the race screen calls this once a turn).
    """
    if state.rules.movement in NEVER_AT_REST:
        return frozenset()  # nothing can come to rest, so "can still stop" says nothing here
    if oracle is None or oracle.track is not state.track:
        oracle = SafetyOracle(state.track, state.rules)
    c = state.cars[car]
    home = on_home_straight(state, car)
    doomed = set()
    for cand in state.candidates(car, committed):
        if not cand.legal:
            continue
        if home and state.finishes(car, cand.node):
            continue  # the race is over for this car: whatever lies past the line does not matter
        if cand.offroad:
            doomed.add(cand.node)
            continue
        if not oracle.can_stop(cand.node, oracle.kept_velocity(cand.node, cand.node - c.position), home):
            doomed.add(cand.node)
    return frozenset(doomed)


def on_home_straight(state: RaceState, car: int) -> bool:
    """Whether the car's next forward crossing of the finish line ends its race: its last lap,
    every checkpoint taken, no backward crossing to repay."""
    progress = state.cars[car].progress
    return (progress.laps_done >= state.laps - 1 and progress.finish_debt == 0
            and checkpoints_done(progress, state.rules, len(state.track.checkpoints)))
