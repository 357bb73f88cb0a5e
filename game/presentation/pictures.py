"""Track pictures for the menus: a track fitted into a rectangle on graph paper, with trails.

Drawn by the race screen's own board renderer, on a background job (``game.presentation.jobs.
Pictures``): a big outline track takes up to a tenth of a second to draw, too long for a
frame. :func:`draw_picture` shows "drawing..." until the picture is ready.
"""

from __future__ import annotations

import pygame

from game.presentation import theme
from game.presentation.board import Board
from game.presentation.camera import Camera
from game.presentation.menus.common import draw_panel


def spinner(clock: float) -> str:
    """A pencil-line spinner for "working on it" texts."""
    return "|/-\\"[int(clock * 8) % 4]


def draw_picture(surface, ctx, rect: pygame.Rect, picture, clock: float, track=None) -> None:
    """A picture drawn on a job into ``rect`` (shrunk to the track's shape), or "drawing..." until it is ready."""
    if track is not None:
        aspect = (track.width + 2 * track.scale) / max(1, track.height + 2 * track.scale)
        fitted = pygame.Rect(0, 0, min(rect.width, int(rect.height * aspect)), min(rect.height, int(rect.width / aspect)))
        fitted.midtop = rect.midtop
        rect = fitted
    if rect.width <= 20 or rect.height <= 20:
        return
    image = picture(rect.size)
    if image is None:
        draw_panel(surface, rect, ctx)
        ctx.text.blit(surface, f"{spinner(clock)}  drawing the track...", ctx.font(18), theme.HUD_DIM, rect.center,
                      "center")
        return
    surface.blit(image, rect)
    pygame.draw.rect(surface, theme.GRAPHITE_LIGHT, rect, 1)


def track_picture(track, size: tuple[int, int], text, lineup=(), strokes=(), pens=None) -> pygame.Surface:
    """The track fitted into ``size`` on graph paper, the line-up on its grid, and ``strokes`` drawn over it."""
    pens = list(pens or [theme.Pen(theme.COLORS[s.color], theme.SYMBOLS[s.symbol]) for s in lineup]
                or theme.pens(1))
    board = Board(track, pens, text, seed=3)
    camera = Camera(size, unit=board.unit)
    camera.drift_amount = 0.0
    left, top, right, bottom = board.bounds
    # fitted by hand: a thumbnail may need fewer pixels a square than the race camera ever uses
    margin = 6
    fit = min((size[0] - 2 * margin) / (right - left + 2), (size[1] - 2 * margin) / (bottom - top + 2))
    camera.scale = camera.target_scale = max(1.0, round(fit * 4) / 4)
    camera.center = camera.target_center = ((left + right) / 2, (top + bottom) / 2)
    picture = pygame.Surface(size)
    picture.fill(theme.OFFROAD)
    board.blit_layer(picture, camera)
    if strokes:
        board.draw_strokes(picture, camera.to_screen, camera.scale, strokes)
    for k, spec in enumerate(lineup):
        if k < len(track.start_slots) and not strokes:
            slot = track.start_slots[k]
            theme.draw_symbol(picture, theme.SYMBOLS[spec.symbol], camera.to_screen((slot.x, slot.y)),
                              max(3.0, camera.scale * 0.45), theme.COLORS[spec.color])
    return picture
