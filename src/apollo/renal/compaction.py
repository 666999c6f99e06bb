"""``--mode compact``: where the verbatim tail starts, and the digest that replaces the rest.

The filter decides every element's fate (:mod:`apollo.renal.fates`); this chooses the kept tail
(a cut point pi accepts, after the first real content), builds the digest of everything before it
(:mod:`apollo.renal.digest`), leaner until it fits a budget, and writes it as one native compaction
entry or as a rewritten copy. Kept apart from the rewrite so that each module has one job.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from apollo import transcript as transcript_io
from apollo.errors import InputError
from apollo.renal import budget as budget_mod
from apollo.renal import concentrate
from apollo.renal.fates import Fate
from apollo.transcript.model import Edit, Element, Kind, Role, Transcript


@dataclass(slots=True)
class CompactionPlan:
    """Where the verbatim tail starts (index into the fates) and the digest that replaces the rest."""

    fates: list[Fate]
    start: int
    summary: str
    #: the summary as the model sees it (with pi's wrapper) and the tail, by the run's counter
    summary_tokens: int
    tail_tokens: int
    #: must-keep items the budget forced the digest to quote shorter, or to leave out (element ids)
    shortened: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    #: entries before the tail that stay as messages (record ids; :func:`kept_as_messages`)
    messages: frozenset[str] = frozenset()
    #: of those, the records that keep their thinking too (:func:`digest.reasoned`)
    reasoned: frozenset[str] = frozenset()
    #: of those, the tool calls whose long arguments are cut as an old call's (element id: arguments; :func:`cut_calls`)
    cut: dict[str, str] = field(default_factory=dict)
    #: a rewritten copy: the digested entries left out, the tail's noise dropped (else: one entry appended)
    rewrites: bool = False

    @property
    def digested(self) -> list[Fate]:
        """What the summary stands for (summaries of earlier compactions are quoted separately)."""
        return [f for f in self.fates[:self.start] if f.element.kind is not Kind.COMPACTION]

    @property
    def first_kept_entry_id(self) -> str:
        """The oldest entry kept as a message, else the tail's first; in a rewritten copy, the tail's first that
        the copy keeps (a heartbeat's tool call first in the tail went with its dropped result, and the entry
        named stood nowhere in the copy)."""
        kept = next((f for f in self.fates[:self.start] if f.element.record_id in self.messages), None)
        if kept is None:
            tail = self.fates[self.start:]
            kept = next((f for f in tail if f.action != "drop" and f.element.role is not Role.TOOL),
                        tail[0]) if self.rewrites else tail[0]
        return str(kept.element.record_id)

    def edits(self) -> dict[str, Edit]:
        """What the copy leaves out: the conversation the digest stands for (its messages, tool
        calls and results), except the entries kept as messages, which lose only their envelopes'
        metadata blocks (:func:`kept_text`), the long arguments of their tool calls (:func:`cut_calls`) and, but
        for a must-keep item the agent said, their thinking; and in the tail what the default filter drops as noise (failed turns, heartbeats, pings)."""
        edits: dict[str, Edit] = {}
        for fate in self.digested:
            element = fate.element
            if element.kind is Kind.METADATA or element.role is Role.SYSTEM:
                continue  # model and thinking-level changes, notices: the session's state, not its talk
            if element.record_id not in self.messages or not self.shows(element):
                edits[element.id] = Edit("drop", note="compacted")
            elif element.id in self.cut:
                edits[element.id] = Edit("replace", text=self.cut[element.id], note="long arguments cut")
            elif _leaner(element):
                edits[element.id] = Edit("replace", text=element.text, note="envelope metadata left out", lean=True)
        first = self.first_kept_entry_id
        for fate in self.fates[self.start:]:
            if fate.action == "drop" and fate.element.record_id != first:
                edits[fate.element.id] = Edit("drop", note=fate.bucket)
        return edits

    def shows(self, element: Element) -> bool:
        """An element of a record kept as a message stays in the copy: all but the thinking, which
        stays only with a must-keep item the agent said."""
        return element.kind is not Kind.THINKING or element.record_id in self.reasoned

    @property
    def tail_dropped(self) -> int:
        """The tokens of the tail's noise a rewritten copy drops."""
        first = self.first_kept_entry_id
        return sum(f.element.tokens for f in self.fates[self.start:] if f.action == "drop" and f.element.record_id != first)

    @property
    def context_tokens(self) -> int:
        return self.summary_tokens + self.tail_tokens

    @property
    def tokens_before(self) -> int:
        """What the model reads now: every entry in context (the report's "before")."""
        return sum(f.element.tokens for f in self.fates)

    def fit(self, target: int) -> budget_mod.Fit:
        return budget_mod.Fit(tokens=self.context_tokens, budget=target, must_keep_shortened=list(self.shortened),
                              must_keep_dropped=list(self.dropped))

    def describe(self, count: Callable[[str], int]) -> dict[str, Any]:
        return {"entry_id": None, "first_kept_entry_id": self.first_kept_entry_id,
                "tokens_before": self.tokens_before,
                "summary_tokens": self.summary_tokens, "tail_tokens": self.tail_tokens,
                "context_tokens": self.context_tokens, "summary": self.summary, "digested": len(self.digested),
                "kept_messages": len(self.messages)}


