"""Daily memory notes as people write them (shapes of 45 real OpenClaw notes): the same words under
two sections are two facts, a bold label is structure, and "1." alone on its line is part of the
paragraph. Before, the default filter had dropped 240 blocks of 44 notes as "repeats": the second
task's "**Status**: ✅ done", "**改进方案：**" labels (their items then read as the label above's),
"10 Python class reminders" beside "10 Web Design class reminders", "高频巡检" beside "低频巡检"."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apollo.renal.api import classify_path
from apollo.renal.filter import filter_path
from apollo.transcript.markdown import parse_blocks


def _filtered(tmp_path: Path, text: str, name: str = "2026-04-24.md") -> str:
    note = tmp_path / name
    note.write_text(text, encoding="utf-8")
    out = tmp_path / f"{name}.out.md"
    out.unlink(missing_ok=True)
    filter_path(note, "markdown", output=out, workspace=tmp_path)
    return out.read_text(encoding="utf-8")


def test_the_same_words_under_two_tasks_are_two_facts(tmp_path: Path) -> None:
    text = ("# 2026-04-24\n\n### sysadmin-daily-git-push\n- **Status**: ✅ done\n- **Log**: `/tmp/openclaw.log` 05-15\n\n"
            "### lifehelper-daily-review\n- **Status**: ✅ done\n- **Log**: `/tmp/openclaw.log` 05-15\n")
    assert _filtered(tmp_path, text) == text


def test_a_bold_label_is_structure_and_its_items_stand_under_it(tmp_path: Path) -> None:
    text = ("# 学习反思\n\n### 模式 1\n\n**模式描述：**\n- 配置错误发现时间过长\n\n**改进方案：**\n- 配置创建时自动运行校验脚本\n\n"
            "### 模式 2\n\n**模式描述：**\n- 日志量下降才算稳定\n\n**改进方案：**\n- 设观察期\n")
    assert _filtered(tmp_path, text) == text
    blocks = {b.text: b for b in parse_blocks(text.splitlines(keepends=True))}
    assert blocks["**改进方案：**"].kind == "label"
    assert blocks["设观察期"].parent == text.splitlines().index("**改进方案：**", 12)
    lines = ["**第450次目标**（长期）：\n", "- 密度指数：0.02\n", "\n", "**Never push on Friday.**\n", "\n",
             "**Note:** the rest\n"]
    assert [b.kind for b in parse_blocks(lines)] == ["label", "item", "label", "paragraph"]


def test_one_changed_word_in_a_note_is_the_point(tmp_path: Path) -> None:
    text = ("# 2026-03-03\n\n## Reminders created\n- 10 Python class prep reminders (sessions 3-10)\n"
            "- 10 Web Design class prep reminders (sessions 3-10)\n\n## 巡检\n- 21:20 - 22:42 期间执行了多次高频巡检\n"
            "- 21:20 - 22:42 期间执行了多次低频巡检\n")
    assert _filtered(tmp_path, text) == text


def test_a_numbered_line_alone_stays_with_its_paragraph(tmp_path: Path) -> None:
    text = "# 季度目标\n\n团队KPI\n0到1完成度\n1.\n反馈评分8(8.5)\n2.\n完成度90%(100%)\n"
    assert _filtered(tmp_path, text) == text
    assert [b.kind for b in parse_blocks(text.splitlines(keepends=True))] == ["heading", "paragraph"]


def test_a_repeat_in_the_same_section_still_goes(tmp_path: Path) -> None:
    text = ("# 2026-03-26\n\n## 对话\n\nSender (untrusted metadata): Leo 李宝烛 in the product group chat\n\n"
            "老板，文档还没有创建成功。\n\nSender (untrusted metadata): Leo 李宝烛 in the product group chat\n")
    assert _filtered(tmp_path, text).count("Sender (untrusted metadata)") == 1


def test_an_open_box_is_open_until_it_is_ticked(tmp_path: Path) -> None:
    """16 open boxes of 3 real notes had been closed by a status line elsewhere sharing one word."""
    note = tmp_path / "2026-02-26.md"
    note.write_text("# 2026-02-26\n\n### This Week\n- [ ] Make first sales (target: 5-10 phones)\n"
                    "- [ ] 等待Drive API权限修复后清理156个测试文件\n\n**End of Day Status:**\n"
                    "- Inventory: ✅ Catalogued (100+ phones)\n- ✅ Bitable 全功能验证（全部修复）\n", encoding="utf-8")
    result = classify_path(note, "markdown")
    assert result.summary["active_task_ids"] == ["L4", "L5"]


def test_what_a_heading_or_label_names_is_what_stands_under_it(tmp_path: Path) -> None:
    """Notes list their decisions and rules under a title that says so; none of 45 real notes'
    "## Key Decisions", "### 技术选型原则", "**技术决策：**" items had been recognised (a note's lines read as
    the agent's, whose "always"/"never" state no preference)."""
    note = tmp_path / "2026-03-09.md"
    note.write_text("# 2026-03-09\n\n## 🎯 Key Decisions\n- Use one WhatsApp number for both stores\n\n"
                    "## Rules\n\n- Memory files must APPEND, never overwrite\n\n### 技术选型原则\n1. 不要代写其他 Agent 的计划\n\n"
                    "**技术决策：**\n- 用 PostgreSQL\n\n---\n\n**最后更新**：2026-03-27\n\n"
                    "### 决策启发式\n- 先问时间\n\n## Decision log format\n- one line per decision\n\n"
                    "**你在哪里竞争？**\n- 前端开发求职：激烈竞争\n", encoding="utf-8")
    result = classify_path(note, "markdown")
    text = {e.id: e.text for e in result.transcript.elements}
    found = {text[v.id]: v.category for v in result.verdicts if v.category in ("decision", "preference")}
    assert result.summary["open_question_ids"] == []  # "**你在哪里竞争？**" heads its answer
    assert found == {"Use one WhatsApp number for both stores": "decision",
                     "Memory files must APPEND, never overwrite": "preference",
                     "不要代写其他 Agent 的计划": "preference", "用 PostgreSQL": "decision"}


_FACT = st.sampled_from(["**Status**: ✅ done", "**结果**: ✅ 成功", "Price: $5.01", "**日志位置**: `/tmp/openclaw.log`",
                         "每天10分钟深呼吸或冥想", "Read-only, never modify", "**Access:** full autonomy"])
_LABEL = st.sampled_from(["**模式描述：**", "**Coping:**", "**下一步可做什么**：", "**Naval判断**：", ""])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(_LABEL, st.lists(_FACT, min_size=1, max_size=3, unique=True)), min_size=2, max_size=5))
def test_no_section_loses_a_line_to_another(tmp_path: Path, sections) -> None:
    """Sections of a note holding the same facts and labels in any order: the default filter
    keeps every line of every section (each under its own heading)."""
    parts = ["# 2026-05-11", ""]
    for number, (label, facts) in enumerate(sections):
        parts += [f"## Task {number}", ""] + ([label, ""] if label else []) + [f"- {fact}" for fact in facts] + [""]
    text = "\n".join(parts)
    assert _filtered(tmp_path, text) == text
