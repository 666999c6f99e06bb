"""`apollo route`: phrasings matched as meaning (synonyms, word order, politeness, negation),
the seeds' priority and confirmations, and the token-usage warnings."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apollo.errors import ConfigError, UsageError
from apollo.integration.route import Thresholds, decide, load_lexicon, parse_usage

SMALL = ("autophagy", "small", "none")
MEDIUM = ("autophagy", "medium", "single")
LARGE = ("autophagy", "large", "double")
RENAL = ("renal", None, "none")
DREAM = ("dream", None, "none")
NONE = ("none", None, "none")

# What people say, written as paraphrases of the seeds' examples rather than the seeds' words.
PHRASINGS = [
    # small: caches, temporary files, logs, build output, backups
    ("清理缓存", SMALL),
    ("帮我把缓存清一下", SMALL),
    ("缓存可以清掉了", SMALL),
    ("能不能清理一下临时文件", SMALL),
    ("麻烦把旧日志删了吧", SMALL),
    ("把编译产物和备份文件都清除掉", SMALL),
    ("缓存太多了，清理一下", SMALL),
    ("删除不需要的缓存", SMALL),
    ("别忘了清理缓存", SMALL),
    ("clear the cache", SMALL),
    ("can you tidy up the temp files", SMALL),
    ("Could you please get rid of the old log files?", SMALL),
    ("wipe the caches", SMALL),
    ("clear out the __pycache__ folders and *.pyc files", SMALL),
    ("the temp files, could you delete them", SMALL),
    ("free up some disk space", SMALL),
    ("don't forget to clear the cache", SMALL),
    ("CLEAR THE CACHE PLEASE", SMALL),
    ("ｃｌｅａｒ　ｔｈｅ　ｃａｃｈｅ", SMALL),
    # medium: wrong or outdated memories, corrupted files, expired reminders
    ("删除记忆", MEDIUM),
    ("清理错误", MEDIUM),
    ("删掉那些过时的记忆条目", MEDIUM),
    ("把不对的记忆去掉", MEDIUM),
    ("我说的关于北京的那些话你忘掉吧", MEDIUM),
    ("清除过期的提醒", MEDIUM),
    ("forget what I said about my old address", MEDIUM),
    ("please remove the outdated memories", MEDIUM),
    ("delete broken symlinks", MEDIUM),
    ("get rid of the corrupted files", MEDIUM),
    ("wipe your memory of my old job", MEDIUM),
    # large: the whole context
    ("重置", LARGE),
    ("清空上下文", LARGE),
    ("把上下文清空", LARGE),
    ("帮我重置一下对话", LARGE),
    ("我们重新开始吧", LARGE),
    ("开个新对话", LARGE),
    ("reset the context", LARGE),
    ("start over with a fresh context", LARGE),
    ("let's start over", LARGE),
    ("wipe the conversation", LARGE),
    ("I'd like a clean slate", LARGE),
    ("wipe everything and start again", LARGE),
    ("the conversation history, please erase it", LARGE),
    # renal: tidy the context, drop noise, too long
    ("整理上下文", RENAL),
    ("清理噪音", RENAL),
    ("太长了", RENAL),
    ("这段对话太长了", RENAL),
    ("清理一下上下文", RENAL),
    ("把对话压缩一下", RENAL),
    ("压缩一下，太长了", RENAL),
    ("噪音太多", RENAL),
    ("删除上下文里的噪音", RENAL),
    ("please clean up the conversation", RENAL),
    ("the context window is almost full", RENAL),
    ("the chat is getting way too long, trim it", RENAL),
    ("remove the filler and small talk", RENAL),
    ("condense our conversation", RENAL),
    # dream: consolidation
    ("整理一下记忆", DREAM),
    ("巩固一下", DREAM),
    ("consolidate what you learned today", DREAM),
    # priority and several requests in one message
    ("清空上下文，顺便清理缓存", LARGE),
    ("clean the cache and then tidy up the context", SMALL),
    ("整理上下文，再删掉过时的记忆", MEDIUM),
    # negation and contrast: what the user does not want is not a request
    ("don't delete my memory", NONE),
    ("不要删除我的记忆", NONE),
    ("别删我的记忆", NONE),
    ("记忆千万别删", NONE),
    ("do not clear the cache", NONE),
    ("缓存不用清", NONE),
    ("I don't think we need to reset the context", NONE),
    ("never wipe the conversation", NONE),
    ("no need to reset anything", NONE),
    ("I already cleared the cache", NONE),
    ("don't reset the context, just clear the cache", SMALL),
    ("不要清空上下文，只清理缓存", SMALL),
    ("不是清空上下文，而是整理一下", RENAL),
    # unrelated or only sounding alike
    ("你好", NONE),
    ("what's the weather", NONE),
    ("reset my password", NONE),
    ("重新开始这个任务", NONE),
    ("here's some new context about the project", NONE),
    ("forget it", NONE),
    ("is that clear?", NONE),
    ("我说清楚了吗", NONE),
    ("这是别的问题", NONE),
    ("the answer is too long", NONE),
    ("", NONE),
]


def triple(text: str, usage: float | None = None) -> tuple[str, str | None, str]:
    d = decide(text, usage, lang="en")
    return d.system, d.tier, d.confirmation


@pytest.mark.parametrize(("said", "expected"), PHRASINGS, ids=[p[0] or "<empty>" for p in PHRASINGS])
def test_phrasing_routes_by_meaning(said: str, expected: tuple[str, str | None, str]) -> None:
    assert triple(said) == expected


def test_negated_request_is_named_in_the_reason() -> None:
    decision = decide("don't delete my memory", lang="en")
    assert decision.system == "none"
    assert "said not to" in decision.reason and "medium autophagy" in decision.reason


def test_reason_quotes_the_user_words_and_the_protocol() -> None:
    decision = decide("帮我把缓存清一下", lang="zh")
    assert "「缓存」" in decision.reason and "小自噬" in decision.reason
    large = decide("reset the context", lang="en")
    assert "确认大自噬" in large.reason and "/new" in large.reason


def test_other_requests_are_mentioned_after_the_chosen_one() -> None:
    decision = decide("清空上下文，顺便清理缓存", lang="zh")
    assert decision.tier == "large"
    assert "小自噬" in decision.reason and "autophagy > renal > dream" in decision.reason


@pytest.mark.parametrize(("usage", "count"), [(None, 0), (0.5, 0), (0.90, 0), (0.91, 1), (0.95, 1), (0.951, 2),
                                              (1.0, 2)])
def test_warnings_above_90_and_95_percent(usage: float | None, count: int) -> None:
    decision = decide("clear the cache", usage, lang="en")
    assert len(decision.warnings) == count
    assert decision.tier == "small"
    if count == 2:
        assert "large autophagy" in decision.warnings[1] and "explicitly" in decision.warnings[1]


def test_token_usage_alone_suggests_filtering_never_deletion() -> None:
    assert triple("", 0.3) == NONE
    assert triple("", 0.6) == RENAL
    assert triple("你好", 0.99) == RENAL
    decision = decide("", 0.99, lang="zh")
    assert len(decision.warnings) == 2 and "不会单独触发大自噬" in decision.reason


def test_thresholds_come_from_the_caller() -> None:
    decision = decide("", 0.85, thresholds=Thresholds(renal_trigger=0.9, medium_warning=0.8, large_warning=0.84),
                      lang="en")
    assert decision.system == "none" and len(decision.warnings) == 2


@pytest.mark.parametrize(("text", "value"), [("0.93", 0.93), ("93", 0.93), ("93%", 0.93), (" 50 % ", 0.5),
                                             ("1", 1.0), ("0", 0.0)])
def test_parse_usage_accepts_fraction_and_percent(text: str, value: float) -> None:
    assert parse_usage(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["lots", "-0.1", "101", "150%", "nan"])
def test_parse_usage_rejects_nonsense(text: str) -> None:
    with pytest.raises(UsageError):
        parse_usage(text)


# ---- properties ---------------------------------------------------------------------------

REQUESTS = [p for p in PHRASINGS if p[1] != NONE and "，" not in p[0] and "," not in p[0]]
POLITE_BEFORE = ["", "请", "麻烦你", "帮我", "please ", "could you ", "hey, ", "能不能"]
POLITE_AFTER = ["", "吧", "，谢谢", " thanks", " please", "好吗"]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(REQUESTS), st.sampled_from(POLITE_BEFORE), st.sampled_from(POLITE_AFTER))
def test_politeness_does_not_change_the_decision(case, before: str, after: str) -> None:
    said, expected = case
    assert triple(f"{before}{said}{after}") == expected


DESTRUCTIVE = [p[0] for p in REQUESTS if p[1][0] == "autophagy"]
NEGATIONS = {"zh": ["不要", "别", "千万不要", "不用", "没必要"], "en": ["don't ", "never ", "please don't ", "no need to "]}
NEGATED = [(f"{neg}{said[0].lower() + said[1:]}" if said.isascii() else f"{neg}{said}")
           for said in DESTRUCTIVE for neg in NEGATIONS["en" if said.isascii() else "zh"]]


@pytest.mark.parametrize("text", NEGATED)
def test_a_negated_destructive_request_deletes_nothing(text: str) -> None:
    assert triple(text)[0] != "autophagy"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80), st.one_of(st.none(), st.floats(min_value=0, max_value=1)))
def test_any_text_gives_a_valid_decision_and_usage_never_adds_deletion(text: str, usage: float | None) -> None:
    with_usage = decide(text, usage, lang="en")
    without = decide(text, None, lang="en")
    assert set(with_usage.to_dict()) == {"system", "tier", "confirmation", "warnings", "reason"}
    assert with_usage.system in ("autophagy", "renal", "dream", "none")
    assert (with_usage.tier is not None) == (with_usage.system == "autophagy")
    assert with_usage.confirmation == {"small": "none", "medium": "single", "large": "double"}.get(
        with_usage.tier or "", "none")
    # Token usage may add warnings and suggest filtering; it never turns a message into a deletion.
    if with_usage.system == "autophagy":
        assert (with_usage.system, with_usage.tier) == (without.system, without.tier)


# ---- user phrasing files --------------------------------------------------------------------

def test_user_rule_file_adds_synonyms(tmp_path) -> None:
    extra = tmp_path / "mine.toml"
    extra.write_text('[concepts.cache]\nterms = ["crud pile"]\n[concepts.clean]\nkind = "action"\n'
                     'terms = ["shovel"]\n', encoding="utf-8")
    lexicon = load_lexicon([extra])
    assert decide("shovel the crud pile", lexicon=lexicon).tier == "small"
    assert decide("shovel the crud pile").system == "none"


def test_user_rule_file_with_unknown_key_names_the_file(tmp_path) -> None:
    extra = tmp_path / "bad.toml"
    extra.write_text('[concepts.cache]\nwords = ["x"]\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_lexicon([extra])
    assert str(extra) in caught.value.line()


def test_user_intent_must_name_known_concepts(tmp_path) -> None:
    extra = tmp_path / "bad.toml"
    extra.write_text('[[intents]]\nname = "x"\nsystem = "renal"\nwhen = [["nosuch"]]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown concepts: nosuch"):
        load_lexicon([extra])


# ---- the command ------------------------------------------------------------------------------

def test_cli_json_is_exactly_the_documented_shape(apollo_cli, tmp_path) -> None:
    done = apollo_cli("route", "帮我把缓存清一下", "--token-usage", "0.96", "--json", "-w", str(tmp_path))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert list(data) == ["system", "tier", "confirmation", "warnings", "reason"]
    assert (data["system"], data["tier"], data["confirmation"]) == SMALL
    assert len(data["warnings"]) == 2


def test_cli_reads_stdin_and_uses_config_rule_files(apollo_cli, tmp_path) -> None:
    (tmp_path / ".apollo").mkdir()
    (tmp_path / ".apollo" / "mine.toml").write_text('[concepts.context]\nterms = ["brain dump"]\n', encoding="utf-8")
    (tmp_path / ".apollo" / "config.toml").write_text('[route]\nrule_files = ["mine.toml"]\n', encoding="utf-8")
    done = apollo_cli("route", "-", "--json", "-w", str(tmp_path), input="wipe the brain dump")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tier"] == "large"


def test_cli_human_output_and_bad_usage(apollo_cli, tmp_path) -> None:
    done = apollo_cli("route", "这段对话太长了", "--lang", "zh", "-w", str(tmp_path))
    assert done.returncode == 0 and done.stdout.startswith("系统: renal")
    bad = apollo_cli("route", "x", "--token-usage", "lots", "-w", str(tmp_path))
    assert bad.returncode == 2 and "not a number" in bad.stderr and "Traceback" not in bad.stderr
