"""Track select: every built-in track and every pack in the user's pack folder, with a preview.

The list comes from the game's :class:`~game.tracks.catalogue.PackCatalogue` (read in the
background at start-up, looked at again on entering: only changed pack files are read),
so entering never waits; until the first reading is done the screen says so and takes
no confirm. The preview is drawn with the race screen's own board renderer, lazily: the
board is made on a worker thread and its paper drawn in a frame of its own
(:class:`~game.presentation.menus.previews.PreviewPainter`, kept for the whole game).
Beside it: the size, the laps
(left/right changes them), the par (worked out in the background when the pack does not
give it) and the best result kept for the track. A pack with problems does not vanish:
its broken tracks are listed, and choosing one shows each problem with its file, line,
track and key.

The mouse: the pointer highlights the track under it, a click picks it, a click on the
laps' ``<`` / ``>`` changes them and the wheel scrolls the list (which then stands still
under the pointer until the arrows move the highlight again).
"""

from __future__ import annotations

from pathlib import Path

import pygame

from game.presentation import theme
from game.presentation.input import ClickAt, Confirm, MoveCursor, PointAt, Scroll
from game.presentation.menus.common import (BACK, DOWN, LEFT, OK, RIGHT, START, UP, Backdrop, draw_badge, draw_hint,
                                            draw_panel, nav, wrap_words)
from game.presentation.menus.par import WORKING
from game.presentation.menus.previews import PREVIEW_PIXELS, PreviewPainter, _paint  # noqa: F401 (tools, tests)
from game.presentation.menus.race import TrackEntry
from game.presentation.scene import Scene
from game.tracks.catalogue import entries_of

MAX_LAPS = 9


def load_entries(builtin_dir: Path, packs_dir: Path | None) -> list[TrackEntry]:
    """Every track the game offers, read now (tools and tests; the game reads its catalogue)."""
    from game.tracks import load_packs
    from game.tracks.catalogue import _builtin_order

    builtin = sorted(load_packs([Path(builtin_dir)]), key=_builtin_order)
    user = load_packs([Path(packs_dir)]) if packs_dir is not None else []
    return [e for r in builtin for e in entries_of(r, False)] + [e for r in user for e in entries_of(r, True)]


