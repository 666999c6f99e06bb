"""Guarantee 7: one run at a time; a second one exits 4 with a clear message."""

from __future__ import annotations

import os

import pytest
from filelock import FileLock

from apollo.errors import Refused
from autophagy.support import NOW, tree


def test_a_held_lock_refuses_the_second_run(ws, apollo_cli) -> None:
    ws.put("a.tmp")
    made = ws.plan("medium") if False else ws.plan("small")
    lock = FileLock(str(ws.workspace / ".autophagy" / "autophagy.lock"))
    with lock:
        before = tree(ws.workspace)
        with pytest.raises(Refused, match="another autophagy run is in progress"):
            ws.execute(made.plan_id)
        with pytest.raises(Refused):
            ws.small()
        done = apollo_cli("autophagy", "small", "--yes", "--workspace", str(ws.workspace), "--state-dir",
                          str(ws.state), now=NOW)
        assert done.returncode == 4, done.stderr
        assert "another autophagy run is in progress" in done.stderr
        assert tree(ws.workspace) == before
    assert ws.execute(made.plan_id)["deleted"] == ["a.tmp"]


def test_a_lock_file_that_is_a_symlink_is_refused(ws) -> None:
    (ws.workspace / ".autophagy").mkdir()
    victim = ws.put("victim.txt", "must not be truncated", base=ws.outside)
    os.symlink(victim, ws.workspace / ".autophagy" / "autophagy.lock")
    ws.put("a.tmp")
    with pytest.raises(Refused, match="not a regular file"):
        ws.small()
    assert victim.read_text() == "must not be truncated"
