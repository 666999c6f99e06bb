"""Forms met in OpenClaw sessions of owners the rules were never tuned on (sentences invented here,
none quoted): the twentieth round."""

from __future__ import annotations

from pathlib import Path

import pytest
from support_classify import session_verdicts, verdicts

from apollo import config
from apollo.errors import ConfigError
from apollo.renal.classify import Classifier
from realclient.support import PiSession


@pytest.mark.parametrize(("reply", "status"), [
    ("已改好。", "done"), ("已经写好，放在 docs/guide.md", "done"), ("配置已改好，重启后生效", "done"), ("改好啦", "done"),
    ("已经写好的代码放在哪？", "current"), ("已经改好了吗", "current"), ("还没改好", "current"),
    ("已经写好的话就发给你", "current"),
])
def test_work_reported_done_with_yi_and_no_le_closes_the_request(reply: str, status: str) -> None:
    """"已改好" says done as "改好了" does; an attributive, a question or a condition says nothing done."""
    v = verdicts(("user", "帮我把端口改成8080"), ("assistant", reply))
    assert v["m1"].category == "task" and v["m1"].status == status


@pytest.mark.parametrize(("said", "category"), [
    ("帮我把端口改成8080，然后每次修改配置文件之前都git一次", "preference"), ("每次改完代码都commit一下", "preference"),
    ("每次都gitlab报错", "process"), ("每次打开都备份吗？", "question"),
])
def test_saving_the_work_every_time_is_a_standing_rule_even_inside_a_request(said: str, category: str) -> None:
    """A rule for every time outlives the one-off request it was given with, so the message is kept as the rule."""
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("said", "category"), [
    ("vui lòng kiểm tra lại file config giúp mình", "task"), ("Anh vui lòng gửi báo cáo trước 5h chiều", "task"),
    ("vui lòng đợi một chút", "process"), ("cho mình biết giá vàng hôm nay", "question"),
    ("vui lòng cho tôi biết lỗi ở đâu", "question"), ("cho mình biết khi chạy xong nhé", "process"),
])
def test_vietnamese_please_orders_and_let_me_know_asks(said: str, category: str) -> None:
    """"vui lòng" (please) with a verb orders; "cho mình biết" (let me know) asks, unless it is to be told later."""
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("between", "status"), [
    ((("assistant", "找到 12 个旧日志文件，共 3.2GB。确认要删除吗？"), ("user", "是的")), "done"),
    ((("assistant", "Found 12 old logs. Which ones, all or only last year's?"), ("user", "last year's")), "done"),
    ((("assistant", "好的，我先看看。"), ("user", "快点")), "current"),
    ((("assistant", "确认要删除吗？"), ("user", "先帮我看看磁盘还剩多少")), "current"),
])
def test_a_report_after_the_user_only_answered_the_agents_questions_closes_the_request(
        between: tuple[tuple[str, str], ...], status: str) -> None:
    """The report after "是的" to the agent's question is of the work asked for, whatever its words; a reply to no
    question, or one that asks for more, is a turn of its own."""
    v = verdicts(("user", "帮我把这些旧日志删掉"), *between, ("assistant", "已删除 12 个文件。"))
    assert v["m1"].status == status


