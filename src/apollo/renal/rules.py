"""The classifier's rules as data: signals (lexicons and patterns) and settings, from TOML.

Built-in files live in ``apollo/renal/rules/`` (social, intent, agent, classify); users extend
them with files of the same shape listed in ``renal.rule_files`` and have the final word with
``renal.keep_patterns`` / ``renal.drop_patterns`` (Q5). The engine knows signal *names* and what
each means; every word and pattern is here, compiled once per configuration.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from apollo.cache import DiskMemo, toml_loads
from apollo.config import Config, file_stamps
from apollo.errors import ConfigError
from apollo.records import slotted
from apollo.rulefile import convert, overlay, read_toml, rule_files

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: the built-in rule files, beside this module (read directly: importlib.resources costs a heartbeat
#: more than reading them)
RULES_FOLDER = Path(__file__).parent / "rules"
BUILTIN_FILES = ("social.toml", "intent.toml", "agent.toml", "classify.toml")

#: signals the engine gives a meaning to; a user file may add *social* signals of its own
ENGINE_SIGNALS = frozenset({
    "acknowledgement", "receipt", "backchannel", "assent", "filler", "appreciation", "laughter", "thanks", "thanks_reply",
    "reassurance", "greeting", "ping", "closing", "wish", "compliance", "vocative", "request",
    "question", "wh_question", "tag_question", "preference", "profile", "preference_hint", "decision", "choice", "supersede",
    "proposal", "task", "completion", "continuation", "unknown", "negativity", "rejection", "agreement", "apology",
    "fragment", "open_offer", "heartbeat_poll", "heartbeat_ok", "no_reply", "todo_open", "todo_done",
})
WHOLE_TEXT_SIGNALS = frozenset({"heartbeat_poll", "heartbeat_ok", "no_reply", "todo_open", "todo_done"})
_ROLES = {"user", "assistant", "system", "tool"}


def normalize_phrase(text: str) -> str:
    """How phrases and clauses are compared: lower case, single spaces."""
    return " ".join(text.lower().split())


def _is_plain_char(char: str) -> bool:
    """Lower-casing ``char`` on its own agrees with how an ``re.IGNORECASE`` search compares it:
    one character, which no other character's lower case stands for ('ſ', 'ı', 'ς' and their
    like do, 'İ' lowers to two characters)."""
    lower = char.lower()
    return len(lower) == 1 and char.upper().lower() == lower and lower.upper().lower() == lower


#: texts up to this long keep their folded copy (a clause is searched for many signals in turn);
#: a longer one is folded again for each, so that no long copy is held
_FOLDED_KEPT_CHARS = 4096


def _folded(text: str) -> str | None:
    """``text`` lower-cased character by character, or None when it holds a character whose
    case-insensitive match is special (then only the regex can tell)."""
    return _folded_kept(text) if len(text) <= _FOLDED_KEPT_CHARS else _fold(text)


@functools.lru_cache(maxsize=64)
def _folded_kept(text: str) -> str | None:
    return _fold(text)


def _fold(text: str) -> str | None:
    if text.isascii():
        return text.lower()
    if not all(_is_plain_char(char) for char in set(text) if not char.isascii()):
        return None
    return "".join([char.lower() for char in text])


def _needles(literals: list[str] | None) -> tuple[str, ...] | None:
    """Literals folded like a text is, or None when one holds a special character (no prefilter)."""
    return _folded_needles(tuple(literals)) if literals else None


def _fold_needles(literals: tuple[str, ...]) -> tuple[str, ...] | None:
    folded = [_fold(literal) for literal in literals]
    return None if any(f is None for f in folded) else tuple(sorted({f for f in folded if f is not None}))


#: folding every phrase of the lexicons character by character is a good part of loading the
#: rules on every heartbeat: kept on disk like the lexicons' patterns
_folded_needles = DiskMemo("needles", _fold_needles, max_entries=512)


#: how many texts a pattern's needles are looked for in before it is compiled all the same
PREFILTER_TEXTS = 256
#: how many times a pattern is compiled in part (the alternatives a text may hold, and then more of
#: them for a later text) before it is compiled whole
PARTIAL_COMPILES = 2


class LazyPattern:
    """A rule's regular expression, compiled when first searched: the rules hold about forty,
    some large, and compiling them all costs a process several times the interpreter's start,
    while a heartbeat that classifies one appended message meets only a few.

    ``needles``, when given, are strings one of which every match contains (case-insensitively):
    a text holding none of them cannot match, and the regex is not compiled to say so. Each
    top-level alternative has such strings of its own, read from the pattern (:func:`_read_alternatives`):
    only the alternatives a text may hold are compiled, the others stand aside as expressions that
    never match, so the search finds what the whole pattern finds (an alternative that cannot
    match anywhere in the text changes no search of it)."""

    __slots__ = ("pattern", "flags", "needles", "_compiled", "_prefiltered", "_alternatives", "_kept", "_partial",
                 "_partials")

    def __init__(self, pattern: str, flags: int = 0, needles: tuple[str, ...] | None = None):
        self.pattern = pattern
        self.flags = flags
        self.needles = needles
        self._compiled: re.Pattern[str] | None = None
        self._prefiltered = 0
        #: the alternatives as :func:`_read_alternatives` reads them; () until first needed
        self._alternatives: tuple[tuple[str, tuple[str, ...] | None, str], ...] | None = ()
        #: which alternatives ``_partial`` holds
        self._kept: frozenset[int] = frozenset()
        self._partial: re.Pattern[str] | None = None
        self._partials = 0

    @property
    def is_compiled(self) -> bool:
        return self._compiled is not None or self._partial is not None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def _program(self, text: str) -> re.Pattern[str] | None:
        """What ``text`` is searched with: None when no needle occurs in it (a sure "no match"),
        else the expression, or the part of it whose alternatives the text may hold. A pattern
        searched in many texts is compiled whole after all (a whole session's check): past
        :data:`PREFILTER_TEXTS` texts the prefilter would cost more than the compiled search."""
        if self._compiled is not None or self._prefiltered >= PREFILTER_TEXTS:
            return self.compiled()
        self._prefiltered += 1
        folded = _folded(text)
        if folded is None:
            return self.compiled()
        if self.needles is not None and not any(needle in folded for needle in self.needles):
            return None
        if self._alternatives == ():
            self._alternatives = None if self.flags & re.VERBOSE else _alternatives_of(self.pattern)
        if self._alternatives is None:
            return self.compiled()
        kept = self._kept.union(index for index, (_, needles, _) in enumerate(self._alternatives)
                                if needles is None or any(needle in folded for needle in needles))
        if kept == self._kept:
            return self._partial
        if len(kept) == len(self._alternatives) or self._partials == PARTIAL_COMPILES:
            return self.compiled()
        self._kept, self._partials = kept, self._partials + 1
        self._partial = re.compile("|".join(branch if index in kept else stand_in
                                            for index, (branch, _, stand_in) in enumerate(self._alternatives)), self.flags)
        return self._partial

    def cannot_match(self, text: str) -> bool:
        """True when ``text`` holds no needle of the pattern nor of any of its alternatives."""
        return self._program(text) is None

    def search(self, text: str) -> re.Match[str] | None:
        program = self._program(text)
        return program.search(text) if program is not None else None

    def match(self, text: str) -> re.Match[str] | None:
        program = self._program(text)
        return program.match(text) if program is not None else None

    def fullmatch(self, text: str) -> re.Match[str] | None:
        program = self._program(text)
        return program.fullmatch(text) if program is not None else None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LazyPattern) and (self.pattern, self.flags) == (other.pattern, other.flags)

    def __hash__(self) -> int:
        return hash((self.pattern, self.flags))

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {self.flags!r})"


class _Unsplittable(Exception):
    """A construct the splitter does not read (a back reference, a global or verbose flag): the
    pattern is compiled whole."""


#: escapes that stand for one character
_CHAR_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


class _BranchReader:
    """Reads a regular expression far enough to know its top-level alternatives, the literals one
    of which every match of each contains, and each one's capturing groups (a branch set aside
    leaves its groups in place, empty, so the others keep their numbers)."""

    def __init__(self, source: str):
        self.source = source
        self.at = 0
        self.groups: list[str | None] = []

    def split(self) -> list[tuple[str, tuple[str, ...] | None, str]]:
        """(branch, literals or None, its stand-in) for each top-level alternative."""
        branches = []
        while True:
            start, groups_before = self.at, len(self.groups)
            literals = self._sequence()
            groups = self.groups[groups_before:]
            stand_in = "(?!)" + "".join(f"(?P<{name}>)" if name else "()" for name in groups)
            branches.append((self.source[start:self.at], literals, stand_in))
            if self.at == len(self.source):
                return branches
            if self.source[self.at] != "|":
                raise _Unsplittable
            self.at += 1

    def _alternatives(self) -> tuple[str, ...] | None:
        """Inside a group: one of the alternatives' literals is in every match (None: some has none)."""
        found: set[str] | None = set()
        while True:
            literals = self._sequence()
            if literals is None:
                found = None
            elif found is not None:
                found.update(literals)
            if self.at < len(self.source) and self.source[self.at] == "|":
                self.at += 1
                continue
            if self.at == len(self.source):
                raise _Unsplittable  # an unclosed group
            self.at += 1  # the ")"
            return tuple(sorted(found)) if found is not None else None

    def _sequence(self) -> tuple[str, ...] | None:
        """Up to the next ``|`` or ``)`` of this level: the most telling literals every match holds."""
        best: tuple[str, ...] | None = None
        run: list[str] = []
        source = self.source
        while self.at < len(source) and source[self.at] not in "|)":
            char, literals, width = self._atom()
            least = self._quantifier()
            if not width:
                continue  # an anchor or a look-around: no character between the run's ones
            if least is None and char is not None:
                run.append(char)
                continue
            if run:
                best = _better(best, ("".join(run),))
                run = []
            needed = (char,) if char is not None else literals
            if least != 0 and needed:
                best = _better(best, needed)
        if run:
            best = _better(best, ("".join(run),))
        return best

    def _atom(self) -> tuple[str | None, tuple[str, ...] | None, bool]:
        """The next atom: (the one character it matches, or the literals a group needs, consumes)."""
        source = self.source
        char = source[self.at]
        self.at += 1
        if char == "(":
            return self._group()
        if char == "[":
            self._skip_class()
            return None, None, True
        if char == "\\":
            return self._escape()
        if char in "^$":
            return None, None, False
        if char == ".":
            return None, None, True
        if char in "*+?" or (char == "{" and self._counts(self.at - 1) is not None):
            raise _Unsplittable  # a quantifier with nothing before it
        return char, None, True

    def _group(self) -> tuple[str | None, tuple[str, ...] | None, bool]:
        source = self.source
        if not source.startswith("?", self.at):
            self.groups.append(None)
            return None, self._alternatives(), True
        self.at += 1
        for opening, consumes in ((":", True), (">", True), ("=", False), ("!", False), ("<=", False), ("<!", False)):
            if source.startswith(opening, self.at):
                self.at += len(opening)
                literals = self._alternatives()
                return None, literals if consumes else None, consumes
        if source.startswith("P<", self.at):
            end = source.index(">", self.at)
            self.groups.append(source[self.at + 2:end])
            self.at = end + 1
            return None, self._alternatives(), True
        flags, colon, _ = source[self.at:].partition(":")
        if colon and flags and all(c in "aiLmsu-" for c in flags):  # scoped flags (case is folded anyway)
            self.at += len(flags) + 1
            return None, self._alternatives(), True
        raise _Unsplittable  # a back reference, a condition, a comment, a global or verbose flag

    def _skip_class(self) -> None:
        source, at = self.source, self.at
        if source.startswith("^", at):
            at += 1
        if source.startswith("]", at):
            at += 1
        while at < len(source) and source[at] != "]":
            at += 2 if source[at] == "\\" else 1
        if at >= len(source):
            raise _Unsplittable
        self.at = at + 1

    def _escape(self) -> tuple[str | None, tuple[str, ...] | None, bool]:
        if self.at >= len(self.source):
            raise _Unsplittable
        char = self.source[self.at]
        self.at += 1
        if char in "bBAZ":
            return None, None, False
        if char in "dDwWsS":
            return None, None, True
        if char in _CHAR_ESCAPES:
            return _CHAR_ESCAPES[char], None, True
        if char in _HEX_ESCAPES:
            digits = self.source[self.at:self.at + _HEX_ESCAPES[char]]
            self.at += len(digits)
            return chr(int(digits, 16)), None, True
        if char.isalnum():
            raise _Unsplittable  # a back reference, an octal or named character
        return char, None, True

    def _quantifier(self) -> int | None:
        """The least count of the quantifier at hand, None when there is none."""
        source = self.source
        if self.at >= len(source):
            return None
        char = source[self.at]
        if char in "*?":
            least = 0
            self.at += 1
        elif char == "+":
            least = 1
            self.at += 1
        elif char == "{" and (counts := self._counts(self.at)) is not None:
            least, self.at = counts
        else:
            return None
        if self.at < len(source) and source[self.at] in "?+":  # lazy or possessive
            self.at += 1
        if self.at < len(source) and source[self.at] in "*+?{":
            raise _Unsplittable  # a repeated quantifier: rather not guess
        return least

    def _counts(self, at: int) -> tuple[int, int] | None:
        """For the ``{`` at ``at``: the least count and where the quantifier ends, None when it is a
        literal brace."""
        source = self.source
        end = source.find("}", at)
        body = source[at + 1:end] if end != -1 else ""
        low, comma, high = body.partition(",")
        if end == -1 or not (low.isdigit() or (comma and not low)) or not (high.isdigit() or not high):
            return None
        return int(low or 0), end + 1


