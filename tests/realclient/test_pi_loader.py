"""What Apollo writes for pi / OpenClaw JSONL loads in the real pi-coding-agent 0.73.1.

``pi_validate`` runs pi's own SessionManager + buildSessionContext; ``pi_replay`` resumes the
session in pi's AgentSession and captures the context its (offline, faux) model receives.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apollo import transcript
from apollo.transcript import Edit, Kind
from realclient.support import PiSession, realistic_session

pytestmark = pytest.mark.realclient


def _elements(path: Path) -> dict[str, transcript.Element]:
    return {e.id: e for e in transcript.read(path).elements}


def _context_text(report: dict) -> str:
    return json.dumps(report.get("messages") or report.get("contextMessages"), ensure_ascii=False)


def test_reference_session_is_valid_as_built(tmp_path: Path, pi_validate) -> None:
    path = realistic_session().write(tmp_path / "s.jsonl")
    report = pi_validate(path, single_branch=True, strict=True)
    assert report["exit"] == 0, report["errors"] + report["warnings"]


def test_edited_session_loads_and_replays(tmp_path: Path, pi_validate, pi_replay) -> None:
    source = realistic_session().write(tmp_path / "s.jsonl")
    elements = _elements(source)
    polls = [e for e in elements.values() if e.kind is Kind.HEARTBEAT_POLL]
    replies = [e for e in elements.values() if e.kind is Kind.HEARTBEAT_REPLY]
    result_a = next(e for e in elements.values() if e.call_id == "call_a" and e.kind is Kind.TOOL_RESULT)
    call_c = next(e for e in elements.values() if e.call_id == "call_c" and e.kind is Kind.TOOL_CALL)
    thanks = next(e for e in elements.values() if e.text == "thanks!")
    edits = {e.id: Edit("drop") for e in polls + replies}
    edits[result_a.id] = Edit("drop")  # its tool call must go too
    edits[call_c.id] = Edit("drop")  # one block of a three-block message: its result must go too
    edits[thanks.id] = Edit("replace", text="thank you, noted")
    out = tmp_path / "out.jsonl"
    transcript.write(source, out, edits)

    report = pi_validate(out, single_branch=True, strict=True)
    assert report["exit"] == 0, report["errors"] + report["warnings"]
    replay = pi_replay(out)
    assert replay["exit"] == 0, replay["stderr_text"]
    context = _context_text(replay)
    assert "HEARTBEAT" not in context
    assert "call_a" not in context and "deploy.md" not in context
    assert "make lint" not in context and "lint clean" not in context
    assert "make check" in context and "all checks passed" in context
    assert "thank you, noted" in context and "openclaw-control-ui" in context  # envelope kept
    assert replay["roles"].endswith("user,assistant,user")  # ...its last turn, then the replay prompt
    # the three-block message kept its other fields: only the content array changed
    kept = [json.loads(line) for line in out.read_text().splitlines()]
    multi = next(e for e in kept if e.get("message", {}).get("stopReason") == "toolUse"
                 and any(b.get("id") == "call_b" for b in e["message"]["content"]))
    assert [b["type"] for b in multi["message"]["content"]] == ["text", "toolCall"]
    assert multi["message"]["usage"]["totalTokens"] == 120


def test_branches_off_the_active_path_stay_untouched(tmp_path: Path, pi_validate) -> None:
    s = PiSession()
    root = s.user("plan the release")
    s.say("first idea")
    s.user("no, other branch please")
    side = s.say("abandoned branch reply")
    s.user("let us go back", parent=root)
    s.say("second idea")
    s.heartbeat()
    source = s.write(tmp_path / "b.jsonl")
    before = source.read_text().splitlines()
    elements = _elements(source)
    assert not elements[side].in_context
    edits = {e.id: Edit("drop") for e in elements.values() if e.kind in (Kind.HEARTBEAT_POLL, Kind.HEARTBEAT_REPLY)}
    out = tmp_path / "out.jsonl"
    transcript.write(source, out, edits)
    after = out.read_text().splitlines()
    branch_lines = [line for line in before if '"abandoned branch reply"' in line or '"no, other branch' in line
                    or '"first idea"' in line]
    assert branch_lines and all(line in after for line in branch_lines)
    report = pi_validate(out)
    assert report["exit"] == 0, report["errors"]
    assert report["context"]["roles"] == ["user", "user", "assistant"]  # root, then the active branch


def test_append_compaction_gives_summary_plus_tail(tmp_path: Path, pi_validate, pi_replay) -> None:
    source = realistic_session().write(tmp_path / "s.jsonl")
    elements = list(transcript.read(source).elements)
    first_kept = next(e for e in elements if e.text == "what did we decide about deploys?").record_id
    out = tmp_path / "compacted.jsonl"
    entry_id = transcript.append_compaction(source, out, "Decision: deploy blue-green.", first_kept, 4321)
    last = json.loads(out.read_text().splitlines()[-1])
    assert list(last) == ["type", "id", "parentId", "timestamp", "summary", "firstKeptEntryId", "tokensBefore"]
    assert last["id"] == entry_id and last["type"] == "compaction"

    report = pi_validate(out, single_branch=True)
    assert report["exit"] == 0, report["errors"]
    replay = pi_replay(out)
    assert replay["exit"] == 0, replay["stderr_text"]
    messages = replay["messages"]
    assert "compacted into the following summary" in json.dumps(messages[0])
    assert "Decision: deploy blue-green." in json.dumps(messages[0])
    assert "what did we decide about deploys?" in json.dumps(messages[1])
    assert "Blue-green." in json.dumps(messages[2])
    assert "We deploy with blue-green from now on" not in json.dumps(messages)
    # and Apollo reads it the way pi does: only the summary and the tail are in context
    in_context = [e for e in transcript.read(out).elements if e.in_context and e.tokens]
    assert [e.kind for e in in_context] == [Kind.TEXT, Kind.TEXT, Kind.COMPACTION]


def test_damaged_file_rewritten_is_safe_for_pi(tmp_path: Path, pi_validate) -> None:
    s = PiSession()
    s.user("one")
    s.say("two")
    s.user("three")
    s.say("four")
    lines = s.lines()
    lines.insert(3, '{"type":"message","id":"broken"')  # malformed
    lines.append(json.dumps({"type": "message", "id": "orphan", "parentId": "nowhere", "timestamp": "2026-04-07T07:00:00.000Z",
                             "message": {"role": "user", "content": "lost?", "timestamp": 1}}))
    lines.append(json.dumps({"type": "message", "id": "c1", "parentId": "c2", "timestamp": "2026-04-07T07:00:01.000Z",
                             "message": {"role": "user", "content": "loop a", "timestamp": 2}}))
    lines.append(json.dumps({"type": "message", "id": "c2", "parentId": "c1", "timestamp": "2026-04-07T07:00:02.000Z",
                             "message": {"role": "user", "content": "loop b", "timestamp": 3}}))
    source = tmp_path / "bad.jsonl"
    source.write_text("\n".join(lines) + "\n")
    assert any("cycle" in e for e in pi_validate(source)["errors"])  # pi would hang on the original
    elements = _elements(source)
    out = tmp_path / "out.jsonl"
    transcript.write(source, out, {next(e.id for e in elements.values() if e.text == "two"): Edit("drop")})
    assert '{"type":"message","id":"broken"' in out.read_text().splitlines()
    report = pi_validate(out)
    assert report["exit"] == 2
    assert all("malformed JSON" in error for error in report["errors"]), report["errors"]


def _pi_context_entries(report: dict) -> list[str]:
    """Ids of the entries pi turns into context messages (path order, newest compaction honoured)."""
    branch = report["branch"]
    compactions = [i for i, e in enumerate(branch) if e["type"] == "compaction"]
    return [e["id"] for e in branch if e["type"] in ("message", "custom_message", "branch_summary")] \
        if not compactions else None  # type: ignore[return-value]


def test_apollo_reads_the_context_pi_builds(example_tree: Path, pi_validate, tmp_path: Path) -> None:
    sessions = sorted((example_tree / "openclaw-state").glob("agents/*/sessions/*.jsonl"))
    own = realistic_session()
    sessions.append(own.write(tmp_path / "own.jsonl"))
    for session in sessions:
        report = pi_validate(session)
        assert report["exit"] == 0, (session, report["errors"])
        ours = [e for e in transcript.read(session).elements if e.in_context]
        sent_entries = {e.record_id for e in ours if e.kind is not Kind.METADATA}
        assert len(sent_entries) == report["context"]["agentMessages"], session
        on_path = {e["id"] for e in report["branch"]}
        assert {e.record_id for e in ours} <= on_path


def test_half_an_emoji_is_read_as_pi_reads_it(tmp_path: Path, pi_validate, pi_replay) -> None:
    """A line that escapes a lone surrogate (an emoji a truncation cut in two, seen in a real session) is one
    pi loads; Apollo reads it too, with U+FFFD for the half, instead of skipping it and, with it, the branch
    before it; a filtered copy keeps the line as it was and loads in pi."""
    s = PiSession()
    s.user("We deploy with blue-green from now on.")
    s.say("Dry-run: --dry-run \ud83d\u2026")
    s.user("ok thanks")
    s.say("Noted.")
    source = tmp_path / "s.jsonl"
    source.write_text("\n".join(json.dumps(json.loads(line)) for line in s.lines()) + "\n")  # escaped, as JS writes
    assert "\\ud83d\\u2026" in source.read_text()
    assert pi_validate(source, single_branch=True, strict=True)["exit"] == 0
    read = transcript.read(source)
    assert not read.warnings
    elements = {e.text: e for e in read.elements}
    assert elements["We deploy with blue-green from now on."].in_context
    assert elements["Dry-run: --dry-run \ufffd\u2026"].in_context
    out = tmp_path / "out.jsonl"
    transcript.write(source, out, {elements["ok thanks"].id: Edit("drop")})
    assert "\\ud83d\\u2026" in out.read_text()  # the line as it was
    report = pi_validate(out, single_branch=True, strict=True)
    assert report["exit"] == 0, report["errors"] + report["warnings"]
    context = _context_text(pi_replay(out))
    assert "blue-green" in context and "ok thanks" not in context
