"""Start-up figures: how soon the game shows its title, starts a race and sees the first CPU move.

Run from the checkout (or any folder, with the game installed):

    python tools/bench_startup.py

Each figure is measured in a fresh process started the way ``racetrack`` starts, headless
(SDL's dummy video and audio drivers), and printed on its own line with the figure last:

- process start to the first title frame (the couch game, ``racetrack``);
- process start to the first race frame (a quick race, ``racetrack play --track
  starter/first-sprint --cars cpu:champion,cpu:pro,cpu:rookie,cpu:pro``);
- the first CPU move after the race starts (the first phase played: every CPU has chosen;
  also counted from the end of the race screen's countdown, when players may move first)
  and the longest frame until then, first with an empty kernel cache (numba's cache
  pointed at a fresh temporary folder, as after an install) and then with the warm cache
  that run left;
- the longest frame on entering the lobby, track select (first entry and again), the
  rules screen and the race, driven through the real menus (and the race on a large
  outline track, whose paper fills the screen with tiles);
- the CPU seconds each thread of the race process spent until the first CPU move (with
  an empty cache the kernels compile in a child process meanwhile and the CPUs drive by
  the route heuristic until their table is built; with a warm one the kernels load on a
  thread and the table is built during the countdown).

Wall-clock figures depend on the machine's load (on a shared machine they say more about
the others' work than about the game's); the CPU seconds of each process, thread and frame
are printed as well, and are the figures to judge by there. Options: ``--size WxH`` (default 1280x720).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RACE_CARS = "cpu:champion,cpu:pro,cpu:rookie,cpu:pro"
RACE_TRACK = "starter/first-sprint"
OUTLINE_TRACK = "grand-prix/serpentine"  # a large outline track: a screenful of paper tiles to draw
FRAME_LIMIT = 0.050  # the longest frame the game allows itself


class ThreadClock:
    """CPU seconds of every thread of this process, by thread name, sampled once a frame
    (a thread's clock goes with it when it ends: the last sample stands for it)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._base: dict[int, float] = {}

    def start(self) -> None:
        """Count from now on (CPU the threads spent before is left out)."""
        self.seconds.clear()
        self._base = {t.ident: self._cpu(t) for t in threading.enumerate() if t.ident is not None}

    @staticmethod
    def _cpu(thread) -> float:
        try:
            return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))
        except (AttributeError, OSError, ProcessLookupError):
            return 0.0

    def sample(self) -> None:
        for thread in threading.enumerate():
            if thread.ident is None or thread is threading.main_thread():
                continue
            spent = self._cpu(thread) - self._base.get(thread.ident, 0.0)
            name = thread.name.split(" ")[0]
            key = f"{name}#{thread.ident}"
            self.seconds[key] = max(self.seconds.get(key, 0.0), spent)

    def by_name(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for key, spent in self.seconds.items():
            name = key.rsplit("#", 1)[0]
            out[name] = out.get(name, 0.0) + spent
        return out


def _child_env(cache: Path, home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1",
               NUMBA_CACHE_DIR=str(cache), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"))
    return env


def _run_child(kind: str, cache: Path, home: Path, size: str, track: str = RACE_TRACK) -> dict:
    began = time.monotonic()
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", kind, "--began", repr(began),
                           "--size", size, "--home", str(home), "--track", track], capture_output=True, text=True,
                          env=_child_env(cache, home), cwd=str(home), timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"bench_startup: the {kind} child failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- the children -------------------------------------------------------------
def _size(text: str) -> tuple[int, int]:
    w, h = (int(v) for v in text.split("x"))
    return w, h


def _ended_children_cpu() -> float:
    """CPU seconds of the child processes that have ended so far (the compiling child, once it is done)."""
    try:
        import resource
    except ImportError:
        return 0.0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def child_race(began: float, size: tuple[int, int]) -> dict:
    """A quick race as ``racetrack play --track ... --cars ...`` starts it; times up to the first phase."""
    import pygame

    from game.cli import build_parser
    from game.commands.play import build_race, start_kernels
    from game.presentation.app import App, DisplayConfig, init_pygame
    from game.presentation.race_scene import RaceScene

    args = build_parser().parse_args(["play", "--track", RACE_TRACK, "--cars", RACE_CARS, "--headless", "--seed", "1"])
    kernels = start_kernels()
    controller, title, cpu_note = build_race(args, kernels)
    init_pygame(headless=True)
    app = App(DisplayConfig(size=size))
    app.push(RaceScene(controller, app.size, title=title, cpu_status=cpu_note))
    clock = pygame.time.Clock()
    threads = ThreadClock()
    first_frame = first_choice = first_move = go = None
    longest = [0.0, 0.0]  # wall, main-thread CPU seconds
    notes = set()
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        dt = clock.tick(60) / 1000.0
        t, c = time.perf_counter(), time.thread_time()
        app.step(dt)
        spent, cpu = time.perf_counter() - t, time.thread_time() - c
        now = time.monotonic()
        if first_frame is None:
            first_frame = now
            cpu_at_frame, loop_at_frame = time.process_time(), time.thread_time()
            threads.start()
        elif first_move is None:
            longest = [max(longest[0], spent), max(longest[1], cpu)]
            threads.sample()
        note = kernels.status.message()
        if note:
            notes.add(note.split(":")[0])
        if go is None and getattr(app.stack.top, "mode", "intro") != "intro":
            go = now  # the countdown is over: the players may move
        if first_choice is None and any(controller.chosen(i) is not None for i in range(len(controller.seats))):
            first_choice = now
        if first_move is None and controller.records:
            first_move = now
            cpu_to_move = time.process_time() - cpu_at_frame
            loop_to_move = time.thread_time() - loop_at_frame
            children_to_move = _ended_children_cpu()
        if first_move is not None and kernels.status.stage in ("ready", "failed"):
            break
    stage = kernels.status.stage
    kernels.close()
    controller.close()
    return {"race_frame": first_frame - began, "first_choice": (first_choice or now) - first_frame,
            "first_move": (first_move or now) - first_frame, "longest_frame": longest,
            "after_go": (first_move or now) - (go or now),
            "kernels": stage, "kernels_ready": time.monotonic() - began, "said": sorted(notes),
            "cpu": time.process_time(), "cpu_to_move": cpu_to_move, "loop_to_move": loop_to_move,
            "children_to_move": children_to_move,
            "threads_to_move": threads.by_name()}


def child_menus(began: float, size: tuple[int, int], home: Path, track: str = RACE_TRACK) -> dict:
    """The couch game from its title: lobby, track select (twice) and the rules screen, frame by frame."""
    import pygame

    from game import paths
    from game.commands.play import start_kernels
    from game.presentation.app import App, DisplayConfig, init_pygame
    from game.presentation.input import Confirm
    from game.presentation.menus import build_context, build_title_scene
    from game.presentation.menus.lobby import LobbyScene
    from game.presentation.menus.rules_menu import RulesScene
    from game.presentation.menus.settings_menu import CapturingMapper
    from game.presentation.menus.tracks import TrackSelectScene

    kernels = start_kernels()
    init_pygame(headless=True)
    app = App(DisplayConfig(size=size), mapper=CapturingMapper())
    try:
        from game.race.planner import Planner as planner
    except ImportError:
        planner = None
    ctx = build_context(home / "config", home / "data" / "packs", paths.builtin_tracks_dir(), paths.assets_dir(),
                        app=app, planner=planner, kernels=kernels)
    ctx.catalogue.start()  # as run_game does
    ctx.settings.tutorial_done = True
    app.push(build_title_scene(ctx))
    clock = pygame.time.Clock()

    def frames(count: int, act=None) -> list[float]:
        """Run ``count`` frames (``act`` before the first, inside its time); the longest [wall, CPU] seconds."""
        longest = [0.0, 0.0]
        for k in range(count):
            dt = clock.tick(60) / 1000.0
            t, c = time.perf_counter(), time.thread_time()
            if k == 0 and act is not None:
                act()
            app.step(dt, events=[])
            longest = [max(longest[0], time.perf_counter() - t), max(longest[1], time.thread_time() - c)]
        return longest

    frames(1)
    title_frame = time.monotonic() - began
    frames(30)
    title = app.stack.top
    lobby_frame = frames(60, lambda: title.menu.verb("confirm"))
    lobby = app.stack.top
    assert isinstance(lobby, LobbyScene), lobby
    lobby.handle(Confirm("kb1"))  # keyboard 1 joins
    lobby.table.add_cpu()
    tracks_first = frames(120, lobby.start)
    select = app.stack.top
    assert isinstance(select, TrackSelectScene)
    waited = 0
    while select.loading and waited < 6000:  # the packs are still being read: the screen says so
        tracks_first = [max(a, b) for a, b in zip(tracks_first, frames(10))]
        waited += 10
    frames(1, app.stack.pop)
    tracks_again = frames(120, lobby.start)
    select = app.stack.top

    def to_rules() -> None:
        select.choose(next(e for e in select.entries if e.track is not None and e.ref == track))

    rules_frame = frames(60, to_rules)
    rules = app.stack.top
    assert isinstance(rules, RulesScene), rules
    race_frame = frames(60, rules.done)  # "Start the race!"
    kernels.close()
    return {"title_frame": title_frame, "lobby": lobby_frame, "tracks_first": tracks_first,
            "tracks_again": tracks_again, "rules": rules_frame, "race": race_frame, "cpu": time.process_time()}


# -- the report ---------------------------------------------------------------
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--child", choices=("race", "menus"), help=argparse.SUPPRESS)
    parser.add_argument("--began", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--home", help=argparse.SUPPRESS)
    parser.add_argument("--track", default=RACE_TRACK, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        sys.path.insert(0, str(ROOT))
        size = _size(args.size)
        result = child_race(args.began, size) if args.child == "race" else child_menus(args.began, size,
                                                                                         Path(args.home), args.track)
        print(json.dumps(result))
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        tmp = Path(tmp)
        cache, home = tmp / "numba-cache", tmp / "home"
        home.mkdir()
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"machine load (1-minute average) at the start: {load:.2f}")
        print(f"cores: {os.cpu_count()}")
        cold = _run_child("race", cache, home, args.size)
        warm = _run_child("race", cache, home, args.size)
        menus = _run_child("menus", cache, home, args.size)
        outline = _run_child("menus", cache, home, args.size, OUTLINE_TRACK)
        print(f"process start to first title frame: {menus['title_frame']:.2f} s")
        print(f"process start to first race frame: {warm['race_frame']:.2f} s")
        for name, run in (("empty", cold), ("warm", warm)):
            print(f"first CPU move after the race starts, {name} kernel cache: {run['first_move']:.2f} s")
            print(f"  of which after the countdown, {name} kernel cache: {run['after_go']:.2f} s")
            print(f"  first CPU choice, {name} kernel cache: {run['first_choice']:.2f} s")
            print(f"  CPU time of the game process until that move, {name} kernel cache: {run['cpu_to_move']:.2f} s")
            print(f"  of which drawing frames, {name} kernel cache: {run['loop_to_move']:.2f} s")
            for thread, spent in sorted(run["threads_to_move"].items(), key=lambda kv: -kv[1]):
                if spent >= 0.005:
                    print(f"  of which thread {thread}, {name} kernel cache: {spent:.2f} s")
            if run["children_to_move"] >= 0.005:
                print(f"  CPU time of ended child processes, {name} kernel cache: {run['children_to_move']:.2f} s")
            print(f"  longest frame until then, {name} kernel cache: {1000 * run['longest_frame'][0]:.0f} ms")
            print(f"  its CPU time, {name} kernel cache: {1000 * run['longest_frame'][1]:.0f} ms")
        print(f"  the screen said, empty kernel cache: {'; '.join(cold['said']) or 'nothing'}")
        print(f"  kernels compiled and loaded after process start, empty kernel cache: {cold['kernels_ready']:.1f} s")
        for label, key in (("the lobby", "lobby"), ("track select", "tracks_first"),
                           ("track select again", "tracks_again"), ("the rules screen", "rules"),
                           ("the race from the rules screen", "race")):
            print(f"longest frame on entering {label}: {1000 * menus[key][0]:.0f} ms")
            print(f"  its CPU time: {1000 * menus[key][1]:.0f} ms")
        print(f"longest frame on entering the race on {OUTLINE_TRACK} from the rules screen: "
              f"{1000 * outline['race'][0]:.0f} ms")
        print(f"  its CPU time: {1000 * outline['race'][1]:.0f} ms")
        checked = (("race, empty cache", cold["longest_frame"]), ("race, warm cache", warm["longest_frame"]),
                   ("lobby", menus["lobby"]), ("track select", menus["tracks_first"]),
                   ("track select again", menus["tracks_again"]), ("rules", menus["rules"]),
                   ("race from the menus", menus["race"]), ("outline race from the menus", outline["race"]))
        over = [name for name, (wall, _) in checked if wall > FRAME_LIMIT]
        print(f"screens with a frame over {1000 * FRAME_LIMIT:.0f} ms of wall time: {', '.join(over) or 'none'}")
        over = [name for name, (_, cpu) in checked if cpu > FRAME_LIMIT]
        print(f"screens with a frame over {1000 * FRAME_LIMIT:.0f} ms of CPU time: {', '.join(over) or 'none'}")
        if hasattr(os, "getloadavg"):
            print(f"machine load (1-minute average) at the end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