def _better(found: tuple[str, ...] | None, other: tuple[str, ...]) -> tuple[str, ...]:
    """The more telling of two sets of literals: the longer shortest one, then the fewer."""
    if found is None:
        return other
    return found if (min(map(len, found)), -len(found)) >= (min(map(len, other)), -len(other)) else other


def _read_alternatives(pattern: str) -> tuple[tuple[str, tuple[str, ...] | None, str], ...] | None:
    """:class:`LazyPattern`'s alternatives of ``pattern`` (those of the group it is, when it is one
    non-capturing group), with their literals folded like a text; None when there is nothing to
    set aside (no alternative with literals, or a construct the reader does not read). A pattern of
    one alternative with literals is one a text without them cannot match."""
    try:
        branches = _BranchReader(pattern).split()
        if len(branches) == 1 and pattern.startswith("(?:"):
            whole = _BranchReader(pattern)
            whole.at = 3
            whole._alternatives()
            if whole.at == len(pattern):
                branches = _BranchReader(pattern[3:-1]).split()
    except (_Unsplittable, ValueError, IndexError):
        return None
    folded = [(branch, _fold_needles(literals) if literals else None, stand_in)
              for branch, literals, stand_in in branches]
    if all(literals is None for _, literals, _ in folded):
        return None
    return tuple(folded)


