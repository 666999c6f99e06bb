"""A Markdown file under a budget keeps each list item and paragraph with the heading it stands
under (and a nested item with its parent item). Found on real MEMORY.md files at --keep-ratio 0.5:
"### 技术选型原则" went while its items stayed, which then read as part of the section before."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apollo.renal.filter import filter_path
from apollo.transcript.markdown import parse_blocks

_WORDS = st.sampled_from(["deploy", "Postgres 16", "backup at 02:00", "never force-push", "review", "budget 3k",
                          "ship Friday", "staging", "小满", "成熟稳定", "数据库迁移", "周报", "rotate keys"])
_LINE = st.lists(_WORDS, min_size=1, max_size=6).map(" ".join)
_SECTION = st.tuples(_LINE, st.lists(st.tuples(_LINE, st.booleans()), min_size=1, max_size=5))


def _document(sections: list[tuple[str, list[tuple[str, bool]]]]) -> str:
    """Every line its own (numbered), so that a kept line says which block it was."""
    lines = ["# Memory", ""]
    for number, (title, items) in enumerate(sections):
        lines += [f"## {number}. {title}", ""]
        for index, (text, nested) in enumerate(items):
            lines.append(f"{'  ' if nested and lines[-1].startswith('-') else ''}- {text} ({number}.{index})")
        lines.append("")
    return "\n".join(lines) + "\n"


_TAG = re.compile(r"^#+ (\d+)\.|\((\d+\.\d+)\)$")


def _tag(line: str) -> str:
    """Which block a line is, however it was shortened: a heading's number, an item's (n.i)."""
    found = _TAG.search(line.strip())
    return (found.group(1) or found.group(2)) if found else line.strip()


def _under(text: str) -> list[tuple[str, str | None]]:
    """Each block (its tag) with its parent's (the heading or item it stands under)."""
    lines = text.splitlines(keepends=True)
    blocks = parse_blocks(lines)
    start = {b.start for b in blocks}
    return [(_tag(lines[b.start]), _tag(lines[b.parent]) if b.parent is not None and b.parent in start else None)
            for b in blocks]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(_SECTION, min_size=1, max_size=5), st.sampled_from([0.3, 0.5, 0.7]))
def test_a_kept_block_keeps_what_it_stands_under(tmp_path: Path, sections, ratio: float) -> None:
    """Property: a block the budget keeps by its worth keeps its heading (and parent item) too; only a
    block kept whatever the budget (the recent tail, a decision) may stand without one, when the
    budget has no room left for it."""
    source = tmp_path / "MEMORY.md"
    source.write_text(_document(sections), encoding="utf-8")
    out = tmp_path / "out.md"
    result = filter_path(source, "auto", None, keep_ratio=ratio, output=out, overwrite=True)
    kept = {line for line, _ in _under(out.read_text(encoding="utf-8"))}
    fate_of = {_tag(f.element.text if f.element.extra.get("block") != "heading" else f"## {f.element.text}"): f
               for f in result.fates}
    for line, parent in _under(source.read_text(encoding="utf-8")):
        if line in kept and parent is not None and parent not in kept:
            child = fate_of[line]
            assert child.must_keep or child.in_tail, (line, parent, out.read_text(encoding="utf-8"))


def test_the_real_case_keeps_its_heading(tmp_path: Path) -> None:
    source = tmp_path / "MEMORY.md"
    source.write_text("# MEMORY.md - 长期记忆\n\n## 工作日志\n\n### 2026-03-23\n- **角色创建** — Agent 创建完成\n"
                      "- **团队组建** — 组成产品研发团队\n\n## 技术知识\n\n### 技术选型原则\n"
                      "- 简单优先 — 优先选择简单、可维护的方案\n- 成熟稳定 — 优先选择经过验证的技术\n"
                      "- 成本合理 — 平衡性能和成本\n\n### 架构设计原则\n- 模块化 — 清晰的模块划分和接口定义\n"
                      "- 可扩展 — 预留扩展点，支持未来增长\n", encoding="utf-8")
    out = tmp_path / "out.md"
    filter_path(source, "auto", None, keep_ratio=0.5, output=out, overwrite=True)
    lines = out.read_text(encoding="utf-8").splitlines()
    for item in ("- 简单优先", "- 成熟稳定", "- 模块化", "- **角色创建**"):
        at = next((i for i, line in enumerate(lines) if line.startswith(item)), None)
        if at is not None:
            heading = next(line for line in reversed(lines[:at]) if line.startswith("#"))
            assert heading.startswith("### "), (item, lines)


