"""The results screen: the podium, every car's moves against par, and what to do next.

Buttons: watch the replay, save it (to ``<config>/replays``), race again (same line-up,
track and rules), pick another track, the debrief (a tab: where every car lost moves,
``game.presentation.debrief_view``), or go back to the main menu. Left/right switch between the
results and the debrief too. Finishers' moves are offered to the best results kept per
track (``game.settings.BestResults``).
"""

from __future__ import annotations

from pathlib import Path

import pygame

from game.core.race import FINISHED
from game.files import read_bytes
from game.presentation import theme
from game.presentation.debrief_view import DebriefTab
from game.presentation.medals import draw_medal
from game.presentation.menus.common import (BACK, LEFT, RIGHT, Backdrop, Item, MenuList, draw_hint, draw_panel, nav,
                                            wrap_to)
from game.presentation.menus.par import WORKING
from game.presentation.menus.race import RacePlan, coached_seats, pens_for
from game.presentation.podium import Podium, podium_entries
from game.presentation.scene import Scene
from game.race.handicap import handicapped_moves, handicapped_ranks, raw_moves
from game.race.replay import CarEntry, ReplayError, Replay, dumps_replay, save_replay, track_checksum
from game.race.report import finishers_in_order
from game.race.trial import medal


def standings(state, ranks=None) -> list[int]:
    """Car indices best first: ranked finishers, then the rest in car order (``ranks``: the race's own
    outcome unless given, as the handicapped places are)."""
    ranks = state.outcome().ranks if ranks is None else ranks
    return sorted(range(len(state.cars)), key=lambda i: (ranks[i] is None, ranks[i] or 0, i))


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def tie_notes(state) -> list[str]:
    """Why cars that finished on the same move are placed as they are, one sentence per group.

    Cars crossing the line in the same phase are split by the finish rule: the choosing
    order (``first``), the distance past the line (``furthest``), or not at all (a draw).
    A group with nobody split is a shared place; the sentence says so too.
    """
    ranks = state.outcome().ranks
    by_phase: dict[int, list[int]] = {}
    for i, car in enumerate(state.cars):
        if car.finish_phase is not None and ranks[i] is not None:
            by_phase.setdefault(car.finish_phase, []).append(i)
    notes = []
    for phase, cars in sorted(by_phase.items()):
        if len(cars) < 2:
            continue
        cars.sort(key=lambda i: (ranks[i], i))
        names = [state.cars[i].name for i in cars]
        moves = state.cars[cars[0]].moves
        if len({ranks[i] for i in cars}) == 1:
            notes.append(f"{_names(names)} crossed the line on the same move ({moves}): under these rules that is "
                         f"a draw, so they share {_ordinal(ranks[cars[0]])} place.")
            continue
        how = ("for choosing earlier in that move's order" if state.rules.finish == "first"
               else "for ending that move further past the line")
        ahead = [state.cars[i].name for i in cars if ranks[i] == ranks[cars[0]]]
        notes.append(f"{_names(names)} crossed the line on the same move ({moves}); {_names(ahead)} "
                     f"{'are' if len(ahead) > 1 else 'is'} placed ahead {how}.")
    return notes


def _moves_note(state, i: int, handicaps, kind: str) -> str:
    """The podium's line under a car: the moves it is ranked by (handicapped, if it had a handicap)."""
    counted = handicapped_moves(state, i, handicaps, kind)
    return f"{counted} moves" if counted is not None else ""