#: reading a pattern's alternatives costs more than compiling a part of it: kept on disk
_alternatives_of = DiskMemo("pattern-literals", _read_alternatives, max_entries=1024)


class Branches:
    """A regular expression ``A|B`` searched as ``A`` and ``B`` on their own, finding what it would:
    the match that starts first, ``A``'s at equal starts (``A`` holds no capturing group, so ``B``'s
    groups keep their numbers). A signal's lexicon is ``A``, prefiltered by its phrases, and its
    patterns are ``B``: a text holding no phrase then compiles only the patterns, not the
    lexicon's large prefix tree beside them."""

    __slots__ = ("pattern", "flags", "needles", "first", "rest")

    def __init__(self, first: LazyPattern, rest: LazyPattern):
        self.pattern = f"{first.pattern}|{rest.pattern}"
        self.flags = first.flags
        self.needles = None  # the whole may match any text
        self.first, self.rest = first, rest

    @property
    def is_compiled(self) -> bool:
        return self.first.is_compiled or self.rest.is_compiled

    def search(self, text: str) -> re.Match[str] | None:
        first, rest = self.first.search(text), self.rest.search(text)
        return first if first is not None and (rest is None or first.start() <= rest.start()) else rest

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Branches) and (self.first, self.rest) == (other.first, other.rest)

    def __hash__(self) -> int:
        return hash((self.first, self.rest))

    def __repr__(self) -> str:
        return f"Branches({self.first!r}, {self.rest!r})"


