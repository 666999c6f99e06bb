"""Guarantee 3: what runs is what was shown. Every file is re-checked (device, inode, size,
mtime) right before it is removed; anything changed is skipped and reported."""

from __future__ import annotations

import os

import pytest

from apollo.autophagy import plan as plan_mod
from apollo.autophagy import remove
from apollo.autophagy.fs import StatFingerprint
from apollo.errors import UsageError
from autophagy.support import DAY, NOW_TS


def _age(path, days: float = 3) -> None:
    os.utime(path, (NOW_TS - days * DAY, NOW_TS - days * DAY))


def test_changed_files_are_skipped_and_reported_the_rest_goes(ws) -> None:
    grown = ws.put("grown.tmp", "a")
    touched = ws.put("touched.tmp", "b")
    replaced = ws.put("replaced.tmp", "c")
    gone = ws.put("gone.tmp", "d")
    same = ws.put("same.tmp", "e")
    made = ws.plan("small")
    grown.write_text("a and more")
    _age(grown)
    os.utime(touched, (NOW_TS - 2 * DAY, NOW_TS - 2 * DAY))
    os.rename(replaced, ws.root / "the-old-inode-lives-on")
    ws.put("replaced.tmp", "C")  # same size and age, another inode
    gone.unlink()
    result = ws.execute(made.plan_id)
    assert result["deleted"] == ["same.tmp"] and not same.exists()
    skipped = {s["path"]: s["reason"] for s in result["skipped"]}
    assert set(skipped) == {"grown.tmp", "touched.tmp", "replaced.tmp", "gone.tmp"}
    assert "changed" in skipped["grown.tmp"] and "gone" in skipped["gone.tmp"]
    assert grown.read_text() == "a and more" and touched.exists() and replaced.read_text() == "C"


def test_a_change_in_the_last_instant_is_still_caught(ws, monkeypatch) -> None:
    """Between the snapshot and the unlink: the re-check right before removal catches it."""
    target = ws.put("late.tmp", "original")
    made = ws.plan("small")
    real = remove._unlink_checked

    def meddle(parent, name, expected):
        if name == "late.tmp":
            with open(target, "a") as handle:
                handle.write(" + written at the last moment")
        return real(parent, name, expected)

    monkeypatch.setattr(remove, "_unlink_checked", meddle)
    result = ws.execute(made.plan_id)
    assert target.read_text() == "original + written at the last moment"
    assert result["skipped"][0]["path"] == "late.tmp"


def test_new_files_in_a_planned_folder_stay_and_so_does_the_folder(ws) -> None:
    ws.put("proj/build/a.o")
    made = ws.plan("small")
    new = ws.put("proj/build/new.o", "made after the plan")
    changed = ws.workspace / "proj/build/a.o"
    result = ws.execute(made.plan_id)
    assert new.read_text() == "made after the plan"
    assert not changed.exists()
    assert any(s["path"] == "proj/build" and "not empty" in s["reason"] for s in result["skipped"])


def test_memory_changed_between_plan_and_confirmation_is_not_rewritten(ws) -> None:
    memory = ws.put("MEMORY.md", "- a [过时]\n- b\n")
    made = ws.plan("medium")
    memory.write_text("- a [过时]\n- B (edited by the user)\n")
    _age(memory)
    result = ws.execute(made.plan_id)
    assert result["deleted"] == [] and "changed" in result["skipped"][0]["reason"]
    assert memory.read_text() == "- a [过时]\n- B (edited by the user)\n"


def test_text_appended_after_the_plan_is_kept(ws) -> None:
    memory = ws.put("MEMORY.md", "- a [过时]\n- b\n")
    log = ws.put("logs/heartbeat.log", "2026-09-01T00:00:00Z old\n2026-11-28T00:00:00Z new\n")
    made_medium = ws.plan("medium")
    with open(memory, "a") as handle:
        handle.write("- c (appended by the agent)\n")
    _age(memory)
    ws.execute(made_medium.plan_id)
    assert memory.read_text() == "- b\n- c (appended by the agent)\n"
    made_small = ws.plan("small")
    with open(log, "a") as handle:
        handle.write("2026-11-29T03:59:00Z appended meanwhile\n")
    ws.execute(made_small.plan_id)
    assert log.read_text() == "2026-11-28T00:00:00Z new\n2026-11-29T03:59:00Z appended meanwhile\n"


