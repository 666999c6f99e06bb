"""The Python half of Apollo's OpenClaw context engine: what the model gets, every turn.

OpenClaw hands the plugin the session's messages before each model run; the plugin sends their
keys (and the bodies of messages this process has not seen) to :class:`Engine`, which answers
with the positions to keep and a system-prompt addition. Three rules make the result stable and
safe:

- **A message's fate is decided once**, the first time it is seen, by renal's classifier (its
  public :class:`~apollo.renal.classify.Classifier`, fed in order) and stored; later turns reuse
  it, so the context before the newest turn is byte-identical from one turn to the next (the
  provider's prompt cache keeps working) until a compaction point cuts or evicts something.
- **Messages go in units**: a tool call with its results, a whole heartbeat turn, a text message.
  Only text messages the classifier drops with confidence (acknowledgements, chatter) go, and a
  heartbeat turn goes whole when its replies report nothing; a poll whose reply has real content
  keeps it.
- **A compaction point** (over the token budget, or ``/compact``) cuts the old tool outputs
  outside the recent turns as the filter cuts them (:mod:`engine_cut`), then evicts the oldest
  units outside them, never a must-keep unit while anything else can go; cuts and evictions are
  stored, so the prefix is stable again from the next turn. Within the budget, a point of cuts
  only comes once those old outputs hold more than ``CUT_ABOVE`` of it. Every standing decision,
  preference, open task and open question stays in the system-prompt addition, evicted or not.

Everything dropped, evicted or cut stays whole in the engine's SQLite file (:mod:`engine_store`) and comes
back verbatim through :meth:`Engine.recall`.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from apollo.errors import ApolloError
from apollo.integration import engine_cut
from apollo.integration.engine_store import Standing, Store, Stored
from apollo.redact import cut, redact
from apollo.renal import concentrate
from apollo.renal.classify import MUST_KEEP, Classifier
from apollo.renal.fates import language_of
from apollo.tokens import get_counter
from apollo.transcript.model import Element, Kind, Role
from apollo.transcript.openclaw import iter_session_elements

if TYPE_CHECKING:
    from apollo.config import Config

#: a compaction point starts above this share of the token budget and evicts down to the next one
EVICT_ABOVE = 0.9
EVICT_DOWN_TO = 0.6
#: within the budget, a compaction point of cuts only once the old outputs it could cut hold more than
#: this share of it: one change of the prompt's prefix, then a smaller context every turn after
CUT_ABOVE = 0.25
#: the latest user turns are never evicted (the conversation in progress)…
RECENT_TURNS = 4
#: …while they hold no more than this share of the budget: beyond it (one request, then an agent's
#: long run of tool calls) their oldest units go like any history, the newest this share stays
RECENT_SHARE = 0.4
#: after a restart the classifier re-reads this many stored messages for its context window
WARM_UP = 200
#: longest text of a standing item in the system-prompt addition (the rest is one recall away)
ITEM_CHARS = 400
#: how much of an item is read for secrets: twice what is shown, so that a key the cut would halve is
#: read whole, and a pasted log of megabytes costs the detectors no more than a paragraph
READ_CHARS = 2 * ITEM_CHARS
#: the end of what was read that an item never shows: a secret the read cut through may be there, too
#: short to be recognised, and marks of longer secrets before it can bring it within ``ITEM_CHARS``
READ_MARGIN = 200
#: the characters a key is written in (printable ASCII but the space)
_KEY_CHARS = "".join(map(chr, range(0x21, 0x7F)))
#: messages learnt per transaction when a whole existing session arrives at once
LEARN_CHUNK = 500
#: items of each kind in the system-prompt addition (older ones stay in the history, or one recall away)
ITEMS_PER_CATEGORY = 25
#: what each message costs beyond its text (role, framing)
MESSAGE_OVERHEAD = 4
HEADINGS = (("decision", "Decisions"), ("preference", "Preferences"), ("task", "Open tasks"),
            ("question", "Open questions"))


@dataclass
class Session:
    """One session's state in the warm process."""

    by_key: dict[str, Stored] = field(default_factory=dict)
    order: list[Stored] = field(default_factory=list)
    standing: dict[str, Standing] = field(default_factory=dict)
    classifier: Classifier | None = None
    #: what the model gets instead of each message a compaction point cut, by seq
    cuts: dict[int, Any] = field(default_factory=dict)
    #: outputs a cut was tried on and left whole (an image in it; no shorter cut): not tried again
    whole: set[int] = field(default_factory=set)
    #: the system-prompt addition, made again only when a standing item changes
    addition: str | None = None

    @property
    def next_seq(self) -> int:
        return self.order[-1].seq + 1 if self.order else 0


