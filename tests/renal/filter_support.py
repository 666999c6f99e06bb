"""Labeled agent sessions for the filter's quality tests (tests/renal/fixtures/filter/*.json).

Each fixture is a list of turns (user text, agent text, tool call + output, heartbeat) with
labels: ``decision``/``preference``/``task``/``question``/``fact`` name a ``substance`` that must
survive verbatim, ``noise`` must go, ``superseded`` may go. ``build`` turns one into a real
OpenClaw session file (as pi-coding-agent writes it) and returns the element id of each label.

Also: ``ClaudeCodeSession`` (a Claude Code session JSONL as Claude Code writes it), ``assert_reloads``
(a filter's output reads back in its own format with every kept element under its id) and
``context_blocks`` / ``counter_of`` (the context pi rebuilds, counted as the filter counts).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from realclient.support import PiSession

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "filter"
MUST_KEEP = ("decision", "preference", "task", "question", "fact")


@dataclass
class Labeled:
    path: Path
    spec: dict[str, Any]
    #: label -> [(element ids, substance)]
    labels: dict[str, list[tuple[list[str], str]]] = field(default_factory=dict)


def fixture_names() -> list[str]:
    return sorted(p.stem for p in FIXTURES.glob("*.json"))


def _output(spec: Any) -> str:
    if isinstance(spec, str):
        return spec
    return "\n".join(spec["repeat"].format(i=i) for i in range(spec["times"]))


def build(name: str, folder: Path) -> Labeled:
    spec = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    session = PiSession()
    labeled = Labeled(folder / f"{name}.jsonl", spec)
    for number, turn in enumerate(spec["turns"]):
        if "user" in turn:
            ids = [session.user(turn["user"])]
        elif "say" in turn:
            ids = [session.say(turn["say"])]
        elif "heartbeat" in turn:
            ids = list(session.heartbeat(turn["heartbeat"]))
        else:
            tool = turn["tool"]
            call, result = session.tool(f"call_{number}", tool["name"], tool["args"], _output(tool["output"]),
                                        think=turn.get("think"))
            ids = [call, result]
        if "label" in turn:
            labeled.labels.setdefault(turn["label"], []).append((ids, turn.get("substance", "")))
    session.write(labeled.path)
    return labeled


#: what ``df -h`` printed on a build server with many volumes: output the model read whole and the digest
#: does not carry
_DISK_USAGE = "Filesystem      Size  Used Avail Use% Mounted on\n" + "\n".join(
    f"/dev/nvme{i // 8}n1p{i % 8 + 1}  {200 + 10 * i}G  {40 + i}G  {160 + 9 * i}G  {(40 + i) * 100 // (200 + 10 * i)}% "
    f"/srv/builds/volume-{i:02d}" for i in range(48))


def worked_session(session: PiSession | None = None) -> PiSession:
    """``session`` (a new one by default) with work done: a check whose long tool output the agent read
    and summed up in a sentence. Compaction is refused when the digest would not be smaller than the
    talk it replaces, and the digest of a few short messages is longer than they are: a test of what
    a compaction keeps has this in what it digests."""
    session = session if session is not None else PiSession()
    session.user("Check the disk usage on the build server.")
    session.tool("call_df", "exec", {"command": "df -h"}, _DISK_USAGE)
    session.say("The build server's disks are between 20% and 30% full: nothing needs cleaning.")
    return session


# -- Claude Code sessions, as Claude Code 2.1 writes them ------------------------------------------------------
@dataclass
class ClaudeCodeSession:
    """A Claude Code session JSONL under construction, line for line as Claude Code 2.1.x writes it
    (compare /work/shared/samples/claude-code/): one line per assistant content block sharing the
    message id, tool results as user lines with ``toolUseResult``, a ``queue-operation`` first line."""

    session_id: str = "5e7a1c0d-2b3f-4a5e-9c8d-7f6e5d4c3b2a"
    cwd: str = "/home/dev/payments"
    lines: list[dict[str, Any]] = field(default_factory=list)
    leaf: str | None = None
    clock: int = 0
    _count: int = 0

    def _base(self, kind: str) -> dict[str, Any]:
        self._count += 1
        self.clock += 7
        uid = f"{self._count:08x}-1111-4222-8333-{self._count:012x}"
        record = {"parentUuid": self.leaf, "isSidechain": False, "userType": "external", "cwd": self.cwd,
                  "sessionId": self.session_id, "version": "2.1.14", "gitBranch": "main", "type": kind,
                  "uuid": uid, "timestamp": f"2026-01-21T06:{self.clock // 60 % 60:02d}:{self.clock % 60:02d}.000Z"}
        self.leaf = uid
        self.lines.append(record)
        return record

    def user(self, text: str) -> str:
        record = self._base("user")
        record["message"] = {"role": "user", "content": text}
        return record["uuid"]

    def _assistant(self, block: dict[str, Any], message_id: str) -> str:
        record = self._base("assistant")
        record["message"] = {"model": "claude-opus-4-5-20251101", "id": message_id, "type": "message",
                             "role": "assistant", "content": [block], "stop_reason": None, "stop_sequence": None,
                             "usage": {"input_tokens": 3, "cache_creation_input_tokens": 120,
                                       "cache_read_input_tokens": 18000, "output_tokens": 40,
                                       "service_tier": "standard"}}
        record["requestId"] = "req_" + message_id[4:]
        return record["uuid"]

    def say(self, text: str, think: str | None = None) -> str:
        message_id = f"msg_{self._count + 1:024x}"
        if think:
            self._assistant({"type": "thinking", "thinking": think, "signature": "c2lnbmF0dXJl"}, message_id)
        return self._assistant({"type": "text", "text": text}, message_id)

    def tool(self, name: str, tool_input: dict[str, Any], output: str, think: str | None = None,
             text: str | None = None) -> tuple[str, str]:
        message_id = f"msg_{self._count + 1:024x}"
        if think:
            self._assistant({"type": "thinking", "thinking": think, "signature": "c2lnbmF0dXJl"}, message_id)
        if text:
            self._assistant({"type": "text", "text": text}, message_id)
        tool_id = f"toolu_{self._count + 1:022x}"
        call = self._assistant({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}, message_id)
        result = self._base("user")
        result["message"] = {"role": "user", "content": [{"tool_use_id": tool_id, "type": "tool_result",
                                                          "content": output}]}
        result["toolUseResult"] = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
        result["sourceToolAssistantUUID"] = call
        return call, result["uuid"]

    def write(self, path: Path) -> Path:
        head = {"type": "queue-operation", "operation": "dequeue", "timestamp": "2026-01-21T06:00:00.000Z",
                "sessionId": self.session_id}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"
                                for r in [head, *self.lines]), encoding="utf-8")
        return path


# -- does the output read back? -----------------------------------------------------------------------------------
_POSITIONAL = re.compile(r"m\d+")


def _new_ids(elements: list[Any], kept: set[str], fmt: str) -> dict[str, str]:
    """Where each kept element is found in the written file, by the documented id rules: entry ids
    never change; a block's id is its position among the kept blocks of its entry (``<entry>:<n>``);
    an OpenAI message without an ``id`` of its own is ``m<position>`` among the kept messages."""
    by_record: dict[str, list[Any]] = {}
    for element in elements:
        by_record.setdefault(str(element.record_id), []).append(element)
    moved: dict[str, str] = {}
    kept_messages = 0
    for record, group in by_record.items():
        alive = [e for e in group if e.id in kept]
        if not alive:
            continue
        if fmt != "openai":
            for n, element in enumerate(alive):
                moved[element.id] = record if n == 0 else f"{record}:{n}"
            continue
        base = f"m{kept_messages}" if _POSITIONAL.fullmatch(record) else record
        kept_messages += 1
        parts = [e for e in alive if ":call" not in e.id]
        calls = [e for e in alive if ":call" in e.id]
        for n, element in enumerate(parts):
            moved[element.id] = base if n == 0 else f"{base}:{n}"
        for k, element in enumerate(calls):
            moved[element.id] = f"{base}:call{k}"
    return moved


def _same_text(text: str) -> str:
    return " ".join(text.split())


def assert_reloads(result: Any) -> Any:
    """The filter's output reads back in its own format (found by ``--format auto``) with no new
    warning; every element the filter kept is there under its id with the text the filter chose;
    nothing it dropped is; every tool call still has its result. Returns the re-read transcript."""
    from apollo import transcript
    from apollo.transcript import Kind

    source = result.transcript
    out = transcript.read(result.output_path)
    assert out.format == ("openclaw" if source.format == "openclaw-sqlite" else source.format)
    carried = {w.message for w in source.warnings}
    assert [str(w) for w in out.warnings if w.message not in carried] == []
    fates = {f.element.id: f for f in result.fates}
    kept = {e.id for e in source.elements if e.id not in fates or fates[e.id].action != "drop"}
    expected = {e.id: fates[e.id].text if e.id in fates and fates[e.id].action == "shorten" and fates[e.id].text
                else e.text for e in source.elements if e.id in kept}
    if source.format == "markdown":  # ids are line numbers: the blocks, in order
        assert [_same_text(e.text) for e in out.elements] == [_same_text(expected[e.id]) for e in source.elements
                                                               if e.id in kept]
    else:
        written = {e.id: e for e in out.elements}
        for old, new in _new_ids(source.elements, kept, source.format).items():
            assert new in written, f"kept element {old} is not in the output (expected as {new})"
            assert written[new].text == expected[old], f"{old} -> {new}: text differs"
        assert len(out.elements) == len(kept), "the output holds elements the filter dropped"
    calls = {e.call_id for e in out.in_context() if e.kind is Kind.TOOL_CALL}
    answers = {e.call_id for e in out.in_context() if e.kind is Kind.TOOL_RESULT}
    assert calls == answers, f"unpaired tool calls {calls ^ answers}"
    return out


def context_blocks(replay: dict[str, Any]) -> list[str]:
    """The texts of the context pi sends its model (``pi_replay``), block by block, less the replay's own
    prompt: text, thinking, a tool call's arguments as compact JSON (as Apollo's reader counts them)."""
    texts: list[str] = []
    for message in replay["messages"][:-1]:
        content = message.get("content")
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content or []:
            if block.get("type") == "text":
                texts.append(block["text"])
            elif block.get("type") == "thinking":
                texts.append(block["thinking"])
            elif block.get("type") == "toolCall":
                texts.append(json.dumps(block.get("arguments", {}), ensure_ascii=False, separators=(",", ":")))
    return texts


def context_text(replay: dict[str, Any]) -> str:
    return "\n".join(context_blocks(replay))


def counter_of(report: dict[str, Any]):  # noqa: ANN201 - a token counting function
    """The token counter a filter run used (its report names it as ``apollo.tokens.get_counter`` does)."""
    from apollo.tokens import get_counter

    exact = get_counter("exact")
    return exact[1] if report["counter"] == exact[0] else get_counter("estimate")[1]
