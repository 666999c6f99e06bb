"""A signal's regex is compiled only when the text could match it: a text holding none of the
signal's phrases (or of the literals its patterns declare in ``requires``) is answered "no match"
without compiling. These tests check that this answer is always the regex's own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apollo import patterns
from apollo.renal import rules

#: characters whose case-insensitive match is special (long s, Kelvin sign, dotted and dotless i,
#: final sigma, micro sign, Angstrom sign, sharp s) beside plain ones of several scripts
_SPECIAL = "ſKİıςΣσµÅßẞ"
_PLAIN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ '?？!。，,.\n好的决定了吗我们明天做完测试ÉéДд"


def _prefiltered(pattern: patterns.LazyPattern | rules.Branches | None) -> tuple[str, ...]:
    """The needles of ``pattern``, or of its lexicon when it is searched branch by branch."""
    if isinstance(pattern, rules.Branches):
        return pattern.first.needles or ()
    return pattern.needles or () if pattern is not None else ()


def _literals() -> list[str]:
    loaded = rules.load()
    return sorted({n for s in loaded.signals.values() for n in _prefiltered(s.regex)})


def _case_changed(text: str, flips: list[bool]) -> str:
    return "".join(c.upper() if flip else c for c, flip in zip(text, flips + [False] * len(text), strict=False))


_pieces = st.one_of(
    st.sampled_from(_literals()),
    st.text(alphabet=_PLAIN, max_size=6),
    st.text(alphabet=_SPECIAL, min_size=1, max_size=2),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=4),
)


@settings(max_examples=400, deadline=None)
@given(pieces=st.lists(_pieces, max_size=8), flips=st.lists(st.booleans(), max_size=60))
def test_a_prefiltered_search_finds_exactly_what_the_compiled_regex_finds(pieces: list[str], flips: list[bool]) -> None:
    text = _case_changed(" ".join(pieces), flips)
    for signal in rules.load().signals.values():
        if signal.regex is None or signal.regex.needles is None:
            continue
        expected = re.compile(signal.regex.pattern, signal.regex.flags)
        fresh = patterns.LazyPattern(signal.regex.pattern, signal.regex.flags, signal.regex.needles)
        if fresh.cannot_match(text):
            assert expected.search(text) is None, (signal.name, text)
        found, wanted = fresh.search(text), expected.search(text)
        assert (found and (found.span(), found.group(0))) == (wanted and (wanted.span(), wanted.group(0)))


@settings(max_examples=400, deadline=None)
@given(pieces=st.lists(_pieces, max_size=8), flips=st.lists(st.booleans(), max_size=60))
def test_a_lexicon_and_patterns_searched_apart_find_exactly_what_their_alternation_finds(
        pieces: list[str], flips: list[bool]) -> None:
    text = _case_changed(" ".join(pieces), flips)
    split = [s for s in rules.load().signals.values() if isinstance(s.regex, rules.Branches)]
    assert split  # the task signal has phrases and patterns that declare no literal
    for signal in split:
        assert isinstance(signal.regex, rules.Branches)
        first, rest = signal.regex.first, signal.regex.rest
        fresh = rules.Branches(patterns.LazyPattern(first.pattern, first.flags, first.needles),
                               patterns.LazyPattern(rest.pattern, rest.flags))
        found, wanted = fresh.search(text), re.compile(signal.regex.pattern, signal.regex.flags).search(text)
        assert (found and (found.span(), found.group(0))) == (wanted and (wanted.span(), wanted.group(0)))


def test_a_text_without_a_phrase_compiles_the_patterns_beside_a_lexicon_but_not_the_lexicon() -> None:
    rules._build.cache_clear()
    task = rules.load()["task"]
    assert isinstance(task.regex, rules.Branches)
    # every alternative of the task's patterns names a literal: a text holding none compiles nothing
    assert task.search("zzz qqq") is None and not task.regex.rest.is_compiled and not task.regex.first.is_compiled
    assert task.search("把它删掉") is not None and task.regex.rest.is_compiled and not task.regex.first.is_compiled
    hit = task.search("Fix the tests, please")
    assert hit is not None and hit.group(0) == "Fix" and task.regex.first.is_compiled


def test_every_plain_character_matches_case_insensitively_only_what_it_lowers_like() -> None:
    """The prefilter lowers a text character by character; for every cased character it does
    not set aside, ``re.IGNORECASE`` matches exactly the characters lowering to the same one."""
    cased = [chr(code) for code in range(0x110000) if chr(code).lower() != chr(code) or chr(code).upper() != chr(code)]
    plain = [c for c in cased if patterns._is_plain_char(c)]
    everything = "".join(cased)
    for char in plain:
        for match in re.finditer(re.escape(char), everything, re.IGNORECASE):
            other = match.group(0)
            assert not patterns._is_plain_char(other) or other.lower() == char.lower(), (char, other)
    assert not any(patterns._is_plain_char(c) for c in "ſıςİµ")


def test_a_text_without_any_phrase_compiles_nothing_and_one_with_a_phrase_compiles_its_signal() -> None:
    rules._build.cache_clear()
    loaded = rules.load()
    decision = loaded["decision"]
    assert decision.regex is not None and decision.regex.needles
    assert decision.search("zzz qqq") is None and not decision.regex.is_compiled
    assert decision.search("We DECIDED to ship on Monday") is not None and decision.regex.is_compiled


@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=40) | st.text(alphabet=_PLAIN + _SPECIAL, max_size=40))
def test_a_text_is_folded_character_by_character(text: str) -> None:
    folded = patterns._fold(text)
    assert folded is None or folded == "".join(char.lower() for char in text)


def test_a_long_text_is_prefiltered_like_a_short_one() -> None:
    """Texts past the length whose folded copy is kept are folded again each time, same answer."""
    filler = "the build log says nothing new here. " * 200
    for text, found in ((filler, False), (filler + "We DECIDED to ship", True), (filler + "ſ decided", True)):
        pattern = rules.load()["decision"].regex
        assert pattern is not None and len(text) > patterns._FOLDED_KEPT_CHARS
        fresh = patterns.LazyPattern(pattern.pattern, pattern.flags, pattern.needles)
        assert (fresh.search(text) is not None) == found == (re.compile(pattern.pattern, pattern.flags).search(text)
                                                             is not None)


def test_a_pattern_searched_in_many_texts_is_compiled_after_all() -> None:
    """A whole session's check searches every clause: past a budget the prefilter would cost more."""
    pattern = patterns.LazyPattern(r"\bdeploy(ed)?\b", re.IGNORECASE, ("deploy",))
    for n in range(patterns.PREFILTER_TEXTS):
        assert pattern.search(f"nothing to see {n}") is None
    assert not pattern.is_compiled
    assert pattern.search("still nothing") is None and pattern.is_compiled
    assert pattern.search("We DEPLOYED it") is not None