def test_headings_never_stay_alone_and_never_cost_a_decision(tmp_path: Path) -> None:
    """Review: with headings kept whatever the budget, twelve headings over one note each and a
    decision under a last heading lost the decision and missed the budget."""
    source = tmp_path / "MEMORY.md"
    notes = "".join(f"## Topic {n}\n\n- a note about topic {n} and its details\n\n" for n in range(12))
    source.write_text("# Memory\n\n" + notes + "## Decisions\n\n- 决定：以后都用 PostgreSQL 16，不再用 MySQL。\n",
                      encoding="utf-8")
    out = tmp_path / "out.md"
    result = filter_path(source, "auto", None, keep_ratio=0.3, output=out, overwrite=True)
    text = out.read_text(encoding="utf-8")
    assert result.report["budget"]["met"] and "PostgreSQL 16" in text
    lines = [line for line in text.splitlines() if line.strip()]
    for at, line in enumerate(lines):
        if line.startswith("## "):  # a heading is followed by something it heads
            assert at + 1 < len(lines) and not lines[at + 1].startswith("#"), text


def test_every_budget_keeps_the_headings_above_what_stays_and_a_whole_budget_keeps_all(tmp_path: Path) -> None:
    """Third review: a heading with only subsections under it (a title, an H2 over H3s) went under any
    budget, even --keep-ratio 1.0; so did a file of headings only."""
    source = tmp_path / "MEMORY.md"
    source.write_text("# Memory\n\n## Infrastructure\n\n### Database\n\n- Postgres 16 on the NAS\n\n"
                      "### Backups\n\n- nightly at 02:00 to the NAS\n\n## Decision: ship v2 on March 3\n", encoding="utf-8")
    out = tmp_path / "out.md"
    filter_path(source, "auto", None, keep_ratio=1.0, output=out, overwrite=True)
    assert [line for line in out.read_text(encoding="utf-8").splitlines() if line.startswith("#")] == \
        [line for line in source.read_text(encoding="utf-8").splitlines() if line.startswith("#")]
    filter_path(source, "auto", None, keep_ratio=0.5, output=out, overwrite=True)
    text = out.read_text(encoding="utf-8")
    if "Postgres 16" in text:
        assert "### Database" in text and "## Infrastructure" in text and "# Memory" in text, text


def test_an_empty_heading_takes_only_the_room_content_leaves(tmp_path: Path) -> None:
    """Fourth review: "## TODO", "## Ideas" with nothing under them won room from the content by their
    value per token; they come last, with what is left."""
    source = tmp_path / "MEMORY.md"
    source.write_text("# Memory\n\n## TODO\n\n## Ideas\n\n## Misc\n\n## Stack\n\n"
                      "- The billing service runs Postgres 16 in eu-west with nightly backups at 02:00 UTC.\n"
                      "- The API gateway is Envoy 1.29 behind Cloudflare, with rate limits of 600 requests a minute.\n",
                      encoding="utf-8")
    out = tmp_path / "out.md"
    filter_path(source, "auto", None, keep_ratio=0.6, output=out, overwrite=True)
    text = out.read_text(encoding="utf-8")
    assert "Postgres 16 in eu-west with nightly backups" in text or "## TODO" not in text, text


def test_a_whole_budget_keeps_empty_headings_with_the_headings_above_them(tmp_path: Path) -> None:
    """Final review: at --keep-ratio 1.0 a "### TODO" with nothing under it came back without its
    "## Rollback", reading as a subsection of the section before."""
    source = tmp_path / "RUNBOOK.md"
    source.write_text("# Runbook\n\n## Deploy\n\nRun the pipeline.\n\n## Rollback\n\n### TODO\n", encoding="utf-8")
    out = tmp_path / "out.md"
    filter_path(source, "auto", None, keep_ratio=1.0, output=out, overwrite=True)
    assert [line for line in out.read_text(encoding="utf-8").splitlines() if line.startswith("#")] == \
        ["# Runbook", "## Deploy", "## Rollback", "### TODO"]


def test_a_subheading_never_comes_back_without_the_headings_above_it(tmp_path: Path) -> None:
    """Fifth review: the headings above a kept decision came back each that fitted, so a long "## Infrastructure…"
    went and "### Database" stayed, reading as a part of "## Deploy" before it."""
    source = tmp_path / "MEMORY.md"
    source.write_text("# Memory\n\n## Deploy\n\n- Deploy from the release branch only.\n\n## Infrastructure and operations of "
                      "the billing platform, the warehouse export, the on-call rota and the vendor contracts we renew "
                      "every spring\n\n### Database\n\n- We decided to use Postgres 16 for billing, not MySQL.\n\n"
                      "## Notes\n\n- The office wifi password changed on Monday.\n", encoding="utf-8")
    out = tmp_path / "out.md"
    for ratio in (0.5, 0.6, 0.7, 0.8):
        filter_path(source, "auto", None, keep_ratio=ratio, output=out, overwrite=True)
        text = out.read_text(encoding="utf-8")
        assert "### Database" not in text or "## Infrastructure" in text, (ratio, text)
