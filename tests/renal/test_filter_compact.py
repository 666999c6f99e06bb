"""``--mode compact``: the native compaction entry under a budget, and ``--in-place``.

The budget is checked where it matters: on the context the real pi-coding-agent rebuilds from
the compacted session (``pi_replay``), counted with the run's own token counter.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from apollo.errors import Refused, UsageError
from apollo.renal import concentrate
from apollo.renal import filter as filter_mod
from apollo.renal.compaction import plan_compaction
from apollo.renal.filter import filter_path
from apollo.renal.report import render
from apollo.transcript.openclaw_compaction import can_start_kept_tail
from apollo.transcript.openclaw_rules import COMPACTION_SUMMARY_WRAPPER
from realclient.support import HEARTBEAT_PROMPT, PiSession
from renal.filter_support import build, context_blocks, counter_of, worked_session


def _example(example: Path, lang: str) -> Path:
    name = {"zh": "93781619-6e2f-4b2c-8c02-4f91cb6c9962", "en": "ff090b09-8eb0-4818-b64e-3c9f7c58b33a"}[lang]
    return example / "openclaw-state" / "agents" / "main" / "sessions" / f"{name}.jsonl"


def _source(kind: str, example: Path, tmp_path: Path) -> Path:
    return _example(example, kind[-2:]) if kind.startswith("example") else build(kind, tmp_path).path


# -- budgets ---------------------------------------------------------------------------------------------------------
@pytest.mark.realclient
@pytest.mark.parametrize(("kind", "limit"), [("en-tool-heavy", {"budget": 1200}), ("zh-tool-heavy", {"keep_ratio": 0.1}),
                                            ("example-zh", {"keep_ratio": 0.1}), ("example-en", {"budget": 1500}),
                                            ("example-en", {"keep_ratio": 0.5})])
def test_digest_and_tail_fit_the_budget_in_the_context_pi_rebuilds(kind: str, limit: dict, example: Path,
                                                                   tmp_path: Path, pi_validate, pi_replay) -> None:
    source = _source(kind, example, tmp_path)
    result = filter_path(source, mode="compact", output=tmp_path / "compact.jsonl", workspace=tmp_path, **limit)
    budget = result.report["budget"]
    assert budget["met"] and not budget["must_keep_dropped"], budget
    report = pi_validate(result.output_path, strict=True)
    assert report["errors"] == [] and report["warnings"] == pi_validate(source, strict=True)["warnings"]
    count = counter_of(result.report)
    replay = pi_replay(result.output_path)
    assert replay["exit"] == 0
    measured = sum(count(text) for text in context_blocks(replay))
    assert measured <= budget["target"], (measured, budget)
    assert abs(measured - result.report["after"]["tokens"]) <= 0.02 * measured + 5  # our account is pi's context
    entry = json.loads(result.output_path.read_text(encoding="utf-8").splitlines()[-1])
    kept = next(e for e in result.transcript.elements if e.id == entry["firstKeptEntryId"])
    assert can_start_kept_tail(kept)  # never a tool result without its call


@pytest.mark.realclient
def test_a_tight_budget_moves_the_tail_start_later(tmp_path: Path, pi_validate, pi_replay) -> None:
    source = build("en-tool-heavy", tmp_path).path
    free = filter_path(source, mode="compact", dry_run=True, workspace=tmp_path).report["compaction"]
    tight = filter_path(source, mode="compact", budget=free["context_tokens"] // 2, output=tmp_path / "c.jsonl",
                        workspace=tmp_path)
    chosen = tight.report["compaction"]
    assert tight.report["budget"]["met"], tight.report["budget"]
    order = [e.id for e in tight.transcript.elements]
    assert order.index(chosen["first_kept_entry_id"]) > order.index(free["first_kept_entry_id"])
    assert chosen["tail_tokens"] < free["tail_tokens"]
    assert pi_validate(tight.output_path, strict=True, single_branch=True)["exit"] == 0
    count = counter_of(tight.report)
    assert sum(count(t) for t in context_blocks(pi_replay(tight.output_path))) <= tight.report["budget"]["target"]


def test_a_budget_below_the_must_keep_drops_the_oldest_and_says_so(tmp_path: Path) -> None:
    source = build("zh-tool-heavy", tmp_path).path
    result = filter_path(source, mode="compact", budget=120, dry_run=True, workspace=tmp_path, lang="en")
    budget = result.report["budget"]
    assert budget["must_keep_dropped"] and result.report["next_step"] == "confirm"
    assert "must-keep items shortened" in render(result.report, "en")


def test_without_a_budget_the_recent_turns_stay_and_nothing_older_is_lost(tmp_path: Path) -> None:
    labeled = build("en-tool-heavy", tmp_path)
    result = filter_path(labeled.path, mode="compact", output=tmp_path / "c.jsonl", workspace=tmp_path)
    entry = json.loads(result.output_path.read_text(encoding="utf-8").splitlines()[-1])
    elements = result.transcript.in_context()
    start = concentrate.tail_start(elements, 2)
    assert entry["firstKeptEntryId"] == elements[start].record_id
    tail = "\n".join(f.element.text for f in result.fates if f.in_tail)
    for label in ("decision", "preference", "task", "question"):
        for _, substance in labeled.labels.get(label, []):
            assert substance in entry["summary"] or substance in tail, substance


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory) -> filter_mod.FilterResult:
    folder = tmp_path_factory.mktemp("plan")
    return filter_path(build("en-tool-heavy", folder).path, mode="compact", dry_run=True, workspace=folder)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=20, max_value=4000))
def test_any_budget_is_met_or_everything_that_may_go_has_gone(planned: filter_mod.FilterResult, budget: int) -> None:
    result = planned
    rules = concentrate.load()
    count = counter_of(result.report)
    plan = plan_compaction(result.fates, rules, "en", count, budget, where="test")
    elements = [f.element for f in result.fates]
    assert can_start_kept_tail(elements[plan.start]) and plan.start > 0
    prefix, suffix = COMPACTION_SUMMARY_WRAPPER
    assert plan.summary_tokens == count(prefix + plan.summary + suffix)
    assert plan.tail_tokens == sum(e.tokens for e in elements[plan.start:])
    if plan.context_tokens > budget:  # not met: the shortest tail, and no must-keep item left to give up
        starts = [i for i, e in enumerate(elements) if can_start_kept_tail(e) and i >= plan.start]
        assert starts == [plan.start] and "## Decisions" not in plan.summary
    assert [f.in_tail for f in result.fates] == [i >= plan.start for i in range(len(elements))]


# -- in place ---------------------------------------------------------------------------------------------------------
@pytest.mark.realclient
def test_in_place_appends_exactly_one_entry_pi_loads(tmp_path: Path, pi_validate) -> None:
    source = build("en-tool-heavy", tmp_path).path
    before = source.read_bytes()
    result = filter_path(source, mode="compact", in_place=True, keep_ratio=0.2, workspace=tmp_path)
    after = source.read_bytes()
    assert result.output_path == source and after.startswith(before) and after[len(before):].count(b"\n") == 1
    assert json.loads(after[len(before):])["id"] == result.report["compaction"]["entry_id"]
    assert pi_validate(source, strict=True, single_branch=True)["exit"] == 0


def _agent_writes_meanwhile(monkeypatch: pytest.MonkeyPatch, change) -> None:  # noqa: ANN001
    real = filter_mod.dialysis

    def meanwhile(elements, config):  # noqa: ANN001, ANN202
        change()
        return real(elements, config)

    monkeypatch.setattr(filter_mod, "dialysis", meanwhile)


def test_in_place_refuses_when_a_line_is_appended_meanwhile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = build("zh-tool-heavy", tmp_path).path
    line = json.dumps({"type": "message", "id": "feedbeef", "parentId": json.loads(
        source.read_text(encoding="utf-8").splitlines()[-1])["id"], "timestamp": "2026-04-07T07:00:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "还在吗？"}], "timestamp": 1}},
        ensure_ascii=False) + "\n"
    expected = source.read_bytes() + line.encode()
    _agent_writes_meanwhile(monkeypatch, lambda: source.open("a", encoding="utf-8").write(line))
    with pytest.raises(Refused, match="changed while Apollo was reading"):
        filter_path(source, mode="compact", in_place=True, workspace=tmp_path)
    assert source.read_bytes() == expected  # the agent's line is the last: nothing appended after it
    assert not (tmp_path / ".renal").exists()  # refused before anything was written, the snapshot included


def test_in_place_refuses_a_same_size_edit_with_the_old_mtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = build("en-tool-heavy", tmp_path).path
    stat = source.stat()
    changed = source.read_bytes().replace(b"PostgreSQL 16", b"PostgreSQL 17", 1)
    assert changed != source.read_bytes()

    def rewrite() -> None:
        source.write_bytes(changed)
        os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same time: only the hash tells

    _agent_writes_meanwhile(monkeypatch, rewrite)
    with pytest.raises(Refused):
        filter_path(source, mode="compact", in_place=True, workspace=tmp_path)
    assert source.read_bytes() == changed


def test_in_place_refusal_on_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from apollo.cli.app import app

    source = build("en-tool-heavy", tmp_path).path
    _agent_writes_meanwhile(monkeypatch, lambda: source.open("a", encoding="utf-8").write("\n"))
    expected = source.read_bytes() + b"\n"
    done = CliRunner().invoke(app, ["renal", "filter", str(source), "--mode", "compact", "--in-place",
                                    "--workspace", str(tmp_path)])
    assert done.exit_code == 4
    assert done.output.count("\n") == 1 and done.output.startswith("apollo: ") and "changed" in done.output
    assert source.read_bytes() == expected


def test_in_place_is_only_for_compact_and_never_with_an_output(tmp_path: Path, apollo_cli) -> None:
    source = build("en-tool-heavy", tmp_path).path
    original = source.read_bytes()
    with pytest.raises(UsageError):
        filter_path(source, in_place=True, workspace=tmp_path)
    with pytest.raises(UsageError):
        filter_path(source, mode="compact", in_place=True, output=tmp_path / "x.jsonl", workspace=tmp_path)
    done = apollo_cli("renal", "filter", str(source), "--in-place", "--workspace", str(tmp_path))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert source.read_bytes() == original and sorted(p.name for p in tmp_path.iterdir()) == [source.name]


_ENVELOPE = "[Telegram Ana (@ana_k) id:4242 +2m Tue 2026-04-07 14:29 GMT+8] "


def _counts_what_pi_shows(result: filter_mod.FilterResult, replay: dict) -> bool:
    """The report's tokens after the filter are those of the context pi rebuilds (within 2%)."""
    count, after = counter_of(result.report), result.report["after"]["tokens"]
    return abs(sum(count(text) for text in context_blocks(replay)) - after) <= 5 + 0.02 * after


