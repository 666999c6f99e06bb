"""The second pass: an OpenClaw / pi session's entries as elements, one line at a time, with
the envelope rules applied (``<entryId>`` / ``<entryId>:<n>`` ids, see :mod:`apollo.transcript.openclaw`)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from apollo import jsonline
from apollo.transcript.base import (
    Counter,
    LineSource,
    iter_records,
    text_field,
)
from apollo.transcript.model import Element, Kind, ReadWarning, Role, is_deferred, outside
from apollo.transcript.openclaw_rules import (
    BRANCH_SUMMARY_WRAPPER,
    COMPACTION_SUMMARY_WRAPPER,
    EnvelopeRules,
    rules,
)

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# ---------------------------------------------------------------------------------------------
# Pass 2: elements
# ---------------------------------------------------------------------------------------------
def iter_session_elements(lines: LineSource, where: str, warnings: list[ReadWarning],
                          count: Counter, tail: Tail | None = None) -> Iterator[Element]:
    """The session's elements; ``tail``, when given, records where this read stops, for a later
    read of only what is appended (:mod:`apollo.transcript.openclaw_tail`)."""
    from apollo.transcript.openclaw_index import build_index  # a read of what is appended makes no first pass

    index = build_index(lines, where, warnings)
    rule = rules()
    nodes, in_context_ids = index.nodes, index.in_context
    heartbeat_turn: set[str] = set()
    position = 0
    for number, _raw, record in iter_records(lines() if tail is None else tail.recorded(lines()), where, None):
        if record is None:
            continue
        entry_id = record.get("id")
        if not isinstance(entry_id, str) or not entry_id or record.get("type") == "session":
            continue
        node = nodes.get(entry_id)
        if node is None:  # written after the index pass read the file: the next read takes it
            continue
        latest = node.line == number
        in_context = latest and entry_id in in_context_ids
        base = entry_id if latest else f"{entry_id}@{number}"
        elements = placed(entry_elements(record, base, rule, count, heartbeat_turn, node.parent), position, number,
                          entry_id, in_context)
        position += len(elements)
        yield from elements
    if tail is not None:
        tail.finish(index.header_ok and index.ends_with_newline and not warnings and tail.ends_where(index.last_line),
                    position, frozenset(nodes),
                    index.leaf, index.leaf in heartbeat_turn)


def placed(elements: list[Element], position: int, line: int, entry_id: str, in_context: bool) -> list[Element]:
    """An entry's elements with their place in the session: from ``position`` on, on ``line``."""
    for offset, element in enumerate(elements):
        element.index = position + offset
        element.line = line
        element.record_id = entry_id
        element.in_context = in_context
    return elements


class Tail:
    """Where a read of a session file stopped: the bytes read (how many, their SHA-256), its last
    line, the elements so far, the entry ids, the leaf and whether the leaf is in a heartbeat's
    turn: all a read of only the appended entries needs (:mod:`apollo.transcript.openclaw_tail`).
    ``usable`` is False once the read met anything a reader warns about (a broken line, a
    duplicate id, a parent not in the file…): only a whole read then says what the session holds."""

    __slots__ = ("offset", "digest", "lines", "position", "ids", "leaf", "leaf_turn", "usable", "offsets", "hasher",
                 "complete", "held_spots")

    def __init__(self, state: tuple[Any, ...] | None = None):
        """From a saved ``state`` (a read of what is appended), or empty (a whole read: usable once finished)."""
        self.usable = state is not None
        self.offset, self.digest, self.lines, self.position, self.ids, self.leaf, self.leaf_turn = \
            state if state is not None else (0, b"", 0, 0, frozenset(), None, False)
        #: line number -> where it starts, for the lines read in this process
        self.offsets: dict[int, int] = {}
        self.hasher = hashlib.sha256()
        #: whether the last line this process read ends with a newline
        self.complete = True
        #: id(element) -> its spot, for the elements read again from a saved spot (not built until looked at)
        self.held_spots: dict[int, tuple[int, int, str, bool, bool, int]] = {}

    def state(self) -> tuple[Any, ...] | None:
        """What a saved check keeps (plain data), or None when the next read must be a whole one."""
        if not self.usable:
            return None
        return self.offset, self.digest, self.lines, self.position, self.ids, self.leaf, self.leaf_turn

    def recorded(self, lines: Iterator[tuple[int, bytes]]) -> Iterator[tuple[int, bytes]]:
        for number, raw in lines:
            self.offsets[number] = self.offset
            self.hasher.update(raw)
            self.offset += len(raw)
            self.lines = number
            self.complete = raw.endswith(b"\n")
            yield number, raw

    def ends_where(self, last_line: int) -> bool:
        """This read stopped on a whole line, the one the index pass stopped on: a file still being
        written between the two passes is read whole next time."""
        return self.lines == last_line and self.complete

    def finish(self, usable: bool, position: int, ids: frozenset[str], leaf: str | None, leaf_turn: bool) -> None:
        self.usable = usable
        self.digest = self.hasher.digest()
        self.position, self.ids, self.leaf, self.leaf_turn = position, ids, leaf, leaf_turn

    def spot(self, element: Element) -> tuple[int, int, str, bool, bool, int] | None:
        """Where ``element`` is read again from (its line's start, line, id, whether in context or in
        a heartbeat's turn, its tokens), or None when this read did not see its line. An element read
        again but never looked at keeps the spot it was read from (it is not built to say it)."""
        if is_deferred(element):
            return self.held_spots[id(element)]
        offset = self.offsets.get(element.line) if element.line is not None else None
        if offset is None or element.line is None:
            return None
        return (offset, element.line, element.id, element.in_context, bool(element.extra.get("heartbeat_turn")),
                element.tokens)


