"""Forms met in OpenClaw sessions of owners the rules were never tuned on (sentences invented here,
none quoted): the twenty-fourth round (what closes a request)."""

from __future__ import annotations

from support_classify import element, verdicts

from apollo.transcript.model import Kind


def _tool(call_id: str) -> tuple:
    return (element(f"c{call_id}", "assistant", f'{{"command":"step {call_id}"}}', Kind.TOOL_CALL, call_id=call_id,
                    tool_name="exec"),
            element(f"r{call_id}", "tool", f"ok {call_id}", Kind.TOOL_RESULT, call_id=call_id, tool_name="exec"))


def _moved_on(report: str) -> dict:
    """A request left undone, two other requests of the user's since, then a report of work."""
    return verdicts(("user", "Set my fallback model to the local Gemma."),
                    ("assistant", "That needs the admin password, which I don't have."),
                    ("user", "Remind me to water the plants at 6pm."), *_tool("1"), ("assistant", "Reminder set for 6pm."),
                    ("user", "What's the news today?"), *_tool("2"), ("assistant", report))


def test_a_report_sharing_one_word_with_a_request_the_user_moved_on_from_leaves_it_open() -> None:
    """A long digest that mentions "a new model" is no report on "set my fallback model to Gemma"."""
    v = _moved_on("Done, here is today's digest: Mistral shipped a new model, and chip export rules were tightened.")
    assert (v["m1"].category, v["m1"].status) == ("task", "current")


def test_a_report_naming_the_request_closes_it_however_old() -> None:
    v = _moved_on("Done: the fallback model is now the local Gemma, and the news digest is in your inbox.")
    assert (v["m1"].status, v["m1"].rule) == ("done", "resolve:done")


def test_one_shared_word_still_closes_the_request_the_user_is_on() -> None:
    v = verdicts(("user", "Set my fallback model to the local Gemma."), *_tool("1"), ("assistant", "Done, the model is switched."))
    assert v["m1"].status == "done"


def test_answers_to_the_agents_questions_are_no_moving_on() -> None:
    """"删掉旧日志" → "只删 30 天前的吗？" → "是的" → "要先备份吗？" → "不用": the user answered, and is still on the request."""
    v = verdicts(("user", "把旧日志删掉"), ("assistant", "只删 30 天前的吗？"), ("user", "是的"),
                 ("assistant", "要先备份吗？"), ("user", "不用"), *_tool("1"), ("assistant", "已删除 12 个日志文件。"))
    assert v["m1"].status == "done"
