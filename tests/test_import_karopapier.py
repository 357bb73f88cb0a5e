"""`racetrack import`: real Karopapier maps become packs, a real game log becomes a replay."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from game.cli import main
from game.commands.import_map import compare_with_log, game_rules, import_game, import_map
from game.core.race import RaceState
from game.core.rules import preset
from game.core.vec import Vec
from game.drivers.solver import solve
from game.race.referee import IllegalReplayError, referee
from game.race.replay import Replay, dumps_replay, load_replay
from game.tracks.karo_import import KaroImportError, read_game, read_map
from game.tracks.pack import read_map_file, read_pack_text


def _karo_dir() -> Path | None:
    here = Path(__file__).resolve().parent.parent
    for option in (here.parent / "shared" / "karopapier", Path("/work/shared/karopapier")):
        if (option / "maps").is_dir():
            return option
    return None


KARO = _karo_dir()
needs_karo = pytest.mark.skipif(KARO is None, reason="the Karopapier test data (../shared/karopapier) is absent")
GAME = "44773.details.json"


def _maps():
    return sorted((KARO / "maps").glob("*.map"), key=lambda p: int(p.stem)) if KARO else []


@needs_karo
def test_every_karopapier_map_imports_as_the_track_the_map_file_reads_as():
    maps = _maps()
    assert len(maps) >= 180
    for path in maps:
        result = import_map(path, solve_par=False)
        karo = result.karo
        if not (karo.count("S") and karo.count("F")):
            assert result.error or result.track is None
            continue
        assert result.error is None, f"{path.name}: {result.error}"
        imported = result.track
        (direct,) = read_map_file(path).tracks
        # The pack holds the same track as the .map read directly: Karopapier's cell
        # checkpoints and F-cell finish, the same grid and default rules.
        assert imported.checkpoints == direct.checkpoints, path.name
        assert imported.finish == direct.finish and imported.finish.cells, path.name
        assert imported.start_slots == direct.start_slots, path.name
        assert imported.default_rules == direct.default_rules == "karopapier", path.name
        assert (imported.region.road_nodes() == direct.region.road_nodes()).all(), path.name


@needs_karo
def test_sand_and_mud_are_kept_as_terrain_off_road_under_the_karopapier_rules():
    result = import_map(KARO / "maps" / "111.map", solve_par=False)
    assert any("sand (Y) kept: off-road under the karopapier rules" in note for note in result.notes)
    assert any("mud (Z) kept" in note for note in result.notes)
    body = result.pack_text.split('map = """')[-1]
    assert "Y" in body and "Z" in body
    track = result.track
    assert set(track.terrain_nodes()) == {"sand", "mud"} and track.default_rules == "karopapier"
    sand = next(Vec(int(x), int(y)) for y, x in zip(*track.terrain_nodes()["sand"].nonzero()))
    assert track.on_road(sand) and not track.for_rules(preset("karopapier")).on_road(sand)


@needs_karo
def test_an_imported_pack_keeps_karopapiers_finish_rule_on_any_map():
    # 148 scatters 280 F cells; 58 has two pairs of F cells whose bounding box a line would
    # stretch over road without any F cell (the 25-move "finish" of issue 14).
    for name in ("148.map", "58.map"):
        result = import_map(KARO / "maps" / name, solve_par=False)
        assert "karopapier = true" in result.pack_text
        karo = read_map(KARO / "maps" / name)
        f_cells = {(x, y) for y, row in enumerate(karo.rows) for x, ch in enumerate(row) if ch == "F"}
        assert result.track.finish.cells == f_cells and result.track.finish.forward is None
        assert not any("cleaned .map" in note for note in result.notes), result.notes


def _small_maps(count):
    small = [p for p in _maps() if p.stat().st_size < 1400]
    return small[:count]


@needs_karo
@pytest.mark.parametrize("path", _small_maps(3), ids=lambda p: p.name)
def test_small_maps_with_start_and_finish_get_a_par_or_a_reason(path):
    result = import_map(path, solve_par=True)
    assert result.par is not None or result.par_reason, path.name
    if result.par is not None:
        assert f"par = {result.par}" in result.pack_text


# A representative handful always (Karopapier's F-cell finish on scattered F cells, nine
# checkpoints in any order, a map whose finish the old line rule made unreachable); every
# map with RACETRACK_SLOW=1 (tools/bench_karopapier.py prints what each costs).
REPRESENTATIVE = ("15.map", "58.map", "140.map", "148.map", "159.map", "201.map", "205.map")


@pytest.mark.slow
@needs_karo
@pytest.mark.parametrize("path", [p for p in _maps() if os.environ.get("RACETRACK_SLOW") == "1"
                                  or p.name in REPRESENTATIVE], ids=lambda p: p.name)
