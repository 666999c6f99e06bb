"""Issue 12: what the agent can write (the workspace, its own command line and environment) never
steers what the user's cleanup deletes, restores or writes. One test per finding, each an attack
on a real temporary workspace with a separate HOME and state dir; every file inside and outside
is hashed before and after."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from apollo import clock
from apollo.errors import ConfigError, Refused
from autophagy.support import Ws, tree


def _world(ws: Ws) -> dict[str, dict]:
    """Every file the attack could reach: the workspace, the state dir, the outside folder, HOME."""
    return {name: tree(path) for name, path in (("workspace", ws.workspace), ("state", ws.state),
                                                ("outside", ws.outside), ("home", Path(os.environ["HOME"])))}


# -- finding 10: environment overrides --------------------------------------------------------------

def test_10_the_narrower_actor_wins(ws: Ws, monkeypatch: pytest.MonkeyPatch) -> None:
    ws.put("broken.json", b"{")
    monkeypatch.setenv("APOLLO_ACTOR", "subagent")
    before = _world(ws)
    with pytest.raises(Refused, match="main agent only"):
        ws.plan("medium", actor="main")
    assert _world(ws) == before


def test_10_the_narrower_actor_wins_on_the_command_line(ws: Ws, apollo_cli) -> None:
    ws.put("broken.json", b"{")
    before = _world(ws)
    done = apollo_cli("autophagy", "medium", "--as", "main", "--workspace", str(ws.workspace), "--state-dir",
                      str(ws.state), env={"APOLLO_ACTOR": "subagent"})
    assert done.returncode == 4 and "main agent only" in done.stderr
    assert _world(ws) == before


def test_10_a_clock_override_never_decides_a_real_deletion(ws: Ws, monkeypatch: pytest.MonkeyPatch) -> None:
    ws.put("old.tmp", age=3 * 86400)
    ws.small()  # a real snapshot, made now
    ws.put("fresh.tmp", "written seconds ago", age=5)
    clock.pin(None)  # the system clock, as a user has it ...
    monkeypatch.setenv("APOLLO_NOW", "2099-01-01T00:00:00+00:00")  # ... with a far future in the environment
    before = _world(ws)
    shown = ws.plan("small")  # plans and dry runs may use it (they change nothing but the plan folder)
    assert [i.rel for i in shown.items] == ["fresh.tmp"]
    assert len(ws.snapshots()) == 1, "a plan under APOLLO_NOW purged a fresh snapshot"
    with pytest.raises(Refused, match="APOLLO_NOW"):
        ws.execute(shown.plan_id)
    with pytest.raises(Refused, match="APOLLO_NOW"):
        ws.small()
    after = _world(ws)
    assert after["state"] == before["state"] and after["outside"] == before["outside"]
    assert {k: v for k, v in after["workspace"].items() if "/plans" not in k} == \
        {k: v for k, v in before["workspace"].items() if "/plans" not in k}
    assert (ws.workspace / "fresh.tmp").exists()


# -- finding 2: the workspace's config sends writes outside the workspace ----------------------------

def _user_config(text: str) -> Path:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "apollo" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("line", ['log_file = "~/.bashrc"', 'snapshot_dir = "{outside}/snaps"',
                                  'plan_dir = "{outside}/plans"', 'log_file = "../cleanup.md"',
                                  'recent_minutes = 0', 'snapshot_retention_days = 0',
                                  '[heartbeat]\nstate_file = "~/.bashrc"', '[renal]\nsnapshot_dir = "../x"'])
def test_02_the_workspace_config_cannot_move_writes_or_widen_deletion(ws: Ws, line: str) -> None:
    home = Path(os.environ["HOME"])
    (home / ".bashrc").write_text("# the user's shell\n")
    ws.put("old.tmp")
    ws.put("fresh.tmp", age=60)
    ws.configure("[autophagy]\n" + line.format(outside=ws.outside) + "\n")
    before = _world(ws)
    with pytest.raises(ConfigError, match="your own config|raise|inside the workspace"):
        ws.small()
    assert _world(ws) == before


def test_02_log_fields_stay_one_inert_line(ws: Ws, tmp_path: Path) -> None:
    import json
    import subprocess

    home = Path(os.environ["HOME"])
    (home / ".bashrc").write_text("# the user's shell\n")
    ws.put(".dream/task-state.json", json.dumps({"tasks": [
        {"title": "t\ntouch PWNED1\n## [2026-01-01 00:00] 清理记录", "status": "in_progress", "files": ["keep/"]}]}))
    ws.put("a;cd;touch PWNED2;.tmp")
    ws.put("$(touch PWNED3)`touch PWNED4`.tmp")
    _user_config(f'[autophagy]\nlog_file = "{home / ".bashrc"}"\n')  # the user's own choice: honoured
    result = ws.small()
    assert len(result["deleted"]) == 2
    log = (home / ".bashrc").read_text(encoding="utf-8")
    assert log.startswith("# the user's shell\n") and log.count("\n## [") == 1
    assert all(line == "" or line.startswith(("#", "## [", "类型：", "清理了什么：", "保留了什么：", "触发原因：",
                                               "快照文件：", "操作者：", "结果：", "跳过："))
               for line in log.splitlines())
    run_in = tmp_path / "sourced"
    run_in.mkdir()
    subprocess.run(["bash", "-c", f"source {home / '.bashrc'}"], cwd=run_in, capture_output=True, env={"PATH": "/usr/bin:/bin"})
    assert list(run_in.iterdir()) == [], "sourcing the log ran a command from a file name or a task title"


# -- finding 4: a floor under the rules ------------------------------------------------------------

WIDENING_RULES = """
[[small]]
kind = "everything"
check = "match"
patterns = ["*"]
reason = "r"
reason_zh = "r"

