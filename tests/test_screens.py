"""The screen graph: screens go on to each other by registered name, and no screen imports another."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

import game.presentation.menus as menus_package
from game.presentation.menus.screens import ALSO_AHEAD, GRAPH, Screens

MENUS = Path(menus_package.__file__).parent
#: Parts every menu may use; they are no screen and import none.
SHARED = {"common", "seats", "keys", "previews", "par", "notices", "race", "screens"}
#: The one module that knows where the screens live.
REGISTRY = "screens"


def menu_imports(path: Path) -> set[str]:
    """The menus-package modules ``path`` imports, at its top or inside any function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            if name.startswith("game.presentation.menus."):
                found.add(name.split(".")[3])
    return found


def modules() -> list[Path]:
    return sorted(MENUS.glob("*.py"))


def test_the_walk_finds_imports_inside_functions_too(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def go():\n    from game.presentation.menus.title import TitleScene\n"
                      "import game.presentation.menus.lobby\nfrom game.presentation.menus import tracks\n")
    assert menu_imports(sample) == {"title", "lobby", "tracks"}


@pytest.mark.parametrize("path", modules(), ids=lambda p: p.stem)
def test_no_menu_module_imports_a_screen_module(path):
    if path.stem == REGISTRY:
        return
    screens = {p.stem for p in modules()} - SHARED - {"__init__"}
    wrong = menu_imports(path) & screens
    assert not wrong, f"{path.name} imports the screen module(s) {sorted(wrong)}: go there by name (ctx.screens)"


@pytest.mark.parametrize("name", sorted(SHARED - {REGISTRY}))
def test_shared_parts_import_only_shared_parts(name):
    assert menu_imports(MENUS / f"{name}.py") <= SHARED


def test_the_registry_imports_no_screen_when_it_is_loaded():
    tree = ast.parse((MENUS / "screens.py").read_text(encoding="utf-8"))
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert not any((getattr(n, "module", "") or "").startswith("game.presentation.menus") for n in top)


def test_every_registered_screen_can_be_found_and_every_link_is_a_registered_name():
    screens = Screens()
    for screen in GRAPH:
        assert callable(screen.maker()), screen.name
        assert isinstance(screen.scene_class(), type), screen.name
        for name in screen.leads_to:
            assert name in screens, f"{screen.name} leads to {name!r}, which is not registered"


