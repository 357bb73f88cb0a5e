"""Time trial: one player alone on a track, against the exact par, with medals and a ghost.

The flow (every screen works with a gamepad alone): the title's *Time trial* seats
whoever pressed it; then track select and the rules (the usual screens); then
:class:`TrialStartScene` shows the par (worked out in the background, with the seconds
it has taken so far), what each medal takes and the best run kept, and offers the
ghost; :func:`trial_race` is the race with the ghost's pencil trail moving in step
with the phases; :class:`TrialResultScene` shows the medal won, keeps a new best run
(the next ghost) and can draw the Champion's optimal line over the player's.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pygame

from game.core.race import FINISHED, RaceState
from game.presentation import theme
from game.presentation.board import trail_strokes
from game.presentation.ghost import Ghost, draw_ghost
from game.presentation.jobs import Job, Pictures
from game.presentation.pictures import draw_picture, spinner, track_picture
from game.presentation.medals import LABELS, draw_medal
from game.presentation.menus.common import (BACK, START, Backdrop, Item, MenuList, device_of, draw_hint, draw_panel,
                                            nav, wrap_to)
from game.presentation.menus.par import WORKING
from game.presentation.menus.race import RacePlan, coach_layers, coached_seats, make_driver_for, start_race
from game.presentation.menus.seats import NAMES, SeatSpec
from game.presentation.scene import Scene
from game.race.replay import CarEntry, Replay, ReplayError, track_checksum
from game.race.trial import MEDALS, TrialRecords, medal, medal_limits

#: The Champion's line is drawn in graphite with a star, whatever the player's pen.
CHAMPION_PEN = theme.Pen(theme.GRAPHITE, "star")
#: The start place of a time trial's lone car (car 1 stands on the grid's first place); its
#: par is the fewest moves from there, which can be more than the track's par (from the best place).
TRIAL_SLOT = 0
#: A kept run longer than this many phases is not replayed as a ghost (nor is a Champion's line searched further).
MAX_PHASES = 2000


def player_seat(ctx, source: str) -> SeatSpec:
    """The one seat of a time trial: the device that asked for it, as it sits in the evening's line-up
    (name, colour, symbol), else under the player's remembered name."""
    device = device_of(source) if source else "kb1"
    mine = next((s for s in ctx.lineup or () if s.is_human and s.device == device), None)
    if mine is not None:
        return mine
    names = [n for n in ctx.settings.player_names if n]
    return SeatSpec(names[0] if names else NAMES[0], 0, 0, "human", device)


def time_trial(ctx, source: str):
    """The first screen of a time trial for the player on ``source``: track select for one car,
    going on to the trial's rules, then its start screen (the track select, made by name as a variant)."""
    return ctx.screens.make("tracks", ctx, [player_seat(ctx, source)], next_screen="trial-rules", badge="time trial")


def _referee_with(track):
    """A referee for kept runs on ``track`` (what TrialRecords.load needs)."""
    def run(replay: Replay):
        from game.race.referee import referee

        result = referee(replay, track)
        return result.final, result.records
    return run


