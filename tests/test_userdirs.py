"""apollo.userdirs names the folders platformdirs would, without importing it on Linux."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest

from apollo.userdirs import user_dir


@pytest.mark.parametrize("xdg", [None, "", "  ", "/elsewhere/xdg"])
def test_same_folders_as_platformdirs(xdg: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    for variable in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        if xdg is None:
            monkeypatch.delenv(variable, raising=False)
        else:
            monkeypatch.setenv(variable, xdg)
    assert user_dir("config") == Path(platformdirs.user_config_dir("apollo"))
    assert user_dir("cache") == Path(platformdirs.user_cache_dir("apollo"))
