"""Level packs: good packs load, every broken thing is reported at its file, line, track and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from game.cli import main
from game.paths import builtin_tracks_dir
from game.tracks import TrackError, load_pack, load_packs, load_track_ref, read_pack_text

DATA = Path(__file__).parent / "data" / "packs"
BROKEN = DATA / "broken.toml"


def test_good_pack_loads_both_shapes_with_their_details():
    result = load_pack(DATA / "good.toml")
    assert result.ok and not result.problems
    assert result.pack.id == "good" and result.pack.author == "Tests"
    loop, ring = result.tracks
    assert loop.default_laps == 2 and loop.meta["par"] == 12 and loop.meta["shape"] == "map"
    assert ring.is_outline and ring.meta["shape"] == "outline"
    assert loop.meta["pack_id"] == "good" and loop.meta["file"].endswith("good.toml")


def test_outline_finish_faces_forward_and_checkpoint_faces_the_driving_direction():
    ring = load_pack(DATA / "good.toml").pack.track("ring")
    assert ring.finish.a == (7.0, 1.0) and ring.finish.forward[0] > 0
    (checkpoint,) = ring.checkpoints
    assert checkpoint.forward[0] < 0  # the bottom straight is driven right to left
    assert ring.start_slots[0] == (8, 2) or tuple(ring.start_slots[0].as_tuple()) == (8, 2)


def _problems():
    result = load_pack(BROKEN)
    return result, {(p.track, p.key): p for p in result.problems}


@pytest.mark.parametrize("track, key, line, words", [
    ("no-start", "map", 11, "no start"),
    ("bad-letter", "map", 24, "unknown letter 'Q'"),
    ("too-few", "cars", 31, "raced by at most 1"),
    ("bad-laps", "laps", 40, "1 to 99"),
    ("bad-laps", "rules", 41, "unknown rule preset 'rally'"),
    ("bad-laps", "id", 50, "duplicate track id"),
    ("twisted", "outline.outer", 65, "crosses itself"),
    ("short-finish", "outline.finish", 78, "ends on the road"),
    ("no-name", "name", 82, "missing"),
])
def test_each_broken_track_is_reported_at_its_line(track, key, line, words):
    _, found = _problems()
    problem = found[(track, key)]
    assert problem.file == str(BROKEN) and problem.line == line and words in problem.message
    assert str(problem).startswith(f'{BROKEN}:{line}: [track "{track}"] {key}: ')


def test_a_broken_track_never_stops_the_good_ones():
    text = BROKEN.read_text() + '\n[[track]]\nid = "fine"\nname = "Fine"\ncars = 1\nmap = """\nXXXX\nXSFX\nXXXX\n"""\n'
    result = read_pack_text(text, "mixed.toml")
    assert [t.id for t in result.tracks] == ["too-few", "fine"]
    assert len(result.errors) == 8


FOUR_LANES = (
    'format = 1\n[pack]\nid = "p"\nname = "P"\n[[track]]\nid = "sprint"\nname = "Four-lane sprint"\n{cars}'
    'map = """\nXXXXXXXXXX\nXSOOOOOOFX\nXSOOOOOOFX\nXSOOOOOOFX\nXSOOOOOOFX\nXXXXXXXXXX\n"""\n')


def test_a_pack_with_fewer_start_places_than_eight_and_no_cars_is_raced_by_that_many():
    result = read_pack_text(FOUR_LANES.format(cars=""), "four.toml")
    (track,) = result.tracks
    assert result.ok and track.meta["cars"] == 4 and len(track.start_slots) == 4
    (warning,) = result.warnings
    assert warning.key == "cars" and "the start holds 4 cars" in warning.message
    assert "raced by at most 4" in warning.message and warning.line == 8  # the map line
    # Saying cars = 4 is the same track without the warning; asking for more is an error.
    assert not read_pack_text(FOUR_LANES.format(cars="cars = 4\n"), "four.toml").problems
    refused = read_pack_text(FOUR_LANES.format(cars="cars = 6\n"), "four.toml")
    assert not refused.tracks and "fewer than cars = 6" in refused.errors[0].message


def test_toml_syntax_error_names_the_line():
    result = read_pack_text('format = 1\n[pack]\nid = "x\n', "bad.toml")
    (problem,) = result.problems
    assert problem.line == 3 and "not valid TOML" in problem.message and result.pack is None


def test_wrong_format_and_missing_pack_table_are_errors():
    result = read_pack_text('format = 2\n', "f.toml")
    assert [p.key for p in result.errors] == ["format"] and result.errors[0].line == 1
    result = read_pack_text('format = 1\n[[track]]\nid = "a"\nname = "A"\ncars = 1\nmap = "XXXX\\nXSFX\\nXXXX"\n',
                            "p.toml")
    assert ("pack", None) in {(p.key, p.line) for p in result.errors}


def test_wrong_typed_keys_are_errors():
    text = ('format = 1\n[pack]\nid = "p"\nname = "P"\n[[track]]\nid = "a"\nname = 5\nlaps = "two"\n'
            'par = -3\ncars = 1\nmap = """\nXXXX\nXSFX\nXXXX\n"""\n')
    result = read_pack_text(text, "p.toml")
    assert {(p.key, p.line) for p in result.errors} == {("name", 7), ("laps", 8), ("par", 9)}


def test_map_and_outline_together_is_an_error():
    text = ('format = 1\n[pack]\nid = "p"\nname = "P"\n[[track]]\nid = "a"\nname = "A"\ncars = 1\n'
            'map = "XXXX\\nXSFX\\nXXXX"\n[track.outline]\nouter = [[0, 0], [3, 0], [3, 3]]\n')
    result = read_pack_text(text, "p.toml")
    assert [p.key for p in result.errors] == ["map"]


def test_outline_island_outside_the_outer_ring_is_an_error():
    text = ('format = 1\n[pack]\nid = "p"\nname = "P"\n[[track]]\nid = "a"\nname = "A"\ncars = 1\n'
            '[track.outline]\nouter = [[1, 1], [13, 1], [13, 11], [1, 11]]\n'
            'islands = [[[20, 20], [22, 20], [22, 22]], [[5, 5], [9, 5], [9, 7], [5, 7]], [[9, 7], [10, 8], [9, 9]]]\n'
            'finish = [[7, 1], [7, 5]]\nforward = "right"\nstart = [[8, 2]]\n')
    result = read_pack_text(text, "p.toml")
    messages = [(p.key, p.line, p.message) for p in result.errors]
    assert ("outline.islands", 11, "island 1 lies outside the outer ring") in messages
    assert any("islands 2 and 3 touch" in m for _, _, m in messages)


def test_outline_finish_that_misses_the_road_and_start_off_road_are_errors():
    text = ('format = 1\n[pack]\nid = "p"\nname = "P"\n[[track]]\nid = "a"\nname = "A"\ncars = 1\n'
            '[track.outline]\nouter = [[1, 1], [13, 1], [13, 11], [1, 11]]\n'
            'finish = [[20, 1], [20, 5]]\nforward = "right"\nstart = [[30, 2]]\n')
    result = read_pack_text(text, "p.toml")
    assert any(p.key == "outline.finish" and "does not cross the road" in p.message and p.line == 11
               for p in result.errors)


def test_every_builtin_track_loads_and_holds_eight_cars():
    results = load_packs([builtin_tracks_dir()])
    assert results, "no built-in packs found"
    for result in results:
        assert result.ok, [str(p) for p in result.errors]
        for track in result.tracks:
            assert len(track.start_slots) >= 8


def test_track_references_find_builtin_pack_path_and_map_tracks(tmp_path):
    assert load_track_ref("good/loop", builtin_dir=DATA).id == "loop"
    assert load_track_ref(f"{DATA / 'good.toml'}#ring", builtin_dir=DATA).id == "ring"
    (tmp_path / "7.map").write_text("XXXXXXX\nXOSOFOX\nXXXXXXX\n")
    track = load_track_ref(str(tmp_path / "7.map"), builtin_dir=DATA)
    assert track.id == "7" and track.meta["karopapier"] is True


def test_a_track_reference_gives_the_same_track_as_the_whole_pack_and_is_not_stopped_by_a_broken_neighbour(
        tmp_path):
    """A reference compiles only its own track (a command racing one char map pays for no outline), and
    gets the track reading the whole pack gives; a broken track beside it still stops only itself."""
    whole = load_pack(builtin_tracks_dir() / "starter.toml")
    for track in whole.tracks:
        one = load_track_ref(f"starter/{track.id}", builtin_dir=builtin_tracks_dir())
        assert (one.id, one.start_slots, one.finish, one.checkpoints, one.meta) == \
            (track.id, track.start_slots, track.finish, track.checkpoints, track.meta)
        assert (one.region.road_nodes() == track.region.road_nodes()).all()
    text = (DATA / "good.toml").read_text()
    broken = text + '\n[[track]]\nid = "bad"\nname = "Bad"\nmap = """\nXXXX\nXOOX\nXXXX\n"""\n'
    (tmp_path / "mixed.toml").write_text(broken)
    assert load_track_ref(f"{tmp_path / 'mixed.toml'}#loop", builtin_dir=DATA).id == "loop"
    with pytest.raises(TrackError, match="no start"):
        load_track_ref(f"{tmp_path / 'mixed.toml'}#bad", builtin_dir=DATA)
    with pytest.raises(TrackError, match=r"no track 'gone' in this pack \(tracks: .*loop"):
        load_track_ref(f"{tmp_path / 'mixed.toml'}#gone", builtin_dir=DATA)


@pytest.mark.parametrize("ref, words", [
    ("nopack/loop", "no built-in pack 'nopack'"),
    ("good/nothere", "no track 'nothere'"),
    ("broken/no-start", "no start"),
    ("weird", "use PACK/TRACK"),
])
def test_bad_track_references_raise_a_clear_track_error(ref, words):
    with pytest.raises(TrackError) as info:
        load_track_ref(ref, builtin_dir=DATA)
    assert words in str(info.value)


def test_validate_command_exit_status_and_output(capsys):
    assert main(["validate", str(DATA / "good.toml")]) == 0
    assert main(["validate", str(BROKEN)]) == 1
    out = capsys.readouterr().out
    assert f'{BROKEN}:11: [track "no-start"] map: no start' in out
    assert "8 error(s)" in out


def test_validate_warnings_alone_exit_zero(tmp_path, capsys):
    (tmp_path / "lava.map").write_text("XXXXXXXX\nXOSOFOLX\nXXXXXXXX\n")
    assert main(["validate", str(tmp_path)]) == 0
    assert "read as off-road" in capsys.readouterr().out


def test_a_karopapier_map_written_as_a_pack_keeps_karopapier_rules(tmp_path):
    from pathlib import Path

    import pytest as _pytest

    from game.tracks import load_pack, read_map_file, write_pack
    source = next((p for p in (Path(__file__).resolve().parents[2] / "shared" / "karopapier" / "maps",
                               Path("/work/shared/karopapier/maps")) if p.is_dir()), None)
    if source is None:
        _pytest.skip("the Karopapier maps are not beside the checkout")
    for map_id in ("1", "43", "200"):
        original = read_map_file(source / f"{map_id}.map").tracks[0]
        write_pack(read_map_file(source / f"{map_id}.map").pack, tmp_path / f"{map_id}.toml")
        again = load_pack(tmp_path / f"{map_id}.toml")
        assert again.errors == []
        (track,) = again.tracks
        assert track.meta["karopapier"] is True
        assert track.checkpoints == original.checkpoints and track.finish == original.finish
        assert track.start_slots == original.start_slots


def test_karopapier_mode_is_only_for_char_maps(tmp_path):
    from game.tracks import load_pack
    path = tmp_path / "bad.toml"
    path.write_text('format = 1\n[pack]\nid = "p"\nname = "P"\nauthor = "a"\ndescription = ""\n'
                    '[[track]]\nid = "t"\nname = "T"\nkaropapier = "yes"\nmap = """\nXXXX\nXSFX\nXXXX\n"""\n')
    problems = [str(p) for p in load_pack(path).errors]
    assert any('karopapier: must be true or false' in p for p in problems)
