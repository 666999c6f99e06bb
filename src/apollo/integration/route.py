"""``apollo route``: which system and tier a user's request calls for (SPEC §3, the seeds' decision flow).

Users say the same thing many ways, in Chinese and English, politely or not, in any word
order, and sometimes say what they do *not* want. The phrasings live in ``intents.toml`` as
concepts (synonym sets) and intents (combinations of concepts); this module only normalises,
matches the longest terms, applies negation and the priority autophagy > renal > dream. Token
usage adds warnings and may suggest filtering, but never a destructive tier (Q12).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from apollo import rulefile
from apollo.errors import ConfigError, UsageError
from apollo.words import stem

if TYPE_CHECKING:
    from apollo.config import Config

SYSTEM_PRIORITY = {"autophagy": 0, "renal": 1, "dream": 2}
TIER_RANK = {"small": 1, "medium": 2, "large": 3}
CONFIRMATIONS = ("none", "single", "double")


# --------------------------------------------------------------------------- the rule file

class _Text(msgspec.Struct, forbid_unknown_fields=True):
    boundaries: list[str] = []
    fillers: list[str] = []
    ignore: list[str] = []


class _Negation(msgspec.Struct, forbid_unknown_fields=True):
    terms: list[str] = []
    reach: int | None = None


class _Concept(msgspec.Struct, forbid_unknown_fields=True):
    terms: list[str]
    kind: str = "object"


class _Intent(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    system: str = ""
    tier: str | None = None
    confirmation: str | None = None
    summary: dict[str, str] = {}
    when: list[list[str]] = []
    alone: list[str] = []
    unless: list[str] = []


class _RuleFile(msgspec.Struct, forbid_unknown_fields=True):
    text: _Text = msgspec.field(default_factory=_Text)
    negation: _Negation = msgspec.field(default_factory=_Negation)
    concepts: dict[str, _Concept] = {}
    intents: list[_Intent] = []


def _default_confirmation(system: str, tier: str | None) -> str:
    """SPEC §2.1: small = the request itself, medium = the listed items, large = twice."""
    return {"small": "none", "medium": "single", "large": "double"}.get(tier or "", "none") \
        if system == "autophagy" else "none"


@dataclass
class Intent:
    name: str
    system: str
    tier: str | None
    confirmation: str
    summary: dict[str, str]
    when: list[list[frozenset[str]]]
    alone: frozenset[str]
    unless: frozenset[str]


@dataclass
class Lexicon:
    """The merged phrasing rules, indexed for longest-match scanning."""

    index: dict[tuple[str, ...], _Entry]
    longest: int
    actions: frozenset[str]
    reach: int
    intents: list[Intent]


@dataclass
class _Entry:
    concepts: set[str] = field(default_factory=set)
    negation: bool = False
    boundary: bool = False
    filler: bool = False
    ignore: bool = False


_SHAPE_HINT = "see the built-in apollo/integration/intents.toml for the shape"


def _read_rule_file(text: str, where: str) -> _RuleFile:
    data = rulefile.parse_toml(text, where, what="phrasing file")
    return rulefile.convert(data, _RuleFile, where, text=text, what="phrasing file", hint=_SHAPE_HINT)


def _merge(files: Sequence[tuple[_RuleFile, str]]) -> Lexicon:
    """Later files add terms, concepts and intents to earlier ones (user files extend, never replace)."""
    boundaries: list[str] = []
    fillers: list[str] = []
    ignore: list[str] = []
    negations: list[str] = []
    reach = 8
    concepts: dict[str, _Concept] = {}
    intents: dict[str, _Intent] = {}
    for rules, _where in files:
        boundaries += rules.text.boundaries
        fillers += rules.text.fillers
        ignore += rules.text.ignore
        negations += rules.negation.terms
        reach = rules.negation.reach if rules.negation.reach is not None else reach
        for name, concept in rules.concepts.items():
            if name in concepts:
                concepts[name] = _Concept(concepts[name].terms + concept.terms, concepts[name].kind)
            else:
                concepts[name] = concept
        for intent in rules.intents:
            if intent.name in intents:
                known = intents[intent.name]
                known.when += intent.when
                known.alone += intent.alone
                known.unless += intent.unless
            else:
                intents[intent.name] = msgspec.structs.replace(intent)

    index: dict[tuple[str, ...], _Entry] = {}

    def add(term: str, **flag: bool) -> tuple[str, ...]:
        key = tuple(tokenize(term))
        if key:
            entry = index.setdefault(key, _Entry())
            for name, value in flag.items():
                setattr(entry, name, value)
        return key

    for term in fillers:
        add(term, filler=True)
    for term in ignore:
        add(term, ignore=True)
    for term in boundaries:
        add(term, boundary=True)
    for term in negations:
        add(term, negation=True)
    for name, concept in concepts.items():
        for term in concept.terms:
            key = add(term)
            if key:
                index[key].concepts.add(name)

    built: list[Intent] = []
    for spec in intents.values():
        where = next((w for r, w in files if any(i.name == spec.name for i in r.intents)), "intents")
        if spec.system not in SYSTEM_PRIORITY:
            raise ConfigError(f"intent {spec.name!r}: system must be one of {', '.join(SYSTEM_PRIORITY)}",
                              where=where)
        if spec.system == "autophagy" and spec.tier not in TIER_RANK:
            raise ConfigError(f"intent {spec.name!r}: an autophagy intent needs tier small, medium or large",
                              where=where)
        confirmation = spec.confirmation or _default_confirmation(spec.system, spec.tier)
        if confirmation not in CONFIRMATIONS:
            raise ConfigError(f"intent {spec.name!r}: confirmation must be one of {', '.join(CONFIRMATIONS)}",
                              where=where)
        referenced = {c for line in spec.when for group in line for c in group.split("|")}
        referenced |= set(spec.alone) | set(spec.unless)
        unknown = sorted(referenced - concepts.keys())
        if unknown:
            raise ConfigError(f"intent {spec.name!r} names unknown concepts: {', '.join(unknown)}", where=where)
        built.append(Intent(
            spec.name, spec.system, spec.tier if spec.system == "autophagy" else None, confirmation,
            spec.summary,
            [[frozenset(group.split("|")) for group in line] for line in spec.when],
            frozenset(spec.alone), frozenset(spec.unless),
        ))
    actions = frozenset(name for name, concept in concepts.items() if concept.kind == "action")
    return Lexicon(index, max((len(k) for k in index), default=1), actions, reach, built)


def _builtin_text() -> str:
    return resources.files("apollo.integration").joinpath("intents.toml").read_text(encoding="utf-8")


@functools.cache
def _builtin() -> Lexicon:
    return _merge([(_read_rule_file(_builtin_text(), "apollo/integration/intents.toml"), "built-in")])


def load_lexicon(extra_files: Iterable[Path] = ()) -> Lexicon:
    """The built-in phrasings, extended by the user's rule files (``[route] rule_files``)."""
    extra = list(extra_files)
    if not extra:
        return _builtin()
    files = [(_read_rule_file(_builtin_text(), "apollo/integration/intents.toml"), "built-in")]
    for path in extra:
        files.append((rulefile.load(path, _RuleFile, what="phrasing file", hint=_SHAPE_HINT), str(path)))
    return _merge(files)