@slotted(frozen=True)
class Signal:
    """One compiled signal: how to recognise it in a clause and what it implies."""

    name: str
    about: str
    social: bool
    answers: bool
    agrees: bool
    opens: bool
    anywhere: bool
    attached: bool
    confirmation: bool
    allow_question: bool
    after: frozenset[str]
    confidence: float
    roles: frozenset[str] | None
    whole: bool
    phrases: frozenset[str]
    regex: LazyPattern | Branches | None

    def match_whole(self, norm: str) -> bool:
        """The normalized clause *is* this signal (a listed phrase, or a pattern found in it);
        for signals with ``whole = true``."""
        return norm in self.phrases or (self.regex is not None and self.regex.search(norm) is not None)

    def search(self, text: str) -> re.Match[str] | None:
        return self.regex.search(text) if self.regex is not None else None

    def applies_to(self, role: str) -> bool:
        return self.roles is None or role in self.roles


@slotted(frozen=True, eq=False)
class RenalRules:
    """Every signal, the settings, and the user's keep/drop patterns, ready to match (hashed by identity)."""

    signals: dict[str, Signal]
    social: tuple[Signal, ...]
    #: every social phrase, to the first social signal listing it (filler excluded)
    social_phrases: dict[str, Signal]
    #: social signals with patterns, in file order (filler excluded)
    social_patterns: tuple[Signal, ...]
    settings: dict[str, Any]
    normalize: dict[str, Any]
    keywords: dict[str, Any]
    keep: tuple[re.Pattern[str], ...]
    drop: tuple[re.Pattern[str], ...]
    sources: tuple[str, ...]
    #: lines a message quotes rather than says (code, logs, terminal output)
    pasted: tuple[LazyPattern, ...] = ()
    #: lines that open a pasted terminal session, which runs to the next blank line
    pasted_blocks: tuple[LazyPattern, ...] = ()
    #: a message that opens with a terminal prompt is that terminal pasted, across blank lines
    pasted_session_runs_on: bool = False

    def __getitem__(self, name: str) -> Signal:
        return self.signals[name]


