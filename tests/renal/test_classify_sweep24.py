"""Forms met in OpenClaw sessions of owners the rules were never tuned on (sentences invented here,
none quoted): the twenty-fourth round (what closes a request)."""

from __future__ import annotations

import pytest
from support_classify import exec_step, verdicts


def _moved_on(report: str) -> dict:
    """A request left undone, two requests for other work since, then a report of work."""
    return verdicts(("user", "Set my fallback model to the local Gemma."),
                    ("assistant", "That needs the admin password, which I don't have."),
                    ("user", "Remind me to water the plants at 6pm."), *exec_step("1"), ("assistant", "Reminder set for 6pm."),
                    ("user", "Book a table for two at the Thai place tonight."), *exec_step("2"), ("assistant", report))


def test_a_report_sharing_one_word_with_a_request_the_user_moved_on_from_leaves_it_open() -> None:
    """A long digest that mentions "a new model" is no report on "set my fallback model to Gemma"."""
    v = _moved_on("Done, here is today's digest: Mistral shipped a new model, and chip export rules were tightened.")
    assert (v["m1"].category, v["m1"].status) == ("task", "current")


def test_a_report_naming_the_request_closes_it_however_old() -> None:
    v = _moved_on("Done: the fallback model is now the local Gemma, and the news digest is in your inbox.")
    assert (v["m1"].status, v["m1"].rule) == ("done", "resolve:done")


def test_one_shared_word_still_closes_the_request_the_user_is_on() -> None:
    v = verdicts(("user", "Set my fallback model to the local Gemma."), *exec_step("1"), ("assistant", "Done, the model is switched."))
    assert v["m1"].status == "done"


def test_questions_and_more_details_of_the_request_are_no_moving_on() -> None:
    """"Rotate the Stripe key" → "the current one is in the vault" → "and leave the webhook secret alone" → a question
    on the side: the user is still on the request, and a report naming Stripe once closes it."""
    v = verdicts(("user", "Please rotate the Stripe API key."), ("user", "the current key is in the vault under payments"),
                 ("user", "and leave the webhook secret alone"), ("user", "what's the weather like in Lisbon?"),
                 ("assistant", "Sunny, 24C."), *exec_step("1"), ("assistant", "Done: Stripe now uses the new credentials."))
    assert v["m1"].status == "done"


def test_answers_to_the_agents_questions_are_no_moving_on() -> None:
    """"删掉旧日志" → "只删 30 天前的吗？" → "是的" → "要先备份吗？" → "不用": the user answered, and is still on the request."""
    v = verdicts(("user", "把旧日志删掉"), ("assistant", "只删 30 天前的吗？"), ("user", "是的"),
                 ("assistant", "要先备份吗？"), ("user", "不用"), *exec_step("1"), ("assistant", "已删除 12 个日志文件。"))
    assert v["m1"].status == "done"


@pytest.mark.parametrize("reply", ["完成了！灯已关闭。还需要其他操作吗？", "完成了！还有别的事吗？", "灯已关闭。还要我做点什么吗？"])
def test_a_chinese_anything_else_after_a_report_asks_nothing(reply: str) -> None:
    """"还需要其他操作吗？" is "anything else?": the report closes the request and leaves no question open."""
    v = verdicts(("user", "请把灯关掉"), *exec_step("1"), ("assistant", reply))
    assert (v["m1"].status, v["m4"].category) == ("done", "decision")


def test_a_chinese_question_naming_what_else_still_asks() -> None:
    v = verdicts(("user", "请把灯关掉"), *exec_step("1"), ("assistant", "完成了！还需要安装其他依赖吗？"))
    assert v["m4"].category == "question"


@pytest.mark.parametrize("asked_next", [("user", "/var/log/backup"),
                                        ("user", "what is the weather in Paris?")])
def test_a_report_that_asked_something_stands_once_answered_or_left(asked_next: tuple) -> None:
    """"Done: backups run at 02:00. Which folder for the logs?": answered or left for another question, what it
    reports is still the state the conversation rests on."""
    v = verdicts(("user", "set up the nightly backup"), *exec_step("1"),
                 ("assistant", "Done: the backup runs at 02:00 to /mnt/nas. Which folder should the logs go to?"),
                 asked_next, ("assistant", "Noted. Which city should I check next, and how often?"))
    assert (v["m4"].category, v["m4"].status, v["m4"].action) == ("decision", "current", "keep")


@pytest.mark.parametrize("said", ["still an error on line 14", "same error: SyntaxError on line 14", "第14行还是报错",
                                  "还是打不开"])
def test_the_same_failure_again_undoes_the_report_of_a_fix(said: str) -> None:
    """"✅ Fixed!" then "still an error on line 14": the report is no state to keep, the request is open again."""
    v = verdicts(("user", "fix the script"), *exec_step("1"), ("assistant", "✅ Fixed! The quoting was wrong; paste this version."),
                 ("user", said))
    assert (v["m1"].status, v["m4"].status) == ("current", "superseded")


@pytest.mark.parametrize("said", ["still working on it?", "yes, still the same", "the build is still error-free, great",
                                  "我又有问题了，想问一下怎么导出日志"])
def test_what_only_sounds_like_the_failure_again_is_none(said: str) -> None:
    v = verdicts(("user", "fix the script"), *exec_step("1"), ("assistant", "✅ Fixed! The quoting was wrong; paste this version."),
                 ("user", said))
    assert (v["m1"].status, v["m4"].category) == ("done", "decision")


@pytest.mark.parametrize("said", ["I downloaded the installer to your Downloads folder. Have you finished installing it?",
                                  "已下载安装包。你安装完成了吗？"])