def names_gone_to(path: Path) -> set[str]:
    """The screen names ``path`` pushes, replaces with, pops to or makes (``....screens.push(stack, "x", ...)``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("push", "replace", "pop_to", "make")
                and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "screens"):
            found |= {a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
    return found


def test_every_name_a_menu_goes_to_is_registered_and_listed_in_the_graph():
    screens = Screens()
    reached = set()
    for path in modules():
        for name in names_gone_to(path):
            assert name in screens, f"{path.name} goes to {name!r}, which is not registered"
            reached.add(name)
    listed = {n for s in GRAPH for n in s.leads_to}
    assert reached - {"title"} <= listed, f"gone to but not in the graph: {reached - listed - {'title'}}"
    # the names a screen goes on to through its next_screen option are in the graph too
    assert {dict(s.options)["next_screen"] for s in GRAPH if "next_screen" in dict(s.options)} <= listed
    assert {"lobby", "rules", "race", "pause", "results", "tracks", "title", "replay", "controls"} <= reached


def test_an_unknown_name_says_which_names_there_are():
    with pytest.raises(KeyError, match="no screen is registered as 'lobbby'.*lobby"):
        Screens().make("lobbby", None)


def scenes_made_in_place(path: Path) -> list[str]:
    """Where ``path`` puts a scene it made itself on the stack, not one made by name:
    ``stack.push(StandingsScene(...))``, ``stack.replace(start_race(...))`` (a screen's class or
    maker called in the push), as ``line: call``."""
    makers = {s.where.split(":")[1] for s in GRAPH} | {s.scene_class().__name__ for s in GRAPH}
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("push", "replace")):
            continue
        owner = node.func.value
        if isinstance(owner, ast.Attribute) and owner.attr == "screens":
            continue  # by name: ctx.screens.push(stack, "cup-race", ...)
        for arg in node.args:
            for call in ast.walk(arg):
                if isinstance(call, ast.Call):
                    func = call.func
                    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                    if name in makers or name.endswith("Scene"):
                        found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_walk_finds_a_scene_made_in_place(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def go(self, ctx):\n    self.stack.replace(StandingsScene(ctx))\n"
                      "    self.stack.push(start_race(ctx, plan))\n    ctx.screens.push(self.stack, 'race', ctx)\n"
                      "    self.stack.replace(self.race.restart_scene())\n")
    assert [line.split(":")[0] for line in scenes_made_in_place(sample)] == ["2", "3"]


@pytest.mark.parametrize("path", modules(), ids=lambda p: p.stem)
def test_no_menu_puts_a_screen_it_made_itself_on_the_stack(path):
    """Within one module too, a screen goes on to another by name (so the graph above is the whole graph)."""
    if path.stem == REGISTRY:
        return
    wrong = scenes_made_in_place(path)
    assert not wrong, f"{path.name} makes a screen in place instead of by name: {wrong}"


def screens_made_from_elsewhere(path: Path) -> list[str]:
    """Where ``path`` makes a screen registered in another module with that screen's own class or
    maker (``ReplayViewerScene(...)`` in the replays list) instead of by name; a registered maker
    may build on another (the cup's race is the menus' race, configured), as ``line: call``."""
    home: dict[str, set[str]] = {}
    for screen in GRAPH:
        for where in (screen.where, screen.kind or screen.where):
            module, attribute = where.split(":")
            home.setdefault(attribute, set()).add(module)
    makers = {s.where.split(":")[1] for s in GRAPH}
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inside_makers = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name in makers
                     for n in ast.walk(f)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and id(node) not in inside_makers:
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in home and path.stem not in home[name]:
                found.append(f"{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_the_walk_finds_a_screen_of_another_module_made_by_its_class(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def go(self, ctx):\n    viewer = ReplayViewerScene(states, records, names, ctx.size)\n"
                      "    self.stack.push(viewer)\n\ndef cup_race(ctx, session):\n    return start_race(ctx, plan)\n")
    assert [line.split(":")[0] for line in screens_made_from_elsewhere(sample)] == ["2"]


@pytest.mark.parametrize("path", modules(), ids=lambda p: p.stem)
def test_no_menu_makes_another_modules_screen_by_its_class(path):
    if path.stem == REGISTRY:
        return
    wrong = screens_made_from_elsewhere(path)
    assert not wrong, f"{path.name} makes another module's screen itself instead of by name: {wrong}"


AHEAD = """
import sys
from game.presentation.menus.screens import GRAPH, ImportAhead, Screens

ahead = ImportAhead(["game.presentation.menus.no_such_screen"] + Screens().modules()).start()
assert ahead.wait(600), "the worker never finished"
before = {m for m in sys.modules if m.startswith("game")}
for screen in GRAPH:
    screen.maker(), screen.scene_class()
from game.presentation.menus.screens import ALSO_AHEAD
assert all(m in before for m in ALSO_AHEAD), [m for m in ALSO_AHEAD if m not in before]
late = sorted({m for m in sys.modules if m.startswith("game")} - before)
print("late:", late)
assert not late, late
"""


def test_after_the_title_imported_ahead_no_screen_imports_on_its_first_frame():
    """A screen opened after start-up imports nothing (an import in its first frame freezes the
    picture for hundreds of milliseconds); a module that fails to import does not stop the rest.
    In a fresh interpreter: this one's tests have imported everything already."""
    import subprocess
    import sys

    root = Path(menus_package.__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", AHEAD], cwd=root, capture_output=True, text=True, timeout=600,
                          env={**__import__("os").environ, "PYTHONPATH": str(root)})
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_modules_imported_ahead_are_every_screens_once():
    modules = Screens().modules()
    assert len(modules) == len(set(modules))
    wanted = {f"game.presentation.menus.{w.split(':')[0]}" for s in GRAPH for w in (s.where, s.kind) if w}
    assert set(modules) == wanted | set(ALSO_AHEAD)
    for module in ALSO_AHEAD:  # (a module renamed would silently no longer be imported ahead)
        assert importlib.util.find_spec(module) is not None, module
    assert modules[:3] == ["game.presentation.menus.title", "game.presentation.menus.lobby",
                           "game.presentation.menus.tracks"]
