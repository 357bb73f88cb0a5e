"""The settings menu (display, sound and music, motion, assists, replay speed) and the bindings menu.

Every change is saved at once (atomically, see ``game.settings``). The bindings menu
lists each keyboard block, the shared keys and the gamepad buttons with the action
they do; choosing a row waits for the next key or button press and binds it there
(a key that did something else in that block swaps places). "Reset" restores the
defaults. Key presses reach the menu as :class:`KeyCaptured` through
:class:`CapturingMapper`, which the game's app uses in place of the plain mapper.
"""

from __future__ import annotations


import pygame

from game.presentation import theme
from game.presentation.input import BindingError
from game.presentation.menus.common import BACK, Backdrop, Item, MenuList, draw_hint, draw_panel, nav
from game.presentation.menus.keys import CapturingMapper, KeyCaptured, effective_bindings  # noqa: F401 (tests)
from game.presentation.scene import Scene
from game.settings import REPLAY_SPEEDS, SCALES, TOWER_CHOICES

SOURCE_NAMES = {"kb1": "keyboard 1", "kb2": "keyboard 2", "keys": "shared keys", "pad": "gamepad"}


def install_bindings(ctx) -> str:
    """Give the running app a mapper with the settings' bindings (keeping open gamepads); "" or a problem."""
    try:
        mapper = CapturingMapper(effective_bindings(ctx.settings.bindings))
    except BindingError as error:
        return f"{error} (using the default bindings)"
    app = ctx.app
    if app is not None:
        mapper.pads = getattr(app.mapper, "pads", {})
        app.mapper = mapper
    return ""


def rebind(bindings: dict, source: str, old: str, new: str) -> dict:
    """Bind ``new`` to what ``old`` did in ``source``; whatever ``new`` did moves to ``old``."""
    table = dict(bindings[source])
    spec = table.pop(old)
    displaced = table.pop(new, None)
    table[new] = spec
    if displaced is not None:
        table[old] = displaced
    out = dict(bindings)
    out[source] = table
    return out


class SettingsScene(Scene):
    """Display, sound, assists and replay speed; a row opens the bindings menu."""

    def __init__(self, ctx) -> None:
        super().__init__()
        self.ctx = ctx
        self.backdrop = Backdrop()
        self.message = ""
        s = lambda: ctx.settings  # noqa: E731 - the settings object is replaced on rules changes
        self.menu = MenuList([
            Item("Display", value=lambda: "fullscreen" if s().fullscreen else "window", change=self._fullscreen,
                 help="F11 also switches at any time"),
            Item("Text size", value=lambda: f"{s().scale:g}x", change=self._cycle("scale", SCALES),
                 help="how big the menu text is"),
            Item("Master volume", value=lambda: f"{s().master_volume}", change=self._volume("master_volume")),
            Item("Effects volume", value=lambda: f"{s().effects_volume}", change=self._volume("effects_volume"),
                 help="pencil scratches, crashes and the finish fanfare"),
            Item("Menu volume", value=lambda: f"{s().menu_volume}", change=self._volume("menu_volume")),
            Item("Music volume", value=lambda: f"{s().music_volume}", change=self._volume("music_volume"),
                 help="the calm tune under the menus and the races (0: off)"),
            Item("Doomed-target marks", value=lambda: "on" if s().show_doomed else "off", change=self._doomed,
                 help="slash the targets from which no later move can stay on the road (H toggles in a race)"),
            Item("Reduce motion", value=lambda: "on" if s().reduce_motion else "off", change=self._reduce_motion,
                 help="no camera glides, shakes or bouncing: things appear where they end up"),
            Item("Timing tower", value=lambda: s().timing_tower, change=self._cycle("timing_tower", TOWER_CHOICES),
                 help="each car's exact moves to go beside the race (auto: in arcade, party and phases races)"),
            Item("Replay speed", value=lambda: f"x{s().replay_speed:g}",
                 change=self._cycle("replay_speed", REPLAY_SPEEDS)),
            Item("Keys and buttons...", lambda: ctx.screens.push(self.stack, "bindings", ctx)),
            Item("Back", lambda: self.stack.pop()),
        ], ctx.audio, pin_last=True)  # at large text the list scrolls, but Back never scrolls away

    def _save(self) -> None:
        self.message = self.ctx.save_settings()

    def _fullscreen(self, step: int) -> None:
        self.ctx.settings.fullscreen = not self.ctx.settings.fullscreen
        app = self.ctx.app
        if app is not None and getattr(app, "fullscreen", None) != self.ctx.settings.fullscreen:
            app.toggle_fullscreen()
        self._save()

    def _cycle(self, attr: str, options):
        def change(step: int) -> None:
            current = getattr(self.ctx.settings, attr)
            k = options.index(current) if current in options else 0
            setattr(self.ctx.settings, attr, options[max(0, min(len(options) - 1, k + step))])
            self._save()
        return change

    def _volume(self, attr: str):
        def change(step: int) -> None:
            value = getattr(self.ctx.settings, attr)
            setattr(self.ctx.settings, attr, max(0, min(100, value + 10 * step)))
            self._save()
            self.ctx.audio.refresh_music()
            self.ctx.audio.play("tick")
        return change

    def _doomed(self, step: int) -> None:
        self.ctx.settings.show_doomed = not self.ctx.settings.show_doomed
        self._save()

    def _reduce_motion(self, step: int) -> None:
        self.ctx.settings.reduce_motion = not self.ctx.settings.reduce_motion
        self._save()

    def handle(self, action) -> None:
        verb = nav(action)
        if verb == BACK:
            self.ctx.audio.play("back")
            self.stack.pop()
        elif not self.menu.verb(verb):
            self.menu.click(action)

    def draw(self, surface: pygame.Surface) -> None:
        ctx = self.ctx
        top = self.backdrop.draw(surface, ctx, "Settings", f"saved in {ctx.config_dir}", subtitle_size=22)
        w, h = surface.get_size()
        size = ctx.font(20)
        box = pygame.Rect(0, top, min(w - size * 8, size * 34), h - top - int(ctx.font(22) * 2.2))
        box.centerx = w // 2
        draw_panel(surface, box, ctx)
        self.menu.draw(surface, ctx, box.inflate(-size, -size), label_w=0.55)
        draw_hint(surface, ctx, self.message or self.menu.current.help_text()
                  or "up/down: choose  ·  left/right: change  ·  back: done", size=ctx.font(22))


class BindingsScene(Scene):
    """Every binding as a row; confirm, then press the new key or button."""

    def __init__(self, ctx) -> None:
        super().__init__()
        self.ctx = ctx
        self.backdrop = Backdrop()
        self.message = ""
        self.waiting: tuple[str, str] | None = None
        self.rows: list[tuple[str, str]] = []
        self.menu = MenuList([], ctx.audio)
        self._rebuild()

    def _bindings(self) -> dict:
        return effective_bindings(self.ctx.settings.bindings)

    def _rebuild(self) -> None:
        bindings = self._bindings()
        self.rows = [(source, name) for source in ("kb1", "kb2", "keys", "pad") for name in bindings.get(source, {})]
        items = []
        for source, name in self.rows:
            spec = bindings[source][name]
            label = f"{SOURCE_NAMES.get(source, source)}:  {_action_name(spec)}"
            items.append(Item(label, self._wait(source, name), value=(lambda n=name: n)))
        items.append(Item("Reset to the defaults", self._ask_reset, risky=True,
                          help="every key and button back as it came (asks first)"))
        items.append(Item("Back", lambda: self.stack.pop()))
        index = self.menu.index
        self.menu = MenuList(items, self.ctx.audio)
        self.menu.index = min(index, len(items) - 1)

    def _wait(self, source: str, name: str):
        def start() -> None:
            self.waiting = (source, name)
            mapper = getattr(self.ctx.app, "mapper", None)
            if isinstance(mapper, CapturingMapper):
                mapper.capturing = True
            what = "a gamepad button" if source == "pad" else "a key"
            self.message = f"Press {what} for {SOURCE_NAMES.get(source, source)} {name!r}..."
        return start

    def _ask_reset(self) -> None:
        self.ctx.screens.push(self.stack, "confirm", self.ctx, question="Reset every key and button?", on_yes=self._reset,
                              yes="Yes, reset them", detail="your changed keys and buttons are forgotten")

    def _reset(self) -> None:
        self.ctx.settings.bindings = {}
        self._apply("Default bindings restored.")

    def _apply(self, message: str) -> None:
        problem = install_bindings(self.ctx)
        if problem:
            self.ctx.settings.bindings = {}
            install_bindings(self.ctx)
            message = problem
        saved = self.ctx.save_settings()
        self.message = saved or message
        self._rebuild()

    def capture(self, name: str, pad: bool) -> None:
        """The key or button pressed while waiting: bind it to the chosen row."""
        source, old = self.waiting
        self.waiting = None
        if (source == "pad") != pad:
            self.message = "That needs a " + ("gamepad button." if source == "pad" else "key on the keyboard.")
            return
        if name == old:
            self.message = "Unchanged."
            return
        bindings = self._bindings()
        new = rebind(bindings, source, old, name)
        self.ctx.settings.bindings = {**self.ctx.settings.bindings, source: new[source]}
        self._apply(f"{SOURCE_NAMES.get(source, source)}: {name!r} now does what {old!r} did.")

    def handle(self, action) -> None:
        if isinstance(action, KeyCaptured):
            if self.waiting is not None:
                self.capture(action.name, action.pad)
            return
        if self.waiting is not None:
            if nav(action) == BACK:
                self.waiting = None
                self.message = "Cancelled."
            return
        verb = nav(action)
        if verb == BACK:
            self.stack.pop()
        elif not self.menu.verb(verb):
            self.menu.click(action)

    def draw(self, surface: pygame.Surface) -> None:
        ctx = self.ctx
        top = self.backdrop.draw(surface, ctx, "Keys and buttons", "choose a row, then press the new key or button")
        w, h = surface.get_size()
        size = ctx.font(20)
        box = pygame.Rect(0, top, min(w - size * 8, size * 40), h - top - size * 3)
        box.centerx = w // 2
        draw_panel(surface, box, ctx)
        self.menu.draw(surface, ctx, box.inflate(-size, -size), label_w=0.7)
        color = theme.DOOM if self.waiting else theme.HUD_TEXT
        draw_hint(surface, ctx, self.message or "confirm: rebind  ·  back: done", color)


def _action_name(spec) -> str:
    verb = spec[0]
    if verb in ("select", "highlight") and len(spec) == 3:
        dx, dy = spec[1], spec[2]
        names = {(0, 0): "middle", (0, -1): "up", (0, 1): "down", (-1, 0): "left", (1, 0): "right",
                 (-1, -1): "up-left", (1, -1): "up-right", (-1, 1): "down-left", (1, 1): "down-right"}
        return f"target {names.get((dx, dy), f'{dx},{dy}')}"
    if verb == "cursor" and len(spec) == 3:
        return f"cursor {({(0, -1): 'up', (0, 1): 'down', (-1, 0): 'left', (1, 0): 'right'}).get((spec[1], spec[2]))}"
    return verb
