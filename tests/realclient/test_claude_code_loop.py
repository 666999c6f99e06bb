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
                reply = SUMMARY if COMPACT_MARK in _text({"messages": [last]}) else "Done."
                message = {"id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model", "m"),
                           "content": [{"type": "text", "text": reply}], "stop_reason": "end_turn",
                           "stop_sequence": None, "usage": {"input_tokens": 100, "output_tokens": 5}}
                if not body.get("stream"):
                    self._json(message)
                    return
                events = [("message_start", {"type": "message_start", "message": {**message, "content": [],
                                                                                  "stop_reason": None}}),
                          ("content_block_start", {"type": "content_block_start", "index": 0,
                                                   "content_block": {"type": "text", "text": ""}}),
                          ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                   "delta": {"type": "text_delta", "text": reply}}),
                          ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                          ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
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


def test_after_compact_the_model_gets_every_must_keep_item_back(claude: Path, tmp_path: Path) -> None:
    fake = FakeAnthropic()
    project = tmp_path / "project"
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
    env.update(HOME=str(tmp_path / "home"), CLAUDE_CONFIG_DIR=str(tmp_path / "config"), ANTHROPIC_BASE_URL=fake.url,
               ANTHROPIC_API_KEY="sk-fake", DISABLE_TELEMETRY="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
               DISABLE_AUTOUPDATER="1", DISABLE_ERROR_REPORTING="1", PATH="/usr/bin:/bin")  # apollo not on PATH
    installed = subprocess.run([APOLLO, "install", "--claude-code", "--project", str(project), "--json"],
                               capture_output=True, text=True, env=env)
    assert installed.returncode == 0, installed.stderr

    def claude_p(*args: str) -> dict[str, Any]:
        done = subprocess.run([str(claude), "-p", *args, "--output-format", "json"], capture_output=True, text=True,
                              env=env, cwd=project, timeout=180)
        assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
        return json.loads(done.stdout)

    first = claude_p("We deploy with blue-green from now on. Never push to main directly; always open a "
                     "pull request. Should we keep the staging database after the migration?")
    session = first["session_id"]
    claude_p("/compact", "--resume", session)
    snapshots = sorted((project / ".renal" / "snapshots").glob("*.json"))
    assert snapshots, "the PreCompact hook wrote no snapshot"
    items = json.loads(snapshots[-1].read_text())["items"]
    must_keep = [i["text"] for i in items if i.get("status", "current") == "current"]
    assert must_keep
    claude_p("What is next?", "--resume", session)
    compaction = [i for i, r in enumerate(fake.requests) if COMPACT_MARK in _text(r)]
    assert compaction, "Claude Code never asked the model for a summary"
    after = [r for r in fake.requests[compaction[-1] + 1:] if "What is next?" in _text(r)]
    assert after
    seen = " ".join(_text(after[-1]).split())
    for text in must_keep:
        assert " ".join(text.split()) in seen, text
    assert "SessionStart hook additional context" in _text(after[-1])
    fake.server.shutdown()
