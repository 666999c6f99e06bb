"""OpenClaw / pi-coding-agent v3 session JSONL (``agents/<id>/sessions/<sessionId>.jsonl``).

The file is a header line ``{"type":"session","version":3,...}`` followed by entries with
``type, id, parentId, timestamp`` (pi-coding-agent 0.73.1, ``core/session-manager.js``). The
entries form a tree; what the model sees is the path from the leaf back to the root, where
the leaf is the last entry in file order (pi's ``_buildIndex``) -- OpenClaw's ``leaf`` control
entries select their ``targetId`` instead and ``appendMode: "side"`` entries do not move it.
On that path the newest ``compaction`` (or OpenClaw ``reset``) is honoured: entries before
its ``firstKeptEntryId`` are out of context, the summary stands in for them.

Element ids: ``<entryId>`` for an entry (or block 0 of a message whose content is a list)
and ``<entryId>:<n>`` for block ``n`` of that list. A ``toolResult`` entry is one element.

Reading takes two passes over the file: the first keeps only ids, parents and types (so a
50 MB session costs memory per entry, not per byte); the second builds elements one line at
a time. Writing copies line by line; only edited or re-parented entries are re-serialised.
"""

from __future__ import annotations

import functools
import re
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path
from typing import Any

import orjson

from apollo import regexes
from apollo.cache import toml_loads
from apollo.clock import now
from apollo.errors import InputError, Refused, UsageError
from apollo.transcript.base import (
    Counter,
    Fingerprint,
    LineSource,
    TranscriptFormat,
    atomic_output,
    copy_bytes,
    dump_record,
    file_lines,
    iter_records,
    line_ending,
    text_field,
)
from apollo.transcript.model import Edit, Element, Kind, ReadWarning, Role
from apollo.transcript.tree import (
    EditPlan,
    Unit,
    find_cycle_members,
    nearest_kept,
    plan_edits,
    record_merged_from,
)

_BOUNDARIES = ("compaction", "reset")
#: how pi shows the model a compaction's / a branch's summary (core/messages.js COMPACTION_SUMMARY_PREFIX and
#: _SUFFIX, BRANCH_SUMMARY_PREFIX and _SUFFIX): the element's envelope, since in context a summary costs these too
COMPACTION_SUMMARY_WRAPPER = ("The conversation history before this point was compacted into the following summary:"
                              "\n\n<summary>\n", "\n</summary>")
BRANCH_SUMMARY_WRAPPER = ("The following is a summary of a branch that this conversation came back from:"
                          "\n\n<summary>\n", "</summary>")


# ---------------------------------------------------------------------------------------------
# Rules (data/transcript_openclaw.toml): envelopes and heartbeats
# ---------------------------------------------------------------------------------------------
_FENCE_CLOSE = regexes.compile(r"^[ \t]*```[ \t]*$", re.M)
_BLANK_LINE = regexes.compile(r"^[ \t]*$", re.M)
_MARKUP = regexes.compile(r"<[^>]*>|&nbsp;")