def plan_compaction(fates: list[Fate], rules: concentrate.FilterRules, lang: str, count: Callable[[str], int],
                    target: int | None, *, where: str, messages: bool = False) -> CompactionPlan:
    """Choose the kept tail and build the digest of everything before it.

    A plan that would leave the model no less to read than now is refused, with a budget or without
    (:func:`_refuse_growth`). Without a budget the tail is the recent turns, or the newest
    ``compact_tail_tokens`` of them when they are longer (one request and a long run). Under a budget the tail start moves later (to
    entries pi accepts as a cut point) and the digest gets leaner (:data:`digest.LEVELS`) until
    summary + tail fit: at each start the digest's optional sections go before the start moves
    on, and must-keep items are quoted shorter only when no start fits otherwise. With ``messages``
    (a copy without a budget) the items the digest would quote, with what answered them, stay as
    messages when they are dialogue turns, and so do changes made without a word (:func:`kept_as_messages`).
    """
    from apollo.renal import digest
    from apollo.transcript.openclaw_compaction import is_compaction_summary
    from apollo.transcript.openclaw_rules import COMPACTION_SUMMARY_WRAPPER

    elements = [f.element for f in fates]
    # what pi shows after the new compaction: the tail, less the older compaction summaries it hides
    tail_after = [0] * (len(fates) + 1)
    for i in range(len(fates) - 1, -1, -1):
        tail_after[i] = tail_after[i + 1] + (0 if is_compaction_summary(elements[i]) else elements[i].tokens)
    default, starts = _tail_starts(elements, tail_after, rules, target)
    if not starts:
        raise InputError("nothing to compact: every entry is in the recent tail", where=where,
                         hint="the last turns always stay; a longer session, or --budget / --keep-ratio, "
                              "can be compacted")
    prefix, suffix = COMPACTION_SUMMARY_WRAPPER

    # the requests of the recent turns the agent is working on: when a capped tail starts after them
    # (a long run kept to its newest tokens) the digest quotes them longer, as the tail would have kept them
    recent_requests = [(i, e.id) for i, e in enumerate(elements) if i >= default and e.role is Role.USER
                       and e.kind is Kind.TEXT and e.text.strip()]

    def attempt(start: int, level: digest.Level) -> CompactionPlan:
        earlier = carried_summaries([e.text for i, e in enumerate(elements) if e.kind is Kind.COMPACTION
                                     and (i < start or is_compaction_summary(e))], rules)
        plan = CompactionPlan(fates, start, "", 0, tail_after[start])
        before = plan.digested
        if messages:
            plan.rewrites = True
            plan.messages = kept_as_messages(fates, start, rules)
            plan.reasoned = digest.reasoned(before, plan.messages)
            plan.cut = cut_calls(before, plan.messages, rules)
            plan.tail_tokens += sum(count(kept_text(f.element, plan.cut)) if f.element.id in plan.cut or _leaner(f.element)
                                    else f.element.tokens
                                    for f in before if f.element.record_id in plan.messages and plan.shows(f.element))
            plan.tail_tokens -= plan.tail_dropped
        plan.summary = digest.build(before, lang, rules["digest_item_chars"], earlier=earlier, level=level,
                                    outdated_chars=rules["digest_outdated_chars"], reply_chars=rules["digest_reply_chars"],
                                    as_messages=plan.messages, written=frozenset(rules["digest_change_arguments"]),
                                    longer=frozenset(i for at, i in recent_requests if at < start)
                                    if target is None else frozenset(),
                                    longer_chars=rules["digest_recent_request_chars"],
                                    pause_hours=rules["digest_pause_hours"])
        plan.summary_tokens = count(prefix + plan.summary + suffix)
        quoted = digest.quoted_items(before, level)
        if level.shortens_must_keep:
            limit = rules["digest_item_chars"] * level.item_share
            plan.shortened = [f.element.id for f in quoted if len(" ".join(f.element.text.split())) > limit]
        plan.dropped = [f.element.id for f in digest.must_keep_items(before) if f not in quoted]
        return plan

    chosen = attempt(starts[0], digest.LEVELS[0]) if target is None else _fit_compaction(starts, target, attempt,
                                                                                         tail_after)
    _refuse_growth(chosen, where)
    for position, fate in enumerate(fates):
        fate.in_tail = position >= chosen.start
    return chosen