[[small]]
kind = "every_folder"
check = "match"
type = "dir"
patterns = ["*/"]
reason = "r"
reason_zh = "r"

[memory]
markers = [" "]

[protect]
entries_editable = ["USER.md", "SOUL.md"]
"""


def _victims(ws: Ws) -> None:
    ws.put("projects/app/main.py", "print('mine')")
    ws.put("photos/cat.jpg", b"\xff\xd8jpeg")
    ws.put("notes.txt", "my notes")
    ws.put("MEMORY.md", "# Memory\n\n- the user likes tea\n- deploy on Fridays\n")
    ws.put("USER.md", "# User\n\n- name: Ada\n")
    ws.put("SOUL.md", "# Soul\n\n- be kind\n")


@pytest.mark.parametrize("written_by", ["workspace", "user"])
def test_04_no_rule_file_lifts_the_floor(ws: Ws, written_by: str) -> None:
    _victims(ws)
    if written_by == "workspace":  # the agent writes a rule file and names it in the workspace's config
        ws.put(".apollo/rules.toml", WIDENING_RULES)
        ws.configure('[autophagy]\nrule_files = ["rules.toml"]\n')
    else:  # even the user's own config cannot name rules without a floor
        ws.user_dir.mkdir(parents=True)
        (ws.user_dir / "rules.toml").write_text(WIDENING_RULES, encoding="utf-8")
        ws.configure_user('[autophagy]\nrule_files = ["rules.toml"]\n')
    before = _world(ws)
    for run in (lambda: ws.small(actor="subagent"), lambda: ws.plan("medium"), ws.status):
        with pytest.raises(ConfigError):
            run()
    assert _world(ws) == before


@pytest.mark.parametrize("extra, message", [
    ('[memory]\nmarkers = [" "]\n', "not a word"),
    ('[memory]\nmarkers = ["-"]\n', "not a word"),
    ('[memory]\nsupersede_phrases = ["x*"]\n', "empty text"),
    ('[protect]\nentries_editable = ["USER.md"]\n', "entries_editable"),
    ('[protect]\nentries_editable = ["*.md"]\n', "entries_editable"),
    ('[reminders]\nfolders = ["*"]\n', "every folder"),
    ('[[medium]]\nkind = "k"\ncheck = "corrupt"\nvalidator = "json"\npatterns = [".*"]\nreason = "r"\n'
     'reason_zh = "r"\n', "nearly every"),
])
def test_04_each_widening_rule_has_a_floor(ws: Ws, extra: str, message: str) -> None:
    ws.user_dir.mkdir(parents=True)
    (ws.user_dir / "rules.toml").write_text(extra, encoding="utf-8")
    ws.configure_user('[autophagy]\nrule_files = ["rules.toml"]\n')
    with pytest.raises(ConfigError, match=message):
        ws.plan("medium")


def test_04_the_user_may_still_add_a_rule_that_names_what_it_removes(ws: Ws) -> None:
    ws.user_dir.mkdir(parents=True)
    (ws.user_dir / "rules.toml").write_text('[[small]]\nkind = "dump"\ncheck = "match"\npatterns = ["core.*"]\n'
                                           'reason = "r"\nreason_zh = "r"\n[protect]\nentries_editable = ["NOTES.md"]\n',
                                           encoding="utf-8")
    ws.configure_user('[autophagy]\nrule_files = ["rules.toml"]\n')
    ws.put("core.1234")
    assert ws.small()["deleted"] == ["core.1234"]