def test_every_map_gets_the_par_of_the_rules_its_pack_names(path):
    result = import_map(path, solve_par=True)
    if result.track is not None:
        assert result.par is not None, result.par_reason
        assert 'rules = "karopapier"' in result.pack_text and f"par = {result.par}" in result.pack_text
        assert result.par == solve(result.track, preset("karopapier")).par


RING = "XXXXXXXXX\nXOOOOOOOX\nXOXXXXXOX\nXSXXXXXFX\nXOXXXXXOX\nXOOOOOOOX\nXXXXXXXXX\n"


@pytest.mark.parametrize("variant", ["lf", "crlf", "cr", "trailing spaces", "ragged", "indented"])
def test_the_game_and_import_read_a_map_as_the_same_track(tmp_path, variant):
    rows = RING.splitlines()
    text = {"lf": "\n".join(rows), "crlf": "\r\n".join(rows), "cr": "\r".join(rows),
            "trailing spaces": "\n".join(r + "  \t" for r in rows),
            "ragged": "\n".join(rows[:-1] + [rows[-1][:-3]]),  # the last row short: padded with X
            "indented": "\n".join("   " + r for r in rows)}[variant]
    path = tmp_path / "ring.map"
    path.write_bytes(text.encode())
    game = read_map_file(path)
    assert game.tracks, game.errors
    imported = import_map(path, solve_par=False)
    assert imported.error is None and imported.track is not None
    want = read_map_file(_write(tmp_path / "plain.map", RING)).tracks[0]
    for track in (game.tracks[0], imported.track):
        assert (track.region.road_nodes() == want.region.road_nodes()).all()
        assert track.start_slots == want.start_slots and track.finish == want.finish
    if variant == "ragged":
        assert any("padded with X" in note for note in imported.notes)
        assert any("padded with X" in p.message for p in game.warnings)


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_an_unknown_letter_is_refused_by_the_game_and_import_naming_file_and_line(tmp_path, capsys):
    bad = _write(tmp_path / "7.map", "XXXX\nXSFX\nXQXX\n")
    with pytest.raises(KaroImportError, match=r"7\.map:3: unknown letter 'Q'"):
        read_map(bad)
    assert main(["import", str(bad), "-o", str(tmp_path / "out.toml")]) == 1
    assert "7.map:3:" in capsys.readouterr().err
    assert not (tmp_path / "out.toml").exists()
    assert [p.line for p in read_map_file(bad).errors] == [3]


def test_a_broken_game_log_is_refused_naming_the_key(tmp_path, capsys):
    bad = tmp_path / "1.details.json"
    bad.write_text('{"game": {"id": 1, "map": 43}, "map": {}, "players": [{"name": "A"}]}', encoding="utf-8")
    with pytest.raises(KaroImportError, match=r"players\[0\]\.moves: missing"):
        read_game(bad)
    assert main(["import", str(bad), "-o", str(tmp_path / "r.toml")]) == 1
    assert "players[0].moves: missing" in capsys.readouterr().err


# -- the game log -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    if KARO is None:
        pytest.skip("the Karopapier test data is absent")
    out = tmp_path_factory.mktemp("game") / "44773.replay.toml"
    return import_game(KARO / "games" / GAME, out)


@needs_karo
def test_the_game_log_becomes_a_replay_file_that_loads(imported):
    replay = load_replay(imported.track_path.with_suffix(".toml"))
    assert len(replay.cars) == 6
    assert replay.rules.name == "karopapier" and replay.rules.setback_moves == 2
    assert replay.rules.checkpoints == "any" and replay.rules.collision == "block"
    assert len(replay.phases) == 167  # pacman's 168 log entries after the start, less the parc-fermé move
    assert read_map_file(imported.track_path).tracks


def _recorded_order(game, player_of_car, phase):
    """Who moved first in a Karopapier round: its log's timestamps; cars without an entry last."""
    timed = sorted((game.players[p].moves[phase].time, car) for car, p in enumerate(player_of_car)
                   if phase < len(game.players[p].moves))
    rest = [car for car, p in enumerate(player_of_car) if phase >= len(game.players[p].moves)]
    return tuple(car for _, car in timed) + tuple(rest)


@needs_karo
def test_each_round_of_the_replay_keeps_the_order_the_players_moved_in(imported):
    replay = load_replay(imported.track_path.with_suffix(".toml"))
    assert len(replay.orders) == len(replay.phases)
    for number in range(1, len(replay.phases) + 1):
        assert replay.order(number) == _recorded_order(imported.game, imported.player_of_car, number)
    assert "[orders]\n1 = [" in dumps_replay(replay)