def carried_summaries(summaries: list[str], rules: concentrate.FilterRules) -> list[str]:
    """The earlier compactions' ``summaries`` a new digest carries: none that is the summariser's failure
    (``digest_failed_summary``), each less the blocks copying the workspace's files that OpenClaw appends
    (``digest_earlier_left_out``), its file lists as trees (``digest_earlier_file_lists``:
    :func:`digest.without_appended_blocks`), less its sections that say only that there is nothing
    (``digest_empty_section``), and none left empty by that."""
    from apollo.renal import digest

    failed = [re.compile(p, re.IGNORECASE) for p in rules["digest_failed_summary"]]
    empty = [re.compile(p, re.IGNORECASE) for p in rules["digest_empty_section"]]
    left_out, lists = frozenset(rules["digest_earlier_left_out"]), frozenset(rules["digest_earlier_file_lists"])
    path = re.compile(rules["digest_earlier_file_path"])
    carried = (digest.without_empty_sections(digest.without_appended_blocks(text, left_out, lists, path), empty)
               for text in summaries if not digest.failed_summary(text, failed))
    return [text for text in carried if text]


def _tail_starts(elements: list[Element], tail_after: list[int], rules: concentrate.FilterRules,
                 target: int | None) -> tuple[int, list[int]]:
    """Where the recent turns start, and the entries a kept tail may start at: from the recent turns
    on (pi's cut points), under a budget each in turn; without one the first, or when the recent turns
    are a long run the first with no more than ``compact_tail_tokens`` after it. None (an empty list)
    when every entry is in the recent tail."""
    from apollo.transcript.openclaw_compaction import can_start_kept_tail

    default = concentrate.tail_start(elements, rules["recent_turns"])
    if default == len(elements):  # no user turn in context (an earlier compaction hides it): all the agent's run
        default = 0
    while 0 < default < len(elements) and elements[default - 1].record_id == elements[default].record_id:
        default -= 1  # the tail starts with its entry's first block
    content_before = 0
    starts = []
    for position, element in enumerate(elements):
        if position >= default and content_before and can_start_kept_tail(element):
            starts.append(position)
        content_before += element.tokens
    if target is None and starts and tail_after[starts[0]] > rules["compact_tail_tokens"]:
        # the recent turns are a long run: the tail starts where no more than compact_tail_tokens remain
        return default, [next((s for s in starts if tail_after[s] <= rules["compact_tail_tokens"]), starts[-1])]
    return default, ([] if target is None and default == 0 else starts)


def _refuse_growth(plan: CompactionPlan, where: str) -> None:
    """A compaction must leave the model less to read: when the digest (in its wrapper) and what
    stays after it are not smaller than the session as it is, nothing is written (a budget the
    session already meets, or one no plan meets, is no reason to make it larger)."""
    before = plan.tokens_before
    if plan.context_tokens >= before:
        raise InputError(f"nothing to compact: the digest and what stays after it ({plan.context_tokens:,} tokens) "
                         f"would not be smaller than the session ({before:,} tokens)", where=where,
                         hint="the recent turns always stay and what comes before them is shorter than its digest: "
                              "the default filter (--mode rewrite) still removes the noise; when the recent turns "
                              "are long, --budget / --keep-ratio starts the kept tail later")


