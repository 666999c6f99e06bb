"""Forms met in OpenClaw sessions of owners the rules were never tuned on (sentences invented here,
none quoted): the twenty-sixth round (heartbeat replies OpenClaw takes for HEARTBEAT_OK, rules to remember,
a failure the user reports after a report of work done, "show me" in other languages, a change reported done
in Chinese, a closing "is this what you wanted?")."""

from __future__ import annotations

from pathlib import Path

import pytest
from support_classify import exec_step, session_verdicts, verdicts

from realclient.support import HEARTBEAT_PROMPT, PiSession


def _poll_reply(reply: str, tmp_path: Path) -> str:
    """The rule of ``reply`` as the agent's answer to a heartbeat poll, in a session read by the real reader."""
    s = PiSession()
    s.user("Keep an eye on the web server.")
    s.say("Will do.")
    s.user(HEARTBEAT_PROMPT)
    answer = s.say(reply)
    s.user("thanks, draft the invoice for the new client")
    s.say("Drafted the invoice.")
    got = session_verdicts(s, tmp_path)[answer]
    return f"{got.category} {got.rule}"


@pytest.mark.parametrize("reply", [
    "✅ **HEARTBEAT_OK**",
    "Checked at 06:00, nothing to do.HEARTBEAT_OK",
    "HEARTBEAT_OK\n\nWeb server: running, queue idle.",
    "Poll at 09:20; the last check was at 09:00, same state. Skip.\n\nHEARTBEAT_OK",
])
def test_a_short_remark_beside_heartbeat_ok_is_the_polls_chatter(reply: str, tmp_path: Path) -> None:
    """OpenClaw strips HEARTBEAT_OK at either edge of a heartbeat reply and delivers nothing when 300 characters or
    fewer are left: the owner never sees such a reply, and neither should the context."""
    assert _poll_reply(reply, tmp_path) == "noise heartbeat:acknowledged"


def test_the_bare_token_keeps_its_own_rule(tmp_path: Path) -> None:
    assert _poll_reply("HEARTBEAT_OK", tmp_path) == "noise kind:heartbeat_reply"


@pytest.mark.parametrize("reply", [
    "The nightly backup failed twice. HEARTBEAT_OK",  # trouble beside the token
    "HEARTBEAT_OK. Should I renew the certificate that expires on Friday?",  # a question to the owner
    "I answered HEARTBEAT_OK last time, but a new invoice from the landlord arrived and it is due on the 5th.",
    "HEARTBEAT_OK\n\n" + "Status of the twelve services in detail: " + "web ok, db ok, cache ok, queue ok. " * 9,
    "HEARTBEAT_OK, but the nightly backup did not run last night; I will retry at 02:00.",  # the agent's own plan
    "Disk /var at 97% (was 80% yesterday). HEARTBEAT_OK",  # a measure
    "I will need your approval before I can renew the domain. HEARTBEAT_OK",
    "HEARTBEAT_OK, the backup did not run, retrying at 02:00",
    "We'll need your approval to renew the domain. HEARTBEAT_OK",
    "Disk at 97 percent. HEARTBEAT_OK",
    "HEARTBEAT_OK. Rerun scheduled for 02:00.", "Restarted the gateway. HEARTBEAT_OK",
    "But the backup did not run last night. HEARTBEAT_OK", "Retrying the sync at 02:00. HEARTBEAT_OK",  # capitalised
])
def test_trouble_a_question_a_token_inside_a_sentence_or_a_long_report_is_not_that_chatter(
        reply: str, tmp_path: Path) -> None:
    assert "heartbeat:acknowledged" not in _poll_reply(reply, tmp_path)


@pytest.mark.parametrize("rule", [
    "Remember to back up the notes after every change.",
    "Also add to your rules file that you do this every Friday.",
    "还有记得每次改完都及时备份到云盘",
    "别忘了每天早上发日报",
    "把以下设置保存到长期记忆：回复简洁，不用表情",
    "And remember you always have to go through review before merging.",
    "don't forget you must ask me first",
    "pls remember to bump the version on each release",
    "add this to your memory: I am vegetarian",
    "把以下内容存入你的记忆库，主题是系统配置：1. 对话模型和向量模型是两个组件",
])
def test_a_rule_to_remember_or_to_add_to_the_agents_rules_is_a_preference(rule: str) -> None:
    v = verdicts(("user", rule), ("assistant", "Got it."))
    assert v["m1"].category == "preference"


@pytest.mark.parametrize("said", [
    "remember to buy milk tomorrow",  # once
    "make sure to test each function",  # each part of this work
    "add a test to the rules engine that checks empty input",  # a thing named "rules"
    "把这个文件保存到memory目录",  # a folder named memory
    "remember I have to leave at 5",  # the user's own duty
    "did you remember to back up the notes after every change?",  # asked
    "Please refactor the parser. Make sure to run the linter after each file.",  # each part of this work
    "Remember to run the tests after every change in this PR.",  # again only while this work lasts
    "Remember to check every hour until the job completes.",
    "in validators.py, add to the rules that emails must be lowercase",  # the rules of something else
    "把这条bug记到规则引擎的测试里", "把今天的会议纪要保存到记忆文件夹",  # things named so
    "Remember you should get the invite link in your inbox.",  # what is to happen to the agent
])
def test_the_same_words_once_of_a_thing_or_asked_are_no_preference(said: str) -> None:
    v = verdicts(("user", said), ("assistant", "ok"))
    assert v["m1"].category != "preference"


