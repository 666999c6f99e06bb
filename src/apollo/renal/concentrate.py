"""Concentration (浓缩) and reabsorption (重吸收): the filter's rules as data and their engine.

- the recent tail (the last user turns) is what the agent is doing now: it stays whole;
- old tool output becomes its head and tail, with a marker saying how much was cut;
- waste that still carries a fact (a date, a number, a path, a name…) is rescued.
Numbers and patterns live in ``rules/filter.toml``; user rule files extend them. The stream that
applies them to each element (heartbeat pairs, repeats, the tail) is :mod:`apollo.renal.fates`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apollo import regexes
from apollo.cache import toml_loads
from apollo.config import file_stamps
from apollo.errors import ConfigError
from apollo.renal.condense import Condenser, Rules, load_rules
from apollo.renal.rules import RULES_FOLDER
from apollo.transcript.model import Element, Kind, Role

_NUMBER = regexes.compile(r"\d+(?:[.,:]\d+)*")
#: where ``str.splitlines`` breaks lines besides "\n"
_OTHER_LINE_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@dataclass(frozen=True, slots=True)
class FilterRules:
    settings: dict[str, Any]
    reabsorb: tuple[re.Pattern[str], ...]
    reabsorb_min_words: int
    condense: Rules

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
    settings = {k: v for k, v in data.items() if not isinstance(v, dict)}
    reabsorb = dict(data["reabsorb"])
    documents = []
    for file in user_files:
        try:
            document = toml_loads(Path(file).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise ConfigError(f"cannot read rule file ({exc})", where=file) from None
        documents.append(document)
        for key, value in document.get("filter", {}).items():
            if key == "reabsorb" and isinstance(value, dict):
                reabsorb["patterns"] = [*reabsorb["patterns"], *value.get("patterns", [])]
                reabsorb["min_words"] = value.get("min_words", reabsorb["min_words"])
            elif key not in settings:
                raise ConfigError(f"unknown setting 'filter.{key}'", where=file,
                                  hint=f"known: {', '.join(sorted(settings))}")
            elif type(value) is not type(settings[key]) and not (
                    isinstance(settings[key], float) and isinstance(value, int)):
                raise ConfigError(f"'filter.{key}' must be {type(settings[key]).__name__}", where=file)
            else:
                settings[key] = value
    try:
        patterns = tuple(regexes.compile(p, re.IGNORECASE) for p in reabsorb["patterns"])
    except re.error as exc:
        raise ConfigError(f"filter.reabsorb: invalid pattern ({exc})", where="rule files") from None
    condense = load_rules([Path(f) for f in user_files]) if user_files else load_rules()
    return FilterRules(settings, patterns, int(reabsorb["min_words"]), condense)


def load_for(config: Any) -> FilterRules:
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


# -- tool output ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Cut:
    """A long tool output as its head and tail with a marker between them saying how much was cut.

    ``kept_tokens`` counts the head and the tail; the marker is counted in the language it is
    written in (the conversation's), so a cut output costs ``kept_tokens`` + the marker's tokens."""

    head: str | None
    tail: str | None
    lines: int
    tokens: int
    kept_tokens: int

    def marker(self, rules: FilterRules, lang: str) -> str:
        template = rules.settings["tool_marker_zh" if lang == "zh" else "tool_marker_en"]
        return template.format(lines=self.lines, tokens=self.tokens)

    def text(self, rules: FilterRules, lang: str) -> str:
        return "\n".join(p for p in (self.head, self.marker(rules, lang), self.tail) if p is not None)


def cut_output(text: str, rules: FilterRules, count: Callable[[str], int], *,
               tokens: int | None = None) -> Cut | None:
    """Head + marker + tail of a long tool output (``tokens``: its count, when known), or None when
    it is short enough to keep, or cutting would not make it shorter in either language."""
    settings = rules.settings
    only_newlines = not any(brk in text for brk in _OTHER_LINE_BREAKS)
    line_count = _line_count(text, only_newlines)
    tokens = count(text) if tokens is None else tokens
    if line_count <= settings["tool_output_max_lines"] and tokens <= settings["tool_output_max_tokens"]:
        return None
    head_n, tail_n = settings["tool_head_lines"], settings["tool_tail_lines"]
    if line_count > head_n + tail_n + 1:
        head_lines, middle, tail_lines = _split_lines(text, head_n, tail_n, only_newlines)
        head = head_lines if head_n else None
        tail = tail_lines if tail_n else None
        cut_lines, cut_tokens = line_count - head_n - tail_n, count(middle)
    else:
        head_c, tail_c = settings["tool_head_chars"], settings["tool_tail_chars"]
        if len(text) <= head_c + tail_c + 200:
            return None
        middle_text = text[head_c:len(text) - tail_c]
        head, tail = text[:head_c], text[len(text) - tail_c:]
        cut_lines, cut_tokens = middle_text.count("\n") + 1, count(middle_text)
    kept = count("\n".join(part for part in (head, tail) if part))
    widest = _widest_marker(settings["tool_marker_en"], settings["tool_marker_zh"], count)
    return Cut(head, tail, cut_lines, cut_tokens, kept) if kept + widest < tokens else None


def _line_count(text: str, only_newlines: bool) -> int:
    """``len(text.splitlines())`` without building the lines (a tool output can hold thousands);
    ``only_newlines``: the text has no line break but "\n"."""
    if not only_newlines:
        return len(text.splitlines())
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _split_lines(text: str, head_n: int, tail_n: int, only_newlines: bool) -> tuple[str, str, str]:
    """The first ``head_n`` lines, the lines between, the last ``tail_n`` lines, each joined with
    "\n" as ``str.splitlines`` cuts them; the text holds more than ``head_n + tail_n`` lines. With
    "\n" its only line break, these are slices of the text: no line is built on its own."""
    if not only_newlines:
        lines = text.splitlines()
        return ("\n".join(lines[:head_n]), "\n".join(lines[head_n:len(lines) - tail_n]),
                "\n".join(lines[len(lines) - tail_n:]))
    stop = len(text) - 1 if text.endswith("\n") else len(text)
    head_end = -1  # the newline ending the head's last line
    for _ in range(head_n):
        head_end = text.index("\n", head_end + 1)
    tail_start = stop + 1  # one past the newline before the tail's first line
    for _ in range(tail_n):
        tail_start = text.rindex("\n", 0, tail_start - 1) + 1
    return text[:head_end] if head_n else "", text[head_end + 1:tail_start - 1], text[tail_start:stop]


@functools.lru_cache(maxsize=8)
def _widest_marker(template_en: str, template_zh: str, count: Callable[[str], int]) -> int:
    """The tokens of the longest marker, in either language: whether to cut does not depend on the
    language (counted once per rules and counter, not once per tool output)."""
    return max(count(template.format(lines=10**9 - 1, tokens=10**9 - 1)) for template in (template_en, template_zh))


def numbers(text: str) -> frozenset[str]:
    """The numbers a message states: a merge may drop a message only if the one it joins says them all."""
    return frozenset(_NUMBER.findall(text))


# -- reabsorption -----------------------------------------------------------------------------------
def carries_fact(text: str, rules: FilterRules, condenser: Condenser, names: frozenset[str]) -> str | None:
    """Why a message marked as waste must be kept (a fact it carries), or None."""
    for pattern in rules.reabsorb:
        match = pattern.search(text)
        if match:
            return match.group().strip()
    social = rules.condense.phatic_words
    specific = [w for w in condenser.content_units(text) if w not in social and w not in names and not w.isdigit()]
    if len(specific) >= rules.reabsorb_min_words:
        return " ".join(sorted(specific)[:3])
    return None


_SENTENCE = regexes.compile(r"[^.!?。！？\n]+[.!?。！？]*\s*")


def without_questions(text: str) -> str:
    """The text less its question sentences (what an answered question leaves behind)."""
    return "".join(s for s in _SENTENCE.findall(text) if not s.rstrip().endswith(("?", "？")))
