"""What answered a request before the user's last long pause is settled: the user came back since.
The digest quotes such an answer by its opening and closing within ``digest_outdated_chars`` (with
its id: the source keeps the rest), the answers since the pause within ``digest_reply_chars``; the
request itself, and a must-keep item's answer, as before. (A real coaching chat over four days: 46
requests, their answers 2,900 tokens of a 14,500-token digest.)"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apollo.renal import concentrate, digest
from apollo.renal.filter import filter_path
from apollo.transcript.model import Kind, Role
from realclient.support import PiSession
from renal.filter_support import worked_session
from renal.test_digest import _digest, _tail

_RULES = concentrate.load()
_HOUR = 3_600_000  # the session clock counts milliseconds


def _coaching_answer(opening: str, closing: str) -> str:
    return opening + "43kg能做10次说明背的基础还在，后面几周重量会回来得很快。" * 6 + closing


def _line(summary: str, words: str) -> str:
    return next(line for line in summary.splitlines() if words in line)


def _outcome_later(session: PiSession, tmp_path: Path, hours: float, request: str, answer: str,
                   then: tuple[str, str] = ("Which branch is deployed now?", "main, at the last green build.")) -> str:
    """The outcome the digest gives ``answer`` (to the request holding ``request``) when the user says
    ``then`` (and the agent answers) ``hours`` later."""
    session.clock += int(hours * _HOUR)
    session.user(then[0])
    session.say(then[1])
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    return _line(summary, request).split(f"→ [{answer}] ", 1)[1]


def test_yesterdays_answer_is_quoted_short_and_todays_in_full_and_a_night_of_heartbeats_is_still_a_pause(
        tmp_path: Path) -> None:
    session = worked_session()
    session.user("高位下拉一共29kg12次，36kg12次，43kg10次有点累，36kg10次，累了")
    yesterday = session.say(_coaching_answer("第一天恢复训练，这个数据很不错了！", "继续往下走 → **面拉**，做完拉伸收工 💪"))
    session.user("面拉做完了")  # where the evening left off (never settled: the user may take it up)
    session.say("好，今天收工，记得拉伸。")
    for _ in range(5):  # the night: heartbeat polls every two hours, the user away
        session.clock += 2 * _HOUR
        session.heartbeat()
    session.clock += 2 * _HOUR
    session.user("我来健身了，现在状态不错，制定正常的训练计划。上次是拉，这次推？")
    today = session.say(_coaching_answer("上次推力数据（3/31）：卧推25lb×12、推肩30lb×12。", "开练吧 💪"))
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    settled = _line(summary, "高位下拉一共29kg12次").split(f"→ [{yesterday}] ", 1)[1]
    assert settled.startswith("第一天恢复训练") and settled.endswith("做完拉伸收工 💪") and " … " in settled
    assert len(settled) <= _RULES["digest_outdated_chars"] // digest.WIDE_CHAR_LETTERS + 3
    recent = _line(summary, "制定正常的训练计划").split(f"→ [{today}] ", 1)[1]
    assert recent.startswith("上次推力数据（3/31）") and len(recent) > 2 * len(settled)
    assert "- “高位下拉一共29kg12次，36kg12次，43kg10次有点累，36kg10次，累了” → " in summary  # the request, whole


def _evening_answer_after(tmp_path: Path, at_night: str) -> str:
    """How the digest quotes the evening's answer when the user sends ``at_night`` six hours after the
    evening and six hours before the morning's request."""
    session = worked_session()
    session.user("高位下拉一共29kg12次，36kg12次，43kg10次有点累，36kg10次，累了")
    evening = session.say(_coaching_answer("第一天恢复训练，这个数据很不错了！", "继续往下走 → **面拉**，做完拉伸收工 💪"))
    session.user("面拉做完了")  # where the evening left off
    session.say("好，今天收工，记得拉伸。")
    session.clock += 6 * _HOUR
    session.user(at_night)
    session.clock += 6 * _HOUR
    session.user("我来健身了，今天练推？")
    session.say("好，今天练推。")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    return _line(summary, "高位下拉一共29kg12次").split(f"→ [{evening}] ", 1)[1]


@pytest.mark.parametrize("at_night", ["在吗", "你好", "System: [2026-03-30 02:00:00 GMT+8] Exec failed (quiet-ridge, signal SIGTERM)"])
def test_a_ping_the_filter_drops_or_a_runtime_notice_in_the_night_is_no_return_of_the_users(
        tmp_path: Path, at_night: str) -> None:
    """The user's words count: a ping dropped as noise or a runtime notice at 02:00 does not cut a
    night in two (two gaps of six hours): the evening before it is still an earlier sitting."""
    settled = _evening_answer_after(tmp_path, at_night)
    assert settled.startswith("第一天恢复训练") and len(settled) <= _RULES["digest_outdated_chars"] // digest.WIDE_CHAR_LETTERS + 3