class Engine:
    """Per-session fates over one store; every method is one request of the plugin."""

    def __init__(self, store: Store, config: Config | None = None):
        self.store = store
        self.config = config
        self.count = get_counter(config.get("general.counter") if config is not None else "estimate")[1]
        self.sessions: dict[str, Session] = {}
        #: whether the plugin hands the model the cut content of old outputs (an earlier plugin, still
        #: loaded in a running gateway after an upgrade, does not: then nothing is cut, nor counted cut)
        self.cut_outputs = True

    # -- state ---------------------------------------------------------------------------------

    def session(self, session_id: str) -> Session:
        state = self.sessions.get(session_id)
        if state is None:
            state = Session()
            state.order = self.store.messages(session_id)
            state.by_key = {m.key: m for m in state.order}
            state.standing = {s.element: s for s in self.store.standing(session_id)}
            if self.cut_outputs:
                state.cuts = {seq: orjson.loads(form) for seq, (form, _) in self.store.cuts(session_id).items()}
            else:
                for row in state.order:
                    row.cut, row.tokens = False, row.full_tokens
            stale = [item for item in state.standing.values() if not item.text]
            if stale:  # before the state is kept: if this fails, the next request tries again
                self._remake(session_id, state, stale)
            self.sessions[session_id] = state
        return state

    def _remake(self, session_id: str, state: Session, stale: list[Standing]) -> None:
        """Standing items whose text the store no longer holds (an earlier Apollo's, emptied when the
        file was opened: ``engine_store.VERSION``), made again from their stored messages."""
        found = self._stored_elements(session_id, [item.seq for item in stale])
        made = []
        for item in stale:
            element = found.get(item.element)
            if element is not None and element.text.strip():  # else it stays out of the addition
                text = _standing(element, item.seq, item).text
                state.standing[item.element] = Standing(item.element, item.seq, item.category, item.status, text)
                made.append((item.element, text))
        if made:
            self.store.set_texts(session_id, made)

    def _stored_elements(self, session_id: str, seqs: list[int]) -> dict[str, Element]:
        """The elements of stored messages, by id, read again from their bodies."""
        bodies = self.store.bodies(session_id, sorted(set(seqs)))
        return {e.id: e for seq, body in sorted(bodies.items()) for e in _elements([(seq, orjson.loads(body))], self.count)}

    def _classifier(self, session_id: str, state: Session) -> Classifier:
        """The session's classifier, warmed up on its latest stored messages after a restart."""
        if state.classifier is None:
            state.classifier = Classifier(self.config)
            recent = state.order[-WARM_UP:]
            bodies = self.store.bodies(session_id, [m.seq for m in recent])
            pairs = [(m.seq, orjson.loads(bodies[m.seq])) for m in recent if m.seq in bodies]
            for element in _elements(pairs, self.count):
                state.classifier.feed(element)
        return state.classifier

    # -- deciding ------------------------------------------------------------------------------

    def learn(self, session_id: str, new: list[tuple[str, dict[str, Any]]], *, turn: str | None = None) -> int:
        """Decide the fate of messages seen for the first time (in order) and store them with
        ``turn`` in one transaction; returns how many were new."""
        state = self.session(session_id)
        fresh: list[tuple[str, dict[str, Any]]] = []
        seen: set[str] = set()
        for key, body in new:
            if key not in state.by_key and key not in seen:
                seen.add(key)
                fresh.append((key, body))
        if not fresh and turn is None:
            return 0
        first = state.next_seq
        pairs = [(first + n, body) for n, (_, body) in enumerate(fresh)]
        classifier = self._classifier(session_id, state) if fresh else None
        by_seq: dict[int, list[tuple[Element, Any]]] = {seq: [] for seq, _ in pairs}
        #: the classifier's latest word on earlier elements (a question answered, a task done), this
        #: batch's included: a whole session learnt at once settles as much as one learnt turn by turn
        latest: dict[str, Any] = {}
        for element in _elements(pairs, self.count):
            assert classifier is not None
            changes = classifier.feed(element)
            by_seq[_seq_of(element)].append((element, changes[0][2]))
            latest.update((new_verdict.id, new_verdict) for _, old, new_verdict in changes[1:] if old is not None)
        revised: dict[str, Standing] = {}
        stored: list[tuple[Stored, str]] = []
        in_batch = {e.call_id for items in by_seq.values() for e, _ in items if e.kind is Kind.TOOL_CALL}
        orphans = {e.call_id for items in by_seq.values() for e, _ in items
                   if e.kind is Kind.TOOL_RESULT and e.call_id and e.call_id not in in_batch}
        earlier = {call: self.store.call_fate(session_id, call) for call in orphans}
        earlier_calls = {call: fate for call, fate in earlier.items() if fate is not None}
        for (seq, body), (key, _), fate in zip(pairs, fresh, _fates(pairs, by_seq, earlier_calls), strict=True):
            unit, action, reason, must = fate
            tokens = MESSAGE_OVERHEAD + sum(e.tokens for e, _ in by_seq[seq])
            stored.append((Stored(key, seq, unit, str(body.get("role", "")), action, reason, must, tokens, False, False,
                                  tokens),
                           orjson.dumps(body).decode()))
            if action == "keep":
                for element, verdict in by_seq[seq]:
                    if verdict.category in MUST_KEEP and verdict.action == "keep" and element.text.strip():
                        revised[element.id] = _standing(element, seq, verdict)
        kept = {row.seq: row.fate == "keep" for row, _ in stored}
        in_this_batch = {element.id: element for items in by_seq.values() for element, _ in items}
        for ident, verdict in latest.items():
            item = revised.get(ident) or state.standing.get(ident)
            if item is None and verdict.category in MUST_KEEP and verdict.status == "current":
                item = self._became_must_keep(session_id, state, in_this_batch.get(ident), ident, kept, verdict)
            if item is not None:
                revised[ident] = _settle(item, verdict)
        self.store.save(session_id, stored, list(revised.values()), turn=turn)
        for row, _ in stored:
            state.order.append(row)
            state.by_key[row.key] = row
        state.standing.update(revised)
        if revised:
            state.addition = None
        return len(stored)

    def _became_must_keep(self, session_id: str, state: Session, element: Element | None, ident: str,
                          kept: dict[int, bool], verdict: Any) -> Standing | None:
        """A kept message a later one made must-keep (a proposal the user accepted): its standing
        item, read from this batch or from the stored message."""
        seq = _seq_of_id(ident)
        if seq not in kept:
            kept[seq] = any(row.seq == seq and row.fate == "keep" for row in state.order)
        if not kept[seq]:
            return None
        if element is None:
            element = self._stored_elements(session_id, [seq]).get(ident)
        if element is None or not element.text.strip():
            return None
        return _standing(element, seq, verdict)

    # -- the plugin's requests -----------------------------------------------------------------

    def assemble(self, session_id: str, keys: list[str], bodies: dict[int, dict[str, Any]],
                 budget: int | None) -> dict[str, Any]:
        """Positions of ``keys`` the model gets, the estimated tokens, the system-prompt addition;
        ``{"need": [...]}`` when bodies of unseen messages are missing."""
        state = self.session(session_id)
        found = [state.by_key.get(key) for key in keys]
        unseen = [i for i, row in enumerate(found) if row is None]
        if unseen:
            need = [i for i in unseen if i not in bodies]
            if need:
                return {"need": need}
            for start in range(0, len(unseen), LEARN_CHUNK):  # a long backfill keeps what it did if cut short
                self.learn(session_id, [(keys[i], bodies[i]) for i in unseen[start:start + LEARN_CHUNK]])
            found = [state.by_key.get(key) for key in keys]
        rows = [row for row in found if row is not None]
        cut_now, evicted = self._compaction_point(session_id, rows, budget, force=False)
        keep = [i for i, row in enumerate(rows) if row.fate == "keep" and not row.evicted]
        return {"keep": keep, "cut": {str(i): state.cuts[rows[i].seq] for i in keep if rows[i].cut},
                "tokens": sum(rows[i].tokens for i in keep), "addition": self.addition(session_id),
                "dropped": sum(row.fate == "drop" for row in rows), "evicted": evicted, "cutNow": cut_now}

    def commit(self, session_id: str, advancement_key: str, messages: list[tuple[str, dict[str, Any]]]) -> str:
        """Store a finished turn once: ``committed``, or ``duplicate`` for a key already stored."""
        if self.store.has_turn(session_id, advancement_key):
            return "duplicate"
        self.learn(session_id, messages, turn=advancement_key)
        return "committed"

    def compact(self, session_id: str, budget: int | None) -> dict[str, Any]:
        """A compaction point now (``/compact``): deterministic, no model call."""
        state = self.session(session_id)
        rows = list(state.order)
        before = sum(r.tokens for r in rows if r.fate == "keep" and not r.evicted)
        cut_now, evicted = self._compaction_point(session_id, rows, budget, force=True)
        after = sum(r.tokens for r in rows if r.fate == "keep" and not r.evicted)
        return {"compacted": evicted > 0 or cut_now > 0, "tokensBefore": before, "tokensAfter": after,
                "evicted": evicted, "cut": cut_now, "summary": self.addition(session_id)}

    def _compaction_point(self, session_id: str, rows: list[Stored], budget: int | None, *,
                          force: bool) -> tuple[int, int]:
        """Cut the old tool outputs outside the recent turns (:mod:`engine_cut`), then evict whole
        units outside them, oldest first and must-keep last; returns how many messages were cut and
        how many evicted (stored, so it happens once). Over the budget: until the kept
        tokens are down to ``EVICT_DOWN_TO`` of it, the recent turns capped at ``RECENT_SHARE`` of
        it (:func:`_recent_units`), and what fits again once the others went stays. Forced
        (``/compact``): every unit outside the recent turns that is not must-keep, and must-keep
        ones only while still over that mark."""
        total = sum(r.tokens for r in rows if r.fate == "keep" and not r.evicted)
        if not force and (not budget or total <= budget * EVICT_ABOVE):
            return self._cut_point(session_id, rows, budget), 0
        target = int(budget * EVICT_DOWN_TO) if budget else None
        # a point the budget forces caps the recent turns; /compact keeps them whole, as it always has
        protected = _recent_units(rows, int(budget * RECENT_SHARE) if budget and not force else None)
        try:
            cut_now, saved = self._cut_old_work(session_id, rows, self._cut_candidates(session_id, rows, protected))
        except sqlite3.OperationalError:  # the file busy (another engine writing): evicting still holds the budget
            cut_now, saved = 0, 0
        total -= saved
        units: dict[int, list[Stored]] = {}
        for row in rows:
            if row.unit not in protected and row.fate == "keep" and not row.evicted:
                units.setdefault(row.unit, []).append(row)
        order = sorted(units.items(), key=lambda item: (any(r.must_keep for r in item[1]), item[0]))
        going: list[tuple[list[Stored], int]] = []  # each unit that goes, with its tokens
        for _, members in order:
            must_keep = any(r.must_keep for r in members)
            fits = target is None or total <= target
            if fits and (must_keep or not force):
                break
            going.append((members, sum(r.tokens for r in members)))
            total -= going[-1][1]
        staying: set[int] = set()
        if not force and target is not None:  # oldest first may take more than needed (one huge output
            for index in range(len(going) - 1, -1, -1):  # among small ones): what fits again stays, newest first
                if total + going[index][1] <= target:
                    staying.add(index)
                    total += going[index][1]
        chosen = [row for index, (members, _) in enumerate(going) if index not in staying for row in members]
        if chosen:
            self.store.save(session_id, [], [], evict=[r.seq for r in chosen])
            for row in chosen:
                row.evicted = True
        return cut_now, len(chosen)

    def _cut_point(self, session_id: str, rows: list[Stored], budget: int | None) -> int:
        """Within the budget: the old outputs cut once they hold more than ``CUT_ABOVE`` of it (the
        filter's saving, in the loop, for one change of the prefix); how many were cut."""
        if not budget:
            return 0
        old = self._cut_candidates(session_id, rows, _recent_units(rows, None))
        if sum(r.tokens for r in old if r.role == "toolResult") <= budget * CUT_ABOVE:  # the calls come along
            return 0
        try:
            return self._cut_old_work(session_id, rows, old)[0]
        except sqlite3.OperationalError:  # the file busy (another engine writing): this cut can wait a turn
            return 0

    def _cut_candidates(self, session_id: str, rows: list[Stored], protected: set[int]) -> list[Stored]:
        """Kept tool results and agent messages (whose tool calls may hold long arguments) outside
        ``protected``, long enough to cut, not cut yet nor left whole."""
        if not self.cut_outputs:
            return []
        try:
            rules = self.filter_rules
        except ApolloError:  # a broken [filter] section in a user's rule file: no cut, the budget still holds
            return []
        whole = self.session(session_id).whole
        # the agent's messages since the user's latest are the run the model is in (or has just finished): a
        # provider may check them as it signed them (thinking, call signatures); evicted whole if they must go
        asked = max((r.seq for r in rows if r.role == "user"), default=-1)
        return [r for r in rows if (r.role == "toolResult" or r.role == "assistant" and r.seq < asked) and r.fate == "keep"
                and not r.evicted and not r.cut and r.seq not in whole and r.unit not in protected
                and r.tokens > MESSAGE_OVERHEAD + rules["tool_keep_tokens"]]

    def _cut_old_work(self, session_id: str, rows: list[Stored], old: list[Stored]) -> tuple[int, int]:
        """Each of ``old`` (:meth:`_cut_candidates`) cut as the filter cuts it, and stored: an output to
        its first line and the lines the user's and the agent's later words name, a tool call's long
        arguments to their heads; returns how many were cut and the tokens that saved."""
        if not old:
            return 0, 0
        rules, state = self.filter_rules, self.session(session_id)
        bodies = {seq: orjson.loads(raw) for seq, raw in sorted(self.store.bodies(session_id, [r.seq for r in old]).items())}
        outputs = [(seq, text) for seq, body in bodies.items()
                   if body.get("role") == "toolResult" and (text := engine_cut.text_of(body)) is not None]
        # the agent's messages holding a long argument (asked in any language: only the pointer differs)
        calls = [seq for seq, body in bodies.items()
                 if body.get("role") == "assistant" and engine_cut.cut_calls(body, rules, "en", seq) is not None]
        found: dict[int, tuple[list[dict[str, Any]], int]] = {}
        if outputs or calls:  # else (an output with an image, a reply with no long argument) nothing after is read
            first = min([seq for seq, _ in outputs] + calls)
            later = [r.seq for r in rows if r.seq > first and r.role in ("user", "assistant")]
            said = [(seq, orjson.loads(raw)) for seq, raw in sorted(self.store.bodies(session_id, later).items())]
            talk = [e for e in _elements(said, self.count) if e.kind is Kind.TEXT and e.role in (Role.USER, Role.ASSISTANT)]
            lang = language_of(talk)
            found = engine_cut.cuts(outputs, [(_seq_of(e), e.text) for e in talk], rules, lang, self.count)
            for seq in calls:
                content = engine_cut.cut_calls(bodies[seq], rules, lang, seq)
                if content is not None:
                    shown = _elements([(seq, {**bodies[seq], "content": content})], self.count)
                    found[seq] = (content, sum(e.tokens for e in shown))
        made = [(row.seq, orjson.dumps(found[row.seq][0]).decode(), MESSAGE_OVERHEAD + found[row.seq][1])
                for row in old if row.seq in found and MESSAGE_OVERHEAD + found[row.seq][1] < row.tokens]
        stored: dict[int, tuple[str, int]] = {}
        if made:
            self.store.save(session_id, [], [], cut=made)
            # as stored: another engine on this file may have cut one first, and its model has those bytes
            stored = self.store.cuts(session_id, [seq for seq, _, _ in made])
        saved = 0
        for row in old:
            if row.seq in stored:
                form, tokens = stored[row.seq]
                saved += row.tokens - tokens
                row.cut, row.tokens = True, tokens
                state.cuts[row.seq] = orjson.loads(form)
        # once stored: a message left whole (an image in it, nothing long to cut) is not tried again
        state.whole.update(row.seq for row in old if row.seq not in stored)
        return sum(row.seq in stored for row in old), saved  # each one changes what the model gets

    @functools.cached_property
    def filter_rules(self) -> concentrate.FilterRules:
        """The file filter's rules (and the user's rule files): how an old output is cut."""
        return concentrate.load_for(self.config)

    def addition(self, session_id: str) -> str:
        """The standing decisions, preferences, open tasks and open questions: the same bytes as
        long as they do not change."""
        state = self.session(session_id)
        if state.addition is None:
            state.addition = _addition(state.standing.values())
        return state.addition

    def recall(self, session_id: str, query: str = "", ident: str = "", limit: int = 5) -> list[dict[str, Any]]:
        """What renal dropped or a compaction point evicted or cut in this session, verbatim (a cut
        output whole): by id (``m12``, or a message key) or by the words of ``query`` (all of them,
        any case), newest first."""
        return recall_from(self.store, session_id, query, ident, limit)


