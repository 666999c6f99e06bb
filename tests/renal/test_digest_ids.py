"""An id in the digest says where the source session keeps what a quote leaves out: a request or an
answer quoted whole is written without one (a real chat's digest spent about 7 tokens on each of
~90 such ids), a cut one keeps it, and every id a line points to ("→ [id]") is written where the
message is quoted."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from realclient.support import PiSession
from renal.filter_support import worked_session
from renal.test_digest import _digest, _tail


def _summary(session: PiSession, tmp_path: Path) -> str:
    return _digest(session, tmp_path)[0]


def test_a_workout_log_and_its_short_reply_are_quoted_whole_without_ids(tmp_path: Path) -> None:
    """As in a real Feishu coaching chat: the user reports a set, the agent answers in two sentences."""
    session = worked_session()
    log = session.user("绳索面拉两边一共18kg12次四组")
    reply = session.say("稳！18kg×12×4组，肩后束到位了。 最后收尾 → **反向卷腹** 3组×12-15次，练完拉伸10分钟 💪")
    _tail(session)
    summary = _summary(session, tmp_path)
    line = next(line for line in summary.splitlines() if "绳索面拉两边一共18kg12次四组" in line)
    assert line == "- \"绳索面拉两边一共18kg12次四组\" → 稳！18kg×12×4组，肩后束到位了。 最后收尾 → **反向卷腹** 3组×12-15次，练完拉伸10分钟 💪"
    assert log not in summary and reply not in summary


def test_a_long_answer_cut_to_its_outcome_keeps_its_id(tmp_path: Path) -> None:
    session = worked_session()
    session.user("3900 Ford Rd #14K Philadelphia pa 19131")
    listing = session.say("**3900 Ford Rd #14K** **Price:** $200,000. " + "Renovated in 2020 with custom cabinets. " * 12
                          + "What's the play: wholesale it, flip it, or buy?")
    _tail(session)
    summary = _summary(session, tmp_path)
    line = next(line for line in summary.splitlines() if "3900 Ford Rd #14K Philadelphia" in line)
    assert line.startswith('- "3900 Ford Rd #14K Philadelphia pa 19131" → [' + listing + "] **3900 Ford Rd #14K**")
    assert " … " in line  # cut: the id says where the rest is


def test_a_request_cut_after_a_long_preamble_keeps_its_id(tmp_path: Path) -> None:
    session = worked_session()
    preamble = "Notes I keep on this:\n" + "\n".join(f"- note {i}: item {i} came up once" for i in range(80))
    request = session.user(preamble + "\n\nSpreadsheet of the supplier invoices, please.")
    session.say("Here it is: invoices.xlsx.")
    _tail(session)
    summary = _summary(session, tmp_path)
    line = next(line for line in summary.splitlines() if "Spreadsheet of the supplier invoices" in line)
    assert line.startswith(f"- [{request}] ") and " … " in line


_WORDS = ["invoice", "cluster", "backup", "supplier", "report", "gateway", "18789", "schema", "月度", "报表"]
#: an answer: a short one, or one longer than an outcome's limit (digest_reply_chars)
_ANSWER = st.tuples(st.lists(st.sampled_from(_WORDS), min_size=2, max_size=8).map(" ".join),
                    st.sampled_from([1, 1, 40]))


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from(_WORDS), min_size=2, max_size=8).map(" ".join),
                          st.booleans(), _ANSWER), min_size=1, max_size=5))
def test_every_id_is_written_where_a_quote_is_cut_and_every_pointer_finds_its_quote(turns: list) -> None:
    """Requests, some asked twice in a row (one answer to both), answered briefly or at length: a line
    without an id quotes its message whole; every "→ [id]" with nothing after it points to a message the
    digest quotes under that id."""
    with tempfile.TemporaryDirectory() as folder:
        session = worked_session()
        for number, (words, twice, (answer, repeat)) in enumerate(turns):
            session.user(f"Please check the {words} item {number}.")
            if twice:
                session.user(f"And the {words} item {number} again.")
            session.say(" ".join([f"Checked the {answer} item {number}."] * repeat))
        _tail(session)
        summary = _summary(session, Path(folder))
    lines = summary.splitlines()
    for line in lines:
        for quote, arrow in re.findall(r'^- (?:\[[^\]]+\] )?"(.*?)"( → .*)?$', line):
            if not line.startswith("- ["):
                assert " … " not in quote  # no id: quoted whole
            if arrow and not arrow.startswith(" → ["):
                assert " … " not in arrow  # an outcome without its id is whole
    written = set(re.findall(r"(?:^- |→ )\[([^\]]+)\] \S", summary, flags=re.MULTILINE))
    for pointed in re.findall(r"→ \[([^\]]+)\]$", summary, flags=re.MULTILINE):
        assert pointed in written


def test_an_agents_reply_directives_are_not_quoted(tmp_path: Path) -> None:
    """``[[reply_to_current]]`` is stripped by the gateway before it sends: the quote gives what the
    user read, and a reply quoted whole still needs no id."""
    session = worked_session()
    session.user("Which branch is deployed now?")
    session.say("[[reply_to_current]] main, at the last green build.")
    _tail(session)
    summary, _ = _digest(session, tmp_path)
    line = next(line for line in summary.splitlines() if "Which branch" in line)
    assert "reply_to_current" not in summary and line.endswith("→ main, at the last green build.")
