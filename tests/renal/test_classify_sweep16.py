"""Forms met in Chinese OpenClaw sessions of owners the rules were never tuned on (sentences invented here,
none quoted): what a memory plugin and the QQ bot channel plugin put before every user message."""

from __future__ import annotations

from pathlib import Path

import pytest
from support_classify import session_verdicts

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
