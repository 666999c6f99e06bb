"""Guarantee 1: the protect list always wins (whole path components, link name and target,
files of active tasks); if it cannot be read, nothing is deleted."""

from __future__ import annotations

import json
import os
import unicodedata

import pytest

from apollo.errors import ConfigError
from autophagy.support import tree

PROTECTED = ["MEMORY.md", ".dream/task-state.json", "USER.md", "preferences/colors.tmp", "skills/x/SKILL.md",
             "skills/x/__pycache__/m.pyc", "skills/x/build/out.tmp", "tools/SKILL.md", "AGENTS.md", "SOUL.md",
             "IDENTITY.md", "TOOLS.md", "HEARTBEAT.md", ".autophagy/old.tmp", ".renal/x.bak",
             "proj/.git/index.lock.tmp", "proj/.git/objects/ab.orig", ".apollo/scratch.tmp", "nested/skills/a.tmp"]


def test_protected_paths_survive_every_tier(ws) -> None:
    for rel in PROTECTED:
        ws.put(rel, b"{" if rel.endswith(".json") else f"protected {rel} [outdated]")
    ws.put(".dream/task-state.json", json.dumps({"tasks": []}))
    ws.put("junk.tmp")
    ws.put("MEMORY.md.bak", "old memory")
    ws.put("memory.md.tmp", "a name that only starts like a protected one")
    before = {rel: v for rel, v in tree(ws.workspace).items() if rel in PROTECTED}
    ws.small()
    ws.medium(include_suggested=True)
    after = tree(ws.workspace)
    for rel in PROTECTED:
        if rel == "MEMORY.md":
            assert (ws.workspace / rel).exists()
        else:
            assert after.get(rel) == before[rel], rel
    assert "MEMORY.md.bak" not in after, "MEMORY.md.bak is not MEMORY.md"
    assert "memory.md.tmp" not in after and "junk.tmp" not in after


def test_protect_matches_the_link_target_too(ws) -> None:
    ws.link("notes-link", "MEMORY.md")  # MEMORY.md itself is missing: the link is broken
    ws.link("data/old-skill", "../skills/gone/SKILL.md")
    ws.link("data/plain", "../missing.txt")
    made = ws.plan("medium")
    assert {i.rel for i in made.items} == {"data/plain"}
    kept = {p["path"] for p in made.protected}
    assert {"notes-link", "data/old-skill"} <= kept


def test_files_of_active_tasks_are_protected(ws) -> None:
    ws.put(".dream/task-state.json", json.dumps({"tasks": [
        {"title": "report", "status": "in_progress", "files": ["work/draft.tmp", "./work/data/"]},
        {"title": "old", "status": "done", "files": ["work/finished.tmp"]},
        {"title": "abs", "state": "blocked", "path": str(ws.workspace / "work" / "abs.bak")},
        {"title": "escape", "status": "active", "files": ["../../outside.tmp"]},
    ]}, ensure_ascii=False))
    for rel in ("work/draft.tmp", "work/data/cache.tmp", "work/finished.tmp", "work/abs.bak", "work/other.tmp"):
        ws.put(rel)
    ws.small()
    left = tree(ws.workspace)
    assert {"work/draft.tmp", "work/data/cache.tmp", "work/abs.bak"} <= set(left)
    assert "work/finished.tmp" not in left and "work/other.tmp" not in left


def test_files_of_active_tasks_are_protected_whatever_the_unicode_normalisation(ws) -> None:
    ws.put(".dream/task-state.json", json.dumps({"tasks": [
        {"title": "thesis", "status": "in_progress", "files": [unicodedata.normalize("NFC", "thèse/brouillon.tmp")]},
        {"title": "café", "status": "in_progress", "files": [unicodedata.normalize("NFD", "café.bak")]},
    ]}, ensure_ascii=False))
    draft = unicodedata.normalize("NFD", "thèse/brouillon.tmp")
    order = unicodedata.normalize("NFC", "café.bak")
    ws.put(draft)
    ws.put(order)
    ws.small()
    left = tree(ws.workspace)
    assert draft in left and order in left


def test_user_protect_patterns_win(ws) -> None:
    ws.configure('[autophagy]\nprotect = ["thesis/", "*.keep.tmp"]\n')
    ws.put("thesis/chapter.tmp")
    ws.put("a.keep.tmp")
    ws.put("b.tmp")
    ws.small()
    left = tree(ws.workspace)
    assert "thesis/chapter.tmp" in left and "a.keep.tmp" in left and "b.tmp" not in left


