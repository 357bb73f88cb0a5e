"""A short interactive first race: one car on a tiny track, with hints that react to the player.

It teaches the nine targets (the middle one keeps the speed), speeding up, and braking
before a corner. Each hint appears when the race reaches its moment: before the first
move, after it, when the car is fast with the corner ahead, after a crash, after a
successful brake, and on the last stretch. Finishing marks the tutorial done.
"""

from __future__ import annotations

import pygame

from game.core.rules import preset
from game.presentation import theme
from game.presentation.hud import hud_size
from game.presentation.menus.common import draw_panel, wrap_to
from game.presentation.menus.race import RacePlan, TrackEntry, start_race
from game.presentation.menus.seats import SeatSpec

TUTORIAL_MAP = """
XXXXXXXXXXXXXXXXXXXXXXXXXX
XOOOOOOOOOOOOOOOOOOOOOOXXX
XSOOOOOOOOOOOOOOOOOOOOOOXX
XOOOOOOOOOOOOOOOOOOOOOOOOX
XXXXXXXXXXXXXXXXXXXXXOOOOX
XXXXXXXXXXXXXXXXXXXXXOOOOX
XXXXXXXXXXXXXXXXXXXXXOOOOX
XXXXXXXXXXXXXXXXXXXXXOOOOX
XXXXXXXXXXXXXXXXXXXXXFFFFX
XXXXXXXXXXXXXXXXXXXXXOOOOX
XXXXXXXXXXXXXXXXXXXXXXXXXX
"""
CORNER_X = 21

HINTS = {
    "start": ("Welcome! Your car stands on the grid.",
              "The 9 rings are where it may go this move.",
              "Pick the ring to the RIGHT: press D (or the arrow keys + Enter, a d-pad + A, or click it)."),
    "rolling": ("You are moving! The faint arrow is your speed.",
                "Now the rings sit around where that speed carries you:",
                "the middle ring (S) keeps your speed, the right one (D) speeds up."),
    "fast": ("Fast! The road turns DOWN ahead.",
             "A car cannot turn sharply at speed: brake NOW.",
             "The rings on the LEFT side (A, Q, Z) slow you down."),
    "crash": ("Off the road! You came into the corner too fast.",
              "You are put back on the road, stopped.",
              "Next time brake earlier: slow down before the corner."),
    "braked": ("Good braking!",
               "Now steer down: the rings on the lower side (Z, X, C) turn you.", ""),
    "down": ("Down the last stretch: cross the chequered line!", "", ""),
}


def tutorial_track():
    """The tiny training track (a straight, one right-angle corner, the finish)."""
    from game.tracks import track_from_charmap

    return track_from_charmap(TUTORIAL_MAP, id="tutorial", name="First lesson", laps=1, rules="paper",
                              meta={"description": "learn the nine targets and braking", "par": None})


def tutorial_plan(ctx) -> RacePlan:
    name = ctx.settings.player_names[0] if ctx.settings.player_names else "You"
    entry = TrackEntry("tutorial", tutorial_track(), "Tutorial")
    return RacePlan((SeatSpec(name, 0, 0, "human", "kb1"),), entry, preset("paper"), 1)


def start_tutorial(ctx):
    """The tutorial's race: the menus' race with the lesson's card over it, every device
    driving the lone car, and the tutorial marked done once the race is over."""
    lesson = Lesson(ctx)
    plan = tutorial_plan(ctx)

    def over(scene):
        ctx.settings.tutorial_done = True
        ctx.save_settings()
        return ctx.screens.make("results", ctx, plan, scene.controller)

    return start_race(ctx, plan, any_device=True, layers=(lesson,), finish=over, restart=lambda: ctx.screens.make("tutorial", ctx))


def lesson_of(scene) -> Lesson:
    """The lesson drawn over a tutorial's race."""
    return next(layer for layer in scene.config.layers if isinstance(layer, Lesson))


