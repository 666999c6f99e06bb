"""What the default filter cuts first: old tool output the conversation has moved past, keeping the
lines later messages mention, and long arguments of old tool calls — on real pi session files."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apollo.renal.filter import filter_path
from apollo.tokens import estimate
from realclient.support import PiSession


def _log(lines: int, special: dict[int, str]) -> str:
    return "\n".join(special.get(i, f"2026-04-07 06:{i % 60:02d}:00 INFO worker heartbeat ok, queue depth {i % 7}")
                     for i in range(lines))


def _entries(path: Path) -> dict[str, dict]:
    return {e["id"]: e for e in map(json.loads, path.read_text(encoding="utf-8").splitlines()) if "id" in e}


def _result_text(entry: dict) -> str:
    return "".join(b.get("text", "") for b in entry["message"]["content"])


def _session_with_log(tmp_path: Path, special: dict[int, str], later: str) -> tuple[Path, str]:
    session = PiSession()
    session.user("Please check why the nightly sync failed.")
    _, result = session.tool("call_1", "exec", {"command": "journalctl -u sync --since yesterday"},
                             _log(200, special))
    session.say("The log is long; the sync service restarted several times overnight.")
    session.user(later)
    session.say("Looking at it now.")
    session.user("Also draft the weekly report.")
    session.say("Draft started.")
    session.user("Thanks, go on.")
    session.say("Continuing.")
    return session.write(tmp_path / "s.jsonl"), result


def test_an_old_output_keeps_the_middle_line_a_later_message_asks_about(tmp_path: Path) -> None:
    line = "2026-04-07 03:12:44 ERROR replica db-replica-7 refused connection on port 5433"
    path, result = _session_with_log(tmp_path, {117: line}, "Why did db-replica-7 refuse the connection on 5433?")
    before = _result_text(_entries(path)[result])
    out = filter_path(path, "openclaw", output=tmp_path / "out.jsonl").output_path
    after = _result_text(_entries(out)[result])
    assert line in after
    assert estimate(after) < 0.15 * estimate(before)


def test_an_old_output_nobody_refers_to_is_cut_to_almost_nothing(tmp_path: Path) -> None:
    path, result = _session_with_log(tmp_path, {}, "Fine, what about the backups?")
    out = filter_path(path, "openclaw", output=tmp_path / "out.jsonl").output_path
    after = _result_text(_entries(out)[result])
    assert "apollo renal" in after and estimate(after) < 80


def test_an_old_write_call_keeps_its_path_and_loses_its_long_content(tmp_path: Path) -> None:
    session = PiSession()
    session.user("Write the deploy script.")
    content = "\n".join(f"echo step {i}: copying shard {i} to the staging bucket" for i in range(150))
    call, result = session.tool("call_1", "write", {"path": "/srv/app/deploy.sh", "content": content},
                                "Successfully wrote 7,500 bytes to /srv/app/deploy.sh")
    for text in ("Now the tests.", "And the changelog.", "Good, thanks."):
        session.say("Done.")
        session.user(text)
    session.say("Done.")
    path = session.write(tmp_path / "w.jsonl")
    out = filter_path(path, "openclaw", output=tmp_path / "out.jsonl").output_path
    entries = _entries(out)
    block = entries[call]["message"]["content"][0]
    assert block["type"] == "toolCall" and block["id"] == "call_1"
    assert block["arguments"]["path"] == "/srv/app/deploy.sh"
    assert isinstance(block["arguments"]["content"], str) and len(block["arguments"]["content"]) < len(content) / 5
    assert result in entries  # the call keeps its result


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.integers(min_value=0, max_value=199), st.sampled_from(["port 5433", "tenant-4471", "/var/lib/sync/q7.db"]))
def test_any_line_a_later_message_names_survives(tmp_path_factory, where: int, anchor: str) -> None:
    folder = tmp_path_factory.mktemp("cut")
    line = f"2026-04-07 03:12:44 WARN sync stalled at {anchor}"
    path, result = _session_with_log(folder, {where: line}, f"What happened at {anchor}?")
    out = filter_path(path, "openclaw", output=folder / "out.jsonl").output_path
    assert line in _result_text(_entries(out)[result])


def test_an_old_edit_loses_the_text_it_replaced_and_keeps_the_text_it_put_in_place(tmp_path: Path) -> None:
    session = PiSession()
    session.user("Add the new provider to the config.")
    old = "\n".join(f'  "legacy-{i}": {{"url": "https://old.example/{i}"}},' for i in range(40))
    new = "\n".join(f'  "provider-{i}": {{"url": "https://api.example/{i}", "model": "m{i}"}},' for i in range(30))
    call, _ = session.tool("call_1", "edit", {"file_path": "/etc/app.json", "oldText": old, "newText": new},
                           "Edited /etc/app.json")
    for text in ("Restart it.", "Check the logs.", "Thanks."):
        session.say("Done.")
        session.user(text)
    session.say("Done.")
    out = filter_path(session.write(tmp_path / "e.jsonl"), "openclaw", output=tmp_path / "out.jsonl").output_path
    arguments = _entries(out)[call]["message"]["content"][0]["arguments"]
    assert arguments["newText"] == new and arguments["file_path"] == "/etc/app.json"
    assert "legacy-" not in arguments["oldText"] and "apollo renal" in arguments["oldText"]


def _stream_fates(items: list[tuple[str, str, str, str | None, str]]) -> dict[str, object]:
    """Fates of (id, role, kind, call id, verdict action) elements, with a long recent tail after them."""
    from apollo.renal import fates
    from apollo.renal.classify import Verdict
    from apollo.transcript.model import Element, Kind, Role

    stream = fates.FateStream.for_config(None, estimate, lang="en")
    rows = [*items, ("u1", "user", "text", None, "keep"), ("u2", "user", "text", None, "keep")]
    for element_id, role, kind, call_id, action in rows:
        text = "Checked the mailbox, nothing new since 06:30." if kind != "tool_call" else '{"path":"HEARTBEAT.md"}'
        element = Element(element_id, Role(role), Kind(kind), text, tokens=estimate(text), call_id=call_id,
                          tool_name="read" if call_id else None)
        category = "noise" if action == "drop" else "process"
        stream.feed(element, Verdict(element_id, category, action, 0.9, "test", rule=f"test:{action}"))
    stream.finish()
    return {f.element.id: f for f in stream.fates}


def test_a_tool_call_dropped_as_noise_takes_its_result_along() -> None:
    decided = _stream_fates([("c1", "assistant", "tool_call", "t1", "drop"), ("r1", "tool", "tool_result", "t1", "keep")])
    assert decided["c1"].action == decided["r1"].action == "drop"


def test_a_result_dropped_while_its_call_stays_is_kept() -> None:
    decided = _stream_fates([("c1", "assistant", "tool_call", "t1", "keep"), ("r1", "tool", "tool_result", "t1", "drop")])
    assert decided["c1"].action != "drop" and decided["r1"].action != "drop"
