"""Forms met in OpenClaw sessions of owners the rules were never tuned on (sentences invented here,
none quoted): the twenty-third round (reviews 103–108, third sessions of owners read before)."""

from __future__ import annotations

import pytest
from support_classify import element, verdicts

from apollo.renal.reading import read
from apollo.renal.rules import load
from apollo.transcript.model import Kind


def _tool(call_id: str) -> tuple:
    return (element(f"c{call_id}", "assistant", '{"command":"openclaw status"}', Kind.TOOL_CALL, call_id=call_id,
                    tool_name="exec"),
            element(f"r{call_id}", "tool", "ok", Kind.TOOL_RESULT, call_id=call_id, tool_name="exec"))


@pytest.mark.parametrize("reply", ["You're welcome, I'm here whenever you need me.", "De nada, ¡para eso estoy!",
                                   "You're welcome! Good luck with the launch!", "You're welcome! That's what I'm here for."])
def test_the_agents_pleasantry_back_is_noise(reply: str) -> None:
    """"That's what I'm here for", "I'm here whenever you need me", good luck: it tells the owner nothing."""
    assert verdicts(("user", "thanks"), ("assistant", reply))["m2"].category == "noise"


@pytest.mark.parametrize("reply", ["需要我帮你重启网关吗？", "Need help with the deploy script?",
                                   "Anything I can help with on the invoice?"])
def test_help_offered_with_something_named_still_asks(reply: str) -> None:
    assert verdicts(("user", "thanks"), ("assistant", reply))["m2"].category != "noise"


def test_help_offered_for_what_the_message_says_is_accepted_by_a_yes() -> None:
    """"Need any help?" after the trouble it names is an offer, not a pleasantry (adversarial review 99)."""
    v = verdicts(("assistant", "Your disk is 95% full, mostly /var/log. Need any help?"), ("user", "yes please"))
    assert v["m1"].category == "decision"


def test_a_change_offered_before_an_action_waits_on_the_answer() -> None:
    v = verdicts(("assistant", "Draft below. Anything you want to change before I submit it to Mailchimp?"),
                 ("user", "no, go ahead"))
    assert v["m1"].category == "decision"


@pytest.mark.parametrize("reply", ["Here are the three options: A, B and C. Want a deeper dive into any of those?",
                                   "The deck is saved to /tmp/deck.pptx. Is there anything you'd like to change?",
                                   "文件已保存到桌面。或者还有其他要调整的？"])
def test_a_change_offered_with_none_named_asks_nothing(reply: str) -> None:
    assert verdicts(("user", "make the deck and save it"), ("assistant", reply))["m2"].category != "question"


def test_a_change_offered_with_its_options_still_asks() -> None:
    v = verdicts(("user", "做个PPT保存到桌面"), ("assistant", "文件已保存。还有哪里需要修改，比如颜色还是字体？"))
    assert v["m2"].category == "question"


def test_what_the_agent_says_after_working_in_a_greetings_turn_is_the_works_report() -> None:
    """"你好" opens the turn, but the report after a tool call is no reply to the greeting."""
    v = verdicts(("user", "你好"), ("assistant", "你好！我查一下配置。"), *_tool("1"),
                 ("assistant", "端口已改成 8080，需要你重启服务才能生效。"))
    assert v["m2"].rule == "social:greeting" and v["m5"].rule != "context:social_reply"


def test_a_greetings_reply_with_no_work_behind_it_is_still_a_social_reply() -> None:
    v = verdicts(("user", "你好"), ("assistant", "你好！今天的备份都完成了。"))
    assert v["m2"].rule == "context:social_reply"


