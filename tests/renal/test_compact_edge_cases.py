"""Compact mode's edge cases where words could be lost: a summary or a message that only looks like
it holds the gateway's metadata, a custom message with an image, a call with two results, a queued
batch that mixes the runtime's announcement with the user's request."""

from __future__ import annotations

import json
from pathlib import Path

from apollo.renal.compaction import CompactionPlan
from apollo.renal.digest import earlier_summary
from apollo.renal.fates import Fate
from apollo.renal.filter import filter_path
from apollo.transcript.model import Element, Kind, Role
from realclient.support import PiSession
from renal.filter_support import worked_session

_GATEWAY = ("System: [2026-04-07 14:29:03 GMT+8] Feishu[ops] DM | Ana (ou_4242) [msg:om_7781]\n\n"
            'Conversation info (untrusted metadata):\n```json\n{\n  "message_id": "om_7781"\n}\n```\n\n')


def _tail_and_compact(session: PiSession, tmp_path: Path) -> list[dict]:
    for text in ("Next: the weekly report.", "And then the invoices."):
        session.user(text)
        session.say("On it.")
    source = session.write(tmp_path / "s.jsonl")
    result = filter_path(source, mode="compact", output=tmp_path / "c.jsonl", workspace=tmp_path)
    return [json.loads(line) for line in result.output_path.read_text(encoding="utf-8").splitlines()]


def test_an_earlier_summary_with_an_unclosed_metadata_fence_keeps_what_follows_it() -> None:
    """A summary that copied a metadata block cut short (no closing fence) keeps every line after it:
    only a header with fenced JSON that parses is the gateway's."""
    summary = ("## Recent turns\nUser: [Tue 2026-04-07 14:29 GMT+8]\nConversation info (untrusted metadata):\n"
               '```json\n{\n  "message_id": "om_77…\n\n'
               "## Decisions\n- Deploy only on Fridays.\n\n## Command agreed\n```sh\nrsync -a /srv/db /backup\n```\n")
    quoted = earlier_summary(summary)
    assert "Deploy only on Fridays." in quoted
    assert "rsync -a /srv/db /backup" in quoted


def test_an_earlier_summary_line_that_looks_like_a_header_takes_no_summary_lines_with_it() -> None:
    summary = "## Who\nSender (untrusted metadata):\n- Ana (ou_4242)\n- Decided: ship on Friday, never on Monday\n\n## Next"
    assert "ship on Friday, never on Monday" in earlier_summary(summary)


def test_a_lean_custom_message_keeps_its_image(tmp_path: Path) -> None:
    """A custom message with an image is not rebuilt from its text (the image would become the
    reader's placeholder '[image]'): only its envelope's metadata blocks go."""
    session = worked_session()
    session.user("hi")
    session.say("Hi! What can I do for you?")
    kept = session.entry("custom_message", customType="note", display=True,
                         content=[{"type": "text", "text": _GATEWAY + "From now on, always answer in French."},
                                  {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}])
    session.say("Entendu : je réponds en français désormais.")
    out = {e.get("id"): e for e in _tail_and_compact(session, tmp_path)}
    assert kept in out
    assert "untrusted metadata" not in json.dumps(out[kept])  # the lean rewrite did happen
    assert {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"} in out[kept]["content"]


def test_a_kept_call_with_two_results_stays_with_them(tmp_path: Path) -> None:
    """A call with two results (a repaired turn) keeps both: with one, the writer's pairing would drop
    the call and the change the answer made, while the digest counts the entry as kept."""
    from test_filter_compact import _ROTATE, _answer_then_work

    session = worked_session()
    _, entry, done = _answer_then_work(session)
    report = session.entries.pop()
    second = dict(session.entries[-1], id="0000aaaa", parentId=done)
    second["message"] = dict(second["message"], content=[{"type": "text", "text": "Wrote /srv/rotate-logs.sh again."}])
    session.entries.append(second)
    session.entries.append(dict(report, parentId="0000aaaa"))
    session.leaf = report["id"]
    out = {e.get("id"): e for e in _tail_and_compact(session, tmp_path)}
    assert entry in out
    assert [b["type"] for b in out[entry]["message"]["content"]] == ["text", "toolCall"]
    call = next(b for b in out[entry]["message"]["content"] if b["type"] == "toolCall")
    assert call["arguments"]["content"] == _ROTATE


def test_what_the_user_pasted_after_the_gateway_blocks_stays_in_the_copy(tmp_path: Path) -> None:
    """A header-like line the user pasted right after the gateway's blocks, with plain lines under it
    (no fenced JSON), may be the user's: the lean copy keeps it."""
    session = worked_session()
    session.user("hi")
    session.say("Hi! What can I do for you?")
    pasted = "Sender (untrusted metadata):\nthe ops bot shows this header above every message I send\n\n"
    session.user(_GATEWAY + pasted + "From now on, always send me the daily summary at 08:00 by email.")
    session.say("Understood: the daily summary goes out by email every day at 08:00.")
    copy = json.dumps(_tail_and_compact(session, tmp_path))
    assert "the ops bot shows this header above every message I send" in copy


def test_a_user_message_queued_after_an_announcement_stays_the_users() -> None:
    """A queued batch whose first item is the runtime's announcement is not the runtime's alone: the
    user's request queued as #2 is the user's words."""
    from apollo.transcript.openclaw_rules import rules

    text = ('[Sat 2026-02-07 14:22 GMT+1] [Queued messages while agent was busy]\n\n---\nQueued #1\n'
            'A background task "disk check" just completed successfully.\n\nFindings:\nAll fine.\n\n---\n'
            'Queued #2\nPlease delete the old backups in /srv/bak now.')
    assert "Please delete the old backups" in rules().split(text)[1]



def _fate(record: str, role: Role, kind: Kind, action: str) -> Fate:
    element = Element(id=record, role=role, kind=kind, text=record, tokens=5, record_id=record)
    return Fate(element, "process" if action == "keep" else "noise", action)


def test_a_copy_keeps_from_the_first_entry_of_the_tail_it_keeps() -> None:
    # a real session of heartbeats: the tail started with a heartbeat's tool call, dropped with its result, and the
    # entry named as the first kept stood nowhere in the copy (the compaction was refused, the copy left behind)
    fates = [_fate("u1", Role.USER, Kind.TEXT, "keep"), _fate("call", Role.ASSISTANT, Kind.TOOL_CALL, "drop"),
             _fate("result", Role.TOOL, Kind.TOOL_RESULT, "drop"), _fate("ok", Role.ASSISTANT, Kind.HEARTBEAT_REPLY, "drop"),
             _fate("ask", Role.USER, Kind.TEXT, "keep"), _fate("answer", Role.ASSISTANT, Kind.TEXT, "keep")]
    plan = CompactionPlan(fates, 1, "summary", 10, 10, rewrites=True)
    assert plan.first_kept_entry_id == "ask" and "ask" not in plan.edits()
    # appended to the session as it is (nothing dropped from it), the tail keeps its first entry
    assert CompactionPlan(fates, 1, "summary", 10, 10).first_kept_entry_id == "call"
