"""Guarantee 4: a snapshot before any deletion — real copies with a fsynced manifest — and a
restore that is byte-identical, refuses absolute or escaping paths, never overwrites and never
follows a symlink at the destination."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from apollo.autophagy import api, snapshot
from apollo.errors import UsageError
from autophagy.support import NOW, files_only, reseal, tree


def _snapshot_dir(ws, result) -> Path:
    return ws.workspace / result["snapshot"]


def _workspace_view(ws) -> dict:
    return {k: v for k, v in tree(ws.workspace).items() if not k.startswith(".autophagy")}


def test_snapshot_holds_real_copies_and_a_complete_manifest(ws) -> None:
    ws.put("a.tmp", "alpha", mode=0o640)
    ws.put("pkg/__pycache__/m.pyc", b"\x00\x01bytecode")
    ws.link("dead", "missing-target")
    ws.put("MEMORY.md", "- old [过时]\n- keep\n")
    small = ws.small()
    medium = ws.medium()
    for result in (small, medium):
        folder = _snapshot_dir(ws, result)
        assert folder.name.startswith("autophagy-snapshot-") and folder.parent == ws.workspace / ".autophagy/snapshots"
        manifest = json.loads((folder / "manifest.json").read_text())
        assert manifest["complete"] is True and manifest["created_at"] == NOW
        for entry in manifest["entries"]:
            if entry["type"] != "file":
                continue
            copy = folder / entry["file"]
            data = copy.read_bytes()
            assert len(data) == entry["size"] and hashlib.sha256(data).hexdigest() == entry["sha256"]
            assert os.stat(copy).st_nlink == 1, "a copy, never a hard link"
            assert {"path", "size", "sha256", "mode", "mtime"} <= set(entry)
    kinds = {e["path"]: e for e in json.loads((_snapshot_dir(ws, small) / "manifest.json").read_text())["entries"]}
    assert kinds["a.tmp"]["mode"] == 0o640
    medium_entries = json.loads((_snapshot_dir(ws, medium) / "manifest.json").read_text())["entries"]
    assert {e["type"] for e in medium_entries} == {"file", "symlink"}


def test_restore_is_byte_identical(ws) -> None:
    ws.put("a.tmp", "alpha", mode=0o640)
    ws.put("deep/er/b.bak", os.urandom(3000))
    ws.put("proj/build/lib/x.o", os.urandom(100))
    ws.put("proj/build/y.o", "y")
    ws.put("data/broken.json", "{")
    ws.link("data/dead", "../missing")
    ws.put("MEMORY.md", "# M\n\n- old [过时]\n- keep\n")
    ws.put("logs/heartbeat.log", "2026-09-01T00:00:00Z old\n2026-11-28T00:00:00Z new\n")
    before = _workspace_view(ws)
    small, medium = ws.small(), ws.medium()
    assert _workspace_view(ws) != before
    for result in (medium, small):
        done = api.restore(ws.paths(), ws.config(), _snapshot_dir(ws, result).name)
        assert not done["skipped"], done
    after = _workspace_view(ws)
    assert files_only(after) == files_only(before)
    for rel, value in before.items():
        if value[0] == "file":
            assert after[rel][2:] == value[2:], f"{rel}: mode and mtime restored too"


def test_dry_run_changes_nothing(ws) -> None:
    ws.put("a.tmp", "alpha")
    result = ws.small()
    view = tree(ws.workspace)
    done = api.restore(ws.paths(), ws.config(), _snapshot_dir(ws, result).name, dry_run=True)
    assert done["restored"] == ["a.tmp"] and done["dry_run"]
    assert tree(ws.workspace) == view


def test_restore_never_overwrites(ws) -> None:
    ws.put("a.tmp", "original")
    result = ws.small()
    ws.put("a.tmp", "new work with the same name")
    done = api.restore(ws.paths(), ws.config(), _snapshot_dir(ws, result).name)
    assert done["restored"] == [] and "never overwritten" in done["skipped"][0]["reason"]
    assert (ws.workspace / "a.tmp").read_text() == "new work with the same name"


def test_restore_replaces_a_rewritten_file_only_if_untouched_since(ws) -> None:
    memory = ws.put("MEMORY.md", "- old [过时]\n- keep\n")
    result = ws.medium()
    memory.write_text("- keep\n- the user's new entry\n")
    done = api.restore(ws.paths(), ws.config(), _snapshot_dir(ws, result).name)
    assert done["replaced"] == [] and "changed since" in done["skipped"][0]["reason"]
    assert memory.read_text() == "- keep\n- the user's new entry\n"


def test_restore_never_follows_a_symlink_at_the_destination(ws) -> None:
    ws.put("sub/a.tmp", "alpha")
    result = ws.small()
    shutil.rmtree(ws.workspace / "sub")
    os.symlink(ws.outside, ws.workspace / "sub")
    done = api.restore(ws.paths(), ws.config(), _snapshot_dir(ws, result).name)
    assert done["restored"] == [] and "symlink" in done["skipped"][0]["reason"]
    assert list(ws.outside.iterdir()) == []
    os.unlink(ws.workspace / "sub")
    os.symlink(ws.outside / "target.tmp", ws.workspace / "sub")  # a dangling link where the file was
    (ws.workspace / "sub").unlink()
    (ws.workspace / "sub").mkdir()
    os.symlink(ws.outside / "target.tmp", ws.workspace / "sub" / "a.tmp")
    done = api.restore(ws.paths(), ws.config(), _snapshot_dir(ws, result).name)
    assert done["restored"] == [] and not (ws.outside / "target.tmp").exists()


@pytest.mark.parametrize("bad", ["/etc/passwd", "../escape.tmp", "a/../../escape.tmp", "", "a//b"])
def test_restore_refuses_absolute_and_escaping_paths(ws, bad: str) -> None:
    ws.put("a.tmp", "alpha")
    result = ws.small()
    folder = _snapshot_dir(ws, result)
    manifest_path = folder / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["entries"][0]["path"] = bad
    os.chmod(manifest_path, 0o600)
    manifest_path.write_text(json.dumps(manifest))
    reseal(folder, ws.workspace)  # as if Apollo itself had written it: the path checks still hold
    before_outside = tree(ws.root)
    done = api.restore(ws.paths(), ws.config(), folder.name)
    assert done["restored"] == [] and len(done["skipped"]) == 1
    assert not (ws.root / "escape.tmp").exists()
    assert {k for k in tree(ws.root) if not k.startswith("workspace")} == \
        {k for k in before_outside if not k.startswith("workspace")}


def test_a_damaged_copy_is_not_restored(ws) -> None:
    ws.put("a.tmp", "alpha")
    result = ws.small()
    copy = _snapshot_dir(ws, result) / "files" / "000001"
    os.chmod(copy, 0o600)
    copy.write_text("bravo")
    done = api.restore(ws.paths(), ws.config(), _snapshot_dir(ws, result).name)
    assert done["restored"] == [] and "checksum" in done["skipped"][0]["reason"]
    assert not (ws.workspace / "a.tmp").exists()


def test_only_snapshots_in_the_snapshot_folder(ws) -> None:
    ws.put("a.tmp")
    result = ws.small()
    elsewhere = ws.outside / _snapshot_dir(ws, result).name
    shutil.copytree(_snapshot_dir(ws, result), elsewhere)
    with pytest.raises(UsageError):
        api.restore(ws.paths(), ws.config(), str(elsewhere))
    with pytest.raises(UsageError):
        api.restore(ws.paths(), ws.config(), "autophagy-snapshot-nope")
    assert api.restore(ws.paths(), ws.config(), str(_snapshot_dir(ws, result)), dry_run=True)["restored"] == ["a.tmp"]


def test_the_snapshot_is_sealed_before_the_first_deletion(ws, monkeypatch) -> None:
    ws.put("a.tmp", "alpha")
    ws.put("b.tmp", "bravo")
    seen = []
    real = snapshot.SnapshotWriter.seal

    def seal(self):
        seen.append(sorted(p.name for p in ws.workspace.glob("*.tmp")))
        real(self)

    monkeypatch.setattr(snapshot.SnapshotWriter, "seal", seal)
    ws.small()
    assert seen == [["a.tmp", "b.tmp"]], "everything was still there when the snapshot was sealed"