def _element(element_id: str, role: Role, kind: Kind, text: str, count: Counter, envelope: str = "",
             **fields: Any) -> Element:
    tokens = (count(text) + (count(envelope) if envelope else 0)) if kind is not Kind.METADATA else 0
    return Element(element_id, role, kind, text, tokens=tokens, envelope=envelope, **fields)


def entry_elements(record: dict[str, Any], base: str, rule: EnvelopeRules, count: Counter, heartbeat_turn: set[str],
                    parent: str | None) -> list[Element]:
    """The elements of one entry (a list: an entry's elements are read together, and this runs
    for every entry of a 50 MB session)."""
    entry_type = record.get("type")
    timestamp = record.get("timestamp")
    if not isinstance(timestamp, str):
        timestamp = None
    if parent in heartbeat_turn:
        heartbeat_turn.add(base)
    if entry_type == "message":
        message = record.get("message")
        if isinstance(message, dict):
            return _message_elements(message, base, rule, count, heartbeat_turn, timestamp, parent)
    if entry_type in ("compaction", "branch_summary"):
        summary = text_field(record, "summary")
        extra = {"entry_type": entry_type}
        for key in ("firstKeptEntryId", "tokensBefore", "fromId"):
            if key in record:
                extra[key] = record[key]
        wrapper = "".join(COMPACTION_SUMMARY_WRAPPER if entry_type == "compaction" else BRANCH_SUMMARY_WRAPPER)
        return [_element(base, Role.SYSTEM, Kind.COMPACTION, summary, count, wrapper, extra=extra,
                         timestamp=timestamp, parent=parent)]
    if entry_type == "custom_message":
        return [_custom_element(record, base, rule, count, heartbeat_turn, timestamp, parent)]
    return [_element(base, Role.SYSTEM, Kind.METADATA, _describe(record), count,
                     extra={"entry_type": str(entry_type)}, timestamp=timestamp, parent=parent)]


def _custom_element(custom: dict[str, Any], base: str, rule: EnvelopeRules, count: Counter, heartbeat_turn: set[str],
                    timestamp: str | None, parent: str | None) -> Element:
    """A custom message (an entry in a file, a message of role "custom" where the context engine reads
    them): the model reads it as a user message, but it is the runtime's or an extension's, in the
    user's envelope, or written by the runtime whole (then all of it is envelope)."""
    custom_type = custom.get("customType")
    whole = content_text(custom.get("content"))
    injected = isinstance(custom_type, str) and custom_type in rule.injected_custom_types
    envelope, text = (whole, "") if injected else rule.split_envelope(whole)
    extra = {"entry_type": "custom_message", "customType": custom_type}
    polls = _notice_or_poll(text, envelope, rule, extra)
    _mark_description(text, rule, extra)
    kind = Kind.HEARTBEAT_POLL if polls else Kind.TEXT  # newer releases poll in runtime context
    if kind is Kind.HEARTBEAT_POLL:
        heartbeat_turn.add(base)
    else:
        heartbeat_turn.discard(base)
    return _element(base, Role.USER, kind, text, count, envelope, timestamp=timestamp, parent=parent, extra=extra)