def _recent_units(rows: list[Stored], cap: int | None) -> set[int]:
    """The units of the latest ``RECENT_TURNS`` user turns, never evicted: when they hold more than
    ``cap`` kept tokens, the user's latest message still in context and, with it, the newest of them
    up to ``cap`` (at least the newest one; a unit is kept or evicted whole: a tool call with its results)."""
    user_turns = [i for i, r in enumerate(rows) if r.role == "user"]
    start = user_turns[-RECENT_TURNS] if len(user_turns) >= RECENT_TURNS else 0
    recent = rows[start:]
    sizes: dict[int, int] = {}  # each unit's kept tokens
    for row in recent:
        if row.fate == "keep" and not row.evicted:
            sizes[row.unit] = sizes.get(row.unit, 0) + row.tokens
    if cap is None or sum(sizes.values()) <= cap:
        return {r.unit for r in recent}
    asked = next((r for r in reversed(rows) if r.role == "user" and r.unit in sizes), None)  # what the run serves
    protected = {asked.unit} if asked is not None else set()
    held, newest = sum(sizes[unit] for unit in protected), True
    for row in reversed(recent):
        if row.unit in protected or row.unit not in sizes:
            continue
        held += sizes[row.unit]
        if held > cap and not newest:
            break
        protected.add(row.unit)
        newest = False
    return protected