# --------------------------------------------------------------------------- text → tokens

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"(?P<cjk>[{_CJK}])|(?P<word>[a-z0-9_*][a-z0-9_*.\-]*)|(?P<stop>[,;!?:()\"\n]|\.(?=\s|$))")
_CONTRACTIONS = [
    (re.compile(r"\blet's\b"), "let us"), (re.compile(r"\bcan't\b"), "can not"),
    (re.compile(r"\bwon't\b"), "will not"), (re.compile(r"n't\b"), " not"),
    (re.compile(r"'(ll|d|re|ve|m|s)\b"), " "),
]
CLAUSE_END = "\x00"


def normalise(text: str) -> str:
    """Full-width to half-width (NFKC), lower case, one kind of apostrophe, contractions expanded."""
    text = unicodedata.normalize("NFKC", text).lower().replace("\u2019", "'").replace("`", "'")
    text = text.replace("\u3002", ". ").replace("\u3001", " ")
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return text


def _tokens(text: str) -> list[tuple[str, str]]:
    """(key, surface) per token: one per Chinese character, one stemmed key per English word,
    CLAUSE_END at punctuation."""
    tokens: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(normalise(text)):
        if match.lastgroup == "cjk":
            tokens.append((match.group(), match.group()))
        elif match.lastgroup == "word":
            word = match.group().rstrip(".-")
            tokens.append((stem(word) if word.isalpha() else word, word))
        elif tokens and tokens[-1][0] != CLAUSE_END:
            tokens.append((CLAUSE_END, ""))
    while tokens and tokens[-1][0] == CLAUSE_END:
        tokens.pop()
    return tokens