class TrackSelectScene(Scene):
    """Pick a track for the line-up; Confirm goes on to the rules."""

    def __init__(self, ctx, lineup, entries: list[TrackEntry] | None = None, next_screen: str = "rules",
                 badge: str = "") -> None:
        super().__init__()
        self.ctx = ctx
        self.next_screen, self.badge = next_screen, badge  # the time trial's goes on to its own rules
        self.lineup = list(lineup)
        # A given list is fixed (tests); otherwise the game's catalogue, looked at again now.
        self.catalogue = None if entries is not None else ctx.catalogue
        self.entries = list(entries) if entries is not None else []
        self.index = 0
        self._version = -1
        if self.catalogue is not None:
            self.catalogue.refresh()
            self._take_entries()
        self.laps: dict[str, int] = {}
        self.backdrop = Backdrop()
        self.message = ""
        # The mouse: the list's rows as last drawn (entry index, rect), the laps' "< n >", the first row
        # shown while the mouse holds the list still (None: the list follows the highlight, centred).
        self.row_rects: list[tuple[int, pygame.Rect]] = []
        self.laps_rect: pygame.Rect | None = None
        self.first: int | None = None
        self._shown_first = 0
        # Generated tracks (issue 24): rows below the packs, made by a worker thread once one is
        # highlighted; a given list (tests) or the time trial's list has none.
        self.generated = None if entries is not None or next_screen != "rules" else _generated_tracks(ctx)
        self.typed: list[str] = []
        self.gen_labels: dict[str, str] = {}
        self.last_generated = ""
        self._gen_key: tuple = ()
        if self.generated is not None:
            self._take_generated()

    @property
    def loading(self) -> bool:
        """True until the catalogue's first reading is done (the list is then still empty)."""
        return self.catalogue is not None and not self.catalogue.ready

    def _take_entries(self) -> None:
        """The catalogue's current list, keeping the highlighted track where it was."""
        version = self.catalogue.version
        if version == self._version:
            return
        current = self.entry.ref if self.entry is not None else None
        self.entries = self.catalogue.entries() + [e for e in self.entries if e.ref.startswith("gen:")]
        self._version = version
        refs = [e.ref for e in self.entries]
        self.index = refs.index(current) if current in refs else min(self.index, max(0, len(self.entries) - 1))

    def update(self, dt: float) -> None:
        if self.catalogue is not None:
            self._take_entries()
        if self.generated is not None:
            self._take_generated()

    @property
    def entry(self) -> TrackEntry | None:
        return self.entries[self.index] if self.entries else None

    def laps_of(self, entry: TrackEntry) -> int:
        default = entry.track.default_laps if entry.track is not None else 1
        return self.laps.get(entry.ref, default)

    def _mouse(self, action) -> bool:
        """The pointer highlights the track under it (its preview shows), a click picks it as confirm
        does, a click on the laps' ``<`` or ``>`` changes them, the wheel scrolls the list. While the
        mouse is at work the list stands still (it no longer centres the highlight), so a row never
        slides away under the pointer. True when the action was the mouse's."""
        if isinstance(action, Scroll):
            self.first = max(0, min(self._shown_first + action.dy, len(self.entries) - 1))
            return True
        if not isinstance(action, (PointAt, ClickAt)):
            return False
        if self.loading:
            return True
        if self.laps_rect is not None and self.laps_rect.collidepoint(action.pos):
            if isinstance(action, ClickAt):
                self.handle(MoveCursor("mouse", 1 if action.pos[0] >= self.laps_rect.centerx else -1, 0))
            return True
        k = next((k for k, rect in self.row_rects if rect.collidepoint(action.pos)), None)
        if k is None:
            return True
        self.first = self._shown_first  # the list stands still under the pointer
        if k != self.index:
            self.index = k
            self.message = ""
            self.ctx.audio.play("tick")
        if isinstance(action, ClickAt):
            self.handle(Confirm("mouse"))
        return True

    def handle(self, action) -> None:
        if self._mouse(action):
            return
        verb = nav(action)
        if self.loading and verb != BACK:
            return  # nothing to pick yet; a confirm pressed now must not pick a track later
        if self.catalogue is not None:
            self._take_entries()  # the reading may have finished since the last update: a press is never lost
        entry = self.entry
        if verb in (UP, DOWN) and self.entries:
            self.first = None  # the keys: the list follows the highlight again
            self.index = (self.index + (1 if verb == DOWN else -1)) % len(self.entries)
            self.message = ""
            self.ctx.audio.play("tick")
        elif entry is not None and entry.ref.startswith("gen:") and self._handle_generated(verb, entry):
            return
        elif verb in (LEFT, RIGHT) and entry is not None and entry.track is not None:
            if not entry.track.is_circuit:  # a sprint is raced once: its finish cannot be reached again
                self.message = f"{entry.track.name} is a sprint: it is raced over 1 lap"
                self.ctx.audio.play("back")
                return
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
        self.ctx.audio.play("confirm")
        self.ctx.screens.push(self.stack, self.next_screen, self.ctx, lineup=self.lineup, entry=entry,
                              laps=self.laps_of(entry))

    # -- drawing --------------------------------------------------------------
    def preview(self, entry: TrackEntry, size: tuple[int, int]) -> pygame.Surface | None:
        """The track drawn on graph paper by the race screen's board renderer, with the line-up
        on its start places; None while it is still being drawn."""
        found = self.ctx.previews.get(entry, size)
        if found is None:
            return None
        paper, camera = found
        picture = paper.copy()
        for k, slot in enumerate(entry.track.start_slots[:len(self.lineup)]):
            spec = self.lineup[k]
            theme.draw_symbol(picture, theme.SYMBOLS[spec.symbol], camera.to_screen((slot.x, slot.y)),
                              max(3.0, camera.scale * 0.45), theme.COLORS[spec.color])
        return picture

    def draw(self, surface: pygame.Surface) -> None:
        self._draw_screen(surface)
        draw_badge(surface, self.ctx, self.badge)

    def _draw_screen(self, surface: pygame.Surface) -> None:
        ctx = self.ctx
        ctx.previews.new_frame()
        top = self.backdrop.draw(surface, ctx, "Pick a track", f"{len(self.lineup)} car"
                                 f"{'s' if len(self.lineup) != 1 else ''} on the grid")
        w, h = surface.get_size()
        size = ctx.font(20)
        row_h = int(size * 1.45)
        left = pygame.Rect(size * 3 + 8, top, int(w * 0.3), h - top - size * 3)
        draw_panel(surface, left, ctx)
        visible = max(1, left.height // row_h - 1)
        centred = self.index - visible // 2 if self.first is None else self.first
        first = max(0, min(centred, len(self.entries) - visible))
        self._shown_first = first
        self.row_rects = []
        y = left.top + size // 2
        pack = None
        for k in range(first, min(len(self.entries), first + visible)):
            entry = self.entries[k]
            if entry.pack != pack:
                pack = entry.pack
                ctx.text.blit(surface, pack + (" (your packs)" if entry.user else ""), ctx.font(14), theme.HUD_DIM,
                              (left.left + size * 0.5, y), width=left.width - size)
                y += int(size * 0.9)
                if y > left.bottom - row_h:
                    break
            on = k == self.index
            color = theme.DOOM if entry.track is None and entry.ref not in self.gen_labels else theme.INK
            label = self.gen_labels.get(entry.ref) or (
                entry.name if entry.track is not None else f"broken: {entry.ref.rpartition('#')[2] or entry.ref}")
            row = pygame.Rect(left.left + 2, y - 2, left.width - 4, row_h)
            self.row_rects.append((k, row))
            if on:
                surface.blit(ctx.text.panel(row.size, (*theme.pens(1)[0].light, 110)), row)
            # A long label (a generated track's, a pack's own name) is drawn smaller, then cut at a word:
            # never cut mid-letter by the card's edge (the highlighted row is bold, so wider).
            room = left.width - size * 1.5
            fitted = ctx.text.fit(label, size, room, bold=on)
            ctx.text.blit(surface, ctx.text.shorten(label, fitted, room, bold=on), fitted, color,
                          (left.left + size, y + (size - fitted) // 2), bold=on, width=room)
            y += row_h
            if y > left.bottom - row_h:
                break
        right = pygame.Rect(left.right + size, top, w - left.right - size * 2, h - top - size * 3)
        draw_panel(surface, right, ctx)
        entry = self.entry
        self.laps_rect = None
        if self.loading:
            done, total = self.catalogue.progress
            count = f" ({done} of {total} packs)" if total else ""
            ctx.text.blit(surface, f"Loading the tracks...{count}", size, theme.HUD_DIM, right.center, "center")
        elif entry is None:
            ctx.text.blit(surface, "No tracks found.", size, theme.DOOM, right.center, "center")
        elif entry.ref in self.gen_labels and entry.track is None:
            self._draw_generating(surface, right, entry, size)
        elif entry.track is None:
            self._draw_problems(surface, right, entry, size)
        else:
            self._draw_details(surface, right, entry, size)
        draw_hint(surface, ctx, self.message or "up/down: track  ·  left/right: laps  ·  confirm: rules  ·  "
                  "back: line-up  ·  mouse: click a track, the wheel scrolls")

    def _draw_details(self, surface, right: pygame.Rect, entry: TrackEntry, size: int) -> None:
        ctx = self.ctx
        track = entry.track
        ctx.text.blit(surface, track.name, ctx.font(28), theme.INK, (right.left + size, right.top + size // 2),
                      bold=True, width=right.width - 2 * size)
        desc = str(track.meta.get("description") or "")
        if desc:
            ctx.text.blit(surface, desc, ctx.font(16), theme.HUD_DIM, (right.left + size, right.top + size * 2.1),
                          width=right.width - 2 * size)
        info_h = size * 4
        pic = pygame.Rect(right.left + size, right.top + size * 3.3, right.width - 2 * size,
                          right.height - size * 3.3 - info_h)
        if pic.width > 20 and pic.height > 20:
            picture = self.preview(entry, pic.size)
            if picture is not None:
                surface.blit(picture, pic)
            else:
                surface.fill(theme.PAPER, pic)
                ctx.text.blit(surface, "drawing the track...", ctx.font(16), theme.HUD_DIM, pic.center, "center")
            pygame.draw.rect(surface, theme.GRAPHITE_LIGHT, pic, 1)
        laps = self.laps_of(entry)
        rules = self.ctx.settings.rules()
        par = self.ctx.pars.par(track, _track_rules(track), laps)
        par_text = "working it out..." if par == WORKING else (str(par) if par else "-")
        best = self.ctx.best.get(entry.ref, laps)
        best_text = f"{best.moves} moves by {best.name}" if best else "none yet"
        y = pic.bottom + size * 0.5
        laps_text = f"laps  < {laps} >" if track.is_circuit else "1 lap (a sprint)"
        lines = [(f"size {track.width} x {track.height} squares  ·  {len(track.start_slots)} start places  ·  "
                  + laps_text, theme.INK),
                 (f"par ({track.default_rules} rules): {par_text}   ·   best: {best_text}", theme.INK),
                 (f"your rules: {rules.name}" + (" (changed)" if rules.overrides() else ""), theme.HUD_DIM)]
        for n, (text, color) in enumerate(lines):
            drawn = ctx.text.blit(surface, text, ctx.font(17), color, (right.left + size, y),
                                  width=right.width - 2 * size)
            if n == 0 and track.is_circuit:  # "laps  < 3 >" ends the line: a click on its < or > changes them
                wide = ctx.text.size_of(laps_text, ctx.font(17))[0]
                self.laps_rect = pygame.Rect(drawn.right - wide, drawn.top - size // 3, wide, drawn.height + size // 1.5)
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


    # -- generated tracks (issue 24) --------------------------------------------------
    def _take_generated(self) -> None:
        """The generated rows as the worker has them now, below the packs (only rebuilt when they change).

        Nothing is made until a generated row is highlighted: then that row's track, and
        with the random track the next one, ahead.
        """
        import datetime

        from game.drivers.generated import Generated

        if self.loading:
            return  # the packs first: until they are read the list is empty and takes no confirm
        gen = self.generated
        size = gen.size
        rows: list[tuple[str, str]] = []
        current = self.entry.ref if self.entry is not None else None
        random_code = gen.random_code(size, start=current is not None and current.startswith("gen:"))
        rows.append((f"gen:{random_code}", f"Random {size} track  {random_code}"))
        rows.append(("gen:+another", "Another random track"))
        day = gen.day_code(datetime.date.today(), start=current == f"gen:{gen.day_code(datetime.date.today())}")
        rows.append((f"gen:{day}", f"Track of the day  {day}"))
        rows += [(f"gen:{code}", f"Code {code}") for code in self.typed]
        rows.append(("gen:+code", "Enter a code..."))
        rows.append(("gen:+save", f"Save {self.last_generated} to my tracks" if self.last_generated
                     else "Save a generated track to my tracks"))
        states = [None if ref.startswith("gen:+") else gen.get(ref[4:]) if ref == current else gen.peek(ref[4:])
                  for ref, _ in rows]
        for (ref, _), st in zip(rows, states):
            if ref == current and isinstance(st, Generated) and self.last_generated != ref[4:]:
                self.last_generated = ref[4:]  # the one "save" keeps: the last made one looked at
                rows[-1] = ("gen:+save", f"Save {self.last_generated} to my tracks")
        key = tuple((ref, label, type(st).__name__, getattr(st, "attempt", None)) for (ref, label), st in
                    zip(rows, states))
        if key == self._gen_key:
            return
        self._gen_key = key
        made = []
        for (ref, label), st in zip(rows, states):
            track = st.track if isinstance(st, Generated) else None
            made.append(TrackEntry(ref, track, "Generated tracks"))
        self.gen_labels = dict(rows)
        self.entries = [e for e in self.entries if not e.ref.startswith("gen:")] + made
        refs = [e.ref for e in self.entries]
        self.index = refs.index(current) if current in refs else min(self.index, max(0, len(self.entries) - 1))

    def _handle_generated(self, verb, entry: TrackEntry) -> bool:
        """A press on a generated row; True when it was one of theirs (else the usual handling goes on)."""
        gen = self.generated
        if verb in (LEFT, RIGHT) and entry.ref == f"gen:{gen.random.get(gen.size)}":
            sizes = ("short", "medium", "long")
            gen.size = sizes[(sizes.index(gen.size) + (1 if verb == RIGHT else -1)) % 3]
            self.ctx.audio.play("tick")
            return True
        if verb not in (OK, START):
            return False
        if entry.ref == "gen:+another":
            gen.reroll()
            self.index = [e.ref for e in self.entries].index("gen:+another") - 1  # the new random track
            self.ctx.audio.play("confirm")
        elif entry.ref == "gen:+code":
            self.ctx.audio.play("confirm")
            self.ctx.screens.push(self.stack, "gen-code", self.ctx, on_code=self._typed_code)
        elif entry.ref == "gen:+save":
            if not self.last_generated:
                self.message = "Highlight a generated track first, then save it here."
            elif self.ctx.packs_dir is None:
                self.message = "There is no folder for your tracks in this game."
            else:
                self.message = gen.save(self.last_generated, self.ctx.packs_dir)
                if self.catalogue is not None:
                    self.catalogue.refresh()
            self.ctx.audio.play("confirm")
        elif entry.track is None:
            state = gen.get(entry.ref[4:])
            self.message = getattr(state, "message", None) or "The track is still being made and checked."
            self.ctx.audio.play("back")
        else:
            return False
        return True

    def _typed_code(self, code: str) -> None:
        """The keypad's code: a row of its own, highlighted, its track being made."""
        if code not in self.typed:
            self.typed.append(code)
        self.generated.want(code)
        self._take_generated()
        refs = [e.ref for e in self.entries]
        self.index = refs.index(f"gen:{code}")

    def _draw_generating(self, surface, right: pygame.Rect, entry: TrackEntry, size: int) -> None:
        ctx = self.ctx
        ctx.text.blit(surface, self.gen_labels[entry.ref], ctx.font(28), theme.INK,
                      (right.left + size, right.top + size // 2), bold=True)
        helps = {"gen:+another": "Confirm: a new random track (the next one is already being made).",
                 "gen:+code": "Confirm: type a six-character track code with the pad or the keys.",
                 "gen:+save": "Confirm: keep the last generated track you looked at as a level pack in your "
                              "tracks folder; the editor opens it. Nothing is written over."}
        text = helps.get(entry.ref)
        if text is None:
            state = self.generated.get(entry.ref[4:])
            text = state.text() if hasattr(state, "text") else f"No track: {getattr(state, 'message', state)}"
            if entry.ref == f"gen:{self.generated.random.get(self.generated.size)}":
                text += "   (left/right: short, medium or long)"
        y = right.top + size * 2.4
        small = ctx.font(17)
        for line in wrap_words(text, max(20, int(right.width / (small * 0.5)))):
            ctx.text.blit(surface, line, small, theme.HUD_TEXT, (right.left + size, y))
            y += small * 1.3


def _generated_tracks(ctx):
    from game.presentation.generated_tracks import generated_tracks

    return generated_tracks(ctx)


def _track_rules(track):
    from game.core.rules import preset

    return preset(track.default_rules)
