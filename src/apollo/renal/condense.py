"""Shorten a message without losing what it says (浓缩: 长解释 → 核心观点).

A message loses, level by level, only what carries no information: phatic sentences and
discourse fillers (``tidy``), then light grammar a reader restores without effort (``terse``),
then, under a tight budget only, function words (``compact``: prepositions and conjunctions stay)
and at last those too (``notes``). The words and patterns live
in ``rules/condense.toml``; this engine knows only the order. No level removes more than
``max_content_loss`` of a message's distinct content words, and negations, numbers and
bracketed annotations (``[shares a photo of …]``) always stay.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from apollo.cache import DiskMemo, toml_loads
from apollo.errors import ConfigError
from apollo.patterns import LazyPattern
from apollo.records import slotted
from apollo.renal.reading import normalize_clause, social_parts
from apollo.renal.rules import RULES_FOLDER, RenalRules
from apollo.rulefile import located, overlay, read_toml

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LEVELS = ("tidy", "terse", "compact", "notes")

_CJK_TOKEN = r"(?P<cjk>[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])"
# a word; single letters joined by dots are one ("a.m.", "e.g.", "U.S."): read apart, the "a" of
# "5 a.m." went as an article ("5.m.") and the dots of "e.g.," ended sentences
_OTHER_TOKENS = (
    r"(?P<word>[A-Za-z](?:\.[A-Za-z])+\.?(?![A-Za-z0-9])|[A-Za-z0-9]+(?:['’][A-Za-z]+|-[A-Za-z0-9]+)*)"
    r"|(?P<space>\s+)"
    r"|(?P<end>[.!?。！？]+)"
    r"|(?P<open>\[)"
    r"|(?P<close>\])"
    r"|(?P<punct>\S)"
)
#: the tokens of a text of ASCII characters only, which holds no Chinese one (the wide character
#: ranges cost a heartbeat's English message 1 ms to compile)
_ASCII_TOKEN = re.compile(_OTHER_TOKENS)


@functools.cache
def _any_token() -> re.Pattern[str]:
    return re.compile(f"{_CJK_TOKEN}|{_OTHER_TOKENS}")


def _token_matches(text: str) -> Iterator[re.Match[str]]:
    return (_ASCII_TOKEN if text.isascii() else _any_token()).finditer(text)

#: a quotation on one line: straight quotes, curly ones, corner brackets; a single straight quote
#: opens only where no letter or digit of a word is before it (not the apostrophe of "don't")
_QUOTED = LazyPattern(r'"[^"\n]+"|“[^“”\n]+”|‘[^‘’\n]+’|「[^「」\n]+」|『[^『』\n]+』'
                      r"|(?<![A-Za-z0-9])'(?:[^'\n]|(?<=[A-Za-z])'(?=[A-Za-z]))+'(?![A-Za-z0-9])")
_QUOTE_MARKS = frozenset("\"“‘「『'")
_PARTS = re.compile(r"[a-z0-9]+")
_WORDLIKE = ("word", "cjk")
#: how many texts, up to how long, :meth:`Condenser.content_units` remembers
_REMEMBERED_TEXTS = 4096
_REMEMBERED_TEXT = 2000
_SEPARATORS = {",", "，", ";", "；", ":", "：", "-", "–", "—", "、"}


class Lexicon:
    """A list of phrases as word tuples, longest first (:func:`_sorted_phrases`), built at its first
    use: even kept on disk, the phatic, interjection and hedge lexicons cost a heartbeat about
    0.7 ms to load, and the messages it settles are rarely tried for a phrase. ``phrases``, and the
    one-word phrases of each of ``one_words_of`` (the opening social signals' phrases), are the list."""

    __slots__ = ("phrases", "one_words_of", "_built", "_words")

    def __init__(self, phrases: Iterable[str], one_words_of: tuple[tuple[str, ...], ...] = ()):
        self.phrases = tuple(sorted(set(phrases)))
        self.one_words_of = one_words_of
        self._built: tuple[tuple[str, ...], ...] | None = None
        self._words: frozenset[str] | None = None

    def __eq__(self, other: object) -> bool:
        return type(other) is Lexicon and (self.phrases, self.one_words_of) == (other.phrases, other.one_words_of)

    def __hash__(self) -> int:
        return hash((self.phrases, self.one_words_of))

    def built(self) -> tuple[tuple[str, ...], ...]:
        if self._built is None:
            phrases = set(self.phrases)
            for signal_phrases in self.one_words_of:
                phrases.update(_one_words(signal_phrases))
            self._built = _phrase_lexicon(tuple(sorted(phrases)))  # sorted: one key per lexicon
        return self._built

    def words(self) -> frozenset[str]:
        """Its one-word phrases."""
        if self._words is None:
            self._words = frozenset(p[0] for p in self.built() if len(p) == 1)
        return self._words


@slotted(frozen=True)
class CondenseRules:
    """Every list of rules/condense.toml, all languages merged (scripts never collide)."""

    function_words: frozenset[str]
    never_drop: frozenset[str]
    phatic: Lexicon
    phatic_patterns: tuple[LazyPattern, ...]
    interjection_lexicon: Lexicon
    hedge_lexicon: Lexicon
    intensifiers: frozenset[str]
    intensifiers_before_evaluative: frozenset[str]
    articles: frozenset[str]
    clause_subjects: frozenset[str]
    auxiliaries: frozenset[str]
    particles: frozenset[str]
    joining_words: frozenset[str]
    keep_words: frozenset[str]
    verb_particles: frozenset[str] = frozenset()
    verb_particles_at_end: frozenset[str] = frozenset()
    particle_verbs: frozenset[str] = frozenset()
    final_particles: frozenset[str] = frozenset()
    particle_words: tuple[str, ...] = ()
    verb_objects: frozenset[str] = frozenset()
    be_forms: frozenset[str] = frozenset()
    question_auxiliaries: frozenset[str] = frozenset()
    question_subjects: frozenset[str] = frozenset()
    max_content_loss: float = 0.2
    min_content_letters: int = 3
    #: the classifier's rules, whose social signals say which whole sentences are formulas
    social: RenalRules | None = None

    @property
    def phatic_words(self) -> frozenset[str]:
        return self.phatic.words()

    @property
    def phatic_phrases(self) -> tuple[tuple[str, ...], ...]:
        return self.phatic.built()

    @property
    def interjections(self) -> tuple[tuple[str, ...], ...]:
        return self.interjection_lexicon.built()

    @property
    def hedges(self) -> tuple[tuple[str, ...], ...]:
        return self.hedge_lexicon.built()


def _norm(text: str) -> str:
    return text.lower().replace("’", "'")


def _phrase(text: str) -> tuple[str, ...]:
    return tuple(_norm(m.group()) for m in _token_matches(text) if m.lastgroup in _WORDLIKE)


def rules_from_data(table: dict[str, Any], social: RenalRules | None = None) -> CondenseRules:
    """Rules from a ``[condense]`` table (numbers, and one table of lists per language: all languages
    are merged, their scripts never collide).

    ``social`` (the classifier's rules) brings the social lexicon: every phrase of a social signal is
    phatic, and the one-word phrases of ``interjection_signals`` are interjections."""
    lists: dict[str, list[str]] = {}
    settings = {key: value for key, value in table.items() if not isinstance(value, dict)}
    for language in (value for value in table.values() if isinstance(value, dict)):
        for list_key, values in language.items():
            lists.setdefault(list_key, []).extend(values)
    openers: list[tuple[str, ...]] = []
    if social is not None:
        opening = set(settings.get("interjection_signals", ()))
        for signal in social.social:
            lists.setdefault("phatic_words", []).extend(signal.phrases)
            if signal.name in opening:
                openers.append(tuple(sorted(signal.phrases)))

    def words(key: str) -> frozenset[str]:
        return frozenset(_norm(v) for v in lists.get(key, []))

    return CondenseRules(
        function_words=words("function_words"),
        never_drop=words("never_drop"),
        phatic=Lexicon(lists.get("phatic_words", [])),
        # compiled when a message is tried as phatic (a heartbeat's appended question is not)
        phatic_patterns=tuple(LazyPattern(p, re.IGNORECASE) for p in lists.get("phatic_patterns", [])),
        interjection_lexicon=Lexicon(lists.get("interjections", []), tuple(openers)),
        hedge_lexicon=Lexicon(lists.get("hedges", [])),
        intensifiers=words("intensifiers"),
        intensifiers_before_evaluative=words("intensifiers_before_evaluative"),
        articles=words("articles"),
        clause_subjects=words("clause_subjects"),
        auxiliaries=words("auxiliaries"),
        particles=words("particles"),
        joining_words=words("joining_words"),
        keep_words=words("keep_words"),
        verb_particles=words("verb_particles"),
        verb_particles_at_end=words("verb_particles_at_end"),
        particle_verbs=words("particle_verbs"),
        final_particles=words("final_particles"),
        verb_objects=words("verb_objects"),
        be_forms=words("be_forms"),
        question_auxiliaries=words("question_auxiliaries"),
        question_subjects=words("question_subjects"),
        particle_words=tuple(sorted(set(lists.get("particle_words", [])))),
        max_content_loss=float(settings.get("max_content_loss", 0.2)),
        min_content_letters=int(settings.get("min_content_letters", 3)),
        social=social,
    )


def _sorted_phrases(values: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """A lexicon as word tuples, longest first (the first match is the longest)."""
    found = {_phrase(v) for v in values}
    return tuple(sorted((p for p in found if p), key=len, reverse=True))


#: tokenising thousands of lexicon phrases costs every process about as much as Python's start:
#: built once per set of rule files and kept
_phrase_lexicon = DiskMemo("condense-phrases", _sorted_phrases, max_entries=64)


def _one_word(phrase: str) -> bool:
    """One Latin word ("oh", "uh-huh") or at most two Chinese characters ("好的", "早")."""
    words = _phrase(phrase)
    return len(words) == 1 or (0 < len(words) <= 2 and all(len(w) == 1 and not w.isascii() for w in words))


#: which phrases are one word is asked again on every load, tokenising each phrase: kept
_one_words = DiskMemo("condense-one-words", lambda phrases: tuple(p for p in phrases if _one_word(p)), max_entries=64)


def _builtin_table() -> dict[str, Any]:
    return toml_loads((RULES_FOLDER / "condense.toml").read_text(encoding="utf-8"))["condense"]


def _overlay_condense(table: dict[str, Any], layer: Any, where: str, text: str) -> dict[str, Any]:
    """A user file's ``[condense]`` over the table so far: its numbers replace, its languages'
    lists add up (checked by :mod:`apollo.renal.rule_schema`)."""
    if not isinstance(layer, dict):
        raise ConfigError(f"rule file: 'condense' must be a table, got {type(layer).__name__}",
                          where=located(where, text, "condense"))

    def part(tables: dict[str, Any], languages: bool) -> dict[str, Any]:
        return {key: value for key, value in tables.items() if isinstance(value, dict) is languages}

    numbers = overlay(part(table, False), part(layer, False), "apollo.renal.rule_schema:CondenseSettings", where,
                      text=text, prefix="condense")
    languages = overlay(part(table, True), part(layer, True), "apollo.renal.rule_schema:CondenseLanguages", where,
                        text=text, prefix="condense", extend=("*.*",))
    return {**numbers, **languages}


def load_rules(extra_files: Sequence[Path] = ()) -> CondenseRules:
    """The built-in rules plus the user's rule files (``renal.rule_files``): their ``[condense]``
    tables, and their social signals (shared with the classifier)."""
    from apollo.renal import rules as classifier_rules

    table = _builtin_table()
    for path in extra_files:
        document, text = read_toml(Path(path))
        if "condense" in document:
            table = _overlay_condense(table, document["condense"], str(path), text)
    rules = rules_from_data(table, classifier_rules.load_files(tuple(str(Path(f)) for f in extra_files)))
    for pattern in rules.phatic_patterns if extra_files else ():  # a user's pattern fails where it is loaded
        pattern.compiled()
    return rules


@slotted()
class _Token:
    text: str
    kind: str
    norm: str
    sentence: int
    protected: bool  # numbers, bracketed annotations, quotations
    units: tuple[str, ...]  # content units this token carries


class Condenser:
    """Builds the shortening ladder of a text; one instance serves a whole transcript."""

    def __init__(self, rules: CondenseRules | None = None):
        self.rules = rules or load_rules()
        #: id(phrase list) -> (the list, its phrases by first word): see _match_phrase
        self._by_first_word: dict[int, tuple[tuple[tuple[str, ...], ...], dict[str, list[tuple[str, ...]]]]] = {}
        #: particle character -> the words it stands in (:meth:`_bound_particle`), built when first needed
        self._particle_index: dict[str, list[tuple[str, int]]] | None = None
        #: content units of recent short texts: the same message is read for reabsorption and for
        #: repeats, and acknowledgements and status lines come again and again
        self._units_of: dict[str, frozenset[str]] = {}

    # -- content -----------------------------------------------------------------------
    def _units(self, kind: str, norm: str) -> tuple[str, ...]:
        rules = self.rules
        if kind == "cjk":
            return () if norm in rules.function_words else (norm,)
        if kind != "word":
            return ()
        return tuple(p for p in _PARTS.findall(norm)
                     if p.isdigit() or (len(p) >= rules.min_content_letters and p not in rules.function_words))

    def content_units(self, text: str) -> frozenset[str]:
        """Distinct content words (CJK: content characters) of ``text``."""
        units = self._units_of.get(text)
        if units is None:
            units = frozenset(u for m in _token_matches(text) for u in self._units(m.lastgroup or "", _norm(m.group())))
            if len(text) <= _REMEMBERED_TEXT:
                if len(self._units_of) >= _REMEMBERED_TEXTS:
                    self._units_of.clear()
                self._units_of[text] = units
        return units

    def coverage(self, original: str, shortened: str) -> float:
        needed = self.content_units(original)
        return len(needed & self.content_units(shortened)) / len(needed) if needed else 1.0

    # -- tokens and sentences -------------------------------------------------------------
    def _tokenize(self, text: str) -> list[_Token]:
        tokens: list[_Token] = []
        sentence = 0
        depth = 0
        quotes = iter(_QUOTED.compiled().finditer(text) if _QUOTE_MARKS.intersection(text) else ())
        quote = next(quotes, None)
        for match in _token_matches(text):
            while quote is not None and quote.end() <= match.start():
                quote = next(quotes, None)
            kind = match.lastgroup or "punct"
            raw = match.group()
            norm = _norm(raw)
            if kind == "open":
                if depth == 0 and tokens and tokens[-1].sentence == sentence and any(
                        t.kind in _WORDLIKE for t in tokens if t.sentence == sentence):
                    sentence += 1
                depth += 1
            inside = depth > 0
            quoted = quote is not None and quote.start() <= match.start()
            protected = inside or quoted or (kind == "word" and any(c.isdigit() for c in raw))
            tokens.append(_Token(raw, kind, norm, sentence, protected, self._units(kind, norm)))
            if kind == "close" and depth:
                depth -= 1
                if depth == 0:
                    sentence += 1
            elif depth == 0 and (kind == "end" or (kind == "space" and "\n" in raw)):
                sentence += 1
        return tokens

    # -- candidate removals ---------------------------------------------------------------
    def _match_phrase(self, words: list[int], tokens: list[_Token], start: int,
                      phrases: tuple[tuple[str, ...], ...]) -> int:
        """Length (in word positions) of the longest phrase starting at ``words[start]``, or 0.

        Only the phrases that begin with that word are tried (in their order): the social lexicon
        holds hundreds, and this runs for every word of every sentence."""
        for phrase in self._starting_with(phrases).get(tokens[words[start]].norm, ()):
            end = start + len(phrase)
            if end <= len(words) and all(tokens[words[start + k]].norm == phrase[k] for k in range(len(phrase))):
                return len(phrase)
        return 0

    def _starting_with(self, phrases: tuple[tuple[str, ...], ...]) -> dict[str, list[tuple[str, ...]]]:
        known = self._by_first_word.get(id(phrases))
        if known is not None and known[0] is phrases:
            return known[1]
        index: dict[str, list[tuple[str, ...]]] = {}
        for phrase in phrases:
            if not phrase:  # an empty phrase would match first, with length 0: nothing after it is tried
                break
            index.setdefault(phrase[0], []).append(phrase)
        self._by_first_word[id(phrases)] = (phrases, index)
        return index

    def _is_phatic(self, sentence: list[int], tokens: list[_Token], names: frozenset[str]) -> bool:
        rules = self.rules
        words = [i for i in sentence if tokens[i].kind in _WORDLIKE]
        if not words or any(tokens[i].protected for i in words):
            return False
        plain = "".join(tokens[i].text for i in sentence if tokens[i].kind != "end").strip(" ,，")
        if self._social_formula(plain):  # "thanks so much!", "好的谢谢", "not at all"
            return True
        if any(tokens[i].norm in rules.never_drop for i in words):
            return False
        if any(p.fullmatch(_norm(plain)) for p in rules.phatic_patterns):
            return True
        position = 0
        saw_phatic = False
        while position < len(words):
            token = tokens[words[position]]
            span = self._match_phrase(words, tokens, position, rules.phatic_phrases)
            if span:
                saw_phatic = True
                position += span
            elif token.norm in names or token.norm in rules.function_words or not token.units:
                position += 1
            else:
                return False
        return saw_phatic

    def _social_formula(self, sentence: str) -> bool:
        """The sentence is a social formula by the classifier's lexicon (a form of address alone is not)."""
        social = self.rules.social
        if social is None or len(sentence) > social.settings["social_max_chars"]:
            return False
        parts = social_parts(normalize_clause(sentence, social), social)
        return bool(parts) and not all(p.attached for p in parts)

    def _vocative(self, tokens: list[_Token], index: int, names: frozenset[str]) -> bool:
        token = tokens[index]
        return token.kind == "word" and (token.norm in names or (token.text[:1].isupper() and token.norm != "i"))

    def _candidates(self, tokens: list[_Token], names: frozenset[str]) -> list[tuple[int, tuple[int, ...]]]:
        """(level, token indices) in the order they are tried; each level after the previous."""
        rules = self.rules
        by_sentence: dict[int, list[int]] = {}
        for i, token in enumerate(tokens):
            by_sentence.setdefault(token.sentence, []).append(i)
        found: list[tuple[int, tuple[int, ...]]] = []
        for sentence in by_sentence.values():
            if self._is_phatic(sentence, tokens, names):
                found.append((0, tuple(sentence)))
        for sentence in by_sentence.values():
            words = [i for i in sentence if tokens[i].kind in _WORDLIKE and not tokens[i].protected]
            found.extend((0, span) for span in self._openers(sentence, words, tokens, names))
            found.extend((0, span) for span in self._fillers(sentence, words, tokens))
        for sentence in by_sentence.values():
            words = [i for i in sentence if tokens[i].kind in _WORDLIKE and not tokens[i].protected]
            for start in self._clause_starts(sentence, words, tokens):
                found.extend((1, span) for span in self._subject_auxiliary(words, start, tokens))
            for position, i in enumerate(words):
                token = tokens[i]
                if token.norm in rules.articles and not (position and token.text[:1].isupper()):
                    found.append((1, (i,)))
        for sentence in by_sentence.values():
            inverted = self._question_inversion(sentence, tokens)
            for position, i in enumerate(sentence):
                token = tokens[i]
                if i not in inverted and token.kind in _WORDLIKE and not token.protected and self._function_only(token) \
                        and not self._verb_particle(sentence, position, tokens) \
                        and not self._bound_particle(sentence, position, tokens):
                    found.append((3 if token.norm in rules.joining_words else 2, (i,)))
        return found

    def _bound_particle(self, sentence: list[int], position: int, tokens: list[_Token]) -> bool:
        """A Chinese particle that is part of a word ("了" of "了解", "的" of "目的", "哈" of "哈希":
        ``particle_words``), or a sentence-final one ("吗", "吧": ``final_particles``) that does not end
        its clause: removing it would cut a word in two."""
        token = tokens[sentence[position]]
        if token.kind != "cjk":
            return False
        if token.norm in self.rules.final_particles:
            after = _next_token(sentence, position + 1, 1, tokens)
            if after is not None and after.kind in _WORDLIKE:
                return True
        for word, offset in self._particle_words().get(token.norm, ()):
            start = position - offset
            if start >= 0 and start + len(word) <= len(sentence) and all(
                    tokens[sentence[start + k]].text == char for k, char in enumerate(word)):
                return True
        return False

    def _particle_words(self) -> dict[str, list[tuple[str, int]]]:
        """Each particle character with the words it stands in, and where."""
        if self._particle_index is None:
            index: dict[str, list[tuple[str, int]]] = {}
            for word in self.rules.particle_words:
                for offset, char in enumerate(word):
                    if char in self.rules.particles:
                        index.setdefault(char, []).append((word, offset))
            self._particle_index = index
        return self._particle_index

    def _verb_particle(self, sentence: list[int], position: int, tokens: list[_Token]) -> bool:
        """A particle right after a content word may be part of it: "turn off the alerts", "set up
        the server", "move on" lose their sense without it (the words alone cannot tell a verb's
        particle from a noun's preposition, so "report on sales" keeps its "on" too); after a form of
        "be" it says a state ("the server is down": ``be_forms``)."""
        norm = tokens[sentence[position]].norm
        if norm not in self.rules.verb_particles and norm not in self.rules.verb_particles_at_end:
            return False
        at = position - 1  # back to the word before, across spaces and object pronouns ("turn it off")
        while at >= 0 and (tokens[sentence[at]].kind == "space" or tokens[sentence[at]].norm in self.rules.verb_objects):
            at -= 1
        if at < 0 or tokens[sentence[at]].kind not in _WORDLIKE:
            return False
        after = _next_token(sentence, position + 1, 1, tokens)
        if tokens[sentence[at]].norm in self.rules.be_forms:  # a state: "the server is down", "the flag is on."
            return norm in self.rules.verb_particles or after is None or after.kind not in _WORDLIKE
        if self._function_only(tokens[sentence[at]]):
            return False
        if norm in self.rules.verb_particles or not _stems(tokens[sentence[at]].norm).isdisjoint(self.rules.particle_verbs):
            return True  # "set up", "turn on the alerts", "logged in with SSO"
        return after is None or after.kind not in _WORDLIKE or after.norm in self.rules.keep_words  # "Move on.", "log in again"

    def _clause_starts(self, sentence: list[int], words: list[int], tokens: list[_Token]) -> list[int]:
        """Positions in ``words`` where a clause begins: the sentence start, after a separator,
        and after the interjections and the name that open a sentence ("Hey Maria, I'm…")."""
        starts = {0}
        separator_seen = False
        word_positions = {index: position for position, index in enumerate(words)}
        for index in sentence:
            if tokens[index].text in _SEPARATORS:
                separator_seen = True
            elif index in word_positions and separator_seen:
                starts.add(word_positions[index])
                separator_seen = False
        return sorted(starts)

    def _question_inversion(self, sentence: list[int], tokens: list[_Token]) -> tuple[int, ...]:
        """An auxiliary before its subject opening a sentence ("Did this run?", "Are there limits to…"):
        the word order that makes it a question; notes without it say something else ("run?")."""
        words = [i for i in sentence if tokens[i].kind in _WORDLIKE][:2]
        if len(words) == 2 and tokens[words[0]].norm in self.rules.question_auxiliaries \
                and tokens[words[1]].norm in self.rules.question_subjects:
            return tuple(words)
        return ()

    def _subject_auxiliary(self, words: list[int], start: int, tokens: list[_Token]) -> list[tuple[int, ...]]:
        rules = self.rules
        if start >= len(words):
            return []
        first = tokens[words[start]]
        if start + 1 < len(words) and first.norm in rules.clause_subjects and (
                tokens[words[start + 1]].norm in rules.auxiliaries):
            return [(words[start], words[start + 1])]
        subject, apostrophe, rest = first.norm.partition("'")
        if apostrophe and subject in rules.clause_subjects and f"'{rest}" in rules.auxiliaries:
            return [(words[start],)]
        return []

    def _function_only(self, token: _Token) -> bool:
        """Grammar only: every part a function word (``I'm``, ``of``), a particle (``的``); no negation."""
        if token.norm in self.rules.never_drop:
            return False
        if token.kind == "cjk":
            return token.norm in self.rules.particles
        if token.text.isupper() and token.text != "I":
            return False  # a word in capitals is a label, an acronym, stressed ("WHAT IT DOES") or a choice's letter ("A or B")
        parts = _PARTS.findall(token.norm)
        if "'" in token.norm:  # a contraction is what its first word is: "it's" like "it", "what's" like "what"
            parts = parts[:1]
        if token.norm in self.rules.keep_words or any(p in self.rules.keep_words for p in parts):
            return False
        return all(p in self.rules.function_words for p in parts)

    def _openers(self, sentence: list[int], words: list[int], tokens: list[_Token],
                 names: frozenset[str]) -> list[tuple[int, ...]]:
        """Interjections and the addressee's name that open or close a sentence."""
        rules = self.rules
        spans: list[tuple[int, ...]] = []
        position = 0
        opened = False
        where: dict[int, int] | None = None  # positions, found once a phrase opens it ("ok ok ok …" is one sentence)
        while position < len(words):
            span = self._match_phrase(words, tokens, position, rules.interjections)
            if span and where is None:
                where = {token: at for at, token in enumerate(sentence)}
            if not span or self._glued(sentence, words[position], words[position + span - 1], tokens, where):
                break
            spans.append(tuple(words[position:position + span])
                         + self._trailing_separator(sentence, words[position + span - 1], tokens, where))
            position += span
            opened = True
        if position < len(words) and self._vocative(tokens, words[position], names) and (
                opened or tokens[words[position]].norm in names):
            after = self._trailing_separator(sentence, words[position], tokens, where)
            if after or position + 1 == len(words):
                spans.append((words[position], *after))
        if len(words) >= 2:
            last = words[-1]
            before = sentence.index(last)
            previous = [t for t in sentence[:before] if tokens[t].kind != "space"]
            # the sentence's last word ("Thanks, Maria."), not a term before a number or a note that
            # closes it ("…，LDL-C 3.44（略高）": a name in address ends the sentence)
            ends = not any(tokens[t].kind in _WORDLIKE for t in sentence[before + 1:])
            # and one of the conversation's names: a capitalised last word is as often a list's last
            # item ("are Alice, Bob.")
            if ends and previous and tokens[previous[-1]].text in _SEPARATORS and tokens[last].norm in names:
                spans.append((previous[-1], last))
        return spans

    @staticmethod
    def _trailing_separator(sentence: list[int], index: int, tokens: list[_Token],
                            where: dict[int, int] | None = None) -> tuple[int, ...]:
        position = (where[index] if where is not None else sentence.index(index)) + 1
        while position < len(sentence) and tokens[sentence[position]].kind == "space":
            position += 1
        if position < len(sentence) and tokens[sentence[position]].text in _SEPARATORS:
            return (sentence[position],)
        return ()

    def _fillers(self, sentence: list[int], words: list[int], tokens: list[_Token]) -> list[tuple[int, ...]]:
        rules = self.rules
        spans: list[tuple[int, ...]] = []
        where = {token: at for at, token in enumerate(sentence)}  # positions, found once (a long text is one sentence)
        position = 0
        while position < len(words):
            i = words[position]
            token = tokens[i]
            span = self._match_phrase(words, tokens, position, rules.hedges)
            if span and self._at_boundary(sentence, words[position], words[position + span - 1], tokens, where) \
                    and not self._glued(sentence, words[position], words[position + span - 1], tokens, where):
                spans.append(tuple(words[position:position + span])
                             + self._trailing_separator(sentence, words[position + span - 1], tokens, where))
                position += span
                continue
            following = words[position + 1] if position + 1 < len(words) else None
            after_negation = position > 0 and tokens[words[position - 1]].norm in rules.never_drop
            if following is not None and not after_negation and (
                    token.norm in rules.intensifiers
                    or (token.norm in rules.intensifiers_before_evaluative
                        and tokens[following].norm in rules.phatic_words)) \
                    and not self._glued(sentence, i, i, tokens, where):  # "好" of "好好学习"
                spans.append((i,))
            position += 1
        return spans

    @staticmethod
    def _glued(sentence: list[int], first: int, last: int, tokens: list[_Token],
               where: dict[int, int] | None = None) -> bool:
        """A Chinese phrase that runs on into a letter on either side (Chinese, kana: "好" of "好きな")
        may be part of a word: "成" (OK) opens "成熟稳定", "行" opens "行业", "那个" opens "那个方案" (that plan). Chinese
        has no spaces, so only a separator, a space or the sentence's edge says where a phrase stops."""
        if tokens[first].kind != "cjk" and tokens[last].kind != "cjk":
            return False
        start, end = (where[first], where[last]) if where is not None else (sentence.index(first), sentence.index(last))
        return (tokens[first].kind == "cjk" and start > 0 and tokens[sentence[start - 1]].text[-1:].isalpha()) or (
            tokens[last].kind == "cjk" and end + 1 < len(sentence) and tokens[sentence[end + 1]].text[:1].isalpha())

    @staticmethod
    def _at_boundary(sentence: list[int], first: int, last: int, tokens: list[_Token], where: dict[int, int]) -> bool:
        """A separator or the sentence's edge on one side (the nearest token that is not a space)."""
        before = _next_token(sentence, where[first] - 1, -1, tokens)
        after = _next_token(sentence, where[last] + 1, 1, tokens)
        edge_before = before is None or before.text in _SEPARATORS
        edge_after = after is None or after.kind == "end" or after.text in _SEPARATORS
        return edge_before or edge_after

    def is_phatic(self, text: str, names: Iterable[str] = ()) -> bool:
        """Every sentence of ``text`` is a greeting, thanks, acknowledgement or reaction."""
        tokens = self._tokenize(text)
        name_set = frozenset(_norm(n) for n in names)
        by_sentence: dict[int, list[int]] = {}
        for i, token in enumerate(tokens):
            by_sentence.setdefault(token.sentence, []).append(i)
        sentences = [s for s in by_sentence.values() if any(tokens[i].kind in _WORDLIKE for i in s)]
        return bool(sentences) and all(self._is_phatic(s, tokens, name_set) for s in sentences)

    # -- the ladder --------------------------------------------------------------------------
    def ladder(self, text: str, names: Iterable[str] = ()) -> list[tuple[str, str]]:
        """``[(level, shortened text)]``: each strictly shorter than the one before, none empty."""
        tokens = self._tokenize(text)
        name_set = frozenset(_norm(n) for n in names)
        counts = Counter(u for t in tokens for u in set(t.units))
        total = len(counts)
        floor = math.ceil((1 - self.rules.max_content_loss) * total - 1e-9)
        kept_distinct = total
        removed = [False] * len(tokens)
        results: list[tuple[str, str]] = []
        previous = text
        candidates = self._candidates(tokens, name_set)
        for level, name in enumerate(LEVELS):
            for candidate_level, span in candidates:
                if candidate_level != level or any(removed[i] for i in span):
                    continue
                if any(tokens[i].norm in self.rules.never_drop for i in span if tokens[i].kind in _WORDLIKE):
                    continue
                lost_units = Counter(u for i in span for u in tokens[i].units)
                lost = sum(1 for u, n in lost_units.items() if counts[u] - n <= 0)
                if kept_distinct - lost < floor:
                    continue
                for i in span:
                    removed[i] = True
                for u, n in lost_units.items():
                    counts[u] -= n
                kept_distinct -= lost
            shortened = _render(tokens, removed)
            if shortened and len(shortened) < len(previous):
                if not self._faithful(text, shortened, counts):
                    break  # this level would mangle it: the forms found so far are all there is
                results.append((name, shortened))
                previous = shortened
        return results

    def _faithful(self, original: str, shortened: str, kept: Counter[str]) -> bool:
        """Whether ``shortened`` still holds every content unit the ladder kept, and the original's
        Markdown structure (headings, bullets, numbering, emphasis, links, code) unchanged."""
        if not {u for u, n in kept.items() if n > 0} <= set(self.content_units(shortened)):
            return False
        return not _MARKUP.search(original) or markdown_shape(shortened) == markdown_shape(original)


#: a character or line start that may be Markdown, or a blank line between paragraphs (a text
#: without any is one paragraph of plain prose, whose structure shortening cannot change)
_MARKUP = LazyPattern(r"[*_`#>|~\[<]|^[ \t]*(?:[-+*]|\d+[.)])[ \t]|\n[ \t]*\n", re.MULTILINE)  # compiled when first shortening


def markdown_shape(text: str) -> list[tuple[str, ...]]:
    """The structure a CommonMark parser reads in ``text``: every block and inline token but plain
    text, with its markup, list numbers, link targets and code (what shortening must not change)."""
    shape: list[tuple[str, ...]] = []
    for token in _markdown().parse(text):
        if token.type == "inline":
            for child in token.children or []:
                if child.type != "text":
                    shape.append((child.type, child.markup, str(child.attrs.get("href", "")),
                                  child.content if child.type in ("code_inline", "html_inline") else ""))
        else:
            shape.append((token.type, token.markup, token.info,
                          token.content if token.type in ("fence", "code_block", "html_block") else ""))
    return shape


@functools.cache
def _markdown() -> Any:
    from markdown_it import MarkdownIt  # only for texts that may hold Markdown

    return MarkdownIt("commonmark")


def _stems(word: str) -> set[str]:
    """What a verb may be without its inflection, enough to find it in a short list: "logging",
    "logged" → log; "moving" → move; "carried", "tries" → carry, try; "signs" → sign."""
    found = {word}
    for ending in ("ing", "ed", "es", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 2:
            base = word[: len(word) - len(ending)]
            found |= {base, base + "e"}
            if len(base) >= 3 and base[-1] == base[-2]:  # logged, plugging
                found.add(base[:-1])
            if base.endswith("i"):  # carried, tries
                found.add(base[:-1] + "y")
    return found


def _next_token(sentence: list[int], at: int, step: int, tokens: list[_Token]) -> _Token | None:
    """The first token from ``at`` on (``step`` -1: backwards) that is not a space, or None at the edge."""
    while 0 <= at < len(sentence):
        if tokens[sentence[at]].kind != "space":
            return tokens[sentence[at]]
        at += step
    return None


def _glues(left: str, right: str) -> bool:
    return left.isascii() and right.isascii() and left.isalnum() and right.isalnum()


#: separators and blanks that end a text, read from the start of their run only (each dash of a long
#: run of dashes was a start read to the run's end: 40,000 took 29 s)
_DANGLING_SEPARATOR = r"(?<![ \t])[ \t]*(?<![,;:，；：、\-–—])[,;:，；：、\-–—]+[ \t]*$"


def _render(tokens: list[_Token], removed: list[bool]) -> str:
    """Join what is kept, tidy the punctuation left behind, re-capitalize sentence starts."""
    first_word: dict[int, int] = {}
    for i, token in enumerate(tokens):
        if token.kind in _WORDLIKE:
            first_word.setdefault(token.sentence, i)
    parts: list[str] = []
    started: set[int] = set()
    gap = False
    for i, token in enumerate(tokens):
        if removed[i]:
            gap = True
            continue
        text = token.text
        if gap and parts and _glues(parts[-1][-1:], text[:1]):
            parts.append(" ")  # "1的1" must not become the number 11
        gap = False
        if token.kind in _WORDLIKE and token.sentence not in started:
            started.add(token.sentence)
            original = tokens[first_word[token.sentence]].text
            if i != first_word[token.sentence] and original[:1].isupper() and text[:1].islower():
                text = text[:1].upper() + text[1:]
        if token.kind == "end" and token.sentence not in started:
            continue  # the sentence it closed is gone
        parts.append(text)
    joined = "".join(parts)
    joined = re.sub(r"[ \t]{2,}", " ", joined)
    # a separator left at a sentence's start goes ("e.g.," and "a.m.," end no sentence: "(e.g.pre-defined")
    joined = re.sub(r"(^|(?<!\.[A-Za-z])[.!?。！？]|\n)([ \t]*)(?:[,;:，；：、\-–—][ \t]*)+", r"\1\2", joined)
    joined = re.sub(r"[ \t]+([,.!?;:)\]。！？，；：、])", r"\1", joined)
    joined = re.sub(r"([(\[])[ \t]+", r"\1", joined)
    joined = re.sub(r"([,;:，；：、])(?:\s*[,;:，；：、])+", r"\1", joined)
    joined = re.sub(r"[,;:，；：、]+\s*([.!?。！？])", r"\1", joined)
    # a separator left dangling by what was cut after it; one the text itself ends with (a colon that
    # introduces the list below it) stays
    last = next((i for i in range(len(tokens) - 1, -1, -1) if tokens[i].kind not in ("space", "end")), None)
    if last is None or removed[last] or tokens[last].text not in _SEPARATORS:
        joined = re.sub(_DANGLING_SEPARATOR, "", joined)
    joined = re.sub(r"(?m)^[ \t]+|[ \t]+$", "", joined)
    return joined.strip()