def test_patterns_without_requires_are_always_searched_and_requires_names_what_they_need(tmp_path: Path) -> None:
    rules._build.cache_clear()
    (tmp_path / "declared.toml").write_text('[signal.sticker]\nsocial = true\npatterns = ["^\\\\[(捂脸|偷笑)\\\\]$"]\n'
                                            'requires = ["捂脸", "偷笑"]\n', encoding="utf-8")
    (tmp_path / "open.toml").write_text('[signal.sticker]\npatterns = ["^\\\\[doge\\\\]$"]\n', encoding="utf-8")
    declared = rules.load_files((str(tmp_path / "declared.toml"),))["sticker"]
    assert declared.regex is not None and declared.regex.needles == ("偷笑", "捂脸")
    assert not declared.match_whole("[doge]") and not declared.regex.is_compiled
    assert declared.match_whole("[捂脸]")
    # a later file's patterns that declare nothing may match any text: no prefilter is left
    both = rules.load_files((str(tmp_path / "declared.toml"), str(tmp_path / "open.toml")))["sticker"]
    assert both.regex is not None and both.regex.needles is None and both.match_whole("[doge]")


def _declared_patterns() -> list[tuple[str, str, int]]:
    """(signal, pattern, flags) for every pattern of a signal whose rule file says what it requires."""
    from apollo.rulefile import read_toml

    found = []
    fragments: dict[str, str] = {}  # each pattern as the engine reads it: its fragments put in (?&name)'s place
    for name in rules.BUILTIN_FILES:
        data, _ = read_toml(rules.RULES_FOLDER / name)
        rules._add_fragments(fragments, data.get("fragment", {}), name)
        for signal, spec in data.get("signal", {}).items():
            if spec.get("requires"):
                found.extend((signal, rules._expanded(p, fragments, name), rules.load()[signal].regex.flags)
                             for p in spec.get("patterns", []))
    return found


@pytest.mark.parametrize("which", _declared_patterns(), ids=lambda which: which[0])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(data=st.data())
def test_what_a_pattern_matches_holds_one_of_the_literals_its_signal_requires(data: st.DataObject,
                                                                            which: tuple[str, str, int]) -> None:
    signal_name, pattern, flags = which
    text = data.draw(st.from_regex(re.compile(pattern, flags)), label="text")
    signal = rules.load()[signal_name]
    assert signal.regex is not None
    fresh = patterns.LazyPattern(signal.regex.pattern, signal.regex.flags, signal.regex.needles)
    assert not fresh.cannot_match(text), (signal_name, pattern, text)


def test_every_literal_a_signal_declares_folds_so_the_signal_keeps_its_prefilter() -> None:
    # one literal that lower-casing cannot fold character by character ("heiße": ß) had left a whole signal without
    # its prefilter, compiled for every text (a heartbeat's appended question compiled 236 more characters)
    import tomllib

    from apollo.patterns import fold_needles
    from apollo.renal.rules import BUILTIN_FILES, RULES_FOLDER

    for name in BUILTIN_FILES:
        data = tomllib.loads((RULES_FOLDER / name).read_text(encoding="utf-8"))
        for signal, spec in data.get("signal", {}).items():
            literals = tuple(lit for key in ("requires", "zh", "en", "phrases") for lit in spec.get(key) or ())
            assert fold_needles(literals) is not None, (name, signal)
