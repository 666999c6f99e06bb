"""A message of ASCII characters only is cut into clauses and tokens by smaller expressions, which
must cut every such text exactly where the whole ones (with the Chinese characters) cut it; and a
text found to be all Chinese without the run pattern is what the pattern matches whole."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from apollo import words
from apollo.renal import condense, reading

_ASCII_SPLITTERS = st.lists(st.sampled_from([*"ab .,!?;~:'\")]\n\t4", "...", ". ", "main.py"])).map("".join)


@settings(max_examples=500)
@given(text=st.one_of(_ASCII_SPLITTERS, st.text(alphabet=st.characters(max_codepoint=127))))
def test_an_ascii_text_is_cut_where_the_whole_expression_cuts_it(text: str) -> None:
    assert reading._SPLIT_ASCII.split(text) == re.compile(reading._SPLIT_PATTERN).split(text)


@settings(max_examples=300)
@given(text=st.text(alphabet=st.characters(max_codepoint=127)))
def test_an_ascii_text_loses_the_punctuation_the_whole_expression_finds_and_holds_no_emoji(text: str) -> None:
    assert reading._PUNCT_ASCII.sub(" ", text) == re.compile(reading._PUNCT_PATTERN).sub(" ", text)
    assert re.search(reading._EMOJI_PATTERN, text) is None


def test_chinese_boundaries_still_cut_a_text_that_has_them() -> None:
    clauses = reading.split_clauses("行行 我知道。Ship it, please")
    assert [(c.body, c.end) for c in clauses] == [("行行", " "), ("我知道", "。"), ("Ship it", ","), ("please", "")]


@settings(max_examples=300)
@given(text=st.one_of(_ASCII_SPLITTERS, st.text(alphabet=st.characters(max_codepoint=127))))
def test_an_ascii_text_has_the_tokens_the_whole_tokeniser_finds(text: str) -> None:
    whole = re.compile(f"{condense._CJK_TOKEN}|{condense._OTHER_TOKENS}")
    assert [(m.span(), m.lastgroup) for m in condense._token_matches(text)] == [
        (m.span(), m.lastgroup) for m in whole.finditer(text)]


@given(text=st.text(alphabet=st.sampled_from(["a", " ", "好", "的", "\u3400", "\u33ff", "\u9fff", "\ua000", "。"]),
                    max_size=6))
def test_a_text_is_all_chinese_exactly_when_the_run_pattern_matches_it_whole(text: str) -> None:
    assert words.all_cjk(text) == (words.cjk_run().fullmatch(text) is not None)


@given(text=st.text(alphabet=st.sampled_from(["a", " ", "\n", "好", "的", "\u3400", "\u33ff", "\u9fff", "\ua000", "。"]),
                    max_size=12))
def test_the_chinese_runs_skip_only_texts_that_cannot_hold_one(text: str) -> None:
    assert [m.span() for m in words.cjk_runs(text)] == [m.span() for m in words.cjk_run().finditer(text)]
