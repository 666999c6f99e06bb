"""Concentration (浓缩) and reabsorption (重吸收): the filter's rules as data and their engine.

- the recent tail (the last user turns) is what the agent is doing now: it stays whole;
- old tool output becomes its first line and the lines later messages mention, with a marker saying
  how much was cut; long arguments of old tool calls keep their head;
- waste that still carries a fact (a date, a number, a path, a name…) is rescued.
Numbers and patterns live in ``rules/filter.toml``; user rule files extend them. The stream that
applies them to each element (heartbeat pairs, repeats, the tail) is :mod:`apollo.renal.fates`.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

from apollo import jsonline
from apollo.cache import toml_loads
from apollo.config import file_stamps
from apollo.errors import ConfigError
from apollo.patterns import LazyPattern
from apollo.records import slotted
from apollo.renal.condense import Condenser, CondenseRules, load_rules
from apollo.renal.rules import RULES_FOLDER
from apollo.rulefile import overlay, read_toml
from apollo.transcript.fences import closes, opening_fence
from apollo.transcript.model import Element, Kind, Role
from apollo.words import DIGEST_BYTES, cjk_runs, digest64

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from apollo.config import Config

_NUMBER = r"\d+(?:[.,:]\d+)*"  # compiled (and kept by re) for the first merge: a heartbeat makes none
#: the filter's lists a user's rule file adds to rather than replaces
FILTER_EXTENDS = ("reabsorb.patterns", "anchors.specific")


@slotted(frozen=True)
class FilterRules:
    settings: dict[str, Any]
    reabsorb: tuple[LazyPattern, ...]
    reabsorb_min_words: int
    condense: CondenseRules
    anchors: Anchors

    def __getitem__(self, key: str) -> Any:
        return self.settings[key]


def _builtin() -> dict[str, Any]:
    text = (RULES_FOLDER / "filter.toml").read_text(encoding="utf-8")
    return toml_loads(text)


@functools.lru_cache(maxsize=8)
def load(user_files: tuple[str, ...] = (), stamps: tuple[tuple[str, int, int], ...] = ()) -> FilterRules:
    """Built-in ``rules/filter.toml`` and ``condense.toml``, extended by the user's rule files
    (read once per process while ``stamps``, their sizes and times, stay the same)."""
    data = _builtin()["filter"]
    for file in user_files:
        document, text = read_toml(Path(file))
        if "filter" in document:
            data = overlay(data, document["filter"], "apollo.renal.rule_schema:FilterSettings", file, text=text,
                           prefix="filter", extend=FILTER_EXTENDS)
    settings = {k: v for k, v in data.items() if not isinstance(v, dict)}
    reabsorb, anchors = data["reabsorb"], data["anchors"]
    # compiled when a message needs them (a heartbeat's appended question rarely does); a user's
    # rule file is checked now, so that a bad pattern is named where it is written
    patterns = tuple(LazyPattern(p, re.IGNORECASE) for p in reabsorb["patterns"])
    try:
        for pattern in patterns if user_files else ():
            pattern.compiled()
        anchor_rules = Anchors(re.compile(anchors["token"]),
                               re.compile("|".join(f"(?:{p})" for p in anchors["specific"])),
                               int(anchors["min_chars"]), int(anchors["cjk_gram"]), float(anchors["max_share"]))
    except re.error as exc:
        raise ConfigError(f"filter.reabsorb / filter.anchors: invalid pattern ({exc})", where="rule files") from None
    _check_templates(settings)
    condense = load_rules([Path(f) for f in user_files]) if user_files else load_rules()
    return FilterRules(settings, patterns, int(reabsorb["min_words"]), condense, anchor_rules)


#: the markers a rule file may reword, with the fields each is given: a stray field is named when the
#: rules are read, not found by the first cut (in the context engine, every turn over its budget)
_TEMPLATES = {"tool_marker_en": ("lines", "tokens"), "tool_marker_zh": ("lines", "tokens"), "tool_recall_en": ("id",),
              "tool_recall_zh": ("id",), "tool_argument_marker": ("chars",), "budget_opening_marker_en": ("chars",),
              "budget_opening_marker_zh": ("chars",)}


def _check_templates(settings: dict[str, Any]) -> None:
    for key, fields in _TEMPLATES.items():
        try:
            settings[key].format(**dict.fromkeys(fields, "1"))
        except (KeyError, IndexError, ValueError) as exc:
            raise ConfigError(f"filter.{key}: {settings[key]!r} is not a template of {', '.join(fields)} "
                              f"({type(exc).__name__}: {exc})", where="rule files") from None


def load_for(config: Config | None) -> FilterRules:
    """The filter's rules for ``config``: the built-in ones and the rule files it lists (``renal.rule_files``)."""
    from apollo.renal import rules as classifier_rules

    user_files = tuple(classifier_rules.load(config).sources[len(classifier_rules.BUILTIN_FILES):])
    return load(user_files, file_stamps(user_files))


