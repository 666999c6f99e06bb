"""Second adversarial pass: the agent makes Apollo's own folder, or a folder in it, a symlink or a
mount out of the workspace. Nothing is written there, and the refusal is a plain one (exit 4),
not an internal error."""

from __future__ import annotations

import os
import subprocess

import pytest

from autophagy.support import Ws, tree
from autophagy.test_trust_boundaries import _world


@pytest.mark.parametrize("link", [".autophagy", ".autophagy/plans", ".autophagy/snapshots"])
def test_a_link_in_place_of_apollos_own_folder_is_refused_plainly(ws: Ws, link: str, apollo_cli) -> None:
    ws.put("x.tmp", "old")
    (ws.workspace / link).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(ws.outside, ws.workspace / link)
    before = _world(ws)
    done = apollo_cli("autophagy", "small", "--yes", "--workspace", str(ws.workspace), "--state-dir", str(ws.state))
    assert done.returncode == 4 and "internal error" not in done.stderr and "symlink" in done.stderr
    assert _world(ws)["outside"] == before["outside"] and (ws.workspace / "x.tmp").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="mount --bind needs root")
def test_a_bind_mount_on_the_snapshot_folder_is_refused_plainly(ws: Ws, apollo_cli) -> None:
    ws.put("x.tmp", "old")
    target = ws.workspace / ".autophagy" / "snapshots"
    target.mkdir(parents=True)
    elsewhere = ws.outside / "snapshots"
    elsewhere.mkdir()
    subprocess.run(["mount", "--bind", str(elsewhere), str(target)], check=True)
    try:
        done = apollo_cli("autophagy", "small", "--yes", "--workspace", str(ws.workspace), "--state-dir",
                          str(ws.state))
    finally:
        subprocess.run(["umount", str(target)], check=True)
    assert done.returncode == 4 and "internal error" not in done.stderr and "mount" in done.stderr
    assert tree(elsewhere) == {} and (ws.workspace / "x.tmp").exists()


def test_a_restores_printed_snapshot_is_a_path_that_exists(ws: Ws, apollo_cli) -> None:
    """A careless user pastes what restore printed: it must name the snapshot, not a made-up path."""
    import json
    from pathlib import Path

    ws.put("x.tmp", "old")
    snapshot = Path(ws.small()["snapshot"])
    done = apollo_cli("autophagy", "restore", snapshot.name, "--json", "--workspace", str(ws.workspace),
                      "--state-dir", str(ws.state))
    shown = json.loads(done.stdout)
    assert done.returncode == 0 and Path(shown["snapshot"]) == snapshot and Path(shown["path"]) == snapshot
