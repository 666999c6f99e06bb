"""Regular expressions compiled only as far as a text needs: a rule set holds dozens, some large,
and compiling them all costs a process several times the interpreter's start, while a heartbeat
that reads one appended message meets few of them (:class:`LazyPattern`).

A pattern is read (:class:`_BranchReader`, never compiled to be read) for the literals each of its
alternatives, at every depth, needs in every match; a text is compared with them case-insensitively, folded
character by character (:func:`_fold`), which is exactly how ``re.IGNORECASE`` compares plain
characters; a text with a character whose case-insensitive match is special is always searched.
"""

from __future__ import annotations

import functools
import re

from apollo.cache import DiskMemo

#: for type checkers only: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator


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
    # str.lower() lowers each plain character as on its own, but for a capital sigma, which it
    # lowers by its place in the word (a long tool output is folded in C, not character by character)
    return "".join([char.lower() for char in text]) if "Σ" in text else text.lower()


def fold_needles(literals: tuple[str, ...]) -> tuple[str, ...] | None:
    folded = [_fold(literal) for literal in literals]
    return None if any(f is None for f in folded) else tuple(sorted({f for f in folded if f is not None}))


#: an alternative of a pattern: where it starts and ends, the literals one of which its every match
#: holds (None: unknown), the expression that stands in for it when set aside (it never matches, and
#: has the same groups), the index of the alternative it is in (-1: none)
Alternative = tuple[int, int, "tuple[str, ...] | None", str, int]

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
    alternative (of the pattern, or of a group in it) has such strings of its own, read from the
    pattern (:func:`_read_alternatives`): only the alternatives a text may hold are compiled, the
    others are left out (or stand aside as expressions that never match, when they hold groups), so
    the search finds what the whole pattern finds (an alternative that cannot match anywhere in the
    text changes no search of it)."""

    __slots__ = ("pattern", "flags", "needles", "_compiled", "_prefiltered", "_alternatives", "_kept", "_partial",
                 "_partials")

    def __init__(self, pattern: str, flags: int = 0, needles: tuple[str, ...] | None = None):
        self.pattern = pattern
        self.flags = flags
        self.needles = needles
        self._compiled: re.Pattern[str] | None = None
        self._prefiltered = 0
        #: the alternatives as :func:`_read_alternatives` reads them; () until first needed
        self._alternatives: tuple[Alternative, ...] | None = ()
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
            self._alternatives = None if self.flags & re.VERBOSE else _alternatives_of.keyed(
                (self.pattern, _reader_version()), self.pattern)
        if self._alternatives is None:
            return self.compiled()
        holds = set(self._kept)  # an alternative may match when the text holds its literals and the one it is in may
        for index, (_, _, needles, _, around) in enumerate(self._alternatives):
            if index not in holds and (around < 0 or around in holds) and (
                    needles is None or any(needle in folded for needle in needles)):
                holds.add(index)
        kept = frozenset(holds)
        if kept == self._kept:
            return self._partial
        if len(kept) == len(self._alternatives) or self._partials == PARTIAL_COMPILES:
            return self.compiled()
        self._kept, self._partials = kept, self._partials + 1
        self._partial = re.compile(_without(self.pattern, self._alternatives, kept), self.flags)
        return self._partial

    def cannot_match(self, text: str) -> bool:
        """True when ``text`` holds no needle of the pattern nor of any of its alternatives."""
        return self._program(text) is None

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """``re.Pattern.search``; from ``pos`` (the whole text is prefiltered: a needle before it
        only means the search is made)."""
        program = self._program(text)
        return program.search(text, pos) if program is not None else None

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        program = self._program(text)
        return program.finditer(text) if program is not None else iter(())

    def sub(self, replacement: str, text: str) -> str:
        program = self._program(text)
        return program.sub(replacement, text) if program is not None else text

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
    """A construct the splitter does not read (a numbered back reference, a global or verbose flag):
    the pattern is compiled whole."""


#: escapes that stand for one character
_CHAR_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


class _BranchReader:
    """Reads a regular expression far enough to know its alternatives, at every depth (but inside
    a look-behind, whose alternatives must keep one width), the literals one of which every match
    of each contains, and each one's capturing groups (an alternative set aside leaves its groups
    in place, empty, so the others keep their numbers)."""

    def __init__(self, source: str):
        self.source = source
        self.at = 0
        self.groups: list[str | None] = []
        #: the named groups closed so far: what a back reference may name
        self.closed: set[str] = set()
        #: (start, end, literals or None, stand-in) of every alternative read
        self.found: list[tuple[int, int, tuple[str, ...] | None, str]] = []
        self._behind = 0

    def read(self) -> list[tuple[int, int, tuple[str, ...] | None, str, int]]:
        """Every alternative, outer ones before those inside them, each with the index of the one
        it is in (-1: none)."""
        self._alternatives(top=True)
        read: list[tuple[int, int, tuple[str, ...] | None, str, int]] = []
        around: list[int] = []
        for start, end, literals, stand_in in sorted(self.found, key=lambda found: (found[0], -found[1])):
            while around and read[around[-1]][1] < end:
                around.pop()
            read.append((start, end, literals, stand_in, around[-1] if around else -1))
            around.append(len(read) - 1)
        return read

    def _alternatives(self, *, top: bool = False) -> tuple[str, ...] | None:
        """A group's alternatives (the whole pattern's when ``top``): one of the alternatives'
        literals is in every match (None: some alternative has none)."""
        found: set[str] | None = set()
        while True:
            start, groups_before = self.at, len(self.groups)
            literals = self._sequence()
            if not self._behind:
                stand_in = "(?!)" + "".join(f"(?P<{name}>)" if name else "()" for name in self.groups[groups_before:])
                self.found.append((start, self.at, literals, stand_in))
            if literals is None:
                found = None
            elif found is not None:
                found.update(literals)
            if self.at < len(self.source) and self.source[self.at] == "|":
                self.at += 1
                continue
            if (self.at == len(self.source)) != top:
                raise _Unsplittable  # an unclosed group, or a ")" that closes none
            self.at += 0 if top else 1  # the ")"
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
                behind = opening.startswith("<")
                self._behind += behind
                literals = self._alternatives()
                self._behind -= behind
                return None, literals if consumes else None, consumes
        if source.startswith("P<", self.at):
            end = source.index(">", self.at)
            name = source[self.at + 2:end]
            self.groups.append(name)
            self.at = end + 1
            literals = self._alternatives()
            self.closed.add(name)
            return None, literals, True
        if source.startswith("P=", self.at):
            # a named back reference to a group closed before it (用没用: '(?P<v>…)没(?P=v)'): it
            # matches what the group matched, any text, maybe none; an alternative that holds the group
            # and is set aside could not match anywhere in the text, so neither could the group, and
            # the reference fails in the part compiled as in the whole (the stand-in keeps the name)
            end = source.index(")", self.at)
            if self._behind or source[self.at + 2:end] not in self.closed:
                # an open or unknown group: re refuses it, and so must the part; inside a look-behind,
                # whose width the stand-in for a set-aside alternative would change
                raise _Unsplittable
            self.at = end + 1
            return None, None, True
        flags, colon, _ = source[self.at:].partition(":")
        if colon and flags and all(c in "aiLmsu-" for c in flags):  # scoped flags (case is folded anyway)
            self.at += len(flags) + 1
            return None, self._alternatives(), True
        raise _Unsplittable  # a condition, a comment, a global or verbose flag

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
            raise _Unsplittable  # a numbered back reference, an octal or named character
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


def _read_alternatives(pattern: str) -> tuple[Alternative, ...] | None:
    """:class:`LazyPattern`'s alternatives of ``pattern``: where each is, its literals folded like a
    text, its stand-in, the one it is in; None when there is nothing to set aside (no alternative
    with literals, or a construct the reader does not read)."""
    try:
        alternatives = _BranchReader(pattern).read()
    except (_Unsplittable, ValueError, IndexError, RecursionError):  # nested deeper than the reader goes
        return None
    folded = [(start, end, fold_needles(literals) if literals else None, stand_in, around)
              for start, end, literals, stand_in, around in alternatives]
    if all(literals is None for _, _, literals, _, _ in folded):
        return None
    return tuple(folded)


def _without(pattern: str, alternatives: tuple[Alternative, ...], kept: frozenset[int]) -> str:
    """``pattern`` without the alternatives not ``kept``: one that holds a group leaves its stand-in
    (the groups after it keep their numbers), a group left with none holds one that never matches."""
    inside: dict[int, list[int]] = {}
    for index, alternative in enumerate(alternatives):
        inside.setdefault(alternative[4], []).append(index)

    def text(start: int, end: int, within: list[int]) -> str:
        out: list[str] = []
        at, run = start, list[int]()
        for index in [*within, None]:
            # the alternatives of one group follow each other, a "|" apart
            if run and (index is None or alternatives[index][0] != alternatives[run[-1]][1] + 1):
                parts = [text(alternatives[i][0], alternatives[i][1], inside.get(i, [])) if i in kept else alternatives[i][3]
                         for i in run if i in kept or alternatives[i][3] != "(?!)"]
                out += [pattern[at:alternatives[run[0]][0]], "|".join(parts) if parts else "(?!)"]  # "" is a kept empty one
                at, run = alternatives[run[-1]][1], []
            if index is not None:
                run.append(index)
        out.append(pattern[at:end])
        return "".join(out)

    return text(0, len(pattern), inside.get(-1, []))


#: reading a pattern's alternatives costs more than compiling a part of it: kept on disk
_alternatives_of = DiskMemo("pattern-alternatives", _read_alternatives, max_entries=1024)


@functools.cache
def _reader_version() -> bytes:
    """The digest of this module's code, part of every kept reading's key: Apollo's version alone
    names no change made to the reader between two releases."""
    import hashlib
    from pathlib import Path

    return hashlib.sha256(Path(__file__).read_bytes()).digest()
