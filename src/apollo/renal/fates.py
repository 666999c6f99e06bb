"""What the filter does to each element by default, decided in one stream: its first three steps
(dialysis → selective reabsorption → concentration) and the numbers they give.

``apollo renal filter`` builds its output and its report from these fates, and ``apollo renal
check`` measures with the very same stream, so the check's information density and estimated
saving *are* the filter's (SPEC §1.3: density = 1 − tokens removed as noise or redundancy ÷
tokens). The check does not hold a transcript in memory, so the stream decides each element
once the conversation has moved past it: ``recent_turns`` user turns later (until then it may
belong to the recent tail, which stays whole). Only the tail and the current turn are held.

The check feeds the classifier's verdicts as they stream, the filter the final ones. They
agree on every number because what a later revision changes — a question answered, a decision
superseded, a task done, a proposal accepted — moves an element between must-keep and outdated,
both of which the default filter keeps whole; the one revision that changes tokens (a repeated
tool call whose output turned out different) is held open until its output arrives.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable, Iterable

from apollo.records import field, slotted
from apollo.renal import concentrate
from apollo.renal.classify import MUST_KEEP, Change, Verdict, call_key
from apollo.renal.condense import Condenser
from apollo.transcript.model import Element, Kind, Role
from apollo.words import cjk_runs, held

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from apollo.config import Config

#: removed as noise, and as redundancy: what information density (SPEC §1.3) leaves out
NOISE_BUCKETS = ("acknowledgement", "noise", "heartbeat")
REDUNDANT_BUCKETS = ("duplicate",)
WASTE_BUCKETS = NOISE_BUCKETS + REDUNDANT_BUCKETS
#: how many settled repeated tool calls wait for their output before they count as final
_OPEN_CALLS = 4096
#: how many long tool outputs (and how many of their tokens) later messages can still name lines of
_WATCHED = 256
_WATCHED_TOKENS = 8_000_000
#: every byte but the ASCII letters: what deleting them leaves is one byte per Latin letter
_NOT_LATIN_LETTERS = bytes(b for b in range(256) if not (chr(b).isascii() and chr(b).isalpha()))


@slotted(eq=False)
class Fate:
    """What happens to one in-context element, and the report bucket it counts in."""

    element: Element
    category: str
    action: str = "keep"  # keep | drop | shorten
    #: the classifier's status: current | superseded | answered | done | duplicate
    status: str = "current"
    bucket: str = ""  # removed: acknowledgement, noise, process, heartbeat, thinking, duplicate, outdated, budget
    text: str | None = None
    merged_from: list[str] = field(default_factory=list)
    rescued: str | None = None
    #: superseded, answered or done: kept by default, the first to go under a budget
    outdated: bool = False
    #: kept as process by the classifier; made only of social words, it is excreted as noise
    social_candidate: bool = False
    confirm: bool = False
    must_keep: bool = False
    in_tail: bool = False
    tokens_after: int = 0
    #: a user's text written with its envelope's metadata blocks cut to who, where and when (a budget's form)
    lean: bool = False
    #: the classifier's verdict the fate was decided from, and its reason
    verdict: Verdict | None = None
    reason: str = ""


@slotted()
class _Watch:
    """A long tool output, its lines by anchor, and its cut marker's language (and what the other
    language's marker would cost more, while the conversation's language is not settled)."""

    fate: Fate
    index: concentrate.LineIndex
    lang: str = "en"
    delta: int = 0


@slotted()
class Measure:
    """The default filter's numbers: tokens before and after, and what it removes as noise or redundancy."""

    tokens: int = 0
    after: int = 0
    waste: int = 0

    @property
    def density(self) -> float:
        """SPEC §1.3: 1 − (tokens removed as noise or redundancy) ÷ tokens."""
        return 1.0 - self.waste / self.tokens if self.tokens else 1.0

    @property
    def saving(self) -> float:
        return 1.0 - self.after / self.tokens if self.tokens else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "tokens_after": self.after, "removable_tokens": self.tokens - self.after,
                "density": round(self.density, 4), "estimated_saving": round(self.saving, 4)}