_BOUNDARY = "\\b"  # a trie token standing for a word boundary, not a character


def _is_word_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


def _trie_pattern(phrases: list[str]) -> str:
    """Phrases as one regex shaped like a prefix tree: a search then tries each position once per
    shared prefix instead of once per phrase (a flat alternation of hundreds of phrases is slow)."""
    trie: dict[str, dict] = {}
    for phrase in phrases:
        node = trie
        for token in [*phrase, *([_BOUNDARY] if _is_word_char(phrase[-1]) else [])]:
            node = node.setdefault(token, {})
        node[""] = {}

    def build(node: dict[str, dict]) -> str:
        branches = [(token if token == _BOUNDARY else re.escape(token)) + build(child)
                    for token, child in sorted(node.items()) if token]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


def _phrases_pattern(phrases: list[str]) -> str:
    """English phrases start at a word boundary (and end at one after a letter); Chinese anywhere."""
    latin = [p for p in phrases if _is_word_char(p[0])]
    other = [p for p in phrases if not _is_word_char(p[0])]
    parts = ([_BOUNDARY + _trie_pattern(latin)] if latin else []) + ([_trie_pattern(other)] if other else [])
    return "|".join(f"(?:{part})" for part in parts)


#: the lexicons' patterns, built once and kept (building a prefix tree of every phrase costs a
#: heartbeat as much as the interpreter's start)
_lexicon_pattern = DiskMemo("lexicon", lambda phrases: _phrases_pattern(list(phrases)), max_entries=512)


