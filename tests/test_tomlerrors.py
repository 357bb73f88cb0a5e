"""One finder places every TOML reader's problems: the line of a key, a table or an array element."""

from __future__ import annotations

from game.files import DataError, parse_toml
from game.tomlerrors import KeyLines, syntax_problem

PACK = '''format = 1
[pack]
id = "p"  # a comment
[[track]]
id = "a"
outline.outer = [
  [0, 0],
  [4, 4]
]
[[track]]
"id" = "b"
[track.outline]
outer = [[0, 0]]
[[cup]]
races = [
  { track = "a" },
]
'''


def test_keys_are_placed_in_their_own_table_and_array_element():
    lines = KeyLines(PACK)
    assert lines.key("format") == 1 and lines.header("pack") == 2 and lines.key("id", "pack") == 3
    assert lines.headers("track") == [4, 10]
    assert lines.key("id", "track", 0) == 5 and lines.key("id", "track", 1) == 11  # quoted keys too
    assert lines.key("outline.outer", "track", 0) == 6  # a dotted key
    assert lines.key("outer", "track.outline", 1) == 13 and lines.header("track.outline", 1) == 12
    assert lines.key("outer", "track.outline", 0) is None  # not mistaken for the first track's


def test_array_rows_are_not_taken_for_tables():
    lines = KeyLines(PACK)
    assert lines.header("0, 0") is None and lines.headers("track") == [4, 10]
    assert lines.section("track", 1) == (10, 13)  # its sub-table belongs to it, the cup does not
    assert lines.place("races", "cup", 0) == 15 and lines.place("name", "cup", 0) == 14  # else the header


def test_a_syntax_error_is_worded_once_with_its_column():
    try:
        parse_toml("a = 1\nb = = 2\n")
    except DataError as error:
        assert syntax_problem(error) == "not valid TOML: Invalid value (column 5)" and error.line == 2
    else:
        raise AssertionError("the text parsed")