@pytest.mark.parametrize("at_night", ["高位下拉一共29kg12次，36kg12次，43kg10次有点累，36kg10次，累了", "好的", "ok"])
def test_a_request_said_again_or_an_acknowledgement_in_the_night_is_the_user_back(tmp_path: Path, at_night: str) -> None:
    """The filter drops a request said again as a copy and an acknowledgement as a formula, but either
    is the user back: the night has no pause of twelve hours, and the evening's answer is not settled."""
    quoted = _evening_answer_after(tmp_path, at_night)
    assert len(quoted) > _RULES["digest_outdated_chars"] // digest.WIDE_CHAR_LETTERS + 3  # not cut as settled


def test_a_must_keep_items_answer_is_never_settled(tmp_path: Path) -> None:
    session = worked_session()
    rule = session.user("From now on, every training plan you give me starts with a warm-up.")
    session.say("Understood. " + "Each plan now opens with five minutes of mobility and light sets. " * 8
                + "I wrote it into the coaching skill so it holds for every plan.")
    session.clock += 12 * _HOUR
    session.user("Plan for today: pull day.")
    session.say("Pull day: lat pulldown, seated row, face pulls, reverse crunches.")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    line = _line(summary, "every training plan you give me starts with a warm-up")
    assert line.startswith(f"- [{rule}] ") and "I wrote it into the coaching skill so it holds for every plan." in line
    assert len(line.split(" → ", 1)[1]) > _RULES["digest_outdated_chars"]


def test_within_one_sitting_every_answer_keeps_its_full_outcome(tmp_path: Path) -> None:
    """A real estate chat of three hours (no pause): the listing the agent looked up keeps its prices."""
    session = worked_session()
    session.user("3900 Ford Rd #14K Philadelphia pa 19131")
    listing = ("**3900 Ford Rd #14K** **Price:** $200,000 **Details:** 2 beds, 3 baths, 1,140 sqft. "
               + "Renovated in 2020 with custom cabinets and premium flooring. " * 6
               + "**Costs:** HOA $1,035/mo, Zestimate $198,100. What's the play: wholesale it, flip it, or buy?")
    answer = session.say(listing)
    outcome = _outcome_later(session, tmp_path, 3, "3900 Ford Rd #14K Philadelphia", answer,
                             ("Need a buyer", "Post it in the local investor groups with the numbers."))
    assert "HOA $1,035/mo, Zestimate $198,100" in outcome and len(outcome) > _RULES["digest_outdated_chars"]


def _said(gaps: list[tuple[float, str]]) -> list[SimpleNamespace]:
    """Fates of messages ``gaps`` hours apart: the user's text, a heartbeat poll, the agent's text, a ping
    the filter dropped as noise, a runtime notice (no words of the user's), a copy or an acknowledgement
    the filter dropped (the user's, all the same)."""
    kinds = {"user": (Role.USER, Kind.TEXT), "poll": (Role.USER, Kind.HEARTBEAT_POLL),
             "agent": (Role.ASSISTANT, Kind.TEXT), "untimed": (Role.USER, Kind.TEXT),
             "ping": (Role.USER, Kind.TEXT), "notice": (Role.USER, Kind.TEXT),
             "duplicate": (Role.USER, Kind.TEXT), "acknowledgement": (Role.USER, Kind.TEXT)}
    dropped = {"ping": "noise", "duplicate": "duplicate", "acknowledgement": "acknowledgement"}
    at, fates = datetime(2026, 3, 29, 8, tzinfo=UTC), []
    for number, (gap, kind) in enumerate(gaps):
        at += timedelta(hours=gap)
        role, element_kind = kinds[kind]
        stamp = None if kind == "untimed" else at.isoformat().replace("+00:00", "Z")
        fates.append(SimpleNamespace(
            action="drop" if kind in dropped else "keep", bucket=dropped.get(kind, ""), element=SimpleNamespace(
                id=f"m{number}", role=role, kind=element_kind, timestamp=stamp, text="" if kind == "notice" else "words")))
    return fates


_GAPS = st.lists(st.tuples(st.floats(min_value=0, max_value=30), st.sampled_from(
    ["user", "poll", "agent", "untimed", "ping", "notice", "duplicate", "acknowledgement"])), max_size=25)