def _signal_data(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    """A signal's fields from its layered table, as plain data: its expression as the arguments of
    its :class:`LazyPattern` (``[pattern, flags, needles]``), or of the two :class:`Branches` searches."""
    phrases = [normalize_phrase(p) for key in ("zh", "en", "phrases") for p in spec.get(key, []) if p.strip()]
    whole = bool(spec.get("whole", spec.get("social", False)))
    parts: list[str] = []
    if not whole and phrases:  # markers found anywhere: the phrases join the regex
        parts.append(_lexicon_pattern(tuple(sorted(set(phrases)))))
    parts.extend(f"(?:{pattern})" for pattern in spec.get("patterns", []))
    # what any match contains: a phrase found anywhere, or a literal the patterns declare they need
    needles = None if spec.get("patterns") and spec.get("requires") is None else [
        *(phrases if not whole else []), *spec.get("requires", [])]
    roles = spec.get("roles")
    # intent markers are searched over a message's clauses one per line (^ and $ per clause); agent
    # chatter is matched against the whole text, where ^ and $ mean the whole message
    flags = int(re.IGNORECASE | (0 if name in WHOLE_TEXT_SIGNALS else re.MULTILINE))
    regex: list[Any] | None = ["|".join(parts), flags, _needles(needles)] if parts else None
    if needles is None and len(parts) > 1 and not whole and phrases:  # patterns that may match anything
        regex = [[parts[0], flags, _needles(phrases)], ["|".join(parts[1:]), flags, None]]
    return {
        "name": name,
        "about": spec.get("about", name),
        "social": bool(spec.get("social", False)),
        "answers": bool(spec.get("answers", False)),
        "agrees": bool(spec.get("agrees", False)),
        "opens": bool(spec.get("opens", False)),
        "anywhere": bool(spec.get("anywhere", False)),
        "attached": bool(spec.get("attached", False)),
        "confirmation": bool(spec.get("confirmation", False)),
        "allow_question": bool(spec.get("allow_question", False)),
        "after": frozenset(spec.get("after", [])),
        "confidence": float(spec.get("confidence", 0.8)),
        "roles": frozenset(roles) if roles else None,
        "whole": whole,
        "phrases": frozenset(phrases),
        "regex": regex,
    }


def _signal(data: dict[str, Any]) -> Signal:
    regex = data.pop("regex")
    if regex is None or not isinstance(regex[0], list):
        return Signal(**data, regex=LazyPattern(*regex) if regex is not None else None)
    first, rest = regex
    return Signal(**data, regex=Branches(LazyPattern(*first), LazyPattern(*rest)))


def _check_signal(name: str, spec: Any, where: str, known: set[str], text: str | None) -> None:
    from apollo.renal.rule_schema import SignalSpec

    if not isinstance(spec, dict):
        raise ConfigError(f"[signal.{name}] must be a table", where=where)
    convert(spec, SignalSpec, where, text=text, what=f"[signal.{name}]")
    for pattern in spec.get("patterns", []):
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ConfigError(f"[signal.{name}]: invalid pattern {pattern!r} ({exc})", where=where) from None
    if "confidence" in spec and not 0.0 <= float(spec["confidence"]) <= 1.0:
        raise ConfigError(f"[signal.{name}].confidence must be between 0 and 1", where=where)
    unknown_roles = set(spec.get("roles", [])) - _ROLES
    if unknown_roles:
        raise ConfigError(f"[signal.{name}].roles: unknown role(s) {sorted(unknown_roles)}", where=where,
                          hint=f"roles are {', '.join(sorted(_ROLES))}")
    if name not in known and name not in ENGINE_SIGNALS and not spec.get("social"):
        raise ConfigError(
            f"unknown signal '{name}'", where=where,
            hint="a new signal must say `social = true` (the classifier has no other meaning for it); "
                 f"known signals: {', '.join(sorted(ENGINE_SIGNALS))}",
        )


def _apply_layer(specs: dict[str, dict[str, Any]], settings: dict[str, Any], data: dict[str, Any], where: str,
                 *, builtin: bool, text: str | None = None) -> None:
    """Add one file's signals (lists extend, scalars override) and settings; other tables are
    other engines' (condense.toml shares ``renal.rule_files``) and left to them."""
    for name, spec in data.get("signal", {}).items():
        if not builtin:
            _check_signal(name, spec, where, set(specs), text)
        target = specs.setdefault(name, {})
        if spec.get("patterns") or "requires" in spec:
            # patterns that declare nothing may match any text: the signal then has no prefilter
            known = target.get("requires", None if target.get("patterns") else [])
            target["requires"] = None if known is None or spec.get("requires") is None else [
                *known, *spec["requires"]]
        for key, value in spec.items():
            if key != "requires":
                target[key] = [*target.get(key, []), *value] if key in ("zh", "en", "phrases", "patterns") else value
    if "classify" in data:
        if builtin:
            settings.update(data["classify"])
        else:
            settings.update(overlay(settings, data["classify"], "apollo.renal.rule_schema:ClassifySettings", where,
                                    text=text, prefix="classify"))


def _compile_user_patterns(patterns: tuple[str, ...], key: str, where: str) -> tuple[re.Pattern[str], ...]:
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern, re.IGNORECASE))
        except re.error as exc:
            raise ConfigError(f"{key}: invalid regular expression {pattern!r} ({exc})", where=where) from None
    return tuple(compiled)


