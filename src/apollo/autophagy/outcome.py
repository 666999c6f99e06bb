"""What one execution did: the public result, the bookkeeping behind it (in the user's
language and in the Chinese of the cleanup log), and what the report lists as kept."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from apollo.autophagy.fs import (
    Unsafe,
    open_file,
    read_fd,
)
from apollo.autophagy.places import Places
from apollo.autophagy.plan import Item, Plan
from apollo.autophagy.rules import AutophagyRules
from apollo.autophagy.tasks import Tasks


class Result(dict):
    """The public result, exactly ``{"tier", "deleted", "skipped", "snapshot", "log"}``;
    :attr:`report` carries what the human report adds (counts by category, what was kept)."""

    report: dict[str, Any]


def kept_summary(places: Places, rules: AutophagyRules, tasks: Tasks) -> dict[str, Any]:
    """What the report lists as kept: core memory (entries), tasks in progress, preferences."""
    from apollo.autophagy.entries import markdown_entries

    memory: list[dict[str, Any]] = []
    preferences: list[str] = []
    with os.scandir(places.workspace.fd) as it:
        listing = sorted(it, key=lambda e: e.name)
    for entry in listing:
        is_dir = entry.is_dir(follow_symlinks=False)
        if not is_dir and rules.report_memory.match(entry.name, entry.name, False):
            try:
                fd = open_file(places.workspace.fd, entry.name)
                try:  # a file over the check limit is not read (a sparse 4 GiB MEMORY.md)
                    big = os.fstat(fd).st_size > rules.data.corrupt.max_check_mb * 1024 * 1024
                    blocks = [] if big else markdown_entries(read_fd(fd))
                finally:
                    os.close(fd)
                memory.append({"path": entry.name,
                               "entries": None if big else sum(1 for b in blocks if b.kind != "section")})
            except (OSError, Unsafe):
                memory.append({"path": entry.name, "entries": None})
        if rules.report_preferences.match(entry.name, entry.name, is_dir):
            preferences.append(entry.name + ("/" if is_dir else ""))
    return {"memory": memory, "tasks": list(tasks.titles), "preferences": preferences}


@dataclass
class Run:
    """Bookkeeping of one execution, for the result, result.json and the log."""

    plan: Plan
    lang: str
    deleted: list[str] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    rewritten: list[dict[str, str]] = field(default_factory=list)
    done: list[Item] = field(default_factory=list)
    #: what the (Chinese) cleanup log lists: the same items, named in Chinese
    logged: list[str] = field(default_factory=list)
    logged_skips: list[str] = field(default_factory=list)

    def skip(self, item: Item, reason: str, reason_zh: str, path: str | None = None) -> None:
        self.skipped.append({"path": path or self.name(item, self.lang),
                             "reason": reason_zh if self.lang == "zh" else reason})
        self.logged_skips.append(f"{path or self.name(item, 'zh')}（{reason_zh}）")

    def removed(self, item: Item) -> None:
        self.deleted.append(self.name(item, self.lang))
        self.logged.append(self.name(item, "zh"))
        self.done.append(item)

    def name(self, item: Item, lang: str) -> str:
        shown = self.plan.display_path(item)
        if item.text:
            return f"{shown}:{item.line} {item.text[:60]}"
        if item.action == "tree":
            return shown + "/"
        if item.action == "sqlite":
            return f"{shown}（{len(item.sessions)} 个会话）" if lang == "zh" else f"{shown} ({len(item.sessions)} sessions)"
        if item.action == "cut":
            return f"{shown}（{item.count} 条）" if lang == "zh" else f"{shown} ({item.count} entries)"
        return shown
