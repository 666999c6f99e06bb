"""Second adversarial pass: APOLLO_CONFIG is the agent's environment. Pointed at a file inside
the workspace (which the agent writes), that file is held to the workspace's limits: it may not
name rule files, lower recent_minutes or move a write."""

from __future__ import annotations

import pytest

from apollo.errors import ConfigError
from autophagy.support import Ws
from autophagy.test_trust_boundaries import _world

RULES = ('[[small]]\nkind = "x"\ncheck = "match"\ntype = "file"\npatterns = ["*.py", "*.md"]\n'
         'category = "redundant"\nreason = "x"\nreason_zh = "x"\n')


@pytest.mark.parametrize("setting", ['rule_files = ["r.toml"]', "recent_minutes = 0",
                                     'log_file = "/tmp/elsewhere.md"'])
def test_a_config_in_the_workspace_named_by_apollo_config_is_the_workspaces(ws: Ws, setting: str,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    ws.put("src/app.py", "print(1)\n")
    ws.put("notes.md", "notes\n")
    ws.put(".hidden/r.toml", RULES)
    ws.put(".hidden/c.toml", f"[autophagy]\n{setting}\n")
    monkeypatch.setenv("APOLLO_CONFIG", str(ws.workspace / ".hidden" / "c.toml"))
    before = _world(ws)
    with pytest.raises(ConfigError, match="not in the workspace's|not lower it"):
        ws.small(actor="subagent")
    assert _world(ws) == before