_EFFECTS = {"stance", "fact", "task", "question", "close_task", "proposal", "report"}
_CATEGORIES = {"decision", "preference", "task", "question", "process", "noise"}


def _check_rows(settings: dict[str, Any]) -> None:
    """The verdict rows (``[[classify.turns]]``, ``from_user``, ``from_agent``) name known categories
    and effects, and a message always finds a row: the last of ``from_user`` and ``from_agent`` asks
    for nothing. (Their keys and types are :class:`~apollo.renal.rule_schema.VerdictRow`'s.)"""
    for table in ("turns", "kinds", "from_user", "from_agent"):
        rows = settings.get(table)
        where = f"[[classify.{table}]]"
        if not isinstance(rows, list) or not rows:
            raise ConfigError(f"{where} must be a non-empty list of rows", where="classify rules")
        for row in rows:
            if {row["category"], row.get("answered", "process")} - _CATEGORIES or row.get("effect", "stance") not in _EFFECTS:
                raise ConfigError(f"{where}: unknown category or effect", where=row["rule"])
        if table in ("from_user", "from_agent") and ("when" in rows[-1] or "unless" in rows[-1]):
            raise ConfigError(f"{where}: the last row must apply to every message (no when/unless)",
                              where=rows[-1]["rule"])


def _layered(user_files: tuple[str, ...]) -> dict[str, Any]:
    """The built-in rule files extended by ``user_files``, checked: every signal's fields
    (:func:`_signal_data`) and the settings, as plain data."""
    specs: dict[str, dict[str, Any]] = {}
    settings: dict[str, Any] = {}
    for name in BUILTIN_FILES:
        _apply_layer(specs, settings, toml_loads((RULES_FOLDER / name).read_text(encoding="utf-8")),
                     f"apollo/renal/rules/{name}", builtin=True)
    for file in user_files:
        data, text = read_toml(Path(file))
        _apply_layer(specs, settings, data, file, builtin=False, text=text)
    _check_rows(settings)
    missing = ENGINE_SIGNALS - specs.keys()
    if missing:
        raise ConfigError(f"rule files lack signals {sorted(missing)}", where="apollo/renal/rules")
    return {"signals": {name: _signal_data(name, spec) for name, spec in specs.items()}, "settings": settings}