def _entry_ids(result: filter_mod.FilterResult) -> set[str]:
    """The ids of the entries the copy holds."""
    return {e.get("id") for e in (json.loads(line) for line in result.output_path.read_text(encoding="utf-8").splitlines())}


def _compact_copy(session: PiSession, tmp_path: Path) -> filter_mod.FilterResult:
    """The session after two more turns (the recent tail), compacted into a copy without a budget."""
    for text in ("Next: the weekly report.", "And then the invoices."):
        session.user(text)
        session.say("On it.")
    source = session.write(tmp_path / "s.jsonl")
    return filter_path(source, mode="compact", output=tmp_path / "c.jsonl", workspace=tmp_path)


def test_an_exchange_that_says_more_than_an_item_quote_stays_in_the_digest_in_either_script(tmp_path: Path) -> None:
    session = PiSession()
    rule = "以后每天早上八点把日报发到我的邮箱，不要再发到群里。"
    kept = session.user(_ENVELOPE + rule)
    # 480 characters: fewer than digest_item_chars, but about three times as many letters' worth
    answer = session.say("好的，已记下：以后每天早上八点把日报发到你的邮箱，不再发到群里。" + "日报包括昨天的提交、构建结果和待办事项。" * 20)
    result = _compact_copy(session, tmp_path)
    compaction = [json.loads(line) for line in result.output_path.read_text(encoding="utf-8").splitlines()][-1]
    assert compaction["firstKeptEntryId"] != kept  # not kept as a message: the answer says too much
    assert f"- [{kept}] “{rule}” → [{answer}] 好的，已记下" in compaction["summary"]  # quoted, with its outcome


