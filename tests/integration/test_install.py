"""`apollo install`: skills, wrappers and the HEARTBEAT.md block in a real workspace folder;
idempotent, never overwriting what Apollo did not write, and uninstalled exactly."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apollo.integration import install as inst

FILES = ["skills/apollo-renal/SKILL.md", "skills/apollo-autophagy/SKILL.md", "scripts/renal/renal-check.sh",
         "scripts/autophagy/autophagy.sh"]


def tree_state(root: Path) -> dict[str, tuple[bytes | str, int]]:
    """Every entry below root: bytes (or link target) and mode, to compare before/after."""
    out: dict[str, tuple[bytes | str, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = path.lstat()
            rel = str(path.relative_to(root))
            if stat.S_ISLNK(st.st_mode):
                out[rel] = (os.readlink(path), st.st_mode)
            elif stat.S_ISREG(st.st_mode):
                out[rel] = (path.read_bytes(), st.st_mode)
            else:
                out[rel] = (b"<dir>", st.st_mode)
    return out


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "workspace"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("# agents\n", encoding="utf-8")
    return ws


def frontmatter(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[0] == "---"
    end = lines.index("---", 1)
    return dict(line.split(": ", 1) for line in lines[1:end])


def test_fresh_install_writes_every_file_with_openclaw_frontmatter(workspace: Path) -> None:
    report = inst.install(inst.openclaw_target(workspace))
    assert not report.problems
    assert [s.action for s in report.steps] == ["created"] * 5
    for rel in FILES:
        assert (workspace / rel).is_file()
    for name, emoji in (("apollo-renal", "🫘"), ("apollo-autophagy", "🔥")):
        meta = frontmatter(workspace / "skills" / name / "SKILL.md")
        assert meta["name"] == name
        assert json.loads(meta["description"])  # a quoted YAML string
        parsed = json.loads(meta["metadata"])  # single-line JSON, as OpenClaw's fallback parser needs
        assert parsed == {"openclaw": {"emoji": emoji, "requires": {"bins": ["apollo"]}}}
        body = (workspace / "skills" / name / "SKILL.md").read_text(encoding="utf-8")
        assert "{baseDir}" in body and "确认" in body and "confirm" in body
    for script in FILES[2:]:
        assert (workspace / script).stat().st_mode & 0o111 == 0o111
    heartbeat = (workspace / "HEARTBEAT.md").read_text(encoding="utf-8")
    assert heartbeat.startswith(inst.HEARTBEAT_BEGIN) and heartbeat.rstrip().endswith(inst.HEARTBEAT_END)
    assert "apollo heartbeat" in heartbeat
    manifest = json.loads((workspace / inst.MANIFEST).read_text())
    assert sorted(manifest["files"]) == sorted(FILES)
    assert ".apollo" in manifest["dirs"] and "skills/apollo-renal" in manifest["dirs"]


def test_second_install_changes_nothing(workspace: Path) -> None:
    inst.install(inst.openclaw_target(workspace))
    before = tree_state(workspace)
    report = inst.install(inst.openclaw_target(workspace))
    assert {s.action for s in report.steps} == {"unchanged"}
    assert tree_state(workspace) == before  # not even the manifest is rewritten


def test_executable_bit_survives_a_strict_umask(workspace: Path) -> None:
    old = os.umask(0o077)
    try:
        inst.install(inst.openclaw_target(workspace))
    finally:
        os.umask(old)
    assert (workspace / "scripts/autophagy/autophagy.sh").stat().st_mode & 0o100


def test_a_file_apollo_did_not_write_is_never_overwritten(workspace: Path) -> None:
    seed_skill = workspace / "skills" / "apollo-autophagy" / "SKILL.md"
    seed_skill.parent.mkdir(parents=True)
    seed_skill.write_text("---\nname: apollo-autophagy\ndescription: the seed's own skill\n---\n", encoding="utf-8")
    for force in (False, True):
        report = inst.install(inst.openclaw_target(workspace), force=force)
        assert [s.rel for s in report.problems] == ["skills/apollo-autophagy/SKILL.md"]
        assert report.problems[0].action == "conflict"
        assert seed_skill.read_text(encoding="utf-8").endswith("the seed's own skill\n---\n")
    assert (workspace / "skills/apollo-renal/SKILL.md").is_file()
    manifest = json.loads((workspace / inst.MANIFEST).read_text())
    assert "skills/apollo-autophagy/SKILL.md" not in manifest["files"]
    with pytest.raises(inst.Refused):
        report.raise_for_problems()


def test_identical_file_is_adopted(workspace: Path) -> None:
    inst.install(inst.openclaw_target(workspace))
    (workspace / inst.MANIFEST).write_bytes(b'{"format": 1}')  # manifest lost its records
    report = inst.install(inst.openclaw_target(workspace))
    assert {s.action for s in report.steps if s.rel in FILES} == {"adopted"}


def test_user_edits_are_kept_unless_forced_and_then_backed_up(workspace: Path) -> None:
    inst.install(inst.openclaw_target(workspace))
    skill = workspace / "skills/apollo-renal/SKILL.md"
    edited = skill.read_text(encoding="utf-8") + "\nmy own note\n"
    skill.write_text(edited, encoding="utf-8")
    report = inst.install(inst.openclaw_target(workspace))
    assert [s.action for s in report.steps if s.rel == "skills/apollo-renal/SKILL.md"] == ["kept-modified"]
    assert skill.read_text(encoding="utf-8") == edited and not report.problems

    report = inst.install(inst.openclaw_target(workspace), force=True)
    step = next(s for s in report.steps if s.rel == "skills/apollo-renal/SKILL.md")
    assert step.action == "replaced"
    assert "my own note" not in skill.read_text(encoding="utf-8")
    backups = list((workspace / inst.BACKUP_DIR).rglob("SKILL.md.*"))
    assert len(backups) == 1 and backups[0].read_text(encoding="utf-8") == edited


def test_force_refreshes_an_outdated_file_it_wrote(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inst.install(inst.openclaw_target(workspace))
    target = inst.openclaw_target(workspace)
    newer = tuple(inst.FileItem(i.rel, i.content + b"\n# newer\n", i.executable)
                  if isinstance(i, inst.FileItem) and i.rel.endswith("renal-check.sh") else i for i in target.items)
    newer_target = inst.Target(target.kind, target.root, newer)
    report = inst.install(newer_target)
    assert next(s for s in report.steps if s.rel.endswith("renal-check.sh")).action == "outdated"
    assert not (workspace / "scripts/renal/renal-check.sh").read_bytes().endswith(b"# newer\n")
    report = inst.install(newer_target, force=True)
    assert next(s for s in report.steps if s.rel.endswith("renal-check.sh")).action == "updated"
    assert (workspace / "scripts/renal/renal-check.sh").read_bytes().endswith(b"# newer\n")
    assert (workspace / "scripts/renal/renal-check.sh").stat().st_mode & 0o111 == 0o111
    assert not (workspace / inst.BACKUP_DIR).exists()  # it was ours, unmodified: nothing to keep


def test_existing_heartbeat_gets_the_block_appended_and_keeps_its_text(workspace: Path) -> None:
    original = "# Heartbeat\n\n- check the inbox\n"
    (workspace / "HEARTBEAT.md").write_text(original, encoding="utf-8")
    report = inst.install(inst.openclaw_target(workspace))
    assert next(s for s in report.steps if s.rel == "HEARTBEAT.md").action == "block-added"
    text = (workspace / "HEARTBEAT.md").read_text(encoding="utf-8")
    assert text.startswith(original + "\n" + inst.HEARTBEAT_BEGIN)
    assert text.count(inst.HEARTBEAT_BEGIN) == 1
    inst.install(inst.openclaw_target(workspace))
    assert (workspace / "HEARTBEAT.md").read_text(encoding="utf-8") == text


def test_broken_markers_leave_heartbeat_alone(workspace: Path) -> None:
    broken = f"# Heartbeat\n{inst.HEARTBEAT_BEGIN}\nhalf a block\n"
    (workspace / "HEARTBEAT.md").write_text(broken, encoding="utf-8")
    report = inst.install(inst.openclaw_target(workspace))
    assert [s.rel for s in report.problems] == ["HEARTBEAT.md"]
    assert (workspace / "HEARTBEAT.md").read_text(encoding="utf-8") == broken


def test_symlinked_skills_folder_is_refused_not_followed(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace / "skills").symlink_to(outside, target_is_directory=True)
    with pytest.raises(inst.Refused, match="symlink"):
        inst.install(inst.openclaw_target(workspace))
    assert list(outside.iterdir()) == []


def test_cli_refuses_a_symlinked_folder_with_exit_4(apollo_cli, workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (workspace / "scripts").symlink_to(outside, target_is_directory=True)
    done = apollo_cli("install", "-w", str(workspace))
    assert done.returncode == 4 and "symlink" in done.stderr and "Traceback" not in done.stderr
    assert list(outside.iterdir()) == []


def test_missing_workspace_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(inst.InputError, match="workspace does not exist"):
        inst.install(inst.openclaw_target(tmp_path / "nope"))


def test_wrappers_find_the_workspace_and_pass_arguments(workspace: Path, tmp_path: Path) -> None:
    inst.install(inst.openclaw_target(workspace))
    fake = tmp_path / "bin" / "apollo"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\nprintf "%s|" "$OPENCLAW_WORKSPACE_DIR" "$@"\n', encoding="utf-8")
    fake.chmod(0o755)
    env = {**os.environ, "APOLLO_BIN": str(fake)}
    cwd = tmp_path  # run from elsewhere: the wrapper still knows its workspace
    done = subprocess.run(["bash", str(workspace / "scripts/autophagy/autophagy.sh"), "medium", "--confirm", "p 1"],
                          capture_output=True, text=True, env=env, cwd=cwd)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{workspace.resolve()}|autophagy|medium|--confirm|p 1|"
    done = subprocess.run([str(workspace / "scripts/renal/renal-check.sh"), "--json"], capture_output=True, text=True,
                          env=env, cwd=cwd)
    assert done.stdout == f"{workspace.resolve()}|renal|check|--json|"
    usage = subprocess.run(["bash", str(workspace / "scripts/autophagy/autophagy.sh")], capture_output=True, text=True,
                           env=env)
    assert usage.returncode == 2 and "status|small|medium|large" in usage.stderr


def test_wrapper_falls_back_to_python_module_and_explains_when_missing(workspace: Path, tmp_path: Path) -> None:
    inst.install(inst.openclaw_target(workspace))
    only_python = tmp_path / "only-python"
    only_python.mkdir()
    (only_python / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    (only_python / "python3").chmod(0o755)  # Apollo importable, but no `apollo` on PATH
    for tool in ("bash", "dirname", "env"):
        (only_python / tool).symlink_to(shutil.which(tool))
    done = subprocess.run(["bash", str(workspace / "scripts/autophagy/autophagy.sh"), "--help"], capture_output=True,
                          text=True, env={"PATH": str(only_python), "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert "python -m apollo autophagy" in done.stdout and "status" in done.stdout
    nothing = tmp_path / "nothing"
    nothing.mkdir()
    (tmp_path / ".openclaw").mkdir()  # the OpenClaw state dir a check needs (a missing one is an error)
    for tool in ("bash", "dirname"):
        (nothing / tool).symlink_to(shutil.which(tool))
    done = subprocess.run([str(nothing / "bash"), str(workspace / "scripts/renal/renal-check.sh")], capture_output=True,
                          text=True, env={"PATH": str(nothing), "HOME": str(tmp_path)})
    # issue 13: a venv install (make demo) works with nothing on PATH: the Apollo that installed it
    assert done.returncode == 0, done.stderr
    assert "🫘" in done.stdout


def test_wrapper_explains_when_even_the_installing_apollo_is_gone(workspace: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inst, "apollo_path", lambda: str(tmp_path / "moved venv" / "bin" / "apollo"))
    inst.install(inst.openclaw_target(workspace))
    script = (workspace / "scripts/renal/renal-check.sh").read_text()
    assert f"[ -x '{tmp_path / 'moved venv' / 'bin' / 'apollo'}' ]" in script
    nothing = tmp_path / "nothing"
    nothing.mkdir()
    (tmp_path / ".openclaw").mkdir()  # the OpenClaw state dir a check needs (a missing one is an error)
    for tool in ("bash", "dirname"):
        (nothing / tool).symlink_to(shutil.which(tool))
    done = subprocess.run([str(nothing / "bash"), str(workspace / "scripts/renal/renal-check.sh")], capture_output=True,
                          text=True, env={"PATH": str(nothing), "HOME": str(tmp_path)})
    assert done.returncode == 127 and "pip install apollo-hygiene" in done.stderr


def test_heartbeat_block_and_renal_command_name_an_apollo_that_runs(workspace: Path, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # the venv's apollo is not on PATH (make demo)
    inst.install(inst.openclaw_target(workspace))
    inst.install(inst.claude_code_target(tmp_path / "project"))
    apollo = str(Path(sys.executable).parent / "apollo")
    assert f"`{apollo} heartbeat --workspace .`" in (workspace / "HEARTBEAT.md").read_text()
    command = (tmp_path / "project" / ".claude" / "commands" / "renal.md").read_text()
    assert f"Bash({apollo} hook session)" in command and "@APOLLO" not in command
    hooks = json.loads((tmp_path / "project" / ".claude" / "settings.json").read_text())["hooks"]
    assert {h["hooks"][0]["command"] for group in hooks.values() for h in group} == {
        f"{apollo} hook precompact", f"{apollo} hook sessionstart"}
    assert hooks["SessionStart"][0]["matcher"] == "compact"


# ---- Claude Code ----------------------------------------------------------------------------------

def test_claude_code_hook_is_merged_into_existing_settings(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    user_settings = {"permissions": {"allow": ["Bash(ls:*)"]}, "hooks": {"PreCompact": [
        {"matcher": "manual", "hooks": [{"type": "command", "command": "backup.sh"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}
    (project / ".claude/settings.json").write_text(json.dumps(user_settings), encoding="utf-8")
    report = inst.install(inst.claude_code_target(project))
    assert not report.problems
    settings = json.loads((project / ".claude/settings.json").read_text())
    assert settings["permissions"] == user_settings["permissions"]
    assert settings["hooks"]["Stop"] == user_settings["hooks"]["Stop"]
    groups = settings["hooks"]["PreCompact"]
    assert groups[0] == user_settings["hooks"]["PreCompact"][0]
    ours = groups[1]["hooks"][0]
    assert ours["type"] == "command" and ours["command"].endswith("hook precompact")
    assert (project / ".claude/commands/renal.md").read_text(encoding="utf-8").startswith("---\ndescription:")
    again = inst.install(inst.claude_code_target(project))
    assert {s.action for s in again.steps} == {"unchanged"}
    assert len(json.loads((project / ".claude/settings.json").read_text())["hooks"]["PreCompact"]) == 2


def test_claude_code_settings_that_are_not_json_are_left_alone(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude/settings.json").write_text("{ not json", encoding="utf-8")
    report = inst.install(inst.claude_code_target(project))
    assert {s.rel for s in report.problems} == {"settings.json"}  # one problem per hook, same file
    assert (project / ".claude/settings.json").read_text(encoding="utf-8") == "{ not json"


def test_claude_code_default_is_the_user_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    target = inst.claude_code_target(None)
    assert target.root == tmp_path / "cc"
    inst.install(target)
    assert (tmp_path / "cc/settings.json").is_file() and (tmp_path / "cc/commands/renal.md").is_file()


def test_hook_ownership_survives_a_moved_apollo() -> None:
    item = inst.HookItem("settings.json", "PreCompact", "", "/old/venv/bin/apollo hook precompact")
    assert item.owns("apollo hook precompact") and item.owns("'/new place/apollo' hook precompact")
    assert not item.owns("apollo hook precompact --other") and not item.owns("backup.sh") and not item.owns(None)


# ---- the command ----------------------------------------------------------------------------------

def test_cli_install_json_and_exit_codes(apollo_cli, workspace: Path) -> None:
    done = apollo_cli("install", "--workspace", str(workspace), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["ok"] and {s["action"] for s in data["steps"]} == {"created"}
    (workspace / "skills/apollo-renal/SKILL.md").write_text("mine", encoding="utf-8")
    (workspace / inst.MANIFEST).write_bytes(b'{"format": 1}')
    done = apollo_cli("install", "--workspace", str(workspace))
    assert done.returncode == 4
    assert "exists and was not written by Apollo" in done.stdout and "move the file away" in done.stderr
    bad = apollo_cli("install", "--project", str(workspace))
    assert bad.returncode == 2 and "--claude-code" in bad.stderr


# ---- uninstall ------------------------------------------------------------------------------------

def test_uninstall_restores_the_workspace_exactly(workspace: Path) -> None:
    (workspace / "skills" / "weather").mkdir(parents=True)
    (workspace / "skills" / "weather" / "SKILL.md").write_text("---\nname: weather\n---\n", encoding="utf-8")
    (workspace / "HEARTBEAT.md").write_text("# Heartbeat\n\n- check the inbox\n", encoding="utf-8")
    before = tree_state(workspace)
    inst.install(inst.openclaw_target(workspace))
    report = inst.uninstall(inst.openclaw_target(workspace))
    assert not report.problems
    assert {s.rel: s.action for s in report.steps} == {**{rel: "removed" for rel in FILES},
                                                      "HEARTBEAT.md": "block-removed"}
    assert tree_state(workspace) == before  # the user's skill, their HEARTBEAT.md text, nothing of ours


def test_uninstall_of_a_fresh_workspace_removes_created_files_and_folders(workspace: Path) -> None:
    before = tree_state(workspace)
    inst.install(inst.openclaw_target(workspace))
    inst.uninstall(inst.openclaw_target(workspace))
    assert tree_state(workspace) == before
    again = inst.uninstall(inst.openclaw_target(workspace))
    assert [s.action for s in again.steps] == ["nothing"]


def test_uninstall_keeps_what_the_user_changed_or_added(workspace: Path) -> None:
    inst.install(inst.openclaw_target(workspace))
    (workspace / "skills/apollo-renal/SKILL.md").write_text("my rewrite", encoding="utf-8")
    (workspace / "skills/apollo-autophagy/notes.md").write_text("mine", encoding="utf-8")
    (workspace / "HEARTBEAT.md").write_text((workspace / "HEARTBEAT.md").read_text(encoding="utf-8")
                                            + "\n- my own check\n", encoding="utf-8")
    report = inst.uninstall(inst.openclaw_target(workspace))
    steps = {s.rel: s.action for s in report.steps}
    assert steps["skills/apollo-renal/SKILL.md"] == "kept-modified"
    assert steps["skills/apollo-autophagy/SKILL.md"] == "removed"
    assert steps["HEARTBEAT.md"] == "block-removed"
    assert (workspace / "skills/apollo-renal/SKILL.md").read_text(encoding="utf-8") == "my rewrite"
    assert (workspace / "skills/apollo-autophagy/notes.md").read_text(encoding="utf-8") == "mine"
    assert (workspace / "HEARTBEAT.md").read_text(encoding="utf-8") == "- my own check\n"
    assert not (workspace / inst.MANIFEST).exists()


def test_uninstall_never_follows_a_symlink_swapped_in(workspace: Path, tmp_path: Path) -> None:
    inst.install(inst.openclaw_target(workspace))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "SKILL.md").write_bytes((workspace / "skills/apollo-renal/SKILL.md").read_bytes())
    renal_dir = workspace / "skills/apollo-renal"
    (renal_dir / "SKILL.md").unlink()
    renal_dir.rmdir()
    renal_dir.symlink_to(outside, target_is_directory=True)
    with pytest.raises(inst.Refused, match="symlink"):
        inst.uninstall(inst.openclaw_target(workspace))
    assert (outside / "SKILL.md").is_file()


def test_claude_code_uninstall_leaves_the_users_settings_as_they_were(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    settings = {"model": "opus", "hooks": {"PreCompact": [{"matcher": "", "hooks": [
        {"type": "command", "command": "backup.sh"}]}]}}
    (project / ".claude/settings.json").write_text(json.dumps(settings), encoding="utf-8")
    inst.install(inst.claude_code_target(project))
    report = inst.uninstall(inst.claude_code_target(project))
    assert not report.problems
    assert json.loads((project / ".claude/settings.json").read_text()) == settings
    assert not (project / ".claude/commands").exists() and not (project / ".claude/.apollo").exists()


def test_claude_code_uninstall_removes_a_settings_file_it_created(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    inst.install(inst.claude_code_target(project))
    assert (project / ".claude/settings.json").is_file()
    inst.uninstall(inst.claude_code_target(project))
    assert list(project.iterdir()) == [project / ".claude"]  # the folder is the target itself
    assert list((project / ".claude").iterdir()) == []


def test_cli_uninstall(apollo_cli, workspace: Path) -> None:
    assert apollo_cli("install", "-w", str(workspace)).returncode == 0
    done = apollo_cli("install", "-w", str(workspace), "--uninstall", "--lang", "en")
    assert done.returncode == 0, done.stderr
    assert "removed" in done.stdout and not (workspace / "skills").exists()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.none(), st.text(max_size=200).filter(lambda s: "apollo:" not in s)))
def test_install_then_uninstall_gives_back_the_users_heartbeat_byte_for_byte(tmp_path: Path,
                                                                             heartbeat: str | None) -> None:
    with tempfile.TemporaryDirectory(dir=tmp_path) as folder:
        workspace = Path(folder)
        if heartbeat is not None:
            (workspace / "HEARTBEAT.md").write_bytes(heartbeat.encode("utf-8"))
        before = tree_state(workspace)
        inst.install(inst.openclaw_target(workspace))
        text = (workspace / "HEARTBEAT.md").read_bytes().decode("utf-8")  # bytes: "\r" stays "\r"
        assert text.count(inst.HEARTBEAT_BEGIN) == 1 and (heartbeat or "") in text
        inst.install(inst.openclaw_target(workspace))  # idempotent on any text
        assert (workspace / "HEARTBEAT.md").read_bytes().decode("utf-8") == text
        report = inst.uninstall(inst.openclaw_target(workspace))
        assert not report.problems
        assert tree_state(workspace) == before


# ---- OpenClaw context engine (openclaw.json) ----------------------------------------------------

def _engine_keys(config: dict) -> tuple:
    plugins = config["plugins"]
    return (plugins["slots"]["contextEngine"], plugins["entries"]["apollo-renal"], plugins["load"]["paths"])


def test_context_engine_install_selects_the_plugin_and_uninstall_restores_the_bytes(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    original = b'{"agents":{"defaults":{"workspace":"/w"}},\n "plugins": {"load": {"paths": ["/other"]}}}'
    (state / "openclaw.json").write_bytes(original)
    before = tree_state(state)
    report = inst.install(inst.context_engine_target(state))
    assert [(s.rel, s.action) for s in report.steps] == [("openclaw.json", "configured")]
    config = json.loads((state / "openclaw.json").read_text())
    slot, entry, paths = _engine_keys(config)
    assert slot == "apollo-renal" and entry["enabled"] is True
    assert paths == ["/other", str(inst.engine_plugin_dir())]
    assert (inst.engine_plugin_dir() / "openclaw.plugin.json").is_file()
    assert Path(entry["config"]["command"][0]).is_absolute() and entry["config"]["stateDir"] == str(state)
    assert config["agents"] == {"defaults": {"workspace": "/w"}}
    installed = tree_state(state)
    again = inst.install(inst.context_engine_target(state))
    assert [s.action for s in again.steps] == ["unchanged"] and tree_state(state) == installed
    report = inst.uninstall(inst.context_engine_target(state))
    assert [s.action for s in report.steps] == ["restored"]
    assert (state / "openclaw.json").read_bytes() == original and tree_state(state) == before


def test_context_engine_without_openclaw_json_creates_then_removes_it(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    inst.install(inst.context_engine_target(state))
    assert _engine_keys(json.loads((state / "openclaw.json").read_text()))[0] == "apollo-renal"
    inst.uninstall(inst.context_engine_target(state))
    assert list(state.iterdir()) == []


def test_context_engine_never_rewrites_a_file_it_cannot_parse(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    json5 = b'{\n  // OpenClaw reads JSON5: comments must survive\n  agents: {defaults: {workspace: "/w"}},\n}\n'
    (state / "openclaw.json").write_bytes(json5)
    report = inst.install(inst.context_engine_target(state))
    assert [s.action for s in report.problems] == ["unreadable"]
    assert "openclaw config set plugins.slots.contextEngine" in report.problems[0].detail
    assert (state / "openclaw.json").read_bytes() == json5


def test_context_engine_uninstall_after_the_user_edited_takes_out_only_apollos_keys(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "openclaw.json").write_text('{"plugins": {"load": {"paths": ["/other"]}}}')
    inst.install(inst.context_engine_target(state))
    config = json.loads((state / "openclaw.json").read_text())
    config["gateway"] = {"port": 1234}
    (state / "openclaw.json").write_text(json.dumps(config))
    report = inst.uninstall(inst.context_engine_target(state))
    assert [s.action for s in report.steps] == ["settings-removed"]
    assert json.loads((state / "openclaw.json").read_text()) == {
        "plugins": {"load": {"paths": ["/other"]}, "entries": {}, "slots": {}}, "gateway": {"port": 1234}}


_json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                         max_size=3), max_leaves=8)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(config=st.dictionaries(st.text(min_size=1, max_size=6).filter(lambda k: k != "plugins"), _json_values,
                              max_size=4),
       indent=st.sampled_from([None, 2, 4, "\t"]))
def test_context_engine_install_then_uninstall_is_byte_identical_for_any_json(tmp_path: Path, config: dict,
                                                                              indent: object) -> None:
    state = Path(tempfile.mkdtemp(dir=tmp_path))
    original = json.dumps(config, indent=indent, ensure_ascii=False).encode()  # type: ignore[arg-type]
    (state / "openclaw.json").write_bytes(original)
    inst.install(inst.context_engine_target(state))
    installed = tree_state(state)
    inst.install(inst.context_engine_target(state))
    assert tree_state(state) == installed
    inst.uninstall(inst.context_engine_target(state))
    assert (state / "openclaw.json").read_bytes() == original
    assert sorted(p.name for p in state.iterdir()) == ["openclaw.json"]


def test_claude_code_uninstall_leaves_settings_json_byte_identical(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    original = b'{\n    "model": "opus",\n    "env": {"A": "1"}\n}'  # the user's own layout, no final newline
    (project / ".claude/settings.json").write_bytes(original)
    inst.install(inst.claude_code_target(project))
    assert "SessionStart" in json.loads((project / ".claude/settings.json").read_text())["hooks"]
    report = inst.uninstall(inst.claude_code_target(project))
    assert ("settings.json", "restored") in [(s.rel, s.action) for s in report.steps]
    assert (project / ".claude/settings.json").read_bytes() == original
    assert sorted(p.name for p in (project / ".claude").iterdir()) == ["settings.json"]


def test_every_install_step_has_words_in_both_languages(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "openclaw.json").write_text("{}")
    for report in (inst.install(inst.context_engine_target(state)), inst.uninstall(inst.context_engine_target(state))):
        assert len(report.lines("en")) == len(report.lines("zh")) == 2
