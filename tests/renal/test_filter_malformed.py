"""Damaged input: a rewrite carries what it cannot read through unchanged and reports it with
file:line (exit 0, warnings on stderr); a file that is no transcript at all is one line and exit 1.
Never lost, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apollo.errors import ApolloError
from apollo.renal.filter import filter_path
from realclient.support import PiSession
from renal.filter_support import ClaudeCodeSession, assert_reloads

BROKEN_JSON = b'{"type":"message","id":"cut00001","parentId":"00000003","message":{"role":"user","content":[{"ty\n'
BAD_UTF8 = b'{"type":"custom","id":"bytes001","parentId":null,"customType":"note","data":"caf\xc3"}\n'


def _session() -> PiSession:
    s = PiSession()
    s.user("[Tue 2026-04-07 14:29 GMT+8] Let's keep the staging database on PostgreSQL 16.")
    s.say("OK.")
    s.tool("call_1", "exec", {"command": "psql -c 'select version()'"},
           "\n".join(f"row {i}: PostgreSQL 16.{i % 4} on x86_64" for i in range(120)))
    s.say("Staging runs PostgreSQL 16.2.")
    s.user("thanks!")
    s.say("You're welcome.")
    s.heartbeat()
    s.user("Decision: back up staging nightly at 03:00 to the NAS.")
    s.say("I'll set up the nightly backup at 03:00.")
    s.user("Is the NAS share called backup or backups?")
    s.say("It is `//nas.lan/backups`.")
    return s


def damaged_session(path: Path) -> tuple[Path, dict[str, int]]:
    """A session with a cut-off line, a line of invalid UTF-8, and an entry whose parent is missing."""
    lines = [line.encode() + b"\n" for line in _session().lines()]
    orphan = json.loads(lines[9])
    orphan["parentId"] = "gone0000"  # the parent's line was lost: pi's context starts here
    lines[9] = json.dumps(orphan, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    lines[4:4] = [BROKEN_JSON]
    lines[8:8] = [BAD_UTF8]
    path.write_bytes(b"".join(lines))
    number = {line: n for n, line in enumerate(lines, 1)}
    return path, {"broken": number[BROKEN_JSON], "utf8": number[BAD_UTF8], "orphan": number[lines[11]]}


def test_rewrite_carries_bad_lines_through_and_reports_them(tmp_path: Path, apollo_cli) -> None:
    source, where = damaged_session(tmp_path / "session.jsonl")
    done = apollo_cli("renal", "filter", str(source), "-o", str(tmp_path / "out.jsonl"), "--json",
                      "--workspace", str(tmp_path))
    assert done.returncode == 0 and "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    for name, line in where.items():
        assert any(w.startswith(f"{source}:{line}: ") for w in report["warnings"]), name
        assert f"apollo: warning: {source}:{line}: " in done.stderr, name
    written = (tmp_path / "out.jsonl").read_bytes()
    assert BROKEN_JSON in written and BAD_UTF8 in written
    assert report["after"]["tokens"] < report["before"]["tokens"]  # the readable rest was filtered


@pytest.mark.realclient
def test_pi_sees_no_new_problem_in_the_rewritten_damaged_session(tmp_path: Path, pi_validate) -> None:
    source, _ = damaged_session(tmp_path / "session.jsonl")
    result = filter_path(source, output=tmp_path / "out.jsonl", workspace=tmp_path)
    before, after = pi_validate(source), pi_validate(result.output_path)
    assert before["exit"] == 2 and after["loaderAccepted"]
    assert any("dangling parentId gone0000" in e for e in before["errors"])
    assert not any("dangling" in e or "does not reach a root" in e for e in after["errors"])
    assert {e.split(":")[0] for e in after["errors"]} <= {e.split(":")[0] for e in before["errors"]}
    assert after["context"]["llmMessages"] > 0


def test_claude_code_and_harness_lines_that_do_not_parse_pass_through(tmp_path: Path) -> None:
    s = ClaudeCodeSession()
    for n in range(4):
        s.user(f"Step {n}: run the migration for shard {n} of the orders table.")
        s.tool("Bash", {"command": f"migrate --shard {n}"}, "\n".join(f"migrated row {i}" for i in range(200)))
        s.say("ok")
    source = s.write(tmp_path / "cc.jsonl")
    lines = source.read_bytes().splitlines(keepends=True)
    lines[3:3] = [b'{"parentUuid":"x","uuid":"y","message":{"role":\n', b'{"type":"summary","summary":"\xff\xfe"}\n']
    source.write_bytes(b"".join(lines))
    result = filter_path(source, output=tmp_path / "cc-out.jsonl", workspace=tmp_path)
    written = result.output_path.read_bytes()
    assert all(bad in written for bad in lines[3:5])
    assert [w.line for w in result.transcript.warnings] == [4, 5]
    assert_reloads(result)

    harness = tmp_path / "chat.jsonl"
    harness.write_bytes(b'{"id":"a","role":"user","text":"We fly to Lisbon on 3 May."}\n'
                        b'{"id":"b","role":"assistant","text":"Great, have fun!"}\n'
                        b'{"id":"c","role":"user","text":"caf\xc3"}\n'
                        b'not json at all\n'
                        b'{"id":"d","role":"user","text":"ok"}\n')
    result = filter_path(harness, "jsonl", output=tmp_path / "chat-out.jsonl", workspace=tmp_path)
    assert [w.line for w in result.transcript.warnings] == [3, 4]
    written = result.output_path.read_bytes()
    assert b'"text":"caf\xc3"}\n' in written and b"not json at all\n" in written


def test_markdown_with_invalid_utf8_keeps_the_bytes(tmp_path: Path) -> None:
    note = tmp_path / "2026-04-07.md"
    note.write_bytes(b"# 2026-04-07\n\n- ok\n- thanks!\n- Decided: the offsite is on 12 June in Porto.\n"
                     + b"- caf\xc3 notes\n")
    result = filter_path(note, output=tmp_path / "out.md", workspace=tmp_path)
    assert [w.line for w in result.transcript.warnings] == [6]
    written = result.output_path.read_bytes()
    assert b"- caf\xc3 notes\n" in written and b"12 June in Porto" in written and b"- ok\n" not in written


def test_markdown_with_another_encoding_in_what_matters_is_filtered_and_reported(tmp_path: Path,
                                                                                 apollo_cli) -> None:
    """A real daily note had a part saved in GBK: its decision went into the snapshot and the
    JSON report as escaped bytes, which no JSON holds (a crash, invalid UTF-8 on stdout)."""
    gbk = "波尔图".encode("gbk")
    note = tmp_path / "2026-03-28.md"
    note.write_bytes(b"# 2026-03-28\n\n- ok\n- Decided: the offsite is on 12 June in Porto (" + gbk + b").\n")
    done = apollo_cli("renal", "filter", str(note), "-o", str(tmp_path / "out.md"), "--json",
                      "--workspace", str(tmp_path))
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert json.loads(done.stdout)["snapshot"]
    assert gbk in (tmp_path / "out.md").read_bytes()
    items = b"".join(b"- I think we really need to check the backup logs of host %d again in (" % n + gbk + b")\r\n"
                     for n in range(30))
    note.write_bytes(b"# 2026-03-28\r\n\r\n" + items)
    result = filter_path(note, output=tmp_path / "half.md", workspace=tmp_path, keep_ratio=0.5, overwrite=True)
    assert any(edit.action == "replace" for edit in result.edits.values())  # blocks holding the bytes rewritten
    assert b"\xef\xbf\xbd" in result.output_path.read_bytes() and b"\r\n- " in result.output_path.read_bytes()
    listed = apollo_cli("renal", "classify", str(note), "--json")
    assert listed.returncode == 0 and json.loads(listed.stdout)["summary"]["elements"] == 31


@pytest.mark.parametrize(("name", "content", "fmt"), [
    ("random.jsonl", bytes(range(256)) * 8, None),
    ("empty.jsonl", b"", None),
    ("prose.txt", b"Dear diary, today nothing happened.\n", None),
    ("other.jsonl", b'{"event": "click", "x": 3}\n{"event": "scroll"}\n', None),
    ("notes.md", b"# Notes\n\nsome text\n", "openclaw"),
    ("notes2.md", b"# Notes\n\nsome text\n", "claude-code"),
    ("chat.jsonl", b'{"id":"a","role":"user","text":"hi"}\n', "openai"),
])
def test_what_is_no_transcript_is_one_line_and_exit_1(name: str, content: bytes, fmt: str | None, tmp_path: Path,
                                                      apollo_cli) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    args = ["renal", "filter", str(path), "--workspace", str(tmp_path)] + (["--format", fmt] if fmt else [])
    done = apollo_cli(*args)
    errors = [line for line in done.stderr.splitlines() if not line.startswith("apollo: warning:")]
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert len(errors) == 1 and errors[0].startswith("apollo: ") and name in errors[0], done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # nothing written, no snapshot
    assert done.stdout == ""


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 30), st.binary(min_size=1, max_size=60)), min_size=1, max_size=4))
def test_damage_anywhere_is_reported_or_carried_never_a_crash(tmp_path_factory, damage) -> None:  # noqa: ANN001
    folder = tmp_path_factory.mktemp("damaged")
    lines = [line.encode() + b"\n" for line in _session().lines()]
    for position, junk in damage:
        lines.insert(min(position, len(lines)), junk.replace(b"\n", b" ") + b"\n")
    source = folder / "session.jsonl"
    source.write_bytes(b"".join(lines))
    try:
        result = filter_path(source, "openclaw", output=folder / "out.jsonl", workspace=folder)
    except ApolloError:
        return  # reported, one line on the command line
    written = result.output_path.read_bytes()
    unreadable = {w.line for w in result.transcript.warnings}
    for number, line in enumerate(lines, 1):
        if number in unreadable and line.strip():
            try:
                json.loads(line)
            except ValueError:  # not JSON (or not UTF-8): carried through byte for byte
                assert line in written
