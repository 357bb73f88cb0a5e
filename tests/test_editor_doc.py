"""The editor's documents and history, without a window: round trips and undo invariants."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from game.tracks import read_pack_text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from editor.doc import MapShape, OutlineShape, TrackDoc, brush_cells, doc_from_table, insert_point, new_map  # noqa: E402
from editor.history import History  # noqa: E402
from editor.packio import open_track, pack_text, save_track  # noqa: E402

LETTERS = "XOSFP123456789YZICW"  # the track's own letters and the terrain's
cells = st.tuples(st.integers(-2, 14), st.integers(-2, 9))
paints = st.lists(st.tuples(st.lists(cells, max_size=6), st.sampled_from(LETTERS)), max_size=12)


def painted(doc: TrackDoc, edits) -> list[TrackDoc]:
    docs = [doc]
    for where, letter in edits:
        docs.append(TrackDoc(**{**docs[-1].__dict__, "shape": docs[-1].shape.paint(where, letter)}))
    return docs


@settings(max_examples=60, deadline=None)
@given(paints)
def test_undoing_every_edit_gives_back_the_first_map_and_redoing_gives_the_last(edits):
    docs = painted(new_map(12, 7), edits)
    history: History[TrackDoc] = History()
    for before in docs[:-1]:
        history.record(before)
    current = docs[-1]
    seen = [current]
    while (previous := history.undo(current)) is not None:
        current = previous
        seen.append(current)
    assert current == docs[0] and seen == docs[::-1]
    while (following := history.redo(current)) is not None:
        current = following
    assert current == docs[-1]


@settings(max_examples=60, deadline=None)
@given(paints, st.sampled_from([None, "up", "down", "left", "right"]), st.integers(1, 5))
def test_a_painted_map_reads_back_from_its_pack_table_unchanged(edits, forward, laps):
    doc = painted(TrackDoc("t", "T", MapShape.blank(12, 7), laps=laps, forward=forward, cars=3), edits)[-1]
    again, notes = doc_from_table(doc.table())
    assert notes == [] and again == doc
    result = read_pack_text(pack_text(doc, {"id": "p", "name": "P"}), "p.toml")
    assert all(p.track in ("t", None) for p in result.problems)  # the game reads it (errors or not)


points = st.tuples(st.integers(0, 30).map(lambda v: v / 2), st.integers(0, 30).map(lambda v: v / 2))


@settings(max_examples=60, deadline=None)
@given(st.lists(points, min_size=0, max_size=10), st.lists(points, max_size=4), st.integers(1, 9))
def test_an_outline_reads_back_from_its_pack_table_unchanged(clicks, starts, slots):
    ring = ()
    for p in clicks:
        ring = insert_point(ring, p)
    assert sorted(ring) == sorted(clicks)  # every click is one point of the ring
    shape = OutlineShape(paper=(20, 18), outer=ring, finish=((1.0, 1.0), (1.0, 4.5)),
                         start=tuple((int(x), int(y)) for x, y in dict.fromkeys(starts)), slots=slots)
    doc = TrackDoc("o", "O", shape, forward="right")
    again, notes = doc_from_table(doc.table())
    assert notes == [] and again.shape.outer == shape.outer and again.shape.start == shape.start
    assert again.shape.finish == shape.finish and again.forward == "right"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["sand", "mud", "ice", "curb", "water"]),
                          st.lists(points, min_size=1, max_size=6)), max_size=4))
def test_terrain_patches_read_back_from_their_pack_table_unchanged(patches):
    shape = OutlineShape(paper=(20, 18), outer=((0, 0), (16, 0), (16, 15)), finish=((1.0, 1.0), (1.0, 4.5)),
                         terrain=tuple((kind, tuple(ring)) for kind, ring in patches))
    doc = TrackDoc("o", "O", shape, forward="right")
    table = doc.table()
    assert [t["kind"] for t in table["outline"].get("terrain", [])] == [kind for kind, _ in patches]
    again, notes = doc_from_table(table)
    assert notes == [] and again.shape.terrain == shape.terrain
    result = read_pack_text(pack_text(doc, {"id": "p", "name": "P"}), "p.toml")
    assert all(p.track in ("o", None) for p in result.problems)  # the game reads it (errors or not)


def test_brush_sizes_cover_that_many_cells_around_the_pointer():
    assert brush_cells((5, 5), 1) == [(5, 5)]
    assert len(set(brush_cells((5, 5), 3))) == 9 and (4, 4) in brush_cells((5, 5), 3)
    assert len(set(brush_cells((5, 5), 2))) == 4


def test_saving_twice_replaces_the_track_instead_of_adding_it(tmp_path):
    doc = TrackDoc("t", "T", MapShape(("XXXXX", "XOFSX", "XXXXX")), cars=1)
    pack = tmp_path / "p.toml"
    save_track(doc, pack)
    save_track(TrackDoc(**{**doc.__dict__, "name": "Renamed"}), pack)
    opened = open_track(f"{pack}#t", tmp_path)
    assert opened.track_ids == ["t"] and opened.doc.name == "Renamed"
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary files left behind


def test_saving_into_a_hand_written_pack_keeps_the_file_as_it_was_once(tmp_path):
    """A rewrite cannot keep a modder's comments: the file as written stays beside it, one copy per contents."""
    pack = tmp_path / "mine.toml"
    mine = ('# my favourite tracks, drawn by hand\nformat = 1\n\n[pack]\nid = "mine"\nname = "Mine"\n\n'
            '[[track]]\nid = "old"\nname = "Old"  # keep this one\ncars = 1\nmap = """\nXXXXX\nXOFSX\nXXXXX\n"""\n')
    pack.write_text(mine)
    doc = TrackDoc("t", "T", MapShape(("XXXXX", "XOFSX", "XXXXX")), cars=1)
    said = save_track(doc, pack)
    assert "kept as mine.toml.before-edit" in said
    assert (tmp_path / "mine.toml.before-edit").read_text() == mine
    assert open_track(f"{pack}#old", tmp_path).doc.name == "Old"  # the other track is still in the pack
    save_track(TrackDoc(**{**doc.__dict__, "name": "Again"}), pack)  # now the game's own file: no new copy
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.toml", "mine.toml.before-edit"]


def test_the_editor_never_writes_into_a_file_that_is_not_a_pack(tmp_path):
    import pytest

    from editor.packio import SaveError

    settings = tmp_path / "settings.toml"
    settings.write_text("[sound]\nmaster = 40\n")
    doc = TrackDoc("t", "T", MapShape(("XXXXX", "XOFSX", "XXXXX")), cars=1)
    with pytest.raises(SaveError, match="not a level pack"):
        save_track(doc, settings)
    assert settings.read_text() == "[sound]\nmaster = 40\n"
