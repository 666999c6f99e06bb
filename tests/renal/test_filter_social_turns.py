"""The default filter removes what the labels of real sessions call noise, by kind: the agent's small
talk in answer to a greeting, a ping or a thanks (a turn that did nothing else and said nothing
specific), and in the recent tail a message sent again word for word — never what carries a fact,
never a tool call without its result, never the message the agent answers next."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apollo.renal.filter import filter_path
from realclient.support import PiSession

_SMALL_TALK = "Hey! I'm good, just hanging out and ready to help with whatever you need. How's the shop going?"


def _fates(session: PiSession, folder: Path) -> dict[str, object]:
    for text in ("Next: the weekly report for the Berlin office.", "And then the invoices of March."):
        session.user(text)
        session.say("On it: I will draft it from the numbers in the shared folder.")
    result = filter_path(session.write(folder / "s.jsonl"), "openclaw", dry_run=True)
    return {f.element.id.split(":")[0]: f for f in result.fates}


def test_small_talk_answering_a_greeting_goes_with_it(tmp_path: Path) -> None:
    session = PiSession()
    session.user("From now on, always answer in English.")
    session.say("Understood: English from now on.")
    greeting = session.user("hey, how are you?")
    reply = session.say(_SMALL_TALK)
    fates = _fates(session, tmp_path)
    assert fates[greeting].action == "drop"
    assert (fates[reply].action, fates[reply].bucket) == ("drop", "noise")


def test_an_answer_to_a_ping_that_did_work_or_names_something_stays(tmp_path: Path) -> None:
    session = PiSession()
    session.user("test")
    worked = session.tool("call_1", "exec", {"command": "uptime"}, "up 3 days", think="Checking I am alive.")[0]
    after_work = session.say(_SMALL_TALK)
    session.user("you there?")
    specific = session.say("I'm here! While you were away the backup of /srv/shop failed twice at 03:00.")
    fates = _fates(session, tmp_path)
    assert fates[after_work].action != "drop" and fates[worked].action != "drop"
    assert fates[specific].action != "drop"


def test_a_long_answer_after_a_ping_stays_it_answers_what_was_asked_before(tmp_path: Path) -> None:
    session = PiSession()
    session.user("Is there a way to run the shop assistant for free?")
    session.assistant(stop="error")  # the question's turn failed
    session.user("hi")
    options = " ".join(f"Option {n}: a free tier with its own limits and a sign-up of its own, fine for light use."
                       for n in range(1, 8))
    answer = session.say("Hey! Yes, there are free options. " + options)
    assert _fates(session, tmp_path)[answer].action != "drop"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(greeting=st.sampled_from(["hi", "hello", "test", "thanks", "谢谢", "在吗"]),
       fact=st.sampled_from(["/srv/shop/backup.tar", "2026-04-09", "45 GB", "https://shop.example.com/orders"]),
       small=st.sampled_from([_SMALL_TALK, "你好！我一直在，随时可以帮你。今天想做点什么？"]))
def test_an_answer_that_names_a_specific_thing_is_never_dropped(tmp_path: Path, greeting: str, fact: str,
                                                                small: str) -> None:
    session = PiSession()
    session.user(greeting)
    reply = session.say(f"{small} {fact}")
    assert _fates(session, tmp_path)[reply].action != "drop"


def test_a_message_sent_again_in_the_tail_goes_but_the_original_and_the_newest_stay(tmp_path: Path) -> None:
    session = PiSession()
    command = "Run /usr/local/bin/update-shop.sh and tell me what it prints."
    original = session.user(command)
    session.tool("call_1", "exec", {"command": "/usr/local/bin/update-shop.sh"}, "updated 3 packages")
    session.say("It updated 3 packages.")
    session.user("Next: the weekly report for the Berlin office.")
    session.say("On it.")
    again = session.user(command)
    session.assistant(stop="error")
    newest = session.user(command)
    result = filter_path(session.write(tmp_path / "s.jsonl"), "openclaw", dry_run=True)
    fates = {f.element.id: f for f in result.fates}
    assert fates[again].in_tail and fates[again].action == "drop"
    assert fates[original].action != "drop" and fates[newest].action != "drop"


def test_a_yes_echoing_the_agents_yes_no_question_is_not_dropped_as_phatic(tmp_path: Path) -> None:
    """"yes it did" is a yes and function words, which the condenser reads as phatic: as the answer
    to the agent's question it is content, and the default filter keeps it."""
    session = PiSession()
    session.user("I ran mistral on the laptop.")
    session.say('Nice. So when you ran it, did it respond with "4"? And did it feel fast, or slow?')
    answer = session.user("yes it did")
    session.say("Good. Was it fast or slow?")
    path = session.write(tmp_path / "s.jsonl")
    result = filter_path(path, "openclaw", output=tmp_path / "out.jsonl")
    fate = next(f for f in result.fates if f.element.record_id == answer)
    assert fate.action != "drop", (fate.action, fate.reason)
