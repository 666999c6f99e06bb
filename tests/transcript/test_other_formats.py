"""Claude Code, OpenAI messages, daily Markdown and format detection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apollo import transcript
from apollo.errors import InputError, UsageError
from apollo.transcript import Edit, Kind, Role

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples" / "claude-code"


def _cc(uid: str, parent: str | None, role: str, content, **extra) -> str:
    record = {"parentUuid": parent, "isSidechain": False, "type": role, "uuid": uid, "sessionId": "s",
              "timestamp": "2026-01-21T06:20:30.861Z", "message": {"role": role, "content": content}, **extra}
    return json.dumps(record)


def _claude_session(tmp_path: Path) -> Path:
    lines = [
        json.dumps({"type": "queue-operation", "operation": "dequeue", "sessionId": "s"}),
        _cc("u1", None, "user", "old request"),
        _cc("a1", "u1", "assistant", [{"type": "text", "text": "old answer"}]),
        json.dumps({"parentUuid": None, "logicalParentUuid": "a1", "type": "system", "subtype": "compact_boundary",
                    "uuid": "b1", "content": "Conversation compacted", "isSidechain": False}),
        _cc("u2", "b1", "user", "This session is being continued... Summary: use pnpm.", isCompactSummary=True),
        _cc("a2", "u2", "assistant", [{"type": "thinking", "thinking": "hmm", "signature": "x"},
                                      {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]),
        _cc("u3", "a2", "user", [{"tool_use_id": "toolu_1", "type": "tool_result", "content": "a.txt"}],
            toolUseResult={"stdout": "a.txt"}),
        _cc("a3", "u3", "assistant", [{"type": "text", "text": "There is a.txt."}]),
    ]
    path = tmp_path / "cc.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_claude_code_elements_and_compaction(tmp_path: Path) -> None:
    t = transcript.read(_claude_session(tmp_path))
    assert t.format == "claude-code"
    by_id = {e.id: e for e in t.elements}
    assert not by_id["u1"].in_context and not by_id["a1"].in_context
    assert by_id["u2"].kind is Kind.COMPACTION and by_id["u2"].in_context
    assert (by_id["a2"].kind, by_id["a2:1"].kind) == (Kind.THINKING, Kind.TOOL_CALL)
    assert (by_id["u3"].kind, by_id["u3"].role, by_id["u3"].tool_name) == (Kind.TOOL_RESULT, Role.TOOL, "Bash")
    assert by_id["b1"].kind is Kind.METADATA


def test_claude_code_drop_keeps_pairs_and_parents(tmp_path: Path) -> None:
    source = _claude_session(tmp_path)
    out = tmp_path / "o.jsonl"
    transcript.write(source, out, {"u3": Edit("drop")})
    records = [json.loads(line) for line in out.read_text().splitlines()]
    a2 = next(r for r in records if r.get("uuid") == "a2")
    assert [b["type"] for b in a2["message"]["content"]] == ["thinking"]  # the tool_use went with its result
    assert next(r for r in records if r.get("uuid") == "a3")["parentUuid"] == "a2"
    assert "u3" not in [r.get("uuid") for r in records]


@pytest.mark.parametrize("sample", sorted(SAMPLES.glob("*.jsonl")) or [None])
def test_real_claude_code_samples(sample: Path | None, tmp_path: Path) -> None:
    if sample is None:
        pytest.skip(f"no Claude Code samples at {SAMPLES}")
    t = transcript.read(sample)
    assert t.format == "claude-code" and not t.warnings
    calls = {e.call_id for e in t.elements if e.kind is Kind.TOOL_CALL}
    results = {e.call_id for e in t.elements if e.kind is Kind.TOOL_RESULT}
    assert calls == results and calls
    victim = next(e for e in t.elements if e.kind is Kind.TOOL_CALL)
    transcript.write(sample, tmp_path / "o.jsonl", {victim.id: Edit("drop")})
    after = transcript.read(tmp_path / "o.jsonl")
    assert victim.call_id not in {e.call_id for e in after.elements}
    assert all(e.in_context for e in after.elements) == all(e.in_context for e in t.elements)


def test_openai_messages_with_tool_calls(tmp_path: Path) -> None:
    messages = [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": [{"type": "text", "text": "weather?"}, {"type": "image_url", "image_url": {}}]},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"SH\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "assistant", "content": "It is sunny."},
    ]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"messages": messages}, indent=2))
    t = transcript.read(path)
    assert t.format == "openai"
    assert [(e.id, e.kind) for e in t.elements] == [
        ("m0", Kind.TEXT), ("m1", Kind.TEXT), ("m1:1", Kind.METADATA), ("m2:call0", Kind.TOOL_CALL),
        ("m3", Kind.TOOL_RESULT), ("m4", Kind.TEXT)]
    assert t.elements[4].tool_name == "weather"
    transcript.write(path, tmp_path / "o.json", {"m3": Edit("drop"), "m4": Edit("replace", text="Sunny!")})
    out = json.loads((tmp_path / "o.json").read_text())["messages"]
    assert [m["role"] for m in out] == ["system", "user", "assistant"]  # call and result went together
    assert out[-1]["content"] == "Sunny!"
    assert (tmp_path / "o.json").read_text().startswith('{\n  "messages"')


def test_markdown_daily_file(tmp_path: Path) -> None:
    path = tmp_path / "2026-04-07.md"
    path.write_text("# 2026-04-07\n\n## 决定\n\n- 部署用 blue-green\n  continued line\n  - nested detail\n"
                    "- HEARTBEAT_OK 14:00\n\nA paragraph\nover two lines.\n")
    t = transcript.read(path)
    assert t.format == "markdown"
    assert [(e.id, e.extra["block"], e.text) for e in t.elements] == [
        ("L1", "heading", "2026-04-07"), ("L3", "heading", "决定"),
        ("L5", "item", "部署用 blue-green\ncontinued line"), ("L7", "item", "nested detail"),
        ("L8", "item", "HEARTBEAT_OK 14:00"), ("L10", "paragraph", "A paragraph\nover two lines.")]
    assert t.elements[3].parent == "L5" and t.elements[2].parent == "L3"
    assert t.elements[0].timestamp == "2026-04-07"
    transcript.write(path, tmp_path / "o.md", {"L8": Edit("drop"), "L5": Edit("replace", text="部署: blue-green")})
    assert (tmp_path / "o.md").read_text() == ("# 2026-04-07\n\n## 决定\n\n- 部署: blue-green\n  - nested detail\n"
                                               "\nA paragraph\nover two lines.\n")


def test_detection_and_clear_errors(tmp_path: Path) -> None:
    unknown = tmp_path / "notes.bin"
    unknown.write_bytes(b"\x00\x01 nothing")
    with pytest.raises(InputError, match="not a transcript Apollo can read"):
        transcript.read(unknown)
    with pytest.raises(InputError, match="no such file"):
        transcript.read(tmp_path / "missing.jsonl")
    with pytest.raises(InputError, match="directory"):
        transcript.read(tmp_path)
    with pytest.raises(UsageError, match="unknown format"):
        transcript.read(unknown, "word")
    harness = tmp_path / "h.jsonl"
    harness.write_text('{"id": "1", "role": "user", "text": "hi"}\n')
    assert transcript.read(harness).format == "jsonl"


def test_claude_code_parallel_tool_results_are_all_in_context(tmp_path: Path) -> None:
    lines = [
        _cc("u1", None, "user", "read both"),
        _cc("a1", "u1", "assistant", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"p": 1}}]),
        _cc("a2", "a1", "assistant", [{"type": "tool_use", "id": "t2", "name": "Read", "input": {"p": 2}}]),
        _cc("r1", "a1", "user", [{"tool_use_id": "t1", "type": "tool_result", "content": "one"}]),
        _cc("r2", "a2", "user", [{"tool_use_id": "t2", "type": "tool_result", "content": "two"}]),
        _cc("a3", "r2", "assistant", [{"type": "text", "text": "both read"}]),
    ]
    path = tmp_path / "parallel.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert all(e.in_context for e in transcript.read(path).elements)
