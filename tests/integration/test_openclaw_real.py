"""The skills `apollo install` writes, loaded by the real OpenClaw 2026.9.6 skill loader (offline).

`openclaw skills list/info --json` run OpenClaw's own discovery (workspace `skills/`), frontmatter
parser (YAML, then the single-line fallback), `metadata.openclaw` resolution and the
`requires.bins` gate — the same code that builds the agent's skill prompt.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from apollo.integration import install as inst

pytestmark = pytest.mark.realclient

APOLLO_BIN = str(Path(sys.executable).parent)


def _skills(openclaw_cli, state: Path, *args: str) -> dict:
    done = openclaw_cli.run(state, "skills", *args, "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def _ours(listing: dict) -> dict[str, dict]:
    return {s["name"]: s for s in listing["skills"] if s["name"].startswith("apollo-")}


def _check_loaded(openclaw_cli, state: Path, workspace: Path) -> None:
    listing = _skills(openclaw_cli, state, "list")
    assert Path(listing["workspaceDir"]).resolve() == workspace.resolve()
    ours = _ours(listing)
    assert sorted(ours) == ["apollo-autophagy", "apollo-renal"]
    assert ours["apollo-renal"]["emoji"] == "🫘" and ours["apollo-autophagy"]["emoji"] == "🔥"
    for skill in ours.values():
        assert skill["source"] == "openclaw-workspace"
        assert skill["eligible"] and skill["modelVisible"] and skill["missing"]["bins"] == []
        assert "确认" in skill["description"] or "上下文" in skill["description"]
    info = _skills(openclaw_cli, state, "info", "apollo-autophagy")
    assert info["requirements"]["bins"] == ["apollo"]
    assert Path(info["baseDir"]).resolve() == (workspace / "skills" / "apollo-autophagy").resolve()
    # {baseDir}/../.. in the skill body is the workspace, where the wrappers are
    assert (Path(info["baseDir"]) / ".." / ".." / "scripts" / "autophagy" / "autophagy.sh").resolve().is_file()


def test_empty_workspace_gets_loadable_skills(openclaw_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{APOLLO_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    state, workspace = tmp_path / "state", tmp_path / "workspace"
    done = openclaw_cli.run(state, "setup", "--baseline", "--workspace", str(workspace))
    assert done.returncode == 0, done.stderr[-2000:]
    before = _ours(_skills(openclaw_cli, state, "list"))
    assert before == {}
    report = inst.install(inst.openclaw_target(workspace))
    assert not report.problems
    _check_loaded(openclaw_cli, state, workspace)


def test_example_workspace_keeps_its_skills_and_gains_ours(openclaw_cli, example: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{APOLLO_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    workspace, state = example / "workspace", example / "openclaw-state"
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"workspace": str(workspace)}}}),
                                         encoding="utf-8")
    theirs = {s["name"] for s in _skills(openclaw_cli, state, "list")["skills"] if s["source"] == "openclaw-workspace"}
    assert theirs  # the example ships skills of its own
    inst.install(inst.openclaw_target(workspace))
    _check_loaded(openclaw_cli, state, workspace)
    after = {s["name"] for s in _skills(openclaw_cli, state, "list")["skills"] if s["source"] == "openclaw-workspace"}
    assert after == theirs | {"apollo-renal", "apollo-autophagy"}


def test_without_apollo_on_path_openclaw_reports_the_missing_binary(openclaw_cli, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    state, workspace = tmp_path / "state", tmp_path / "workspace"
    workspace.mkdir()
    (tmp_path / "state").mkdir()
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"workspace": str(workspace)}}}),
                                         encoding="utf-8")
    inst.install(inst.openclaw_target(workspace))
    ours = _ours(_skills(openclaw_cli, state, "list"))
    assert {name: s["missing"]["bins"] for name, s in ours.items()} == {"apollo-renal": ["apollo"],
                                                                        "apollo-autophagy": ["apollo"]}
    assert not any(s["eligible"] for s in ours.values())


# ---- a context wiped by `autophagy large` is one OpenClaw accepts ---------------------------------

def _large(example: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    from apollo import clock
    from apollo import config as config_mod
    from apollo.autophagy import api
    from apollo.workspace import Paths
    from constants import DEMO_NOW

    clock.pin(DEMO_NOW)
    paths = Paths.resolve(example / "workspace", example / "openclaw-state")
    config = config_mod.load(paths.workspace)
    made = api.plan(paths, config, "large")
    assert made.items
    return api.execute(paths, config, made.plan_id, phrase="确认大自噬", at_terminal=True)


def _validate(openclaw_cli, state: Path) -> dict:
    done = openclaw_cli.run(state, "doctor", "--session-sqlite", "validate", "--session-sqlite-all-agents",
                            "--non-interactive", "--json")
    totals = json.loads(done.stdout)["totals"]
    assert done.returncode == (1 if totals["issues"] else 0), done.stderr[-2000:]  # exit 1 = issues found
    return totals


def _sessions(openclaw_cli, state: Path) -> list:
    done = openclaw_cli.run(state, "sessions", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)["sessions"]


def test_openclaw_accepts_the_state_left_by_large_autophagy_sqlite_store(openclaw_cli, example: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    state = example / "openclaw-state"
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"workspace": str(example / "workspace")}}}),
                                         encoding="utf-8")
    openclaw_cli.import_legacy(state)  # OpenClaw 2026.9 keeps sessions in SQLite: move the example there
    assert len(_sessions(openclaw_cli, state)) == 2
    result = _large(example, monkeypatch)
    assert result["deleted"] and not result["skipped"]
    assert _sessions(openclaw_cli, state) == []
    totals = _validate(openclaw_cli, state)
    assert totals["issues"] == 0


def test_openclaw_accepts_the_state_left_by_large_autophagy_legacy_store(openclaw_cli, example: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    state = example / "openclaw-state"
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"workspace": str(example / "workspace")}}}),
                                         encoding="utf-8")
    assert _validate(openclaw_cli, state)["legacyEntries"] == 2  # OpenClaw sees the two sessions first
    result = _large(example, monkeypatch)
    assert result["deleted"] and not result["skipped"]
    totals = _validate(openclaw_cli, state)
    assert totals["legacyEntries"] == 0 and totals["issues"] == 0
    imported = openclaw_cli.import_legacy(state)  # and its own migration runs cleanly on what is left
    assert imported["totals"]["issues"] == 0
