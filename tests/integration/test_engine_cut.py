"""Old tool output cut at a compaction point (:mod:`apollo.integration.engine_cut`): what the model
gets instead of an output is made of that output's own lines, the marker and the way back."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from apollo.integration.engine_cut import cuts, text_of
from apollo.renal import concentrate
from apollo.tokens import get_counter

RULES = concentrate.load()
COUNT = get_counter("estimate")[1]

_WORD = st.sampled_from(["ok", "error", "/var/log/app.log", "qz_flush", "port 8443", "用户", "订单失败", "step",
                         "a" * 400, "", "…", "0x7ffd", "build-2026-12-05"])
_LINE = st.lists(_WORD, max_size=8).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.lists(_LINE, min_size=1, max_size=10), st.lists(_LINE, min_size=40, max_size=300)),
       st.lists(_LINE, max_size=6), st.sampled_from(["en", "zh"]))
def test_a_cut_output_is_its_own_lines_the_marker_and_the_way_back(lines: list[str], later: list[str],
                                                                  lang: str) -> None:
    text = "\n".join(lines)
    found = cuts([(3, text)], [(4 + n, said) for n, said in enumerate(later)], RULES, lang, COUNT)
    if 3 not in found:
        return
    content, tokens = found[3]
    [block] = content
    shown = block["text"]
    assert block["type"] == "text" and tokens == COUNT(shown) < COUNT(text)
    pointer = RULES.settings[f"tool_recall_{lang}"].format(id="m3")
    markers = [line for line in shown.split("\n") if line.endswith(pointer)]
    assert len(markers) == 1
    for line in shown.split("\n"):
        if line not in markers:  # every other line is a piece of a line of the output, never made up
            assert any(line.strip("…") in original for original in lines)


def test_an_output_keeps_the_lines_named_after_it_not_before_it() -> None:
    text = "\n".join(["header"] + [f"row {n}: fine" for n in range(200)] + ["row 200: qz_flush undefined"])
    before, after = [(1, "is qz_flush defined?"), (9, "nothing to add")], [(1, "hello"), (6, "qz_flush?")]
    assert "qz_flush" not in cuts([(5, text)], before, RULES, "en", COUNT)[5][0][0]["text"]
    assert "row 200: qz_flush undefined" in cuts([(5, text)], after, RULES, "en", COUNT)[5][0][0]["text"]


def test_only_a_result_made_of_text_can_be_cut() -> None:
    assert text_of({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}) == "a\nb"
    assert text_of({"content": "plain"}) == "plain"
    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    assert text_of({"content": [{"type": "text", "text": "a"}, image]}) is None
    assert text_of({"content": []}) is None and text_of({}) is None
