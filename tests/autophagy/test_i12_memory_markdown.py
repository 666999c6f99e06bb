"""Issue 12, finding 5: MEMORY.md entries as a CommonMark parser sees them. A marker inside code
(indented or fenced, inside list items too) is never cut; a fence, quote or HTML comment after a
marked entry stays; no cut leaves an unclosed fence or comment; a marker in the H1 never removes
the whole file. Property: every cut leaves every other block of the document as it was."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from apollo.autophagy import entries
from apollo.autophagy.entries import cut, markdown_entries, marked_entries, superseded_entries
from apollo.autophagy.rules import load

RULES = load().data.memory


def _cuts(text: str) -> str:
    data = text.encode()
    found = marked_entries(markdown_entries(data), RULES, data)
    return cut(data, [(e.start, e.end) for e, _ in found]).decode()


def test_markers_inside_code_are_never_cut() -> None:
    text = ("# Memory\n\n"
            "    - [outdated] an indented code block\n\n"
            "- an item\n\n      - [outdated] indented code inside the item\n\n"
            "- another item\n  ```\n  - [outdated] fenced code inside the item\n  ```\n"
            "- `[outdated]` named in a code span\n")
    assert _cuts(text) == text


def test_a_fence_quote_or_comment_after_a_marked_entry_stays() -> None:
    assert _cuts("- keep\n- [outdated] old\n```\n- [outdated] code\n```\nafter\n") == \
        "- keep\n```\n- [outdated] code\n```\nafter\n"
    assert _cuts("- [outdated] old\n> a quote that stays\n") == "> a quote that stays\n"
    assert _cuts("- [outdated] old\n<!-- a comment\n- [outdated] inside it\n-->\nafter\n") == \
        "<!-- a comment\n- [outdated] inside it\n-->\nafter\n"


def test_no_cut_leaves_an_unclosed_fence_or_comment() -> None:
    for text in ("- [outdated] x\n  ```\n  code\n- y\n```\nz\n```\n",
                 "para [outdated]\n<!--\nstill a comment\n-->\n\nrest\n",
                 "- [outdated] a <!-- opens\n-->\n- b\n"):
        after = _cuts(text)
        assert _blocks_outside_cut(text, after), (text, after)


def test_a_marker_in_the_h1_never_removes_the_whole_file() -> None:
    text = "# Memory [outdated]\n\n- a\n- b\n\n## Work\n\n- c\n"
    assert _cuts(text) == text
    assert _cuts("# Memory\n\n## Old [outdated]\n\n- a\n\n## New\n\n- b\n") == "# Memory\n\n## New\n\n- b\n"


def test_superseded_entries_are_linear_and_right() -> None:
    lines = [f"- topic{n}: value {n}" for n in range(8000)] + [f"- topic{n}: new value" for n in range(0, 8000, 2)]
    data = ("# Memory\n\n" + "\n".join(lines) + "\n").encode()
    found = superseded_entries(markdown_entries(data), RULES)
    assert len(found) == 4000
    assert all(old.first.startswith(f"- topic{new.first[7:].split(':')[0]}:") for old, new, _ in found)


def _subject_suggestions(text: str) -> list[str]:
    data = text.encode()
    return [old.first for old, _new, how in superseded_entries(markdown_entries(data), RULES) if how == "subject"]


def test_a_subject_that_labels_parallel_items_is_not_an_update() -> None:
    """From real MEMORY.md files: lessons in a row, and a "coping:" step under each problem's bold line,
    were each offered as superseded by the next; a fact stated again, and again, further down still is."""
    text = ("# Memory\n\n## Lessons\n\n- 教训：反思要有执行\n- 教训：文档会过期\n- 教训：目的不是手段\n\n"
            "## Problems\n\n**1. Sleep**\n- Cause: overexcited\n- Coping: fixed routine\n\n"
            "**2. Food**\n- Cause: growth slows\n- Coping: offer choices\n\n"
            "## Stack\n\n- Model: gpt-4\n- Editor: vim\n- Model: gpt-4o\n- Shell: zsh\n- Model: claude\n\n"
            "## Fixes\n\n- 问题：登录失败\n- 解决：重置令牌\n- 问题：推送延迟\n- 解决：换队列\n- 问题：日志太多\n- 解决：降级\n")
    assert _subject_suggestions(text) == ["- Model: gpt-4", "- Model: gpt-4o"]


def test_a_label_in_one_place_is_a_label_everywhere_and_nested_lists_are_apart() -> None:
    """Real MEMORY.md files: two lessons under 2026-03-17 (after three under 2026-05-11) were offered
    as an update, and an insight's "2. 就医分级：…" as superseded by the same subject in the list of
    patterns under the next item."""
    text = ("# Memory\n\n### 2026-05-11\n- **教训**：反思要有执行\n- **教训**：文档会过期\n- **教训**：要降级\n\n"
            "### 2026-03-17\n- **教训**：手段不是目的\n- **教训**：学习服务于目标\n\n"
            "### 2026-05-04\n- **关键洞察**：\n  1. 档案：系统化\n  2. 就医分级：P0/P1/P2\n"
            "- **可迁移模式**：\n  1. **档案**：个人 + 家庭\n  2. **就医分级**：P0紧急 + P1重要\n\n"
            "### Stack\n- Model: gpt-4\n- Editor: vim\n- Model: gpt-4o\n")
    assert _subject_suggestions(text) == ["- Model: gpt-4"]


def test_two_procedures_two_targets_and_numbered_steps_are_no_update() -> None:
    """A real MEMORY.md: a fresh install's steps and a restore's, each under its bold line, were offered
    as repeats; the "**第400次目标**：" figures as superseded by the "**第450次目标**（长期）：" ones; step 5
    "**即将执行**：…" by step 6. The same fact again in one list still is offered."""
    text = ("# Memory\n\n### 恢复流程\n\n**全新安装**：\n1. 安装 OpenClaw\n2. 安装飞书插件\n3. 重启网关\n\n"
            "**从备份恢复**：\n1. 恢复 openclaw.json\n2. 安装飞书插件\n3. 重启网关\n\n"
            "### 目标\n\n**第400次目标**：\n- 密度指数：0.01\n\n**第450次目标**（长期）：\n- 密度指数：0.02\n\n"
            "### 行动\n\n5. 🔥 **即将执行**：backup-to-ima.js\n6. 🔥 **即将执行**：backup-to-doc-table.js\n\n"
            "### Notes\n\n- gateway on port 8080\n- gateway on port 8080\n")
    found = superseded_entries(markdown_entries(text.encode()), RULES)
    assert [(old.first, how) for old, _new, how in found] == [("- gateway on port 8080", "repeat")]


def test_an_entry_that_introduces_the_next_block_is_not_a_repeat() -> None:
    """A real MEMORY.md: "Example:" before two different code blocks was offered as a repeat."""
    data = b"# Memory\n\nExample:\n```\nA\n```\n\nExample:\n```\nB\n```\n\n- fact\n\n- fact\n"
    assert [old.first for old, _, _ in superseded_entries(markdown_entries(data), RULES)] == ["- fact"]


_SUBJECT = st.sampled_from(["DB", "Model", "教训", "Coping"])


@given(st.lists(st.tuples(_SUBJECT, st.booleans()), min_size=1, max_size=12))
def test_subject_suggestions_are_every_earlier_statement_unless_it_labels_a_run(items) -> None:
    """Property: a subject offers each of its items but the last, unless three or more of its items
    stand in a row (a paragraph between two items breaks a row), or it heads three or more items beside
    another subject that does too: then it labels them, and offers none."""
    lines = []
    for number, (subject, apart) in enumerate(items):
        lines.append(f"- {subject}: value {number}\n")
        if apart:
            lines.append(f"\nnote {number}\n\n")
    found = _subject_suggestions("# Memory\n\n" + "".join(lines))
    expected = []
    for subject in dict.fromkeys(s for s, _ in items):
        at = [i for i, (s, _) in enumerate(items) if s == subject]
        run = longest = 1
        for i in range(1, len(items)):
            together = items[i][0] == items[i - 1][0] == subject and not items[i - 1][1]
            run = run + 1 if together else 1
            longest = max(longest, run)
        others = [s for s in dict.fromkeys(s for s, _ in items) if s != subject and sum(x == s for x, _ in items) >= 3]
        if longest < 3 and not (len(at) >= 3 and others):
            expected += [f"- {subject}: value {i}" for i in at[:-1]]
    assert sorted(found) == sorted(expected)


def _content(text: str) -> list[tuple[str, str]]:
    return [(t.type, t.content) for t in MarkdownIt("commonmark").parse(text)
            if t.type in ("inline", "fence", "code_block", "html_block")]


def _blocks_outside_cut(before: str, after: str) -> bool:
    """Every block of ``after`` is a block of ``before``, in order (nothing merged, swallowed or opened)."""
    remaining = iter(_content(before))
    return all(block in remaining for block in _content(after))


_INLINE = st.sampled_from(["note", "[outdated] old", "`[outdated]` code", "x <!-- outdated -->", "（过时）旧", "fact"])
_BLOCK = st.one_of(
    st.builds(lambda w: f"- {w}\n", _INLINE),
    st.builds(lambda w: f"  - {w}\n", _INLINE),
    st.builds(lambda w: f"{w}\n", _INLINE),
    st.builds(lambda w: f"```\n- {w}\n```\n", _INLINE),
    st.builds(lambda w: f"  ```\n  - {w}\n  ```\n", _INLINE),
    st.builds(lambda w: f"    - {w}\n", _INLINE),
    st.builds(lambda w: f"> {w}\n", _INLINE),
    st.builds(lambda w: f"<!--\n- {w}\n-->\n", _INLINE),
    st.builds(lambda w: f"## {w}\n", _INLINE),
    st.builds(lambda w: f"# {w}\n", _INLINE),
    st.just("\n"),
    st.just("```\n"),
    st.just("-->\n"),
)


def _outside(text: str, spans: list[tuple[int, int]]) -> list[tuple[str, str]]:
    """The content blocks of ``text`` that lie outside every cut line range."""
    return [(t.type, t.content) for t in MarkdownIt("commonmark").parse(text)
            if t.type in ("inline", "fence", "code_block", "html_block") and t.map
            and all(t.map[1] <= first or t.map[0] >= end for first, end in spans)]


@settings(max_examples=300, deadline=None)
@given(st.lists(_BLOCK, min_size=1, max_size=14))
def test_property_every_cut_leaves_the_rest_of_the_document_intact(blocks) -> None:
    """Cut any one marked entry, or all of them: what is left is exactly the blocks outside the
    cut entries, each as it was (no fence, comment or quote opened, closed, merged or swallowed)."""
    text = "".join(blocks)
    data = text.encode()
    found = marked_entries(markdown_entries(data), RULES, data)
    for entry, _ in found:
        assert not (entry.kind == "section" and entry.level == 1)
        alone = cut(data, [(entry.start, entry.end)]).decode()
        assert _content(alone) == _outside(text, [entry.lines])
    assert _content(_cuts(text)) == _outside(text, [e.lines for e, _ in found])


def test_medium_on_a_real_memory_file_cuts_only_whole_entries(ws) -> None:
    text = ("# Memory [outdated]\n\n"
            "- current fact\n"
            "- [outdated] old fact\n"
            "```\n- [outdated] a fenced example\n```\n"
            "- item with code\n\n      - [outdated] indented code in the item\n\n"
            "- [outdated] a second old fact\n"
            "> a quote after it\n\n"
            "- [outdated] third\n"
            "<!-- a comment that must stay closed\n-->\n"
            "tail\n")
    memory = ws.put("MEMORY.md", text)
    outside = ws.put("notes.md", "- [outdated] not a memory file\n", base=ws.outside)
    before_outside = outside.read_bytes()
    made = ws.plan("medium")
    assert sorted(i.text for i in made.items) == ["- [outdated] a second old fact", "- [outdated] old fact",
                                                  "- [outdated] third"]
    ws.execute(made.plan_id)
    assert memory.read_text() == ("# Memory [outdated]\n\n- current fact\n"
                                  "```\n- [outdated] a fenced example\n```\n"
                                  "- item with code\n\n      - [outdated] indented code in the item\n\n"
                                  "> a quote after it\n\n"
                                  "<!-- a comment that must stay closed\n-->\ntail\n")
    assert outside.read_bytes() == before_outside


def test_cuts_applied_together_merge_no_quotes() -> None:
    """Each outdated item alone keeps the quotes apart; both cut at once would join them into one
    (hypothesis found it): the second is left, and the quotes stay two."""
    text = "> note\n- [outdated] old\n- [outdated] old\n> note\n"
    after = _cuts(text)
    assert _content(after) == [("inline", "note"), ("inline", "[outdated] old"), ("inline", "note")]


def test_no_cut_turns_a_paragraph_into_a_heading() -> None:
    """Cutting the item would bring "para" next to "---", a setext underline: "para" would become a
    level-2 heading. The item is not offered."""
    text = "para\n- [outdated] old\n---\n"
    assert _cuts(text) == text


#: the two expressions as they were before each read a run once (helper-169): what they must still match
_WORD_BEFORE = re.compile(r"[A-Za-z][\w.+#-]{2,}|[\u4e00-\u9fff]{2,}|\d+(?:\.\d+)+")
_BOLD_LABEL_BEFORE = re.compile(r"\s*(\*\*|__)[^*_\n]+\1(?:\s*[:：]?|[^\n]*[:：])\s*")


def _made_of(*parts: str) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(parts), max_size=30).map("".join)


@settings(max_examples=500, deadline=None)
@given(_made_of("1", "12", ".", "a", "ab", "v2", "一", "二三", "+", "#", "-", "_", " ", "\u0663"))
def test_a_references_words_are_the_same_with_a_version_read_from_its_first_digit(text: str) -> None:
    """Property: a version found only where a run of digits starts is every word found before (tried from
    inside a run, it failed as the run had)."""
    assert entries._WORD.findall(text) == _WORD_BEFORE.findall(text)


def test_a_reference_with_a_long_run_of_digits_still_finds_its_entry() -> None:
    """64k digits in a reference (each read to the run's end from every digit: 72 s) name nothing, its words do."""
    data = ("# Memory\n\n- alpha notes\n- Supersedes the " + "1" * 65_536 + " alpha entry\n").encode()
    found = superseded_entries(markdown_entries(data), RULES)
    assert [(old.first, how) for old, _new, how in found] == [("- alpha notes", "reference")]


@settings(max_examples=500, deadline=None)
@given(_made_of("**", "__", "*", "_", "a", "x", " ", "\t", "\u3000", ":", "：", "\n"))
def test_a_bold_label_is_the_same_with_its_spaces_read_once(line: str) -> None:
    """Property: the spaces after the closing mark read once (possessive) match the lines matched before."""
    before, after = _BOLD_LABEL_BEFORE.fullmatch(line), entries._BOLD_LABEL.fullmatch(line)
    assert (before and (before.span(), before.groups())) == (after and (after.span(), after.groups()))


def test_a_bold_line_with_a_long_run_of_spaces_is_read_whole() -> None:
    """"**2. Food**", 64k spaces and a word is no label (the two "Coping:" stand under "**1. Sleep**": the first is
    offered); with the spaces alone it is one, and heads the second. Split both ways, the spaces took 22 s."""
    for tail, offered in (("x", [("- Coping: a", "subject")]), ("", [])):
        data = ("# Memory\n\n**1. Sleep**\n- Coping: a\n\n**2. Food**" + " " * 65_536 + tail + "\n- Coping: b\n").encode()
        found = superseded_entries(markdown_entries(data), RULES)
        assert [(old.first, how) for old, _new, how in found] == offered