@pytest.mark.realclient
def test_a_must_keep_message_with_a_channel_envelope_stays_a_message_in_the_copy(tmp_path: Path, pi_validate,
                                                                                  pi_replay) -> None:
    session = worked_session()
    session.user("hi")
    session.say("Hi! What can I do for you?")
    rule = "From now on, always send me the daily summary at 08:00 by email."
    kept = session.user(_ENVELOPE + rule + "\n[message_id: 7781]")
    answer = session.say("Understood: the daily summary goes out by email every day at 08:00.")
    session.tool("call_1", "exec", {"command": "crontab -l"}, "0 8 * * * /usr/local/bin/summary")
    result = _compact_copy(session, tmp_path)
    source = tmp_path / "s.jsonl"
    entries = [json.loads(line) for line in result.output_path.read_text(encoding="utf-8").splitlines()]
    compaction = entries[-1]
    assert compaction["firstKeptEntryId"] == kept
    assert rule not in compaction["summary"]  # not said twice: the message itself follows the digest
    assert pi_validate(result.output_path, strict=True, single_branch=True)["exit"] == 0
    seen = "\n".join(context_blocks(pi_replay(result.output_path)))
    assert _ENVELOPE + rule in seen and "[message_id: 7781]" in seen  # as said, envelope and all
    assert "the daily summary goes out by email every day at 08:00" in seen  # with what answered it
    assert "crontab -l" not in seen and "Hi! What can I do for you?" not in seen  # the rest is digested
    assert source.read_text(encoding="utf-8").count("\n") == len(session.entries) + 1  # the source is untouched
    assert answer in {e.get("id") for e in entries}