class ResultsScene(Scene):
    """Shown when a race is over; keeps the finished controller's states and records."""

    def __init__(self, ctx, plan: RacePlan, controller) -> None:
        super().__init__()
        self.ctx = ctx
        self.plan = plan
        self.states = list(controller.states)
        self.records = list(controller.records)
        self.seed = controller.seed
        self.kinds = [s.kind for s in controller.seats]
        self.state = self.states[-1]
        self.backdrop = Backdrop()
        self.saved_to = ""
        self.message = ""
        # The race's par once the par worker knows it (it never changes then): asked every frame, for
        # every row's medal, the asking (the rules' options, the pinned pars) cost more than the drawing.
        self._par_known: tuple | None = None
        self._medals: dict[int, str] | None = None
        self.new_best = self._record_best()
        self.ties = tie_notes(self.state)
        self.handicaps = plan.handicaps()
        self.ranks = handicapped_ranks(self.state, self.handicaps, plan.rules.handicap)
        ranks = self.ranks
        self._noted_over_par = False
        self.podium = Podium(podium_entries(ranks, [c.name for c in self.state.cars], pens_for(plan.lineup),
                                            [_moves_note(self.state, i, self.handicaps, plan.rules.handicap)
                                             for i in range(len(self.state.cars))]), ctx.text, seed=self.seed,
                             reduce_motion=ctx.settings.reduce_motion)
        self.debrief = DebriefTab(self.states, self.records, self.kinds, pens_for(plan.lineup),
                                  ctx.cpu_shared.waited_table)
        self.tab = "results"  # or "debrief"
        self.menu = MenuList([
            Item("Watch the replay", self.watch),
            Item("Save the replay", self.save),
            Item("Race again", self.again),
            Item("Another track", self.another_track),
            Item("Debrief: where moves were lost", self.show_debrief),
            Item("Main menu", self.main_menu),
        ], ctx.audio)

    def _raw(self, i: int) -> int:
        """The moves car ``i`` drove (a head start's waiting turns are not driven)."""
        return raw_moves(self.state, i, self.plan.handicaps(), self.plan.rules.handicap)

    def _record_best(self) -> set[int]:
        """The car that set a new track record ("best!"), as a set of at most one car."""
        order = finishers_in_order(self.state)
        holder = self.ctx.best.record_race(self.plan.entry.ref, self.plan.laps,
                                           [(self._raw(i), self.state.cars[i].name) for i in order],
                                           self.plan.rules.name)
        if holder is None:
            return set()
        error = self.ctx.save_best()
        if error:
            self.message = error
        return {order[holder]}

    def replay(self) -> Replay:
        """This race as a replay file's contents."""
        cars = [CarEntry(s.name, kind, assist=s.assist if s.is_human else "", handicap=h)
                for s, kind, h in zip(self.plan.lineup, self.kinds, self.handicaps)]
        return Replay.from_race(self.plan.entry.ref, self.plan.laps, self.plan.rules, self.state.seed, cars,
                                self.records, title=f"{self.plan.entry.name}: "
                                + " vs ".join(s.name for s in self.plan.lineup),
                                track_checksum=track_checksum(self.state.track))

    def _note_over_par(self) -> None:
        """Once the par is known, keep each human finisher's moves over par (the "auto" handicap's history)."""
        par = self._par()
        if self._noted_over_par or not isinstance(par, int) or isinstance(par, bool):
            return
        self._noted_over_par = True
        best = self.ctx.best
        if not hasattr(best, "note_over_par"):
            return
        noted = False
        for i, (seat, car) in enumerate(zip(self.plan.lineup, self.state.cars)):
            raw = raw_moves(self.state, i, self.handicaps, self.plan.rules.handicap)
            if seat.is_human and raw is not None:
                best.note_over_par(seat.name, raw - par)
                noted = True
        if noted:
            self.message = self.ctx.save_best() or self.message

    # -- buttons --------------------------------------------------------------
    def show_debrief(self) -> None:
        self.tab = "debrief"
        self.debrief.start()

    def watch(self) -> None:
        self.ctx.screens.push(self.stack, "replay", self.ctx, self.states, self.records, list(self.plan.lineup),
                              seed=self.seed)

    def watch_better_line(self) -> None:
        """The replay from the debrief's picked lost move, the Champion's line from there drawn over it."""
        better = self.debrief.better_line()
        if better is None:
            return
        self.ctx.screens.push(self.stack, "replay", self.ctx, self.states, self.records, list(self.plan.lineup),
                              seed=self.seed, better=better)

    def save(self) -> None:
        folder = self.ctx.replays_dir
        track_id = self.plan.entry.track.id if self.plan.entry.track is not None else "race"
        replay = self.replay()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = replay_path(folder, f"{track_id}-{self.state.seed}", dumps_replay(replay))
            save_replay(replay, path)
        except (ReplayError, OSError) as error:
            self.message = f"cannot save the replay: {error}"
            return
        self.saved_to = str(path)
        self.message = f"Saved to {path}"

    def again(self) -> None:
        self.ctx.screens.replace(self.stack, "race", self.ctx, self.plan)

    def another_track(self) -> None:
        self.ctx.screens.pop_to(self.stack, "tracks")

    def main_menu(self) -> None:
        self.ctx.screens.pop_to(self.stack, "title")

    def update(self, dt: float) -> None:
        self.podium.update(dt)
        self._note_over_par()
        self.debrief.start()  # on its worker thread from the first frame, so the tab is ready when opened

    def handle(self, action) -> None:
        verb = nav(action)
        if self.tab == "debrief":
            if verb in (BACK, LEFT):
                self.tab = "results"
            elif verb == RIGHT:
                self.watch_better_line()
            else:
                self.debrief.verb(verb)
            return
        if verb == RIGHT:
            self.show_debrief()
        elif verb == BACK:
            self.main_menu()
        elif not self.menu.verb(verb):
            self.menu.click(action)

    def _par(self):
        """The par of this race as the par worker has it (``WORKING`` until it is known), kept once known."""
        if self._par_known is not None:
            return self._par_known[0]
        par = self.ctx.pars.par(self.plan.entry.track, self.plan.rules, self.plan.laps)
        if par != WORKING:
            self._par_known = (par,)
        return par

    def medals(self) -> dict[int, str]:
        """Each human finisher's medal against the par (gold = par, see game.race.trial); none until par is known."""
        if self._medals is not None:
            return self._medals
        par = self._par()
        if not isinstance(par, int):
            return {}
        out = {}
        for i, (car, seat) in enumerate(zip(self.state.cars, self.plan.lineup)):
            raw = raw_moves(self.state, i, self.handicaps, self.plan.rules.handicap)  # the moves driven (head start waits off)
            won = medal(raw, par) if seat.is_human and raw is not None else None
            if won is not None:
                out[i] = won
        self._medals = out  # (the par known: the medals of a finished race stay)
        return out

    # -- drawing --------------------------------------------------------------
    def par_text(self) -> str:
        par = self._par()
        if par == WORKING:
            return "par: working it out..."
        word = "day par" if self.plan.rules.night else "par"  # at night par stays the day's (shown as such)
        return f"{word} {par}" if par else "no par for these rules"

    def draw(self, surface: pygame.Surface) -> None:
        ctx = self.ctx
        heading = "Debrief" if self.tab == "debrief" else "Results"
        top = self.backdrop.draw(surface, ctx, heading, f"{self.plan.entry.name}  ·  {self.plan.rules.name} rules"
                                 f"  ·  {self.plan.laps} lap{'s' if self.plan.laps > 1 else ''}  ·  {self.par_text()}")
        w, h = surface.get_size()
        if self.tab == "debrief":
            size = ctx.font(22)
            self.debrief.draw(surface, ctx, pygame.Rect(int(w * 0.04), top, int(w * 0.92), h - top - size * 2.4))
            draw_hint(surface, ctx, self.message or "up/down: a lost move  ·  confirm: the better line  ·  "
                      "right: over the replay  ·  left / back: the results")
            return
        pens = pens_for(self.plan.lineup)
        order = standings(self.state, self.ranks)
        ranks = self.ranks
        size = ctx.font(22)
        hint_top = h - ctx.font(17) * 2 - ctx.font(17) // 2  # the help band at the foot of the page
        # The podium (animated: the steps rise, the cars drop onto them), as tall as the menu below leaves.
        menu_h = int(ctx.font(24) * 1.2) * len(self.menu.items)
        base = top + max(size * 4, min(size * 9, hint_top - top - size - menu_h))
        self.podium.draw(surface, pygame.Rect(int(w * 0.07), top, int(w * 0.4), base - top))
        # The table: place, pen, name, moves and against par; its text smaller when its 18.6 columns
        # (in font sizes) or its rows would not fit (large text).
        par = self._par()
        table = pygame.Rect(int(w * 0.52), top, int(w * 0.44), 0)
        notes = 2.2 * len(self.ties)  # rows of room below the table for the tie-breaks in words (two lines each)
        size = max(10, min(size, int(table.width / 18.6), int((hint_top - top) / (1.5 * (len(order) + 1.6 + notes)))))
        table.height = int(size * 1.5 * (len(order) + 1.6))
        draw_panel(surface, table, ctx)
        y = table.top + size // 2
        small = max(10, size * 16 // 22)
        for label, x in (("", 0), ("", 1.4), ("car", 2.6), ("moves", 9.5), ("vs par", 13), ("medal", 15.4)):
            ctx.text.blit(surface, label, small, theme.HUD_DIM, (table.left + size * x, y))
        y += int(size * 1.1)
        coached = coached_seats(self.plan)
        for i in order:
            car = self.state.cars[i]
            pen = pens[i]
            place = f"{ranks[i]}." if ranks[i] is not None else "-"
            ctx.text.blit(surface, place, size, theme.HUD_TEXT, (table.left + size * 0.5, y))
            theme.draw_symbol(surface, pen.symbol, (table.left + size * 2.0, y + size * 0.55), size * 0.42, pen.color)
            name_size = ctx.text.fit(car.name, size, size * 6.7, bold=True)
            named = ctx.text.blit(surface, car.name, name_size, pen.color,
                                  (table.left + size * 2.6, y + (size - name_size) // 2), bold=True)
            if i in coached:  # the assist the player raced with, so an assisted result is told apart
                room = int(table.left + size * 9.3 - named.right)
                if room > small:
                    ctx.text.blit(surface, "coached", ctx.text.fit("coached", small, room), theme.HUD_DIM,
                                  (named.right + size // 5, y + size * 0.3))
            if car.status == FINISHED:
                raw = raw_moves(self.state, i, self.handicaps, self.plan.rules.handicap)
                counted = raw - self.handicaps[i]
                moves = ctx.text.blit(surface, str(counted), size, theme.HUD_TEXT, (table.left + size * 9.5, y))
                if self.handicaps[i]:  # both figures: the moves driven, and the handicap taken off them
                    raw_note = f"{raw}−{self.handicaps[i]}"
                    moves = ctx.text.blit(surface, raw_note, ctx.text.fit(raw_note, small, size * 2.2), theme.HUD_DIM,
                                          (moves.right + size // 5, y + size * 0.3))
                if isinstance(par, int):
                    diff = counted - par
                    ctx.text.blit(surface, "par" if diff == 0 else f"{diff:+d}", size,
                                  theme.CHECKPOINT if diff <= 0 else theme.HUD_TEXT, (table.left + size * 13, y))
                    won = self.medals().get(i)
                    if won is not None:
                        draw_medal(surface, ctx.text, won, (table.left + size * 15.9, y + size * 0.55), size * 0.6,
                                   ribbon=False)
                        ctx.text.blit(surface, won, small, theme.HUD_TEXT, (table.left + size * 16.8, y + size * 0.1))
                if i in self.new_best:  # beside the moves it is about (the medal's name fills the right edge)
                    room = table.left + size * 12.8 - (moves.right + size // 4)
                    ctx.text.blit(surface, "best!", ctx.text.fit("best!", small, room, bold=True), theme.DOOM,
                                  (moves.right + size // 4, y + 2), bold=True)
            else:
                ctx.text.blit(surface, car.status, small, theme.DOOM, (table.left + size * 9.5, y + 2))
            y += int(size * 1.5)
        if self.ties:  # a tie-break in words, under the table it explains, in the room kept for it
            y = table.bottom + small // 2
            for note in self.ties:
                for line in wrap_to(ctx.text, note, small, table.width):
                    ctx.text.blit(surface, line, small, theme.HUD_TEXT, (table.left, y), width=table.width)
                    y += int(small * 1.3)
        self.menu.draw(surface, ctx, pygame.Rect(int(w * 0.08), base + ctx.font(22), int(w * 0.38),
                                                  max(menu_h, hint_top - base - ctx.font(22))))
        draw_hint(surface, ctx, self.message or "up/down: choose  ·  confirm: A / Enter / Space  ·  right: debrief  ·  "
                  "back: main menu")


def replay_path(folder: Path, stem: str, text: str) -> Path:
    """Where a new replay goes: ``stem.toml``, or ``stem-2.toml``, ... so no saved race is ever replaced.

    A file that already holds exactly this replay (saved twice) is its place.
    """
    for number in range(1, 10_000):
        path = folder / (f"{stem}.toml" if number == 1 else f"{stem}-{number}.toml")
        if not path.exists():
            return path
        data = text.encode("utf-8")
        try:
            if path.is_file() and path.stat().st_size == len(data) and read_bytes(path, limit=len(data)) == data:
                return path
        except OSError:
            continue
    raise OSError(f"no free file name for {stem} in {folder}")
