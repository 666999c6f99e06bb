"""Tier 1: what the small tier removes, what it keeps, and heartbeat-log entry pruning."""

from __future__ import annotations

import os

import pytest

from apollo.autophagy.entries import old_entries
from apollo.autophagy.rules import load
from apollo.clock import parse_iso
from autophagy.support import DAY, HOUR, NOW, tree


def _kinds(plan) -> dict[str, str]:
    return {item.rel: item.kind for item in plan.items}


def test_every_small_pattern_is_found_and_removed(ws) -> None:
    for rel in ("a.tmp", "deep/er/b.pyc", "src/__pycache__/m.cpython-311.pyc", "proj/build/lib/x.py",
                "proj/dist/x.whl", "proj/x.egg-info/PKG-INFO", "proj/.pytest_cache/v/cache/nodeids", "n.bak",
                "n.txt~", "p.py.orig", ".n.swp", "logs/old.log"):
        ws.put(rel, f"junk {rel}")
    keep = {rel: ws.put(rel, "keep") for rel in ("notes.md", "src/m.py", "tmp.txt", "builder/x.py", "logbook.md")}
    plan = ws.plan("small")
    assert set(_kinds(plan)) == {"a.tmp", "deep/er/b.pyc", "src/__pycache__", "proj/build", "proj/dist",
                                 "proj/x.egg-info", "proj/.pytest_cache", "n.bak", "n.txt~", "p.py.orig", ".n.swp",
                                 "logs/old.log"}
    result = ws.execute(plan.plan_id)
    assert not result["skipped"]
    left = tree(ws.workspace)
    for rel in ("a.tmp", "deep/er/b.pyc", "src/__pycache__", "proj/build", "proj/dist", "proj/x.egg-info", "n.bak",
                "logs/old.log"):
        assert rel not in left
    for rel, path in keep.items():
        assert path.read_text() == "keep", rel


def test_files_modified_in_the_last_hour_are_never_touched(ws) -> None:
    fresh = ws.put("fresh.tmp", "still being written", age=30 * 60)
    ws.put("old.tmp", "old", age=2 * HOUR)
    future = ws.put("future.bak", "clock skew", age=-DAY)
    inside = ws.put("pkg/__pycache__/fresh.pyc", "fresh", age=10 * 60)
    ws.put("pkg/__pycache__/old.pyc", "old")
    result = ws.small()
    assert fresh.exists() and future.exists() and inside.exists()
    assert not (ws.workspace / "old.tmp").exists()
    assert not (ws.workspace / "pkg/__pycache__/old.pyc").exists()
    assert "pkg/__pycache__/" in result["deleted"], "the folder item ran, its fresh member stayed"


def test_logs_only_when_not_written_for_24_hours(ws) -> None:
    recent = ws.put("app.log", "recent", age=23 * HOUR)
    stale = ws.put("old.log", "stale", age=25 * HOUR)
    ws.small()
    assert recent.exists() and not stale.exists()


def test_symlinks_are_not_small_tier_material(ws) -> None:
    target = ws.put("real.txt", "real")
    link = ws.link("alias.tmp", "real.txt")
    ws.small()
    assert os.path.islink(link) and target.read_text() == "real"


HEARTBEAT_LOG = (
    "heartbeat log, started 2026-09-01\n"
    "2026-09-02T08:00:00+08:00 INFO heartbeat ok\n"
    "  continuation of the old entry\n"
    "2026-10-30T11:59:59+08:00 WARN old by one second\n"
    "2026-10-30T12:00:01+08:00 INFO newer by one second\n"
    "2026-02-30T10:00:00 not a real date: kept, belongs to the entry above\n"
    "2026-11-28 09:00 INFO recent\n"
)


def test_heartbeat_entries_older_than_30_days_are_cut_byte_exactly(ws) -> None:
    log = ws.put("logs/heartbeat.log", HEARTBEAT_LOG, age=60)  # written a minute ago: entries are still pruned
    result = ws.small()
    assert result["deleted"] == ["logs/heartbeat.log (2 entries)"]
    assert log.read_text() == (
        "heartbeat log, started 2026-09-01\n"
        "2026-10-30T12:00:01+08:00 INFO newer by one second\n"
        "2026-02-30T10:00:00 not a real date: kept, belongs to the entry above\n"
        "2026-11-28 09:00 INFO recent\n")


def test_heartbeat_logs_are_never_removed_whole(ws) -> None:
    log = ws.put("heartbeat.log", "2026-11-28T10:00:00Z ok\n", age=40 * DAY)
    ws.small()
    assert log.read_text() == "2026-11-28T10:00:00Z ok\n"


def test_markdown_heartbeat_sections_and_jsonl_entries(ws) -> None:
    md = ws.put("memory/heartbeat-notes.md",
                "# 心跳记录\n\n## 2026-09-30 09:00\n- ok\n\n## 杂项\nkept\n\n## [2026-11-20 09:00]\n- 提醒报告\n")
    jsonl = ws.put("heartbeat-events.jsonl",
                   '{"ts": "2026-08-01T00:00:00Z", "ok": true}\n{"ts": 1795000000000, "ok": true}\n'
                   '{"note": "no time"}\n{"ts": "yesterday"}\n')
    ws.small()
    assert md.read_text() == "# 心跳记录\n\n## 杂项\nkept\n\n## [2026-11-20 09:00]\n- 提醒报告\n"
    assert jsonl.read_text() == '{"ts": 1795000000000, "ok": true}\n{"note": "no time"}\n{"ts": "yesterday"}\n'


@pytest.mark.parametrize("line, removed", [
    ("2026-10-01T10:00:00+08:00 x", True),
    ("[2026-10-01 10:00] x", True),
    ("- 2026-10-01 10:00 x", True),
    ("2026-10-01 x (a date alone)", True),
    ("2026-13-01T10:00:00 x (no month 13)", False),
    ("2026-10-01T25:00:00 x (no hour 25)", False),
    ("20261001 x", False),
    ("x 2026-10-01T10:00:00", False),
    ("2026-10-01T10:00:00+25:00 x (no such zone)", False),
])
def test_strict_timestamps(line: str, removed: bool) -> None:
    rules = load().data.heartbeat
    found = old_entries(f"{line}\n".encode(), ".log", rules, parse_iso(NOW).replace(month=10, day=29))
    assert (found.removed == 1) is removed


def test_status_is_read_only(ws) -> None:
    ws.put("a.tmp")
    ws.put("b.json", b"{")
    ws.put("MEMORY.md", "- x [过时]\n")
    before = tree(ws.workspace)
    status = ws.status()
    assert status["tiers"]["small"]["count"] == 1 and status["tiers"]["medium"]["count"] == 2
    assert tree(ws.workspace) == before and tree(ws.state) == {}