@pytest.mark.realclient
def test_a_compact_copy_drops_the_tails_noise_as_the_default_filter_does(tmp_path: Path, pi_validate,
                                                                         pi_replay) -> None:
    session = worked_session()
    session.user("From now on, always answer in English.")
    session.say("Understood: English from now on.")
    session.tool("call_1", "exec", {"command": "ls /srv/reports"}, "weekly.md\nmonthly.md")
    session.user("Next: the weekly report for the Berlin office.")
    session.heartbeat()
    session.say("Weekly report drafted in /srv/reports/weekly.md.")
    session.user("And then the invoices of March.")
    session.assistant(stop="error")  # a failed, empty turn
    session.say("The March invoices are filed under /srv/invoices/2026-03.")
    source = session.write(tmp_path / "s.jsonl")
    result = filter_path(source, mode="compact", output=tmp_path / "c.jsonl", workspace=tmp_path)
    assert pi_validate(result.output_path, strict=True, single_branch=True)["exit"] == 0
    replay = pi_replay(result.output_path)
    seen = "\n".join(context_blocks(replay))
    assert "the weekly report for the Berlin office" in seen and "The March invoices are filed" in seen
    assert HEARTBEAT_PROMPT not in seen
    assert all(m.get("content") for m in replay["messages"] if m.get("role") == "assistant")  # no empty turn
    assert _counts_what_pi_shows(result, replay)  # the report counts what pi shows


