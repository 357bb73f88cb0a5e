"""The pack and outline validators say exactly what they said before: same problems, order, keys, lines.

The inputs and the answers are in ``tests/golden_validators`` (written by
``tools/make_validator_goldens.py`` from mutated packs and broken outline tables); they pin
every message while the validators are split into small checks.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden_validators"


def _cases(name: str) -> list[dict]:
    return json.loads((GOLDEN / name).read_text(encoding="utf-8"))


def _tools():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import make_validator_goldens
    finally:
        sys.path.remove(str(ROOT / "tools"))
    return make_validator_goldens


def test_every_broken_outline_gets_the_same_problems_in_the_same_order():
    tools = _tools()
    cases = _cases("outline.json")
    assert sum(1 for c in cases if c["expected"]["problems"]) > 50  # the corpus does break rules
    for case in cases:
        got = json.loads(json.dumps(tools.outline_outcome(case)))
        assert got == case["expected"], case["data"]


def test_every_mutated_pack_gets_the_same_located_problems():
    tools = _tools()
    cases = _cases("packs.json")
    assert sum(1 for c in cases if c["expected"]["problems"]) > 100
    for case in cases:
        assert tools.pack_outcome(case) == case["expected"], case["text"][:200]
