"""Recognition from the structure of a conversation (sessions written here, shaped like real
OpenClaw ones, no real session quoted): what the agent reports it has done is the outcome the
conversation rests on; the agent's question, once the user has answered it, is no longer open."""

from __future__ import annotations

from pathlib import Path

from support_classify import session_verdicts

from apollo.renal.classify import MUST_KEEP
from realclient.support import PiSession


def test_the_agents_report_of_a_change_it_made_is_kept_as_a_decision(tmp_path: Path) -> None:
    s = PiSession()
    ask = s.user("please set up a fallback model for when the main one fails")
    s.tool("c1", "edit", {"path": "config.json"}, "ok")
    report = s.say("Done! I configured the fallback: when the main model fails, requests go to the backup model.")
    zh = PiSession()
    zh.user("把每日总结的定时任务改成晚上十点")
    zh.tool("c1", "cron", {"job": "daily-summary", "at": "22:00"}, "ok")
    zh_report = zh.say("已更新定时任务：每日总结现在晚上十点运行。")
    got, zh_got = session_verdicts(s, tmp_path), session_verdicts(zh, tmp_path)
    assert got[report].category == "decision" and got[report].rule == "intent:outcome", got[report]
    assert zh_got[zh_report].category == "decision", zh_got[zh_report]
    assert got[ask].status == "done"  # the report still closes the task it reports on


def test_a_report_that_also_asks_stays_a_decision_when_answered(tmp_path: Path) -> None:
    s = PiSession()
    s.user("fix the broken import in the build script")
    s.tool("c1", "edit", {"path": "build.py"}, "ok")
    report = s.say("Fixed the import in build.py and the build passes now. Should I also update the changelog?")
    s.user("no, leave the changelog")
    got = session_verdicts(s, tmp_path)
    assert got[report].category == "decision", got[report]


def test_the_agents_answered_question_is_no_longer_a_must_keep_item(tmp_path: Path) -> None:
    s = PiSession()
    s.user("write a short summary of the meeting notes")
    asked = s.say("Which meeting do you mean, the Monday planning or the Thursday review?")
    s.user("the Thursday review, the one about the budget")
    open_question = s.say("Which format do you want for the summary, a list or a paragraph?")
    got = session_verdicts(s, tmp_path)
    assert got[asked].category not in MUST_KEEP and got[asked].status == "answered", got[asked]
    assert got[open_question].category == "question" and got[open_question].status == "current"


def test_the_users_question_answered_by_the_agents_last_word_is_settled(tmp_path: Path) -> None:
    s = PiSession()
    asked = s.user("How much disk space does the backup folder use?")
    s.say("The backup folder uses 12 GB, most of it in the March snapshots.")
    got = session_verdicts(s, tmp_path)
    assert got[asked].category == "process" and got[asked].status == "answered", got[asked]


def test_normative_mood_and_work_said_to_be_open_are_tasks(tmp_path: Path) -> None:
    s = PiSession()
    s.user("I installed a new calendar skill for you")
    s.say("Nice, I can see it in the skills folder now.")
    duty = s.user("you will use it to put every dentist appointment in the family calendar")
    s.say("Understood.")
    still_open = s.user("The printer driver is still an open issue, the spooler keeps crashing")
    s.say("I'll look at the spooler logs.")
    not_fixed = s.user("the sync is still not working after your change")
    zh = PiSession()
    zh.user("同步脚本怎么样了")
    zh.say("我改了超时设置。")
    zh_open = zh.user("还是没解决，同步还是失败")
    got, zh_got = session_verdicts(s, tmp_path), session_verdicts(zh, tmp_path)
    for item in (duty, still_open, not_fixed):
        assert got[item].category == "task", got[item]
    assert zh_got[zh_open].category == "task", zh_got[zh_open]


def test_a_remark_about_what_the_user_will_see_is_no_task(tmp_path: Path) -> None:
    s = PiSession()
    s.user("you will see that the report is shorter this week")
    remark = s.entries[-1]["id"]
    assert session_verdicts(s, tmp_path)[remark].category != "task"


def test_a_choice_proposed_as_a_question_is_the_users_decision_awaiting_an_answer(tmp_path: Path) -> None:
    s = PiSession()
    s.user("the paid model is getting expensive")
    s.say("It cost about 30 dollars this week.")
    proposal = s.user("can we switch to the local model as primary instead? and keep the paid one as a backup?")
    plain = PiSession()
    plain.user("the paid model is getting expensive")
    plain.say("It cost about 30 dollars this week.")
    asked = plain.user("how much did it cost last month?")
    got, plain_got = session_verdicts(s, tmp_path), session_verdicts(plain, tmp_path)
    assert got[proposal].category == "decision" and got[proposal].status == "current", got[proposal]
    assert plain_got[asked].category == "question", plain_got[asked]
    s.say("Yes: the local model is primary now, the paid one is the fallback.")
    answered = session_verdicts(s, tmp_path)[proposal]
    assert answered.category == "decision" and answered.status == "answered", answered