def tokenize(text: str) -> list[str]:
    """The matching keys of ``text`` (how terms and user text are compared)."""
    return [key for key, _surface in _tokens(text)]


def _surface(tokens: Sequence[tuple[str, str]]) -> str:
    """The words as the user wrote them (Chinese characters joined, English words spaced)."""
    out = ""
    for _key, word in tokens:
        if out and (word.isascii() or out[-1].isascii()):
            out += " "
        out += word
    return out


# --------------------------------------------------------------------------- matching

@dataclass
class Term:
    """One concept term found in a clause."""

    text: str
    concepts: frozenset[str]
    negated: bool = False


@dataclass
class Clause:
    terms: list[Term] = field(default_factory=list)
    leftover: int = 0  # content tokens that are neither terms nor fillers

    def present(self, *, honour_negation: bool = True) -> set[str]:
        return {c for t in self.terms if not (honour_negation and t.negated) for c in t.concepts}

    def has_action(self, lexicon: Lexicon) -> bool:
        return any(t.concepts & lexicon.actions and not t.negated for t in self.terms)

    def has_object(self, lexicon: Lexicon) -> bool:
        return any(t.concepts - lexicon.actions for t in self.terms)


def scan(text: str, lexicon: Lexicon) -> list[Clause]:
    """Longest-match scan into clauses; negations cancel the actions that follow within reach."""
    tokens = _tokens(text)
    keys = [key for key, _surface in tokens]
    clauses = [Clause()]
    last_negation: int | None = None  # the step after the last negation
    position = step = 0  # token index; steps count terms and loose words alike, so a long term is one step
    while position < len(tokens):
        if keys[position] == CLAUSE_END:
            clauses.append(Clause())
            last_negation = None
            position += 1
            continue
        for length in range(min(lexicon.longest, len(tokens) - position), 0, -1):
            key = tuple(keys[position:position + length])
            if CLAUSE_END in key:
                continue
            entry = lexicon.index.get(key)
            if entry is None:
                continue
            clause = clauses[-1]
            if entry.concepts:
                is_action = bool(entry.concepts & lexicon.actions)
                negated = (is_action and last_negation is not None
                           and step - last_negation <= lexicon.reach)
                clause.terms.append(Term(_surface(tokens[position:position + length]), frozenset(entry.concepts),
                                         negated))
            elif entry.negation:
                last_negation = step + 1
            elif entry.boundary:
                clauses.append(Clause())
                last_negation = None
            position += length
            step += 1
            break
        else:
            clauses[-1].leftover += 1
            position += 1
            step += 1
    return [c for c in clauses if c.terms or c.leftover]


def _lend_objects(clauses: list[Clause], lexicon: Lexicon) -> None:
    """"缓存太多了，清理一下": an action with no object takes the objects of a neighbouring
    clause that named objects but asked for nothing."""
    for index, clause in enumerate(clauses):
        if not clause.has_action(lexicon) or clause.has_object(lexicon):
            continue
        for neighbour in (index - 1, index + 1):
            if 0 <= neighbour < len(clauses):
                other = clauses[neighbour]
                if other.has_object(lexicon) and not other.has_action(lexicon):
                    clause.terms.extend(t for t in other.terms if not t.concepts & lexicon.actions)
                    break


def _fires(intent: Intent, clause: Clause, lexicon: Lexicon, *, honour_negation: bool = True) -> bool:
    present = clause.present(honour_negation=honour_negation)
    if present & intent.unless:
        return False
    for line in intent.when:
        if all(group & present for group in line):
            return True
    if intent.alone and clause.leftover == 0 and present & intent.alone:
        live = [t for t in clause.terms if not (honour_negation and t.negated)]
        return all(t.concepts & intent.alone for t in live)
    return False


@dataclass
class Match:
    intent: Intent
    terms: list[str]


