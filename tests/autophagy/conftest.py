"""Fixtures of the autophagy tests (helpers live in autophagy/support.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from apollo import clock
from autophagy.support import NOW, Ws


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ws:
    clock.pin(NOW)  # in code: APOLLO_NOW never decides a real deletion (tests/conftest.py releases it)
    made = Ws(tmp_path / "case")
    made.workspace.mkdir(parents=True)
    made.state.mkdir()
    made.outside.mkdir()
    return made
