"""Compact mode on one request and a long run of the agent's work (a cron job, a build): the recent
turns stay whole only up to ``compact_tail_tokens``; beyond that the tail starts at the first cut
point within that much of the end, as OpenClaw's own compaction keeps its newest tokens. Before, such
a session was refused ("every entry is in the recent tail") however long it was: on real unlabelled
sessions, 33 of 35 compactions were, up to 85,000 tokens.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apollo import transcript
from apollo.errors import InputError
from apollo.renal import concentrate
from apollo.renal.filter import filter_path
from realclient.support import PiSession

_REQUEST = "Run the nightly scan of the build logs and report every failing job with its first error line."


#: a cron prompt longer than a quote's limit (``digest_item_chars``): thirty requirements
_LONG_REQUEST = "Run the nightly scan. Requirements:\n" + "\n".join(
    f"{n}. check service-{n} for the error code E{n:03d} and report its first line" for n in range(1, 31))


def _steps(session: PiSession, steps: int, lines: int = 60, start: int = 0) -> None:
    for step in range(start, start + steps):
        output = "\n".join(f"job-{step}-{n}: build ok in {n * 7 % 300} s, cache hit {n % 5 == 0}" for n in range(lines))
        session.tool(f"call_{step}", "exec", {"command": f"grep -c ok logs/{step}.log"}, output)


def _run(steps: int, lines: int = 60, request: str = _REQUEST) -> PiSession:
    """One request, then ``steps`` tool calls whose outputs run to ``lines`` lines each, and a report."""
    session = PiSession()
    session.user(request)
    _steps(session, steps, lines)
    session.say("Scan finished: job-3-17 failed with 'disk full'; every other job passed.")
    return session


def _tail_tokens(path: Path) -> int:
    """The tokens of the entries after the newest compaction entry, as the agent's loader shows them."""
    elements = transcript.read(path, counter="estimate").in_context()
    return sum(e.tokens for e in elements if e.kind.value != "compaction")


def test_a_long_run_after_one_request_is_compacted_down_to_its_newest_tokens(tmp_path: Path) -> None:
    source = _run(steps=40).write(tmp_path / "s.jsonl")
    cap = concentrate.load()["compact_tail_tokens"]
    result = filter_path(source, mode="compact", output=tmp_path / "c.jsonl", workspace=tmp_path)
    entries = [json.loads(line) for line in result.output_path.read_text(encoding="utf-8").splitlines()]
    compaction = [e for e in entries if e.get("type") == "compaction"][-1]
    assert _REQUEST in compaction["summary"]  # the request the run serves, verbatim
    assert result.report["saving"] > 0.3
    assert _tail_tokens(result.output_path) <= cap + 2_000  # the kept tail (plus the digest) stays near the cap


def test_a_run_within_the_cap_is_still_all_recent_tail(tmp_path: Path) -> None:
    source = _run(steps=2).write(tmp_path / "s.jsonl")
    before = source.read_bytes()
    with pytest.raises(InputError, match="every entry is in the recent tail"):
        filter_path(source, mode="compact", output=tmp_path / "c.jsonl", workspace=tmp_path)
    assert source.read_bytes() == before


@pytest.mark.realclient
def test_pi_loads_the_compacted_long_run(tmp_path: Path, pi_validate) -> None:
    source = _run(steps=40).write(tmp_path / "s.jsonl")
    result = filter_path(source, mode="compact", output=tmp_path / "c.jsonl", workspace=tmp_path)
    report, whole = pi_validate(result.output_path, strict=True), pi_validate(source, strict=True)
    assert report["exit"] == 0, report["errors"]
    assert report["context"]["agentMessages"] < whole["context"]["agentMessages"]  # pi shows digest + tail


@pytest.mark.parametrize("in_place", [False, True])
def test_a_long_request_the_capped_tail_leaves_out_is_quoted_whole(tmp_path: Path, in_place: bool) -> None:
    """The tail would have kept the request the run serves; in the digest it is not cut to a quote's
    start and end (the 3rd to the 21st of 30 requirements had gone)."""
    source = _run(steps=40, request=_LONG_REQUEST).write(tmp_path / "s.jsonl")
    assert len(_LONG_REQUEST) > concentrate.load()["digest_item_chars"]
    result = filter_path(source, mode="compact", output=None if in_place else tmp_path / "c.jsonl",
                         in_place=in_place, workspace=tmp_path)
    shown = "\n".join(e.text for e in transcript.read(result.output_path, counter="estimate").in_context())
    for n in range(1, 31):
        assert f"check service-{n} for the error code E{n:03d}" in shown, n


