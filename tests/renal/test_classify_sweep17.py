"""Forms met in OpenClaw sessions of owners the rules were never tuned on (sentences invented here,
none quoted)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support_classify import session_verdicts, verdicts

from realclient.support import PiSession

MUST_KEEP = {"decision", "preference", "task", "question"}

#: words the intent rules read as a standing rule, a decision or a request, when the speaker writes them
RULE_WORDS = ("always", "never", "prefer", "use", "dont", "remember", "from-now-on", "please", "fix", "stop", "must")


def test_the_words_of_a_links_path_are_no_standing_rule_of_the_speaker() -> None:
    """'…/i-always-prefer-x-over-y' names a page; the same words written by the user state a rule."""
    linked = verdicts(("user", "Here: https://example.com/posts/i-always-prefer-vim-over-emacs/"))
    said = verdicts(("user", "I always prefer vim over emacs"))
    assert linked["m1"].category != "preference", linked["m1"]
    assert said["m1"].category == "preference", said["m1"]


@given(st.lists(st.sampled_from(RULE_WORDS), min_size=1, max_size=6), st.sampled_from(["/", "?q=", "#"]))
def test_a_links_path_query_or_fragment_changes_no_verdict(words: list[str], joint: str) -> None:
    """Whatever words a link carries after its host, the message is read as the one with the bare host."""
    opening = "Here: "
    with_path = verdicts(("user", f"{opening}https://example.com{joint}{'-'.join(words)}"))["m1"]
    host_only = verdicts(("user", f"{opening}https://example.com"))["m1"]
    assert (with_path.category, with_path.rule) == (host_only.category, host_only.rule)


@pytest.mark.parametrize(("reply", "status"), [
    ("部署完成后，你可以通过 http://localhost:8080 访问。", "current"),
    ("部署完成后请检查一下日志", "current"),
    ("部署完成。你可以通过 http://localhost:8080 访问。", "done"),
])
def test_a_deployment_done_after_which_something_follows_is_no_report(reply: str, status: str) -> None:
    """'部署完成后，…' says what follows the deployment (when, not whether it is done): the request stays open."""
    got = verdicts(("user", "帮我把这个服务部署到服务器上"), ("assistant", reply))
    assert (got["m1"].category, got["m1"].status) == ("task", status), got["m1"]


_LONG_CHECK = ("Heartbeat poll at 18:21 UTC. lastChecks.todo shows 05:52 UTC, the same day, so the daily TODO review "
               "is skipped; memory maintenance is due every few days and was last run yesterday, so it is skipped too. "
               "Late-night window: no messages to the owner. The weather check runs at 07:00 local time and the calendar "
               "sync at 08:00, both later today. ")


@pytest.mark.parametrize("ending", ["HEARTBEAT_OK", "Nothing needs attention.HEARTBEAT_OK"])
def test_a_long_reply_to_a_heartbeat_poll_replies_to_the_poll_and_is_kept(ending: str, tmp_path: Path) -> None:
    """OpenClaw delivers a reply that says more than 300 characters besides the token, so it is read as any reply (an
    alert ends on the token as often as an all-clear); and it replies to the poll, not to the greeting before it."""
    s = PiSession()
    s.user("hello")
    s.say("Hi! What can I do for you?")
    _, reply = s.heartbeat(_LONG_CHECK + ending)
    got = session_verdicts(s, tmp_path)
    assert got[reply].category != "noise" and got[reply].rule != "context:social_reply", got[reply]


def test_a_reply_to_a_heartbeat_poll_that_ends_on_an_alert_is_kept(tmp_path: Path) -> None:
    """An alert is no reply to the greeting the user sent before the poll."""
    s = PiSession()
    s.user("hello")
    s.say("Hi! What can I do for you?")
    _, reply = s.heartbeat(_LONG_CHECK + "HEARTBEAT_OK for the TODO list, but the backup disk is 97% full: "
                           "the nightly backup will fail tonight unless we free space.")
    got = session_verdicts(s, tmp_path)
    assert got[reply].category != "noise" and got[reply].rule != "context:social_reply", got[reply]


_REMINDER = ("System: [2026-02-18 17:00:10 EST] Cron: {event}\n\nA scheduled reminder has been triggered. The reminder "
             "content is:\n\nCron: {event}\n\nPlease relay this reminder to the user in a helpful and friendly way.\n"
             "Current time: Wednesday, February 18th, 2026 — 5:00 PM (America/New_York)")


@pytest.mark.parametrize(("event", "category"), [("HEARTBEAT_OK", "noise"), ("NO_REPLY", "noise"),
                                                  ("HEARTBEAT_OK\nPay the electricity bill today (due 18:00)", "process"),
                                                  ("Backup failed: disk full", "process")])
def test_a_scheduled_reminder_whose_event_is_the_all_clear_token_is_noise(
        event: str, category: str, tmp_path: Path) -> None:
    """A job that found nothing relays the token; a job that found something is a notice worth keeping."""
    s = PiSession()
    s.user("Set up an hourly backup check")
    s.say("Done: the check runs every hour.")
    notice = s.user(_REMINDER.format(event=event))
    got = session_verdicts(s, tmp_path)
    assert got[notice].category == category, got[notice]


@pytest.mark.parametrize("said", ["I want to delete my account", "I want delete my old account",
                                  "we'd like to move the backups to S3", "ok now i really want to backup my build to github",
                                  "I’d like to book a table for two at 8"])
def test_the_work_the_user_wants_done_said_as_a_wish_is_a_task(said: str) -> None:
    got = verdicts(("assistant", "Hi! How can I help?"), ("user", said))
    assert got["m2"].category == "task", got["m2"]


@pytest.mark.parametrize("said", ["I want to understand why the build failed", "I want to ask you something",
                                  "I wanted to delete it but the button was grey", "I want to learn python"])
def test_a_wish_to_know_ask_or_learn_or_one_that_failed_is_no_task(said: str) -> None:
    got = verdicts(("assistant", "Hi! How can I help?"), ("user", said))
    assert got["m2"].category != "task", got["m2"]


@pytest.mark.parametrize(("said", "category"), [("下次手动下单需要问我", "preference"), ("平時唔需要問我", "preference"),
                                                ("以后部署前需要先问我", "preference"), ("一般需要问一下医生", "process"),
                                                ("下次要问你吗", "question")])
def test_whether_the_agent_must_ask_first_ruled_for_next_time_is_a_standing_rule(said: str, category: str) -> None:
    """Next time, from now on or as a habit, ask me (or do not): a rule of who decides; advice about asking someone
    else, or the question, rules nothing."""
    got = verdicts(("assistant", "已经帮你下单了。"), ("user", said))
    assert got["m2"].category == category, got["m2"]


@pytest.mark.parametrize(("said", "category"), [
    ("How to sell my coins", "question"), ("HOW TO GET MORE TOKENS", "question"),
    ("why the tool output on the right is always empty", "question"), ("What happened to the Reddit round up", "question"),
    ("what to do", "question"), ("What a great job", "process"), ("how i fixed it: restarted the gateway", "process"),
    ("why not", "process")])
def test_an_english_question_without_its_mark_is_read_from_its_opening(said: str, category: str) -> None:
    """Chat drops the question mark: how to, why, what happened… open a question; an exclamation, what the speaker
    tells, or the agreement "why not" ask nothing (and "always" in a question rules nothing)."""
    got = verdicts(("assistant", "The weekly digest went out at 9."), ("user", said))
    assert got["m2"].category == category, got["m2"]


@pytest.mark.parametrize(("reply", "category"), [
    ("If it still fails, please send:\n- your account ID\n- a screenshot of the error", "process"),
    ("Please send me your ID and a screen recording of the login.", "process"),
    ("Please paste the output here.", "process"),
    ("Please run `openclaw doctor` in your terminal and tell me what it says.", "task"),
    ("Please send the signed contract to Bob before Friday.", "task")])
def test_what_the_agent_asks_to_see_is_no_work_handed_to_the_user(reply: str, category: str) -> None:
    """A screenshot, an ID or the output asked for comes back in the user's next message; a step to carry out on
    their side stays theirs until done."""
    got = verdicts(("user", "I can't log in to my wallet"), ("assistant", reply))
    assert got["m2"].category == category, got["m2"]


@pytest.mark.parametrize(("reply", "status"), [
    ("To complete KYC:\n1. Log in\n2. Complete your profile\n3. Do the face verification", "current"),
    ("You need to complete human verification first.", "current"),
    ("Backup complete ✅", "done"), ("Migration complete.", "done")])
def test_complete_as_what_is_left_to_do_reports_nothing(reply: str, status: str) -> None:
    got = verdicts(("user", "Set up my account and back it up"), ("assistant", reply))
    assert (got["m1"].category, got["m1"].status) == ("task", status), got["m1"]


@pytest.mark.parametrize(("reply", "status"), [
    ("Voici l'image promotionnelle pour l'offre :", "done"), ("Aquí está la imagen promocional.", "done"),
    ("Aqui está a imagem promocional.", "done"), ("Here's your promo image:", "done"),
    ("Here's the situation: the image tool is down.", "current")])
def test_a_deliverable_handed_over_closes_its_request(reply: str, status: str) -> None:
    """"Voici…", "Aquí está…", "Here's your…": the thing asked for, delivered; "here's the situation" explains."""
    got = verdicts(("user", "Génère une image promotionnelle pour l'offre"), ("assistant", reply))
    assert (got["m1"].category, got["m1"].status) == ("task", status), got["m1"]


@pytest.mark.parametrize("said", ["u ok", "u there", "r u there", "u alive"])
def test_a_ping_in_chat_spelling_is_noise(said: str) -> None:
    got = verdicts(("assistant", "Running the migration now."), ("user", said))
    assert (got["m2"].category, got["m2"].action) == ("noise", "drop"), got["m2"]


@pytest.mark.parametrize(("said", "ordered"), [("我通过飞书给你发送的消息，你能收到吗", False),
                                               ("算了，暂时先不弄自动启动的事了", False), ("帮我把这个文件发送给张总", True)])
def test_a_verb_of_work_that_names_a_thing_with_的_orders_nothing(said: str, ordered: bool) -> None:
    """'发送的消息', '启动的事': the verb describes the noun after 的 (what was sent, the matter of starting); it is no
    order of its own."""
    got = verdicts(("assistant", "飞书已经连上了。"), ("user", said))
    assert (got["m2"].category == "task") is ordered, got["m2"]


_SKILL = ("---\nname: canvas-lms\ndescription: Access Canvas LMS. Use when checking due dates or grades.\n---\n\n"
          "# Canvas LMS\n\nAlways include the course id in every request. Never guess a due date.\n")


@pytest.mark.parametrize("lead", ["How can I run a specific canvas query: ", "My skill file looks like this:\n"])
def test_a_file_pasted_with_its_front_matter_states_no_rule_and_replaces_none(lead: str) -> None:
    """A SKILL.md's "always …" and "never …" are its author's; the user's own rule before it stands."""
    got = verdicts(("user", "ALWAYS use the canvas-lms skill. Do not ask me to run curl commands."),
                   ("assistant", "Understood."), ("user", lead + _SKILL))
    assert got["m3"].category not in MUST_KEEP - {"question"}, got["m3"]
    assert (got["m1"].category, got["m1"].status) == ("preference", "current"), got["m1"]


