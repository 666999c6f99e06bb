"""The seed's purification report (SPEC §1.4), as data and as text in Chinese or English.

``build`` gives the JSON document of ``--json``; ``render`` prints the seed's block,
``🫘 [apollo-renal] 上下文净化报告``, line for line, with the English variant alongside.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

KEPT_CATEGORIES = ("decision", "preference", "task", "question")


def build(transcript: Any, fates: list[Any], measure: Any, fit: Any, balance_state: Any, lang: str, *, counter: str,
          mode: str, output: Path | None, snapshot: Path | None, dry_run: bool,
          compaction: dict[str, Any] | None) -> dict:
    """The report; "before" is ``measure`` (:class:`apollo.renal.fates.Measure`, the default filter's
    numbers, which ``apollo renal check`` reports too), "after" what this run's mode and budget leave."""
    before = measure.tokens
    # compact: what the agent's loader shows, the summary (in its wrapper) and the tail
    after = compaction["context_tokens"] if compaction is not None else sum(f.tokens_after for f in fates)
    kept = {c: sum(1 for f in fates if f.must_keep and f.category == c and f.action != "drop")
            for c in KEPT_CATEGORIES}
    kept["process"] = sum(1 for f in fates if not f.must_keep and f.action != "drop"
                          and f.element.kind.value != "metadata")
    removed = {bucket: sum(1 for f in fates if f.bucket == bucket and f.action == "drop")
               for bucket in ("acknowledgement", "noise", "heartbeat", "process", "thinking", "duplicate",
                              "outdated", "budget", "confirmed")}
    density_before = measure.density
    remaining_waste = sum(f.tokens_after for f in fates if f.action != "drop" and f.category == "noise"
                          and not f.rescued)
    density_after = 1 - remaining_waste / after if after else 1.0
    status = _status(balance_state)
    confirm = [_item(f) for f in fates if f.confirm and f.action != "drop"]
    report: dict[str, Any] = {
        "source": transcript.meta.get("session") or (str(transcript.source) if transcript.source else None),
        "format": transcript.format,
        "mode": mode,
        "dry_run": dry_run,
        "lang": lang,
        "counter": counter,
        "before": {"tokens": before, "density": round(density_before, 4)},
        "after": {"tokens": after, "density": round(density_after, 4)},
        "density_gain": round(density_after - density_before, 4),
        "saving": round(1 - after / before, 4) if before else 0.0,
        "kept": kept,
        "removed": removed,
        "concentrated": {
            "merged": sum(len(f.merged_from) for f in fates if f.action != "drop"),
            "tool_outputs_cut": sum(1 for f in fates if f.bucket == "tool_output" and f.action == "shorten"),
            "condensed": sum(1 for f in fates if f.action == "shorten" and f.bucket not in ("tool_output", "opened")),
        },
        "rescued": [dict(_item(f), fact=f.rescued) for f in fates if f.rescued and f.action != "drop"],
        "needs_confirmation": confirm,
        "outdated": [dict(_item(f), status=f.status, kept=f.action != "drop") for f in fates if f.outdated],
        "balance": status,
        "next_step": _next_step(status, confirm, fit),
        "output": str(output) if output else None,
        "snapshot": str(snapshot) if snapshot else None,
        "warnings": [str(w) for w in transcript.warnings],
    }
    if fit is not None:
        by_id = {f.element.id: f for f in fates if f.element.id in fit.must_keep_dropped}
        report["budget"] = {
            "target": fit.budget, "tokens": fit.tokens, "met": fit.met,
            "must_keep_shortened": fit.must_keep_shortened, "must_keep_dropped": fit.must_keep_dropped,
            "must_keep_opened": fit.must_keep_opened,
            # which must-keep items went, of what kind, and why they before the others
            "must_keep_cut": [dict(_item(by_id[i]), why=fit.must_keep_why.get(i, "budget"))
                              for i in fit.must_keep_dropped if i in by_id],
        }
    if compaction is not None:
        report["compaction"] = {k: v for k, v in compaction.items() if k != "summary"}
    return report


def _item(fate: Any) -> dict[str, Any]:
    from apollo.redact import redact

    text = redact(fate.element.text)
    return {"id": fate.element.id, "category": fate.category,
            "text": text if len(text) <= 200 else text[:199] + "…"}


def _status(balance_state: dict[str, Any] | None) -> dict[str, Any]:
    return dict(balance_state) if balance_state else {"status": "green", "icon": "🟢", "signs": []}


def _next_step(status: dict[str, Any], confirm: list[Any], fit: Any) -> str:
    if status.get("status") == "red":
        return "dream"
    if confirm or (fit is not None and (fit.must_keep_dropped or fit.must_keep_opened or not fit.met)):
        return "confirm"
    return "continue"


