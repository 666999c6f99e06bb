"""Conversation JSONL: one ``{"id", "role", "text"[, "speaker", "ts"]}`` per line.

The interchange format of the development team's evaluation harness. Lines that do
not parse are reported and carried through unchanged on write.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

import orjson

from apollo import jsonline
from apollo.transcript.base import Counter, TranscriptFormat, atomic_output, iter_raw_lines
from apollo.transcript.model import Edit, Element, Kind, ReadWarning, Role
from apollo.transcript.tree import record_merged_from

_ROLES = {"user": Role.USER, "assistant": Role.ASSISTANT, "system": Role.SYSTEM, "tool": Role.TOOL}


def _parse(raw: bytes) -> dict | None:
    try:
        value = jsonline.loads_with_lone_surrogates(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class ConversationJsonl(TranscriptFormat):
    name = "jsonl"
    where = "any tool: one message a line (Apollo's evaluation harness contract)"

    def sniff(self, path: Path, head: bytes) -> bool:
        first = head.split(b"\n", 1)[0].strip()
        record = _parse(first) if first else None
        return record is not None and "text" in record and "role" in record and "type" not in record

    def iter_elements(self, path: Path, warnings: list[ReadWarning], count: Counter) -> Iterator[Element]:
        index = 0
        previous: str | None = None
        for number, raw in iter_raw_lines(path):
            if not raw.strip():
                continue
            record = _parse(raw)
            if record is None or not isinstance(record.get("text"), str):
                warnings.append(ReadWarning(str(path), number, "not a JSON object with a string 'text'; kept as is"))
                continue
            element_id = str(record.get("id", f"line-{number}"))
            text = record["text"]
            yield Element(
                id=element_id,
                role=_ROLES.get(str(record.get("role", "user")), Role.USER),
                kind=Kind.TEXT,
                text=text,
                index=index,
                tokens=count(text),
                timestamp=record.get("ts"),
                parent=previous,
                record_id=element_id,
                line=number,
                speaker=record.get("speaker"),
            )
            previous = element_id
            index += 1

    def write(self, source: Path, dest: Path, edits: Mapping[str, Edit]) -> None:
        with atomic_output(dest) as out:
            for number, raw in iter_raw_lines(source):
                record = _parse(raw) if raw.strip() else None
                key = str(record.get("id", f"line-{number}")) if record else None
                edit = edits.get(key) if key is not None else None
                if edit is None:
                    out.write(raw)
                    continue
                if edit.action == "drop":
                    continue
                assert record is not None
                record["text"] = edit.text if edit.text is not None else record["text"]
                record_merged_from(record, list(edit.merged_from))
                ending = b"\r\n" if raw.endswith(b"\r\n") else b"\n"
                out.write(orjson.dumps(record) + ending)