@pytest.mark.parametrize("failure", ["Showing failed in GitHub", "the build is still failing",
                                     "they are still not functional", "GitHub 上显示失败", "上传又失败了",
                                     "you said it was fixed but the build is failing", "the tests fail when I run them locally",
                                     "still not working now", "the build is failing again, another timeout"])
def test_a_failure_the_user_reports_after_a_report_of_work_done_reopens_the_request(failure: str) -> None:
    v = verdicts(("user", "deploy the site to production"), *exec_step("1"), ("assistant", "Deployed! The site is live."),
                 ("user", failure))
    assert (v["m1"].category, v["m1"].status) == ("task", "current")
    assert v["m4"].rule == "resolve:failed"


@pytest.mark.parametrize("said", [
    "did it fail?", "if it fails, retry once", "it failed yesterday but works now", "如果失败了就重试",
    "no tests failed, great work", "0 tests failed, 120 passed", "nice, it's not showing failed anymore",  # no failure
    "好的，GitHub 上没有显示失败了", "不再显示失败了，谢谢",
    "the deploy is failing but that's a different repo, ignore it", "the job failed lol. nvm, it passes now",  # set aside
    "之前部署显示失败是因为网络问题，现在好了",
    "thanks. a customer reported an error on checkout this morning", "ok. Sentry shows an error spike",  # a new matter
    "the tests are failing on a different service, not this one", "the build failed as expected",
])
def test_a_failure_asked_about_as_a_condition_or_over_closes_nothing_again(said: str) -> None:
    v = verdicts(("user", "deploy the site to production"), *exec_step("1"), ("assistant", "Deployed! The site is live."),
                 ("user", said))
    assert v["m1"].status == "done"
    assert v["m4"].rule != "resolve:failed"


@pytest.mark.parametrize("order", ["Tampilkan top 10 sales smb", "jelaskan error ini", "berikan aku linknya",
                                   "muéstrame las ventas de marzo", "me mostra os logs do gateway",
                                   "explique-moi cette erreur", "zeig mir die Umsätze vom März"])
def test_show_me_tell_me_in_other_languages_is_settled_by_the_answer(order: str) -> None:
    """As "show me the top 10 sales": a question put as an order, answered by the reply that shows it."""
    v = verdicts(("user", order), ("assistant", "Here it is:\n\n| Rank | Name | Total |\n|---|---|---|\n| 1 | A | 120 |"))
    assert (v["m1"].category, v["m1"].status) == ("process", "answered")


@pytest.mark.parametrize("order", ["montre-moi le rapport", "explícame la herencia en Java", "Resúmeme el documento",
                                   "Dis-moi ce que tu vois", "Explique-moi le code", "me mostre os últimos pedidos",
                                   "me fala o que aconteceu", "tampilkan laporan penjualan bulan ini",
                                   "berikan saya daftar pelanggan baru", "rekap pengeluaran minggu ini"])
def test_show_me_tell_me_in_other_languages_asks_a_question_until_answered(order: str) -> None:
    v = verdicts(("assistant", "Hi, what can I do?"), ("user", order))
    assert (v["m2"].category, v["m2"].rule) == ("question", "intent:inquiry")


@pytest.mark.parametrize("order", ["tampilkan datanya lalu kirim ke grup", "berikan akses ke tim sales",
                                   "dime cuando termine el backup", "zeig mir jeden Morgen die Zahlen und dann die Fehler",
                                   "tampilkan tombol logout di navbar", "tunjukkan loading spinner saat data sedang dimuat",
                                   "berikan saya akses admin ke dashboard", "dis-moi dès que le déploiement est terminé",
                                   "me diz assim que o backup terminar", "dime en cuanto termine la migración",
                                   "dis-moi dès qu'il a fini", "muéstrame las ventas a las 8", "zeig mir stündlich die Fehler",
                                   "dis-moi à 8h la météo", "zeig mir um 10 Uhr die Zahlen"])
def test_the_same_orders_with_work_after_them_or_giving_no_one_anything_stay_tasks(order: str) -> None:
    v = verdicts(("user", order), ("assistant", "Okay."))
    assert v["m1"].category == "task"


@pytest.mark.parametrize("report", ["已改成红色。", "已将端口改为 8080。", "已改回原来的配置。", "已换成红色。", "已设为红色。"])
def test_a_chinese_report_of_what_it_was_changed_to_closes_the_request(report: str) -> None:
    v = verdicts(("user", "把标题改成红色"), *exec_step("1"), ("assistant", report))
    assert (v["m1"].category, v["m1"].status) == ("task", "done")


@pytest.mark.parametrize("reply", ["已改成的部分有三个，还差标题。", "你已经把标题改成了红色，不需要我再改。",
                                   "他已经把标题设置成红色了。", "你刚才已经把标题改成了红色，我这边先不动。",
                                   "同事已将标题改为红色，我先不动。"])
