"""Recognition from the structure of a turn: what the agent reports, narrates or still asks."""

from __future__ import annotations

from support_classify import element, verdicts

from apollo.transcript.model import Kind


def _call(element_id: str, call_id: str) -> object:
    return element(element_id, "assistant", '{"command": "crontab -l"}', Kind.TOOL_CALL, call_id=call_id,
                   tool_name="exec")


def _result(element_id: str, call_id: str) -> object:
    return element(element_id, "tool", "0 2 * * * /home/me/bin/backup.sh", Kind.TOOL_RESULT, call_id=call_id,
                   tool_name="exec")


def test_a_step_reported_while_the_agent_goes_on_working_is_narration_not_an_outcome() -> None:
    v = verdicts(("user", "Set up a nightly backup of the photos folder."),
                 ("assistant", "Done! Created the backup script. Now let me register it with cron:"),
                 _call("c1", "a"), _result("r1", "a"),
                 ("assistant", "Done. The nightly backup now runs at 02:00 and keeps seven copies."))
    assert v["m2"].category == "process" and v["m2"].rule == "process:narration"
    assert v["m5"].category == "decision"


def test_zh_a_step_then_a_tool_call_is_narration() -> None:
    v = verdicts(("user", "帮我把日志轮转脚本配置好"),
                 ("assistant", "脚本已创建完成！现在让我注册定时任务："), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", "搞定！日志轮转任务已配置，每周日凌晨执行，保留 30 天。"))
    assert v["m2"].category == "process"
    assert v["m5"].category == "decision"


def test_a_report_that_asks_is_an_open_question_until_answered_then_the_outcome_stands() -> None:
    asked = ("assistant", "Done. I created the quarterly report. Which team should receive it, finance or sales?")
    v = verdicts(("user", "Create the quarterly report."), asked)
    assert v["m2"].category == "question" and v["m2"].status == "current"
    v = verdicts(("user", "Create the quarterly report."), asked,
                 ("user", "No, keep it local for now, I will send it myself after the review."))
    assert v["m2"].category == "decision" and v["m2"].status == "answered"
