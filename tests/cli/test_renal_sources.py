"""`apollo renal classify / filter / check` find the transcript the same way: INPUT, else the
agent's current session (sessions.json or the OpenClaw SQLite store), --session to pick another,
--state-dir/--agent to say whose — on the example OpenClaw install and on a real-layout SQLite store."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import zstandard

from apollo import config as config_mod
from apollo.renal.api import classify_path
from apollo.transcript import SessionRef
from constants import DEMO_NOW

SESSIONS = "openclaw-state/agents/main/sessions"
CURRENT = "93781619-6e2f-4b2c-8c02-4f91cb6c9962"
OTHER = "ff090b09-8eb0-4818-b64e-3c9f7c58b33a"


def _where(example: Path) -> list[str]:
    return ["-w", str(example / "workspace"), "--state-dir", str(example / "openclaw-state")]


def _ids(run) -> list[str]:  # noqa: ANN001 - CompletedProcess
    assert run.returncode == 0, run.stderr
    return [m["id"] for m in json.loads(run.stdout)["messages"]]


def test_classify_without_input_reads_the_current_session(apollo_cli, example: Path) -> None:
    current = _ids(apollo_cli("renal", "classify", "--json", *_where(example)))
    assert current == _ids(apollo_cli("renal", "classify", str(example / SESSIONS / f"{CURRENT}.jsonl"), "--json"))
    other = _ids(apollo_cli("renal", "classify", "--json", "--session", OTHER[:6], *_where(example)))
    assert other == _ids(apollo_cli("renal", "classify", str(example / SESSIONS / f"{OTHER}.jsonl"), "--json"))
    assert current != other


def test_filter_without_input_filters_the_current_session(apollo_cli, example: Path) -> None:
    run = apollo_cli("renal", "filter", "--dry-run", "--json", *_where(example))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["source"] == str(example / SESSIONS / f"{CURRENT}.jsonl")
    run = apollo_cli("renal", "filter", "-s", OTHER[:4], *_where(example), "-q")
    assert run.returncode == 0, run.stderr
    written = Path(run.stdout.strip())
    # never beside the session: the agent (and the next check) would take the copy for a session
    assert written == example / "workspace" / ".renal" / "filtered" / f"{OTHER}.filtered.jsonl" and written.is_file()
    assert (example / "workspace" / ".renal" / "snapshots").is_dir()  # the agent's workspace holds the snapshot


def test_check_takes_session_too(apollo_cli, example: Path) -> None:
    run = apollo_cli("renal", "check", "--json", "--no-write", "-s", OTHER[:4], *_where(example),
                     env={"APOLLO_NOW": DEMO_NOW})
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["source"] == str(example / SESSIONS / f"{OTHER}.jsonl")


@pytest.mark.parametrize("command", ["classify", "filter", "check"])
def test_no_session_or_a_wrong_one_is_one_clear_line(apollo_cli, tmp_path: Path, example: Path,
                                                     command: str) -> None:
    empty = tmp_path / "empty-state"
    (empty / "agents" / "main" / "sessions").mkdir(parents=True)
    runs = [apollo_cli("renal", command, "-s", "nope", *_where(example))]
    if command != "check":  # check falls back to today's memory file, or reports nothing to measure
        runs.append(apollo_cli("renal", command, "-w", str(example / "workspace"), "--state-dir", str(empty)))
    for run in runs:
        assert run.returncode == 1 and "Traceback" not in run.stderr
        assert run.stderr.startswith("apollo: ") and len(run.stderr.strip().splitlines()) == 1
    fixture = Path(__file__).parents[1] / "renal" / "fixtures" / "zh_code_fix.jsonl"
    run = apollo_cli("renal", command, str(fixture), "--session", "abc")
    assert run.returncode == 2 and "--session picks a session of an OpenClaw .sqlite store" in run.stderr


def _sqlite_store(example: Path, session: str) -> Path:
    """The example session moved into an OpenClaw 2026.9+ store (its table layout; large events zstd-packed),
    more recently updated than the JSONL sessions."""
    db = example / "openclaw-state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    db.parent.mkdir(parents=True, exist_ok=True)
    lines = (example / SESSIONS / f"{session}.jsonl").read_bytes().splitlines()
    with sqlite3.connect(db) as connection:
        connection.execute("create table transcript_events (session_id text, seq integer, event_json text, "
                           "created_at integer, event_zstd blob, event_utf8_bytes integer, navigation_json text)")
        connection.execute("create table session_windows (session_id text, session_key text, updated_at integer)")
        for seq, line in enumerate(lines):
            packed = len(line) > 400
            connection.execute("insert into transcript_events values (?, ?, ?, ?, ?, ?, ?)",
                               ("store-1", seq, None if packed else line.decode(), 1000 + seq,
                                zstandard.ZstdCompressor().compress(line) if packed else None, len(line),
                                "{}" if packed else None))
        connection.execute("insert into session_windows values ('store-1', 'agent:main:main', 9999999999999)")
    return db


def test_a_session_of_the_sqlite_store(apollo_cli, example: Path) -> None:
    db = _sqlite_store(example, OTHER)
    from_store = classify_path(SessionRef(db, "store-1"), "auto", config_mod.load(example / "workspace"))
    from_file = classify_path(example / SESSIONS / f"{OTHER}.jsonl", "auto", config_mod.load(example / "workspace"))
    assert from_store.summary["format"] == "openclaw-sqlite"
    assert [v.to_dict() for v in from_store.verdicts] == [v.to_dict() for v in from_file.verdicts]
    assert {k: v for k, v in from_store.summary.items() if k != "format"} == \
           {k: v for k, v in from_file.summary.items() if k != "format"}
    # the store's session is now the agent's current one, for every command
    assert _ids(apollo_cli("renal", "classify", "--json", *_where(example))) == [v.id for v in from_file.verdicts]
    run = apollo_cli("renal", "filter", "--dry-run", "--json", *_where(example))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["source"] == f"{db}#store-1"
    run = apollo_cli("renal", "classify", str(db), "-s", "store", "--json")
    assert [m["id"] for m in json.loads(run.stdout)["messages"]] == [v.id for v in from_file.verdicts]
