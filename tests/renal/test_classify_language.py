"""Recognition from the language of what the user says: standing instructions, facts to remember,
work asked for; and offers that ask nothing the user owes an answer to."""

from __future__ import annotations

import pytest
from support_classify import element, verdicts

from apollo.transcript.model import Kind


@pytest.mark.parametrize("text", [
    "don't use tts for now", "no no. don't update the config file, there is a queue file",
    "For the weekly digest you only need to remind me to read it", "Please be more proactive",
    "你不能自己猜测配置", "停止所有操作", "以后执行长任务的时候先写一个计划", "你需要维护一份配置说明",
])
def test_standing_instructions_are_preferences(text: str) -> None:
    v = verdicts(("assistant", "Done, the report is in your inbox."), ("user", text))
    assert v["m2"].category == "preference", v["m2"]


@pytest.mark.parametrize("text", [
    "My wife’s name is Ana", "my daughters name is Mia. My son is Leo", "I teach evening classes at the library",
    "Your name is Rex. Your vibe is calm.", "我叫小王，在银行工作",
])
def test_facts_to_remember_are_preferences(text: str) -> None:
    v = verdicts(("assistant", "Tell me about yourself."), ("user", text))
    assert v["m2"].category == "preference", v["m2"]


@pytest.mark.parametrize("text", ["don't worry about it", "I don't know", "my code is broken, why?"])
def test_what_only_looks_like_a_standing_rule_is_not_one(text: str) -> None:
    v = verdicts(("assistant", "The build failed on step 3."), ("user", text))
    assert v["m2"].category != "preference", v["m2"]


@pytest.mark.parametrize("text", ["follow the setup guide first", "switch back to the local model", "Need a buyer",
                                  "切换回本地模型", "如果没有这个插件就安装"])
def test_work_asked_for_is_a_task(text: str) -> None:
    v = verdicts(("assistant", "Ready."), ("user", text))
    assert v["m2"].category == "task", v["m2"]


def test_an_offer_is_not_an_open_question_but_a_yes_makes_it_a_decision() -> None:
    left = verdicts(("user", "import the invoices"), ("assistant", "Want me to import them into the March ledger?"))
    assert left["m2"].rule == "intent:offer" and left["m2"].category == "process"
    reported = verdicts(("user", "import the invoices"),
                        element("c1", "assistant", '{"file": "invoices.csv"}', Kind.TOOL_CALL, call_id="a",
                                tool_name="import"),
                        element("r1", "tool", "40 imported, 2 rejected", Kind.TOOL_RESULT, call_id="a",
                                tool_name="import"),
                        ("assistant", "Imported 40 of 42. Want me to retry the other two?"))
    assert reported["m4"].rule == "intent:outcome" and reported["m4"].category == "decision"
    taken = verdicts(("assistant", "Imported 40 of 42. Want me to retry the other two?"), ("user", "yes"))
    assert taken["m1"].category == "decision"
    asked = verdicts(("user", "import the invoices"), ("assistant", "Which currency should the totals use?"))
    assert asked["m2"].category == "question"


def test_a_fact_about_the_user_replaces_no_earlier_preference() -> None:
    """'actually' in a fact about oneself changes nothing said before: facts add to what is known."""
    v = verdicts(("assistant", "Tell me about yourself."),
                 ("user", "My wife’s name is Ana and we share a photo album of our road trips"),
                 ("assistant", "Nice!"),
                 ("user", "I teach evening classes, actually a new change to my regular life, "
                          "and my wife shares the road trip photo album with our friends"))
    assert v["m2"].category == "preference" and v["m2"].status == "current", v["m2"]
    assert v["m4"].category == "preference", v["m4"]


@pytest.mark.parametrize("text", [
    "如果切换不成功，你自然的就使用备用模型", "如果主库连接失败，就采用只读副本",
    "If the primary model fails, use the local one", "Whenever the primary is down, fall back to the backup",
])
def test_what_to_do_whenever_something_fails_is_a_standing_rule(text: str) -> None:
    v = verdicts(("assistant", "The switch to the new model failed."), ("user", text))
    assert v["m2"].category == "preference", v["m2"]


@pytest.mark.parametrize("text", ["如果没成功就算了", "If it fails, never mind", "如果下载失败了，原因是什么"])
def test_a_failure_with_no_rule_for_later_is_no_standing_rule(text: str) -> None:
    v = verdicts(("assistant", "The switch to the new model failed."), ("user", text))
    assert v["m2"].category != "preference", v["m2"]


@pytest.mark.parametrize("text", ["就用这些模型吧", "用 PostgreSQL", "那就用公司的账号"])
def test_a_choice_of_what_to_use_is_a_decision(text: str) -> None:
    v = verdicts(("assistant", "Which models do you have access to?"), ("user", text))
    assert v["m2"].category == "decision", v["m2"]


@pytest.mark.parametrize("text", ["可以用 PostgreSQL", "数据库可以用 PostgreSQL", "能用 PostgreSQL", "我们可以使用 PostgreSQL",
                                  "不能用 SQLite"])
def test_what_may_or_may_not_be_used_in_answer_to_a_choice_is_a_decision(text: str) -> None:
    """In answer to "SQLite or PostgreSQL?", what is possible is the choice, and 不能用 rules one out."""
    v = verdicts(("user", "给记账应用加个数据库"), ("assistant", "数据库用 SQLite 还是 PostgreSQL？"), ("user", text))
    assert (v["m3"].category, v["m3"].status) == ("decision", "current"), v["m3"]


