"""The autophagy rules as data: loading, validating, and matching path patterns.

The built-in ``rules.toml`` is read first, then every file in ``autophagy.rule_files`` (relative
to the configuration file that names it: the user's own, never the workspace's, see
``apollo/data/workspace_limits.toml``), then ``autophagy.protect``. Any failure raises
:class:`~apollo.errors.ConfigError` before anything is scanned, so an unreadable protect list
can never lead to a deletion. Rule files only add (lists are extended, the protect list never
shrinks) and stay above a floor (:func:`_check_floor`) that no configuration lifts.
"""

from __future__ import annotations

import copy
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from apollo import rulefile
from apollo.errors import ConfigError

if TYPE_CHECKING:
    from apollo.config import Config

TIERS = ("small", "medium", "large")
RISK = {"small": "low", "medium": "medium", "large": "high"}
CATEGORIES = ("redundant", "stale_cache", "memory", "context")
CHECKS = ("match", "entries", "corrupt", "broken_symlink", "marked_entries", "superseded_entries", "reminders")
VALIDATORS = ("json", "jsonl", "utf8", "zip", "gzip", "tar")


class Rule(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    kind: str
    check: str
    reason: str
    reason_zh: str
    category: str = "redundant"
    type: str = "file"
    patterns: list[str] = []
    exclude: list[str] = []
    idle_hours: float = 0.0
    max_age_days: float = 0.0
    validator: str = ""
    ignore_case: bool = False             # patterns ignore case (exclude patterns always do: excluding more is safe)
    # guards of "match" rules (a pattern anchored at a full path, with no "**", overrides them):
    never_within: list[str] = []          # folders above that hold no output of ours (node_modules/)
    never_within_holding: list[str] = []  # names that mark a folder above as an environment (pyvenv.cfg)
    never_holding: list[str] = []         # names that make the folder itself a package's source (__init__.py)
    shipped_by: dict[str, list[str]] = {}  # a JSON manifest beside the folder -> keys that list what it ships


class TaskProtect(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    file: str
    finished_statuses: list[str]
    status_keys: list[str]
    path_keys: list[str]
    title_keys: list[str]


class ProtectReport(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    memory: list[str]
    preferences: list[str]


class Protect(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    patterns: list[str]
    entries_editable: list[str]
    named_in: list[str]  # the agent's instruction files: a file whose name one mentions is never removed whole
    named_follow: list[str]  # extensions of named files read as instructions too, when named by their path
    named_folder_skip: list[str]  # names of the notes in a named folder that are a diary, not instructions
    named_depth: int
    tasks: TaskProtect
    report: ProtectReport


class Heartbeat(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    entry_prefix: str
    timestamp: str
    jsonl_keys: list[str]


class Corrupt(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    max_check_mb: float


class Memory(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    markers: list[str]
    supersede_phrases: list[str]
    reference_stopwords: list[str]
    subject_separators: list[str]
    max_subject_chars: int


class Reminders(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    folders: list[str]
    time_keys: list[str]
    done_keys: list[str]
    status_keys: list[str]
    done_statuses: list[str]


class Legacy(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    patterns: list[str]
    index: str
    empty_index: str


class SqliteStore(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    store: str
    session_tables: list[str]
    related_tables: list[str]
    transcript_table: str


class Gateway(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    lock_dirs: list[str]
    lock_pattern: str
    unwritten_lock_seconds: float
    config_file: str
    default_port: int
    stop_hint: str
    stop_hint_zh: str


class Large(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    phrase: str
    legacy: Legacy
    sqlite: SqliteStore
    gateway: Gateway


class RuleSet(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    protect: Protect
    small: list[Rule]
    medium: list[Rule]
    heartbeat: Heartbeat
    corrupt: Corrupt
    memory: Memory
    reminders: Reminders
    large: Large


# -- patterns ------------------------------------------------------------------------------------

def _component_regex(component: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(component):
        ch = component[i]
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = component.find("]", i + 2 if component[i + 1:i + 2] in ("!", "^") else i + 1)
            if end == -1:
                out.append(re.escape(ch))
            else:
                body = component[i + 1:end]
                negate = body[:1] in ("!", "^")
                body = body[1:] if negate else body
                body = body.replace("\\", "\\\\").replace("/", "")
                out.append(f"[{'^/' if negate else ''}{body}]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class Pattern:
    """One pattern: a name at any depth, or an anchored path; folders only with a trailing '/'."""

    text: str
    dir_only: bool
    anchored: bool
    regex: re.Pattern[str]

    @classmethod
    def compile(cls, text: str, *, ignore_case: bool = False) -> Pattern:
        if not isinstance(text, str) or not text.strip("/"):
            raise ConfigError(f"empty pattern {text!r}")
        dir_only = text.endswith("/")
        body = text.strip("/")
        flags = re.IGNORECASE if ignore_case else 0
        if "/" not in body and not text.startswith("/"):  # a leading slash anchors, as in .gitignore
            return cls(text, dir_only, False, re.compile(_component_regex(body) + r"\Z", flags))
        pieces = ["(?:[^/]+/)*" if part == "**" else _component_regex(part) + "/" for part in body.split("/")]
        return cls(text, dir_only, True, re.compile("".join(pieces) + r"\Z", flags))

    def matches(self, rel: str, name: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        if self.anchored:
            return self.regex.match(rel + "/") is not None
        return self.regex.match(name) is not None


@dataclass(frozen=True)
class PatternSet:
    """Several patterns checked at once; the first that matches is reported.

    Speed matters (a scan asks for every name of a 100,000-file workspace): names are first
    tried against one union expression, and an anchored pattern is tried only when the path's
    first component can match its first component."""

    patterns: tuple[Pattern, ...]
    _names: re.Pattern[str] | None = field(default=None, compare=False)
    _anchored: tuple[tuple[Pattern, re.Pattern[str] | None], ...] = field(default=(), compare=False)
    _nfc: bool = field(default=False, compare=False)

    @classmethod
    def compile(cls, texts: Sequence[str], *, ignore_case: bool = False) -> PatternSet:
        """``ignore_case`` (the protect list) also ignores Unicode normalisation: "thèse" typed
        composed must protect a folder whose name is stored decomposed (as macOS writes it)."""
        if ignore_case:
            texts = [unicodedata.normalize("NFC", t) if isinstance(t, str) else t for t in texts]
        patterns = tuple(Pattern.compile(t, ignore_case=ignore_case) for t in texts)
        flags = re.IGNORECASE if ignore_case else 0
        plain = [p.regex.pattern for p in patterns if not p.anchored]
        union = re.compile("|".join(f"(?:{r})" for r in plain), flags) if plain else None
        anchored = []
        for pattern in patterns:
            if pattern.anchored:
                head = pattern.text.strip("/").split("/", 1)[0]
                anchored.append((pattern, None if head == "**" else re.compile(_component_regex(head) + r"\Z", flags)))
        return cls(patterns, union, tuple(anchored), ignore_case)

    def match(self, rel: str, name: str, is_dir: bool) -> Pattern | None:
        if self._nfc and not (rel.isascii() and name.isascii()):
            rel, name = unicodedata.normalize("NFC", rel), unicodedata.normalize("NFC", name)
        if self._names is not None and self._names.match(name) is not None:
            for pattern in self.patterns:
                if not pattern.anchored and pattern.matches(rel, name, is_dir):
                    return pattern
        if self._anchored:
            head = rel.split("/", 1)[0]
            for pattern, first in self._anchored:
                if (first is None or first.match(head)) and pattern.matches(rel, name, is_dir):
                    return pattern
        return None

    def match_any_prefix(self, parts: Sequence[str], is_dir: bool) -> tuple[str, Pattern] | None:
        """The first (shortest) prefix of ``parts`` that matches, with the pattern."""
        for depth in range(1, len(parts) + 1):
            rel = "/".join(parts[:depth])
            found = self.match(rel, parts[depth - 1], is_dir or depth < len(parts))
            if found:
                return rel, found
        return None

    def __bool__(self) -> bool:
        return bool(self.patterns)


# -- loading -------------------------------------------------------------------------------------

#: the built-in rules, beside this module
BUILTIN = Path(__file__).parent / "rules.toml"


class RuleFile(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """What a user's rule file (``autophagy.rule_files``) may hold: rules to add, and lists to extend."""

    small: list[Rule] = []
    medium: list[Rule] = []
    protect: dict[str, list[str]] = {}
    memory: dict[str, list[str]] = {}
    heartbeat: dict[str, list[str]] = {}
    reminders: dict[str, list[str]] = {}


_RULE_FILE_HINT = ("a rule file adds rules ([[small]], [[medium]]) and extends lists; nothing is deleted "
                   "until it can be read")


def confirmation_phrase() -> str:
    """What the user types to confirm the large tier: ``[large] phrase`` of the built-in rules,
    the one place it is written (no rule file may change it: they never extend ``large``)."""
    return rulefile.read_toml(BUILTIN, what="built-in autophagy rule file")[0]["large"]["phrase"]


def _merge_extension(base: dict[str, Any], extra: dict[str, Any], where: str) -> None:
    """A user rule file adds rules and extends lists; it never silently replaces a protect entry."""
    for key, value in extra.items():
        if key in ("small", "medium"):
            base[key].extend(value)
            continue
        for sub, item in value.items():
            current = base[key].get(sub)
            if not isinstance(current, list) or not isinstance(item, list):
                raise ConfigError(f"'{key}.{sub}' cannot be changed by a rule file (lists can only be extended)",
                                  where=where)
            current.extend(item)


# -- the floor: what no configuration lifts ----------------------------------------------------------

def _names_something(pattern: str) -> bool:
    """A pattern names something when its last component keeps a character other than '.' once
    its wildcards are taken out: ``*.tmp`` and ``*~`` do; ``*``, ``*/``, ``.*``, ``*.*``, ``**`` do not."""
    last = [part for part in pattern.strip("/").split("/") if part != "**"][-1:] or [""]
    literal = re.sub(r"\[[^\]]*\]|[*?]", "", last[0])
    return bool(literal.strip(". "))


def _check_floor(rules: RuleSet, builtin: dict[str, Any]) -> None:
    """Every rule has a floor no rule file lifts (issue 12): each pattern of a tier names what it
    removes, a memory marker is a word and not a space, a supersede phrase never matches
    nothing at all, and no rule file opens the entries of a file the built-in protect list holds."""
    for tier in ("small", "medium"):
        for rule in getattr(rules, tier):
            for pattern in rule.patterns:
                if not _names_something(pattern):
                    raise ConfigError(f"pattern {pattern!r} of [[{tier}]] kind={rule.kind!r} matches nearly every "
                                      "name; a rule must name what it removes (e.g. \"*.tmp\", \"build/\")")
    for folder in rules.reminders.folders:
        if not _names_something(folder):
            raise ConfigError(f"reminders folder {folder!r} matches every folder; name the folder")
    for marker in rules.memory.markers:
        if sum(1 for ch in marker if ch.isalnum()) < 2:
            raise ConfigError(f"memory marker {marker!r} is not a word; a marker needs at least two letters or digits")
    for phrase in rules.memory.supersede_phrases:
        if re.search(phrase, "") is not None:
            raise ConfigError(f"supersede phrase {phrase!r} matches an empty text, so every entry")
    protected = PatternSet.compile(builtin["protect"]["patterns"], ignore_case=True)
    for name in rules.protect.entries_editable:
        if name in builtin["protect"]["entries_editable"]:
            continue
        if re.search(r"[*?\[\]/]", name) or protected.match(name, name, False):
            raise ConfigError(f"entries_editable {name!r}: a rule file may open only a file it names exactly and "
                              "that the built-in protect list does not hold")


def _check_rules(rules: RuleSet | RuleFile, source: str = "") -> None:
    """Values msgspec cannot check; ``source``, the user's rule file the rules come from, leads the place named."""
    for tier in ("small", "medium"):
        for rule in getattr(rules, tier):
            where = f"{source}: [[{tier}]] kind={rule.kind!r}" if source else f"[[{tier}]] kind={rule.kind!r}"
            if rule.check not in CHECKS:
                raise ConfigError(f"unknown check {rule.check!r}", where=where, hint=f"use one of {', '.join(CHECKS)}")
            if rule.category not in CATEGORIES:
                raise ConfigError(f"unknown category {rule.category!r}", where=where,
                                  hint=f"use one of {', '.join(CATEGORIES)}")
            if rule.type not in ("file", "dir"):
                raise ConfigError(f"type must be 'file' or 'dir', not {rule.type!r}", where=where)
            if rule.check == "corrupt" and rule.validator not in VALIDATORS:
                raise ConfigError(f"unknown validator {rule.validator!r}", where=where,
                                  hint=f"use one of {', '.join(VALIDATORS)}")
            if rule.check in ("match", "entries", "corrupt", "marked_entries", "superseded_entries") and not rule.patterns:
                raise ConfigError("a rule needs patterns", where=where)
            if rule.check == "entries" and rule.max_age_days <= 0:
                raise ConfigError("an entries rule needs max_age_days > 0", where=where)
    if isinstance(rules, RuleFile):
        return
    for text in (rules.heartbeat.entry_prefix, rules.heartbeat.timestamp, *rules.memory.supersede_phrases):
        try:
            re.compile(text)
        except re.error as exc:
            raise ConfigError(f"bad regular expression {text!r}: {exc}", where="autophagy rules") from None


def load(config: Config | None = None) -> AutophagyRules:
    """Built-in rules + the user's rule files + the user's protect patterns, validated."""
    # a broken installation fails closed like a broken user file
    builtin, _ = rulefile.read_toml(BUILTIN, what="built-in autophagy rule file")
    data = copy.deepcopy(builtin)
    extra_protect: list[str] = []
    if config is not None:
        section = config.section("autophagy")
        for name in rulefile.rule_files(config, "autophagy.rule_files"):
            extra, text = rulefile.read_toml(Path(name), what="autophagy rule file", hint=_RULE_FILE_HINT)
            _check_rules(rulefile.convert(extra, RuleFile, name, text=text, what="autophagy rule file",
                                          hint=_RULE_FILE_HINT), name)
            _merge_extension(data, extra, name)
        extra_protect = list(section.get("protect", []))
        if not all(isinstance(p, str) and p.strip("/") for p in extra_protect):
            raise ConfigError("autophagy.protect must be a list of non-empty patterns",
                              where=config.source_of("autophagy.protect"))
    data["protect"]["patterns"] = [*data["protect"]["patterns"], *extra_protect]
    rules = rulefile.convert(data, RuleSet, "autophagy rules (built-in and autophagy.rule_files)",
                             what="autophagy rules", hint="compare with the built-in rules.toml")
    _check_rules(rules)
    _check_floor(rules, builtin)
    return AutophagyRules(rules)


class AutophagyRules:
    """The rule set with every pattern compiled once."""

    def __init__(self, rules: RuleSet):
        self.data = rules
        self.protect = PatternSet.compile(rules.protect.patterns, ignore_case=True)
        self.editable = PatternSet.compile(rules.protect.entries_editable, ignore_case=True)
        self.tiers: dict[str, list[tuple[Rule, PatternSet, PatternSet]]] = {
            tier: [(r, PatternSet.compile(r.patterns, ignore_case=r.ignore_case),
                    PatternSet.compile(r.exclude, ignore_case=True)) for r in getattr(rules, tier)]
            for tier in ("small", "medium")
        }
        self.reminder_folders = PatternSet.compile(["/" + f.strip("/") + "/" for f in rules.reminders.folders])
        self._file_interest = {  # a first look only (evaluate decides): ignoring case can only ask more
            tier: PatternSet.compile([p for r in getattr(rules, tier) if not (r.check == "match" and r.type == "dir")
                                      for p in r.patterns], ignore_case=True)
            for tier in ("small", "medium")}
        self._folder_interest = PatternSet.compile([p for r in rules.small if r.check == "match" and r.type == "dir"
                                                    for p in r.patterns])
        self._checks = {tier: {r.check for r in getattr(rules, tier)} for tier in ("small", "medium")}
        self.legacy_sessions = PatternSet.compile(rules.large.legacy.patterns)
        self.report_memory = PatternSet.compile(rules.protect.report.memory, ignore_case=True)
        self.report_preferences = PatternSet.compile(rules.protect.report.preferences, ignore_case=True)

    def rules(self, tier: str) -> list[tuple[Rule, PatternSet, PatternSet]]:
        return self.tiers.get(tier, [])

    def interested(self, tier: str, rel: str, name: str, is_link: bool, in_reminders: bool) -> bool:
        """Could any rule of ``tier`` want this file or link? (Cheap: no stat, no read.)"""
        checks = self._checks.get(tier, set())
        if is_link:
            return "broken_symlink" in checks
        return (in_reminders and "reminders" in checks) or self._file_interest[tier].match(rel, name, False) is not None

    def wants_folder(self, rel: str, name: str) -> bool:
        return self._folder_interest.match(rel, name, True) is not None