def match_intents(text: str, lexicon: Lexicon) -> tuple[list[Match], list[Match]]:
    """(requested, declined): intents the text asks for, and those it asks for only if negations
    are ignored — what the user said *not* to do."""
    clauses = scan(text, lexicon)
    _lend_objects(clauses, lexicon)
    requested: dict[str, Match] = {}
    declined: dict[str, Match] = {}
    for clause in clauses:
        for intent in lexicon.intents:
            if _fires(intent, clause, lexicon):
                found = requested.setdefault(intent.name, Match(intent, []))
                found.terms += [t.text for t in clause.terms if not t.negated and t.text not in found.terms]
            elif _fires(intent, clause, lexicon, honour_negation=False):
                found = declined.setdefault(intent.name, Match(intent, []))
                found.terms += [t.text for t in clause.terms if t.text not in found.terms]
    for name in requested:
        declined.pop(name, None)
    order = {intent.name: i for i, intent in enumerate(lexicon.intents)}

    def rank(m: Match) -> tuple[int, int, int]:
        return (SYSTEM_PRIORITY[m.intent.system], -TIER_RANK.get(m.intent.tier or "", 0), order[m.intent.name])

    return sorted(requested.values(), key=rank), sorted(declined.values(), key=rank)


# --------------------------------------------------------------------------- the decision

@dataclass(frozen=True)
class Thresholds:
    renal_trigger: float = 0.50
    medium_warning: float = 0.90
    large_warning: float = 0.95


@dataclass
class Decision:
    """What ``apollo route`` answers; ``to_dict()`` is exactly the documented JSON."""

    system: str
    tier: str | None
    confirmation: str
    warnings: list[str]
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"system": self.system, "tier": self.tier, "confirmation": self.confirmation,
                "warnings": list(self.warnings), "reason": self.reason}


def parse_usage(value: str | float | None) -> float | None:
    """Token usage as a fraction: ``0.93``, ``93%`` or ``93`` (a percentage when above 1)."""
    if value is None or value == "":
        return None
    text = str(value).strip()
    percent = text.endswith("%")
    try:
        number = float(text.rstrip("%").strip())
    except ValueError:
        raise UsageError(f"token usage {text!r} is not a number", hint="use e.g. --token-usage 0.93 or 93%") from None
    if percent or number > 1:
        number /= 100
    if not 0 <= number <= 1 or number != number:
        raise UsageError(f"token usage {text!r} is outside 0–100%", hint="use e.g. --token-usage 0.93 or 93%")
    return number


#: what to call an intent's outcome: by tier for autophagy, by system otherwise
_NAMES = {
    "zh": {"small": "小自噬", "medium": "中度自噬", "large": "大自噬", "renal": "apollo-renal 过滤",
           "dream": "apollo-dream 巩固"},
    "en": {"small": "small autophagy", "medium": "medium autophagy", "large": "large autophagy",
           "renal": "apollo-renal filtering", "dream": "apollo-dream consolidation"},
}
_PROTOCOL = {
    "zh": {
        "small": "🟢 低风险：请求本身即确认，执行前自动写快照",
        "medium": "🟡 中风险：先列出计划（plan id），由用户确认清单中的条目后再执行",
        "large": "🔴 高风险：双重确认——先展示计划，用户第二次须输入「{phrase}」；只想开新会话请用 /new（不删除任何内容）",
        "renal": "非破坏性：重要内容先写快照，无需确认",
        "dream": "由 apollo-dream 执行（Apollo 不包含 dream）",
    },
    "en": {
        "small": "🟢 low risk: the request itself is the confirmation; a snapshot is written first",
        "medium": "🟡 medium risk: show the plan (plan id) and let the user confirm the listed items first",
        "large": "🔴 high risk: double confirmation — show the plan, then the user must type 「{phrase}」; "
                 "for just a new session use /new (nothing is deleted)",
        "renal": "non-destructive: important content is snapshotted first; no confirmation needed",
        "dream": "run by apollo-dream (not part of Apollo)",
    },
}


def _protocol(key: str, lang: str) -> str:
    """How an outcome is confirmed; the large tier's phrase comes from the autophagy rules."""
    text = _PROTOCOL[lang][key]
    if "{phrase}" not in text:
        return text
    from apollo.autophagy.rules import confirmation_phrase

    return text.format(phrase=confirmation_phrase())


