"""Issue 12, finding 3: a bind mount of an outside folder into the workspace is on the same file
system (same ``st_dev``) yet is another mount; small and medium must delete nothing across it."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from autophagy.support import DAY, tree


@contextmanager
def bind_mount(source: Path, target: Path) -> Iterator[None]:
    """``mount --bind`` for real (the tests run as root); skipped where mounting is not permitted."""
    target.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "--bind", str(source), str(target)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"mount --bind is not permitted here ({done.stderr.strip() or done.returncode})")
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(target)], check=True)


def _outside_rubbish(ws) -> None:
    shared = ws.outside / "shared"
    ws.put("notes.tmp", base=shared)
    ws.put("server.log", "old log line\n", age=5 * DAY, base=shared)
    ws.put("build/app.bin", b"\x7fELF", base=shared)
    ws.put("__pycache__/m.pyc", base=shared)
    ws.put("state.json", "{", base=shared)
    ws.put("link-to-nowhere-target", base=shared)
    os.symlink("gone", shared / "dangling")
    ws.put("MEMORY.md", "# Memory\n\n- [outdated] old fact\n- current fact\n", base=shared)


def test_bind_mounted_outside_folder_is_never_crossed(ws) -> None:
    _outside_rubbish(ws)
    ws.put("own.tmp")
    ws.put("shared-build/build/x.o")  # a real build folder of the workspace, for contrast
    with bind_mount(ws.outside / "shared", ws.workspace / "shared"):
        assert os.stat(ws.workspace / "shared").st_dev == os.stat(ws.workspace).st_dev  # the old check saw nothing
        outside_before = tree(ws.outside)
        small_plan = ws.plan("small")
        assert not any(i.rel.startswith("shared/") for i in small_plan.items), [i.rel for i in small_plan.items]
        assert any(n["path"] == "shared" and "mount point" in n["reason"] for n in small_plan.notes)
        result = ws.execute(small_plan.plan_id)
        assert set(result["deleted"]) == {"own.tmp", "shared-build/build/"}
        ws.medium(include_suggested=True)
        assert tree(ws.outside) == outside_before


def test_bind_mounted_build_folder_is_not_a_folder_item(ws) -> None:
    """A mount named like build output is a mount point first: never listed, never emptied."""
    ws.put("app.bin", b"\x7fELF", base=ws.outside / "release")
    ws.put("keep.o", base=ws.outside / "release")
    with bind_mount(ws.outside / "release", ws.workspace / "proj" / "build"):
        before = tree(ws.outside)
        made = ws.plan("small")
        assert made.items == []
        assert any(n["path"] == "proj/build" and "mount point" in n["reason"] for n in made.notes)
        assert tree(ws.outside) == before


def test_a_plan_made_before_the_bind_mount_deletes_nothing_through_it(ws) -> None:
    ws.put("cache/a.tmp")
    ws.put("cache/build/b.o")
    made = ws.plan("small")
    assert {i.rel for i in made.items} == {"cache/a.tmp", "cache/build"}
    ws.put("a.tmp", base=ws.outside / "victim")
    ws.put("build/b.o", base=ws.outside / "victim")
    with bind_mount(ws.outside / "victim", ws.workspace / "cache"):
        before = tree(ws.outside)
        result = ws.execute(made.plan_id)
        assert result["deleted"] == []
        assert tree(ws.outside) == before
