"""The screen graph: every screen of the game by its registered name, and which leads to which.

No menu module imports another screen's module: a screen goes on by name through the
context, ``ctx.screens.push(self.stack, "lobby", ctx)``, ``replace(...)`` or
``pop_to(self.stack, "title")``. This module is the one place that knows where each
screen lives; it imports a screen's module only when that screen is first made, so
the title's first frame does not pay for the others.

Shared parts that are no screen (``common``, ``seats``, ``keys``, ``previews``, ``par``,
``notices`` and ``race``: the race plan, its start and the race screen's configuration
every race variant changes) may be imported by any menu module; they import no screen.
Within a module too, a screen goes on to another by name, never by making its class.

The game does not wait for a screen's first use to import it, though: importing track
select brings in the race screen, the board, the paper and the generated tracks, some
thirty modules and hundreds of milliseconds, which as the first frame of the screen
would freeze the picture. :class:`ImportAhead` imports every screen's module on a worker
thread while the title shows (an import defines classes and functions and makes no
surface), so a screen's first frame only draws.
"""

from __future__ import annotations

from dataclasses import dataclass
import threading
from importlib import import_module
from typing import Callable


@dataclass(frozen=True)
class Screen:
    """One registered screen: ``where`` is ``"module:attribute"`` (the attribute makes the
    scene from the arguments given to :meth:`Screens.make`), ``kind`` the scene class when the
    maker is a function, ``options`` keyword arguments fixed for this name (a variant of a
    screen: the cup's lobby is the lobby going on to the cup select)."""

    name: str
    where: str
    leads_to: tuple[str, ...] = ()
    kind: str = ""
    options: tuple[tuple[str, object], ...] = ()

    def maker(self) -> Callable:
        module, attribute = self.where.split(":")
        return getattr(import_module(f"game.presentation.menus.{module}"), attribute)

    def scene_class(self) -> type:
        module, attribute = (self.kind or self.where).split(":")
        return getattr(import_module(f"game.presentation.menus.{module}"), attribute)


#: The whole graph, written once. A screen named in ``leads_to`` is one it may push,
#: replace itself with or pop back to (Back to whatever pushed it is not listed).
GRAPH: tuple[Screen, ...] = (
    Screen("title", "title:TitleScene",
           ("lobby", "cup-resume", "cup-lobby", "trial", "tutorial", "replays", "rules", "settings")),
    Screen("lobby", "lobby:LobbyScene", ("tracks",)),
    Screen("tracks", "tracks:TrackSelectScene", ("rules", "gen-code")),
    Screen("gen-code", "keypad:CodeKeypadScene"),
    Screen("rules", "rules_menu:RulesScene", ("race",)),
    Screen("race", "race:start_race", ("pause", "results"), kind="race:RaceScene"),
    Screen("pause", "pause:PauseMenuScene", ("controls", "confirm", "race", "title")),
    Screen("controls", "controls:ControlsScene"),
    Screen("results", "results:ResultsScene", ("replay", "race", "tracks", "title")),
    Screen("replay", "race:replay_viewer", kind="race:ReplayViewerScene"),
    Screen("replays", "replays:ReplaysScene", ("replay", "replay-debrief")),
    Screen("replay-debrief", "replays:ReplayDebriefScene", ("replay",)),
    Screen("settings", "settings_menu:SettingsScene", ("bindings",)),
    Screen("bindings", "settings_menu:BindingsScene", ("confirm",)),
    Screen("tutorial", "tutorial:start_tutorial", ("pause", "results"), kind="race:RaceScene"),
    Screen("trial", "trial:time_trial", ("trial-rules",), kind="tracks:TrackSelectScene"),
    Screen("trial-rules", "rules_menu:RulesScene", ("trial-start",),
           options=(("next_screen", "trial-start"),)),
    Screen("trial-start", "trial:TrialStartScene", ("trial-race",)),
    Screen("trial-race", "trial:trial_race", ("pause", "trial-result"), kind="race:RaceScene"),
    Screen("trial-result", "trial:TrialResultScene", ("replay", "trial-start", "trial-race", "trial", "title")),
    Screen("cup-lobby", "lobby:LobbyScene", ("cup-select",),
           options=(("next_screen", "cup-select"), ("badge", "Grand Prix cup"))),
    Screen("cup-select", "cup:CupSelectScene", ("cup-race",)),
    Screen("cup-race", "cup:cup_race", ("pause", "cup-standings"), kind="race:RaceScene"),
    Screen("cup-standings", "cup:StandingsScene", ("cup-race", "cup-podium", "replay", "title")),
    Screen("cup-podium", "cup:CupPodiumScene", ("cup-select", "title")),
    Screen("cup-resume", "cup:ResumeCupScene", ("cup-seats", "cup-resume", "confirm")),
    Screen("cup-seats", "cup:CupSeatsScene", ("cup-race", "title")),
    Screen("confirm", "confirm:ConfirmScene"),
)


