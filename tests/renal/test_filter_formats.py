"""``apollo renal filter`` on every input format, read back by its own reader and the agents' loaders.

Every output must read back in its own format with every kept element under its id (entry ids
unchanged; block ids by the documented position rule), nothing dropped left in it, and every
tool call with its result (``assert_reloads``). OpenClaw output must load in the real
pi-coding-agent; Claude Code output in Claude Code's own session reader (the Claude Agent SDK).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apollo import transcript
from apollo.errors import InputError
from apollo.renal import compaction, concentrate, digest
from apollo.renal.filter import filter_path
from apollo.transcript import Kind, SessionRef
from realclient.support import PiSession, claude_session_messages, legacy_state_dir  # noqa: F401 - fixture
from renal.filter_support import ClaudeCodeSession, assert_reloads, context_blocks, context_text, counter_of

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples" / "claude-code"
SAMPLE_NAMES = ("cc-drmaciver-coverage-test-fix.jsonl", "cc-drmaciver-hello-world-script.jsonl")


def _sample(name: str) -> Path:
    path = SAMPLES / name
    if not path.is_file():
        pytest.skip(f"the shared Claude Code samples are not beside the repository ({SAMPLES})")
    return path


def _pytest_log(cases: int, last: str) -> str:
    return "\n".join(["============================= test session starts =============================="]
                     + [f"tests/payments/test_refund.py::test_refund_case_{i} PASSED" for i in range(cases)] + [last])


def claude_code_session(path: Path) -> Path:
    """A Claude Code bug-fix session: long test and file output, thinking, acknowledgements, a decision."""
    s = ClaudeCodeSession()
    s.user("The CI for the payments service fails on test_refund_rounding. Find out why. "
           "We use Decimal for all money amounts, never float.")
    s.tool("Bash", {"command": "pytest -q tests/payments", "description": "Run the payment tests"},
           _pytest_log(180, "FAILED tests/payments/test_refund.py::test_refund_rounding - assert Decimal('33.33') == 33.34"),
           think="The user wants the failing test investigated. I will run the payment suite to see the failure "
                 "in context, then read the refund module where the split happens. " * 3,
           text="I'll run the payment tests first.")
    s.tool("Read", {"file_path": "/home/dev/payments/src/payments/refund.py"},
           "\n".join(f"{i:6d}→    amount_{i} = total / parts  # split the refund evenly" for i in range(1, 160)),
           think="An off-by-one-cent failure: probably float division. Let me read refund.py.")
    s.say("The refund is split with float division in refund.py line 88, which loses a cent on three-way splits.")
    s.user("ok")
    s.say("Shall I fix it?")
    s.user("Decision: switch the refund computation to Decimal with ROUND_HALF_EVEN. Go ahead.")
    s.tool("Edit", {"file_path": "/home/dev/payments/src/payments/refund.py", "old_string": "total / parts",
                    "new_string": "(Decimal(total) / parts).quantize(CENT, ROUND_HALF_EVEN)"},
           "The file /home/dev/payments/src/payments/refund.py has been updated.",
           think="Quantize with ROUND_HALF_EVEN, as decided.")
    s.tool("Bash", {"command": "pytest -q tests/payments"}, _pytest_log(181, "181 passed in 4.21s"),
           text="Now the whole suite again.")
    s.say("Done. All 181 payment tests pass.")
    s.user("great, thanks!")
    s.say("You're welcome!")
    s.user("Open question for later: should partial refunds round half-even too? Check with finance first.")
    s.say("Noted. I'll keep it open until finance answers.")
    s.user("Now run the linter on the package.")
    s.tool("Bash", {"command": "ruff check src/payments"}, "All checks passed!", think="Run ruff.")
    s.say("Lint is clean.")
    return s.write(path)


def _chain(report: dict) -> list[str]:
    assert report["exit"] == 0, report["stderr_text"]
    assert report["unansweredToolUses"] == [] and report["orphanResults"] == []
    return [m["uuid"] for m in report["messages"]]


def _assert_claude_code_loads(result, claude_session_messages) -> None:  # noqa: F811 - the fixture
    """Claude Code's own reader rebuilds exactly the source's conversation less what was dropped."""
    source_chain = _chain(claude_session_messages(Path(str(result.transcript.source))))
    output_chain = _chain(claude_session_messages(result.output_path))
    kept_lines = {json.loads(line).get("uuid") for line in result.output_path.read_text(encoding="utf-8").splitlines()}
    assert output_chain == [uid for uid in source_chain if uid in kept_lines]
    dropped = any(edit.action == "drop" for edit in result.edits.values())
    assert len(output_chain) < len(source_chain) or not dropped


# -- Claude Code ---------------------------------------------------------------------------------------------------
@pytest.mark.realclient
@pytest.mark.parametrize("name", SAMPLE_NAMES)
@pytest.mark.parametrize("ratio", [None, 0.5])
def test_real_claude_code_samples(name: str, ratio: float | None, tmp_path: Path, claude_session_messages) -> None:  # noqa: F811
    source = _sample(name)
    result = filter_path(source, keep_ratio=ratio, output=tmp_path / "out.jsonl", workspace=tmp_path)
    assert result.transcript.format == "claude-code" and result.report["warnings"] == []
    assert_reloads(result)
    if ratio is not None:
        assert result.report["budget"]["met"]
    _assert_claude_code_loads(result, claude_session_messages)
    lines = [json.loads(line) for line in result.output_path.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["type"] == "queue-operation"  # lines without a uuid pass through


@pytest.mark.realclient
def test_claude_code_session_saves_the_tool_output_and_keeps_the_decisions(tmp_path: Path,
                                                                          claude_session_messages) -> None:  # noqa: F811
    source = claude_code_session(tmp_path / "5e7a1c0d-2b3f-4a5e-9c8d-7f6e5d4c3b2a.jsonl")
    result = filter_path(source, output=tmp_path / "out.jsonl", workspace=tmp_path)
    out = assert_reloads(result)
    assert result.report["saving"] >= 0.5, result.report["saving"]
    text = "\n".join(e.text for e in out.elements)
    for substance in ("never float", "switch the refund computation to Decimal with ROUND_HALF_EVEN",
                      "should partial refunds round half-even too", "Now run the linter on the package."):
        assert substance in text
    assert "great, thanks!" not in text and "\nok\n" not in f"\n{text}\n"
    old_thinking = [e for e in out.elements if e.kind is Kind.THINKING]
    assert [e.text for e in old_thinking] == ["Run ruff."]  # only the recent tail's thinking is left
    cut = [e.text for e in out.elements if e.kind is Kind.TOOL_RESULT and "apollo renal cut this old output" in e.text]
    assert len(cut) >= 2 and "test session starts" in cut[0]
    assert any(t.endswith("181 passed in 4.21s") for t in cut)  # the line the agent's "All 181 … pass" names
    assert result.report["removed"]["acknowledgement"] + result.report["removed"]["noise"] >= 2
    _assert_claude_code_loads(result, claude_session_messages)
    budgeted = filter_path(source, keep_ratio=0.2, output=tmp_path / "small.jsonl", workspace=tmp_path)
    assert budgeted.report["budget"]["met"]
    assert_reloads(budgeted)
    _assert_claude_code_loads(budgeted, claude_session_messages)


# -- OpenAI messages -----------------------------------------------------------------------------------------------
def _openai_messages(with_ids: bool) -> list[dict]:
    log = "\n".join(f"2026-04-07 10:{i % 60:02d}:00 INFO worker-{i % 7} imported batch {i} in {i * 3 % 97} ms"
                    for i in range(300))
    messages = [
        {"role": "system", "content": "You are the data team's coding agent."},
        {"role": "user", "content": "We use PostgreSQL 16 for the orders service, never MySQL. "
                                    "Please check why the nightly import failed."},
        {"role": "assistant", "content": "Sure, let me look at the log.",
         "tool_calls": [{"id": "call_1", "type": "function",
                         "function": {"name": "read_file", "arguments": "{\"path\": \"logs/import.log\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": log},
        {"role": "assistant", "content": "The import failed at batch 212: the disk filled up."},
        {"role": "user", "content": "ok thanks"},
        {"role": "assistant", "content": "You're welcome!"},
        {"role": "user", "content": "Decision: we move the import to 02:00 UTC. Update the crontab."},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "call_2", "type": "function",
                         "function": {"name": "edit_file", "arguments": "{\"path\": \"crontab\"}"}},
                        {"id": "call_3", "type": "function",
                         "function": {"name": "run", "arguments": "{\"command\": \"crontab -l\"}"}}]},
        {"role": "tool", "tool_call_id": "call_2", "content": "ok"},
        {"role": "tool", "tool_call_id": "call_3", "content": "0 2 * * * /opt/import/run.sh"},
        {"role": "assistant", "content": "Done: the import now runs at 02:00 UTC."},
        {"role": "user", "content": "thanks!"},
        {"role": "assistant", "content": "Anytime."},
    ]
    if with_ids:
        for n, message in enumerate(messages):
            message["id"] = f"msg-{n:03d}"
    return messages


@pytest.mark.parametrize("shape", ["list", "request"])
@pytest.mark.parametrize("ratio", [None, 0.1])
def test_openai_messages_keep_tool_calls_paired(shape: str, ratio: float | None, tmp_path: Path) -> None:
    messages = _openai_messages(with_ids=shape == "request")
    source = tmp_path / "chat.json"
    document = messages if shape == "list" else {"model": "gpt-4o", "temperature": 0, "messages": messages}
    source.write_text(json.dumps(document, indent=2), encoding="utf-8")
    result = filter_path(source, keep_ratio=ratio, output=tmp_path / "out.json", workspace=tmp_path)
    assert result.transcript.format == "openai"
    assert_reloads(result)
    written = json.loads(result.output_path.read_text(encoding="utf-8"))
    assert isinstance(written, list) if shape == "list" else written["model"] == "gpt-4o"
    assert result.output_path.read_text(encoding="utf-8").startswith("[\n  {" if shape == "list" else "{\n  \"")
    out = written if shape == "list" else written["messages"]
    pending: set[str] = set()  # OpenAI's rule: tool messages right after the call that asked for them
    for message in out:
        assert set(message) <= {"role", "content", "tool_calls", "tool_call_id", "id", "name"}
        if message["role"] == "tool":
            assert message["tool_call_id"] in pending
            pending.discard(message["tool_call_id"])
        else:
            assert not pending, f"unanswered tool calls {pending} before a {message['role']} message"
            pending = {c["id"] for c in message.get("tool_calls", [])}
            assert message.get("content") or message.get("tool_calls")
    assert not pending
    contents = [m.get("content") or "" for m in out]
    assert "You're welcome!" not in contents and "ok thanks" not in contents
    if ratio is None:
        assert "We use PostgreSQL 16 for the orders service, never MySQL." in contents[1]
        assert any("apollo renal cut this old output" in c for c in contents)
        assert result.report["saving"] >= 0.5
    else:
        assert result.report["budget"]["met"]


def test_openai_text_dropped_beside_kept_tool_calls_leaves_null_content(tmp_path: Path) -> None:
    source = tmp_path / "chat.json"
    source.write_text(json.dumps(_openai_messages(with_ids=False)), encoding="utf-8")
    transcript.write(source, tmp_path / "out.json", {"m2": transcript.Edit("drop")})
    written = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert written[2] == {"role": "assistant", "content": None, "tool_calls": _openai_messages(False)[2]["tool_calls"]}
    assert written[3]["tool_call_id"] == "call_1"


def test_a_request_body_is_detected_whatever_its_key_order(tmp_path: Path) -> None:
    for name, text in {"compact.json": json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}),
                       "indented.json": json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]},
                                                   indent=2)}.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert transcript.read(tmp_path / name).format == "openai"
    (tmp_path / "other.jsonl").write_text('{"model": "m", "usage": 3}\n', encoding="utf-8")
    with pytest.raises(InputError):
        transcript.read(tmp_path / "other.jsonl")


# -- Markdown daily memory ------------------------------------------------------------------------------------------
MEMORY_NOTE = """# 2026-04-07

