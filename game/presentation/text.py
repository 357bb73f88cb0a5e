"""Text rendered at its final pixel size (never scaled), with a small cache.

Fonts are opened per pixel size on demand; rendered strings are kept until the cache is
full, so a HUD that says the same thing every frame costs one blit per string.

Any string can be drawn: the readers keep control characters and megabyte names out of
the game (``game.core.text``), and this layer still never raises on one nor stalls a frame
on it. :func:`drawable` clips a line to what a screen could show before the font sees it
and turns what a font cannot draw (NUL, lone surrogates, line breaks, bidirectional
overrides) into a visible mark; a font that fails anyway draws the line's ASCII, or nothing.

Every text a screen draws goes through :meth:`TextCache.blit` or :meth:`TextCache.put`, and
every card through :meth:`TextCache.note_panel`, so a ``recorder`` handed to the cache sees
the whole layout of a frame: the layout test (``tests/test_layout.py``) checks from it that
no text leaves its card or the screen and that no two texts overlap.
"""

from __future__ import annotations

import unicodedata
from collections import OrderedDict
from pathlib import Path

import pygame


class TextCache:
    """Fonts by size and rendered text by (string, size, colour, bold)."""

    def __init__(self, font_path: Path | None = None, limit: int = 600, recorder=None) -> None:
        self.font_path = font_path
        self.limit = limit
        # Told of each text drawn, ``recorder.text(surface, rect, words, image)``, and each card,
        # ``recorder.panel(surface, rect)`` (None in the game: layout tests pass one in).
        self.recorder = recorder
        self._fonts: dict[tuple[int, bool], pygame.font.Font] = {}
        self._rendered: OrderedDict[tuple, pygame.Surface] = OrderedDict()
        self._panels: OrderedDict[tuple, pygame.Surface] = OrderedDict()
        self._last: dict[str, tuple[tuple, object, object]] = {}
        self.renders = 0  # strings rendered by a font so far (tests check the HUD caches its text)
        self.compositions = 0  # composed panels built so far

    def last(self, slot: str, token: tuple, build, keep: object = None):
        """What ``build()`` gave the last time ``slot`` was asked for with an equal ``token``,
        else built again: spares a panel drawn every frame the work of finding its key.
        ``keep`` is held with it (an object whose ``id`` is in the token keeps its id)."""
        kept = self._last.get(slot)
        if kept is not None and kept[0] == token:
            return kept[1]
        value = build()
        self._last[slot] = (token, value, keep)
        return value

    def composed(self, key: tuple, build) -> pygame.Surface:
        """A surface made by ``build()`` and reused while ``key`` stays the same (whole HUD panels)."""
        surf = self._panels.get(key)
        if surf is None:
            surf = build()
            self.compositions += 1
            self._panels[key] = surf
            if len(self._panels) > 32:
                self._panels.popitem(last=False)
        return surf

    def panel(self, size: tuple[int, int], rgba) -> pygame.Surface:
        """A translucent backing rectangle of one colour (cached: HUD panels are redrawn each frame)."""
        key = (tuple(size), tuple(rgba))
        surf = self._panels.get(key)
        if surf is None:
            surf = _alpha(pygame.Surface(size, pygame.SRCALPHA))
            surf.fill(rgba)
            self._panels[key] = surf
            if len(self._panels) > 32:
                self._panels.popitem(last=False)
        return surf

    def font(self, size: int, bold: bool = False) -> pygame.font.Font:
        size = max(6, int(size))
        key = (size, bold)
        if key not in self._fonts:
            if not pygame.font.get_init():
                pygame.font.init()
            font = pygame.font.Font(str(self.font_path) if self.font_path else None, size)
            font.set_bold(bold)
            self._fonts[key] = font
        return self._fonts[key]

    def fit(self, text: str, size: int, width: float, bold: bool = False, least: float | None = None) -> int:
        """The font size, ``size`` or smaller down to ``least`` (70 % of it by default), at which
        ``text`` fits ``width`` pixels: a long label on a narrow row is drawn smaller, not cut off."""
        least = max(6, int(size * 0.7 if least is None else least))
        size = int(size)
        while size > least and self.size_of(text, size, bold)[0] > width:
            size -= max(1, size // 24)
        return max(size, least)

    def shorten(self, text: str, size: int, width: float, bold: bool = False) -> str:
        """``text``, cut at a word with "..." when even :meth:`fit`'s smallest size leaves it too wide."""
        if self.size_of(text, size, bold)[0] <= width:
            return text
        words = text.split(" ")
        while len(words) > 1:
            words.pop()
            cut = " ".join(words).rstrip(" ,:;·") + "..."
            if self.size_of(cut, size, bold)[0] <= width:
                return cut
        low, high = 0, len(text)  # the longest head that fits with "...", found by halving (a long name stays cheap)
        while low < high:
            mid = (low + high + 1) // 2
            if self.size_of(text[:mid] + "...", size, bold)[0] <= width:
                low = mid
            else:
                high = mid - 1
        return text[:low] + "..."

    def render(self, text: str, size: int, color, bold: bool = False) -> pygame.Surface:
        """``text`` as one line at ``size`` pixels; any string (see :func:`drawable`), never an error."""
        key = (text, int(size), tuple(color), bold)
        surf = self._rendered.get(key)
        if surf is None:
            surf = _alpha(self._render_line(drawable(text, size), size, color, bold))
            self.renders += 1
            self._rendered[key] = surf
            if len(self._rendered) > self.limit:
                self._rendered.popitem(last=False)
        else:
            self._rendered.move_to_end(key)
        return surf

    def size_of(self, text: str, size: int, bold: bool = False) -> tuple[int, int]:
        """The width and height ``text`` is drawn at (as :meth:`render` draws it: any string, no error)."""
        line = drawable(text, size)
        try:
            return self.font(size, bold).size(line)
        except (pygame.error, ValueError, UnicodeError):
            return self.render(text, size, (0, 0, 0), bold).get_size()

    def _render_line(self, line: str, size: int, color, bold: bool) -> pygame.Surface:
        font = self.font(size, bold)
        for attempt in (line, line.encode("ascii", "replace").decode("ascii")):
            try:
                return font.render(attempt, True, color)
            except (pygame.error, ValueError, UnicodeError, MemoryError):
                continue  # a glyph or a length this font will not take: try the plain letters
        return pygame.Surface((1, font.get_linesize()), pygame.SRCALPHA)

    def blit(self, surface, text: str, size: int, color, pos, anchor: str = "topleft", bold: bool = False,
             width: float | None = None):
        """Draw text with one corner/side (``anchor``, a pygame Rect attribute) at ``pos``; returns its rect.

        ``width``: the most pixels the text may take (a name from a file stays inside its panel);
        what does not fit is cut off."""
        surf = self.render(text, size, color, bold)
        rect = surf.get_rect(**{anchor: (int(pos[0]), int(pos[1]))})
        if width is not None and rect.width > width:
            shown = max(0, int(width))
            clipped = pygame.Rect(rect.left, rect.top, shown, rect.height)
            if shown:
                surface.blit(surf, clipped, pygame.Rect(0, 0, shown, rect.height))
                if self.recorder is not None:
                    self.recorder.text(surface, clipped, text, surf.subsurface(pygame.Rect(0, 0, shown, rect.height)))
            return clipped
        return self.put(surface, surf, rect, text)

    def put(self, surface, image: pygame.Surface, rect, text: str) -> pygame.Rect:
        """Blit an already rendered ``text`` (from :meth:`render`) at ``rect``; returns the rect.

        For callers that measure or line up several pieces before drawing them (the prompt
        line, labels on bands): drawn here, the recorder sees them too."""
        rect = pygame.Rect(rect.topleft if hasattr(rect, "topleft") else rect, image.get_size())
        surface.blit(image, rect)
        if self.recorder is not None:
            self.recorder.text(surface, rect, text, image)
        return rect

    def note_panel(self, surface, rect) -> None:
        """A card was drawn at ``rect`` (texts that touch it must lie inside it): tells the recorder."""
        if self.recorder is not None:
            self.recorder.panel(surface, pygame.Rect(rect))


def _alpha(surf: pygame.Surface) -> pygame.Surface:
    """In the display's pixel format (with alpha) when there is a display: blits are then cheapest."""
    if pygame.display.get_init() and pygame.display.get_surface() is not None:
        return surf.convert_alpha()
    return surf


#: Characters a font is never given: they draw nothing useful, or move what follows (bidirectional
#: embeddings, overrides and isolates), or make the font raise (NUL, a lone surrogate).
_UNDRAWABLE = ("Cc", "Cs", "Zl", "Zp")
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: About the widest line, in pixels, one text may be drawn: a screen shows less, and a wider
#: surface would only cost time and memory (a glyph is at most about as wide as the font is high).
MAX_LINE_PIXELS = 16_000
#: The most combining marks kept on one letter (Vietnamese stacks two; a font stacks every further
#: one higher, so a letter with a thousand of them would be a line thousands of pixels tall).
MAX_MARKS = 2


def drawable(text: object, size: int = 16) -> str:
    r"""``text`` as a font can draw it on one line: cut to what ``size``-pixel letters could show
    (ending "…"), each tab or line break a space, every other control character "\ufffd", at
    most :data:`MAX_MARKS` combining marks on a letter.

    >>> drawable("a\x00b\nc")
    'a\ufffdb c'
    >>> len(drawable("x" * 3_000_000, 16))
    1000
    """
    if not isinstance(text, str):
        text = str(text)
    room = max(40, MAX_LINE_PIXELS // max(6, int(size)))
    line = text[:room]
    if len(text) > room:
        line = line[:room - 1] + "\u2026"
    if line.isascii() and line.isprintable():  # the common case: nothing to look at letter by letter
        return line
    out = []
    marks = 0
    for char in line:
        category = unicodedata.category(char)
        if category in ("Mn", "Me"):
            marks += 1
            if marks > MAX_MARKS:
                continue  # marks stacked past any real script's: each would make the line taller
        else:
            marks = 0
        if char in "\t\n\r":
            out.append(" ")
        elif char in _BIDI or category in _UNDRAWABLE:
            out.append("\ufffd")
        else:
            out.append(char)
    return "".join(out)
