"""Coaching: each ring tinted by the moves its target leads to (checked against a plain referee search),
the stopping distance ahead of the car, and no search in the frame loop."""

from __future__ import annotations


import pygame
import pytest
from hypothesis import given, strategies as st

from game.core import RaceState, Vec, preset
from game.drivers.base import HumanDriver
from game.presentation.app import init_pygame
from game.presentation.coaching import CoachingLayer, TINTS
from game.presentation.race_scene import RaceScene, RaceSettings
from game.presentation.scene import SceneStack
from game.race.coaching import grade_targets, grades, stopping_path, target_values
from game.race.controller import RaceController, Seat
from tests.test_debrief import _dogleg, _key, _solver, reference_to_go
from tests.screenshots import save_screenshot



def _walk(rules_name: str, picks: int):
    """A lone car on the dog-leg after ``picks`` best moves, and its table."""
    rules = preset(rules_name)
    state = RaceState.start(_dogleg(), rules, ["Ada"], laps=1, seed=3)
    table = _solver().table(state.track, rules, 1)
    states = [state]
    for _ in range(picks):
        cands = [c.node for c in state.candidates(0, {}) if c.legal]
        values = target_values(table, state, 0, cands)
        best = min((v for v in values.values() if v is not None))
        state, _ = state.apply({0: next(n for n, v in values.items() if v == best)})
        states.append(state)
    return states, table


@pytest.mark.parametrize("rules_name", ["paper", "arcade"])
def test_every_ring_is_graded_by_the_moves_its_target_leads_to_as_a_plain_search_counts_them(rules_name):
    states, table = _walk(rules_name, 4)
    seen = set()
    for state in states:
        c = state.cars[0]
        if not c.racing:
            break
        nodes = [cand.node for cand in state.candidates(0, {}) if cand.legal]
        afters = {n: state.apply({0: n})[0].cars[0] for n in nodes}
        dist = reference_to_go(state, list(afters.values()))
        plain = {n: (0 if a.status == "finished" else None) if not a.racing
                 else (dist[_key(a)] if _key(a) in dist else None) for n, a in afters.items()}
        plain = {n: None if v is None else 1 + v for n, v in plain.items()}
        assert target_values(table, state, 0, nodes) == plain
        graded = grade_targets(table, state, 0, nodes)
        best = min(v for v in plain.values() if v is not None)
        for n, v in plain.items():
            want = "doomed" if v is None or v - best >= 3 else ("best", "+1", "+2")[v - best]
            assert graded[n] == want
        seen.update(graded.values())
    assert {"best", "+1"} <= seen  # the walk met real choices, not a corridor of equals


def test_grades_name_the_best_the_near_misses_and_the_doomed():
    a, b, c, d, e = (Vec(i, 0) for i in range(5))
    assert grades({a: 7, b: 8, c: 9, d: 10, e: None}) == {a: "best", b: "+1", c: "+2", d: "doomed", e: "doomed"}
    assert grades({a: None}) == {}


def test_the_stopping_distance_grows_with_speed_and_ends_where_the_car_stands():
    rules = preset("paper")
    assert stopping_path(rules, Vec(0, 0), Vec(0, 0)) == []
    assert stopping_path(rules, Vec(0, 0), Vec(1, 0)) == []  # one brake and it stands where it is
    assert stopping_path(rules, Vec(0, 0), Vec(3, 0)) == [Vec(2, 0), Vec(3, 0)]  # 2, then 1, then 0
    assert stopping_path(rules, Vec(0, 0), Vec(4, -2)) == [Vec(3, -1), Vec(5, -1), Vec(6, -1)]
    lengths = [len(stopping_path(rules, Vec(0, 0), Vec(s, 0))) for s in range(1, 8)]
    assert lengths == sorted(lengths) and lengths[-1] == 6


def test_graded_cars_that_never_stop_brake_to_their_slowest_speed():
    rules = preset("paper", {"movement": "graded"})
    path = stopping_path(rules, Vec(0, 0), Vec(3, 0))
    assert path and path[-1] == Vec(3, 0)  # 2 squares, then 1, and no further slowing


def _scene(size, layer):
    rules = preset("paper")
    state = RaceState.start(_dogleg(), rules, ["Ada"], laps=1, seed=3)
    ctl = RaceController(state, [Seat("Ada", HumanDriver())])
    scene = RaceScene(ctl, size, settings=RaceSettings(intro=False, camera_drift=False, show_doomed=False),
                      layers=(layer,))
    SceneStack().push(scene)
    return scene


