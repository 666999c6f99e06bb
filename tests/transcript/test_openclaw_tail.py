"""A whole read of an OpenClaw session passes over the file twice (the index, then the elements):
OpenClaw may append between the passes. The read then says what the index saw, and the next check
reads the session whole rather than resuming from a line that was not complete."""

from __future__ import annotations

import json
from pathlib import Path

from apollo.tokens import estimate
from apollo.transcript.base import iter_raw_lines
from apollo.transcript.openclaw_read import Tail, iter_session_elements

_HEADER = {"type": "session", "version": 3, "id": "0b7c1e52-5d2f-4c1a-9a3e-6f1d2c3b4a59",
           "timestamp": "2026-11-29T00:00:00.000Z", "cwd": "/tmp"}


def _line(entry_id: str, parent: str | None, text: str) -> bytes:
    entry = {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-11-29T04:00:00.000Z",
             "message": {"role": "user", "content": text}}
    return json.dumps(entry).encode() + b"\n"


def _read_while_appending(path: Path, first: bytes, appended: bytes) -> tuple[list[str], Tail]:
    """A whole read during which ``appended`` lands after the index pass."""
    path.write_bytes(first)
    passes: list[int] = []

    def lines():  # type: ignore[no-untyped-def]
        passes.append(1)
        if len(passes) == 2:
            path.write_bytes(first + appended)
        return iter_raw_lines(path)

    tail = Tail()
    elements = list(iter_session_elements(lines, str(path), [], estimate, tail))
    return [element.id for element in elements], tail


def test_a_line_half_written_between_the_passes_makes_the_next_read_a_whole_one(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    first = json.dumps(_HEADER).encode() + b"\n" + _line("a1", None, "first") + _line("a2", "a1", "second")
    ids, tail = _read_while_appending(path, first, _line("a3", "a2", "being written")[:25])
    assert ids == ["a1", "a2"]
    assert tail.state() is None  # had it been saved, an entry continuing the broken line would pass as new


def test_a_whole_line_appended_between_the_passes_is_left_to_the_next_read(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    first = json.dumps(_HEADER).encode() + b"\n" + _line("a1", None, "first")
    ids, tail = _read_while_appending(path, first, _line("a2", "a1", "appended meanwhile"))
    assert ids == ["a1"]
    assert tail.state() is None


def test_a_tool_call_with_arguments_nested_too_deep_to_write_does_not_stop_the_read(tmp_path: Path) -> None:
    arguments: object = "leaf"
    for _ in range(300):
        arguments = {"k": arguments}
    call = {"type": "message", "id": "b1", "parentId": "a1", "timestamp": "2026-11-29T04:00:01.000Z",
            "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "exec",
                                                          "arguments": arguments}]}}
    path = tmp_path / "s.jsonl"
    path.write_bytes(json.dumps(_HEADER).encode() + b"\n" + _line("a1", None, "run it")
                     + json.dumps(call).encode() + b"\n")
    elements = list(iter_session_elements(lambda: iter_raw_lines(path), str(path), [], estimate, Tail()))
    assert [element.id for element in elements][0] == "a1"
    assert any("nested too deep" in element.text for element in elements)