# -- the recent tail ------------------------------------------------------------------------------
def tail_start(elements: Sequence[Element], turns: int) -> int:
    """Index (in ``elements``) where the last ``turns`` user turns begin.

    Fewer turns than that: the whole conversation is recent. No user turn at all (a memory
    file, notes): there is no conversation to be in the middle of, so no tail (``len``).
    """
    if turns <= 0:
        return len(elements)
    seen = 0
    for position in range(len(elements) - 1, -1, -1):
        element = elements[position]
        if element.role is Role.USER and element.kind is Kind.TEXT:
            seen += 1
            if seen == turns:
                return position
    return 0 if seen else len(elements)


# -- old tool output --------------------------------------------------------------------------------
@slotted(frozen=True)
class Anchors:
    """The specific tokens (identifiers, numbers, paths, Chinese phrases) by which a later message
    refers to a line of an old tool output (``[filter.anchors]``)."""

    token: re.Pattern[str]
    #: the ``specific`` patterns as one alternation
    specific: re.Pattern[str]
    min_chars: int
    cjk_gram: int
    max_share: float

    def of(self, text: str) -> set[str]:
        """The anchors ``text`` holds, lower-cased (a token longer than a line is kept is no mention)."""
        found = {word.lower() for word in self.specific_tokens(text)}
        n = self.cjk_gram
        for run in (match.group() for match in cjk_runs(text)):
            found.update(run[i:i + n] for i in range(len(run) - n + 1))
        return found


    def specific_tokens(self, text: str) -> list[str]:
        """The tokens of ``text`` that name something specific, as written."""
        return [word for word in self.token.findall(text)
                if self.min_chars <= len(word) <= _LONGEST_ANCHOR and self.specific.search(word)]


#: longer tokens (a base64 blob, a minified line) are no mention of anything
_LONGEST_ANCHOR = 200
_NEWLINE = re.compile("\n")


