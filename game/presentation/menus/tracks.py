"""Track select: every built-in track and every pack in the user's pack folder, with a preview.

The preview is drawn with the race screen's own board renderer. Beside it: the size,
the laps (left/right changes them), the par (worked out in the background when the
pack does not give it) and the best result kept for the track. A pack with problems
does not vanish: its broken tracks are listed, and choosing one shows each problem
with its file, line, track and key.
"""

from __future__ import annotations

from pathlib import Path

import pygame

from game.presentation import theme
from game.presentation.board import Board
from game.presentation.camera import Camera
from game.presentation.menus.common import (BACK, DOWN, LEFT, OK, RIGHT, START, UP, Backdrop, draw_hint, draw_panel,
                                            nav, wrap_words)
from game.presentation.menus.par import WORKING
from game.presentation.menus.race import TrackEntry
from game.presentation.scene import Scene

MAX_LAPS = 9


def load_entries(builtin_dir: Path, packs_dir: Path | None) -> list[TrackEntry]:
    """Every track the game offers, built-in first; broken tracks and packs as entries with problems."""
    from game.tracks import load_packs

    entries: list[TrackEntry] = []
    sources = [(Path(builtin_dir), False)] + ([(Path(packs_dir), True)] if packs_dir is not None else [])
    for folder, user in sources:
        results = load_packs([folder])
        if not user:
            results.sort(key=lambda r: (r.pack is None or r.pack.id != "starter", str(r.path)))
        for result in results:
            pack_name = result.pack.name if result.pack else result.path.name
            for track in result.tracks:
                if user:
                    ref = f"{result.path}#{track.id}" if result.path.suffix == ".toml" else str(result.path)
                else:
                    ref = f"{result.pack.id}/{track.id}"
                warnings = tuple(str(p) for p in result.track_problems(track.id) if not p.is_error)
                entries.append(TrackEntry(ref, track, pack_name, warnings, user))
            good = {t.id for t in result.tracks}
            broken: dict[str | None, list[str]] = {}
            for problem in result.errors:
                if problem.track not in good and problem.cup is None:  # a broken cup is shown with the cups
                    broken.setdefault(problem.track, []).append(str(problem))
            for track_id, problems in broken.items():
                ref = f"{result.path}#{track_id}" if track_id else str(result.path)
                entries.append(TrackEntry(ref, None, pack_name, tuple(problems), user))
    return entries


