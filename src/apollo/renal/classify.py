"""The classifier: one verdict per transcript element, decided with context, in one stream.

Each element gets a category (decision, preference, task, question, process, noise), an action
(keep, compress, drop, confirm), a confidence and a reason a person can read. Two passes run
together, with bounded memory:

- a local pass reads each element with a small window of what came before it (who holds the
  floor, whether the last turn asked a yes/no question or proposed something): "好的" after a
  plan is noise, "对" after "要用 PostgreSQL 吗？" is the answer;
- a resolution pass over the must-keep candidates only (decisions, preferences, active tasks,
  open questions, the pending proposal, recent tool calls) revises earlier verdicts when later
  elements settle them: a question answered, a decision replaced (``superseded_by``), a task
  reported done, a proposal accepted, a tool call repeated.

:class:`Classifier` streams: ``feed(element)`` returns the new verdict and any revisions of
earlier ones as :data:`Change` s; :func:`run` collects them into a :class:`Classification` (or
only watches them go by), :func:`classify` and :func:`classify_path` are its shortcuts.
Anything uncertain is ``confirm``, never ``drop``; the user's keep/drop patterns win (Q5).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Iterable

from apollo import tokens
from apollo.records import field, replace, slotted
from apollo.renal import reading
from apollo.renal.balance import Balance, BalanceTracker, Thresholds
from apollo.renal.rules import ACTIONS, RenalRules, Signal
from apollo.renal.rules import load as load_rules
from apollo.transcript import fences
from apollo.transcript.model import Element, Kind, Role, outside, shown
from apollo.words import all_cjk

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from apollo.config import Config

CATEGORIES = ("decision", "preference", "task", "question", "process", "noise")
#: categories SPEC §1.1 keeps always while they are current
MUST_KEEP = frozenset({"decision", "preference", "task", "question"})
_QUOTE = 40
_DIGITS = r"\d"  # compiled (and kept by re) when first used, like the two token patterns below


@slotted()
class Verdict:
    """What the classifier decided about one element, and why."""

    id: str
    category: str
    action: str
    confidence: float
    reason: str
    #: current | superseded | answered | done | duplicate
    status: str = "current"
    superseded_by: str | None = None
    duplicate_of: str | None = None
    #: the element that answered this question (the digest pairs the two)
    answered_by: str | None = None
    #: machine name of the deciding rule: "social:acknowledgement", "intent:decision", "kind:heartbeat_poll"…
    rule: str = ""
    tokens: int = 0
    #: counts as a repeated confirmation (重复确认: 好的/收到/OK/thanks)
    confirmation: bool = False

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "category": self.category, "action": self.action,
                                "confidence": round(self.confidence, 3), "reason": self.reason,
                                "status": self.status, "rule": self.rule, "tokens": self.tokens}
        if self.superseded_by is not None:
            data["superseded_by"] = self.superseded_by
        if self.duplicate_of is not None:
            data["duplicate_of"] = self.duplicate_of
        return data


#: (position of the element in the stream, the verdict it replaces or None, the new verdict)
Change = tuple[int, "Verdict | None", Verdict]


@slotted()
class _Turn:
    """What the local pass remembers of a recent conversational turn."""

    pos: int
    id: str
    speaker: str
    role: str
    substantive: bool
    question: bool = False
    yes_no: bool = False
    #: asks the other side to do something ("能帮我…吗？"): "好" to it accepts rather than answers
    request: bool = False
    proposal: bool = False
    #: what a yes/no question asks, its question clauses ("要启用吗"): a Chinese yes says its verb back ("启用")
    asked: str = ""
    #: the agent asks the user to choose or to say what they want (`signal.choice_question`), and its questions (not a
    #: generic offer of help, "anything else?") say at least as much as the rest of its message: a short reply decides
    #: (not one to a report that ends on a question, nor to a question of fact)
    asks_choice: bool = False
    signals: frozenset[str] = frozenset()
    #: topic words, for content turns: what a bare decision in reply to this turn is about
    keys: frozenset[str] = frozenset()
    #: the category of the turn's verdict: what the turn stated (a decision, a preference …)
    stated: str = ""
    #: the specifics a stated turn names (ids, ports, paths): a report naming others is an outcome of its own
    specifics: frozenset[str] = frozenset()
    #: the options the agent's question offers ("SQLite or PostgreSQL?"), each with the words only it has
    options: tuple[tuple[str, frozenset[str]], ...] = ()


@slotted(eq=False)
class _Candidate:
    """An element the resolution pass may still revise (compared by identity)."""

    pos: int
    verdict: Verdict
    keys: frozenset[str] = frozenset()
    speaker: str = ""
    role: str = ""
    topic: int | None = None
    #: the category an open question takes once answered (a row's ``answered``; None: as settings say)
    answered: str | None = None
    #: what the filter does with it once answered (a row's ``answered_action``): the answer may make it stand
    answered_action: str = "compress"
    #: any answer settles it, even one that asks something back (a row's ``answer_settles``)
    settles: bool = False
    #: the fewest tokens of the agent's own an answer hands over (a row's ``answer_min_tokens``): text asked to be
    #: written is not in a reply that only says it will be ("Sure, give me a minute.")
    min_answer: int = 0
    #: the agent's text that answered it first in the current turn (the answer before any work that follows)
    answer: str | None = None
    #: the things a report names (files, paths, ids): reports naming different ones are on different work
    specifics: frozenset[str] = frozenset()
    #: a stance's own topic words, when ``keys`` also holds those of the question it replied to (None: all its own)
    own: frozenset[str] | None = None
    #: a report that says work is done (its row asks for the fact ``done``), not what could not be done
    reports_done: bool = False


@slotted()
class _Call:
    candidate: _Candidate
    digest: bytes
    repeat_of: _Call | None = None
    result_digest: bytes | None = None
    result_id: str | None = None


def _digest(*parts: str) -> bytes:
    """Identifies a text (a whole tool output, too) in bounded memory; SHA-256 because processors
    compute it in hardware, faster than BLAKE2 in software. Bytes, not hex: a saved state redacts
    its strings (:mod:`apollo.renal.check_resume`), and a hex digest reads as a key."""
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).digest()


def call_key(call_id: str) -> bytes:
    """What a tool call is remembered by until its result comes: its id's digest. Held as the id, a
    saved state (:mod:`apollo.renal.check_resume`) redacts it as any string, and a provider's call
    id (``call_`` and 24 hex digits) reads as a key: saved as its mark, the result appended after the
    save found no call, and two such calls became one."""
    return _digest(call_id)


class _Words(dict[str, str]):
    """What a row's reason can name: a signal's words, or nothing when the signal was not found."""

    def __init__(self, found: dict[str, str], **more: str) -> None:
        super().__init__(found, **more)

    def __missing__(self, key: str) -> str:
        return ""


#: a reply's words for telling whether it says more than an option: Latin words, and Chinese
#: characters one by one (a reply of an option and 就行 is those; one with 又崩了 says more)
_CHOICE_TOKEN = r"[a-z0-9]+|[^\x00-\x7f\W]"


def _own_tokens(element: Element) -> int:
    """What the speaker's own words cost: a channel's envelope around a short message makes it cost more, not say
    more (nor makes it long, nor its answer to a question a repeat worth dropping)."""
    return tokens.estimate(element.text) if element.envelope else element.tokens


def _choice_tokens(text: str) -> frozenset[str]:
    return frozenset(re.findall(_CHOICE_TOKEN, text.lower()))


def _echoed_yes(found: reading.Reading, rules: RenalRules, echo: frozenset[str]) -> bool:
    """"Yes it did", "yeah, I do", "是的，要": a yes, then only the question's subject and auxiliary
    echoed back (``echo_words``). An answer like a bare yes; "yes but not now", "对，先别" and "可以，执行吧"
    say more and are read for it."""
    if found.question or not found.content or found.found:
        return False
    rest = found.content_text().lower()
    first = found.clauses[0].social
    if first is None:  # "yes it did" in one clause: its first word or two
        words = rest.split()
        opening = next((n for n in (2, 1) if len(words) > n and _answering(rules, " ".join(words[:n]))), 0)
        if not opening:
            return False
        rest = " ".join(words[opening:])
    elif not first.answers:
        return False
    return all(token in echo or unicodedata.category(token[0]).startswith("P") for token in re.findall(_ECHO_TOKEN, rest))


def _echoed_verb(said: str, asked: str, found: reading.Reading) -> str | None:
    """The verb of a Chinese yes/no question said back, as Chinese answers: "启用" to "要启用吗？" is a yes, "不启用" a no.
    The verb is the one the question's modal governs (要, 需要, 是否, 可以, 确认 … and who does it: "要我帮你重启吗" →
    "重启"), not any word of it ("删除这些文件吗" → "文件" says nothing); two to four characters, 不 or 没 before them, a
    particle after them at most, nothing else said (the verb alone may read as an order: "启用" is one)."""
    word = said.strip().rstrip("吧啊呀呗嘛。！!")
    if found.question or any(match not in word for match in found.found.values()):
        return None
    negated = word[:1] in ("不", "没")
    verb = word[1:] if negated else word
    if 2 <= len(verb) <= 4 and all_cjk(verb) and re.search(_MODAL + re.escape(verb), asked):
        return "no" if negated else "yes"
    return None


def _said_back(said: str, asked: str) -> bool:
    """The whole reply is a word of the question said back ("继续" to "继续执行第二步吗？", "restart" to "Restart it?")."""
    word = said.strip().rstrip("吧啊呀。！!.").lower()
    return len(word) >= 2 and word in asked.lower()


#: what governs the verb a Chinese yes/no question asks about, and who would act (要我帮你…, 是否…, 需要…)
_MODAL = "(?:要|需要|是否|能否|可否|可以|能|想|确认|打算|准备)[我你您帮给]{0,3}"


#: a run of word characters (a word, a number, a CJK run, as ``echo_words`` lists them) or any other
#: mark but a space: a number ("yes, 30") or an emoji ("yes 👎") says more than an echo; punctuation does not
_ECHO_TOKEN = r"[\w']+|[^\w\s]"


def _answering(rules: RenalRules, phrase: str) -> bool:
    signal = rules.social_phrases.get(phrase.strip(",.!"))
    return signal is not None and signal.answers


def _flat(text: str) -> str:
    """``text`` on one line, its runs of blanks one space: how a copy is compared with what it repeats."""
    return " ".join(text.split())


def _plain(text: str) -> str:
    """``text`` without Markdown's emphasis marks, flattened: how a channel's copy of the agent's message is compared
    with it (WhatsApp sends **bold** back as *bold*)."""
    return _flat(text.translate(_EMPHASIS))


_EMPHASIS = str.maketrans("", "", "*_`~")


def _quote(text: str) -> str:
    flat = _flat(text)
    return flat if len(flat) <= _QUOTE else flat[: _QUOTE - 1] + "…"


class Classifier:
    """Streams verdicts over a transcript's elements with bounded memory (see the module doc)."""

    def __init__(self, config: Config | None = None, *, rules: RenalRules | None = None,
                 balance: BalanceTracker | None = None):
        self.rules = rules if rules is not None else load_rules(config)
        self._read_settings(self.rules.settings)
        #: the agent's recent texts, flattened: what a delivery copy repeats
        self._said: deque[str] = deque(maxlen=64)
        #: how many texts the agent wrote since the user last did, and the latest; at a user's message, the agent's
        #: text just before it when it was the turn's only one, as compared (what a channel that echoes the agent's
        #: replies sends back)
        self._turn_texts = 0
        self._turn_text = ""
        self._echoed: str | None = None
        #: what other sessions routed here, flattened: the same message routed again repeats it
        self._routed: deque[str] = deque(maxlen=64)
        #: the digest of the runtime's latest notice (flattened, without the times of day of its stamps), while nothing
        #: but noise was said or done since: the same notice again repeats it (a digest: the saved state holds no text)
        self._last_notice: bytes | None = None
        self.balance = balance if balance is not None else BalanceTracker(Thresholds.from_config(config))
        self._pos = -1
        self._changes: list[Change] = []
        self._fresh: list[_Candidate] = []
        self._turns: deque[_Turn] = deque(maxlen=32)
        #: the user's latest requests (where each stands, its topic words): whether the user moved on from an older one
        self._user_asked: deque[tuple[int, frozenset[str]]] = deque(maxlen=8)
        self._open_questions: list[_Candidate] = []
        self._decisions: list[_Candidate] = []
        self._preferences: list[_Candidate] = []
        self._tasks: list[_Candidate] = []
        #: the latest report of work done and the task it closed: a report the user says failed reopens it
        self._closed: tuple[str, _Candidate] | None = None
        #: the agent's reports that stand (outcomes, blockers): a later report on the same work replaces them
        self._outcomes: list[_Candidate] = []
        self._proposal: _Candidate | None = None
        #: a formula ending in a comma ("Yeah,"): noise unless its speaker goes on with content next
        self._opening: _Candidate | None = None
        #: the agent's latest report of work done, until the agent goes on working (then it narrated a step)
        self._report: _Candidate | None = None
        #: the agent's question in its latest text, until it goes on working (then it asked itself)
        self._asked: _Candidate | None = None
        #: that question once the agent went on working: its own later text in the turn may answer it
        self._asked_checking: _Candidate | None = None
        #: the agent called a tool since the user last wrote: it tried the work it reports on
        self._worked = False
        #: the latest user-side message was a scheduled job's prompt: the agent works in the job's run
        self._scheduled_run = False
        self._texts: OrderedDict[bytes, _Candidate] = OrderedDict()
        self._calls: OrderedDict[bytes, _Call] = OrderedDict()
        self._pending_calls: dict[bytes, _Call] = {}  # by :func:`call_key`
        self._awaiting: list[_Candidate] = []
        #: the user's questions the agent has answered in its current turn, settled when the turn ends
        self._answering: list[_Candidate] = []
        #: the agent's latest text in that turn (its id, and whether it asks something back); None when
        #: the agent went on working after it (then it narrated a step: the questions stay open)
        self._last_answer: tuple[str, bool, frozenset[str], int] | None = None
        self._turn_keys: frozenset[str] = frozenset()
        #: each speaker's latest substantive turn (position): what came after it, a reply of theirs answers
        self._spoke: dict[str, int] = {}
        #: the record of the user's latest text, which the agent's reply may take as an instruction to keep
        self._latest_user: _Candidate | None = None
        #: the kept reports of turns that report the state of checks (``state_reports``), each with the count of
        #: heartbeat polls when it was made, until the user writes
        self._state_reports: list[tuple[_Candidate, int]] = []
        self._polls = 0

    def _read_settings(self, settings: dict[str, Any]) -> None:
        """The ``[classify]`` settings, read once per classifier."""
        self._confirm_below = settings["confirm_below"]
        self._social_max_chars = settings["social_max_chars"]
        self._tool_keep_tokens = settings["tool_keep_tokens"]
        self._compress_tokens = settings["compress_tokens"]
        self._long_user_tokens = settings["long_user_tokens"]
        self._duplicate_min_tokens = settings["duplicate_min_tokens"]
        self._echo_min_tokens = settings["echo_min_tokens"]
        self._memory = settings["memory"]
        self._max_candidates = settings["max_candidates"]
        self._turn_rows: list[dict[str, Any]] = settings["turns"]
        self._kind_rows: list[dict[str, Any]] = settings["kinds"]
        self._user_rows: list[dict[str, Any]] = settings["from_user"]
        self._agent_rows: list[dict[str, Any]] = settings["from_agent"]
        self._agent_question_answered: str = settings["agent_question_answered"]
        self._answer_share: float = settings["answer_min_share"]
        self._answer_shared: int = settings["answer_min_shared"]
        self._superseded_leave = frozenset(settings["superseded_leave"])
        self._echo_words = frozenset(settings["echo_words"])
        self._stance_categories = frozenset(settings["stance_categories"])
        self._specifics = re.compile(settings["stance_report_specifics"])
        self._restate_named = re.compile(settings["restate_specifics_named"])
        self._notice_stamps = re.compile(settings["notice_stamps"], re.MULTILINE)
        self._notice_times = re.compile(settings["notice_times"])
        self._answer_left_open_by: list[str] = settings["answer_left_open_by"]
        self._answer_held_by = frozenset(settings["answer_held_by"])
        self._left_to_user_by = frozenset(settings["left_to_user_by"])
        self._left_to_user_done_by = frozenset(settings["left_to_user_done_by"])
        self._answer_max_keys: int = settings["answer_max_keys"]
        self._moves_on_by = frozenset(settings["question_left_by"])
        self._restated_share: float = settings["request_restated_share"]
        self._failed_by = [self.rules[name] for name in settings["outcome_failed_by"]]
        self._failed_unless = [self.rules[name] for name in settings["outcome_failed_unless"]]
        self._failed_after = frozenset(settings["outcome_failed_after"])
        self._failed_after_by = [self.rules[name] for name in settings["outcome_failed_after_by"]]
        self._done_closes_unless = tuple(settings["done_closes_unless"])
        self._tasks_called_off_by = tuple(settings["tasks_called_off_by"])
        self._choice_markers = re.compile(settings["choice_markers"], re.IGNORECASE)
        self._choice_rejects = re.compile(settings["choice_rejects"], re.IGNORECASE)
        self._choice_list_ends: str = settings["choice_list_ends"]
        self._choice_max_tokens: int = settings["choice_reply_max_tokens"]
        self._without_words = re.compile(settings["reply_without_words"])
        self._attachment = re.compile(settings["attachment_placeholder"])
        self._structured_reply = re.compile(settings["structured_reply"])
        self._fenced_answers = frozenset(settings["fenced_answers"])
        self._choice_fillers = frozenset(settings["choice_fillers"])
        self._option_item = re.compile(settings["option_item"], re.IGNORECASE)
        self._asks_quantity = re.compile(settings["option_not_after"])
        self._state_flags: tuple[str, ...] = tuple(settings["state_reports"])
        self._delivered_runs: frozenset[str] = frozenset(settings["delivered_runs"])
        self._delivered_states: frozenset[str] = frozenset(settings["delivered_states"])
        self._failed_parts_by: tuple[str, ...] = tuple(settings["failed_parts_by"])
        self._replies_to: tuple[tuple[str, str], ...] = tuple((fact, signal) for fact, signal in settings["replies_to"])

    # -- the stream ----------------------------------------------------------------------------

    def feed(self, element: Element) -> list[Change]:
        """Classify the next element; returns its verdict first, then revisions of earlier ones."""
        self._pos += 1
        self._changes = []
        self._fresh = []
        if element.role is Role.USER:
            self._settle_answers()
        verdict = self._guard(self._decide(element))
        verdict = self._override(element, verdict)
        if element.role is Role.USER and element.kind is Kind.TEXT:  # what the agent's next reply may adopt
            self._latest_user = next(iter(self._fresh), None) or self._candidate(
                None, element, "user", element.speaker or "user")
        if element.kind in (Kind.TEXT, Kind.HEARTBEAT_REPLY, Kind.TOOL_CALL) and not element.extra.get("notice_only") \
                and verdict.category != "noise":
            self._last_notice = None  # the conversation or the work moved on: the same notice again is news again
        if element.kind is Kind.HEARTBEAT_POLL:
            self._polls += 1
        elif element.role is Role.USER and (verdict.category != "noise" or verdict.rule.startswith("social:")):
            self._state_reports = []  # the user took it up, if only with an "ok"
        elif element.role is Role.ASSISTANT and element.kind is Kind.TEXT and element.in_context:
            if verdict.rule in self._delivered_runs:  # a report the runtime delivered from another run: a run of its own
                self._polls += 1
                self._report_state(element, supersedes=verdict.rule in self._delivered_states)
            elif verdict.category == "process" and self._reports_checks(element):
                self._report_state(element)
        for candidate in self._fresh:
            candidate.verdict = verdict
        if verdict.rule == "user:drop":
            self._forget(self._fresh)
        return [(self._pos, None, verdict), *self._changes]

    def finish(self) -> list[Change]:
        """End of the transcript: tool output and reasoning nothing acted on yet stay whole."""
        self._changes = []
        self._settle_answers()
        for candidate in self._awaiting:
            self._amend(candidate, action="keep", confidence=0.8, rule="context:latest",
                        reason="the latest tool output or reasoning: nothing has acted on it yet")
        self._awaiting = []
        return self._changes

    @property
    def active_task_ids(self) -> list[str]:
        return [c.verdict.id for c in self._tasks]

    @property
    def open_question_ids(self) -> list[str]:
        return [c.verdict.id for c in self._open_questions]

    def active_topics(self) -> int:
        """Topics with an open task or question, plus the one being talked about now."""
        topics = {c.topic for c in (*self._tasks, *self._open_questions) if c.topic is not None}
        if self.balance.current_topic is not None:
            topics.add(self.balance.current_topic)
        return len(topics)

    # -- verdicts and revisions ------------------------------------------------------------------

    def _verdict(self, element: Element, category: str, action: str, confidence: float, reason: str, rule: str,
                 **extra: Any) -> Verdict:
        return Verdict(element.id, category, action, confidence, reason, rule=rule,
                       tokens=element.tokens if element.in_context else 0, **extra)

    def _guard(self, verdict: Verdict) -> Verdict:
        """Current must-keep elements are kept; nothing uncertain is dropped or compressed."""
        if verdict.category in MUST_KEEP and verdict.status == "current" and verdict.action != "keep":
            return replace(verdict, action="keep")
        if verdict.action in ("drop", "compress") and verdict.confidence < self._confirm_below:
            return replace(verdict, action="confirm")
        return verdict

    def _amend(self, candidate: _Candidate, **changes: Any) -> None:
        old = candidate.verdict
        if old.rule == "user:drop":
            return
        if old.rule == "user:keep":  # the user's keep stands: only links and status may change
            changes = {k: v for k, v in changes.items() if k in ("status", "superseded_by", "duplicate_of",
                                                                   "answered_by")}
        new = self._guard(replace(old, **changes))
        if new != old:
            candidate.verdict = new
            self._changes.append((candidate.pos, old, new))

    def _candidate(self, store: list[_Candidate] | None, element: Element, role: str, speaker: str,
                   keys: frozenset[str] = frozenset(), topic: int | None = None) -> _Candidate:
        """A revisable record of the element being classified (its verdict is filled in by ``feed``)."""
        candidate = _Candidate(self._pos, Verdict(element.id, "process", "keep", 0.0, ""), keys, speaker, role,
                               topic)
        self._fresh.append(candidate)
        if store is not None:
            self._hold(store, candidate)
        return candidate

    def _hold(self, store: list[_Candidate], candidate: _Candidate) -> None:
        """``candidate`` added to ``store``, which holds the newest ``max_candidates`` only."""
        store.append(candidate)
        if len(store) > self._max_candidates:
            del store[0]

    def _forget(self, candidates: list[_Candidate]) -> None:
        for store in (self._open_questions, self._decisions, self._preferences, self._tasks, self._awaiting,
                      self._outcomes):
            store[:] = [c for c in store if c not in candidates]
        if self._proposal in candidates:
            self._proposal = None

    def _override(self, element: Element, verdict: Verdict) -> Verdict:
        """Q5: the user's keep patterns, then drop patterns, have the final word."""
        for pattern in self.rules.keep:
            if pattern.search(element.text):
                category = "process" if verdict.category == "noise" else verdict.category
                return replace(verdict, category=category, action="keep", confidence=1.0, rule="user:keep",
                               reason=f"your keep pattern /{pattern.pattern}/ (the classifier said: {verdict.reason})")
        for pattern in self.rules.drop:
            if pattern.search(element.text):
                return replace(verdict, category="noise", action="drop", confidence=1.0, rule="user:drop",
                               status="current", reason=f"your drop pattern /{pattern.pattern}/")
        return verdict

    # -- by kind ---------------------------------------------------------------------------------

    def _decide(self, element: Element) -> Verdict:
        if not element.in_context:
            return self._verdict(element, "process", "keep", 1.0, "outside the model's context (another branch, "
                                 "or before a compaction): the filter leaves it alone", "context:outside")
        if element.role is Role.ASSISTANT and element.kind is Kind.TEXT and not element.extra.get("mirror"):
            for said in (element.text, element.extra.get("error", "")):
                if said.strip():
                    self._said.append(_flat(said))
            if element.text.strip():
                self._turn_texts, self._turn_text = self._turn_texts + 1, element.text
        elif element.role is Role.USER:
            self._echoed = _plain(self._turn_text) if self._turn_texts == 1 else None
            self._turn_texts, self._turn_text = 0, ""
        notice = self._notice_digest(element) if element.extra.get("notice_only") else None
        by_row = (self._by_row(element, self._turn_rows, notice) if element.extra else None) or self._by_row(
            element, self._kind_rows, notice)
        if element.extra.get("routed") and element.text.strip():  # another session's message: the same again repeats it
            self._routed.append(_flat(element.text))
        if notice is not None:
            self._last_notice = notice
        if by_row is not None:
            if element.role is Role.USER:  # a runtime notice opens a turn: the work before it is not the reply's
                self._worked = False
                self._scheduled_run = bool(element.extra.get("scheduled"))
                # what the agent says next replies to it (a heartbeat poll, a job's notice), not to a greeting before it
                self._remember(element, element.speaker or "user", "user", substantive=False)
            return by_row
        kind = element.kind
        if kind is Kind.THINKING:
            return self._thinking(element)
        if kind is Kind.TOOL_CALL:
            return self._tool_call(element)
        if kind is Kind.TOOL_RESULT or element.role is Role.TOOL:
            return self._tool_result(element)
        return self._text(element)

    def _by_row(self, element: Element, rows: list[dict[str, Any]], notice: bytes | None) -> Verdict | None:
        """The first row (``[[classify.turns]]``, ``[[classify.kinds]]``) that fits the element's turn
        flag and kind, if any; ``notice`` is the element's digest when it is a runtime notice (computed once)."""
        for row in rows:
            flag = element.extra.get(row["when"]) if "when" in row else True
            if not flag or ("kinds" in row and element.kind.value not in row["kinds"]):
                continue
            if element.tokens > row.get("max_tokens", element.tokens) or (row.get("copy") and not self._said_before(
                    element.text)) or (row.get("routed_again") and _flat(element.text) not in self._routed) or (
                    row.get("noticed_again") and (notice is None or notice != self._last_notice)) or (
                    row.get("chatter") and not self._is_agent_chatter(shown(element))) or (
                    "says" in row and not self.rules[row["says"]].search(element.text or element.envelope)) or any(
                    self.rules[name].search(element.text) for name in row.get("unless_says", ())):
                continue
            return self._verdict(element, row["category"], row["action"], row["confidence"],
                                 row["reason"].format(flag=flag), row["rule"])
        return None

    def _notice_digest(self, element: Element) -> bytes:
        """A runtime notice as compared with the one before it: flattened, its stamps (``notice_stamps``) without their
        times of day (``notice_times``): a reminder every 30 minutes differs from the last only in them, one on
        another day in its date."""
        unstamped = self._notice_stamps.sub(lambda stamp: self._notice_times.sub("", stamp.group(0)),
                                            f"{element.envelope}\n{element.text}")
        return _digest(_flat(unstamped))

    def _echoes_agent(self, text: str) -> bool:
        """``text`` is the agent's message just before it, whole, as a channel sends it back: the only text of the
        agent's turn (one of several sent apart may be copied to pick it, or a phrase asked for typed back)."""
        return self._echoed is not None and _plain(text) == self._echoed

    def _said_before(self, text: str) -> bool:
        flat = _flat(text)
        return bool(flat) and any(flat in earlier for earlier in self._said)

    def _is_agent_chatter(self, text: str) -> bool:
        rules = self.rules
        return not text.strip() or any(rules[name].search(text) for name in ("heartbeat_ok", "no_reply"))

    def _acted(self) -> None:
        """The agent moved on: the tool output and reasoning before this point have been used."""
        self._awaiting = []

    def _thinking(self, element: Element) -> Verdict:
        verdict = self._verdict(element, "process", "drop", 0.8, "reasoning already turned into what the agent "
                                "did next", "process:thinking")
        self._awaiting.append(self._candidate(None, element, "assistant", "assistant"))
        return verdict

    def _answered_itself(self, element: Element) -> None:
        """The agent asked, went on working, and now says what the question was about ("配置里有这个开关吗？",
        a check, "没有这个开关，我加上了"): a question it answered itself, no question for the user."""
        asked = self._asked_checking
        if asked is None or len(reading.keywords(element.text, self.rules) & asked.keys) < self._answer_shared:
            return
        self._asked_checking = None
        self._forget([asked])
        self._amend(asked, category="process", confidence=0.7, rule="process:narration",
                    reason=f"asks, goes on working and answers it in #{element.id}: a question it answered itself")

    def _tool_call(self, element: Element) -> Verdict:
        self._acted()
        self._worked = True
        # a report that answered the user's question is that answer: the work after it serves the rest of the request
        if self._report is not None and not any(c.answer == self._report.verdict.id for c in self._answering):
            self._amend(self._report, category="process", confidence=0.7, rule="process:narration",
                        reason=f"reports a step and goes on working (#{element.id}): the turn's outcome comes later")
            if self._closed is not None and self._closed[0] == self._report.verdict.id:
                # "我已经阅读了文档…" and then it goes on: a step done, not the task ("install it", "give me a report")
                self._reopen(self._closed[1], f"#{self._report.verdict.id} reported a step and went on working: "
                             "still open until the turn reports it done")
        self._report = None
        if self._asked is not None:  # "配置里有这个开关吗？" and then it checks: answered by a later text?
            self._asked_checking, self._asked = self._asked, None
        self._last_answer = None  # what the agent said before this call narrated a step
        digest = _digest(element.tool_name or "", element.text)
        earlier = self._calls.get(digest)
        candidate = self._candidate(None, element, "assistant", "assistant")
        call = _Call(candidate, digest, repeat_of=earlier)
        if earlier is not None:
            verdict = self._verdict(element, "noise", "drop", 0.8, f"repeats the identical call #{earlier.candidate.verdict.id} "
                                    f"({element.tool_name or 'tool'}, same arguments)", "repeat:tool_call",
                                    status="duplicate", duplicate_of=earlier.candidate.verdict.id)
        elif element.tokens > self._compress_tokens:
            verdict = self._verdict(element, "process", "compress", 0.75, f"large {element.tool_name or 'tool'} call "
                                    "arguments, already executed", "process:tool_call")
        else:
            verdict = self._verdict(element, "process", "keep", 0.8, f"{element.tool_name or 'tool'} call",
                                    "process:tool_call")
        self._calls[digest] = call
        self._calls.move_to_end(digest)
        if len(self._calls) > self._memory:
            self._calls.popitem(last=False)
        if element.call_id:
            self._pending_calls[call_key(element.call_id)] = call
            if len(self._pending_calls) > self._memory:
                del self._pending_calls[next(iter(self._pending_calls))]
        return verdict

    def _tool_result(self, element: Element) -> Verdict:
        call = self._pending_calls.pop(call_key(element.call_id), None) if element.call_id else None
        digest = _digest(element.text)
        if call is not None:
            call.result_digest, call.result_id = digest, element.id
            earlier = call.repeat_of
            if earlier is not None and earlier.result_digest == digest:
                return self._verdict(element, "noise", "drop", 0.85, f"same output as #{earlier.result_id} of the "
                                     "identical call", "repeat:tool_result", status="duplicate",
                                     duplicate_of=earlier.result_id)
            if earlier is not None:
                self._amend(call.candidate, category="process", action="keep", confidence=0.75, status="current",
                            duplicate_of=None, rule="process:tool_call",
                            reason=f"same call as #{earlier.candidate.verdict.id}, but its output changed")
        if element.tokens <= self._tool_keep_tokens:
            return self._verdict(element, "process", "keep", 0.8, "short tool output", "process:tool_result")
        self._awaiting.append(self._candidate(None, element, "tool", "tool"))
        return self._verdict(element, "process", "compress", 0.85, "tool output the agent has already acted on: "
                             "head and tail are enough", "process:tool_result")

    # -- conversation text -------------------------------------------------------------------------

    def _text(self, element: Element) -> Verdict:
        role = element.role.value
        speaker = element.speaker or role
        text = shown(element).strip()
        rules = self.rules
        if role == "assistant":
            self._acted()
            self._answered_itself(element)
        elif role == "user":
            self._worked = False
            self._scheduled_run = False
            self._asked_checking = None
        self._report = None
        self._asked = None
        if not text:
            if element.extra.get("reasoning"):  # only the reasoning a model wrote in tags ("<think>…</think>"): its
                return self._thinking(element)  # thinking, as a block of it is (the reader marks it with its markup)
            self._remember(element, speaker, role, substantive=False)
            reason = "no content, only the agent's wrapper" if element.envelope.strip() else "empty message"
            return self._verdict(element, "noise", "drop", 0.8, reason, "empty")
        if all(unicodedata.category(char).startswith("P") or char.isspace() for char in text):
            self._remember(element, speaker, role, substantive=False)
            return self._verdict(element, "noise", "drop", 0.8, f'"{_quote(text)}": punctuation only, no words',
                                 "content:punctuation")
        for name in ("heartbeat_poll", "heartbeat_ok", "no_reply"):
            if rules[name].applies_to(role) and rules[name].search(text):
                return self._verdict(element, "noise", "drop", rules[name].confidence, rules[name].about,
                                     f"agent:{name}")
        marker = str(element.extra.get("marker", "")) if element.extra else ""
        if marker and rules["todo_open"].search(marker):  # a Markdown "- [ ] …" item
            self._remember(element, speaker, role, substantive=True)
            # in a document the box is the item's state, ticked by whoever writes it: a line elsewhere
            # that reports something done with a word in common does not close it ("✅ Catalogued
            # (100+ phones)" had closed "- [ ] Make first sales (target: 5-10 phones)")
            keys = reading.keywords(text, rules) if element.scope is None else frozenset()
            self._candidate(self._tasks, element, role, speaker, keys)
            return self._verdict(element, "task", "keep", 0.85, "an open to-do item", "intent:todo")
        title = str(element.extra.get("title", "")) if element.extra else ""
        for name, category in (("section_decision", "decision"), ("section_preference", "preference")):
            if title and rules[name].search(title):  # "- Use one number for both stores" under "## Key Decisions"
                self._remember(element, speaker, role, substantive=True)
                return self._verdict(element, category, "keep", rules[name].confidence,
                                     f'stands under "{_quote(title)}"', f"structure:{name}")
        if marker and rules["todo_done"].search(marker):
            self._remember(element, speaker, role, substantive=True)
            return self._verdict(element, "process", "compress", 0.75, "a finished to-do item", "intent:todo_done")
        if role == "system":
            self._remember(element, speaker, role, substantive=True)
            return self._verdict(element, "preference", "keep", 0.9, "system prompt: standing instructions",
                                 "role:system")
        # intents only in the speaker's own words; what they pasted makes the message more than a formula
        # (and what a vision model wrote of their image, or the runtime around a queued item, which the
        # transcript's reader marks)
        unsaid = sorted([*element.extra.get("described", ()), *element.extra.get("furniture", ())])
        said = reading.own_words(text if not unsaid else outside(element.text, unsaid).strip(), rules)
        if role == "user" and said != text:  # what a run printed, pasted by the user: evidence, like a tool result
            self._worked = True
        if not said:
            return self._pasted(element, text, role, speaker)
        found = reading.read(said, role, rules, social=said == text and len(text) <= self._social_max_chars)
        self._turn_keys = frozenset()
        reference = self._reference()
        previous_other = next((t for t in reversed(self._turns) if t.speaker != speaker), None)
        verdict = self._social(element, found, role, speaker, reference, previous_other) if found.social_only else None
        if verdict is None:
            if found.social_only:  # no formula here: read for what it says
                found = reading.read(said, role, rules, social=False)
            verdict = self._what_it_says(element, text, said, found, role, speaker, reference)
        substantive = verdict.category != "noise" and verdict.rule not in ("content:fragment", "context:interjection",
                                                                           "context:opening")
        self._opens_turn(element, speaker, found, verdict, substantive=substantive)
        self._remember(element, speaker, role, substantive=substantive, found=found, stated=verdict.category)
        return verdict

    def _what_it_says(self, element: Element, text: str, said: str, found: reading.Reading, role: str,
                      speaker: str, reference: _Turn | None) -> Verdict:
        """The verdict on what a message says beyond formulas: a fragment, a word-for-word repeat, or content."""
        if found.fragment_only:
            return self._verdict(element, "process", "keep", 0.7, f'"{_quote(text)}": an unfinished fragment',
                                 "content:fragment")
        digest, earlier = self._earlier_copy(element, text)
        # a short answer given again to the question asked again ("蓝色" each time the agent asks the colour), picking an
        # option of a new choice ("Frankfurt" to each "Frankfurt or Virginia?") or to a new yes/no question ("继续" to each
        # "继续吗？", "yes", "no") is said anew: this one answers the question just asked
        answers = earlier is not None and reference is not None and reference.speaker != speaker \
            and reference.question and _own_tokens(element) < self._duplicate_min_tokens \
            and (earlier.verdict.rule == "context:answer" or self._picked(element, found, reference) is not None or (
                reference.yes_no and (found.bare in ("agreement", "rejection") or _said_back(said, reference.asked))))
        if earlier is not None and not answers:
            return self._verdict(element, "noise", "drop", 0.85, f"repeats #{earlier.verdict.id} word for word",
                                 "repeat:text", status="duplicate", duplicate_of=earlier.verdict.id)
        if role == "user" and _own_tokens(element) >= self._echo_min_tokens and self._echoes_agent(text):
            return self._verdict(element, "noise", "drop", 0.8, "the agent's own words sent back as the user's (a channel "
                                 "that echoes the agent's replies): the agent's message holds them", "repeat:echo")
        verdict = self._content(element, said, found, role, speaker, reference)
        if digest is not None:
            self._remember_copy(digest, element)
        return verdict

    def _opens_turn(self, element: Element, speaker: str, found: reading.Reading, verdict: Verdict, *,
                    substantive: bool) -> None:
        """"Yeah," with the speaker going on in their next message opens their turn (an agreement, an
        answer's start) rather than letting the other side keep the floor: not noise after all."""
        opening, self._opening = self._opening, None
        if opening is not None and substantive and opening.speaker == speaker:
            self._amend(opening, category="process", action="keep", confidence=0.65, rule="context:turn_opening",
                        reason=f"opens the speaker's turn, which goes on in #{element.id}")
        if verdict.category == "noise" and verdict.rule.startswith("social:") and (
                found.incomplete or any(s.opens for s in found.social)):
            self._opening = self._candidate(None, element, element.role.value, speaker)

    def _reference(self) -> _Turn | None:
        """The turn a reply responds to: the latest substantive one (acknowledgements and fragments
        in between are transparent, as in a run of "uh-huh … yeah")."""
        return next((t for t in reversed(self._turns) if t.substantive), None)

    def _remember(self, element: Element, speaker: str, role: str, *, substantive: bool,
                  found: reading.Reading | None = None, stated: str = "") -> None:
        turn = _Turn(self._pos, element.id, speaker, role, substantive)
        if substantive:
            self._spoke[speaker] = self._pos
        if found is not None:
            turn.signals = frozenset({*(s.name for s in found.social), *found.found})
            # an agent's generic offer of more help ("¿Algo más en lo que pueda ayudarte?") asks nothing a reply settles
            generic = role == "assistant" and found.question and found.only_offers(self.rules["open_offer"])
            turn.question = (found.question or found.tag) and not generic
            turn.yes_no = (found.yes_no or found.tag) and not generic
            turn.asked = found.question_text() if found.yes_no else ""
            turn.request = found.question and "request" in found.found
            turn.proposal = "proposal" in found.found
            turn.keys = self._turn_keys
            turn.stated = stated
            if stated in self._stance_categories:
                turn.specifics = self._specifics_in(found.content_text())
            if role == "assistant" and found.question:
                turn.options = reading.alternatives(found, self.rules, self._choice_markers, self._choice_list_ends) or (
                    () if self._asks_quantity.search(found.question_text()) else reading.enumerated(found, self._option_item))
                turn.asks_choice = found.asks(self.rules["choice_question"]) and found.asks_mostly(self.rules["open_offer"])
        if role == "user" and stated == "task":
            self._user_asked.append((turn.pos, turn.keys))
        self._turns.append(turn)

    def _social(self, element: Element, found: reading.Reading, role: str, speaker: str, reference: _Turn | None,
                previous_other: _Turn | None) -> Verdict | None:
        """The verdict on a message of formulas only; None when one of them is no formula after the turn
        before (a signal's ``not_after``): then the message is read as any other."""
        signals = found.social
        quoted = _quote(element.text)
        unconditional = any(s.anywhere and not s.after for s in signals)
        # what the turn before asked for, beside its signals: "let me check" puts off the answer to a
        # question, "没问题" is a yes to a yes/no question or a proposal ("要我现在重启服务吗？" → "没问题")
        asked = {name for name, holds in (("question", previous_other.question), ("yes_no", previous_other.yes_no),
                                          ("proposal", previous_other.proposal)) if holds} if previous_other else set()
        before = (previous_other.signals | asked) if previous_other else set()
        for signal in signals:
            # "What are you doing?" → "Checking the mail.": the answer, read as one (unless the turn
            # before also asked for something: "Restart it and tell me your plans" → "On it.")
            if before & signal.not_after and not (previous_other and previous_other.signals & signal.not_after_unless):
                return None
            if signal.after and not unconditional and not before & signal.after:
                return self._verdict(element, "process", "keep", 0.6, f'"{quoted}" is not a reply to '
                                     f"{' or '.join(sorted(signal.after))} here", "context:conditional")
        spoken = [s for s in signals if not s.sound]
        if not spoken:  # "um", "uh.", "哈哈": holds the floor or reacts, acknowledges nothing
            return self._verdict(element, "process", "keep", 0.7, f'"{quoted}": {signals[0].about}, not a reply',
                                 "content:fragment")
        if found.tag:  # "right?": checks that the listener follows, and waits for the answer
            return self._verdict(element, "process", "keep", 0.7, f'"{quoted}" asks the listener to confirm',
                                 "context:check")
        primary: Signal = reading.leading(spoken) if spoken else signals[0]
        answers = bool(spoken) and all(s.answers or s.sound for s in signals)
        anywhere = any(s.anywhere for s in signals)
        confirmation = any(s.confirmation for s in signals)
        # "Yeah," with a comma: the speaker goes on, so it may open a turn rather than acknowledge one
        confidence = primary.confidence - (0.15 if found.incomplete else 0.0)
        noise_reason = f'{primary.about}: "{quoted}"'
        last = self._turns[-1] if self._turns else None
        if reference is None or last is None:
            if anywhere:
                return self._noise(element, confidence, noise_reason, primary, confirmation)
            return self._verdict(element, "process", "keep", 0.5, f'"{quoted}" with nothing before it to reply to '
                                 "(it may answer something before the transcript starts)", "context:opening")
        if last.speaker == speaker and last.substantive and not anywhere:
            return self._verdict(element, "process", "keep", 0.55, f'"{quoted}" inside the speaker\'s own turn: an '
                                 "interjection, not a reply", "context:interjection")
        replying = reference.speaker != speaker
        if replying and reference.question and answers:
            if reference.request:
                return self._noise(element, confidence, f'"{quoted}" accepts the request #{reference.id}', primary,
                                   confirmation)
            if reference.yes_no:
                return self._answer(element, role, reference, quoted, "yes")
            # "嗯嗯" to "需要提前多久预约？": a yes or an uh-huh cannot answer a wh-question, which stays open
            return self._noise(element, confidence, f'"{quoted}" does not answer the open question '
                               f"#{reference.id}", primary, confirmation)
        if replying and reference.proposal and answers and role == "user":
            self._accept(reference, element)
            return self._noise(element, confidence, f'"{quoted}" accepts the proposal #{reference.id}, '
                               "which is kept as the decision", primary, confirmation)
        if replying and all(s.agrees for s in spoken):  # "对" to a statement: "that is correct"
            return self._verdict(element, "process", "keep", 0.65, f'"{quoted}" agrees with #{reference.id}',
                                 "content:agreement")
        return self._noise(element, confidence, f"{noise_reason} after {reference.role} #{reference.id}",
                           primary, confirmation)

    def _noise(self, element: Element, confidence: float, reason: str, signal: Signal, confirmation: bool) -> Verdict:
        return self._verdict(element, "noise", "drop", confidence, reason, f"social:{signal.name}",
                             confirmation=confirmation)

    def _answer(self, element: Element, role: str, question: _Turn, quoted: str, polarity: str | None) -> Verdict:
        """A bare yes or no to a yes/no question (``polarity``), or a short answer to another question (None): the
        answer is content, and the pair states a decision when the agent asked and the user answered."""
        decides = question.role == "assistant" and role == "user"
        candidate = self._settled(question, proposal=polarity is None)
        if candidate is not None:
            self._amend(candidate, category="decision" if decides else candidate.verdict.category,
                        status="current" if decides else "answered", confidence=0.75, rule="context:answered",
                        reason=(f'yes/no question answered "{quoted}" ({polarity})' if polarity else
                                f'question answered "{quoted}"') + f" in #{element.id}"
                               + (": with its answer it states a decision" if decides else ""))
            if decides:  # the user decided it: the agent restating it later does not replace it
                candidate.role = "user"
                self._decisions.append(candidate)
        # the decision is recorded once: on the question its answer settled, else on the answer
        records = decides and candidate is None
        return self._verdict(element, "decision" if records else "process", "keep", 0.75,
                             (f'"{quoted}" answers the yes/no question #{question.id} ({polarity})' if polarity else
                              f'"{quoted}" answers the question #{question.id}')
                             + (": the question now states the decision" if decides and not records else ""),
                             "context:answer")

    def _answers_choice(self, element: Element, said: str, found: reading.Reading, other: _Turn) -> bool:
        """A short reply that says nothing else (no order, rule or question of its own, no bare yes or no, some words:
        `reply_without_words`) to the agent's question asking the user to choose ("Vim" to "Which editor do you
        prefer?"): it settles the choice, as a yes settles a yes/no question. Not after an offer of help ("Hi, what
        can I do?": what follows is the user's own), a report that ends on a question (the report is no decision) or a
        question of fact (its answer is information)."""
        return other.role == "assistant" and other.question and not other.yes_no and other.asks_choice \
            and not found.found and not found.question and found.bare is None \
            and _own_tokens(element) <= self._choice_max_tokens and not self._without_words.match(said.strip()) \
            and self._pending(other, proposal=True) is not None

    def _pending(self, question: _Turn, *, proposal: bool) -> _Candidate | None:
        """The record awaiting a reply at ``question``: its open question, or (``proposal``) the offer there awaiting
        the user's answer ("What should I call myself?" offers to take a name)."""
        candidate = next((c for c in self._open_questions if c.pos == question.pos), None)
        if candidate is None and proposal and self._proposal is not None and self._proposal.pos == question.pos:
            candidate = self._proposal
        return candidate

    def _settled(self, question: _Turn, *, proposal: bool) -> _Candidate | None:
        """The record a reply settles (:meth:`_pending`), taken off its list."""
        candidate = self._pending(question, proposal=proposal)
        if candidate is self._proposal:
            self._proposal = None
        elif candidate is not None:
            self._open_questions.remove(candidate)
        return candidate

    def _accept(self, proposal: _Turn, element: Element) -> None:
        candidate = self._proposal
        if candidate is None or candidate.pos != proposal.pos:
            return
        self._proposal = None
        self._amend(candidate, category="decision", action="keep", confidence=0.75, rule="context:accepted",
                    reason=f"proposal accepted by the user in #{element.id}")
        candidate.role = "user"  # the user decided it (see _answer)
        self._supersede(candidate, self._decisions, strong=False)
        self._decisions.append(candidate)

    def _earlier_copy(self, element: Element, text: str) -> tuple[bytes | None, _Candidate | None]:
        """The same message seen before, word for word: one copy is enough (a question asked
        again after its answer is not a repeat but a sign for the balance check), not an attachment's placeholder."""
        if element.tokens < self._duplicate_min_tokens or self._attachment.match(text):
            return None, None
        scope = () if element.scope is None else (element.scope,)  # a document's section (the model's Element)
        digest = _digest(element.role.value, *scope, " ".join(text.lower().split()))
        earlier = self._texts.get(digest)
        if earlier is None or earlier.verdict.status == "answered":
            return digest, None
        self._texts.move_to_end(digest)
        return digest, earlier

    def _remember_copy(self, digest: bytes, element: Element) -> None:
        # share the open-question record, so an answer shows here too
        question = next((c for c in self._fresh if c in self._open_questions), None)
        self._texts[digest] = question or self._candidate(None, element, element.role.value, "")
        if len(self._texts) > self._memory:
            self._texts.popitem(last=False)

    def _content(self, element: Element, said: str, found: reading.Reading, role: str, speaker: str,
                 reference: _Turn | None) -> Verdict:
        """``said``: the speaker's own words (what they pasted set aside), which ``found`` read."""
        quoted = _quote(element.text)
        markers = found.found
        bare = found.bare
        # the other side's turn this one replies to, if it replies to one
        other = reference if reference is not None and reference.speaker != speaker else None
        if bare in ("rejection", "agreement") and other is not None and other.question and other.yes_no:
            return self._answer(element, role, other, quoted, "no" if bare == "rejection" else "yes")
        if other is not None and other.question and other.yes_no and _echoed_yes(found, self.rules, self._echo_words):
            return self._answer(element, role, other, quoted, "yes")
        if other is not None and (echoed := _echoed_verb(said, other.asked, found)) is not None:  # asked: yes/no only
            return self._answer(element, role, other, quoted, echoed)
        if role == "user" and other is not None and self._answers_choice(element, said, found, other):
            return self._answer(element, role, other, quoted, None)
        topic: int | None
        if role == "user":
            topic, keys = self.balance.observe_reading(element.id, found, self.rules, element.timestamp)
        else:
            topic, keys = self.balance.current_topic, reading.keywords(found.content_text(), self.rules)
        self._turn_keys = keys
        if other is not None and (other.question or other.proposal):
            # "那就用 PostgreSQL 吧" after "SQLite or PostgreSQL?" is about what the question was about
            keys = keys | other.keys
        # the other side's latest message, what a reply in this turn answers (the agent's own words before it aside)
        answered_turn = next((t for t in reversed(self._turns) if t.speaker != speaker and t.substantive), None)
        done = self._reports_done(said, found, grades=self._has_graded(answered_turn))
        unknown = self.rules["unknown"]
        # "I don't know yet. …", "我先压测，再给出建议": a reply that says the answer is still to come
        deferral = unknown.search(found.opening)
        defers = deferral is not None
        self._answers(element, found, role, speaker, keys, defers=defers, unsure="unknown" in markers)

        # "记好了：…PDF 的决定…" reports work done, whatever else it says; a reply to a heartbeat poll reports its checks
        if role != "user" and done and not self._reports_checks(element) and not self._declines(found):
            self._close_task(element, keys, other, asks=found.question, spared=self._failed_parts(found))
            self._goes_on(element, said)
        if role != "user" and other is not None and any(s.confirmation for s in found.social) and self._echoes(
                keys, other) and not re.search(_DIGITS, found.content_text()):
            return self._verdict(element, "noise", "drop", 0.75, f"acknowledges and restates #{other.id}, which "
                                 "is kept", "context:echo", confirmation=True)
        facts = self._facts(element, found, role, keys, done=done, defers=defers and other is not None and other.question)
        if other is not None and other.question:
            facts.add("replies_question")
        if answered_turn is not None and answered_turn.stated in self._stance_categories and not (
                self._specifics_in(said) - answered_turn.specifics):
            facts.add("replies_stance")
        if other is not None and not self._attachment.match(said):
            facts.update(fact for fact, signal in self._replies_to if signal in other.signals)
        if self._follows_own_preference(speaker):
            facts.add("follows_own_preference")
        option = self._picked(element, found, other) if role == "user" else None
        if option is not None:
            facts.add("picks_option")
        for row in self._user_rows if role == "user" else self._agent_rows:
            if facts.issuperset(row.get("when", ())) and facts.isdisjoint(row.get("unless", ())) and (
                    "max_tokens" not in row or _own_tokens(element) <= row["max_tokens"]):
                break
        words = _Words({name: f'"{text}"' for name, text in markers.items()}, quote=f'"{quoted}"',
                       other=other.id if other is not None else "", option=f'"{option}"',
                       deferral=f'"{deferral.group(0)}"' if deferral is not None else "")
        reason = row["reason"].format_map(words)
        category, effect = row["category"], row.get("effect")
        if role == "user" and found.opens_with(self._failed_by, self._failed_unless, self._failed_after,
                                               self._failed_after_by):
            self._failed(element, speaker)
        if role == "user" and found.bare in self._left_to_user_done_by:
            self._done_by_user(element, other)
        if effect in ("stance", "fact"):
            return self._stance(element, category, row["confidence"], reason, keys, role, speaker, topic, markers,
                                rule=row["rule"], replaces=effect == "stance", own=self._turn_keys)
        self._take_effect(element, row, role, speaker, keys, topic, found, said, other)
        return self._verdict(element, category, row.get("action", "keep"), row["confidence"], reason, row["rule"])

    def _take_effect(self, element: Element, row: dict[str, Any], role: str, speaker: str, keys: frozenset[str],
                     topic: int | None, found: reading.Reading, said: str, other: _Turn | None) -> None:
        """What a row's ``effect`` (and its ``keeps_open`` / ``restates``) does to the open tasks,
        questions, proposals and reports."""
        effect = row.get("effect")
        if effect == "task":
            self._candidate(self._tasks, element, role, speaker, keys, topic)
        elif effect == "question":
            if role == "assistant":
                self._ask_again(element)
            question = self._candidate(self._open_questions, element, role, speaker, keys, topic)
            question.answered, question.settles = row.get("answered"), row.get("answer_settles", False)
            question.answered_action = row.get("answered_action", "compress")
            question.min_answer = row.get("answer_min_tokens", 0)
            if role == "assistant" and not found.asks(self.rules["addressee"]):
                self._asked = question  # a question not put to the user, which the agent may answer itself
        elif effect == "proposal":
            self._proposal = self._candidate(None, element, role, speaker, keys, topic)
        elif effect == "close_task":
            self._close_task(element, keys, other)
        elif effect == "report":  # one ending "anything else?" closes the turn's work: no step that _tool_call narrates
            closing = found.question and found.only_offers(self.rules["open_offer"])
            self._report = None if closing else self._candidate(None, element, role, speaker, keys, topic)
        elif effect == "adopt":
            self._adopt(element, other)
        if row.get("keeps_open") and self._closed is not None and self._closed[0] == element.id:
            self._reopen(self._closed[1], f"#{element.id} hands the rest of it to the user: still open")
        if row.get("restates"):
            report = self._fresh[-1] if self._fresh else self._candidate(None, element, role, speaker, keys, topic)
            report.reports_done = "done" in row.get("when", ())
            self._restate(element, report, self._named_in(said))

    def _picked(self, element: Element, found: reading.Reading, other: _Turn | None) -> str | None:
        """The option of the agent's question a short reply picks: the one it names, when it names no
        other but to reject it ("PostgreSQL", "PostgreSQL, not SQLite", "用 PostgreSQL 吧"), or the other
        of two when it rejects one ("not SQLite", "不要 SQLite"). A reply naming both picks none, and so
        does one that says anything but the options (its topic words are theirs only): "install
        PostgreSQL first", "explain PostgreSQL", "I hate SQLite", "SQLite crashed again" ask for work,
        ask a question or state something about an option, which the other rows read. What may stand
        beside an option is ``choice_fillers`` ("please", "use", "not", 用, 吧, 就行, 不要)."""
        if other is None or not other.options or _own_tokens(element) > self._choice_max_tokens:
            return None
        offered = frozenset().union(*(_choice_tokens(option) for option, _ in other.options))
        named: set[int] = set()
        rejected: set[int] = set()
        for clause in found.content:
            tokens = _choice_tokens(clause.body)
            if tokens - offered - self._choice_fillers:
                return None
            # its topic words, and its bare tokens for an option labelled by a number or a letter ("3", "方案3")
            words = reading.keywords(clause.body, self.rules) | tokens
            for index, (_, own) in enumerate(other.options):
                if words & own:
                    (rejected if self._choice_rejects.search(clause.body) else named).add(index)
        if len(named) == 1 and not named & rejected:
            return other.options[named.pop()][0]
        if not named and len(rejected) == 1 and len(other.options) == 2:
            return other.options[1 - rejected.pop()][0]
        return None

    def _facts(self, element: Element, found: reading.Reading, role: str, keys: frozenset[str], *, done: bool,
               defers: bool) -> set[str]:
        """What the rows of ``[classify.from_user]`` / ``[classify.from_agent]`` can ask about a message."""
        facts = set(found.found)
        if found.question or found.tag:
            facts.add("asks")
        if found.question:
            facts.add("question")
            facts.update(f"asks_{name}" for name in found.found if found.asks(self.rules[name]))
            if found.only_offers(self.rules["proposal"]):
                facts.add("offers")
            if not found.only_offers(self.rules["open_offer"]):
                facts.add("asks_specific")
        # the other side's latest turn, when it was only social ("hi", "good night"): what this replies to
        speaker = element.speaker or role
        latest = next((t for t in reversed(self._turns) if t.speaker != speaker), None)
        if latest is not None and not latest.substantive:
            facts.update(f"after_{name}" for name in latest.signals)
        if done:
            facts.add("done")
        if self._worked:
            facts.add("worked")
        if self._scheduled_run:
            facts.add("scheduled_run")
        if element.extra.get("mirror"):  # a delivery copy of nothing said here (copies are repeats)
            facts.add("delivered")
        if defers:
            facts.add("defers_answer")
        if found.bare is not None:  # the one clause is a whole-clause signal ("不用", "exactly", "done")
            facts.add(found.bare)
        if _own_tokens(element) > (self._long_user_tokens if role == "user" else self._compress_tokens):
            facts.add("long")
        if "supersede" in facts and ("task" not in facts or (
                self._related(keys, self._decisions) and not self._carries_out(found, found.found["supersede"]))):
            facts.add("changes_decision")
        return facts

    # -- resolution ------------------------------------------------------------------------------

    def _stance(self, element: Element, category: str, confidence: float, reason: str, keys: frozenset[str],
                role: str, speaker: str, topic: int | None, markers: dict[str, str], rule: str = "",
                replaces: bool = True, own: frozenset[str] | None = None) -> Verdict:
        """A decision or a preference: it may replace an earlier one of the same kind (a fact about the
        user, ``replaces=False``, adds to what is known and replaces nothing; a later change may
        replace it). ``own``: the topic words of the speaker's own, when ``keys`` also holds those of the
        question it replies to."""
        store = self._decisions if category == "decision" else self._preferences
        candidate = self._candidate(None, element, role, speaker, keys, topic)
        candidate.own = own
        named = reading.keywords(markers["supersede"], self.rules) if "supersede" in markers else frozenset()
        if replaces:
            self._supersede(candidate, store, strong="supersede" in markers, named=named, own=own)
            if role == "user" and any(name in markers for name in self._tasks_called_off_by):
                self._supersede(candidate, self._tasks, strong=True, named=named, own=own)  # the work is off
        self._hold(store, candidate)
        return self._verdict(element, category, "keep", confidence, reason, rule or f"intent:{category}")

    @staticmethod
    def _echoes(keys: frozenset[str], reference: _Turn | None) -> bool:
        """An acknowledgement that only repeats the other side's statement ("收到，以后金额统一用人民币");
        a reply to a question names what was asked and adds the answer, so it is never an echo."""
        return (reference is not None and not reference.question and not reference.signals & {"task", "request"}
                and len(keys) >= 2 and len(keys & reference.keys) / len(keys) >= 0.8)

    def _related(self, keys: frozenset[str], store: list[_Candidate]) -> bool:
        return any(keys & candidate.keys for candidate in store)

    def _has_graded(self, other: _Turn | None) -> bool:
        """The turn replied to asks, or has something looked over (``grading``'s ``after``): a reply's check
        marks beside caution marks grade it; after a task they report the work done."""
        return other is not None and ((other.question and not other.request)
                                      or bool(other.signals & self.rules["grading"].after))

    def _declines(self, found: reading.Reading) -> bool:
        """The reply declines the request with no work behind it (``done_closes_unless``): what it says is done is
        other, older work."""
        return not self._worked and any(name in found.found for name in self._done_closes_unless)

    def _reports_done(self, text: str, found: reading.Reading, *, grades: bool) -> bool:
        """Work reported done: "修好了吗？" asks, "看完了，…要我先清洗吗？" reports and then asks (and so does "安装成功！…
        微信是否已经打开？", whatever its question holds, unless it asks the user whether they did it: "I downloaded the
        installer. Have you finished installing it?" waits on them);
        "✅ 蛋白质到位 ⚠️ 脂肪偏高" in reply to a question (``grades``) grades (``grading``), its check
        mark reports nothing done;
        "Fixed the import, but the test still fails" is progress, "Gitea is up. Remotes still point
        at the Pi" is done with a note (a sentence that says it is done and not that it goes on); "It's
        not fixed" reports nothing, "It's fixed now, it was not working" reports it done, "Deployed the
        fix, but the site is not working yet" not (a present negation speaks for the whole message)."""
        completion, continuation = self.rules["completion"], self.rules["continuation"]
        if "completion" not in found.found or not found.says(completion) or found.asks_of(
                completion, self.rules["addressee"]) or "still_undone" in found.found or (
                "undone" in found.found and not found.states(completion, unless=self.rules["undone"])):
            return False
        if grades and "grading" in found.found and not found.states_apart_from(completion, self.rules["check_mark"]):
            return False  # its check marks are grades beside its cautions: work done must be said in words
        if "continuation" not in found.found:
            return True
        return any(completion.search(s) and not continuation.search(s)
                   for s in reading.sentences(text.lower().replace("\u2019", "'")))

    def _carries_out(self, found: reading.Reading, marker: str) -> bool:
        """A request to change something *into* what a current decision already says ("请把部署脚本
        改成蓝绿发布" after "改用蓝绿发布") carries the decision out: it is work, not a new decision."""
        marker = marker.lower()
        clause = next((c.body.lower() for c in found.content if marker in c.body.lower()), "")
        aim = reading.keywords(clause[clause.find(marker) + len(marker):], self.rules) if clause else frozenset()
        return bool(aim) and any(len(aim & c.keys) * 2 >= len(aim) for c in self._decisions)

    def _supersede(self, newer: _Candidate, store: list[_Candidate], *, strong: bool,
                   named: frozenset[str] = frozenset(), own: frozenset[str] | None = None) -> None:
        """Mark the earlier decisions (or preferences) that ``newer`` replaces: when the newer one
        says so (改用, instead) and they share topic words; for preferences also, tentatively
        (confirm), when they share most of their words without saying so (two decisions on one
        subject often complement each other). The user decides: the agent restating or carrying
        out a user's decision never replaces it. ``named``: what the change says it replaces
        ("from SQLite", "不要 PDF 了"). ``own``: the newer one's own topic words, when its keys also hold those of
        the question it replies to. The earlier one must hold one of them, or, for a change that names something
        of its own, say in its own words what the question was about ("换成 MySQL 吧" to "数据库用什么？" replaces
        "数据库用 PostgreSQL"): "不要再发 🐔 了" after the agent asked about a document replaces no name given after
        another question, though both questions said "assistant"."""
        settings = self.rules.settings
        for earlier in list(store):
            if newer.role == "assistant" and earlier.role in ("user", "system"):
                continue
            if own is not None and not own & earlier.keys and not (
                    strong and own and (newer.keys - own) & (earlier.own if earlier.own is not None else earlier.keys)):
                continue
            shared, share = reading.overlap(newer.keys, earlier.keys)
            if strong and (shared >= settings["supersede_min_shared"]
                           or (shared == 1 and share >= settings["supersede_min_share"])):
                confidence = 0.8
            elif store is self._preferences and shared >= 2 and share >= settings["supersede_overlap"]:
                confidence = 0.6  # two standing instructions on one subject: the later one likely wins
            else:
                continue
            # the earlier one also settled other things ("PostgreSQL, and Docker for deployment"): in part
            # only, unless the change names what it replaces ("switch from SQLite to …")
            whole = shared / len(earlier.keys) >= 0.5 or bool(named & earlier.keys)
            self._forget([earlier])
            self._amend(earlier, status="superseded", superseded_by=newer.verdict.id, action="drop",
                        category="process" if earlier.verdict.category in self._superseded_leave
                        else earlier.verdict.category,
                        confidence=confidence if whole else min(confidence, 0.6), rule="resolve:superseded",
                        reason=f"replaced{'' if whole else ' in part'} by the later #{newer.verdict.id}")

    def _close_task(self, element: Element, keys: frozenset[str], other: _Turn | None, *, asks: bool = False,
                    spared: frozenset[str] = frozenset()) -> None:
        """A report of work done closes the latest active task it shares a topic word with (a report
        is about the work just asked for, more than about older requests it mentions); failing
        any shared word, the task it replies to ("Fixed." right after "fix the login"), tentatively. Not a task
        of whose topic words a line of the report marked failed names ``supersede_min_shared`` (``spared``: "❌ Gmail not
        connected" leaves "connect Gmail and set up the nudges" open, though "✅ Nudges scheduled" reports the rest done;
        "❌ Could not connect Outlook" names one word of it, a verb, and leaves it done)."""
        if not self._tasks:
            return
        task = next((t for t in reversed(self._tasks) if self._names_task(keys, t)), None)
        confidence = 0.75
        if task is None:
            if other is None or (self._tasks[-1].pos != other.pos and (asks or not self._only_answered_since(
                    self._tasks[-1], keys))):
                return  # "记好了" after a preference reports that, not some older task
            task, confidence = self._tasks[-1], 0.6
        if len(spared & task.keys) >= self.rules.settings["supersede_min_shared"]:
            return
        self._tasks.remove(task)
        self._closed = (element.id, task)
        self._amend(task, status="done", action="compress", confidence=confidence, rule="resolve:done",
                    reason=f"no longer active: reported done in #{element.id}")
        # a request asked again (after a failed turn, in other words: "deploy the landing page" → "please deploy the
        # landing page to vercel now") is done with the later copy
        for earlier in [t for t in self._tasks
                        if t.pos < task.pos and self._names_most_of(task.keys, t, self._restated_share)]:
            self._tasks.remove(earlier)
            self._amend(earlier, status="done", action="compress", confidence=confidence, rule="resolve:done",
                        reason=f"asked again in #{task.verdict.id}, reported done in #{element.id}")

    def _names_task(self, report: frozenset[str], task: _Candidate) -> bool:
        """Whether a report (its topic words) is of ``task``: one shared word while the task is still what the user
        is on, ``supersede_min_shared`` once the user has moved on (``report_moved_on_turns`` requests for other work
        since: not questions, answers or more details of the same request, which share its topic words)."""
        shared = len(report & task.keys)
        if shared >= self.rules.settings["supersede_min_shared"]:
            return True
        return shared == 1 and sum(pos > task.pos and keys.isdisjoint(task.keys) for pos, keys in self._user_asked) < (
            self.rules.settings["report_moved_on_turns"])

    def _failed_parts(self, found: reading.Reading) -> frozenset[str]:
        """The topic words of the report's lines marked failed (``classify.failed_parts_by``: "❌ Gmail not connected")."""
        return frozenset().union(*(reading.keywords(clause.body, self.rules) for name in self._failed_parts_by
                                   for clause in found.clauses_showing(self.rules[name])))

    def _only_answered_since(self, task: _Candidate, report: frozenset[str]) -> bool:
        """Whether the user has only answered the agent's questions since asking for ``task`` ("删掉旧日志" →
        "确认要删除吗？" → "是的"): the agent's next report (its topic words ``report``) is of that work, in whatever
        words. A reply that asks for more (a task, a question), one to no question, or one that says more than an
        answer does (more topic words than ``answer_max_keys``) is a turn of its own; and a report on what the
        agent's last question offered, when that was another step ("Want me to run the tests first?" → "sure" → "Ran
        the tests": no word of the request's in the question), is of that step."""
        turns = list(self._turns)
        start = next((i for i, t in enumerate(turns) if t.pos == task.pos), None)
        if start is None:
            return False  # older than the turns remembered
        asked: _Turn | None = None
        for turn in turns[start + 1:]:
            if not turn.substantive:
                continue
            if turn.speaker == task.speaker and (asked is None or turn.stated in ("task", "question")
                                                 or len(turn.keys) > self._answer_max_keys):
                return False
            asked = turn if turn.speaker != task.speaker and turn.question else None
        last_question = next((t for t in reversed(turns) if t.speaker != task.speaker and t.question), None)
        return last_question is None or last_question.keys.isdisjoint(report) or not last_question.keys.isdisjoint(
            task.keys)

    def _goes_on(self, element: Element, said: str) -> None:
        """The report says a step is done and, after it, what the agent does next on the request it
        closed ("ZAP 已安装。现在，我将对网站进行安全测试", "Installed ZAP. Now I'll run the scan"): the
        request is under way, not done; a next step on something else ("I'll now clean up the temp
        files") leaves it done."""
        if self._closed is None or self._closed[0] != element.id:
            return
        task = self._closed[1]
        completion, next_step = self.rules["completion"], self.rules["next_step"]
        reported = False
        for sentence in reading.sentences(said.lower().replace("\u2019", "'")):
            if not reported:  # the next step is read after the report: in the rest of its sentence, then on
                step = completion.search(sentence)
                if step is None:
                    continue
                reported, sentence = True, sentence[step.end():]
            rest = sentence.strip()
            after = next_step.search(rest) if rest else None
            if after is not None and reading.keywords(rest[after.start():], self.rules) & task.keys:
                self._reopen(task, f"#{element.id} reports a step and what it does next on the request: still open")
                return

    def _adopt(self, element: Element, other: _Turn | None) -> None:
        """The agent took the user's message it replies to as an instruction to keep ("记住了"): a
        request or a remark of the user's, not yet a standing item, becomes a preference (an open or a
        finished task leaves the tasks); one already kept as a decision, a preference or a question, or
        dropped, stays as it is, and so does a slash command (what the agent notes then is something else)."""
        if other is None or other.role != "user" or not other.substantive or "command" in other.signals:
            return
        candidate = self._latest_user
        if candidate is None or candidate.pos != other.pos or candidate.verdict.category not in ("task", "process"):
            return
        if candidate in self._tasks:
            self._tasks.remove(candidate)
        candidate.keys = candidate.keys or other.keys
        self._amend(candidate, category="preference", status="current", action="keep", confidence=0.7,
                    rule="resolve:adopted", reason=f"an instruction to keep: the agent took it so in #{element.id}")
        self._hold(self._preferences, candidate)

    def _specifics_in(self, text: str) -> frozenset[str]:
        """The specifics a text names (``stance_report_specifics``): ids, ports, versions, paths."""
        return frozenset(match.group(0) for match in self._specifics.finditer(text.lower()))

    def _named_in(self, text: str) -> frozenset[str]:
        """Those of its specifics that name a thing, a file, a path or an id
        (``restate_specifics_named``), not a count or a time; a dot that ends the sentence is not
        part of the name ("~/app/config.yaml.")."""
        return frozenset(s.rstrip(".") for s in self._specifics_in(text) if self._restate_named.search(s))

    def _restate(self, element: Element, newer: _Candidate, specifics: frozenset[str]) -> None:
        """The agent reports on work it reported on before ("备份任务已配置" twice, the second time
        after a fix): the later report carries the current state, and an earlier one that stands
        (a decision) whose topic words it mostly names (``restate_min_share`` of them) is replaced,
        unless both name things and the later one names some the earlier does not (backup.sh, then
        size.sh): two pieces of work that share topic words."""
        newer.specifics = specifics
        for earlier in list(self._outcomes):
            if (earlier.verdict.category == "decision" and self._reports_on(newer.keys, earlier)
                    and not (earlier.specifics and specifics - earlier.specifics)):
                self._report_replaced(earlier, element, "resolve:restated",
                                      f"reported on again in #{element.id}, which carries the current state")
        self._hold(self._outcomes, newer)

    def _failed(self, element: Element, speaker: str) -> None:
        """The user answers the agent's report by saying it did not work ("还是不对", "that's wrong"):
        what the report says done is not the state the conversation rests on (the request it
        answered is kept)."""
        since = self._spoke.get(speaker, -1)
        latest = self._outcomes[-1] if self._outcomes else None
        if latest is None or latest.pos < since or latest.verdict.category not in ("decision", "question") or (
                not latest.reports_done):
            return  # a blocker the user's try did not get past ("还是报错" after "请你执行…") still stands
        self._report_replaced(latest, element, "resolve:failed", f"the user says in #{element.id} that it did not work")
        if self._closed is not None and self._closed[0] == latest.verdict.id:
            self._reopen(self._closed[1], f"reported done in #{latest.verdict.id}, which the user says in "
                         f"#{element.id} did not work: still open")

    def _done_by_user(self, element: Element, other: _Turn | None) -> None:
        """The user reports done what the agent's report they reply to left with them ("Run this in
        a terminal: …" — "Done"): the blocker, or the steps it handed over, no longer hold."""
        if other is None or other.role != "assistant" or not other.signals & self._left_to_user_by:
            return
        report = next((c for c in self._outcomes if c.pos == other.pos), None)
        if report is None or report.verdict.category not in MUST_KEEP:
            return
        self._report_replaced(report, element, "resolve:done_by_user",
                              f"what it left to the user is reported done in #{element.id}")

    def _report_replaced(self, report: _Candidate, element: Element, rule: str, reason: str) -> None:
        """What the report said is no longer the state: ``element`` carries it (a later report, the
        user's reply); the report becomes process, its stand over."""
        self._forget([report])
        self._amend(report, category="process", status="superseded", superseded_by=element.id, action="compress",
                    confidence=0.7, rule=rule, reason=reason)

    def _reports_on(self, keys: frozenset[str], earlier: _Candidate) -> bool:
        """A report with these topic words is on what ``earlier`` reported (``restate_min_share`` of its words)."""
        return self._names_most_of(keys, earlier, self.rules.settings["restate_min_share"])

    def _names_most_of(self, keys: frozenset[str], earlier: _Candidate, share: float) -> bool:
        """A later message with these topic words is on what ``earlier`` was: it names at least
        ``supersede_min_shared`` of its topic words and ``share`` of them."""
        shared = len(keys & earlier.keys)
        return shared >= self.rules.settings["supersede_min_shared"] and shared >= share * len(earlier.keys)

    def _reports_checks(self, element: Element) -> bool:
        """The element is a reply of a turn whose replies report the state of the same checks each time (a heartbeat's:
        ``classify.state_reports``)."""
        return any(element.extra.get(flag) for flag in self._state_flags)

    def _report_state(self, element: Element, *, supersedes: bool = True) -> None:
        """A report of checks (a heartbeat's alert or status; of a scheduled run's delivered reports, an all-clear in
        words, "All 4 services passed": ``supersedes``) on what an earlier one of an earlier poll or run reported
        (:meth:`_reports_on`), with nobody writing between, carries the current state: the earlier one is over. Not
        ``HEARTBEAT_OK`` (it says nothing new, not that the trouble ended), nor a report on something else, nor what
        asks, decides or stands (those settle as such, answered or restated)."""
        keys = reading.keywords(element.text, self.rules)
        standing: list[tuple[_Candidate, int]] = []
        for earlier, poll in self._state_reports:
            if supersedes and poll < self._polls and earlier.verdict.category == "process" and self._reports_on(
                    keys, earlier):
                self._amend(earlier, category="noise", status="superseded", superseded_by=element.id, action="drop",
                            confidence=0.8, rule="resolve:state_reported",
                            reason=f"the state of the same checks, reported again in #{element.id}")
            else:
                standing.append((earlier, poll))
        candidate = next(iter(self._fresh), None) or self._candidate(None, element, "assistant",
                                                                    element.speaker or "assistant")
        candidate.keys = candidate.keys or keys
        self._state_reports = [*standing, (candidate, self._polls)][-self._max_candidates:]

    def _reopen(self, task: _Candidate, reason: str) -> None:
        """A task a report closed is open again: the report did not finish it."""
        if task not in self._tasks:
            self._tasks.append(task)
        self._closed = None
        self._amend(task, status="current", action="keep", rule="resolve:reopened", reason=reason)

    def _ask_again(self, element: Element) -> None:
        """The agent asks something new: its earlier questions the user left unanswered are dropped
        (the user moved on; the agent's latest question is the one still open)."""
        replied = max((pos for speaker, pos in self._spoke.items() if speaker != "assistant"), default=-1)
        dropped = [c for c in self._open_questions
                   if c.role == "assistant" and c.verdict.category == "question" and c.pos < replied]
        if not dropped:
            return
        self._open_questions = [c for c in self._open_questions if c not in dropped]
        for candidate in dropped:
            category = candidate.answered or self._agent_question_answered
            if candidate.answered_action == "keep":  # what it reports stands; only its question is left behind
                self._amend(candidate, category=category, action="keep", confidence=0.7, rule="resolve:asked_again",
                            reason=f"its question left unanswered (the agent asked something else in #{element.id}); "
                                   "what it reports stands")
                continue
            self._amend(candidate, category=category, status="superseded",
                        superseded_by=element.id, action="compress", confidence=0.7, rule="resolve:asked_again",
                        reason=f"left unanswered: the agent asked something else in #{element.id}")

    def _answered_by(self, element: Element, speaker: str, keys: frozenset[str], *, defers: bool,
                     unsure: bool, moves_on: frozenset[str] = frozenset()) -> None:
        """A substantive reply answers the other side's questions asked since this speaker last spoke,
        unless it opens by saying the answer is not known yet ("I don't know yet", "还不确定"); an
        older open question only when the reply is about it (most of its topic words) and says
        nowhere that something is still unknown ("等王姐确认上限"). A user's reply that asks for new work
        (``moves_on``: its own topic words) answers none of the agent's yes/no questions it shares no topic word with.
        The agent's answer to a user's question whose row names a category for it once answered (``answered``) takes
        effect when the agent's turn ends there (:meth:`_settle_answers`) and asks nothing back."""
        since = self._spoke.get(speaker, -1)
        settings = self.rules.settings
        answered = []
        for candidate in self._open_questions:
            if candidate.speaker == speaker:
                continue
            if candidate.pos > since:
                if not defers and not (moves_on and self._asked_yes_no(candidate) and moves_on.isdisjoint(candidate.keys)):
                    answered.append(candidate)
                continue
            shared, share = reading.overlap(keys, candidate.keys)
            if not unsure and shared >= settings["answer_min_shared"] and share >= settings["answer_min_share"]:
                answered.append(candidate)
        if not answered:
            return
        self._open_questions = [c for c in self._open_questions if c not in answered]
        for candidate in answered:
            if element.role is Role.ASSISTANT and candidate.role == "user" and candidate.answered is not None:
                candidate.answer = element.id
                self._answering.append(candidate)
                continue
            # the agent's question lives on in the user's answer; a user's question was the user's concern
            closed = candidate.role == "assistant" and candidate.verdict.category == "question"
            category = candidate.answered or (self._agent_question_answered if closed else candidate.verdict.category)
            self._resolve_answered(candidate, element.id, category)

    def _moves_on(self, found: reading.Reading, role: str) -> frozenset[str]:
        """The topic words of the user's reply when it asks for new work (a `question_left_by` signal: "Restart
        now?" → "check the disk usage"), naming at least two (a yes in other words names less: "Send it to Anna?"
        → "email it to her"), not opening with a yes or a no ("yes, and then update the docs"); else none."""
        first = found.clauses[0] if found.clauses else None
        if role != "user" or len(self._turn_keys) < 2 or found.found.keys().isdisjoint(self._moves_on_by) or (
                first is not None and (
                first.whole in ("agreement", "rejection") or (first.social is not None and (
                    first.social.answers or first.social.agrees)))):
            return frozenset()
        return self._turn_keys

    def _asked_yes_no(self, candidate: _Candidate) -> bool:
        """The agent's question takes a yes or a no ("Restart now?"): a reply on something else leaves it; any reply
        to a question of what or which ("What's the play: wholesale, flip or buy?" → "Need a buyer") answers it."""
        return candidate.role == "assistant" and any(t.pos == candidate.pos and t.yes_no for t in self._turns)

    def _resolve_answered(self, candidate: _Candidate, answer: str, category: str) -> None:
        """Settled by ``answer``: outdated, unless what it says stands once answered (``answered_action = "keep"``: a
        report of work done that asked something, "Done: backups run at 02:00. Which folder for the logs?")."""
        self._amend(candidate, category=category, status="current" if candidate.answered_action == "keep" else "answered",
                    action=candidate.answered_action, confidence=0.75, rule="resolve:answered",
                    reason=f"answered in #{answer}", answered_by=answer)

    def _answers(self, element: Element, found: reading.Reading, role: str, speaker: str, keys: frozenset[str], *,
                 defers: bool, unsure: bool) -> None:
        """What the text answers: the questions it settles now, and for the agent the turn's latest answer, settled
        when the turn ends (one that asks something back, an offer too, leaves the questions to the user; a generic
        "anything else?" at its end asks nothing). A text that only says the agent is looking ("Checking…",
        ``answer_held_by``) answers nothing: a turn that stops on it leaves them open, unless it answered them before."""
        held = role == "assistant" and found.bare in self._answer_held_by
        if found.content and any(not c.question for c in found.content) and not held:
            self._answered_by(element, speaker, keys, defers=defers, unsure=unsure, moves_on=self._moves_on(found, role))
        if role == "assistant" and self._answering and (not held or any(c.answer for c in self._answering)):
            self._hand_over(self._answer_of(element, found))

    def _follows_own_preference(self, speaker: str) -> bool:
        """The speaker's latest message with words in it stated a preference (not one that only widened an earlier one),
        and nothing with words in it came after it (the other side's "Got it." aside)."""
        for turn in reversed(self._turns):
            if turn.substantive:
                return turn.speaker == speaker and turn.stated == "preference" and "addendum" not in turn.signals
        return False

    def _pasted(self, element: Element, text: str, role: str, speaker: str) -> Verdict:
        """Pasted material, no words of the speaker's; the agent's answer written whole in structured output
        (`structured_reply`), or the fenced block the user asked to be shown (`fenced_answers`), answers all the same."""
        if role == "assistant" and not element.extra.get("failed_turn") and (self._structured_reply.match(text) or (
                fences.opening_fence(text.lstrip("\r\n").partition("\n")[0]) and any(
                    c.role == "user" and c.verdict.rule in self._fenced_answers for c in self._open_questions))):
            self._answered_by(element, speaker, frozenset(), defers=False, unsure=False)
            if self._answering:
                self._hand_over((element.id, False, frozenset(), _own_tokens(element)))
        self._remember(element, speaker, role, substantive=True)
        return self._verdict(element, "process", "compress" if element.tokens > self._long_user_tokens else "keep",
                             0.6, "pasted material (code, a log, terminal output), no words of the speaker's",
                             "content:pasted")

    def _hand_over(self, answer: tuple[str, bool, frozenset[str], int]) -> None:
        """``answer`` is the agent's turn's latest: texts one after another hand over together (a letter, then "Want
        changes?")."""
        if self._last_answer is not None:
            answer = (*answer[:3], answer[3] + self._last_answer[3])
        self._last_answer = answer

    def _answer_of(self, element: Element, found: reading.Reading) -> tuple[str, bool, frozenset[str], int]:
        """What the agent's text, if its turn ends on it, does to the questions it answers: (its id,
        whether it asks back rather than answers, the topic words of what it offers to do, its own tokens). A reply
        that is mostly a question back, or says what it could not do, leaves them open; one that
        answers and then asks a follow-up or offers more settles them, unless what it offers is the
        very thing asked ("Want me to look that up?": the answer is still to come)."""
        rules = self.rules
        offers = found.question and found.only_offers(rules["proposal"])
        asks_back = (not offers and found.asks_mostly(rules["open_offer"])) or any(
            name in found.found for name in self._answer_left_open_by)
        offered = reading.keywords(found.question_text(), rules) if offers else frozenset()
        return element.id, asks_back, offered, _own_tokens(element)

    def _settle_answers(self) -> None:
        """The agent's turn ended: the user's questions it answered are answered by its last text,
        and take the category their row gives them once answered when that text asks nothing back (or
        their row says any answer settles them); a turn that ended on work (a tool call after its
        last text) left them open."""
        if self._last_answer is None:
            self._open_questions.extend(self._answering)
        else:
            answer, asks_back, offered, said = self._last_answer
            for candidate in self._answering:
                shared, share = reading.overlap(offered, candidate.keys)
                still_open = asks_back or (shared > 0 and share >= self._answer_share)
                if said < candidate.min_answer or (still_open and candidate.min_answer):
                    self._open_questions.append(candidate)  # nothing handed over yet: the text is still to come
                    continue
                category = candidate.verdict.category if still_open and not candidate.settles else candidate.answered
                self._resolve_answered(candidate, candidate.answer or answer, category or candidate.verdict.category)
        self._answering, self._last_answer = [], None


