"""Guarantee 2: no symlink is ever followed, nothing outside the workspace is entered, no mount
point is crossed — deletion goes through directory descriptors."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap

import pytest

from apollo.autophagy.plan import decode, encode
from autophagy.support import NOW, tree


def _outside_full_of_rubbish(ws) -> dict:
    for rel in ("a.tmp", "b.bak", "__pycache__/m.pyc", "build/out.o", "broken.json", "old.log", "MEMORY.md"):
        ws.put(rel, "[outdated] rubbish" if rel != "broken.json" else "{", base=ws.outside)
    return tree(ws.outside)


def test_a_symlink_to_an_outside_folder_full_of_rubbish(ws) -> None:
    before = _outside_full_of_rubbish(ws)
    ws.link("cache", ws.outside)
    ws.link("relative-cache", "../outside")
    ws.link("build", ws.outside / "build")
    ws.link("junk.tmp", ws.outside / "a.tmp")
    ws.put("real.tmp")
    ws.small()
    ws.medium(include_suggested=True)
    assert tree(ws.outside) == before
    for name in ("cache", "relative-cache", "build", "junk.tmp"):
        assert os.path.islink(ws.workspace / name), name
    assert not (ws.workspace / "real.tmp").exists()


def test_a_folder_swapped_for_a_symlink_between_plan_and_execution(ws) -> None:
    before = _outside_full_of_rubbish(ws)
    ws.put("cache/a.tmp")
    ws.put("cache/__pycache__/m.pyc")
    made = ws.plan("small")
    assert {i.rel for i in made.items} == {"cache/a.tmp", "cache/__pycache__"}
    os.rename(ws.workspace / "cache", ws.workspace / "moved")
    os.symlink(ws.outside, ws.workspace / "cache")
    result = ws.execute(made.plan_id)
    assert result["deleted"] == []
    assert all("symlink" in s["reason"] or "gone" in s["reason"] or "changed" in s["reason"] for s in result["skipped"])
    assert tree(ws.outside) == before


def test_a_file_swapped_for_a_symlink_between_plan_and_execution(ws) -> None:
    before = _outside_full_of_rubbish(ws)
    ws.put("x.tmp")
    made = ws.plan("small")
    os.unlink(ws.workspace / "x.tmp")
    os.symlink(ws.outside / "a.tmp", ws.workspace / "x.tmp")
    result = ws.execute(made.plan_id)
    assert result["deleted"] == [] and result["skipped"]
    assert os.path.islink(ws.workspace / "x.tmp")
    assert tree(ws.outside) == before


def test_a_folder_inside_a_planned_tree_swapped_for_a_symlink(ws) -> None:
    before = _outside_full_of_rubbish(ws)
    ws.put("proj/build/lib/a.o")
    ws.put("proj/build/top.o")
    made = ws.plan("small")
    shutil.rmtree(ws.workspace / "proj/build/lib")
    os.symlink(ws.outside, ws.workspace / "proj/build/lib")
    result = ws.execute(made.plan_id)
    assert tree(ws.outside) == before
    assert os.path.islink(ws.workspace / "proj/build/lib")
    assert not (ws.workspace / "proj/build/top.o").exists()
    assert any("lib" in s["path"] for s in result["skipped"])


def test_dot_dot_bound_through_symlinks(ws) -> None:
    ws.put("sibling.tmp", base=ws.root)
    ws.put("stuff/x.tmp", base=ws.root)
    before = tree(ws.root / "stuff") | {"sibling.tmp": tree(ws.root)["sibling.tmp"]}
    ws.link("up", "..")
    ws.link("loop", ".")
    ws.link("a/b", "../../..")
    ws.link("abs-up", ws.root)
    ws.link("a/dangling-up", "../../../nowhere")  # broken, but outside: never examined
    ws.put("a/real.tmp")
    ws.small()
    ws.medium(include_suggested=True)
    after = tree(ws.root / "stuff") | {"sibling.tmp": tree(ws.root)["sibling.tmp"]}
    assert after == before
    assert os.path.islink(ws.workspace / "a/dangling-up")
    assert not (ws.workspace / "a/real.tmp").exists()


def test_a_tampered_plan_cannot_climb_out(ws) -> None:
    victim = ws.put("victim.tmp", "keep me", base=ws.root)
    ws.put("ok.tmp")
    made = ws.plan("small")
    path = ws.workspace / ".autophagy" / "plans" / f"{made.plan_id}.json"
    plan = decode(path.read_bytes())
    plan.items[0].parts = ["..", "victim.tmp"]
    os.chmod(path, 0o600)
    path.write_bytes(encode(plan))
    result = ws.execute(made.plan_id)
    assert victim.read_text() == "keep me"
    assert result["deleted"] == [] and "refusing" in result["skipped"][0]["reason"]


def test_a_mount_point_is_never_crossed_st_dev_check(ws, monkeypatch) -> None:
    """No privileges needed: the folder 'mnt' is shown to the scanner and to the executor as
    being on another device (os.fstat of its descriptor reports another st_dev)."""
    ws.put("mnt/data.tmp")
    ws.put("mnt/__pycache__/x.pyc")
    ws.put("here.tmp")
    ws.put("proj/build/mnt-inside/y.o")
    made_before = ws.plan("small")  # planned while nothing looks foreign
    foreign = {(os.stat(p).st_dev, os.stat(p).st_ino) for p in (ws.workspace / "mnt", ws.workspace / "proj/build/mnt-inside")}
    real_fstat = os.fstat

    def fstat(fd: int) -> os.stat_result:
        st = real_fstat(fd)
        if (st.st_dev, st.st_ino) in foreign:
            values = list(st)
            values[stat.ST_DEV] = st.st_dev + 1
            return os.stat_result(values)
        return st

    monkeypatch.setattr(os, "fstat", fstat)
    made = ws.plan("small")
    # proj/build holds nothing but the mount point: a run would remove nothing there, so no plan lists it
    assert {i.rel for i in made.items} == {"here.tmp"}
    assert {n["path"] for n in made.notes if "mount point" in n["reason"]} == {"mnt", "proj/build/mnt-inside"}
    result = ws.execute(made_before.plan_id)
    monkeypatch.setattr(os, "fstat", real_fstat)
    assert "here.tmp" in result["deleted"]
    assert (ws.workspace / "mnt/data.tmp").exists() and (ws.workspace / "mnt/__pycache__/x.pyc").exists()
    assert (ws.workspace / "proj/build/mnt-inside/y.o").exists()
    assert result["skipped"] and all("mount point" in s["reason"] or "changed" in s["reason"]
                                     or "not empty" in s["reason"] or "no longer qualifies" in s["reason"]
                                     for s in result["skipped"])


def _can_mount() -> bool:
    if not shutil.which("unshare"):
        return False
    done = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "true"], capture_output=True)
    return done.returncode == 0


@pytest.mark.skipif(not _can_mount(), reason="unprivileged user + mount namespaces are not available here")
def test_a_real_mount_point_is_never_crossed(ws) -> None:
    """A real tmpfs mounted inside the workspace, in a user + mount namespace (no privileges)."""
    ws.put("outer.tmp")
    (ws.workspace / "mnt").mkdir()
    script = textwrap.dedent(f"""
        import json, os, subprocess, sys
        from pathlib import Path
        subprocess.run(["mount", "-t", "tmpfs", "tmpfs", {str(ws.workspace / "mnt")!r}], check=True)
        Path({str(ws.workspace / "mnt" / "inner.tmp")!r}).write_text("on another device")
        os.utime({str(ws.workspace / "mnt" / "inner.tmp")!r}, (0, 0))
        from apollo import clock, config
        from apollo.autophagy import api
        clock.pin({NOW!r})
        from apollo.workspace import Paths
        paths = Paths.resolve(Path({str(ws.workspace)!r}), Path({str(ws.state)!r}))
        made, result = api.run_now(paths, config.load(paths.workspace), "small")
        print(json.dumps({{"deleted": result["deleted"], "notes": made.notes,
                          "inner": os.path.exists({str(ws.workspace / "mnt" / "inner.tmp")!r})}}))
    """)
    done = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", sys.executable, "-c", script],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["inner"] is True
    assert report["deleted"] == ["outer.tmp"]
    assert any(n["path"] == "mnt" for n in report["notes"])
