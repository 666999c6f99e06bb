"""Human output: plans as tables, the seed's ``🔥 [apollo-autophagy]`` report, status, restore.

Chinese by default (the seeds' language), English with ``--lang en``. Machines use ``--json``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from apollo import clock
from apollo.autophagy.plan import Plan, in_language

TIER_NAME = {"zh": {"small": "🗑️小自噬", "medium": "🧹中度清理", "large": "💥大自噬"},
             "en": {"small": "🗑️ small", "medium": "🧹 medium", "large": "💥 large"}}
RISK_NAME = {"zh": {"low": "🟢低", "medium": "🟡中", "high": "🔴高"},
             "en": {"low": "🟢 low", "medium": "🟡 medium", "high": "🔴 high"}}
CATEGORY = {
    "zh": [("redundant", "损坏/冗余文件", "个"), ("stale_cache", "过时缓存", "个"), ("memory", "错误记忆", "条"),
           ("context", "会话上下文", "条")],
    "en": [("redundant", "corrupted/redundant files", ""), ("stale_cache", "stale cache", ""),
           ("memory", "outdated memory entries", ""), ("context", "conversation context", "")],
}
KIND = {
    "temp": "临时文件", "bytecode": "字节码", "cache_dir": "缓存目录", "build_output": "编译产物", "backup": "备份文件",
    "stale_log": "旧日志", "heartbeat_entries": "心跳日志条目", "corrupt_json": "损坏的 JSON",
    "corrupt_jsonl": "损坏的 JSONL", "corrupt_archive": "损坏的压缩包", "corrupt_text": "损坏的文本",
    "broken_symlink": "失效链接", "memory_entry": "过时记忆", "superseded_entry": "被取代的记忆",
    "expired_reminder": "过期提醒", "session_transcript": "会话记录", "session_index": "会话索引",
    "session_store": "SQLite 会话存储",
}


def size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"  # pragma: no cover


def _when(text: str | None) -> str:
    if not text:
        return "?"
    return clock.parse_iso(text).strftime("%Y-%m-%d %H:%M")


#: (one, many) in English
KIND_EN = {
    "temp": ("temporary file", "temporary files"), "bytecode": ("bytecode file", "bytecode files"),
    "cache_dir": ("cache folder", "cache folders"), "build_output": ("build output", "build outputs"),
    "backup": ("backup", "backups"), "stale_log": ("old log", "old logs"),
    "heartbeat_entries": ("heartbeat-log entry", "heartbeat-log entries"),
    "corrupt_json": ("corrupted JSON file", "corrupted JSON files"),
    "corrupt_jsonl": ("corrupted JSONL file", "corrupted JSONL files"),
    "corrupt_archive": ("corrupted archive", "corrupted archives"),
    "corrupt_text": ("corrupted text file", "corrupted text files"), "broken_symlink": ("broken link", "broken links"),
    "memory_entry": ("outdated memory entry", "outdated memory entries"),
    "superseded_entry": ("superseded memory entry", "superseded memory entries"),
    "expired_reminder": ("expired reminder", "expired reminders"),
    "session_transcript": ("session transcript", "session transcripts"),
    "session_index": ("session index", "session indexes"), "session_store": ("SQLite session store", "SQLite session stores"),
}


def _kinds(kinds: dict[str, int], lang: str) -> str:
    """``备份文件 5、编译产物 3`` / ``5 backups, 3 build outputs``: words, never the internal keys."""
    if lang == "zh":
        return "、".join(f"{KIND.get(k, k)} {n}" for k, n in sorted(kinds.items()))
    words = {k: KIND_EN.get(k, (k.replace("_", " "),) * 2) for k in kinds}
    return ", ".join(f"{n} {words[k][n != 1]}" for k, n in sorted(kinds.items()))


def _rows(rows: list[dict[str, Any]], lang: str) -> list[str]:
    out = []
    width = max((len(r["id"]) for r in rows), default=2)
    for row in rows:
        what = f"{row['path']}:{row['line']}  {row['text']}" if row.get("text") else row["path"]
        out.append(f"  {row['id']:<{width}}  {size(row['bytes']):>8}  {what}")
        out.append(f"  {'':<{width}}  {'':>8}  └ {row['reason']}")
    return out


def plan_text(plan: Plan, lang: str, *, confirm_hint: str | None = None, root: Path | None = None) -> str:
    """The plan as a table; with ``root`` (the workspace), every path absolute."""
    zh = lang == "zh"
    public = plan.to_public(lang)
    if root is not None:
        from apollo.workspace import absolute_paths

        public = absolute_paths(public, root)
    tier = TIER_NAME[lang][plan.tier]
    risk = RISK_NAME[lang][plan.risk]
    total = sum(i["bytes"] for i in public["items"])
    lines = [(f"{tier} 计划 {plan.plan_id}（风险 {risk}，{len(public['items'])} 项，{size(total)}，"
              f"{_when(plan.expires_at)} 前有效）") if zh else
             (f"{tier} plan {plan.plan_id} (risk {risk}, {len(public['items'])} items, {size(total)}, "
              f"valid until {_when(plan.expires_at)})")]
    if public["items"]:
        lines += ["将删除：" if zh else "to remove:", *_rows(public["items"], lang)]
    if public["suggested"]:
        lines += ["建议（只有用 --select 选中或加 --include-suggested 才删除）：" if zh else
                  "suggestions (removed only with --select or --include-suggested):", *_rows(public["suggested"], lang)]
    if public["protected"]:
        names = ", ".join(p["path"] for p in public["protected"][:12])
        more = len(public["protected"]) - 12
        extra = (f" 等 {len(public['protected'])} 项" if zh else f" and {more} more") if more > 0 else ""
        lines.append(("保留：" if zh else "kept: ") + names + extra)
    for note in (absolute_paths(list(plan.notes), root) if root is not None else plan.notes):
        lines.append(("未检查：" if zh else "not examined: ") + "{path} — {reason}".format(**in_language(note, lang)))
    if confirm_hint:
        lines.append(confirm_hint)
    return "\n".join(lines)


#: the reasons, and the paths under each, an empty plan names (the rest are counted)
_NOTHING_REASONS, _NOTHING_PATHS = 6, 6


def nothing_text(data: dict[str, Any], lang: str, *, brief: bool = False) -> str:
    """An empty plan (``data``: what ``apollo autophagy`` prints as JSON then), and what it left
    alone and why, grouped by reason: a file edited minutes ago or a protected one is not cleaned,
    and "nothing to clean" alone left people asking why."""
    zh = lang == "zh"
    lines = ["没有需要清理的内容。" if zh else "Nothing to clean."]
    by_reason: dict[str, list[str]] = {}
    for kept in [] if brief else data.get("kept", []):
        by_reason.setdefault(kept["reason"], []).append(kept["path"])
    for reason, paths in list(by_reason.items())[:_NOTHING_REASONS]:
        more = len(paths) - _NOTHING_PATHS
        extra = (f" 等 {len(paths)} 项" if zh else f" and {more} more") if more > 0 else ""
        lines.append(("保留，" if zh else "kept, ") + reason + ("：" if zh else ": ")
                     + ", ".join(paths[:_NOTHING_PATHS]) + extra)
    rest = sum(len(paths) for paths in list(by_reason.values())[_NOTHING_REASONS:])
    if rest:
        lines.append(f"另有 {rest} 项因其他原因保留" if zh else f"and {rest} more kept for other reasons")
    for note in [] if brief else data.get("not_examined", []):
        lines.append(("未检查：" if zh else "not examined: ") + f"{note['path']} — {note['reason']}")
    return "\n".join(lines)


def report(result: dict[str, Any], lang: str, *, brief: bool = False) -> str:
    """The seed's report block for a finished run (``brief``: one line, for ``-q``)."""
    data = getattr(result, "report", {}) or {}
    zh = lang == "zh"
    if brief:
        deleted, skipped, snapshot = len(result["deleted"]), len(result["skipped"]), result.get("snapshot")
        return (f"🔥 [apollo-autophagy] {TIER_NAME[lang][result['tier']]}：删除 {deleted} 项，跳过 {skipped} 项，"
                f"快照：{snapshot or '无'}" if zh else
                f"🔥 [apollo-autophagy] {TIER_NAME[lang][result['tier']]}: removed {deleted}, skipped {skipped}, "
                f"snapshot: {snapshot or 'none'}")
    counts = data.get("counts", {})
    kept = data.get("kept", {})
    lines = ["🔥 [apollo-autophagy] " + ("自噬清理报告" if zh else "autophagy cleanup report"), ""]
    lines.append(("清理类型：" if zh else "Type: ") + TIER_NAME[lang][result["tier"]])
    lines.append(("风险等级：" if zh else "Risk: ") + RISK_NAME[lang][data.get("risk", "low")])
    lines += ["", "清理对象：" if zh else "Removed:"]
    for key, label, unit in CATEGORY[lang]:
        lines.append(f"  - {label}：{counts.get(key, 0)}{unit}" if zh else f"  - {label}: {counts.get(key, 0)}")
    lines += ["", "保留内容：" if zh else "Kept:"]
    memory = ", ".join(
        (f"{m['path']}（{m['entries']} 条）" if zh else f"{m['path']} ({m['entries']} entries)")
        if m.get("entries") is not None else m["path"] for m in kept.get("memory", [])) or ("无" if zh else "none")
    tasks = ", ".join(kept.get("tasks", [])) or ("无" if zh else "none")
    prefs = ", ".join(kept.get("preferences", [])) or ("无" if zh else "none")
    if zh:
        lines += [f"  - 核心记忆：{memory}", f"  - 进行中任务：{tasks}", f"  - 用户偏好：{prefs}"]
    else:
        lines += [f"  - core memory: {memory}", f"  - tasks in progress: {tasks}", f"  - user preferences: {prefs}"]
    if result.get("skipped"):
        lines += ["", (f"跳过（{len(result['skipped'])} 项，未删除）：" if zh else
                       f"Skipped ({len(result['skipped'])}, not removed):")]
        lines += [f"  - {s['path']}：{s['reason']}" if zh else f"  - {s['path']}: {s['reason']}"
                  for s in result["skipped"][:20]]
    lines.append("")
    lines.append(("清理时间：" if zh else "Time: ") + _when(data.get("time") or clock.now().isoformat()))
    if result.get("snapshot"):
        expiry = _when(data.get("expires_at"))
        lines.append(f"快照文件：{result['snapshot']}（7天后自动删除：{expiry}）" if zh else
                     f"Snapshot: {result['snapshot']} (deleted automatically after 7 days: {expiry})")
    else:
        lines.append("快照文件：无（没有删除任何内容）" if zh else "Snapshot: none (nothing was removed)")
    lines.append(("清理日志：" if zh else "Log: ") + str(result.get("log")))
    lines += ["", "⚠️ 大自噬不可逆，中度自噬部分内容无法恢复" if zh else
              "⚠️ Large autophagy cannot be undone; medium autophagy can be undone only in part"]
    return "\n".join(lines)


