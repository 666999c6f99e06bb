"""The first pass over an OpenClaw / pi session: ids, parents and types only, the leaf and the
path the model sees from it, the compaction (or reset) honoured on that path."""

from __future__ import annotations

from apollo.records import field, slotted
from apollo.transcript.base import (
    LineSource,
    iter_records,
)
from apollo.transcript.model import ReadWarning
from apollo.transcript.openclaw_rules import BOUNDARIES
from apollo.transcript.tree import (
    Unit,
    find_cycle_members,
)

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# ---------------------------------------------------------------------------------------------
# Pass 1: the tree without content
# ---------------------------------------------------------------------------------------------
#: how far up its branch a tool result's call is looked for
PAIRING_STEPS = 1000


@slotted()
class Node:
    line: int
    type: str
    parent: str | None
    #: compaction/reset firstKeptEntryId, leaf targetId, label targetId
    ref: str | None = None


@slotted()
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
    #: for writers: toolCall id -> (entry, block); toolCall id -> toolResult entries. A call whose id
    #: an earlier call had (a provider that reuses ids) is keyed by its id and its line: a result
    #: answers the nearest call with its id on its own branch, as pi pairs them along the path
    calls: dict[str, Unit] = field(default_factory=dict)
    results: dict[str, list[Unit]] = field(default_factory=dict)
    #: toolCall id -> the key of the latest call with that id in ``calls``
    call_keys: dict[str, str] = field(default_factory=dict)
    #: toolCall id -> the entries holding a call with that id -> its key; and the line of the first
    call_holders: dict[str, dict[str, str]] = field(default_factory=dict)
    call_first_line: dict[str, int] = field(default_factory=dict)
    #: entries whose message content is a list of blocks, with the number of blocks
    block_counts: dict[str, int] = field(default_factory=dict)
    ends_with_newline: bool = True
    #: the number of the last line read (a later pass over a file still being written may see more)
    last_line: int = 0

    def parent_of(self) -> dict[str, str | None]:
        return {entry_id: node.parent for entry_id, node in self.nodes.items()}


def build_index(lines: LineSource, where: str, warnings: list[ReadWarning] | None) -> SessionIndex:
    index = SessionIndex(where)
    warn = (lambda line, text: warnings.append(ReadWarning(where, line, text))) if warnings is not None \
        else (lambda line, text: None)
    last_raw = b"\n"
    for number, raw, record in iter_records(lines(), where, warnings):
        last_raw = raw
        index.last_line = number
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
            index.results.setdefault(_answered_call(index, call_id, parent), []).append((entry_id, None))
    elif isinstance(content, list):
        index.block_counts[entry_id] = len(content)
        for block_index, block in enumerate(content):
            if isinstance(block, dict) and block.get("type") == "toolCall" and isinstance(block.get("id"), str):
                call_id = block["id"]
                key = call_id if call_id not in index.calls else f"{call_id}\n{number}:{block_index}"
                index.call_keys[call_id] = key
                index.calls[key] = (entry_id, block_index)
                index.call_holders.setdefault(call_id, {}).setdefault(entry_id, key)
                index.call_first_line.setdefault(call_id, number)


def _answered_call(index: SessionIndex, call_id: str, parent: str | None) -> str:
    """The key of the call a result answers: the nearest call with its id among the result's ancestors
    (two branches may each call ``call_0``), else the latest call with its id. The walk up stops above
    the first call with that id, and after :data:`PAIRING_STEPS` (a cycle; a result that far below its
    call is none a provider wrote, and thousands of them made the walk quadratic)."""
    holders = index.call_holders.get(call_id)
    if not holders:
        return call_id
    node_id, steps = parent, PAIRING_STEPS
    while node_id is not None and steps > 0:
        if node_id in holders:
            return holders[node_id]
        node = index.nodes.get(node_id)
        if node is None or node.line < index.call_first_line[call_id]:
            break
        node_id, steps = node.parent, steps - 1
    return index.call_keys[call_id]


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
    boundary_at = max((i for i, e in enumerate(path) if index.nodes[e].type in BOUNDARIES), default=None)
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
