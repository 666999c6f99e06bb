"""Claude Code: the PreCompact hook writes renal's snapshot from a real Claude Code transcript, and
what `apollo install --claude-code` writes type-checks against Claude Code's own published types."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from apollo.integration import install as inst
from apollo.integration.claude_code import parse_hook_input, precompact, precompact_main
from realclient.support import install_claude_sdk

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples" / "claude-code"


def _transcript(tmp_path: Path, name: str = "cc-drmaciver-coverage-test-fix.jsonl") -> Path:
    source = SAMPLES / name
    if not source.is_file():
        pytest.skip(f"the shared Claude Code samples are not beside the repository ({SAMPLES})")
    dest = tmp_path / "session.jsonl"
    shutil.copyfile(source, dest)
    return dest


def _hook(transcript: Path, cwd: Path) -> str:
    """The JSON Claude Code sends a PreCompact hook (fields of the SDK's PreCompactHookInput)."""
    return json.dumps({"session_id": "8f0c", "transcript_path": str(transcript), "cwd": str(cwd),
                       "permission_mode": "default", "hook_event_name": "PreCompact", "trigger": "auto",
                       "custom_instructions": None})


def test_precompact_snapshots_the_important_content_and_leaves_the_transcript(tmp_path: Path) -> None:
    transcript = _transcript(tmp_path)
    original = transcript.read_bytes()
    project = tmp_path / "project"
    project.mkdir()
    result = precompact(parse_hook_input(_hook(transcript, project)))
    assert transcript.read_bytes() == original
    assert result.snapshot is not None and result.snapshot.parent == project / ".renal" / "snapshots"
    document = json.loads(result.snapshot.read_text(encoding="utf-8"))
    assert document["format"] == "claude-code" and document["source"] == str(transcript)
    assert document["items"] and {i["category"] for i in document["items"]} <= {"decision", "preference", "task",
                                                                                 "question"}
    assert sum(result.counts.values()) == len(document["items"])
    assert "multiply_numbers" in json.dumps(document, ensure_ascii=False)


def test_hook_command_prints_a_system_message_and_never_fails(apollo_cli, tmp_path: Path) -> None:
    transcript = _transcript(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    done = apollo_cli("hook", "precompact", input=_hook(transcript, project), env={"LANG": "en_US.UTF-8"})
    assert done.returncode == 0, done.stderr
    message = json.loads(done.stdout)["systemMessage"]
    assert message.startswith("🫘 apollo-renal: saved") and str(project / ".renal" / "snapshots") in message
    for bad in ("not json", json.dumps({"cwd": str(project)}),
                json.dumps({"transcript_path": str(tmp_path / "missing.jsonl"), "cwd": str(project)})):
        done = apollo_cli("hook", "precompact", input=bad)
        assert done.returncode == 0  # a hook must never block Claude Code's compaction
        assert "no snapshot before compaction" in json.loads(done.stdout)["systemMessage"]
        assert done.stderr.startswith("apollo: ") and "Traceback" not in done.stderr


def test_parse_hook_input_requires_the_transcript() -> None:
    with pytest.raises(inst.InputError, match="transcript_path"):
        parse_hook_input(json.dumps({"session_id": "x"}))
    with pytest.raises(inst.InputError, match="not JSON"):
        parse_hook_input("[")


# ---- against Claude Code's own published types ---------------------------------------------------

@pytest.fixture(scope="module")
def claude_types() -> Path:
    """TypeScript and the Claude Agent SDK's type declarations (no binaries, no peers, no scripts)."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    return install_claude_sdk()


def _typecheck(folder: Path, body: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    source = folder / f"apollo-check-{os.getpid()}-{tmp_path.name}.ts"
    source.write_text('import type { Settings, PreCompactHookInput, SyncHookJSONOutput } from '
                      '"@anthropic-ai/claude-agent-sdk";\n' + body + "\nexport {};\n", encoding="utf-8")
    try:
        return subprocess.run(["node", str(folder / "node_modules" / "typescript" / "bin" / "tsc"), "--noEmit",
                               "--strict", "--skipLibCheck", "--module", "nodenext", "--moduleResolution", "nodenext",
                               "--target", "es2022", str(source)], capture_output=True, text=True, timeout=300)
    finally:
        shutil.move(source, tmp_path / source.name)  # keep the cache folder clean, keep the file for a look


@pytest.mark.realclient
def test_installed_settings_and_hook_io_match_claude_codes_types(claude_types: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash(ls:*)"]}}))
    inst.install(inst.claude_code_target(project))
    settings = (project / ".claude" / "settings.json").read_text(encoding="utf-8")
    transcript = _transcript(tmp_path)
    hook_input = _hook(transcript, project)
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        assert precompact_main(hook_input) == 0
    body = (f"const settings: Settings = {settings};\n"
            f"const input: PreCompactHookInput = {hook_input};\n"
            f"const output: SyncHookJSONOutput = {captured.getvalue()};\n")
    done = _typecheck(claude_types, body, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    wrong = settings.replace('"type": "command"', '"type": "shell"')
    failed = _typecheck(claude_types, f"const settings: Settings = {wrong};", tmp_path)
    assert failed.returncode != 0 and "command" in failed.stdout  # the check can fail


# ---- finding the current session for /renal ------------------------------------------------------

def test_project_slug_matches_claude_codes_folder_names() -> None:
    from apollo.integration.claude_code import project_slug

    assert project_slug(Path("/Users/foo/src/github.com/omnara-ai/omnara")) == \
        "-Users-foo-src-github-com-omnara-ai-omnara"
    assert project_slug(Path("/home/user/my_example workspace")) == "-home-user-my-example-workspace"
    assert project_slug(Path("/home/u/文档")) == "-home-u---"


def test_hook_session_finds_the_newest_main_transcript(apollo_cli, tmp_path: Path) -> None:
    project = tmp_path / "my_proj.v2"
    project.mkdir()
    folder = tmp_path / "cc" / "projects" / ("-" + str(project).replace("/", "-")[1:].replace("_", "-")
                                             .replace(".", "-"))
    folder.mkdir(parents=True)
    for age, name in ((30, "old.jsonl"), (20, "current.jsonl"), (10, "agent-sub.jsonl")):
        path = folder / name
        path.write_text("{}\n", encoding="utf-8")
        os.utime(path, (1_800_000_000 - age, 1_800_000_000 - age))
    done = apollo_cli("hook", "session", "--project", str(project), env={"CLAUDE_CONFIG_DIR": str(tmp_path / "cc")})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(folder / "current.jsonl")
    missing = apollo_cli("hook", "session", "--project", str(tmp_path), env={"CLAUDE_CONFIG_DIR": str(tmp_path / "cc")})
    assert missing.returncode == 1 and "no Claude Code session for this folder" in missing.stderr