def status_text(data: dict[str, Any], lang: str, *, brief: bool = False) -> str:
    """Every tier with what it would remove, then what is kept and the snapshots (``brief``: the
    tier lines alone, for ``-q``)."""
    zh = lang == "zh"
    lines = [] if brief else [f"🔥 [apollo-autophagy] {'状态' if zh else 'status'} — {data['workspace']}"]
    for tier in ("small", "medium", "large"):
        info = data["tiers"][tier]
        name = TIER_NAME[lang][tier]
        risk = RISK_NAME[lang][info["risk"]]
        if "error" in info:
            lines.append(f"{name}（{risk}）：{info['error']}" if zh else f"{name} ({risk}): {info['error']}")
            continue
        kinds = _kinds(info.get("kinds", {}), lang)
        line = (f"{name}（{risk}）：{info['count']} 项，{size(info['bytes'])}" if zh else
                f"{name} ({risk}): {info['count']} items, {size(info['bytes'])}")
        line += f"  [{kinds}]" if kinds else ""
        if info.get("suggested"):
            line += f"，另有 {info['suggested']} 条建议" if zh else f", plus {info['suggested']} suggestions"
        lines.append(line)
        if brief:
            continue
        lines += [f"    {example}" for example in info.get("examples", [])]
        if tier == "large" and info.get("gateway", {}).get("running"):
            lines.append(("    OpenClaw 网关正在运行：" if zh else "    OpenClaw gateway running: ")
                         + info["gateway"].get("evidence", ""))
    if brief:
        return "\n".join(lines)
    protected = [p["path"] for p in data["protected"]]
    if protected:
        lines.append(("保留：" if zh else "kept: ") + ", ".join(protected[:12]) +
                     (f" 等 {len(protected)} 项" if zh and len(protected) > 12 else
                      f" and {len(protected) - 12} more" if len(protected) > 12 else ""))
    if data.get("tasks"):
        lines.append(("进行中任务：" if zh else "tasks in progress: ") + ", ".join(data["tasks"]))
    for note in data.get("notes", []):
        lines.append(("未检查：" if zh else "not examined: ") + f"{note['path']} — "
                     f"{note.get('reason_zh', note['reason']) if zh else note['reason']}")
    snaps = data.get("snapshots", [])
    lines.append(f"快照：{len(snaps)} 个" if zh else f"snapshots: {len(snaps)}")
    for snap in snaps:
        lines.append(f"    {snap['name']}  {snap['tier']}  {snap['files']} files  {size(snap['bytes'])}  "
                     + (f"到期 {_when(snap['expires_at'])}" if zh else f"expires {_when(snap['expires_at'])}")
                     + (f"  ⚠ {snap['problem']}" if snap.get("problem") else ""))
    last = data.get("last_log")
    lines.append(("最近的日志：" if zh else "last log entry: ") + (last.splitlines()[0] if last else ("无" if zh else "none")))
    return "\n".join(lines)


