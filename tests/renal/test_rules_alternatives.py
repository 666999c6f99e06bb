"""A pattern is compiled only in the alternatives a text may hold (``patterns.LazyPattern``): the others
stand aside as expressions that never match. These tests hold that to finding exactly what the
whole pattern finds: the same span, the same groups, the same last group."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from apollo import patterns
from apollo.renal import concentrate, condense, rules

_ALPHABET = "abcAB .1好\n"

_literal = st.sampled_from(["a", "b", "c", "A", "ab", "ba", "好", " ", r"\.", r"\ ", "1"])
_other = st.sampled_from(["[ab]", "[^a]", ".", r"\d", r"\w", r"\s", r"\b", "^", "$", r"(?<!a)", r"(?=b)", r"(?!c)"])
_quantifier = st.sampled_from(["", "", "", "?", "*", "+", "{2}", "{0,2}", "{1,}", "??", "+?", "{,1}"])
# a group repeats a bounded number of times: an unbounded repeat of a group that itself repeats
# ("((a*)*)*") backtracks exponentially in ``re``, and the test would hang rather than fail
_group_quantifier = st.sampled_from(["", "", "", "?", "{2}", "{0,2}", "??", "{,1}"])


def _group(alternatives: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(st.sampled_from(["(", "(?:", "(?=", "(?!", "(?-i:"]), alternatives).map(lambda g: f"{g[0]}{g[1]})")


def _alternation(sequences: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    # an empty alternative ("(?:will |)go") matches everywhere: it is never left out
    return st.lists(st.one_of(sequences, st.just("")), min_size=1, max_size=3).map("|".join)


_patterns = st.recursive(
    st.lists(st.tuples(st.one_of(_literal, _other), _quantifier).map("".join), min_size=1, max_size=4).map("".join),
    lambda inner: st.lists(st.one_of(st.tuples(st.one_of(_literal, _other), _quantifier).map("".join),
                                     st.tuples(_group(_alternation(inner)), _group_quantifier).map("".join), inner),
                           min_size=1, max_size=4).map("".join),
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
@given(branches=st.lists(st.one_of(_patterns, st.just("")), min_size=1, max_size=4),
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
        assert lazy.sub("_", text) == whole.sub("_", text)


def test_a_kept_empty_alternative_still_matches() -> None:
    for pattern, text in (("foo|", "x"), ("(?:foo|)x", "x"), (r"\bwe(?: will|) go with\b", "ok, we go with postgres"),
                          ("(foo|)x|zzz", "x")):
        _same(patterns.LazyPattern(pattern).search(text), re.compile(pattern).search(text))


def test_a_pattern_nested_deeper_than_the_reader_goes_is_compiled_whole() -> None:
    pattern = "(?:" * 300 + "ab|c" + ")" * 300 + "|zz"
    _same(patterns.LazyPattern(pattern).search("xxc"), re.compile(pattern).search("xxc"))


@settings(max_examples=300, deadline=None)
@given(branches=st.lists(_patterns, min_size=1, max_size=4))
def test_every_match_of_an_alternative_holds_one_of_its_literals(branches: list[str]) -> None:
    assume(_valid("|".join(branches)))
    pattern = "|".join(branches)
    for start, end, literals, stand_in, _ in patterns._read_alternatives(pattern) or ():
        branch = pattern[start:end]
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
    for pattern in (r"(a)\1|b", r"(?x) a | b", r"(?P<n>a(?P=n))|b", r"(?P=n)(?P<n>a)|b", r"(?(1)a|b)|c", "a|(b"):
        assert patterns._read_alternatives(pattern) is None, pattern
    assert patterns._read_alternatives(r"\d+") is None  # no literal: nothing to prefilter
    # one alternative with literals: a text without them cannot match it
    assert patterns._read_alternatives(r"^\s*\[?\d{2}:\d{2}") == ((0, 18, (":",), "(?!)", -1),)
    # the alternatives inside a group are read too, but not those of a look-behind (one width)
    read = patterns._read_alternatives(r"(?:can you|(?<!not )would (you))")
    assert read is not None and [(start, literals, stand_in, around) for start, _, literals, stand_in, around in read] == [
        (0, ("can you", "would "), "(?!)()", -1), (3, ("can you",), "(?!)", 0), (11, ("would ",), "(?!)()", 0),
        (27, ("you",), "(?!)", 2)]


def test_an_alternative_inside_a_group_is_set_aside_when_the_text_cannot_hold_it() -> None:
    pattern = r"^(?:please )?(add|deploy|fix|ship)\b"
    lazy = patterns.LazyPattern(pattern, re.IGNORECASE)
    assert lazy.search("Deploy it") is not None and lazy._partial is not None and not lazy._compiled
    assert lazy._partial.pattern == r"^(?:(?!))?(deploy)\b"
    # one holding a group stands aside in its place: the groups after it keep their numbers
    grouped = patterns.LazyPattern(r"(?:ship (it)|(deploy))", re.IGNORECASE)
    found = grouped.search("deploy now")
    assert grouped._partial is not None and grouped._partial.pattern == "(?:(?!)()|(deploy))"
    assert found is not None and found.group(2) == "deploy" and found.lastindex == 2


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
    return sorted({literal for alternatives in read if alternatives for _, _, literals, _, _ in alternatives
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


def test_a_named_back_reference_leaves_the_other_alternatives_lazy() -> None:
    """A reference to a group closed before it (用没用) is read as any text: the alternatives around
    it are still set aside when the text cannot hold them, and the group's name stays."""
    pattern = r"(?<!一)(?P<verb>[\u4e00-\u9fff])没(?P=verb)|^(?:do|does) you\b|吗$"
    read = patterns._read_alternatives(pattern)
    assert read is not None and [literals for _, _, literals, _, _ in read[:1]] == [("没",)]
    lazy = patterns.LazyPattern(pattern, re.IGNORECASE)
    found = lazy.search("用没用")
    assert lazy._partial is not None and not lazy._compiled  # the English and 吗 alternatives stand aside
    assert found is not None and found.group("verb") == "用"
    assert lazy.search("一动没动") is None and lazy.search("does you know") is not None
    question = rules.load().signals["question"].regex
    assert isinstance(question, rules.Branches)  # the patterns beside the phrases
    fresh = patterns.LazyPattern(question.rest.pattern, question.rest.flags)  # the loaded one may be compiled by now
    assert fresh.search("装没装") is not None and fresh._partial is not None and not fresh._compiled


