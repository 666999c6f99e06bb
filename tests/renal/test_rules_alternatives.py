"""A pattern is compiled only in the alternatives a text may hold (``patterns.LazyPattern``): the others
stand aside as expressions that never match. These tests hold that to finding exactly what the
whole pattern finds: the same span, the same groups, the same last group."""

from __future__ import annotations

import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from apollo import patterns
from apollo.renal import concentrate, condense, rules

_ALPHABET = "abcAB .1好\n"

_literal = st.sampled_from(["a", "b", "c", "A", "ab", "ba", "好", " ", r"\.", r"\ ", "1"])
_other = st.sampled_from(["[ab]", "[^a]", ".", r"\d", r"\w", r"\s", r"\b", "^", "$", r"(?<!a)", r"(?=b)", r"(?!c)"])
_quantifier = st.sampled_from(["", "", "", "?", "*", "+", "{2}", "{0,2}", "{1,}", "??", "+?", "{,1}"])


def _group(alternatives: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(st.sampled_from(["(", "(?:", "(?=", "(?!", "(?-i:"]), alternatives).map(lambda g: f"{g[0]}{g[1]})")


def _alternation(sequences: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.lists(sequences, min_size=1, max_size=3).map("|".join)


_patterns = st.recursive(
    st.lists(st.tuples(st.one_of(_literal, _other), _quantifier).map("".join), min_size=1, max_size=4).map("".join),
    lambda inner: st.lists(st.one_of(st.tuples(st.one_of(_literal, _other, _group(_alternation(inner))),
                                               _quantifier).map("".join), inner), min_size=1, max_size=4).map("".join),
    max_leaves=8,
)


def _valid(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except (re.error, OverflowError):
        return False
    return True


def _same(found: re.Match[str] | None, wanted: re.Match[str] | None) -> None:
    assert (found and (found.span(), found.groups(), found.lastindex, found.lastgroup)) == (
        wanted and (wanted.span(), wanted.groups(), wanted.lastindex, wanted.lastgroup))


@settings(max_examples=600, deadline=None)
@given(branches=st.lists(_patterns, min_size=1, max_size=4),
       texts=st.lists(st.text(alphabet=_ALPHABET, max_size=16), min_size=1, max_size=4),
       flags=st.sampled_from([0, re.IGNORECASE, re.IGNORECASE | re.MULTILINE]))
def test_a_pattern_searched_in_the_alternatives_a_text_may_hold_finds_what_the_whole_finds(
        branches: list[str], texts: list[str], flags: int) -> None:
    pattern = "|".join(branches)
    assume(_valid(pattern))  # the grammar also makes what re refuses ("\\b?", a look-behind of varying width)
    whole = re.compile(pattern, flags)
    lazy = patterns.LazyPattern(pattern, flags)
    for text in texts:  # one pattern, several texts: the part compiled grows with what they hold
        _same(lazy.search(text), whole.search(text))
        _same(lazy.match(text), whole.match(text))
        _same(lazy.fullmatch(text), whole.fullmatch(text))


@settings(max_examples=300, deadline=None)
@given(branches=st.lists(_patterns, min_size=1, max_size=4))
def test_every_match_of_an_alternative_holds_one_of_its_literals(branches: list[str]) -> None:
    assume(_valid("|".join(branches)))
    read = patterns._read_alternatives("|".join(branches))
    for branch, literals, stand_in in read or ():
        assert re.compile(stand_in).groups == re.compile(branch).groups
        if literals is None:
            continue
        for text in ("".join(branches), " ".join(literals), "ab好 1.\nBA"):
            for match in re.finditer(branch, text, re.IGNORECASE):
                assert any(literal in match.group(0).lower() for literal in literals) or not match.group(0), (
                    branch, literals, match.group(0))


def test_an_alternative_set_aside_keeps_the_numbers_and_names_of_the_groups_after_it() -> None:
    pattern = r"(?P<first>deploy)(ed)?|(ship)(?P<how>\s+it)"
    lazy = patterns.LazyPattern(pattern, re.IGNORECASE)
    found = lazy.search("we SHIP it")
    assert lazy.is_compiled and not lazy._compiled  # only the part the text may hold
    assert found is not None and found.group(3, "how") == ("SHIP", " it") and found.lastgroup == "how"
    assert found.groupdict() == re.compile(pattern, re.IGNORECASE).search("we SHIP it").groupdict()  # type: ignore[union-attr]


def test_what_the_reader_does_not_read_is_compiled_whole() -> None:
    for pattern in (r"(a)\1|b", r"(?x) a | b", r"(?P<n>a)(?P=n)|b", r"(?(1)a|b)|c", "a|(b"):
        assert patterns._read_alternatives(pattern) is None, pattern
    assert patterns._read_alternatives(r"\d+") is None  # no literal: nothing to prefilter
    # one alternative with literals: a text without them cannot match it
    assert patterns._read_alternatives(r"^\s*\[?\d{2}:\d{2}") == ((r"^\s*\[?\d{2}:\d{2}", (":",), "(?!)"),)
    # one non-capturing group around the whole is read inside
    read = patterns._read_alternatives("(?:can you|would you)")
    assert read is not None and [literals for _, literals, _ in read] == [("can you",), ("would you",)]


def test_a_text_holding_no_literal_of_any_alternative_compiles_nothing() -> None:
    lazy = patterns.LazyPattern(r"\bcan you\b|\bwould you\b(?! like)", re.IGNORECASE)
    assert lazy.search("Any news on the deploy?") is None and not lazy.is_compiled


def _rule_patterns() -> list[patterns.LazyPattern]:
    """Every lazily compiled pattern of the built-in rules: the signals', the pasted lines', the
    filter's, the condenser's."""
    loaded = rules.load()
    found: list[patterns.LazyPattern] = [*loaded.pasted, *loaded.pasted_blocks]
    for signal in loaded.signals.values():
        if isinstance(signal.regex, rules.Branches):
            found += [signal.regex.first, signal.regex.rest]
        elif signal.regex is not None:
            found.append(signal.regex)
    found += concentrate.load().reabsorb
    found += condense.load_rules().phatic_patterns
    return found


def _pieces() -> list[str]:
    read = [patterns._read_alternatives(pattern.pattern) for pattern in _rule_patterns()]
    return sorted({literal for alternatives in read if alternatives for _, literals, _ in alternatives
                   for literal in literals or ()})


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.one_of(st.sampled_from(_pieces()),
                                 st.text(alphabet="abcdefghijklmnopqrstuvwxyz ?？!。好的吗 \t>:-$[", max_size=5)), max_size=6),
       upper=st.booleans())
def test_the_rules_patterns_find_what_their_whole_expressions_find(pieces: list[str], upper: bool) -> None:
    text = " ".join(pieces)
    text = text.upper() if upper else text
    for pattern in _rule_patterns():
        whole = re.compile(pattern.pattern, pattern.flags)
        fresh = patterns.LazyPattern(pattern.pattern, pattern.flags, pattern.needles)
        _same(fresh.search(text), whole.search(text))
        _same(fresh.match(text), whole.match(text))