@pytest.mark.realclient
def test_a_task_the_agent_only_claims_done_stays_a_message_with_its_envelope(tmp_path: Path, pi_replay) -> None:
    session = worked_session()
    task = session.user(_ENVELOPE + "Please switch the default model to the local qwen model.\n[message_id: 7790]")
    session.tool("call_1", "exec", {"command": "openclaw config set model qwen"}, "ok")
    session.say("Done: the default model is now the local qwen model.")
    result = _compact_copy(session, tmp_path)
    assert next(f for f in result.fates if f.element.id == task).status == "done"
    assert result.report["compaction"]["first_kept_entry_id"] == task
    seen = "\n".join(context_blocks(pi_replay(result.output_path)))
    assert _ENVELOPE + "Please switch the default model to the local qwen model." in seen
    assert "openclaw config set model qwen" not in seen  # the tool work is digested


def _staged_plan() -> str:
    steps = " ".join(f"Step {i}: the importer retries feed {i} with a backoff of {i * 5} minutes, logs the response "
                     f"code to /var/log/import/feed{i}.log and alerts the on-call channel when the third retry fails."
                     for i in range(1, 12))
    return "Decision: we switch the nightly import to a staged import. " + steps


@pytest.mark.realclient
def test_a_long_decision_the_user_then_decides_on_stays_whole_as_a_message(tmp_path: Path, pi_validate,
                                                                           pi_replay) -> None:
    session = worked_session()
    session.user("How should the nightly import handle the three failing feeds?")
    plan = _staged_plan()
    proposal = session.say(plan)
    session.user("Agreed, we go with the staged import from now on.")
    session.say("Noted: staged import it is.")
    result = _compact_copy(session, tmp_path)
    assert len(plan) > concentrate.load_for(None)["digest_item_chars"]  # a quote would lose its middle
    assert result.report["compaction"]["first_kept_entry_id"] == proposal
    assert pi_validate(result.output_path, strict=True, single_branch=True)["exit"] == 0
    seen = "\n".join(context_blocks(pi_replay(result.output_path)))
    assert plan in seen and "Agreed, we go with the staged import from now on." in seen
    summary = json.loads(result.output_path.read_text(encoding="utf-8").splitlines()[-1])["summary"]
    assert "Step 6:" not in summary  # not quoted a second time


@pytest.mark.realclient
def test_a_long_decision_nobody_decided_on_is_quoted_not_kept(tmp_path: Path) -> None:
    session = PiSession()
    session.user("How should the nightly import handle the three failing feeds?")
    session.say(_staged_plan())
    session.user("What is the weather like in Lisbon today?")
    session.say("Sunny, 24 °C.")
    result = _compact_copy(session, tmp_path)
    assert result.report["compaction"]["kept_messages"] == 0


_NEW_PROVIDER = '"providers": {"backup": {"baseUrl": "https://llm.example.net/v1", "api": "openai"}}'


def _accepted_edit(session: PiSession) -> tuple[str, str]:
    """The agent offers to change the gateway's config, the user accepts, the agent edits the file."""
    session.user("Can the gateway fall back to the backup provider when the main one is down?")
    session.say("It can: shall I add the backup provider to the gateway config?")
    session.user("Yes")
    return session.tool("call_9", "edit", {"file_path": "/srv/gateway/config.json", "oldText": '"providers": {}',
                                           "newText": _NEW_PROVIDER},
                        "Successfully replaced text in /srv/gateway/config.json.", think="Adding the provider now.")


@pytest.mark.realclient
def test_a_change_the_agent_made_without_a_word_stays_as_a_call_with_its_result(tmp_path: Path, pi_validate,
                                                                                pi_replay) -> None:
    session = worked_session()
    call, result_id = _accepted_edit(session)
    session.tool("call_10", "exec", {"command": "systemctl restart gateway"}, "")
    session.user("hello?")
    session.assistant(stop="error")  # the turn ends with no word from the agent
    result = _compact_copy(session, tmp_path)
    kept = _entry_ids(result)
    assert {call, result_id} <= kept
    assert pi_validate(result.output_path, strict=True, single_branch=True)["exit"] == 0
    seen = "\n".join(context_blocks(pi_replay(result.output_path)))
    assert _NEW_PROVIDER in seen.replace("\\", "") and "Successfully replaced text in /srv/gateway/config.json." in seen
    assert "Adding the provider now." not in seen  # its thinking goes, as a kept message's does
    assert "systemctl restart gateway" not in seen  # no change the call's arguments hold: digested


