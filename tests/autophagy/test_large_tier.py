"""Tier 3: the whole conversation context, legacy JSONL store and SQLite store; double
confirmation; refused while OpenClaw runs; a summary of what was wiped in the snapshot.

The SQLite store here mirrors OpenClaw 2026.9.6's tables that matter (same names, keys and
ON DELETE CASCADE links, measured on the real package); tests/autophagy/test_realclient.py
runs the same against the store OpenClaw itself builds.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from apollo.autophagy import api
from apollo.errors import ConfirmationRequired, Refused
from realclient.support import PiSession, legacy_state_dir, realistic_session

PHRASE = "确认大自噬"

SCHEMA = """
CREATE TABLE schema_meta (meta_key TEXT PRIMARY KEY, role TEXT NOT NULL, schema_version INTEGER NOT NULL,
  agent_id TEXT, app_version TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL) STRICT;
CREATE TABLE session_nodes (session_key TEXT NOT NULL PRIMARY KEY, current_session_id TEXT NOT NULL,
  entry_json TEXT NOT NULL, updated_at INTEGER NOT NULL) STRICT;
CREATE TABLE session_windows (session_id TEXT NOT NULL PRIMARY KEY, session_key TEXT NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  FOREIGN KEY (session_key) REFERENCES session_nodes(session_key) ON DELETE CASCADE) STRICT;
CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT,
  created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT,
  PRIMARY KEY (session_id, seq),
  FOREIGN KEY (session_id) REFERENCES session_windows(session_id) ON DELETE CASCADE) STRICT;
CREATE TABLE transcript_event_identities (session_id TEXT NOT NULL, event_id TEXT NOT NULL, seq INTEGER NOT NULL,
  created_at INTEGER NOT NULL, PRIMARY KEY (session_id, event_id),
  FOREIGN KEY (session_id, seq) REFERENCES transcript_events(session_id, seq) ON DELETE CASCADE) STRICT;
CREATE TABLE session_transcript_fts_rows (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, message_id TEXT) STRICT;
CREATE TABLE session_canonical_validation_pending (session_key TEXT NOT NULL PRIMARY KEY) STRICT;
CREATE TABLE session_transcript_archives (session_id TEXT NOT NULL, session_key TEXT NOT NULL,
  archive_blob BLOB NOT NULL) STRICT;