class Lesson:
    """The hint card over the tutorial's race, following what the player does."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.stage = "start"
        self.crashed = False
        self.braked = False
        self.card_rect: pygame.Rect | None = None  # where the hint card was last drawn
        self._corner: int | None = None  # which corner it sits in (see _place)

    def update(self, scene, dt: float) -> None:
        self.stage = self.current_stage(scene)

    def current_stage(self, scene) -> str:
        """Which hint fits the race right now."""
        state = scene.controller.state
        car = state.cars[0]
        speed = car.velocity.chebyshev()
        records = scene.controller.records
        if any(e.kind == "off_track" for r in records[-2:] for e in r.events):
            self.crashed = True
            return "crash"
        if len(records) >= 2:
            before = records[-1].moves[0].velocity_before.chebyshev() if records[-1].moves else 0
            if speed < before and car.position.x < CORNER_X + 3:
                self.braked = True
        if car.position.y >= 4:
            return "down"
        if self.braked and car.position.x >= CORNER_X - 4:
            return "braked"
        if not records or speed == 0:
            return "start"  # standing still (also after staying put): the rings are round the car
        distance = CORNER_X - car.position.x
        if speed >= 2 and distance <= speed * (speed + 1) // 2 + speed + 2:
            return "fast"
        return "rolling"

    def _place(self, scene, rect: pygame.Rect, size: tuple[int, int], top: int, gap: int) -> pygame.Rect:
        """The card's corner: below the HUD strip (never over it) or above the help line, on the
        side where it hides the fewest squares of road (the top right when none is hidden)."""
        w, h = size
        bottom = h - gap * 3  # clear of the help line
        corners = [(w - gap - rect.width, top), (gap, top), (gap, bottom - rect.height),
                   (w - gap - rect.width, bottom - rect.height)]
        road = scene.controller.state.track.region
        nodes = getattr(road, "road", None)
        cam = scene.view.camera
        points = []
        if nodes is not None:
            ys, xs = nodes.nonzero()
            points = [cam.to_screen((float(x), float(y))) for x, y in zip(xs.tolist(), ys.tolist())]
        car = scene.controller.state.cars[0].position
        car_at = cam.to_screen((float(car.x), float(car.y)))

        half = int(cam.scale)  # a node's square (and its border) reaches this far round it

        def hidden(corner):
            box = pygame.Rect(corner, rect.size).inflate(half * 2, half * 2)
            return sum(1 for p in points if box.collidepoint(p)) + (10_000 if box.collidepoint(car_at) else 0)

        # The card stays in its corner while that hides no road (it does not hop as the camera glides).
        keep = self._corner if self._corner is not None and self._corner < len(corners) else 0
        if hidden(corners[keep]):
            best = min(range(len(corners)), key=lambda k: hidden(corners[k]))  # ties: the first, the top right
            if hidden(corners[best]) < hidden(corners[keep]):
                keep = best
        self._corner = keep
        return pygame.Rect(corners[keep], rect.size)

    def draw(self, surface: pygame.Surface, scene) -> None:
        if scene.mode == "finished":
            return
        ctx = self.ctx
        size = ctx.font(22)
        # Each hint's lines wrapped to at most 60 % of the window (measured as drawn: the first in bold),
        # the first line's wrapped pieces bold too.
        most = max(size * 12, min(surface.get_width() - size * 4, int(surface.get_width() * 0.6))) - size * 2
        lines = [(piece, k == 0) for k, line in enumerate(h for h in HINTS[self.stage] if h)
                 for piece in wrap_to(ctx.text, line, size, most, bold=k == 0)]
        w = max(ctx.text.size_of(line, size, bold)[0] for line, bold in lines) + size * 2
        rect = pygame.Rect(0, 0, w, int(size * (1.4 * len(lines) + 2.3)))
        # Below the HUD strip, never over it: the players read their cards there.
        hud_h = hud_size(surface.get_size(), len(scene.controller.state.cars), scene.view.text_scale)[1]
        rect = self._place(scene, rect, surface.get_size(), hud_h + size // 2, size)
        self.card_rect = rect
        draw_panel(surface, rect, ctx)
        pygame.draw.rect(surface, theme.CHECKPOINT, rect, 3)
        # The heading clear of the card's 3-pixel border (it sat on the line at 1080 lines).
        ctx.text.blit(surface, "Tutorial", ctx.font(22), theme.CHECKPOINT, (rect.left + size, rect.top + size // 2),
                      bold=True)
        y = rect.top + size * 1.8
        for line, bold in lines:
            ctx.text.blit(surface, line, size, theme.INK, (rect.left + size, y), bold=bold)
            y += size * 1.4
