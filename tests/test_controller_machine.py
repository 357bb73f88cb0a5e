"""A stateful hypothesis machine over race control: submit, retire, take back and tick in any order.

Whatever players and CPUs do, in whatever order the frames come, race control must keep
its promises: only the cars whose turn it is may choose, a phase is played only with
every choice in, nobody comes back once out, every record replays to the state it
produced, and a finished race stays finished.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from game.core import RETIRE, RaceState, Vec, preset
from game.core.race import RACING
from game.race.controller import ChoiceRejected, RaceController, Seat, first_legal_choice
from tests.core_tracks import make_track
from tests.test_core_rules import RING, RING_KW

TRACK = make_track(RING, finish=RING_KW["finish"], forward=(1, 0),
                   slots=[Vec(6, 1), Vec(6, 2), Vec(7, 1), Vec(7, 2)])


class Human:
    """A seat race control waits for: its choices come from the machine's ``submit`` rule."""

    is_human = True
    kind = "human"


class NearestCpu:
    """A CPU that takes the legal target nearest its base point (quick and deterministic)."""

    kind = "cpu"

    def choose(self, state, car, committed, rng):
        return first_legal_choice(state, car, committed)


class RaceControlMachine(RuleBasedStateMachine):
    @initialize(rules=st.sampled_from(["paper", "arcade", "karopapier", "phases", "tournament"]),
                humans=st.lists(st.sampled_from([True, True, False]), min_size=2, max_size=4), seed=st.integers(0, 1000))
    def start(self, rules, humans, seed):
        humans[0] = True  # at least one seat waits for the machine
        state = RaceState.start(TRACK, preset(rules), [f"car{i}" for i in range(len(humans))], laps=1, seed=seed)
        seats = [Seat(f"car{i}", Human() if human else NearestCpu()) for i, human in enumerate(humans)]
        self.controller = RaceController(state, seats)
        self.out: set[int] = set()  # cars no longer racing, as last seen

    # -- what players do --------------------------------------------------------
    @rule(car=st.integers(0, 3), pick=st.integers(0, 80))
    def submit(self, car, pick):
        ctl = self.controller
        humans = ctl.waiting_humans()
        if humans and pick % 4:  # mostly a car whose turn it is, now and then any car
            car = humans[car % len(humans)]
        if car >= len(ctl.seats):
            return
        cands = ctl.candidates(car)
        if car not in ctl.awaiting():
            with pytest.raises(ChoiceRejected):
                ctl.submit(car, ctl.state.cars[car].position)
            return
        legal = [c.node for c in cands if c.legal]
        illegal = [c.node for c in cands if not c.legal]
        if illegal and pick % 5 == 0:
            with pytest.raises(ChoiceRejected):
                ctl.submit(car, illegal[pick % len(illegal)])
            assert ctl.chosen(car) is None
        elif legal:
            ctl.submit(car, legal[pick % len(legal)])
            assert ctl.chosen(car) == legal[pick % len(legal)]

    @rule(car=st.integers(0, 3))
    def retire(self, car):
        ctl = self.controller
        if car >= len(ctl.seats):
            return
        ctl.retire(car)
        if car in ctl.must_choose():
            assert ctl.chosen(car) == RETIRE

    @rule(car=st.integers(0, 3), chooser=st.booleans())
    def take_back(self, car, chooser):
        ctl = self.controller
        chose = [i for i in ctl.must_choose() if ctl.chosen(i) is not None]
        if chose and chooser:  # often the first car in choosing order that has chosen
            car = chose[0]
        if car >= len(ctl.seats):
            return
        had = ctl.chosen(car)
        must = ctl.must_choose()
        later_chose = car in must and any(ctl.chosen(i) is not None for i in must[must.index(car) + 1:])
        if ctl.take_back(car):
            assert ctl.seats[car].is_human
            assert ctl.simultaneous or not later_chose, "a pick later cars already saw was taken back"
            assert had is not None and ctl.chosen(car) is None
        else:
            assert ctl.chosen(car) == had

    @rule()
    def tick(self):
        ctl = self.controller
        phases = len(ctl.records)
        waiting = [i for i in ctl.must_choose() if ctl.seats[i].is_human and ctl.chosen(i) is None
                   and any(c.legal for c in ctl.candidates(i))]
        record = ctl.tick()
        if record is None:
            assert len(ctl.records) == phases
        else:
            assert not waiting, "a phase was played while a human with legal targets had not chosen"
            assert len(ctl.records) == phases + 1 and record.phase == phases + 1
            assert all(ctl.chosen(i) is None for i in range(len(ctl.seats)))  # a fresh phase

    @precondition(lambda self: not self.controller.over)
    @rule()
    def everyone_picks_and_the_phase_is_played(self):
        """Whole phases now and then, so that races get somewhere."""
        ctl = self.controller
        for _ in range(len(ctl.seats) + 1):
            for car in ctl.waiting_humans():
                ctl.submit(car, first_legal_choice(ctl.state, car, ctl.committed_for(car)))
            if ctl.tick() is not None:
                return

    # -- what must always hold ---------------------------------------------------
    @invariant()
    def only_cars_whose_turn_it_is_are_awaited(self):
        ctl = self.controller
        must = ctl.must_choose()
        awaiting = ctl.awaiting()
        assert set(awaiting) <= set(must)
        if not ctl.simultaneous:
            assert len(awaiting) <= 1
            if awaiting:  # the first in choosing order still to choose: every car before it has chosen
                first = awaiting[0]
                assert ctl.chosen(first) is None
                for i in must[:must.index(first)]:  # (or, with no legal target, was entered as crashing)
                    assert ctl.chosen(i) is not None or not any(c.legal for c in ctl.candidates(i))
        for i in range(len(ctl.seats)):
            if ctl.chosen(i) is not None:
                assert i in must

    @invariant()
    def the_history_is_consistent_and_replays(self):
        ctl = self.controller
        assert len(ctl.states) == len(ctl.records) + 1
        state = ctl.states[0]
        for k, record in enumerate(ctl.records):
            assert record.phase == k + 1 == ctl.states[k + 1].phase
            state, again = state.apply(record.choices, order=record.order)
            assert state.cars == ctl.states[k + 1].cars and again == record

    @invariant()
    def nobody_comes_back_once_out_and_everyone_stays_on_the_paper(self):
        ctl = self.controller
        out = {i for i, c in enumerate(ctl.state.cars) if c.status != RACING}
        assert self.out <= out
        self.out = out
        assert all(TRACK.on_paper(c.position) for c in ctl.state.cars)
        outcome = ctl.state.outcome()
        assert outcome.finished == ctl.over
        if ctl.over:
            assert ctl.must_choose() == () and ctl.tick() is None


RaceControlMachine.TestCase.settings = settings(max_examples=25, stateful_step_count=30, deadline=None,
                                               suppress_health_check=[HealthCheck.too_slow])
test_race_control_keeps_its_promises_whatever_the_players_do = RaceControlMachine.TestCase