def test_a_report_asking_the_user_whether_they_finished_closes_nothing(said: str) -> None:
    assert verdicts(("user", "Please install Docker on my Mac."), *exec_step("1"), ("assistant", said))["m1"].status == "current"


@pytest.mark.parametrize("said", ["激活所有技能", "启用飞书插件", "提交代码", "编辑 README 加一段说明", "重命名这个文件为 a.md",
                                  "禁用自动更新", "开启夜间模式", "合并这两个分支", "请移动到 docs 目录", "发布这些产品"])
def test_chinese_orders_with_common_verbs_of_work(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "task"


@pytest.mark.parametrize("said", ["移动端页面打不开", "编辑器打不开", "合并后的文件在哪", "提交了吗", "已经发布了", "复制的内容不对",
                                  "链接直接复制到chrome里打不开", "我已经完成了x的发布", "公司将于下月发布新版",
                                  "中国移动信号太差了", "开启新的一天，早安", "合并请求我明天自己看"])
def test_those_verbs_as_nouns_reports_or_questions_order_nothing(said: str) -> None:
    assert verdicts(("user", said))["m1"].category != "task"


def test_a_report_with_a_question_holding_a_completion_word_still_reports() -> None:
    """"安装成功！…微信是否已经打开？": the question asks about something else; the install is done."""
    v = verdicts(("user", "安装微信自动化技能"), *exec_step("1"),
                 ("assistant", "✅ 安装成功！开始之前需要你提供两个信息：1. 你想发什么消息？ 2. 微信现在是否已经打开？"))
    assert (v["m1"].status, v["m4"].category) == ("done", "question")


@pytest.mark.parametrize("token", ["ANNOUNCE_SKIP", "REPLY_SKIP"])
def test_the_agent_to_agent_silent_tokens_are_noise(token: str) -> None:
    assert verdicts(("user", "ping the ops agent"), ("assistant", token))["m2"].category == "noise"


@pytest.mark.parametrize("said", ["✓", "See you tomorrow.", "OK, let's call it a night. See you tomorrow."])
def test_a_check_mark_and_a_goodnight_are_noise(said: str) -> None:
    assert verdicts(("assistant", "The draft is saved."), ("user", said))["m2"].category == "noise"


@pytest.mark.parametrize("said", ["Adopt this as your working rule: if a minor confirmation blocks you, ask in the ops channel.",
                                  "Treat this as a standing policy: confirm before deleting files.",
                                  "把这个作为你的工作规则：遇到小问题先在群里问。", "Toma esto como regla: pregunta en el canal de ops."])
def test_what_the_user_names_a_rule_is_a_standing_preference(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "preference"


@pytest.mark.parametrize("said", ["Is this a rule?", "这是规则吗？", "The rule says we can't deploy on Friday.", "rules: none yet",
                                  "Add this as a Gmail rule: billing emails go to Invoices",
                                  "Rule: each player draws two cards. Write a Python script to simulate it.",
                                  "Write a username validator.\nRule 1: 3 to 16 characters\nRule 2: only letters and digits",
                                  "这是规则：每人每轮摸两张牌。帮我写个 Python 小程序模拟一下。",
                                  "Toma esto como regla del juego: cada jugador roba dos cartas. Escribe un script."])
def test_a_rule_asked_about_quoted_or_of_something_else_sets_none(said: str) -> None:
    assert verdicts(("user", said))["m1"].category != "preference"


@pytest.mark.parametrize(("said", "category"), [("The staging bucket needs to be linked to the new project.", "task"),
                                                ("these files have to be removed", "task"),
                                                ("it didn't need to be restarted", "process"),
                                                ("No services need to be restarted.", "process"),
                                                ("I don't think it needs to be restarted.", "process"),
                                                ("The config doesn't have to be updated", "process")])
def test_work_said_as_what_something_needs_done_to_it(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


def test_the_users_do_i_need_to_do_anything_else_still_asks() -> None:
    """From the user, after the agent's steps, "还需要其他操作吗？" asks whether there is more for them to do."""
    v = verdicts(("assistant", "运行 openclaw gateway restart 即可。"), ("user", "还需要其他操作吗？"))
    assert v["m2"].category == "question"


@pytest.mark.parametrize("said", ["Still can't see the file you sent.", "还是没收到", "still nothing"])
def test_what_was_sent_still_not_there_undoes_the_report(said: str) -> None:
    v = verdicts(("user", "send me the report"), *exec_step("1"), ("assistant", "✅ Sent the report to your inbox."), ("user", said))
    assert (v["m1"].status, v["m4"].status) == ("current", "superseded")


@pytest.mark.parametrize(("said", "category"), [
    ("I don't want people to be able to reach the admin page through the game.", "preference"),
    ("I don't want anyone to see these logs.", "preference"), ("don't you want anyone to review it?", "question")])
def test_what_others_must_not_be_able_to_do_is_a_standing_constraint(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("said", "category"), [("请让机器人转一圈", "task"), ("让小车往左走两秒", "task"),
                                                ("让子代理把日志整理一下", "task"), ("请让我想想", "process"),
                                                ("能让它停下吗？", "question")])
def test_work_had_done_by_what_the_agent_drives_is_ordered(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


def test_a_persona_here_to_get_things_done_reports_nothing() -> None:
    """"I'm Elle, … here to get things done": the idiom closes no request."""
    v = verdicts(("user", "set up the nightly backup to the NAS"),
                 ("assistant", "I'm Elle, a practical assistant here to get things done. Which folders should it hold?"))
    assert v["m1"].status == "current"
