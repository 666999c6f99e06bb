"""No import cycles among Apollo's modules.

Read statically from the AST of every module (no import runs), in two graphs reported separately:
the imports a module runs when it is loaded (module level), and those plus the imports inside
functions (deferred, but still one module needing the other: a cycle there is the same tangle,
only hidden from the interpreter). Imports under ``if TYPE_CHECKING:`` never run and are left out.
An import names the most specific Apollo module it reaches: ``from apollo.autophagy import remove``
is an edge to ``apollo.autophagy.remove``, ``from apollo.autophagy.fs import Root`` to
``apollo.autophagy.fs``, and a package reached only as the parent of a module is not an edge.
"""

from __future__ import annotations

import ast
from pathlib import Path

import apollo

SOURCE = Path(apollo.__file__).parent
Graph = dict[str, set[str]]


def module_names() -> dict[str, Path]:
    found = {}
    for path in SOURCE.rglob("*.py"):
        rel = path.relative_to(SOURCE.parent).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, in_function: bool = False) -> list[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import under ``tree`` with whether it sits inside a function; TYPE_CHECKING blocks skipped."""
    found: list[tuple[ast.Import | ast.ImportFrom, bool]] = []
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.If) and _is_type_checking(child):
            for other in child.orelse:
                found += _imports(ast.Module(body=[other], type_ignores=[]), in_function)
            continue
        if isinstance(child, ast.Import | ast.ImportFrom):
            found.append((child, in_function))
        found += _imports(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda))
    return found


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The Apollo modules one import statement reaches (the most specific one for each name)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in known}
    base = node.module or ""
    if node.level:
        package = module if is_package else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{base}" if base else package
    reached = set()
    for alias in node.names:
        if f"{base}.{alias.name}" in known:
            reached.add(f"{base}.{alias.name}")
        elif base in known:
            reached.add(base)
    return reached


def import_graphs() -> tuple[Graph, Graph]:
    """(module-level imports, module-level and function-level imports), Apollo modules only."""
    modules = module_names()
    known = set(modules)
    top: Graph = {name: set() for name in modules}
    every: Graph = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node, in_function in _imports(tree):
            reached = _targets(node, name, path.name == "__init__.py", known) - {name}
            every[name] |= reached
            if not in_function:
                top[name] |= reached
    return top, every


def cycles(graph: Graph) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _report(found: list[frozenset[str]]) -> list[list[str]]:
    return sorted(sorted(component) for component in found)


def test_no_cycle_among_module_level_imports() -> None:
    top, _every = import_graphs()
    assert _report(cycles(top)) == []


def test_no_cycle_counting_imports_inside_functions() -> None:
    _top, every = import_graphs()
    assert _report(cycles(every)) == []


def test_the_check_finds_a_cycle_and_reads_imports_as_the_interpreter_would(tmp_path: Path) -> None:
    graph: Graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [frozenset({"a", "b", "c"})]
    tree = ast.parse("import apollo.errors\nfrom . import fs\nfrom .fs import Root\nif TYPE_CHECKING:\n"
                     "    from apollo import config\ndef f():\n    from ..transcript import base\n")
    known = {"apollo.errors", "apollo.autophagy", "apollo.autophagy.fs", "apollo.config", "apollo.transcript.base"}
    reached = [(_targets(node, "apollo.autophagy.scan", False, known), inside) for node, inside in _imports(tree)]
    assert reached == [({"apollo.errors"}, False), ({"apollo.autophagy.fs"}, False),
                       ({"apollo.autophagy.fs"}, False), ({"apollo.transcript.base"}, True)]