def _shown(path: Path) -> str:
    return "\n".join(e.text for e in transcript.read(path, counter="estimate").in_context())


def test_the_request_before_a_go_ahead_is_quoted_too(tmp_path: Path) -> None:
    """The recent turns hold the request and the user's "continue" after a pause: both are quoted."""
    session = PiSession()
    session.user(_LONG_REQUEST)
    _steps(session, 5)
    session.say("Paused: the next services need the admin token. Go on?")
    session.user("continue")
    _steps(session, 40, start=5)
    source = session.write(tmp_path / "s.jsonl")
    shown = _shown(filter_path(source, mode="compact", in_place=True, workspace=tmp_path).output_path)
    for n in range(1, 31):
        assert f"check service-{n} for the error code E{n:03d}" in shown, n


def test_a_huge_paste_before_the_run_is_quoted_by_its_start_and_end_only(tmp_path: Path) -> None:
    """A 270 KB log pasted with the request: the digest does not carry it whole (it did, and every later
    compaction carried it again); its start and its end, where the request is, stay."""
    paste = "\n".join(f"2026-03-01 12:{n % 60:02d} worker-{n} finished batch {n} in {n % 97} ms" for n in range(5000))
    source = _run(steps=40, request=paste + "\nWhich of these batches took longest? Fix that worker.").write(
        tmp_path / "s.jsonl")
    limit = concentrate.load()["digest_recent_request_chars"]
    result = filter_path(source, mode="compact", output=tmp_path / "c.jsonl", workspace=tmp_path)
    entries = [json.loads(line) for line in result.output_path.read_text(encoding="utf-8").splitlines()]
    summary = [e for e in entries if e.get("type") == "compaction"][-1]["summary"]
    assert len(summary) < limit + 4_000 and "Fix that worker." in summary
    assert result.report["saving"] > 0.5


def test_a_run_whose_request_an_earlier_compaction_hides_is_compacted(tmp_path: Path) -> None:
    """No user turn left in context (an earlier compaction replaced it): the run is all recent, and a
    long one is compacted to its newest tokens rather than refused."""
    session = PiSession()
    session.user(_REQUEST)
    first = _steps_and_id(session)
    session.compaction("The user asked for the nightly scan of the build logs.", first)
    _steps(session, 40, start=1)
    source = session.write(tmp_path / "s.jsonl")
    result = filter_path(source, mode="compact", output=tmp_path / "c.jsonl", workspace=tmp_path)
    assert result.report["saving"] > 0.3
    assert not any(e.role.value == "user" and e.kind.value == "text" for e in
                   transcript.read(source, counter="estimate").in_context())  # the request is hidden indeed


def _steps_and_id(session: PiSession) -> str:
    """One step; the id of its call's entry (where an earlier compaction's kept part starts)."""
    return session.tool("call_first", "exec", {"command": "ls logs"}, "0.log\n1.log")[0]


def _after_compaction(earlier: str, tmp_path: Path) -> str:
    """The digest of a long run whose first step an earlier compaction with ``earlier`` summarised."""
    session = PiSession()
    session.user(_REQUEST)
    first = _steps_and_id(session)
    session.compaction(earlier, first)
    _steps(session, 40, start=1)
    return _summary(session, tmp_path)


def _summary(session: PiSession, tmp_path: Path) -> str:
    """The digest compact mode writes for ``session``."""
    result = filter_path(session.write(tmp_path / "s.jsonl"), mode="compact", output=tmp_path / "c.jsonl",
                         workspace=tmp_path)
    entries = [json.loads(line) for line in result.output_path.read_text(encoding="utf-8").splitlines()]
    return [e for e in entries if e.get("type") == "compaction"][-1]["summary"]


@pytest.mark.parametrize("second", ["again", "different"])
def test_a_prompt_sent_again_word_for_word_is_quoted_once_at_the_copy_the_run_answered(tmp_path: Path,
                                                                                        second: str) -> None:
    """A scheduled job's prompt retried after a failed turn (OpenClaw falls back to another model and
    sends it again), then the run: both copies are in the filter's recent tail, neither in the capped
    compact tail. The digest quotes it once, under the copy the run answered; two prompts that differ
    (here by a number) are both quoted."""
    prompt = "[cron:66549787-5cce Nightly scan] " + _REQUEST
    session = PiSession()
    first = session.user(prompt + " Top 5.")
    session.assistant(stop="error")  # the model failed with nothing to show
    retried = session.user(prompt.replace(" Run", "  Run") + (" Top 5." if second == "again" else " Top 10."))
    _steps(session, 40)
    session.say("Scan finished: job-3-17 failed with 'disk full'; every other job passed.")
    summary = _summary(session, tmp_path)
    # quoted whole, each copy without its id: the line holds all there is (the run's answer is in the tail)
    assert f"[{first}]" not in summary and f"[{retried}]" not in summary
    if second == "again":
        assert summary.count(_REQUEST) == 1
        assert "\n1 more pleasantries" in summary  # the failed turn; the copy left out is not counted as small talk
    else:
        assert summary.count(_REQUEST) == 2 and "Top 5." in summary and "Top 10." in summary


