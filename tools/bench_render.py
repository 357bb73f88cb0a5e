"""Benchmark: frame cost of the race scene during phase replays, with a following camera.

How to run (headless, prints a table)::

    python tools/bench_render.py                     # grand-prix/sweepers, 1920x1080 and 1280x720
    python tools/bench_render.py --track demo --moves 100 --phases 8 --sizes 1920x1080
    python tools/bench_render.py --paper window,tiles --repeat 3   # the two paper paths, taking turns
    python tools/bench_render.py --tower off,on --repeat 3         # the timing tower's cost, taking turns

Set-up: 8 CPU cars (a scripted line driver; collisions spin cars out, so replays carry
bursts, shakes and labels) race on ``--track`` (the large built-in
grand-prix/sweepers, 180x107 squares, by default: too big to show whole, so the camera
follows the cars and pans and zooms between phases) for ``--moves`` phases; then the
race scene replays the last ``--phases`` phases one after the other, as in a race, at 60
frames per second of game time on the dummy video driver. Each frame is
``update(1/60)`` + ``draw``; the camera is at the earlier phase's place when it starts,
so it has to travel. Next to it the same run measures a bare full-screen blit of a
converted surface, and reports the ratio of the median frame to it (target: at most 5
bare blits per frame), the p99 and slowest frame (target: none above 16 ms), and the
CPU time of the slowest frame (the machine may be busy with other work: wall-clock
spikes with a low CPU time are waits, not drawing). ``tiles`` counts the paper tiles
drawn during the replays, ``sync`` those that had to be drawn before a frame could
show (the rest were drawn a few per frame in advance), ``scaled`` the frames that
scaled cached tiles while zooming.

``--paper`` picks how the race screen puts its paper on screen: ``window`` (as it ships: the
tiles composed once per camera position, see ``game.presentation.paper``) or ``tiles``
(every visible tile blitted each frame, as one-off pictures do); several, with ``--repeat``,
take turns in one run, so that a busy machine weighs on both alike.

``--tower`` runs without (``off``) and with (``on``) the timing tower beside the HUD
(``game.presentation.tower``; its table is built before the frames are timed, as a race's
CPUs would have it); with both, the runs take turns and the median frame with the tower
is printed as a ratio of the median frame without it, per size.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time


class LineDriver:
    """The bench's cheap scripted driver: the legal on-road target nearest the next gate, at
    most 3 squares a move (no look-ahead: the replay only needs cars moving along the road)."""

    kind = "cpu:line"
    is_human = False

    def __init__(self) -> None:
        from game.presentation.standin import StandInCPU

        self._fields = StandInCPU()

    def choose(self, state, car, committed, rng):
        from game.core.vec import RETIRE

        cands = [c for c in state.candidates(car, committed) if c.legal]
        if not cands:
            return RETIRE
        dist = self._fields._distance(state, self._fields._next_gate(state, car))
        pos = state.cars[car].position

        def score(c):
            node = c.node
            d = dist[node.y, node.x] if state.track.on_road(node) else 10**6
            return (c.offroad, (node - pos).chebyshev() > 3, d, rng.random())

        return min(cands, key=score).node


def load_one_track(track_ref: str):
    """Only the named track of a built-in pack (reading the whole pack checks every track in it)."""
    import tomllib

    import tomli_w

    from game import paths
    from game.tracks.pack import read_pack_text

    pack_id, _, track_id = track_ref.partition("/")
    path = paths.builtin_tracks_dir() / f"{pack_id}.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    data["track"] = [t for t in data.get("track", []) if t.get("id") == track_id]
    result = read_pack_text(tomli_w.dumps(data), str(path))
    if not result.tracks:
        raise SystemExit(f"bench_render: no track {track_ref!r}: {result.problems}")
    return result.tracks[0]


def build_race(moves: int, track_ref: str, track=None, laps: int = 99):
    from game.core.race import RaceState
    from game.core.rules import preset
    from game.presentation.demo_track import demo_track
    from game.race.controller import RaceController, Seat

    if track is None:
        track = demo_track() if track_ref == "demo" else load_one_track(track_ref)
    # collisions spin cars out: the replays carry bursts, shakes and labels, as a crowded race does
    rules = preset("phases").with_options(collision="spin")
    names = [f"CPU {i + 1}" for i in range(8)]
    state = RaceState.start(track, rules, names, laps=laps if track.is_circuit else 1, seed=1)  # (a sprint: once)
    driver = LineDriver()
    controller = RaceController(state, [Seat(n, driver) for n in names], seed=1)
    while len(controller.records) < moves and not controller.over:
        controller.tick()
    return controller


def _pct(values, q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def bench_size(size, controller, phases: int, profile=None, paper: str = "window", tower=None):
    import pygame

    from game.presentation.race_scene import RaceScene, RaceSettings

    screen = pygame.display.set_mode(size)
    # the bare blit: one converted full-screen surface
    picture = pygame.Surface(size).convert()
    picture.fill((200, 180, 160))
    blits = []
    for _ in range(300):
        t0 = time.perf_counter()
        screen.blit(picture, (0, 0))
        pygame.display.flip()
        blits.append(time.perf_counter() - t0)
    layers = () if tower is None else (tower,)
    scene = RaceScene(controller, size, settings=RaceSettings(intro=False), layers=layers)
    scene.view.board.sheet.windowed = paper == "window"
    scene.shown = len(controller.records) - phases
    scene.mode = "choosing"
    scene._aim()
    scene.view.camera.snap()
    if tower is not None:  # the tower's table and first figures are ready, as in a race under way
        tower.update(scene, 0.0)
        tower._table_job.wait(600)
        tower.update(scene, 0.0)
        if tower._values_job is not None:
            tower._values_job.wait(60)
        tower.update(scene, 0.0)
    scene.draw(screen)  # the race was on screen before this phase: the paper and fonts are ready
    for _ in range(120):  # ...for two seconds, as while players choose (or the 1.3 s intro runs)
        scene._aim()
        scene.view.camera.update(1 / 60)
        scene.draw(screen)
    scene.update(1 / 60)  # starts the replay of the first remaining phase
    sheet = scene.view.board.sheet
    tiles_before = sheet.tiles_built
    frames, cpu, sync, scaled = [], [], 0, 0
    if profile is not None:
        profile.enable()
    while scene.mode == "replay" and len(frames) < 10_000:
        t0, c0 = time.perf_counter(), time.process_time()
        scene.update(1 / 60)
        scene.draw(screen)
        pygame.display.flip()
        frames.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        sync += sheet.stats.synchronous
        scaled += sheet.stats.scaled > 0
    if profile is not None:
        profile.disable()
    blit = statistics.median(blits)
    frame = statistics.median(frames)
    ms = 1000
    return {
        "size": f"{size[0]}x{size[1]}", "paper": paper, "frames": len(frames), "fps": 1 / statistics.mean(frames),
        "median_ms": frame * ms, "p99_ms": _pct(frames, 0.99) * ms, "max_ms": max(frames) * ms,
        "cpu_median_ms": statistics.median(cpu) * ms, "cpu_p99_ms": _pct(cpu, 0.99) * ms, "cpu_max_ms": max(cpu) * ms,
        "blit_ms": blit * ms, "ratio": frame / blit, "cpu_ratio": statistics.median(cpu) / blit,
        "tiles": sheet.tiles_built - tiles_before, "sync": sync, "scaled": scaled, "scale": scene.view.camera.scale,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--track", default="grand-prix/sweepers", help="PACK/TRACK, or demo for the demo oval")
    parser.add_argument("--moves", type=int, default=24)
    parser.add_argument("--phases", type=int, default=12)
    parser.add_argument("--sizes", default="1920x1080,1280x720")
    parser.add_argument("--paper", default="window", help="window, tiles, or both (window,tiles) taking turns")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each size and paper, taking turns")
    parser.add_argument("--tower", default="off", help="off, on, or both (off,on) taking turns: the timing tower")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="profile the replay frames and print the N costliest functions")
    args = parser.parse_args(argv)
    os.environ["SDL_VIDEODRIVER"] = "dummy"
    os.environ["SDL_AUDIODRIVER"] = "dummy"
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    pygame.display.init()
    pygame.font.init()
    t0 = time.perf_counter()
    towers = [t.strip() for t in args.tower.split(",") if t.strip()]
    if any(t not in ("off", "on") for t in towers):
        raise SystemExit(f"bench_render: --tower takes off and/or on, not {args.tower!r}")
    # The tower needs the solver's table of the race: one lap keeps it small (99 laps would not fit)
    laps = 1 if "on" in towers else 99
    controller = build_race(args.moves, args.track, laps=laps)
    track = controller.state.track
    replayed = controller.records[-args.phases:]
    print(f"race set up: {track.id} ({track.width}x{track.height}), 8 cars, {len(controller.records)} phases"
          f" ({time.perf_counter() - t0:.1f} s); the replayed {len(replayed)} phases hold"
          f" {sum(len(r.collisions) for r in replayed)} collisions and"
          f" {sum(e.kind == 'off_track' for r in replayed for e in r.events)} cars off the road")
    shared = None
    if "on" in towers:
        from game.drivers.cpu import make_shared

        shared = make_shared()
        t1 = time.perf_counter()
        shared.table(controller.states[0])
        print(f"the tower's table: {time.perf_counter() - t1:.1f} s (built once, before the frames are timed)")
    medians: dict = {}
    print(f"{'size':>10} {'paper':>6} {'tower':>5} {'frames':>6} {'median':>8} {'p99':>8} {'max':>8} {'cpu med':>8} {'cpu p99':>8}"
          f" {'cpu max':>8} {'blit':>7} {'ratio':>6} {'cpu/bl':>6} {'tiles':>5} {'sync':>4} {'scaled':>6} {'zoom':>5}")
    ok = True
    profile = None
    if args.profile:
        import cProfile

        profile = cProfile.Profile()
    papers = [p.strip() for p in args.paper.split(",") if p.strip()]
    if any(p not in ("window", "tiles") for p in papers):
        raise SystemExit(f"bench_render: --paper takes window and/or tiles, not {args.paper!r}")
    for text in args.sizes.split(","):
        w, h = (int(v) for v in text.split("x"))
        for _ in range(max(1, args.repeat)):
            for paper, tower_on in [(p, t) for p in papers for t in towers]:
                if controller is None:  # a fresh race for each run (a run plays the race on)
                    controller = build_race(args.moves, args.track, track, laps)  # the same track: one table
                tower = None
                if tower_on == "on":
                    from game.presentation.tower import TimingTower

                    tower = TimingTower(shared.table)
                r = bench_size((w, h), controller, args.phases, profile, paper, tower)
                controller = None
                medians.setdefault((r["size"], paper, tower_on), []).append((r["median_ms"], r["cpu_median_ms"]))
                print(f"{r['size']:>10} {paper:>6} {tower_on:>5} {r['frames']:>6} {r['median_ms']:>6.2f}ms {r['p99_ms']:>6.2f}ms"
                      f" {r['max_ms']:>6.2f}ms {r['cpu_median_ms']:>6.2f}ms {r['cpu_p99_ms']:>6.2f}ms"
                      f" {r['cpu_max_ms']:>6.2f}ms {r['blit_ms']:>5.2f}ms {r['ratio']:>6.2f} {r['cpu_ratio']:>6.2f}"
                      f" {r['tiles']:>5} {r['sync']:>4} {r['scaled']:>6} {r['scale']:>5.0f}")
                if paper == "window":
                    ok &= r["ratio"] <= 5 and r["cpu_max_ms"] <= 16
    if len(towers) == 2:
        for (size, paper, tower_on), values in medians.items():
            if tower_on == "on" and (size, paper, "off") in medians:
                off_values = medians[(size, paper, "off")]
                on, off = (statistics.median(v[0] for v in values), statistics.median(v[0] for v in off_values))
                con, coff = (statistics.median(v[1] for v in values), statistics.median(v[1] for v in off_values))
                print(f"timing tower at {size} ({paper} paper): median frame {on:.2f} ms with it, {off:.2f} ms "
                      f"without: ratio {on / off:.3f}; CPU {con:.2f} ms / {coff:.2f} ms: ratio {con / coff:.3f}")
    print("targets (median <= 5 bare blits, no replay frame above 16 ms of CPU):", "met" if ok else "NOT met")
    print("(wall-clock max includes time the process waited for a busy machine; cpu max is the slowest\n"
          " frame's own CPU time (time.process_time): compare the two before blaming the renderer)")
    if profile is not None:
        import pstats

        pstats.Stats(profile).sort_stats("tottime").print_stats(args.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
