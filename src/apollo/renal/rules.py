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
from apollo.patterns import LazyPattern, fold_needles
from apollo.records import slotted
from apollo.rulefile import convert, overlay, read_toml, rule_files

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection
    from typing import Any

#: the built-in rule files, beside this module (read directly: importlib.resources costs a heartbeat
#: more than reading them)
RULES_FOLDER = Path(__file__).parent / "rules"
BUILTIN_FILES = ("social.toml", "intent.toml", "agent.toml", "classify.toml")

#: signals the engine gives a meaning to; a user file may add *social* signals of its own
ENGINE_SIGNALS = frozenset({
    "acknowledgement", "receipt", "backchannel", "assent", "filler", "appreciation", "laughter", "thanks", "thanks_reply",
    "reassurance", "no_problem", "greeting", "ping", "closing", "wish", "compliance", "checking", "vocative", "request",
    "question", "unmarked_question", "wh_question", "tag_question", "indirect_question", "preference", "profile", "preference_hint", "decision", "choice", "supersede",
    "proposal", "task", "completion", "check_mark", "grading", "appraisal", "continuation", "next_step", "undone", "still_undone", "own_quotation", "unknown", "negativity", "rejection", "agreement", "apology",
    "fragment", "open_offer", "choice_question", "override", "heartbeat_poll", "heartbeat_ok", "no_reply", "todo_open", "todo_done",
})
WHOLE_TEXT_SIGNALS = frozenset({"heartbeat_poll", "heartbeat_ok", "no_reply", "todo_open", "todo_done"})
_ROLES = {"user", "assistant", "system", "tool"}


def normalize_phrase(text: str) -> str:
    """How phrases and clauses are compared: lower case, single spaces."""
    return " ".join(text.lower().split())


def _needles(literals: list[str] | None) -> tuple[str, ...] | None:
    """Literals folded like a text is, or None when one holds a special character (no prefilter)."""
    return _folded_needles(tuple(literals)) if literals else None


#: folding every phrase of the lexicons character by character is a good part of loading the
#: rules on every heartbeat: kept on disk like the lexicons' patterns
_folded_needles = DiskMemo("needles", fold_needles, max_entries=512)


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
    sound: bool
    anywhere: bool
    attached: bool
    confirmation: bool
    #: also read in a clause that is a formula ("ok，…，记住了"), which intents otherwise skip
    in_formulas: bool
    allow_question: bool
    after: frozenset[str]
    not_after: frozenset[str]
    not_after_unless: frozenset[str]
    confidence: float
    roles: frozenset[str] | None
    whole: bool
    #: read only where the engine asks for it by name (``by_name``), not in every clause
    by_name: bool
    phrases: frozenset[str]
    #: words its patterns stand for: like its phrases, never a topic word (``markers``)
    markers: frozenset[str]
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
    #: the intent signals every clause is searched for, in file order: neither social nor read by name; and those
    #: that must be a clause whole (``whole = true``)
    intents: tuple[Signal, ...] = ()
    whole_intents: tuple[Signal, ...] = ()
    #: lines a message quotes rather than says (code, logs, terminal output)
    pasted: tuple[LazyPattern, ...] = ()
    #: lines that open a pasted terminal session, which runs to the next blank line
    pasted_blocks: tuple[LazyPattern, ...] = ()
    #: the lines that open and close a quotation, set aside whole (``[classify.pasted] quotation_marks``)
    quotations: tuple[tuple[LazyPattern, LazyPattern], ...] = ()
    #: a message that opens with a terminal prompt is that terminal pasted, across blank lines
    pasted_session_runs_on: bool = False
    #: where a pasted document begins (searched in the whole message): from there to its end is the document's
    pasted_documents: tuple[LazyPattern, ...] = ()

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


def _normalized(spec: dict[str, Any], *keys: str) -> list[str]:
    """The words a signal's table lists under ``keys``, as a clause is normalized before lookup."""
    return [normalize_phrase(p) for key in keys for p in spec.get(key, []) if p.strip()]


