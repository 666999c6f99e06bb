"""The cleanup log, ``.autophagy/cleanup-log.md``: one entry per run that changed anything, in
the seed's format. Its lines stay exactly the seed's, Chinese headings included (tools and agents
read them); in English (``--lang en``) the log's title says ``(cleanup log)`` and each entry ends
with one more line naming its headings in English: ``English: 类型 = Type · 清理了什么 = Removed · …``.
Appending is atomic (the whole log rewritten to a temp file, fsynced, renamed over), so a crash
leaves the old log or the new one, never half an entry.

Every value that comes from the workspace (file names, task titles, memory entries, error
text) has its secrets redacted (:mod:`apollo.redact`) and is escaped: a line break or any other control character becomes a visible escape, and
the characters a shell or Markdown would act on (``;`` ``|`` ``&`` ``$`` backquote, brackets…)
get a backslash, which both read as the plain character. One entry is always the same lines,
and never anything a program reading the log would run."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from datetime import datetime

from apollo.autophagy import remove
from apollo.autophagy.fs import Root, Unsafe, open_file, read_fd, write_new

TYPE = {"small": "🗑️小", "medium": "🧹中", "large": "💥大"}
TRIGGER = {"user": "用户要求", "auto": "自动", "threshold": "硬阈值"}
LIST_LIMIT = 40
TITLE = "# apollo-autophagy 清理日志"
#: the English beside each heading of the seed's log, for --lang en
ENGLISH = {"类型": "Type",
           "清理了什么": "Removed", "保留了什么": "Kept", "触发原因": "Trigger", "快照文件": "Snapshot",
           "操作者": "Operator", "结果": "Outcome", "跳过": "Skipped", "恢复了什么": "Restored",
           "替换了什么": "Replaced"}
#: control characters (C0, DEL, C1), line and paragraph separators, bidirectional overrides
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
#: ASCII punctuation a shell or Markdown acts on; a backslash makes each one plain text in both
_ACTIVE = re.compile(r"""([\\`$;&|<>(){}\[\]*?!#~'"=^%])""")


def escaped(value: str) -> str:
    """``value`` as inert text on one line (see the module docstring), secrets a user pasted into
    it (a key in a memory entry, a task title, a file name) redacted: the log lives in the workspace."""
    from apollo.redact import redact

    value = _ACTIVE.sub(r"\\\1", redact(value))
    return _CONTROL.sub(lambda m: {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(m.group(), f"\\u{ord(m.group()):04x}"),
                        value)


def _legend(labels: Sequence[str]) -> str:
    """The English names of an entry's headings, on a line that starts with a plain word: a line
    starting with ``>`` would be a redirection to a shell that sources the log."""
    return "English: " + " · ".join(f"{label} = {ENGLISH[label]}" for label in labels)


def _listing(values: Sequence[str]) -> str:
    if not values:
        return "（无）"
    shown = "；".join(escaped(v) for v in values[:LIST_LIMIT])
    return shown + (f"；……等共 {len(values)} 项" if len(values) > LIST_LIMIT else "")


def _entry(moment: datetime, title: str, fields: Sequence[str], skipped: Sequence[str], lang: str = "zh") -> str:
    """The seed's layout: a dated heading, one ``名称：值`` line per field, what was skipped, a blank line."""
    lines = [f"## [{moment.strftime('%Y-%m-%d %H:%M')}] {title}", *fields]
    if skipped:
        lines.append(f"跳过：{_listing(skipped)}")
    if lang == "en":
        lines.append(_legend([line.partition("：")[0] for line in lines[1:]]))
    return "\n".join(lines) + "\n\n"


def entry(*, moment: datetime, tier: str, removed: Sequence[str], kept: Sequence[str], trigger: str,
          snapshot: str, operator: str, outcome: str, skipped: Sequence[str], lang: str = "zh") -> str:
    return _entry(moment, "清理记录", [
        f"类型：{TYPE[tier]}",
        f"清理了什么：{_listing(removed)}",
        f"保留了什么：{_listing(kept)}",
        f"触发原因：{TRIGGER.get(trigger, trigger)}",
        f"快照文件：{escaped(snapshot) if snapshot else '（无）'}",
        f"操作者：{escaped(operator)}",
        f"结果：{escaped(outcome)}",
    ], skipped, lang)


def restore_entry(*, moment: datetime, snapshot: str, restored: Sequence[str], replaced: Sequence[str],
                  skipped: Sequence[str], operator: str, lang: str = "zh") -> str:
    """A restore changes the workspace too, so it is logged in the same style."""
    return _entry(moment, "恢复记录", [
        "类型：↩️恢复",
        f"恢复了什么：{_listing(restored)}",
        f"替换了什么：{_listing(replaced)}（自噬改写后未再改动的文件）",
        f"快照文件：{escaped(snapshot)}",
        f"操作者：{escaped(operator)}",
        f"结果：恢复 {len(restored)} 项，替换 {len(replaced)} 项，跳过 {len(skipped)} 项",
    ], skipped, lang)


def append(root: Root, parts: tuple[str, ...], text: str, lang: str = "zh") -> None:
    """Add ``text`` at the end of the log, creating it (with a title) if needed."""
    parent = root.open_dir(parts[:-1], create=True)
    try:
        try:
            os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
            exists = True
        except FileNotFoundError:
            exists = False
        if not exists:
            try:
                write_new(parent, parts[-1], (TITLE + (" (cleanup log)" if lang == "en" else "") + "\n\n" + text).encode("utf-8"))
                return
            except FileExistsError:
                pass
    finally:
        os.close(parent)
    data = text.encode("utf-8")

    def build(old: bytes, _st: os.stat_result) -> bytes:
        return old + (b"" if not old or old.endswith(b"\n") else b"\n") + data

    try:
        remove.rewrite(root, parts, build)
    except Unsafe as exc:
        raise OSError(f"cannot append to the cleanup log: {exc.reason}") from None


def last_entry(root: Root, parts: tuple[str, ...]) -> str | None:
    """The newest entry of the log (for status), or None."""
    try:
        parent = root.open_dir(parts[:-1])
    except Unsafe:
        return None
    try:
        fd = open_file(parent, parts[-1])
    except (OSError, Unsafe):
        return None
    finally:
        os.close(parent)
    try:
        text = read_fd(fd).decode("utf-8", "replace")
    finally:
        os.close(fd)
    start = text.rfind("\n## [")
    if start == -1:
        start = 0 if text.startswith("## [") else -1
    return text[start:].strip() if start != -1 else None
