"""Saved replays: every replay file in ``<config>/replays``, newest first; choose one to watch it.

The results screen saves races there, and players may drop other replay files in the
same folder (an imported Karopapier game, a friend's race). The files are read on a
background thread when the list opens, and a chosen replay is refereed on one too, with
its progress shown (a long race takes seconds): the frame loop never waits on a file.
A file that cannot be read, whose track cannot be found, or whose moves the rules refuse
is listed with the reason (file, key and line where the loader knows them) and is not
opened. Right on a file opens its debrief instead (:class:`ReplayDebriefScene`: the results'
Debrief tab for the race refereed from the file; a file whose track changed since it was
recorded is refused with the checksum message), and from a lost move there the better line
over the replay. Nothing here can end the game.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pygame

from game.core.errors import RacetrackError
from game.files import LIMITS, DataError, parse_toml, read_text
from game.presentation import theme
from game.presentation.menus.common import (BACK, LEFT, RIGHT, Backdrop, Item, MenuList, draw_hint, draw_panel, nav,
                                            wrap_words)
from game.presentation.scene import Scene
from game.race.referee import referee
from game.race.replay import Replay, load_replay, load_replay_track


@dataclass
class ReplayFile:
    """One file of the replays folder: the replay when it loaded, else why not (``problem``)."""

    path: Path
    replay: Replay | None = None
    problem: str = ""

    @property
    def label(self) -> str:
        if self.replay is not None and self.replay.title:
            return self.replay.title
        return self.path.stem

    def summary(self) -> str:
        if self.replay is None:
            return self.problem
        r = self.replay
        laps = f"{r.laps} lap{'s' if r.laps != 1 else ''}"
        return f"{r.track}  ·  {laps}  ·  {r.rules.name} rules  ·  {len(r.cars)} cars  ·  {self.path.name}"


def scan_replays(folder: Path) -> list[ReplayFile]:
    """Every ``*.toml`` replay in ``folder``, newest first, each loaded or with its problem.

    Level packs kept beside replays (a replay may name ``pack.toml#track``) are not
    replays and are left out.
    """
    if not folder.is_dir():
        return []
    paths = sorted(folder.glob("*.toml"), key=lambda p: (-_mtime(p), p.name))
    out = []
    for path in paths:
        try:
            out.append(ReplayFile(path, replay=load_replay(path)))
        except (RacetrackError, OSError) as error:
            if not _is_pack(path):  # only a file that is not a replay is read a second time
                out.append(ReplayFile(path, problem=_one_line(error)))
        except Exception as error:  # noqa: BLE001 - a reader's bug must not hide the other files
            out.append(ReplayFile(path, problem=f"{path}: unexpected error: {error!r}"))
    return out


def _is_pack(path: Path) -> bool:
    """A level pack: a TOML file with a ``[pack]`` table or ``[[track]]`` entries (see docs/level-packs.md)."""
    try:
        data = parse_toml(read_text(path, limit=LIMITS["pack"]))
    except (OSError, DataError):
        return False  # not readable as TOML: listed, with the loader's own message
    return "pack" in data or isinstance(data.get("track"), list)  # a replay's ``track`` is one reference


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())


class Job:
    """One piece of work on a background thread: its result or error, its progress, and a way to stop it.

    ``work(report)`` runs on the thread; it calls ``report(done, total)`` as it goes, and
    that call raises :class:`Cancelled` once :meth:`cancel` was asked. Errors Racetrack
    raises on purpose (and ``OSError``) become ``error`` as one line; anything else too,
    marked as unexpected, so a bug in a file reader still never ends the game.
    """

    def __init__(self, work: Callable[[Callable[[int, int], None]], object], name: str) -> None:
        self.result: object = None
        self.error = ""
        self.done = self.total = 0
        self._cancelled = False
        self._thread = threading.Thread(target=self._run, args=(work,), name=name, daemon=True)
        self._thread.start()

    def _report(self, done: int, total: int) -> None:
        if self._cancelled:
            raise Cancelled()
        self.done, self.total = done, total

    def _run(self, work) -> None:
        try:
            self.result = work(self._report)
        except Cancelled:
            pass
        except (RacetrackError, OSError) as error:
            self.error = _one_line(error)
        except Exception as error:  # noqa: BLE001 - shown, never raised into the frame loop
            self.error = f"unexpected error: {error!r}"

    @property
    def finished(self) -> bool:
        return not self._thread.is_alive()

    def cancel(self) -> None:
        self._cancelled = True

    def wait(self, timeout: float | None = None) -> None:
        """Block until the work ends (tests, and nothing on the frame loop)."""
        self._thread.join(timeout)


class Cancelled(Exception):
    """Raised inside a :class:`Job`'s work when the player gave up waiting."""


class ReplaysScene(Scene):
    """The list of saved replays; confirm opens the replay viewer, back returns to the title."""

    def __init__(self, ctx) -> None:
        super().__init__()
        self.ctx = ctx
        self.backdrop = Backdrop()
        self.message = ""
        self.files: list[ReplayFile] | None = None  # None while the folder is being read
        self.menu = MenuList([Item("Back", self.back, help=f"replays are kept in {ctx.replays_dir}")], ctx.audio)
        self.scanning: Job | None = Job(lambda report: scan_replays(ctx.replays_dir), "replays-scan")
        self.watching: Job | None = None
        self.watched: ReplayFile | None = None
        self.then = "replay"  # where the refereed replay goes: the viewer, or "replay-debrief"

    def _help(self, f: ReplayFile, k: int) -> str:
        """The help line of a file's row: what the file holds, led by its whole title when even two
        lines of the row had to cut it short (it then ends in "...")."""
        whole = f"{f.label}  ·  " if k in self.menu.cut else ""
        return whole + f.summary() + ("  ·  right: debrief" if f.replay is not None else "")

    @property
    def busy(self) -> bool:
        """True while a file list or a referee is still working in the background."""
        return self.scanning is not None or self.watching is not None

    def _listed(self, files: list[ReplayFile]) -> None:
        self.files = files
        items = [Item(f.label, lambda f=f: self.watch(f), value=lambda f=f: self._when(f),
                      brief=lambda f=f: self._when(f, brief=True),
                      help=lambda f=f, k=k: self._help(f, k),
                      change=lambda step, f=f: self.debrief(f) if step > 0 else None, two_lines=True)
                 for k, f in enumerate(files)]
        items.append(Item("Back", self.back, help=f"replays are kept in {self.ctx.replays_dir}"))
        self.menu = MenuList(items, self.ctx.audio)

    @staticmethod
    def _when(f: ReplayFile, brief: bool = False) -> str:
        """When the file was saved; ``brief``: without the year, for a row whose long title needs the room
        (the date was cut to "19:06..." and its "<  >" with it)."""
        if f.replay is None:
            return "unreadable" if brief else "cannot be read"
        return time.strftime("%d %b %H:%M" if brief else "%Y-%m-%d %H:%M", time.localtime(_mtime(f.path)))

    def watch(self, f: ReplayFile) -> None:
        """Referee the file again (on a background thread) and then open the viewer.

        A problem is shown and the list stays; Back while it works gives up waiting.
        """
        self._referee(f, "replay")

    def debrief(self, f: ReplayFile) -> None:
        """Referee the file again (on a background thread) and then open its debrief; a replay
        whose track changed since it was recorded is refused, saying so, before any work."""
        self._referee(f, "replay-debrief")

    def _referee(self, f: ReplayFile, then: str) -> None:
        if f.replay is None:
            self.message = f.problem
            return
        if self.watching is not None:
            return
        replay, builtin_dir = f.replay, self.ctx.builtin_dir

        def work(report):
            track = load_replay_track(replay, builtin_dir)
            if then == "replay-debrief":  # a changed track: refused, saying so, before any work
                from game.race.debrief import same_track

                same_track(replay, track)
            return referee(replay, track, progress=report)

        self.message = ""
        self.watched, self.then = f, then
        self.watching = Job(work, "replay-referee")

    def _watched(self, job: Job) -> None:
        f, self.watched = self.watched, None
        if job.error:
            f.problem = self.message = job.error
            return
        if job.result is None:  # cancelled
            return
        result = job.result
        if self.then == "replay-debrief":
            self.ctx.screens.push(self.stack, "replay-debrief", self.ctx, f, result)
            return
        self.ctx.screens.push(self.stack, "replay", self.ctx, result.states, result.records,
                              [car.name for car in f.replay.cars], seed=f.replay.seed)

    def update(self, dt: float) -> None:
        if self.scanning is not None and self.scanning.finished:
            job, self.scanning = self.scanning, None
            self._listed(job.result if isinstance(job.result, list) else [])
            if job.error:
                self.message = job.error
        if self.watching is not None and self.watching.finished:
            job, self.watching = self.watching, None
            self._watched(job)

    def back(self) -> None:
        for job in (self.scanning, self.watching):
            if job is not None:
                job.cancel()
        self.stack.pop()

    def handle(self, action) -> None:
        verb = nav(action)
        if self.watching is not None:  # refereeing: Back gives up, nothing else is asked
            if verb == BACK:
                self.watching.cancel()
                self.watching, self.watched = None, None
                self.message = "stopped: the replay was not opened"
            return
        if verb == BACK:
            self.back()
        elif not self.menu.verb(verb):
            self.menu.click(action)

    def _status(self) -> str:
        """What the background is doing, for the panel's foot ("" when idle)."""
        if self.scanning is not None:
            return f"reading the replays in {self.ctx.replays_dir} ..."
        job = self.watching
        if job is not None:
            name = self.watched.path.name if self.watched else "the replay"
            if job.total:
                return f"refereeing {name}: phase {job.done} of {job.total}  ·  back: stop"
            return f"loading the track of {name} ...  ·  back: stop"
        return ""

    def draw(self, surface: pygame.Surface) -> None:
        ctx = self.ctx
        count = len(self.files or ())
        if self.files is None:
            subtitle = "reading the saved races ..."
        else:
            subtitle = f"{count} saved race{'s' if count != 1 else ''}" if count else "no saved races yet: " \
                "save one from the results screen"
        top = self.backdrop.draw(surface, ctx, "Replays", subtitle)
        w, h = surface.get_size()
        size = ctx.font(20)
        box = pygame.Rect(0, top, min(w - size * 7, size * 46), h - top - size * 3)  # (clear of the red margin)
        box.centerx = w // 2
        draw_panel(surface, box, ctx)
        inner = box.inflate(-size, -size)
        status = self._status()
        if status:  # a progress line at the foot of the card, with a bar when the total is known
            small = ctx.font(18)
            y = inner.bottom - small * 2.4
            ctx.text.blit(surface, status, small, theme.HUD_TEXT, (inner.left, y))
            job = self.watching
            if job is not None and job.total:
                bar = pygame.Rect(inner.left, y + small * 1.4, inner.width, max(6, small // 2))
                pygame.draw.rect(surface, theme.HUD_TEXT, (bar.left, bar.top, bar.width * job.done // job.total,
                                                           bar.height))
                pygame.draw.rect(surface, theme.GRAPHITE_LIGHT, bar, 1)
            inner.height = max(size * 2, int(y - inner.top - size * 0.5))
        elif self.message:  # why the chosen file did not open, wrapped at the bottom of the card
            small = ctx.font(15)
            lines = wrap_words(self.message, max(30, int(inner.width / (small * 0.52))), indent="    ")[:6]
            y = inner.bottom - len(lines) * small * 1.25
            inner.height = max(size * 2, int(y - inner.top - size * 0.5))
            for line in lines:
                ctx.text.blit(surface, line, small, theme.DOOM, (inner.left, y))
                y += small * 1.25
        self.menu.draw(surface, ctx, inner, label_w=0.66)
        draw_hint(surface, ctx, self.menu.current.help_text() or
                  "up/down: choose  ·  confirm: watch  ·  right: debrief  ·  back: title")


class ReplayDebriefScene(Scene):
    """A saved replay's debrief, opened from the Replays list: the results' Debrief tab
    (:class:`~game.presentation.debrief_view.DebriefTab`, worked out on its worker thread) for
    the race refereed from the file. Up/down picks a lost move, confirm draws its better line
    on the map, right watches it over the replay, back returns to the list."""

    def __init__(self, ctx, file: ReplayFile, result) -> None:
        from game.presentation.debrief_view import DebriefTab

        super().__init__()
        self.ctx, self.file, self.result = ctx, file, result
        self.backdrop = Backdrop()
        replay = file.replay
        self.tab = DebriefTab(result.states, result.records, [c.driver for c in replay.cars],
                              theme.pens(len(replay.cars)), ctx.cpu_shared.waited_table)

    def update(self, dt: float) -> None:
        self.tab.start()  # on its worker thread, never in the frame loop

    def handle(self, action) -> None:
        verb = nav(action)
        if verb in (BACK, LEFT):
            self.ctx.audio.play("back")
            self.stack.pop()
        elif verb == RIGHT:
            self.watch_better_line()
        else:
            self.tab.verb(verb)

    def watch_better_line(self) -> None:
        """The replay from the picked lost move, the Champion's line from there drawn over it."""
        better = self.tab.better_line()
        if better is None:
            return
        replay = self.file.replay
        self.ctx.screens.push(self.stack, "replay", self.ctx, self.result.states, self.result.records,
                              [car.name for car in replay.cars], seed=replay.seed, better=better)

    def _progress(self) -> str:
        """While the debrief is worked out: how far the solver's table is ("" once it is done)."""
        job = self.tab.job
        if job is None or job.done:
            return ""
        building = getattr(getattr(self.ctx.cpu_shared, "solver", None), "building", None)
        if building is None:
            return "  ·  working out the debrief ..."
        return f"  ·  working out the solver's table: {building[1]:.0%} ({building[2]})"

    def draw(self, surface: pygame.Surface) -> None:
        ctx = self.ctx
        top = self.backdrop.draw(surface, ctx, "Debrief", self.file.label + self._progress())
        w, h = surface.get_size()
        size = ctx.font(20)
        self.tab.draw(surface, ctx, pygame.Rect(int(w * 0.04), top, int(w * 0.92), h - top - size * 2.4))
        draw_hint(surface, ctx, "up/down: a lost move  ·  confirm: its better line  ·  right: watch it over the "
                                "replay  ·  back: the list")
