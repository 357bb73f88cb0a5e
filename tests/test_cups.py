"""Grand Prix cups: points tables, standings and their tie-breaks, the cup file, [[cup]] tables in
packs with located errors, and `racetrack cup` playing a whole cup headless."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.cli import main
from game.core.rules import preset
from game.race.cup import (CUP_FILE, Cup, CupError, CupRace, Entrant, RaceResult, load_cup, loads_cup, save_cup,
                           saved_cups, unfinished_cups)
from game.tracks import load_pack, read_pack_text, write_pack
from game.tracks.cups import PointsTable, points_table
from tests.packs import ONE_TRACK_PACK

DATA = Path(__file__).parent / "data" / "packs"
MINICUP = DATA / "minicup.toml"


def result(places, moves=None, status=None):
    moves = moves or [10 + (p or 9) for p in places]
    status = status or ["finished" if p is not None else "crashed" for p in places]
    return RaceResult(tuple(places), tuple(moves), tuple(status))


def cup(*results, names=("Ada", "Bix", "Cleo", "Dash"), points="classic", races=None):
    races = races or max(3, len(results))
    program = tuple(CupRace(f"minicup/t{k}", f"T{k}", 1, preset("paper")) for k in range(races))
    return Cup("test", "Test Cup", program, tuple(Entrant(n) for n in names), points_table(points), seed=3,
               results=tuple(results))


# -- points tables -----------------------------------------------------------------
def test_the_points_tables_pay_what_they_say():
    classic, f1, places = points_table("classic"), points_table("f1"), points_table("places")
    assert [classic.points(p, 10) for p in range(1, 11)] == [10, 8, 6, 5, 4, 3, 2, 1, 0, 0]
    assert [f1.points(p, 12) for p in range(1, 12)] == [25, 18, 15, 12, 10, 8, 6, 4, 2, 1, 0]
    assert [places.points(p, 4) for p in (1, 2, 3, 4)] == [4, 3, 2, 1]
    assert [places.points(p, 2) for p in (1, 2)] == [2, 1]
    assert all(t.points(None, 4) == 0 for t in (classic, f1, places))
    assert points_table([5, 3, 3, 0]).points(3, 4) == 3


@pytest.mark.parametrize("spec, words", [("golf", "unknown points table 'golf'"), ([1, 2], "never rise"),
                                         ([], "a list of 1 to 64"), ([3, -1], "a list of 1 to 64"),
                                         (7, "not 7")])
def test_a_bad_points_table_says_what_is_wrong(spec, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        points_table(spec)


# -- standings -------------------------------------------------------------------------
def test_standings_add_the_points_of_each_race_and_a_shared_place_scores_alike():
    # race 1: Ada and Bix dead-heat for the win, Cleo is 3rd, Dash crashes out
    c = cup(result([1, 1, 3, None]), result([2, 1, 4, 3]))
    assert c.points_in(c.results[0]) == (10, 10, 6, 0)
    assert c.points_in(c.results[1]) == (8, 10, 5, 6)
    table = {s.name: s for s in c.standings()}
    assert table["Bix"].points == 20 and table["Bix"].wins == 2 and table["Bix"].position == 1
    assert table["Ada"].points == 18 and table["Ada"].gained == 8 and table["Ada"].position == 2
    assert table["Cleo"].points == 11 and table["Dash"].points == 6
    assert [s.name for s in c.standings()] == ["Bix", "Ada", "Cleo", "Dash"]
    assert [s.name for s in c.standings(races=1)] == ["Ada", "Bix", "Cleo", "Dash"]
    assert c.standings(races=1)[1].position == 1, "level after race 1 on everything: they share 1st"
    assert table["Dash"].places == (None, 3)


def test_equal_points_are_split_by_wins_then_by_best_finishes_then_by_moves():
    # wins: Ada 6 + 0 with a win, Bix 3 + 3 without one
    wins = cup(result([1, 2, 3, 4]), result([4, 2, 1, 3]), points=[6, 3, 3, 0])
    table = {s.name: s for s in wins.standings()}
    assert table["Ada"].points == table["Bix"].points == 6 and table["Ada"].position < table["Bix"].position
    # best finishes: Ada, Bix and Cleo all have 20 points and one win; Cleo has no second place
    second = cup(result([1, 2, 3, 4]), result([2, 1, 3, 4]), result([3, 3, 1, 2]), points=[10, 5, 5, 0])
    table = {s.name: s for s in second.standings()}
    assert table["Ada"].points == table["Bix"].points == table["Cleo"].points == 20
    assert table["Ada"].position == table["Bix"].position == 1, "places and moves level: they share 1st"
    assert table["Cleo"].position == 3 and table["Dash"].position == 4
    # moves: Ada and Bix have 16 points, a win and a third each; Bix needed one move fewer
    moves = cup(RaceResult((1, 3, 2, 4), (20, 30, 25, 40), ("finished",) * 4),
                RaceResult((3, 1, 4, 2), (31, 20, 41, 26), ("finished",) * 4))
    top = moves.standings()
    assert [(s.name, s.points, s.wins, s.moves, s.position) for s in top] == [
        ("Bix", 16, 1, 50, 1), ("Ada", 16, 1, 51, 2), ("Cleo", 13, 0, 66, 3), ("Dash", 13, 0, 66, 3)]


def reference_standings(c: Cup) -> list[tuple[str, int, int]]:
    """A plain, slow reference: (name, points, position), compared pair by pair with the rules in words."""
    n = len(c.entrants)
    points = [0] * n
    for r in c.results:
        for i in range(n):
            place = r.places[i]
            if place is not None:
                if c.points.name == "places":
                    points[i] += max(0, n - place + 1)
                elif place <= len(c.points.values):
                    points[i] += c.points.values[place - 1]

    def better(i, j):  # -1 when i stands before j, 1 after, 0 level
        if points[i] != points[j]:
            return -1 if points[i] > points[j] else 1
        for place in range(1, n + 1):
            a = sum(1 for r in c.results if r.places[i] == place)
            b = sum(1 for r in c.results if r.places[j] == place)
            if a != b:
                return -1 if a > b else 1
        ma = sum(r.moves[i] for r in c.results if r.status[i] == "finished")
        mb = sum(r.moves[j] for r in c.results if r.status[j] == "finished")
        return (ma > mb) - (ma < mb)

    order = sorted(range(n), key=functools.cmp_to_key(lambda i, j: better(i, j) or (i - j)))
    out = []
    for i in order:
        position = 1 + sum(1 for j in range(n) if better(j, i) < 0)
        out.append((c.entrants[i].name, points[i], position))
    return out


@st.composite
def race_results(draw, n):
    """A race's result as the rules core ranks: shared places skip the places they fill."""
    finish_phase = draw(st.lists(st.one_of(st.none(), st.integers(1, 4)), min_size=n, max_size=n))
    places = [None if f is None else 1 + sum(1 for g in finish_phase if g is not None and g < f)
              for f in finish_phase]
    moves = draw(st.lists(st.integers(1, 30), min_size=n, max_size=n))
    status = ["finished" if p is not None else draw(st.sampled_from(["crashed", "retired"])) for p in places]
    return RaceResult(tuple(places), tuple(moves), tuple(status))