@pytest.mark.parametrize(("said", "category"), [
    ("不要直接推送到 main 分支", "preference"), ("别随便安装依赖", "preference"), ("不要擅自执行命令", "preference"),
    ("回复使用中文", "preference"), ("回答请使用英文", "preference"), ("每次提交前先跑测试", "preference"),
    ("以下是你的工作规则：\n1. 回复使用中文\n2. 每次修改代码前先备份", "preference"),
    ("回复使用说明在哪？", "question"), ("不要直接推送了", "decision"),
])
def test_chinese_standing_donts_with_how_reply_language_and_every_time_first(said: str, category: str) -> None:
    """A "don't" with how ("直接", "随便") rules the agent's work as the bare one does; the language of the replies said
    with 使用 and "before each X, first Y" are standing rules; a noun phrase asked about and a one-off "不要…了" are not."""
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("said", "category"), [
    ("打印机的地址是10.1.2.3", "preference"), ("the server port is 8443", "preference"),
    ("the printer's IP is 10.1.2.3", "preference"), ("my email is jo@example.com", "preference"),
    ("摄像头话题是/camera/image", "preference"), ("App ID: cli_a9f2abc", "preference"), ("默认分支是 main", "preference"),
    ("端口是多少？", "question"), ("is the port 8443?", "question"), ("the port is busy", "process"),
    ("the error is 404", "process"), ("把端口改成8080", "task"),
    ("2026-03-21 15:40:52\n[START] 配置目录: /root/.openclaw\n2026-03-21 15:40:52\n[START] 端口: 18789", "process"),
])
def test_a_settings_value_the_user_states_is_a_fact_to_keep(said: str, category: str) -> None:
    """"the server port is 8443", "打印机的地址是10.1.2.3": what the agent is to work with, kept as the user's fact; a
    state ("busy"), a question, an order to change it and a log line pasted are not."""
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize("said", [
    "Gm", "hellow", "hey claw", "yo bot", "Labas", "Chào buổi sáng nhé", "доброго ранку", "Are you active ?",
    "can you see my last message?", "you still with me?", "All good for now", "nope that's all for today",
])
def test_greetings_pings_and_closings_in_chat_spellings_and_more_languages_are_noise(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "noise"


@pytest.mark.parametrize(("said", "category"), [
    ("hey stop", "task"), ("yo, fix it", "task"), ("chào mừng bạn đến với dự án", "process"),
])
def test_a_greeting_word_before_an_order_or_inside_a_phrase_is_no_formula(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("said", "category"), [
    ("I want you to answer short and friendly", "preference"), ("I'd like you to reply in Spanish", "preference"),
    ("I want you to answer this email", "task"), ("I want you to reply to John", "task"),
    ("别说你是机器人，再回他一句", "preference"), ("你别说，还挺好用", "process"), ("别说了", "process"),
])
def test_how_the_agent_is_to_answer_is_a_standing_wish_what_to_answer_is_work(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("said", "category"), [
    ("continua", "process"), ("Continúa", "process"), ("continúa con el paso 2", "task"),
    ("take a screenshot and send it", "task"), ("take a screenshot of the dashboard", "task"),
    ("take a break", "process"), ("take your time", "process"),
])
def test_going_on_alone_orders_nothing_new_and_a_picture_to_take_is_work(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize("reply", ["Hey! Good to be awake. What is on your mind?", "Labas! Kaip galiu padėti?",
                                   "这家店位于阜成路2号，还有什么能帮助您的么？"])
def test_an_offer_of_help_with_no_matter_in_it_asks_nothing_open(reply: str) -> None:
    assert verdicts(("user", "Gm"), ("assistant", reply))["m2"].category == "process"


def test_a_report_after_a_runtime_notice_replies_to_the_notice_not_to_an_earlier_greeting(tmp_path: Path) -> None:
    """"Gm", then a scheduled job's notice, then the agent's report of the job: the report is the job's outcome, not a
    reply to the greeting (the notice opens the turn)."""
    s = PiSession()
    s.user("Gm")
    s.say("Gm! 👋")
    notice = s.user("System: [2026-05-12 08:48:00 UTC] Exec completed (crisp-sh, code 0) :: health check written")
    s.tool("c1", "exec", {"command": "git commit -am 'health check'"}, "1 file changed")
    report = s.say("✅ Health check done. Backlog: 0 files, 114 concepts, links OK. Committed the report.")
    got = session_verdicts(s, tmp_path)
    assert got[notice].rule == "furniture:notice"
    assert (got[report].category, got[report].rule) == ("decision", "intent:outcome")


@pytest.mark.parametrize(("reply", "status"), [
    ("check the disk usage", "current"), ("yes, and then update the docs", "answered"),
    ("no, then update the docs", "answered"), ("restart it after checking the disk usage", "answered"),
])
def test_a_new_request_on_something_else_leaves_the_agents_question_unanswered(reply: str, status: str) -> None:
    """"Done, cache is now 2 GB. Restart now?" → "check the disk usage": the user never answered it; a yes or a no
    first, or the question's own words, answer it."""
    v = verdicts(("user", "raise the cache to 2 GB"), ("assistant", "Done, cache is now 2 GB. Restart now?"),
                 ("user", reply))
    assert v["m2"].status == status


@pytest.mark.parametrize(("said", "category"), [
    ("用扫码的方式登录一下", "task"), ("使用写作技能把这段改写", "task"), ("通过 SSH 重启一下", "task"),
    ("用 Postgres", "decision"), ("用扫码的方式就行", "decision"), ("用扫码登录一下吗？", "question"),
])
def test_work_ordered_with_its_means_is_the_work_not_a_choice(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("said", "category"), [
    ("tell me what you decided to include", "question"), ("let me know which one they decided on", "process"),
    ("we decided to use postgres", "decision"), ("Decided: postgres", "decision"),
])
def test_what_was_decided_asked_about_is_no_decision(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("report", "status"), [
    ("Acabo de revisar tus tareas: tienes 3 pendientes.", "done"), ("Acabei de enviar o e-mail.", "done"),
    ("Xem rồi: không có lỗi.", "done"), ("Acabo de intentarlo pero falló.", "current"), ("chưa xem", "current"),
])
def test_just_did_in_spanish_and_portuguese_and_verb_then_roi_in_vietnamese_report_work_done(report: str,
                                                                                              status: str) -> None:
    v = verdicts(("user", "please check it"), ("assistant", report))
    assert v["m1"].status == status


@pytest.mark.parametrize(("said", "category"), [
    ("I want you to write unit tests for the parser", "task"), ("I want you to answer why the build failed", "task"),
    ("I want you to answer honestly: is my code any good?", "question"), ("每次都push不上去", "process"),
    ("为什么每次都push失败", "question"), ("用户反馈一下子多了很多", "process"), ("用 curl 测了一下", "process"),
    ("the failing url is https://example.com/a", "process"), ("当前目录是 /home/a", "process"),
    ("vui lòng trả lời bằng tiếng Việt", "preference"), ("cho mình biết nhé", "process"),
    ("increase the max tokens fixed it", "process"), ("回复使用中文吗", "question"),
])
def test_the_new_forms_stop_where_an_adversarial_review_found_them_overreaching(said: str, category: str) -> None:
    """Review 93: what is to be written is work, a complaint or a question with 每次 is no rule, 用户 and 一下子 are no
    means of work, a failing or current value is no setting, a bare "let me know" asks nothing, a fix reported is done."""
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("asked", "reply"), [
    ("Is that the complete list?", "no that is all"), ("Did the deploy work?", "all good for now"),
])
def test_a_closing_after_a_real_question_answers_it(asked: str, reply: str) -> None:
    v = verdicts(("assistant", asked), ("user", reply))
    assert v["m2"].category != "noise" and v["m1"].status == "answered"


def test_a_closing_after_an_offer_of_more_help_is_a_closing() -> None:
    v = verdicts(("assistant", "这家店位于阜成路2号，还有什么能帮助您的么？"), ("user", "没什么了，多谢您了。"))
    assert v["m2"].category == "noise"


def test_a_choice_question_with_a_general_opening_still_asks() -> None:
    v = verdicts(("user", "hi"), ("assistant", "Hi! What shall we do: roll back or patch forward?"))
    assert v["m2"].category == "question"


def test_a_later_value_of_a_setting_replaces_the_earlier() -> None:
    v = verdicts(("user", "the server port is 8443"), ("assistant", "ok"), ("user", "the server port is now 9443"))
    assert (v["m1"].status, v["m3"].status) == ("superseded", "current")


def test_a_report_of_the_step_the_agents_question_offered_leaves_the_request_open() -> None:
    """"migrate the users table" → "Want me to run the test suite first?" → "sure" → "Ran the test suite": the report is
    of the step the question offered (no word of the request's in it), not of the migration."""
    v = verdicts(("user", "migrate the users table"), ("assistant", "Want me to run the test suite first?"),
                 ("user", "sure"), ("assistant", "Ran the test suite: 120 passed."))
    assert v["m1"].status == "current"


def test_a_yes_in_other_words_answers_the_agents_question() -> None:
    v = verdicts(("user", "draft the invite"), ("assistant", "Done. Send it to Anna?"), ("user", "email it to her"))
    assert v["m2"].status == "answered"


def test_a_request_asked_again_is_done_with_the_later_copy() -> None:
    """"deploy the landing page to vercel", a failed turn, "please deploy the landing page to vercel now", then the
    report: both copies are done; a request on another page stays open."""
    v = verdicts(("user", "deploy the landing page to vercel"), ("assistant", "(failed)"),
                 ("user", "please deploy the landing page to vercel now"), ("assistant", "Deployed the landing page to vercel."))
    assert (v["m1"].status, v["m3"].status) == ("done", "done")
    other = verdicts(("user", "deploy the docs page to vercel"), ("user", "deploy the landing page to vercel"),
                     ("assistant", "Deployed the landing page to vercel."))
    assert (other["m1"].status, other["m2"].status) == ("current", "done")


def test_a_row_whose_action_once_answered_is_unknown_is_refused_where_it_is_loaded(tmp_path: Path) -> None:
    (tmp_path / "rows.toml").write_text(
        '[[classify.from_agent]]\nrule = "mine"\ncategory = "question"\nanswered = "decision"\nanswered_action = "kepp"\n'
        'confidence = 0.7\nreason = "mine"\n', encoding="utf-8")
    (tmp_path / "config.toml").write_text('[renal]\nrule_files = ["rows.toml"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown action"):
        Classifier(config.load(None, extra_layers=[tmp_path / "config.toml"]))