def test_you_can_use_after_a_complaint_is_what_to_do() -> None:
    v = verdicts(("user", "这个 Bash 脚本处理日志太慢了"), ("assistant", "是的，Bash 逐行处理大文件很慢。"),
                 ("user", "你可以用 Python 重写这个脚本"))
    assert v["m3"].category in ("decision", "task") and v["m3"].status == "current", v["m3"]


@pytest.mark.parametrize("text", ["如果这次下载失败，就使用清华的镜像再下一次", "If the download fails this time, use the Tsinghua mirror"])
def test_what_to_do_if_this_one_attempt_fails_is_no_standing_rule_but_still_a_decision(text: str) -> None:
    v = verdicts(("assistant", "开始下载模型。"), ("user", text))
    assert (v["m2"].category, v["m2"].status) == ("decision", "current"), v["m2"]


@pytest.mark.parametrize("text", [
    "增量备份正常。让我验证状态文件和确认导入函数是否已真正实现：",
    "表格已有数据。现在让我解析现有行数，然后检查是否需要追加新数据。",
    "我先看看日志里有没有报错。",
])
def test_the_agents_next_check_of_whether_something_holds_asks_the_user_nothing(text: str) -> None:
    """"让我检查是否需要追加" says what the agent is about to find out, with no question mark: an
    indirect question it puts to itself, not an open question for the user."""
    v = verdicts(("user", "把工作区的文件备份到云文档表格"), ("assistant", text))
    assert v["m2"].category != "question", v["m2"]


@pytest.mark.parametrize("text", ["部署之后页面是否正常显示？", "你确认过端口是否开放了吗？", "你能检查一下服务是否正常吗"])
def test_asking_the_user_whether_to_check_is_still_a_question(text: str) -> None:
    v = verdicts(("user", "把工作区的文件备份到云文档表格"), ("assistant", text))
    assert v["m2"].category == "question", v["m2"]


@pytest.mark.parametrize("text", ["你好！有什么需要帮忙的吗？", "好的。还有什么想问的吗？",
                                  "我现在用的是 GLM-5 模型。\n\n你有什么想问的吗？"])
def test_a_generic_offer_of_help_is_no_open_question(text: str) -> None:
    v = verdicts(("user", "你好"), ("assistant", text))
    assert v["m2"].category != "question", v["m2"]


@pytest.mark.parametrize(("text", "category"), [
    ("Research swing trades. Focus on: 1. entry points 2. exits: when to take profits, stop loss placement",
     "task"),
    ("stop the staging server", "task"),
    ("stop sending me the daily report", "preference"),
])
def test_stop_is_a_standing_rule_only_for_a_habit_to_drop(text: str, category: str) -> None:
    """"stop doing X" drops a habit; "stop loss" is a noun and "stop the server" one action."""
    v = verdicts(("assistant", "Ready."), ("user", text))
    assert v["m2"].category == category, v["m2"]


@pytest.mark.parametrize(("text", "category"), [
    ("研究日志已经很完整了。让我验证当前资源状态并更新最终结论。", "process"),
    ("讨论完了。结论：就用 PostgreSQL，不用 MySQL。", "decision"),
    ("最终结论是继续用 PostgreSQL。", "decision"),
])
def test_a_conclusion_is_a_decision_when_it_is_stated_not_named(text: str, category: str) -> None:
    v = verdicts(("user", "数据库用哪个？"), ("assistant", text))
    assert v["m2"].category == category, v["m2"]


def test_a_check_named_inside_a_statement_leaves_the_offer_after_it_open() -> None:
    text = ("我刚才犯了一个错误：不应该直接安装插件，而应该先确认配置中是否真的需要它们。已记录到 MEMORY.md。"
            "需要我帮你重启 Gateway 吗？")
    v = verdicts(("user", "日志里为什么有插件警告"), ("assistant", text))
    assert v["m2"].category == "question", v["m2"]


@pytest.mark.parametrize(("text", "decides"), [
    ("这是微信官方推出的插件，让你在微信聊天里直接调用AI执行自动化任务。", False),
    ("备用方案里的服务器专用于测试", False),
    ("🛠️ 安装与启用步骤", False),
    ("数据库用 PostgreSQL", True),
])
def test_a_word_that_only_contains_use_makes_no_choice(text: str, decides: bool) -> None:
    """调用 (invoke), 备用 (spare), 专用 (dedicated), 启用 (enable) are not 用, the verb of a choice."""
    v = verdicts(("assistant", "你想怎么做？"), ("user", text))
    assert (v["m2"].category == "decision") == decides, v["m2"]


@pytest.mark.parametrize(("text", "category"), [("装上", "task"), ("删掉吧", "task"), ("关掉", "task"),
                                                ("装上了", "process"), ("删掉了", "process")])
def test_a_verb_and_its_result_alone_is_an_order(text: str, category: str) -> None:
    """"装上" (install it) after the agent explained a plugin is work asked for; "装上了" reports."""
    v = verdicts(("assistant", "这是插件的说明：用于连接微信和 OpenClaw。"), ("user", text))
    assert v["m2"].category == category, v["m2"]
