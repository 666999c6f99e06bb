"""Claude Code session JSONL: ``~/.claude/projects/<project>/<sessionId>.jsonl``.

Conversation lines carry ``type`` (user, assistant, system), ``uuid``, ``parentUuid`` and a
``message{role, content}`` whose content is a string or blocks ``text``, ``thinking``,
``tool_use{id,name,input}``, ``tool_result{tool_use_id,content}``, ``image``. Other lines
(``queue-operation``, ``summary``, ``file-history-snapshot``, ...) have no ``uuid``: they are
not conversation and pass through untouched. A ``/compact`` writes a ``system`` line with
``subtype: "compact_boundary"`` and ``parentUuid: null`` followed by a user line with
``isCompactSummary: true``; so the context -- the chain from the last line back through
``parentUuid``, plus the results of the tool calls on it (parallel calls leave all but the last
result beside the chain) -- starts at the newest boundary by itself. Sidechain (sub-agent) lines
are never the leaf. Element ids: ``<uuid>`` for a line (or block 0 of its content list) and
``<uuid>:<n>`` for block ``n``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from apollo.errors import UsageError
from apollo.transcript.base import (
    Counter,
    TranscriptFormat,
    atomic_output,
    copy_bytes,
    dump_record,
    iter_raw_lines,
    iter_records,
    line_ending,
    text_field,
)
from apollo.transcript.model import Edit, Element, Kind, ReadWarning, Role
from apollo.transcript.tree import Unit, find_cycle_members, nearest_kept, plan_edits, record_merged_from


@dataclass
class _Index:
    lines: dict[str, int] = field(default_factory=dict)
    parents: dict[str, str | None] = field(default_factory=dict)
    leaf: str | None = None
    in_context: set[str] = field(default_factory=set)
    calls: dict[str, Unit] = field(default_factory=dict)
    results: dict[str, list[Unit]] = field(default_factory=dict)
    tool_names: dict[str, str] = field(default_factory=dict)
    block_counts: dict[str, int] = field(default_factory=dict)


def _index(path: Path, warnings: list[ReadWarning] | None) -> _Index:
    index = _Index()
    where = str(path)
    warn = (lambda line, text: warnings.append(ReadWarning(where, line, text))) if warnings is not None \
        else (lambda line, text: None)
    for number, _raw, record in iter_records(iter_raw_lines(path), where, warnings):
        uid = record.get("uuid") if record is not None else None
        if record is None or not isinstance(uid, str) or not uid:
            continue
        if uid in index.lines:
            warn(number, f"duplicate uuid {uid} (also on line {index.lines[uid]}); the later line is used")
        parent = record.get("parentUuid")
        index.lines[uid] = number
        index.parents[uid] = parent if isinstance(parent, str) and parent else None
        if not record.get("isSidechain"):
            index.leaf = uid
        content = (record.get("message") or {}).get("content") if isinstance(record.get("message"), dict) else None
        if isinstance(content, list):
            index.block_counts[uid] = len(content)
            for n, block in enumerate(content):
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                    index.calls[block["id"]] = (uid, n)
                    index.tool_names[block["id"]] = str(block.get("name", ""))
                elif block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
                    index.results.setdefault(block["tool_use_id"], []).append((uid, n))
    for uid in sorted(find_cycle_members(index.parents), key=index.lines.__getitem__):
        warn(index.lines[uid], f"line {uid} is on a parentUuid cycle; the cycle is cut on write")
    for uid, parent in index.parents.items():
        if parent is not None and parent not in index.lines:
            warn(index.lines[uid], f"parentUuid {parent} is not in the file: the context starts after it")
    seen: set[str] = set()
    current = index.leaf
    while current is not None and current in index.lines and current not in seen:
        seen.add(current)
        current = index.parents[current]
    # parallel tool calls: Claude Code chains the calls, but each result hangs off its own call, so
    # all but the last result are siblings of the path; the model still receives every one of them
    for call_id, (call_uid, _block) in index.calls.items():
        if call_uid in seen:
            seen.update(uid for uid, _ in index.results.get(call_id, []))
    index.in_context = seen
    return index


def _block_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") if isinstance(b, dict) and b.get("type") == "text"
                         else f"[{b.get('type') if isinstance(b, dict) else 'block'}]" for b in content)
    return ""


class ClaudeCode(TranscriptFormat):
    name = "claude-code"
    where = "Claude Code: ~/.claude/projects/<project>/<sessionId>.jsonl (sub-agents: agent-<id>.jsonl)"

    def sniff(self, path: Path, head: bytes) -> bool:
        compact = head.replace(b" ", b"")
        return (b'"parentUuid"' in compact and b'"uuid"' in compact) or b'"type":"queue-operation"' in compact

    def iter_elements(self, path: Path, warnings: list[ReadWarning], count: Counter) -> Iterator[Element]:
        index = _index(path, warnings)
        position = 0
        for number, _raw, record in iter_records(iter_raw_lines(path), str(path), None):
            uid = record.get("uuid") if record is not None else None
            if record is None or not isinstance(uid, str) or not uid or index.lines[uid] != number:
                continue
            for element in self._line_elements(record, uid, index, count):
                element.index, element.line, element.record_id = position, number, uid
                element.in_context = uid in index.in_context
                position += 1
                yield element

    def _line_elements(self, record: dict[str, Any], uid: str, index: _Index, count: Counter) -> Iterator[Element]:
        message = record.get("message") if isinstance(record.get("message"), dict) else {}
        timestamp = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        parent = index.parents.get(uid)
        extra_line = {k: record[k] for k in ("isMeta", "isSidechain", "subtype") if record.get(k)}
        if record.get("type") == "system" or not message:
            text = text_field(record, "content") or str(record.get("subtype", ""))
            yield Element(uid, Role.SYSTEM, Kind.METADATA, text, timestamp=timestamp, parent=parent,
                          extra={"entry_type": record.get("type"), **extra_line})
            return
        role = Role.ASSISTANT if message.get("role") == "assistant" else Role.USER
        content = message.get("content")
        if record.get("isCompactSummary"):
            text = _block_text(content)
            yield Element(uid, Role.SYSTEM, Kind.COMPACTION, text, tokens=count(text), timestamp=timestamp,
                          parent=parent, extra={"entry_type": "compact_summary"})
            return
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            return
        previous = parent
        for n, block in enumerate(blocks):
            element_id = uid if n == 0 else f"{uid}:{n}"
            kind, element_role, text = Kind.METADATA, role, ""
            call_id = tool_name = None
            kind_of = block.get("type") if isinstance(block, dict) else None
            if kind_of == "text":
                kind, text = Kind.TEXT, str(block.get("text", ""))
            elif kind_of in ("thinking", "redacted_thinking"):
                kind, text = Kind.THINKING, str(block.get("thinking", ""))
            elif kind_of == "tool_use":
                kind, text = Kind.TOOL_CALL, orjson.dumps(block.get("input", {})).decode()
                call_id, tool_name = block.get("id"), str(block.get("name", ""))
            elif kind_of == "tool_result":
                kind, element_role, text = Kind.TOOL_RESULT, Role.TOOL, _block_text(block.get("content"))
                call_id = block.get("tool_use_id")
                tool_name = index.tool_names.get(call_id) if isinstance(call_id, str) else None
            else:
                text = f"[{kind_of}]"
            tokens = 0 if kind is Kind.METADATA else count(text)
            yield Element(element_id, element_role, kind, text, tokens=tokens, timestamp=timestamp, parent=previous,
                          call_id=call_id, tool_name=tool_name, extra=dict(extra_line))
            previous = element_id

    def write(self, source: Path, dest: Path, edits: Mapping[str, Edit]) -> None:
        if not edits:
            copy_bytes(source, dest)
            return
        index = _index(source, None)
        plan = plan_edits(edits, is_entry=index.lines.__contains__, block_counts=index.block_counts,
                          calls=index.calls, results=index.results)
        cycles = find_cycle_members(index.parents)
        with atomic_output(dest) as out:
            for number, raw, record in iter_records(iter_raw_lines(source), str(source), None):
                uid = record.get("uuid") if record is not None else None
                if record is None or not isinstance(uid, str) or uid not in index.lines or index.lines[uid] != number:
                    out.write(raw)
                    continue
                if uid in plan.drop_entries:
                    continue
                changed = False
                parent = index.parents[uid]
                if parent is not None and (parent in plan.drop_entries or parent not in index.lines or uid in cycles):
                    record["parentUuid"] = None if uid in cycles or parent not in index.lines \
                        else nearest_kept(parent, index.parents, plan.drop_entries)
                    changed = True
                message = record.get("message") if isinstance(record.get("message"), dict) else None
                for block, text in plan.replacements(uid):
                    if message is not None:
                        _replace(message, block, text)
                        changed = True
                dropped = plan.drop_blocks.get(uid)
                if dropped and message is not None and isinstance(message.get("content"), list):
                    message["content"] = [b for n, b in enumerate(message["content"]) if n not in dropped]
                    changed = True
                changed = record_merged_from(record, plan.merged_into(uid)) or changed
                out.write(dump_record(record, line_ending(raw)) if changed else raw)


def _replace(message: dict[str, Any], block: int | None, text: str) -> None:
    content = message.get("content")
    if isinstance(content, str) or block is None:
        message["content"] = text
        return
    if not isinstance(content, list) or block >= len(content) or not isinstance(content[block], dict):
        return
    target = content[block]
    kind = target.get("type")
    if kind == "text":
        target["text"] = text
    elif kind == "thinking":
        target["thinking"] = text
    elif kind == "tool_result":
        target["content"] = text
    elif kind == "tool_use":
        try:
            target["input"] = orjson.loads(text)
        except orjson.JSONDecodeError:
            raise UsageError("a tool call's replacement text must be its input as JSON") from None
    else:
        raise UsageError(f"cannot replace the text of a {kind} block")
