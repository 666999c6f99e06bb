"""`/compact` under Apollo's engine, through a running OpenClaw gateway (the real 2026.9.6).

``openclaw sessions compact <key>`` is what the gateway's `/compact` runs: it asks the context
engine that owns compaction, with no model call. A session imported from a transcript shaped like a
real one (a decision, a preference, tool output, heartbeats) is asked something, compacted, then
asked a question through the same gateway: the request the model receives still carries every must-keep item, what
was evicted is gone from the messages and comes back verbatim from the recall tool's store, and no
Apollo process outlives the gateway. Its own xdist group, so it runs beside the other real-client
modules rather than after them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from apollo.integration.engine import recall_from
from apollo.integration.engine_store import Store, default_path
from realclient.engine_support import FakeModel, Gateway, Rig, text_of, tool_pairs, wait_gone
from realclient.support import legacy_state_dir, realistic_session

pytestmark = [pytest.mark.realclient, pytest.mark.slow, pytest.mark.xdist_group("openclaw-engine-compact")]

KEY = "agent:main:s0"
PREFERENCE = "I prefer tabs over spaces in Python files, always."
#: a tool output nobody refers to again: what a compaction may evict (recall gives it back)
OLD_OUTPUT = "\n".join(f"tests/test_module_{n:02d}.py::test_case PASSED" for n in range(40))
QUESTION = "What did we decide about deploys?"
DEGRADED = 'Context engine "apollo-renal" degraded'


def _session() -> Any:
    """The realistic session, then more turns, so its first turns lie outside the recent ones."""
    session = realistic_session()
    session.user("Run the whole test suite please.")
    session.tool("call_t", "exec", {"command": "pytest -q"}, OLD_OUTPUT)
    session.say("All 40 tests passed.")
    session.user(PREFERENCE)
    session.say("Noted: tabs in Python files.")
    session.heartbeat()
    for n in range(4):
        session.user(f"Check the queue length of worker {n}.")
        session.tool(f"call_q{n}", "exec", {"command": f"queue-len {n}"}, f"{n * 7}")
        session.say(f"Worker {n} has {n * 7} jobs queued.")
    return session


@pytest.fixture(scope="module")
def compacted(tmp_path_factory: pytest.TempPathFactory, openclaw_cli) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("engine-compact")
    model = FakeModel({"What did we decide": "Blue-green, as decided."})
    session = _session()
    legacy_state_dir(root, {session.session_id: session.write(root / "src" / "s.jsonl")})
    # on a CI machine busy with the other real-client modules, the first turn (the Apollo process's start, then its
    # first assemble) once took over the 5 s a request then had, and failed open; the plugin now adds its start-up
    # time to that request (test_context_engine.py), and this module, about /compact, not about timing, gives its
    # requests the bootstrap's time as well
    rig = Rig(root, openclaw_cli, model, apollo=True, timeout_ms=30000)
    openclaw_cli.import_legacy(rig.state)
    gateway = Gateway(rig)
    try:
        first = gateway.run("agent", "--agent", "main", "--session-key", KEY, "--message", "Any jobs left?", "--json")
        assert first.returncode == 0, first.stderr[-3000:]  # the engine has now seen the session
        compact = gateway.run("sessions", "compact", KEY, "--json")
        turn = gateway.run("agent", "--agent", "main", "--session-key", KEY, "--message", QUESTION, "--json")
    finally:
        log = gateway.stop()
    yield {"compact": compact, "turn": turn, "log": log, "rig": rig, "session": session.session_id,
           "requests": [r for r in model.requests if "messages" in r], "leftovers": wait_gone(rig.state)}
    model.close()


def test_compact_runs_in_apollos_engine_without_a_model_call(compacted: dict[str, Any]) -> None:
    done = compacted["compact"]
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout[done.stdout.index("{"):])
    assert result["ok"] and result["compacted"], result
    assert result["result"]["details"]["engine"] == "apollo-renal"
    assert result["result"]["details"]["evicted"] > 0
    assert result["result"]["tokensAfter"] < result["result"]["tokensBefore"]
    assert "blue-green" in result["result"]["summary"]
    # the compaction asked no model: the only chat requests are the two turns around it
    assert len(compacted["requests"]) == 2


def test_after_compact_the_model_gets_every_must_keep_item_and_not_the_evicted(compacted: dict[str, Any]) -> None:
    assert compacted["turn"].returncode == 0, compacted["turn"].stderr[-3000:]
    before, request = compacted["requests"]
    assert OLD_OUTPUT.splitlines()[7] in "\n".join(text_of(m) for m in before["messages"])  # there until /compact
    sent = "\n".join(text_of(m) for m in request["messages"])
    assert "We deploy with blue-green from now on" in sent
    assert PREFERENCE in sent
    assert QUESTION in sent
    assert OLD_OUTPUT.splitlines()[7] not in sent
    calls, results = tool_pairs(request)
    assert calls == results  # never a tool call without its result


def test_the_evicted_output_comes_back_verbatim_from_recall(compacted: dict[str, Any]) -> None:
    store = Store(default_path(compacted["rig"].state))
    try:
        found = recall_from(store, compacted["session"], query="test_module_07", limit=5)
    finally:
        store.close()
    assert any(f["text"] == OLD_OUTPUT for f in found), found


def test_the_gateway_never_degrades_the_engine_and_leaves_no_apollo_behind(compacted: dict[str, Any]) -> None:
    log: str = compacted["log"]
    assert "sessions.compact" in log
    assert DEGRADED not in log and "[apollo-renal]" not in log
    assert compacted["leftovers"] == []
    assert compacted["rig"].root.joinpath("gateway.log").is_file()


def test_the_compaction_is_kept_by_apollo_not_written_into_openclaws_transcript(compacted: dict[str, Any],
                                                                               openclaw_cli) -> None:
    db: Path = compacted["rig"].state / "agents/main/agent/openclaw-agent.sqlite"
    stored = [json.loads(line) for line in openclaw_cli.dump(db, compacted["session"]).decode().splitlines()
              if line.strip()]
    texts = [text_of(e["message"]) for e in stored if e.get("type") == "message"]
    assert OLD_OUTPUT in texts  # OpenClaw's own history is untouched: nothing Apollo evicts is lost
