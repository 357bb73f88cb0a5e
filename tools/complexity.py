"""The largest functions in ``game/`` by cyclomatic complexity, so a long one is seen before review.

How to run (from the checkout)::

    python tools/complexity.py               # the 20 most complex functions in game/
    python tools/complexity.py --top 50      # more of them
    python tools/complexity.py --over 30     # only those above 30; exits 1 when there are any
    python tools/complexity.py game/tracks   # one folder (or file)

The figures come from radon (``pip install radon``), the usual measure: 1 for the function, plus
one per ``if``/``elif``, conditional expression, loop (and its ``else``), ``except`` handler,
``try``'s ``else``, extra operand of ``and``/``or``, comprehension clause, ``assert`` and ``case``.
Without radon the script counts the same branch points itself with the standard ``ast`` module
and says so in its header. Nested functions and methods are measured on their own, as radon does.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
from pathlib import Path
from typing import NamedTuple


class Measure(NamedTuple):
    """One function's cyclomatic complexity and where it is."""

    complexity: int
    path: str
    line: int
    name: str


def _radon_measures(path: Path, source: str) -> list[Measure]:
    """Every function and method in one file, measured by radon."""
    from radon.complexity import cc_visit  # optional tool, only when installed

    found: list[Measure] = []
    for block in cc_visit(source):
        if block.letter == "C":  # a class: radon lists its methods as blocks of their own
            continue
        found.append(Measure(block.complexity, str(path), block.lineno, block.fullname))
        found.extend(Measure(c.complexity, str(path), c.lineno, f"{block.fullname}.{c.name}")
                     for c in block.closures)
    return found


class _Counter(ast.NodeVisitor):
    """Radon's branch points of one function body, not descending into nested functions."""

    def __init__(self) -> None:
        self.count = 1

    def generic_visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.Try):
            self.count += len(node.handlers) + bool(node.orelse)
        elif isinstance(node, ast.BoolOp):
            self.count += len(node.values) - 1
        elif isinstance(node, (ast.If, ast.IfExp)):
            self.count += 1
        elif isinstance(node, ast.Match):  # a wildcard case is the match's "else"
            wildcard = any(getattr(case.pattern, "pattern", False) is None for case in node.cases)
            self.count += max(0, len(node.cases) - wildcard)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            self.count += 1 + bool(node.orelse)
        elif isinstance(node, ast.comprehension):
            self.count += 1 + len(node.ifs)
        super().generic_visit(node)

    def visit_Assert(self, node: ast.Assert) -> None:  # one point, its condition not looked into
        self.count += 1

    def visit_FunctionDef(self, node: ast.AST) -> None:  # measured on its own
        return None

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_ClassDef = visit_FunctionDef


def _ast_measures(path: Path, source: str) -> list[Measure]:
    """Every function and method in one file, measured by the fallback counter."""
    found: list[Measure] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                counter = _Counter()
                for statement in child.body:
                    counter.visit(statement)
                found.append(Measure(counter.count, str(path), child.lineno, prefix + child.name))
                walk(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")
            else:
                walk(child, prefix)

    walk(ast.parse(source, filename=str(path)), "")
    return found


def measure(roots: list[Path]) -> tuple[list[Measure], str]:
    """All functions under the given folders or files, most complex first, and the tool used."""
    try:
        import radon  # noqa: F401  (only to learn whether it is installed)
        measure_file, tool = _radon_measures, "radon"
    except ImportError:
        measure_file, tool = _ast_measures, "the built-in ast counter (pip install radon for radon's)"
    files = sorted(p for root in roots for p in ([root] if root.is_file() else root.rglob("*.py")))
    found = [m for path in files for m in measure_file(path, path.read_text(encoding="utf-8"))]
    found.sort(key=lambda m: (-m.complexity, m.path, m.line))
    return found, tool


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 1 when ``--over`` is given and some function is above it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="*", type=Path, help="folders or files (default: game/)")
    parser.add_argument("--top", type=int, default=20, help="how many to list (default 20)")
    parser.add_argument("--over", type=int, default=None,
                        help="list only functions above this complexity, and fail if any")
    args = parser.parse_args(argv)
    roots = args.roots or [Path(__file__).resolve().parent.parent / "game"]
    found, tool = measure(roots)
    shown = [m for m in found if args.over is None or m.complexity > args.over]
    if args.over is None:
        shown = shown[: args.top]
    print(f"cyclomatic complexity by {tool}; {len(found)} functions measured")
    for m in shown:
        print(f"{m.complexity:4d}  {os.path.relpath(m.path)}:{m.line}  {m.name}")
    if args.over is not None:
        print(f"{len(shown)} function(s) above {args.over}")
        return 1 if shown else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
