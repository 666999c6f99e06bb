from pathlib import Path

import pytest

from apollo import clock, config
from apollo.errors import ConfigError, UsageError
from apollo.workspace import Paths, resolve_lang, resolve_state_dir, resolve_workspace


def test_workspace_resolution_order(tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_workspace() == isolated_home / ".openclaw" / "workspace"
    monkeypatch.setenv("OPENCLAW_PROFILE", "work")
    assert resolve_workspace() == isolated_home / ".openclaw" / "workspace-work"
    monkeypatch.setenv("OPENCLAW_WORKSPACE_DIR", str(tmp_path / "env-ws"))
    assert resolve_workspace() == tmp_path / "env-ws"
    assert resolve_workspace(tmp_path / "flag-ws") == tmp_path / "flag-ws"


def test_state_dir_resolution_order(tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_state_dir() == isolated_home / ".openclaw"
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "state"))
    assert resolve_state_dir() == tmp_path / "state"
    assert resolve_state_dir(tmp_path / "flag") == tmp_path / "flag"


def test_paths_of_an_agent(tmp_path: Path) -> None:
    paths = Paths.resolve(tmp_path / "ws", tmp_path / "state", "helper")
    assert paths.sessions_dir == tmp_path / "state" / "agents" / "helper" / "sessions"
    assert paths.sessions_index.name == "sessions.json"
    assert paths.sqlite_store == tmp_path / "state" / "agents" / "helper" / "agent" / "openclaw-agent.sqlite"


@pytest.mark.parametrize("agent", ["../main", "a/b", "..", "."])
def test_agent_id_cannot_escape(tmp_path: Path, agent: str) -> None:
    with pytest.raises(UsageError):
        Paths.resolve(tmp_path, tmp_path, agent)


def test_language_from_flag_config_locale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    merged = config.load(tmp_path)
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    assert resolve_lang(None, merged) == "en"
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert resolve_lang(None, merged) == "zh"
    assert resolve_lang("en", merged) == "en"
    with pytest.raises(UsageError):
        resolve_lang("fr", merged)


@pytest.mark.parametrize(("variables", "lang"), [
    ({"LANG": "C.UTF-8"}, "en"),  # the C locale's messages are English
    ({"LANG": "POSIX"}, "en"),
    ({"LC_CTYPE": "zh_CN.UTF-8"}, "zh"),
    ({"LC_ALL": "en_GB.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),  # LC_ALL overrides LANG
    ({"LC_MESSAGES": "zh_TW.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),
    ({}, "zh"),
])
def test_language_from_the_locale_variables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            variables: dict[str, str], lang: str) -> None:
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LC_CTYPE"):
        monkeypatch.delenv(var, raising=False)
    for var, value in variables.items():
        monkeypatch.setenv(var, value)
    assert resolve_lang(None, config.load(tmp_path)) == lang


def test_clock_honours_apollo_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APOLLO_NOW", "2026-11-29T12:00:00+08:00")
    moment = clock.now()
    assert (moment.year, moment.month, moment.day, moment.hour) == (2026, 11, 29, 12)
    assert moment.utcoffset() is not None
    monkeypatch.setenv("APOLLO_NOW", "yesterday")
    with pytest.raises(ConfigError, match="APOLLO_NOW"):
        clock.now()
