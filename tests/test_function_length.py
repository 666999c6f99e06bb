"""No function in Apollo's source is longer than 80 lines (issue 14): a longer one does more than
one thing, and a reader cannot hold it at once. Read from the AST of every module; a nested
function counts within the function around it, and once more on its own."""

from __future__ import annotations

import ast
from pathlib import Path

import apollo

SOURCE = Path(apollo.__file__).parent
LIMIT = 80


def too_long(text: str, limit: int = LIMIT) -> list[tuple[str, int]]:
    """(qualified name, lines) of every function or method longer than ``limit`` lines, its
    decorators and docstring included."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    lines = (child.end_lineno or child.lineno) - first + 1
                    if lines > limit:
                        found.append((name, lines))
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(text), "")
    return found


def test_the_measure_counts_lines_of_functions_methods_and_nested_ones() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(4))
    text = (f"def short():\n{body}\n\n"
            f"class C:\n    @staticmethod\n    def method():\n    {body.replace(chr(10), chr(10) + '    ')}\n\n"
            f"def outer():\n    def inner():\n    {body.replace(chr(10), chr(10) + '    ')}\n    return inner\n")
    assert too_long(text, limit=5) == [("C.method", 6), ("outer", 7)]
    assert too_long(text, limit=4) == [("short", 5), ("C.method", 6), ("outer", 7), ("outer.inner", 5)]


def test_no_function_is_longer_than_80_lines() -> None:
    long = [f"{path.relative_to(SOURCE.parent)}: {name} ({lines} lines)"
            for path in sorted(SOURCE.rglob("*.py")) for name, lines in too_long(path.read_text(encoding="utf-8"))]
    assert not long, "split these: " + "; ".join(long)