def _label(intent: Intent, lang: str) -> str:
    return _NAMES[lang][intent.tier or intent.system]


def _quote(terms: Sequence[str], lang: str) -> str:
    return " + ".join(f"「{t}」" if lang == "zh" else f"'{t}'" for t in terms)


def decide(text: str, token_usage: float | None = None, *, lexicon: Lexicon | None = None,
           thresholds: Thresholds = Thresholds(), lang: str = "zh") -> Decision:
    """The seeds' decision flow for one user message (and optionally the current token usage)."""
    if lang not in _NAMES:
        raise UsageError(f"unknown language {lang!r}", hint="use zh or en")
    lexicon = lexicon or _builtin()
    requested, declined = match_intents(text or "", lexicon)
    zh = lang == "zh"
    warnings: list[str] = []
    pct = f"{token_usage:.0%}" if token_usage is not None else ""
    if token_usage is not None and token_usage > thresholds.medium_warning:
        warnings.append(
            f"Token 使用率 {pct} > {thresholds.medium_warning:.0%}：可能需要中度自噬（先尝试 renal 过滤；执行须用户确认）"
            if zh else f"token usage {pct} > {thresholds.medium_warning:.0%}: medium autophagy may be needed "
                       f"(try renal filtering first; it needs the user's confirmation)")
    if token_usage is not None and token_usage > thresholds.large_warning:
        warnings.append(
            f"Token 使用率 {pct} > {thresholds.large_warning:.0%}：大自噬预警——仅在用户明确要求时执行（双重确认）"
            if zh else f"token usage {pct} > {thresholds.large_warning:.0%}: large autophagy warning — only if the "
                       f"user explicitly asks for it (double confirmation)")

    parts: list[str] = []
    if requested:
        chosen = requested[0]
        intent = chosen.intent
        summary = intent.summary.get(lang) or intent.name
        parts.append(f"{summary} {_quote(chosen.terms, lang)} → {_label(intent, lang)}")
        parts.append(_protocol(intent.tier or intent.system, lang))
        if requested[1:]:
            listed = ("、" if zh else ", ").join(_label(m.intent, lang) for m in requested[1:])
            parts.append(f"另外也提到：{listed}——按优先级 autophagy > renal > dream 之后再做" if zh else
                         f"also asked: {listed} — do it afterwards (priority autophagy > renal > dream)")
        system, tier, confirmation = intent.system, intent.tier, intent.confirmation
    elif token_usage is not None and token_usage > thresholds.renal_trigger:
        parts.append(f"Token 使用率 {pct} > {thresholds.renal_trigger:.0%}：先用 apollo-renal 过滤（非破坏性）；"
                     f"Token 使用率不会单独触发大自噬" if zh else
                     f"token usage {pct} > {thresholds.renal_trigger:.0%}: filter with apollo-renal first "
                     f"(non-destructive); token usage alone never triggers large autophagy")
        system, tier, confirmation = "renal", None, "none"
    else:
        parts.append("没有识别出清理或过滤请求" if zh else "no cleanup or filtering request recognised")
        system, tier, confirmation = "none", None, "none"
    if declined:
        listed = ("、" if zh else ", ").join(
            f"{_label(m.intent, lang)}（{_quote(m.terms, lang)}）" if zh else
            f"{_label(m.intent, lang)} ({_quote(m.terms, lang)})" for m in declined)
        parts.append(f"未请求（用户说了不要或已经做过）：{listed}" if zh else
                     f"not requested (the user said not to, or that it is done already): {listed}")
    return Decision(system, tier, confirmation, warnings, "；".join(parts) if zh else "; ".join(parts))


def decide_with_config(text: str, token_usage: float | None, config: Config, lang: str) -> Decision:
    """``decide`` with thresholds and extra phrasing files from Apollo's configuration."""
    section = config.section("route")
    extra = [Path(f) for f in rulefile.rule_files(config, "route.rule_files")]
    thresholds = Thresholds(section["renal_trigger"], section["medium_warning"], section["large_warning"])
    return decide(text, token_usage, lexicon=load_lexicon(extra), thresholds=thresholds, lang=lang)
