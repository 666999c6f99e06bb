"""Apollo never reaches into the interpreter's private modules (``_sre``, ``re._compiler``…):
they change without notice between Python releases. Start-up time is won by doing less work."""

from __future__ import annotations

import ast
from pathlib import Path

import apollo

PACKAGE = Path(apollo.__file__).parent


def _private(module: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in module.split("."))


def test_no_module_imports_a_private_interpreter_module():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            else:
                continue
            found += [f"{path.relative_to(PACKAGE)}:{node.lineno} {name}" for name in names
                      if _private(name) and not name.startswith("apollo")]
    assert found == []