@settings(max_examples=150, deadline=None)
@given(st.data(), st.integers(2, 6), st.sampled_from(["classic", "f1", "places"]), st.integers(1, 5))
def test_standings_agree_with_a_plain_reference(data, n, table, races):
    results = [data.draw(race_results(n)) for _ in range(races)]
    c = cup(*results, names=tuple(f"P{i}" for i in range(n)), points=table, races=races)
    got = [(s.name, s.points, s.position) for s in c.standings()]
    assert got == reference_standings(c)
    assert sum(s.points for s in c.standings()) == sum(sum(c.points_in(r)) for r in c.results)


def test_a_cup_moves_on_race_by_race_and_refuses_a_result_too_many():
    c = cup(races=2)
    assert c.next_index == 0 and not c.finished and c.next_race.name == "T0"
    c = c.with_result(result([1, 2, 3, 4])).with_result(result([2, 1, 3, 4]))
    assert c.finished and c.next_race is None
    with pytest.raises(CupError, match="is over"):
        c.with_result(result([1, 2, 3, 4]))
    assert cup(races=3).race_seed(1) == cup(races=3).race_seed(1) != cup(races=3).race_seed(2)


# -- the cup file ----------------------------------------------------------------------
def test_a_cup_file_reads_back_as_the_same_cup(tmp_path):
    c = cup(result([1, 1, 3, None]), points="f1")
    c = Cup(c.id, c.name, c.races[:2] + (CupRace("x.toml#y", "Y", 3, preset("arcade", {"collision": "ignore"})),),
            (Entrant("Ada", "human", 2, 5), Entrant("Champ", "cpu:champion", 1, 0), Entrant("Cleo"),
             Entrant("Dash", "cpu:rookie")), c.points, c.seed, c.results, timer=15, source="minicup")
    path = tmp_path / "cups" / "test-3" / CUP_FILE
    save_cup(c, path)
    assert load_cup(path) == c
    assert unfinished_cups(tmp_path / "cups")[0].cup == c


