"""Reading input files within bounds, and the one never-overwrite rule (game/files.py)."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest
from hypothesis import given, settings, strategies as st

from game.atomic import write_text_atomic
from game.files import (MAX_DEPTH, DataError, UnreadableFile, WouldReplace, keep_aside, may_replace, parse_json,
                        parse_toml, read_text, toml_depth, write_new_or_own)

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")


def test_a_regular_file_is_read_whole(tmp_path):
    (tmp_path / "a.toml").write_text("x = 1\n", encoding="utf-8")
    assert read_text(tmp_path / "a.toml", limit=100) == "x = 1\n"


def test_a_file_over_its_limit_is_refused_with_the_limit_named(tmp_path):
    (tmp_path / "big.toml").write_bytes(b"#" * 2000)
    with pytest.raises(UnreadableFile, match="larger than the 1000 bytes"):
        read_text(tmp_path / "big.toml", limit=1000)
    assert read_text(tmp_path / "big.toml", limit=2000)  # exactly the limit is fine


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_a_device_is_refused_at_once_instead_of_read_without_end():
    start = time.process_time()
    with pytest.raises(UnreadableFile, match="a device"):
        read_text("/dev/zero", limit=1 << 20)
    assert time.process_time() - start < 1


def test_a_folder_is_refused(tmp_path):
    with pytest.raises(UnreadableFile, match="a folder"):
        read_text(tmp_path, limit=100)


@needs_fifo
def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    outcome = []
    reader = threading.Thread(target=lambda: outcome.append(_refusal(fifo)), daemon=True)
    reader.start()
    reader.join(5)
    assert outcome and "named pipe" in outcome[0]


def _refusal(path) -> str:
    try:
        read_text(path, limit=100)
    except OSError as error:
        return str(error)
    return "read"


def test_text_that_is_not_utf8_names_the_byte(tmp_path):
    (tmp_path / "bad.toml").write_bytes(b"x = 1\n\xff")
    with pytest.raises(UnreadableFile, match="not UTF-8 text .byte 6."):
        read_text(tmp_path / "bad.toml", limit=100)


@pytest.mark.parametrize("text", [
    "a = " + "[" * 600 + "]" * 600,  # what overflowed tomllib's stack
    "a = " + "{ b = " * 400 + "1" + " }" * 400,
    "a" + ".a" * 5000 + " = 1",  # quadratic in tomllib, and a document too deep for deepcopy
    "[" + ".".join(["t"] * 200) + "]\nx = 1",
    "[" + ".".join(["t"] * 20) + "]\n" + ".".join(["k"] * 20) + " = 1",  # the two add up
])
def test_toml_nested_too_deeply_is_a_located_error_not_a_crash(text):
    with pytest.raises(DataError, match="nested more than"):
        parse_toml(text)


def test_nesting_in_strings_and_comments_does_not_count():
    text = 'a = "[[[[" # [[[[[[[[\nb = """\n' + "[" * 100 + '\n"""\nc = \'{{{{\'\n'
    assert toml_depth(text)[0] < MAX_DEPTH
    assert parse_toml(text)["b"].startswith("[[[")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='[]{}.\n=,ab 0"#\'', max_size=60))
def test_a_short_and_a_long_text_have_their_nesting_counted_alike(text):
    """Short texts are counted in plain Python, long ones in numpy: the same depth at the same line."""
    from game.files import _STRINGS, _depth_in_numpy, _depth_in_python

    blank = _STRINGS.sub(lambda m: "0" + "\n" * m.group().count("\n"), text)
    assert _depth_in_python(blank) == _depth_in_numpy(blank)


def test_the_deepest_line_is_found_in_a_long_text_as_in_a_short_one():
    short = "a = 1\n" * 3 + "b = " + "[" * 40 + "]" * 40 + "\n"
    long = short + "c = 1\n" * 50_000  # past the size where numpy counts (not a comment: comments are blanked)
    assert toml_depth(short) == toml_depth(long) == (40, 4)


def test_a_toml_syntax_error_keeps_its_line_and_column():
    with pytest.raises(DataError) as caught:
        parse_toml("a = 1\nb = = 2\n")
    assert caught.value.line == 2 and caught.value.column and "at line" not in caught.value.problem


def test_json_nested_too_deeply_is_a_located_error():
    with pytest.raises(DataError, match="nested more than"):
        parse_json('{"a": ' + "[" * 100000 + "]" * 100000 + "}")
    with pytest.raises(DataError) as caught:
        parse_json('{\n  "a": [1,,2]\n}')
    assert caught.value.line == 2


# -- never replacing what the game did not write --------------------------------------------
MARK = "# Racetrack test file"


def test_a_free_path_is_written(tmp_path):
    write_new_or_own(tmp_path / "new.txt", "hello\n", marker=MARK)
    assert (tmp_path / "new.txt").read_text() == "hello\n"


def test_a_file_the_game_wrote_is_replaced_a_users_file_is_not(tmp_path):
    ours, theirs = tmp_path / "ours.toml", tmp_path / "theirs.toml"
    ours.write_text(MARK + "\nold\n")
    theirs.write_text("my own notes\n")
    write_new_or_own(ours, MARK + "\nnew\n", marker=MARK)
    assert ours.read_text().endswith("new\n")
    with pytest.raises(WouldReplace, match="theirs.toml already exists and was not written by Racetrack; use --force"):
        write_new_or_own(theirs, MARK + "\nnew\n", marker=MARK)
    assert theirs.read_text() == "my own notes\n"
    write_new_or_own(theirs, "same\n", marker=MARK, force=True)
    assert theirs.read_text() == "same\n"
    write_new_or_own(theirs, "same\n", marker=MARK)  # holding exactly the new text: nothing is lost


def test_an_input_is_never_replaced_even_with_force(tmp_path):
    source = tmp_path / "43.map"
    source.write_text("XXX\n")
    assert "is the file this command reads" in may_replace(source, "YYY\n", inputs=[source], force=True)
    assert "is the file this command reads" in may_replace(tmp_path / "." / "43.map", "Y", inputs=[source])


def test_set_aside_copies_are_numbered_and_never_replace_each_other(tmp_path):
    path = tmp_path / "settings.toml"
    kept = []
    for n in range(3):
        path.write_text(f"damage {n}\n")
        kept.append(keep_aside(path, ".broken"))
        assert not path.exists()
    assert [p.name for p in kept] == ["settings.toml.broken", "settings.toml.broken.2", "settings.toml.broken.3"]
    assert [p.read_text() for p in kept] == ["damage 0\n", "damage 1\n", "damage 2\n"]
    path.write_text("still here\n")
    copy = keep_aside(path, ".broken", copy=True)
    assert copy.name == "settings.toml.broken.4" and path.read_text() == "still here\n"


def test_the_atomic_writer_still_writes_whole_files(tmp_path):
    write_text_atomic(tmp_path / "x.txt", "a" * 10000)
    assert (tmp_path / "x.txt").stat().st_size == 10000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.txt"]


if sys.platform == "win32":  # pragma: no cover
    pytestmark = pytest.mark.skip("POSIX files (pipes, devices)")
