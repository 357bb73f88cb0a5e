"""The couch game around the race screen: title, lobby, track select, rules, pause, results,
settings, bindings and the tutorial.

One entry point for the ``racetrack`` command: :func:`run_game` opens the window and
plays until the player quits; :func:`build_title_scene` gives the first scene for an
app that already exists (tests drive it frame by frame). Folders are passed in.
"""

from __future__ import annotations

import random
from functools import partial
from pathlib import Path

from game.presentation.menus.common import GameContext


def build_context(config_dir: str | Path, packs_dir: str | Path | None, builtin_dir: str | Path,
                  assets_dir: str | Path | None = None, app=None, seed: int | None = None,
                  planner=None, kernels=None, data_dir: str | Path | None = None, loaded=None) -> GameContext:
    """Load settings and best results (problems are kept to show, never raised) and start the sound.

    ``kernels`` is where the CPUs' solver gets its kernels (``game.drivers.compiling``;
    None: compiled on first use). The pack catalogue is made here but not started: the
    game starts it at once (:func:`run_game`), a test when it wants to. ``data_dir`` is
    the user data folder (cups, time-trial best runs; None: the pack folder's parent).
    ``loaded`` is ``(settings, problems)`` from a :func:`game.settings.load_settings` the
    caller already made (reading twice would lose the problems: a damaged file is set
    aside on the first read).
    """
    from game.tracks.catalogue import PackCatalogue

    from game.presentation.audio import Audio
    from game.presentation.text import TextCache
    from game.settings import load_best, load_settings

    config_dir = Path(config_dir)
    settings, problems = loaded if loaded is not None else load_settings(config_dir)
    best, more = load_best(config_dir)
    ctx = GameContext(config_dir=config_dir, packs_dir=Path(packs_dir) if packs_dir else None,
                      builtin_dir=Path(builtin_dir), settings=settings, best=best, text=TextCache(),
                      rng=random.Random(seed if seed is not None else random.SystemRandom().randrange(2 ** 31)),
                      problems=[str(p) for p in problems + more], app=app, planner=planner, kernels=kernels,
                      catalogue=PackCatalogue(builtin_dir, packs_dir),
                      data_dir=Path(data_dir) if data_dir is not None else None)
    if app is not None:
        ctx.size = app.size
    ctx.audio = Audio.start(Path(assets_dir) / "sounds", ctx.settings.volume,
                            music=Path(assets_dir) / "music" / "loop.wav") if assets_dir is not None else Audio(
        volume=ctx.settings.volume, silent="no sound folder")
    ctx.problems += ctx.audio.problems
    return ctx


def build_title_scene(ctx: GameContext):
    """The title screen; push it on the app's stack."""
    return ctx.screens.make("title", ctx)


class _SizedApp:
    """Keeps the context's screen size in step with the window (menus lay out from it): told of
    each resize by the app (``App.on_resize``, before the frame is drawn) and, to be sure, after
    every frame; and remembers a switch between window and fullscreen made with F11 for the next
    start."""

    def __init__(self, app, ctx) -> None:
        self.app, self.ctx = app, ctx

    def resized(self, size: tuple[int, int]) -> None:
        self.ctx.size = tuple(size)

    def __call__(self, app) -> None:
        if self.ctx.size != app.size:
            self.ctx.size = app.size
        if self.ctx.settings.fullscreen != app.fullscreen:
            self.ctx.settings.fullscreen = app.fullscreen
            problem = self.ctx.save_settings()
            if problem and problem not in self.ctx.problems:
                self.ctx.problems.append(problem)


def display_choice(settings, asked: str | None, desktops: list[tuple[int, int]]) -> bool:
    """Whether the game opens fullscreen, and ``settings.fullscreen`` set to it.

    ``asked`` is the command line's ``"fullscreen"`` or ``"window"`` (remembered from now
    on); without it the settings' choice stands, and on a first start (the settings never
    said) the game opens fullscreen on a display of at least 1920x1080, a window otherwise.
    Returns whether the settings changed (and want saving).
    """
    from game.presentation.app import first_start_fullscreen

    if asked is not None:
        wanted = asked == "fullscreen"
    elif "display.fullscreen" not in settings.loaded_keys:
        wanted = first_start_fullscreen(desktops)
    else:
        return False
    changed = wanted != settings.fullscreen or "display.fullscreen" not in settings.loaded_keys
    settings.fullscreen = wanted
    return changed


