"""Acid–base balance (酸碱平衡, SPEC §1.2 step 4): is the conversation itself going wrong?

Three signs, read from the user's recent turns only (the agent's mood is not the question):
- continuous questioning (连续质疑): the same question asked again and again;
- continuous negativity (连续负面): turn after turn in a negative tone;
- continuous topic drift (连续偏离): turn after turn on something new (sharing no topic word
  with the turns just before, and not long after them).
One sign is 🟡 (watch), two or more — or one at twice its threshold — is 🔴 (recommend
apollo-dream). The tracker also follows topics, so the check can count the active ones.
Memory is bounded: the last ``window`` user turns and the last few topics.
"""

from __future__ import annotations

from collections import Counter, deque
from datetime import datetime

from apollo.clock import parse_timestamp
from apollo.records import field, slotted
from apollo.renal.reading import Reading, keywords, overlap

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from apollo.config import Config

LEVELS = {"green": "🟢", "yellow": "🟡", "red": "🔴"}
#: a topic remembers this many of its most frequent words, and the tracker this many topics
_TOPIC_WORDS = 48
_RECENT_TOPICS = 8
#: a turn changes the subject when it shares no topic word with the user's last this-many turns
_DRIFT_CONTEXT = 3


@slotted(frozen=True)
class Thresholds:
    window: int = 20
    questioning_repeats: int = 2
    negativity_run: int = 3
    drift_shifts: int = 4
    drift_minutes: float = 30.0

    @classmethod
    def from_config(cls, config: Config | None) -> Thresholds:
        if config is None:
            return cls()
        renal = config.section("renal")
        return cls(renal["balance_window"], renal["balance_questioning_repeats"], renal["balance_negativity_run"],
                   renal["balance_drift_shifts"], float(renal["balance_drift_minutes"]))


@slotted()
class Sign:
    kind: str  # questioning | negativity | drift
    count: int
    threshold: int
    ids: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "count": self.count, "threshold": self.threshold, "ids": self.ids}


@slotted()
class Balance:
    level: str = "green"
    signs: list[Sign] = field(default_factory=list)

    @property
    def icon(self) -> str:
        return LEVELS[self.level]

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.level, "icon": self.icon, "signs": [s.to_dict() for s in self.signs]}

    def describe(self, lang: str) -> str:
        """The seed's wording: 🟢 对话正常 / 🟡 连续质疑…，需注意 / 🔴 失衡严重，建议apollo-dream深度介入."""
        names = {"zh": {"questioning": "连续质疑", "negativity": "连续负面", "drift": "连续偏离"},
                 "en": {"questioning": "repeated questioning", "negativity": "continuous negativity",
                        "drift": "topic drift"}}[lang]
        listed = "/".join(names[s.kind] for s in self.signs)
        if self.level == "green":
            return "🟢 对话正常" if lang == "zh" else "🟢 conversation normal"
        if self.level == "yellow":
            return f"🟡 {listed}，需注意" if lang == "zh" else f"🟡 {listed}: watch"
        return (f"🔴 失衡严重（{listed}），建议apollo-dream深度介入" if lang == "zh"
                else f"🔴 out of balance ({listed}): apollo-dream recommended")


@slotted(frozen=True)
class Point:
    """The balance right after one user turn: the raw count of each sign over the window
    (questioning: questions asked again; negativity and drift: the longest run), and the level."""

    id: str
    counts: dict[str, int]
    level: str


@slotted()
class _Turn:
    id: str
    keys: frozenset[str]
    question: bool
    repeat: bool
    negative: bool
    shifted: bool


@slotted()
class _Topic:
    id: int
    words: Counter[str]

    def absorb(self, keys: frozenset[str]) -> None:
        self.words.update(keys)
        if len(self.words) > _TOPIC_WORDS * 2:
            self.words = Counter(dict(self.words.most_common(_TOPIC_WORDS)))

    def keys(self) -> frozenset[str]:
        return frozenset(self.words)