def _standing(element: Element, seq: int, verdict: Any) -> Standing:
    """The item as the system-prompt addition shows it: on one line, up to ``ITEM_CHARS``, secrets
    redacted before the cut (half a key is no longer recognisable as one) and never a mark cut in
    half; where it was cut or redacted, the id :meth:`Engine.recall` returns the whole message by."""
    said = element.text.strip()
    head = said[:READ_CHARS]
    partly = len(said) > READ_CHARS
    # a run of key characters the read would halve stays out whole: what an earlier key's shorter mark
    # brings into view must not be the unrecognisable start of another
    if partly and said[READ_CHARS] in _KEY_CHARS:
        head = head.rstrip(_KEY_CHARS)
    # redacted with its lines: some detectors read a table's column or the line after a secret's name
    text = " ".join(redact(head).split())
    if partly:  # and what the read cut through (a quoted passphrase) is never shown, however short the
        text = cut(text, max(len(text) - READ_MARGIN, 0))  # marks before it made the text
    if partly or len(text) > ITEM_CHARS:
        text = (cut(text, ITEM_CHARS).rstrip() + f" … (recall m{seq})").lstrip()
    elif text != " ".join(head.split()):
        text += f" (recall m{seq})"
    return Standing(element.id, seq, verdict.category, verdict.status, text)