@pytest.mark.parametrize("change, key", [
    (("timer = 15", "timer = 3"), "timer"),
    (("laps = 1\n", "laps = 0\n"), "race[1].laps"),
    (('places = [1, 1, 3, "-"]', 'places = [1, 9, 3, "-"]'), "result[1].places"),
    (('driver = "cpu:champion"', "driver = 4"), "entrant[2].driver"),
    (('preset = "arcade"', 'preset = "karting"'), "race[3].rules"),
    (('replay = ""', 'replay = "../../etc/passwd"'), "result[1].replay"),
])
def test_a_damaged_cup_file_names_the_key_and_line(tmp_path, change, key):
    c = cup(result([1, 1, 3, None]))
    c = Cup(c.id, c.name, c.races[:2] + (CupRace("x.toml#y", "Y", 3, preset("arcade")),),
            (Entrant("Ada"), Entrant("Champ", "cpu:champion"), Entrant("Cleo"), Entrant("Dash")), c.points,
            c.seed, c.results, timer=15)
    path = tmp_path / CUP_FILE
    save_cup(c, path)
    text = path.read_text()
    assert change[0] in text
    path.write_text(text.replace(change[0], change[1], 1))
    with pytest.raises(CupError) as caught:
        load_cup(path)
    assert caught.value.key == key and str(path) in str(caught.value)
    assert change[1].strip() in path.read_text().splitlines()[caught.value.line - 1]


def test_broken_cup_files_are_listed_with_their_reason_and_never_offered(tmp_path):
    root = tmp_path / "cups"
    save_cup(cup(), root / "a" / CUP_FILE)
    (root / "b").mkdir()
    (root / "b" / CUP_FILE).write_text("format = 1\nid = [\n")
    (root / "c").mkdir()
    (root / "c" / CUP_FILE).write_bytes(b"\xff\xfe")
    done = cup(result([1, 2, 3, 4]), races=1)
    save_cup(done, root / "d" / CUP_FILE)
    found = {s.folder.name: s for s in saved_cups(root)}
    assert found["a"].cup is not None and found["d"].cup.finished
    assert "not valid TOML" in found["b"].problem and "cannot read" in found["c"].problem
    assert [s.folder.name for s in unfinished_cups(root)] == ["a"]
    assert saved_cups(tmp_path / "nowhere") == []