@slotted()
class LineIndex:
    """Which lines of one long tool output hold which anchors, and the lines later messages mention
    (line number -> how many lines share the rarest anchor that names it, and that anchor)."""

    lines: int
    mentioned: dict[int, tuple[int, str]]
    #: anchor -> its lines: Chinese phrases at once (they are few), tokens only once a later message
    #: asks about them (reading every token of every old output was most of a check's time)
    anchors: dict[str, list[int]]
    #: the output's distinct tokens, lower-cased: None when read back from a saved check, which keeps
    #: only their digests (``_digests``)
    _tokens: frozenset[str] | None
    #: the output's Chinese phrases: with the tokens, what an anchor can be
    phrases: frozenset[str]
    #: the tokens as a saved check keeps them: the sorted :func:`apollo.words.digest64` of each, joined. Read
    #: back, they are made a set only when a later message names an anchor, and saved again as read
    _digests: bytes | None = None
    _digest_set: frozenset[bytes] | None = None
    _lower: str | None = None
    _starts: list[int] | None = None
    _lines: list[str] | None = None

    @classmethod
    def of(cls, text: str, anchors: Anchors) -> LineIndex:
        phrases: dict[str, list[int]] = {}
        n, number, at = anchors.cjk_gram, 0, 0
        for run in cjk_runs(text):
            number += text.count("\n", at, run.start())
            at = run.start()
            word = run.group()
            for i in range(len(word) - n + 1):
                where = phrases.setdefault(word[i:i + n], [])
                if not where or where[-1] != number:
                    where.append(number)
        tokens = frozenset(word.lower() for word in set(anchors.token.findall(text)))
        return cls(text.count("\n") + 1, {}, phrases, tokens, frozenset(phrases))

    def asked(self, said: set[str]) -> set[str]:
        """The tokens of ``said`` this output holds. Read back from a saved check, by their digests:
        another token with the same 64-bit digest would only be searched for in the text and found
        on no line (:meth:`_lines_of` reads the lines themselves)."""
        if self._tokens is not None:
            return said & self._tokens
        if self._digest_set is None:
            digests = self._digests or b""
            self._digest_set = frozenset(digests[at:at + DIGEST_BYTES] for at in range(0, len(digests), DIGEST_BYTES))
        return {word for word in said if digest64(word) in self._digest_set}

    def __getstate__(self) -> tuple[Any, ...]:
        """What a saved check keeps: the anchors found, never the output's text (the caches). The
        tokens (thousands in a long session) go as their digests, one bytes object: no token of an
        output is kept in clear, so none needs the secret detectors when it is saved (a path or an id
        of 20 characters made the save load them), and one object costs the save's hook one call. A
        tuple, not a dictionary of names: each name is one more call of the save's hook."""
        digests = self._digests
        if digests is None:
            assert self._tokens is not None
            digests = b"".join(sorted(map(digest64, self._tokens)))
        return self.lines, self.mentioned, self.anchors, digests, self.phrases

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.lines, self.mentioned, self.anchors, self._digests, self.phrases = state
        self._tokens = self._digest_set = self._lower = self._starts = self._lines = None

    def mention(self, said: set[str], anchors: Anchors, text: str) -> bool:
        """Note the lines of ``text`` (the output this indexes) holding an anchor of a later
        message; whether any was new."""
        asked = self.asked(said)
        if self.phrases:
            asked |= said & self.phrases
        if not asked:
            return False
        limit = max(1, int(self.lines * anchors.max_share)) if self.lines > 8 else self.lines
        for anchor in asked:
            if anchor not in self.anchors:
                self.anchors[anchor] = self._lines_of(anchor, anchors, limit, text)
        new = False
        for anchor in sorted(asked):  # sorted: a tie goes the same way every run
            where = self.anchors[anchor]
            if len(where) > limit:
                continue
            for number in where:
                known = self.mentioned.get(number)
                if known is None or len(where) < known[0]:
                    new = new or known is None
                    self.mentioned[number] = (len(where), anchor)
        return new

    def _lines_of(self, anchor: str, anchors: Anchors, limit: int, text: str) -> list[int]:
        """The lines where ``anchor`` is an anchor (a whole token, specific as written), found by
        searching the text for it; past ``limit`` lines the rest do not matter (too common)."""
        if self._lower is None:
            self._lower = text.lower()  # the same lines (lower() never adds or drops one)
            self._starts = [0, *(m.end() for m in _NEWLINE.finditer(self._lower))]
            self._lines = text.split("\n")
        lower, starts, lines = self._lower, self._starts, self._lines
        assert starts is not None and lines is not None
        found: list[int] = []
        at = lower.find(anchor)
        while at >= 0 and len(found) <= limit:
            number = bisect.bisect_right(starts, at) - 1
            if any(word.lower() == anchor for word in anchors.specific_tokens(lines[number])):
                found.append(number)
            if number + 1 >= len(starts):
                break
            at = lower.find(anchor, starts[number + 1])
        return found


def trim_output(text: str, index: LineIndex | None, rules: FilterRules) -> tuple[str, str]:
    """(head, mentioned lines) of an old tool output: its first ``tool_head_lines`` lines and, in
    order, the ``referenced_lines`` most specifically mentioned later, each cut to ``tool_line_chars``."""
    settings = rules.settings
    head_n, width = settings["tool_head_lines"], settings["tool_line_chars"]
    lines = text.split("\n", head_n)
    head = [_clip(line, width, None) for line in lines[:head_n] if line.strip()]
    chosen: list[tuple[int, str]] = []
    if index is not None and index.mentioned:
        best = sorted((rank, number, anchor) for number, (rank, anchor) in index.mentioned.items() if number >= head_n)
        picked = sorted((number, anchor) for _, number, anchor in best[:settings["referenced_lines"]])
        if picked:
            all_lines = text.split("\n")
            chosen = [(n, _clip(all_lines[n], width, anchor)) for n, anchor in picked if n < len(all_lines)]
    return "\n".join(head), "\n".join(line for _, line in chosen)