CREATE TABLE memory_index_state (id INTEGER PRIMARY KEY CHECK (id = 1), revision INTEGER NOT NULL) STRICT;
"""


def make_store(path: Path, sessions: dict[str, PiSession], agent: str = "main") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("INSERT INTO schema_meta VALUES ('primary', 'agent', 23, ?, '2026.9.6', 1, 1)", (agent,))
    db.execute("INSERT INTO memory_index_state VALUES (1, 7)")
    for n, (key, session) in enumerate(sessions.items()):
        db.execute("INSERT INTO session_nodes VALUES (?, ?, ?, ?)", (key, session.session_id,
                   json.dumps({"sessionId": session.session_id}), 1000 + n))
        db.execute("INSERT INTO session_windows VALUES (?, ?, 1, ?)", (session.session_id, key, 1000 + n))
        for seq, line in enumerate(session.lines()):
            db.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, 1)",
                       (session.session_id, seq, line))
            db.execute("INSERT INTO transcript_event_identities VALUES (?, ?, ?, 1)",
                       (session.session_id, json.loads(line).get("id", f"h{seq}"), seq))
            db.execute("INSERT INTO session_transcript_fts_rows (session_id, message_id) VALUES (?, ?)",
                       (session.session_id, str(seq)))
        db.execute("INSERT INTO session_canonical_validation_pending VALUES (?)", (key,))
    db.execute("INSERT INTO session_transcript_archives VALUES ('old', 'agent:main:old', x'00')")
    db.commit()
    db.close()
    return path


def counts(path: Path) -> dict[str, int]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in db.execute("select name from sqlite_master where type='table'")]
        return {t: db.execute(f'select count(*) from "{t}"').fetchone()[0] for t in tables}
    finally:
        db.close()


def _sessions() -> dict[str, PiSession]:
    first = realistic_session()
    second = PiSession(session_id="5e6f7a8b-0000-4000-8000-000000000002")
    second.user("我们决定周报改成周四发。")
    second.say("好的，记下了：周报改到周四。")
    second.user("以后都用中文回复。")
    return {"agent:main:main": first, "agent:main:telegram": second}


@pytest.fixture
def legacy(ws, tmp_path: Path):
    sources = {s.session_id: s.write(tmp_path / "src" / f"{s.session_id}.jsonl") for s in _sessions().values()}
    state = legacy_state_dir(ws.root, sources)
    assert state == ws.state
    return ws


@pytest.fixture
def store(ws):
    db = make_store(ws.state / "agents" / "main" / "agent" / "openclaw-agent.sqlite", _sessions())
    return ws, db


def test_both_confirmations_are_needed_either_alone_changes_nothing(legacy) -> None:
    ws = legacy
    before = sorted(os.listdir(ws.state / "agents/main/sessions"))
    made = ws.plan("large")
    assert {i.kind for i in made.items} == {"session_transcript", "session_index"}
    for phrase in (None, "确认", "确认大自噬 ", "yes"):
        with pytest.raises(ConfirmationRequired):
            ws.execute(made.plan_id, phrase=phrase, at_terminal=True)
    assert sorted(os.listdir(ws.state / "agents/main/sessions")) == before
    result = ws.execute(made.plan_id, phrase=PHRASE, at_terminal=True)
    assert not result["skipped"]
    sessions = ws.state / "agents/main/sessions"
    assert sorted(os.listdir(sessions)) == ["sessions.json"]
    assert json.loads((sessions / "sessions.json").read_text()) == {}


def test_the_snapshot_holds_the_sessions_and_a_summary(legacy) -> None:
    ws = legacy
    made = ws.plan("large")
    result = ws.execute(made.plan_id, phrase=PHRASE, at_terminal=True)
    snapshot = ws.workspace / result["snapshot"]
    summary = json.loads((snapshot / "summary.json").read_text())
    assert len(summary["sessions"]) == 2
    texts = json.dumps(summary, ensure_ascii=False)
    assert "blue-green" in texts.lower() and "周四" in texts
    for session in summary["sessions"]:
        assert session["method"] in ("renal.classify", "user messages")
    manifest = json.loads((snapshot / "manifest.json").read_text())
    assert {e["kind"] for e in manifest["entries"]} == {"session_transcript", "session_index"}
    restored = api.restore(ws.paths(), ws.config(), snapshot.name)
    assert not restored["skipped"]
    assert len(os.listdir(ws.state / "agents/main/sessions")) == 3
    assert json.loads((ws.state / "agents/main/sessions/sessions.json").read_text())


def test_sqlite_sessions_are_wiped_in_one_transaction_the_rest_stays(store) -> None:
    ws, db = store
    before = counts(db)
    made = ws.plan("large")
    [item] = made.items
    assert item.kind == "session_store" and item.count == before["transcript_events"]
    result = ws.execute(made.plan_id, phrase=PHRASE, at_terminal=True)
    assert not result["skipped"], result
    after = counts(db)
    for table in ("session_nodes", "session_windows", "transcript_events", "transcript_event_identities",
                  "session_transcript_fts_rows", "session_canonical_validation_pending"):
        assert after[table] == 0, table
    for table in ("schema_meta", "memory_index_state", "session_transcript_archives"):
        assert after[table] == before[table], table
    check = sqlite3.connect(db)
    assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert check.execute("PRAGMA foreign_key_check").fetchall() == []
    check.close()
    copy = ws.workspace / result["snapshot"] / "files" / "000001"
    assert counts(copy)["transcript_events"] == before["transcript_events"], "a consistent copy was taken first"
    summary = json.loads((ws.workspace / result["snapshot"] / "summary.json").read_text())
    assert "周四" in json.dumps(summary, ensure_ascii=False)


def test_a_wiped_store_is_restored_only_while_untouched(store) -> None:
    ws, db = store
    before = counts(db)
    result = ws.execute(ws.plan("large").plan_id, phrase=PHRASE, at_terminal=True)
    name = Path(result["snapshot"]).name
    done = api.restore(ws.paths(), ws.config(), name)
    assert done["replaced"] and not done["skipped"]
    assert counts(db) == before


def test_a_store_written_since_the_wipe_is_not_overwritten(store) -> None:
    ws, db = store
    result = ws.execute(ws.plan("large").plan_id, phrase=PHRASE, at_terminal=True)
    live = sqlite3.connect(db)
    live.execute("INSERT INTO session_nodes VALUES ('agent:main:new', 'n1', '{}', 5)")
    live.commit()
    live.close()
    done = api.restore(ws.paths(), ws.config(), Path(result["snapshot"]).name)
    assert done["skipped"] and not done["replaced"]
    assert counts(db)["session_nodes"] == 1


def test_new_messages_between_plan_and_execution_stop_the_wipe(store) -> None:
    ws, db = store
    made = ws.plan("large")
    live = sqlite3.connect(db)
    live.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at) "
                 "SELECT session_id, 999, '{}', 2 FROM session_windows LIMIT 1")
    live.commit()
    live.close()
    before = counts(db)
    result = ws.execute(made.plan_id, phrase=PHRASE, at_terminal=True)
    assert result["deleted"] == [] and "changed" in result["skipped"][0]["reason"]
    assert counts(db) == before


def test_a_store_of_another_agent_is_refused(ws) -> None:
    make_store(ws.state / "agents" / "main" / "agent" / "openclaw-agent.sqlite", _sessions(), agent="work")
    with pytest.raises(Refused, match="belongs to agent 'work'"):
        ws.plan("large")


# -- OpenClaw running -----------------------------------------------------------------------------

def _lock(ws, pid: int, start: int | None, state_dir: Path | None = None) -> Path:
    folder = ws.state / "tmp" / f"openclaw-{os.getuid()}"
    folder.mkdir(parents=True, exist_ok=True)
    payload = {"pid": pid, "createdAt": "2026-11-29T04:00:00Z", "configPath": str((state_dir or ws.state) / "openclaw.json"),
               "stateDir": str(state_dir or ws.state), "port": 18789}
    if start is not None:
        payload["startTime"] = start
    lock = folder / "gateway.8f1eeb69.lock"
    lock.write_text(json.dumps(payload, indent=2) + "\t \t\n")  # OpenClaw pads the file
    return lock


def _start_time(pid: int) -> int:
    raw = Path(f"/proc/{pid}/stat").read_text()
    return int(raw[raw.rindex(")") + 2:].split()[19])


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_refused_while_a_live_gateway_holds_its_lock(legacy) -> None:
    ws = legacy
    made = ws.plan("large")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        _lock(ws, sleeper.pid, _start_time(sleeper.pid))
        with pytest.raises(Refused, match="openclaw gateway stop"):
            ws.execute(made.plan_id, phrase=PHRASE, at_terminal=True)
        with pytest.raises(Refused, match=f"pid {sleeper.pid}"):
            ws.plan("large")
        assert len(os.listdir(ws.state / "agents/main/sessions")) == 3
    finally:
        sleeper.kill()
        sleeper.wait()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_stale_and_foreign_locks_do_not_block(legacy) -> None:
    ws = legacy
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    _lock(ws, int(done.stdout), None)  # that process is gone
    assert ws.plan("large").items
    _lock(ws, os.getpid(), _start_time(os.getpid()) + 1)  # pid reused by another process
    assert ws.plan("large").items
    _lock(ws, os.getpid(), _start_time(os.getpid()), state_dir=ws.root / "other-profile")
    assert ws.plan("large").items


def test_a_lock_still_being_written_refuses_until_it_is_stale(legacy) -> None:
    """OpenClaw creates its lock file empty and writes the owner after: that moment is a gateway
    starting, not a missing gateway; an empty lock older than OpenClaw's stale window is left over."""
    ws = legacy
    folder = ws.state / "tmp" / f"openclaw-{os.getuid()}"
    folder.mkdir(parents=True)
    lock = folder / "gateway.8f1eeb69.lock"
    lock.write_text("")
    with pytest.raises(Refused, match="still being written"):
        ws.plan("large")
    lock.write_text('{"pid": ')
    with pytest.raises(Refused, match="openclaw gateway stop"):
        ws.plan("large")
    old = time.time() - 31
    os.utime(lock, (old, old))
    assert ws.plan("large").items


