"""Hostile files and requests, each a regression test of a defect a fuzzing run found (issue 18).

Deep nesting everywhere a TOML file is read, track references to devices and pipes, packs that
ask for huge sheets, replays of many phases, sprints raced over two laps, settings values the
check let through, SIGTERM while the game runs. Each case ends in a clear message naming the
file (and the key where there is one), quickly, and the game goes on.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from game.cli import main
from game.core.errors import RaceSetupError
from game.core.race import RaceState
from game.core.rules import preset
from game.core.vec import Vec
from game.race.referee import referee
from game.race.replay import MAX_PHASES, Replay, ReplayError, load_replay, save_replay
from game.settings import SETTINGS_FILE, load_best, load_settings, save_settings
from game.tracks import TrackError, load_packs, load_track_ref, read_pack_text, track_from_charmap

HERE = Path(__file__).resolve().parent
DEEP = "a = " + "[" * 600 + "]" * 600 + "\n"
BUILTIN = HERE.parent / "tracks"


# -- deep nesting, wherever TOML is read ----------------------------------------------------------
def test_validate_names_a_deeply_nested_pack_instead_of_crashing(tmp_path, capsys):
    (tmp_path / "deep.toml").write_text(DEEP)
    assert main(["validate", str(tmp_path / "deep.toml")]) == 1
    out = capsys.readouterr()
    assert "deep.toml:1: not valid TOML: nested more than 32 levels deep" in out.out
    assert "unexpected error" not in out.err


def test_deep_settings_and_best_results_never_stop_the_game(tmp_path):
    (tmp_path / SETTINGS_FILE).write_text(DEEP)
    (tmp_path / "best.toml").write_text("[track]\n" + "a" + ".a" * 5000 + " = 1\n")
    settings, problems = load_settings(tmp_path)
    best, more = load_best(tmp_path)
    assert "nested more than 32 levels deep" in str(problems[0]) and "kept as settings.toml.broken" in str(problems[0])
    assert "nested more than 32 levels deep" in str(more[0]) and not best.entries


def test_a_deep_file_in_the_pack_folder_is_one_broken_entry(tmp_path):
    (tmp_path / "deep.toml").write_text(DEEP)
    (tmp_path / "ok.toml").write_text((HERE / "data" / "packs" / "good.toml").read_text())
    results = load_packs([tmp_path])
    assert [r.path.name for r in results] == ["deep.toml", "ok.toml"]
    assert results[0].errors and results[1].tracks


def test_a_deep_file_in_the_replays_folder_is_listed_with_its_reason(tmp_path):
    from game.presentation.menus.replays import scan_replays

    (tmp_path / "deep.toml").write_text(DEEP)
    (tmp_path / "dots.toml").write_text("a" + ".a" * 5000 + " = 1\n")
    files = scan_replays(tmp_path)
    assert sorted(f.path.name for f in files) == ["deep.toml", "dots.toml"]
    assert all("nested more than 32 levels deep" in f.problem for f in files)


# -- readers take regular files only -------------------------------------------------------------
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_a_track_reference_to_a_device_is_refused_at_once():
    start = time.process_time()
    with pytest.raises(TrackError, match="/dev/zero: cannot read the file: a device"):
        load_track_ref("/dev/zero#loop", builtin_dir=BUILTIN)
    assert time.process_time() - start < 2


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_in_the_pack_folder_does_not_hang_track_select(tmp_path):
    os.mkfifo(tmp_path / "pipe.toml")
    os.mkfifo(tmp_path / "pipe.map")
    results = load_packs([tmp_path])
    assert [str(r.errors[0]).split(": ", 1)[1] for r in results] == [
        "cannot read the file: a named pipe, not a file the game reads"] * 2


def test_a_replay_larger_than_the_limit_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.toml"
    with open(path, "wb") as out:
        out.truncate(17 * 1024 * 1024)
    with pytest.raises(ReplayError, match="larger than the 16 MB"):
        load_replay(path)


# -- track size limits, checked before anything grows with them --------------------------------------
def _outline_pack(outer, islands, finish, start) -> str:
    return (f'format = 1\n[pack]\nid = "p"\nname = "P"\n[[track]]\nid = "t"\nname = "T"\ncars = 1\n'
            f'[track.outline]\nouter = {outer}\nislands = {islands}\nfinish = {finish}\nforward = "right"\n'
            f'start = [{start}]\n')


def _circle(cx, cy, r, n):
    return [[round(cx + r * math.cos(2 * math.pi * k / n), 3), round(cy + r * math.sin(2 * math.pi * k / n), 3)]
            for k in range(n)]


@pytest.mark.parametrize("text, message", [
    (_outline_pack([[0, 0], [10000, 0], [10000, 10000], [0, 10000]], [[[2, 2], [9998, 2], [9998, 9998], [2, 9998]]],
                   [[5000, -1], [5000, 3]], [4990, 1]), "the sheet is 10001 x 10001 squares"),
    (_outline_pack(_circle(1001, 1001, 1000, 500), [_circle(1001, 1001, 990, 500)], [[1001, 0], [1001, 13]],
                   [997, 5]), "the sheet is 2002 x 2002 squares"),
    (_outline_pack(_circle(401, 401, 400, 20000), [], [[401, 0], [401, 23]], [398, 8]),
     "a ring of 20000 points; the game reads rings of up to 1000 points"),
    ("format = 1\n[pack]\nid = \"p\"\nname = \"P\"\n[[track]]\nid = \"t\"\nname = \"T\"\ncars = 1\nmap = \"\"\"\n"
     + "\n".join(["X" * 1200] * 3) + "\n\"\"\"\n", "the map is 1200 x 3 squares"),
    ("format = 1\n[pack]\nid = \"p\"\nname = \"P\"\n[[track]]\nid = \"t\"\nname = \"T\"\ncars = 1\nmap = \"\"\"\n"
     + "\n".join(["XO" * 300] * 600) + "\n\"\"\"\n", "250 000 grid nodes"),
])
def test_a_pack_asking_for_a_huge_track_is_refused_in_a_moment(text, message):
    start = time.process_time()
    result = read_pack_text(text, file="huge.toml")
    assert any(message in str(p) and str(p).startswith("huge.toml:") for p in result.errors), \
        [str(p) for p in result.errors]
    assert time.process_time() - start < 2


def test_the_bucketed_step_check_agrees_with_the_full_crossing_matrix():
    """The validator's fast step test against the plain all-pairs one (numpy, every step against every
    border edge), on every built-in outline."""
    import numpy as np

    from game.tracks.outline import _edge_squares, _edges, _step_crossed
    from game.tracks.pack import load_pack

    def proper_matrix(e1, e2):  # which segments of e1 (n, 2, 2) cross segments of e2 (m, 2, 2) at an inner point
        p1, p2, q1, q2 = e1[:, None, 0, :], e1[:, None, 1, :], e2[None, :, 0, :], e2[None, :, 1, :]

        def orient(a, b, c):
            return (b[..., 0] - a[..., 0]) * (c[..., 1] - a[..., 1]) - (b[..., 1] - a[..., 1]) * (c[..., 0] - a[..., 0])

        return (orient(p1, p2, q1) * orient(p1, p2, q2) < 0) & (orient(q1, q2, p1) * orient(q1, q2, p2) < 0)

    checked = 0
    for pack in ("starter", "grand-prix"):
        for track in load_pack(BUILTIN / f"{pack}.toml").tracks:
            if not track.is_outline:
                continue
            region = track.region
            ys, xs = np.nonzero(region.road_nodes())
            nodes = np.stack([xs, ys], axis=1)
            steps = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]
            p = np.concatenate([nodes] * len(steps))
            q = np.concatenate([nodes + np.array(s) for s in steps])
            edges = [e for r in region.rings for e in _edges([(float(x), float(y)) for x, y in r])]
            squares = _edge_squares(edges)
            fast = np.array([_step_crossed(tuple(a), tuple(b), edges, squares.get((min(a[0], b[0]), min(a[1], b[1])), []))
                             for a, b in zip(p.tolist(), q.tolist())])
            plain = np.zeros(len(p), dtype=bool)
            for lo in range(0, len(p), 2000):
                pair = np.stack([p[lo:lo + 2000], q[lo:lo + 2000]], axis=1).astype(float)
                plain[lo:lo + 2000] = proper_matrix(pair, np.array(edges)).any(axis=1)
            assert (fast == plain).all(), track.id
            assert plain.any()
            checked += 1
    assert checked >= 5


# -- replays in linear time and memory ---------------------------------------------------------------
SPRINT = "XXXXXXXXXX\nXSOOOOOOFX\nXSOOOOOOFX\nXXXXXXXXXX\n"


@pytest.mark.parametrize("name", ["paper", "karopapier"])
def test_a_car_keeps_only_the_positions_a_set_back_can_reach(name):
    rules = preset(name, {"zero_move": True})  # standing still, phase after phase
    track = track_from_charmap(SPRINT, id="s", forward="right")
    state = RaceState.start(track, rules, ["A"])
    for _ in range(300):
        state, _ = state.apply({0: state.cars[0].position})  # standing still, phase after phase
    keep = rules.setback_moves + 1 if rules.offroad_penalty == "setback" else 1
    assert len(state.cars[0].history) == keep


# The set-backs themselves are checked on a real game: tests/test_import_karopapier.py referees
# Karopapier game 44773 (six crashes, each set back 2 moves, the last after round 100) exactly.


def test_refereeing_without_states_keeps_only_the_ends_and_reports_progress(tmp_path):
    track = track_from_charmap(SPRINT, id="s", forward="right")
    phases = [[Vec(1, 1), Vec(1, 2)]] * 1000
    replay = Replay.from_race("x.map", 1, preset("karopapier", {"zero_move": True}), 0, ["A", "B"], phases)
    seen = []
    result = referee(replay, track, keep_states=False, progress=lambda done, total: seen.append((done, total)))
    assert len(result.states) == 2 and len(result.records) == 1000 and result.final.phase == 1000
    assert seen[0] == (200, 1000) and seen[-1] == (1000, 1000)
    full = referee(replay, track)
    assert full.final == result.final and len(full.states) == 1001


def test_a_replay_holds_at_most_max_phases(tmp_path):
    phases = [[Vec(1, 1)]] * (MAX_PHASES + 1)
    with pytest.raises(ReplayError, match=f"more than the {MAX_PHASES} a replay may hold"):
        Replay.from_race("x.map", 1, preset("paper"), 0, ["A"], phases)
    text = "format = 1\ntrack = \"x.map\"\nlaps = 1\nseed = 0\n[rules]\npreset = \"paper\"\n[[car]]\nname = \"A\"\n" \
           "driver = \"human\"\n[phases]\n" + "".join(f"{k} = [[1, 1]]\n" for k in range(1, MAX_PHASES + 2))
    (tmp_path / "long.toml").write_text(text)
    with pytest.raises(ReplayError, match="long.toml:.*phases: 20001 phases is more than"):
        load_replay(tmp_path / "long.toml")


# -- every race has an end -------------------------------------------------------------------------------
def test_a_sprint_cannot_be_raced_over_two_laps(capsys):
    track = load_track_ref("starter/first-sprint", builtin_dir=BUILTIN)
    assert not track.is_circuit
    with pytest.raises(RaceSetupError, match="'first-sprint' is a sprint .*raced over 1 lap, not 2"):
        RaceState.start(track, preset("paper"), ["A"], laps=2)
    assert main(["sim", "--track", "starter/first-sprint", "--laps", "2", "--cars", "cpu:champion"]) == 1
    assert "is a sprint" in capsys.readouterr().err
    assert main(["solve", "starter/first-sprint", "--laps", "2"]) == 1
    assert "--laps: track 'first-sprint' is a sprint" in capsys.readouterr().err
    loop = load_track_ref("starter/paper-oval", builtin_dir=BUILTIN)
    assert loop.is_circuit and RaceState.start(loop, preset("paper"), ["A"], laps=3).laps == 3


def test_a_seed_out_of_range_is_named_as_the_option(capsys):
    assert main(["sim", "--track", "starter/first-sprint", "--cars", "cpu:rookie", "--seed", str(2 ** 70)]) == 1
    err = capsys.readouterr().err
    assert "--seed must be a whole number" in err and "replay: seed" not in err


# -- settings: values the check let through, and what the player wrote -----------------------------------
def test_a_binding_with_inf_is_a_settings_problem(tmp_path):
    (tmp_path / SETTINGS_FILE).write_text('[bindings.kb1]\nq = ["select", inf, 0]\n[sound]\nmaster = 30\n')
    settings, problems = load_settings(tmp_path)
    assert settings.bindings == {} and settings.master_volume == 30
    assert any("bindings" in str(p) and "whole numbers from -1 to 1" in str(p) for p in problems)


def test_unknown_keys_inside_known_tables_survive_a_save(tmp_path):
    (tmp_path / SETTINGS_FILE).write_text('[display]\nfullscreen = true\nvsync = "later"\n\n[future]\nx = 1\n')
    settings, problems = load_settings(tmp_path)
    assert settings.fullscreen
    assert {p.key for p in problems} == {"display.vsync", "future"}
    save_settings(settings, tmp_path)
    text = (tmp_path / SETTINGS_FILE).read_text()
    assert 'vsync = "later"' in text and "[future]" in text
    again, _ = load_settings(tmp_path)
    assert again == settings and again.extra == {"display": {"vsync": "later"}, "future": {"x": 1}}


def test_a_wrong_value_is_kept_in_a_copy_once_before_the_next_save(tmp_path):
    (tmp_path / SETTINGS_FILE).write_text("[sound]\nmaster = 250\n")
    for _ in range(3):  # every start reports it; one copy is enough
        settings, problems = load_settings(tmp_path)
    assert any("kept as settings.toml.broken" in str(p) for p in problems)
    assert sorted(p.name for p in tmp_path.iterdir()) == [SETTINGS_FILE, SETTINGS_FILE + ".broken"]
    save_settings(settings, tmp_path)
    assert (tmp_path / (SETTINGS_FILE + ".broken")).read_text() == "[sound]\nmaster = 250\n"


def test_the_results_screen_never_saves_over_another_race(tmp_path):
    from game.presentation.menus.results import replay_path

    (tmp_path / "loop-7.toml").write_text("# Racetrack replay\nanother race\n")
    assert replay_path(tmp_path, "loop-7", "# Racetrack replay\nthis race\n").name == "loop-7-2.toml"
    assert replay_path(tmp_path, "loop-7", "# Racetrack replay\nanother race\n").name == "loop-7.toml"


def test_sim_never_saves_its_replay_over_a_users_file(tmp_path, capsys):
    mine = tmp_path / "mine.toml"
    mine.write_text("mine\n")
    argv = ["sim", "--track", "starter/first-sprint", "--cars", "cpu:rookie", "--replay-out", str(mine)]
    assert main(argv) == 1
    assert "not written by Racetrack" in capsys.readouterr().err and mine.read_text() == "mine\n"
    assert main(argv + ["--force"]) == 0
    assert load_replay(mine).track == "starter/first-sprint"
    save_replay(load_replay(mine), mine)  # now the game's own file


# -- signals -----------------------------------------------------------------------------------------
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("sig, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_the_game_ends_on_sigterm_and_sigint_like_any_program(tmp_path, sig, status):
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "PYGAME_HIDE_SUPPORT_PROMPT": "1"}
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / SETTINGS_FILE).write_text("[damaged\n")  # set aside when the game starts: a sign
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from game.cli import main; sys.exit(main())",
                             "play", "--headless", "--home", str(tmp_path)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "config" / (SETTINGS_FILE + ".broken")).exists() and time.monotonic() < deadline:
            time.sleep(0.1)  # the game has read its settings: it is starting its window
        time.sleep(1.0)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(sig)
        assert proc.wait(timeout=30) == status
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_tracks_of_one_pack_share_a_node_budget(monkeypatch):
    import game.tracks.pack as pack

    monkeypatch.setattr(pack, "MAX_PACK_NODES", 100)
    loop = (HERE / "data" / "packs" / "good.toml").read_text()  # two small tracks of 66 and 60 nodes
    result = read_pack_text(loop, file="two.toml")
    assert len(result.tracks) == 1
    assert any("more than 100 grid nodes together" in str(p) for p in result.errors)


# -- output and names (issue 27) ------------------------------------------------------------------
MINICUP = HERE / "data" / "packs" / "minicup.toml"
RING_MAP = "XXXXXXXXX\nXOOOOOOOX\nXOXXXXXOX\nXSXXXXXFX\nXOXXXXXOX\nXOOOOOOOX\nXXXXXXXXX\n"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
def test_output_to_a_closed_pipe_ends_quietly_with_the_usual_status(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(HERE.parent), "TMPDIR": str(tmp_path)}
    run = subprocess.Popen([sys.executable, "-m", "game", "validate", str(BUILTIN / "starter.toml")], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    run.stdout.close()  # as `| head -1` does once it has its line
    err = run.stderr.read().decode()
    assert run.wait(timeout=60) == 141  # 128 + SIGPIPE, as the shell reports any program the pipe stopped
    assert "unexpected" not in err and "Traceback" not in err and "BrokenPipe" not in err
    assert not list(tmp_path.glob("racetrack-crash-*"))


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_names_print_on_a_terminal_that_is_not_utf8(tmp_path, monkeypatch, encoding):
    import io

    folder = tmp_path / "Bäume 🏎"
    folder.mkdir()
    (folder / "mini.toml").write_bytes(MINICUP.read_bytes())
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding=encoding, write_through=True)
    monkeypatch.setattr(sys, "stdout", out)
    assert main(["sim", "--track", f"{folder / 'mini.toml'}#dash", "--cars", "cpu:rookie"]) == 0
    text = raw.getvalue().decode(encoding)
    assert "\\U0001f3ce" in text and "finished" in text


def test_a_pack_whose_file_name_is_not_utf8_is_raced_saved_and_replayed(tmp_path, capsys):
    from game.race.replay import resolve_track_ref

    path = tmp_path / os.fsdecode(b"p\xffck.toml")
    path.write_bytes(MINICUP.read_bytes())
    out = tmp_path / "race.toml"
    assert main(["sim", "--track", f"{path}#dash", "--cars", "cpu:rookie", "--replay-out", str(out)]) == 0
    replay = load_replay(out)
    assert replay.track.endswith("p%FFck.toml#dash")  # UTF-8 text in the file, the byte escaped
    assert load_track_ref(resolve_track_ref(replay.track, out.parent), builtin_dir=BUILTIN).id == "dash"
    assert main(["replay", str(out)]) == 0
    assert "unexpected" not in capsys.readouterr().err


def test_a_map_whose_name_holds_a_hash_is_found_again_by_its_replay(tmp_path, capsys):
    from game.tracks.catalogue import entries_of
    from game.tracks.pack import read_map_file

    path = tmp_path / "ring#2.map"
    path.write_text(RING_MAP)
    out = tmp_path / "race.toml"
    assert main(["sim", "--track", str(path), "--cars", "cpu:rookie", "--replay-out", str(out)]) == 0
    assert load_replay(out).track.endswith("ring%232.map")
    assert main(["replay", str(out)]) == 0
    [entry] = entries_of(read_map_file(path), user=True)  # what the game's track select stores
    assert entry.ref.endswith("ring%232.map")
    assert load_track_ref(entry.ref, builtin_dir=BUILTIN).start_slots == entry.track.start_slots


def test_a_cup_of_a_pack_whose_name_holds_a_hash_loads_its_tracks_back(tmp_path, capsys):
    from game.race.cup import CUP_FILE, load_cup

    path = tmp_path / "my#mini.toml"
    path.write_bytes(MINICUP.read_bytes())
    out = tmp_path / "cup"
    assert main(["cup", "--pack", str(path), "--cup", "sprints", "--cars", "cpu:rookie", "--out", str(out)]) == 0
    saved = load_cup(out / CUP_FILE)
    assert [race.track.rpartition("#")[2] for race in saved.races] == ["dash", "step", "lane"]
    for race in saved.races:
        assert "my%23mini.toml#" in race.track
        assert load_track_ref(race.track, builtin_dir=BUILTIN).name == race.name


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names")
def test_an_escape_sequence_in_a_file_name_never_reaches_the_terminal(tmp_path):
    name = "\x1b[2J\x1b[31mred\rpack.toml"
    (tmp_path / name).write_bytes(MINICUP.read_bytes().replace(b'id = "dash"', b'id = "dash"\nlaps = 0', 1))
    env = {**os.environ, "PYTHONPATH": str(HERE.parent), "TMPDIR": str(tmp_path)}
    run = subprocess.run([sys.executable, "-m", "game", "validate", str(tmp_path / name)], env=env,
                         capture_output=True, timeout=60)
    out = run.stdout + run.stderr
    assert run.returncode == 1 and b"laps" in out
    assert b"\x1b" not in out and b"\r" not in out and b"\\x1b[2J\\x1b[31mred\\rpack.toml" in out


def test_a_broken_pack_whose_name_is_not_utf8_is_listed_with_a_drawable_name(tmp_path):
    from game.tracks import load_pack
    from game.tracks.catalogue import entries_of

    path = tmp_path / os.fsdecode(b"br\xffken.toml")
    path.write_text("format = 1\n[pack\n")
    [entry] = entries_of(load_pack(path), user=True)
    assert entry.track is None and entry.pack == "br\\xffken.toml"
    entry.ref.encode("utf-8")  # stored and drawn as text: no undecodable bytes left
