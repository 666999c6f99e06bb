"""Reading and writing OpenClaw / pi v3 session JSONL: tree, context, envelopes, heartbeats, edits."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from apollo import transcript
from apollo.errors import Refused, UsageError
from apollo.transcript import Edit, Kind, Role
from apollo.transcript.base import Fingerprint
from apollo.transcript.openclaw_rules import rules
from realclient.support import HEARTBEAT_PROMPT, PiSession, realistic_session


def read(path: Path) -> dict[str, transcript.Element]:
    return {e.id: e for e in transcript.read(path).elements}


def entries(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_elements_of_a_realistic_session(tmp_path: Path) -> None:
    t = transcript.read(realistic_session().write(tmp_path / "s.jsonl"))
    assert t.format == "openclaw" and t.warnings == []
    kinds = [(e.id, e.role, e.kind) for e in t.elements]
    assert ("00000007", Role.ASSISTANT, Kind.THINKING) in kinds
    assert ("00000007:1", Role.ASSISTANT, Kind.TOOL_CALL) in kinds
    assert ("00000008", Role.TOOL, Kind.TOOL_RESULT) in kinds
    assert ("0000000b:2", Role.ASSISTANT, Kind.TOOL_CALL) in kinds
    assert [e.kind for e in t.elements].count(Kind.HEARTBEAT_POLL) == 2
    assert [e.kind for e in t.elements].count(Kind.HEARTBEAT_REPLY) == 2
    call = next(e for e in t.elements if e.id == "0000000b:1")
    assert (call.call_id, call.tool_name, call.text, call.parent) == ("call_b", "exec", '{"command":"make check"}',
                                                                      "0000000b")
    result = next(e for e in t.elements if e.id == "0000000c")
    assert (result.call_id, result.tool_name, result.parent) == ("call_b", "exec", "0000000b")
    assert all(e.in_context for e in t.elements)
    assert t.total_tokens == sum(e.tokens for e in t.elements) > 0
    assert all(e.tokens == 0 for e in t.elements if e.kind is Kind.METADATA)


@pytest.mark.parametrize(("raw", "envelope", "text"), [
    ("[Tue 2026-04-07 14:29 GMT+8] hello", "[Tue 2026-04-07 14:29 GMT+8] ", "hello"),
    ("Sender (untrusted metadata):\n```json\n{\n  \"label\": \"ui\"\n}\n```\n\n[Fri 2026-11-27 14:29 GMT+8] hi\nthere",
     "Sender (untrusted metadata):\n```json\n{\n  \"label\": \"ui\"\n}\n```\n\n[Fri 2026-11-27 14:29 GMT+8] ",
     "hi\nthere"),
    ("Conversation info (untrusted metadata):\n```json\n{\"message_id\": \"1\"}\n```\n\nSender (untrusted metadata):\n"
     "```json\n{\"id\": \"2\"}\n```\n\n小科，你好", None, "小科，你好"),
    ("Sender: ⟦openclaw:ctx⟧\n```json\n{\"label\": \"x\"}\n```\n\nnew style", None, "new style"),
    ("[Discord alice user id:42 +23s Fri 2026-03-06 06:00 UTC] moving here", None, "moving here"),
    ("Sender (untrusted metadata): is a phrase I typed", "", "Sender (untrusted metadata): is a phrase I typed"),
    ("[not a stamp] text", "", "[not a stamp] text"),
])
def test_envelopes_are_separated_from_content(raw: str, envelope: str | None, text: str) -> None:
    got_envelope, got_text = rules().split_envelope(raw)
    assert got_text == text
    assert got_envelope + got_text == raw
    if envelope is not None:
        assert got_envelope == envelope


@pytest.mark.parametrize(("prompt", "reply", "kinds"), [
    (HEARTBEAT_PROMPT + "\nCurrent time: x", "HEARTBEAT_OK", (Kind.HEARTBEAT_POLL, Kind.HEARTBEAT_REPLY)),
    ("Follow the heartbeat monitor scratch context when provided. Recurring tasks are automations; create or "
     "change their schedules with the automations tool, not heartbeat scratch. Do not infer or repeat old tasks "
     "from prior chats. If nothing needs attention, reply NO_REPLY.\nCurrent time: x", "NO_REPLY",
     (Kind.HEARTBEAT_POLL, Kind.HEARTBEAT_REPLY)),
    ("[OpenClaw heartbeat poll]", "**HEARTBEAT_OK**", (Kind.HEARTBEAT_POLL, Kind.HEARTBEAT_REPLY)),
    (HEARTBEAT_PROMPT, "Disk is 97% full, please clean up.", (Kind.HEARTBEAT_POLL, Kind.TEXT)),
    ("what is up?", "NO_REPLY", (Kind.TEXT, Kind.TEXT)),
    ("what is up?", "All quiet. HEARTBEAT_OK", (Kind.TEXT, Kind.HEARTBEAT_REPLY)),
])
def test_heartbeats(tmp_path: Path, prompt: str, reply: str, kinds: tuple[Kind, Kind]) -> None:
    s = PiSession()
    s.user(prompt)
    s.say(reply)
    got = [e.kind for e in transcript.read(s.write(tmp_path / "h.jsonl")).elements]
    assert tuple(got) == kinds


def test_leaf_is_the_last_entry_in_file_order_and_branches_are_out_of_context(tmp_path: Path) -> None:
    s = PiSession()
    root = s.user("start")
    a = s.say("branch A")
    s.user("second", parent=root)
    b = s.say("branch B")
    s.entries[-1]["timestamp"] = "2020-01-01T00:00:00.000Z"  # older stamp: file order still decides
    elements = read(s.write(tmp_path / "b.jsonl"))
    assert elements[b].in_context and elements[root].in_context
    assert not elements[a].in_context


def test_newest_compaction_is_honoured(tmp_path: Path) -> None:
    s = PiSession()
    old = s.user("old question")
    s.say("old answer")
    kept = s.user("recent question")
    s.say("recent answer")
    s.compaction("first summary", old)
    s.user("more")
    compaction = s.compaction("second summary", kept)
    s.say("after")
    elements = read(s.write(tmp_path / "c.jsonl"))
    assert not elements[old].in_context
    assert elements[kept].in_context
    assert elements[compaction].kind is Kind.COMPACTION and elements[compaction].text == "second summary"
    assert elements[compaction].in_context
    assert not next(e for e in elements.values() if e.text == "first summary").in_context


def test_openclaw_leaf_control_side_append_and_reset(tmp_path: Path) -> None:
    s = PiSession()
    first = s.user("first")
    s.say("abandoned")
    s.entry("leaf", parent="LEAF", targetId=first)
    s.entry("custom", customType="side-note", data={}, appendMode="side", parent=first)
    s.leaf = first
    answer = s.say("on the selected branch")
    elements = read(s.write(tmp_path / "leaf.jsonl"))
    assert elements[answer].in_context and elements[first].in_context
    assert not next(e for e in elements.values() if e.text == "abandoned").in_context

    r = PiSession()
    before = r.user("before the reset")
    r.entry("reset", reason="reset")
    after = r.user("after the reset")
    elements = read(r.write(tmp_path / "reset.jsonl"))
    assert not elements[before].in_context and elements[after].in_context


def test_archived_files_are_read(tmp_path: Path) -> None:
    path = realistic_session().write(tmp_path / "abc.jsonl.reset.2026-04-07T06-29-00.000Z")
    assert transcript.read(path).format == "openclaw"
    deleted = realistic_session().write(tmp_path / "abc.jsonl.deleted.2026-04-07T06-29-00.000Z")
    assert len(transcript.read(deleted).elements) == 22  # 19 entries, two of them with extra blocks


def test_write_without_edits_is_byte_identical(tmp_path: Path) -> None:
    source = realistic_session().write(tmp_path / "s.jsonl")
    transcript.write(source, tmp_path / "o.jsonl", {})
    assert (tmp_path / "o.jsonl").read_bytes() == source.read_bytes()


def test_dropping_a_result_drops_its_call_and_reparents(tmp_path: Path) -> None:
    s = PiSession()
    s.user("read it")
    call, result = s.tool("call_1", "read", {"path": "a"}, "A")
    after = s.say("done")
    source = s.write(tmp_path / "s.jsonl")
    transcript.write(source, tmp_path / "o.jsonl", {result: Edit("drop")})
    out = entries(tmp_path / "o.jsonl")
    ids = [e.get("id") for e in out]
    assert call not in ids and result not in ids
    assert next(e for e in out if e.get("id") == after)["parentId"] == "00000001"


def test_a_turn_that_failed_before_any_content_can_be_dropped_whole(tmp_path: Path) -> None:
    """Its one empty element stands for the whole entry (it has no block to drop one by one)."""
    s = PiSession()
    s.user("check the logs")
    failed = s.assistant(stop="error")
    answer = s.say("The logs are clean.")
    source = s.write(tmp_path / "s.jsonl")
    empty = [e for e in transcript.read(source).elements if e.id == failed]
    assert len(empty) == 1 and empty[0].text == ""
    transcript.write(source, tmp_path / "o.jsonl", {failed: Edit("drop")})
    out = entries(tmp_path / "o.jsonl")
    assert failed not in [e.get("id") for e in out]
    assert next(e for e in out if e.get("id") == answer)["parentId"] == "00000001"


def test_partial_block_drop_rewrites_only_the_content(tmp_path: Path) -> None:
    source = realistic_session().write(tmp_path / "s.jsonl")
    transcript.write(source, tmp_path / "o.jsonl", {"0000000b": Edit("drop")})  # the text block only
    before = {e.get("id"): e for e in entries(source)}
    after = {e.get("id"): e for e in entries(tmp_path / "o.jsonl")}
    assert [b["type"] for b in after["0000000b"]["message"]["content"]] == ["toolCall", "toolCall"]
    rest_before = {k: v for k, v in before["0000000b"]["message"].items() if k != "content"}
    assert {k: v for k, v in after["0000000b"]["message"].items() if k != "content"} == rest_before
    untouched = [line for line in source.read_text().splitlines() if '"0000000b"' not in line]
    assert all(line in (tmp_path / "o.jsonl").read_text().splitlines() for line in untouched)


def test_replace_keeps_the_envelope_and_records_nothing_else(tmp_path: Path) -> None:
    source = realistic_session().write(tmp_path / "s.jsonl")
    transcript.write(source, tmp_path / "o.jsonl", {"0000000a": Edit("replace", text="merci")})
    text = next(e for e in entries(tmp_path / "o.jsonl") if e.get("id") == "0000000a")["message"]["content"][0]["text"]
    assert text.startswith("Sender (untrusted metadata):") and text.endswith("GMT+8] merci")
    assert read(tmp_path / "o.jsonl")["0000000a"].text == "merci"


def test_merged_elements_are_dropped_and_labels_follow(tmp_path: Path) -> None:
    s = PiSession()
    a = s.user("we use postgres")
    s.say("ok")
    b = s.user("again: we use postgres 16")
    s.entry("label", targetId=b, label="db")
    s.say("noted")
    source = s.write(tmp_path / "s.jsonl")
    transcript.write(source, tmp_path / "o.jsonl",
                     {a: Edit("replace", text="we use postgres 16", merged_from=[b])})
    out = entries(tmp_path / "o.jsonl")
    assert b not in [e.get("id") for e in out]
    assert not any(e.get("type") == "label" for e in out)
    assert read(tmp_path / "o.jsonl")[a].text == "we use postgres 16"


def test_compaction_start_moves_to_the_next_kept_entry(tmp_path: Path) -> None:
    s = PiSession()
    s.user("a")
    kept = s.user("b")
    nxt = s.say("c")
    s.compaction("summary", kept)
    source = s.write(tmp_path / "s.jsonl")
    transcript.write(source, tmp_path / "o.jsonl", {kept: Edit("drop")})
    compaction = next(e for e in entries(tmp_path / "o.jsonl") if e.get("type") == "compaction")
    assert compaction["firstKeptEntryId"] == nxt


def test_unknown_ids_and_types_pass_through_or_fail_clearly(tmp_path: Path) -> None:
    s = PiSession()
    s.user("x")
    s.entry("future_type", payload={"deep": [1, 2]}, extraField=True)
    last = s.say("y")
    source = s.write(tmp_path / "s.jsonl")
    with pytest.raises(UsageError, match="not in the transcript"):
        transcript.write(source, tmp_path / "o.jsonl", {"nope": Edit("drop")})
    transcript.write(source, tmp_path / "o.jsonl", {last: Edit("drop")})
    assert '"future_type"' in (tmp_path / "o.jsonl").read_text()
    assert not (tmp_path / "nope").exists()


def test_refuses_to_overwrite_its_source(tmp_path: Path) -> None:
    source = realistic_session().write(tmp_path / "s.jsonl")
    with pytest.raises(UsageError):
        transcript.write(source, source, {"00000003": Edit("drop")})


def test_append_compaction_in_place_and_its_refusals(tmp_path: Path) -> None:
    source = realistic_session().write(tmp_path / "s.jsonl")
    read_at = transcript.read(source)
    fingerprint = read_at.meta["fingerprint"]
    assert isinstance(fingerprint, Fingerprint)
    size = source.stat().st_size
    with source.open("a") as handle:  # the agent wrote meanwhile
        handle.write(json.dumps({"type": "custom", "id": "zz", "parentId": "00000013",
                                 "timestamp": "2026-04-07T07:00:00.000Z", "customType": "x", "data": {}}) + "\n")
    with pytest.raises(Refused, match="changed since it was read"):
        transcript.append_compaction(source, None, "s", "00000012", 10, in_place=True, expected=fingerprint)
    assert source.stat().st_size > size
    new_id = transcript.append_compaction(source, None, "digest", "00000012", 10, in_place=True)
    last = entries(source)[-1]
    assert last["id"] == new_id and last["parentId"] == "zz" and last["firstKeptEntryId"] == "00000012"
    assert last["timestamp"].endswith("Z") and len(last["timestamp"]) == 24
    with pytest.raises(UsageError, match="not on the session's active path"):
        transcript.append_compaction(source, tmp_path / "x.jsonl", "s", "missing", 10)
    with source.open("ab") as handle:
        handle.write(b'{"type":"message","id":"half"')
    with pytest.raises(Refused, match="incomplete"):
        transcript.append_compaction(source, None, "s", "00000012", 10, in_place=True)
    copy = tmp_path / "copy.jsonl"
    transcript.append_compaction(source, copy, "s", "00000012", 10)
    assert copy.read_bytes().startswith(source.read_bytes() + b"\n")


def test_atomic_write_leaves_nothing_on_failure(tmp_path: Path) -> None:
    source = realistic_session().write(tmp_path / "s.jsonl")
    with pytest.raises(UsageError):
        transcript.write(source, tmp_path / "o.jsonl", {"00000007:1": Edit("replace", text="not json")})
    assert sorted(os.listdir(tmp_path)) == ["s.jsonl"]


def test_append_compaction_only_for_pi_sessions(tmp_path: Path) -> None:
    harness = tmp_path / "h.jsonl"
    harness.write_text('{"id": "1", "role": "user", "text": "hi"}\n')
    with pytest.raises(UsageError, match="only in OpenClaw / pi sessions"):
        transcript.append_compaction(harness, tmp_path / "o.jsonl", "s", "1", 1)
