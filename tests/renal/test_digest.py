"""The compact digest is worth reading: must-keep items verbatim with their ids, a request with its
outcome and a question with its answer, no JSON status blobs, greetings or non-files — built from
real pi session files and read back from the compaction entry the filter appends."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from apollo.redact import redact
from apollo.renal import concentrate, digest
from apollo.renal.filter import filter_path
from apollo.transcript.openclaw_rules import rules
from realclient.support import HEARTBEAT_PROMPT, PiSession
from renal.filter_support import worked_session
from test_redact import real_keys, survives


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


def test_a_quote_cut_short_is_whole_in_the_source_session_under_the_id_the_digest_gives(tmp_path: Path) -> None:
    session = PiSession()
    long_request = "Please set up the nightly export of the billing tables to /srv/export. " * 40
    request = session.user(long_request)
    session.say("Done: the export runs at 02:00.")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    head = summary.splitlines()[0]
    assert "source session keeps the whole message under the id before it" in head  # the header says where a cut quote is whole
    line = next(line for line in summary.splitlines() if line.startswith(f"- [{request}]"))
    assert " … " in line  # cut
    source = [json.loads(text) for text in (tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()]
    assert any(e.get("id") == request and long_request in json.dumps(e) for e in source)


def test_a_request_comes_with_its_outcome_and_its_id(tmp_path: Path) -> None:
    session = worked_session()
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
    session = worked_session()
    session.user("Which database should the orders service use, Postgres or MySQL?")
    session.say("Postgres 16: the orders service already depends on its JSONB columns.")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    if "Which database should the orders service use" in summary:
        assert "Postgres 16: the orders service already depends on its JSONB columns." in summary


def test_no_greetings_status_blobs_or_non_files(tmp_path: Path) -> None:
    session = worked_session()
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
    assert "/dev/null" not in summary and "/srv/{app/config.yaml, backup/config.yaml}" in summary
    assert '{"status":"ok"' not in summary
    assert "- hi" not in summary and "How can I help" not in summary


def test_what_the_filter_dropped_as_noise_is_not_pointed_to_as_outdated(tmp_path: Path) -> None:
    session = worked_session()
    session.user("hi")
    greeting = session.say("[[reply_to_current]] Hi there! I'm here and ready to help. What's on your mind today?")
    session.user("I need to set up my telegram bot for the daily reports.")
    session.say("Telegram set up: the bot token is stored and the daily reports go to your chat at 08:00.")
    _tail(session)
    summary, report = _digest(session, tmp_path)
    path = tmp_path / "s.jsonl"
    fates = {f.element.id: f for f in filter_path(path, "openclaw", mode="compact", dry_run=True).fates}
    assert fates[greeting].action == "drop"  # small talk: its "What's on your mind?" offers, it asks nothing
    assert greeting not in summary and "ready to help" not in summary
    assert "I need to set up my telegram bot" in summary


def test_a_request_is_answered_by_what_the_agent_said_not_by_a_delivery_copy_dropped_as_noise(tmp_path: Path) -> None:
    session = worked_session()
    request = session.user("Where do I get a free key for the Kimi model?")
    answer = session.say("Try this direct link: https://build.example.com/kimi-k2 — sign in, the key is under API keys.")
    mirror = session.say("Try this direct link: https://build.example.com/kimi-k2 — sign in, the key is under API keys.")
    session.entries[-1]["message"].update(provider="openclaw", model="delivery-mirror")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    fates = {f.element.id: f for f in filter_path(tmp_path / "s.jsonl", "openclaw", mode="compact", dry_run=True).fates}
    assert fates[mirror].action == "drop"  # the channel's copy of the answer: noise
    line = next(line for line in summary.splitlines() if "Where do I get a free key" in line)
    # both quoted whole: no id needed, the line holds all there is
    assert "→ Try this direct link: https://build.example.com/kimi-k2" in line and mirror not in summary
    assert request not in line and answer not in line


def test_a_report_delivered_from_a_scheduled_job_does_not_replace_the_agents_own_answer(tmp_path: Path) -> None:
    session = worked_session()
    session.user("How come the nightly importer skipped yesterday's files?")
    session.say("The importer's lock file was left behind after Tuesday's crash; I removed it and re-ran the import.")
    session.say("Task Consumer Report — 08:14\nStatus: Completed successfully\nResult: No tasks found in queue")
    session.entries[-1]["message"].update(provider="openclaw", model="delivery-mirror")
    session.user("Which job posts the weekly digest?")
    session.say("Weekly Digest Report — 09:00\nStatus: posted to #general")
    session.entries[-1]["message"].update(provider="openclaw", model="delivery-mirror")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    line = next(line for line in summary.splitlines() if "nightly importer skipped" in line)
    assert "lock file was left behind" in line and "Task Consumer Report" not in line
    # a question only the delivered report answered keeps it as its answer
    line = next(line for line in summary.splitlines() if "weekly digest?" in line)
    assert "posted to #general" in line


def test_a_long_preamble_does_not_push_the_request_out_of_the_quote(tmp_path: Path) -> None:
    session = PiSession()
    # (a preamble Apollo does not know as furniture: a memory plugin's <relevant-memories> block is the envelope)
    preamble = "Notes I keep on this:\n" + "\n".join(
        f"- note {i}: the user once mentioned project item number {i} in passing" for i in range(80)) + "\n\n"
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


def _fates(session: PiSession, tmp_path: Path) -> dict[str, object]:
    path = session.write(tmp_path / "s.jsonl")
    result = filter_path(path, "openclaw", mode="compact", dry_run=True, workspace=tmp_path)
    return {f.element.id: f for f in result.fates}


def test_a_terse_request_the_classifier_does_not_flag_is_still_quoted_in_the_users_words(tmp_path: Path) -> None:
    session = worked_session()
    request = session.user("Spreadsheet of the supplier invoices")
    session.tool("call_1", "exec", {"command": "ls ~/invoices"}, "a.pdf\nb.pdf")
    session.say("Here it is: invoices.xlsx lists the two supplier invoices.")
    _tail(session)
    fate = _fates(session, tmp_path)[request]
    assert not fate.must_keep  # the point: no must-keep verdict, and yet the request is in the user's words
    summary, _ = _digest(session, tmp_path)
    assert '- "Spreadsheet of the supplier invoices"' in summary and request not in summary
    assert "invoices.xlsx lists the two supplier invoices" in summary


def test_an_outdated_item_is_only_pointed_to_by_its_id_and_its_start(tmp_path: Path) -> None:
    session = worked_session()
    old = ("From now on we host the orders service on the old VPS in Frankfurt; nightly backups go to the NAS, "
           "with a weekly restore drill and monitoring by the Grafana stack.")
    first = session.user(old)
    session.say("Noted.")
    session.user("Actually, change that: from now on we host the orders service on the managed cluster, not the old VPS.")
    session.say("Noted: the managed cluster it is.")
    _tail(session)
    assert _fates(session, tmp_path)[first].outdated  # superseded by the change of plan
    summary, _ = _digest(session, tmp_path)
    assert f"- [{first}] From now on we host the orders service" in summary
    assert old not in summary and "monitoring by the Grafana stack" not in summary
    assert "on the managed cluster, not the old VPS" in summary


def test_an_answer_quoted_as_its_own_item_is_not_quoted_again_as_the_outcome(tmp_path: Path) -> None:
    session = worked_session()
    session.user("Should the staging gateway listen on 18789 or 18790?")
    answer = session.say("We decided: the staging gateway listens on port 18789 from now on, behind the nginx proxy.")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    assert summary.count("listens on port 18789 from now on") == 1
    assert f"→ [{answer}]" in summary


def test_a_decision_whose_question_was_answered_still_stands_among_the_decisions(tmp_path: Path) -> None:
    session = worked_session()
    decided = session.user("Decision: the orders service moves to Postgres 16. Which migration tool do you suggest?")
    session.say("Alembic: I will run the migration with it tonight at 23:00.")
    _tail(session)
    fate = _fates(session, tmp_path)[decided]
    assert fate.status == "answered" and fate.category == "decision"
    summary, _ = _digest(session, tmp_path)
    decisions = summary.split("## Decisions\n", 1)[1].split("\n## ", 1)[0]
    assert f'[{decided}] "Decision: the orders service moves to Postgres 16.' in decisions
    assert "run the migration with it tonight at 23:00" in decisions


def test_a_request_and_its_outcome_share_one_line_and_a_long_outcome_keeps_its_opening_and_conclusion(
        tmp_path: Path) -> None:
    session = worked_session()
    request = session.user("Can the staging gateway be reached from the office network?")
    steps = " ".join(f"Step {n}: open port {18780 + n} on firewall rule fw-{n} and reload the gateway."
                     for n in range(1, 8))
    answer = session.say("Not yet. " + steps + " After that the office network reaches it on port 18789.")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    line = next(line for line in summary.splitlines() if "Can the staging gateway" in line)
    # the request is whole (no id), the outcome cut: its id says where the rest is
    assert line.startswith(f'- "Can the staging gateway be reached from the office network?" → [{answer}] ')
    assert request not in line
    outcome = line.split(f"→ [{answer}] ", 1)[1]
    assert outcome.startswith("Not yet. … ")  # the opening sentence, whole
    assert outcome.endswith("After that the office network reaches it on port 18789.")  # and the conclusion
    assert "Step 1:" not in outcome and len(outcome) <= 300 + len(" … ")  # digest_reply_chars


def test_a_chinese_outcome_is_cut_by_display_width(tmp_path: Path) -> None:
    session = PiSession()
    request = session.user("办公室网络能访问测试网关吗？")
    steps = "".join(f"第{n}步：在防火墙规则 fw-{n} 上开放端口 {18780 + n}，然后重新加载网关。" for n in range(1, 12))
    answer = session.say("还不能。" + steps + "之后办公室网络就能通过 18789 端口访问了。")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    line = next(line for line in summary.splitlines() if "办公室网络能访问测试网关吗" in line)
    assert request not in line
    outcome = line.split(f"→ [{answer}] ", 1)[1]
    assert outcome.startswith("还不能。") and outcome.endswith("之后办公室网络就能通过 18789 端口访问了。")
    assert " … " in outcome and "第6步" not in outcome
    # a wide character takes two of digest_reply_chars' 300 columns: far fewer characters than in English
    assert len(outcome) <= 220


def test_what_follows_a_heartbeat_poll_answers_the_poll_not_an_earlier_request(tmp_path: Path) -> None:
    session = PiSession()
    request = session.user("Which skills do you have loaded right now?")
    answer = session.say("Loaded skills: weather, healthcheck and taskflow.")
    for _ in range(2):
        session.heartbeat("The evening check-in is due now: how was your day? Tell me the follow-up items.")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    line = next(line for line in summary.splitlines() if "Which skills do you have loaded" in line)
    assert "→ Loaded skills: weather, healthcheck and taskflow." in line and request not in line and answer not in line
    assert "evening check-in" not in line


def test_what_the_agent_says_to_a_heartbeat_poll_is_not_listed_as_a_fact(tmp_path: Path) -> None:
    session = PiSession()
    session.user("Never deploy on Fridays; that is a standing rule.")
    session.say("Noted: no deploys on Fridays.")
    checks = []
    for hour in (7, 8, 9):
        session.user(HEARTBEAT_PROMPT)
        session.tool(f"call_{hour}", "read", {"path": "/home/user/.openclaw/workspace/HEARTBEAT.md"},
                     "# HEARTBEAT.md\n- Every morning at 07:00 PST: read the news summary")
        checks.append(f"I have read HEARTBEAT.md at {hour}:26 AM PST. The file lists one recurring task: every "
                      f"morning at 07:00 PST read the news summary from /srv/news/daily-{hour}.md; it ran at 07:02.")
        session.say(checks[-1])
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    assert "Never deploy on Fridays" in summary
    assert not any(check[:40] in summary for check in checks)


def test_one_answer_to_two_requests_is_quoted_once(tmp_path: Path) -> None:
    session = worked_session()
    session.user("Which region is the backup bucket in?")
    session.user("And which storage class does it use?")
    answer = session.say("The backup bucket lives in eu-central-2 on the infrequent-access storage class.")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    assert summary.count("lives in eu-central-2 on the infrequent-access storage class") == 1
    assert summary.count(f"→ [{answer}]") == 2


_WORDS = ["invoice", "cluster", "backup", "supplier", "report", "gateway", "budget", "migration", "Berlin",
          "Tuesday", "port", "18789", "schema", "quarterly", "receipts", "月度", "报表", "服务器"]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_WORDS), min_size=3, max_size=10), min_size=1, max_size=4))
def test_every_request_the_filter_keeps_is_in_the_digest_word_for_word(requests: list) -> None:
    with tempfile.TemporaryDirectory() as folder:
        _check_requests_quoted(Path(folder), requests)


def _check_requests_quoted(tmp_path: Path, requests: list) -> None:
    session = worked_session()
    asked = []
    for number, words in enumerate(requests):
        text = f"Please prepare the {' '.join(words)} item {number}."
        asked.append((session.user(text), text))
        session.say(f"Prepared item {number}.")
    _tail(session)
    fates = _fates(session, tmp_path)
    summary, _ = _digest(session, tmp_path)
    for element_id, text in asked:
        if fates[element_id].action != "drop" and fates[element_id].status != "superseded":
            assert text in summary, text


_SENTENCE = st.lists(st.sampled_from(_WORDS + ["é", "ß", "—", "(v2)", "x**2"]), min_size=1, max_size=12).map(
    " ".join).flatmap(lambda words: st.sampled_from([".", "!", "?", "。", "；", ""]).map(lambda end: words + end))


@given(st.lists(_SENTENCE, min_size=1, max_size=30).map(lambda s: " ".join(s) if s[0].isascii() else "".join(s)),
       st.integers(min_value=8, max_value=400))
def test_an_outcome_is_the_text_or_its_own_start_and_end_within_the_limit(text: str, limit: int) -> None:
    flat = " ".join(text.split())
    outcome = digest._outcome(text, limit)
    if outcome == flat:
        assert len(flat) <= limit
        return
    head, tail = outcome.split(" … ", 1)
    assert flat.startswith(head) and flat.endswith(tail)  # every word shown is the text's own, in its order
    assert len(head) + len(tail) <= limit and head and tail


def test_an_outcome_in_chinese_is_cut_at_as_much_said_as_one_in_english() -> None:
    chinese, english = "已经把备份任务改到每天凌晨两点运行" * 40, "the backup job now runs every day at 02:00 " * 40
    limit = 300
    assert len(digest._outcome(english, limit)) <= limit + 3
    assert len(digest._outcome(chinese, limit)) <= limit // digest.WIDE_CHAR_LETTERS + 3  # a character says about three letters' worth


_PATHS = st.lists(st.from_regex(r"(~|/srv|\.)?(/[a-z0-9_.-]{1,6}){1,4}|[a-z]{1,6}\.(py|md)", fullmatch=True),
                  min_size=1, max_size=12).map(lambda paths: list(dict.fromkeys(paths)))


def _expanded(listed: str) -> list[str]:
    """The paths a tree of folders names ("a/{b/{c, d}, e}" → a/b/c, a/b/d, a/e)."""
    entries, depth, start = [], 0, 0
    for position, char in enumerate(listed + ","):
        depth += (char == "{") - (char == "}")
        if char == "," and depth == 0:
            entries.append(listed[start:position].strip())
            start = position + 1
    found = []
    for entry in entries:
        folder, brace, inside = entry.partition("/{")
        found += [f"{folder}/{path}" for path in _expanded(inside[:-1])] if brace else [entry]
    return found


@given(_PATHS)
def test_files_grouped_by_folder_name_the_same_paths(paths: list) -> None:
    listed = digest._by_folder(paths)
    files = [p for p in paths if not any(q.startswith(p + "/") for q in paths)]  # a folder is named by its files
    assert sorted(_expanded(listed)) == sorted(files)
    assert len(listed) <= len(", ".join(paths))


def test_files_are_listed_as_a_tree_each_folder_written_once() -> None:
    listed = digest._by_folder(["~/app/src/a.py", "~/app/src/b.py", "~/app/README.md", "/tmp/x", "/tmp/x/y.md", "/srv/z.sh"])
    assert listed == "~/app/{src/{a.py, b.py}, README.md}, /tmp/x/y.md, /srv/z.sh"


def test_no_file_is_read_in_what_a_call_writes_nor_in_a_urls_host() -> None:
    written = frozenset({"content"})
    call = json.dumps({"path": "/srv/app/calc.py", "content": "#!/usr/bin/env python3\nsee memory/week-YYYY-WXX.md"})
    assert digest._PATH.findall(digest._named_by(call, written)) == ["/srv/app/calc.py"]
    assert digest._PATH.findall('{"url": "https://skills.sh/bandrw/crossfit"}') == []
    assert digest._PATH.findall('{"url": "https://platform.example.com/#/docs/integration/open-claw"}') == []
    assert digest._named_by("cat /srv/a.txt", written) == "cat /srv/a.txt"  # no JSON: searched whole


def test_files_in_one_folder_are_listed_under_it(tmp_path: Path) -> None:
    session = worked_session()
    session.user("Never deploy on Fridays; that is a standing rule.")
    for number, name in enumerate(("api.py", "models.py", "views.py")):
        session.tool(f"call_{number}", "read", {"path": f"~/projects/shop/src/{name}"}, "print('ok')")
    session.say("Read the three modules.")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    assert "~/projects/shop/src/{api.py, models.py, views.py}" in summary


@given(st.text(min_size=0, max_size=400), st.integers(min_value=1, max_value=200))
def test_a_pointer_is_the_start_of_the_text_and_no_longer_than_asked(text: str, limit: int) -> None:
    flat = " ".join(text.split())
    pointer = digest._pointer(text, limit)
    assert pointer == flat or (pointer.endswith(" …") and flat.startswith(pointer[:-2])
                               and len(pointer) <= limit + 2)


def test_an_earlier_summary_is_quoted_whole_less_the_metadata_blocks_it_copied(tmp_path: Path) -> None:
    session = PiSession()
    opening = session.user("Please keep the nightly backup of /srv/db at 02:00.")
    session.say("Noted: the nightly backup of /srv/db runs at 02:00.")
    copied = ('User: [Tue 2026-04-07 14:29 GMT+8] keep the backups for 30 days\n\n'
              'Conversation info (untrusted metadata):\n```json\n{\n  "message_id": "om_7781",\n  "sender_id": "ou_4242"\n}\n```\n\n'
              "Agent: the backups are kept for 30 days.")
    session.compaction("## Goal\nNightly backups of /srv/db.\n\n## Recent turns preserved verbatim\n" + copied, opening)
    worked_session(session)  # after the earlier compaction: what pi shows
    session.user("Also rotate the logs of /srv/app every week.")
    session.say("Done: the logs of /srv/app rotate every Monday.")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    assert "## Goal\nNightly backups of /srv/db." in summary
    assert "[Tue 2026-04-07 14:29 GMT+8] keep the backups for 30 days\n\nAgent: the backups are kept for 30 days." in summary
    assert "untrusted metadata" not in summary and "om_7781" not in summary


_DESCRIPTION = ("The photo shows a whiteboard with a hand-drawn diagram of three boxes labelled ingest, queue and "
                "store, arrows between them, and a list of five numbered steps in small handwriting below it. "
                "The last step reads 'retry with backoff' and is circled twice in red marker near the bottom edge.")


def test_an_images_description_is_only_pointed_to_and_the_users_caption_is_quoted(tmp_path: Path) -> None:
    session = worked_session()
    caption = "Turn this sketch into the pipeline plan for the ingest service."
    request = session.user("[Tue 2026-04-07 14:29 GMT+8] [Image]\nUser text:\n" + caption +
                           "\nDescription:\n" + _DESCRIPTION)
    session.say("Plan drafted: ingest, then the queue, then the store, with retries and a backoff.")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    assert request in summary and caption in summary  # the user's own words, whole
    assert "The photo shows a whiteboard" in summary  # the description's start says what it was
    assert "circled twice in red marker" not in summary  # the vision model's words are not quoted on


def test_an_images_caption_is_quoted_without_the_channels_stamp_copied_in_front_of_it() -> None:
    stamp = "[Feishu ou_b83724522290b2449d9ecb7166431801 Mon 2026-04-06 11:05 GMT+8] "
    said = "Lynch: /Users/lynch/.openclaw/media/inbound/f595.jpg how far did I run?"
    quoted = digest._said(f"[Image]\nUser text:\n{stamp}{said}\nDescription:\n{_DESCRIPTION}", 60)
    assert quoted.startswith(f"[Image]\nUser text:\n{said}\nDescription:\nThe photo shows")  # who, the file, the words
    assert "ou_b837" not in quoted and "2026-04-06" not in quoted


def test_only_the_stamp_in_front_of_the_caption_goes_and_a_later_line_with_a_date_stays() -> None:
    stamp = "[Feishu ou_b83724522290b2449d9ecb7166431801 Mon 2026-04-06 11:05 GMT+8] "
    said = "Lynch: put this on the agenda for\n[Standup 2026-04-10 09:30] room B, and move the retro after it"
    quoted = digest._said(f"[Image]\nUser text:\n{stamp}{said}\nDescription:\n{_DESCRIPTION}", 60)
    assert quoted.startswith(f"[Image]\nUser text:\n{said}\nDescription:\n")  # the user's bracketed line, whole


_LINE = st.one_of(st.text(st.characters(blacklist_categories=("Cs",)), max_size=60),
                  st.sampled_from(["[Standup 2026-04-10 09:30] room B", "[Tue 2026-04-07 14:29 GMT+8] again",
                                   "[message_id: om_1]"]))
_CAPTION = st.lists(_LINE, max_size=4).map("\n".join).filter(lambda text: "Description:" not in text)
_STAMP = st.sampled_from(["", "[Feishu ou_b83724522290b2449d9ecb7166431801 Mon 2026-04-06 11:05 GMT+8] ",
                          "[Tue 2026-04-07 14:29 GMT+8] "])


@given(_CAPTION, st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=600),
       st.sampled_from(["Image", "Video", "Audio"]), st.integers(min_value=10, max_value=200), _STAMP)
def test_a_media_block_keeps_the_users_words_and_points_to_the_description(caption: str, description: str,
                                                                           kind: str, limit: int, stamp: str) -> None:
    # the first line opens with a word (a stamp's pattern takes the blanks after it)
    said = "\n".join(line for line in caption.splitlines() if line.strip()).lstrip(" \t") or "look"
    assume(rules().without_stamp_at(said, 0) == said)  # the user's first words are no stamp of their own
    text = f"[{kind}]\nUser text:\n{stamp}{said}\nDescription:\n{description}"
    quoted = digest._said(text, limit)
    head = f"[{kind}]\nUser text:\n{said}\nDescription:\n"
    if kind == "Audio":  # what follows in an audio block is the user's speech, not a model's description
        assert quoted == text
        return
    assert quoted.startswith(head)  # everything before the description, as written
    pointer = quoted[len(head):]
    flat = " ".join(description.split())
    assert pointer == flat or (pointer.endswith(" …") and flat.startswith(pointer[:-2]))
    assert len(pointer) <= max(len(flat), limit + 2)


@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=300), st.integers(min_value=10, max_value=200))
def test_a_message_without_a_media_description_is_quoted_as_it_is(text: str, limit: int) -> None:
    if "Description:" in text:
        return
    assert digest._said(text, limit) == text


def test_a_path_a_quote_already_gives_is_not_listed_again_under_files(tmp_path: Path) -> None:
    session = worked_session()
    session.user("Summarise /srv/reports/q3-draft.md against last quarter's report for me.")
    session.tool("call_1", "read", {"path": "/srv/reports/q3-draft.md"}, "Revenue grew 4%.")
    session.tool("call_2", "read", {"path": "/srv/archive/q2-final.md"}, "Revenue grew 2%.")
    session.say("Summary: revenue grew 4% this quarter against 2% in the second.")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    assert summary.count("/srv/reports/q3-draft.md") == 1  # in the request, not again among the files
    assert "/srv/archive/q2-final.md" in summary.split("## Files touched", 1)[1]


_FILLER = st.lists(st.sampled_from(["set", "the", "config", "key", "please", "部署", "密钥", "now", "and", "then"]),
                   min_size=0, max_size=60).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(kind=st.sampled_from(sorted(real_keys(3))), before=_FILLER, after=_FILLER, limit=st.integers(20, 400),
       seed=st.integers(0, 50))
def test_no_cut_leaves_a_piece_of_a_pasted_key(kind: str, before: str, after: str, limit: int, seed: int) -> None:
    """A quote, an outcome and a pointer cut the text where the limit falls: a key cut there must not
    survive as a piece redaction of the whole digest no longer recognises (it did at a text's start)."""
    key = real_keys(seed)[kind]
    text = f"{before} {key} {after}".strip()
    assume(not survives(key, redact(text)))  # what redaction of the whole text hides (not every draw's entropy is a key's)
    for cut in (digest._quote(text, limit), digest._outcome(text, limit), digest._pointer(text, limit)):
        assert not survives(key, redact(cut)), (kind, cut)


def test_a_key_that_opens_a_long_message_is_marked_not_cut() -> None:
    key = real_keys(5)["anthropic"]
    text = key + " is my key, set it in the config " + "and restart the gateway " * 20
    assert "[REDACTED " in digest._quote(text, 150) and not survives(key, digest._quote(text, 150))



_NONE = [re.compile(p, re.IGNORECASE) for p in concentrate.load()["digest_empty_section"]]


@settings(max_examples=150, deadline=None)
@given(sections=st.lists(st.tuples(st.sampled_from(["## Goal", "## Open TODOs", "### Done", "# Notes"]),
                                   st.sampled_from(["None.", "none", "- rerun the scan", "N/A", "kept # here", "",
                                                    "- (none)", "* None.", "（无）", "- none of them ran", "(n/a) yet"])),
                         max_size=6),
       preface=st.sampled_from(["", "Summary of the run.\n"]))
def test_only_sections_that_say_nothing_leave_an_earlier_summary(sections: list[tuple[str, str]], preface: str) -> None:
    """Every other section and the text before the first heading stay as written, in order."""
    text = preface + "".join(f"{head}\n{body}\n\n" for head, body in sections)
    out = digest.without_empty_sections(text, _NONE)
    # "- (none)": a list of nothing, as OpenClaw's summariser writes a split turn's empty sections
    empty = {"none", "n/a", "- (none)", "* none", "（无）"}
    expected = preface + "".join(f"{head}\n{body}\n\n" for head, body in sections
                                 if body.lower().rstrip(".") not in empty)
    assert out == expected.strip()


def test_a_code_block_and_a_no_are_no_empty_sections() -> None:
    """Review: a "#" comment in a code block split it as a heading, and its "None" went as an empty
    section; "没有" answers a question heading ("did not"), it says more than that nothing is there."""
    code = "## Critical Context\nThe helper returns:\n```python\n# when the cache is cold\nNone\n# otherwise\nvalue\n```"
    assert digest.without_empty_sections(code, _NONE) == code
    refused = "## 用户是否同意删除生产数据库\n没有\n\n## Open TODOs\n无"
    assert digest.without_empty_sections(refused, _NONE) == "## 用户是否同意删除生产数据库\n没有"


def test_a_tables_delimiter_row_is_not_quoted_and_its_header_and_cells_are(tmp_path: Path) -> None:
    """On one line a table's "|------|------|" divides nothing: the quote keeps the header and every
    cell, word for word, and a message quoted whole so still needs no id."""
    session = worked_session()
    session.user("Compare the two plans for me.")
    table = ("Here they are:\n\n| Plan | Price | Seats |\n|------|:-----:|------:|\n| Basic | $10 | 1 |\n"
             "| Team | $40 | - |\n\nI'd take Team: it has no seat limit.")
    answer = session.say(table)
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    line = next(line for line in summary.splitlines() if "Compare the two plans" in line)
    assert line.endswith("→ Here they are: | Plan | Price | Seats | | Basic | $10 | 1 | | Team | $40 | - | "
                         "I'd take Team: it has no seat limit.")
    assert "--" not in summary and f"[{answer}]" not in summary


#: a cell with a word or a number in it ("-" alone, a value, is in the test above)
_CELL = st.text(st.characters(whitelist_categories=("L", "N"), whitelist_characters=" -:$."), max_size=12).filter(
    lambda cell: any(char.isalnum() for char in cell))


@given(st.lists(st.lists(_CELL, min_size=1, max_size=4), min_size=1, max_size=5),
       st.lists(st.sampled_from(["---", ":---", "---:", ":---:", "--"]), min_size=1, max_size=4),
       st.booleans())
def test_a_one_line_quote_leaves_out_only_a_tables_delimiter_row(rows: list, cells: list, outer: bool) -> None:
    """The delimiter row under the header goes; a row of dashes among the data stays ("-- | --": no
    value); a table without outer pipes keeps one between its rows (its header's last cell and its
    first row's first cell stay apart)."""
    def line(row: list[str]) -> str:
        return f"| {' | '.join(row)} |" if outer else " | ".join(row * 2 if len(row) == 1 else row)

    body, dashes = [line(row) for row in rows], line(cells[:1] * 2)
    quoted = digest._one_line("\n".join([body[0], line(cells), *body[1:], dashes]))
    assert quoted == " ".join((" " if outer else " | ").join([*body, dashes]).split())  # every cell, in order


def test_a_row_of_dashes_among_the_data_stays_and_rows_without_outer_pipes_stay_apart() -> None:
    assert digest._one_line("| Host | Backup |\n|---|---|\n| nas | -- |\n| -- | -- |") == (
        "| Host | Backup | | nas | -- | | -- | -- |")  # "--": no value
    assert digest._one_line("Plan | Price\n--- | ---\nBasic | $10\nTeam | $40\n\nTake Team.") == (
        "Plan | Price | Basic | $10 | Team | $40 Take Team.")


def test_a_quote_is_the_words_the_user_read_not_the_model_s_answer_tags_or_reasoning(tmp_path: Path) -> None:
    """OpenClaw strips a model's <final> tags, <think> blocks and reply directives before anyone reads the reply:
    the digest quotes what is left, and a text that is only reasoning answers nothing."""
    session = worked_session()
    session.user("Switch the daily report to 07:30, please.")
    session.say("<think>The user wants the report moved to half past seven.</think>")
    session.tool("call_1", "cron", {"action": "update", "schedule": "30 7 * * *"}, '{"status":"ok","jobId":"job-7f3a"}')
    session.say("[[reply_to_current]] <final>Done: the daily report now runs at 07:30 (job-7f3a).</final>")
    session.user("Which model are you running on right now?")
    session.say("<think>I should check the config.</think><final>MiniMax M2, set in openclaw.json.</final>")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    assert '"Switch the daily report to 07:30, please." → [' in summary
    assert "Done: the daily report now runs at 07:30 (job-7f3a)." in summary
    assert '"Which model are you running on right now?" → MiniMax M2, set in openclaw.json.' in summary
    for markup in ("<final>", "</final>", "<think>", "[[reply_to_current]]", "The user wants", "check the config"):
        assert markup not in summary, markup
