"""The CLI shell: version, help, config show, exit codes and one-line errors."""

import json
from pathlib import Path

from apollo import __version__


def test_version(apollo_cli) -> None:
    result = apollo_cli("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"apollo {__version__}"


def test_help_lists_the_groups(apollo_cli) -> None:
    result = apollo_cli("--help")
    assert result.returncode == 0
    for group in ("renal", "autophagy", "heartbeat", "route", "install", "demo", "config", "transcript"):
        assert group in result.stdout


def test_unknown_command_is_a_usage_error(apollo_cli) -> None:
    assert apollo_cli("frobnicate").returncode == 2


def test_config_show_json_names_sources(apollo_cli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".apollo").mkdir(parents=True)
    (ws / ".apollo" / "config.toml").write_text("[renal]\ntoken_threshold = 1234\n")
    result = apollo_cli("config", "show", "--workspace", str(ws), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["values"]["renal"]["token_threshold"] == 1234
    assert data["sources"]["renal.token_threshold"].endswith(".apollo/config.toml")
    assert data["sources"]["renal.density_threshold"] == "default"


def test_bad_config_is_one_line_exit_1(apollo_cli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".apollo").mkdir(parents=True)
    (ws / ".apollo" / "config.toml").write_text("[renal]\nnope = 1\n")
    result = apollo_cli("config", "show", "--workspace", str(ws))
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "config.toml:2" in lines[0] and "renal.nope" in lines[0]
    assert "Traceback" not in result.stderr


def test_verbose_shows_the_traceback(apollo_cli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".apollo").mkdir(parents=True)
    (ws / ".apollo" / "config.toml").write_text("[renal\n")
    result = apollo_cli("config", "show", "--workspace", str(ws), "-v")
    assert result.returncode == 1
    assert "Traceback" in result.stderr