class BalanceTracker:
    """Fed the user's content turns in order; answers the balance and the topic of each turn."""

    def __init__(self, thresholds: Thresholds | None = None, *, record: bool = False):
        self.thresholds = thresholds or Thresholds()
        self._turns: deque[_Turn] = deque(maxlen=self.thresholds.window)
        self._topics: deque[_Topic] = deque(maxlen=_RECENT_TOPICS)
        self._next_topic = 0
        self._last_time: datetime | None = None
        #: with ``record``, the :class:`Point` after every turn (one per user turn: for reports, not the check)
        self.history: list[Point] | None = [] if record else None

    @property
    def current_topic(self) -> int | None:
        return self._topics[-1].id if self._topics else None

    def observe(self, element_id: str, keys: frozenset[str], *, question: bool, negative: bool,
                timestamp: str | None = None) -> int:
        """Record one user turn; returns the id of the topic it belongs to. A change of topic long
        after the previous turn (``drift_minutes``) starts a new conversation and is not drift."""
        repeat = question and bool(keys) and any(t.question and _same_question(keys, t.keys) for t in self._turns)
        topic = self._place(keys)
        # a change of subject: nothing in common with the user's last few turns (a return to an
        # earlier subject, or a short turn without topic words, is no change)
        recent = [t.keys for t in list(self._turns)[-_DRIFT_CONTEXT:] if t.keys]
        shifted = len(keys) >= 2 and bool(recent) and not keys & frozenset().union(*recent)
        moment = parse_timestamp(timestamp)
        if shifted and moment is not None and self._last_time is not None:
            shifted = (moment - self._last_time).total_seconds() <= self.thresholds.drift_minutes * 60
        self._last_time = moment or self._last_time
        self._turns.append(_Turn(element_id, keys, question, repeat, negative, shifted))
        if self.history is not None:
            runs = self._runs()
            self.history.append(Point(element_id, {kind: len(ids) for kind, ids in runs.items()},
                                      self._level(runs)))
        return topic

    def observe_reading(self, element_id: str, found: Reading, rules: Any,
                        timestamp: str | None = None) -> tuple[int, frozenset[str]]:
        """Record a user turn from its reading; returns (topic id, the turn's topic words)."""
        keys = keywords(found.content_text(), rules)
        topic = self.observe(element_id, keys, question=found.question, negative="negativity" in found.found,
                             timestamp=timestamp)
        return topic, keys

    def _place(self, keys: frozenset[str]) -> int:
        """The topic a turn continues (the current one, or a recent one it returns to), else a new one.
        A turn with fewer than two topic words stays in the current topic."""
        if self._topics and len(keys) < 2:
            self._topics[-1].absorb(keys)
            return self._topics[-1].id
        for topic in reversed(self._topics):
            if _same_subject(keys, topic.keys(), shared_min=2, share=0.34):
                self._topics.remove(topic)
                self._topics.append(topic)
                topic.absorb(keys)
                return topic.id
        topic = _Topic(self._next_topic, Counter(keys))
        self._next_topic += 1
        self._topics.append(topic)
        return topic.id

    @property
    def limits(self) -> dict[str, int]:
        """Each sign's threshold, by kind."""
        limits = self.thresholds
        return {"questioning": limits.questioning_repeats, "negativity": limits.negativity_run,
                "drift": limits.drift_shifts}

    def _runs(self) -> dict[str, list[str]]:
        """The turns behind each sign in the window: questions asked again, the longest negative run,
        the longest run of changes of subject."""
        turns = list(self._turns)
        return {"questioning": [t.id for t in turns if t.repeat],
                "negativity": _longest_run(turns, lambda t: t.negative),
                "drift": _longest_run(turns, lambda t: t.shifted)}

    def _signs(self, runs: dict[str, list[str]]) -> list[Sign]:
        return [Sign(kind, len(ids), self.limits[kind], ids) for kind, ids in runs.items()
                if len(ids) >= self.limits[kind]]

    def _level(self, runs: dict[str, list[str]]) -> str:
        signs = self._signs(runs)
        severe = any(s.count >= 2 * s.threshold for s in signs)
        return "green" if not signs else "red" if len(signs) >= 2 or severe else "yellow"

    def result(self) -> Balance:
        runs = self._runs()
        return Balance(self._level(runs), self._signs(runs))


def _same_subject(a: frozenset[str], b: frozenset[str], *, shared_min: int, share: float) -> bool:
    shared, coefficient = overlap(a, b)
    return shared >= shared_min or (shared >= 1 and coefficient >= share)


def _same_question(a: frozenset[str], b: frozenset[str]) -> bool:
    """Asked again: the same words, or most of the shorter question's words."""
    shared, coefficient = overlap(a, b)
    return a == b or (shared >= 2 and coefficient >= 0.6)


def _longest_run(turns: list[_Turn], test: Any) -> list[str]:
    best: list[str] = []
    run: list[str] = []
    for turn in turns:
        run = [*run, turn.id] if test(turn) else []
        if len(run) > len(best):
            best = run
    return best
