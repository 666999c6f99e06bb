"""Apollo against the real OpenClaw 2026.9.6 SQLite store, built by OpenClaw's own importer.

A legacy state dir (sessions/*.jsonl + sessions.json) is imported with
``openclaw doctor --session-sqlite import`` (offline); Apollo's read-only SQLite reader must
then give exactly the elements of the JSONL it came from, and a session Apollo rewrote must
import cleanly too.
"""

from __future__ import annotations

import json
import random
import shutil
import string
from pathlib import Path

import pytest

from apollo import transcript
from apollo.transcript import Edit, Kind, SessionRef, discovery
from apollo.transcript.openclaw_sqlite import list_stored_sessions
from apollo.workspace import Paths
from realclient.support import PiSession, legacy_state_dir, realistic_session

pytestmark = [pytest.mark.realclient, pytest.mark.slow]


def _big_session() -> PiSession:
    """Tool output large enough that OpenClaw stores it zstd-compressed (events over ~4 KB)."""
    s = PiSession(session_id="7a1b2c3d-0000-4000-8000-00000000beef")
    s.user("[Wed 2026-04-08 09:00 GMT+8] summarise the log")
    rng = random.Random(7)
    log = "\n".join("".join(rng.choice(string.ascii_lowercase) for _ in range(60)) for _ in range(3000))
    s.tool("call_log", "read", {"path": "app.log"}, log)
    s.compaction("Read app.log; nothing alarming.", s.entries[-1]["id"], 90000)
    s.say("The log is clean.")
    return s


def _same(a: transcript.Element, b: transcript.Element) -> tuple:
    return (a.id, a.role, a.kind, a.text, a.envelope, a.tokens, a.in_context, a.parent, a.call_id, a.line)


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory, openclaw_cli) -> dict:
    root = tmp_path_factory.mktemp("openclaw")
    small, big = realistic_session(), _big_session()
    sources = {small.session_id: small.write(root / "src" / "small.jsonl"),
               big.session_id: big.write(root / "src" / "big.jsonl")}
    state = legacy_state_dir(root, sources)
    report = openclaw_cli.import_legacy(state)
    return {"state": state, "report": report, "sources": sources, "db": state / "agents/main/agent/openclaw-agent.sqlite"}


def test_import_is_clean_and_compresses_large_events(imported: dict) -> None:
    totals = imported["report"]["totals"]
    assert totals["issues"] == 0 and totals["importedEntries"] == 2
    import sqlite3

    with sqlite3.connect(f"file:{imported['db']}?mode=ro", uri=True) as db:
        packed = db.execute("select count(*) from transcript_events where event_zstd is not null").fetchone()[0]
    assert packed >= 1  # the reader's zstd path is exercised


def test_sqlite_reader_gives_exactly_the_jsonl_elements(imported: dict) -> None:
    for session_id, source in imported["sources"].items():
        from_jsonl = transcript.read(source)
        from_store = transcript.read(SessionRef(imported["db"], session_id))
        assert from_store.format == "openclaw-sqlite"
        assert [_same(a, b) for a, b in zip(from_jsonl.elements, from_store.elements, strict=True)] == \
               [_same(a, a) for a in from_jsonl.elements]
        assert from_store.warnings == []


def test_unedited_export_is_byte_identical_to_openclaws_own_dump(imported: dict, openclaw_cli,
                                                                  tmp_path: Path) -> None:
    for session_id, source in imported["sources"].items():
        out = tmp_path / f"{session_id}.jsonl"
        transcript.write(SessionRef(imported["db"], session_id), out, {})
        assert out.read_bytes() == openclaw_cli.dump(imported["db"], session_id) == source.read_bytes()


def test_discovery_finds_the_newest_sqlite_session(imported: dict) -> None:
    paths = Paths(Path("/nonexistent"), imported["state"], "main")
    current = discovery.current_session(paths)
    assert current == SessionRef(imported["db"], "7a1b2c3d-0000-4000-8000-00000000beef")
    assert {s.session_id for s in discovery.list_sessions(paths)} == set(imported["sources"])
    assert [s.events for s in list_stored_sessions(imported["db"])] == [6, 20]


def test_session_written_from_the_store_imports_cleanly(imported: dict, openclaw_cli, tmp_path: Path) -> None:
    ref = SessionRef(imported["db"], PiSession().session_id)
    elements = transcript.read(ref).elements
    edits = {e.id: Edit("drop") for e in elements if e.kind in (Kind.HEARTBEAT_POLL, Kind.HEARTBEAT_REPLY)}
    edits[next(e.id for e in elements if e.call_id == "call_c" and e.kind is Kind.TOOL_CALL)] = Edit("drop")
    written = tmp_path / "filtered.jsonl"
    transcript.write(ref, written, edits)
    lines = written.read_text().splitlines()
    assert len(lines) == 20 - 4 - 1  # header + 19 entries, minus 2 polls, 2 replies and call_c's result

    fresh = legacy_state_dir(tmp_path / "fresh", {ref.session_id: written})
    report = openclaw_cli.import_legacy(fresh)
    assert report["totals"]["issues"] == 0
    assert report["totals"]["importedTranscriptEvents"] == len(lines)
    db = fresh / "agents/main/agent/openclaw-agent.sqlite"
    assert openclaw_cli.dump(db, ref.session_id) == written.read_bytes()
    reread = transcript.read(SessionRef(db, ref.session_id)).elements
    assert [e.text for e in reread] == [e.text for e in transcript.read(written).elements]
    assert not any(e.kind is Kind.HEARTBEAT_POLL for e in reread)


def test_archived_legacy_transcripts_are_listed_not_current(imported: dict, tmp_path: Path) -> None:
    state = tmp_path / "state"
    shutil.copytree(imported["state"], state)
    archive = next((state / "agents/main/session-sqlite-import-archive").glob("*big*.jsonl.imported-*"), None) \
        or next((state / "agents/main/session-sqlite-import-archive").glob("*.jsonl.imported-*"))
    sessions = state / "agents/main/sessions"
    sessions.mkdir(exist_ok=True)
    shutil.copyfile(archive, sessions / "old.jsonl.reset.2026-04-01T00-00-00.000Z")
    paths = Paths(Path("/nonexistent"), state, "main")
    listed = discovery.list_sessions(paths)
    assert any(s.archived for s in listed)
    assert isinstance(discovery.current_session(paths), SessionRef)
    old = next(s for s in listed if s.archived)
    assert transcript.read(old.source).format == "openclaw"
    json.dumps([str(s.source) for s in listed])
