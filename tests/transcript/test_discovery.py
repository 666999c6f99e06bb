"""Finding the agent's current session in the legacy store (sessions.json, JSONL files)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from apollo.errors import InputError
from apollo.transcript import discovery
from apollo.workspace import Paths
from realclient.support import PiSession, legacy_state_dir


def _paths(state: Path, agent: str = "main") -> Paths:
    return Paths(state.parent / "ws", state, agent)


def _two_sessions(tmp_path: Path) -> Path:
    a, b = PiSession(session_id="aaaa1111-0000-4000-8000-000000000001"), PiSession(
        session_id="bbbb2222-0000-4000-8000-000000000002")
    a.user("a")
    b.user("b")
    return legacy_state_dir(tmp_path, {a.session_id: a.write(tmp_path / "a.jsonl"),
                                       b.session_id: b.write(tmp_path / "b.jsonl")})


def test_sessions_json_updated_at_decides(tmp_path: Path) -> None:
    state = _two_sessions(tmp_path)
    assert discovery.current_session(_paths(state)).name == "bbbb2222-0000-4000-8000-000000000002.jsonl"
    index_file = state / "agents/main/sessions/sessions.json"
    index = json.loads(index_file.read_text())
    index["agent:main:s0"]["updatedAt"] += 10**9
    index_file.write_text(json.dumps(index))
    assert discovery.current_session(_paths(state)).name.startswith("aaaa1111")
    assert discovery.current_session(_paths(state), "bbbb").name.startswith("bbbb2222")


def test_session_file_from_another_home_is_found_by_name(tmp_path: Path) -> None:
    state = _two_sessions(tmp_path)
    index_file = state / "agents/main/sessions/sessions.json"
    index = json.loads(index_file.read_text())
    for entry in index.values():
        entry["sessionFile"] = "/home/someone-else/.openclaw/agents/main/sessions/" + Path(entry["sessionFile"]).name
    index_file.write_text(json.dumps(index))
    assert discovery.current_session(_paths(state)).is_file()


def test_without_index_newest_mtime_wins_and_archives_never(tmp_path: Path) -> None:
    folder = tmp_path / "state/agents/main/sessions"
    folder.mkdir(parents=True)
    for name, age in (("old.jsonl", 300), ("new.jsonl", 100), ("newer.jsonl.reset.2026-04-07T06-29-00.000Z", 1)):
        PiSession().write(folder / name)
        os.utime(folder / name, (1_700_000_000 - age, 1_700_000_000 - age))
    paths = _paths(tmp_path / "state")
    assert discovery.current_session(paths).name == "new.jsonl"
    listed = discovery.list_sessions(paths)
    assert [s.archived for s in listed] == [False, False, True]


def test_nothing_found_says_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        discovery.current_session(_paths(tmp_path / "empty", "helper"))
    message = caught.value.line()
    assert "no session found for agent 'helper'" in message
    assert "sessions.json" in message and "openclaw-agent.sqlite" in message
    state = _two_sessions(tmp_path)
    with pytest.raises(InputError, match="no session 'zzz'"):
        discovery.current_session(_paths(state), "zzz")


def test_broken_sessions_json_is_a_clear_error(tmp_path: Path) -> None:
    state = _two_sessions(tmp_path)
    (state / "agents/main/sessions/sessions.json").write_text("{not json")
    with pytest.raises(InputError, match="sessions.json is not valid JSON"):
        discovery.current_session(_paths(state))