# -- collecting a stream -----------------------------------------------------------------------------


@slotted()
class Tally:
    """Running totals over a stream of changes: what ``check`` and the summary report. (What the
    filter would save is not the classifier's to say: :mod:`apollo.renal.fates` measures it.)"""

    elements: int = 0
    tokens: int = 0
    categories: Counter[str] = field(default_factory=Counter)
    actions: Counter[str] = field(default_factory=Counter)
    statuses: Counter[tuple[str, str]] = field(default_factory=Counter)
    confirmations: int = 0

    def apply(self, changes: Iterable[Change]) -> None:
        for _, old, new in changes:
            if old is None:
                self.elements += 1
            else:
                self._count(old, -1)
            self._count(new, 1)

    def _count(self, verdict: Verdict, sign: int) -> None:
        self.tokens += sign * verdict.tokens
        self.categories[verdict.category] += sign
        self.actions[verdict.action] += sign
        self.statuses[(verdict.category, verdict.status)] += sign
        if verdict.confirmation and verdict.category == "noise":
            self.confirmations += sign

    def current(self, category: str) -> int:
        return self.statuses[(category, "current")]

    def summary(self) -> dict[str, Any]:
        outdated: Counter[str] = Counter()
        for (_, status), count in self.statuses.items():
            if status != "current":
                outdated[status] += count
        return {
            "elements": self.elements,
            "tokens": self.tokens,
            "categories": {c: self.categories[c] for c in CATEGORIES},
            "actions": {a: self.actions[a] for a in ACTIONS},
            "keep": {"decisions": self.current("decision"), "preferences": self.current("preference"),
                     "active_tasks": self.current("task"), "open_questions": self.current("question")},
            "outdated": {s: outdated[s] for s in ("superseded", "answered", "done", "duplicate")},
            "confirmations": self.confirmations,
            "needs_confirmation": self.actions["confirm"],
        }


