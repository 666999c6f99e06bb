"""Claude Code's closed loop with the real CLI, offline: PreCompact saves renal's digest, the
SessionStart hook (matcher ``compact``) gives it back, and the request the model receives after
``/compact`` carries every must-keep item of the snapshot.

The model is an Anthropic Messages API faked in a thread of the test on 127.0.0.1; it keeps each
request. A compaction request gets an ``<analysis>/<summary>`` reply that mentions none of the items,
so whatever of them reaches the model afterwards came through Apollo.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from realclient.support import NODE_CACHE, _require_node, npm_install

pytestmark = [pytest.mark.realclient, pytest.mark.slow, pytest.mark.xdist_group("claude-code-loop")]

CLAUDE_PACKAGE = "@anthropic-ai/claude-code@2.1.328"
APOLLO = str(Path(sys.executable).parent / "apollo")
COMPACT_MARK = "create a detailed summary of the conversation"
SUMMARY = "<analysis>short</analysis>\n<summary>The user and the assistant talked briefly.</summary>"


def _text(body: dict[str, Any]) -> str:
    parts: list[str] = []
    system = body.get("system")
    parts += [system] if isinstance(system, str) else [b.get("text", "") for b in system or []]
    for message in body.get("messages", []):
        content = message.get("content")
        parts += [content] if isinstance(content, str) else [b.get("text", "") for b in content or []
                                                             if isinstance(b, dict)]
    return "\n".join(parts)


class FakeAnthropic:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        #: the input tokens the next answer reports: near the window, Claude Code compacts by itself
        self.input_tokens = 100
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _json(self, payload: dict[str, Any], code: int = 200) -> None:
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._json({"type": "error", "error": {"type": "not_found_error", "message": "not faked"}}, 404)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                if "count_tokens" in self.path:
                    self._json({"input_tokens": 100})
                    return
                fake.requests.append(body)
                last = body.get("messages", [{}])[-1]
                blocks = last.get("content") if isinstance(last.get("content"), list) else []
                answered = any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks)
                compacting = COMPACT_MARK in _text({"messages": [last]})
                if not compacting and not answered and "RUN-TOOL" in _text({"messages": [last]}):
                    block: dict[str, Any] = {"type": "tool_use", "id": "toolu_01", "name": "Bash",
                                             "input": {"command": "echo tool-ran", "description": "echo"}}
                    stop = "tool_use"
                else:
                    block, stop = {"type": "text", "text": SUMMARY if compacting else "Done."}, "end_turn"
                tokens = 100 if compacting else fake.input_tokens
                if not compacting:
                    fake.input_tokens = 100  # one full window is enough: then the compacted session is small
                message = {"id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model", "m"),
                           "content": [block], "stop_reason": stop, "stop_sequence": None,
                           "usage": {"input_tokens": tokens, "output_tokens": 5}}
                if not body.get("stream"):
                    self._json(message)
                    return
                start = {**block, "input": {}} if block["type"] == "tool_use" else {"type": "text", "text": ""}
                delta = ({"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
                         if block["type"] == "tool_use" else {"type": "text_delta", "text": block["text"]})
                events = [("message_start", {"type": "message_start", "message": {**message, "content": [],
                                                                                  "stop_reason": None}}),
                          ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}),
                          ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
                          ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                          ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop,
                                                                                "stop_sequence": None},
                                             "usage": {"output_tokens": 5}}),
                          ("message_stop", {"type": "message_stop"})]
                data = b"".join(f"event: {name}\ndata: {json.dumps(payload)}\n\n".encode() for name, payload in events)
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture(scope="module")
def claude() -> Path:
    _require_node()
    folder = npm_install(NODE_CACHE / "claude-code", [CLAUDE_PACKAGE])
    binary = folder / "node_modules" / ".bin" / "claude"
    if not binary.exists():
        pytest.skip("the Claude Code CLI binary was not put in place by its install script")
    return binary


DECISIONS = ("We deploy with blue-green from now on. Never push to main directly; always open a pull request. "
             "Should we keep the staging database after the migration?")


class ClaudeRun:
    """A project with Apollo's hooks (installed with ``apollo`` not on PATH) and the real CLI on the fake."""

    def __init__(self, claude: Path, root: Path):
        self.claude, self.fake = claude, FakeAnthropic()
        self.project = root / "project"
        self.project.mkdir()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
        self.env.update(HOME=str(root / "home"), CLAUDE_CONFIG_DIR=str(root / "config"), ANTHROPIC_API_KEY="sk-fake",
                        ANTHROPIC_BASE_URL=f"http://127.0.0.1:{self.fake.server.server_address[1]}",
                        DISABLE_TELEMETRY="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1",
                        DISABLE_ERROR_REPORTING="1", PATH="/usr/bin:/bin")  # apollo is not on PATH
        installed = subprocess.run([APOLLO, "install", "--claude-code", "--project", str(self.project), "--json"],
                                   capture_output=True, text=True, env=self.env)
        assert installed.returncode == 0, installed.stderr

    def __call__(self, *args: str) -> dict[str, Any]:
        done = subprocess.run([str(self.claude), "-p", *args, "--output-format", "json"], capture_output=True,
                              text=True, env=self.env, cwd=self.project, timeout=180)
        assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
        return json.loads(done.stdout)

    def must_keep(self) -> list[str]:
        """The current items of the newest PreCompact snapshot."""
        snapshots = sorted((self.project / ".renal" / "snapshots").glob("*.json"))
        assert snapshots, "the PreCompact hook wrote no snapshot"
        items = json.loads(snapshots[-1].read_text())["items"]
        return [i["text"] for i in items if i.get("status", "current") == "current"]

    def after_compaction(self) -> list[dict[str, Any]]:
        compaction = [i for i, r in enumerate(self.fake.requests) if COMPACT_MARK in _text(r)]
        assert compaction, "Claude Code never asked the model for a summary"
        return self.fake.requests[compaction[-1] + 1:]

    def close(self) -> None:
        self.fake.server.shutdown()


def _carries(request: dict[str, Any], items: list[str]) -> None:
    seen = " ".join(_text(request).split())
    assert items
    for text in items:
        assert " ".join(text.split()) in seen, text
    assert "SessionStart hook additional context" in _text(request)


def test_after_compact_the_model_gets_every_must_keep_item_back(claude: Path, tmp_path: Path) -> None:
    run = ClaudeRun(claude, tmp_path)
    try:
        session = run(DECISIONS)["session_id"]
        run("/compact", "--resume", session)
        items = run.must_keep()
        run("What is next?", "--resume", session)
        after = [r for r in run.after_compaction() if "What is next?" in _text(r)]
        assert after
        _carries(after[-1], items)
    finally:
        run.close()


def test_after_an_auto_compaction_too(claude: Path, tmp_path: Path) -> None:
    run = ClaudeRun(claude, tmp_path)
    try:
        session = run(DECISIONS)["session_id"]
        run.fake.input_tokens = 990_000  # the window is nearly full: Claude Code compacts by itself mid-turn
        run("Please RUN-TOOL and report.", "--allowedTools", "Bash(echo:*)", "--resume", session)
        items = run.must_keep()
        after = run.after_compaction()
        assert after
        _carries(after[0], items)
    finally:
        run.close()
