"""Placing a TOML problem in its file: the syntax error's wording, and the line of a key or table.

Every reader of a TOML file (level packs, replays, cup files, settings, best results)
reports a problem as ``file:line: key: what is wrong``. ``tomllib`` gives values, not
positions, so the line is found by scanning the text once with :class:`KeyLines`;
:func:`syntax_problem` words a file that does not parse at all (``not valid TOML: ...``).

The scan is best effort: a key written inside a multi-line value may be missed (the
message then has no line), never mistaken for one of a different table.

    >>> lines = KeyLines('format = 1\\n[rules]\\npreset = "paper"\\n[[car]]\\nname = "A"\\n[[car]]\\nname = "B"\\n')
    >>> lines.key("format"), lines.key("preset", "rules"), lines.key("name", "car", 1), lines.header("car", 1)
    (1, 3, 7, 6)
"""

from __future__ import annotations

import re

from game.files import DataError

#: A table header, ``[name]`` or ``[[name]]`` (names may be dotted and quoted), with an optional comment.
_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\"' :/+-]+?)\s*\]\]?\s*(#.*)?$")  # no commas: not "[1, 2]"
#: The key of a ``key = value`` line: bare, quoted or dotted.
_KEY = re.compile(r"""^\s*((?:"[^"\n]*"|'[^'\n]*'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"[^"\n]*"|'[^'\n]*'|[A-Za-z0-9_-]+))*)\s*=""")
_PART = re.compile(r"""\s*("[^"\n]*"|'[^'\n]*'|[^."']+)\s*""")


def syntax_problem(error: DataError) -> str:
    """What is wrong with a TOML text that does not parse, as every reader words it
    (the line goes in the caller's place: ``file:line:``)."""
    column = f" (column {error.column})" if error.column else ""
    return f"not valid TOML: {error.problem}{column}"


def _name(text: str) -> str:
    """A key or table name as the player reads it: quotes dropped, dotted parts joined by dots."""
    return ".".join(part.strip("\"'") for part in _PART.findall(text))


class KeyLines:
    """Where each key and table of a TOML text starts (1-based lines), scanned once.

    A table is named as in the file (``"rules"``, ``"track.outline"``); an array of tables
    (``[[car]]``) also by an index from 0, and so is a sub-table written after one of its
    elements (``[track.outline]`` after the third ``[[track]]`` is ``("track.outline", 2)``).
    The first place a key is written wins.
    """

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self._keys: dict[tuple[str, int | None, str], int] = {}
        self._headers: dict[tuple[str, int | None], int] = {}
        self._arrays: dict[str, list[int]] = {}
        self._starts: list[int] = []  # every header's line, in order
        table: tuple[str, int | None] = ("", None)
        for number, line in enumerate(self.lines, start=1):
            header = _HEADER.match(line)
            if header:
                name = _name(header.group(2))
                if header.group(1) == "[[":
                    heads = self._arrays.setdefault(name, [])
                    heads.append(number)
                    table = (name, len(heads) - 1)
                else:
                    owner = next((a for a in self._arrays if name.startswith(a + ".")), None)
                    table = (name, len(self._arrays[owner]) - 1 if owner else None)
                self._headers.setdefault(table, number)
                self._starts.append(number)
                continue
            key = _KEY.match(line)
            if key:
                self._keys.setdefault((*table, _name(key.group(1))), number)

    def key(self, key: str, table: str = "", index: int | None = None) -> int | None:
        """The line of ``key = ...`` at the top of the file (no ``table``), in ``[table]``, or
        in the index-th ``[[table]]`` (from 0); None when it is not written there."""
        return self._keys.get((table, index, key))

    def header(self, table: str, index: int | None = None) -> int | None:
        """The line of the header ``[table]``, or of the index-th ``[[table]]`` (from 0)."""
        return self._headers.get((table, index))

    def headers(self, table: str) -> list[int]:
        """The header line of every ``[[table]]``, in order."""
        return list(self._arrays.get(table, ()))

    def place(self, key: str | None, table: str = "", index: int | None = None) -> int | None:
        """The best line for a problem with ``key`` of a table: the key's own line, else the
        table's header (``key`` None: the header); at the top, a key or else a table of that name."""
        found = self.key(key, table, index) if key is not None else None
        if found is None and table:
            found = self.header(table, index)
        if found is None and not table and key is not None:
            found = self.header(key) or next(iter(self.headers(key)), None)
        return found

    def section(self, table: str, index: int | None = None) -> tuple[int, int] | None:
        """First and last line of a table: from its header to the line before the next header
        that is not one of its own sub-tables; None when the file has no such table."""
        first = self.header(table, index)
        if first is None:
            return None
        later = (n for n in self._starts if n > first and not self._is_sub(n, table))
        return first, next(later, len(self.lines) + 1) - 1

    def _is_sub(self, number: int, table: str) -> bool:
        header = _HEADER.match(self.lines[number - 1])
        return bool(header) and header.group(1) == "[" and _name(header.group(2)).startswith(table + ".")

    def string_start(self, line: int | None) -> int:
        """What to add to the line numbers inside a multi-line string starting on ``line`` to get
        the file's lines (0 when the line is not known)."""
        if line is None:
            return 0
        after = re.split(r"=\s*(\"\"\"|''')", self.lines[line - 1], maxsplit=1)
        if len(after) == 3 and not after[2].strip():
            return line  # the newline right after the opening quotes is not part of the string
        return line - 1
