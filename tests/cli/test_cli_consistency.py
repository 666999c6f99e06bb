"""Every command of ``apollo`` keeps issue #2's promises: the shared options (``--workspace``,
``--json``, ``--lang zh|en``, ``-q``, ``-v``), exit code 2 for usage errors, one-line errors without a
traceback, ``--json`` that is one JSON document and nothing else, ``-q`` that really prints less, and
a ``--help`` that names every option.

The commands are found by walking the real typer app, so a command added later is checked without
being listed here; a command that cannot offer a shared option says why in ``EXCEPTIONS``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from apollo.cli.app import app
from realclient.support import realistic_session


def _walk(command: Any, path: tuple[str, ...] = ()) -> dict[str, Any]:
    if hasattr(command, "commands"):  # a group: its commands, recursively
        found: dict[str, Any] = {}
        for name, sub in command.commands.items():
            found.update(_walk(sub, (*path, name)))
        return found
    return {" ".join(path): command}


COMMANDS = _walk(get_command(app))
NAMES = sorted(COMMANDS)

#: the shared options and the names each must answer to
SHARED = {"--workspace": ("--workspace",), "--json": ("--json",), "--lang": ("--lang",),
          "--quiet": ("--quiet", "-q"), "--verbose": ("--verbose", "-v")}

#: command -> {shared option it does not take: why}
EXCEPTIONS: dict[str, dict[str, str]] = {
    "mcp": {
        "--json": "a stdio MCP server: stdout is the protocol stream, every answer is JSON already",
        "--quiet": "a stdio MCP server prints nothing for people that -q could leave out",
    },
    "demo": {
        "--workspace": "the demo builds its own copy of the example workspace (in --dest or a new temporary "
                       "folder) and never reads or touches yours",
    },
    "hook precompact": {
        "--json": "a Claude Code hook: stdout is always the hook's JSON answer ({\"systemMessage\"})",
        "--lang": "Claude Code calls it without options: the language comes from the project's config",
        "--quiet": "Claude Code reads its stdout; there is no human output to leave out",
    },
    "hook sessionstart": {
        "--json": "a Claude Code hook: stdout is always the hook's JSON answer ({\"hookSpecificOutput\"})",
        "--lang": "its answer is the saved items verbatim, in the words they were said",
        "--quiet": "Claude Code reads its stdout; there is no human output to leave out",
    },
    "engine serve": {
        "--json": "the OpenClaw plugin's process: stdout is the JSON-lines protocol",
        "--lang": "it answers the plugin in JSON; the items it keeps are verbatim",
        "--quiet": "it prints nothing for people that -q could leave out",
    },
    "hook session": {
        "--workspace": "it finds the Claude Code session of --project, not an OpenClaw workspace",
        "--json": "it prints one path, for the /renal command to read",
        "--lang": "it prints a path and no words",
        "--quiet": "the one path is all it prints",
    },
}

#: commands that do not read the workspace's config, so a broken config cannot make them fail
NO_WORKSPACE_CONFIG = {
    "demo": "runs on its own example workspace",
    "hook session": "only looks for a Claude Code session",
    "hook precompact": "never fails: a hook must not block Claude Code's compaction (tested below)",
    "hook sessionstart": "never fails: a hook must not stop a Claude Code session from starting",
    "engine serve": "the plugin passes --workspace only when configured; a broken config must not cost "
                    "a turn (the plugin fails open anyway)",
}

runner = CliRunner()


def _opts(command: Any) -> set[str]:
    return {name for param in command.params for name in (*param.opts, *param.secondary_opts)}


def _options(command: Any) -> list[Any]:
    return [param for param in command.params if param.param_type_name == "option"]


def _required_arguments(command: Any, value: str) -> list[str]:
    return [value for param in command.params if param.param_type_name == "argument" and param.required]


def _invoke(*args: str) -> Any:
    return runner.invoke(app, list(args), env={"TERMINAL_WIDTH": "240", "COLUMNS": "240"})


# ---- the options ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_every_command_takes_the_shared_options(name: str) -> None:
    have = _opts(COMMANDS[name])
    missing = [f"{option} ({'/'.join(n for n in names if n not in have)})"
               for option, names in SHARED.items()
               if option not in EXCEPTIONS.get(name, {}) and not set(names) <= have]
    assert not missing, f"apollo {name} lacks {', '.join(missing)}"


def test_every_exception_is_real_and_explained() -> None:
    """An exception may not outlive its reason: the command exists and still lacks the option."""
    for name, options in EXCEPTIONS.items():
        assert name in COMMANDS, f"EXCEPTIONS names {name!r}, which is not a command"
        for option, why in options.items():
            assert option in SHARED and len(why) > 20
            assert SHARED[option][0] not in _opts(COMMANDS[name]), f"apollo {name} now takes {option}: drop the exception"


@pytest.mark.parametrize("name", NAMES)
def test_help_exits_0_and_names_every_option(name: str) -> None:
    command = COMMANDS[name]
    result = _invoke(*name.split(), "--help")
    assert result.exit_code == 0, result.output
    assert (command.help or "").strip(), f"apollo {name} has no description"
    assert f"apollo {name}" in result.output  # the usage line
    for option in _options(command):
        assert option.opts[0] in result.output, f"apollo {name} --help does not mention {option.opts[0]}"
        assert (option.help or "").strip(), f"apollo {name} {option.opts[0]} has no help text"


@pytest.mark.parametrize("name", NAMES)
def test_usage_errors_exit_2(name: str, tmp_path: Path) -> None:
    command = COMMANDS[name]
    words = [*name.split(), *_required_arguments(command, "x")]
    unknown = _invoke(*words, "--no-such-option")
    assert unknown.exit_code == 2 and "--no-such-option" in unknown.output
    have = _opts(command)
    if "--workspace" in have:
        a_file = tmp_path / "a-file"
        a_file.write_text("not a folder\n")
        result = _invoke(*words, "--workspace", str(a_file))
        assert result.exit_code == 2 and "--workspace" in result.output, result.output
        result = _invoke(*words, "--workspace")
        assert result.exit_code == 2 and "--workspace" in result.output, result.output
    if "--lang" in have:
        result = _invoke(*words, "--lang", "fr")
        assert result.exit_code == 2 and "--lang" in result.output, result.output
    for result in (unknown,):
        assert "Traceback" not in result.output


def test_heartbeat_fast_path_leaves_usage_errors_to_the_cli(apollo_cli, tmp_path: Path) -> None:
    """``apollo heartbeat`` answers without typer; its usage errors must still be exit 2."""
    a_file = tmp_path / "a-file"
    a_file.write_text("x\n")
    for args in (["--workspace", str(a_file)], ["--state-dir", str(a_file)], ["--lang", "fr"], ["--nope"]):
        done = apollo_cli("heartbeat", *args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stdout == "" and "Traceback" not in done.stderr


# ---- what the commands print ------------------------------------------------------------------------

@pytest.fixture
def empty(tmp_path: Path) -> dict[str, Path]:
    """An empty workspace and state dir, and a small real session beside them."""
    places = {"workspace": tmp_path / "workspace", "state": tmp_path / "state"}
    for folder in places.values():
        folder.mkdir()
    places["session"] = realistic_session().write(tmp_path / "session.jsonl")
    return places


def _where(name: str, places: dict[str, Path]) -> list[str]:
    have = _opts(COMMANDS[name])
    return [*(["--workspace", str(places["workspace"])] if "--workspace" in have else []),
            *(["--state-dir", str(places["state"])] if "--state-dir" in have else [])]


#: read-only commands that succeed on an empty workspace (what an agent polls)
STATUS_LIKE = {
    "renal check": [],
    "autophagy status": [],
    "autophagy snapshots": [],
    "config show": [],
    "route": ["x"],
    "heartbeat": [],
    "transcript show": ["{session}"],
    "renal classify": ["{session}"],
}


def _status_args(name: str, places: dict[str, Path]) -> list[str]:
    extra = [word.format(session=places["session"]) for word in STATUS_LIKE[name]]
    return [*name.split(), *extra, *_where(name, places)]


@pytest.mark.parametrize("name", sorted(STATUS_LIKE))
def test_json_is_one_document_and_nothing_else(name: str, apollo_cli, empty: dict[str, Path]) -> None:
    done = apollo_cli(*_status_args(name, empty), "--json")
    assert done.returncode == 0, done.stderr
    assert isinstance(json.loads(done.stdout), dict)  # the whole of stdout is one JSON object
    assert "Traceback" not in done.stderr


#: status-like commands whose -q leaves something out (the others print only their essential line)
QUIET_SHORTER = {"renal check", "renal classify", "autophagy status", "config show", "route", "transcript show"}


@pytest.mark.parametrize("name", sorted(STATUS_LIKE))
def test_quiet_prints_only_lines_of_the_full_output(name: str, apollo_cli, empty: dict[str, Path]) -> None:
    args = [*_status_args(name, empty), "--lang", "en"]
    full = apollo_cli(*args, env={"COLUMNS": "200"})
    quiet = apollo_cli(*args, "-q", env={"COLUMNS": "200"})
    assert full.returncode == quiet.returncode == 0, quiet.stderr
    full_lines = [line for line in full.stdout.splitlines() if line.strip()]
    quiet_lines = [line for line in quiet.stdout.splitlines() if line.strip()]
    assert quiet_lines and set(quiet_lines) <= set(full_lines), quiet.stdout
    if name in QUIET_SHORTER:
        assert len(quiet_lines) < len(full_lines)


def test_quiet_install_prints_its_first_line_only(apollo_cli, tmp_path: Path) -> None:
    full_ws, quiet_ws = tmp_path / "a", tmp_path / "b"
    full_ws.mkdir()
    quiet_ws.mkdir()
    full = apollo_cli("install", "--workspace", str(full_ws), "--lang", "en")
    quiet = apollo_cli("install", "--workspace", str(quiet_ws), "--lang", "en", "-q")
    assert full.returncode == quiet.returncode == 0, quiet.stderr
    assert len(full.stdout.splitlines()) > 1
    assert quiet.stdout.splitlines() == [full.stdout.splitlines()[0].replace(str(full_ws), str(quiet_ws))]
    assert (quiet_ws / "skills" / "apollo-renal").is_dir()  # quiet, not idle


@pytest.mark.parametrize("name", [n for n in NAMES if n not in NO_WORKSPACE_CONFIG])
def test_an_error_is_one_line_without_traceback(name: str, apollo_cli, empty: dict[str, Path]) -> None:
    """A broken workspace config fails every command the same way: exit 1, one line naming the file
    and line, nothing on stdout (not even with --json), no traceback."""
    config = empty["workspace"] / ".apollo" / "config.toml"
    config.parent.mkdir()
    config.write_text("[renal]\nno_such_key = 1\n")
    command = COMMANDS[name]
    args = [*name.split(), *_required_arguments(command, str(empty["session"])), *_where(name, empty)]
    for extra in ([], ["--json"]) if "--json" in _opts(command) else ([],):
        done = apollo_cli(*args, *extra, input="")
        assert done.returncode == 1, (extra, done.stdout, done.stderr)
        assert done.stdout == ""
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("apollo: ") and "config.toml:2" in lines[0], done.stderr


def test_hooks_never_print_a_traceback(apollo_cli, tmp_path: Path) -> None:
    """Machine hooks: precompact answers JSON and exits 0 whatever its input; session fails in one line."""
    for hook_input in ("not json", "[]", "{}", json.dumps({"transcript_path": 5}),
                       json.dumps({"transcript_path": str(tmp_path), "cwd": str(tmp_path)})):
        done = apollo_cli("hook", "precompact", "--workspace", str(tmp_path), input=hook_input)
        assert done.returncode == 0
        assert "no snapshot before compaction" in json.loads(done.stdout)["systemMessage"]
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    done = apollo_cli("hook", "session", "--project", str(tmp_path))
    assert done.returncode == 1 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
