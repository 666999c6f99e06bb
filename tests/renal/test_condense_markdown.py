"""Shortening never mangles Markdown: a form keeps the original's structure (headings, bullets,
numbering, emphasis, code) as a real Markdown parser reads it, or is not offered at all."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from apollo.renal.condense import Condenser

CONDENSER = Condenser()
_WORD = re.compile(r"[^\W_]+(?:[.:'][^\W_]+)*")
PARSER = MarkdownIt("commonmark")


def _shape(text: str) -> list[tuple[str, ...]]:
    shape: list[tuple[str, ...]] = []
    for token in PARSER.parse(text):
        if token.type == "inline":
            shape += [(c.type, c.markup, c.content if c.type == "code_inline" else "") for c in token.children or []
                      if c.type != "text"]
        else:
            shape.append((token.type, token.markup, token.info, token.content if token.type == "fence" else ""))
    return shape


def test_the_examples_users_saw_mangled_stay_whole_or_keep_their_structure() -> None:
    for text in ("1. **Morning weather check (07:36)**", "- Tech: Rails 6.1\n- Database: Postgres 14\n- Deploy: Heroku",
                 "## Steps\n1. Open the app\n2. Click **Save** now\n- note: it is _really_ important"):
        for _, form in CONDENSER.ladder(text):
            assert _shape(form) == _shape(text), (text, form)
    assert all("Morning" in form for _, form in CONDENSER.ladder("1. **Morning weather check (07:36)**"))
    assert all("Rails" in form for _, form in CONDENSER.ladder("- Tech: Rails 6.1\n- Database: Postgres 14"))


_WORDS = st.sampled_from(["well", "Morning", "the", "a", "really", "just", "thanks", "Hey", "so", "I", "think",
                          "weather", "check", "deploy", "Rails", "6.1", "07:36", "never", "backup", "server",
                          "we", "will", "use", "Postgres", "okay", "basically", "report", "to", "of"])
_PHRASE = st.lists(_WORDS, min_size=1, max_size=7).map(" ".join)
_INLINE = st.one_of(_PHRASE, _PHRASE.map(lambda p: f"**{p}**"), _PHRASE.map(lambda p: f"_{p}_"),
                    _WORDS.map(lambda w: f"`{w}`"))
_LINE = st.lists(_INLINE, min_size=1, max_size=3).map(lambda parts: " ".join(parts) + ".")
_BLOCK = st.one_of(
    _LINE,
    _LINE.map(lambda line: f"## {line}"),
    st.lists(_LINE, min_size=1, max_size=4).map(lambda lines: "\n".join(f"- {line}" for line in lines)),
    st.lists(_LINE, min_size=1, max_size=4).map(lambda lines: "\n".join(f"{i + 1}. {line}" for i, line in enumerate(lines))),
    _PHRASE.map(lambda p: f"```\n{p}\n```"),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_BLOCK, min_size=1, max_size=5).map("\n\n".join))
def test_every_form_keeps_the_markdown_structure_and_its_words(document: str) -> None:
    floor = 1 - CONDENSER.rules.max_content_loss
    for _, form in CONDENSER.ladder(document):
        assert _shape(form) == _shape(document), form
        assert CONDENSER.coverage(document, form) >= floor - 1e-9
        original_words = set(_WORD.findall(document.lower()))
        assert set(_WORD.findall(form.lower())) <= original_words  # nothing invented, nothing glued together


def test_words_that_compare_or_make_a_condition_are_never_shortened_away() -> None:
    """"Market cap under $50K" is not "Market cap $50K": a budget's notes keep what compares or bounds
    a number (more than, under, over, the same, other) and what makes a condition or a choice (if, or)."""
    text = ("Run a scan for tokens under $50K MC and check all of these sources. For each pick, verify the "
            "volume is over 3 SOL and that more than 10 holders joined in the last hour, on Raydium or Orca. "
            "If nothing is urgent, answer in the format WHAT IT DOES / WHY IT HELPS. Never ask the same "
            "question twice, ask about other channels.")
    forms = CONDENSER.ladder(text)
    assert forms
    for _, form in forms:
        words = set(_WORD.findall(form.lower()))
        assert {"under", "over", "more", "than", "or", "if", "same", "other"} <= words, form
        assert "WHAT IT DOES / WHY IT HELPS" in form, form


_QUOTES = st.sampled_from([('"', '"'), ("“", "”"), ("「", "」"), ("『", "』"), ("'", "'")])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=_PHRASE, quoted=_PHRASE, after=_PHRASE, marks=_QUOTES)
def test_a_quoted_literal_keeps_every_word(before: str, quoted: str, after: str, marks: tuple[str, str]) -> None:
    """What stands in quotes is someone's exact words or a text to send as it is ("just say 'All
    systems optimal'"): shortening the message around it never touches it."""
    literal = f"{marks[0]}{quoted}{marks[1]}"
    text = f"{before} and then just say {literal} to {after}."
    for _, form in CONDENSER.ladder(text):
        assert literal in form, (text, form)


def test_a_quoted_chinese_example_keeps_its_particles() -> None:
    text = "用 message 工具提醒 Lynch 做俯卧撑，内容简短即可，比如'💪 俯卧撑时间到！3组做到力竭的70%'。其实我觉得吧，这个真的很重要。"
    for _, form in CONDENSER.ladder(text):
        assert "'💪 俯卧撑时间到！3组做到力竭的70%'" in form, form
