"""Saved replays: every replay file in ``<config>/replays``, newest first; choose one to watch it.

The results screen saves races there, and players may drop other replay files in the
same folder (an imported Karopapier game, a friend's race). Each file is read when the
list opens; one that cannot be read, whose track cannot be found, or whose moves the
rules refuse is listed with the reason (file, key and line where the loader knows them)
and is not opened. Nothing here can end the game.
"""

from __future__ import annotations

import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pygame

from game.core.errors import RacetrackError
from game.presentation import theme
from game.presentation.menus.common import BACK, Backdrop, Item, MenuList, draw_hint, draw_panel, nav, wrap_words
from game.presentation.replay_scene import ReplayViewerScene
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
    return out


def _is_pack(path: Path) -> bool:
    """A level pack: a TOML file with a ``[pack]`` table or ``[[track]]`` entries (see docs/level-packs.md)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False  # not readable as TOML: listed, with the loader's own message
    return "pack" in data or isinstance(data.get("track"), list)  # a replay's ``track`` is one reference


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())


class ReplaysScene(Scene):
    """The list of saved replays; confirm opens the replay viewer, back returns to the title."""

    def __init__(self, ctx) -> None:
        super().__init__()
        self.ctx = ctx
        self.backdrop = Backdrop()
        self.message = ""
        self.files = scan_replays(ctx.replays_dir)
        items = [Item(f.label, lambda f=f: self.watch(f), value=lambda f=f: self._when(f), help=f.summary)
                 for f in self.files]
        items.append(Item("Back", self.back, help=f"replays are kept in {ctx.replays_dir}"))
        self.menu = MenuList(items, ctx.audio)

    @staticmethod
    def _when(f: ReplayFile) -> str:
        if f.replay is None:
            return "cannot be read"
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(_mtime(f.path)))

    def watch(self, f: ReplayFile) -> None:
        """Referee the file again and open the viewer; a problem is shown and the list stays."""
        if f.replay is None:
            self.message = f.problem
            return
        try:
            track = load_replay_track(f.replay, self.ctx.builtin_dir)
            result = referee(f.replay, track)
        except RacetrackError as error:
            f.problem = self.message = _one_line(error)
            return
        viewer = ReplayViewerScene(result.states, result.records, [car.name for car in f.replay.cars],
                                   self.ctx.size, self.ctx.text, seed=f.replay.seed)
        viewer.speed = self.ctx.settings.replay_speed
        self.message = ""
        self.stack.push(viewer)

    def back(self) -> None:
        self.stack.pop()

    def handle(self, action) -> None:
        verb = nav(action)
        if verb == BACK:
            self.back()
        elif not self.menu.verb(verb):
            self.menu.click(action)

    def draw(self, surface: pygame.Surface) -> None:
        ctx = self.ctx
        count = len(self.files)
        subtitle = f"{count} saved race{'s' if count != 1 else ''}" if count else "no saved races yet: " \
            "save one from the results screen"
        top = self.backdrop.draw(surface, ctx, "Replays", subtitle)
        w, h = surface.get_size()
        size = ctx.font(20)
        box = pygame.Rect(0, top, min(w - size * 8, size * 44), h - top - size * 3)
        box.centerx = w // 2
        draw_panel(surface, box, ctx)
        inner = box.inflate(-size, -size)
        if self.message:  # why the chosen file did not open, wrapped at the bottom of the card
            small = ctx.font(15)
            lines = wrap_words(self.message, max(30, int(inner.width / (small * 0.52))), indent="    ")[:6]
            y = inner.bottom - len(lines) * small * 1.25
            inner.height = max(size * 2, int(y - inner.top - size * 0.5))
            for line in lines:
                ctx.text.blit(surface, line, small, theme.DOOM, (inner.left, y))
                y += small * 1.25
        self.menu.draw(surface, ctx, inner, label_w=0.66)
        draw_hint(surface, ctx, self.menu.current.help_text() or "up/down: choose  ·  confirm: watch  ·  back: title")