def test_what_was_changed_named_as_a_thing_or_done_by_someone_else_reports_nothing(reply: str) -> None:
    v = verdicts(("user", "把标题改成红色"), *exec_step("1"), ("assistant", reply))
    assert v["m1"].status == "current"


@pytest.mark.parametrize("report", ["Done — the header is blue now. Is this what you wanted? Or do you need any changes?",
                                    "Done, the header is blue. Do you need any other changes?"])
def test_is_this_what_you_wanted_closing_a_report_asks_nothing_specific(report: str) -> None:
    v = verdicts(("user", "make the header blue"), *exec_step("1"), ("assistant", report))
    assert v["m4"].category != "question"
    assert v["m1"].status == "done"



def _reminders(tmp_path: Path, runs: list[tuple[str, str, str]]) -> list[str]:
    """The rules of a scheduled job's reminders, each run as (date, time, content) followed by the agent's NO_REPLY or,
    for a content starting with "!", by words of the agent's about it, or with "$", by a command it ran, as the real
    reader reads them."""
    s = PiSession()
    s.user("Set up the deploy check every 30 minutes.")
    s.say("Scheduled.")
    notices = []
    for date, time, content in runs:
        said = content.lstrip("!$")
        notices.append(s.user(f"System: [{date} {time}:45 GMT+5:30] {said}\n\nA scheduled reminder has been triggered. "
                              f"The reminder content is:\n\n{said}\n\nCurrent time: {date} {time} (Asia/Calcutta)"))
        if content.startswith("$"):
            s.tool(f"c{len(notices)}", "exec", {"command": "rm -rf /var/backups/old"}, "")
        s.say("Fixed the trigger file; the next run should pass." if content.startswith("!") else "NO_REPLY")
    got = session_verdicts(s, tmp_path)
    return [got[n].rule for n in notices]


_CHECK = "CHECK_DEPLOYS: read deploy.json and spawn a tester for each pending agent."


def test_the_same_reminder_again_but_for_its_time_is_a_repeat(tmp_path: Path) -> None:
    rules = _reminders(tmp_path, [("2026-05-05", "17:10", _CHECK), ("2026-05-05", "17:40", _CHECK),
                                  ("2026-05-05", "18:10", _CHECK)])
    assert rules[0] != "repeat:notice" and rules[1] == rules[2] == "repeat:notice", rules


@pytest.mark.parametrize("runs", [
    [("2026-05-05", "17:10", _CHECK), ("2026-05-05", "17:40", "CHECK_DEPLOYS: 2 agents pending in deploy.json.")],
    [("2026-05-05", "17:10", _CHECK), ("2026-05-08", "17:10", _CHECK)],  # another day
    [("2026-05-05", "17:10", "!" + _CHECK), ("2026-05-05", "17:40", _CHECK)],  # the agent said something between
    [("2026-05-05", "17:10", "$" + _CHECK), ("2026-05-05", "17:40", _CHECK)],  # or did something
    [("2026-05-05", "17:10", "Backup window [10:00-10:30] failed"),
     ("2026-05-05", "17:40", "Backup window [15:00-15:30] failed")],  # a time that is no stamp
])
def test_a_notice_with_news_of_another_day_or_after_words_is_kept(runs: list[tuple[str, str, str]],
                                                                  tmp_path: Path) -> None:
    assert _reminders(tmp_path, runs)[-1] != "repeat:notice"

@pytest.mark.parametrize("reply", ["I drafted the migration. Do you need any changes to the schema before I run it?",
                                   "The draft is ready. Is this what you wanted before I send it?"])
def test_a_change_named_or_a_step_waiting_on_the_answer_still_asks(reply: str) -> None:
    v = verdicts(("user", "draft the migration"), *exec_step("1"), ("assistant", reply))
    assert v["m4"].category == "question"


@pytest.mark.parametrize("ping", ["did you get all my messages?", "you there? did you receive my last message?"])
def test_asking_whether_the_messages_arrived_is_a_ping(ping: str) -> None:
    v = verdicts(("user", "set up the blog"), *exec_step("1"), ("assistant", "Done, the blog is live."), ("user", ping))
    assert v["m5"].category == "noise"



@pytest.mark.parametrize("order", ["先搭建日志目录", "重新设计一下", "开发一个登录页面", "搭建工作环境", "设计工作流审批页面"])
def test_a_bare_chinese_order_to_build_design_or_develop_is_a_task(order: str) -> None:
    assert verdicts(("user", order), ("assistant", "好"))["m1"].category == "task"


@pytest.mark.parametrize("said", ["开发这块我不太懂", "设计那边反馈说颜色太暗", "搭建这个环境花了我一整天",
                                  "编写这份文档的人已经离职了", "开发分支已经合并", "这个设计不错", "编写这段代码的同事请假了"])
def test_the_same_words_as_a_subject_a_noun_or_a_state_are_no_task(said: str) -> None:
    assert verdicts(("user", said), ("assistant", "好"))["m1"].category != "task"