def test_an_append_during_the_rewrite_itself_is_carried_over(ws, monkeypatch) -> None:
    log = ws.put("heartbeat.log", "2026-09-01T00:00:00Z old\n2026-11-28T00:00:00Z new\n")
    made = ws.plan("small")
    real = remove.write_all
    calls = []

    def write_and_meddle(fd, data):
        real(fd, data)
        if not calls:
            calls.append(1)
            with open(log, "a") as handle:
                handle.write("2026-11-29T03:59:30Z during the rewrite\n")

    monkeypatch.setattr(remove, "write_all", write_and_meddle)
    ws.execute(made.plan_id)
    assert log.read_text() == "2026-11-28T00:00:00Z new\n2026-11-29T03:59:30Z during the rewrite\n"


def test_a_plan_runs_once(ws) -> None:
    ws.put("a.tmp")
    made = ws.plan("small")
    ws.execute(made.plan_id)
    ws.put("a.tmp")
    with pytest.raises(UsageError, match="no plan"):
        ws.execute(made.plan_id)
    assert (ws.workspace / "a.tmp").exists()


def _edit_plan(ws, plan_id: str, change) -> None:
    """Change a saved plan by hand, as a user (or a confused agent) with an editor could."""
    path = ws.workspace / ".autophagy" / "plans" / f"{plan_id}.json"
    edited = plan_mod.decode(path.read_bytes())
    change(edited)
    path.write_bytes(plan_mod.encode(edited))


def test_a_cut_widened_by_hand_in_the_plan_removes_nothing(ws) -> None:
    text = "# Memory\n\n- precious one\n- old fact [过时]\n- precious two\n"
    memory = ws.put("MEMORY.md", text)
    made = ws.plan("medium")

    def widen(edited) -> None:
        edited.items[0].cuts = [[0, edited.items[0].prefix_size]]

    _edit_plan(ws, made.plan_id, widen)
    result = ws.execute(made.plan_id)
    assert result["deleted"] == [] and result["skipped"]
    assert memory.read_text() == text


def test_an_item_outside_the_workspace_added_by_hand_to_a_medium_plan_is_refused(ws) -> None:
    ws.put("broken.json", '{"a":')
    sessions = ws.state / "agents" / "main" / "sessions"
    transcript = ws.put("keep.jsonl", '{"type":"session"}\n', base=sessions)
    credentials = ws.put("agent/auth-profiles.json", '{"token":"t"}', base=ws.state / "agents" / "main")
    made = ws.plan("medium")

    def add(edited) -> None:
        for label, path in (("sessions", sessions), ("agent", ws.state / "agents" / "main")):
            st = os.stat(path)
            edited.roots[label] = plan_mod.RootInfo(str(path), st.st_dev, st.st_ino)
        for label, parts, target in (("sessions", ["keep.jsonl"], transcript),
                                     ("agent", ["agent", "auth-profiles.json"], credentials)):
            edited.items.append(plan_mod.Item(f"M{len(edited.items) + 1}", "corrupt_json", "corrupt", label, parts,
                                              "unlink", 1, "x", "x", fp=StatFingerprint.of(os.lstat(target)).to_list()))

    _edit_plan(ws, made.plan_id, add)
    result = ws.execute(made.plan_id)
    assert result["deleted"] == ["broken.json"]
    assert transcript.exists() and credentials.exists()


def test_a_file_of_the_agent_added_by_hand_to_a_large_plan_is_refused(ws) -> None:
    sessions = ws.state / "agents" / "main" / "sessions"
    ws.put("s1.jsonl", '{"type":"session"}\n', base=sessions)
    credentials = ws.put("agent/auth-profiles.json", '{"token":"t"}', base=ws.state / "agents" / "main")
    notes = ws.put("notes.txt", "not a transcript", base=sessions)
    made = ws.plan("large")

    def add(edited) -> None:
        agent = ws.state / "agents" / "main"
        st = os.stat(agent)
        edited.roots["agent"] = plan_mod.RootInfo(str(agent), st.st_dev, st.st_ino)
        for label, parts, target in (("agent", ["agent", "auth-profiles.json"], credentials),
                                     ("sessions", ["notes.txt"], notes)):
            edited.items.append(plan_mod.Item(f"L{len(edited.items) + 1}", "session_transcript", "context", label,
                                              parts, "unlink", 1, "x", "x",
                                              fp=StatFingerprint.of(os.lstat(target)).to_list()))

    _edit_plan(ws, made.plan_id, add)
    result = ws.execute(made.plan_id, phrase="确认大自噬", at_terminal=True)
    assert result["deleted"] and credentials.exists() and notes.exists()
    assert not (sessions / "s1.jsonl").exists()