class FateStream:
    """Feed in-context elements with their verdicts in order; ``finish()`` gives the :class:`Measure`.

    ``lang`` names the language of the cut-output marker (``None``: the conversation's language as
    read so far, corrected at the end); ``retain`` keeps every fate in ``fates`` (the filter's list).
    """

    def __init__(self, rules: concentrate.FilterRules, condenser: Condenser, count: Callable[[str], int], *,
                 lang: str | None = None, retain: bool = True):
        self.rules = rules
        self.condenser = condenser
        self.count = count
        self.lang = lang
        self.retain = retain
        self.fates: list[Fate] = []
        self.measure = Measure()
        self._turns = max(int(rules["recent_turns"]), 0)
        self._pending: deque[Fate] = deque()
        self._keys: dict[int, Fate] = {}  # classifier position -> pending fate, and back
        self._key_of: dict[Fate, int] = {}
        self._user_turns: deque[Fate] = deque()  # user turns among the pending fates
        self._users_seen = 0
        self._turn: list[Fate] = []  # the current turn (from a user message or heartbeat poll)
        self._names: set[str] = set()
        self._script = Script()
        self._marker_delta = {"zh": 0, "en": 0}  # cut outputs: tokens with the other marker − with this one
        self._repeats: dict[str, list[tuple[Fate, frozenset[str], frozenset[str]]]] = {}
        self._doomed: dict[Fate, str] = {}  # pending fates that go whole (heartbeat pairs, small talk): bucket
        self._newest_user: Fate | None = None  # the message the agent answers next
        self._by_id: dict[str, Fate] = {}
        self._merged_into: dict[str, str] = {}
        self._open_calls: OrderedDict[int, Fate] = OrderedDict()
        self._watched: OrderedDict[Fate, _Watch] = OrderedDict()  # long tool outputs later messages may name
        self._watched_tokens = 0
        self._dropped_calls: OrderedDict[bytes, str] = OrderedDict()  # call_key(call id) -> bucket, until its result

    @classmethod
    def for_config(cls, config: Config | None, count: Callable[[str], int], **options: Any) -> FateStream:
        rules = concentrate.load_for(config)
        return cls(rules, Condenser(rules.condense), count, **options)

    # -- input ---------------------------------------------------------------------------------------

    def observe(self, element: Element | None, changes: list[Change]) -> None:
        """Take the classifier's changes as it streams (see :func:`apollo.renal.classify.run`)."""
        for position, old, new in changes:
            if old is None and element is not None:
                self.feed(element, new, key=position)
            else:
                self.revise(position, new)

    def feed(self, element: Element, verdict: Verdict | None, *, key: int | None = None) -> None:
        if not element.in_context:
            return
        fate = Fate(element, verdict.category if verdict else "process", verdict=verdict)
        self.measure.tokens += element.tokens
        if key is not None:
            self._keys[key], self._key_of[fate] = fate, key
        if element.speaker:
            self._names.add(element.speaker.lower())
        self._script.read(element)
        user_turn = element.role is Role.USER and element.kind is Kind.TEXT
        if user_turn or (element.role is Role.USER and element.kind is Kind.HEARTBEAT_POLL):
            self._close_turn()
        self._turn.append(fate)
        if element.kind is Kind.HEARTBEAT_REPLY:  # a heartbeat acknowledgement goes even without its poll
            self._doomed[fate] = "heartbeat"
        self._pending.append(fate)
        if element.kind is Kind.TOOL_RESULT:
            self._watch(fate)
        elif element.kind is Kind.TEXT and element.role in (Role.USER, Role.ASSISTANT):
            self._mention(element)
        if user_turn:
            self._newest_user = fate
            self._users_seen += 1
            self._user_turns.append(fate)
            if self._turns and len(self._user_turns) >= self._turns:
                self._settle_before(self._user_turns[-self._turns])
        if not self._turns:  # no recent tail: nothing waits
            self._settle_before(None)

    def revise(self, key: int, verdict: Verdict) -> None:
        """A later element changed an earlier verdict (an answer, a supersession, a repeat's output)."""
        fate = self._keys.get(key)
        if fate is not None:
            fate.verdict, fate.category = verdict, verdict.category
            return
        call = self._open_calls.pop(key, None)
        if call is not None:  # a repeated call whose output changed after all: it stays
            self._unsettle(call)
            call.verdict = verdict
            self._settle(call, in_tail=False, key=key, again=True)

    def finish(self) -> Measure:
        """End of the transcript: the pending fates are the recent tail (or, with no user turn, none is)."""
        self._close_turn()
        self._settle_before(None, in_tail=self._users_seen > 0 and self._turns > 0)
        lang = self._script.language
        if self.lang is None:
            self.measure.after += self._marker_delta["en" if lang == "zh" else "zh"]
        if self.retain:
            self._merge_duplicates()
        return self.measure

    # -- settling --------------------------------------------------------------------------------------

    def _close_turn(self) -> None:
        """A heartbeat poll answered by nothing but a heartbeat reply (thinking aside) goes as a pair;
        a heartbeat that made the agent act is part of the work. Small talk goes too (:meth:`_small_talk`)."""
        turn = self._turn
        if turn and turn[0].element.kind is Kind.HEARTBEAT_POLL and all(
                f.element.kind in (Kind.HEARTBEAT_REPLY, Kind.THINKING, Kind.METADATA) for f in turn[1:]):
            self._doomed.update((f, "heartbeat") for f in turn if f.element.kind is not Kind.METADATA)
        self._doomed.update((f, "noise") for f in self._small_talk(turn))
        self._turn = []

    def _small_talk(self, turn: list[Fate]) -> list[Fate]:
        """The agent's answer to a greeting, a ping or a thanks (``small_talk_after``: the rules of the
        user's message, which goes as noise) in a turn that did nothing else (no tool call), short
        (``small_talk_chars``: a long one answers more, often a question asked before) and naming
        nothing specific (no [filter.reabsorb] pattern: a path, a date, an amount): the exchange's
        second half, about presence and pleasantry as the first is."""
        opening = turn[0].verdict if turn else None
        if opening is None or opening.action != "drop" or turn[0].element.kind is not Kind.TEXT \
                or not opening.rule.startswith(tuple(self.rules["small_talk_after"])):
            return []
        answer = [f for f in turn[1:] if f.element.kind is not Kind.METADATA]
        if not answer or any(f.element.role is not Role.ASSISTANT or f.element.kind not in (Kind.TEXT, Kind.THINKING)
                             for f in answer):
            return []
        said = [f.element.text for f in answer if f.element.kind is Kind.TEXT]
        if sum(map(len, said)) > self.rules["small_talk_chars"] or any(
                concentrate.carries_fact(text, self.rules, self.condenser, frozenset(), words=False) for text in said):
            return []
        return answer

    def _settle_before(self, stop: Fate | None, *, in_tail: bool = False) -> None:
        while self._pending and self._pending[0] is not stop:
            fate = self._pending.popleft()
            if self._user_turns and self._user_turns[0] is fate:
                self._user_turns.popleft()
            key = self._key_of.pop(fate, None)
            if key is not None:
                del self._keys[key]
            self._settle(fate, in_tail=in_tail, key=key)

    def _settle(self, fate: Fate, *, in_tail: bool, key: int | None = None, again: bool = False) -> None:
        doomed = self._doomed.pop(fate, "")
        _dialysis(fate)
        self._reabsorb(fate)
        self._concentrate(fate, in_tail=in_tail, doomed=doomed)
        self._pair(fate, in_tail=in_tail)
        if fate.element.kind is not Kind.TOOL_RESULT or fate.action != "shorten":  # a cut output is counted as it is cut
            fate.tokens_after = self._tokens_after(fate)
        self.measure.after += fate.tokens_after
        if fate.action == "drop" and fate.bucket in WASTE_BUCKETS:
            self.measure.waste += fate.element.tokens
        if self.retain and not again:
            self.fates.append(fate)
            self._by_id.setdefault(fate.element.id, fate)
        self._forget_text(fate)
        if key is not None and fate.verdict is not None and fate.verdict.rule == "repeat:tool_call":
            self._open_calls[key] = fate
            if len(self._open_calls) > _OPEN_CALLS:
                self._open_calls.popitem(last=False)
        if not in_tail and not again:
            self._find_repeats(fate)

    def _forget_text(self, fate: Fate) -> None:
        """A stream that keeps no fates (the check's) needs a settled fate's shortened text only to
        count it, which is done: every later change (a mention, a repeat's output) makes it again.
        Held on, it went into the check's saved state (the head and named lines of every cut output
        still watched), a copy of the session's text that had to pass the secret detectors."""
        if not self.retain:
            fate.text = None

    def _unsettle(self, fate: Fate) -> None:
        self.measure.after -= fate.tokens_after
        if fate.action == "drop" and fate.bucket in WASTE_BUCKETS:
            self.measure.waste -= fate.element.tokens
        fate.action, fate.bucket, fate.text, fate.must_keep, fate.confirm = "keep", "", None, False, False

    # -- the three steps, for one element ------------------------------------------------------------

    def _reabsorb(self, fate: Fate) -> None:
        """Waste that still carries a fact is rescued: kept if it was noise, as process otherwise.

        The converse check runs too: a message kept as process that is nothing but greetings,
        thanks and acknowledgements (every sentence phatic, no fact) is excreted as noise. Copies and
        the work of turns that did nothing for the conversation are never rescued (``never_rescued``),
        a heartbeat's short reply only by a specific fact (``rescued_by_pattern_only``).
        """
        element, names = fate.element, frozenset(self._names)
        if fate.social_candidate and self.condenser.is_phatic(element.text, names) and not concentrate.carries_fact(
                element.text, self.rules, self.condenser, names):
            fate.action, fate.bucket, fate.category = "drop", "noise", "noise"
            return
        if fate.action != "drop" or element.kind is not Kind.TEXT or fate.bucket not in (
                "noise", "process", "acknowledgement") or not element.text.strip():
            return
        rule = fate.verdict.rule if fate.verdict is not None else ""
        if rule.startswith(tuple(self.rules["never_rescued"])):
            return
        fact = concentrate.carries_fact(element.text, self.rules, self.condenser, names,
                                        words=not rule.startswith(tuple(self.rules["rescued_by_pattern_only"])))
        if fact:
            fate.rescued = fact
            fate.action = "keep" if fate.bucket in ("noise", "acknowledgement") else "shorten"
            fate.bucket = ""

    def _concentrate(self, fate: Fate, *, in_tail: bool, doomed: str) -> None:
        """Heartbeat pairs and small talk go; the recent tail stays whole but for its noise and its
        copies of what is said before (never the message the agent answers next); old thinking goes;
        old tool output becomes head + tail; a long process message loses its phatic sentences and fillers."""
        element = fate.element
        fate.in_tail = in_tail
        if doomed:
            fate.action, fate.bucket, fate.must_keep = "drop", doomed, False
        elif in_tail:
            copy = fate.bucket == "duplicate" and element.kind is Kind.TEXT and fate is not self._newest_user
            if fate.action == "drop" and fate.bucket not in ("acknowledgement", "noise") and not copy:
                fate.action, fate.bucket = "keep", ""
            elif fate.action == "shorten":
                fate.action = "keep"
        elif element.kind is Kind.THINKING:
            fate.action, fate.bucket = "drop", "thinking"
        elif element.kind is Kind.TOOL_RESULT:
            self._cut(fate)
        elif element.kind is Kind.TOOL_CALL and not fate.must_keep and fate.action != "drop":
            self._cut_arguments(fate)
        elif fate.action == "shorten" and element.kind is Kind.TEXT:
            forms = self.condenser.ladder(element.text, ())
            if forms:
                fate.text = forms[0][1]
        if fate.action == "shorten" and fate.text is None:
            fate.action = "keep"  # nothing to shorten after all

    def _pair(self, fate: Fate, *, in_tail: bool) -> None:
        """A tool call and its result share one fate: a result whose call went as noise goes with
        it; a result the classifier dropped while its call stays is kept (cut when old)."""
        element = fate.element
        if element.kind is Kind.TOOL_CALL and element.call_id:
            key = call_key(element.call_id)
            if fate.action != "drop":  # kept, or kept after all (a repeated call whose output changed)
                self._dropped_calls.pop(key, None)
                return
            self._dropped_calls[key] = fate.bucket
            if len(self._dropped_calls) > _OPEN_CALLS:
                self._dropped_calls.popitem(last=False)
        elif element.kind is Kind.TOOL_RESULT and element.call_id:
            bucket = self._dropped_calls.pop(call_key(element.call_id), None)
            if bucket is not None:
                fate.action, fate.bucket, fate.text, fate.must_keep = "drop", bucket, None, False
            elif fate.action == "drop":
                fate.action, fate.bucket = "keep", ""
                if not in_tail:
                    self._cut(fate)

    def _cut(self, fate: Fate) -> None:
        """An old tool output keeps its first line and the lines later messages mention."""
        element = fate.element
        watch = self._watched.get(fate)
        if watch is None:
            return  # short enough to keep whole
        envelope = self.count(element.envelope) if element.envelope else 0
        tokens = element.tokens - envelope
        head, mentioned = concentrate.trim_output(element.text, watch.index, self.rules)
        lang = self.lang or self._script.language
        other = "en" if lang == "zh" else "zh"
        lines = watch.index.lines
        text = concentrate.join_trimmed(head, concentrate.output_marker(self.rules, lang, lines, tokens), mentioned)
        after = self.count(text)
        if after >= tokens:
            return
        self._marker_delta[watch.lang] -= watch.delta  # cut before: a later mention adds lines
        fate.action, fate.text, fate.bucket = "shorten", text, "tool_output"
        fate.tokens_after = after + envelope
        watch.lang, watch.delta = lang, 0
        if self.lang is None:  # the conversation's language may still turn out to be the other one
            marker = concentrate.output_marker(self.rules, other, lines, tokens)
            watch.delta = self.count(concentrate.join_trimmed(head, marker, mentioned)) - after
            self._marker_delta[lang] += watch.delta

    def _watch(self, fate: Fate) -> None:
        """A long tool output: index its lines by anchor, so later messages can name the ones to keep."""
        element = fate.element
        if element.tokens <= self.rules["tool_keep_tokens"]:
            return
        self._watched[fate] = _Watch(fate, concentrate.LineIndex.of(element.text, self.rules.anchors))
        self._watched_tokens += element.tokens
        while len(self._watched) > _WATCHED or self._watched_tokens > _WATCHED_TOKENS:
            _, oldest = self._watched.popitem(last=False)
            self._watched_tokens -= oldest.fate.element.tokens

    def _mention(self, element: Element) -> None:
        """A user or assistant message names lines of earlier tool outputs: they are kept (a cut
        output that is already settled gets them back)."""
        if not self._watched:
            return
        said = self.rules.anchors.of(element.text)
        if not said:
            return
        for watch in self._watched.values():
            if watch.index.mention(said, self.rules.anchors, watch.fate.element.text) and watch.fate.bucket == "tool_output" \
                    and watch.fate.action == "shorten":
                before = watch.fate.tokens_after
                self._cut(watch.fate)
                self._forget_text(watch.fate)
                self.measure.after += watch.fate.tokens_after - before

    def _cut_arguments(self, fate: Fate) -> None:
        """An old tool call's long arguments (a file's content, a long script) keep their head."""
        text = concentrate.cut_arguments(fate.element.text, self.rules)
        if text is not None:
            fate.action, fate.text, fate.bucket = "shorten", text, "tool_output"

    def _find_repeats(self, fate: Fate) -> None:
        """The same point made again by the same speaker: the earlier message merges into the later,
        when the later one holds ``repeat_coverage`` of its content words and every one of its numbers
        (in a document: in the same section, ``document_repeat_coverage``)."""
        element = fate.element
        if element.kind is not Kind.TEXT or fate.action == "drop":
            return
        # long words and numbers (a commit hash, an id) as :func:`apollo.words.held`: the resume state
        # saves this history, and redacted they would not be found said again after it
        words = frozenset(map(held, self.condenser.content_units(element.text)))
        if len(words) < self.rules["repeat_min_words"]:
            return
        numbers = frozenset(map(held, concentrate.numbers(element.text)))
        history = self._repeats.setdefault(f"{element.role}:{element.speaker or ''}:{element.scope or ''}", [])
        keep: list[tuple[Fate, frozenset[str], frozenset[str]]] = []
        coverage = self.rules["repeat_coverage" if element.scope is None else "document_repeat_coverage"]
        for earlier, earlier_words, earlier_numbers in history:
            if earlier_numbers <= numbers and len(earlier_words & words) >= coverage * len(earlier_words):
                self.measure.after -= earlier.tokens_after
                self.measure.waste += earlier.element.tokens
                fate.merged_from.extend([*earlier.merged_from, earlier.element.id])
                if self.retain:
                    self._merged_into[earlier.element.id] = element.id
                fate.must_keep = fate.must_keep or earlier.must_keep
                earlier.action, earlier.bucket, earlier.must_keep, earlier.tokens_after = "drop", "duplicate", False, 0
                earlier.merged_from = []
            else:
                keep.append((earlier, earlier_words, earlier_numbers))
        keep.append((fate, words, numbers))
        history[:] = keep[-self.rules["repeat_window"]:]

    def _merge_duplicates(self) -> None:
        """A message the classifier found repeated word for word lists the copies it stands for."""
        for fate in self.fates:
            original = fate.verdict.duplicate_of if fate.verdict is not None and fate.bucket == "duplicate" else None
            while original in self._merged_into:  # the original was itself merged into a later message
                original = self._merged_into[original]
            target = self._by_id.get(original) if original else None
            if target is not None and target.action != "drop":
                target.merged_from.append(fate.element.id)

    def _tokens_after(self, fate: Fate) -> int:
        if fate.action == "drop":
            return 0
        if fate.action == "shorten" and fate.text is not None:
            envelope = fate.element.envelope
            return self.count(fate.text) + (self.count(envelope) if envelope else 0)
        return fate.element.tokens