def test_a_question_sent_again_after_a_failed_turn_is_not_also_pointed_to_as_outdated(tmp_path: Path) -> None:
    """The first copy, answered through the second, is outdated: quoted at the second copy, it was
    also listed among the outdated (a real compaction's digest showed the question twice so)."""
    question = "How often does the heartbeat run, and which file sets its schedule?"
    session = PiSession()
    first = session.user(question)
    session.assistant({"type": "text", "text": "[assistant turn failed before producing content]"}, stop="error")
    again = session.user(question)
    session.say("Every 30 minutes, between 08:00 and 22:00: HEARTBEAT.md sets it.")
    _steps(session, 40)
    session.say("Scan finished: job-3-17 failed with 'disk full'; every other job passed.")
    summary = _summary(session, tmp_path)
    assert summary.count(question) == 1 and f"[{first}]" not in summary
    line = next(line for line in summary.splitlines() if question in line)
    assert "→ Every 30 minutes, between 08:00 and 22:00: HEARTBEAT.md sets it." in line and again not in line


def test_a_prompt_answered_then_sent_again_keeps_both_copies_and_each_answer(tmp_path: Path) -> None:
    """Copies answered apart are two runs: each keeps its quote and its own answer (found by review:
    quoted at the latest copy only, the first run's outcome had disappeared)."""
    session = PiSession()
    first = session.user(_REQUEST)
    _steps(session, 3)
    outcome = session.say("Scan finished: job-1-4 failed with 'disk full'; I deleted old caches to free 20 GB.")
    again = session.user(_REQUEST)
    _steps(session, 40, start=3)
    session.say("Scan finished: every job passed tonight.")
    summary = _summary(session, tmp_path)
    lines = [line for line in summary.splitlines() if _REQUEST in line]
    assert len(lines) == 2 and first not in summary and again not in summary and outcome not in summary
    assert "→ Scan finished: job-1-4 failed" in lines[0] and "→" not in lines[1]  # the second run's answer: in the tail


@pytest.mark.parametrize("failure", [
    "I'm ready to help! Please provide the conversation text within `<conversation>` tags, and I'll generate a "
    "structured summary.",
    "Since there is no conversation provided, I will output an empty summary in the specified format:\n\n## Goal\n"
    "(None)",
    # OpenClaw's safeguard when the summariser could not run (a session of an owner the rules never saw had it)
    "Summary unavailable due to context limits. Older messages were truncated.\n\n<read-files>\n/home/u/notes.md\n"
    "</read-files>",
])
def test_an_earlier_summary_that_is_the_summarisers_failure_is_not_carried(tmp_path: Path, failure: str) -> None:
    """An earlier compaction whose model answered "please provide the conversation" summarised nothing:
    the digest does not carry it as the earlier summary (a real session's digest opened with it)."""
    summary = _after_compaction(failure, tmp_path)
    assert "conversation text" not in summary and "no conversation provided" not in summary
    assert "Summary unavailable" not in summary and "Earlier summary" not in summary
    kept = _after_compaction("The user asked for the nightly scan; service-3 failed with E003.", tmp_path / "kept")
    assert "service-3 failed with E003" in kept


_EMPTY_TEMPLATE = ("## Decisions\nNo prior history.\n\n## Open TODOs\nNone.\n\n## Constraints/Rules\nNone.\n\n"
                   "## Pending user asks\nNone.\n\n## Exact identifiers\nNone captured.")


def test_an_earlier_summarys_sections_that_say_there_is_nothing_are_not_carried(tmp_path: Path) -> None:
    """OpenClaw's summariser fills its template with "None." when there was nothing to say: carried,
    "Open TODOs: None." stood above the digest's own active tasks. A section that says something stays."""
    summary = _after_compaction(_EMPTY_TEMPLATE, tmp_path)
    assert "No prior history" not in summary and "Open TODOs" not in summary and "Earlier summary" not in summary
    summary = _after_compaction(_EMPTY_TEMPLATE.replace("## Open TODOs\nNone.", "## Open TODOs\n- rerun service-3"),
                                tmp_path / "kept")
    assert "## Open TODOs\n- rerun service-3" in summary and "None captured" not in summary
