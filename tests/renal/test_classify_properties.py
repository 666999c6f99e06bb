"""Whatever the transcript, the classifier answers: one verdict per element, in order, in range,
and nothing uncertain is ever dropped (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apollo.renal.classify import ACTIONS, CATEGORIES, MUST_KEEP, Classifier, Tally, classify
from apollo.renal.rules import load
from apollo.transcript.model import Element, Kind, Role

_CONFIRM_BELOW = load().settings["confirm_below"]

# Realistic fragments mixed with arbitrary text: the rules' own words, punctuation that splits
# clauses, markers of questions and decisions, and anything else unicode has.
_WORDS = st.sampled_from([
    "好的", "收到", "谢谢", "对", "不", "以后都用中文回复", "就用 PostgreSQL 吧", "改用 MySQL", "帮我查一下",
    "为什么？", "吗", "uh-huh", "yeah", "ok", "thanks!", "let's use React", "instead", "done", "fixed",
    "HEARTBEAT_OK", "NO_REPLY", "Read HEARTBEAT.md if it exists", "- [ ] ", "，", "。", "?", "！", "\n", " ",
    "对吧", "right?", "我建议", "Shall I", "<laughter>", "((", "👍", "哈哈哈", "已修复", "还没", "\u2019",
])
_TEXT = st.lists(st.one_of(_WORDS, st.text(max_size=30)), max_size=8).map("".join)
_ELEMENT = st.builds(
    lambda index, role, kind, text, envelope, call, in_context, marker, speaker: Element(
        id=f"e{index}", role=role, kind=kind, text=text, tokens=len(text) // 2, envelope=envelope,
        call_id=call, tool_name="exec" if kind is Kind.TOOL_CALL else None, in_context=in_context,
        extra={"marker": marker} if marker else {}, speaker=speaker),
    st.integers(),
    st.sampled_from(list(Role)),
    st.sampled_from(list(Kind)),
    _TEXT,
    st.sampled_from(["", "[Tue 2026-04-07 14:29 GMT+8]"]),
    st.sampled_from([None, "a", "b"]),
    st.booleans(),
    st.sampled_from(["", "- [ ] ", "- [x] ", "## "]),
    st.sampled_from([None, "A", "B"]),
)


def _unique(elements: list[Element]) -> list[Element]:
    for position, element in enumerate(elements):
        element.id = f"e{position}"
        element.index = position
    return elements


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_ELEMENT, max_size=25).map(_unique))
def test_one_sound_verdict_per_element(elements: list[Element]) -> None:
    verdicts = classify(elements)
    assert [v.id for v in verdicts] == [e.id for e in elements]
    for verdict in verdicts:
        assert verdict.category in CATEGORIES and verdict.action in ACTIONS
        assert 0.0 <= verdict.confidence <= 1.0
        assert verdict.reason
        if verdict.action in ("drop", "compress"):
            assert verdict.confidence >= _CONFIRM_BELOW, verdict  # uncertain is never dropped
        if verdict.category in MUST_KEEP and verdict.status == "current":
            assert verdict.action == "keep", verdict
        if verdict.superseded_by is not None:
            assert verdict.superseded_by in {e.id for e in elements}


@settings(max_examples=100, deadline=None)
@given(st.lists(_ELEMENT, max_size=25).map(_unique))
def test_the_running_tally_equals_the_final_verdicts(elements: list[Element]) -> None:
    """check() only keeps running totals; they must agree with the verdicts a full run gives."""
    classifier, tally = Classifier(), Tally()
    for element in elements:
        tally.apply(classifier.feed(element))
    tally.apply(classifier.finish())
    verdicts = classify(elements)
    assert tally.elements == len(verdicts)
    assert tally.tokens == sum(v.tokens for v in verdicts)
    for category in CATEGORIES:
        assert tally.categories[category] == sum(v.category == category for v in verdicts)
    assert tally.confirmations == sum(v.confirmation and v.category == "noise" for v in verdicts)
