"""Grand Prix cups on the couch: choose a cup, race it track by track, the standings after every race,
the final podium, and resuming a cup after a restart or a crash.

The flow (every screen works with a gamepad alone):

- *Grand Prix cup* on the title opens the lobby (screen ``"cup-lobby"``: the race lobby going on
  to choosing the cup), then :class:`CupSelectScene`: every built-in pack as a cup of all its tracks, every
  ``[[cup]]`` of the built-in and the user's packs (broken ones say why), the points table,
  the rules (each race's own, or the rules chosen last) and the move timer.
- Each race is the race screen configured by :func:`cup_race` (screen ``"cup-race"``); when it
  is over its replay is saved beside the cup file and the cup file is written again
  (atomically), then :class:`StandingsScene` animates the points gained and the new order.
- After the last race, :class:`CupPodiumScene` crowns the cup's winners (the shared
  animated podium).
- A cup in progress is offered on the title (*Resume cup*, :class:`ResumeCupScene`); the
  players take their seats again by pressing a button (:class:`CupSeatsScene`), since a
  restarted game does not know which gamepad was whose.

Loading packs and tracks happens on background jobs with the time shown; the frame loop
never waits. The cup itself is ``game.race.cup`` (no pygame there).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import pygame

from game.core.race import FINISHED
from game.presentation import theme
from game.presentation.easing import clamp, in_out_cubic, out_cubic
from game.presentation.input import DeviceRemoved
from game.presentation.jobs import Job, Pictures
from game.presentation.pictures import spinner, track_picture
from game.presentation.menus.common import (BACK, OK, START, Backdrop, Item, MenuList, device_of, draw_hint,
                                            draw_panel, nav, timer_item, timer_text, wrap_words)
from game.presentation.menus.race import RacePlan, TrackEntry, pens_for, start_race
from game.presentation.menus.seats import LEVEL_NAMES, SeatSpec, device_label
from game.presentation.podium import Podium, PodiumEntry
from game.presentation.scene import Scene
from game.files import keep_aside
from game.race.cup import (CUP_FILE, Cup, CupError, CupFit, Entrant, RaceResult, cup_folder, cup_from_def, cup_refs,
                           cups_to_resume, fit_cup, replay_name, save_cup)
from game.race.replay import Replay, ReplayError, save_replay, track_checksum
from game.tracks.cups import POINTS_DESCRIPTIONS, POINTS_NAMES, points_table


# -- the cups on offer ---------------------------------------------------------------
@dataclass(frozen=True)
class CupChoice:
    """A cup the players can pick: its definition, where it comes from, and its tracks (or its problems)."""

    name: str
    pack: str
    definition: object | None  # a game.tracks.cups.CupDef
    refs: tuple[str, ...] = ()
    tracks: tuple = ()
    problems: tuple[str, ...] = ()
    source: str = ""  # what the cup file says it came from

    @property
    def ok(self) -> bool:
        return self.definition is not None and not self.problems


def load_cup_choices(builtin_dir: Path, packs_dir: Path | None) -> list[CupChoice]:
    """Every cup of the built-in packs and the user's packs, read now (tools and tests; the game has its catalogue)."""
    from game.tracks import load_packs

    results = []
    for folder, builtin in [(Path(builtin_dir), True)] + ([(Path(packs_dir), False)] if packs_dir else []):
        found = load_packs([folder])
        if builtin:
            found.sort(key=lambda r: (r.pack is None or r.pack.id != "starter", str(r.path)))
        results += [(r, not builtin) for r in found]
    return cup_choices(results)


def cup_choices(results) -> list[CupChoice]:
    """The cups of already-read packs (``(PackResult, is the user's)`` pairs, built-in first);
    broken cups come with their problems."""
    choices: list[CupChoice] = []
    for result, user in results:
        if result.pack is None or result.path.suffix != ".toml":
            continue
        pack = result.pack
        builtin = not user
        by_id = {t.id: t for t in pack.tracks}
        for cup in pack.all_cups():
            refs = tuple(cup_refs(pack.id, result.path, cup, builtin))
            choices.append(CupChoice(cup.name, pack.name + ("" if builtin else " (your packs)"), cup, refs,
                                     tuple(by_id[r.track] for r in cup.races),
                                     source=pack.id if builtin else str(result.path)))
        broken = sorted({p.cup for p in result.errors if p.cup is not None})
        for cup_id in broken:
            choices.append(CupChoice(f"broken: {cup_id}", pack.name, None,
                                     problems=tuple(str(p) for p in result.cup_problems(cup_id))))
    return choices


# -- a cup being played ----------------------------------------------------------------
@dataclass
class CupSession:
    """The cup being played on this couch: the cup value, its folder, the seats and the loaded tracks."""

    cup: Cup
    folder: Path
    lineup: list[SeatSpec]
    tracks: list
    pack_names: list[str] = field(default_factory=list)
    message: str = ""

    @property
    def path(self) -> Path:
        return self.folder / CUP_FILE

    def save(self) -> str:
        """Write the cup file; returns a problem to show ("" when saved)."""
        try:
            save_cup(self.cup, self.path)
            return ""
        except CupError as error:
            return str(error)

    def plan(self, index: int) -> RacePlan:
        race = self.cup.races[index]
        pack = self.pack_names[index] if index < len(self.pack_names) else ""
        return RacePlan(tuple(self.lineup), TrackEntry(race.track, self.tracks[index], pack), race.rules, race.laps,
                        timer=self.cup.timer)


def lineup_of(cup: Cup, devices: dict[int, str] | None = None) -> list[SeatSpec]:
    devices = devices or {}
    return [SeatSpec(e.name, e.color, e.symbol, e.driver, devices.get(i)) for i, e in enumerate(cup.entrants)]


def entrants_of(lineup) -> list[Entrant]:
    return [Entrant(s.name, s.kind, s.color, s.symbol) for s in lineup]


