"""The condenser's phrase lexicons are built at their first use, and are what the lists give."""

from __future__ import annotations

from apollo.renal import condense
from apollo.renal import rules as classifier_rules


def _lists() -> dict[str, list[str]]:
    lists: dict[str, list[str]] = {}
    for language in (value for value in condense._builtin_table().values() if isinstance(value, dict)):
        for key, values in language.items():
            lists.setdefault(key, []).extend(values)
    return lists


def test_the_lexicons_are_the_lists_phrases_longest_first() -> None:
    """Built lazily (and through the disk memos), each lexicon is what tokenising its list gives:
    the phatic phrases with every social signal's, the interjections with the one-word phrases of
    the opening social signals."""
    social = classifier_rules.load_files(())
    openers = set(condense._builtin_table()["interjection_signals"])
    lists = _lists()
    phatic = [*lists["phatic_words"], *(p for signal in social.social for p in signal.phrases)]
    interjections = [*lists["interjections"], *(p for signal in social.social if signal.name in openers
                                                for p in signal.phrases if condense._one_word(p))]
    rules = condense.load_rules()
    assert _same(rules.phatic_phrases, condense._sorted_phrases(tuple(sorted(set(phatic)))))
    assert rules.phatic_words == {p[0] for p in rules.phatic_phrases if len(p) == 1} != set()
    assert _same(rules.interjections, condense._sorted_phrases(tuple(sorted(set(interjections)))))
    assert rules.hedges and _same(rules.hedges, condense._sorted_phrases(tuple(sorted(set(lists["hedges"])))))


def _same(built: tuple, expected: tuple) -> bool:
    """The same phrases, longest first: phrases of one length come in the order of a set of them,
    which differs from one process to the next (it failed a CI run)."""
    lengths = [len(phrase) for phrase in built]
    return sorted(built) == sorted(expected) and lengths == sorted(lengths, reverse=True)


def test_a_lexicon_is_built_only_when_asked_and_once() -> None:
    lexicon = condense.Lexicon(["thanks a lot", "Thanks", "cheers"])
    assert lexicon._built is None  # nothing tokenised yet
    built = lexicon.built()
    assert built[0] == ("thanks", "a", "lot") and set(built) == {("thanks", "a", "lot"), ("thanks",), ("cheers",)}
    assert lexicon.built() is built and lexicon.words() == {"cheers", "thanks"}
    # equal by what it is made of, built or not: two loads of the same rules are equal
    assert lexicon == condense.Lexicon(["cheers", "thanks a lot", "Thanks"])
    assert condense.load_rules() == condense.load_rules()