def _settle(item: Standing, verdict: Any) -> Standing:
    """A standing item as the classifier now sees it: a question answered "yes" becomes the decision
    it made; one that left the must-keep categories (answered, done) no longer stands. A new item:
    the engine's memory changes only once the store has saved it."""
    if verdict.category in MUST_KEEP:
        return Standing(item.element, item.seq, verdict.category, verdict.status, item.text)
    return Standing(item.element, item.seq, item.category, "withdrawn", item.text)


def _addition(standing: Iterable[Standing]) -> str:
    """The newest ``ITEMS_PER_CATEGORY`` distinct items that still stand, by category, oldest first."""
    current = sorted((s for s in standing if s.status == "current"), key=lambda s: (s.seq, s.element))
    lines = []
    for category, heading in HEADINGS:
        texts: dict[str, None] = {}
        for item in current:
            if item.category == category and item.text:
                texts.pop(item.text, None)  # a repeated item counts where it was said last
                texts[item.text] = None
        if texts:
            lines.append(f"### {heading}")
            lines.extend(f"- {text}" for text in list(texts)[-ITEMS_PER_CATEGORY:])
    if not lines:
        return ""
    return "\n".join(["## Standing context (Apollo renal)",
                      "Decisions, preferences, open tasks and open questions of this conversation, kept while they "
                      "stand (the newest of each kind). What Apollo filtered out of the history is returned "
                      "verbatim by the apollo_recall tool.", *lines]) + "\n"