@pytest.mark.realclient
def test_a_file_written_without_a_word_stays_as_its_call_with_its_content_cut_to_the_head(tmp_path: Path, pi_validate,
                                                                                         pi_replay) -> None:
    """As the default filter cuts an old call's long arguments: the file holds the rest, the call says what changed."""
    session = worked_session()
    page = "".join(f"<p>Section {n}: the gateway's status, checked every minute.</p>\n" for n in range(300))
    session.user("Write the status page to /srv/www/status.html.")
    call, result_id = session.tool("call_11", "write", {"file_path": "/srv/www/status.html", "content": page},
                                   "Wrote /srv/www/status.html.")
    session.user("hello?")
    session.assistant(stop="error")  # the turn ends with no word from the agent
    result = _compact_copy(session, tmp_path)
    kept = _entry_ids(result)
    assert {call, result_id} <= kept
    assert pi_validate(result.output_path, strict=True, single_branch=True)["exit"] == 0
    seen = "\n".join(context_blocks(pi_replay(result.output_path))).replace("\\n", "\n")
    assert "/srv/www/status.html" in seen and "<p>Section 0:" in seen and "characters cut by apollo renal" in seen
    assert "Section 299" not in seen


@pytest.mark.realclient
def test_a_change_the_agent_reported_in_words_is_digested(tmp_path: Path, pi_replay) -> None:
    session = worked_session()
    _accepted_edit(session)
    session.say("Done: the backup provider is in the gateway config.")
    result = _compact_copy(session, tmp_path)
    seen = "\n".join(context_blocks(pi_replay(result.output_path)))
    assert "Successfully replaced text" not in seen


_ROTATE = "#!/bin/sh\n# rotate the gateway logs every week\nfind /var/log/gateway -name '*.log' -mtime +7 -exec gzip {} +\n"


def _answer_then_work(session: PiSession) -> tuple[str, str, str]:
    """The user asks a question and for a script; the agent answers, writes the script in the same
    entry, and ends its turn on a report of the script alone. Returns (answer, its entry, the result)."""
    session.user("Is it possible to connect the gateway to Signal? Also create a log rotation script.")
    answer = ("Signal is not supported: the gateway has no Signal channel, and the closest ones are Telegram and "
              "WhatsApp. Now the log rotation script:")
    entry = session.assistant({"type": "text", "text": answer},
                              {"type": "toolCall", "id": "call_5", "name": "write",
                               "arguments": {"file_path": "/srv/rotate-logs.sh", "content": _ROTATE}}, stop="toolUse")
    done = session.entry("message", message={"role": "toolResult", "toolCallId": "call_5", "toolName": "write",
                                             "content": [{"type": "text", "text": "Wrote /srv/rotate-logs.sh."}],
                                             "isError": False, "timestamp": session.clock})
    session.say("Done: /srv/rotate-logs.sh compresses the gateway's logs older than a week; run it weekly from cron.")
    return answer, entry, done


@pytest.mark.realclient
def test_an_answer_given_before_the_agent_goes_on_working_stays_with_that_work(tmp_path: Path, pi_validate,
                                                                               pi_replay) -> None:
    session = worked_session()
    answer, entry, done = _answer_then_work(session)
    result = _compact_copy(session, tmp_path)
    kept = _entry_ids(result)
    assert {entry, done} <= kept  # the answer's entry, and the result of the call it made (never one without the other)
    assert pi_validate(result.output_path, strict=True, single_branch=True)["exit"] == 0
    seen = "\n".join(context_blocks(pi_replay(result.output_path)))
    assert answer in seen and "Wrote /srv/rotate-logs.sh." in seen
    assert "Is it possible to connect the gateway to Signal?" in seen  # the question is still in the digest