@dataclass(frozen=True)
class EnvelopeRules:
    prefixes: tuple[re.Pattern[str], ...]
    block_headers: tuple[re.Pattern[str], ...]
    poll_patterns: tuple[re.Pattern[str], ...]
    ack_tokens: tuple[str, ...]
    ack_max_chars: int
    silent_tokens: tuple[str, ...]
    notice_lines: tuple[re.Pattern[str], ...] = ()
    suffixes: tuple[re.Pattern[str], ...] = ()
    injected: tuple[re.Pattern[str], ...] = ()
    failed_stop_reasons: frozenset[str] = frozenset()
    failed_max_chars: int = 0
    mirror_models: frozenset[str] = frozenset()
    scheduled: tuple[re.Pattern[str], ...] = ()

    def split_envelope(self, text: str) -> tuple[str, str]:
        """(envelope, content): what the gateway wrapped around the user's words (leading stamps,
        notices and metadata blocks, trailing message ids) is the envelope."""
        prefix, content, suffix = self.split(text)
        return prefix + suffix, content

    def split(self, text: str) -> tuple[str, str, str]:
        """(prefix, content, suffix), which put together give ``text`` back: a writer that replaces
        the content puts the same wrappers around the new one."""
        prefix, content, suffix, _ = self.unwrap(text)
        return prefix, content, suffix

    def unwrap(self, text: str) -> tuple[str, str, str, bool]:
        """:meth:`split`, and whether the prefix ends with a scheduled job's stamp (the content is
        then the job's prompt)."""
        if any(pattern.match(text) for pattern in self.injected):
            return text, "", "", False
        position = self._prefix_end(text)
        run = self.scheduled_run(text[position:])
        if run is not None:
            position += len(run[0])
        content = text[position:]
        for pattern in self.suffixes:
            match = pattern.search(content)
            if match and match.start() > 0:
                return text[:position], content[:match.start()], content[match.start():], run is not None
        return text[:position], content, "", run is not None

    def _prefix_end(self, text: str) -> int:
        position = 0
        while True:
            rest = text[position:]
            stripped = len(rest) - len(rest.lstrip("\n"))
            rest = rest[stripped:]
            for prefix in self.prefixes:
                match = prefix.match(rest)
                if match and match.end():
                    position += stripped + match.end()
                    break
            else:
                end = self._notice_end(rest)
                if end is None:
                    end = self._metadata_block_end(rest)
                if end is None:
                    return position
                position += stripped + end

    def scheduled_run(self, text: str) -> tuple[str, str] | None:
        """(stamp, prompt) when ``text`` is a scheduled job's prompt, else None."""
        for pattern in self.scheduled:
            match = pattern.match(text)
            if match:
                return text[:match.end()], text[match.end():]
        return None

    def notice_in(self, envelope: str) -> bool:
        """The envelope holds a gateway notice (a job's or a command's report)."""
        return any(notice.search(envelope) for notice in self.notice_lines)

    def _notice_end(self, text: str) -> int | None:
        """A gateway notice runs from its first line to the next blank line (or the end)."""
        if not any(notice.match(text) for notice in self.notice_lines):
            return None
        blank = _BLANK_LINE.search(text)
        if blank is None:
            return len(text)
        tail = text[blank.start():]
        return blank.start() + len(tail) - len(tail.lstrip(" \t\n"))

    def _metadata_block_end(self, text: str) -> int | None:
        first, _, after = text.partition("\n")
        if not any(header.match(first) for header in self.block_headers):
            return None
        offset = len(first) + 1
        if after.lstrip(" \t").startswith("```"):
            fence_line, _, body = after.partition("\n")
            close = _FENCE_CLOSE.search(body)
            if close is None:
                return None
            offset += len(fence_line) + 1 + close.end()
        else:
            blank = _BLANK_LINE.search(after)
            offset += blank.start() if blank else len(after)
        tail = text[offset:]
        return offset + len(tail) - len(tail.lstrip(" \t\n"))

    def is_poll(self, text: str) -> bool:
        stripped = text.lstrip()
        return any(pattern.search(stripped) for pattern in self.poll_patterns)

    def is_ack(self, text: str) -> bool:
        """OpenClaw's stripHeartbeatToken in heartbeat mode: token at an edge, little else."""
        if not any(token in text or " " in token for token in self.ack_tokens):
            return False  # no token in the text, none in the body: taking tags out only adds spaces
        body = _MARKUP.sub(" ", text).strip().strip("*`~_").strip()
        for token in self.ack_tokens:
            if body.startswith(token):
                rest = body[len(token):]
            elif re.search(re.escape(token) + r"[^\w]{0,4}$", body):
                rest = body[: body.rindex(token)]
            else:
                continue
            return len(rest.strip()) <= self.ack_max_chars
        return False

    def is_silent(self, text: str) -> bool:
        body = text.strip().strip(".!*`_ ")
        return any(body == token for token in self.silent_tokens)


