"""`apollo mcp`: every tool answered through the official MCP SDK's own client over stdio, on the
example workspace; the destructive tool keeps the CLI's confirmation protocol."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

from apollo.demo import PINNED  # noqa: E402
from constants import DEMO_NOW  # noqa: E402

APOLLO = str(Path(sys.executable).parent / "apollo")
TOOLS = ["renal_check", "renal_classify", "renal_filter", "renal_recall", "autophagy_status", "autophagy_plan", "autophagy_execute"]


def _session_files(example: Path) -> list[Path]:
    return sorted((example / "openclaw-state" / "agents" / "main" / "sessions").glob("*.jsonl"))


def _talk(example: Path, calls: list[tuple[str, dict[str, Any]]], env: dict[str, str] | None = None) -> list[Any]:
    """Start the server, list its tools, make the calls in order; returns [tools, *results]."""
    params = StdioServerParameters(  # the clock pinned in code: APOLLO_NOW never decides a real deletion
        command=sys.executable,
        args=["-c", PINNED, DEMO_NOW, "mcp", "--workspace", str(example / "workspace"), "--state-dir",
              str(example / "openclaw-state")],
        env={"LANG": "en_US.UTF-8", **(env or {})})

    async def run() -> list[Any]:
        async with stdio_client(params) as streams, ClientSession(*streams) as session:
            await session.initialize()
            out: list[Any] = [await session.list_tools()]
            for name, arguments in calls:
                if callable(arguments):
                    arguments = arguments(out)
                out.append(await session.call_tool(name, arguments))
            return out

    return anyio.run(run)


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    return result.structured_content if result.structured_content is not None else json.loads(result.content[0].text)


def test_every_tool_answers_through_the_sdk_client(example: Path) -> None:
    sessions = _session_files(example)
    tools, check, classify, filtered, status, plan, executed = _talk(example, [
        ("renal_check", {}),
        ("renal_classify", {"limit": 5}),
        ("renal_filter", {"dry_run": True}),
        ("autophagy_status", {}),
        ("autophagy_plan", {"tier": "small"}),
        ("autophagy_execute", lambda out: {"plan_id": _data(out[-1])["plan_id"]}),
    ])
    assert [t.name for t in tools.tools] == TOOLS
    by_name = {t.name: t for t in tools.tools}
    assert by_name["autophagy_execute"].annotations.destructive_hint is True
    assert by_name["renal_check"].annotations.read_only_hint is True

    check = _data(check)
    assert check["tokens"] > 0 and check["source"] in {str(s) for s in sessions}
    assert check["line"].startswith("🫘 context")
    classify = _data(classify)
    assert classify["total"] > 5 and len(classify["verdicts"]) == 5
    assert {v["category"] for v in classify["verdicts"]} <= {"decision", "preference", "task", "question", "process",
                                                            "noise"}
    filtered = _data(filtered)
    assert filtered["output_path"] is None and filtered["snapshot_path"] is None  # a dry run writes nothing
    assert filtered["report"]["dry_run"] and filtered["report"]["before"]["tokens"] > filtered["report"]["after"]["tokens"]
    assert "small" in json.dumps(_data(status))
    plan = _data(plan)
    assert plan["tier"] == "small" and plan["items"] and "autophagy_execute" in plan["next"]
    executed = _data(executed)
    assert executed["tier"] == "small" and executed["deleted"] and executed["snapshot"]
    for item in plan["items"]:
        if item["kind"] != "heartbeat_entries":  # old entries are cut from a log that stays
            assert not (example / "workspace" / item["path"]).exists(), item


def _user_says(example: Path, text: str) -> None:
    """Append a message of the user's to the agent's current session, as OpenClaw records one."""
    from apollo.transcript.discovery import current_session
    from apollo.workspace import Paths

    session = current_session(Paths.resolve(example / "workspace", example / "openclaw-state"))
    last = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])
    entry = {"type": "message", "id": "c0ffee01", "parentId": last["id"], "timestamp": "2026-11-29T04:00:00.000Z",
             "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1795924800000}}
    with session.open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry, ensure_ascii=False) + "\n")


def test_large_cannot_run_without_the_users_phrase(example: Path) -> None:
    """Issue 12 finding 9: the agent alone, phrase and all, confirms nothing."""
    sessions = _session_files(example)
    before = {p: p.read_bytes() for p in sessions}
    tools, plan, no_phrase, wrong_phrase, made_up, agent_alone = _talk(example, [
        ("autophagy_plan", {"tier": "large"}),
        ("autophagy_execute", lambda out: {"plan_id": _data(out[1])["plan_id"]}),
        ("autophagy_execute", lambda out: {"plan_id": _data(out[1])["plan_id"], "confirm_phrase": "yes"}),
        ("autophagy_execute", {"plan_id": "l-00000000", "confirm_phrase": "确认大自噬"}),
        ("autophagy_execute", lambda out: {"plan_id": _data(out[1])["plan_id"], "confirm_phrase": "确认大自噬"}),
    ])
    plan = _data(plan)
    assert plan["tier"] == "large" and plan["confirm_words"] == f"确认大自噬 {plan['plan_id'][2:6]}"
    assert plan["confirm_words"] in plan["next"]
    for refused in (no_phrase, wrong_phrase, agent_alone):
        assert refused.is_error and "ConfirmationRequired" in refused.content[0].text
    assert "must come from the user" in agent_alone.content[0].text
    assert made_up.is_error
    assert {p: p.read_bytes() for p in sessions} == before  # nothing was deleted


def test_large_runs_when_the_users_own_message_confirms_and_a_subagent_is_refused(example: Path) -> None:
    _tools, refused = _talk(example, [("autophagy_plan", {"tier": "large"})], env={"APOLLO_ACTOR": "subagent"})
    assert refused.is_error and "main agent" in refused.content[0].text

    def after_the_user_confirms(out: list[Any]) -> dict[str, Any]:
        plan = _data(out[1])
        _user_says(example, f"好的，{plan['confirm_words']}")
        return {"plan_id": plan["plan_id"], "confirm_phrase": "确认大自噬"}

    _tools, plan, done = _talk(example, [("autophagy_plan", {"tier": "large"}),
                                         ("autophagy_execute", after_the_user_confirms)])
    done = _data(done)
    assert done["tier"] == "large" and done["deleted"] and Path(done["snapshot"]).is_absolute()
    # every session is wiped but the current one, which the user's message changed after the plan
    # (what runs is what was shown); it is reported as skipped
    current = [p for p in _session_files(example)]
    assert len(current) == 1 and any("changed since the plan" in s["reason"] for s in done["skipped"])


def test_an_old_confirmation_does_not_confirm_a_new_plan(example: Path) -> None:
    _user_says(example, "确认大自噬 zzzz")  # a confirmation of some other plan
    sessions = _session_files(example)
    before = {p: p.read_bytes() for p in sessions}
    _tools, _plan, refused = _talk(example, [
        ("autophagy_plan", {"tier": "large"}),
        ("autophagy_execute", lambda out: {"plan_id": _data(out[1])["plan_id"], "confirm_phrase": "确认大自噬"}),
    ])
    assert refused.is_error and "must come from the user" in refused.content[0].text
    assert {p: p.read_bytes() for p in sessions} == before


def test_bad_arguments_are_tool_errors_not_crashes(example: Path) -> None:
    _tools, tier, missing = _talk(example, [
        ("autophagy_plan", {"tier": "huge"}),
        ("renal_check", {"path": str(example / "nope.jsonl")}),
    ])
    assert tier.is_error and "unknown tier" in tier.content[0].text
    assert missing.is_error and "no such file" in missing.content[0].text


def test_renal_recall_returns_what_the_context_engine_dropped(tmp_path: Path) -> None:
    from apollo.integration.engine import Engine
    from apollo.integration.engine_store import Store, default_path

    state = tmp_path / "state"
    store = Store(default_path(state))
    said = {"role": "assistant", "content": [{"type": "text", "text": "OK"}], "timestamp": 2}
    decision = {"role": "user", "content": [{"type": "text", "text": "We ship on Fridays from now on."}],
                "timestamp": 1}
    Engine(store).assemble("sess-1", ["a", "b"], {0: decision, 1: said}, None)
    store.close()
    params = StdioServerParameters(command=APOLLO, args=["mcp", "--workspace", str(tmp_path), "--state-dir", str(state)],
                                   env={"LANG": "en_US.UTF-8"})

    async def run() -> Any:
        async with stdio_client(params) as streams, ClientSession(*streams) as session:
            await session.initialize()
            return await session.call_tool("renal_recall", {"query": "ok"})

    data = _data(anyio.run(run))
    assert data["session"] == "sess-1"
    assert [f["text"] for f in data["found"]] == ["OK"] and data["found"][0]["message"] == said
