"""What each ``check`` of the rules finds in one file or symlink: the items a scan proposes.

The walk, the protect decisions and whole folders are :mod:`apollo.autophagy.scan`'s; here is one
function per check, and the table by which the scan dispatches to them (the checks of
:data:`apollo.autophagy.rules.CHECKS`, each with what it may apply to).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from apollo.autophagy import checks, entries
from apollo.autophagy import messages as msg
from apollo.autophagy.fs import Unsafe, display, open_file, sha256_bytes
from apollo.autophagy.plan import Item
from apollo.autophagy.rules import Rule

if TYPE_CHECKING:
    from apollo.autophagy.scan import Scanner


def match(scanner: Scanner, rule: Rule, dir_fd: int, parts: tuple[str, ...], st: os.stat_result) -> list[Item]:
    """A file the rule's patterns name, once it has been left alone for the rule's ``idle_hours``."""
    if rule.idle_hours and scanner.now_ts - st.st_mtime < rule.idle_hours * 3600:
        return []
    return [scanner.item(rule, parts, st, "unlink", st.st_size)]


def _unlink_for(scanner: Scanner, rule: Rule, parts: tuple[str, ...], st: os.stat_result,
                verdict: checks.Verdict) -> list[Item]:
    """The whole file, for the reason a check found, (en, zh); nothing when it found none."""
    if not verdict:
        return []
    return [scanner.item(rule, parts, st, "unlink", st.st_size, f"{rule.reason}: {verdict[0]}",
                         f"{rule.reason_zh}：{verdict[1]}")]


def corrupt(scanner: Scanner, rule: Rule, dir_fd: int, parts: tuple[str, ...], st: os.stat_result) -> list[Item]:
    """A file its validator finds damaged: torn records cut out when the rest is sound, else the whole file."""
    try:
        fd = open_file(dir_fd, parts[-1])
    except (OSError, Unsafe):
        return []
    try:
        torn, content = checks.repairable(rule.validator, fd, st.st_size, scanner.rules.data.corrupt)
        verdict = None if torn else checks.validate(rule.validator, fd, st.st_size, scanner.rules.data.corrupt)
    finally:
        os.close(fd)
    if torn:  # records cut short: cut them out, keep the file
        size = sum(end - start for start, end in torn)
        return [scanner.item(rule, parts, st, "cut", size, f"{rule.reason}: {len(torn)} torn part(s) cut out",
                             f"{rule.reason_zh}：截掉 {len(torn)} 处残缺", cuts=[list(c) for c in torn],
                             prefix_size=len(content), prefix_sha256=sha256_bytes(content), count=len(torn))]
    return _unlink_for(scanner, rule, parts, st, verdict)


def reminder(scanner: Scanner, rule: Rule, dir_fd: int, parts: tuple[str, ...], st: os.stat_result) -> list[Item]:
    """A reminder in a reminder folder whose time has passed (:func:`apollo.autophagy.checks.reminder_verdict`)."""
    name = parts[-1]
    data = scanner.read(dir_fd, name, st.st_size)
    fields = checks.reminder_fields(data, PurePosixPath(name).suffix.lower()) if data is not None else None
    verdict = checks.reminder_verdict(fields, scanner.rules.data.reminders, scanner.timestamp_pattern, scanner.now) \
        if fields is not None else None
    return _unlink_for(scanner, rule, parts, st, verdict)


def old_entries(scanner: Scanner, rule: Rule, dir_fd: int, parts: tuple[str, ...], st: os.stat_result) -> list[Item]:
    """The timestamped entries of a log older than the rule's ``max_age_days``, cut out of it."""
    name = parts[-1]
    data = scanner.whole(dir_fd, name, st)
    if data is None:
        return []
    cutoff = scanner.now - timedelta(days=rule.max_age_days)
    found = entries.old_entries(data, PurePosixPath(name).suffix.lower(), scanner.rules.data.heartbeat, cutoff)
    if not found.cuts:
        return []
    removed = sum(end - start for start, end in found.cuts)
    return [scanner.item(rule, parts, st, "cut", removed,
                         f"{found.removed} {rule.reason} ({found.kept} newer kept)",
                         f"{found.removed} 条{rule.reason_zh}（保留较新的 {found.kept} 条）",
                         cuts=[list(c) for c in found.cuts], prefix_size=len(data),
                         prefix_sha256=sha256_bytes(data), count=found.removed)]


