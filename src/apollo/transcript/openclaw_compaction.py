"""A native compaction entry for an OpenClaw / pi session (what ``renal filter --mode compact``
appends): where a kept tail may start, the entry itself, appending it."""

from __future__ import annotations

from pathlib import Path

from apollo.errors import InputError, Refused, UsageError
from apollo.transcript.base import (
    Fingerprint,
    atomic_output,
    dump_record,
    file_lines,
)
from apollo.transcript.model import Element, Kind, Role
from apollo.transcript.openclaw_index import SessionIndex, build_index
from apollo.transcript.openclaw_write import pi_timestamp

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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
    import uuid  # here: it loads platform, and every heartbeat imports this module

    entry_id = uuid.uuid4().hex[:8]
    while entry_id in index.nodes:
        entry_id = uuid.uuid4().hex[:8]
    entry: dict[str, Any] = {"type": "compaction", "id": entry_id, "parentId": index.leaf,
                             "timestamp": pi_timestamp(), "summary": summary,
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