def test_a_failed_save_keeps_the_last_good_cup_file(tmp_path, monkeypatch):
    import os

    path = tmp_path / CUP_FILE
    save_cup(cup(), path)
    before = path.read_text()

    def refuse(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(CupError, match="No space left"):
        save_cup(cup(result([1, 2, 3, 4])), path)
    assert path.read_text() == before and list(tmp_path.iterdir()) == [path]


def test_loads_cup_refuses_what_is_not_a_cup():
    with pytest.raises(CupError, match="format"):
        loads_cup("id = 'x'\n", "x.toml")
    with pytest.raises(CupError, match="no \\[\\[race\\]\\]"):
        loads_cup('format = 1\nid = "x"\nname = "X"\nseed = 1\n', "x.toml")


# -- [[cup]] in level packs ------------------------------------------------------------
def test_a_pack_offers_its_whole_track_list_and_its_own_cups():
    pack = load_pack(MINICUP).pack
    cups = {c.id: c for c in pack.all_cups()}
    assert list(cups) == ["minicup", "sprints", "dead-heat"]
    assert cups["minicup"].whole_pack and [r.track for r in cups["minicup"].races] == ["dash", "step", "lane"]
    sprints = cups["sprints"]
    assert sprints.points == PointsTable("f1", (25, 18, 15, 12, 10, 8, 6, 4, 2, 1))
    assert [(r.track, r.laps, r.rules) for r in sprints.races] == [("dash", None, None), ("step", None, "paper"),
                                                                     ("lane", 1, None)]
    assert [r.rules for r in cups["dead-heat"].races] == ["phases", "phases"]


BROKEN_CUPS = ONE_TRACK_PACK + '''[[track]]
id = "broken"
name = "Broken"
map = """
XXXX
XQXX
"""

[[cup]]
id = "good"
name = "Good"
races = ["a", "a"]

[[cup]]
id = "bad"
name = "Bad"
points = "golf"
colour = "red"
races = [
  { track = "zz" },
  { track = "a", laps = 0 },
  { track = "broken" },
  { track = "a", options = { collision = "boom" } },
]

[[cup]]
id = "good"
name = "Again"
races = ["a"]

[[cup]]
name = "No id"
'''


def test_broken_cups_are_reported_with_file_line_and_key_and_the_tracks_still_load():
    result = read_pack_text(BROKEN_CUPS, "p.toml")
    assert result.pack is not None and [t.id for t in result.tracks] == ["a"]
    assert [c.id for c in result.pack.cups] == ["good"]
    lines = BROKEN_CUPS.splitlines()
    found = {(p.cup, p.key): p for p in result.problems if p.cup is not None}

    def line_of(text):
        return next(n for n, line in enumerate(lines, 1) if text in line)

    assert found[("bad", "points")].line == line_of('points = "golf"')
    assert "unknown points table" in found[("bad", "points")].message
    assert not found[("bad", "colour")].is_error and found[("bad", "colour")].line == line_of("colour")
    assert found[("bad", "races[1].track")].line == line_of('track = "zz"')
    assert "no track 'zz'" in found[("bad", "races[1].track")].message
    assert found[("bad", "races[2].laps")].line == line_of("laps = 0")
    assert "has errors of its own" in found[("bad", "races[3].track")].message
    assert found[("bad", "races[4].options")].line == line_of("boom")
    assert "duplicate cup id" in found[("good", "id")].message
    assert found[("#4", "id")].message == "missing"
    text = str(found[("bad", "races[1].track")])
    assert text.startswith(f"p.toml:{line_of('zz')}: [cup \"bad\"] races[1].track: ")


def test_validate_lists_cup_problems_and_fails(tmp_path, capsys):
    path = tmp_path / "p.toml"
    path.write_text(BROKEN_CUPS)
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert '[cup "bad"] races[1].track' in out


def test_write_pack_keeps_the_cups(tmp_path):
    pack = load_pack(MINICUP).pack
    write_pack(pack, tmp_path / "again.toml")
    again = load_pack(tmp_path / "again.toml")
    assert again.ok and again.pack.cups == pack.cups


def test_every_built_in_pack_is_offered_as_a_cup():
    from game import paths

    for path in sorted(paths.builtin_tracks_dir().glob("*.toml")):
        result = load_pack(path)
        whole = result.pack.all_cups()[0]
        assert whole.id == result.pack.id and whole.whole_pack
        assert [r.track for r in whole.races] == [t.id for t in result.tracks]


# -- racetrack cup -----------------------------------------------------------------------
def cup_json(capsys, *args):
    assert main(["cup", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_racetrack_cup_plays_every_race_and_the_standings_add_up(capsys, tmp_path):
    doc = cup_json(capsys, "--pack", str(MINICUP), "--cup", "sprints", "--cars",
                   "cpu:champion,cpu:pro,cpu:rookie", "--seed", "1", "--out", str(tmp_path / "out"))
    assert doc["name"] == "Sprint Cup" and doc["points"]["table"] == "f1" and len(doc["races"]) == 3
    table = (25, 18, 15, 12, 10, 8, 6, 4, 2, 1)
    totals: dict[str, int] = {}
    for race in doc["races"]:
        assert race["finished"]
        for car in race["cars"]:
            expected = table[car["rank"] - 1] if car["rank"] is not None else 0
            assert car["points"] == expected
            totals[car["name"]] = totals.get(car["name"], 0) + car["points"]
    assert {s["name"]: s["points"] for s in doc["standings"]} == totals
    assert [s["points"] for s in doc["standings"]] == sorted(totals.values(), reverse=True)
    for s in doc["standings"]:
        assert s["places"] == [next(c["rank"] for c in r["cars"] if c["name"] == s["name"]) for r in doc["races"]]
        assert s["wins"] == s["places"].count(1)
    saved = load_cup(tmp_path / "out" / CUP_FILE)
    assert saved.finished and [r.replay for r in saved.results] == ["race-1.toml", "race-2.toml", "race-3.toml"]
    assert all((tmp_path / "out" / r.replay).is_file() for r in saved.results)
    assert cup_json(capsys, "--pack", str(MINICUP), "--cup", "sprints", "--cars", "cpu:champion,cpu:pro,cpu:rookie",
                    "--seed", "1")["standings"] == doc["standings"], "the same seed plays the same cup"


def test_a_dead_heat_shares_the_points_and_the_position(capsys):
    doc = cup_json(capsys, "--pack", str(MINICUP), "--cup", "dead-heat", "--cars", "cpu:champion,cpu:champion")
    for race in doc["races"]:
        assert [c["rank"] for c in race["cars"]] == [1, 1] and [c["points"] for c in race["cars"]] == [10, 10]
    assert [(s["position"], s["points"]) for s in doc["standings"]] == [(1, 20), (1, 20)]


def test_racetrack_cup_on_the_starter_pack(capsys):
    doc = cup_json(capsys, "--pack", "starter", "--cars", "cpu:champion,cpu:pro,cpu:rookie", "--seed", "1")
    assert [r["track"] for r in doc["races"]] == ["starter/paper-oval", "starter/bean", "starter/first-sprint"]
    assert set(doc["standings"][0]) == {"position", "name", "driver", "points", "wins", "places", "moves"}
    assert doc["standings"][0]["driver"] == "cpu:champion"


@pytest.mark.parametrize("args, words", [
    (["--pack", "nope"], "no pack 'nope' (built-in packs:"),
    (["--pack", str(MINICUP), "--cup", "zz"], "no cup 'zz' in this pack (cups: minicup, sprints, dead-heat)"),
    (["--pack", str(MINICUP), "--cars", "human,cpu:pro"], "a headless cup has no players"),
    (["--pack", str(MINICUP), "--cars", "cpu:wizard"], "unknown driver kind 'cpu:wizard'"),
    (["--pack", str(MINICUP), "--cars", "cpu:pro," * 5], "too few for 5 cars"),
    (["--pack", str(MINICUP), "--points", "golf"], "--points: unknown points table"),
])
def test_racetrack_cup_explains_a_bad_request_in_one_line(capsys, args, words):
    assert main(["cup", *args]) == 1
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_the_cup_example_in_the_modders_guide_is_a_valid_cup():
    import re

    text = (Path(__file__).parent.parent / "docs" / "level-packs.md").read_text()
    blocks = re.findall(r"```toml\n(.*?)```", text, re.S)
    example = next(b for b in blocks if "[[cup]]" in b)
    pack_text = "\n".join(b for b in blocks if "[[track]]" in b and "[[cup]]" not in b) + "\n" + example
    result = read_pack_text(pack_text, "guide.toml")
    assert result.ok, [str(p) for p in result.problems]
    cup_def = next(c for c in result.pack.cups if c.id == "weekend")
    assert len(cup_def.races) == 4 and cup_def.points.name == "f1"