def recall_from(store: Store, session_id: str, query: str = "", ident: str = "", limit: int = 5) -> list[dict[str, Any]]:
    """:meth:`Engine.recall` straight from the file (the MCP tool needs no running engine)."""
    words = query.lower().split()
    found = []
    for row, body in reversed(store.removed(session_id, ident)):
        message = orjson.loads(body)
        text = message_text(message)
        if not ident and words and not all(w in text.lower() for w in words):
            continue
        found.append({"id": f"m{row.seq}", "role": row.role, "why": _why(row), "text": text, "message": message})
        if len(found) >= limit:
            break
    return found


def _why(row: Stored) -> str:
    if row.fate == "drop":
        return f"dropped: {row.reason}"
    if row.evicted:
        return "compacted"
    if row.role == "assistant":
        return "cut: the model has its calls with each long argument's head (an edit's replaced text: none)"
    return "cut: the model has its first line and the lines later messages mention"


def recall_in_state(state_dir: Path, session: str | None = None, query: str = "", ident: str = "",
                    limit: int = 5) -> dict[str, Any]:
    """Recall from the engine's file under an OpenClaw state dir; the session is the one the engine
    extended last unless named."""
    from apollo.errors import InputError
    from apollo.integration.engine_store import default_path

    path = default_path(state_dir)
    if not path.is_file():
        raise InputError("Apollo's context engine has no state here", where=str(path),
                         hint="apollo install --context-engine selects it; recall works after its first turn")
    store = Store(path)
    try:
        sessions = store.sessions()
        chosen = session or (sessions[0] if sessions else "")
        if chosen not in sessions:
            raise InputError(f"no session {chosen!r} in the engine's state", where=str(path),
                             hint="known sessions: " + (", ".join(sessions[:5]) or "none"))
        return {"session": chosen, "found": recall_from(store, chosen, query, ident, limit)}
    finally:
        store.close()


