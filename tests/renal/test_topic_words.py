"""Topic words: a long one (a commit hash, an id, a key) is held as its digest, which keeps every
comparison between messages as it was (equal words stay equal, different ones different)."""

from __future__ import annotations

from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from apollo import words
from apollo.redact import redact
from apollo.renal import reading
from apollo.renal.rules import load as load_renal_rules

_WORDS = st.sampled_from(["deploy", "staging", "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3",
                          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4", "internationalization",
                          "internationalizations", "internationalizing", "telemetry_collector",
                          "telemetry_collectors", "build", "sk-proj-4f9a2b7c1d8e3f6a0b5c"])


@settings(deadline=None)  # the first example may build the rules, when no test of the run has yet
@given(st.lists(_WORDS, max_size=6), st.lists(_WORDS, max_size=6))
def test_two_messages_share_as_many_topic_words_as_with_the_words_in_clear(a: list[str], b: list[str]) -> None:
    rules = load_renal_rules()
    reading._keywords.cache_clear()  # topic words are memoised by text: each reading below is made afresh
    first, second = (reading.keywords(" ".join(said), rules) for said in (a, b))
    reading._keywords.cache_clear()
    with patch.object(words, "HELD_AS_DIGEST", 10**6):  # every word in clear, as before
        clear_first, clear_second = (reading.keywords(" ".join(said), rules) for said in (a, b))
    reading._keywords.cache_clear()
    assert (len(first), len(second), len(first & second)) == (
        len(clear_first), len(clear_second), len(clear_first & clear_second))


def test_a_long_word_is_held_as_a_digest_no_detector_reads_as_a_key() -> None:
    topic = reading.keywords("rebuild a94a8fe5ccb19ba61c4c0873d391e987982fbbd3 with sk-proj-4f9a2b7c1d8e3f6a0b5c",
                             load_renal_rules())
    assert not any("a94a8fe5" in w or "4f9a2b7c" in w for w in topic)
    assert all(redact(w) == w for w in topic)


def test_a_word_a_pattern_stands_for_is_no_topic_word() -> None:
    # 以后 and 决定 are read where they stand (patterns), and named as the signals' markers: neither they nor
    # the pairs they are part of ("后定" in "以后定时任务") are what a message is about
    rules = load_renal_rules()
    assert not {"以后", "后定", "决定", "定用"} & reading.keywords("以后定时任务决定用新数据源", rules)
    assert {"定时", "时任", "任务", "数据"} <= reading.keywords("以后定时任务决定用新数据源", rules)