@slotted()
class Classification:
    """A classified transcript: one verdict per element in order (unless not retained), the summary
    (totals, what stays active, the balance) and the balance itself."""

    verdicts: list[Verdict]
    summary: dict[str, Any]
    balance: Balance


def run(elements: Iterable[Element], config: Config | None = None, *, rules: RenalRules | None = None,
        retain: bool = True, observe: Callable[[Element | None, list[Change]], None] | None = None,
        resume: tuple[Classifier, Tally] | None = None,
        before_finish: Callable[[Classifier, Tally], None] | None = None) -> Classification:
    """Classify ``elements`` as one stream.

    ``observe(element, changes)`` sees every element's changes as they happen (``element`` is None
    for the revisions at the end); ``retain=False`` keeps no verdict list, so a 50 MB session is
    classified in bounded memory (``apollo renal check``). ``resume`` continues the stream an
    earlier run fed (``elements`` are what came after), and ``before_finish`` sees the stream before
    its end revisions, as a later run can resume it (:mod:`apollo.renal.check_resume`).
    """
    if resume is not None and retain:
        raise ValueError("a resumed run has no verdicts of the elements before it: pass retain=False")
    classifier, tally = resume if resume is not None else (Classifier(config, rules=rules), Tally())
    verdicts: list[Verdict] = []

    def apply(element: Element | None, changes: list[Change]) -> None:
        tally.apply(changes)
        if retain:
            for position, old, new in changes:
                if old is None:
                    verdicts.append(new)
                else:
                    verdicts[position] = new
        if observe is not None:
            observe(element, changes)

    for element in elements:
        apply(element, classifier.feed(element))
    if before_finish is not None:
        before_finish(classifier, tally)
    apply(None, classifier.finish())
    balance = classifier.balance.result()
    summary = {**tally.summary(), "active_task_ids": classifier.active_task_ids,
               "open_question_ids": classifier.open_question_ids, "active_topics": classifier.active_topics(),
               "balance": balance.to_dict()}
    return Classification(verdicts, summary, balance)


def classify(elements: Iterable[Element], config: Config | None = None, *, rules: RenalRules | None = None) -> list[Verdict]:
    """One verdict per element, in order (revisions from later elements already applied)."""
    return run(elements, config, rules=rules).verdicts
