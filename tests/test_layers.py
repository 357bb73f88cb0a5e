"""The architecture holds: the pure layers run without pygame and imports point one way."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PURE = ("core", "tracks", "drivers", "race", "phones")
# Each layer and the layers it may import from (besides itself).
ALLOWED = {
    "core": set(),
    "tracks": {"core"},
    "drivers": {"core", "tracks"},
    "race": {"core", "tracks", "drivers"},
    "phones": {"core", "tracks", "drivers", "race"},  # the phones' server and views: pure, beside race control
}


def modules(layer: str) -> list[str]:
    return sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in (ROOT / "game" / layer).rglob("*.py"))


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


#: Imports every module named on its command line (layer:module) with pygame blocked; prints
#: {layer: [the traceback of each module that failed]} as JSON.
_IMPORT_ALL = """
import importlib, json, sys, traceback
sys.modules['pygame'] = None
failed = {}
for arg in sys.argv[1:]:
    layer, name = arg.split(':')
    try:
        importlib.import_module(name)
    except BaseException:
        failed.setdefault(layer, []).append(traceback.format_exc())
print(json.dumps(failed))
"""


@pytest.fixture(scope="module")
def failed_without_pygame() -> dict:
    """Every module of the pure layers imported in one fresh interpreter with pygame absent
    (one start instead of one per layer): the tracebacks of the failures, by layer."""
    import json

    args = [f"{layer}:{m.removesuffix('.__init__')}" for layer in PURE for m in modules(layer)]
    result = subprocess.run([sys.executable, "-c", _IMPORT_ALL, *args], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("layer", PURE)
def test_pure_layers_import_with_pygame_absent(layer, failed_without_pygame):
    assert not failed_without_pygame.get(layer), "\n".join(failed_without_pygame[layer])


@pytest.mark.parametrize("layer", PURE)
def test_imports_point_down_the_layers(layer):
    for path in (ROOT / "game" / layer).rglob("*.py"):
        for name in imported_modules(path):
            parts = name.split(".")
            assert parts[0] != "pygame", f"{path.relative_to(ROOT)} imports pygame"
            if parts[0] == "game" and len(parts) > 1 and parts[1] in ("core", "tracks", "drivers", "race", "phones",
                                                                        "presentation", "commands", "cli"):
                assert parts[1] == layer or parts[1] in ALLOWED[layer], \
                    f"{path.relative_to(ROOT)} (layer {layer}) imports {name}"


def _import_cycles_tool():
    """tools/import_cycles.py, loaded by path (tools/ is not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("import_cycles", ROOT / "tools" / "import_cycles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_import_cycles_even_through_function_level_imports():
    tool = _import_cycles_tool()
    graph, _ = tool.import_graph(ROOT / "game")
    found = tool.cycles(graph)
    report = "\n".join(" <-> ".join(component) + ": " + ", ".join(f"{a} -> {b}" for a, b in
                                                                    tool.cycle_edges(graph, component))
                       for component in found)
    assert not found, f"import cycles in game/:\n{report}"


def test_the_cycle_finder_sees_a_cycle_hidden_in_a_function(tmp_path):
    tool = _import_cycles_tool()
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg import b\n")
    (package / "b.py").write_text("def later():\n    from pkg.a import thing\n")
    (package / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n")
    graph, local = tool.import_graph(package)
    assert tool.cycles(graph) == [["pkg.a", "pkg.b"]]
    assert [(item.path, item.function, item.module) for item in local] == [("pkg/b.py", "later", "pkg.a")]