def message_text(message: dict[str, Any]) -> str:
    """The message's text exactly as stored: a string content, or its text blocks (tool calls as
    their JSON) one after the other."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, dict) and block.get("type") == "toolCall":
            parts.append(orjson.dumps({"tool": block.get("name"), "arguments": block.get("arguments")}).decode())
    return "\n".join(parts)


# -- messages as renal reads them ---------------------------------------------------------------------


def _elements(pairs: list[tuple[int, dict[str, Any]]], count: Any) -> Iterator[Element]:
    """The elements of messages, read by the OpenClaw format itself (envelopes, heartbeat polls
    and replies), as entries ``m<seq>`` of one chain."""
    lines = []
    previous = f"m{pairs[0][0] - 1}" if pairs and pairs[0][0] > 0 else None
    for n, (seq, body) in enumerate(pairs, 1):
        entry = {"type": "message", "id": f"m{seq}", "parentId": previous, "message": body}
        lines.append((n, orjson.dumps(entry) + b"\n"))
        previous = f"m{seq}"
    yield from iter_session_elements(lambda: iter(lines), "engine", [], count)


def _seq_of(element: Element) -> int:
    return _seq_of_id(element.record_id or element.id)


def _seq_of_id(ident: str) -> int:
    """The message's position in the session, from an element id ``m<seq>`` or ``m<seq>:<block>``."""
    return int(ident.split(":")[0][1:])