def _notice_or_poll(text: str, envelope: str, rule: EnvelopeRules, extra: dict[str, Any]) -> bool:
    """Whether the message is a heartbeat poll, to drop with its turn; a message that is a gateway notice
    and nothing of the user's is marked ``notice_only``: its text is empty, or it is the notice's later
    paragraphs before a poll (a hook's assessment of an e-mail, "action required … deadline May 12", that
    the poll brought), which stays as the runtime's report, its turn the agent's work on it."""
    poll = rule.poll_start(text)
    if (not text.strip() or (poll is not None and poll > 0)) and rule.notice_in(envelope):
        extra["notice_only"] = True
        return False
    return poll is not None


def _routed(message: dict[str, Any], rule: EnvelopeRules) -> bool:
    """Whether OpenClaw routed the message from another session or an internal tool (its ``provenance``)."""
    provenance = message.get("provenance")
    return isinstance(provenance, dict) and provenance.get("kind") in rule.routed_provenance


def _mark_description(text: str, rule: EnvelopeRules, extra: dict[str, Any]) -> None:
    """Where the descriptions of images or videos that OpenClaw's media understanding wrote into a
    user's ``text`` lie (``described``, [start, end] pairs): a vision model's words, in which the
    classifier reads no intent of the user's."""
    if "Description:" in text and (spans := rule.described_spans(text)):
        extra["described"] = [list(span) for span in spans]


def _message_elements(message: dict[str, Any], base: str, rule: EnvelopeRules, count: Counter, heartbeat_turn: set[str],
                      timestamp: str | None, parent: str | None) -> list[Element]:
    role = message.get("role")
    if role == "custom":
        return [_custom_element(message, base, rule, count, heartbeat_turn, timestamp, parent)]
    content = message.get("content")
    turn_is_heartbeat = base in heartbeat_turn
    if role == "toolResult":
        result: dict[str, Any] = {"isError": bool(message.get("isError"))}
        if turn_is_heartbeat:
            result["heartbeat_turn"] = True
        return [_element(base, Role.TOOL, Kind.TOOL_RESULT, content_text(content), count,
                         call_id=message.get("toolCallId"), tool_name=message.get("toolName"),
                         extra=result, timestamp=timestamp, parent=parent)]
    if role == "bashExecution":
        text = f"$ {message.get('command', '')}\n{message.get('output') or ''}".rstrip("\n")
        return [_element(base, Role.USER, Kind.TOOL_RESULT, text, count, tool_name="bash",
                         extra={"role": role}, timestamp=timestamp, parent=parent)]
    element_role = Role.ASSISTANT if role == "assistant" else Role.USER
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(blocks, list):
        return [_element(base, element_role, Kind.METADATA, "", count, extra={"role": role}, timestamp=timestamp,
                         parent=parent)]
    turn = _assistant_turn(message, blocks, rule, turn_is_heartbeat) if role == "assistant" else {}
    if role == "user":  # a user's message ends the heartbeat's turn, unless its text is the next poll
        heartbeat_turn.discard(base)
    if not blocks and turn:  # a turn that failed before any content: one empty element the filter can drop
        return [_element(base, element_role, Kind.TEXT, "", count, timestamp=timestamp, parent=parent, extra=turn)]
    elements = []
    previous = parent
    for block_index, block in enumerate(blocks):
        element_id = base if block_index == 0 else f"{base}:{block_index}"
        block_type = block.get("type") if isinstance(block, dict) else None
        if block_type == "text":
            text = text_field(block, "text")
            kind = Kind.TEXT
            envelope = ""
            extra: dict[str, Any] = {}
            if role == "user":
                prefix, text, suffix, scheduled = rule.unwrap(text)
                envelope = prefix + suffix
                polls = _notice_or_poll(text, envelope, rule, extra)
                if _routed(message, rule) and not polls:
                    extra["routed"] = True  # another session's words, not the user's
                if scheduled:
                    extra["scheduled"] = True
                _mark_description(text, rule, extra)
                if "Queued #" in text and rule.opens_batch(prefix) and (furniture := rule.queued_furniture(text)):
                    extra["furniture"] = [list(span) for span in furniture]
                if block_index == 0 and polls:
                    kind = Kind.HEARTBEAT_POLL
                    heartbeat_turn.add(base)
            elif role == "assistant" and _reply_markup(text, rule, extra, turn_is_heartbeat):
                kind = Kind.HEARTBEAT_REPLY
            element = _element(element_id, element_role, kind, text, count, envelope, timestamp=timestamp,
                               parent=previous, extra=extra)
        elif block_type == "thinking":
            element = _element(element_id, element_role, Kind.THINKING, text_field(block, "thinking"), count,
                               timestamp=timestamp, parent=previous)
        elif block_type == "toolCall":
            arguments = _arguments_text(block.get("arguments", {}))
            element = _element(element_id, element_role, Kind.TOOL_CALL, arguments, count, call_id=block.get("id"),
                               tool_name=str(block.get("name", "")), timestamp=timestamp, parent=previous)
        elif isinstance(block, dict):
            label = f"[{block_type} {block.get('mimeType', '')}]".replace(" ]", "]")
            element = _element(element_id, element_role, Kind.METADATA, label, count, extra={"block": block_type},
                               timestamp=timestamp, parent=previous)
        else:
            element = _element(element_id, element_role, Kind.METADATA, "", count, timestamp=timestamp,
                               parent=previous)
        if turn:
            element.extra.update(turn)
        elements.append(element)
        previous = element_id
    return elements


