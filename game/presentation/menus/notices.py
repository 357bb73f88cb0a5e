"""What went wrong while the game started (damaged settings, best results, bindings), shown on
the title screen: a small card of wrapped lines, so a player learns which file and key
were wrong and where the old file was kept. One function, so any title screen can place it.
"""

from __future__ import annotations

import pygame

from game.presentation import theme
from game.presentation.menus.common import draw_panel, wrap_to

#: At most this many lines are shown; the rest are counted in a last line.
MAX_LINES = 7


def fitted_lines(text, problems: list[str], size: int, width: float, max_lines: int) -> list[str]:
    """The problems wrapped to ``width`` pixels at font ``size`` (later lines indented; a long folder
    name is broken where it must be), cut to ``max_lines`` with a count of what is left out."""
    indent = "    "
    room = width - text.size_of(indent, size)[0]
    lines: list[str] = []
    for index, problem in enumerate(problems):
        pieces = []
        for line in wrap_to(text, " ".join(problem.split()), size, room):
            while text.size_of(line, size)[0] > room and len(line) > 1:  # one word wider than the card: a path
                cut = len(line) - 1
                while cut > 1 and text.size_of(line[:cut], size)[0] > room:
                    cut -= 1
                pieces.append(line[:cut])
                line = line[cut:]
            pieces.append(line)
        wrapped = pieces[:1] + [indent + piece for piece in pieces[1:]]
        if len(lines) + len(wrapped) > max_lines - (1 if index < len(problems) - 1 else 0):
            left = len(problems) - index
            lines.append(f"... and {left} more problem{'s' if left != 1 else ''}")
            break
        lines += wrapped
    return lines


def problems_height(ctx, size: tuple[int, int], max_lines: int = MAX_LINES) -> int:
    """Pixels the start-up problems' card takes on a window of ``size`` (0 when there are none)."""
    problems = ctx.all_problems() if hasattr(ctx, "all_problems") else list(ctx.problems)
    if not problems:
        return 0
    px = ctx.font(15)
    lines = fitted_lines(ctx.text, problems, px, min(size[0] - px * 2, px * 60) - px, max_lines)
    return int(px * 1.25) * (len(lines) + 1) + px // 2


def draw_problems(surface: pygame.Surface, ctx, top: int, bottom: int | None = None) -> pygame.Rect | None:
    """Draw the start-up problems (``ctx.all_problems()``) in a card centred below ``top``, above
    ``bottom`` (the help band by default): as many lines as fit there, then a count of the rest.

    Returns the card, or None when there are none.
    """
    problems = ctx.all_problems() if hasattr(ctx, "all_problems") else list(ctx.problems)
    if not problems:
        return None
    w, h = surface.get_size()
    size = ctx.font(15)
    bottom = h - size * 3 if bottom is None else bottom
    card_w = min(w - size * 2, size * 60)
    step = int(size * 1.25)
    room = max(2, (bottom - top - size // 2) // step - 1)
    lines = fitted_lines(ctx.text, problems, size, card_w - size, min(MAX_LINES, room))
    card = pygame.Rect(0, top, card_w + size, step * (len(lines) + 1) + size // 2)
    card.centerx = w // 2
    card.bottom = min(card.bottom, bottom)  # keep clear of the hint band at the bottom
    draw_panel(surface, card, ctx)
    y = card.top + size // 2
    head = "Problems found at start-up (the game goes on with defaults):"
    ctx.text.blit(surface, head, ctx.text.fit(head, size, card_w), theme.HUD_TEXT, (card.left + size // 2, y))
    for line in lines:
        y += step
        ctx.text.blit(surface, line, size, theme.DOOM, (card.left + size // 2, y))
    return card
