"""Issue 12, the Low findings: reminders matched only where they should be; a protected name that
is a symlink protects its target; a 4 GiB sparse file is never read whole; the SQLite store
is never wiped through a hard link nor partly; status leaves no -wal/-shm; a stale restore
temporary never blocks a restore."""

from __future__ import annotations

import json
import os
import resource
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from apollo.autophagy import api
from apollo.errors import Refused
from autophagy.support import DAY, NOW, tree
from autophagy.test_large_tier import PHRASE, _sessions, counts, make_store


def test_reminders_only_in_their_folders_and_only_their_header(ws) -> None:
    ws.put("reminders/renew.md", "expires: 2026-10-01\n\nrenew the domain\n")
    ws.put("projects/app/reminders/notes.md", "expires: 2026-10-01\n")          # not a reminders folder of ours
    ws.put("reminders/trip.md", "# Trip to Lyon\n\n" + "day plan\n" * 40 + "status: done\n")  # line 42: not a header
    made = ws.plan("medium")
    assert [i.rel for i in made.items] == ["reminders/renew.md"]


def test_a_protected_name_that_is_a_symlink_protects_its_target(ws) -> None:
    ws.put("memory/MEMORY.md.orig", "# Memory\n\n- the real memory\n")
    ws.link("MEMORY.md", "memory/MEMORY.md.orig")
    ws.put("skills-store/tool/cache.tmp")
    ws.link("skills", "skills-store")
    ws.put("other.orig")
    before = tree(ws.workspace)
    made = ws.plan("small")
    assert {i.rel for i in made.items} == {"other.orig"}
    result = ws.execute(made.plan_id)
    assert result["deleted"] == ["other.orig"] and result["skipped"] == []
    left = tree(ws.workspace)
    assert left["memory/MEMORY.md.orig"] == before["memory/MEMORY.md.orig"]
    assert left["skills-store/tool/cache.tmp"] == before["skills-store/tool/cache.tmp"]


def _limited(limit: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def test_a_4_gib_sparse_file_is_never_read_whole(ws) -> None:
    for rel in ("logs/heartbeat.log", "reminders/huge.json", "data/huge.jsonl"):
        path = ws.put(rel, b"2026-09-01T00:00:00Z x\n")
        os.truncate(path, 4 << 30)
        os.utime(path, (0, 0))
    sparse_memory = ws.workspace / "MEMORY.md"
    sparse_memory.write_bytes(b"- [outdated] x\n")
    os.truncate(sparse_memory, 4 << 30)
    os.utime(sparse_memory, (0, 0))
    script = textwrap.dedent(f"""
        import json
        from pathlib import Path
        from apollo import config
        from apollo.autophagy import api
        from apollo.workspace import Paths
        paths = Paths.resolve(Path({str(ws.workspace)!r}), Path({str(ws.state)!r}))
        status = api.status(paths, config.load(paths.workspace))
        print(json.dumps({{t: status["tiers"][t].get("count") for t in ("small", "medium")}}))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, APOLLO_NOW=NOW), preexec_fn=_limited(1 << 30))
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"small": 0, "medium": 0}


@pytest.fixture
def store(ws):
    db = make_store(ws.state / "agents" / "main" / "agent" / "openclaw-agent.sqlite", _sessions())
    return ws, db


def test_a_store_with_an_outside_hard_link_is_not_wiped_in_place(store) -> None:
    ws, db = store
    backup = ws.outside / "openclaw-agent.sqlite.backup"
    os.link(db, backup)
    before = counts(backup)
    made = ws.plan("large")
    with pytest.raises(Refused, match="hard link"):
        ws.execute(made.plan_id, phrase=PHRASE, at_terminal=True)
    assert counts(backup) == before and counts(db) == before


def test_a_locked_store_refuses_the_whole_large_run(store) -> None:
    ws, db = store
    session = ws.put("s.jsonl", '{"type":"session"}\n', base=ws.state / "agents" / "main" / "sessions")
    made = ws.plan("large")
    assert {i.kind for i in made.items} >= {"session_store", "session_transcript"}
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sqlite3, sys, time
        c = sqlite3.connect({str(db)!r}, isolation_level=None)
        c.execute("BEGIN IMMEDIATE")
        print("locked", flush=True)
        sys.stdin.readline()
    """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(Refused, match="locked|busy"):
            ws.execute(made.plan_id, phrase=PHRASE, at_terminal=True)
    finally:
        holder.communicate("\n", timeout=30)
    assert session.exists(), "nothing of the run happened: the transcripts are still there"


def test_status_creates_no_wal_or_shm(store) -> None:
    ws, db = store
    live = sqlite3.connect(db)
    live.execute("PRAGMA journal_mode=WAL")
    live.close()
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()
    status = ws.status()
    assert status["tiers"]["large"]["sessions"] == 2
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()


def test_a_stale_restore_temporary_never_blocks_restore(ws) -> None:
    ws.put("a.tmp", "precious")
    result = ws.small()
    assert result["deleted"] == ["a.tmp"]
    stale = ws.workspace / ".a.tmp.apollo-restore.tmp"
    stale.write_text("left by a crash", encoding="utf-8")
    done = api.restore(ws.paths(), ws.config(), Path(result["snapshot"]).name)
    assert done["restored"] == ["a.tmp"] and not done["skipped"]
    assert (ws.workspace / "a.tmp").read_text() == "precious"
    assert stale.read_text() == "left by a crash", "a file Apollo did not create is never removed"
    _ = DAY