## Deploy
- Decision: we deploy with blue-green from now on; the old rolling script is retired.
- ok
- thanks!
- Ran the staging deploy; green is live on staging-2 (10.0.5.32).

## Preferences
- Chen prefers answers in Chinese, amounts with thousands separators.
- Chen prefers answers in Chinese, amounts with thousands separators, as he said again today.

## Build log
```
{build}
```

## Open
- Is the Q4 budget cap 480k or 520k? Waiting for Wang.
"""


def test_markdown_memory_file_loses_noise_and_repetition_keeps_structure(tmp_path: Path) -> None:
    source = tmp_path / "memory" / "2026-04-07.md"
    source.parent.mkdir()
    source.write_text(MEMORY_NOTE.replace("{build}", "\n".join(f"step {i}/44: compile" for i in range(1, 45))),
                      encoding="utf-8")
    result = filter_path(source, output=tmp_path / "out.md", workspace=tmp_path)
    assert result.transcript.format == "markdown"
    assert_reloads(result)
    text = result.output_path.read_text(encoding="utf-8")
    assert "- ok\n" not in text and "- thanks!\n" not in text
    assert text.count("Chen prefers answers in Chinese") == 1 and "as he said again today" in text
    assert result.report["concentrated"]["merged"] == 1
    for line in ("# 2026-04-07", "## Deploy", "## Open", "- Is the Q4 budget cap 480k or 520k? Waiting for Wang.",
                 "- Decision: we deploy with blue-green from now on; the old rolling script is retired."):
        assert line in text.splitlines()
    budgeted = filter_path(source, keep_ratio=0.3, output=tmp_path / "small.md", workspace=tmp_path)
    assert budgeted.report["budget"]["met"]
    assert_reloads(budgeted)
    assert "480k or 520k" in budgeted.output_path.read_text(encoding="utf-8")


def test_example_memory_files_fit_a_budget_and_read_back(example: Path, tmp_path: Path) -> None:
    notes = sorted((example / "workspace" / "memory").glob("*.md")) + [example / "workspace" / "MEMORY.md"]
    assert len(notes) >= 3
    for note in notes:
        result = filter_path(note, keep_ratio=0.5, output=tmp_path / note.name, workspace=example / "workspace")
        assert result.report["budget"]["met"] and result.report["after"]["tokens"] < result.report["before"]["tokens"]
        assert_reloads(result)


# -- the example OpenClaw sessions ----------------------------------------------------------------------------------
def _example_sessions(example: Path) -> dict[str, Path]:
    folder = example / "openclaw-state" / "agents" / "main" / "sessions"
    return {"zh": folder / "93781619-6e2f-4b2c-8c02-4f91cb6c9962.jsonl",
            "en": folder / "ff090b09-8eb0-4818-b64e-3c9f7c58b33a.jsonl"}


def _lines_by_id(path: Path) -> dict[str, str]:
    return {json.loads(line)["id"]: line for line in path.read_text(encoding="utf-8").splitlines()[1:]}


def _off_path_lines(path: Path) -> dict[str, str]:
    """The lines of the entries the model does not see (other branches, before a compaction)."""
    off = {e.record_id for e in transcript.read(path).elements if not e.in_context}
    return {entry: line for entry, line in _lines_by_id(path).items() if entry in off}


@pytest.mark.realclient
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_example_sessions_rewrite_and_compact_load_in_pi(lang: str, example: Path, tmp_path: Path, pi_validate,
                                                         pi_replay) -> None:
    source = _example_sessions(example)[lang]
    workspace = example / "workspace"
    baseline = pi_validate(source, strict=True)
    single = not baseline["warnings"]  # the English session has a side branch: it must stay as it was
    rewritten = filter_path(source, output=tmp_path / "rewritten.jsonl", workspace=workspace)
    assert_reloads(rewritten)
    assert rewritten.report["saving"] > 0.2
    compacted = filter_path(source, mode="compact", output=tmp_path / "compact.jsonl", workspace=workspace)
    budgeted = filter_path(source, keep_ratio=0.25, output=tmp_path / "budgeted.jsonl", workspace=workspace)
    assert_reloads(budgeted)
    count = counter_of(budgeted.report)
    measured = sum(count(text) for text in context_blocks(pi_replay(budgeted.output_path)))
    assert measured <= budgeted.report["budget"]["target"]  # the budget holds in the context pi rebuilds
    for result in (rewritten, compacted, budgeted):
        report = pi_validate(result.output_path, strict=True, single_branch=single)
        assert report["errors"] == [] and report["warnings"] == baseline["warnings"], report
        off = _off_path_lines(source)
        assert single or off, "the English example should have entries off the active path"
        written = _lines_by_id(result.output_path)
        assert {entry: written.get(entry) for entry in off} == off  # byte for byte: branches, older history
    context = " ".join(context_text(pi_replay(compacted.output_path)).split())
    for fate in compacted.fates:
        if fate.must_keep and not fate.in_tail:
            assert " ".join(fate.element.text.split())[:200] in context
    if lang == "en":  # the earlier compaction's summary lives on in the new one, less its empty sections
        earlier = next(e.text for e in compacted.transcript.in_context() if e.kind is Kind.COMPACTION)
        carried = compaction.carried_summaries([earlier], concentrate.load())
        assert "### Blocked\n- (none)" in earlier and carried and "(none)" not in carried[0]
        assert " ".join(digest.earlier_summary(carried[0]).split()) in context


# -- merged_from -----------------------------------------------------------------------------------------------------
def _repeating_session(path: Path) -> Path:
    s = PiSession()
    s.user("[Tue 2026-04-07 14:29 GMT+8] Always write commit messages in English, and never push directly to main.")
    s.say("Understood.")
    s.tool("call_1", "exec", {"command": "git log --oneline -5"}, "a1b2c3 fix\nd4e5f6 feat")
    s.say("The last five commits are small fixes.")
    s.user("[Tue 2026-04-07 14:40 GMT+8] Again, to be clear: always write commit messages in English, and never "
           "push directly to main.")
    s.say("Got it, English commits and no direct pushes to main.")
    s.user("Deploy the docs site to staging.")
    s.tool("call_2", "exec", {"command": "make docs-deploy ENV=staging"}, "deployed to https://staging.docs.example.com")
    s.say("Docs are live on staging.")
    s.user("Thanks. What is next on the list?")
    s.say("Next is the changelog for 2.4.")
    return s.write(path)


@pytest.mark.realclient
def test_merged_from_is_written_on_the_entry_and_pi_takes_it_silently(tmp_path: Path, pi_validate,
                                                                      pi_replay) -> None:
    source = _repeating_session(tmp_path / "session.jsonl")
    result = filter_path(source, output=tmp_path / "out.jsonl", workspace=tmp_path)
    merged = {f.element.id: f.merged_from for f in result.fates if f.merged_from}
    assert merged == {"00000006": ["00000001"]}
    assert_reloads(result)
    entries = {json.loads(line)["id"]: json.loads(line) for line in result.output_path.read_text().splitlines()[1:]}
    assert entries["00000006"]["merged_from"] == ["00000001"] and "00000001" not in entries
    assert "merged_from" not in entries["00000006"]["message"]  # never inside what goes to the model
    report = pi_validate(result.output_path, strict=True, single_branch=True)
    assert report["exit"] == 0 and report["warnings"] == [] and report["errors"] == []
    replay = pi_replay(result.output_path)
    assert replay["exit"] == 0 and "merged_from" not in json.dumps(replay["messages"])
    again = filter_path(result.output_path, output=tmp_path / "again.jsonl", workspace=tmp_path)
    kept = json.loads(next(line for line in again.output_path.read_text().splitlines() if '"00000006"' in line))
    assert kept["merged_from"][0] == "00000001"  # a second run keeps what the first merged


@pytest.mark.realclient
def test_merged_from_in_claude_code_and_the_harness_jsonl(tmp_path: Path, claude_session_messages) -> None:  # noqa: F811
    s = ClaudeCodeSession()
    first = s.user("Always write commit messages in English, and never push directly to main.")
    s.say("Understood.")
    s.tool("Bash", {"command": "git log --oneline -5"}, "a1b2c3 fix\nd4e5f6 feat")
    again = s.user("Again, to be clear: always write commit messages in English, and never push directly to main.")
    s.say("Got it.")
    for text in ("Deploy the docs site to staging.", "Thanks. What is next on the list?"):
        s.user(text)
        s.say("On it.")
    result = filter_path(s.write(tmp_path / "cc.jsonl"), output=tmp_path / "cc-out.jsonl", workspace=tmp_path)
    assert_reloads(result)
    lines = {r["uuid"]: r for r in map(json.loads, result.output_path.read_text().splitlines()) if "uuid" in r}
    assert lines[again]["merged_from"] == [first] and first not in lines
    _assert_claude_code_loads(result, claude_session_messages)

    harness = tmp_path / "chat.jsonl"
    harness.write_text("".join(json.dumps({"id": f"D1:{i}", "role": role, "text": text}) + "\n" for i, (role, text) in
                               enumerate([("user", "My sister's wedding is on 12 June in Porto, at the old church."),
                                          ("assistant", "How lovely!"),
                                          ("user", "Like I said, my sister's wedding is on 12 June in Porto, at the "
                                                   "old church by the river."),
                                          ("assistant", "Noted."), ("user", "What should I wear?"),
                                          ("assistant", "Something light."), ("user", "ok")])), encoding="utf-8")
    result = filter_path(harness, "jsonl", output=tmp_path / "chat-out.jsonl", workspace=tmp_path)
    assert_reloads(result)
    records = {r["id"]: r for r in map(json.loads, result.output_path.read_text().splitlines())}
    assert records["D1:2"]["merged_from"] == ["D1:0"] and "D1:0" not in records


# -- the OpenClaw SQLite store ------------------------------------------------------------------------------------------
@pytest.mark.realclient
@pytest.mark.slow
def test_sqlite_session_is_filtered_into_a_session_jsonl_that_imports(example: Path, tmp_path: Path, openclaw_cli,
                                                                      pi_validate, apollo_cli) -> None:
    sources = _example_sessions(example)
    state = legacy_state_dir(tmp_path / "legacy", {p.stem: p for p in sources.values()})
    assert openclaw_cli.import_legacy(state)["totals"]["issues"] == 0
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    stored = db.read_bytes()
    ref = SessionRef(db, sources["zh"].stem)
    result = filter_path(ref, workspace=example / "workspace")
    # a JSONL session, in the workspace: never inside the agent's store
    assert result.output_path == example / "workspace" / ".renal" / "filtered" / f"{ref.session_id}.filtered.jsonl"
    assert result.transcript.format == "openclaw-sqlite" and db.read_bytes() == stored
    assert_reloads(result)
    assert pi_validate(result.output_path, strict=True, single_branch=True)["exit"] == 0
    fresh = legacy_state_dir(tmp_path / "fresh", {ref.session_id: result.output_path})
    report = openclaw_cli.import_legacy(fresh)
    assert report["totals"]["issues"] == 0
    reread = transcript.read(SessionRef(fresh / "agents/main/agent/openclaw-agent.sqlite", ref.session_id))
    assert [e.text for e in reread.elements] == [e.text for e in transcript.read(result.output_path).elements]

    compacted = filter_path(ref, mode="compact", keep_ratio=0.3, output=tmp_path / "compact.jsonl",
                            workspace=example / "workspace")
    assert compacted.report["budget"]["met"]
    assert pi_validate(compacted.output_path, strict=True, single_branch=True)["exit"] == 0
    done = apollo_cli("renal", "filter", str(db), "--session", "ff09", "--json", "-o", str(tmp_path / "en.jsonl"),
                      "--workspace", str(example / "workspace"))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["source"] == f"{db}#{sources['en'].stem}"
    refused = apollo_cli("renal", "filter", str(db), "--mode", "compact", "--in-place",
                         "--workspace", str(example / "workspace"))
    assert refused.returncode == 2 and "in place" in refused.stderr and "Traceback" not in refused.stderr
    assert db.read_bytes() == stored
