"""A track on which no car can finish is an error wherever a track is read: validate, packs, .map files, the editor."""

from __future__ import annotations

import sys
from pathlib import Path

from game.cli import main
from game.core import RaceState, preset
from game.tracks import read_pack_text
from game.tracks.pack import read_map_text
from game.tracks.charmap import check_charmap

#: Checkpoint 1 walled in on the far side of the loop: the road never reaches it.
WALLED = """
XXXXXXXXXXXXXXXXXXXX
XOOOOOOOOOOOOOOOOOOX
XOOOOOOOOOOOOOOOOOOX
XOOXXXXXXXXXXXXXXOOX
XOOXXXXXXXXXXXXXXOOX
XOOXXXXXXXXXXXXXXOOX
XOOXXXXXXXXX1XXXXOOX
XOOXXXXXXXXXXXXXXOOX
XFFXXXXXXXXXXXXXXOOX
XSSOOOOOOOOOOOOOOOOX
XSSOOOOOOOOOOOOOOOOX
XXXXXXXXXXXXXXXXXXXX
"""

#: The same loop with the checkpoint across its far straight: every lap takes it.
ON_THE_ROAD = WALLED.replace("XOOXXXXXXXXX1XXXXOOX", "XOOXXXXXXXXXXXXXX11X")

#: A checkpoint reached only through sand (slow, but a way) and one reached only past the
#: finish (Karopapier maps put the start between two F rows): both fine.
THROUGH_SAND = WALLED.replace("XOOXXXXXXXXX1XXXXOOX", "XOOXXXXXXXXX1YYYYOOX")


def pack(text: str) -> str:
    body = text.strip("\n")
    return ("format = 1\n[pack]\nid = \"reach\"\nname = \"Reach\"\n\n[[track]]\nid = \"walled\"\nname = \"Walled\"\n"
            f"laps = 2\nmap = \"\"\"\n{body}\n\"\"\"\n")


def test_a_walled_in_checkpoint_is_an_error_naming_track_key_and_line():
    track, problems = check_charmap(WALLED, id="walled", laps=2)
    assert track is None
    errors = [p for p in problems if p.is_error]
    assert len(errors) == 1
    assert errors[0].key == "map" and errors[0].track == "walled" and errors[0].line == 8  # the text opens with an empty line
    assert "checkpoint 1 cannot be reached" in errors[0].message and "x=12, y=6" in errors[0].message


def test_the_same_loop_with_the_checkpoint_on_the_road_or_behind_sand_is_a_track():
    for text in (ON_THE_ROAD, THROUGH_SAND):
        track, problems = check_charmap(text, id="ok", laps=2)
        assert track is not None, [str(p) for p in problems]
        RaceState.start(track, preset("paper"), ["a"], laps=2, seed=0)


def test_validate_fails_on_the_pack_and_names_the_file_and_line(tmp_path, capsys):
    path = tmp_path / "reach.toml"
    path.write_text(pack(WALLED), encoding="utf-8")
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert f'{path}:' in out and '[track "walled"] map: checkpoint 1 cannot be reached' in out
    path.write_text(pack(ON_THE_ROAD), encoding="utf-8")
    assert main(["validate", str(path)]) == 0


def test_the_pack_loader_and_the_map_reader_refuse_the_track():
    result = read_pack_text(pack(WALLED), "reach.toml")
    assert not (result.pack and result.pack.tracks)
    assert any("checkpoint 1 cannot be reached" in str(p) and "reach.toml" in str(p) for p in result.problems)
    result = read_map_text(WALLED.strip("\n") + "\n", "walled.map")
    assert any("checkpoint 1 cannot be reached" in str(p) and "walled.map" in str(p) for p in result.problems)


def test_the_editor_s_live_check_shows_the_error():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    from editor.jobs import CheckRequest, check

    checked = check(CheckRequest(doc=None, text=pack(WALLED), track_id="walled", file="reach.toml"), lambda: False)
    assert checked.track is None
    assert any(p.key == "map" and "checkpoint 1 cannot be reached" in p.message for p in checked.errors)
