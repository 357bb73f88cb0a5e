"""What text from a file may hold before the game shows it: the one rule every reader calls.

Names and descriptions come from files other people wrote (packs, cup files, settings,
best results, replays, Karopapier logs) and end up drawn on a screen. A control character
(NUL, an escape, a bidirectional override that makes a name read as another) cannot be
drawn, and a name of a million characters cannot be shown; so every reader checks its text
fields here, with the same words, and either refuses the value or keeps the cleaned one
(:func:`clean_text`), saying what it changed. ``docs/limits.md`` lists the limits.

>>> text_problem("Ada", NAME)
>>> text_problem("A\\x00da", NAME)
'holds a control character (U+0000, its 2nd character), which a screen cannot show'
>>> text_problem("x" * 50, NAME)
'is 50 characters long; a name may be at most 40'
>>> clean_text("Ad\\x1ba" + "x" * 60, NAME)
'Adaxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'
>>> clean_text("two\\nlines\\tof text", DESCRIPTION)
'two\\nlines of text'
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True)
class TextKind:
    """A kind of text field: what it is called in messages, how long it may be, whether it has lines."""

    what: str
    limit: int
    lines: bool = False


#: A name of a pack, track, cup, car, player or record holder: a line of a menu or a grid seat.
NAME = TextKind("a name", 40)
#: A replay's title, date or version: one line of the replays list.
TITLE = TextKind("a title", 300)
#: An id of a pack, track or cup: part of every reference to it (``pack/track``, ``file#track``).
ID = TextKind("an id", 64)
#: A pack's author: one line beside the pack's name.
AUTHOR = TextKind("an author", 60)
#: A pack's, track's or cup's description: one or two lines under the name on a select screen.
DESCRIPTION = TextKind("a description", 300, lines=True)

#: Bidirectional embeddings, overrides and isolates: they reorder what follows on screen, so a
#: name could read as another one (a plain right-to-left name needs none of them).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _forbidden(char: str, lines: bool) -> bool:
    """Whether ``char`` may not stand in a text field (a newline may in a text with lines)."""
    if char in BIDI_CONTROLS:
        return True
    if char in "\n\t":
        return not lines
    return unicodedata.category(char) in ("Cc", "Cs", "Zl", "Zp")


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def text_problem(value: str, kind: TextKind) -> str | None:
    """What is wrong with ``value`` as a ``kind`` field (None when nothing): a control character
    or more characters than the limit. Looks at no more than the limit (and one) characters
    past the first bad one, so a text of megabytes costs no more than a short one."""
    for index, char in enumerate(value[:kind.limit + 1]):
        if _forbidden(char, kind.lines):
            return (f"holds a control character (U+{ord(char):04X}, its {_ordinal(index + 1)} character), "
                    "which a screen cannot show")
    if len(value) > kind.limit:
        return f"is {len(value)} characters long; {kind.what} may be at most {kind.limit}"
    return None


def clean_text(value: str, kind: TextKind) -> str:
    """``value`` as a ``kind`` field may hold it: control characters dropped (a tab is a space),
    cut to the limit, spaces at the ends taken off."""
    kept = []
    for char in value[:kind.limit * 4]:  # enough to fill the limit even after dropping some
        if char == "\t":
            kept.append(" ")
        elif not _forbidden(char, kind.lines):
            kept.append(char)
        if len(kept) >= kind.limit:
            break
    return "".join(kept).strip()


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)`` short enough for a message (a megabyte-long value in a problem stays one line)."""
    if isinstance(value, str) and len(value) > limit:
        return repr(value[:limit]) + f"... ({len(value)} characters)"
    text = repr(value)
    return text if len(text) <= limit + 2 else text[:limit] + "..."


def kept_clean(value: str, kind: TextKind, warn) -> str:
    """``value`` as a reader keeps it: unchanged when it is fine, else cleaned (:func:`clean_text`)
    after ``warn(message)`` says what was wrong and what is kept."""
    trouble = text_problem(value, kind)
    if trouble is None:
        return value
    kept = clean_text(value, kind)
    warn(f"{trouble}; read as {shown(kept)}")
    return kept
