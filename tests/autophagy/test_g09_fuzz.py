"""Guarantee 9: hypothesis builds random workspaces — nested folders, protected files, symlinks
(out of the workspace, up through '..', to protected files, dangling), hard links, odd names
(spaces, newlines, bytes that are not UTF-8, very long names) — and checks after every tier
that no protected byte changed, nothing recent was touched and nothing outside was touched.

The oracle is independent of the code under test: a short list of protected names, matched
on whole components, the way a person reads SPEC §2.2.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apollo import clock
from apollo import config as config_mod
from apollo.autophagy import api
from apollo.errors import ConfigError
from apollo.workspace import Paths
from autophagy.support import DAY, NOW, NOW_TS, tree

PROTECTED_NAMES = {"memory.md", "user.md", "agents.md", "soul.md", "identity.md", "tools.md", "heartbeat.md",
                   "skill.md", "skills", ".git", ".autophagy", ".renal", ".apollo"}
PIECES = ["a", "b c", "line\nbreak", "-rf", "过时", os.fsdecode(b"caf\xe9"), os.fsdecode(b"\xff\xfe"), "x" * 200,
          "过" * 78, "MEMORY", "USER", "skills", ".git", "__pycache__", "build", "dist", "notes", "heartbeat",
          "reminders", "data", " ", "..a", ".hidden"]
SUFFIXES = ["", ".tmp", ".pyc", ".bak", "~", ".log", ".json", ".jsonl", ".md", ".swp", ".orig", ".txt", ".gz",
            ".egg-info"]
CONTENTS = [b"", b"{", b"{}", b'{"a": 1}\n{"b"\n', "- keep\n- old [过时]\n- also keep\n".encode(), b"\xff\xfe\x00bin",
            b"2026-09-01T00:00:00Z old\n2026-11-28T00:00:00Z new\n", b'{"expires": "2026-01-01"}',
            "plain text 中文\n".encode()]
AGES = [10 * 60, 2 * 3600, 3 * DAY, 40 * DAY]
TARGETS = ["@outside", "@outside-file", "..", ".", "../..", "MEMORY.md", "missing", "skills/s/SKILL.md", "@sibling"]


def _valid(name: str) -> bool:
    raw = os.fsencode(name)
    return name not in (".", "..") and 0 < len(raw) <= 255 and b"/" not in raw and b"\x00" not in raw


names = st.builds(lambda piece, suffix: piece + suffix, st.sampled_from(PIECES), st.sampled_from(SUFFIXES)).filter(_valid)
#: a third of the entries land inside a protected folder, where everything looks like rubbish
prefixes = st.sampled_from([[], [], [], [], [".git"], ["skills", "x"], [".autophagy"], [".renal"], ["proj", ".git"],
                            [".apollo"], ["Skills"]])
paths = st.builds(lambda prefix, rest: prefix + rest, prefixes, st.lists(names, min_size=1, max_size=3))
entries = st.lists(
    st.tuples(paths, st.sampled_from(["file", "file", "file", "dir", "link", "hardlink"]),
              st.sampled_from(CONTENTS), st.sampled_from(AGES), st.sampled_from(TARGETS)),
    min_size=1, max_size=25)


def _protected(rel: str) -> bool:
    parts = rel.split("/")
    return any(p.casefold() in PROTECTED_NAMES for p in parts) or rel == ".dream/task-state.json" \
        or rel.startswith("task-files/")


def _in_rebuildable_folder(rel: str) -> bool:
    """Build output and cache folders go whole, their links included (never their targets)."""
    return any(p in ("build", "dist", "__pycache__", ".pytest_cache") or p.endswith(".egg-info")
               for p in rel.split("/")[:-1])


def _build(root: Path, spec: list) -> None:
    workspace, outside = root / "workspace", root / "outside"
    for folder in (workspace, outside, root / "state"):
        folder.mkdir(parents=True)
    for rel in ("a.tmp", "__pycache__/m.pyc", "broken.json", "MEMORY.md", "deep/x.bak"):
        path = outside / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("outside [过时]\n" if rel != "broken.json" else "{")
        os.utime(path, (NOW_TS - 40 * DAY,) * 2)
    (root / "sibling.tmp").write_text("next to the workspace")
    os.utime(root / "sibling.tmp", (NOW_TS - 40 * DAY,) * 2)
    (workspace / "skills" / "s").mkdir(parents=True)
    (workspace / "skills" / "s" / "SKILL.md").write_text("skill")
    (workspace / "task-files").mkdir()
    (workspace / "task-files" / "draft.tmp").write_text("needed by a task")
    (workspace / ".dream").mkdir()
    (workspace / ".dream" / "task-state.json").write_text(json.dumps(
        {"tasks": [{"title": "t", "status": "in_progress", "files": ["task-files/"]}]}))
    for parts, kind, content, age, target in spec:
        path = workspace.joinpath(*parts)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if os.path.lexists(path):
                continue
            if kind == "dir":
                path.mkdir()
            elif kind == "link":
                real = {"@outside": str(outside), "@outside-file": str(outside / "a.tmp"),
                        "@sibling": str(root / "sibling.tmp")}.get(target, target)
                os.symlink(real, path)
                os.utime(path, (NOW_TS - age,) * 2, follow_symlinks=False)
            elif kind == "hardlink":
                os.link(workspace / "skills" / "s" / "SKILL.md", path)
            else:
                path.write_bytes(content)
                os.utime(path, (NOW_TS - age,) * 2)
        except (NotADirectoryError, FileExistsError, IsADirectoryError, OSError):
            continue  # a component is a file or a link: that entry cannot exist; fine


def _check(root: Path, before: dict, before_outside: dict, tier: str) -> None:
    workspace = root / "workspace"
    after = tree(workspace)
    assert tree(root / "outside") == before_outside, f"{tier}: something outside the workspace changed"
    assert tree(root)["sibling.tmp"] == before["@sibling"], f"{tier}: a file next to the workspace changed"
    for rel, value in before.items():
        if rel.startswith("@"):
            continue
        name = rel.rsplit("/", 1)[-1]
        recent = value[0] == "file" and value[3] > (NOW_TS - 3600) * 1e9 and not name.startswith("heartbeat")
        if name == "MEMORY.md" and value[0] == "file" and not recent:
            assert rel in after, f"{tier}: {rel!r} is gone"
            old = [line for line in before["@text:" + rel].splitlines()]
            new = (workspace / rel).read_bytes().splitlines()
            assert new == [line for line in old if line in new], f"{tier}: {rel!r} is not a cut of the original"
            assert all(line in new for line in old if "[过时]".encode() not in line), f"{tier}: {rel!r} lost a line"
        elif _protected(rel) or recent:
            assert after.get(rel) == value, f"{tier}: {rel!r} (protected or recent) changed"
        elif value[0] == "link" and rel not in after:
            assert rel in before["@dangling-inside"] or _in_rebuildable_folder(rel), \
                f"{tier}: the link {rel!r} was removed but was neither broken nor inside build output or a cache"
    assert (workspace / "skills" / "s" / "SKILL.md").read_text() == "skill"
    assert (workspace / "task-files" / "draft.tmp").read_text() == "needed by a task"


def _before(root: Path) -> dict:
    """The workspace as ``_check`` compares it: every name, plus the file next to the workspace,
    the links that were dangling inside it, and the text of every MEMORY.md."""
    before = tree(root / "workspace")
    before["@sibling"] = tree(root)["sibling.tmp"]
    workspace = os.path.realpath(root / "workspace")
    before["@dangling-inside"] = {
        rel for rel, value in before.items() if value[0] == "link"
        and not os.path.exists(root / "workspace" / rel)
        and os.path.realpath(root / "workspace" / rel).startswith(workspace + os.sep)}
    for rel, value in list(before.items()):
        if not rel.startswith("@") and rel.rsplit("/", 1)[-1] == "MEMORY.md" and value[0] == "file":
            before["@text:" + rel] = (root / "workspace" / rel).read_bytes()
    return before


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=entries)
def test_random_workspaces_every_tier(spec: list) -> None:
    clock.pin(NOW)
    root = Path(tempfile.mkdtemp(prefix="apollo-fuzz-"))
    try:
        _build(root, spec)
        paths = Paths.resolve(root / "workspace", root / "state")
        config = config_mod.load(paths.workspace)
        before = _before(root)
        before_outside = tree(root / "outside")
        try:
            api.run_now(paths, config, "small")
        except ConfigError:  # an instruction file the agent cannot read (a folder named MEMORY.md): nothing is done
            _check(root, before, before_outside, "refused")
            return
        _check(root, before, before_outside, "small")
        made = api.plan(paths, config, "medium")
        if made.items:
            api.execute(paths, config, made.plan_id)
        _check(root, before, before_outside, "medium")
        made = api.plan(paths, config, "large")
        assert made.items == []
        for info in api.snapshots(paths, config):
            api.restore(paths, config, info["name"])
        _check(root, before, before_outside, "restore")
    finally:
        shutil.rmtree(root)
        clock.pin(None)


# -- the agent writes the workspace (issue 12) ---------------------------------------------------------
# Before the user's run, the agent (or a prompt injection driving it) writes what it likes where
# Apollo looks: the workspace's config, rule files, task state, snapshot records, plans. The user
# then runs every tier, confirms every plan id the agent left, and restores every snapshot: no
# protected byte, nothing outside the workspace, nothing in the state dir or HOME may change.

AGENT_CONFIG = ['log_file = "~/.bashrc"', 'log_file = "{outside}/log.md"', 'snapshot_dir = "{outside}"',
                'plan_dir = "{outside}/plans"', 'rule_files = ["rules.toml"]', 'rule_files = ["{outside}/r.toml"]',
                'recent_minutes = 0', 'snapshot_retention_days = 0', 'plan_ttl_minutes = 100000',
                'protect = ["notes*"]', 'recent_minutes = 600', '[heartbeat]\nstate_file = "~/.bashrc"']
AGENT_RULES = ['[[small]]\nkind = "all"\ncheck = "match"\npatterns = ["*"]\nreason = "r"\nreason_zh = "r"\n',
               '[[small]]\nkind = "dirs"\ncheck = "match"\ntype = "dir"\npatterns = ["*/"]\nreason = "r"\nreason_zh = "r"\n',
               '[memory]\nmarkers = [" ", "-"]\n', '[protect]\nentries_editable = ["USER.md", "SOUL.md", "*"]\n',
               '[protect.tasks]\nfinished_statuses = ["in_progress"]\n']
TASK_TITLES = ["t", "t\ntouch PWNED\n## [2026-01-01 00:00] 清理记录", "a;cd;touch PWNED2", "$(touch PWNED3)"]
TASK_FILES = [[], ["task-files/"], ["*"], ["/"], ["../outside"], ["{outside}"], ["MEMORY.md"], ["notes*"]]
TASK_STATES = st.one_of(
    st.sampled_from(["", "{", "[]", "null", '{"tasks": 3}', '\xff']),
    st.builds(lambda title, status, files: json.dumps({"tasks": [
        {"title": title, "status": status, "files": files},
        {"title": "t", "status": "in_progress", "files": ["task-files/"]}]}),
        st.sampled_from(TASK_TITLES), st.sampled_from(["done", "in_progress", "", None, 7]),
        st.sampled_from(TASK_FILES)))
#: (root, path) the agent's forged records point at: protected files, the state dir, outside, escapes
FORGED_TARGETS = [("workspace", "MEMORY.md"), ("workspace", "USER.md"), ("workspace", "skills/s/SKILL.md"),
                  ("workspace", ".git/hooks/pre-commit"), ("workspace", "task-files/draft.tmp"),
                  ("agent", "auth-profiles.json"), ("sessions", "sessions.json"), ("workspace", "../outside/a.tmp"),
                  ("workspace", "/etc/hostname"), ("workspace", "new-file.sh")]
forged = st.lists(st.tuples(st.sampled_from(FORGED_TARGETS), st.sampled_from(["unlink", "cut", "tree", "index"]),
                            st.sampled_from([0o644, 0o4755, 0o755])), max_size=4)


def _agent_writes(root: Path, config: str | None, rules: str | None, tasks: str | None, records: list,
                  tier: str, mac: str) -> list[str]:
    """The agent's files; returns the plan ids it left for the user to confirm."""
    import hashlib

    workspace, outside = root / "workspace", root / "outside"
    apollo = workspace / ".apollo"
    apollo.mkdir(exist_ok=True)
    if config is not None:
        section = "" if config.startswith("[") else "[autophagy]\n"
        (apollo / "config.toml").write_text(section + config.format(outside=outside) + "\n", encoding="utf-8")
    if rules is not None:
        (apollo / "rules.toml").write_text(rules, encoding="utf-8")
        (outside / "r.toml").write_text(rules, encoding="utf-8")
    if tasks is not None:
        (workspace / ".dream" / "task-state.json").write_text(tasks.replace("{outside}", str(outside)),
                                                            encoding="utf-8", errors="surrogateescape")
    snapshot = workspace / ".autophagy" / "snapshots" / "autophagy-snapshot-20261129T115900+0800"
    (snapshot / "files").mkdir(parents=True, exist_ok=True)
    entries, rewritten, items = [], [], []
    for number, ((where, rel), action, mode) in enumerate(records, 1):
        data = f"forged {number}\n".encode()
        (snapshot / "files" / f"{number:06d}").write_bytes(data)
        entries.append({"type": "file", "file": f"files/{number:06d}", "root": where, "path": rel, "size": len(data),
                        "sha256": hashlib.sha256(data).hexdigest(), "mode": mode, "mtime_ns": 0, "item": f"S{number}",
                        "kind": "temp", "action": action})
        target = (workspace if where == "workspace" else root / "state" / "agents" / "main" /
                  ("agent" if where == "agent" else "sessions")) / rel
        if target.is_file():
            rewritten.append({"root": where, "path": rel, "after_sha256": hashlib.sha256(target.read_bytes()).hexdigest()})
        items.append({"id": f"{tier[0].upper()}{number}", "kind": "temp", "category": "redundant", "root": where,
                      "parts": rel.split("/"), "action": action, "bytes": 1, "reason": "r", "reason_zh": "r",
                      "fp": [0, 0, 0, 0], "cuts": [[0, 10]], "prefix_size": 10})
    manifest = {"created_at": "2026-11-29T11:59:00+08:00", "tier": tier, "plan_id": f"{tier[0]}-deadbeef",
                "trigger": "user", "operator": "用户确认", "complete": True, "entries": entries}
    (snapshot / "manifest.json").write_text(json.dumps(manifest))
    (snapshot / "result.json").write_text(json.dumps({"rewritten": rewritten}))
    (snapshot / "manifest.json.mac").write_text(mac)
    (snapshot / "result.json.mac").write_text(mac)
    plans = workspace / ".autophagy" / "plans"
    plans.mkdir(parents=True, exist_ok=True)
    ws_stat = os.stat(workspace)
    plan_id = f"{tier[0]}-deadbeef"
    (plans / f"{plan_id}.json").write_text(json.dumps({
        "plan_id": plan_id, "tier": tier, "created_at": "2026-11-29T11:59:00+08:00",
        "expires_at": "2099-01-01T00:00:00+00:00", "agent": "main",
        "roots": {"workspace": {"path": str(workspace), "dev": ws_stat.st_dev, "ino": ws_stat.st_ino}},
        "items": items}))
    return [plan_id]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=entries, config=st.one_of(st.none(), st.sampled_from(AGENT_CONFIG)),
       rules=st.one_of(st.none(), st.sampled_from(AGENT_RULES)), tasks=st.one_of(st.none(), TASK_STATES),
       records=forged, tier=st.sampled_from(["small", "medium", "large"]),
       mac=st.sampled_from(["", "0" * 64 + "\n", "not a mac"]))