@given(_GAPS, st.sampled_from([4.0, 8.0, 24.0]))
def test_what_is_settled_is_the_users_messages_before_their_last_long_pause(gaps: list, pause: float) -> None:
    fates = _said(gaps)
    done = digest.settled(fates, pause)
    users = [f.element for f in fates if f.element.role is Role.USER and f.element.kind is Kind.TEXT
             and f.element.text and f.bucket != "noise"]
    assert [e.id for e in users[:len(done)]] == sorted(done, key=lambda i: int(i[1:]))  # a prefix, in order
    timed = [e for e in users if e.timestamp]
    times = [datetime.fromisoformat(e.timestamp.replace("Z", "+00:00")) for e in timed]
    pauses = [timed[n] for n in range(1, len(timed)) if (times[n] - times[n - 1]).total_seconds() >= pause * 3600]
    if not pauses:
        assert done == frozenset()
    else:  # the user's last message before the last long pause is the first one not settled: the
        # conversation left off there
        assert len(done) == users.index(pauses[-1]) - 1
    # the agent's words, a heartbeat's polls, a dropped ping and a runtime notice are not the user coming back
    others = [f for f in fates if f.element not in users]
    assert digest.settled([f for f in fates if f not in others], pause) == done
    assert digest.settled(fates, None) == frozenset()


def test_the_rule_file_says_how_long_a_pause_is() -> None:
    assert _RULES["digest_pause_hours"] > 0
    assert re.search(r"^digest_pause_hours = ", (Path(concentrate.__file__).parent / "rules" / "filter.toml")
                     .read_text(encoding="utf-8"), flags=re.MULTILINE)


_ENVELOPE = "System: [{stamp} GMT+8] Feishu[anuo] DM | 用户545942\n\n"


def test_an_exchange_from_an_earlier_sitting_is_quoted_and_one_since_the_pause_stays_a_message(tmp_path: Path) -> None:
    """As in a real Feishu coaching chat: a standing rule the user gave one evening is quoted in the
    digest with its id and its answer; the one given after the night stays a message with its stamp."""
    session = worked_session()
    before = session.user(_ENVELOPE.format(stamp="2026-03-29 17:48:42") + "以后每次给我训练计划都要先带热身。")
    session.say("记好了 ✅ 以后每次计划都会带热身，写进 USER.md 了。")
    session.user("今天就到这里")  # where the evening left off (never settled)
    session.say("好的，晚安。")
    session.clock += 14 * _HOUR
    after = session.user(_ENVELOPE.format(stamp="2026-03-30 09:38:02") + "以后算数都用 Python 算，不要心算。")
    session.say("好的，以后涉及时间、热量、体重的计算都用 Python 算。")
    session.clock += _HOUR
    session.user("今天练什么？")
    session.say("今天练上肢推。")
    for text in ("下一步：周报。", "然后是发票。"):
        session.user(text)
        session.say("好的。")
    source = session.write(tmp_path / "s.jsonl")
    result = filter_path(source, mode="compact", output=tmp_path / "c.jsonl", workspace=tmp_path)
    entries = [json.loads(line) for line in result.output_path.read_text(encoding="utf-8").splitlines()]
    compaction = entries[-1]
    kept = {e.get("id") for e in entries}
    assert before not in kept and f"- [{before}] “以后每次给我训练计划都要先带热身。” → 记好了 ✅" in compaction["summary"]
    assert after in kept and compaction["firstKeptEntryId"] == after  # a message, with its stamp
    assert "以后算数都用 Python 算" not in compaction["summary"]


def test_an_answer_that_reports_work_done_is_never_settled_and_keeps_its_job_id(tmp_path: Path) -> None:
    """Yesterday's terse request the agent answered after running a tool: its answer reports work (a
    job's id, past its opening), what the digest keeps as the answers of the current sitting."""
    session = worked_session()
    session.user("Spreadsheet of the supplier invoices")
    session.tool("call_1", "exec", {"command": "make-sheet ~/invoices"}, '{"status": "queued", "job": "job-3-17"}')
    report = session.say("The sheet is being built in the background. "
                         + "It reads each invoice in turn and adds a row per supplier. " * 3
                         + "Its job id is job-3-17. " + "It usually takes about ten minutes. " * 3
                         + "Let me see what it printed so far:")
    outcome = _outcome_later(session, tmp_path, 20, "Spreadsheet of the supplier invoices", report)
    assert "Its job id is job-3-17." in outcome and len(outcome) > _RULES["digest_outdated_chars"]