@functools.cache
def rules() -> EnvelopeRules:
    data = toml_loads((Path(__file__).parents[1] / "data" / "transcript_openclaw.toml").read_text("utf-8"))
    envelope, heartbeat, assistant = data["envelope"], data["heartbeat"], data["assistant"]

    def compile_all(patterns: list[str], flags: int = re.M) -> tuple[re.Pattern[str], ...]:
        return tuple(regexes.compile(p, flags) for p in patterns)

    return EnvelopeRules(compile_all(envelope["prefixes"]), compile_all(envelope["block_headers"]),
                 compile_all(heartbeat["poll_patterns"]), tuple(heartbeat["ack_tokens"]),
                 int(heartbeat["ack_max_chars"]), tuple(heartbeat["silent_tokens"]),
                 notice_lines=compile_all(envelope["notice_lines"]), suffixes=compile_all(envelope["suffixes"], 0),
                 injected=compile_all(envelope["injected"]),
                 failed_stop_reasons=frozenset(assistant["failed_stop_reasons"]),
                 failed_max_chars=int(assistant["failed_max_chars"]),
                 mirror_models=frozenset(assistant["mirror_models"]), scheduled=compile_all(envelope["scheduled"]))


# ---------------------------------------------------------------------------------------------
# Pass 1: the tree without content
# ---------------------------------------------------------------------------------------------
@dataclass(slots=True)
class Node:
    line: int
    type: str
    parent: str | None
    #: compaction/reset firstKeptEntryId, leaf targetId, label targetId
    ref: str | None = None


@dataclass
class SessionIndex:
    """Ids, parents and types of every entry, the active path and what is in context."""

    where: str
    header_line: int | None = None
    header_ok: bool = False
    first_record_line: int | None = None
    nodes: dict[str, Node] = field(default_factory=dict)
    duplicate_lines: set[int] = field(default_factory=set)
    leaf: str | None = None
    path: list[str] = field(default_factory=list)
    in_context: set[str] = field(default_factory=set)
    boundary: str | None = None
    cycle_members: set[str] = field(default_factory=set)
    #: for writers: toolCall id -> (entry, block); toolCall id -> toolResult entries
    calls: dict[str, Unit] = field(default_factory=dict)
    results: dict[str, list[Unit]] = field(default_factory=dict)
    #: entries whose message content is a list of blocks, with the number of blocks
    block_counts: dict[str, int] = field(default_factory=dict)
    ends_with_newline: bool = True

    def parent_of(self) -> dict[str, str | None]:
        return {entry_id: node.parent for entry_id, node in self.nodes.items()}


def build_index(lines: LineSource, where: str, warnings: list[ReadWarning] | None) -> SessionIndex:
    index = SessionIndex(where)
    warn = (lambda line, text: warnings.append(ReadWarning(where, line, text))) if warnings is not None \
        else (lambda line, text: None)
    last_raw = b"\n"
    for number, raw, record in iter_records(lines(), where, warnings):
        last_raw = raw
        if record is None:
            continue
        if index.first_record_line is None:
            index.first_record_line = number
            index.header_ok = record.get("type") == "session" and isinstance(record.get("id"), str)
            if not index.header_ok:
                warn(number, "the first record is not a session header {\"type\":\"session\",\"id\":...}: "
                             "pi would start a new session and TRUNCATE this file")
        if record.get("type") == "session":
            if index.header_line is None:
                index.header_line = number
            else:
                warn(number, "a second session header (pi uses the first and ignores this one)")
            continue
        _index_entry(index, number, record, warn)
    index.ends_with_newline = last_raw.endswith(b"\n")
    _resolve_path(index, warn)
    return index


