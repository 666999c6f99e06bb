"""Forms met in English OpenClaw sessions of owners the rules were never tuned on (sentences invented
here, none quoted): a polite request for information ("could you please tell me about …", "Now list …",
"read notes.md") is a question its answer settles when the look is all it asks; a probe asking for one
word back, named as a word, is a ping."""

from __future__ import annotations

import pytest
from support_classify import verdicts

MUST_KEEP = {"decision", "preference", "task", "question"}
_FINDING = ("assistant", "The log shows a null pointer in parser.py line 40 when the config is empty.")


@pytest.mark.parametrize("asked", [
    "Could you please tell me about the refund policy?",
    "hi, could you please give me their support address?",
    "Okay. Now tell me about the opening hours.",
    "so tell me a short summary of the plan",
    "K. Now list your main services",
    "Read notes.md",
])
def test_a_polite_request_for_information_is_settled_by_its_answer(asked: str) -> None:
    got = verdicts(("user", asked), ("assistant", "Refunds are accepted within 30 days; write to the help desk."))
    assert (got["m1"].category, got["m1"].status) == ("process", "answered")


def test_asking_to_be_told_whether_something_holds_now_is_a_question() -> None:
    got = verdicts(("user", "Here we go. Tell me if you're ready"), ("assistant", "Ready when you are."))
    assert got["m1"].category not in MUST_KEEP


def test_a_polite_request_for_information_left_unanswered_stays_open() -> None:
    got = verdicts(("user", "Could you please tell me about the refund policy?"))
    assert (got["m1"].category, got["m1"].status) == ("question", "current")


@pytest.mark.parametrize("asked", [
    "could you please tell me when the backup finishes",   # to be told later: work that stands
    "tell me once the nightly build is green",
    "could you please tell me about the outage every morning",  # a recurrence
    "Read the setup guide and follow it",                  # more work after the look
    "Could you please tell me the price, then book the cheapest room",
])
def test_a_request_to_be_told_later_or_to_act_stays_a_task(asked: str) -> None:
    got = verdicts(("user", asked), ("assistant", "Sure, I will."))
    assert got["m1"].category == "task"


@pytest.mark.parametrize("probe", ["hi, reply with just the word hello", "PING: respond with only the word PONG",
                                   "Say only the word: READY"])
def test_a_probe_asking_for_one_word_back_is_a_ping(probe: str) -> None:
    got = verdicts(("user", "book the dentist for Tuesday"), ("assistant", "Booked for Tuesday at 10:00."),
                   ("user", probe), ("assistant", "READY"))
    assert got["m3"].category == "noise"


@pytest.mark.parametrize(("said", "kind"), [
    ("reply with only yes or no from now on", "preference"),   # a rule for every answer after this
    ("Reply only with the summary", "task"),
    ("reply with just a thumbs up to every reminder", "task"),
])
def test_a_rule_or_request_for_how_to_answer_is_no_ping(said: str, kind: str) -> None:
    got = verdicts(("user", "book the dentist for Tuesday"), ("assistant", "Booked for Tuesday at 10:00."),
                   ("user", said))
    assert got["m3"].category == kind


@pytest.mark.parametrize("said", ["Reply with only JSON", "respond with only code", "reply only with emojis"])
def test_an_answer_format_naming_no_word_is_no_ping(said: str) -> None:
    """A format for the answers ("only JSON") names no word to send back: it is read as a rule or a request."""
    assert verdicts(("user", said), ("assistant", '{"ok": true}'))["m1"].category != "noise"


@pytest.mark.parametrize("asked", [
    "read the logs, fix the crash",
    "Read the error log. Fix the crash.",
    "read notes.md and do what it says",
    "read the spec, then implement it",
    "read config.yaml and correct the port",
    "Now list the failing tests and make them pass",
])
def test_a_look_with_work_after_it_is_a_task_its_finding_does_not_settle(asked: str) -> None:
    got = verdicts(("user", asked), _FINDING)
    assert (got["m1"].category, got["m1"].status) == ("task", "current")


@pytest.mark.parametrize("asked", [  # review 25: a purpose, a time, a condition or a limit beside the look
    "Please read CONTRIBUTING.md before any PR", "read the docs but don't change anything",
    "read the logs so you can fix the crash", "read the spec to implement it", "read AGENTS.md before touching anything",
])
def test_a_look_with_a_purpose_time_or_limit_is_no_inquiry(asked: str) -> None:
    got = verdicts(("user", asked), ("assistant", "Done, here it is."))
    assert got["m1"].category in MUST_KEEP and got["m1"].rule != "resolve:answered", got["m1"]


def test_an_order_to_keep_to_a_file_is_no_inquiry() -> None:
    got = verdicts(("user", "Read AGENTS.md and keep to it in every session"), _FINDING)
    assert got["m1"].category in MUST_KEEP