def test_a_report_of_work_keeps_what_its_middle_says_though_it_names_nothing(tmp_path: Path) -> None:
    """A report of work from an earlier sitting whose middle says what failed, between an ordinary
    opening and closing and with no id or path: settling it as an outcome (its opening and closing)
    had lost the failure; every answer after a tool call keeps ``digest_reply_chars``."""
    session = worked_session()
    session.user("Spreadsheet of the supplier invoices")
    session.tool("call_1", "exec", {"command": "make-sheet ~/invoices"}, '{"status": "error", "code": 403}')
    session.say("I ran the nightly backup for the invoices as you asked this morning, all steps in order. "
                "The upload to the bucket failed with 403 Forbidden and 3 of 12 files are missing. "
                "Everything else went as planned and the team has been told about it by mail.")
    session.user("ok thanks")
    session.say("You're welcome.")
    session.clock += 20 * _HOUR
    session.user("Which branch is deployed now?")
    session.say("main, at the last green build.")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    assert "failed with 403 Forbidden and 3 of 12 files are missing" in _line(summary, "Spreadsheet of the supplier")


def test_one_message_stamped_out_of_order_makes_no_pause() -> None:
    """A queued or imported message stamped a day early, in a ten-minute sitting: no one left."""
    stamps = ["2026-04-20T10:00:00Z", "2026-04-20T10:05:00Z", "2026-04-19T09:00:00Z", "2026-04-20T10:10:00Z"]
    fates = [SimpleNamespace(action="keep", element=SimpleNamespace(id=f"u{n}", role=Role.USER, kind=Kind.TEXT,
                                                                    timestamp=stamp, text="words"))
             for n, stamp in enumerate(stamps)]
    assert digest.settled(fates, 8) == frozenset()


def test_an_open_task_from_an_earlier_sitting_stays_whole_with_its_state(tmp_path: Path) -> None:
    """A task's state (not confirmed, what is still needed, whom to call) is in the middle of its
    answer: from before a night away too, the exchange stays as messages after the digest."""
    session = worked_session()
    session.user(_ENVELOPE.format(stamp="2026-03-29 21:00:00") + "Book the venue for Saturday's workshop and tell me when it's confirmed.")
    session.say("I contacted the Don Bosco hall about Saturday's workshop. " + "I compared three halls in Panjim first. " * 8
                + "The booking is NOT confirmed yet: they need a 2,000 INR deposit by Friday 18:00 to hold the room. "
                + "In the meantime I drafted the announcement for the group. " * 4 + "Let me know if anything changes.")
    session.clock += 11 * _HOUR
    session.user(_ENVELOPE.format(stamp="2026-03-30 08:00:00") + "Good morning! What's on my calendar today?")
    session.say("Two classes: Python at 9:00 and Web Design at 11:00.")
    _tail(session)
    source = session.write(tmp_path / "s.jsonl")
    filter_path(source, "openclaw", mode="compact", output=tmp_path / "c.jsonl", workspace=tmp_path, overwrite=True)
    entries = [json.loads(line) for line in (tmp_path / "c.jsonl").read_text().splitlines()]
    kept = json.dumps([e for e in entries if e.get("type") == "message"])
    assert "2,000 INR deposit by Friday 18:00" in kept


def test_where_the_conversation_left_off_before_a_night_is_not_settled(tmp_path: Path) -> None:
    """Options one evening, "Good morning! Option 2 please" the next: the options keep their full
    outcome (reply_chars), whatever words the user comes back with."""
    session = worked_session()
    session.user("Give me three restaurant options for the team dinner on Friday, 12 people, near the office.")
    options = session.say("Here are three that take groups of 12 on a Friday: " + "1. Casa Lisboa, set menu 38 EUR, private room. " * 10
                          + "Tell me which one you want and I'll book it.")
    short = _outcome_later(session, tmp_path, 12, "three restaurant options", options,
                           then=("Good morning! Option 2 please.", "Great choice, I'll call them at opening time."))
    assert len(short) > _RULES["digest_outdated_chars"] + 40 and short.endswith("I'll book it.")


def test_a_quote_whose_secret_was_marked_keeps_its_id(tmp_path: Path) -> None:
    """The id leads to the entry that holds the key the user gave; the quote alone is not whole."""
    session = worked_session()
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    asked = session.user(f"Put this token in the deploy config: {key}")
    session.say("Done.")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    line = _line(summary, "deploy config")
    assert key not in summary and f"[{asked}]" in line and "[REDACTED " in line
