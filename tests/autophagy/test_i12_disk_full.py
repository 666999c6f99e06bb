"""Issue 12, finding 12: a nearly full disk. The free space is checked before the snapshot is
taken; a snapshot that fails all the same (the disk filled meanwhile) is removed at once and
nothing is deleted. A real small tmpfs (the tests run as root)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from apollo.errors import Refused
from autophagy.support import DAY, tree


@pytest.fixture
def small_disk(ws) -> Iterator:
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(ws.workspace)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here ({done.stderr.strip() or done.returncode})")
    try:
        yield ws
    finally:
        subprocess.run(["umount", "-l", str(ws.workspace)], check=True)


def _snapshots(ws) -> list[str]:
    folder = ws.workspace / ".autophagy" / "snapshots"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_a_snapshot_that_cannot_fit_is_refused_before_anything_is_written(small_disk) -> None:
    ws = small_disk
    ws.put("big.tmp", b"\x01" * (5 << 20))
    ws.put("small.tmp", b"x" * 100)
    before = tree(ws.workspace)
    with pytest.raises(Refused, match="free space"):
        ws.small()
    assert _snapshots(ws) == []
    after = tree(ws.workspace)
    assert {k: v for k, v in after.items() if not k.startswith(".autophagy")} == before


def test_a_snapshot_that_fails_on_a_full_disk_is_removed_at_once(small_disk) -> None:
    ws = small_disk
    old = "".join(f"2026-09-{d:02d}T08:00:00Z old entry {d}\n" for d in range(1, 29))
    log = ws.put("heartbeat.log", old, age=2 * DAY)
    ws.put("a.tmp", b"x" * 100)
    made = ws.plan("small")
    assert {i.rel for i in made.items} == {"heartbeat.log", "a.tmp"}
    with log.open("a") as handle:  # grows after the plan: the space check counted what was planned
        handle.write("2026-11-29T03:00:00Z recent entry " + "y" * (5 << 20) + "\n")
    before = tree(ws.workspace)
    with pytest.raises(Refused, match="space"):
        ws.execute(made.plan_id)
    assert _snapshots(ws) == []
    after = tree(ws.workspace)
    assert {k: v for k, v in after.items() if not k.startswith(".autophagy")} == \
        {k: v for k, v in before.items() if not k.startswith(".autophagy")}
