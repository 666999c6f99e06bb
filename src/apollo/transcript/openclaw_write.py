"""Writing an OpenClaw / pi session with edits: copied line by line; only edited or re-parented
entries are re-serialised, and the tree stays one pi can load."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC
from pathlib import Path

from apollo import jsonline
from apollo.clock import now
from apollo.errors import UsageError
from apollo.transcript.base import (
    LineSource,
    atomic_output,
    dump_record,
    iter_records,
    line_ending,
    text_field,
)
from apollo.transcript.model import Edit
from apollo.transcript.openclaw_index import SessionIndex, build_index
from apollo.transcript.openclaw_read import content_text
from apollo.transcript.openclaw_rules import BOUNDARIES, rules
from apollo.transcript.tree import (
    EditPlan,
    nearest_kept,
    plan_edits,
    record_merged_from,
)

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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
        if node.type not in BOUNDARIES or node.ref not in plan.drop_entries or entry_id in plan.drop_entries:
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
        lean = (entry_id, block) in plan.lean
        if block is None:
            _replace_whole(record, message, text, lean)
        else:
            _replace_block(message, block, text, lean)
    dropped_blocks = plan.drop_blocks.get(entry_id)
    if dropped_blocks and message is not None and isinstance(message.get("content"), list):
        message["content"] = [b for i, b in enumerate(message["content"]) if i not in dropped_blocks]
        changed = True
    return record_merged_from(record, plan.merged_into(entry_id)) or changed


def _replace_whole(record: dict[str, Any], message: dict[str, Any] | None, text: str, lean: bool = False) -> None:
    if record.get("type") in ("compaction", "branch_summary"):
        record["summary"] = text
    elif record.get("type") == "custom_message":
        _replace_custom(record, text, lean)
    elif message is not None and message.get("role") == "toolResult":
        message["content"] = [{"type": "text", "text": text}]
    elif message is not None and isinstance(message.get("content"), str):
        message["content"] = _rewrap(message, message["content"], text, lean)
    else:
        raise UsageError(f"cannot replace the text of a {record.get('type')} entry", where=str(record.get("id")))


def _replace_custom(record: dict[str, Any], text: str, lean: bool) -> None:
    """A custom message's new text inside its old wrappers. One with blocks that are not text (an
    image, a file) cannot be rebuilt from its text: its words stay as they were, and ``lean`` takes
    the metadata blocks out of the envelope that opens its first block."""
    content = record.get("content")
    prefix, old, suffix = rules().split(content_text(content))
    if isinstance(content, list) and any(not (isinstance(b, dict) and b.get("type") == "text") for b in content):
        first = content[0] if content and isinstance(content[0], dict) else {}
        if lean and text == old and isinstance(first.get("text"), str) and first["text"].startswith(prefix):
            first["text"] = _envelope(prefix, lean) + first["text"][len(prefix):]
        return
    text = _envelope(prefix, lean) + text + suffix
    record["content"] = text if isinstance(content, str) else [{"type": "text", "text": text}]


def _rewrap(message: dict[str, Any] | None, old: str, text: str, lean: bool = False) -> str:
    """A user message's new text inside the wrappers the old one had (``lean``: less their metadata blocks)."""
    if message is None or message.get("role") != "user":
        return text
    prefix, _, suffix = rules().split(old)
    return _envelope(prefix, lean) + text + suffix


def _envelope(prefix: str, lean: bool) -> str:
    """The wrappers a rewritten message keeps: all of them, or (``lean``) all but the ids of the
    gateway's metadata blocks and the channel's opaque ids in its stamp (``EnvelopeRules.lean``)."""
    return rules().lean(prefix) if lean else prefix


def _replace_block(message: dict[str, Any] | None, block_index: int, text: str, lean: bool = False) -> None:
    content = message.get("content") if message is not None else None
    if not isinstance(content, list) or block_index >= len(content) or not isinstance(content[block_index], dict):
        return
    block = content[block_index]
    if block.get("type") == "text":
        block["text"] = _rewrap(message, text_field(block, "text"), text, lean)
    elif block.get("type") == "thinking":
        block["thinking"] = text
    elif block.get("type") == "toolCall":
        try:
            block["arguments"] = jsonline.loads(text)
        except ValueError:
            raise UsageError("a tool call's replacement text must be its arguments as JSON",
                             where=str(block.get("id"))) from None
    else:
        raise UsageError(f"cannot replace the text of a {block.get('type')} block")


def _synthetic_header(index: SessionIndex) -> dict[str, Any]:
    """The header pi needs, for a file whose own first line is broken (which pi would truncate)."""
    import uuid  # here: it loads platform, and every heartbeat imports this module

    stem = Path(index.where).name.split(".jsonl")[0]
    try:
        session_id = str(uuid.UUID(stem[-36:]))
    except ValueError:
        session_id = str(uuid.uuid4())
    return {"type": "session", "version": 3, "id": session_id, "timestamp": pi_timestamp(), "cwd": ""}


def pi_timestamp() -> str:
    """``new Date().toISOString()``: UTC with milliseconds and ``Z``."""
    moment = now().astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