_OPEN_ID, _MESSAGE_ID = "ou_b83724522290b2449d9ecb7166431801", "om_x100b538cb6f72898c4571d5a0e73ad0"
_STAMP = "System: [2026-04-07 14:29:03 GMT+8] Feishu[ops] DM | Ana"
_FEISHU = (f"{_STAMP} ({_OPEN_ID}) [msg:{_MESSAGE_ID}]\n\n"
           f'Conversation info (untrusted metadata):\n```json\n{{\n  "message_id": "{_MESSAGE_ID}",\n'
           f'  "sender_id": "{_OPEN_ID}",\n  "timestamp": "Tue 2026-04-07 14:29 GMT+8"\n}}\n```\n\n'
           f'Sender (untrusted metadata):\n```json\n{{\n  "label": "Ana ({_OPEN_ID})",\n  "id": "{_OPEN_ID}",\n'
           '  "name": "Ana"\n}\n```\n\n')


@pytest.mark.realclient
def test_a_message_kept_for_its_envelope_keeps_the_stamp_and_leaves_the_metadata_blocks_out(
        tmp_path: Path, pi_validate, pi_replay) -> None:
    session = PiSession()
    session.user("hi")
    session.say("Hi! What can I do for you?")
    rule = "From now on, always send me the daily summary at 08:00 by email."
    kept = session.user(_FEISHU + rule)
    session.say("Understood: the daily summary goes out by email every day at 08:00.")
    result = _compact_copy(session, tmp_path)
    assert result.report["compaction"]["first_kept_entry_id"] == kept
    assert pi_validate(result.output_path, strict=True, single_branch=True)["exit"] == 0
    replay = pi_replay(result.output_path)
    seen = "\n".join(context_blocks(replay))
    assert _STAMP + "\n\n" + rule in seen  # when, where and who, then the words as said
    assert "untrusted metadata" not in seen and '"sender_id"' not in seen
    assert _OPEN_ID not in seen and _MESSAGE_ID not in seen  # the channel's opaque ids go with the blocks
    assert _counts_what_pi_shows(result, replay)  # the report counts the leaner message pi shows
    source = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()]
    assert _FEISHU + rule in [block["text"] for e in source if e.get("type") == "message"
                              for block in e["message"]["content"] if block.get("type") == "text"]  # source untouched


_RECALLED = ("<relevant-memories>\n  1. [message:user] the staging server is stg-02\n"
             "  2. [fact:preference] Ana likes short answers\n</relevant-memories>\n\n")


@pytest.mark.realclient
def test_a_kept_message_leaves_out_the_memories_a_plugin_recalled_for_it(tmp_path: Path, pi_replay) -> None:
    # recalled anew before every message: an older message's copy is stale, the newest carries the current one
    session = PiSession()
    session.user("hi")
    session.say("Hi! What can I do for you?")
    rule = "From now on, always send me the daily summary at 08:00 by email."
    session.user(_RECALLED + _FEISHU + rule)
    session.say("Understood: the daily summary goes out by email every day at 08:00.")
    result = _compact_copy(session, tmp_path)
    replay = pi_replay(result.output_path)
    seen = "\n".join(context_blocks(replay))
    assert _STAMP + "\n\n" + rule in seen
    assert "relevant-memories" not in seen and "stg-02" not in seen
    assert _counts_what_pi_shows(result, replay)


