"""The rules menu: Start first, the six presets in plain words, every option behind *Advanced*.

Inside the race flow the first row, highlighted when the screen opens, goes on ("Start
the race!"): one press of A, Enter, S or K, or a gamepad's Start, races with the rules
shown. Left/right on the *Rules* row picks a preset (``game.core.rules.PRESETS``), each
told in one sentence a newcomer understands (:data:`PLAIN_PRESETS`); confirm on it never
changes it. *Advanced* opens every option (left/right cycles its values; number options
step through their range; the panel on the right explains each value). The movement
option holds the pen-flick party mode beside the exact modes. The choice is remembered
in the settings.
"""

from __future__ import annotations

import pygame

from game.core.errors import RulesError
from game.core.rules import NUMBERS, OPTIONS, PRESET_DESCRIPTIONS, PRESET_NAMES, RuleSet, preset
from game.presentation import theme
from game.presentation.menus.common import (BACK, START, Backdrop, Item, MenuList, draw_hint, draw_panel, nav,
                                            rule_label, rule_value, timer_item, wrap_words)
from game.presentation.scene import Scene

#: Each preset as a newcomer hears it: a short name and one plain sentence (the rule files'
#: terms, "blockers", "set-back moves", stay behind *Advanced*).
PLAIN_PRESETS: dict[str, tuple[str, str]] = {
    "arcade": ("Arcade", "Everyone picks at the same time without seeing the others; bump a car and you spin, "
                         "leave the road and you miss a turn."),
    "party": ("Party", "Take turns; tail a car, or be last, to reach a square further."),
    "paper": ("Classic", "Take turns as on real paper; crash and you start again from the road, standing still."),
    "tournament": ("Strict", "The serious game: no touching other cars, and a trip off the road costs moves "
                             "until you are back on it."),
    "phases": ("All at once", "Everyone moves together; cars that cross the line on the same move share the win."),
    "karopapier": ("Karopapier", "The rules of the Karopapier website: cars block each other, a crash sets you "
                                 "back two moves, and you may never stand still."),
}


def preset_title(name: str) -> str:
    """A preset as the rules screen names it: ``"Arcade (arcade)"``, ``"Party (party)"``."""
    plain = PLAIN_PRESETS.get(name)
    return f"{plain[0]} ({name})" if plain else name