def restore_text(data: dict[str, Any], lang: str, *, brief: bool = False) -> str:
    """The count line, then every file (``brief``: the count line alone, for ``-q``)."""
    zh = lang == "zh"
    dry = data["dry_run"]
    restored, replaced = len(data["restored"]), len(data["replaced"])
    if zh:
        head = f"{'将恢复' if dry else '已恢复'} {restored} 项"
        head += f"，{'将替换' if dry else '已替换'} {replaced} 个自噬改写后未再改动的文件" if replaced else ""
    else:
        head = f"{'would restore' if dry else 'restored'} {restored} item{'s' * (restored != 1)}"
        if replaced:
            head += (f", {'would replace' if dry else 'replaced'} {replaced} file{'s' * (replaced != 1)} "
                     "autophagy had rewritten (untouched since)")
    lines = [f"{head} — {data['snapshot']}"]
    if brief:
        return lines[0]
    lines += [f"  + {p}" for p in data["restored"]]
    lines += [f"  ↺ {p}" for p in data["replaced"]]
    if data["skipped"]:
        lines.append(f"跳过 {len(data['skipped'])} 项：" if zh else f"skipped {len(data['skipped'])}:")
        lines += [f"  - {s['path']}: {s['reason']}" for s in data["skipped"]]
    return "\n".join(lines)


def snapshots_text(items: list[dict[str, Any]], purged: list[str] | None, lang: str, *, brief: bool = False) -> str:
    """One line per snapshot, after what --purge removed (``brief``: without the purged paths)."""
    zh = lang == "zh"
    lines = []
    if purged is not None:
        lines.append(f"已清除 {len(purged)} 个过期快照" if zh else f"purged {len(purged)} expired snapshots")
        lines += [] if brief else [f"  - {p}" for p in purged]
    if not items:
        lines.append("没有快照" if zh else "no snapshots")
    for snap in items:
        lines.append(f"{snap['name']}  {snap['tier']}  {snap['files']} files  {size(snap['bytes'])}  "
                     + (f"创建 {_when(snap['created_at'])}，到期 {_when(snap['expires_at'])}" if zh else
                        f"created {_when(snap['created_at'])}, expires {_when(snap['expires_at'])}")
                     + (f"  ⚠ {snap['problem']}" if snap.get("problem") else ""))
    return "\n".join(lines)