def test_the_agent_writes_the_workspace_before_the_users_run(spec: list, config: str | None, rules: str | None,
                                                             tasks: str | None, records: list, tier: str,
                                                             mac: str) -> None:
    from apollo.errors import ApolloError

    clock.pin(NOW)
    root = Path(tempfile.mkdtemp(prefix="apollo-fuzz-agent-"))
    home = Path(os.environ["HOME"])
    try:
        _build(root, spec)
        (root / "state" / "agents" / "main" / "agent").mkdir(parents=True)
        (root / "state" / "agents" / "main" / "agent" / "auth-profiles.json").write_text('{"key": "sk-user"}')
        (root / "state" / "agents" / "main" / "sessions").mkdir(parents=True)
        (root / "state" / "agents" / "main" / "sessions" / "sessions.json").write_text("{}")
        bashrc = home / ".bashrc"
        bashrc.write_text("# the user's shell\n")
        plan_ids = _agent_writes(root, config, rules, tasks, records, tier, mac)
        paths = Paths.resolve(root / "workspace", root / "state")
        before = _before(root)
        for rel in [rel for rel in before if rel.startswith(".autophagy/plans/")]:
            del before[rel]  # a plan is Apollo's to drop once run (or expired), whoever wrote it
        before_outside, before_state = tree(root / "outside"), tree(root / "state")

        def user(run) -> None:  # a refusal or a configuration error is a fine outcome; a change is not
            with contextlib.suppress(ApolloError):
                run()

        def every_run(config) -> None:
            user(lambda: api.run_now(paths, config, "small"))
            for plan_id in plan_ids:  # the user confirms the plan id the agent showed them
                user(lambda plan_id=plan_id: api.execute(paths, config, plan_id, phrase="确认大自噬"))
            user(lambda: [api.execute(paths, config, made.plan_id) for made in [api.plan(paths, config, "medium")]
                          if made.items])
            user(lambda: [api.restore(paths, config, info["name"], dry_run=dry) for info in api.snapshots(paths, config)
                          for dry in (True, False)])

        try:
            loaded = config_mod.load(paths.workspace)
        except ApolloError:
            loaded = None
        if loaded is not None:
            every_run(loaded)
        assert tree(root / "state") == before_state, "the state dir changed"
        assert bashrc.read_text() == "# the user's shell\n", "~/.bashrc changed"
        assert not any(home.rglob("PWNED*")) and not any(root.rglob("PWNED*"))
        _check(root, before, before_outside, "the agent's workspace")
    finally:
        shutil.rmtree(root)
        clock.pin(None)