def _fates(pairs: list[tuple[int, dict[str, Any]]], by_seq: dict[int, list[tuple[Element, Any]]],
           earlier_calls: dict[str, tuple[int, str, str, bool]]) -> list[tuple[int, str, str, bool]]:
    """(unit, keep | drop, reason, must-keep) for each message, decided over whole turns; a tool
    result whose call was decided in an earlier batch shares that call's fate (``earlier_calls``)."""
    fates: dict[int, tuple[int, str, str, bool]] = {}
    turn: list[int] = []
    for seq, body in pairs:
        if body.get("role") == "user" and turn:
            _turn_fates(turn, by_seq, fates, earlier_calls)
            turn = []
        turn.append(seq)
    if turn:
        _turn_fates(turn, by_seq, fates, earlier_calls)
    return [fates[seq] for seq, _ in pairs]


def _turn_fates(turn: list[int], by_seq: dict[int, list[tuple[Element, Any]]], fates: dict[int, tuple[int, str, str, bool]],
                earlier_calls: dict[str, tuple[int, str, str, bool]]) -> None:
    def must(seq: int) -> bool:
        return any(v.category in MUST_KEEP and v.action == "keep" for _, v in by_seq[seq])

    unit_of_call: dict[str, int] = {}
    for seq in turn:
        elements = by_seq[seq]
        calls = [e.call_id for e, _ in elements if e.kind is Kind.TOOL_CALL and e.call_id]
        answered = [e.call_id for e, _ in elements if e.kind is Kind.TOOL_RESULT and e.call_id]
        if calls:
            unit_of_call.update((call, seq) for call in calls)
            fates[seq] = (seq, "keep", "tool call (kept with its results)", must(seq))
        elif answered or any(e.kind is Kind.TOOL_RESULT for e, _ in elements):
            call = unit_of_call.get(answered[0]) if answered else None
            if call is None and answered and answered[0] in earlier_calls:
                fates[seq] = earlier_calls[answered[0]]  # its call came in an earlier batch: the same fate
            else:
                fates[seq] = (call if call is not None else seq, "keep", "tool result (kept with its call)", must(seq))
        elif elements and all(v.action == "drop" for _, v in elements):
            fates[seq] = (seq, "drop", elements[0][1].reason, False)
        else:
            fates[seq] = (seq, "keep", "", must(seq))
    first = by_seq[turn[0]]
    if first and first[0][0].kind is Kind.HEARTBEAT_POLL:
        reports = [seq for seq in turn if any(_reports(e, v) for e, v in by_seq[seq])]
        if not reports:  # the whole heartbeat goes, tool calls and all: nothing came of it
            for seq in turn:
                fates[seq] = (turn[0], "drop", "heartbeat with nothing to report", False)
        else:  # what it found stays, with the poll that asked; its bare acknowledgements go
            fates[turn[0]] = (turn[0], "keep", "heartbeat with something to report", must(turn[0]))
            for seq in reports:
                if fates[seq][1] == "drop":
                    fates[seq] = (seq, "keep", "what a heartbeat found", must(seq))


def _reports(element: Element, verdict: Any) -> bool:
    """An agent's words in a heartbeat turn that report something: kept by the classifier, or a
    short reply it drops that still carries a fact (the filter's own reabsorption test)."""
    if element.role is not Role.ASSISTANT or element.kind not in (Kind.TEXT, Kind.HEARTBEAT_REPLY):
        return False
    return verdict.action != "drop" or (verdict.category == "noise" and _carries_fact(element.text))


@functools.cache
def _fact_test() -> tuple[Any, Any]:
    from apollo.renal.condense import Condenser

    rules = concentrate.load()
    return rules, Condenser(rules.condense)


def _carries_fact(text: str) -> bool:
    rules, condenser = _fact_test()
    return bool(text.strip()) and concentrate.carries_fact(text, rules, condenser, frozenset()) is not None