@needs_karo
def test_the_plain_core_in_the_recorded_turn_order_plays_every_move_crash_and_finish_of_the_log(imported):
    """Under the "karopapier" preset, with no patches, the core agrees with the whole game.

    Karopapier blocks only the node a move ends on, sets a crashed car back even onto a
    node another car stands on, and players move in the order they log in; the preset
    and ``apply(order=...)`` give all three.
    """
    game, track = imported.game, imported.track
    state = RaceState.start(track, game_rules(game), imported.cars, laps=1, seed=0)
    crashes, finishes = [], {}
    for number, row in enumerate(imported.replay.phases, start=1):
        order = _recorded_order(game, imported.player_of_car, number)
        state, record = state.apply({i: c for i, c in enumerate(row) if c is not None}, order=order)
        assert record.order == order
        for event in record.events:
            if event.kind == "penalty" and "set back" in event.detail:
                crashes.append((number, imported.cars[event.car]))
            if event.kind == "finish":
                finishes[imported.cars[event.car]] = number
        for car, p in enumerate(imported.player_of_car):
            moves = game.players[p].moves
            if state.cars[car].racing and number < len(moves):
                assert (state.cars[car].position.x, state.cars[car].position.y) == (moves[number].x, moves[number].y)
    recorded_crashes = sorted((k, pl.name) for pl in game.players for k, m in enumerate(pl.moves) if m.crash)
    assert len(recorded_crashes) == 6
    assert sorted(crashes) == recorded_crashes
    assert finishes == {pl.name: len(pl.moves) - 2 for pl in game.players if pl.rank > 0}
    ranks = {imported.cars[i]: r for i, r in enumerate(state.outcome().ranks) if r is not None}
    assert ranks == {pl.name: pl.rank for pl in game.players if pl.rank > 0}


@needs_karo
def test_the_core_referee_accepts_the_game_exactly_as_recorded(imported):
    assert imported.referee_problem is None
    assert imported.disagreements == []
    assert imported.finishers == ["Baertman", "Yashem", "Madeleine", "Didi", "pacman"]


@needs_karo
def test_in_grid_order_instead_of_the_recorded_one_a_move_is_blocked(imported):
    """The recorded turn order matters: played in grid order, a car lands where another still stands."""
    replay = load_replay(imported.track_path.with_suffix(".toml"))
    plain = Replay.from_race(replay.track, replay.laps, replay.rules, replay.seed, replay.cars, replay.phases)
    with pytest.raises(IllegalReplayError, match=r"phase 8: car \d+ \"Didi\" .*blocked by Baertman"):
        referee(plain, imported.track)


@needs_karo
def test_the_importer_takes_who_blocks_from_the_game_id(imported):
    """Before game 75000 every car blocks; from then on only cars that already moved that round."""
    from dataclasses import replace

    rules = game_rules(imported.game)
    assert imported.game.id == 44773 and rules.blockers == "all" and rules.zero_move is False
    assert load_replay(imported.track_path.with_suffix(".toml")).rules.blockers == "all"
    assert game_rules(replace(imported.game, id=74999)).blockers == "all"
    assert game_rules(replace(imported.game, id=75000)).blockers == "moved"
    # Under the later rule Didi's phase-8 move in grid order is no longer blocked: Baertman,
    # on the node Didi lands on, has not moved yet that round.
    replay = load_replay(imported.track_path.with_suffix(".toml"))
    later = Replay.from_race(replay.track, replay.laps, replay.rules.with_options(blockers="moved"), replay.seed,
                             replay.cars, replay.phases[:8])
    assert len(referee(later, imported.track).records) == 8  # refereed without a blocked move


@needs_karo
def test_a_replay_that_differs_from_the_log_is_told_apart(imported):
    """The comparison with the log can fail: drop Baertman's winning move and the ranks differ."""
    replay = load_replay(imported.track_path.with_suffix(".toml"))
    car = imported.cars.index("Baertman")
    last = max(k for k, row in enumerate(replay.phases) if row[car] is not None)
    cut = Replay.from_race(replay.track, replay.laps, replay.rules, replay.seed, replay.cars, replay.phases[:last],
                           orders=replay.orders[:last])
    problems = compare_with_log(imported.game, imported.player_of_car, imported.cars, referee(cut, imported.track))
    assert "Baertman finished in round None in the replay, in round 144 on Karopapier" in problems


@needs_karo
def test_import_then_replay_prints_karopapiers_result(tmp_path, capsys):
    out = tmp_path / "game.toml"
    assert main(["import", str(KARO / "games" / GAME), "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert "every move legal, every crash and finish as recorded" in said
    assert "finish order Baertman, Yashem, Madeleine, Didi, pacman" in said
    assert main(["replay", str(out)]) == 0
    table = capsys.readouterr().out
    assert "167 phases, finished; won by Baertman" in table
    ranked = [line.split()[1] for line in table.splitlines()[2:8]]
    assert ranked == ["Baertman", "Yashem", "Madeleine", "Didi", "pacman", "[lunatic]suicide"]