def _signal_data(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    """A signal's fields from its layered table, as plain data: its expression as the arguments of
    its :class:`LazyPattern` (``[pattern, flags, needles]``), or of the two :class:`Branches` searches."""
    phrases = _normalized(spec, "zh", "en", "phrases")
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
        "sound": bool(spec.get("sound", False)),
        "anywhere": bool(spec.get("anywhere", False)),
        "attached": bool(spec.get("attached", False)),
        "confirmation": bool(spec.get("confirmation", False)),
        "in_formulas": bool(spec.get("in_formulas", False)),
        "allow_question": bool(spec.get("allow_question", False)),
        "after": frozenset(spec.get("after", [])),
        "not_after": frozenset(spec.get("not_after", [])),
        "not_after_unless": frozenset(spec.get("not_after_unless", [])),
        "confidence": float(spec.get("confidence", 0.8)),
        "roles": frozenset(roles) if roles else None,
        "whole": whole,
        "by_name": bool(spec.get("by_name", False)),
        "phrases": frozenset(phrases),
        "markers": frozenset(_normalized(spec, "markers")),
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


#: a named part of a pattern written once (``[fragment]``) and used in several: ``(?&name)``, which Python's
#: regular expressions do not read, so a name left unexpanded fails to compile instead of matching
_FRAGMENT_USE = r"\(\?&(\w+)\)"


def _expanded(pattern: str, fragments: dict[str, str], where: str) -> str:
    """``pattern`` with each ``(?&name)`` replaced by ``(?:`` the fragment ``)``."""
    def fragment(use: re.Match[str]) -> str:
        name = use.group(1)
        if name not in fragments:
            raise ConfigError(f"a pattern uses the fragment {name!r}, which no [fragment] table defines", where=where,
                              hint=f"fragments defined: {', '.join(sorted(fragments)) or 'none'}")
        return f"(?:{fragments[name]})"

    return re.sub(_FRAGMENT_USE, fragment, pattern)


def _add_fragments(fragments: dict[str, str], table: Any, where: str) -> None:
    """A file's ``[fragment]`` table: names of regular expressions, each of which may use those before it."""
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise ConfigError("[fragment] must be a table of strings (name = 'regular expression')", where=where)
    for name, value in table.items():
        fragments[name] = _expanded(value, fragments, where)


def _apply_layer(specs: dict[str, dict[str, Any]], settings: dict[str, Any], data: dict[str, Any], where: str,
                 fragments: dict[str, str], *, builtin: bool, text: str | None = None) -> None:
    """Add one file's fragments (to those of the files before it), signals (lists extend, scalars override) and
    settings; other tables are other engines' (condense.toml shares ``renal.rule_files``) and left to them."""
    _add_fragments(fragments, data.get("fragment", {}), where)
    for name, spec in data.get("signal", {}).items():
        if isinstance(spec, dict) and isinstance(spec.get("patterns"), list):
            spec = {**spec, "patterns": [_expanded(p, fragments, where) if isinstance(p, str) else p
                                         for p in spec["patterns"]]}
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
                target[key] = [*target.get(key, []), *value] if key in ("zh", "en", "phrases", "patterns",
                                                                        "markers") else value
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


_EFFECTS = {"stance", "fact", "task", "question", "close_task", "proposal", "report", "adopt"}
_CATEGORIES = {"decision", "preference", "task", "question", "process", "noise"}
#: what the filter may do with an element (a row's ``action`` and ``answered_action``)
ACTIONS = ("keep", "compress", "drop", "confirm")


#: the ``[classify]`` settings whose values are signal names: a misspelt one fails at load, not mid-session
SIGNAL_LISTS = ("answer_left_open_by", "answer_held_by", "left_to_user_by", "left_to_user_done_by", "question_left_by", "tasks_called_off_by",
                "self_answered_by", "outcome_failed_by", "outcome_failed_unless", "outcome_failed_after",
                "outcome_failed_after_by", "done_closes_unless", "failed_parts_by")


def _check_rows(settings: dict[str, Any], signals: Collection[str]) -> None:
    """The verdict rows (``[[classify.turns]]``, ``from_user``, ``from_agent``) name known categories,
    actions, effects and signals (``says``, ``unless_says``, :data:`SIGNAL_LISTS`, and the signals ``replies_to`` reads), and a message always finds a
    row: the last of ``from_user`` and ``from_agent`` asks for nothing. (Their keys and types are
    :class:`~apollo.renal.rule_schema.VerdictRow`'s.)"""
    named = {key: settings.get(key, ()) for key in SIGNAL_LISTS}
    named["replies_to"] = [name for _, name in settings.get("replies_to", ())]
    for key, names in named.items():
        unknown_named = [name for name in names if name not in signals]
        if unknown_named:
            raise ConfigError(f"[classify] {key} names no signal ({unknown_named[0]!r})", where="classify rules")
    for table in ("turns", "kinds", "from_user", "from_agent"):
        rows = settings.get(table)
        where = f"[[classify.{table}]]"
        if not isinstance(rows, list) or not rows:
            raise ConfigError(f"{where} must be a non-empty list of rows", where="classify rules")
        for row in rows:
            if {row["category"], row.get("answered", "process")} - _CATEGORIES or row.get("effect", "stance") not in _EFFECTS:
                raise ConfigError(f"{where}: unknown category or effect", where=row["rule"])
            if {row.get("action", "keep"), row.get("answered_action", "keep")} - set(ACTIONS):
                raise ConfigError(f"{where}: unknown action", where=row["rule"])
            named = ([row["says"]] if "says" in row else []) + row.get("unless_says", [])
            unknown = [name for name in named if name not in signals]
            if unknown:
                raise ConfigError(f"{where}: says or unless_says names no signal ({unknown[0]!r})", where=row["rule"])
        if table in ("from_user", "from_agent") and ("when" in rows[-1] or "unless" in rows[-1]):
            raise ConfigError(f"{where}: the last row must apply to every message (no when/unless)",
                              where=rows[-1]["rule"])


def _layered(user_files: tuple[str, ...]) -> dict[str, Any]:
    """The built-in rule files extended by ``user_files``, checked: every signal's fields
    (:func:`_signal_data`) and the settings, as plain data."""
    specs: dict[str, dict[str, Any]] = {}
    settings: dict[str, Any] = {}
    fragments: dict[str, str] = {}  # a user file may use the built-in files' fragments
    for name in BUILTIN_FILES:
        _apply_layer(specs, settings, toml_loads((RULES_FOLDER / name).read_text(encoding="utf-8")),
                     f"apollo/renal/rules/{name}", fragments, builtin=True)
    for file in user_files:
        data, text = read_toml(Path(file))
        _apply_layer(specs, settings, data, file, fragments, builtin=False, text=text)
    _check_rows(settings, specs.keys())
    partial = [name for name in settings.get("answer_held_by", ()) if not specs[name].get("whole")]
    if partial:  # the engine compares them with a message's one whole-clause signal: any other would never be seen
        raise ConfigError(f"[classify] answer_held_by names a signal that is not whole = true ({partial[0]!r})",
                          where="classify rules")
    missing = ENGINE_SIGNALS - specs.keys()
    if missing:
        raise ConfigError(f"rule files lack signals {sorted(missing)}", where="apollo/renal/rules")
    return {"signals": {name: _signal_data(name, spec) for name, spec in specs.items()}, "settings": settings}


#: layering the rule files and reading every signal's phrases costs a heartbeat more than the
#: interpreter's start: kept on disk by the files' texts (a few sets: each holds every phrase, and the
#: whole file is read by every process)
_layered_rules = DiskMemo("renal-rules", _layered, max_entries=4)


def _texts_digest(user_files: tuple[str, ...]) -> bytes | None:
    """The digest of the rule files' names and texts, and of the code that layers them (this module,
    :mod:`apollo.rulefile`, :mod:`apollo.patterns`' folding, the user files' schema: Apollo's version alone names no change
    made between two releases); None when one cannot be read: then the rules are built again, and
    say what is wrong with it."""
    import hashlib

    from apollo import patterns, rulefile

    digest = hashlib.sha256()
    # rule_schema checks and converts a user's file
    code = (Path(__file__), Path(rulefile.__file__), Path(patterns.__file__), RULES_FOLDER.parent / "rule_schema.py")
    for path in (*code, *(RULES_FOLDER / name for name in BUILTIN_FILES), *map(Path, user_files)):
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
    quotations = tuple((LazyPattern(opens), LazyPattern(closes))
                       for opens, closes in settings["pasted"].get("quotation_marks", ()))
    pasted_documents = tuple(LazyPattern(p, re.MULTILINE) for p in settings["pasted"].get("document_openings", ()))
    for pattern in (*pasted, *pasted_blocks, *pasted_documents, *(p for pair in quotations for p in pair)) if user_files else ():
        pattern.compiled()
    social = tuple(s for s in signals.values() if s.social)
    intents = tuple(s for s in signals.values() if not s.social and not s.by_name)
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
        intents=tuple(s for s in intents if not s.whole),
        whole_intents=tuple(s for s in intents if s.whole),
        pasted=pasted,
        pasted_blocks=pasted_blocks,
        quotations=quotations,
        pasted_session_runs_on=settings["pasted"].get("opening_session_runs_on", False),
        pasted_documents=pasted_documents,
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
