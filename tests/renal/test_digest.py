"""The compact digest is worth reading: must-keep items verbatim with their ids, a request with its
outcome and a question with its answer, no JSON status blobs, greetings or non-files — built from
real pi session files and read back from the compaction entry the filter appends."""

from __future__ import annotations

import json
from pathlib import Path

from apollo.renal.filter import filter_path
from realclient.support import PiSession


def _digest(session: PiSession, tmp_path: Path) -> tuple[str, dict]:
    path = session.write(tmp_path / "s.jsonl")
    result = filter_path(path, "openclaw", mode="compact", output=tmp_path / "out.jsonl")
    entries = [json.loads(line) for line in result.output_path.read_text(encoding="utf-8").splitlines()]
    compaction = [e for e in entries if e.get("type") == "compaction"][-1]
    return compaction["summary"], result.report


def _tail(session: PiSession) -> None:
    for text in ("Next: the weekly report.", "And then the invoices."):
        session.user(text)
        session.say("On it.")


def test_a_request_comes_with_its_outcome_and_its_id(tmp_path: Path) -> None:
    session = PiSession()
    request = session.user("From now on, always send me the daily summary at 08:00 by email.")
    session.tool("call_1", "cron", {"action": "add", "schedule": "0 8 * * *"}, '{"status":"ok","jobId":"job-7f3a"}')
    session.say("Done: cron job job-7f3a sends the daily summary every day at 08:00.")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    assert request in summary
    assert "From now on, always send me the daily summary at 08:00 by email." in summary
    assert "job-7f3a sends the daily summary" in summary
    assert '{"status":"ok"' not in summary


def test_a_question_comes_with_its_answer(tmp_path: Path) -> None:
    session = PiSession()
    session.user("Which database should the orders service use, Postgres or MySQL?")
    session.say("Postgres 16: the orders service already depends on its JSONB columns.")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    if "Which database should the orders service use" in summary:
        assert "Postgres 16: the orders service already depends on its JSONB columns." in summary


def test_no_greetings_status_blobs_or_non_files(tmp_path: Path) -> None:
    session = PiSession()
    for _ in range(3):
        session.user("hi")
        session.say("Hi! How can I help?")
    session.user("Never deploy on Fridays; that is a standing rule.")
    session.tool("call_1", "exec", {"command": "cp /srv/app/config.yaml /srv/backup/config.yaml 2>/dev/null"},
                 '{"status":"ok"}')
    session.say('{"status":"ok","updated":3}')
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    assert "Never deploy on Fridays" in summary
    assert "/dev/null" not in summary and "/srv/app/config.yaml" in summary
    assert '{"status":"ok"' not in summary
    assert "- hi" not in summary and "How can I help" not in summary


def test_a_long_preamble_does_not_push_the_request_out_of_the_quote(tmp_path: Path) -> None:
    session = PiSession()
    preamble = "<relevant-memories>\n" + "\n".join(
        f"- memory {i}: the user once mentioned project item number {i} in passing" for i in range(80)) + \
        "\n</relevant-memories>\n\n"
    session.user(preamble + "From now on, never book meetings before 10:00 on Mondays.")
    session.say("Understood: no meetings before 10:00 on Mondays.")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    assert "never book meetings before 10:00 on Mondays" in summary


def test_the_snapshot_pairs_each_item_with_what_answered_it(tmp_path: Path) -> None:
    session = PiSession()
    request = session.user("From now on, always send me the daily summary at 08:00 by email.")
    session.say("Done: cron job job-7f3a sends the daily summary every day at 08:00.")
    _tail(session)
    path = session.write(tmp_path / "s.jsonl")
    result = filter_path(path, "openclaw", output=tmp_path / "out.jsonl", workspace=tmp_path)
    items = {item["id"]: item for item in json.loads(result.snapshot_path.read_text(encoding="utf-8"))["items"]}
    assert request in items
    assert "job-7f3a" in items[request]["reply"]["text"]
