"""Regular expressions compiled only as far as a text needs: a rule set holds dozens, some large,
and compiling them all costs a process several times the interpreter's start, while a heartbeat
that reads one appended message meets few of them (:class:`LazyPattern`).

A pattern is read (:class:`_BranchReader`, never compiled to be read) for the literals each of its
top-level alternatives needs in every match; a text is compared with them case-insensitively, folded
character by character (:func:`_fold`), which is exactly how ``re.IGNORECASE`` compares plain
characters; a text with a character whose case-insensitive match is special is always searched.
"""

from __future__ import annotations

import functools
import re

from apollo.cache import DiskMemo


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


def fold_needles(literals: tuple[str, ...]) -> tuple[str, ...] | None:
    folded = [_fold(literal) for literal in literals]
    return None if any(f is None for f in folded) else tuple(sorted({f for f in folded if f is not None}))


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

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """``re.Pattern.search``; from ``pos`` (the whole text is prefiltered: a needle before it
        only means the search is made)."""
        program = self._program(text)
        return program.search(text, pos) if program is not None else None

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
    folded = [(branch, fold_needles(literals) if literals else None, stand_in)
              for branch, literals, stand_in in branches]
    if all(literals is None for _, literals, _ in folded):
        return None
    return tuple(folded)


#: reading a pattern's alternatives costs more than compiling a part of it: kept on disk
_alternatives_of = DiskMemo("pattern-literals", _read_alternatives, max_entries=1024)
