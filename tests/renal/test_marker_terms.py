"""Topic words leave out the markers' own words: a message's topic words are the same whether the
markers are every phrase of the marker signals (what the classifier keeps) or only those a Latin word
or a pair of Chinese characters can equal (what they were read down to before)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from apollo.renal import reading
from apollo.renal.rules import load
from apollo.words import all_cjk

RULES = load()


def _read_down(rules) -> frozenset[str]:  # type: ignore[no-untyped-def]
    """The phrases (and the words a signal's patterns stand for, its ``markers``) read down to a Latin
    word or a pair of Chinese characters."""
    terms: set[str] = set()
    for signal in (rules[name] for name in reading._MARKER_SIGNALS):
        terms.update(p for p in signal.phrases | signal.markers
                     if reading._LATIN_WORD.fullmatch(p) or (len(p) == 2 and all_cjk(p)))
    for signal in rules.social:
        terms.update(p for p in signal.phrases if len(p) == 2 and all_cjk(p))
    return frozenset(terms)


_PHRASES = sorted({p for name in reading._MARKER_SIGNALS for p in RULES[name].phrases}
                  | {p for signal in RULES.social for p in signal.phrases})
_PIECES = st.one_of(st.sampled_from(_PHRASES), st.sampled_from(["deploy", "server", "部署", "服务器", "的", " ", "，", "。",
                                                                 "x", "go-live", "v2", "c++", "数据库迁移"]),
                    st.text(min_size=1, max_size=6))


def test_every_word_or_pair_the_markers_held_they_still_hold_and_no_other() -> None:
    markers, before = reading._marker_terms(RULES), _read_down(RULES)
    assert before <= markers
    assert {p for p in markers - before if reading._LATIN_WORD.fullmatch(p) or (len(p) == 2 and all_cjk(p))} == set()


@settings(max_examples=400, deadline=None)
@given(text=st.lists(_PIECES, max_size=12).map(" ".join))
def test_a_texts_topic_words_are_those_the_read_down_markers_leave(text: str) -> None:
    found = reading._keywords.__wrapped__(text, RULES)
    original = reading._marker_terms
    try:
        reading._marker_terms = _read_down  # type: ignore[assignment]
        expected = reading._keywords.__wrapped__(text, RULES)
    finally:
        reading._marker_terms = original
    assert found == expected
