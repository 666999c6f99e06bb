"""The reference for ``autophagy status``: ``find`` with the patterns of Apollo's own rule file.

The expression is built from ``apollo/autophagy/rules.toml`` (the small and medium tiers that
``status`` scans), so the two always look for the same names: folders protected as a whole are
pruned, folder rules print and prune, file rules print, broken symlinks print. What ``find``
cannot do is look inside files (strict timestamp parsing of heartbeat logs, JSON and UTF-8
validation); that work is part of what the ratio measures.
"""

from __future__ import annotations

from pathlib import Path

_PRINT = ["-printf", "%s %p\n"]


def _any(tests: list[list[str]]) -> list[str]:
    """``( t1 -o t2 -o ... )``"""
    joined: list[str] = []
    for test in tests:
        joined += (["-o"] if joined else []) + test
    return ["(", *joined, ")"] if joined else []


def _name_test(root: Path, pattern: str) -> list[str]:
    """A rule pattern as a find test: a bare name matches at any depth, a path from the root."""
    bare = pattern.rstrip("/")
    if "/" in bare:
        return ["-path", f"{root}/{bare.replace('**/', '*')}"]
    return ["-name", bare]


def find_argv(workspace: Path) -> list[str]:
    """find that never follows links or leaves the file system and prints size and path of every match."""
    from apollo.autophagy import rules as rules_mod

    rules = rules_mod.load(None).data
    protected_dirs = [_name_test(workspace, p) for p in rules.protect.patterns if p.endswith("/")]
    dir_rules, file_rules, links = [], [], False
    for tier in ("small", "medium"):
        for rule in getattr(rules, tier):
            if rule.check == "broken_symlink":
                links = True
                continue
            target = dir_rules if rule.type == "dir" else file_rules
            target += [_name_test(workspace, p) for p in rule.patterns]
    file_rules += [_name_test(workspace, folder.rstrip("/") + "/*") for folder in rules.reminders.folders]
    argv = ["find", str(workspace), "-xdev", "-type", "d", *_any(protected_dirs), "-prune", "-o",
            "-type", "d", *_any(dir_rules), *_PRINT, "-prune", "-o",
            "-type", "f", *_any(file_rules), *_PRINT]
    if links:
        argv += ["-o", "-xtype", "l", *_PRINT]
    return argv
