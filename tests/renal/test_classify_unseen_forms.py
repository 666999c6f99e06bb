"""Forms met in the sessions of owners the rules were never tuned on (invented sentences of the same
shapes): a Chinese report of work that still does not work, a chat group's purpose narrowed by 仅/只,
a wish for help with one piece of work, and a question the agent answers after first deferring it."""

from __future__ import annotations

import pytest
from support_classify import element, verdicts

from apollo.transcript.model import Kind


def _call(element_id: str, call_id: str) -> object:
    return element(element_id, "assistant", '{"command": "systemctl status web"}', Kind.TOOL_CALL, call_id=call_id,
                   tool_name="exec")


def _result(element_id: str, call_id: str) -> object:
    return element(element_id, "tool", "active (running)", Kind.TOOL_RESULT, call_id=call_id, tool_name="exec")


@pytest.mark.parametrize("report", [
    "已部署，但是网站还不能用。",
    "已部署。网站还是打不开。",
    "配置已更新，不过页面仍然没有生效。",
    "已重启服务，可是后台依旧登不上。",
    "已部署，但是还有两个页面打不开。",
])
def test_a_chinese_report_that_the_work_still_does_not_work_leaves_the_task_open(report: str) -> None:
    v = verdicts(("user", "把网站部署到新服务器上"), _call("c1", "a"), _result("r1", "a"), ("assistant", report))
    assert (v["m1"].category, v["m1"].status) == ("task", "current"), v["m1"]
    assert v["m4"].rule != "intent:outcome", v["m4"]


@pytest.mark.parametrize("report", [
    "已部署 ✅ 网站可以正常访问了。",
    # a condition, what was before, what is gone on purpose, a feature: no "still not working"
    "已部署。如果还是打不开，清一下浏览器缓存就好。",
    "已部署。之前打不开是因为防火墙没放行端口。",
    "已部署，旧版本已经不能用了。",
    "已部署，还配置了 nginx，不显示调试信息。",
])
def test_a_chinese_report_of_work_done_with_a_note_closes_the_task(report: str) -> None:
    v = verdicts(("user", "把网站部署到新服务器上"), _call("c1", "a"), _result("r1", "a"), ("assistant", report))
    assert (v["m1"].category, v["m1"].status) == ("task", "done"), v["m1"]


@pytest.mark.parametrize(("said", "category"), [
    ("本群仅用于讨论部署问题", "preference"),
    ("这个群只是用来发通知的", "preference"),
    ("本频道主要用于发布版本更新", "preference"),
    ("本群供大家交流光伏技术", "preference"),
])
def test_a_groups_purpose_narrowed_by_only_or_mainly_is_a_standing_fact(said: str, category: str) -> None:
    v = verdicts(("assistant", "大家好，我是新来的助手。"), ("user", said))
    assert v["m2"].category == category, v["m2"]


@pytest.mark.parametrize("said", ["本群仅用于明天的会议", "本群仅用于讨论什么？", "这个群只有三个人"])
def test_one_event_a_question_or_a_head_count_is_no_groups_purpose(said: str) -> None:
    v = verdicts(("assistant", "大家好，我是新来的助手。"), ("user", said))
    assert v["m2"].category != "preference", v["m2"]


@pytest.mark.parametrize("said", ["我希望你能够帮我实现这个功能", "我希望你帮我写一个备份脚本", "我希望您替我订一张明天的票"])
def test_a_wish_for_help_with_one_piece_of_work_is_a_request_not_a_preference(said: str) -> None:
    v = verdicts(("assistant", "有什么需要？"), ("user", said))
    assert v["m2"].category == "task", v["m2"]


@pytest.mark.parametrize("said", ["我希望你回答简洁一点", "我希望你以后主动提醒我", "我希望您说话直接一些"])
def test_a_wish_for_how_the_agent_works_stays_a_preference(said: str) -> None:
    v = verdicts(("assistant", "有什么需要？"), ("user", said))
    assert v["m2"].category == "preference", v["m2"]


@pytest.mark.parametrize(("question", "defer", "answer"), [
    ("Is the spare box in the cluster yet?", "I don't know yet, checking the member list.",
     "Only two hosts are listed; the third one is missing."),
    ("备用服务器现在在不在集群里？", "还不确定，我查一下成员列表。", "目前列表里只有两台主机，没看到第三台。"),
])
def test_a_question_the_agent_defers_then_answers_after_its_work_is_answered(question: str, defer: str,
                                                                            answer: str) -> None:
    v = verdicts(("user", question), ("assistant", defer), _call("c1", "a"), _result("r1", "a"), ("assistant", answer))
    assert (v["m1"].category, v["m1"].status) == ("process", "answered"), v["m1"]


@pytest.mark.parametrize("between", ["Also, what time is the standup tomorrow?", "ok thanks"])
def test_a_deferred_question_is_not_answered_once_the_asker_has_spoken_again(between: str) -> None:
    """The deferral holds within the agent's turn: after the user's next message (a new question, a bare
    "ok thanks"), what the agent says is no longer the answer to the deferred one."""
    v = verdicts(("user", "Which pool size should production use?"), ("assistant", "I don't know yet, I'll measure "
                 "it under load before proposing a number."), ("user", between), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", "The migration tests pass."))
    assert (v["m1"].category, v["m1"].status) == ("question", "current"), v["m1"]


@pytest.mark.parametrize("said", ["你使用的是哪个模型", "你叫什么", "这是什么东西", "现在负责部署的是谁"])
def test_a_chinese_question_without_its_question_mark_is_a_question(said: str) -> None:
    """Not a choice ("…用的是…") nor the agent's name being set ("你叫…"): it asks."""
    v = verdicts(("assistant", "你好，有什么需要？"), ("user", said))
    assert v["m2"].category == "question", v["m2"]


@pytest.mark.parametrize(("said", "category"), [("没什么", "process"), ("随便什么都行", "process"),
                                                ("你叫小Q", "preference"), ("用 PostgreSQL 吧", "decision")])
def test_an_indefinite_a_name_given_or_a_choice_is_no_question(said: str, category: str) -> None:
    v = verdicts(("assistant", "你好，有什么需要？"), ("user", said))
    assert v["m2"].category == category, v["m2"]


@pytest.mark.parametrize("reply", ["我是运维助手，负责服务器和部署。\n\n有什么可以帮到你的？",
                                   "I can't switch to the larger model myself; the setting needs an administrator. "
                                   "What is next on your list?"])
def test_a_reply_ending_on_a_generic_offer_leaves_no_question_and_decides_nothing(reply: str) -> None:
    v = verdicts(("user", "介绍一下你自己"), ("assistant", reply))
    assert (v["m2"].category, v["m2"].rule) == ("process", "intent:open_offer"), v["m2"]


@pytest.mark.parametrize("reply", ["部署好了。要用 SQLite 还是 PostgreSQL？", "Which port should the API listen on?"])
def test_a_specific_question_at_the_end_stays_open(reply: str) -> None:
    v = verdicts(("user", "介绍一下你自己"), ("assistant", reply))
    assert (v["m2"].category, v["m2"].status) == ("question", "current"), v["m2"]


@pytest.mark.parametrize("reply", ["用户名已更新为 ops-admin ✅", "用户组说明已写入 README ✅"])
def test_a_report_about_a_user_name_or_group_is_no_leaked_reasoning(reply: str) -> None:
    v = verdicts(("user", "把用户名改成 ops-admin"), _call("c1", "a"), _result("r1", "a"), ("assistant", reply))
    assert v["m4"].rule != "process:leaked_reasoning", v["m4"]