def test_protect_patterns_ignore_unicode_normalisation(ws) -> None:
    """The user types "thèse" (NFC); the folder's name on disk may be decomposed (NFD, as macOS writes it)."""
    decomposed = unicodedata.normalize("NFD", "café")
    ws.configure(f'[autophagy]\nprotect = ["thèse/", "{decomposed}.tmp"]\n')
    ws.put(unicodedata.normalize("NFD", "thèse") + "/draft.tmp", "the chapter")
    ws.put(unicodedata.normalize("NFC", "café") + ".tmp", "the order")
    ws.put("b.tmp")
    ws.small()
    left = tree(ws.workspace)
    assert unicodedata.normalize("NFD", "thèse/draft.tmp") in left
    assert unicodedata.normalize("NFC", "café.tmp") in left and "b.tmp" not in left


def test_protect_added_after_the_plan_still_wins(ws) -> None:
    ws.put("drafts/a.tmp")
    made = ws.plan("small")
    ws.configure('[autophagy]\nprotect = ["drafts/"]\n')
    result = ws.execute(made.plan_id)
    assert result["deleted"] == [] and result["skipped"][0]["path"] == "drafts/a.tmp"
    assert (ws.workspace / "drafts/a.tmp").exists()


@pytest.mark.parametrize("breakage", ["bad-json", "not-utf8", "a-folder", "a-symlink", "rule-file-missing",
                                      "rule-file-invalid", "protect-not-a-list"])
def test_unreadable_protect_configuration_deletes_nothing(ws, breakage: str) -> None:
    ws.put("junk.tmp")
    ws.put("broken.json", b"{")
    task_state = ws.workspace / ".dream" / "task-state.json"
    task_state.parent.mkdir()
    if breakage == "bad-json":
        task_state.write_text('{"tasks": [')
    elif breakage == "not-utf8":
        task_state.write_bytes(b'{"tasks": "\xff"}')
    elif breakage == "a-folder":
        task_state.mkdir()
    elif breakage == "a-symlink":
        ws.put("elsewhere.json", json.dumps({"tasks": []}))
        os.symlink("../elsewhere.json", task_state)
    elif breakage == "rule-file-missing":
        ws.configure_user('[autophagy]\nrule_files = ["missing.toml"]\n')
    elif breakage == "rule-file-invalid":
        ws.configure_user('[autophagy]\nrule_files = ["bad.toml"]\n')
        (ws.user_dir / "bad.toml").write_text("[protect]\npatterns = [")
    elif breakage == "protect-not-a-list":
        ws.configure('[autophagy]\nprotect = "skills/"\n')
    before = tree(ws.workspace)
    for run in (ws.small, lambda: ws.plan("medium"), ws.status):
        with pytest.raises(ConfigError):
            run()
    assert tree(ws.workspace) == before


def test_links_inside_a_folder_item_protected_by_name_or_target_stay(ws) -> None:
    """Found by the fuzz test: a link named like a protected folder, or pointing at a protected
    file, or made a minute ago, inside build output, stays (and so does the folder)."""
    ws.put("proj/build/out.o")
    ws.link("proj/build/skills", ws.outside)
    ws.link("proj/build/mem", "../../MEMORY.md")
    ws.link("proj/build/fresh", ws.outside, age=60)
    ws.link("proj/build/plain", ws.outside)
    result = ws.small()
    left = tree(ws.workspace)
    assert {"proj/build/skills", "proj/build/mem", "proj/build/fresh"} <= set(left)
    assert "proj/build/plain" not in left and "proj/build/out.o" not in left
    assert any(s["path"] == "proj/build" for s in result["skipped"])


def test_a_folder_item_holding_a_protected_folder_is_kept_whole(ws) -> None:
    """A repository that happens to be called build/ is work, not build output: its .git/ is
    protected, and so are the files of its working tree around it."""
    ws.put("build/.git/HEAD", "ref: refs/heads/main\n")
    ws.put("build/src/main.py", "print('unfinished work')\n")
    ws.put("dist/deep/skills/x/SKILL.md", "a skill")
    ws.put("dist/deep/notes.txt", "next to a skill")
    ws.put("proj/build/out.o")
    ws.put("lib/dist/.git", "gitdir: ../../.git/worktrees/dist\n")  # a git worktree: .git is a file
    ws.put("lib/dist/app.py", "print('work in a worktree')\n")
    ws.small()
    left = tree(ws.workspace)
    assert {"build/src/main.py", "build/.git/HEAD", "dist/deep/notes.txt", "dist/deep/skills/x/SKILL.md"} <= set(left)
    assert {"lib/dist/.git", "lib/dist/app.py"} <= set(left)
    assert "proj/build/out.o" not in left