def kept_text(element: Element, cut: Mapping[str, str] | None = None) -> str:
    """What a message kept before the tail shows: its words (a tool call's arguments as ``cut`` by :func:`cut_calls`),
    and of a user's envelope the stamps and notices (when, where, who) with the metadata blocks cut to who, where and
    when (their ids for tools left out) and without the channel's opaque ids in the stamp (``EnvelopeRules.lean``,
    ``Edit.lean``)."""
    from apollo.transcript.openclaw_rules import rules

    if cut and element.id in cut:
        return cut[element.id]
    envelope = rules().lean(element.envelope) if element.role is Role.USER else element.envelope
    return envelope + element.text


def cut_calls(fates: list[Fate], records: frozenset[str], rules: concentrate.FilterRules) -> dict[str, str]:
    """The tool calls of ``records`` (kept as messages before the tail) with their long arguments cut as the default
    filter cuts an old call's (:func:`concentrate.cut_arguments`: a file's written content keeps its head, the file
    holds the rest): a call stays for the change it made, not for the bytes it wrote. An edit stays whole (what it
    replaced and with what is the change), and so does an entry that says a must-keep item."""
    whole = {f.element.record_id for f in fates if f.must_keep}  # an entry that says a must-keep item stays whole
    edit = frozenset(rules["tool_kept_arguments"])
    cut: dict[str, str] = {}
    for fate in fates:
        element = fate.element
        if element.kind is Kind.TOOL_CALL and element.record_id in records and element.record_id not in whole:
            text = concentrate.cut_arguments(element.text, rules)  # None for short arguments: no parse for the edit test
            if text is not None and not _changes(element.text, edit):
                cut[element.id] = text
    return cut


def _leaner(element: Element) -> bool:
    """A user's text whose envelope holds metadata a kept message leaves out."""
    return element.role is Role.USER and element.kind is Kind.TEXT and bool(element.envelope) \
        and len(kept_text(element)) < len(element.envelope) + len(element.text)


def kept_as_messages(fates: list[Fate], start: int, rules: concentrate.FilterRules) -> frozenset[str]:
    """The records before ``start`` that stay as messages after the digest rather than in it: the
    items a quote cannot carry (:func:`digest.kept_as_messages`), the changes the agent made
    without a word (:func:`unsaid_changes`) or right after answering a question
    (:func:`answers_with_changes`), each call with its result (:func:`with_results`)."""
    from apollo.renal import digest

    digested = [f for f in fates[:start] if f.element.kind is not Kind.COMPACTION]
    changing = frozenset(rules["digest_change_arguments"])
    return unsaid_changes(fates, start, changing) | with_results(
        fates, digest.kept_as_messages(digested, rules["digest_item_chars"], rules["digest_pause_hours"])
        | answers_with_changes(digested, changing))


def answers_with_changes(fates: list[Fate], changing: frozenset[str]) -> frozenset[str]:
    """The entries (record ids) in which the agent answered a user's question and made a change in
    the same breath (a tool call with one of ``changing`` among its arguments). The digest pairs a
    message with the turn's last text, which reports the change's outcome: the answer given before
    it would be lost. It stays as the agent sent it, with the change it made (:func:`with_results`)."""
    from apollo.renal import digest

    outcomes = digest.replies(fates)
    by_id = {f.element.id: f for f in fates}
    changed = {f.element.record_id for f in fates
               if f.element.kind is Kind.TOOL_CALL and _changes(f.element.text, changing)}
    found: set[str] = set()
    for fate in fates:
        answer = by_id.get(fate.verdict.answered_by or "") if fate.verdict is not None else None
        if answer is not None and fate.status == "answered" and fate.element.role is Role.USER \
                and answer.element.role is Role.ASSISTANT and answer.element.kind is Kind.TEXT \
                and answer.action != "drop" and outcomes.get(fate.element.id) is not answer \
                and answer.element.record_id in changed:
            found.add(str(answer.element.record_id))
    return frozenset(found)


