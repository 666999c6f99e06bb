"""Real OpenClaw turns against a model faked on 127.0.0.1, for Apollo's context engine.

:class:`FakeModel` is an OpenAI-compatible ``/v1/chat/completions`` in a thread of the test
process that keeps every request body (exactly what the model would have received) and answers
with a scripted reply. :class:`Rig` is one OpenClaw state dir wired to it, with or without
Apollo's engine selected, and runs ``openclaw agent --local`` turns.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from realclient.support import OpenClawCli

#: the gateway's own start-up (24-45 s on 2 cores) and a turn through it
GATEWAY_START_S = 240

PLUGIN = Path(__file__).resolve().parents[2] / "src" / "apollo" / "integration" / "openclaw-engine"
APOLLO = str(Path(sys.executable).parent / "apollo")


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


def tool_pairs(request: dict[str, Any]) -> tuple[set[str], set[str]]:
    """The ids of the tool calls a chat request carries, and of the results it carries: equal when
    no call is without its result (nor a result without its call)."""
    messages = request["messages"]
    calls = {c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []}
    return calls, {m.get("tool_call_id") for m in messages if m["role"] == "tool"}


class FakeModel:
    """Records each chat request; ``replies`` maps a substring of the last user message to the reply."""

    def __init__(self, replies: dict[str, str]):
        self.replies = replies
        self.requests: list[dict[str, Any]] = []
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, code: int, payload: bytes, kind: str) -> None:
                self.send_response(code)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:
                self._send(200, json.dumps({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
                           .encode(), "application/json")

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                model.requests.append(body)
                reply = model.reply_to(body)
                chunks = [{"role": "assistant", "content": ""}, {"content": reply}, {}]
                lines = []
                for n, delta in enumerate(chunks):
                    chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "fake-model",
                             "choices": [{"index": 0, "delta": delta, "finish_reason": "stop" if n == 2 else None}]}
                    if n == 2:
                        chunk["usage"] = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
                    lines.append(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                self._send(200, b"".join(lines) + b"data: [DONE]\n\n", "text/event-stream")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def reply_to(self, body: dict[str, Any]) -> str:
        users = [text_of(m) for m in body.get("messages", []) if m.get("role") == "user"]
        prompts = [t for t in users if not t.startswith("<<<BEGIN_OPENCLAW_INTERNAL")]
        last = prompts[-1] if prompts else ""
        return next((reply for needle, reply in self.replies.items() if needle in last), "Noted.")

    def close(self) -> None:
        self.server.shutdown()


class Rig:
    """An OpenClaw state dir on the fake model, with Apollo's engine when ``apollo`` is True."""

    def __init__(self, root: Path, cli: OpenClawCli, model: FakeModel, *, apollo: bool,
                 command: list[str] | None = None, timeout_ms: int | None = None):
        self.root, self.cli, self.model = root, cli, model
        self.state = root / "state"
        self.workspace = root / "workspace"
        self.state.mkdir(parents=True, exist_ok=True)
        self.workspace.mkdir(exist_ok=True)
        config: dict[str, Any] = {
            "models": {"mode": "merge", "providers": {"fake": {
                "baseUrl": f"http://127.0.0.1:{model.port}/v1", "apiKey": "sk-fake", "api": "openai-completions",
                "models": [{"id": "fake-model", "name": "Fake", "reasoning": False, "input": ["text"],
                            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                            "contextWindow": 128000, "maxTokens": 4096}]}}},
            "agents": {"defaults": {"model": {"primary": "fake/fake-model"}, "workspace": str(self.workspace)}},
        }
        if apollo:
            plugin_config: dict[str, Any] = {"command": command or [APOLLO, "engine", "serve"],
                                             "stateDir": str(self.state)}
            if timeout_ms is not None:
                plugin_config["timeoutMs"] = timeout_ms
            config["plugins"] = {"load": {"paths": [str(PLUGIN)]},
                                 "entries": {"apollo-renal": {"enabled": True, "config": plugin_config}},
                                 "slots": {"contextEngine": "apollo-renal"}}
        (self.state / "openclaw.json").write_text(json.dumps(config, indent=2))

    def environment(self) -> dict[str, str]:
        env = self.cli.environment(self.state)
        env["APOLLO_CACHE_DIR"] = os.environ.get("APOLLO_CACHE_DIR", str(self.root / "cache"))
        return env

    def start_turn(self, message: str, session_key: str = "agent:main:main") -> subprocess.Popen[str]:
        return subprocess.Popen(self.cli.command("agent", "--local", "--agent", "main", "--session-key", session_key,
                                                 "--message", message, "--json"),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.environment())

    def turn(self, message: str, session_key: str = "agent:main:main") -> subprocess.CompletedProcess[str]:
        process = self.start_turn(message, session_key)
        out, err = process.communicate(timeout=240)
        done = subprocess.CompletedProcess(process.args, process.returncode, out, err)
        assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-4000:])
        return done


class Gateway:
    """``openclaw gateway run`` on a free loopback port for a :class:`Rig`'s state dir (what
    ``openclaw sessions compact`` and ``/compact`` talk to), stopped by :meth:`stop`."""

    def __init__(self, rig: Rig):
        self.rig = rig
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        config_path = rig.state / "openclaw.json"
        config = json.loads(config_path.read_text())
        config["gateway"] = {"mode": "local", "port": self.port, "bind": "loopback", "auth": {"mode": "none"}}
        config_path.write_text(json.dumps(config, indent=2))
        self.log = rig.root / "gateway.log"
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                rig.cli.command("gateway", "run", "--port", str(self.port), "--bind", "loopback", "--auth", "none"),
                stdout=log, stderr=subprocess.STDOUT, env=rig.environment())
        deadline = time.monotonic() + GATEWAY_START_S
        while "[gateway] ready" not in _plain(self.log.read_text(errors="replace")):
            assert self.process.poll() is None and time.monotonic() < deadline, self.log.read_text()[-4000:]
            time.sleep(0.5)

    def run(self, *args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
        """An ``openclaw`` command that goes through this gateway."""
        return subprocess.run(self.rig.cli.command(*args), capture_output=True, text=True,
                              env=self.rig.environment(), timeout=timeout)

    def stop(self) -> str:
        """SIGTERM, wait for a clean exit, and the gateway's log without colours."""
        self.process.terminate()
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        return _plain(self.log.read_text(errors="replace"))


def _plain(log: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", log)


def apollo_processes(state: Path) -> list[int]:
    """Pids of ``apollo engine serve`` processes started for ``state`` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"engine" in words and b"serve" in words and str(state).encode() in words:
            found.append(int(entry.name))
    return found


def wait_gone(state: Path, seconds: float = 5.0) -> list[int]:
    """The engine processes still alive after up to ``seconds`` (they end when stdin closes)."""
    deadline = time.monotonic() + seconds
    while (alive := apollo_processes(state)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive
