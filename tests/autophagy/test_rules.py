"""The rules are data: patterns match whole path components, rule files extend, and a rule
configuration that cannot be read stops everything."""

from __future__ import annotations

import fnmatch
import re
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apollo.autophagy import rules as rules_mod
from apollo.autophagy.rules import Pattern, PatternSet
from apollo.errors import ConfigError


def test_name_patterns_match_whole_components() -> None:
    memory = Pattern.compile("MEMORY.md")
    assert memory.matches("MEMORY.md", "MEMORY.md", False)
    assert memory.matches("notes/MEMORY.md", "MEMORY.md", False)
    assert not memory.matches("MEMORY.md.bak", "MEMORY.md.bak", False)
    assert not memory.matches("OLD-MEMORY.md", "OLD-MEMORY.md", False)


def test_protect_prefixes_cover_everything_below() -> None:
    protect = PatternSet.compile(["skills/", ".git/", ".dream/task-state.json"], ignore_case=True)
    assert protect.match_any_prefix(("skills", "x", "__pycache__", "a.pyc"), False)
    assert protect.match_any_prefix(("proj", ".git", "objects", "ab"), False)
    assert protect.match_any_prefix((".dream", "task-state.json"), False)
    assert not protect.match_any_prefix((".dream", "task-state.json.bak"), False)
    assert not protect.match_any_prefix(("skillset", "a.tmp"), False)
    assert protect.match_any_prefix(("SKILLS", "a.tmp"), False), "protect patterns ignore case"


def test_dir_only_and_anchored_patterns() -> None:
    build = Pattern.compile("build/")
    assert build.matches("a/build", "build", True)
    assert not build.matches("a/build", "build", False), "a file named build is not a build folder"
    anchored = Pattern.compile(".dream/reminders/")
    assert anchored.matches(".dream/reminders", "reminders", True)
    assert not anchored.matches("x/.dream/reminders", "reminders", True)
    stars = Pattern.compile("skills/**")
    assert stars.matches("skills", "skills", True) and stars.matches("skills/a/b", "b", False)
    assert not stars.matches("x/skills/a", "a", False)


@given(st.text(alphabet=string.ascii_letters + string.digits + "._-*?", min_size=1, max_size=8),
       st.text(alphabet=string.ascii_letters + string.digits + "._-", min_size=1, max_size=12))
def test_name_patterns_agree_with_fnmatch(pattern: str, name: str) -> None:
    if not pattern.strip("/"):
        return
    assert Pattern.compile(pattern).matches(name, name, False) == fnmatch.fnmatchcase(name, pattern)


def test_builtin_rules_load_and_follow_the_spec() -> None:
    loaded = rules_mod.load()
    protect = set(loaded.data.protect.patterns)
    for name in ("MEMORY.md", ".dream/task-state.json", "USER.md", "skills/", "SKILL.md", "AGENTS.md", "SOUL.md",
                 "IDENTITY.md", "TOOLS.md", "HEARTBEAT.md", ".autophagy/", ".renal/", ".git"):  # ".git": the folder, or a worktree's file
        assert name in protect
    small = {p for r in loaded.data.small for p in r.patterns}
    assert {"*.tmp", "*.pyc", "__pycache__/", "build/", "dist/", "*.egg-info/", ".pytest_cache/", "*.bak", "*~",
            "*.orig", "*.swp", "*.log"} <= small
    assert loaded.data.large.phrase == "确认大自噬"


def test_rule_file_extends_and_user_protect_adds(ws) -> None:
    ws.user_dir.mkdir(parents=True)
    (ws.user_dir / "extra.toml").write_text(
        '[[small]]\nkind = "crash_dump"\ncheck = "match"\npatterns = ["core.*"]\n'
        'reason = "core dump"\nreason_zh = "核心转储"\n[memory]\nmarkers = ["[废弃]"]\n', encoding="utf-8")
    ws.configure_user('[autophagy]\nrule_files = ["extra.toml"]\nprotect = ["keep-me/"]\n')
    loaded = rules_mod.load(ws.config())
    assert any(r.kind == "crash_dump" for r in loaded.data.small)
    assert "[废弃]" in loaded.data.memory.markers and "[过时]" in loaded.data.memory.markers
    assert "keep-me/" in loaded.data.protect.patterns and "MEMORY.md" in loaded.data.protect.patterns


@pytest.mark.parametrize("content, message", [
    (None, "cannot read"),
    ("[[small]\nbroken", "not valid TOML"),
    ('[protect.tasks]\nfile = "elsewhere.json"\n', "'protect.tasks' must be a list, got a table"),
    ('[protect]\ntasks = ["elsewhere.json"]\n', "cannot be changed"),
    ('[[small]]\nkind = "x"\ncheck = "match"\npatterns = ["*.x"]\nreason = "r"\nreason_zh = "r"\nidle_hours = "1"\n',
     "'small[0].idle_hours' must be float, got str"),
    ('[[medium]]\nkind = "x"\ncheck = "shred"\nreason = "r"\nreason_zh = "r"\n', "unknown check"),
    ('[large]\nphrase = "ok"\n', "unknown key 'large'"),
])
def test_unusable_rule_files_are_errors(ws, content: str | None, message: str) -> None:
    ws.user_dir.mkdir(parents=True)
    if content is not None:
        (ws.user_dir / "extra.toml").write_text(content, encoding="utf-8")
    ws.configure_user('[autophagy]\nrule_files = ["extra.toml"]\n')
    with pytest.raises(ConfigError, match=re.escape(message)) as caught:
        rules_mod.load(ws.config())
    assert str(ws.user_dir / "extra.toml") in caught.value.line() and "\n" not in caught.value.line()


def test_every_check_the_rules_accept_has_one_scan_function() -> None:
    """The scan dispatches by table: a check the rule loader accepts but the engine cannot apply
    (or one the engine applies that no rule may name) is a mistake in one of the two."""
    from apollo.autophagy.file_checks import FILE_CHECKS, LINK_CHECKS

    assert not set(FILE_CHECKS) & set(LINK_CHECKS)
    assert set(FILE_CHECKS) | set(LINK_CHECKS) == set(rules_mod.CHECKS)