class TrackSelectScene(Scene):
    """Pick a track for the line-up; Confirm goes on to the rules."""

    def __init__(self, ctx, lineup, entries: list[TrackEntry] | None = None) -> None:
        super().__init__()
        self.ctx = ctx
        self.lineup = list(lineup)
        self.entries = entries if entries is not None else load_entries(ctx.builtin_dir, ctx.packs_dir)
        self.index = 0
        self.laps: dict[str, int] = {}
        self.backdrop = Backdrop()
        self.message = ""
        self._previews: dict[tuple, pygame.Surface] = {}

    @property
    def entry(self) -> TrackEntry | None:
        return self.entries[self.index] if self.entries else None

    def laps_of(self, entry: TrackEntry) -> int:
        default = entry.track.default_laps if entry.track is not None else 1
        return self.laps.get(entry.ref, default)

    def handle(self, action) -> None:
        verb = nav(action)
        entry = self.entry
        if verb in (UP, DOWN) and self.entries:
            self.index = (self.index + (1 if verb == DOWN else -1)) % len(self.entries)
            self.message = ""
            self.ctx.audio.play("tick")
        elif verb in (LEFT, RIGHT) and entry is not None and entry.track is not None:
            laps = self.laps_of(entry) + (1 if verb == RIGHT else -1)
            self.laps[entry.ref] = max(1, min(MAX_LAPS, laps))
            self.ctx.audio.play("tick")
        elif verb in (OK, START) and entry is not None:
            self.choose(entry)
        elif verb == BACK:
            self.ctx.audio.play("back")
            self.stack.pop()

    def choose(self, entry: TrackEntry) -> None:
        if entry.track is None:
            self.message = "This track has problems (listed on the right) and cannot be raced."
            return
        slots = len(entry.track.start_slots)
        if slots < len(self.lineup):
            self.message = f"{entry.name} has {slots} start places: too few for {len(self.lineup)} cars."
            return
        from game.presentation.menus.rules_menu import RulesScene

        self.ctx.audio.play("confirm")
        self.stack.push(RulesScene(self.ctx, lineup=self.lineup, entry=entry, laps=self.laps_of(entry)))

    # -- drawing --------------------------------------------------------------
    def preview(self, entry: TrackEntry, size: tuple[int, int]) -> pygame.Surface:
        """The track drawn on graph paper by the race screen's board renderer (cached)."""
        key = (entry.ref, size)
        found = self._previews.get(key)
        if found is None:
            track = entry.track
            board = Board(track, theme.pens(1), self.ctx.text, seed=3)
            camera = Camera(size)
            camera.drift_amount = 0.0
            bounds = (-1.0, -1.0, track.width, track.height)
            camera.scale = camera.target_scale = camera.fit_scale(bounds, margin_px=8)
            camera.center = camera.target_center = ((track.width - 1) / 2, (track.height - 1) / 2)
            found = pygame.Surface(size)
            found.fill(theme.OFFROAD)
            board.blit_layer(found, camera)
            for k, slot in enumerate(track.start_slots[:len(self.lineup)]):
                spec = self.lineup[k]
                theme.draw_symbol(found, theme.SYMBOLS[spec.symbol], camera.to_screen((slot.x, slot.y)),
                                  max(3.0, camera.scale * 0.45), theme.COLORS[spec.color])
            if len(self._previews) > 24:
                self._previews.clear()
            self._previews[key] = found
        return found

    def draw(self, surface: pygame.Surface) -> None:
        ctx = self.ctx
        top = self.backdrop.draw(surface, ctx, "Pick a track", f"{len(self.lineup)} car"
                                 f"{'s' if len(self.lineup) != 1 else ''} on the grid")
        w, h = surface.get_size()
        size = ctx.font(20)
        row_h = int(size * 1.45)
        left = pygame.Rect(size * 3 + 8, top, int(w * 0.3), h - top - size * 3)
        draw_panel(surface, left, ctx)
        visible = max(1, left.height // row_h - 1)
        first = max(0, min(self.index - visible // 2, len(self.entries) - visible))
        y = left.top + size // 2
        pack = None
        for k in range(first, min(len(self.entries), first + visible)):
            entry = self.entries[k]
            if entry.pack != pack:
                pack = entry.pack
                ctx.text.blit(surface, pack + (" (your packs)" if entry.user else ""), ctx.font(14), theme.HUD_DIM,
                              (left.left + size * 0.5, y))
                y += int(size * 0.9)
                if y > left.bottom - row_h:
                    break
            on = k == self.index
            color = theme.DOOM if entry.track is None else theme.INK
            label = entry.name if entry.track is not None else f"broken: {entry.ref.rpartition('#')[2] or entry.ref}"
            if on:
                surface.blit(ctx.text.panel((left.width - 4, row_h), (*theme.pens(1)[0].light, 110)),
                             (left.left + 2, y - 2))
            ctx.text.blit(surface, label, size, color, (left.left + size, y), bold=on)
            y += row_h
            if y > left.bottom - row_h:
                break
        right = pygame.Rect(left.right + size, top, w - left.right - size * 2, h - top - size * 3)
        draw_panel(surface, right, ctx)
        entry = self.entry
        if entry is None:
            ctx.text.blit(surface, "No tracks found.", size, theme.DOOM, right.center, "center")
        elif entry.track is None:
            self._draw_problems(surface, right, entry, size)
        else:
            self._draw_details(surface, right, entry, size)
        draw_hint(surface, ctx, self.message or "up/down: track  ·  left/right: laps  ·  confirm: rules  ·  "
                  "back: line-up")

    def _draw_details(self, surface, right: pygame.Rect, entry: TrackEntry, size: int) -> None:
        ctx = self.ctx
        track = entry.track
        ctx.text.blit(surface, track.name, ctx.font(28), theme.INK, (right.left + size, right.top + size // 2),
                      bold=True)
        desc = str(track.meta.get("description") or "")
        if desc:
            ctx.text.blit(surface, desc, ctx.font(16), theme.HUD_DIM, (right.left + size, right.top + size * 2.1))
        info_h = size * 4
        pic = pygame.Rect(right.left + size, right.top + size * 3.3, right.width - 2 * size,
                          right.height - size * 3.3 - info_h)
        if pic.width > 20 and pic.height > 20:
            surface.blit(self.preview(entry, pic.size), pic)
            pygame.draw.rect(surface, theme.GRAPHITE_LIGHT, pic, 1)
        laps = self.laps_of(entry)
        rules = self.ctx.settings.rules()
        par = self.ctx.pars.par(track, _track_rules(track), laps)
        par_text = "working it out..." if par == WORKING else (str(par) if par else "-")
        best = self.ctx.best.get(entry.ref, laps)
        best_text = f"{best.moves} moves by {best.name}" if best else "none yet"
        y = pic.bottom + size * 0.5
        lines = [(f"size {track.width} x {track.height} squares  ·  {len(track.start_slots)} start places  ·  "
                  f"laps  < {laps} >", theme.INK),
                 (f"par ({track.default_rules} rules): {par_text}   ·   best: {best_text}", theme.INK),
                 (f"your rules: {rules.name}" + (" (changed)" if rules.overrides() else ""), theme.HUD_DIM)]
        for text, color in lines:
            ctx.text.blit(surface, text, ctx.font(17), color, (right.left + size, y))
            y += size * 1.2

    def _draw_problems(self, surface, right: pygame.Rect, entry: TrackEntry, size: int) -> None:
        ctx = self.ctx
        ctx.text.blit(surface, "This track cannot be raced:", ctx.font(24), theme.DOOM,
                      (right.left + size, right.top + size // 2), bold=True)
        y = right.top + size * 2.2
        small = ctx.font(15)
        for problem in entry.problems:
            for line in wrap_words(problem, max(20, int(right.width / (small * 0.5))), indent="    "):
                if y > right.bottom - small * 2:
                    return
                ctx.text.blit(surface, line, small, theme.HUD_TEXT, (right.left + size, y))
                y += small * 1.3
            y += small * 0.4


def _track_rules(track):
    from game.core.rules import preset

    return preset(track.default_rules)
