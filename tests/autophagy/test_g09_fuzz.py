"""Guarantee 9: hypothesis builds random workspaces — nested folders, protected files, symlinks
(out of the workspace, up through '..', to protected files, dangling), hard links, odd names
(spaces, newlines, bytes that are not UTF-8, very long names) — and checks after every tier
that no protected byte changed, nothing recent was touched and nothing outside was touched.

The oracle is independent of the code under test: a short list of protected names, matched
on whole components, the way a person reads SPEC §2.2.
"""

from __future__ import annotations

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


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=entries)
def test_random_workspaces_every_tier(spec: list) -> None:
    clock.pin(NOW)
    root = Path(tempfile.mkdtemp(prefix="apollo-fuzz-"))
    try:
        _build(root, spec)
        paths = Paths.resolve(root / "workspace", root / "state")
        config = config_mod.load(paths.workspace)
        before = tree(root / "workspace")
        before["@sibling"] = tree(root)["sibling.tmp"]
        workspace = os.path.realpath(root / "workspace")
        before["@dangling-inside"] = {
            rel for rel, value in before.items() if value[0] == "link"
            and not os.path.exists(root / "workspace" / rel)
            and os.path.realpath(root / "workspace" / rel).startswith(workspace + os.sep)}
        for rel, value in list(before.items()):
            if rel.startswith("@"):
                continue
            if rel.rsplit("/", 1)[-1] == "MEMORY.md" and value[0] == "file":
                before["@text:" + rel] = (root / "workspace" / rel).read_bytes()
        before_outside = tree(root / "outside")
        api.run_now(paths, config, "small")
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