@slotted()
class Script:
    """Chinese and Latin letters of what the user and agent wrote (the first 2,000 of each message)."""

    cjk: int = 0
    latin: int = 0

    def read(self, element: Element) -> None:
        if element.kind is not Kind.TEXT:
            return
        text = element.text[:2000]
        self.latin += len(text.encode("utf-8", "surrogatepass").translate(None, _NOT_LATIN_LETTERS))
        self.cjk += sum(match.end() - match.start() for match in cjk_runs(text))

    @property
    def language(self) -> str:
        """``zh`` when Chinese characters are a good share of the letters, else ``en``."""
        return "zh" if self.cjk * 3 >= self.latin and self.cjk else "en"


def language_of(elements: Iterable[Element]) -> str:
    """The conversation's language (``zh`` or ``en``)."""
    script = Script()
    for element in elements:
        script.read(element)
    return script.language


def _dialysis(fate: Fate) -> None:
    """The classifier's verdict as a first fate: must-keep stays, the unsure stays (需确认), the
    outdated stays (demoted), noise and spent process go, compressible text is shortened."""
    verdict, element = fate.verdict, fate.element
    if verdict is None:
        return
    fate.category, fate.status, fate.outdated, fate.reason = (verdict.category, verdict.status,
                                                               verdict.status != "current", verdict.reason)
    if element.kind is Kind.METADATA:
        return
    if verdict.category in MUST_KEEP and verdict.status == "current":
        fate.must_keep = True
    elif verdict.action == "confirm":
        fate.confirm = True
    elif verdict.action == "keep" and verdict.status == "current" and not (
            verdict.category in ("process", "noise") and element.kind is Kind.TEXT):
        return
    elif verdict.duplicate_of:
        fate.action, fate.bucket = "drop", "duplicate"
    elif verdict.status != "current":
        return  # outdated: demoted but kept, the first to go under a budget, never lost by default
    elif verdict.action == "keep" and not verdict.rule.startswith("context:answer"):
        fate.social_candidate = True
    elif verdict.action == "drop":
        fate.action = "drop"
        fate.bucket = "acknowledgement" if verdict.confirmation else verdict.category
    elif verdict.action == "compress" and element.kind is not Kind.TOOL_CALL:
        fate.action = "shorten"


def decide(elements: Iterable[Element], verdicts: Iterable[Verdict], rules: concentrate.FilterRules,
           condenser: Condenser, count: Callable[[str], int], lang: str | None) -> tuple[list[Fate], Measure]:
    """Every in-context element's fate from its final verdict (the filter's first three steps)."""
    stream = FateStream(rules, condenser, count, lang=lang)
    for element, verdict in zip(elements, verdicts, strict=True):
        stream.feed(element, verdict)
    measure = stream.finish()
    return stream.fates, measure