# -- the lobby and choosing a cup -------------------------------------------------------
class CupSelectScene(Scene):
    """Pick the cup, its points table, its rules and the move timer; then the first race."""

    RULES = ("own", "mine")

    def __init__(self, ctx, lineup, choices: list[CupChoice] | None = None) -> None:
        super().__init__()
        self.ctx = ctx
        self.lineup = list(lineup)
        self.backdrop = Backdrop()
        self.clock = 0.0
        self.message = ""
        self.choices: list[CupChoice] = choices or []
        # The game's pack catalogue (read in the background, looked at again now for changed
        # files); without one the packs are read on a job of our own.
        self.catalogue = getattr(ctx, "catalogue", None) if choices is None else None
        self._version = None
        self.loading = None
        if self.catalogue is not None:
            self.catalogue.refresh()
        elif choices is None:
            self.loading = Job(lambda: load_cup_choices(ctx.builtin_dir, ctx.packs_dir), name="cup-packs")
        self.index = 0
        self.pictures = Pictures(limit=24)
        self.points: str | None = None  # None: the cup's own table
        self.rules_mode = "own"
        self.menu = MenuList([
            Item("Cup", value=lambda: self.choice.name if self.choice else "...", change=self._cup,
                 help=lambda: f"from the pack {self.choice.pack}  ·  left/right: another cup" if self.choice
                 else "loading the packs..."),
            Item("Points", value=self._points_label, change=self._points, help=self._points_help),
            Item("Rules", value=self._rules_label, change=self._rules,
                 help="each race's own rules (the cup's), or the rules you chose last, for every race"),
            timer_item(ctx, self._saved),
            Item("Start the cup!", self.begin),
        ], ctx.audio)

    @property
    def choice(self) -> CupChoice | None:
        return self.choices[self.index] if self.choices else None

    def _saved(self, message: str) -> None:
        self.message = message

    # -- rows -----------------------------------------------------------------
    def _cup(self, step: int) -> None:
        if self.choices:
            self.index = (self.index + step) % len(self.choices)
            self.points = None
            self.message = ""

    def table(self):
        choice = self.choice
        if self.points is not None:
            return points_table(self.points)
        return choice.definition.points if choice is not None and choice.definition is not None else points_table(
            "classic")

    def _points_label(self) -> str:
        table = self.table()
        return table.name if table.name in POINTS_NAMES else "the pack's own"

    def _points_help(self) -> str:
        table = self.table()
        return f"{table.label}: " + POINTS_DESCRIPTIONS.get(table.name, "")

    def _points(self, step: int) -> None:
        names = list(POINTS_NAMES)
        current = self.table().name
        k = names.index(current) if current in names else -1
        self.points = names[(k + step) % len(names)]

    def _rules_label(self) -> str:
        if self.rules_mode == "own":
            return "each race's own"
        return f"yours: {self.ctx.settings.rules().name}"

    def _rules(self, step: int) -> None:
        self.rules_mode = "mine" if self.rules_mode == "own" else "own"

    # -- going ------------------------------------------------------------------
    def begin(self) -> None:
        choice = self.choice
        if choice is None or self.waiting:
            self.message = "Still reading the packs..."
            return
        if not choice.ok and choice.source == "generated":
            self.message = "The random cup's tracks are still being made: " + "; ".join(choice.problems)
            return
        if not choice.ok:
            self.message = "This cup has problems (listed on the right) and cannot be raced."
            return
        small = [t for t in choice.tracks if len(t.start_slots) < len(self.lineup)]
        if small:
            self.message = f"{small[0].name} has {len(small[0].start_slots)} start places: too few for " \
                           f"{len(self.lineup)} cars."
            return
        rules = self.ctx.settings.rules() if self.rules_mode == "mine" else None
        seed = self.ctx.rng.randrange(2 ** 31)
        try:
            cup = cup_from_def(choice.definition, choice.refs, choice.tracks, entrants_of(self.lineup), seed,
                               points=points_table(self.points) if self.points else None, rules=rules,
                               timer=self.ctx.settings.move_timer, source=choice.source)
        except CupError as error:
            self.message = str(error)
            return
        session = CupSession(cup, cup_folder(self.ctx.cups_dir, cup), list(self.lineup), list(choice.tracks),
                             [choice.pack] * len(choice.tracks))
        if choice.source == "generated":  # the next random cup of this size is a new one
            self._cup_codes.pop(choice.name.rpartition(" ")[2], None)
        problem = session.save()  # saved before the first race: a crash in it still offers the cup again
        if problem:
            self.message = problem
            return
        self.ctx.audio.play("confirm")
        self.ctx.screens.push(self.stack, "cup-race", self.ctx, session)

    def handle(self, action) -> None:
        verb = nav(action)
        if verb == BACK:
            self.ctx.audio.play("back")
            self.stack.pop()
        elif verb == START:
            self.begin()
        elif not self.menu.verb(verb):
            self.menu.click(action)

    @property
    def waiting(self) -> bool:
        """True while the packs are still being read (nothing to choose yet)."""
        if self.catalogue is not None:
            return not self.catalogue.ready or self.catalogue.busy and self._version is None
        return self.loading is not None

    def update(self, dt: float) -> None:
        self.clock += dt
        self._refresh_random_cup()
        catalogue = self.catalogue
        if catalogue is not None and catalogue.ready and not catalogue.busy and catalogue.version != self._version:
            self._version = catalogue.version
            current = self.choice.name if self.choice else None
            self._take(cup_choices(catalogue.results()))
            names = [c.name for c in self.choices]
            self.index = names.index(current) if current in names else 0
        job = self.loading
        if job is not None and job.done:
            self.loading = None
            if job.error is not None:
                self.message = f"cannot read the packs: {job.error}"
            else:
                self._take(job.result)

    def _take(self, choices: list[CupChoice]) -> None:
        self.choices = choices + self._random_cups()
        if not choices:
            self.message = "No pack has a cup: a pack needs two tracks or a [[cup]] table."

    # -- random cups (issue 24) -----------------------------------------------------
    def _random_cups(self) -> list[CupChoice]:
        """A "Random cup" of four generated tracks per size, after the packs' cups (none in tests' lists)."""
        if self.catalogue is None and self.loading is None:
            return []
        if not hasattr(self, "_cup_codes"):
            self._cup_codes: dict[str, list[str]] = {}
        return [self._random_cup(size) for size in ("short", "medium", "long")]

    def _random_cup(self, size: str, start: bool = False) -> CupChoice:
        """The random cup of a size as it stands: its four tracks once made (they are made once it is shown)."""
        from game.drivers.generated import Generated
        from game.presentation.generated_tracks import Making, generated_tracks
        from game.tracks.cups import CupDef, CupRaceDef

        gen = generated_tracks(self.ctx)
        codes = self._cup_codes.setdefault(size, [])
        if not codes:
            from game.tracks.generator import random_spec

            codes += [random_spec(gen.entropy(), size).code for _ in range(4)]
        states = [gen.get(c) if start else gen.peek(c) for c in codes]
        name = f"Random cup: {size}"
        made = [st for st in states if isinstance(st, Generated)]
        if len(made) < len(codes):
            failed = [st.message for st in states if not isinstance(st, (Generated, Making))]
            note = failed or [f"making its tracks: {len(made)} of {len(codes)} made" if start else
                              "four generated tracks, made when you pick it"]
            return CupChoice(name, "Generated tracks", None, problems=tuple(note), source="generated")
        definition = CupDef(id=f"random-{size}", name=f"Random cup {codes[0]}", races=tuple(
            CupRaceDef(f"gen:{c}") for c in codes), description=f"four generated {size} tracks")
        return CupChoice(name, "Generated tracks", definition, tuple(f"gen:{c}" for c in codes),
                         tuple(st.track for st in made), source="generated")

    def _refresh_random_cup(self) -> None:
        """While a random cup is shown: start its tracks and take them in as they are made."""
        choice = self.choice
        if choice is None or choice.source != "generated":
            return
        size = choice.name.rpartition(" ")[2]
        fresh = self._random_cup(size, start=True)
        if fresh != choice:
            self.choices[self.index] = fresh

    # -- drawing ------------------------------------------------------------------
    def _draw_thumbnails(self, surface, area: pygame.Rect, choice: CupChoice, size: int) -> None:
        """A small picture of every race's track, drawn on a background job one by one."""
        count = len(choice.tracks)
        if count == 0 or area.height < size * 3:
            return
        per_row = min(count, 4)
        gap = size // 2
        w = (area.width - gap * (per_row - 1)) // per_row
        h = int(w * 0.62)
        rows = max(1, min((count + per_row - 1) // per_row, (area.height + gap) // (h + gap)))
        text = self.pictures.text
        for k, track in enumerate(choice.tracks[:rows * per_row]):
            rect = pygame.Rect(area.left + (k % per_row) * (w + gap), area.top + (k // per_row) * (h + gap), w, h)
            image = self.pictures.get((choice.refs[k], rect.size), lambda t=track, r=rect.size: track_picture(
                t, r, text))
            if image is None:
                draw_panel(surface, rect, self.ctx)
                self.ctx.text.blit(surface, spinner(self.clock), size, theme.HUD_DIM, rect.center, "center")
            else:
                surface.blit(image, rect)
                pygame.draw.rect(surface, theme.GRAPHITE_LIGHT, rect, 1)
            self.ctx.text.blit(surface, str(k + 1), self.ctx.font(16), theme.GRAPHITE, (rect.left + 4, rect.top + 2),
                               bold=True)

    def draw(self, surface: pygame.Surface) -> None:
        ctx = self.ctx
        top = self.backdrop.draw(surface, ctx, "Grand Prix cup", f"{len(self.lineup)} car"
                                 f"{'s' if len(self.lineup) != 1 else ''} keep their seats through every race")
        w, h = surface.get_size()
        size = ctx.font(20)
        left = pygame.Rect(size * 3 + 8, top, int(w * 0.44), h - top - size * 3)
        draw_panel(surface, left, ctx)
        self.menu.draw(surface, ctx, left.inflate(-size, -size // 2), label_w=0.34)
        right = pygame.Rect(left.right + size, top, w - left.right - size * 2, left.height)
        draw_panel(surface, right, ctx)
        x, y = right.left + size, right.top + size // 2
        choice = self.choice
        if choice is None:
            if self.catalogue is not None:
                done, total = self.catalogue.progress
                what = f"{done} of {total} files" if total else "looking"
            else:
                what = f"{self.loading.seconds:.0f} s" if self.loading is not None else "..."
            ctx.text.blit(surface, f"{spinner(self.clock)}  reading the packs ({what})", ctx.font(20),
                          theme.HUD_TEXT, (x, y))
        elif not choice.ok:
            ctx.text.blit(surface, "This cup cannot be raced:", ctx.font(22), theme.DOOM, (x, y), bold=True)
            y += size * 1.8

            small = ctx.font(15)
            for problem in choice.problems:
                for line in wrap_words(problem, max(20, int(right.width / (small * 0.5))), indent="    "):
                    if y > right.bottom - small * 2:
                        break
                    ctx.text.blit(surface, line, small, theme.HUD_TEXT, (x, y))
                    y += small * 1.3
        else:
            ctx.text.blit(surface, choice.name, ctx.font(26), theme.INK, (x, y), bold=True,
                          width=right.width - 2 * size)
            y += size * 1.7

            def say(words: str, height: int, color, at: tuple[float, float], room: float, bold: bool = False):
                """A line to ``room`` pixels: smaller (to 70 %), then cut with "..." (large text in a 4:3
                window ran the laps and rules off the screen)."""
                fitted = ctx.text.fit(words, height, room, bold)
                ctx.text.blit(surface, ctx.text.shorten(words, fitted, room, bold), fitted, color,
                              (at[0], at[1] + (height - fitted) // 2), bold=bold)

            desc = getattr(choice.definition, "description", "")
            end = right.right - size // 2
            if desc:
                say(desc, ctx.font(16), theme.HUD_DIM, (x, y), end - x)
                y += size * 1.3
            mine = self.ctx.settings.rules() if self.rules_mode == "mine" else None
            small = ctx.font(18)
            for k, (race, track) in enumerate(zip(choice.definition.races, choice.tracks)):
                if y > right.bottom - small * 2:
                    break
                laps = race.laps or track.default_laps
                rules = mine.name if mine else (race.rules or track.default_rules)
                how = f"{laps} lap{'s' if laps != 1 else ''} · {rules}"
                # the laps and rules at their column, or as far left as they need, the name before them
                how_x = max(x + size * 6, min(x + size * 12, end - ctx.text.size_of(how, small)[0]))
                ctx.text.blit(surface, f"{k + 1}.", small, theme.HUD_DIM, (x, y))
                say(track.name, small, theme.INK, (x + size * 1.6, y), how_x - size // 2 - (x + size * 1.6), bold=True)
                say(how, small, theme.HUD_TEXT, (how_x, y), end - how_x)
                y += small * 1.35
            y += size * 0.5
            say(f"points: {self.table().label}  ·  move timer: {timer_text(self.ctx.settings.move_timer)}",
                ctx.font(16), theme.HUD_DIM, (x, y), end - x)
            y += size * 1.5
            self._draw_thumbnails(surface, pygame.Rect(x, int(y), right.width - 2 * size, right.bottom - int(y)
                                                       - size // 2), choice, size)
        draw_hint(surface, ctx, self.message or self.menu.current.help_text()
                  or "up/down: choose  ·  left/right: change  ·  Start: race!")


# -- a race of the cup --------------------------------------------------------------------
def cup_race(ctx, session: CupSession, index: int | None = None):
    """One race of a cup (the next one to play by default): the menus' race, named for the cup,
    handing over to the standings through :class:`CupRaceEnd`."""
    index = session.cup.next_index if index is None else index
    plan = session.plan(index)
    cup = session.cup
    return start_race(ctx, plan, seed=cup.race_seed(index),
                      title=f"{cup.name} {index + 1}/{len(cup.races)} · {plan.entry.name}",
                      finish=CupRaceEnd(ctx, session, index, plan),
                      restart=lambda: ctx.screens.make("cup-race", ctx, session, index))


@dataclass
class CupRaceEnd:
    """The end of race ``index`` of a cup: its replay kept beside the cup file, the cup file
    written again, the best results kept, then the standings (the screen the race hands over to)."""

    ctx: object
    session: CupSession
    index: int
    plan: RacePlan

    def __call__(self, scene):
        ctx, session, index, plan, ctl = self.ctx, self.session, self.index, self.plan, scene.controller
        for source, car in scene.seats.devices.items():  # a pad that took a car over keeps it for the next race
            session.lineup[car] = replace(session.lineup[car], device=source)
        cup = session.cup
        name = replay_name(index)
        problems = []
        replay = Replay.from_race(plan.entry.ref, plan.laps, plan.rules, ctl.state.seed,
                                  [(s.name, s.kind) for s in plan.lineup], ctl.records,
                                  title=f"{cup.name}, race {index + 1}: {plan.entry.name}",
                                  track_checksum=track_checksum(ctl.state.track))
        try:
            session.folder.mkdir(parents=True, exist_ok=True)
            save_replay(replay, session.folder / name)
        except (ReplayError, OSError) as error:
            problems.append(f"cannot keep the replay: {error}")
            name = ""
        if index == cup.next_index:
            session.cup = cup.with_result(RaceResult.from_state(ctl.state, name))
            problem = session.save()
            if problem:
                problems.append(problem)
        from game.race.report import finishers_in_order

        ctx.best.record_race(plan.entry.ref, plan.laps,
                             [(ctl.state.cars[i].moves, ctl.state.cars[i].name) for i in finishers_in_order(ctl.state)],
                             plan.rules.name)
        saved = ctx.save_best()
        if saved:
            problems.append(saved)
        session.message = "  ·  ".join(problems)
        return ctx.screens.make("cup-standings", ctx, session, ctl)


# -- standings ---------------------------------------------------------------------------
#: The standings' show, in seconds: old order, points counting up, rows sliding to the new order.
COUNT_FROM, COUNT_SECONDS = 0.5, 1.1
SLIDE_FROM, SLIDE_SECONDS = COUNT_FROM + COUNT_SECONDS + 0.2, 0.7
STANDINGS_SECONDS = SLIDE_FROM + SLIDE_SECONDS


class StandingsScene(Scene):
    """The standings after a race: the points gained count up, then the rows slide to the new order."""

    def __init__(self, ctx, session: CupSession, controller=None) -> None:
        super().__init__()
        self.ctx, self.session = ctx, session
        self.states = list(controller.states) if controller is not None else []
        self.records = list(controller.records) if controller is not None else []
        self.seed = controller.seed if controller is not None else 0
        cup = session.cup
        self.races = len(cup.results)
        self.before = cup.standings(self.races - 1) if self.races else cup.standings(0)
        self.after = cup.standings(self.races)
        # Reduce motion: the new points and order stand there at once (no count-up, no sliding rows).
        self.time = STANDINGS_SECONDS if ctx.settings.reduce_motion else 0.0
        self._ticked = -1.0
        self.backdrop = Backdrop()
        self.message = session.message
        items = []
        if cup.finished:
            items.append(Item("The final podium", self.podium))
        else:
            race = cup.races[cup.next_index]
            items.append(Item(f"Next race: {race.name} ({cup.next_index + 1} of {len(cup.races)})", self.next_race))
        if self.records:
            items.append(Item("Watch the replay", self.watch))
        items.append(Item("Main menu (the cup is saved)" if not cup.finished else "Main menu", self.main_menu))
        self.menu = MenuList(items, ctx.audio)

    @property
    def done(self) -> bool:
        return self.time >= STANDINGS_SECONDS

    def shown_points(self, entrant: int) -> float:
        """The points shown for an entrant now (counting up from before the race to after it)."""
        old = next(s.points for s in self.before if s.entrant == entrant)
        new = next(s.points for s in self.after if s.entrant == entrant)
        k = out_cubic(clamp((self.time - COUNT_FROM) / COUNT_SECONDS))
        return old + (new - old) * k

    def row_of(self, entrant: int) -> float:
        """The row an entrant is drawn in now (0 at the top), sliding from the old order to the new."""
        old = next(k for k, s in enumerate(self.before) if s.entrant == entrant)
        new = next(k for k, s in enumerate(self.after) if s.entrant == entrant)
        k = in_out_cubic(clamp((self.time - SLIDE_FROM) / SLIDE_SECONDS))
        return old + (new - old) * k

    # -- buttons --------------------------------------------------------------
    def next_race(self) -> None:
        self.ctx.screens.replace(self.stack, "cup-race", self.ctx, self.session)

    def podium(self) -> None:
        self.ctx.screens.replace(self.stack, "cup-podium", self.ctx, self.session)

    def watch(self) -> None:
        self.ctx.screens.push(self.stack, "replay", self.ctx, self.states, self.records, list(self.session.lineup),
                              seed=self.seed)

    def main_menu(self) -> None:
        self.ctx.screens.pop_to(self.stack, "title")

    def handle(self, action) -> None:
        verb = nav(action)
        if verb in (OK, START) and not self.done:
            self.time = STANDINGS_SECONDS  # the first press ends the show
            return
        if verb == START:
            self.menu.index = 0
            self.menu.verb(OK)
        elif verb == BACK:
            self.menu.index = len(self.menu.items) - 1
        elif not self.menu.verb(verb):
            self.menu.click(action)

    def update(self, dt: float) -> None:
        was = self.shown_points_total()
        self.time += dt
        if int(self.shown_points_total()) != int(was) and self.time - self._ticked > 0.07:
            self._ticked = self.time  # a counter clicking, not a buzz
            self.ctx.audio.play("tick")

    def shown_points_total(self) -> float:
        return sum(self.shown_points(s.entrant) for s in self.after)

    # -- drawing ------------------------------------------------------------------
    def draw(self, surface: pygame.Surface) -> None:
        ctx, cup = self.ctx, self.session.cup
        last = cup.races[self.races - 1].name if self.races else ""
        top = self.backdrop.draw(surface, ctx, "Standings", f"{cup.name}  ·  after race {self.races} of "
                                 f"{len(cup.races)}{': ' + last if last else ''}  ·  points {cup.points.label}")
        w, h = surface.get_size()
        pens = pens_for(self.session.lineup)
        n = len(cup.entrants)
        # The table's text closes up (large text, eight cars) until the menu fits below it, above the help band.
        hint_top = h - ctx.font(17) * 2 - ctx.font(17) // 2
        menu_h = int(ctx.font(24) * 1.2) * len(self.menu.items) + ctx.font(24) // 2
        size = max(10, min(ctx.font(26), int((hint_top - top - menu_h) / (1.55 * (n + 1) + 0.5))))
        small = max(10, size * 18 // 26)
        row_h = int(size * 1.55)
        table = pygame.Rect(size * 2 + 8, top, w - size * 4 - 16, row_h * (n + 1) + size // 2)
        draw_panel(surface, table, ctx)
        left = table.left
        races_x = left + size * 12.5
        step = size * 1.5
        bar_left = races_x + step * len(cup.races) + size * 0.5
        points_x = table.right - size * 0.8
        bar_right = points_x - size * 2.6
        y0 = table.top + size // 3
        ctx.text.blit(surface, "car", small, theme.HUD_DIM, (left + size * 3.3, y0))
        for k in range(len(cup.races)):
            ctx.text.blit(surface, f"R{k + 1}", small, theme.HUD_DIM, (races_x + k * step + size * 0.3, y0), "midtop")
        ctx.text.blit(surface, "points", small, theme.HUD_DIM, (points_x, y0), "topright")
        settled = self.time >= SLIDE_FROM + SLIDE_SECONDS
        most = max([s.points for s in self.after] + [1])
        for standing in self.after:
            i = standing.entrant
            entrant = cup.entrants[i]
            pen = pens[i]
            y = y0 + row_h * (0.75 + self.row_of(i))
            order = self.after if settled else self.before
            position = next(s.position for s in order if s.entrant == i)
            shared = sum(1 for s in order if s.position == position) > 1
            ctx.text.blit(surface, f"{'=' if shared else ''}{position}.", size, theme.HUD_TEXT,
                          (left + size * 0.4, y))
            theme.draw_symbol(surface, pen.symbol, (left + size * 2.6, y + size * 0.55), size * 0.42, pen.color)
            name_size = ctx.text.fit(entrant.name, size, size * 5.1, bold=True)
            ctx.text.blit(surface, entrant.name, name_size, pen.color, (left + size * 3.3, y + (size - name_size) // 2),
                          bold=True)
            kind = "player" if entrant.is_human else f"CPU · {LEVEL_NAMES.get(entrant.driver, entrant.driver)}"
            ctx.text.blit(surface, kind, ctx.text.fit(kind, small, size * 3.6), theme.HUD_DIM,
                          (left + size * 8.6, y + size * 0.25))
            for k, place in enumerate(standing.places):
                text = "-" if place is None else str(place)
                colour = theme.DOOM if place == 1 else theme.HUD_TEXT
                ctx.text.blit(surface, text, size, colour, (races_x + k * step + size * 0.3, y), "midtop",
                              bold=place == 1)
            shown = self.shown_points(i)
            old = shown if settled else next(s.points for s in self.before if s.entrant == i)
            if bar_right - bar_left > size * 2:
                span = bar_right - bar_left
                bar_y, bar_h = int(y + size * 0.2), max(4, int(size * 0.7))
                gained_w = int(span * shown / most)
                old_w = int(span * min(old, shown) / most)
                if gained_w > 0:
                    pygame.draw.rect(surface, pen.light, (int(bar_left), bar_y, gained_w, bar_h))
                if old_w > 0:
                    pygame.draw.rect(surface, pen.color, (int(bar_left), bar_y, old_w, bar_h))
            ctx.text.blit(surface, f"{shown:.0f}", size, theme.INK, (points_x, y), "topright", bold=True)
            if standing.gained and COUNT_FROM <= self.time:
                fade = 1.0 - clamp((self.time - SLIDE_FROM - SLIDE_SECONDS) / 1.5)
                if fade > 0:
                    rise = out_cubic(clamp((self.time - COUNT_FROM) / COUNT_SECONDS)) * size * 0.3
                    colour = tuple(int(c + (p - c) * (1 - fade)) for c, p in zip(pen.color, theme.PAPER))
                    ctx.text.blit(surface, f"+{standing.gained}", small, colour,
                                  (points_x - size * 1.9, y + size * 0.2 - rise), "topright", bold=True)
        menu = pygame.Rect(table.left, table.bottom + size // 2, int(w * 0.55), hint_top - table.bottom - size // 2)
        self.menu.draw(surface, ctx, menu, label_w=0.9)
        draw_hint(surface, ctx, self.message or ("confirm: skip" if not self.done else
                                                 "up/down: choose  ·  confirm: A / Enter  ·  Start: go on"))


# -- the final podium ----------------------------------------------------------------------
class CupPodiumScene(Scene):
    """The cup's final podium (the shared animated podium) and the final table."""

    def __init__(self, ctx, session: CupSession) -> None:
        super().__init__()
        self.ctx, self.session = ctx, session
        cup = session.cup
        self.standings = cup.standings()
        pens = pens_for(session.lineup)
        entries = [PodiumEntry(s.position, s.name, pens[s.entrant], f"{s.points} pts") for s in self.standings
                   if s.position <= 3]
        self.podium = Podium(entries, ctx.text, seed=cup.seed, reduce_motion=ctx.settings.reduce_motion)
        self.backdrop = Backdrop()
        self.played = False
        self.menu = MenuList([Item("Main menu", self.main_menu), Item("Another cup", self.another_cup)], ctx.audio)

    def main_menu(self) -> None:
        self.ctx.screens.pop_to(self.stack, "title")

    def another_cup(self) -> None:
        if any(self.ctx.screens.is_screen(s, "cup-select") for s in self.stack.scenes):
            self.ctx.screens.pop_to(self.stack, "cup-select")
        else:
            self.main_menu()

    def handle(self, action) -> None:
        verb = nav(action)
        if verb in (OK, START) and not self.podium.done:
            self.podium.skip()
        elif verb == BACK:
            self.main_menu()
        elif not self.menu.verb(verb):
            self.menu.click(action)

    def update(self, dt: float) -> None:
        self.podium.update(dt)
        if not self.played and self.podium.landed(1):
            self.played = True
            self.ctx.audio.play("fanfare")

    def draw(self, surface: pygame.Surface) -> None:
        ctx, cup = self.ctx, self.session.cup
        winners = [s.name for s in self.standings if s.position == 1]
        top = self.backdrop.draw(surface, ctx, " and ".join(winners) + (" win!" if len(winners) > 1 else " wins!"),
                                 f"{cup.name}  ·  {len(cup.races)} races  ·  points {cup.points.label}")
        w, h = surface.get_size()
        size = ctx.font(22)
        stage = pygame.Rect(int(w * 0.06), top, int(w * 0.5), h - top - size * 6)
        self.podium.draw(surface, stage)
        table = pygame.Rect(stage.right + size, top, w - stage.right - size * 3, int(size * 1.4 * (len(
            self.standings) + 1.2)))
        draw_panel(surface, table, ctx)
        pens = pens_for(self.session.lineup)
        y = table.top + size // 2
        for s in self.standings:
            pen = pens[s.entrant]
            ctx.text.blit(surface, f"{s.position}.", size, theme.HUD_TEXT, (table.left + size * 0.5, y))
            theme.draw_symbol(surface, pen.symbol, (table.left + size * 2.2, y + size * 0.55), size * 0.4, pen.color)
            # the points at the right, the name in the room left of them: smaller, then cut (a 4:3 window
            # at the largest text ran "Hildegard" into "19 pts · 1 win")
            score = ctx.text.blit(surface, f"{s.points} pts · {s.wins} win{'s' if s.wins != 1 else ''}",
                                  ctx.font(17), theme.HUD_TEXT, (table.right - size * 0.5, y + 2), "topright")
            room = score.left - size * 0.4 - (table.left + size * 3)
            fitted = ctx.text.fit(s.name, size, room, True)
            ctx.text.blit(surface, ctx.text.shorten(s.name, fitted, room, True), fitted, pen.color,
                          (table.left + size * 3, y + (size - fitted) // 2), bold=True)
            y += int(size * 1.4)
        menu = pygame.Rect(stage.left, stage.bottom + size, int(w * 0.4), size * 4)
        self.menu.draw(surface, ctx, menu, label_w=0.9)
        draw_hint(surface, ctx, "confirm: A / Enter  ·  back: main menu")


# -- resuming ---------------------------------------------------------------------------------
def load_cup_tracks(cup: Cup, builtin_dir: Path, catalogue=None) -> tuple[list, list[str], dict[int, str]]:
    """Every race's track (each pack read once, or taken from the game's catalogue), its pack's
    name, and why each track that cannot be loaded now cannot (by race index; its track is None).

    Run it on a job: it may wait for the catalogue.
    """
    from game.race.replay import resolve_track_ref
    from game.tracks import load_pack

    packs: dict[str, object] = {}
    if catalogue is not None and catalogue.wait(120):
        for result, _user in catalogue.results():
            packs[str(result.path)] = result
    tracks, names, missing = [], [], {}
    for k, race in enumerate(cup.races):
        ref = race.track
        if "#" in ref:  # a # or a byte that is not UTF-8 in the file's name is escaped (game.tracks.refs)
            from game.tracks.refs import split_file_ref

            file, track_id = split_file_ref(ref)
            path = Path(file)
        elif ref.count("/") == 1 and not ref.endswith(".toml"):
            pack_id, _, track_id = ref.partition("/")
            path = Path(builtin_dir) / f"{pack_id}.toml"
        else:  # a .map file or anything else a reference may be: the one-track loader
            from game.drivers.generated import load_track  # gen:CODE as well
            from game.core.errors import RacetrackError

            try:
                tracks.append(load_track(resolve_track_ref(ref, None), builtin_dir=builtin_dir))
            except RacetrackError as error:
                tracks.append(None)
                missing[k] = f"cannot load {ref!r}: {error}"
            names.append("")
            continue
        key = str(path)
        if key not in packs:
            packs[key] = load_pack(path)
        result = packs[key]
        track = result.pack.track(track_id) if result.pack is not None else None
        if track is None:
            # The pack's other problems (a cup naming this track, say) are not this track's.
            problems = [p for p in (result.track_problems(track_id) if result.pack is not None else result.errors)
                        if p.is_error]
            missing[k] = ("cannot load the track: " + "; ".join(str(p) for p in problems[:3])
                          if problems else f"the pack {path.name} has no track {track_id!r} now")
        tracks.append(track)
        names.append(result.pack.name if result.pack is not None else "")
    return tracks, names, missing


def fit_saved_cup(cup: Cup, builtin_dir: Path, catalogue=None) -> tuple[CupFit, list[str]]:
    """A saved cup checked against the tracks and drivers as they are now (:func:`game.race.cup.fit_cup`),
    with its kept races' pack names. Run it on a job."""
    tracks, names, missing = load_cup_tracks(cup, builtin_dir, catalogue)
    fit = fit_cup(cup, tracks, missing)
    return fit, [names[k] for k in fit.kept]


class _Unfit:
    """Resume's mode for a saved cup that no longer fits (``fit``) or cannot be read at all (no
    ``fit``): what is wrong, and the ways on.

    *Play the rest with what fits* keeps a copy of the cup file as it was and saves the fitted
    cup; *Put the cup aside* asks first (No is highlighted) and renames the file, keeping it.
    """

    def __init__(self, scene, k: int, problems, fit: CupFit | None = None, names: list[str] | None = None) -> None:
        self.scene, self.k, self.fit, self.names = scene, k, fit, list(names or [])
        self.problems = tuple(problems)
        self.asking = False
        items = ([Item("Play the rest with what fits", self.play,
                       help="the races and drivers that fit now; a copy of the cup file as it was is kept")]
                 if fit is not None and fit.playable else [])
        items += [Item("Put the cup aside", self.ask, risky=True,
                       help="it is no longer offered; its file is kept, renamed (asks first)"),
                  Item("Back", self.back, help="choose another cup")]
        self.menu = MenuList(items, scene.ctx.audio)
        # As the confirm dialog: No first, and the ends stop the highlight (no wrapping from No onto Yes).
        self.confirm = MenuList([Item("No, keep it", self.no), Item("Yes, put it aside", self.yes, risky=True)],
                                scene.ctx.audio, wrap=False)

    def play(self) -> None:
        scene, saved = self.scene, self.scene.saved[self.k]
        try:
            keep_aside(saved.path, ".before-resume", copy=True, once=True)
            save_cup(self.fit.cup, saved.path)
        except (OSError, CupError) as error:
            scene.message = f"cannot save the cup: {error}"
            return
        session = CupSession(self.fit.cup, saved.folder, lineup_of(self.fit.cup), list(self.fit.tracks), self.names)
        scene.unfit = None
        scene.ctx.screens.push(scene.stack, "cup-seats", scene.ctx, session)

    def ask(self) -> None:
        self.asking = True
        self.confirm.index = 0  # No first: putting a cup aside is never one press away

    def no(self) -> None:
        self.asking = False

    def yes(self) -> None:
        self.asking = False
        self.scene.unfit = None
        self.scene._put_aside(self.k)

    def back(self) -> None:
        self.scene.unfit = None

    def handle(self, verb, action) -> None:
        menu = self.confirm if self.asking else self.menu
        if verb == BACK:
            self.no() if self.asking else self.back()
        elif not menu.verb(verb):
            menu.click(action)

    def draw(self, surface, rect: pygame.Rect) -> None:
        ctx = self.scene.ctx
        size = ctx.font(20)
        saved = self.scene.saved[self.k]
        heading = (f"{saved.cup.name} no longer fits the game as it is now:" if saved.cup is not None
                   else f"The cup in {saved.folder.name} cannot be read:")
        ctx.text.blit(surface, heading, size, theme.DOOM, (rect.left + size, rect.top + size // 2), bold=True,
                      width=rect.width - 2 * size)
        small = ctx.font(16)
        y = rect.top + size * 2
        bottom = rect.bottom - size * 5.5
        for problem in self.problems:
            for line in wrap_words(problem, max(20, int((rect.width - 2 * size) / (small * 0.5))), indent="    "):
                if y > bottom:
                    break
                ctx.text.blit(surface, line, small, theme.HUD_TEXT, (rect.left + size, y))
                y += small * 1.3
        menu_rect = pygame.Rect(rect.left + size, rect.bottom - size * 5, rect.width - 2 * size, size * 4.5)
        if self.asking:
            ctx.text.blit(surface, "Put this cup aside? Its file is kept, renamed.", small, theme.INK,
                          (menu_rect.left, menu_rect.top - small * 1.4))
            self.confirm.draw(surface, ctx, menu_rect, label_w=0.9)
        else:
            self.menu.draw(surface, ctx, menu_rect, label_w=0.9)


class ResumeCupScene(Scene):
    """The cups in progress, newest first: resume one (or put it aside).

    A cup file that cannot be read says why and can be put aside. A cup that no longer fits (a driver this version does not know, a pack edited since: fewer
    start places, a track gone) says what changed and offers a way on (:class:`_Unfit`).
    """

    def __init__(self, ctx, saved: list | None = None) -> None:
        super().__init__()
        self.ctx = ctx
        self.saved = list(saved) if saved is not None else cups_to_resume(ctx.cups_dir)
        self.backdrop = Backdrop()
        self.clock = 0.0
        self.message = ""
        self.action: dict[int, str] = {}
        self.loading: Job | None = None
        self.unfit: _Unfit | None = None
        self.menu = MenuList([self._item(k, s) for k, s in enumerate(self.saved)] or
                             [Item("No cup in progress", self.back)], ctx.audio)

    def _item(self, k: int, saved) -> Item:
        cup = saved.cup
        if cup is None:  # a cup file that cannot be read: why, and putting it aside
            return Item(f"{saved.folder.name}: cannot be read", lambda k=k: self._unreadable(k),
                        help=lambda: saved.problem)
        label = f"{cup.name}: race {cup.next_index + 1} of {len(cup.races)}"

        def change(step: int, k=k) -> None:
            self.action[k] = "put aside" if self.action.get(k, "resume") == "resume" else "resume"

        return Item(label, lambda k=k: self.choose(k), value=lambda k=k: self.action.get(k, "resume"),
                    change=change, help=lambda: ", ".join(e.name for e in cup.entrants))

    def back(self) -> None:
        self.ctx.audio.play("back")
        self.stack.pop()

    def _unreadable(self, k: int) -> None:
        self.unfit = _Unfit(self, k, (self.saved[k].problem,))

    def choose(self, k: int) -> None:
        if self.loading is not None:
            return
        saved = self.saved[k]
        if self.action.get(k, "resume") == "put aside":
            self.ctx.screens.push(self.stack, "confirm", self.ctx, f"Put {saved.cup.name} aside?",
                                  lambda: self._put_aside(k), yes="Yes, put it aside",
                                  detail="it is no longer offered (its file is kept, renamed)")
            return
        cup = saved.cup
        builtin, catalogue = self.ctx.builtin_dir, getattr(self.ctx, "catalogue", None)
        self.loading = Job(lambda: (k, fit_saved_cup(cup, builtin, catalogue)), name="cup-tracks")

    def _put_aside(self, k: int) -> None:
        """The cup is no longer offered; its file and replays stay (renamed, never deleted)."""
        path = self.saved[k].path
        try:
            path.rename(path.with_name(path.name + ".put-aside"))
        except OSError as error:
            self.message = f"cannot put the cup aside: {error}"
            return
        self.ctx.screens.replace(self.stack, "cup-resume", self.ctx)

    def handle(self, action) -> None:
        verb = nav(action)
        if self.unfit is not None:
            self.unfit.handle(verb, action)
        elif verb == BACK:
            self.back()
        elif not self.menu.verb(verb):
            self.menu.click(action)

    def update(self, dt: float) -> None:
        self.clock += dt
        job = self.loading
        if job is not None and job.done:
            self.loading = None
            if job.error is not None:
                self.message = f"cannot resume the cup: {job.error}"
                return
            k, (fit, names) = job.result
            if fit.problems:
                self.unfit = _Unfit(self, k, fit.problems, fit, names)
                return
            saved = self.saved[k]
            session = CupSession(saved.cup, saved.folder, lineup_of(saved.cup), list(fit.tracks), names)
            self.ctx.screens.push(self.stack, "cup-seats", self.ctx, session)

    def draw(self, surface: pygame.Surface) -> None:
        ctx = self.ctx
        top = self.backdrop.draw(surface, ctx, "Resume a cup", "every cup is saved after each race")
        w, h = surface.get_size()
        size = ctx.font(22)
        rect = pygame.Rect(size * 3 + 8, top, w - size * 6 - 16, h - top - size * 3)
        draw_panel(surface, rect, ctx)
        if self.unfit is not None:
            self.unfit.draw(surface, rect)
            hint = self.message or "up/down: choose  ·  confirm: A / Enter  ·  back: the list of cups"
            draw_hint(surface, ctx, hint)
            return
        self.menu.draw(surface, ctx, rect.inflate(-size, -size // 2), label_w=0.7)
        hint = self.message
        if self.loading is not None:
            hint = f"{spinner(self.clock)}  loading the tracks ({self.loading.seconds:.0f} s)"
        draw_hint(surface, ctx, hint or "confirm: resume  ·  left/right: resume or put aside  ·  back: title")


class CupSeatsScene(Scene):
    """Players take their seats again: each press of A (or Enter, or K) on a free device takes the next seat."""

    def __init__(self, ctx, session: CupSession) -> None:
        super().__init__()
        self.ctx, self.session = ctx, session
        self.backdrop = Backdrop()
        self.devices: dict[int, str] = {}
        self.pad_numbers: dict[str, int] = {}
        self.message = ""

    @property
    def humans(self) -> list[int]:
        return [i for i, s in enumerate(self.session.lineup) if s.is_human]

    @property
    def complete(self) -> bool:
        return all(i in self.devices for i in self.humans)

    def handle(self, action) -> None:
        source = getattr(action, "source", "")
        device = device_of(source)
        if isinstance(action, DeviceRemoved):
            for i, d in list(self.devices.items()):
                if d == device:
                    del self.devices[i]
            return
        verb = nav(action)
        seated = next((i for i, d in self.devices.items() if d == device), None)
        if verb in (OK, START):
            if seated is None and not self.complete:
                free = next(i for i in self.humans if i not in self.devices)
                self.devices[free] = device
                if device.startswith("pad:") and device not in self.pad_numbers:
                    self.pad_numbers[device] = len(self.pad_numbers) + 1
                self.ctx.audio.play("join")
            elif self.complete:
                self.go()
        elif verb == BACK:
            if seated is not None:
                del self.devices[seated]
                self.ctx.audio.play("back")
            elif not self.devices:
                self.ctx.audio.play("back")
                self.stack.pop()

    def go(self) -> None:
        session = self.session
        session.lineup = [replace(s, device=self.devices.get(i)) for i, s in enumerate(session.lineup)]
        self.ctx.audio.play("confirm")
        self.ctx.screens.pop_to(self.stack, "title")
        self.ctx.screens.push(self.stack, "cup-race", self.ctx, session)

    def draw(self, surface: pygame.Surface) -> None:
        ctx, cup = self.ctx, self.session.cup
        top = self.backdrop.draw(surface, ctx, "Take your seats", f"{cup.name}  ·  race {cup.next_index + 1} of "
                                 f"{len(cup.races)} next")
        w, h = surface.get_size()
        size = ctx.font(22)
        rect = pygame.Rect(size * 3 + 8, top, w - size * 6 - 16, int(size * 1.7 * (len(cup.entrants) + 1)))
        draw_panel(surface, rect, ctx)
        pens = pens_for(self.session.lineup)
        y = rect.top + size // 2
        for i, spec in enumerate(self.session.lineup):
            pen = pens[i]
            theme.draw_symbol(surface, pen.symbol, (rect.left + size * 1.2, y + size * 0.55), size * 0.5, pen.color)
            column = rect.left + size * 11  # where each seat's state is said
            room = column - size * 0.5 - (rect.left + size * 2.4)
            fitted = ctx.text.fit(spec.name, size, room, True)
            ctx.text.blit(surface, ctx.text.shorten(spec.name, fitted, room, True), fitted, pen.color,
                          (rect.left + size * 2.4, y + (size - fitted) // 2), bold=True)
            if not spec.is_human:
                what, colour = f"CPU · {LEVEL_NAMES.get(spec.kind, spec.kind)}", theme.HUD_DIM
            elif i in self.devices:
                what, colour = f"seated: {device_label(self.devices[i], self.pad_numbers)}", theme.CHECKPOINT
            else:
                what, colour = "press A on your gamepad (or Enter / K)", theme.DOOM
            # smaller, then cut, to the card (a 5:4 window at the largest text ran it past the card's edge)
            room = rect.right - size * 0.5 - column
            fitted = ctx.text.fit(what, ctx.font(18), room)
            ctx.text.blit(surface, ctx.text.shorten(what, fitted, room), fitted, colour,
                          (column, y + 2 + (ctx.font(18) - fitted) // 2))
            y += int(size * 1.7)
        draw_hint(surface, ctx, "everyone seated: A / Start to race  ·  back: give up your seat"
                  if self.complete else "each player presses A (or Enter / K) to take the next free seat")
