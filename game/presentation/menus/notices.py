"""What went wrong while the game started (damaged settings, best results, bindings), shown on
the title screen: a small card of wrapped lines, so a player learns which file and key
were wrong and where the old file was kept. One function, so any title screen can place it.
"""

from __future__ import annotations

import pygame

from game.presentation import theme
from game.presentation.menus.common import draw_panel, wrap_words

#: At most this many lines are shown; the rest are counted in a last line.
MAX_LINES = 7


def notice_lines(problems: list[str], width_chars: int, max_lines: int = MAX_LINES) -> list[str]:
    """The problems wrapped to ``width_chars``, cut to ``max_lines`` with a count of what is left out."""
    lines: list[str] = []
    for index, problem in enumerate(problems):
        wrapped = wrap_words(" ".join(problem.split()), width_chars, indent="    ")
        if len(lines) + len(wrapped) > max_lines - (1 if index < len(problems) - 1 else 0):
            left = len(problems) - index
            lines.append(f"... and {left} more problem{'s' if left != 1 else ''}")
            break
        lines += wrapped
    return lines


def draw_problems(surface: pygame.Surface, ctx, top: int) -> pygame.Rect | None:
    """Draw the start-up problems (``ctx.all_problems()``) in a card centred below ``top``.

    Returns the card, or None when there are none.
    """
    problems = ctx.all_problems() if hasattr(ctx, "all_problems") else list(ctx.problems)
    if not problems:
        return None
    w, h = surface.get_size()
    size = ctx.font(15)
    card_w = min(w - size * 2, size * 60)
    sample = "the file settings.toml: key "  # an average character width of this font, measured
    char_w = max(1.0, ctx.text.render(sample, size, theme.DOOM).get_width() / len(sample))
    lines = notice_lines(problems, max(30, int((card_w - size) / char_w)))
    step = int(size * 1.25)
    card = pygame.Rect(0, top, card_w + size, step * (len(lines) + 1) + size // 2)
    card.centerx = w // 2
    card.bottom = min(card.bottom, h - size * 3)  # keep clear of the hint band at the bottom
    draw_panel(surface, card, ctx)
    y = card.top + size // 2
    ctx.text.blit(surface, "Problems found at start-up (the game goes on with defaults):", size, theme.HUD_TEXT,
                  (card.left + size // 2, y))
    for line in lines:
        y += step
        ctx.text.blit(surface, line, size, theme.DOOM, (card.left + size // 2, y))
    return card