def _reply_markup(text: str, rule: EnvelopeRules, extra: dict[str, Any], heartbeat: bool) -> bool:
    """Marks in ``extra`` the answer tags, reply directives and reasoning the model wrote around its reply, which
    nobody reads (``markup``, and ``reasoning`` when a reasoning block is among them); whether what remains
    acknowledges a heartbeat poll."""
    shown = text
    unsent, reasoned = rule.unsent_spans(text)
    if unsent:
        extra["markup"] = [list(span) for span in unsent]
        extra["reasoning"] = reasoned
        shown = outside(text, unsent)
    return rule.is_ack(shown) or (heartbeat and rule.is_silent(shown))


def _assistant_turn(message: dict[str, Any], blocks: list[Any], rule: EnvelopeRules, heartbeat: bool) -> dict[str, Any]:
    """What the elements of an assistant turn carry about the whole turn: that it failed with
    nothing to show (``failed_turn``: its stop reason), that it is a delivery copy (``mirror``),
    that it answers a heartbeat poll (``heartbeat_turn``), with checks (``heartbeat_work``)."""
    turn: dict[str, Any] = {}
    stop = message.get("stopReason")
    typed = [b for b in blocks if isinstance(b, dict)]
    texts = [text_field(b, "text").strip() for b in typed if b.get("type") == "text"]
    # the runtime's placeholder and a tool call printed as text are no words of the model's
    said = [text for text in texts if text not in rule.failed_placeholders and not rule.no_words(text)]
    written = sum(map(len, said))
    calls = any(b.get("type") == "toolCall" for b in typed)
    if not blocks or (texts and not said and not calls) or (
            stop in rule.failed_stop_reasons and not calls and written <= rule.failed_max_chars):
        turn["failed_turn"] = str(stop or "empty")
        if isinstance(message.get("errorMessage"), str):
            turn["error"] = message["errorMessage"]
    if f"{message.get('provider')}/{message.get('model')}" in rule.mirror_models:
        turn["mirror"] = True
    if heartbeat:
        turn["heartbeat_turn"] = True
        if calls:  # its text narrates the checks it makes next
            turn["heartbeat_work"] = True
    return turn


def _arguments_text(arguments: Any) -> str:
    """A tool call's arguments as JSON; a value orjson refuses to write (nested 255 deep or more)
    is named, not written: one such call must not stop every read of the session."""
    try:
        return jsonline.dumps(arguments)
    except (TypeError, RecursionError):
        return "[arguments nested too deep to show]"


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif isinstance(block, dict):
                parts.append(f"[{block.get('type')}]")
        return "\n".join(parts)
    return ""


def _describe(record: dict[str, Any]) -> str:
    entry_type = record.get("type")
    if entry_type == "model_change":
        return f"model_change {record.get('provider')}/{record.get('modelId')}"
    if entry_type == "thinking_level_change":
        return f"thinking_level_change {record.get('thinkingLevel')}"
    if entry_type == "custom":
        return f"custom {record.get('customType')}"
    if entry_type == "label":
        return f"label {record.get('targetId')}: {record.get('label') or ''}".rstrip()
    if entry_type == "session_info":
        return f"session_info {record.get('name') or ''}".rstrip()
    if entry_type == "reset":
        return f"reset {record.get('reason') or ''}".rstrip()
    if entry_type == "leaf":
        return f"leaf -> {record.get('targetId')}"
    return f"{entry_type} (unknown entry type, passed through)"
