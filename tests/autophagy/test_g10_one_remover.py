"""Guarantee 10: all deletion goes through one module (apollo/autophagy/remove.py); nothing else
in the code base removes files, folders, bytes of a file or rows of a database.

The whole source tree is parsed (not grepped for text, so a comment cannot hide or fake a
call): any call of unlink / remove / rmdir / removedirs / rmtree / truncate, any import of
those names, and any SQL DELETE FROM / DROP TABLE / TRUNCATE TABLE string outside remove.py fails this test.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import apollo

SOURCE = Path(apollo.__file__).parent
REMOVER = SOURCE / "autophagy" / "remove.py"
#: method names that delete, whatever object they are called on (Path.unlink, os.unlink, shutil.rmtree, ...)
DELETING_METHODS = {"unlink", "rmdir", "removedirs", "rmtree", "truncate", "ftruncate"}
#: module-level functions named ``remove`` (os.remove); list.remove(x) is not a file operation
DELETING_FUNCTIONS = {("os", "remove")}
#: programs that delete, as the first word of a command list (subprocess.run(["rm", ...]))
SHELL_REMOVERS = {"rm", "rmdir", "unlink", "shred", "truncate", "find"}
SQL = re.compile(r"\b(DELETE\s+FROM|DROP\s+(TABLE|INDEX|TRIGGER|VIEW)|TRUNCATE\s+TABLE)\b", re.IGNORECASE)


def _violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Attribute) and node.attr in DELETING_METHODS | {"O_TRUNC"}:
            found.append(f"{where}: .{node.attr}")  # called, or kept under another name (u = os.unlink)
        elif isinstance(node, (ast.List, ast.Tuple)) and node.elts and isinstance(node.elts[0], ast.Constant) \
                and node.elts[0].value in SHELL_REMOVERS:
            found.append(f"{where}: command {node.elts[0].value!r}")
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "getattr" and len(node.args) > 1 \
                    and isinstance(node.args[1], ast.Constant) and node.args[1].value in DELETING_METHODS | {"remove"}:
                found.append(f"{where}: getattr(..., {node.args[1].value!r})")
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                    and (func.value.id, func.attr) in DELETING_FUNCTIONS:
                found.append(f"{where}: {func.value.id}.{func.attr}(...)")
            if isinstance(func, ast.Name) and func.id in DELETING_METHODS | {"remove"}:
                found.append(f"{where}: {func.id}(...)")
        elif isinstance(node, ast.ImportFrom) and node.module in ("os", "shutil", "pathlib"):
            for alias in node.names:
                if alias.name in DELETING_METHODS | {"remove"}:
                    found.append(f"{where}: from {node.module} import {alias.name}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value):
            found.append(f"{where}: SQL {SQL.search(node.value).group(0)!r}")
    return found


def test_only_remove_py_deletes() -> None:
    offenders = []
    for path in sorted(SOURCE.rglob("*.py")):
        if path != REMOVER:
            offenders += _violations(path)
    assert offenders == [], "deletion outside apollo/autophagy/remove.py:\n" + "\n".join(offenders)


def test_the_checker_sees_what_it_must(tmp_path: Path) -> None:
    """The detector itself: remove.py is full of deletions, and planted ones are found."""
    assert len(_violations(REMOVER)) >= 6
    planted = tmp_path / "planted.py"
    planted.write_text("import os, shutil\nfrom os import unlink\nos.remove('x')\nshutil.rmtree('d')\n"
                       "Path('f').unlink()\nq = 'delete from sessions'\nitems.remove(1)\n# os.unlink('in a comment')\n")
    assert sorted({v.split(": ", 1)[0] for v in _violations(planted)}) == [f"planted.py:{n}" for n in (2, 3, 4, 5, 6)]
    hidden = tmp_path / "hidden.py"
    hidden.write_text("import os, subprocess\nu = os.unlink\ng = getattr(os, 'rmdir')\n"
                      "subprocess.run(['rm', '-rf', 'x'])\nfd = os.open('f', os.O_WRONLY | os.O_TRUNC)\n")
    assert sorted({v.split(": ", 1)[0] for v in _violations(hidden)}) == [f"hidden.py:{n}" for n in (2, 3, 4, 5)]
