"""Import cycles among the modules of ``game/``, counting every import, also those inside functions.

How to run (from the checkout)::

    python tools/import_cycles.py            # the cycles (strongly connected components), exit 1 if any
    python tools/import_cycles.py --local    # also list every function-level import, with its place

A cycle hidden by moving one of its imports into a function still counts here: the graph is built
with ``ast`` from all ``import`` and ``from ... import`` statements, wherever they stand. Imports
under ``if TYPE_CHECKING:`` are left out (they never run). ``from game.a import b`` points at the
module ``game.a.b`` when that is a module, else at ``game.a``; importing a module also runs its
package's ``__init__``, but that implicit edge is not counted (every package would be a cycle).
``tests/test_layers.py`` uses :func:`import_graph` and :func:`cycles` to keep ``game/`` free of cycles.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent


class LocalImport(NamedTuple):
    """One import statement inside a function: where it is and what it imports."""

    path: str
    line: int
    function: str
    module: str


def module_names(package: Path) -> dict[str, Path]:
    """Every module under ``package`` by dotted name (``game.core.race``; packages by their own name)."""
    names = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.Module):
    """(node, enclosing function name or None) for each import that runs, skipping TYPE_CHECKING blocks."""
    def walk(node, function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for sub in child.orelse:
                    yield from walk_one(sub, function)
                continue
            yield from walk_one(child, function)

    def walk_one(child, function):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child, function
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from walk(child, child.name if function is None else f"{function}.{child.name}")
        else:
            yield from walk(child, function)

    yield from walk(tree, None)


def _targets(node, module: str, is_package: bool, known: dict[str, Path]) -> list[str]:
    """The modules of ``known`` that one import statement in ``module`` loads."""
    if isinstance(node, ast.Import):
        bases = [alias.name for alias in node.names]
        found = []
        for name in bases:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                found.append(name)
        return found
    base = node.module or ""
    if node.level:
        anchor = module.split(".") if is_package else module.split(".")[:-1]
        anchor = anchor[:len(anchor) - (node.level - 1)]
        base = ".".join(anchor + ([base] if base else []))
    found = []
    for alias in node.names:
        if f"{base}.{alias.name}" in known:
            found.append(f"{base}.{alias.name}")
        elif base in known:
            found.append(base)
    return found


def import_graph(package: Path = ROOT / "game") -> tuple[dict[str, set[str]], list[LocalImport]]:
    """The module graph of ``package`` (module -> modules it imports, at any level) and its
    function-level imports of any module (``game`` or not)."""
    known = module_names(package)
    graph: dict[str, set[str]] = {name: set() for name in known}
    local: list[LocalImport] = []
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node, function in _imports(tree):
            targets = _targets(node, name, path.name == "__init__.py", known)
            graph[name].update(t for t in targets if t != name)
            if function is not None:
                what = node.module if isinstance(node, ast.ImportFrom) and node.module else \
                    ", ".join(alias.name for alias in node.names)
                local.append(LocalImport(str(path.relative_to(package.parent)), node.lineno, function, what))
    return graph, local


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def cycle_edges(graph: dict[str, set[str]], component: list[str]) -> list[tuple[str, str]]:
    """The imports inside one component: the edges to cut to break it."""
    members = set(component)
    return sorted((a, b) for a in component for b in graph[a] if b in members)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--local", action="store_true", help="list every function-level import")
    args = parser.parse_args(argv)
    graph, local = import_graph()
    found = cycles(graph)
    print(f"{len(graph)} modules, {sum(map(len, graph.values()))} imports between them, "
          f"{len(local)} function-level imports, {len(found)} cycles")
    for component in found:
        print(f"\ncycle of {len(component)} modules:")
        for a, b in cycle_edges(graph, component):
            print(f"  {a} -> {b}")
    if args.local:
        print()
        for item in local:
            print(f"{item.path}:{item.line} in {item.function}: {item.module}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
