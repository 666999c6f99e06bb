"""apollo.atomic: a file is replaced whole or not at all, and a failed write leaves nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from apollo import atomic
from apollo.atomic import atomic_output


def test_replaces_the_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_bytes(b"old")
    with atomic_output(target) as out:
        out.write(b"new ")
        assert target.read_bytes() == b"old"  # nobody sees half a file while it is written
        out.write(b"content")
    assert target.read_bytes() == b"new content"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_a_failed_write_leaves_the_old_file_and_nothing_else(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_output(target) as out:
        out.write(b"half")
        raise RuntimeError("disk full")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


@pytest.mark.parametrize("unnamed", [True, False])
def test_every_file_is_owner_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unnamed: bool) -> None:
    """Apollo's files quote conversations: 0600 whatever the umask, with or without O_TMPFILE."""
    if not unnamed:
        monkeypatch.delattr(atomic.os, "O_TMPFILE", raising=False)
    target = tmp_path / "new.json"
    with atomic_output(target) as out:
        out.write(b"{}")
    assert target.stat().st_mode & 0o777 == 0o600


def test_private_dir_is_0700_and_apollo_folders_ignore_themselves(tmp_path: Path) -> None:
    made = atomic.private_dir(tmp_path / "ws" / ".renal" / "snapshots")
    assert made.is_dir()
    for folder in (tmp_path / "ws" / ".renal", made):
        assert folder.stat().st_mode & 0o777 == 0o700
    ignore = tmp_path / "ws" / ".renal" / ".gitignore"
    assert ignore.read_text().splitlines()[-1] == "*" and ignore.stat().st_mode & 0o777 == 0o600
    ignore.write_text("mine\n")
    atomic.private_dir(tmp_path / "ws" / ".renal" / "other")
    assert ignore.read_text() == "mine\n"  # never rewritten
    assert not (tmp_path / "ws" / ".gitignore").exists()  # only Apollo's own folders


def test_without_unnamed_files_a_named_staging_file_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(atomic.os, "O_TMPFILE", raising=False)
    target = tmp_path / "out.txt"
    with atomic_output(target) as out:
        out.write(b"x")
        staged = [p.name for p in tmp_path.iterdir()]
        assert len(staged) == 1 and staged[0].startswith(f".out.txt.{os.getpid()}-") and staged[0].endswith(".tmp")
    assert target.read_bytes() == b"x"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_durable_writes_are_synced_before_the_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(atomic.os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(atomic.os, "replace", lambda a, b: (events.append("replace"), real_replace(a, b))[1])
    with atomic_output(tmp_path / "a", durable=True) as out:
        out.write(b"1")
    assert events == ["fsync", "replace"]
    events.clear()
    with atomic_output(tmp_path / "b") as out:
        out.write(b"2")
    assert events == ["replace"]


def test_a_staging_file_left_by_an_earlier_run_does_not_block_writing(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    leftover = tmp_path / f".state.json.{os.getpid()}.tmp"  # the name earlier versions staged under
    leftover.write_bytes(b"stale")
    with atomic_output(target) as out:
        out.write(b"fresh")
    assert target.read_bytes() == b"fresh"
    assert leftover.read_bytes() == b"stale"  # not ours to delete


def test_an_atomic_output_is_entered_once(tmp_path: Path) -> None:
    """A second entry (nested, it lost the outer write and leaked a descriptor) is refused."""
    writer = atomic_output(tmp_path / "state.json")
    with writer as out:
        out.write(b"first")
        with pytest.raises(RuntimeError, match="entered once"):
            writer.__enter__()
    assert (tmp_path / "state.json").read_bytes() == b"first"