#: layering the rule files and reading every signal's phrases costs a heartbeat more than the
#: interpreter's start: kept on disk by the files' texts
_layered_rules = DiskMemo("renal-rules", _layered, max_entries=16)


def _texts_digest(user_files: tuple[str, ...]) -> bytes | None:
    """The digest of the rule files' names and texts (None when one cannot be read: then the
    rules are built again, and say what is wrong with it)."""
    import hashlib

    digest = hashlib.sha256()
    for path in (*(RULES_FOLDER / name for name in BUILTIN_FILES), *map(Path, user_files)):
        try:
            data = path.read_bytes()
        except OSError:
            return None
        name = str(path).encode("utf-8", "surrogatepass")
        digest.update(b"%d:%s%d:" % (len(name), name, len(data)))
        digest.update(data)
    return digest.digest()


@functools.lru_cache(maxsize=8)
def _build(user_files: tuple[str, ...], keep: tuple[str, ...], drop: tuple[str, ...], patterns_from: str,
           stamps: tuple[tuple[str, int, int], ...] = ()) -> RenalRules:
    """Compile the rules once per process and set of inputs (``stamps``, the rule files' sizes
    and times, is only part of the cache key)."""
    key = _texts_digest(user_files)
    layered = _layered_rules.keyed(key, user_files) if key is not None else _layered(user_files)
    signals = {name: _signal(data) for name, data in layered["signals"].items()}
    settings = layered["settings"]
    # compiled when a line could match them (a heartbeat's one-line question rarely can); a user's
    # rule file is checked now, so that a bad pattern fails where it is loaded
    pasted = tuple(LazyPattern(p) for p in settings["pasted"]["line_patterns"])
    pasted_blocks = tuple(LazyPattern(p) for p in settings["pasted"].get("block_patterns", ()))
    for pattern in (*pasted, *pasted_blocks) if user_files else ():
        pattern.compiled()
    social = tuple(s for s in signals.values() if s.social)
    phrases: dict[str, Signal] = {}
    for signal in social:
        if signal.name != "filler":
            for phrase in signal.phrases:
                phrases.setdefault(phrase, signal)
    return RenalRules(
        signals=signals,
        social=social,
        social_phrases=phrases,
        social_patterns=tuple(s for s in social if s.regex is not None and s.name != "filler"),
        settings={k: v for k, v in settings.items() if not isinstance(v, dict)},
        normalize=settings["normalize"],
        keywords=settings["keywords"],
        keep=_compile_user_patterns(keep, "renal.keep_patterns", patterns_from),
        drop=_compile_user_patterns(drop, "renal.drop_patterns", patterns_from),
        sources=(*(f"apollo/renal/rules/{n}" for n in BUILTIN_FILES), *user_files),
        pasted=pasted,
        pasted_blocks=pasted_blocks,
        pasted_session_runs_on=settings["pasted"].get("opening_session_runs_on", False),
    )


def load_files(user_files: tuple[str, ...] = ()) -> RenalRules:
    """The built-in rules extended by these rule files (no keep/drop patterns): for engines that
    share the lexicons (the filter's condenser)."""
    files = tuple(str(Path(f).resolve()) for f in user_files)
    return _build(files, (), (), "", file_stamps(files))


def load(config: Config | None = None) -> RenalRules:
    """The rules for ``config`` (an :class:`apollo.config.Config`; ``None`` = built-in rules only).

    ``renal.rule_files`` are resolved against the directory of the config file that named them.
    """
    if config is None:
        return _build((), (), (), "", ())  # the key load_files(()) uses: one compilation for both
    user_files = rule_files(config, "renal.rule_files")
    keep, drop = tuple(config.get("renal.keep_patterns")), tuple(config.get("renal.drop_patterns"))
    patterns_from = config.source_of("renal.keep_patterns")
    if patterns_from == "default":
        patterns_from = config.source_of("renal.drop_patterns")
    # without keep/drop patterns this is the rule set load_files builds too: one compilation for both
    return _build(user_files, keep, drop, patterns_from if keep or drop else "", file_stamps(user_files))