@pytest.mark.realclient
def test_the_agents_must_keep_answer_to_a_question_stays_with_it_and_its_reasoning(tmp_path: Path, pi_validate,
                                                                                     pi_replay) -> None:
    session = worked_session()
    question = session.user(_ENVELOPE + "Which database should the billing service use, Postgres or MySQL?\n"
                                        "[message_id: 7801]")
    reasoning = "The billing service already stores its line items as JSONB; MySQL has no equivalent index."
    answer = ("We go with PostgreSQL 16 for the billing service: it already depends on JSONB columns, and the "
              "nightly backup to /srv/backup at 02:00 stays as it is.")
    session.assistant({"type": "thinking", "thinking": reasoning}, {"type": "text", "text": answer})
    result = _compact_copy(session, tmp_path)
    fates = {f.element.id: f for f in result.fates}
    assert fates[question].element.role.value == "user" and fates[question].status == "answered"
    assert result.report["compaction"]["first_kept_entry_id"] == question
    assert pi_validate(result.output_path, strict=True, single_branch=True)["exit"] == 0
    replay = pi_replay(result.output_path)
    seen = "\n".join(context_blocks(replay))
    assert _ENVELOPE + "Which database should the billing service use" in seen and answer in seen
    assert reasoning in seen  # why it was decided stays with the decision
    summary = json.loads(result.output_path.read_text(encoding="utf-8").splitlines()[-1])["summary"]
    assert "PostgreSQL 16" not in summary  # not said twice
    assert _counts_what_pi_shows(result, replay)  # the report counts the thinking kept


@pytest.mark.realclient
def test_an_open_tasks_long_answer_stays_with_it_but_its_thinking_goes(tmp_path: Path, pi_replay) -> None:
    session = worked_session()
    task = session.user(_ENVELOPE + "Please set up the weekly invoice export to the accounting share.\n"
                                    "[message_id: 7802]")
    session.tool("call_1", "exec", {"command": "mount | grep accounting"}, "mount: /mnt/accounting: permission denied")
    report = "The export is not set up yet. " + " ".join(
        f"On mount point {i} the share //files.example.net/accounting{i} answered error 13 (permission denied) "
        f"for the service account svc-export." for i in range(1, 12))
    session.assistant({"type": "thinking", "thinking": "The mount failed everywhere; say so plainly."},
                      {"type": "text", "text": report})
    result = _compact_copy(session, tmp_path)
    item_chars = concentrate.load_for(None)["digest_item_chars"]
    assert item_chars < len(report) <= 2 * item_chars  # longer than an item's quote: the task's state is in it
    fates = {f.element.id: f for f in result.fates}
    assert fates[task].must_keep and fates[task].category == "task"
    assert result.report["compaction"]["first_kept_entry_id"] == task
    seen = "\n".join(context_blocks(pi_replay(result.output_path)))
    assert report in seen and "Please set up the weekly invoice export" in seen
    assert "say so plainly" not in seen  # the reply is no must-keep item of its own: its thinking goes
    assert "mount | grep accounting" not in seen  # the tool work is digested


@pytest.mark.realclient
def test_a_long_request_carried_out_is_quoted_with_its_outcome_not_kept_whole(tmp_path: Path) -> None:
    """n13's sweep: a 28k-token file pasted with "extract the prompts and save them", then the agent's "the
    prompts are saved", stayed whole after the digest once the report was read as its outcome."""
    session = PiSession()
    pasted = "\n".join(f'{{"prompt": "Prompt {i}: write a product description for item {i} in a friendly tone, '
                       f'under 80 words, naming its price and size"}}' for i in range(60))
    session.user("Extract every prompt in this file and save them to prompts.md:\n" + pasted)
    session.tool("w1", "write", {"file_path": "prompts.md", "content": "60 prompts"}, "wrote prompts.md")
    session.say("Done: the 60 prompts are saved in prompts.md.")
    session.user("What is the weather like in Lisbon today?")
    session.say("Sunny, 24 °C.")
    result = _compact_copy(session, tmp_path)
    kept = [json.loads(line) for line in result.output_path.read_text(encoding="utf-8").splitlines()]
    assert not any("Prompt 42:" in json.dumps(entry) for entry in kept[:-1] if entry.get("type") == "message")