_TEXT: dict[str, dict[str, Any]] = {
    "zh": {
        "title": "🫘 [apollo-renal] 上下文净化报告",
        "before": "过滤前状态：", "after": "过滤后状态：",
        "tokens": "  - 总token估计：{tokens:,}", "density": "  - 有效信息密度：{density:.0%}",
        "density_gain": "  - 有效信息密度：{density:.0%}（提升{gain:.0%}）",
        "ops": "过滤操作：",
        "kept": "  ✅ 保留：决策{decision}项 / 偏好{preference}项 / 进行中任务{task}项 / 未解决问题{question}项",
        "removed": "  ❌ 删除：重复确认{acknowledgement}个 / 中间过程{process}项 / 噪音{noise}项",
        "concentrated": "  🔁 浓缩：合并重复{merged}项 / 工具输出截断{tool_outputs_cut}项 / 精简{condensed}项 / "
                        "旧思考{thinking}段 / 心跳{heartbeat}个 / 过时{outdated}项",
        "rescued": "  🛟 重吸收：抢救{n}项（含事实/数字/日期等）",
        "confirm": "  ⚠️ 需确认：{n}项（未删除）",
        "confirm_keep": "     保留：无需操作（默认保留）；删除：运行该项下面的命令",
        "confirm_drop": "       删除：{command}", "confirmed": "  🗑️ 按你的确认删除：{n}项",
        "saving": "节省率：{saving:.0%} token",
        "balance": "平衡状态：",
        "balance_line": {"green": "  🟢 对话正常", "yellow": "  🟡 连续质疑/负面/偏离，需注意",
                         "red": "  🔴 失衡严重，建议apollo-dream深度介入"},
        "next": "下一步建议：{step}",
        "steps": {"continue": "继续当前任务", "confirm": "等待用户确认",
                  "dream": ("触发 apollo-dream（巩固和关联记忆的配套技能，不属于 Apollo）；若未安装：请 agent 把决策和"
                            "进行中的任务写进 memory/，再用过滤后的会话开始")},
        "budget": "预算：目标{target:,} token，结果{tokens:,} token（{met}）",
        "met": {True: "已达成", False: "未达成"},
        "budget_keep": "  ⚠️ 预算迫使精简必保内容{short}项、删除{dropped}项",
        "budget_dropped": "  ⚠️ 删除的必保内容（仅必保内容已超出预算，精简到只剩实词也放不下）：{ids}",
        "budget_opened": "  ⚠️ 只保留开头的必保内容（为符合预算截去了其余部分，原会话保留全文）：{ids}",
        "budget_cut": {"tail": "最近几轮的过程内容先删", "least_informative": "每token信息量最少，先删",
                       "budget": "超出预算"},
        "budget_cut_line": "     {id}（{kind}，{why}）  {text}",
        "categories": {"decision": "决策", "preference": "偏好", "task": "任务", "question": "问题",
                       "process": "过程"},
        "output": "输出：{path}", "snapshot": "重要内容快照：{path}", "dry": "（试运行：未写入任何文件）",
        "compaction": "原生压缩条目：{entry}（保留自 {first}，摘要 {tokens:,} token）", "not_written": "（未写入）",
    },
    "en": {
        "title": "🫘 [apollo-renal] Context purification report",
        "before": "Before:", "after": "After:",
        "tokens": "  - Estimated tokens: {tokens:,}", "density": "  - Information density: {density:.0%}",
        "density_gain": "  - Information density: {density:.0%} (up {gain:.0%})",
        "ops": "Operations:",
        "kept": "  ✅ Kept: {decision} decisions / {preference} preferences / {task} active tasks / "
                "{question} open questions",
        "removed": "  ❌ Removed: {acknowledgement} repeated confirmations / {process} process items / {noise} noise",
        "concentrated": "  🔁 Concentrated: {merged} repeats merged / {tool_outputs_cut} tool outputs cut / "
                        "{condensed} condensed / {thinking} old thinking / {heartbeat} heartbeats / "
                        "{outdated} outdated",
        "rescued": "  🛟 Reabsorbed: {n} rescued (facts, numbers, dates…)",
        "confirm": "  ⚠️ Needs confirmation: {n} (not removed)",
        "confirm_keep": "     to keep one: nothing to do (kept by default); to drop one: run the command under it",
        "confirm_drop": "       drop: {command}", "confirmed": "  🗑️ Dropped as you confirmed: {n}",
        "saving": "Saving: {saving:.0%} of tokens",
        "balance": "Balance:",
        "balance_line": {"green": "  🟢 Conversation normal", "yellow": "  🟡 Repeated questioning / negativity / drift: watch",
                         "red": "  🔴 Seriously unbalanced: apollo-dream recommended"},
        "next": "Next step: {step}",
        "steps": {"continue": "continue the current task", "confirm": "wait for the user's confirmation",
                  "dream": ("run apollo-dream (the companion skill that consolidates and connects memories; it is "
                            "not part of Apollo); if it is not installed: ask the agent to write the decisions and "
                            "open tasks to memory/, then go on from the filtered session")},
        "budget": "Budget: target {target:,} tokens, result {tokens:,} tokens ({met})",
        "met": {True: "met", False: "not met"},
        "budget_keep": "  ⚠️ The budget forced {short} must-keep items shortened and {dropped} dropped",
        "budget_dropped": "  ⚠️ Must-keep items dropped (they alone exceed the budget, even cut to their content "
                          "words): {ids}",
        "budget_opened": "  ⚠️ Must-keep items cut to their opening to fit the budget (the source session keeps them "
                         "whole): {ids}",
        "budget_cut": {"tail": "the recent tail's process goes first", "least_informative": "told the least per token",
                       "budget": "over the budget"},
        "budget_cut_line": "     {id} ({kind}, {why})  {text}",
        "categories": {},
        "output": "Output: {path}", "snapshot": "Important-content snapshot: {path}",
        "dry": "(dry run: nothing written)",
        "compaction": "Native compaction entry: {entry} (keeps from {first}, summary {tokens:,} tokens)",
        "not_written": "(not written)",
    },
}


