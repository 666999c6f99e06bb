"""Forms met in English OpenClaw sessions of owners the rules were never tuned on (sentences invented
here, none quoted): a polite request for information ("could you please tell me about …", "Now list …",
"read notes.md") is a question its answer settles; a run asked for now ("restart", "rerun the import")
leaves nothing to keep once reported done; the user saying it is still down opens the work again."""

from __future__ import annotations

import pytest
from support_classify import element, verdicts

from apollo.transcript.model import Element, Kind

MUST_KEEP = {"decision", "preference", "task", "question"}


def _call() -> Element:
    return element("c1", "assistant", 'exec {"command": "service gateway restart"}', kind=Kind.TOOL_CALL,
                   call_id="t1", tool_name="exec")


def _result() -> Element:
    return element("r1", "tool", "gateway restarted (pid 4242)", kind=Kind.TOOL_RESULT, call_id="t1",
                   tool_name="exec")


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


@pytest.mark.parametrize("asked", ["restart", "restart the gateway", "please restart the gateway now",
                                   "now reload the config"])
def test_a_run_asked_for_now_leaves_nothing_to_keep_once_reported_done(asked: str) -> None:
    got = verdicts(("user", asked), _call(), _result(), ("assistant", "Restarted the gateway, it runs as pid 4242."))
    assert (got["m1"].category, got["m1"].status, got["m1"].rule) == ("process", "done", "resolve:done")


def test_a_run_not_yet_reported_done_is_an_open_task() -> None:
    got = verdicts(("user", "restart the gateway"), _call(), _result(),
                   ("assistant", "Restarted the gateway, but it still crashes on boot."))
    assert (got["m1"].category, got["m1"].status) == ("task", "current")


@pytest.mark.parametrize("reply", ["it's still down", "the gateway still won't start", "that's wrong, it still crashes",
                                   "still not working"])
def test_the_user_saying_it_still_fails_opens_the_run_again(reply: str) -> None:
    got = verdicts(("user", "restart the gateway"), _call(), _result(),
                   ("assistant", "Restarted the gateway, it runs as pid 4242."), ("user", reply))
    assert (got["m1"].category, got["m1"].status) == ("task", "current")
    assert got["m4"].category not in MUST_KEEP  # the report the user contradicts is no outcome


def test_the_user_saying_any_task_still_fails_opens_it_again() -> None:
    got = verdicts(("user", "fix the gateway"), _call(), _result(),
                   ("assistant", "Fixed the gateway, it runs as pid 4242."), ("user", "it's still down"))
    assert (got["m1"].category, got["m1"].status) == ("task", "current")


def test_still_failing_about_something_else_with_a_new_request_opens_nothing() -> None:
    got = verdicts(("user", "restart the gateway"), _call(), _result(),
                   ("assistant", "Restarted the gateway, it runs as pid 4242."),
                   ("user", "my laptop is still frozen, can you check the weather for tomorrow?"))
    assert got["m1"].category not in MUST_KEEP


@pytest.mark.parametrize("asked", [
    "restart the gateway every night at 3am",                            # an order that stands
    "restart the gateway and update the config",                         # more work after it
    "Restart the gateway. Also add the Mistral provider to the config.",  # more work beside it
    "fix the login page",                                                # work, not a run
])
def test_other_work_keeps_its_task_once_reported_done(asked: str) -> None:
    got = verdicts(("user", asked), _call(), _result(), ("assistant", "Done, restarted and updated as asked."))
    assert (got["m1"].category, got["m1"].status) == ("task", "done")


def test_a_run_asked_as_a_question_is_read_as_a_question() -> None:
    got = verdicts(("user", "can you restart it?"))
    assert (got["m1"].category, got["m1"].rule) != ("task", "intent:run")


def test_a_rule_about_tests_is_no_run() -> None:
    got = verdicts(("user", "test coverage must stay above 80% from now on"), ("assistant", "Noted."))
    assert got["m1"].category == "preference"


@pytest.mark.parametrize("probe", ["hi, reply with just the word hello", "PING: respond with only the word PONG",
                                   "Say only the word: READY", "Say only: SERVER_UP", "respond with only PONG"])
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


@pytest.mark.parametrize("command", ["git status", "openclaw doctor", "openclaw gateway --port 18789",
                                     "npm run build"])
def test_a_command_line_on_its_own_is_work_to_run(command: str) -> None:
    assert verdicts(("user", command))["m1"].category == "task"


@pytest.mark.parametrize("said", ["Python and Rust are both taught on Mondays", "git is the one we use",
                                  "node was slower than the old server"])
def test_prose_that_opens_with_a_tools_name_is_no_command_line(said: str) -> None:
    assert verdicts(("user", said))["m1"].category != "task"


def test_what_the_user_says_the_agent_needs_to_do_is_work() -> None:
    got = verdicts(("user", "The shop opens next week. One thing you need to renew is the certificate, so you need "
                            "to renew the certificate before Friday."))
    assert got["m1"].category == "task"


@pytest.mark.parametrize("said", ["you need to be careful with the prod database", "you need to know that I'm away"])
def test_what_the_agent_needs_to_be_or_know_is_no_work(said: str) -> None:
    assert verdicts(("user", said))["m1"].category != "task"
