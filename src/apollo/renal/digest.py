"""The compaction summary: renal's digest of everything before the kept tail.

What the agent's loader shows the model in place of the history: the decisions, preferences,
active tasks and open questions verbatim, grouped by category, then the facts the process
carried (rescued statements, tools used, files touched), in the conversation's language.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from apollo.transcript.model import Kind

_PATH = re.compile(r"(?:~|\.{1,2})?/[\w.-]+(?:/[\w.-]+)+|\b[\w-]+\.(?:py|js|ts|json|jsonl|toml|ya?ml|md|sh|sql)\b")

_TITLES = {
    "zh": {"head": "[apollo renal 摘要] 以下是此前对话的要点（原文保留决策、偏好、任务与未解决问题）。",
           "decision": "决策", "preference": "偏好", "task": "进行中任务", "question": "未解决问题",
           "facts": "过程要点", "tools": "使用过的工具", "files": "涉及的文件", "superseded": "已过时：被取代、已回答或已完成（仅供参考）",
           "omitted": "另有 {n} 条寒暄、确认、心跳与中间过程未列出。"},
    "en": {"head": "[apollo renal digest] What the conversation so far established (decisions, preferences, "
                   "tasks and open questions verbatim).",
           "decision": "Decisions", "preference": "Preferences", "task": "Active tasks", "question": "Open questions",
           "facts": "Facts from the process", "tools": "Tools used", "files": "Files touched",
           "superseded": "Outdated: superseded, answered or done (for reference)",
           "omitted": "{n} more pleasantries, confirmations, heartbeats and process steps are not listed."},
}


def build(fates: list[Any], lang: str, item_chars: int) -> str:
    titles = _TITLES["zh" if lang == "zh" else "en"]
    sections: list[str] = [titles["head"]]

    def quote(text: str) -> str:
        text = " ".join(text.split())
        return text if len(text) <= item_chars else text[: item_chars - 1] + "…"

    listed = 0
    for category in ("decision", "preference", "task", "question"):
        chosen = [f for f in fates if f.category == category and (f.must_keep or (f.confirm and not f.outdated))]
        if chosen:
            listed += len(chosen)
            sections.append(f"## {titles[category]}\n" + "\n".join(f"- {quote(f.element.text)}" for f in chosen))
    facts = [f for f in fates if f.rescued and not f.must_keep and f.element.kind is Kind.TEXT]
    if facts:
        listed += len(facts)
        sections.append(f"## {titles['facts']}\n" + "\n".join(f"- {quote(f.element.text)}" for f in facts))
    tools = Counter(f.element.tool_name for f in fates if f.element.kind is Kind.TOOL_CALL and f.element.tool_name)
    if tools:
        sections.append(f"## {titles['tools']}\n" + ", ".join(f"{name} ×{n}" for name, n in tools.most_common()))
    files = list(dict.fromkeys(m for f in fates if f.element.kind is Kind.TOOL_CALL
                               for m in _PATH.findall(f.element.text)))
    if files:
        sections.append(f"## {titles['files']}\n" + ", ".join(files[:40]))
    stale = [f for f in fates if f.outdated]
    if stale:
        sections.append(f"## {titles['superseded']}\n" + "\n".join(f"- {quote(f.element.text)}" for f in stale))
    omitted = sum(1 for f in fates if f.element.kind in (Kind.TEXT, Kind.HEARTBEAT_POLL, Kind.HEARTBEAT_REPLY)) - listed
    if omitted > 0:
        sections.append(titles["omitted"].format(n=omitted))
    return "\n\n".join(sections)
