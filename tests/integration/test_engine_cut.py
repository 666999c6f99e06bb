"""Old tool output cut at a compaction point (:mod:`apollo.integration.engine_cut`): what the model
gets instead of an output is made of that output's own lines, the marker and the way back; instead
of an old call, the call with each long argument's head, the marker and the way back."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from apollo.integration.engine_cut import cut_calls, cuts, text_of
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


_NAMES = st.sampled_from(["path", "content", "command", "oldText", "newText", "old_string", "new_string", "edits", "x"])
_VALUE = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                                st.text(max_size=30), st.text(min_size=380, max_size=900)),
                      lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_NAMES, inner, max_size=3)),
                      max_leaves=8)
_BLOCK = st.one_of(st.fixed_dictionaries({"type": st.just("toolCall"), "id": st.text(min_size=1, max_size=8),
                                          "name": st.sampled_from(["write", "edit", "exec"]),
                                          "arguments": st.dictionaries(_NAMES, _VALUE, max_size=4)}),
                   st.fixed_dictionaries({"type": st.just("text"), "text": st.text(max_size=600)}),
                   st.fixed_dictionaries({"type": st.just("thinking"), "thinking": st.text(max_size=600),
                                          "thinkingSignature": st.text(max_size=20)}))


def _shortened(before: Any, after: Any, name: str, kept: frozenset[str], replaced: frozenset[str],
               limit: int, pointer: str) -> bool:
    """``after`` is ``before`` with each long string cut as the filter cuts an argument; whether any was."""
    if isinstance(before, str) and len(before) > limit and name not in kept:
        head = "" if name in replaced else before[:RULES.settings["tool_argument_head_chars"]]
        marker = RULES.settings["tool_argument_marker"].format(chars=f"{len(before) - len(head):,}")  # what went
        assert after == (head + "\n" if head else "") + f"{marker} {pointer}"
        return True
    if isinstance(before, dict):
        assert list(after) == list(before)
        return any([_shortened(v, after[k], k, kept, replaced, limit, pointer) for k, v in before.items()])
    if isinstance(before, list):
        assert len(after) == len(before)
        return any([_shortened(v, w, "", kept, replaced, limit, pointer) for v, w in zip(before, after, strict=True)])
    assert after == before
    return False


@settings(max_examples=300, deadline=None)
@given(st.lists(_BLOCK, max_size=4), st.sampled_from(["en", "zh"]))
def test_a_cut_call_is_the_call_with_each_long_argument_s_head_and_the_way_back(content: list[dict[str, Any]],
                                                                              lang: str) -> None:
    settings_ = RULES.settings
    kept, replaced = frozenset(settings_["tool_kept_arguments"]), frozenset(settings_["tool_replaced_arguments"])
    pointer = RULES.settings[f"tool_recall_{lang}"].format(id="m7")
    made = cut_calls({"role": "assistant", "content": content}, RULES, lang, 7)
    cut_any = False
    for n, block in enumerate(content):
        after = block if made is None else made[n]
        assert {k: v for k, v in after.items() if k != "arguments"} == {k: v for k, v in block.items() if k != "arguments"}
        if block["type"] == "toolCall":
            cut_any |= _shortened(block["arguments"], after["arguments"], "", kept, replaced,
                                  settings_["tool_argument_chars"], pointer)
    assert (made is not None) == cut_any and (made is None or len(made) == len(content))