def _index_entry(index: SessionIndex, number: int, record: dict[str, Any], warn: Any) -> None:
    entry_id = record.get("id")
    if not isinstance(entry_id, str) or not entry_id:
        warn(number, "entry without an id: outside the tree (kept unchanged on write)")
        return
    if "parentId" not in record:
        warn(number, f"entry {entry_id} has no parentId field: taken as a root")
    parent = record.get("parentId")
    parent = parent if isinstance(parent, str) and parent else None
    entry_type = str(record.get("type"))
    if entry_id in index.nodes:
        warn(number, f"duplicate id {entry_id} (also on line {index.nodes[entry_id].line}): pi keeps the last one")
        index.duplicate_lines.add(index.nodes[entry_id].line)
    ref = record.get("targetId") if entry_type in ("leaf", "label") else record.get("firstKeptEntryId")
    index.nodes[entry_id] = Node(number, entry_type, parent, ref if isinstance(ref, str) else None)
    if entry_type == "leaf":
        index.leaf = ref if isinstance(ref, str) else None
    elif record.get("appendMode") != "side":
        index.leaf = entry_id
    message = record.get("message")
    if entry_type != "message" or not isinstance(message, dict):
        return
    content = message.get("content")
    if message.get("role") == "toolResult":
        call_id = message.get("toolCallId")
        if isinstance(call_id, str):
            index.results.setdefault(call_id, []).append((entry_id, None))
    elif isinstance(content, list):
        index.block_counts[entry_id] = len(content)
        for block_index, block in enumerate(content):
            if isinstance(block, dict) and block.get("type") == "toolCall" and isinstance(block.get("id"), str):
                index.calls[block["id"]] = (entry_id, block_index)


def _resolve_path(index: SessionIndex, warn: Any) -> None:
    parent_of = index.parent_of()
    index.cycle_members = find_cycle_members(parent_of)
    for entry_id in sorted(index.cycle_members, key=lambda e: index.nodes[e].line):
        warn(index.nodes[entry_id].line, f"entry {entry_id} is on a parentId cycle: pi would hang on it; "
                                         "the cycle is cut on write")
    for entry_id, node in index.nodes.items():
        if node.parent is not None and node.parent not in index.nodes:
            warn(node.line, f"entry {entry_id} points to parent {node.parent}, which is not in the file: "
                            "pi's context stops here and loses everything before")
    path: list[str] = []
    seen: set[str] = set()
    current = index.leaf
    while current is not None and current in index.nodes and current not in seen:
        seen.add(current)
        node = index.nodes[current]
        if node.type == "leaf":
            current = node.ref
            continue
        path.append(current)
        current = node.parent
    path.reverse()
    index.path = path
    boundary_at = max((i for i, e in enumerate(path) if index.nodes[e].type in _BOUNDARIES), default=None)
    start = 0
    if boundary_at is not None:
        boundary = path[boundary_at]
        index.boundary = boundary
        kept = index.nodes[boundary].ref
        before = path[:boundary_at]
        if kept in before:
            start = before.index(kept)
        else:
            start = boundary_at
            if kept is not None or index.nodes[boundary].type == "compaction":
                warn(index.nodes[boundary].line, f"{index.nodes[boundary].type} {boundary}: firstKeptEntryId {kept} "
                                                 "is not on the path before it, so nothing before it is kept")
    # pi sends only the newest summary: older compaction entries on the path are not messages
    index.in_context = {e for e in path[start:] if e == index.boundary or index.nodes[e].type != "compaction"}


# ---------------------------------------------------------------------------------------------
# Pass 2: elements
# ---------------------------------------------------------------------------------------------
def iter_session_elements(lines: LineSource, where: str, warnings: list[ReadWarning],
                          count: Counter) -> Iterator[Element]:
    index = build_index(lines, where, warnings)
    rule = rules()
    nodes, in_context_ids = index.nodes, index.in_context
    heartbeat_turn: set[str] = set()
    position = 0
    for number, _raw, record in iter_records(lines(), where, None):
        if record is None:
            continue
        entry_id = record.get("id")
        if not isinstance(entry_id, str) or not entry_id or record.get("type") == "session":
            continue
        node = nodes[entry_id]
        latest = node.line == number
        in_context = latest and entry_id in in_context_ids
        base = entry_id if latest else f"{entry_id}@{number}"
        for element in _entry_elements(record, base, rule, count, heartbeat_turn, node.parent):
            element.index = position
            element.line = number
            element.record_id = entry_id
            element.in_context = in_context
            position += 1
            yield element


