"""Issue 12, finding 6: what an active task references is protected however it is written — through
a symlink inside the workspace, as a glob, through another absolute name of the workspace, in a
subtask of a finished epic, in a task with no status — and a reference that cannot be resolved
protects its whole folder (fail closed)."""

from __future__ import annotations

import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autophagy.support import tree


def _tasks(ws, tasks: list[dict]) -> None:
    ws.put(".dream/task-state.json", json.dumps({"tasks": tasks}, ensure_ascii=False))


def _run_both(ws) -> dict:
    before = tree(ws.workspace)
    ws.small()
    ws.medium(include_suggested=True)
    return before


def test_every_way_of_naming_a_file_protects_it(ws, tmp_path) -> None:
    alias = tmp_path / "alias-of-the-workspace"
    os.symlink(ws.workspace, alias)
    protected = ["runs/42/out.tmp", "out/logs/a.log", "out/logs/b.log", "aliased/data.bak", "epic/sub.tmp",
                 "nostatus/draft.tmp", "nested/deep/keep.tmp"]
    for rel in protected:
        ws.put(rel, "needed", age=30 * 86400)
    ws.link("current", "runs/42")
    ws.put("out/other.log", age=30 * 86400)    # not matched by the glob: still cleaned
    ws.put("epic/done.tmp")                     # the finished epic's own file: still cleaned
    _tasks(ws, [
        {"title": "via link", "status": "in_progress", "files": ["current/out.tmp"]},
        {"title": "glob", "status": "running", "outputs": "out/logs/*.log"},
        {"title": "alias", "status": "todo", "path": str(alias / "aliased" / "data.bak")},
        {"title": "epic", "status": "done", "files": ["epic/done.tmp"],
         "subtasks": [{"title": "sub", "status": "in_progress", "files": ["epic/sub.tmp"]}]},
        {"title": "no status", "files": ["nostatus/draft.tmp"]},
        {"title": "nested", "state": "open", "steps": [{"output": "nested/deep/"}]},
    ])
    _run_both(ws)
    left = tree(ws.workspace)
    assert all(rel in left for rel in protected), [rel for rel in protected if rel not in left]
    assert "out/other.log" not in left and "epic/done.tmp" not in left


def test_an_unresolvable_reference_protects_its_whole_folder(ws) -> None:
    ws.put("loop/x/a.tmp")
    ws.put("loop/b.tmp")
    os.symlink("y", ws.workspace / "loop" / "x2")
    os.symlink("x2", ws.workspace / "loop" / "y")
    ws.put("elsewhere/c.tmp")
    _tasks(ws, [{"title": "loop", "status": "active", "files": ["loop/y/file.txt"]}])
    ws.small()
    left = tree(ws.workspace)
    assert "loop/x/a.tmp" in left and "loop/b.tmp" in left
    assert "elsewhere/c.tmp" not in left


def test_a_reference_through_a_link_to_a_folder_protects_the_real_folder(ws) -> None:
    ws.put("real/build/out.o")
    ws.put("real/cache/__pycache__/m.pyc")
    ws.link("latest", "real")
    _tasks(ws, [{"title": "build", "status": "in_progress", "artifacts": ["latest/build/", "./latest/cache"]}])
    ws.small()
    left = tree(ws.workspace)
    assert "real/build/out.o" in left and "real/cache/__pycache__/m.pyc" in left


_NAMES = st.sampled_from(["a", "b", "c.tmp", "d.log", "e.bak"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(_NAMES, min_size=1, max_size=3), min_size=1, max_size=6), st.data())
def test_property_a_referenced_path_is_never_deleted(ws, layout, data) -> None:
    """Random files, some referenced by an active task (directly, through a link, or by a glob of
    their folder): after small and medium, every referenced file is still there byte for byte."""
    import shutil

    shutil.rmtree(ws.workspace)
    ws.workspace.mkdir()
    files = sorted({"/".join(["w", *parts[:-1], parts[-1] + ".tmp"]) for parts in layout})
    for rel in files:
        ws.put(rel, rel, age=30 * 86400)
    ws.link("alias", "w")
    chosen = data.draw(st.lists(st.sampled_from(files), min_size=1, max_size=3, unique=True))
    style = data.draw(st.sampled_from(["plain", "link", "glob"]))
    refs = [{"plain": rel, "link": "alias/" + rel[2:], "glob": rel.rsplit("/", 1)[0] + "/*.tmp"}[style] for rel in chosen]
    _tasks(ws, [{"title": "t", "files": refs}])
    before = tree(ws.workspace)
    ws.small()
    after = tree(ws.workspace)
    assert all(after.get(rel) == before[rel] for rel in chosen)