def test_an_unwritten_lock_from_the_future_does_not_block_for_ever(legacy) -> None:
    """A clock set back after the lock was made: its date ahead makes it no younger."""
    ws = legacy
    folder = ws.state / "tmp" / f"openclaw-{os.getuid()}"
    folder.mkdir(parents=True)
    lock = folder / "gateway.8f1eeb69.lock"
    lock.write_text("")
    future = time.time() + 365 * 24 * 3600
    os.utime(lock, (future, future))
    assert ws.plan("large").items


def test_refused_while_something_listens_on_the_configured_port(legacy) -> None:
    ws = legacy
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    try:
        port = server.getsockname()[1]
        config = '{\n  // OpenClaw config is JSON5\n  "gateway": {"port": PORT,},\n}\n'.replace("PORT", str(port))
        (ws.state / "openclaw.json").write_text(config)
        with pytest.raises(Refused, match=f"127.0.0.1:{port}"):
            ws.plan("large")
    finally:
        server.close()
    assert ws.plan("large").items


# -- who may run it --------------------------------------------------------------------------------

@pytest.mark.parametrize("tier", ["medium", "large"])
def test_a_subagent_may_not_run_medium_or_large(legacy, tier: str, monkeypatch) -> None:
    ws = legacy
    ws.put("broken.json", b"{")
    with pytest.raises(Refused, match="main agent only"):
        ws.plan(tier, actor="subagent")
    monkeypatch.setenv("APOLLO_ACTOR", "subagent")
    with pytest.raises(Refused):
        ws.plan(tier)
    assert not (ws.workspace / ".autophagy").exists(), "nothing was written, not even a plan"


def test_a_subagent_may_run_small_but_not_confirm_a_main_plan(legacy, monkeypatch) -> None:
    ws = legacy
    ws.put("junk.tmp")
    result = ws.small(actor="subagent")
    assert result["deleted"] == ["junk.tmp"]
    ws.put("broken.json", b"{")
    plan = ws.plan("medium")
    monkeypatch.setenv("APOLLO_ACTOR", "subagent")
    with pytest.raises(Refused):
        ws.execute(plan.plan_id)
    assert (ws.workspace / "broken.json").exists()