def unsaid_changes(fates: list[Fate], start: int, changing: frozenset[str]) -> frozenset[str]:
    """The records (before ``start``) of the changes the agent made in a turn it answered with no
    word of its own (a tool call with one of ``changing`` among its arguments: a file's content
    written, an edit's new text): the change is all there is of the request's outcome, so the call
    stays as a message, with its result (:func:`with_results`)."""
    bounds = [i for i, f in enumerate(fates) if f.element.role is Role.USER
              and f.element.kind in (Kind.TEXT, Kind.HEARTBEAT_POLL)] + [len(fates)]
    chosen: set[str] = set()
    for opening, end in zip(bounds, bounds[1:], strict=False):
        turn = fates[opening + 1:end]
        if fates[opening].element.kind is not Kind.TEXT or fates[opening].action == "drop" or any(
                f.element.role is Role.ASSISTANT and f.element.kind is Kind.TEXT and f.element.text.strip()
                and f.action != "drop" for f in turn):
            continue
        chosen.update(f.element.record_id for f in fates[opening + 1:min(end, start)]
                      if f.element.kind is Kind.TOOL_CALL and f.element.record_id and _changes(f.element.text, changing))
    return with_results(fates, frozenset(chosen))


def with_results(fates: list[Fate], records: frozenset[str]) -> frozenset[str]:
    """``records`` and the records of the results of their tool calls: a call never stays as a
    message without its result, nor a result without its call."""
    results: dict[str, list[str]] = {}  # a call repaired or retried can have more than one result
    for fate in fates:
        if fate.element.kind is Kind.TOOL_RESULT and fate.element.call_id and fate.element.record_id:
            results.setdefault(fate.element.call_id, []).append(fate.element.record_id)
    chosen = set(records)
    for fate in fates:
        element = fate.element
        if element.kind is Kind.TOOL_CALL and element.record_id in records and element.call_id:
            chosen.update(results.get(element.call_id, ()))
    return frozenset(chosen)


def _changes(arguments: str, changing: frozenset[str]) -> bool:
    """A tool call's arguments (a JSON object) hold one of ``changing``: the call changed something."""
    from apollo.renal.digest import call_arguments

    data = call_arguments(arguments)
    return data is not None and not changing.isdisjoint(data)


def _fit_compaction(starts: list[int], target: int, attempt: Callable[[int, Any], CompactionPlan],
                    tail_after: list[int]) -> CompactionPlan:
    """The first (start, digest level) that fits: every must-keep item verbatim if at all possible."""
    from apollo.renal import digest

    best: CompactionPlan | None = None
    for levels in (digest.VERBATIM_LEVELS, digest.LEVELS[len(digest.VERBATIM_LEVELS):]):
        floor = 0  # the leanest digest met so far: a later start digests more, never less
        for start in starts:
            if tail_after[start] + floor > target:
                continue
            for level in levels:
                plan = attempt(start, level)
                if plan.context_tokens <= target:
                    return plan
                if best is None or plan.context_tokens < best.context_tokens:
                    best = plan
            floor = max(floor, plan.summary_tokens)
    # the last resort, at the shortest tail: the oldest must-keep items (and earlier summaries) go first
    leanest = digest.LEVELS[-1]
    items = len(digest.must_keep_items(attempt(starts[-1], leanest).digested))
    for keep in range(items, -1, -1):
        plan = attempt(starts[-1], replace(leanest, keep_newest=keep))
        if plan.context_tokens <= target:
            return plan
    return best if best is not None and best.context_tokens <= plan.context_tokens else plan


def write_compaction(path: Path | Any, transcript: Transcript, plan: CompactionPlan, dest: Path | None,
                     in_place: bool) -> str:
    """Append one native compaction entry (the plan's digest and tail start); its id. With entries
    kept as messages the copy first leaves out what the digest stands for (the source keeps it)."""
    tokens_before = plan.tokens_before
    if plan.rewrites and dest is not None and not in_place:
        transcript_io.write(path, dest, plan.edits(), fmt=transcript.format)
        return transcript_io.append_compaction(dest, None, plan.summary, plan.first_kept_entry_id, tokens_before,
                                               in_place=True)
    return transcript_io.append_compaction(path, dest, plan.summary, plan.first_kept_entry_id, tokens_before,
                                           in_place=in_place, expected=transcript.meta.get("fingerprint"))