def _settle(layer, scene):
    for _ in range(4):
        scene.update(1 / 60)
        for job in (layer._table_job, layer._job):
            if job is not None:
                job.wait(120)
    scene.update(1 / 60)


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_the_rings_are_untinted_until_the_table_is_ready_then_tinted_by_grade(size):
    init_pygame(headless=True)
    solver = _solver()
    layer = CoachingLayer(lambda s: solver.table(s.track, s.rules, s.laps), {0})
    scene = _scene(size, layer)
    surface = pygame.Surface(size)
    scene.update(1 / 60)
    scene.draw(surface)  # before anything is known: no tint, and no wait
    assert layer.grades_for(scene.controller.state.phase, 0) is None
    _settle(layer, scene)
    state = scene.controller.state
    table = solver.table(state.track, state.rules, 1)
    nodes = [c.node for c in state.candidates(0, {})]
    assert layer.grades_for(state.phase, 0) == grade_targets(table, state, 0, nodes)
    # a couple of best moves, so the car has speed and the stopping distance shows
    for _ in range(2):
        graded = layer.grades_for(scene.controller.state.phase, 0)
        here = scene.controller.state.cars[0].position
        best = max((n for n, g in graded.items() if g == "best"), key=lambda n: abs(n.x - here.x) + abs(n.y - here.y))
        scene.controller.submit(0, best)
        for _ in range(400):
            scene.update(1 / 30)
            if scene.mode == "choosing" and scene.controller.state.phase > state.phase:
                break
        state = scene.controller.state
        _settle(layer, scene)
    assert stopping_path(state.rules, state.cars[0].position, state.cars[0].velocity)  # the car has speed
    scene._aim()
    scene.view.camera.snap()
    scene.draw(surface)
    centres = scene.view.target_centres(scene.layer_view.targets, 0)
    graded = layer.grades_for(scene.controller.state.phase, 0)
    colours = {tuple(surface.get_at((int(x + dx), int(y))))[:3] for key, (x, y) in centres.items()
               for dx in range(-40, 41)}
    assert TINTS["best"] in colours and any(TINTS[g] in colours for g in set(graded.values()) - {"best"})
    save_screenshot(surface, f"coaching-{size[1]}")


# -- the assist kept with a best run -------------------------------------------------------
def test_a_coached_best_run_is_told_apart_and_an_old_file_without_an_assist_still_loads(tmp_path):
    from game.presentation.menus.trial import assist_note
    from game.race.replay import CarEntry, Replay
    from game.race.trial import TrialRecords
    from tests.test_trial import judge, lone_run

    track, plain, state = lone_run()
    records = TrialRecords(tmp_path / "trials")
    assert records.offer(plain, state.cars[0].moves, None)  # as an older game wrote it: no assist key
    old, _, problem = records.load("tests#strip", plain.rules, 1, judge(track))
    assert problem == "" and old.assist == "" and assist_note(old.assist) == ""
    coached = Replay.from_race(plain.track, 1, plain.rules, plain.seed, [CarEntry("Ada", "human", assist="coach")],
                               plain.phases)
    assert records.offer(coached, state.cars[0].moves - 1, old)
    best, _, problem = records.load("tests#strip", plain.rules, 1, judge(track))
    assert problem == "" and best.assist == "coach" and "coaching" in assist_note(best.assist)


def test_coaching_is_offered_before_a_time_trial_and_kept_with_the_run(tmp_path):
    from game.presentation.menus.trial import TrialResultScene
    from tests.test_flow import Couch, drive_to_the_finish
    from tests.test_trial import open_trial, wait_until

    couch = Couch(tmp_path)
    try:
        pad = couch.plug()
        start = open_trial(couch, pad)
        wait_until(couch, start.ready)
        assert not start.coached  # off unless the player asks
        couch.press_until(pad, "dpdown", lambda: start.menu.current.label == "Coaching", "the Coaching row")
        couch.press(pad, "dpright")
        assert start.coached
        couch.press_until(pad, "dpup", lambda: start.menu.current.label == "Start the run!", "Start the run!")
        couch.press(pad, "a")
        race = couch.top()
        assert any(isinstance(layer, CoachingLayer) for layer in race.config.layers)
        drive_to_the_finish(couch, [pad])
        result = couch.top()
        assert isinstance(result, TrialResultScene) and result.new_best
        couch.press(pad, "b")  # back at the start: the best run read back, marked as coached
        wait_until(couch, start.ready)
        assert start.best is not None and start.best.assist == "coach"
    finally:
        couch.close()


# -- the stopping distance, worked out another way -----------------------------------------
def _per_axis_brake(position: Vec, velocity: Vec) -> list[Vec]:
    """On the 9-target system each axis can slow by one a move: the simple way to the same line."""
    out, here, v = [], position, velocity
    while True:
        v = Vec(v.x - (v.x > 0) + (v.x < 0), v.y - (v.y > 0) + (v.y < 0))
        if v == Vec(0, 0):
            return out
        here = here + v
        out.append(here)


