"""Guarantee 6: every run that changes anything appends the seed's entry to
.autophagy/cleanup-log.md; a run that fails half way still leaves its snapshot and an entry
saying what happened."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from apollo.autophagy import remove
from autophagy.support import NOW, Ws

LOG = ".autophagy/cleanup-log.md"


def test_the_seed_entry_format(ws) -> None:
    ws.put("a.tmp")
    result = ws.small()
    assert result["log"] == str(ws.workspace / LOG)  # absolute: usable as printed, from anywhere
    text = (ws.workspace / LOG).read_text()
    entry = text[text.index("## ["):]
    lines = entry.splitlines()
    assert re.fullmatch(r"## \[2026-11-29 12:00\] 清理记录", lines[0])
    assert lines[1] == "类型：🗑️小"
    assert lines[2] == "清理了什么：a.tmp"
    assert lines[3].startswith("保留了什么：")
    assert lines[4] == "触发原因：用户要求"
    assert lines[5] == f"快照文件：{Path(result['snapshot']).relative_to(ws.workspace)}"
    assert lines[6].startswith("操作者：")
    assert lines[7] == "结果：完成：删除 1 项"


def test_entries_are_appended_and_earlier_bytes_never_change(ws) -> None:
    ws.put("a.tmp")
    ws.small()
    first = (ws.workspace / LOG).read_bytes()
    ws.put("b.json", b"{")
    ws.medium()
    second = (ws.workspace / LOG).read_bytes()
    assert second.startswith(first)
    assert second.count("清理记录".encode()) == 2 and "类型：🧹中".encode() in second


def test_a_run_with_nothing_to_do_writes_nothing(ws) -> None:
    assert ws.small() is None
    assert not (ws.workspace / LOG).exists()


def test_a_run_that_fails_half_way_leaves_snapshot_and_log(ws, monkeypatch) -> None:
    for name in ("a.tmp", "b.tmp", "c.tmp"):
        ws.put(name, name)
    made = ws.plan("small")
    real = remove.unlink_file
    calls = []

    def failing(root, parts, expected):
        calls.append(parts)
        if len(calls) == 2:
            raise RuntimeError("disk on fire")
        return real(root, parts, expected)

    monkeypatch.setattr(remove, "unlink_file", failing)
    with pytest.raises(RuntimeError, match="disk on fire"):
        ws.execute(made.plan_id)
    [folder] = (ws.workspace / ".autophagy" / "snapshots").iterdir()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["complete"] and len(manifest["entries"]) == 3
    result = json.loads((folder / "result.json").read_text())
    assert result["deleted"] == ["a.tmp"] and "disk on fire" in result["failure"]
    log = (ws.workspace / LOG).read_text()
    assert "中途失败" in log and "disk on fire" in log and "清理了什么：a.tmp" in log
    assert (ws.workspace / "b.tmp").exists() and (ws.workspace / "c.tmp").exists()


def _execute_as_nobody(ws, plan_id: str) -> dict:
    """Root ignores folder permissions, so a root test suite runs the execution as 'nobody'."""
    for path in [ws.root, *ws.root.rglob("*")]:
        os.chown(path, 65534, 65534, follow_symlinks=False)
    code = ("import json; from pathlib import Path; from apollo import clock, config; from apollo.autophagy import api; "
            f"clock.pin({NOW!r}); "
            "from apollo.workspace import Paths; "
            f"p = Paths.resolve(Path({str(ws.workspace)!r}), Path({str(ws.state)!r})); "
            f"print(json.dumps(api.execute(p, config.load(p.workspace), {plan_id!r})))")
    done = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", code],
                          capture_output=True, text=True,
                          env={**os.environ, "HOME": str(ws.root), "XDG_CONFIG_HOME": str(ws.root / ".config")})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_an_item_that_cannot_be_removed_is_reported_not_fatal(ws) -> None:
    if os.geteuid() == 0:  # a root the unprivileged user can reach (pytest's own folder is 0700)
        base = Path(tempfile.mkdtemp(prefix="apollo-readonly-"))
        base.chmod(0o755)
        ws = Ws(base / "case")
        for folder in (ws.workspace, ws.state, ws.outside):
            folder.mkdir(parents=True)
    ws.put("locked/a.tmp")
    ws.put("b.tmp")
    made = ws.plan("small")
    (ws.workspace / "locked").chmod(0o555)
    try:
        result = _execute_as_nobody(ws, made.plan_id) if os.geteuid() == 0 else ws.execute(made.plan_id)
    finally:
        (ws.workspace / "locked").chmod(0o755)
    assert result["deleted"] == ["b.tmp"]
    assert result["skipped"][0]["path"] == "locked/a.tmp" and "ermission" in result["skipped"][0]["reason"]
    assert (ws.workspace / "locked/a.tmp").exists()
    assert "跳过：locked/a.tmp" in (ws.workspace / LOG).read_text()
    if os.geteuid() == 0:
        shutil.rmtree(ws.root.parent)


def test_a_restore_is_logged_too(ws) -> None:
    from apollo.autophagy import api

    ws.put("a.tmp", "alpha")
    result = ws.small()
    api.restore(ws.paths(), ws.config(), Path(result["snapshot"]).name)
    text = (ws.workspace / LOG).read_text()
    entry = text[text.rindex("## ["):]
    assert entry.splitlines()[0] == "## [2026-11-29 12:00] 恢复记录"
    assert "恢复了什么：a.tmp" in entry and f"快照文件：{Path(result['snapshot']).relative_to(ws.workspace)}" in entry
