"""Guarantee 5: snapshots older than 7 days, by the manifest's time (the clock pinned in code), are
purged on every autophagy run and heartbeat — and nothing else is."""

from __future__ import annotations

import json
import os

from apollo import clock
from apollo.autophagy import api
from autophagy.support import DAY, NOW_TS


def _snapshot(ws) -> str:
    ws.put("a.tmp")
    return ws.small()["snapshot"]


def test_purged_after_seven_days_by_manifest_time_on_every_run(ws, monkeypatch) -> None:
    first = ws.workspace / _snapshot(ws)
    os.utime(first, (NOW_TS + 30 * DAY, NOW_TS + 30 * DAY))  # the folder's own time does not matter
    clock.pin("2026-12-06T11:59:00+08:00")  # 6 days 23 h 59 min later
    ws.plan("small")
    assert first.is_dir()
    clock.pin("2026-12-06T12:00:00+08:00")
    ws.plan("small")  # any run purges, even one with nothing to do
    assert not first.exists()


def test_the_heartbeat_purge_and_the_snapshots_command(ws, monkeypatch) -> None:
    first = ws.workspace / _snapshot(ws)
    clock.pin("2026-12-01T12:00:00+08:00")
    second = ws.workspace / _snapshot(ws)
    clock.pin("2026-12-07T12:00:00+08:00")
    listed = {s["name"]: s for s in ws.snapshots()}
    assert listed[first.name]["expires_at"] == "2026-12-06T12:00:00+08:00"
    purged = api.purge_expired_snapshots(ws.paths(), ws.config())
    assert purged == [first] and not first.exists() and second.is_dir()


def test_a_snapshot_whose_manifest_cannot_be_read_is_never_purged(ws, monkeypatch) -> None:
    folder = ws.workspace / _snapshot(ws)
    manifest = folder / "manifest.json"
    os.chmod(manifest, 0o600)
    manifest.write_text("{not json")
    clock.pin("2027-06-01T00:00:00+08:00")
    assert api.purge_expired_snapshots(ws.paths(), ws.config()) == []
    assert folder.is_dir()
    [info] = ws.snapshots()
    assert "never purged" in info["problem"]


def test_purge_never_follows_links_inside_a_snapshot(ws, monkeypatch) -> None:
    folder = ws.workspace / _snapshot(ws)
    ws.put("precious.txt", "outside the snapshot", base=ws.outside)
    os.symlink(ws.outside, folder / "files" / "link-out")
    clock.pin("2026-12-30T00:00:00+08:00")
    api.purge_expired_snapshots(ws.paths(), ws.config())
    assert not folder.exists()
    assert (ws.outside / "precious.txt").read_text() == "outside the snapshot"


def test_retention_is_configurable(ws, monkeypatch) -> None:
    ws.configure_user("[autophagy]\nsnapshot_retention_days = 1\n")
    folder = ws.workspace / _snapshot(ws)
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["created_at"] == "2026-11-29T12:00:00+08:00"
    clock.pin("2026-11-30T12:00:01+08:00")
    ws.plan("small")
    assert not folder.exists()


def test_the_heartbeat_purge_creates_nothing_in_a_clean_workspace(ws) -> None:
    assert api.purge_expired_snapshots(ws.paths(), ws.config()) == []
    assert list(ws.workspace.iterdir()) == []