def prepare_game(config_dir: str | Path, packs_dir: str | Path | None, builtin_dir: str | Path,
                 assets_dir: str | Path | None, headless: bool = False,
                 size: tuple[int, int] | None = None, kernels=None, display: str | None = None,
                 collector: bool = True):
    """(app, ctx) for the game at its title screen, settings read once (their problems kept to show).

    The CPUs' kernels and the pack catalogue are started here, as the game needs them.
    ``display`` is ``"fullscreen"``, ``"window"`` (the command line's choice, remembered) or
    None (the settings', or on a first start the display's size decides: see :func:`display_choice`).
    ``collector``: the app keeps the garbage collector's long passes out of frames
    (``presentation.collector``; its start-up loading is the packs read and the kernels ready).
    """
    from game.presentation.app import App, DisplayConfig, desktop_sizes, init_pygame
    from game.presentation.menus.keys import CapturingMapper, effective_bindings
    from game.settings import SettingsError, SettingsProblem, load_settings, save_settings

    init_pygame(headless=headless)
    if kernels is not None:
        kernels.start()  # the CPUs' kernels: loaded, or compiled in a child the first time
    settings, problems = load_settings(config_dir)
    if display_choice(settings, display, desktop_sizes()):
        try:
            save_settings(settings, config_dir)
        except SettingsError as error:
            problems.append(SettingsProblem(str(Path(config_dir)), None, None, str(error)))
    try:
        mapper = CapturingMapper(effective_bindings(settings.bindings))
        binding_problem = ""
    except (ValueError, TypeError, OverflowError) as error:  # bindings the settings check let through
        mapper = CapturingMapper()
        binding_problem = f"{error} (using the default bindings)"
    app = App(DisplayConfig(size=size or settings.window, fullscreen=settings.fullscreen), mapper=mapper)
    try:
        from game.crashlog import CrashLogs
        from game.race.planner import Planner
        # A CPU bug goes to a crash log, one per cause for the whole game; the race goes on.
        planner = partial(Planner, keep_racing=True, crash_log=CrashLogs())
    except ImportError:
        planner = None
    ctx = build_context(config_dir, packs_dir, builtin_dir, assets_dir, app=app, planner=planner, kernels=kernels,
                        loaded=(settings, problems))
    if app.size_note:  # the window asked for (settings or --size) did not fit: the title screen says so
        ctx.problems.append(app.size_note)
    ctx.catalogue.start()  # every pack, read in the background while the title screen shows
    from game.presentation.menus.screens import ImportAhead

    # The other screens' modules, imported while the title shows: no screen's first frame imports.
    imports = ImportAhead(ctx.screens.modules()).start()
    if collector:
        from game.presentation.collector import CollectorPolicy

        app.collector = CollectorPolicy(settled=partial(_loaded, ctx.catalogue, kernels, imports))
    app.on_resize = _SizedApp(app, ctx).resized
    if binding_problem:
        ctx.problems.append(binding_problem)
    from game.presentation.phones import PhoneLink

    ctx.phones = PhoneLink()  # off until the lobby's Phones row turns it on
    app.feeds.append(ctx.phones)
    app.push(build_title_scene(ctx))
    return app, ctx


def _loaded(catalogue, kernels, imports=None) -> bool:
    """Whether start-up loading is done: the packs read, the CPUs' kernels ready (or failed) and
    the screens' modules imported (the collector then freezes them with the rest)."""
    return (catalogue.ready and (kernels is None or kernels.status.stage in ("ready", "failed"))
            and (imports is None or imports.done))


def run_game(config_dir: str | Path, packs_dir: str | Path | None, builtin_dir: str | Path,
             assets_dir: str | Path | None, headless: bool = False, max_frames: int | None = None,
             size: tuple[int, int] | None = None, kernels=None, display: str | None = None) -> int:
    """Open the window at the title screen and play until the player quits; returns the exit status.
    ``display``: ``"fullscreen"`` or ``"window"`` from the command line (see :func:`prepare_game`)."""
    app, ctx = prepare_game(config_dir, packs_dir, builtin_dir, assets_dir, headless=headless, size=size,
                            kernels=kernels, display=display)
    try:
        app.run(max_frames=max_frames, on_frame=_SizedApp(app, ctx))
    finally:
        # The phones' server never outlives the game, and a music load still running must end
        # before the interpreter does.
        ctx.close()
    return 0