@pytest.mark.parametrize("said", ["使用svg分别画出架构图和流程图", "用表格对比这三个方案", "使用现有模板，生成三份周报"])
def test_the_means_of_the_work_ordered_is_no_choice(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "task"


@pytest.mark.parametrize("said", ["用GLM5吧", "使用 PostgreSQL 作为数据库", "用这个方案吧"])
def test_a_means_with_no_work_after_it_is_still_chosen(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "decision"


def test_none_of_them_can_be_used_is_a_complaint_not_a_rule() -> None:
    said = "我的电脑现在codex和antigravity 都用不了了 能帮我解决这个问题吗"
    assert verdicts(("user", said))["m1"].category == "task"
    assert verdicts(("user", "以后都用中文"))["m1"].category == "preference"


def test_a_label_before_a_list_and_a_reports_section_titles_ask_nothing() -> None:
    done = verdicts(("user", "set up the bot"), ("assistant", "Done.\n\nWhat’s set up:\n- a cron job at 7:00\n- the "
                                                             "Telegram channel"))
    assert done["m2"].category != "question" and done["m1"].status == "done"
    report = read("报告：\n\n## 一、什么是 ACP？\nACP 是一种协议。\n\n## 二、怎么用？\n照着文档配置。", "assistant", load())
    assert [c.body for c in report.clauses if c.question] == ["怎么用"]  # the last heading may still be asked


@pytest.mark.parametrize("asked", ["What's the target region:\n- EU\n- US", "Which one do you prefer?\n- SQLite\n- PostgreSQL",
                                   "How should the cluster be sized:\n- small\n- large"])
def test_a_question_before_its_options_still_asks(asked: str) -> None:
    assert read(asked, "assistant", load()).question


@pytest.mark.parametrize("reply", ["Is it the cache? No. The lockfile changed upstream; I pinned lodash to 4.17.21.",
                                   "是缓存的问题吗？不是。是锁文件变了，我把 lodash 固定在 4.17.21。",
                                   "Was it the cache? Yes — the key had expired, so I cleared it."])
def test_a_question_its_speaker_answers_at_once_asks_nothing(reply: str) -> None:
    assert not read(reply, "assistant", load()).question


@pytest.mark.parametrize(("said", "role"), [("Should I also purge the CDN? No? Then I will leave it.", "assistant"),
                                           ("Can I drop the old column now? Not yet — I'll wait for your go.", "assistant"),
                                           ("Did you actually restart it? No. The uptime says 3 days.", "user")])
def test_a_question_put_to_the_other_side_or_followed_by_a_question_still_asks(said: str, role: str) -> None:
    assert read(said, role, load()).question


@pytest.mark.parametrize("said", ["Answer all conversations in Spanish.", "Write all your answers in Korean.",
                                  "All answers in French please.", "Use Spanish for all replies."])
def test_the_language_of_every_answer_is_a_standing_rule(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "preference"


@pytest.mark.parametrize("said", ["Translate all the messages in Spanish", "Reply to all messages in the queue"])
def test_work_on_all_messages_is_work(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "task"


@pytest.mark.parametrize("said", ["除非我明确说，否则不要推送到生产环境", "没有我的同意，不要删除任何文件", "未经我允许不准发邮件"])
def test_a_ban_only_the_users_word_lifts_is_a_standing_rule(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "preference"


def test_not_as_bad_as_i_said_is_no_ban() -> None:
    assert verdicts(("user", "没有我说的那么严重，不要担心"))["m1"].category != "preference"


@pytest.mark.parametrize("said", ["Include Redis in the stack.", "Provide the migration script as one file.",
                                  "bind the two bots to the agents", "把两个机器人绑定到agent"])
def test_include_provide_and_bind_order_work(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "task"


@pytest.mark.parametrize("said", ["You are Bolt, you help me 24x7 with release engineering",
                                  "my telegram id is 5550001", "Discord username: kai_9", "我的飞书ID是 ou_123",
                                  "我希望图标的底色是深绿色，按钮是圆角的", "I would like the icon background to be dark green."])
def test_who_the_agent_is_the_users_accounts_and_how_a_thing_should_look_are_kept(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "preference"


@pytest.mark.parametrize("said", ["what's my telegram id?", "the github account is suspended", "我希望他是对的",
                                  "I'd like the report to be done by Friday.", "you are wrong, you help nobody like that"])
def test_an_account_asked_about_a_hope_a_deadline_or_a_complaint_is_not(said: str) -> None:
    assert verdicts(("user", said))["m1"].category != "preference"


@pytest.mark.parametrize("said", ["我希望明天是晴天", "我希望这次是最后一次修改", "I want the bug to be gone before the demo",
                                  "my github account is locked", "我的QQ号是被盗了，帮我看看怎么找回", "You're the expert, you handle it",
                                  "You are an idiot, you help nobody"])
def test_a_hope_a_deadline_an_accounts_state_or_a_delegation_is_no_standing_fact(said: str) -> None:
    """Adversarial review 99: what the preference forms must not take."""
    assert verdicts(("user", said))["m1"].category != "preference"


@pytest.mark.parametrize(("said", "category"), [("刚才把打印机连接上了，现在能打印了", "process"), ("把打印机连接到wifi", "task"),
                                                ("有两个都用不了", "process"), ("用对比色突出重点", "decision"),
                                                ("用统计数据说话，别空谈", "decision")])
def test_a_report_of_a_connection_made_a_complaint_and_nouns_made_of_work_verbs(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize("menu", ["Options:\nA. inline\nB. zip\nC. link\nWhich one?", "有三个方案：\nA. 内联\nB. 打包\nC. 链接\n选哪个？"])
def test_a_bare_letter_picks_the_option_it_names(menu: str) -> None:
    v = verdicts(("user", "pick a layout for me"), ("assistant", menu), ("user", "A"))
    assert v["m3"].category == "decision"


@pytest.mark.parametrize("reply", ["I can't do all of it today, but I can give you a complete checklist.",
                                   "I will set up the backups now.",
                                   "I can't enable that, it needs an admin. Anyway, the report you asked for is finished."])
def test_a_thing_named_complete_work_still_to_do_or_older_work_done_beside_a_refusal_closes_nothing(reply: str) -> None:
    assert verdicts(("user", "set up the nightly backups"), ("assistant", reply))["m1"].status != "done"


@pytest.mark.parametrize("reply", ["Backup set up and scheduled for 02:00.", "Migration complete ✅",
                                   "Here's a complete checklist for the backups: 1. snapshot 2. copy 3. verify"])
def test_work_reported_done_still_closes_the_request(reply: str) -> None:
    assert verdicts(("user", "set up the nightly backups"), ("assistant", reply))["m1"].status == "done"


def test_a_refusal_beside_work_done_in_the_turn_closes_the_request() -> None:
    """"I can't access X, so I did Y" after a tool call: the work of the turn is the request's."""
    v = verdicts(("user", "add the meeting to my calendar"), *_tool("1"),
                 ("assistant", "I can't access your calendar directly, so I created an .ics file and imported it ✅"))
    assert v["m1"].status == "done"


@pytest.mark.parametrize("said", ["Ok了，我执行好了", "我已经跑完了", "I've run it"])
def test_the_user_saying_they_did_the_step_handed_to_them_settles_it(said: str) -> None:
    v = verdicts(("user", "重启网关"), ("assistant", "我没有权限，请你执行 openclaw gateway restart"), ("user", said))
    assert v["m2"].status == "superseded"


def test_a_logs_decision_field_is_no_decision_of_the_users() -> None:
    said = "the worker keeps printing: 09:14 [run] retry decision: abort reason=timeout"
    assert verdicts(("user", said))["m1"].category != "decision"
    for decided in ("Decision: we ship on Friday.", "**Decision:** ship on Friday", "- Decision: use Redis for the cache",
                    "OK so decision: Redis for the cache"):
        assert verdicts(("user", decided))["m1"].category == "decision"


@pytest.mark.parametrize(("asked", "called_off"), [("write the newsletter for March", "Scrap the newsletter, let's do the "
                                                    "podcast instead."),
                                                   ("帮我部署到服务器", "先不部署了"),
                                                   ("write the weekly report", "never mind the report, I did it myself")])
def test_work_the_user_calls_off_is_no_longer_open(asked: str, called_off: str) -> None:
    v = verdicts(("user", asked), ("assistant", "OK."), ("user", called_off))
    assert v["m3"].category == "decision" and v["m1"].status == "superseded"


@pytest.mark.parametrize(("asked", "changed"), [("update the database schema for the orders table",
                                                 "use Postgres instead of SQLite for the database"),
                                                ("把数据库的表结构更新一下", "数据库改用 PostgreSQL")])
def test_a_change_of_choice_leaves_the_work_on_the_same_thing_open(asked: str, changed: str) -> None:
    v = verdicts(("user", asked), ("assistant", "OK."), ("user", changed))
    assert v["m1"].status == "current"


def test_a_thing_that_stopped_working_calls_nothing_off() -> None:
    assert verdicts(("user", "页面打不开了"))["m1"].category != "decision"


@pytest.mark.parametrize("said", ["请在每天早上7:00为我整理AI资讯", "请为我整理AI资讯", "请明天上午帮我备份数据库"])
def test_a_chinese_order_with_when_and_for_whom_before_its_verb_is_a_task(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "task"
