"""End to end on the bundled example (examples/make_examples.py): 陈宇's workspace and his
agent's legacy session store, at the demo clock. Every tier, then every snapshot restored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apollo import clock
from apollo import config as config_mod
from apollo.autophagy import api
from apollo.workspace import Paths
from autophagy.support import files_only, tree

DEMO_NOW = "2026-11-29T12:00:00+08:00"


@pytest.fixture
def demo(example: Path, monkeypatch: pytest.MonkeyPatch):
    clock.pin(DEMO_NOW)
    paths = Paths.resolve(example / "workspace", example / "openclaw-state")
    return paths, config_mod.load(paths.workspace)


def test_status_sees_every_kind_of_clutter(demo) -> None:
    paths, config = demo
    status = api.status(paths, config)
    small, medium, large = (status["tiers"][t] for t in ("small", "medium", "large"))
    assert small["kinds"] == {"backup": 5, "heartbeat_entries": 2, "stale_log": 1, "cache_dir": 3, "build_output": 3,
                              "bytecode": 1, "temp": 2}
    assert medium["kinds"] == {"memory_entry": 6, "corrupt_archive": 1, "corrupt_json": 2, "corrupt_jsonl": 1,
                               "broken_symlink": 1, "expired_reminder": 1}
    assert medium["suggested"] == 3
    assert large["kinds"] == {"session_transcript": 2, "session_index": 1} and not large["gateway"]["running"]
    kept = {p["path"] for p in status["protected"]}
    assert {"skills", "USER.md", "AGENTS.md", ".dream/task-state.json", "projects/report/data/report.db"} <= kept
    assert status["tasks"] == ["2026 Q4 基础设施成本报告"]


def test_every_tier_then_every_snapshot_back(demo, example: Path) -> None:
    paths, config = demo
    workspace_before = files_only(tree(example / "workspace"))
    state_before = files_only(tree(example / "openclaw-state"))
    small = api.run_now(paths, config, "small")[1]
    medium_plan = api.plan(paths, config, "medium")
    medium = api.execute(paths, config, medium_plan.plan_id)
    large_plan = api.plan(paths, config, "large")
    large = api.execute(paths, config, large_plan.plan_id, phrase="确认大自噬", at_terminal=True)
    for result in (small, medium, large):
        assert result["skipped"] == [], result
    memory = (example / "workspace" / "MEMORY.md").read_text()
    assert "[过时]" not in memory and "（过时）" not in memory and "<!-- outdated -->" not in memory
    assert "2026-11-10：部署目标是 staging-1" in memory, "suggestions stay unless selected"
    left = files_only(tree(example / "workspace"))
    for rel in ("skills/weather/SKILL.md", "USER.md", "projects/report/draft.md", "projects/report/data/report.db",
                ".dream/task-state.json", "reminders/2026-12-01-report-due.json", "data/settings.json"):
        assert left[rel] == workspace_before[rel], rel
    for rel in ("MEMORY.md.bak", "scratch.tmp", "data/broken-config.json", "reminders/2026-10-01-renew-domain.json"):
        assert rel not in left
    sessions = example / "openclaw-state" / "agents" / "main" / "sessions"
    assert json.loads((sessions / "sessions.json").read_text()) == {}
    log = (example / "workspace" / ".autophagy" / "cleanup-log.md").read_text()
    assert log.count("清理记录") == 3 and "类型：💥大" in log
    for result in (large, medium, small):
        done = api.restore(paths, config, Path(result["snapshot"]).name)
        assert done["skipped"] == [], done
    restored = {k: v for k, v in files_only(tree(example / "workspace")).items() if not k.startswith(".autophagy")}
    assert restored == workspace_before
    assert files_only(tree(example / "openclaw-state")) == state_before