def _element(element_id: str, role: Role, kind: Kind, text: str, count: Counter, envelope: str = "",
             **fields: Any) -> Element:
    tokens = (count(text) + (count(envelope) if envelope else 0)) if kind is not Kind.METADATA else 0
    return Element(element_id, role, kind, text, tokens=tokens, envelope=envelope, **fields)


def _entry_elements(record: dict[str, Any], base: str, rule: EnvelopeRules, count: Counter, heartbeat_turn: set[str],
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
        envelope, text = rule.split_envelope(_content_text(record.get("content")))
        extra = {"entry_type": entry_type, "customType": record.get("customType")}
        if not text.strip() and rule.notice_in(envelope):
            extra["notice_only"] = True
        kind = Kind.HEARTBEAT_POLL if rule.is_poll(text) else Kind.TEXT  # newer releases poll in runtime context
        if kind is Kind.HEARTBEAT_POLL:
            heartbeat_turn.add(base)
        else:
            heartbeat_turn.discard(base)
        return [_element(base, Role.USER, kind, text, count, envelope, timestamp=timestamp, parent=parent,
                         extra=extra)]
    return [_element(base, Role.SYSTEM, Kind.METADATA, _describe(record), count,
                     extra={"entry_type": str(entry_type)}, timestamp=timestamp, parent=parent)]


def _message_elements(message: dict[str, Any], base: str, rule: EnvelopeRules, count: Counter, heartbeat_turn: set[str],
                      timestamp: str | None, parent: str | None) -> list[Element]:
    role = message.get("role")
    content = message.get("content")
    turn_is_heartbeat = base in heartbeat_turn
    if role == "toolResult":
        result: dict[str, Any] = {"isError": bool(message.get("isError"))}
        if turn_is_heartbeat:
            result["heartbeat_turn"] = True
        return [_element(base, Role.TOOL, Kind.TOOL_RESULT, _content_text(content), count,
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
                if not text.strip() and rule.notice_in(envelope):
                    extra["notice_only"] = True
                if scheduled:
                    extra["scheduled"] = True
                if block_index == 0 and rule.is_poll(text):
                    kind = Kind.HEARTBEAT_POLL
                    heartbeat_turn.add(base)
                elif block_index == 0:
                    heartbeat_turn.discard(base)
            elif role == "assistant" and (rule.is_ack(text) or (turn_is_heartbeat and rule.is_silent(text))):
                kind = Kind.HEARTBEAT_REPLY
            element = _element(element_id, element_role, kind, text, count, envelope, timestamp=timestamp,
                               parent=previous, extra=extra)
        elif block_type == "thinking":
            element = _element(element_id, element_role, Kind.THINKING, text_field(block, "thinking"), count,
                               timestamp=timestamp, parent=previous)
        elif block_type == "toolCall":
            arguments = orjson.dumps(block.get("arguments", {})).decode()
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


def _assistant_turn(message: dict[str, Any], blocks: list[Any], rule: EnvelopeRules, heartbeat: bool) -> dict[str, Any]:
    """What the elements of an assistant turn carry about the whole turn: that it failed with
    nothing to show (``failed_turn``: its stop reason), that it is a delivery copy (``mirror``),
    that it answers a heartbeat poll (``heartbeat_turn``)."""
    turn: dict[str, Any] = {}
    stop = message.get("stopReason")
    typed = [b for b in blocks if isinstance(b, dict)]
    written = sum(len(text_field(b, "text").strip()) for b in typed if b.get("type") == "text")
    calls = any(b.get("type") == "toolCall" for b in typed)
    if not blocks or (stop in rule.failed_stop_reasons and not calls and written <= rule.failed_max_chars):
        turn["failed_turn"] = str(stop or "empty")
        if isinstance(message.get("errorMessage"), str):
            turn["error"] = message["errorMessage"]
    if f"{message.get('provider')}/{message.get('model')}" in rule.mirror_models:
        turn["mirror"] = True
    if heartbeat:
        turn["heartbeat_turn"] = True
    return turn


def _content_text(content: Any) -> str:
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


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------
def write_session(lines: LineSource, where: str, dest: Path, edits: Mapping[str, Edit]) -> None:
    """Copy a session applying ``edits``; the result keeps a valid tree pi and OpenClaw load."""
    index = build_index(lines, where, None)
    plan = plan_edits(edits, is_entry=index.nodes.__contains__, block_counts=index.block_counts,
                      calls=index.calls, results=index.results)
    parent_of = index.parent_of()
    # labels of dropped entries mean nothing; leaf controls follow their target to a kept ancestor
    for entry_id, node in index.nodes.items():
        if node.type == "label" and node.ref in plan.drop_entries:
            plan.drop_entries.add(entry_id)
    new_parent = _new_parents(index, plan, parent_of)
    new_ref = {entry_id: nearest_kept(node.ref, parent_of, plan.drop_entries)
               for entry_id, node in index.nodes.items()
               if node.type == "leaf" and node.ref in plan.drop_entries}
    new_ref.update(_kept_compaction_starts(index, plan, parent_of))
    with atomic_output(dest) as out:
        if not index.header_ok:
            out.write(dump_record(_synthetic_header(index), b"\n"))
        for number, raw, record in iter_records(lines(), where, None):
            record_id = record.get("id") if record is not None and record.get("type") != "session" else None
            if record is None or not isinstance(record_id, str) or record_id not in index.nodes \
                    or index.nodes[record_id].line != number:
                out.write(raw)
                continue
            if record_id in plan.drop_entries:
                continue
            changed = _apply(record, record_id, plan, new_parent, new_ref)
            out.write(dump_record(record, line_ending(raw)) if changed else raw)


def _new_parents(index: SessionIndex, plan: EditPlan, parent_of: dict[str, str | None]) -> dict[str, str | None]:
    """Kept entries whose parent is dropped, missing, or part of a cycle get a kept ancestor or become roots."""
    moved: dict[str, str | None] = {}
    cut = {min(group, key=lambda e: index.nodes[e].line) for group in _cycle_groups(index)}
    for entry_id, node in index.nodes.items():
        if entry_id in plan.drop_entries or node.parent is None:
            continue
        if entry_id in cut or node.parent not in index.nodes:
            moved[entry_id] = None
        elif node.parent in plan.drop_entries:
            moved[entry_id] = nearest_kept(node.parent, parent_of, plan.drop_entries)
    return moved


def _cycle_groups(index: SessionIndex) -> list[set[str]]:
    groups: list[set[str]] = []
    remaining = set(index.cycle_members)
    while remaining:
        start = remaining.pop()
        group = {start}
        current = index.nodes[start].parent
        while current is not None and current != start:
            group.add(current)
            current = index.nodes[current].parent
        remaining -= group
        groups.append(group)
    return groups


def _kept_compaction_starts(index: SessionIndex, plan: EditPlan,
                            parent_of: dict[str, str | None]) -> dict[str, str | None]:
    """A compaction whose firstKeptEntryId is dropped keeps from the next kept entry on its path."""
    moved: dict[str, str | None] = {}
    for entry_id, node in index.nodes.items():
        if node.type not in _BOUNDARIES or node.ref not in plan.drop_entries or entry_id in plan.drop_entries:
            continue
        chain: list[str] = []
        current = parent_of.get(entry_id)
        while current is not None and current in index.nodes and current not in chain:
            chain.append(current)
            if current == node.ref:
                break
            current = parent_of.get(current)
        later_kept = [e for e in chain if e not in plan.drop_entries]
        moved[entry_id] = later_kept[-1] if later_kept else nearest_kept(node.ref, parent_of, plan.drop_entries)
    return moved


def _apply(record: dict[str, Any], entry_id: str, plan: EditPlan, new_parent: dict[str, str | None],
           new_ref: dict[str, str | None]) -> bool:
    changed = False
    if entry_id in new_parent:
        record["parentId"] = new_parent[entry_id]
        changed = True
    if entry_id in new_ref:
        record["targetId" if record.get("type") == "leaf" else "firstKeptEntryId"] = new_ref[entry_id]
        changed = True
    message = record.get("message") if isinstance(record.get("message"), dict) else None
    for block, text in plan.replacements(entry_id):
        changed = True
        if block is None:
            _replace_whole(record, message, text)
        else:
            _replace_block(message, block, text)
    dropped_blocks = plan.drop_blocks.get(entry_id)
    if dropped_blocks and message is not None and isinstance(message.get("content"), list):
        message["content"] = [b for i, b in enumerate(message["content"]) if i not in dropped_blocks]
        changed = True
    return record_merged_from(record, plan.merged_into(entry_id)) or changed


def _replace_whole(record: dict[str, Any], message: dict[str, Any] | None, text: str) -> None:
    if record.get("type") in ("compaction", "branch_summary"):
        record["summary"] = text
    elif record.get("type") == "custom_message":
        prefix, _, suffix = rules().split(_content_text(record.get("content")))
        text = prefix + text + suffix
        record["content"] = text if isinstance(record.get("content"), str) else [{"type": "text", "text": text}]
    elif message is not None and message.get("role") == "toolResult":
        message["content"] = [{"type": "text", "text": text}]
    elif message is not None and isinstance(message.get("content"), str):
        message["content"] = _rewrap(message, message["content"], text)
    else:
        raise UsageError(f"cannot replace the text of a {record.get('type')} entry", where=str(record.get("id")))


def _rewrap(message: dict[str, Any] | None, old: str, text: str) -> str:
    """A user message's new text inside the wrappers the old one had."""
    if message is None or message.get("role") != "user":
        return text
    prefix, _, suffix = rules().split(old)
    return prefix + text + suffix


def _replace_block(message: dict[str, Any] | None, block_index: int, text: str) -> None:
    content = message.get("content") if message is not None else None
    if not isinstance(content, list) or block_index >= len(content) or not isinstance(content[block_index], dict):
        return
    block = content[block_index]
    if block.get("type") == "text":
        block["text"] = _rewrap(message, text_field(block, "text"), text)
    elif block.get("type") == "thinking":
        block["thinking"] = text
    elif block.get("type") == "toolCall":
        try:
            block["arguments"] = orjson.loads(text)
        except orjson.JSONDecodeError:
            raise UsageError("a tool call's replacement text must be its arguments as JSON",
                             where=str(block.get("id"))) from None
    else:
        raise UsageError(f"cannot replace the text of a {block.get('type')} block")


def _synthetic_header(index: SessionIndex) -> dict[str, Any]:
    """The header pi needs, for a file whose own first line is broken (which pi would truncate)."""
    stem = Path(index.where).name.split(".jsonl")[0]
    try:
        session_id = str(uuid.UUID(stem[-36:]))
    except ValueError:
        session_id = str(uuid.uuid4())
    return {"type": "session", "version": 3, "id": session_id, "timestamp": _pi_timestamp(), "cwd": ""}


def _pi_timestamp() -> str:
    """``new Date().toISOString()``: UTC with milliseconds and ``Z``."""
    moment = now().astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"




def can_start_kept_tail(element: Element) -> bool:
    """May a compaction's ``firstKeptEntryId`` point at this element's entry (pi's ``findValidCutPoints``)?

    Only a message entry that is not a tool result, taken at its first element: a tail that
    started at a tool result would hand the model an answer without its call.
    """
    return (element.record_id is not None and element.id == element.record_id
            and "entry_type" not in element.extra and element.role is not Role.TOOL)


def is_compaction_summary(element: Element) -> bool:
    """A ``compaction`` entry's summary: once a newer compaction is appended pi no longer shows it
    (only the newest summary is context), so the new summary must carry it. A ``branch_summary``
    stays a message of its own."""
    return element.kind is Kind.COMPACTION and element.extra.get("entry_type") == "compaction"


def compaction_entry(index: SessionIndex, summary: str, first_kept_entry_id: str, tokens_before: int,
                     details: Any = None, from_hook: bool | None = None) -> dict[str, Any]:
    """One ``compaction`` entry exactly as pi's ``SessionManager.appendCompaction`` writes it."""
    if not index.header_ok:
        raise InputError("the file has no valid session header; pi would truncate it", where=index.where,
                         hint="repair it first (apollo writes a header when it rewrites the file with edits)")
    if index.leaf is None:
        raise InputError("the session has no entries to compact", where=index.where)
    if first_kept_entry_id not in index.path:
        raise UsageError(f"firstKeptEntryId {first_kept_entry_id} is not on the session's active path",
                         where=index.where, hint="choose an entry the model currently sees")
    entry_id = uuid.uuid4().hex[:8]
    while entry_id in index.nodes:
        entry_id = uuid.uuid4().hex[:8]
    entry: dict[str, Any] = {"type": "compaction", "id": entry_id, "parentId": index.leaf,
                             "timestamp": _pi_timestamp(), "summary": summary,
                             "firstKeptEntryId": first_kept_entry_id, "tokensBefore": int(tokens_before)}
    if details is not None:
        entry["details"] = details
    if from_hook is not None:
        entry["fromHook"] = from_hook
    return entry


def append_compaction(source: Path, dest: Path | None, summary: str, first_kept_entry_id: str,
                      tokens_before: int, in_place: bool = False, *, details: Any = None,
                      from_hook: bool | None = None, expected: Fingerprint | None = None) -> str:
    """Append one native ``compaction`` entry; the agent's loader then shows summary + kept tail.

    Written to ``dest`` (a copy of ``source`` plus the entry), or with ``in_place`` appended to
    ``source`` itself -- refused when the file changed since ``expected`` (the fingerprint taken
    when it was read; without one, since this call started) or does not end with a newline.
    Returns the new entry's id.
    """
    source = Path(source)
    before = expected or Fingerprint.of(source)
    index = build_index(file_lines(source), str(source), None)
    entry = compaction_entry(index, summary, first_kept_entry_id, tokens_before, details, from_hook)
    line = dump_record(entry, b"\n")
    if in_place:
        if Fingerprint.of(source) != before:
            raise Refused("the session changed since it was read (size, time or content)", where=str(source),
                          hint="read it again and recompute the summary")
        if not index.ends_with_newline:
            raise Refused("the session's last line is incomplete; appending would join two records",
                          where=str(source), hint="write a copy instead (without in_place)")
        with source.open("ab") as handle:
            handle.write(line)
        return entry["id"]
    if dest is None:
        raise UsageError("append_compaction needs dest unless in_place=True")
    with atomic_output(Path(dest)) as out, source.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            out.write(chunk)
        if not index.ends_with_newline:
            out.write(b"\n")
        out.write(line)
    return entry["id"]


class OpenClawJsonl(TranscriptFormat):
    name = "openclaw"
    where = ("OpenClaw: ~/.openclaw/agents/<agent>/sessions/<sessionId>.jsonl (+ sessions.json; archived "
             "*.jsonl.reset.<time>, *.jsonl.deleted.<time>); pi-coding-agent: ~/.pi/agent/sessions/--<cwd>--/*.jsonl")

    def sniff(self, path: Path, head: bytes) -> bool:
        first = head.split(b"\n", 1)[0]
        if b'"type":"session"' in first.replace(b" ", b"") and b'"version"' in first:
            return True
        # a broken header: still ours when entries carry pi's id/parentId/type triple
        return b'"parentId"' in head and b'"type":"message"' in head.replace(b" ", b"")

    def iter_elements(self, path: Path, warnings: list[ReadWarning], count: Counter) -> Iterator[Element]:
        return iter_session_elements(file_lines(path), str(path), warnings, count)

    def write(self, source: Path, dest: Path, edits: Mapping[str, Edit]) -> None:
        if not edits:
            copy_bytes(source, dest)
            return
        write_session(file_lines(source), str(source), dest, edits)