@pytest.mark.parametrize(("pattern", "text"), [(r"(?P<v>ab|(?P<w>cd))(?<=(?P=v))zz", "abzz"),
                                               (r"(?P<v>a|bc)(?<=(?P=v))zz|q", "q azz bczz")])
def test_a_back_reference_in_a_look_behind_is_read_as_the_whole_reads_it(pattern: str, text: str) -> None:
    """Set aside, an alternative's stand-in has another width: inside a look-behind the reference
    makes the reader compile the whole, which finds (or refuses) what re does."""
    try:
        expected = re.compile(pattern).search(text)
    except re.error:
        with pytest.raises(re.error):
            patterns.LazyPattern(pattern).search(text)
        return
    _same(patterns.LazyPattern(pattern).search(text), expected)


_name = st.sampled_from(["v", "w"])


@st.composite
def _referring(draw: st.DrawFn) -> str:
    """A pattern with a named group and a back reference to it: in the group's own alternative, after
    the alternative it is in, or inside a repeated group beside it."""
    name = draw(_name)
    before, after = draw(_patterns), draw(_patterns)
    group = f"(?P<{name}>{draw(_alternation(_patterns))})"
    reference = f"(?P={name}){draw(_quantifier)}"
    shape = draw(st.sampled_from(["same", "outside", "repeated", "behind"]))
    if shape == "behind":  # a look-behind's width must not change with what is set aside
        body = f"{before}{group}(?<=(?P={name})){after}"
    elif shape == "same":
        body = f"{before}{group}{after}{reference}"
    elif shape == "outside":
        body = f"(?:{before}{group}|{draw(_patterns)}){after}{reference}"
    else:
        body = f"(?:{group}|{before}{reference}){{0,3}}{after}"
    others = draw(st.lists(st.one_of(_patterns, st.just("")), max_size=3))
    at = draw(st.integers(0, len(others)))
    return "|".join([*others[:at], body, *others[at:]])


@settings(max_examples=600, deadline=None)
@given(pattern=_referring(), texts=st.lists(st.text(alphabet=_ALPHABET, max_size=16), min_size=1, max_size=4),
       flags=st.sampled_from([0, re.IGNORECASE, re.IGNORECASE | re.MULTILINE]))
def test_a_pattern_with_a_named_back_reference_finds_what_the_whole_finds(pattern: str, texts: list[str],
                                                                          flags: int) -> None:
    assume(_valid(pattern))
    whole = re.compile(pattern, flags)
    lazy = patterns.LazyPattern(pattern, flags)
    for text in texts:
        _same(lazy.search(text), whole.search(text))
        _same(lazy.match(text), whole.match(text))
        _same(lazy.fullmatch(text), whole.fullmatch(text))
        assert lazy.sub("_", text) == whole.sub("_", text)
