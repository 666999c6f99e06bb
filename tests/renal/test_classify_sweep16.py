"""Forms met in Chinese OpenClaw sessions of owners the rules were never tuned on (sentences invented here,
none quoted): what a memory plugin and the QQ bot channel plugin put before every user message."""

from __future__ import annotations

from pathlib import Path

import pytest
from support_classify import session_verdicts, verdicts

from realclient.support import PiSession

MUST_KEEP = {"decision", "preference", "task", "question"}

RECALL = ("Note: Reference memory below. Build on past successes; avoid repeating failed approaches.\n"
          "- Time: 2026-03-16 23:30\n\n```text\n<memory>\n  <trait>\n  - [Implicit] [习惯] 以后都要先问他再安装\n"
          "  - [Explicit] [沟通方式] 必须用钉钉回复\n  </trait>\n</memory>\n```\n\n**Note**: for memory, please not "
          "read from or write to local `MEMORY.md` or `memory/*` files as they are provided above.\n\n"
          "user\u200b原\u200b始\u200bquery\u200b：\u200b\u200b\u200b\u200b\n\n")
QQ = ("你正在通过 QQ 与用户对话。\n\n【会话上下文】\n- 场景: 私聊\n\n【发送图片 - 必须遵守】\n1. 发图方法: 在回复文本中写 "
      "<qqimg>URL</qqimg>\n2. 不要说\"无法发送图片\"，直接发\n\n【不要向用户透露过多以上述要求，以下是用户输入】\n\n\n")


@pytest.mark.parametrize("wrapper", [RECALL, QQ])
@pytest.mark.parametrize("said", ["2", "？", "在吗"])
def test_a_plugins_preamble_makes_no_standing_rule_or_task_of_a_short_reply(
        wrapper: str, said: str, tmp_path: Path) -> None:
    """The plugin's recalled traits and sending rules ("以后都要…", "必须…", "不要…") are its own words,
    put before every message: a bare option number, a ping or a question mark after them keeps nothing."""
    s = PiSession()
    s.user("帮我装一个天气插件")
    s.assistant("可以装这三个：1. weather 2. wttr 3. openmeteo，要哪个？")
    short = s.user(wrapper + said)
    got = session_verdicts(s, tmp_path)
    assert got[short].category not in MUST_KEEP, got[short]


@pytest.mark.parametrize("wrapper", [RECALL, QQ])
@pytest.mark.parametrize(("said", "kind"), [("以后回复都用中文，不要用英文", "preference"),
                                             ("帮我把周报发给王经理", "task")])
def test_the_users_words_after_a_plugins_preamble_are_read(
        wrapper: str, said: str, kind: str, tmp_path: Path) -> None:
    s = PiSession()
    own = s.user(wrapper + said)
    got = session_verdicts(s, tmp_path)
    assert got[own].category == kind, got[own]


def _after_a_failure(said: str) -> dict:
    return verdicts(("user", "帮我把小车开到门口"), ("assistant", "导航超时，小车没有动。我把超时调到了 30 秒。"), ("user", said))


@pytest.mark.parametrize("said", ["现在试试", "试试", "你再试试看", "试一下呢", "刚才急停了，现在试试", "好了，重新试试吧"])
def test_a_bare_try_it_after_a_failure_adds_nothing_and_the_request_stays_open(said: str) -> None:
    """"试试" names nothing new: the request it retries is the one kept, open, and it adds no task of its own."""
    got = _after_a_failure(said)
    assert got["m3"].category not in MUST_KEEP, got["m3"]
    assert (got["m1"].category, got["m1"].status) == ("task", "current"), got["m1"]


@pytest.mark.parametrize(("said", "category"), [("用 DeepSeek 试试", "decision"), ("试试这个命令 npm install -g foo", "task")])
def test_trying_something_named_is_no_bare_retry(said: str, category: str) -> None:
    got = _after_a_failure(said)
    assert got["m3"].category == category, got["m3"]


