"""Issue 12: what the agent can write (the workspace, its own command line and environment) never
steers what the user's cleanup deletes, restores or writes. One test per finding, each an attack
on a real temporary workspace with a separate HOME and state dir; every file inside and outside
is hashed before and after."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from apollo import clock
from apollo.errors import Refused
from autophagy.support import Ws, tree


def _world(ws: Ws) -> dict[str, dict]:
    """Every file the attack could reach: the workspace, the state dir, the outside folder, HOME."""
    return {name: tree(path) for name, path in (("workspace", ws.workspace), ("state", ws.state),
                                                ("outside", ws.outside), ("home", Path(os.environ["HOME"])))}


# -- finding 10: environment overrides --------------------------------------------------------------

def test_10_the_narrower_actor_wins(ws: Ws, monkeypatch: pytest.MonkeyPatch) -> None:
    ws.put("broken.json", b"{")
    monkeypatch.setenv("APOLLO_ACTOR", "subagent")
    before = _world(ws)
    with pytest.raises(Refused, match="main agent only"):
        ws.plan("medium", actor="main")
    assert _world(ws) == before


def test_10_the_narrower_actor_wins_on_the_command_line(ws: Ws, apollo_cli) -> None:
    ws.put("broken.json", b"{")
    before = _world(ws)
    done = apollo_cli("autophagy", "medium", "--as", "main", "--workspace", str(ws.workspace), "--state-dir",
                      str(ws.state), env={"APOLLO_ACTOR": "subagent"})
    assert done.returncode == 4 and "main agent only" in done.stderr
    assert _world(ws) == before


def test_10_a_clock_override_never_decides_a_real_deletion(ws: Ws, monkeypatch: pytest.MonkeyPatch) -> None:
    ws.put("old.tmp", age=3 * 86400)
    ws.small()  # a real snapshot, made now
    ws.put("fresh.tmp", "written seconds ago", age=5)
    clock.pin(None)  # the system clock, as a user has it ...
    monkeypatch.setenv("APOLLO_NOW", "2099-01-01T00:00:00+00:00")  # ... with a far future in the environment
    before = _world(ws)
    shown = ws.plan("small")  # plans and dry runs may use it (they change nothing but the plan folder)
    assert [i.rel for i in shown.items] == ["fresh.tmp"]
    assert len(ws.snapshots()) == 1, "a plan under APOLLO_NOW purged a fresh snapshot"
    with pytest.raises(Refused, match="APOLLO_NOW"):
        ws.execute(shown.plan_id)
    with pytest.raises(Refused, match="APOLLO_NOW"):
        ws.small()
    after = _world(ws)
    assert after["state"] == before["state"] and after["outside"] == before["outside"]
    assert {k: v for k, v in after["workspace"].items() if "/plans" not in k} == \
        {k: v for k, v in before["workspace"].items() if "/plans" not in k}
    assert (ws.workspace / "fresh.tmp").exists()
