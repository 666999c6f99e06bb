"""Forms met in OpenClaw sessions of owners the rules were never tuned on (sentences invented here,
none quoted): the eighteenth round."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support_classify import session_verdicts, verdicts
from test_classify_answers_and_openers import _enveloped

from apollo.renal import rules
from realclient.support import PiSession


def _heartbeat_reply(text: str, tmp_path: Path) -> str:
    s = PiSession()
    s.user("hello")
    s.say("Hi! What can I do for you?")
    _, reply = s.heartbeat(text)
    return session_verdicts(s, tmp_path)[reply].category


@pytest.mark.parametrize("reply", [
    "The nightly backup failed: the NAS was unreachable.",
    "docs/OBJECTIVES.md is still missing, so the objectives scan is blocked. Please restore it.",
    "Rent is due today.",
    "Two errors in the gateway log since 09:00.",
    "⚠️ Certificate for the shop expires in 3 days.",
    "巡检异常：sandbox 模式下 exec 不可用。",
    "共享知识库目录不存在，同步失败。",
    "El respaldo falló anoche.",
    "I couldn't reach the mail server this time.",
    "Meeting with Anna in 15 minutes.",
    "Reminder: dentist at 3pm today.",
    "バックアップに失敗しました。",
    "Checked mail: nothing new, but the backup failed.",
])
def test_a_short_heartbeat_reply_that_tells_the_owner_something_is_kept(reply: str, tmp_path: Path) -> None:
    """OpenClaw delivers a heartbeat reply without the token to the owner: unless it only says the checks found
    nothing, it is what the owner was alerted to or reminded of."""
    assert _heartbeat_reply(reply, tmp_path) != "noise"


@pytest.mark.parametrize("reply", [
    "No new emails, calendar clear.",
    "Checked inbox and calendar: no errors, nothing urgent.",
    "All quiet; no failures overnight.",
    "Errors: 0. Warnings: none.",
    "巡检完成，无异常。",
    "检查了日志，没有发现异常。",
    "Sin errores esta noche.",
    "Quiet hours, skipping checks.",
])
def test_a_short_heartbeat_reply_that_finds_nothing_wrong_is_noise(reply: str, tmp_path: Path) -> None:
    """Nothing new, all quiet, a problem word negated or counted at zero: the reply is the poll's chatter."""
    assert _heartbeat_reply(reply, tmp_path) == "noise"


@given(st.sampled_from(["no", "not", "without", "nothing", "zero", "0"]),
       st.sampled_from(["errors", "failures", "warnings", "urgent", "failed", "crashes"]))
def test_a_negated_problem_word_raises_no_alert(negation: str, word: str) -> None:
    assert not rules.load_files()["alert"].search(f"Checked everything: {negation} {word} today.")


def _heartbeats(tmp_path: Path, *turns: str) -> list[tuple[str, str, str]]:
    """(category, status, superseded_by) of each heartbeat reply or user message ("user: …")."""
    s = PiSession()
    s.user("hello")
    s.say("Hi! What can I do for you?")
    ids = [s.user(turn.removeprefix("user: ")) if turn.startswith("user: ") else s.heartbeat(turn)[1] for turn in turns]
    got = session_verdicts(s, tmp_path)
    return [(got[i].category, got[i].status, got[i].superseded_by or "") for i in ids]


def test_a_heartbeat_alert_is_over_once_a_later_heartbeat_reports_on_the_same_thing(tmp_path: Path) -> None:
    """Each heartbeat reports on the same checks: the latest report on a thing stands; HEARTBEAT_OK says nothing new,
    not that the trouble ended, and a report on something else ends nothing."""
    got = _heartbeats(tmp_path, "The nightly backup failed.", "The nightly backup failed again.",
                      "Disk /var is 95% full.", "HEARTBEAT_OK", "Disk /var is 97% full now.",
                      "Certificate for the shop expires in 3 days.")
    assert [g[:2] for g in got] == [("noise", "superseded"), ("process", "current"), ("noise", "superseded"),
                                    ("noise", "current"), ("process", "current"), ("process", "current")], got


@pytest.mark.parametrize("answer", ["ok, clean the old logs then", "ok", "收到"])
def test_an_alert_the_user_took_up_stays(answer: str, tmp_path: Path) -> None:
    """Once the user answered an alert, if only with an "ok", the conversation is about it: the next heartbeat does not
    end it."""
    got = _heartbeats(tmp_path, "Disk /var is 95% full.", f"user: {answer}", "Disk /var is still 95% full.")
    assert got[0] == ("process", "current", "") and got[2][0] == "process"


