"""``apollo renal report --html``: one self-contained page of what the filter would do, and why.

The page is the filter's dry run made visible: the conversation as a timeline coloured by
category, every element marked kept, compressed, merged or dropped (dropped ones stay readable,
struck through, with their reason), the before/after tokens by category, the balance signals
over time, and the must-keep items linking into the timeline. The counts it shows are the JSON
report's own numbers (``apollo renal filter --dry-run --json``), never recomputed.

Self-contained means one file with its CSS, script and data inline and a Content-Security-Policy
that forbids every load, so it opens offline and cannot reach the network. Large sessions stay
quick: element texts are capped (the cap shrinks as the session grows) and the timeline is
paginated by the page's own script.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apollo.errors import UsageError

if TYPE_CHECKING:
    from apollo.config import Config

#: characters of element text the page carries in total, and per element at most / at least
TEXT_BUDGET = 6_000_000
TEXT_CAP_MAX = 2_000
TEXT_CAP_MIN = 300
PAGE_SIZE = 100
#: in the page's <head>: how an earlier report is recognised before it is replaced
GENERATOR_MARK = '<meta name="generator" content="apollo renal report">'
#: points of the balance chart at most (a long session's user turns are sampled evenly)
BALANCE_POINTS = 120

CATEGORY_ORDER = ("decision", "preference", "task", "question", "process", "noise")
_CATEGORY_COLOR = {name: f"var(--{name})" for name in CATEGORY_ORDER}
_OUTCOME_COLOR = {name: f"var(--{name})" for name in ("kept", "compressed", "merged", "dropped", "confirm")}
_SIGNAL_COLOR = {"questioning": "#e11d48", "negativity": "#7c3aed", "drift": "#0891b2"}

LABELS: dict[str, dict[str, Any]] = {
    "zh": {
        "title": "🫘 renal 上下文净化报告", "elements": "个元素", "counter": "计数器", "tokens": "token",
        "tok": "token", "tokens_before": "过滤前 token", "tokens_after": "过滤后 token", "density": "有效信息密度",
        "saving": "节省率", "must_keep": "必保内容", "must_keep_detail": "决策 / 偏好 / 任务 / 未解决问题",
        "balance": "平衡状态", "what_happened": "过滤操作（与 JSON 报告一致）", "tokens_by_category": "各类 token：过滤前 → 过滤后",
        "tokens_by_category_hint": "浅色为过滤前，深色为过滤后", "before": "过滤前", "after": "过滤后",
        "balance_over_time": "平衡信号随时间变化", "balance_hint": "每点：一次用户发言后，最近一个窗口内各信号的次数；虚线 = 阈值", "threshold": "阈值",
        "status_band": "状态", "no_balance": "没有用户发言可评估", "must_keep_list": "必保内容清单",
        "no_must_keep": "没有必保内容", "warnings": "读取警告", "timeline": "对话时间线",
        "timeline_hint": "删除的内容保留可见（删除线）并注明原因", "search": "搜索文本或 id", "outcome": "处理结果",
        "all_outcomes": "全部结果", "prev": "上一页", "next": "下一页", "page": "第", "of": "共",
        "nothing_matches": "没有符合筛选条件的元素", "must_keep_badge": "必保", "chars_not_shown": "个字符未显示",
        "becomes": "浓缩后保留为", "reason": "原因", "merged_into": "合并到", "merged_from": "合并了",
        "footer": "由 Apollo renal 生成 · 离线单文件页面 · 未修改任何文件",
        "outside_context": "个元素不在上下文中（最近一次压缩之前或在旁支上），未显示",
        "balance_names": {"green": "🟢 正常", "yellow": "🟡 需注意", "red": "🔴 失衡"},
        "advice": {"continue": "继续当前任务", "dream": "触发 apollo-dream", "confirm": "等待用户确认"},
        "signals": {"questioning": "连续质疑", "negativity": "连续负面", "drift": "连续偏离"},
        "outcomes": {"kept": "保留", "compressed": "浓缩", "merged": "合并", "dropped": "删除", "confirm": "需确认"},
        "categories": {"decision": "决策", "preference": "偏好", "task": "进行中任务", "question": "未解决问题",
                       "process": "中间过程", "noise": "噪音"},
        "kinds": {"text": "文本", "thinking": "思考", "tool_call": "工具调用", "tool_result": "工具输出",
                  "heartbeat_poll": "心跳轮询", "heartbeat_reply": "心跳回复", "compaction_summary": "压缩摘要",
                  "metadata": "元数据"},
        "counts": {"kept.decision": "保留决策", "kept.preference": "保留偏好", "kept.task": "保留任务",
                   "kept.question": "保留问题", "kept.process": "保留过程",
                   "removed.acknowledgement": "删除重复确认", "removed.noise": "删除噪音", "removed.heartbeat": "删除心跳",
                   "removed.process": "删除中间过程", "removed.thinking": "删除旧思考", "removed.duplicate": "删除重复",
                   "removed.superseded": "删除过时", "removed.outdated": "删除过时", "removed.budget": "超出预算",
                   "concentrated.merged": "合并重复", "concentrated.tool_outputs_cut": "截断工具输出",
                   "concentrated.condensed": "精简", "needs_confirmation": "需确认", "rescued": "重吸收"},
        "reasons": {"acknowledgement": "确认/客套，无新信息", "noise": "噪音", "heartbeat": "心跳轮询与回复",
                    "process": "已完成的中间过程", "thinking": "旧的思考过程", "duplicate": "与后文重复",
                    "superseded": "已被后来的内容取代", "outdated": "已过时（被取代/已回答/已完成）", "budget": "预算不足", "opened": "为符合预算只保留开头（原会话保留全文）", "tool_output": "旧工具输出只留首行与后文提到的行",
                    "condensed": "精简表述", "must_keep": "必保", "tail": "最近的对话，原样保留",
                    "rescued": "重吸收：含有事实", "confirm": "分类不确定，保留待确认", "kept": "保留",
                    "metadata": "元数据（会话设置、文档标题）"},
    },
    "en": {
        "title": "🫘 renal context report", "elements": "elements", "counter": "counter", "tokens": "tokens",
        "tok": "tok", "tokens_before": "Tokens before", "tokens_after": "Tokens after", "density": "density",
        "saving": "Saving", "must_keep": "Must keep", "must_keep_detail": "decisions, preferences, tasks, questions",
        "balance": "Balance", "what_happened": "What the filter does (the JSON report's counts)",
        "tokens_by_category": "Tokens by category: before → after",
        "tokens_by_category_hint": "light = before, solid = after", "before": "before", "after": "after",
        "balance_over_time": "Balance signals over time", "balance_hint": "each point: after a user turn, each sign's count over the recent window; dashed = threshold",
        "threshold": "threshold",
        "status_band": "status", "no_balance": "no user turns to assess", "must_keep_list": "Must-keep items",
        "no_must_keep": "nothing must be kept", "warnings": "Read warnings", "timeline": "Timeline",
        "timeline_hint": "dropped elements stay visible, struck through, with their reason",
        "search": "search text or id", "outcome": "outcome", "all_outcomes": "all outcomes", "prev": "prev",
        "next": "next", "page": "page", "of": "of", "nothing_matches": "no element matches the filters",
        "must_keep_badge": "must keep", "chars_not_shown": "characters not shown", "becomes": "kept as",
        "reason": "why", "merged_into": "merged into", "merged_from": "merges",
        "footer": "Made by Apollo renal · one offline file · nothing was changed",
        "outside_context": "elements outside the context (before the latest compaction or on side branches), not shown",
        "balance_names": {"green": "🟢 normal", "yellow": "🟡 watch", "red": "🔴 out of balance"},
        "advice": {"continue": "continue the current task", "dream": "run apollo-dream",
                   "confirm": "wait for the user's confirmation"},
        "signals": {"questioning": "repeated questioning", "negativity": "negativity", "drift": "topic drift"},
        "outcomes": {"kept": "kept", "compressed": "compressed", "merged": "merged", "dropped": "dropped",
                     "confirm": "needs confirmation"},
        "categories": {"decision": "decision", "preference": "preference", "task": "task", "question": "question",
                       "process": "process", "noise": "noise"},
        "kinds": {"text": "text", "thinking": "thinking", "tool_call": "tool call", "tool_result": "tool output",
                  "heartbeat_poll": "heartbeat poll", "heartbeat_reply": "heartbeat reply",
                  "compaction_summary": "compaction summary", "metadata": "metadata"},
        "counts": {"kept.decision": "decisions kept", "kept.preference": "preferences kept", "kept.task": "tasks kept",
                   "kept.question": "questions kept", "kept.process": "process kept",
                   "removed.acknowledgement": "confirmations removed", "removed.noise": "noise removed",
                   "removed.heartbeat": "heartbeats removed", "removed.process": "process removed",
                   "removed.thinking": "old thinking removed", "removed.duplicate": "repeats removed",
                   "removed.superseded": "outdated removed", "removed.outdated": "outdated removed", "removed.budget": "over budget",
                   "concentrated.merged": "repeats merged", "concentrated.tool_outputs_cut": "tool outputs cut",
                   "concentrated.condensed": "condensed", "needs_confirmation": "needs confirmation",
                   "rescued": "reabsorbed"},
        "reasons": {"acknowledgement": "acknowledgement, nothing new", "noise": "noise",
                    "heartbeat": "heartbeat poll and reply", "process": "process already acted on",
                    "thinking": "old thinking", "duplicate": "repeated later", "superseded": "superseded by a later one",
                    "outdated": "outdated (superseded, answered or done)",
                    "budget": "did not fit the budget", "opened": "cut to its opening to fit the budget (the source session keeps it whole)", "tool_output": "old tool output: first line and the lines later messages mention kept",
                    "condensed": "said more briefly", "must_keep": "must keep", "tail": "recent turns, kept as they are",
                    "rescued": "reabsorbed: carries a fact", "confirm": "unsure: kept until confirmed", "kept": "kept",
                    "metadata": "metadata (session settings, document headings)"},
    },
}
#: report sections shown as counts, in order: each key of these tables is one count, and each of
#: the lists is counted by its length; the page follows the report's keys, so it cannot drift from them
COUNT_TABLES = ("kept", "removed", "concentrated")
COUNT_LISTS = ("needs_confirmation", "rescued")
_COUNT_COLOR = {"kept": "var(--kept)", "removed": "var(--dropped)", "concentrated": "var(--merged)",
                "needs_confirmation": "var(--confirm)", "rescued": "var(--compressed)"}


@dataclass(slots=True)
class HtmlReport:
    output: Path
    #: the JSON report of the filter's dry run the page was made from
    report: dict[str, Any]
    #: what the page embeds (counts, elements, balance …), for tests and callers
    data: dict[str, Any]


def count_paths(report: dict[str, Any]) -> list[str]:
    """``kept.decision``, ``removed.heartbeat``, … ``needs_confirmation``: every count the report has."""
    paths = [f"{table}.{key}" for table in COUNT_TABLES for key in report.get(table, {})]
    return paths + [name for name in COUNT_LISTS if name in report]


def count_value(report: dict[str, Any], path: str) -> int:
    """The number at ``path`` (``kept.decision``) in a filter report; a list counts its items."""
    node: Any = report
    for part in path.split("."):
        node = node[part]
    return len(node) if isinstance(node, list) else int(node)


def default_html_path(source: Path | Any) -> Path:
    """``./<input name>.renal-report.html`` in the current folder (never beside the agent's own files)."""
    name = Path(str(source)).name
    stem = name.split(".jsonl")[0] if ".jsonl" in name else Path(name).stem
    return Path.cwd() / f"{stem}.renal-report.html"


def _check_destination(source: Path | Any, output: Path) -> None:
    """Replace an earlier report, never the transcript itself or any other file."""
    if not output.exists():
        return
    if Path(str(source)).exists() and output.resolve() == Path(str(source)).resolve():
        raise UsageError("refusing to write the report over its own input", where=str(output))
    with output.open("rb") as handle:
        head = handle.read(4096)
    if GENERATOR_MARK.encode() not in head:
        raise UsageError("refusing to replace a file that is not an Apollo report", where=str(output),
                         hint="choose another --html path")


def write_report(source: Path | Any, output: Path, fmt: str = "auto", config: Config | None = None, *,
                 lang: str | None = None, keep_ratio: float | None = None, budget: int | None = None,
                 workspace: Path | None = None) -> HtmlReport:
    """Run the filter as a dry run on ``source`` and write its page to ``output``.

    ``lang`` None: the page speaks the conversation's language, as the filter's report does."""
    from apollo import config as config_mod
    from apollo.renal.filter import filter_path
    from apollo.transcript.base import atomic_output

    output = Path(output)
    _check_destination(source, output)
    config = config or config_mod.load(workspace)
    result = filter_path(source, fmt, config, keep_ratio=keep_ratio, budget=budget, dry_run=True,
                         workspace=workspace, lang=lang)
    from apollo.redact import redact_value

    # the page is kept and shared: no secret a user pasted anywhere in it (texts also before their cut: _clip)
    data = redact_value(page_data(result, result.report["lang"], config))
    with atomic_output(Path(output)) as handle:
        handle.write(render(data).encode("utf-8"))
    return HtmlReport(Path(output), result.report, data)


def page_data(result: Any, lang: str, config: Config | None = None) -> dict[str, Any]:
    """Everything the page shows, as plain JSON-able data."""
    labels = LABELS["zh" if lang == "zh" else "en"]
    report = result.report
    fates = result.fates
    merged_into = {source: fate.element.id for fate in fates for source in fate.merged_from}
    cap = _text_cap(fates)
    elements = [_element(position, fate, merged_into, labels["reasons"], cap) for position, fate in enumerate(fates)]
    status = report["balance"].get("status", "green")
    transcript = result.transcript
    outside = len(transcript.elements) - len(fates)
    return {
        "lang": lang,
        "labels": labels,
        "title": labels["title"],
        "source": str(report.get("source") or ""),
        "format": report["format"],
        "counter": report["counter"],
        "generated": datetime.now().astimezone().strftime("%Y-%m-%d %H:%M"),
        "outside_context": outside,
        "page_size": PAGE_SIZE,
        "summary": {
            "tokens_before": report["before"]["tokens"], "tokens_after": report["after"]["tokens"],
            "density_before": report["before"]["density"], "density_after": report["after"]["density"],
            "saving": report["saving"], "balance": status, "balance_label": labels["balance_names"][status],
            "advice": labels["advice"].get(report["next_step"], report["next_step"]),
        },
        "counts": [{"key": path, "label": labels["counts"].get(path, path), "value": count_value(report, path),
                    "color": _COUNT_COLOR[path.split(".")[0]]} for path in count_paths(report)],
        "categories": _categories(fates, labels),
        "outcomes": _outcomes(elements, labels),
        "elements": elements,
        "must_keep": [e["id"] for e in elements if e.get("must")],
        "balance": balance_series(transcript, fates, config, labels),
        "warnings": list(report.get("warnings") or []),
    }


def _text_cap(fates: list[Any]) -> int:
    if not fates:
        return TEXT_CAP_MAX
    return max(TEXT_CAP_MIN, min(TEXT_CAP_MAX, TEXT_BUDGET // len(fates)))


def _clip(text: str, cap: int) -> tuple[str, int]:
    """Head of ``text`` within ``cap`` characters, secrets redacted, and how many were left out.

    Redacted before the cut (with a margin longer than any key), so a key the cut would halve is
    still recognised whole."""
    from apollo.redact import redact

    shown = redact(text[:cap + _KEY_MARGIN])
    if len(text) <= cap:
        return shown, 0
    return shown[:cap], len(text) - cap


#: characters past the cut that redaction reads: longer than any key or PEM block line
_KEY_MARGIN = 4096


def _outcome(fate: Any, merged_into: dict[str, str]) -> str:
    if fate.action == "drop":
        return "merged" if fate.element.id in merged_into else "dropped"
    if fate.action == "shorten" and fate.text is not None:
        return "compressed"  # a shortening that found nothing to cut leaves the element as it was
    return "confirm" if fate.confirm else "kept"


def _reason(fate: Any, outcome: str, reasons: dict[str, str]) -> str:
    """Why, in the reader's language: the filter's bucket first, then what kept it."""
    parts = []
    if outcome in ("dropped", "merged", "compressed"):
        parts.append(reasons.get(fate.bucket or "condensed", fate.bucket))
    elif fate.must_keep:
        parts.append(f"{reasons['must_keep']}: {fate.category}")
    elif fate.confirm:
        parts.append(reasons["confirm"])
    elif fate.in_tail:
        parts.append(reasons["tail"])
    elif fate.element.kind.value == "metadata":
        parts.append(reasons["metadata"])
    else:
        parts.append(reasons["kept"])
    if fate.rescued:
        parts.append(f"{reasons['rescued']} ({fate.rescued})")
    classifier = getattr(fate, "reason", None)
    if classifier:
        parts.append(str(classifier))
    return " · ".join(part for part in parts if part)


def _element(position: int, fate: Any, merged_into: dict[str, str], reasons: dict[str, str], cap: int) -> dict:
    element = fate.element
    outcome = _outcome(fate, merged_into)
    text, cut = _clip(element.text, cap)
    item: dict[str, Any] = {
        "i": position, "id": element.id, "role": element.role.value, "kind": element.kind.value,
        "cat": fate.category, "out": outcome, "why": _reason(fate, outcome, reasons),
        "tok": element.tokens, "tok_after": fate.tokens_after, "text": text,
    }
    if cut:
        item["cut"] = cut
    if element.timestamp:
        item["ts"] = str(element.timestamp)[:19].replace("T", " ")
    if element.tool_name:
        item["tool"] = element.tool_name
    if fate.must_keep and fate.action != "drop":
        item["must"] = 1
    if outcome == "compressed" and fate.text is not None:
        item["after"] = _clip(fate.text, cap)[0]
    if outcome == "merged":
        item["into"] = merged_into[element.id]
    if fate.merged_from:
        item["from"] = list(fate.merged_from)
    return item


def _categories(fates: list[Any], labels: dict[str, Any]) -> list[dict[str, Any]]:
    names = list(CATEGORY_ORDER) + sorted({f.category for f in fates} - set(CATEGORY_ORDER))
    rows = []
    for name in names:
        members = [f for f in fates if f.category == name]
        rows.append({"key": name, "label": labels["categories"].get(name, name),
                     "color": _CATEGORY_COLOR.get(name, "var(--other)"), "count": len(members),
                     "before": sum(f.element.tokens for f in members),
                     "after": sum(f.tokens_after for f in members)})
    return rows


def _outcomes(elements: list[dict[str, Any]], labels: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": key, "label": labels["outcomes"][key], "color": color,
             "total": sum(1 for e in elements if e["out"] == key)} for key, color in _OUTCOME_COLOR.items()]


def balance_series(transcript: Any, fates: list[Any], config: Config | None, labels: dict[str, Any]) -> dict[str, Any]:
    """The balance after each user turn (:func:`apollo.renal.api.series`), at up to BALANCE_POINTS
    turns spread evenly: each sign's raw count over the window, scaled so the threshold is half-way."""
    from apollo.renal import api, balance

    signals = [{"key": key, "label": labels["signals"][key], "color": color} for key, color in _SIGNAL_COLOR.items()]
    elements = [f.element for f in fates]
    points = api.series(elements, config)
    if not points:
        return {"signals": signals, "windows": []}
    limits = balance.BalanceTracker(balance.Thresholds.from_config(config)).limits
    positions = {e.id: position for position, e in enumerate(elements)}
    step = max(1, -(-len(points) // BALANCE_POINTS))
    chosen = points[step - 1::step]
    if chosen[-1] is not points[-1]:
        chosen.append(points[-1])
    windows = []
    for point in chosen:
        position = positions[point.id]
        window: dict[str, Any] = {"id": point.id, "status": point.level,
                                  "label": str(elements[position].timestamp or f"#{position + 1}")[:16].replace("T", " ")}
        for kind, count in point.counts.items():  # 1.0 = twice the threshold (the chart's top)
            if count:
                window[kind] = round(min(count / limits[kind], 2.0) / 2, 3)
        windows.append(window)
    return {"signals": signals, "windows": windows}


def render(data: dict[str, Any]) -> str:
    """The template with the data inlined; ``<`` is escaped so no text can close the script."""
    template = resources.files("apollo.renal").joinpath("templates/report.html").read_text(encoding="utf-8")
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    title = _escape(f"{data['title']} · {Path(data['source']).name if data['source'] else data['format']}")
    values = {"__LANG__": "zh-CN" if data["lang"] == "zh" else "en", "__TITLE__": title, "__DATA__": payload}
    # one pass, so a title or text that happens to contain a placeholder is never expanded
    return re.sub("__LANG__|__TITLE__|__DATA__", lambda match: values[match.group()], template)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