def test_a_rule_written_after_a_line_of_dashes_is_the_speakers() -> None:
    got = verdicts(("user", "Always answer in celsius.\n---\nThat is all."))
    assert got["m1"].category == "preference", got["m1"]


_LINE = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=60).filter(
    lambda line: "---" not in line)


@given(st.lists(_LINE, max_size=3), st.sampled_from(["it looks like this:", "skills/pdf/SKILL.md", "文件如下："]),
       st.sampled_from(["name", "title", "description"]),
       st.lists(st.from_regex(r"[a-z][a-z_-]{0,10}: [a-z ]{0,20}", fullmatch=True), max_size=5), st.lists(_LINE, max_size=6))
def test_the_speakers_words_are_what_comes_before_a_pasted_front_matter(
        said: list[str], introduction: str, first: str, keys: list[str], body: list[str]) -> None:
    """Whatever the document's keys and body, what the speaker wrote before it (and the line that introduces it) is
    read, and none of the document."""
    from apollo.renal.reading import own_words
    from apollo.renal.rules import load_files

    rules = load_files()
    own = "\n".join([*said, introduction])
    document = "---\n" + "\n".join([f"{first}: pdf tools", *keys]) + "\n---\n" + "\n".join(body)
    assert own_words(own + "\n" + document, rules).strip() == own_words(own, rules).strip()


@pytest.mark.parametrize("said", ["Ticket ---\nseverity: high\ncomponent: auth\n---\nLogin fails for SSO users. Please fix it today.",
                                  "Status:\n---\nBuild: green\nDeploy: pending\n---\nDeploy to production tonight at 22:00"])
def test_a_header_the_user_writes_between_dashes_is_no_pasted_file(said: str) -> None:
    """A front matter is a file's: its first key is one (name, title, description…) and it opens the message or
    follows the line that introduces it."""
    got = verdicts(("assistant", "What do you need?"), ("user", said))
    assert got["m2"].category == "task", got["m2"]
