"""apollo.regexes: a pattern from the cache matches exactly like ``re.compile``'s."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apollo import regexes
from apollo.cache import DiskMemo

#: pieces of the patterns Apollo's rules are made of: literals in two scripts, classes, groups,
#: alternations, anchors, repetition, boundaries, look-arounds
_ATOMS = st.sampled_from(["好", "收到", "ok", "thanks", "[a-z]+", r"\d{1,3}", r"\s*", r"\b", "^", "$", ".",
                          r"[\u4e00-\u9fff]", "(?:了|的)", "(?P<n>no+)", r"(?=\w)", r"(?<!x)", "A"])
_PATTERNS = st.lists(st.lists(_ATOMS, min_size=1, max_size=4).map("".join), min_size=1, max_size=3).map("|".join)
_FLAGS = st.sampled_from([0, re.IGNORECASE, re.MULTILINE, re.IGNORECASE | re.MULTILINE])
_TEXTS = st.text(alphabet="好收到了的 okthanksNOnoA12\n x", max_size=40)


def _same(a: re.Pattern[str], b: re.Pattern[str], text: str) -> None:
    assert a.pattern == b.pattern and a.flags == b.flags and a.groupindex == b.groupindex
    assert [(m.span(), m.groups()) for m in a.finditer(text)] == [(m.span(), m.groups()) for m in b.finditer(text)]


@settings(max_examples=200, deadline=None)
@given(_PATTERNS, _FLAGS, _TEXTS)
def test_compiled_here_or_read_back_it_matches_like_re(pattern: str, flags: int, text: str) -> None:
    try:
        expected = re.compile(pattern, flags)
    except re.error:  # a name used twice: re and the cache must both refuse it
        with pytest.raises(re.error):
            regexes.compile(pattern, flags)
        return
    _same(regexes.compile(pattern, flags), expected, text)  # compiled (or read) in this process
    memo = DiskMemo("regex-test", regexes._program)
    program = memo(pattern, int(flags))  # int: a RegexFlag is no plain data
    _same(regexes._build(pattern, program), expected, text)  # built from a stored program


def test_a_later_process_builds_from_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APOLLO_CACHE_DIR", str(tmp_path))
    pattern = r"(?P<ack>收到|好的|ok)\b"
    first = DiskMemo("regex-test", regexes._program)
    first(pattern, int(re.IGNORECASE))
    first.save()
    calls: list[str] = []

    def must_not_compile(p: str, f: int) -> regexes._Program:
        calls.append(p)
        return regexes._program(p, f)

    later = DiskMemo("regex-test", must_not_compile)
    built = regexes._build(pattern, later(pattern, int(re.IGNORECASE)))
    assert calls == []
    _same(built, re.compile(pattern, re.IGNORECASE), "OK 收到 好的了 okay")


def test_a_damaged_program_is_refused_by_the_engine_and_compiled_as_usual(monkeypatch: pytest.MonkeyPatch) -> None:
    final_flags, words, groups, groupindex, indexgroup = regexes._program("abc", 0)
    damaged = (final_flags, words[: len(words) // 2], groups, groupindex, indexgroup)
    with pytest.raises(Exception):  # noqa: B017 - _sre's own validation refuses it
        regexes._build("abc", damaged)
    monkeypatch.setattr(regexes, "_programs", lambda pattern, flags: damaged)
    assert regexes.compile("abc").findall("xabcx") == ["abc"]


def test_an_engine_unlike_the_expected_one_turns_the_cache_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regexes, "_engine_as_expected", lambda: False)
    monkeypatch.setattr(regexes, "_programs", lambda pattern, flags: pytest.fail("the cache was used"))
    assert regexes.compile("a+", re.IGNORECASE).findall("xAax") == ["Aa"]


def test_an_invalid_pattern_raises_as_re_does() -> None:
    with pytest.raises(re.error):
        regexes.compile("(unclosed")
