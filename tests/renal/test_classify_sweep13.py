"""Forms met in OpenClaw sessions of owners the rules were never tuned on (sentences invented here, none
quoted): a ping asked as "you up?", a greeting with a word of address, a subagent's announcement in the
older and the marked form, and the gateway's boot check."""

from __future__ import annotations

from pathlib import Path

import pytest
from support_classify import session_verdicts, verdicts

from realclient.support import PiSession

MUST_KEEP = {"decision", "preference", "task", "question"}


@pytest.mark.parametrize("ping", ["you up?", "you on?", "are you around?", "You online?", "anybody there?",
                                  "anyone home?"])
def test_asking_whether_the_agent_is_up_is_a_ping(ping: str) -> None:
    got = verdicts(("user", "book the dentist for Tuesday"), ("assistant", "Booked for Tuesday at 10:00."),
                   ("user", ping))
    assert (got["m3"].category, got["m3"].rule) == ("noise", "social:ping")


@pytest.mark.parametrize("said", ["you up for a game of chess tonight?", "are you on the latest version?",
                                  "are you around the office on Friday?", "you on call this weekend?"])
def test_the_same_words_going_on_to_something_are_no_ping(said: str) -> None:
    got = verdicts(("user", "book the dentist for Tuesday"), ("assistant", "Booked for Tuesday at 10:00."),
                   ("user", said))
    assert got["m3"].category != "noise"


@pytest.mark.parametrize("greeting", ["Good evening friend.", "Good day there!", "hello team", "Morning all",
                                      "helo", "Hey buddy!", "Good evening, my friend"])
def test_a_greeting_with_a_word_of_address_is_a_greeting(greeting: str) -> None:
    got = verdicts(("user", greeting))
    assert (got["m1"].category, got["m1"].rule) == ("noise", "social:greeting")


@pytest.mark.parametrize("said", ["good evening friend, can you move my meeting to Friday?",
                                  "hello team lead, the release is blocked", "good day for a hike there"])
def test_a_greeting_that_goes_on_is_read_for_the_rest(said: str) -> None:
    got = verdicts(("user", said))
    assert got["m1"].category != "noise"


@pytest.mark.parametrize("announcement", [
    'A subagent task "inbox sweep" just completed successfully.',
    '[System Message] A subagent task "inbox sweep" just timed out.',
    'A cron job "inbox sweep" just completed successfully.',
])
def test_a_subagents_announcement_is_the_runtimes_notice_not_the_users_words(tmp_path: Path,
                                                                               announcement: str) -> None:
    """Its findings and the delivery instructions after them ("always keep it short", "never mention
    the run") are the runtime's and the subagent's, no preference or task of the user's."""
    s = PiSession()
    s.user("sweep my inbox for invoices in the background")
    s.say("Started a subagent for the inbox sweep.")
    notice = s.user(f"[Fri 2026-02-13 17:43 GMT+5:30] {announcement}\n\nFindings:\nThree invoices, all paid."
                    "\n\nStats: runtime 2m\n\nSummarize this naturally for the user. Always keep it short "
                    "and never mention the run itself.")
    got = session_verdicts(s, tmp_path)
    assert (got[notice].category, got[notice].rule) == ("process", "furniture:notice")


def test_the_users_own_words_about_a_subagent_are_read_as_theirs(tmp_path: Path) -> None:
    """Only the runtime's form (the task's label in quotation marks, then "just …") is its notice."""
    s = PiSession()
    own = s.user("A subagent task for the inbox just failed again. From now on always run it before 9am.")
    got = session_verdicts(s, tmp_path)
    assert got[own].category == "preference"


def test_the_gateways_boot_check_is_no_standing_rule_of_the_users(tmp_path: Path) -> None:
    """The gateway wraps BOOT.md in its own prompt at every start: the file's "always" is the
    workspace's, read again each time, not something the user said in this conversation."""
    s = PiSession()
    boot = s.user("You are running a boot check. Follow BOOT.md instructions exactly.\n\nBOOT.md:\n# Boot\n\n"
                  "Always answer in Portuguese.\n\nIf BOOT.md asks you to send a message, use the message tool.")
    said = s.user("From now on always answer in Portuguese.")
    got = session_verdicts(s, tmp_path)
    assert got[boot].category not in MUST_KEEP
    assert got[said].category == "preference"


def test_a_cron_jobs_label_in_the_users_own_words_is_theirs(tmp_path: Path) -> None:
    """The announcement's form counts only as a line alone: what the user writes after the label is theirs."""
    s = PiSession()
    own = s.user('A cron job "nightly backup" just failed again. Please fix it and from now on always alert me on Telegram.')
    got = session_verdicts(s, tmp_path)
    assert got[own].category in MUST_KEEP, got[own]