@pytest.mark.parametrize(("asked", "again"), [
    ("Which region should the new server go in, Frankfurt or Virginia?", "Frankfurt"),
    ("第一步已经完成。继续执行第二步吗？", "继续"),
    ("Step one is done. Shall I go on with step two?", "yes"),
    ("Step one is done. Shall I delete the old logs too?", "no"),
    ("What next?\n1. Mine more ore\n2. Sell the cargo", "1"),
])
def test_a_short_reply_said_again_to_a_new_choice_or_yes_no_question_is_said_anew(asked: str, again: str) -> None:
    """"继续" to each "continue?", the same pick to each new choice: the same words answer the question just asked."""
    v = verdicts(_enveloped("u1", again), ("assistant", "Done with that."), ("assistant", asked), _enveloped("u2", again))
    assert v["u2"].rule != "repeat:text", v["u2"]


@pytest.mark.parametrize("heading", ["What was created", "What was fixed", "What was changed:"])
def test_a_section_heading_in_a_report_asks_nothing(heading: str) -> None:
    """An agent's report sets out its parts under headings; one that opens with "what" is a label, not a question the
    report leaves open, and the report closes the request it answers."""
    v = verdicts(("user", "Please create a skill called eligibility-checker with a script check_eligibility.py"),
                 ("assistant", f"Done. I've added the eligibility-checker skill.\n\n{heading}\n"
                               "- skills/eligibility-checker/SKILL.md: the documentation\n\nHow it works\n- run it with --age"))
    assert (v["m1"].status, v["m2"].category) == ("done", "process"), (v["m1"], v["m2"])


