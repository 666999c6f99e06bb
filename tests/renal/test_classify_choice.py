"""A reply that picks one of the options the agent's question offered ("SQLite or PostgreSQL?" →
"PostgreSQL", "Not SQLite", "不要 SQLite") is the user's decision; a reply naming both, asking back or
running on, and a question that offers no alternatives, pick nothing."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support_classify import verdicts

from apollo.renal import reading
from apollo.renal.rules import load

_QUESTION_EN = "Should the database be SQLite or PostgreSQL?"
_QUESTION_ZH = "数据库用 SQLite 还是 PostgreSQL？"


def _reply(question: str, reply: str) -> tuple[object, object]:
    v = verdicts(("user", "Add a database to the budgeting app"), ("assistant", question), ("user", reply))
    return v["m2"], v["m3"]


@pytest.mark.parametrize(("question", "reply", "option"), [
    (_QUESTION_EN, "PostgreSQL", "PostgreSQL"),
    (_QUESTION_EN, "You can use PostgreSQL", "PostgreSQL"),
    (_QUESTION_EN, "PostgreSQL please", "PostgreSQL"),
    (_QUESTION_EN, "Not SQLite", "PostgreSQL"),
    (_QUESTION_EN, "PostgreSQL, not SQLite", "PostgreSQL"),
    (_QUESTION_EN, "I don\u2019t want SQLite", "PostgreSQL"),
    (_QUESTION_EN, "No, PostgreSQL", "PostgreSQL"),
    (_QUESTION_ZH, "PostgreSQL 吧", "PostgreSQL"),
    (_QUESTION_ZH, "PostgreSQL 就行", "PostgreSQL"),
    (_QUESTION_ZH, "不要 SQLite", "PostgreSQL"),
    (_QUESTION_ZH, "SQLite 不行", "PostgreSQL"),
    (_QUESTION_EN, "PostgreSQL 就行", "PostgreSQL"),
    ("Should the chart be red, green or blue?", "green", "green"),
    ("图表用红色、绿色还是蓝色？", "绿色吧", "绿色"),
    ("旧的日志要保留或者删除？", "删除", "删除"),
])
def test_a_reply_naming_one_offered_option_is_a_decision(question: str, reply: str, option: str) -> None:
    asked, picked = _reply(question, reply)
    assert (picked.category, picked.rule) == ("decision", "intent:decision"), picked
    assert f'"{option}"' in picked.reason, picked.reason
    assert asked.status == "answered", asked


@pytest.mark.parametrize(("question", "reply"), [
    (_QUESTION_EN, "What's the difference?"),
    (_QUESTION_EN, "PostgreSQL? Is it hard to set up?"),
    (_QUESTION_EN, "SQLite and PostgreSQL both look fine to me"),
    (_QUESTION_ZH, "PostgreSQL 和 SQLite 有什么区别？"),
    (_QUESTION_ZH, "SQLite 和 PostgreSQL 我都没用过"),
    (_QUESTION_EN, "Hmm, PostgreSQL is what my old team ran for years, but they had a full-time admin and "
                   "I am on my own here with a small budget and little time, so I really am not sure yet what "
                   "fits us best in the long run"),
    ("Should I deploy the update tonight? Or should I wait?", "tonight"),
    ("Is it PostgreSQL?", "PostgreSQL"),
    ("还是报错吗？", "报错"),
    # a reply that says more than an option is read by the other rows (a reason, a complaint, a deferral)
    (_QUESTION_EN, "PostgreSQL, it scales better"),
    (_QUESTION_EN, "I hate SQLite"),
    (_QUESTION_EN, "SQLite crashed again"),
    (_QUESTION_EN, "Let me think about PostgreSQL"),
    (_QUESTION_EN, "Why not SQLite"),
    (_QUESTION_EN, "I never used PostgreSQL"),
    (_QUESTION_ZH, "PostgreSQL 太重了"),
    (_QUESTION_ZH, "SQLite 又崩了"),
    (_QUESTION_ZH, "先不用 PostgreSQL，等我问问老板"),
])
def test_a_reply_that_picks_no_single_option_is_no_decision(question: str, reply: str) -> None:
    _, picked = _reply(question, reply)
    assert "picks_option" not in picked.reason and "an option the agent offered" not in picked.reason, picked


@pytest.mark.parametrize(("question", "reply", "category"), [
    (_QUESTION_EN, "PostgreSQL. Also fix the login bug", "task"),
    (_QUESTION_EN, "Install PostgreSQL on the server first", "task"),
    (_QUESTION_EN, "Explain how PostgreSQL handles backups", "question"),
    (_QUESTION_ZH, "帮我装一下 PostgreSQL，再配置每日备份", "task"),
])
def test_a_request_or_a_question_naming_an_option_stays_what_it_is(question: str, reply: str, category: str) -> None:
    _, picked = _reply(question, reply)
    assert picked.category == category and "an option the agent offered" not in picked.reason, picked


def _options(question: str) -> list[str]:
    rules = load()
    settings = rules.settings
    found = reading.read(question, "assistant", rules)
    markers = re.compile(settings["choice_markers"], re.IGNORECASE)
    return [text for text, _ in reading.alternatives(found, rules, markers, settings["choice_list_ends"])]


@pytest.mark.parametrize(("question", "options"), [
    (_QUESTION_EN, ["SQLite", "PostgreSQL"]),
    ("Should we deploy to staging first or go straight to production?",
     ["deploy to staging first", "go straight to production"]),
    ("Should the chart be red, green or blue?", ["red", "green", "blue"]),
    ("I checked the config, should I use SQLite or PostgreSQL?", ["SQLite", "PostgreSQL"]),
    (_QUESTION_ZH, ["SQLite", "PostgreSQL"]),
    ("Or should I wait?", []),
    ("Do you want it or not?", []),
    ("Is it PostgreSQL?", []),
    ("或许明天再说？", []),
    ("The cache or the index was rebuilt.", []),
])
def test_the_options_a_question_offers(question: str, options: list[str]) -> None:
    assert _options(question) == options


@given(st.lists(st.sampled_from(["SQLite", " or ", "还是", "或者", "PostgreSQL", "，", ", ", "、", "?", "？", "吗",
                                 "should we", "it", "不", "红色", " "]) | st.text(max_size=20), max_size=10)
       .map("".join))
def test_offered_options_are_at_least_two_each_with_words_of_its_own(question: str) -> None:
    rules = load()
    found = reading.read(question, "assistant", rules)
    markers = re.compile(rules.settings["choice_markers"], re.IGNORECASE)
    options = reading.alternatives(found, rules, markers, rules.settings["choice_list_ends"])
    assert len(options) != 1
    for index, (text, own) in enumerate(options):
        assert text and own and own <= reading.keywords(text, rules)
        assert all(not own & other for j, (_, other) in enumerate(options) if j != index)
