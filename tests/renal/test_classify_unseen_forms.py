"""Forms met in the sessions of owners the rules were never tuned on (invented sentences of the same
shapes): a Chinese report of work done with a note, a chat group's purpose narrowed by 仅/只, an
indefinite that asks nothing, and leaked reasoning that is a report about a user name."""

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


@pytest.mark.parametrize(("said", "category"), [("没什么", "process"), ("随便什么都行", "process"),
                                                ("你叫小Q", "preference"), ("用 PostgreSQL 吧", "decision")])
def test_an_indefinite_a_name_given_or_a_choice_is_no_question(said: str, category: str) -> None:
    v = verdicts(("assistant", "你好，有什么需要？"), ("user", said))
    assert v["m2"].category == category, v["m2"]


@pytest.mark.parametrize("reply", ["部署好了。要用 SQLite 还是 PostgreSQL？", "Which port should the API listen on?"])
def test_a_specific_question_at_the_end_stays_open(reply: str) -> None:
    v = verdicts(("user", "介绍一下你自己"), ("assistant", reply))
    assert (v["m2"].category, v["m2"].status) == ("question", "current"), v["m2"]


@pytest.mark.parametrize("reply", ["用户名已更新为 ops-admin ✅", "用户组说明已写入 README ✅"])
def test_a_report_about_a_user_name_or_group_is_no_leaked_reasoning(reply: str) -> None:
    v = verdicts(("user", "把用户名改成 ops-admin"), _call("c1", "a"), _result("r1", "a"), ("assistant", reply))
    assert v["m4"].rule != "process:leaked_reasoning", v["m4"]


@pytest.mark.parametrize("said", ["让我查看 MEMORY.md 末尾，决定如何添加这次的总结", "你先看看日志，再决定是否重启网关",
                                  "这个我还没决定，明天再说", "还没有决定", "我决定不了",
                                  "决定如何处理了解到的问题"])
def test_a_decision_still_to_make_is_no_decision(said: str) -> None:
    # 决定 with what is to be decided (如何, 是否, 哪…) or not made yet (还没决定) decides nothing
    assert verdicts(("user", said), ("assistant", "好的。"))["m1"].category != "decision"


@pytest.mark.parametrize("said", ["我决定用 PostgreSQL 做主库", "我们决定了，下周一上线", "我们决定哪天上线了：周一",
                                  "我决定哪怕加班也要周五上线", "决定如何部署了：K8s",
                                  "我决定什么都不改", "我们决定是否上线：上"])
def test_a_decision_made_is_still_one(said: str) -> None:
    assert verdicts(("user", said), ("assistant", "好的。"))["m1"].category == "decision"
