"""The race as the couch game plays it: the one race screen configured from the menus' plan.

:func:`start_race` makes the :class:`~game.presentation.race_scene.RaceScene` with a
:class:`~game.presentation.race_scene.RaceConfig` from :func:`menu_config`: cars wear
the colours and symbols picked in the lobby, phase events make sounds, a pulled gamepad
pauses the race until any pad takes its car back, Esc / Start opens the pause menu, and
when the race is over the scene hands over to the results screen. A variant (a cup's
race, a time trial's run, the tutorial) changes a few of those fields.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from game.core.race import RaceState
from game.core.rules import Movement, RuleSet
from game.drivers.base import HumanDriver
from game.presentation import theme
from game.presentation.race_scene import RaceConfig, RaceScene, RaceSettings
from game.presentation.replay_scene import ReplayViewerScene
from game.presentation.menus.seats import SeatDevices, SeatSpec
from game.race.controller import InlinePlanner, RaceController, Seat
from game.race.handicap import head_start_state
from game.tracks.catalogue import TrackEntry  # noqa: F401 - the menus' name for it
from game.race.timer import ManualClock, MoveTimer


@dataclass(frozen=True)
class RacePlan:
    """Everything needed to start (or restart) a race: line-up, track, rules, laps."""

    lineup: tuple[SeatSpec, ...]
    entry: TrackEntry
    rules: RuleSet
    laps: int
    timer: int = 0  # the move timer, seconds per choice (0: off)

    def handicaps(self) -> list[int]:
        """Each seat's handicap in moves (an "auto" seat not resolved yet counts 0; see :func:`resolve_handicaps`)."""
        return [h if isinstance(h, int) else 0 for h in (s.handicap for s in self.lineup)]


def resolve_handicaps(ctx, plan: RacePlan) -> RacePlan:
    """The plan with every "auto" handicap worked out from the players' last results on this machine
    (their moves over par, kept per name in the best results file) so that predicted finishes tie."""
    if not any(s.handicap == "auto" for s in plan.lineup):
        return plan
    from game.race.handicap import auto_handicaps, over_par_of

    history = getattr(ctx.best, "over_par", {}) or {}
    proposed = auto_handicaps(over_par_of(history, [s.name for s in plan.lineup]))
    lineup = tuple(replace(s, handicap=p) if s.handicap == "auto" else s for s, p in zip(plan.lineup, proposed))
    return replace(plan, lineup=lineup)


def pens_for(lineup) -> list[theme.Pen]:
    return [theme.Pen(theme.COLORS[s.color], theme.SYMBOLS[s.symbol]) for s in lineup]


def make_driver_for(ctx, spec: SeatSpec, rules: RuleSet):
    """The driver of a seat: a human, the flick CPU in the party mode, else the solver CPUs."""
    if spec.is_human:
        return HumanDriver()
    if rules.movement == Movement.FLICK:
        from game.drivers.flick import RouteFields, make_flick_driver

        if getattr(ctx, "flick_fields", None) is None:
            ctx.flick_fields = RouteFields()  # one set of route fields for every flick CPU of the game
        return make_flick_driver(spec.kind, ctx.flick_fields)
    from game.drivers.cpu import make_driver

    return make_driver(spec.kind, shared=ctx.cpu_shared)


def make_timer(ctx, plan: RacePlan) -> MoveTimer | None:
    """The plan's move timer on a clock of its own (the race scene moves it on while players choose)."""
    if not plan.timer:
        return None
    fallback = make_driver_for(ctx, SeatSpec("Champion", 0, 0, "cpu:champion"), plan.rules)
    if plan.rules.movement != Movement.FLICK:
        from game.drivers.cpu import stand_in

        # The same tables, but the race's CPUs must not take the player's seat for a Champion's.
        fallback = stand_in("cpu:champion", ctx.cpu_shared)
    return MoveTimer(plan.timer, ManualClock(), fallback)


def start_race(ctx, plan: RacePlan, seed: int | None = None, intro: bool = True, **config) -> RaceScene:
    """A new race scene for the plan (a fresh seed from the context's rng unless one is given).

    ``config`` are :class:`RaceConfig` fields a variant changes (a cup's race hands over to
    its standings, a trial's run draws the ghost); the rest come from :func:`menu_config`.
    """
    seed = ctx.rng.randrange(2 ** 31) if seed is None else seed
    plan = resolve_handicaps(ctx, plan)
    names = [s.name for s in plan.lineup]
    state = RaceState.start(plan.entry.track, plan.rules, names, laps=plan.laps, seed=seed)
    state = head_start_state(state, plan.handicaps(), plan.rules.handicap)  # the handicapped cars set off first
    seats = [Seat(s.name, make_driver_for(ctx, s, plan.rules)) for s in plan.lineup]
    planner = ctx.planner() if ctx.planner is not None else InlinePlanner()
    from game.race.standing import SolverStanding

    controller = RaceController(state, seats, planner=planner, timer=make_timer(ctx, plan),
                                standing=SolverStanding(ctx.cpu_shared))
    if (any(not s.is_human for s in plan.lineup) or plan.rules.needs_standing) and plan.rules.movement != Movement.FLICK:
        from game.race.headstart import build_table_early

        build_table_early(ctx.cpu_shared, state)  # while the race screen counts down
    return RaceScene(controller, ctx.size, replace(menu_config(ctx, plan, intro), **config), text=ctx.text)


