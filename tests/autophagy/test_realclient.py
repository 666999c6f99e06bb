"""The large tier against the real OpenClaw 2026.9.6 (Node 24, offline): the SQLite store is the
one OpenClaw's own importer builds; after the wipe OpenClaw lists no session for the agent and
its own integrity checks pass; after restore its sessions are back; a running gateway (the real
one, started here) makes autophagy refuse."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path

import pytest

from apollo import clock
from apollo import config as config_mod
from apollo.autophagy import api
from apollo.errors import Refused
from apollo.workspace import Paths
from realclient.support import PiSession, legacy_state_dir, realistic_session

pytestmark = [pytest.mark.realclient, pytest.mark.slow]
NOW = "2026-11-29T12:00:00+08:00"
SESSION_IDS = ("0d2f7c1e-4b5a-4c3d-9e8f-112233445566", "5e6f7a8b-0000-4000-8000-000000000002")


def _sessions(root: Path) -> dict[str, Path]:
    second = PiSession(session_id="5e6f7a8b-0000-4000-8000-000000000002")
    second.user("我们决定周报改成周四发。")
    second.say("好的，记下了：周报改到周四。")
    first = realistic_session()
    return {s.session_id: s.write(root / "src" / f"{s.session_id}.jsonl") for s in (first, second)}


def _json(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout[done.stdout.index("{"):])


def _listed(openclaw_cli, state: Path) -> list[str]:
    return [s["sessionId"] for s in _json(openclaw_cli.run(state, "sessions", "--json"))["sessions"]]


def _checks_pass(openclaw_cli, state: Path) -> dict:
    validate = _json(openclaw_cli.run(state, "doctor", "--session-sqlite", "validate", "--session-sqlite-all-agents",
                                      "--non-interactive", "--json"))
    assert validate["totals"]["issues"] == 0
    inspect = _json(openclaw_cli.run(state, "doctor", "--session-sqlite", "inspect", "--session-sqlite-all-agents",
                                     "--non-interactive", "--json"))
    [target] = [t for t in inspect["targets"] if t["agentId"] == "main"]
    assert target["issues"] == [] and target["dbStats"]["integrityCheck"] == "ok"
    return target


@pytest.fixture
def imported(tmp_path: Path, openclaw_cli, monkeypatch):
    clock.pin(NOW)
    state = legacy_state_dir(tmp_path, _sessions(tmp_path))
    openclaw_cli.import_legacy(state)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    paths = Paths.resolve(workspace, state)
    return paths, config_mod.load(workspace), state


def test_wipe_the_real_sqlite_store_and_restore_it(imported, openclaw_cli) -> None:
    paths, config, state = imported
    assert sorted(_listed(openclaw_cli, state)) == sorted(SESSION_IDS)
    assert _checks_pass(openclaw_cli, state)["sqliteEntries"] == 2
    plan = api.plan(paths, config, "large")
    [item] = plan.items
    assert item.kind == "session_store" and len(item.sessions) == 2
    result = api.execute(paths, config, plan.plan_id, phrase="确认大自噬", at_terminal=True)
    assert result["skipped"] == [], result
    assert _listed(openclaw_cli, state) == []
    assert _checks_pass(openclaw_cli, state)["sqliteEntries"] == 0
    summary = json.loads((paths.workspace / result["snapshot"] / "summary.json").read_text())
    assert "周四" in json.dumps(summary, ensure_ascii=False) and "blue-green" in json.dumps(summary).lower()
    restored = api.restore(paths, config, Path(result["snapshot"]).name)
    assert restored["replaced"] and restored["skipped"] == []
    assert len(_listed(openclaw_cli, state)) == 2
    assert _checks_pass(openclaw_cli, state)["sqliteEntries"] == 2


def test_wipe_the_legacy_store_openclaw_starts_fresh(tmp_path: Path, openclaw_cli, monkeypatch) -> None:
    clock.pin(NOW)
    state = legacy_state_dir(tmp_path, _sessions(tmp_path))
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    paths = Paths.resolve(workspace, state)
    config = config_mod.load(workspace)
    plan = api.plan(paths, config, "large")
    api.execute(paths, config, plan.plan_id, phrase="确认大自噬", at_terminal=True)
    dry = _json(openclaw_cli.run(state, "doctor", "--session-sqlite", "dry-run", "--session-sqlite-all-agents",
                                 "--non-interactive", "--json"))
    assert dry["totals"]["issues"] == 0 and dry["totals"]["legacyEntries"] == 0
    assert _listed(openclaw_cli, state) == []


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_refused_while_the_real_gateway_runs(imported, openclaw_cli) -> None:
    paths, config, state = imported
    port = _free_port()
    gateway = subprocess.Popen(openclaw_cli.command("gateway", "run", "--port", str(port), "--bind", "loopback",
                                                    "--allow-unconfigured", "--token",
                                                    "apollo-test-token-0123456789abcdef"),
                               env=openclaw_cli.environment(state), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not list((state / "tmp").glob("openclaw-*/gateway.*.lock")):
            assert gateway.poll() is None, "the gateway stopped on its own"
            time.sleep(0.05)
        assert list((state / "tmp").glob("openclaw-*/gateway.*.lock")), "the gateway took no lock in 120 s"
        with pytest.raises(Refused, match="openclaw gateway stop"):
            api.plan(paths, config, "large")
    finally:
        gateway.terminate()
        try:
            gateway.wait(timeout=30)
        except subprocess.TimeoutExpired:
            gateway.kill()
            gateway.wait()
    assert api.plan(paths, config, "large").items, "once it is stopped, the plan is made"