#: Modules the way into a race imports inside functions on a screen's first frame (track select's
#: generated rows, the race screen's timing tower, plan note and standing, the tower's debrief),
#: imported ahead with the screens' own (:class:`ImportAhead`). Not the solver nor numba's kernels:
#: the CPUs' kernels are loaded on their own worker (``drivers/compiling.py``).
ALSO_AHEAD: tuple[str, ...] = (
    "game.drivers.generated", "game.presentation.generated_tracks", "game.race.standing",
    "game.presentation.tower", "game.presentation.plan_note", "game.presentation.coaching",
    "game.race.debrief", "game.presentation.debrief_view")


class Screens:
    """The registry the context holds: names to screens, and the moves between them."""

    def __init__(self, graph: tuple[Screen, ...] = GRAPH) -> None:
        self.graph = {screen.name: screen for screen in graph}

    def __contains__(self, name: str) -> bool:
        return name in self.graph

    def _screen(self, name: str) -> Screen:
        try:
            return self.graph[name]
        except KeyError:
            raise KeyError(f"no screen is registered as {name!r} (known: {', '.join(self.graph)})") from None

    def make(self, name: str, *args, **kwargs):
        """The scene registered as ``name``, made from ``args`` (the context first); it knows its name."""
        screen = self._screen(name)
        scene = screen.maker()(*args, **dict(screen.options), **kwargs)
        scene.screen_name = name
        return scene

    def push(self, stack, name: str, *args, **kwargs):
        """Make the screen ``name`` and push it on ``stack``; returns it."""
        scene = self.make(name, *args, **kwargs)
        stack.push(scene)
        return scene

    def replace(self, stack, name: str, *args, **kwargs):
        """Make the screen ``name`` and put it in place of the top of ``stack``; returns it."""
        scene = self.make(name, *args, **kwargs)
        stack.replace(scene)
        return scene

    def is_screen(self, scene, name: str) -> bool:
        """Whether ``scene`` is the screen ``name``: by the name it was made under, or (made
        directly, as tests do) by its class."""
        made_as = getattr(scene, "screen_name", None)
        if made_as is not None:
            return made_as == name
        return isinstance(scene, self._screen(name).scene_class())

    def modules(self) -> list[str]:
        """Every screen's module (``game.presentation.menus.x``), once each, in the graph's order (the
        way a couch goes into a race first), with :data:`ALSO_AHEAD` after the race screen's."""
        found: list[str] = []
        for screen in self.graph.values():
            for where in (screen.where, screen.kind):
                if where:
                    module = f"game.presentation.menus.{where.split(':')[0]}"
                    if module not in found:
                        found.append(module)
                        if module.endswith(".race"):  # what the race screen imports on its first frame, next
                            found += [m for m in ALSO_AHEAD if m not in found]
        return found

    def pop_to(self, stack, name: str) -> None:
        """Pop scenes until the screen ``name`` is on top (or only one scene is left)."""
        self._screen(name)
        while len(stack.scenes) > 1 and not self.is_screen(stack.top, name):
            stack.pop()


class ImportAhead:
    """The screens' modules imported on a worker thread, so that no screen's first frame imports.

    Python's imports are safe from any thread (a module being imported by one thread is
    waited for by another that wants it), and ``game/`` has no import cycles
    (``tests/test_layers.py``), so the worker and the frame loop never deadlock: a screen
    opened before the worker got to it imports what is left itself, as it would without
    this. A module that fails to import is left alone here: the screen's own import
    raises the error where it is opened, as before. ``done`` once every module was tried.
    """

    def __init__(self, modules: list[str]) -> None:
        self.modules = list(modules)
        self._thread: threading.Thread | None = None
        self._done = threading.Event()

    def start(self) -> "ImportAhead":
        """Start the worker (once); returns self."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="racetrack-import-ahead", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        try:
            for module in self.modules:
                try:
                    import_module(module)
                except Exception:  # noqa: BLE001 - the screen's own import reports it where it is opened
                    continue
        finally:
            self._done.set()

    @property
    def done(self) -> bool:
        """True once every module was imported (or failed to)."""
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the worker (tests, closing); True when it is done."""
        return self._done.wait(timeout)