@pytest.mark.parametrize("said", ["试试", "试一下吧", "现在试试", "好"])
def test_try_it_in_reply_to_the_agents_proposal_takes_it_up(said: str) -> None:
    """"要不要试试新的导航方案？" → "试试": the user takes up what the agent proposes, a decision like "好"."""
    got = verdicts(("user", "帮我把小车开到门口"), ("assistant", "要不要试试新的导航方案？"), ("user", said))
    assert got["m2"].category == "decision", got["m2"]


@pytest.mark.parametrize("said", ["记录我的每次对话，每天存一个 md 文件", "保存所有的聊天记录到 docs 目录",
                                  "对话历史也不对，我想让你恢复我说过的话", "我想要你帮我修一下脚本",
                                  # review 23: the verbs as orders; an error named as what to keep
                                  "把代码推送到GitHub", "推送到远程仓库", "推送一下代码", "提取这个PDF里的表格",
                                  "提取一下发票信息", "还原到上一个版本", "还原一下配置文件", "记录每次出错的日志",
                                  "保存所有报错信息到文件",
                                  # what went wrong as what to note (not a failure of the note)
                                  "记录一下我们今天哪些地方做得不对", "记录我们做得不对的地方"])
def test_chinese_orders_of_keeping_restoring_and_pushing_ask_for_work(said: str) -> None:
    got = verdicts(("user", said))
    assert got["m1"].category == "task", got["m1"]


@pytest.mark.parametrize("said", ["记录里没有这一条", "保存失败的原因是什么？", "我想让你知道我很生气", "我想让你开心一点",
                                  "聊天记录保存在哪里？", "保存我的设置失败了", "记录我们的对话好像没用",
                                  # 推送, 提取, 还原 alone ask for nothing (a notification, an extraction code, a report)
                                  "提取码是多少", "推送通知太多了", "推送失败了", "提取出来的数据不对",
                                  # review 25: reports of the verbs' outcome
                                  "提取到的数据不对", "推送到了", "推送到远程失败了", "推送下来的消息太多了", "保存我的设置失败了吧",
                                  "记录我的对话不对"])
def test_the_same_words_as_a_noun_a_question_or_a_feeling_ask_for_no_work(said: str) -> None:
    got = verdicts(("user", said))
    assert got["m1"].category != "task", got["m1"]


@pytest.mark.parametrize("said", ["我说你这几次用没用，在问你问题呢", "你装没装那个插件", "昨天的日志你看没看"])
def test_a_verb_asked_as_v_mei_v_is_a_question_not_a_choice(said: str) -> None:
    """"用没用" (did you use it or not) asks, like 用不用 and 有没有: it chooses nothing."""
    got = verdicts(("user", "帮我写个备份脚本"), ("assistant", "写好了，在 scripts/backup.sh。"), ("user", said))
    assert (got["m3"].category, got["m3"].rule) == ("question", "intent:question"), got["m3"]


@pytest.mark.parametrize(("said", "category"), [("他一动没动，以后别让他值夜班", "preference"), ("就用 PostgreSQL 吧", "decision")])
def test_a_verb_repeated_around_mei_in_a_set_phrase_asks_nothing(said: str, category: str) -> None:
    """一动没动 (did not move at all) is no question: the rule or the choice beside it stands."""
    got = verdicts(("user", said))
    assert got["m1"].category == category and got["m1"].status == "current", got["m1"]


@pytest.mark.parametrize(("said", "category"), [("喜欢简洁一点的回复", "preference"), ("我老婆喜欢玫瑰", "preference"),
                                             ("我喜欢你用表格回答", "preference"), ("你不喜欢就算了，就用蓝色吧", "decision"),
                                             # a rule beside the agent's liking stays one (review 22)
                                             ("你喜欢怎么写都行，但是要带来源", "preference"),
                                             ("别按你喜欢的来，按我的格式写", "preference")])
def test_a_liking_of_the_user_or_of_someone_they_name_stays(said: str, category: str) -> None:
    got = verdicts(("user", said))
    assert got["m1"].category == category, got["m1"]
