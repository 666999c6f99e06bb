"""A must-keep message a budget would drop whole keeps its opening instead
(:func:`apollo.renal.concentrate.opening`): the text's own start, ended at a line's or a sentence's
end where one is near, then the marker saying how much was cut; within the room, never a sliver.
Property-tested on random texts (both scripts, code fences, long unbroken runs) with both counters,
and end to end on a session shaped like the real one that showed it (a cron job's prompt retried
after a failed turn, then a long answer: at ``--keep-ratio 0.5`` the whole answer went, and the copy
used 146 of its 498 tokens)."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from apollo.renal import concentrate
from apollo.renal.filter import filter_path
from apollo.renal.report import render
from apollo.tokens import get_counter
from realclient.support import PiSession

RULES = concentrate.load()
_PIECES = ["The export runs nightly", "at 02:00", "3.5 GB", "每天凌晨两点运行备份任务", "。", "！", ". ", "? ", "\n",
           "\n\n", "```", "```python\nprint('x')\n", "- item", "**bold**", "x" * 300, "数" * 200, " ", "；",
           "e\u0301" * 40, "👩\u200d💻" * 30, "| a | b |\n", "สวัสดีครับ" * 30, "नमस्ते दुनिया" * 20,
           "````md\n", "Wrap code in ``` fences"]
_TEXTS = st.lists(st.sampled_from(_PIECES), min_size=1, max_size=80).map("".join)
_MARKER = re.compile(r"\n\[… apollo renal (?:cut the rest of this message \(([\d,]+) characters\)|"
                     r"为符合预算截去了这条消息的其余部分（([\d,]+) 个字符）)")


@settings(max_examples=300, deadline=None)
@given(_TEXTS, st.integers(0, 400), st.sampled_from(["estimate", "exact"]), st.sampled_from(["en", "zh"]))
def test_an_opening_is_the_texts_own_start_then_the_marker_within_the_room(text: str, room: int, counter: str,
                                                                           lang: str) -> None:
    count = get_counter(counter)[1]
    cut = concentrate.opening(text, room, count, RULES, lang)
    if cut is None:
        return
    body, tokens = cut
    assert tokens == count(body) <= room
    found = _MARKER.search(body)
    assert found is not None and body.endswith(" …]") and body.count("\n[… apollo renal") == 1
    before = body[:found.start()]
    assert before.endswith("\n") and not concentrate._fences(before)[0]  # a blank line, no fence left open
    kept = before[:-1]
    still_open = concentrate._fences(kept.rsplit("\n", 1)[0])[0] if "\n" in kept else ""
    # the fence it cut into, closed, or the text's own line that closes it: the count of what was cut says which
    heads = [kept] + ([kept[:-len(still_open) - 1]] if still_open and kept.endswith("\n" + still_open) else [])
    cut_chars = int((found.group(1) or found.group(2)).replace(",", ""))
    head = next((h for h in heads if text.startswith(h) and len(text) - len(h) == cut_chars), "")
    assert head and len(head) < len(text)  # its own words, in order, shorter, and the count of the rest right
    assert tokens - count(body[found.start():]) >= RULES.settings["budget_opening_tokens"] - 3  # never a sliver
    rest = text[len(head):]
    assert not rest or unicodedata.category(rest[0])[0] != "M" and rest[0] not in "\u200d\ufe0f" and head[-1] != "\u200d"


def test_an_opening_ends_at_a_sentence_and_never_leaves_a_fence_open() -> None:
    count = get_counter("estimate")[1]
    text = ("The migration is planned for Saturday night, when the shop is closed. It moves the orders tables "
            "first, with their indexes. Then the invoices follow, and the shop opens again on Sunday at nine.\n```sql\n" + "ALTER TABLE orders ADD COLUMN region text;\n" * 40 + "```\nDone.")
    body, _ = concentrate.opening(text, 120, count, RULES, "en")
    head = body.split("\n\n[… apollo renal")[0]
    assert head.endswith("on Sunday at nine.") and "```" not in head
    assert concentrate.opening(text, 20, count, RULES, "en") is None  # a sliver beside the marker: none
    inline = "```ls -la``` lists the folder with sizes, then run each command one by one.\n" * 12  # inline code
    assert "\n```\n" not in concentrate.opening(inline, 120, count, RULES, "en")[0]
    code = "Here is the plan:\n```sql\n" + "ALTER TABLE orders ADD COLUMN region text;\n" * 40 + "```\nDone."
    body, _ = concentrate.opening(code, 120, count, RULES, "en")  # no line before the code would do: closed
    assert body.startswith("Here is the plan:\n```sql\nALTER TABLE") and "\n```\n\n[… apollo renal" in body


def test_a_long_answer_the_budget_cannot_hold_keeps_its_opening_instead_of_going_whole(tmp_path: Path) -> None:
    prompt = "[cron:66549787-5cce 思考] 请从理论、实践、经济三个角度分析自动化对就业的影响，并总结一个简短的观点。"
    session = PiSession()
    session.user(prompt)
    session.assistant(stop="error")
    session.user(prompt)
    sections = "\n\n".join(f"### 第{n}部分\n" + "自动化改变了岗位的结构，低技能重复劳动减少，新的协作岗位出现。" * 6
                           for n in range(1, 6))
    answer = session.say("## 自动化与就业\n\n" + sections)
    result = filter_path(session.write(tmp_path / "s.jsonl"), "openclaw", keep_ratio=0.5,
                         output=tmp_path / "out.jsonl", workspace=tmp_path)
    budget = result.report["budget"]
    assert budget["met"] and budget["must_keep_opened"] == [answer] and answer not in budget["must_keep_dropped"]
    entries = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    said = next(e for e in entries if e.get("id") == answer)["message"]["content"][0]["text"]
    assert said.startswith("## 自动化与就业\n\n### 第1部分") and "原会话保留全文" in said
    assert budget["tokens"] > budget["target"] * 0.7  # the room is used, not left empty
    assert result.report["next_step"] == "confirm"
    assert f"只保留开头的必保内容（为符合预算截去了其余部分，原会话保留全文）：{answer}" in render(result.report, "zh")
