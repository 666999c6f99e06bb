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

One module per job, this one the format (what :mod:`apollo.transcript.registry` lists):
:mod:`~apollo.transcript.openclaw_rules` (entry types, summary wrappers, envelope and heartbeat
rules), :mod:`~apollo.transcript.openclaw_index` (first pass), :mod:`~apollo.transcript.openclaw_read`
(second pass), :mod:`~apollo.transcript.openclaw_write`, :mod:`~apollo.transcript.openclaw_compaction`;
the rest of Apollo imports what it needs from them. The first pass and the writer are imported when
first used: a heartbeat after growth reads only the appended lines and writes no session.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from apollo.transcript.base import (
    Counter,
    TranscriptFormat,
    copy_bytes,
    file_lines,
)
from apollo.transcript.model import Edit, Element, ReadWarning
from apollo.transcript.openclaw_read import iter_session_elements


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
        from apollo.transcript.openclaw_write import write_session  # reading (a heartbeat's) loads no writer

        write_session(file_lines(source), str(source), dest, edits)