class RulesScene(Scene):
    """Edit the remembered rules; inside the race flow the first row goes on to ``next_screen``
    (the race; the time trial's start screen), made from the race plan."""

    def __init__(self, ctx, lineup=None, entry=None, laps: int | None = None, next_screen: str = "race") -> None:
        super().__init__()
        self.ctx = ctx
        self.next_screen = next_screen
        self.lineup, self.entry, self.laps = lineup, entry, laps
        self.rules: RuleSet = ctx.settings.rules()
        self.backdrop = Backdrop()
        self.message = ""
        self.advanced = False
        self.menu = MenuList([], ctx.audio)
        self._fitted: tuple[tuple, int] | None = None  # the explanation card's text size, and what it was worked out for
        self._build()
        if entry is not None and any(not seat.is_human for seat in lineup or ()):
            # A first start's CPU table takes seconds: begin it while the players look at the rules.
            ctx.prepare_cpu_table(entry.track, self.rules, laps or entry.track.default_laps)

    def _build(self) -> None:
        """The rows: go, the preset, the timer, *Advanced* and (opened) every option; the highlight kept."""
        fields = set(RuleSet.__dataclass_fields__)
        go = "Start the race!" if self.entry is not None else "Done"
        items = [Item(go, self.done, help="Race with these rules." if self.entry else
                      "Keep these rules for the next race."),
                 Item("Rules", value=lambda: preset_title(self.rules.name), change=self._preset,
                      help=lambda: PLAIN_PRESETS.get(self.rules.name, ("", PRESET_DESCRIPTIONS.get(self.rules.name,
                                                                                                   "")))[1]),
                 timer_item(self.ctx, self._saved)]
        # The rule option ``handicap`` on its own row, asked only when someone took a handicap
        # (it changes nothing else); behind *Advanced* with the other options otherwise.
        asked = any(getattr(seat, "handicap", 0) for seat in self.lineup or ())
        if asked:
            items.append(self._option_item("handicap"))
        items.append(Item("Hide the options" if self.advanced else "Advanced: every option", self._toggle_advanced,
                          help="every option of the rules, one by one, each value explained"))
        self.first_option = len(items)
        self.option_rows: list[str | None] = [None] * len(items)
        if self.advanced:
            for name in [n for n in OPTIONS if n in fields and not (asked and n == "handicap")] + \
                    [n for n in NUMBERS if n in fields]:
                if name in OPTIONS:
                    items.append(self._option_item(name))
                else:
                    low, high, text = NUMBERS[name]
                    items.append(Item(rule_label(name), value=self._value(name), change=self._number(name, low, high),
                                      help=text))
                self.option_rows.append(name)
        index = self.menu.index
        self.menu = MenuList(items, self.ctx.audio)
        self.menu.index = min(index, len(items) - 1)

    def _toggle_advanced(self) -> None:
        self.advanced = not self.advanced
        self._build()
        if self.advanced:
            self.menu.index = self.first_option

    # -- changing -------------------------------------------------------------
    def _option_item(self, name: str) -> Item:
        """An option's row: its values cycled by left/right, in words, each explained."""
        return Item(rule_label(name), value=self._value(name), change=self._option(name, list(OPTIONS[name])),
                    help=self._explain(name))

    def _value(self, name):
        return lambda: rule_value(getattr(self.rules, name))

    def _explain(self, name):
        return lambda: OPTIONS[name].get(getattr(self.rules, name), "")

    def _preset(self, step: int) -> None:
        k = PRESET_NAMES.index(self.rules.name) if self.rules.name in PRESET_NAMES else 0
        # The handicap kind is no preset's: the evening's choice survives a change of preset.
        self.rules = preset(PRESET_NAMES[(k + step) % len(PRESET_NAMES)]).with_options(handicap=self.rules.handicap)
        self._remember()

    def _option(self, name, values):
        def change(step: int) -> None:
            current = getattr(self.rules, name)
            k = values.index(current) if current in values else 0
            for n in range(1, len(values) + 1):
                try:
                    self.rules = self.rules.with_options(**{name: values[(k + step * n) % len(values)]})
                    break
                except RulesError as error:  # a value this combination refuses: skip it
                    self.message = str(error)
            self._remember()
        return change

    def _number(self, name, low, high):
        def change(step: int) -> None:
            value = max(low, min(high, getattr(self.rules, name) + step))
            self.rules = self.rules.with_options(**{name: value})
            self._remember()
        return change

    def _remember(self) -> None:
        self.ctx.settings = self.ctx.settings.with_rules(self.rules)
        self.message = self.ctx.save_settings()

    def _saved(self, message: str) -> None:
        self.message = message

    def done(self) -> None:
        self._remember()
        if self.entry is None:
            self.stack.pop()
            return
        from game.presentation.menus.race import RacePlan  # the race's parts, loaded once a race is near

        plan = RacePlan(tuple(self.lineup), self.entry, self.rules, self.laps or self.entry.track.default_laps,
                        timer=self.ctx.settings.move_timer)
        self.ctx.screens.push(self.stack, self.next_screen, self.ctx, plan)

    def handle(self, action) -> None:
        verb = nav(action)
        if verb == BACK:
            self.ctx.audio.play("back")
            self.stack.pop()
        elif verb == START:
            self.done()
        elif not self.menu.verb(verb):
            self.menu.click(action)

    # -- drawing --------------------------------------------------------------
    def draw(self, surface: pygame.Surface) -> None:
        ctx = self.ctx
        sub = f"{preset_title(self.rules.name)} rules"
        if self.rules.overrides():
            sub += "  (changed: " + ", ".join(f"{rule_label(k).lower()} {rule_value(v)}" for k, v in
                                              self.rules.overrides().items()) + ")"
        top = self.backdrop.draw(surface, ctx, "Rules", sub, subtitle_size=22)
        w, h = surface.get_size()
        size = ctx.font(20)
        left = pygame.Rect(size * 3 + 8, top, int(w * 0.48), h - top - int(ctx.font(22) * 2.2))
        draw_panel(surface, left, ctx)
        self.menu.draw(surface, ctx, left.inflate(-size, -size // 2), label_w=0.5)
        right = pygame.Rect(left.right + size, top, w - left.right - size * 2, left.height)
        draw_panel(surface, right, ctx)
        name = self.option_rows[self.menu.index]
        small = self._card_size(right, name, ctx.font(22), size)  # a line 22 px high at 1080 lines
        self._explain_card(surface, right, name, small, size)
        draw_hint(surface, ctx, self.message or "up/down: row  ·  left/right: change  ·  "
                  + ("confirm on the first row or Start: race!" if self.entry else "back: done"), size=ctx.font(22))

    def _card_size(self, right: pygame.Rect, name, small: int, size: int) -> int:
        """The text size at which the highlighted row's explanation fits the card ``right``: ``small``,
        or closed up step by step. Measured, never rendered, and kept while nothing it depends on
        changes: rendering every line at every size tried made the screen's first frame slow."""
        key = (right.size, name, self.menu.index, self.menu.current.help_text(), self.rules, small, size)
        if self._fitted is not None and self._fitted[0] == key:
            return self._fitted[1]
        while small > 10 and self._explain_card(None, right, name, small, size) > right.bottom:
            small = max(10, int(small * 0.92))
        self._fitted = (key, small)
        return small

    def _explain_card(self, page: pygame.Surface | None, right: pygame.Rect, name, small: int, size: int) -> int:
        """The highlighted row explained in the card ``right`` at text size ``small``; returns the bottom
        of the text (``page`` None: only measured, nothing drawn)."""
        ctx = self.ctx
        x, y = right.left + size, right.top + size // 2
        sample = "under blocking, every other car blocks"  # an average character width of this font, measured
        char_w = max(1.0, ctx.text.size_of(sample, small)[0] / len(sample))
        width = max(16, int((right.width - 2 * size - small * 1.2) / char_w))
        # Where each line goes depends on the sizes alone: measuring only skips the drawing.
        put = ctx.text.blit if page is not None else (lambda *args, **kwargs: None)
        symbol = theme.draw_symbol if page is not None else (lambda *args, **kwargs: None)
        room = right.right - size // 2 - x

        def heading(words: str) -> None:
            """The card's heading, smaller and then cut to the card (large text in a 4:3 window ran
            "Advanced: every option" off the screen)."""
            fitted = ctx.text.fit(words, int(small * 26 / 22), room, True)
            put(page, ctx.text.shorten(words, fitted, room, True), fitted, theme.INK, (x, y), bold=True)
        if name in OPTIONS:
            heading(rule_label(name))
            y += int(small * 1.65)
            # Every value by name; the one chosen explained (all of them explained would not fit at this size).
            for value, text in OPTIONS[name].items():
                on = getattr(self.rules, name) == value
                pen = theme.pens(1)[0]
                if on:
                    symbol(page, pen.symbol, (x + small * 0.4, y + small * 0.6), small * 0.35, pen.color)
                put(page, rule_value(value), small, pen.color if on else theme.HUD_DIM,
                              (x + small * 1.2, y), bold=True)
                y += small * 1.25
                if on:
                    for line in wrap_words(text, width):
                        put(page, line, small, theme.HUD_TEXT, (x + small * 1.2, y))
                        y += small * 1.2
                    y += small * 0.3
        else:
            help_text = self.menu.current.help_text() or ("Race with these rules." if self.entry else
                                                          "Keep these rules for the next race.")
            heading(self.menu.current.label)
            y += int(small * 1.65)
            if name is None and self.menu.index in (0, 1):  # the presets, in plain words, before anything else
                for p in PRESET_NAMES:
                    on = p == self.rules.name
                    if on:
                        pen = theme.pens(1)[0]
                        symbol(page, pen.symbol, (x - small * 0.1, y + small * 0.6), small * 0.3,
                                          pen.color)
                    put(page, preset_title(p), small, theme.pens(1)[0].color if on else theme.INK,
                                  (x + small * 0.6, y), bold=True)
                    y += small * 1.25
                    for line in wrap_words(PLAIN_PRESETS.get(p, ("", PRESET_DESCRIPTIONS.get(p, "")))[1], width):
                        put(page, line, small, theme.HUD_DIM, (x + small * 1.2, y))
                        y += small * 1.2
                    y += small * 0.4
            else:
                for line in wrap_words(help_text, width):
                    put(page, line, small, theme.HUD_TEXT, (x, y))
                    y += small * 1.2
        return y