class TrialStartScene(Scene):
    """Par, medals and the best run before the start; see the module docstring."""

    def __init__(self, ctx, plan: RacePlan) -> None:
        super().__init__()
        self.ctx, self.plan = ctx, plan
        self.backdrop = Backdrop()
        self.records = TrialRecords(ctx.trials_dir)
        self.clock = 0.0
        self.ghost_on = True
        self.message = ""
        self.best = None
        self.best_records: list = []
        self.pictures = Pictures()
        self.loading: Job | None = None
        self.refresh()
        self.menu = MenuList([
            Item("Start the run!", self.start, enabled=self.ready,
                 help=lambda: "go!" if self.ready() else "waiting for the par..."),
            Item("Ghost", value=lambda: ("on" if self.ghost_on else "off") if self.best else "no best run yet",
                 change=self._toggle_ghost, enabled=lambda: self.best is not None,
                 help="race against your best run, drawn as a faint pencil trail"),
            Item("Coaching", value=lambda: "on" if self.coached else "off", change=self._toggle_coach,
                 help="rings tinted by the moves each target costs, and your stopping distance; "
                      "a coached best run is marked as one"),
            Item("Back to the rules", self.back),
        ], ctx.audio)

    # -- what is known --------------------------------------------------------
    def refresh(self) -> None:
        """(Re)load the best run kept for this track, rules and laps, off the frame loop."""
        plan = self.plan
        records, ref = self.records, plan.entry.ref
        self.loading = Job(lambda: records.load(ref, plan.rules, plan.laps, _referee_with(plan.entry.track)),
                           name="trial-best")

    def par(self):
        """The fewest moves from where the lone car stands (the grid's first place), or WORKING / None."""
        return self.ctx.pars.par(self.plan.entry.track, self.plan.rules, self.plan.laps, slot=TRIAL_SLOT)

    def ready(self) -> bool:
        return self.par() != WORKING and self.loading is None

    def _toggle_ghost(self, step: int) -> None:
        self.ghost_on = not self.ghost_on

    @property
    def coached(self) -> bool:
        return self.plan.lineup[0].assist == "coach"

    def _toggle_coach(self, step: int) -> None:
        seat = self.plan.lineup[0]
        self.plan = replace(self.plan, lineup=(replace(seat, assist="" if self.coached else "coach"),))

    # -- buttons --------------------------------------------------------------
    def start(self) -> None:
        if not self.ready():
            self.message = "Wait a moment: the par is still being worked out."
            return
        par = self.par()
        ghost = None
        if self.ghost_on and self.best is not None and self.best_records:
            ghost = Ghost(self.best_records, f"best: {self.best.name}", self.best.moves,
                          theme.SYMBOLS[self.plan.lineup[0].symbol])
        self.ctx.screens.push(self.stack, "trial-race", self.ctx, self.plan, ghost=ghost, par=par, best=self.best,
                              start=self)

    def back(self) -> None:
        self.ctx.audio.play("back")
        self.stack.pop()

    def handle(self, action) -> None:
        verb = nav(action)
        if verb == BACK:
            self.back()
        elif verb == START:
            self.start()
        elif not self.menu.verb(verb):
            self.menu.click(action)

    def update(self, dt: float) -> None:
        self.clock += dt
        job = self.loading
        if job is not None and job.done:
            self.loading = None
            if job.error is not None:
                self.best, self.best_records = None, []
                self.message = f"the best run could not be read: {job.error}"
            else:
                self.best, self.best_records, problem = job.result
                if problem:
                    self.message = problem

    # -- drawing --------------------------------------------------------------
    def picture(self, size: tuple[int, int]) -> pygame.Surface | None:
        """The track with the car on its grid (drawn on a background job: None until it is ready)."""
        track, text, seat = self.plan.entry.track, self.pictures.text, self.plan.lineup[0]
        return self.pictures.get((size,), lambda: track_picture(track, size, text, [seat]))

    def draw(self, surface: pygame.Surface) -> None:
        ctx, plan = self.ctx, self.plan
        laps = f"{plan.laps} lap{'s' if plan.laps != 1 else ''}"
        top = self.backdrop.draw(surface, ctx, "Time trial", f"{plan.entry.name}  ·  {plan.rules.name} rules  ·  "
                                 f"{laps}  ·  {plan.lineup[0].name} alone against par")
        w, h = surface.get_size()
        size = ctx.font(22)
        left = pygame.Rect(size * 3 + 8, top, int(w * 0.46), h - top - size * 3)
        draw_picture(surface, ctx, left.inflate(-size, -size), self.picture, self.clock, self.plan.entry.track)
        right = pygame.Rect(left.right + size, top, w - left.right - size * 2, left.height)
        draw_panel(surface, right, ctx)
        x, y = right.left + size, right.top + size // 2

        def say(words: str, height: int, color, at: tuple[float, float], bold: bool = False) -> None:
            """One line of the card, smaller (to 70 %) and then cut with "..." where it is too narrow
            (large text in a 4:3 window ran "Silver: 68 moves or fewer" off the screen)."""
            room = right.right - size // 2 - at[0]
            fitted = ctx.text.fit(words, height, room, bold)
            ctx.text.blit(surface, ctx.text.shorten(words, fitted, room, bold), fitted, color,
                          (at[0], at[1] + (height - fitted) // 2), bold=bold)

        par = self.par()
        if par == WORKING:
            seconds = ctx.pars.seconds(plan.entry.track, plan.rules, plan.laps, slot=TRIAL_SLOT)
            heard = ctx.pars.progress(plan.entry.track, plan.rules, plan.laps, slot=TRIAL_SLOT)
            how_far = f"{heard[0]:.0%} · " if heard else ""
            say(f"{spinner(self.clock)}  working out the par, the exact fewest moves ({how_far}{seconds:.0f} s)",
                ctx.font(18), theme.HUD_TEXT, (x, y))
            y += size * 1.6
        elif not par:
            say("No par for these rules: no medals, but your best run is kept.", ctx.font(18), theme.DOOM, (x, y))
            y += size * 1.6
        else:
            say(f"par {par} moves", ctx.font(28), theme.INK, (x, y), bold=True)
            y += size * 1.9
            limits = medal_limits(par)
            for name in MEDALS:
                r = size * 0.62
                draw_medal(surface, ctx.text, name, (x + r, y + r * 1.9), r)
                limit = limits.of(name)
                what = f"{LABELS[name]}: {limit} moves (par)" if name == "gold" else \
                    f"{LABELS[name]}: {limit} moves or fewer"
                say(what, ctx.font(22), theme.INK, (x + r * 2 + size * 0.6, y + r * 1.2), bold=True)
                y += size * 2.4
        y += size * 0.4
        if self.loading is not None:
            say(f"{spinner(self.clock)}  reading your best run...", ctx.font(18), theme.HUD_DIM, (x, y))
        elif self.best is not None:
            won = medal(self.best.moves, par if isinstance(par, int) else None)
            say(f"best run: {self.best.moves} moves by {self.best.name}"
                + (f"  ({LABELS[won].lower()})" if won else "") + assist_note(self.best.assist),
                ctx.font(20), theme.INK, (x, y))
        else:
            say("no best run yet: set one, and race its ghost next time", ctx.font(20), theme.HUD_DIM, (x, y))
        y += size * 1.6
        menu = pygame.Rect(x - size * 0.5, y, right.width - size, right.bottom - y - size * 0.5)
        self.menu.draw(surface, ctx, menu, label_w=0.45)
        draw_hint(surface, ctx, self.message or "up/down: choose  ·  confirm / Start: go  ·  back: rules")


#: What each assist level is called on the screens ("" none).
ASSIST_NAMES = {"": "none", "coach": "coaching"}


def assist_note(assist: str) -> str:
    """What follows a best run's moves to tell an assisted one apart ("" for none)."""
    return f"  · with {ASSIST_NAMES.get(assist, assist)}" if assist else ""


def trial_race(ctx, plan: RacePlan, ghost: Ghost | None = None, par=None, best=None,
               start: TrialStartScene | None = None):
    """The race of a time trial: one car, and the ghost of the best run moving with it (a
    :class:`GhostLayer`); the race line gives the medal limits, and the run ends on
    :class:`TrialResultScene`."""
    return start_race(ctx, plan, title=f"Time trial · {plan.entry.name}",
                      heading=lambda scene: trial_heading(scene, par),
                      layers=((GhostLayer(ghost),) if ghost is not None else ()) + coach_layers(ctx, plan),
                      finish=lambda scene: ctx.screens.make("trial-result", ctx, plan, scene.controller, par, best,
                                                            start),
                      restart=lambda: ctx.screens.make("trial-race", ctx, plan, ghost, par, best, start))


def trial_heading(scene, par) -> str:
    """The race line of a run: the phase, the par and the medal limits (not the pack's par for other laps)."""
    line = f"{scene.title}  ·  phase {scene.shown_state.phase}"
    if isinstance(par, int):
        limits = medal_limits(par)
        line += f" · par {limits.gold} · silver {limits.silver} · bronze {limits.bronze}"
    return line


class GhostLayer:
    """The best run's pencil trail drawn over a trial's race, in step with its phases."""

    def __init__(self, ghost: Ghost) -> None:
        self.ghost = ghost

    def update(self, scene, dt: float) -> None:
        pass

    def draw(self, surface, scene) -> None:
        draw_ghost(surface, scene.view, self.ghost, scene.shown, scene.animation, len(scene.controller.seats))


def ghost_of(scene) -> Ghost | None:
    """The ghost a trial's race is run against (None: no ghost)."""
    return next((layer.ghost for layer in scene.config.layers if isinstance(layer, GhostLayer)), None)


def champion_line(ctx, track, rules, laps: int):
    """The Champion alone on the track: its final state and phase records (run on a Job)."""
    driver = make_driver_for(ctx, SeatSpec("Champion", 0, 0, "cpu:champion"), rules)
    state = RaceState.start(track, rules, ["Champion"], laps=laps, seed=0)
    records = []
    while not state.over and len(records) < MAX_PHASES:
        choice = driver.choose(state, 0, {}, random.Random(f"champion-line/{state.phase}"))
        state, record = state.apply({0: choice})
        records.append(record)
    return state, records


class TrialResultScene(Scene):
    """After the run: the medal, the moves against par, a new best kept, and the Champion's line on demand."""

    def __init__(self, ctx, plan: RacePlan, controller, par=None, best=None, start: TrialStartScene | None = None):
        super().__init__()
        self.ctx, self.plan, self.start = ctx, plan, start
        self.states, self.records = list(controller.states), list(controller.records)
        self.seed = controller.seed
        self.state = self.states[-1]
        self.car = self.state.cars[0]
        self.par = par if isinstance(par, int) else None
        self.finished = self.car.status == FINISHED
        self.medal = medal(self.car.moves, self.par) if self.finished else None
        self.backdrop = Backdrop()
        self.clock = 0.0
        self.message = ""
        self.new_best = False
        self.show_champion = False
        self.pictures = Pictures()
        self.champion = Job(lambda: champion_line(ctx, plan.entry.track, plan.rules, plan.laps), name="champion-line")
        if self.finished:
            self._keep(best)
        self.menu = MenuList([
            Item("Show the Champion's line", value=lambda: "on" if self.show_champion else "off",
                 change=self._toggle, help="left/right: the optimal line, drawn in graphite over yours"),
            Item("Watch the replay", self.watch),
            Item("Try again", self.again),
            Item("Another track", self.another_track),
            Item("Main menu", self.main_menu),
        ], ctx.audio)

    def _keep(self, best) -> None:
        """Keep the run if it beats the best (it becomes the next ghost), and in the best results."""
        name = self.plan.lineup[0].name
        replay = Replay.from_race(self.plan.entry.ref, self.plan.laps, self.plan.rules, self.state.seed,
                                  [CarEntry(name, "human", assist="coach" if coached_seats(self.plan) else "")],
                                  self.records,
                                  title=f"Time trial: {self.plan.entry.name}, {self.car.moves} moves by {name}",
                                  track_checksum=track_checksum(self.state.track))
        try:
            self.new_best = TrialRecords(self.ctx.trials_dir).offer(replay, self.car.moves, best)
        except (ReplayError, OSError) as error:
            self.message = f"cannot keep the best run: {error}"
        if self.ctx.best.record(self.plan.entry.ref, self.plan.laps, self.car.moves, name, self.plan.rules.name):
            self.message = self.ctx.save_best() or self.message
        if self.new_best:
            self.ctx.audio.play("fanfare")

    # -- buttons --------------------------------------------------------------
    def _toggle(self, step: int) -> None:
        self.show_champion = not self.show_champion

    def watch(self) -> None:
        self.ctx.screens.push(self.stack, "replay", self.ctx, self.states, self.records, list(self.plan.lineup),
                              seed=self.seed)

    def again(self) -> None:
        if self.start is not None:
            self.start.refresh()
            self.ctx.screens.pop_to(self.stack, "trial-start")
        else:
            self.ctx.screens.replace(self.stack, "trial-race", self.ctx, self.plan, par=self.par)

    def another_track(self) -> None:
        self.ctx.screens.pop_to(self.stack, "trial")

    def main_menu(self) -> None:
        self.ctx.screens.pop_to(self.stack, "title")

    def handle(self, action) -> None:
        verb = nav(action)
        if verb == BACK:
            self.again()
        elif not self.menu.verb(verb):
            self.menu.click(action)

    def update(self, dt: float) -> None:
        self.clock += dt

    # -- drawing --------------------------------------------------------------
    def champion_state(self):
        job = self.champion
        return job.result if job.done and job.error is None else None

    def picture(self, size: tuple[int, int]) -> pygame.Surface | None:
        """The track with the player's line (and the Champion's when shown), drawn on a background job."""
        champion = self.champion_state() if self.show_champion else None
        strokes = trail_strokes(self.records)
        if champion is not None:
            strokes = [replace(s, car=1) for s in trail_strokes(champion[1])] + strokes
        player = self.plan.lineup[0]
        pens = [theme.Pen(theme.COLORS[player.color], theme.SYMBOLS[player.symbol]), CHAMPION_PEN]
        track, text = self.state.track, self.pictures.text
        return self.pictures.get((size, champion is not None),
                                 lambda: track_picture(track, size, text, strokes=strokes, pens=pens))

    def draw(self, surface: pygame.Surface) -> None:
        ctx, plan = self.ctx, self.plan
        top = self.backdrop.draw(surface, ctx, "Time trial", f"{plan.entry.name}  ·  {plan.rules.name} rules  ·  "
                                 f"{plan.laps} lap{'s' if plan.laps != 1 else ''}")
        w, h = surface.get_size()
        size = ctx.font(22)
        # Larger text takes room from the picture: the card beside it keeps its lines and rows whole.
        left = pygame.Rect(size * 3 + 8, top, int(w * 0.52 / max(1.0, ctx.settings.scale)), h - top - size * 3)
        draw_picture(surface, ctx, left.inflate(-size, -size), self.picture, self.clock, self.plan.entry.track)
        right = pygame.Rect(left.right + size, top, w - left.right - size * 2, left.height)
        draw_panel(surface, right, ctx)
        x, y = right.left + size, right.top + size // 2
        room = right.right - size // 2 - x

        def lines(words: str, px: int, colour, at: float, bold: bool = False) -> None:
            """``words`` wrapped to the card's width from ``x + at``; ``y`` moves down past them."""
            nonlocal y
            for k, line in enumerate(wrap_to(ctx.text, words, px, room - at, bold)):
                y += int(px * 1.2) * (k > 0)
                ctx.text.blit(surface, line, px, colour, (x + at, y), bold=bold)

        player = plan.lineup[0]
        if not self.finished:
            ctx.text.blit(surface, f"{player.name}: {self.car.status}", ctx.font(30), theme.DOOM, (x, y), bold=True)
            y += size * 2
        else:
            if self.medal is not None:
                r = size * 1.5
                draw_medal(surface, ctx.text, self.medal, (right.right - r * 1.6, y + r * 2.3), r)
            ctx.text.blit(surface, f"{self.car.moves} moves", ctx.font(40), theme.INK, (x, y), bold=True)
            y += size * 2.2
            if player.assist:
                ctx.text.blit(surface, f"assist: {ASSIST_NAMES[player.assist]}", ctx.font(20), theme.HUD_DIM,
                              (x, y), bold=True)
                y += size * 1.2
            if self.par is not None:
                diff = self.car.moves - self.par
                vs = "par!" if diff == 0 else f"{diff:+d} against par {self.par}"
                ctx.text.blit(surface, vs, ctx.font(22), theme.CHECKPOINT if diff <= 0 else theme.HUD_TEXT, (x, y))
                y += size * 1.3
                won = LABELS[self.medal] + " medal" if self.medal else \
                    f"no medal: bronze takes {medal_limits(self.par).bronze} moves"
                ctx.text.blit(surface, won, ctx.font(22), theme.INK, (x, y), bold=True)
                y += size * 1.3
            else:
                ctx.text.blit(surface, "no par for these rules", ctx.font(20), theme.HUD_DIM, (x, y))
                y += size * 1.3
            if self.new_best:
                lines("New best run! It is your ghost next time.", ctx.font(20), theme.DOOM, 0, bold=True)
                y += size * 1.3
        y += size * 0.6
        champion = self.champion_state()
        legend = size * 0.45
        theme.draw_symbol(surface, theme.SYMBOLS[player.symbol], (x + legend, y + legend), legend * 0.8,
                          theme.COLORS[player.color])
        ctx.text.blit(surface, f"{player.name}'s line", ctx.font(17), theme.HUD_TEXT, (x + legend * 2.6, y))
        y += size * 1.1
        theme.draw_symbol(surface, CHAMPION_PEN.symbol, (x + legend, y + legend), legend * 0.8, CHAMPION_PEN.color)
        if champion is None:
            what = f"{spinner(self.clock)} working out the Champion's line..." if not self.champion.done else \
                "the Champion has no line under these rules"
        else:
            final = champion[0].cars[0]
            what = f"the Champion's line: {final.moves} moves" if final.status == FINISHED else \
                "the Champion does not finish under these rules"
        lines(what, ctx.font(17), theme.HUD_TEXT, legend * 2.6)
        y += size * 1.6
        self.menu.draw(surface, ctx, pygame.Rect(x - size * 0.5, y, right.width - size, right.bottom - y), label_w=0.62)
        draw_hint(surface, ctx, self.message or "up/down: choose  ·  confirm: A / Enter  ·  back: try again")