@given(st.integers(-9, 9), st.integers(-9, 9), st.integers(-50, 50), st.integers(-50, 50))
def test_on_paper_the_stopping_distance_is_each_axis_braking_by_one_a_move(vx, vy, x, y):
    path = stopping_path(preset("paper"), Vec(x, y), Vec(vx, vy))
    assert path == _per_axis_brake(Vec(x, y), Vec(vx, vy))
    assert len(path) == max(0, max(abs(vx), abs(vy)) - 1)


@given(st.dictionaries(st.integers(0, 8).map(lambda i: Vec(i, 0)), st.one_of(st.none(), st.integers(1, 60)),
                       min_size=1))
def test_grades_follow_each_targets_moves_against_the_best(values):
    graded = grades(values)
    known = [v for v in values.values() if v is not None]
    if not known:
        assert graded == {}
        return
    assert set(graded) == set(values)
    assert [n for n, g in graded.items() if g == "best"] == [n for n, v in values.items() if v == min(known)]
    for node, v in values.items():
        if v is None or v - min(known) >= 3:
            assert graded[node] == "doomed"
        else:
            assert graded[node] == ("best", "+1", "+2")[v - min(known)]


def test_two_players_coached_at_once_each_see_their_grades_inside_their_own_rings():
    """Two coached players choosing at once (blind simultaneous picks) on one start line: their
    rings stand side by side. Each grade is drawn inside its owner's ring (the middle of the ring
    takes the grade's tint), and the ring round it stays in the owner's colour; no tint is drawn
    round a ring, where it ran into the neighbour's (they read as one tangle of pen marks)."""
    init_pygame(headless=True)
    size = (1920, 1080)
    solver = _solver()
    layer = CoachingLayer(lambda s: solver.table(s.track, s.rules, s.laps), {0, 1})
    rules = preset("paper", {"order": "simultaneous"})
    state = RaceState.start(_dogleg(), rules, ["Ada", "Bix"], laps=1, seed=3)
    ctl = RaceController(state, [Seat("Ada", HumanDriver()), Seat("Bix", HumanDriver())])
    scene = RaceScene(ctl, size, settings=RaceSettings(intro=False, camera_drift=False, show_doomed=False),
                      layers=(layer,))
    SceneStack().push(scene)
    for _ in range(3):
        _settle(layer, scene)
        if all(layer.grades_for(ctl.state.phase, car) is not None for car in (0, 1)):
            break
    targets = scene.layer_view.targets
    assert sorted(t.car for t in targets) == [0, 1], "both players should be choosing"
    scene._aim()
    scene.view.camera.snap()
    surface = pygame.Surface(size)
    scene.draw(surface)
    save_screenshot(surface, "coaching-two-players")
    board, cam = scene.view.board, scene.view.camera
    cars = [cam.to_screen((float(c.position.x), float(c.position.y))) for c in ctl.state.cars]
    checked = 0
    for t in targets:
        grades = layer.grades_for(ctl.state.phase, t.car)
        for cand in t.candidates:
            x, y = scene.view.target_centres(targets, t.car)[cand.key]
            near_car = any(abs(x - cx) < cam.scale * 0.5 and abs(y - cy) < cam.scale * 0.5 for cx, cy in cars)
            if cand.key == t.highlight or near_car or grades.get(cand.node) is None:
                continue
            tint = TINTS[grades[cand.node]]
            k = int(board.ring_radius(cam.scale, crowded=True) * 0.5)  # the middle of the ring (its mark aside)
            inside = {tuple(surface.get_at((int(x) + dx, int(y) + dy)))[:3] for dx in range(-k, k + 1)
                      for dy in range(-k, k + 1)}
            assert tint in inside, (t.car, cand.node, grades[cand.node])
            checked += 1
    assert checked >= 8


@pytest.mark.parametrize("movement, coached", [("nine", True), ("fine", False), ("flick", False)])
def test_a_player_who_chose_coaching_is_called_coached_only_where_the_rings_are_graded(movement, coached):
    """Fine paper and the flick have no exact table: a player who chose coaching races with plain
    targets there, so the results and a best run must not call the result assisted."""
    from game.presentation.menus.race import RacePlan, TrackEntry, coach_layers, coached_seats
    from game.presentation.menus.seats import SeatSpec
    from game.tracks import track_from_charmap

    track = track_from_charmap("XXXXXX\nXSOOFX\nXSOOFX\nXXXXXX\n", id="strip", name="Strip")
    lineup = (SeatSpec("Ada", 0, 0, assist="coach"), SeatSpec("Bix", 1, 1), SeatSpec("Cy", 2, 2, kind="cpu:rookie"))
    plan = RacePlan(lineup, TrackEntry("t#strip", track, "Strip"), preset("arcade", {"movement": movement}), 1)
    assert coached_seats(plan) == (frozenset({0}) if coached else frozenset())
    if not coached:
        assert coach_layers(None, plan) == ()  # and no coaching layer is made for them
