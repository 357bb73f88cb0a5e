"""Golden problem lists of the pack and outline validators, to refactor them without changing a message.

How to run (from the checkout)::

    PYTHONPATH=$PWD python tools/make_validator_goldens.py          # rewrite tests/golden_validators/*.json
    PYTHONPATH=$PWD python tools/make_validator_goldens.py --check  # compare only, print what differs

It gathers inputs that produce problems and records what the game says about each:

- ``outline.json``: outline tables (from the test packs, the terrain test and a built-in
  circuit) with one key dropped, swapped for a hostile value or for a shape that breaks one
  rule of the format (a ring crossing itself, an island outside, a line along the forward
  direction, a start off the road ...), and random mixes of those; each goes through
  :func:`game.tracks.outline.check_outline`.
- ``packs.json``: the fuzzer's mutations (``tools/fuzz_inputs.py``) of the test and built-in
  packs, through :func:`game.tracks.pack.read_pack_text`.

Only inputs whose problems differ from every earlier one's (ignoring numbers) are kept, so
the files stay small. ``tests/test_validator_golden.py`` replays them: the full problem
lists (order, severity, key, line, message) must come out the same. Regenerate only when a
message is meant to change, and read the diff.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import re
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
GOLDEN = HERE / "tests" / "golden_validators"


def outline_bases() -> list[dict]:
    """Outline tables that compile, with the track keys around them (laps, rules, forward)."""
    good = tomllib.loads((HERE / "tests" / "data" / "packs" / "good.toml").read_text(encoding="utf-8"))
    bases = [dict(outline=t["outline"], laps=t.get("laps", 1), rules=t.get("rules", "paper"))
             for t in good["track"] if "outline" in t]
    bases.append(dict(outline={
        "outer": [[0.5, 0.5], [20.5, 0.5], [20.5, 10.5], [0.5, 10.5]],
        "islands": [[[4.5, 4.5], [16.5, 4.5], [16.5, 6.5], [4.5, 6.5]]],
        "finish": [[10, 0.5], [10, 4.5]], "forward": "right", "start": [[11, 2], [11, 3]],
        "terrain": [{"kind": "sand", "ring": [[12.6, 0.6], [16.4, 0.6], [16.4, 3.4], [12.6, 3.4]]},
                    {"kind": "water", "ring": [[12.6, 7.6], [16.4, 7.6], [16.4, 9.4], [12.6, 9.4]]}]},
        laps=2, rules="paper"))
    bases.append(dict(outline={  # a sprint with a start line and slots
        "outer": [[0.5, 0.5], [30.5, 0.5], [30.5, 6.5], [0.5, 6.5]],
        "finish": [[27, 0.5], [27, 6.5]], "forward": [1, 0], "start_line": [[4, 0.5], [4, 6.5]],
        "slots": 4, "checkpoints": [[[15, 0.5], [15, 6.5]]]}, laps=1, rules="arcade"))
    grand = tomllib.loads((HERE / "tracks" / "grand-prix.toml").read_text(encoding="utf-8"))
    bases.append(dict(outline=grand["track"][0]["outline"], laps=grand["track"][0].get("laps", 1),
                      rules=grand["track"][0].get("rules", "paper")))
    return bases


#: Values any key may be swapped for: wrong types, empty, out of range, hostile.
HOSTILE_VALUES = ["x", 3, -1, 1.5, True, None, [], {}, [[]], [1, 2], [[0, 0]], [[1, 1], [1, 1]],
                  [["a", "b"], [1, 2]], [[1e999, 0], [1, 1]], [[float("nan"), 1], [2, 2], [3, 1]],
                  [[0, 0]] * 5000, [[1, 1], [2, 2], [3, 3]], "left", "up", [0, 0], [1, 1], [[1, 2, 3], [4, 5]],
                  [[-5, -5], [5, -5], [5, 5], [-5, 5]], [[0, 0], [100000, 0], [100000, 100000], [0, 100000]],
                  65, 0, 64, [[[0, 0], [1, 0], [0, 1]]] * 300, [{"kind": "ice"}], [{"ring": [[1, 1], [2, 1], [1, 2]]}],
                  [{"kind": "lava", "ring": [[1, 1], [2, 1], [1, 2]]}], [{"kind": "sand", "ring": 3}], ["sand"]]


def shapes(base: dict) -> list[dict]:
    """Outline tables that each break one rule of the format on purpose."""
    o = base["outline"]
    xs = [p[0] for p in o["outer"]]
    ys = [p[1] for p in o["outer"]]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    bow = [[x0, y0], [x1, y1], [x1, y0], [x0, y1]]
    tiny = lambda cx, cy, r=0.4: [[cx - r, cy - r], [cx + r, cy - r], [cx + r, cy + r], [cx - r, cy + r]]  # noqa: E731
    changes = {
        "outer": [bow, [[x0, y0], [x1, y0], [x1, y1]], [[p[0] - x0 - 3, p[1]] for p in o["outer"]]],
        "islands": [[bow], [tiny(x1 + 5, y1 + 5)], [tiny(x0, y0, 1)], [tiny(mx, my), tiny(mx, my, 0.2)],
                    [tiny(mx, my, 1.2), tiny(mx + 0.5, my, 1.2)], [tiny(x0 + 1.2, y0 + 1.2, 0.3)]],
        "terrain": [[{"kind": "sand", "ring": bow}], [{"kind": "ice", "ring": tiny(x0, y0, 1)}],
                    [{"kind": "grass", "ring": tiny(mx, my, 0.3)}],
                    [{"kind": "sand", "ring": tiny(x0 + 1.5, y0 + 1.5, 0.6)},
                     {"kind": "ice", "ring": tiny(x0 + 1.7, y0 + 1.7, 0.6)}],
                    [{"kind": "water", "ring": tiny(x0 + 1.5, y0 + 1.5, 0.6)}],
                    [{"kind": "sand", "ring": tiny(x1 - 1.5, y1 - 1.5, 0.6), "extra": 1}]],
        "finish": [[[x0, y0], [x1, y0]], [[mx, my - 0.2], [mx, my + 0.2]], [[x1 + 5, y0], [x1 + 5, y1]],
                   [[x0 + 1, y0], [x0 + 1, y1]], [[mx, y0], [mx, y1]], [[x1 - 1, y0], [x1 - 1, y1]]],
        "checkpoints": [[[[x0, my], [x1, my]]], [[[mx, y0], [mx, y1]]], [[[x1 + 3, y0], [x1 + 3, y1]]],
                        [[[x0 + 2, y0], [x0 + 2, y1]], [[x1 - 2, y0], [x1 - 2, y1]]],
                        [[[mx, my - 0.1], [mx, my + 0.1]]]],
        "forward": ["left", "up", "down", [0, 1], [-1, 0], [0, 0], "sideways", [1, 1]],
        "start": [[[0, 0]], [[int(mx), int(my)]], [[int(x0) + 1, int(y0) + 1]] * 2, [[int(x1) + 3, 0]],
                  [[int(x0) + 1, int(y0) + 1], [int(x1) - 1, int(y1) - 1]], [[-1, -1]]],
        "start_line": [[[x0 + 3, y0], [x0 + 3, y1]], [[x0, my], [x1, my]], [[mx, y0], [mx, y0 + 0.2]]],
        "slots": [1, 64, 63],
    }
    out = []
    for key, values in changes.items():
        for value in values:
            data = copy.deepcopy(o)
            data[key] = value
            if key == "start_line":
                data.pop("start", None)
                data.setdefault("slots", 2)
            if key == "slots" and "start_line" not in data:
                data.pop("start", None)
                data["start_line"] = [[x0 + 3, y0], [x0 + 3, y1]]
            out.append(data)
    return out


def outline_inputs(rng: random.Random, mixes: int) -> list[dict]:
    """Every outline case: (data, laps, rules, forward given as the track's key or not)."""
    cases = []
    for base in outline_bases():
        o, laps, rules = base["outline"], base["laps"], base["rules"]
        cases.append(dict(data=o, laps=laps, rules=rules))
        cases.append(dict(data=o, laps=3, rules=rules))
        cases.append(dict(data=o, laps=0, rules="nonsense"))
        cases.append(dict(data=[1, 2], laps=laps, rules=rules))
        cases.append(dict(data={k: v for k, v in o.items() if k != "forward"}, laps=laps, rules=rules,
                          forward=o.get("forward")))
        cases.append(dict(data=o, laps=laps, rules=rules, forward="left"))
        cases.append(dict(data={**o, "start": [[1, 1]], "start_line": [[0, 0], [0, 1]]}, laps=laps, rules=rules))
        cases.append(dict(data={k: v for k, v in o.items() if k not in ("start", "start_line", "slots")},
                          laps=laps, rules=rules))
        cases.append(dict(data={**o, "unknown": 1, "Outer": 2}, laps=laps, rules=rules))
        for key in o:
            cases.append(dict(data={k: v for k, v in o.items() if k != key}, laps=laps, rules=rules))
            for value in HOSTILE_VALUES:
                cases.append(dict(data={**o, key: value}, laps=laps, rules=rules))
        for shaped in shapes(base):
            cases.append(dict(data=shaped, laps=laps, rules=rules))
        pool = shapes(base)
        for _ in range(mixes):
            a, b = rng.choice(pool), rng.choice(pool)
            key = rng.choice(list(b))
            cases.append(dict(data={**a, key: b[key]}, laps=rng.choice([1, 2, laps]), rules=rules))
    return cases


def outline_outcome(case: dict) -> dict:
    """What :func:`check_outline` says about one case, as plain JSON values."""
    from game.tracks.outline import check_outline

    track, problems = check_outline(case["data"], id="t", laps=case["laps"], rules=case["rules"],
                                    forward=case.get("forward"))
    return {"problems": [[p.severity, p.key, p.line, p.message] for p in problems],
            "track": None if track is None else {
                "start": [[v.x, v.y] for v in track.start_slots], "checkpoints": len(track.checkpoints),
                "circuit": track.meta.get("circuit"), "forward": list(track.forward)}}


def pack_inputs(rng: random.Random, count: int) -> list[dict]:
    """The fuzzer's mutations of the packs it starts from."""
    sys.path.insert(0, str(HERE / "tools"))
    import fuzz_inputs

    cache: dict = {}
    seeds = fuzz_inputs.seeds("pack")
    cases = [dict(file=seed.name, text=seed.read_text(encoding="utf-8")) for seed in seeds]
    for _ in range(count):
        seed = rng.choice(seeds)
        cases.append(dict(file=seed.name, text=fuzz_inputs.one_input("pack", seed, rng, cache)))
    return cases


def pack_outcome(case: dict) -> dict:
    """What :func:`read_pack_text` says about one pack text, as plain JSON values."""
    from game.tracks.pack import read_pack_text

    result = read_pack_text(case["text"], file=case["file"])
    return {"problems": [str(p) for p in result.problems],
            "tracks": [t.id for t in result.tracks], "pack": None if result.pack is None else result.pack.id}


def _shape(outcome: dict) -> str:
    """An outcome with its numbers and quoted names blurred, to keep one input per kind of answer."""
    kinds = set()
    for problem in outcome["problems"]:
        text = problem if isinstance(problem, str) else f"{problem[1]}: {problem[3]}"
        text = re.sub(r"^[^\]]*\] |^[^:]*:\d*:? ", "", text)  # the file, line and track
        kinds.add(" ".join(re.sub(r"\d+|'[^']*'|\"[^\"]*\"", "#", text).split()[:6]))
    return json.dumps(sorted(kinds))


def collect(cases: list[dict], outcome, size: int = 40_000, most: int = 200) -> list[dict]:
    """The cases worth keeping (a new kind of answer, at most ``most``), each with its outcome."""
    kept, seen = [], set()
    for case in cases:
        if len(kept) >= most:
            break
        if len(json.dumps(case)) > size:  # keep the files small; size limits have their own tests
            continue
        result = outcome(case)
        shape = _shape(result)
        if shape in seen:
            continue
        seen.add(shape)
        kept.append({**case, "expected": result})
    return kept


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` compare) the golden files."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the files, write nothing")
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args(argv)
    if args.check:
        bad = 0
        for name, outcome in (("outline.json", outline_outcome), ("packs.json", pack_outcome)):
            for case in json.loads((GOLDEN / name).read_text(encoding="utf-8")):
                got = json.loads(json.dumps(outcome(case)))
                if got != case["expected"]:
                    bad += 1
                    print(f"{name}: differs\n  was {case['expected']}\n  now {got}")
        print(f"{bad} case(s) differ")
        return 1 if bad else 0
    rng = random.Random(args.seed)  # the corpus is fixed once written; only its making is random
    GOLDEN.mkdir(exist_ok=True)
    for name, cases, outcome, size in (("outline.json", outline_inputs(rng, 150), outline_outcome, 40_000),
                                       ("packs.json", pack_inputs(rng, 1500), pack_outcome, 6_000)):
        kept = collect(cases, outcome, size)
        (GOLDEN / name).write_text(json.dumps(kept, indent=0, allow_nan=True) + "\n", encoding="utf-8")
        print(f"{name}: {len(kept)} of {len(cases)} inputs kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())