def menu_config(ctx, plan: RacePlan, intro: bool = True) -> RaceConfig:
    """How the menus' races differ from the quick race: the line-up's pens and seats, the
    player's settings, sounds, the pause menu, the results screen at the finish, a restart."""
    title = f"{plan.entry.name} · {plan.rules.name}" + (" · pen flick" if plan.rules.movement == Movement.FLICK else "")
    settings = RaceSettings.of_player(ctx.settings, intro=intro)
    seats = SeatDevices.from_lineup(list(plan.lineup), ctx.device_present)
    phones = getattr(ctx, "phones", None)
    for device in [d for d in seats.devices if d.startswith("phone:")]:
        if phones is None or not phones.connected(device):
            seats.unplugged(device)  # asleep as the race starts: its car waits for it like a pulled pad's
    return RaceConfig(title=title, settings=settings, pens=pens_for(plan.lineup), cpu_status=ctx.cpu_note,
                      seats=seats, audio=ctx.audio,
                      flick=plan.rules.movement == Movement.FLICK,
                      pause=lambda scene, unplugged=None: pause_menu(ctx, scene),
                      finish=lambda scene: ctx.screens.make("results", ctx, plan, scene.controller),
                      restart=lambda: ctx.screens.make("race", ctx, plan),
                      par=lambda: ctx.pars.par(plan.entry.track, plan.rules, plan.laps),
                      layers=tower_layers(ctx, plan) + plan_note_layers(ctx, plan) + coach_layers(ctx, plan)
                      + phone_layers(ctx, plan))


def coached_seats(plan: RacePlan) -> frozenset[int]:
    """The seats that really race coached: a player who chose the coaching assist, on rules the solver
    plays (fine paper and the flick have no exact table, so a player there races with plain targets
    and the results and best runs must not say "coached")."""
    chose = frozenset(i for i, s in enumerate(plan.lineup) if s.is_human and s.assist == "coach")
    if not chose:
        return chose
    from game.drivers.solver import supports

    return chose if supports(plan.rules) else frozenset()


def coach_layers(ctx, plan: RacePlan) -> tuple:
    """The coaching layer for the players racing with the coaching assist (none by default), when the
    solver plays the race's rules."""
    coached = set(coached_seats(plan))
    if not coached:
        return ()
    from game.presentation.coaching import CoachingLayer

    return (CoachingLayer(ctx.cpu_shared.waited_table, coached),)


def tower_layers(ctx, plan: RacePlan) -> tuple:
    """The timing tower for a race whose rules the solver plays, when the player's setting shows it."""
    from game.drivers.solver import supports

    if not ctx.settings.tower_for(plan.rules) or not supports(plan.rules):
        return ()
    from game.presentation.tower import TimingTower

    return (TimingTower(ctx.cpu_shared.waited_table),)


def phone_layers(ctx, plan: RacePlan) -> tuple:
    """Each phone seat's view of the race, sent to its phone (none when no seat is a phone)."""
    phones = getattr(ctx, "phones", None)
    if phones is None or not any((s.device or "").startswith("phone:") for s in plan.lineup):
        return ()
    from game.presentation.phones import PhoneLayer

    return (PhoneLayer(phones),)


def plan_note_layers(ctx, plan: RacePlan) -> tuple:
    """The note that the CPUs plan a bounded race (over the memory budget), for a race with CPUs the solver plays."""
    from game.drivers.solver import supports

    if all(s.is_human for s in plan.lineup) or not supports(plan.rules):
        return ()
    from game.presentation.plan_note import PlanNote

    return (PlanNote(ctx.cpu_shared.plan),)


def pause_menu(ctx, scene) -> None:
    """The menus' pause: the pause menu over the race (which also waits for a pulled pad), unless it is over."""
    if not scene.controller.over:
        ctx.screens.push(scene.stack, "pause", ctx, scene)


def replay_viewer(ctx, states, records, cars, seed: int = 0, better=None) -> ReplayViewerScene:
    """The replay viewer at the player's speed; ``cars`` are the line-up's seats (their pens, so a
    replay looks like the race) or, for a replay file, the cars' names (the default pens); ``better``
    (a ``BetterLine``) opens it on a lost move with the Champion's line from there drawn over it."""
    seated = all(isinstance(car, SeatSpec) for car in cars)
    names = [car.name if isinstance(car, SeatSpec) else car for car in cars]
    viewer = ReplayViewerScene(states, records, names, ctx.size, ctx.text, seed=seed,
                               pens=pens_for(cars) if seated else None, text_scale=ctx.settings.scale,
                               better=better)
    viewer.speed = ctx.settings.replay_speed
    return viewer