def render(report: dict[str, Any], lang: str) -> str:
    t = _TEXT["zh" if lang == "zh" else "en"]
    removed = report["removed"]
    lines = [t["title"], "", t["before"], t["tokens"].format(tokens=report["before"]["tokens"]),
             t["density"].format(density=report["before"]["density"]), "", t["ops"],
             t["kept"].format(**report["kept"]),
             t["removed"].format(acknowledgement=removed["acknowledgement"],
                                 process=removed["process"] + removed["budget"],
                                 noise=removed["noise"] + removed["heartbeat"]),
             t["concentrated"].format(**report["concentrated"], thinking=removed["thinking"],
                                      heartbeat=removed["heartbeat"], outdated=removed["outdated"])]
    if report["rescued"]:
        lines.append(t["rescued"].format(n=len(report["rescued"])))
    if removed.get("confirmed"):
        lines.append(t["confirmed"].format(n=removed["confirmed"]))
    if report["needs_confirmation"]:
        lines.append(t["confirm"].format(n=len(report["needs_confirmation"])))
        lines.append(t["confirm_keep"])
        for item in report["needs_confirmation"]:
            text = " ".join(item["text"].split())
            lines.append(f"     {item['id']}  {text[:70]}{'…' if len(text) > 70 else ''}")
            if item.get("drop_command"):
                lines.append(t["confirm_drop"].format(command=item["drop_command"]))
    lines += ["", t["after"], t["tokens"].format(tokens=report["after"]["tokens"]),
              t["density_gain"].format(density=report["after"]["density"], gain=max(report["density_gain"], 0)),
              "", t["saving"].format(saving=report["saving"])]
    budget = report.get("budget")
    if budget:
        lines.append(t["budget"].format(target=budget["target"], tokens=budget["tokens"], met=t["met"][budget["met"]]))
        if budget["must_keep_shortened"] or budget["must_keep_dropped"]:
            lines.append(t["budget_keep"].format(short=len(budget["must_keep_shortened"]),
                                                 dropped=len(budget["must_keep_dropped"])))
        if budget.get("must_keep_opened"):
            lines.append(t["budget_opened"].format(ids=", ".join(budget["must_keep_opened"])))
        if budget["must_keep_dropped"]:
            lines.append(t["budget_dropped"].format(ids=", ".join(budget["must_keep_dropped"])))
            for item in budget.get("must_keep_cut", []):
                text = " ".join(item["text"].split())
                kind = t["categories"].get(item["category"], item["category"])
                lines.append(t["budget_cut_line"].format(id=item["id"], kind=kind,
                                                         why=t["budget_cut"].get(item["why"], item["why"]),
                                                         text=text[:70] + ("…" if len(text) > 70 else "")))
    status = report["balance"].get("status", "green")
    lines += ["", t["balance"], t["balance_line"].get(status, t["balance_line"]["green"])]
    lines += ["", t["next"].format(step=t["steps"][report["next_step"]])]
    if report.get("compaction"):
        c = report["compaction"]
        lines.append(t["compaction"].format(entry=c["entry_id"] or t["not_written"], first=c["first_kept_entry_id"],
                                            tokens=c["summary_tokens"]))
    if report["output"]:
        lines.append(t["output"].format(path=report["output"]))
    if report["snapshot"]:
        lines.append(t["snapshot"].format(path=report["snapshot"]))
    if report["dry_run"]:
        lines.append(t["dry"])
    return "\n".join(lines)