def _clip(line: str, width: int, anchor: str | None) -> str:
    """``line`` cut to ``width`` characters around ``anchor`` (its start when there is none)."""
    if len(line) <= width:
        return line
    at = line.lower().find(anchor) if anchor else 0
    start = max(0, min(at - width // 3, len(line) - width)) if at > 0 else 0
    return ("…" if start else "") + line[start:start + width] + ("…" if start + width < len(line) else "")


def output_marker(rules: FilterRules, lang: str, lines: int, tokens: int) -> str:
    template = rules.settings["tool_marker_zh" if lang == "zh" else "tool_marker_en"]
    return template.format(lines=lines, tokens=f"{tokens:,}")


def join_trimmed(head: str, marker: str, mentioned: str) -> str:
    return "\n".join(part for part in (head, marker, mentioned) if part)


def cut_old_output(text: str, said_later: set[str], rules: FilterRules, lang: str, tokens: int, pointer: str = "") -> str:
    """An old output as the filter cuts it, all at once: its first line, the lines an anchor of
    ``said_later`` (what the user and the agent said after it) names, the marker (``tokens``: the
    whole output's) and ``pointer`` after it (where the whole output is)."""
    index = LineIndex.of(text, rules.anchors)
    index.mention(said_later, rules.anchors, text)
    head, mentioned = trim_output(text, index, rules)
    marker = output_marker(rules, lang, index.lines, tokens)
    return join_trimmed(head, _pointed(marker, pointer), mentioned)


def _pointed(marker: str, pointer: str) -> str:
    """A cut's marker with the way back to the whole (the engine's recall pointer) after it, if any."""
    return f"{marker} {pointer}" if pointer else marker


#: where a sentence or a line ends, what a cut text may end at (a Latin mark only before a space: "3.5")
SENTENCE_END = LazyPattern(r"[。！？!?]+\s*|[.;:]\s+|\n")
#: what continues the character before it: a zero-width joiner and the emoji/text variation selectors
_JOINED = "\u200d\ufe0e\ufe0f"
#: counts of shrinking prefixes an opening tries before it gives up: each one shrinks by the share
#: the last one was over, so two or three are the rule
_OPENING_TRIES = 8


def opening(text: str, room: int, count: Callable[[str], int], rules: FilterRules, lang: str) -> tuple[str, int] | None:
    """The start of ``text``, ending at a line's or a sentence's end, then the marker saying how much
    was cut, in at most ``room`` tokens (with its count); None when fewer than
    ``budget_opening_tokens`` of the text would be left. Linear in the text, whatever its lines:
    a few counts of prefixes, each guessed from the text's own characters per token."""
    settings = rules.settings
    template = settings["budget_opening_marker_zh" if lang == "zh" else "budget_opening_marker_en"]
    marker_tokens = count(template.format(chars=f"{len(text):,}"))
    if room - marker_tokens < settings["budget_opening_tokens"]:
        return None
    end = len(text) * (room - marker_tokens) // max(count(text), 1)
    for _ in range(_OPENING_TRIES):
        head, still_open = _opening_end(text, min(end, len(text) - 1))
        if not head:
            return None
        fence = f"\n{still_open}" if still_open else ""  # the code it cuts into ends before the marker
        cut = f"{head}{fence}\n\n{template.format(chars=f'{len(text) - len(head):,}')}"
        tokens = count(cut)
        if tokens <= room:
            return (cut, tokens) if tokens - marker_tokens >= settings["budget_opening_tokens"] else None
        end = len(head) * room * 9 // (tokens * 10)
    return None


def _opening_end(text: str, end: int) -> tuple[str, str]:
    """``text[:end]`` cut back to its last line or sentence end in its second half (else its last
    space there, else where it is, ``end < len(text)``), outside an open code fence when it can be:
    words cut mid-way or a fence left open would read as something the speaker wrote. With the
    fence still open at its end ("" when none)."""
    head = text[:end]
    half = end // 2
    stops = [m.end() for m in SENTENCE_END.compiled().finditer(head) if m.end() > half]
    if stops:
        head = head[:stops[-1]]
    elif head.rfind(" ") > half:
        head = head[:head.rfind(" ")]
    else:  # where it is, but not inside a character made of several (an accent, a vowel sign, an emoji)
        while end > 0 and _continues(text[end - 1], text[end]):
            end -= 1
        head = text[:end]
    still_open, closed = _fences(head)
    if still_open and 2 * closed >= len(head):  # inside a fence: end after the last line that leaves
        head, still_open = head[:closed], ""  # none open, when that keeps half of it (else it is closed after it)
    return head.rstrip(), still_open


def _continues(before: str, char: str) -> bool:
    """Whether ``char`` belongs to the character ``before`` starts: a mark (an accent, a Thai or
    Devanagari vowel sign), a joiner or what it joins, a variation selector, a skin tone, the second
    half of a flag."""
    flag = "\U0001f1e6" <= before <= "\U0001f1ff" and "\U0001f1e6" <= char <= "\U0001f1ff"
    return (unicodedata.category(char)[0] == "M" or char in _JOINED or before == "\u200d"
            or "\U0001f3fb" <= char <= "\U0001f3ff" or flag)


def _fences(text: str) -> tuple[str, int]:
    """The fence still open at the end of ``text`` ("" when none: what closes it otherwise), and
    where the last whole line after which no fence is open ends (0: none)."""
    opened, end, at = "", 0, 0
    for line in text.splitlines(keepends=True):
        at += len(line)
        if not opened:
            opened = opening_fence(line)
        elif closes(line, opened):
            opened = ""
        if not opened and line.endswith("\n"):
            end = at
    return opened, end


def cut_arguments(text: str, rules: FilterRules, pointer: str = "") -> str | None:
    """An old tool call's arguments (a JSON object) with every long string cut to its head (an edit's
    replaced text to nothing, its new text left whole) and ``pointer`` after each marker (where the
    whole call is), or None when nothing is cut (or the arguments are no JSON object)."""
    settings = rules.settings
    limit, keep, marker = (settings["tool_argument_chars"], settings["tool_argument_head_chars"],
                           settings["tool_argument_marker"])
    if len(text) <= limit:
        return None
    try:
        data = jsonline.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    replaced, kept = frozenset(settings["tool_replaced_arguments"]), frozenset(settings["tool_kept_arguments"])
    changed = False

    def shorten(value: Any, name: str = "") -> Any:
        nonlocal changed
        if isinstance(value, str) and len(value) > limit and name not in kept:
            changed = True
            head = "" if name in replaced else value[:keep]
            said = marker.format(chars=f"{len(value) - len(head):,}")
            return (head + "\n" if head else "") + _pointed(said, pointer)
        if isinstance(value, dict):
            return {k: shorten(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [shorten(v) for v in value]
        return value

    cut = shorten(data)
    return jsonline.dumps(cut) if changed else None


def numbers(text: str) -> frozenset[str]:
    """The numbers a message states: a merge may drop a message only if the one it joins says them all."""
    return frozenset(re.findall(_NUMBER, text))


# -- reabsorption -----------------------------------------------------------------------------------
def carries_fact(text: str, rules: FilterRules, condenser: Condenser, names: frozenset[str], *,
                 words: bool = True) -> str | None:
    """Why a message marked as waste must be kept (a fact it carries), or None; ``words=False``:
    only a specific fact (a reabsorb pattern) counts, not the number of content words."""
    for pattern in rules.reabsorb:
        match = pattern.search(text)
        if match:
            return match.group().strip()
    if not words:
        return None
    social = rules.condense.phatic_words
    specific = [w for w in condenser.content_units(text) if w not in social and w not in names and not w.isdigit()]
    if len(specific) >= rules.reabsorb_min_words:
        return " ".join(sorted(specific)[:3])
    return None


#: compiled when first needed: a heartbeat's check seldom answers a question
_SENTENCE = LazyPattern(r"[^.!?。！？\n]+[.!?。！？]*\s*")


def without_questions(text: str) -> str:
    """The text less its question sentences (what an answered question leaves behind)."""
    return "".join(s for s in _SENTENCE.compiled().findall(text) if not s.rstrip().endswith(("?", "？")))