def marked(scanner: Scanner, rule: Rule, dir_fd: int, parts: tuple[str, ...], st: os.stat_result) -> list[Item]:
    """The entries of a memory file marked as outdated, cut out of it."""
    data = scanner.whole(dir_fd, parts[-1], st, text=True)
    if data is None:
        return []
    marked = entries.marked_entries(entries.markdown_entries(data), scanner.rules.data.memory, data)
    return [scanner.item(rule, parts, st, "cut", e.end - e.start, f"{rule.reason} ({marker})",
                         f"{rule.reason_zh}（{marker}）", cuts=[[e.start, e.end]], text=e.first.strip(),
                         line=e.line, prefix_size=len(data), prefix_sha256=sha256_bytes(data)) for e, marker in marked]


def superseded(scanner: Scanner, rule: Rule, dir_fd: int, parts: tuple[str, ...], st: os.stat_result) -> list[Item]:
    """Entries a later entry of the same memory file replaces: suggested, never cut unasked."""
    data = scanner.whole(dir_fd, parts[-1], st, text=True)
    if data is None:
        return []
    blocks = entries.markdown_entries(data)
    marked = entries.marked_entries(blocks, scanner.rules.data.memory, data)
    found = entries.superseded_entries(blocks, scanner.rules.data.memory, [e for e, _ in marked], data)
    return [scanner.item(rule, parts, st, "cut", old.end - old.start, f"{rule.reason} (line {new.line}: {new.first.strip()[:80]})",
                         f"{rule.reason_zh}（第 {new.line} 行：{new.first.strip()[:80]}）", cuts=[[old.start, old.end]],
                         text=old.first.strip(), line=old.line, suggested=True, prefix_size=len(data),
                         prefix_sha256=sha256_bytes(data))
            for old, new, _how in found]


def broken_link(scanner: Scanner, rule: Rule, dir_fd: int, parts: tuple[str, ...], st: os.stat_result,
                 record: bool) -> list[Item]:
    """A symlink whose target inside the workspace is gone (never one that points at a protected path)."""
    try:
        target = os.readlink(parts[-1], dir_fd=dir_fd)
    except OSError:
        return []
    resolved = scanner.resolve_inside(parts[:-1], target)
    if resolved is None:
        return []
    target_parts, exists = resolved
    if exists:
        return []
    reason = scanner.protected_path(target_parts, False) if target_parts else None
    named = next((p for p in PurePosixPath(target).parts
                  if scanner.rules.protect.match(p, p, True) or scanner.rules.protect.match(p, p, False)), None)
    if reason or named:
        if record:
            scanner.keep(parts, *msg.LINK_TO_PROTECTED)
        return []
    if scanner.recent(st):
        if record:
            scanner.keep(parts, *msg.recent(scanner.recent_minutes))
        return []
    return [scanner.item(rule, parts, st, "unlink", st.st_size, f"{rule.reason}: → {display(target)}",
                         f"{rule.reason_zh}：→ {display(target)}")]


@dataclass(frozen=True)
class FileCheck:
    """How the scan applies one ``check`` of the rules to a regular file."""

    find: Callable[[Scanner, Rule, int, tuple[str, ...], os.stat_result], list[Item]]
    edits_protected: bool = False  # may cut entries out of a protected file that allows it (MEMORY.md)
    by_folder: bool = False        # picks files by the reminder folders, not by the rule's patterns
    touches_recent: bool = False   # may apply to a file modified just now (it only cuts old entries out)


#: every ``check`` of :data:`apollo.autophagy.rules.CHECKS`, by what it applies to (tests/autophagy/test_rules.py)
FILE_CHECKS: dict[str, FileCheck] = {
    "match": FileCheck(match),
    "corrupt": FileCheck(corrupt),
    "reminders": FileCheck(reminder, by_folder=True),
    "entries": FileCheck(old_entries, touches_recent=True),
    "marked_entries": FileCheck(marked, edits_protected=True),
    "superseded_entries": FileCheck(superseded, edits_protected=True),
}
LINK_CHECKS: dict[str, Callable[[Scanner, Rule, int, tuple[str, ...], os.stat_result, bool], list[Item]]] = {
    "broken_symlink": broken_link,
}
