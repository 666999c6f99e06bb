"""The check's memo on the example workspace: an unchanged session is answered from
filter-state.json with the very numbers a full check gives; anything the check reads that
changes (the session, the configuration, a rule file, another current session) means a full check."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apollo import config as config_mod
from apollo.integration import heartbeat
from apollo.renal.check import check
from apollo.renal.check_cache import heartbeat_line, reusable_state, write_state
from apollo.workspace import Paths
from constants import DEMO_NOW

SESSION = "93781619-6e2f-4b2c-8c02-4f91cb6c9962.jsonl"


@pytest.fixture(autouse=True)
def demo_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APOLLO_NOW", DEMO_NOW)


def _paths(example: Path) -> Paths:
    return Paths.resolve(example / "workspace", example / "openclaw-state")


def _without_time(state: dict) -> dict:
    return {key: value for key, value in state.items() if key != "checked_at"}


def _checked(paths: Paths) -> dict:
    """A full check written as the heartbeat writes it."""
    config = config_mod.load(paths.workspace)
    state = check(paths, config).to_state()
    write_state(paths, state, config.get("renal.state_file"))
    return state


def _append_message(session: Path, text: str) -> None:
    """One more user message on the active path, as OpenClaw appends it."""
    last = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])
    entry = {"type": "message", "id": os.urandom(4).hex(), "parentId": last["id"],
             "timestamp": "2026-11-29T04:00:00.000Z", "message": {"role": "user", "content": text}}
    with session.open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry, ensure_ascii=False) + "\n")


def test_an_unchanged_session_is_answered_from_the_state_with_a_full_checks_numbers(example: Path,
                                                                                    monkeypatch) -> None:
    paths = _paths(example)
    full = _checked(paths)
    assert full["fingerprint"]["source"].endswith(SESSION)
    monkeypatch.setenv("APOLLO_NOW", "2026-11-29T12:30:00+08:00")
    reused = reusable_state(paths, config_mod.load(paths.workspace))[0]
    assert reused is not None and reused["checked_at"] == "2026-11-29T12:30:00+08:00"
    assert _without_time(reused) == _without_time(full)
    assert _without_time(reused) == _without_time(_checked(paths))  # and a new full check agrees


def test_the_memo_does_not_read_the_session(example: Path) -> None:
    """Same size, same time, same inode, other bytes (nothing an appending agent does): only a memo
    that never opens the file keeps the old numbers."""
    paths = _paths(example)
    full = _checked(paths)
    session = paths.sessions_dir / SESSION
    before = session.stat()
    with session.open("r+b") as handle:  # same inode, same size
        handle.write(b" " * 64)
    os.utime(session, ns=(before.st_atime_ns, before.st_mtime_ns))
    reused = reusable_state(paths, config_mod.load(paths.workspace))[0]
    assert reused is not None and _without_time(reused) == _without_time(full)


def test_a_grown_session_is_checked_again(example: Path) -> None:
    paths = _paths(example)
    full = _checked(paths)
    _append_message(paths.sessions_dir / SESSION, "我们决定下周一发布 2.0 版本，数据库迁移放到周三。")
    assert reusable_state(paths, config_mod.load(paths.workspace))[0] is None
    again = _checked(paths)
    assert again["tokens"] > full["tokens"] and again["elements"] == full["elements"] + 1


def test_another_configuration_or_rule_file_means_a_full_check(example: Path) -> None:
    paths = _paths(example)
    _checked(paths)
    settings_file = paths.workspace / ".apollo" / "config.toml"
    settings_file.parent.mkdir(exist_ok=True)
    settings_file.write_text("[renal]\ntoken_threshold = 1000\n", encoding="utf-8")
    assert reusable_state(paths, config_mod.load(paths.workspace))[0] is None
    rules = paths.workspace / ".apollo" / "my-rules.toml"
    rules.write_text('[signal.acknowledgement]\nzh = ["收到啦"]\n', encoding="utf-8")
    settings_file.write_text('[renal]\ntoken_threshold = 1000\nrule_files = ["my-rules.toml"]\n', encoding="utf-8")
    _checked(paths)
    assert reusable_state(paths, config_mod.load(paths.workspace))[0] is not None
    rules.write_text('[signal.acknowledgement]\nzh = ["收到啦", "好嘞"]\n', encoding="utf-8")
    assert reusable_state(paths, config_mod.load(paths.workspace))[0] is None


def test_another_current_session_means_a_full_check(example: Path) -> None:
    paths = _paths(example)
    _checked(paths)
    index = json.loads(paths.sessions_index.read_text(encoding="utf-8"))
    other = next(p for p in paths.sessions_dir.glob("*.jsonl") if p.name != SESSION)
    for entry in index.values():
        if entry.get("sessionId") == other.stem:
            entry["updatedAt"] = 10 ** 13  # far in the future: now the most recent one
    paths.sessions_index.write_text(json.dumps(index), encoding="utf-8")
    assert reusable_state(paths, config_mod.load(paths.workspace))[0] is None
    assert _checked(paths)["source"].endswith(other.name)


def test_no_state_or_a_damaged_one_means_a_full_check(example: Path) -> None:
    paths = _paths(example)
    config = config_mod.load(paths.workspace)
    assert reusable_state(paths, config)[0] is None
    _checked(paths)
    state_file = paths.workspace / ".renal" / "filter-state.json"
    state_file.write_text("{not json", encoding="utf-8")
    assert reusable_state(paths, config)[0] is None


_EVENTS = st.lists(st.sampled_from(["nothing", "append", "threshold"]), min_size=1, max_size=4)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=_EVENTS)
def test_the_heartbeat_always_says_what_a_full_check_says(example_tree: Path, events: list[str]) -> None:
    """Whatever happens between two heartbeats, the heartbeat's state is a full check's."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "example"
        shutil.copytree(example_tree, root, symlinks=True)
        paths = _paths(root)
        settings_file = paths.workspace / ".apollo" / "config.toml"
        settings_file.parent.mkdir(exist_ok=True)
        for number, event in enumerate(events):
            if event == "append":
                _append_message(paths.sessions_dir / SESSION, f"第 {number} 件事：周五之前把报告发给张总。")
            elif event == "threshold":
                settings_file.write_text(f"[renal]\ntoken_threshold = {1000 * (number + 1)}\n", encoding="utf-8")
            config = config_mod.load(paths.workspace)
            beat = heartbeat.run(paths, config, "zh")
            fresh = check(paths, config)
            assert _without_time(beat.state) == _without_time(fresh.to_state())
            assert beat.line == heartbeat_line(fresh, "zh")
