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
                                     "you said it was fixed but the build is failing", "the tests fail when I run them locally"])
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
                                   "me diz assim que o backup terminar", "dime en cuanto termine la migración"])
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


def test_the_same_reminder_again_but_for_its_time_is_a_repeat(tmp_path: Path) -> None:
    s = PiSession()
    s.user("Set up the deploy check every 30 minutes.")
    s.say("Scheduled.")
    notices = []
    for minute, content in enumerate(["CHECK_DEPLOYS: read deploy.json and spawn a tester for each pending agent."] * 3
                                     + ["CHECK_DEPLOYS: 2 agents pending in deploy.json."]):
        notices.append(s.user(f"System: [2026-05-05 17:{10 + minute:02d}:45 GMT+5:30] {content}\n\nA scheduled reminder "
                              f"has been triggered. The reminder content is:\n\n{content}\n\nCurrent time: Tuesday, May "
                              f"5th, 2026 - 5:{10 + minute:02d} PM"))
        s.say("Checked: nothing pending.")
    got = session_verdicts(s, tmp_path)
    rules = [got[n].rule for n in notices]
    assert rules[0] != "repeat:notice" and rules[1] == rules[2] == "repeat:notice", rules
    assert rules[3] != "repeat:notice", rules  # another number says something new


@pytest.mark.parametrize("reply", ["I drafted the migration. Do you need any changes to the schema before I run it?",
                                   "The draft is ready. Is this what you wanted before I send it?"])
def test_a_change_named_or_a_step_waiting_on_the_answer_still_asks(reply: str) -> None:
    v = verdicts(("user", "draft the migration"), *exec_step("1"), ("assistant", reply))
    assert v["m4"].category == "question"
