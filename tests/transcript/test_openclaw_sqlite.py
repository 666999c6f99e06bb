"""The SQLite reader on a store with OpenClaw's table layout (the real store is in tests/realclient)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import zstandard

from apollo import transcript
from apollo.errors import InputError, UsageError
from apollo.transcript import Edit, SessionRef
from apollo.transcript.openclaw_sqlite import list_stored_sessions, resolve_ref
from realclient.support import realistic_session


def _store(tmp_path: Path) -> tuple[Path, Path]:
    """Events as OpenClaw 2026.9.6 stores them: small ones as text, large ones zstd-compressed."""
    source = realistic_session().write(tmp_path / "s.jsonl")
    db = tmp_path / "openclaw-agent.sqlite"
    with sqlite3.connect(db) as connection:
        connection.execute("create table transcript_events (session_id text, seq integer, event_json text, "
                           "created_at integer, event_zstd blob, event_utf8_bytes integer, navigation_json text)")
        connection.execute("create table session_windows (session_id text, session_key text, updated_at integer)")
        for seq, line in enumerate(source.read_bytes().splitlines()):
            packed = len(line) > 400
            connection.execute("insert into transcript_events values (?, ?, ?, ?, ?, ?, ?)",
                               ("sess-1", seq, None if packed else line.decode(), 1000 + seq,
                                zstandard.ZstdCompressor().compress(line) if packed else None, len(line),
                                "{}" if packed else None))
        connection.execute("insert into transcript_events values ('sess-0', 0, ?, 5, null, null, null)",
                           (source.read_text().splitlines()[0],))
        connection.execute("insert into session_windows values ('sess-1', 'agent:main:main', 2000)")
    return source, db


def test_reads_the_same_elements_and_exports_the_same_bytes(tmp_path: Path) -> None:
    source, db = _store(tmp_path)
    assert [s.session_id for s in list_stored_sessions(db)] == ["sess-1", "sess-0"]
    from_store = transcript.read(db)  # a bare path: the most recent session
    assert from_store.format == "openclaw-sqlite" and from_store.meta["session"] == f"{db}#sess-1"
    from_file = transcript.read(source)
    assert [(e.id, e.text, e.kind, e.in_context) for e in from_store.elements] == \
           [(e.id, e.text, e.kind, e.in_context) for e in from_file.elements]
    transcript.write(SessionRef(db, "sess-1"), tmp_path / "export.jsonl", {})
    assert (tmp_path / "export.jsonl").read_bytes() == source.read_bytes()
    transcript.write(resolve_ref(db, "sess-1"), tmp_path / "edited.jsonl", {"00000005": Edit("drop")})
    assert "00000005" not in [json.loads(x).get("id") for x in (tmp_path / "edited.jsonl").read_text().splitlines()]


def test_store_is_never_written(tmp_path: Path) -> None:
    _, db = _store(tmp_path)
    before = db.read_bytes()
    transcript.read(db)
    with pytest.raises(UsageError, match="cannot be changed in place"):
        transcript.append_compaction(SessionRef(db, "sess-1"), None, "s", "00000012", 1, in_place=True)
    out = tmp_path / "compacted.jsonl"
    transcript.append_compaction(SessionRef(db, "sess-1"), out, "digest", "00000012", 1)
    assert json.loads(out.read_text().splitlines()[-1])["summary"] == "digest"
    assert db.read_bytes() == before


def test_unknown_session_and_not_a_store(tmp_path: Path) -> None:
    _, db = _store(tmp_path)
    with pytest.raises(InputError, match="no session with id 'nope'"):
        resolve_ref(db, "nope")
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("create table t (x)").connection.close()
    with pytest.raises(InputError, match="not an OpenClaw transcript store"):
        transcript.read(other)


def test_cli_shows_a_store_session(apollo_cli, tmp_path: Path) -> None:
    _, db = _store(tmp_path)
    result = apollo_cli("transcript", "show", str(db), "--session", "sess-1", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["source"] == f"{db}#sess-1" and data["totals"]["elements"] == 22
