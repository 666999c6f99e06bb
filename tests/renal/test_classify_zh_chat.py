"""What Chinese users write to their agent in a chat channel, shaped like unlabelled real Feishu
sessions: a habit to drop or a manner for every later time is a standing rule, a redo is work asked
for, a question about oneself is no fact about oneself."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support_classify import verdicts

_OK = ("assistant", "好的。")


@pytest.mark.parametrize("said", ["你来安装啊，别老是让主人干活啊", "不要总是问我要不要继续", "别动不动就重启网关",
                                  "你算的时候全面一点", "您写报告时仔细一些"])
def test_a_habit_to_drop_or_a_manner_for_every_time_is_a_standing_rule(said: str) -> None:
    assert verdicts(("user", said), _OK)["m1"].category == "preference"


@pytest.mark.parametrize("said", ["不要总结了", "别老师长老师短的"])
def test_a_word_that_only_contains_the_marker_is_no_habit_rule(said: str) -> None:
    assert verdicts(("user", said), _OK)["m1"].rule != "intent:preference"


@pytest.mark.parametrize("said", ["晨间投研报告参考 MORNING_TEMPLATE.md，重新做", "重新发晨报"])
def test_a_redo_is_work_asked_for(said: str) -> None:
    assert verdicts(("user", said), ("assistant", "收到，马上处理。"))["m1"].category == "task"


def test_a_redo_reported_done_is_no_new_work() -> None:
    assert verdicts(("user", "我重新做了一遍"), _OK)["m1"].category != "task"


@pytest.mark.parametrize("said", ["他别老是迟到就好了", "我妈总是说别老是玩手机，烦死了",
                                  "不要一直盯着屏幕看，对眼睛不好，这是医生说的", "吃饭的时候小心一点，别噎着",
                                  "过马路时小心一些", "开车的时候小心一点"])
def test_a_habit_or_a_care_not_said_to_the_agent_is_no_standing_rule(said: str) -> None:
    """Someone else's habit, a parent's words reported, a doctor's advice, care wished to anyone: the
    agent is not the one addressed."""
    assert verdicts(("user", said), _OK)["m1"].rule != "intent:preference"


def test_a_question_about_a_habit_is_no_standing_rule() -> None:
    assert verdicts(("user", "小孩不能一直哭吧？"), ("assistant", "不会的。"))["m1"].rule != "intent:preference"


@pytest.mark.parametrize("said", ["他重新做人了", "重新登录后还是报错", "我重新装了以后还是不行"])
def test_a_redo_someone_did_or_what_came_after_it_is_no_work_asked_for(said: str) -> None:
    assert verdicts(("user", said), _OK)["m1"].category != "task"


@pytest.mark.parametrize("said", ["我在飞书中如何找到自己的机器人", "我是不是要先登录才能用的", "我在哪里能看到自己的 ID"])
def test_a_question_about_oneself_is_no_fact_about_oneself(said: str) -> None:
    assert verdicts(("user", said), ("assistant", "在设置页里。"))["m1"].rule != "intent:profile"


def test_a_fact_about_oneself_stays_one() -> None:
    assert verdicts(("user", "我是做运维的"), _OK)["m1"].rule == "intent:profile"


@settings(max_examples=60, deadline=None)
@given(place=st.text(alphabet="飞书群聊公司家里电脑上微信中", min_size=1, max_size=6),
       how=st.sampled_from(["如何", "怎么", "怎样", "在哪", "为什么"]),
       rest=st.text(alphabet="找到自己的机器人设置工作", min_size=1, max_size=6))
def test_property_a_how_question_about_oneself_is_never_a_profile(place: str, how: str, rest: str) -> None:
    said = f"我在{place}{how}{rest}的"
    assert verdicts(("user", said), _OK)["m1"].rule != "intent:profile"


def test_a_standing_order_with_a_question_after_it_stays_open_once_the_question_is_answered() -> None:
    """A group owner sets a daily job and asks the bots whether they need more: the reply answers the
    question, it does not carry the job out."""
    v = verdicts(("user", "每天监督 给小王算当日运势，她是1998年1月11日出生。算完了以后，你负责在德国时间早上八点发给她，"
                          "邮箱是 a@example.com。还需要什么信息吗？"),
                 ("assistant", "好的，我来安排这个每日任务！需要她的出生时辰吗？"))
    assert (v["m1"].category, v["m1"].status) == ("task", "current")


@pytest.mark.parametrize(("said", "answer"), [
    ("查一下每天早上几点有公交？", "6:30 首班。"), ("查一下以后的天气怎么样？", "未来三天都是晴天。"),
    ("Look up what time the bus leaves every morning?", "The bus leaves at 7:15 every morning."),
    ("Tell me what I should eat every morning?", "Oatmeal and fruit are a good start.")])
def test_a_question_about_a_recurrence_is_settled_by_its_answer(said: str, answer: str) -> None:
    """The recurrence is what it asks about, not an order that stands: the answer settles it."""
    v = verdicts(("user", said), ("assistant", answer))
    assert (v["m1"].category, v["m1"].status) != ("task", "current")


def test_a_one_off_request_with_a_question_is_settled_by_its_answer() -> None:
    v = verdicts(("user", "帮我查一下明天的天气，会下雨吗？"), ("assistant", "明天多云，不会下雨。"))
    assert v["m1"].category != "task" or v["m1"].status != "current"


@pytest.mark.parametrize("said", ["让梁文峰分析动量指标", "你再让袁天罡完成之前的任务，完成以后翔宇审核"])
def test_work_handed_to_another_agent_through_this_one_is_a_task(said: str) -> None:
    assert verdicts(("user", said), ("assistant", "收到，已转达。"))["m1"].category == "task"


@pytest.mark.parametrize("said", ["让ChatGPT写了一个脚本，结果跑不起来", "让人分析了半天也没结果", "让老婆去检查身体了，明天出结果",
                                  "让孩子做作业真难", "让他做什么他都不听，气死我了"])
def test_what_someone_was_made_to_do_or_a_complaint_about_it_is_no_task(said: str) -> None:
    assert verdicts(("user", said), _OK)["m1"].category != "task"


def test_the_speakers_own_step_is_no_task() -> None:
    assert verdicts(("user", "让我想想再说"), _OK)["m1"].category != "task"


@pytest.mark.parametrize("said", ["高翻起来以后，碰到小臂外侧有点疼咋整", "吃完饭以后，胃有点不舒服", "他走了以后，我一直没睡着",
                                  "提交申请以后，服务就挂了", "从那以后，他再也没来过", "这样以后，内存占用降了一半"])
def test_after_an_event_is_no_from_now_on(said: str) -> None:
    # "X以后，…" says when something happened (after the lift, after dinner), not how things are to be from now on
    assert verdicts(("user", said), _OK)["m1"].category != "preference"


@pytest.mark.parametrize("said", ["以后，回复都用中文", "以后都用中文回复", "我们以后统一用 pnpm", "从此以后，叫我老王",
                                  "我希望以后，回答简短一点", "那以后，提交信息都写英文", "打今儿以后，叫我老王"])
def test_from_now_on_is_still_a_standing_rule(said: str) -> None:
    assert verdicts(("user", said), _OK)["m1"].category == "preference"