@pytest.mark.parametrize(("said", "category"), [
    ("Hello @bot list all the apis", "task"), ("hey, turn on all the servers", "task"), ("Turn off the lights", "task"),
    ("ok, clean the old logs then", "task"), ("hi test message", "process"), ("Clean!", "process"),
    ("clean design, nice work", "process"), ("clean up is done", "process"),
])
def test_an_order_after_a_greeting_or_with_a_switch_or_clean_verb_is_a_task(said: str, category: str) -> None:
    """"clean" orders when what it cleans follows ("clean the old logs"), not as an adjective ("clean design")."""
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("said", "category"), [
    ("okay now whenever i ask you a question then you should answer polite and friendly", "preference"),
    ("yes usage should update automatically whenever the experience is being used!", "preference"),
    ("做每一步前进行全面思考，判断风险再执行", "preference"), ("每一步都做得很好", "process"), ("每个步骤都测试过了", "process"),
    ("every time I open it, it crashes", "process"),
    ("should I do this every time?", "question"),
    ("whenever I run the script it should print the date but it doesn't", "process"),
    ("Whenever a deploy fails, you should ping me", "preference"), ("each time you finish, always update the log", "preference"),
    ("list is empty", "process"),
])
def test_what_must_be_done_whenever_something_happens_is_a_standing_rule(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize("said", ["你在线吗", "有人吗", "你喺唔喺度"])
def test_asking_whether_anyone_is_there_is_a_ping(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "noise"


@pytest.mark.parametrize(("said", "category"), [
    ("全面检查", "task"), ("再次全面审查", "task"), ("排查一下网络", "task"), ("重新部署一下", "task"),
    ("全面检查了一遍", "process"), ("仔细检查后发现没问题", "process"), ("检查报告显示一切正常", "process"),
    ("全面的检查很重要", "process"),
])
def test_a_chinese_verb_of_work_after_how_thoroughly_is_an_order(said: str, category: str) -> None:
    """Chinese has no imperative form: a verb of work opening the message, after 全面, 仔细, 再次 or 重新, orders it;
    with 了, 后 or as a noun it reports or names the work."""
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("asked", "said"), [("Should I stop the deployment?", "carry on"), ("要停止部署吗？", "继续")])
def test_a_go_ahead_is_no_yes_to_a_question_that_asks_to_stop(asked: str, said: str) -> None:
    """"carry on" to "Should I stop…?" says no: a go-ahead word is read as no yes."""
    assert verdicts(("assistant", asked), ("user", said))["m1"].category != "decision"


@pytest.mark.parametrize(("asked", "said", "picked"), [
    ("What next?\n1. Mine more ore\n2. Sell the cargo\n3. Refuel first", "1", "Mine more ore"),
    ("Which would you like?\na. Keep both copies\nb. Delete the old one", "b", "Delete the old one"),
])
def test_a_number_or_letter_picks_the_option_a_numbered_list_offers(asked: str, said: str, picked: str) -> None:
    """"2." ends its own clause: the label alone, the option the clause after it."""
    v = verdicts(("assistant", asked), ("user", said))
    assert v["m2"].category == "decision" and picked in v["m2"].reason, v["m2"]


def test_a_heartbeat_reply_that_asks_the_owner_is_not_ended_by_the_next_report(tmp_path: Path) -> None:
    """A question to the owner is settled by an answer, not by the next status report."""
    got = _heartbeats(tmp_path, "Night check done. Which of the three radar plans do you approve?",
                      "Disk /var is 95% full.")
    assert got[0][:2] == ("question", "current"), got


def test_a_short_message_said_again_that_picks_none_of_the_options_is_still_a_repeat() -> None:
    """"Frankfurt" sent again after "small or large?" answers nothing asked now."""
    v = verdicts(_enveloped("u1", "Frankfurt"), ("assistant", "Got it. Which size, small or large?"),
                 _enveloped("u2", "Frankfurt"))
    assert v["u2"].rule == "repeat:text" and v["m2"].status != "answered", (v["u2"], v["m2"])


def test_a_pick_a_channel_delivers_in_its_envelope_picks_the_option() -> None:
    """The envelope makes the message cost more, not say more: "2" still picks the second option."""
    v = verdicts(("assistant", "Which should I do next?\n1. Rotate the logs\n2. Archive the metrics"), _enveloped("u1", "2"))
    assert v["u1"].category == "decision" and "Archive the metrics" in v["u1"].reason, v["u1"]


@pytest.mark.parametrize(("said", "category"), [
    ("i told you not to mention any developer related thing", "preference"),
    ("WTF are you doing? i told you not to mention the developer stuff, just answer me like a normal bot", "preference"),
    ("I already asked you never to push to main", "preference"), ("我告诉过你不要删文件", "preference"),
    ("我跟你说过别动配置", "preference"), ("我说过这个问题", "process"),
    ("I told you to fix it yesterday", "process"),
    ("you dont need to mention that you have added this experience, just add it", "preference"),
    ("No need to apologize", "process"), ("I told you to stop the server", "process"),
    ("you don't need to restart it", "process"),
])
def test_a_rule_said_again_or_what_the_agent_need_not_say_is_a_standing_rule(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize("reply", ["HEARTBEAT OK.", "HEARTBEAT.OK", "HEARTBEAT", "ARTBEAT_OK", "HEARTBEAT_ACK: OK"])
def test_the_all_clear_token_misspelt_or_cut_is_the_polls_chatter(reply: str, tmp_path: Path) -> None:
    assert _heartbeat_reply(reply, tmp_path) == "noise"


@pytest.mark.parametrize(("said", "category"), [
    ("Can you see the other agents?", "question"), ("so will you able to access db now?", "question"),
    ("will you be able to ensure every agent is updated?", "question"),
    ("can you access my gmail and delete the spam?", "task"), ("will you deploy it tonight?", "task"),
    ("can you fix the login page?", "task"), ("can you see why the build failed?", "task"),
    ("will you be able to remind me at 5pm?", "task"), ("can you remember to send the report on Friday?", "task"),
])
def test_what_the_agent_can_perceive_or_reach_asked_alone_is_a_question(said: str, category: str) -> None:
    """"Can you see …?", "will you be able to …?" ask about ability: the reply answers them; with work beside them
    ("… and delete the spam") or a verb of work ("can you fix …?") they ask for it."""
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("said", "category"), [("I want to call you Valarie", "preference"), ("I'll call you Max", "preference"),
                                                ("I will call you Monday", "process"),
                                                ("I'll call you back later", "process"),
                                                ("I want to call you tomorrow", "process")])
def test_the_name_the_user_will_call_the_agent_by_is_a_fact_to_keep(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize("placeholder", ["<media:audio>", "<media:image>"])
def test_two_attachments_are_never_a_repeat(placeholder: str) -> None:
    """The same placeholder stands for two voice messages or two photos: what they hold differs."""
    v = verdicts(_enveloped("u1", placeholder), ("assistant", "Got it, transcribing."), _enveloped("u2", placeholder))
    assert v["u2"].rule != "repeat:text", v["u2"]


def test_a_number_in_reply_to_how_many_is_the_quantity_not_a_listed_item() -> None:
    v = verdicts(("assistant", "Plan:\n1. Build the image\n2. Push it\n3. Scale the deployment\nHow many replicas do you want?"),
                 ("user", "3"))
    assert "picks" not in v["m2"].reason, v["m2"]
