"""Forms met in OpenClaw sessions of owners the rules were never tuned on (sentences invented here,
none quoted): the twenty-fifth round (generic follow-up questions, situation reports, ordinal picks, bare
Chinese orders)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support_classify import exec_step, verdicts

from apollo import config
from apollo.errors import ConfigError
from apollo.renal.classify import Classifier


@pytest.mark.parametrize("report", [
    "Added three roles to the roster and created their files. What shall we drill next?",
    "All three bots are live. Any other questions?",
    "Configured the nightly backup for 23:00. What should we look at next?",
])
def test_a_report_ending_in_a_generic_next_step_question_is_the_outcome_not_an_open_question(report: str) -> None:
    """"What shall we do next?" asks the user nothing specific: the report is the state the work rests on (a decision),
    not a question that stays open until the user answers it."""
    v = verdicts(("user", "set up the roster and the bots"), *exec_step("1"), ("assistant", report))
    assert (v["m4"].category, v["m4"].status, v["m4"].rule) == ("decision", "current", "intent:outcome")


def test_a_report_ending_in_a_specific_question_stays_open_until_answered() -> None:
    v = verdicts(("user", "set up the roster"), *exec_step("1"),
                 ("assistant", "Added three roles to the roster. Should the reviewer role get write access?"))
    assert (v["m4"].category, v["m4"].status) == ("question", "current")


@pytest.mark.parametrize("reply", ["Ready to help. What are we building today?", "Paris. Would you like more details?"])
def test_a_generic_invitation_is_no_open_question(reply: str) -> None:
    v = verdicts(("user", "hi, what is the capital of France?"), ("assistant", reply))
    assert v["m2"].category != "question"


@pytest.mark.parametrize("opening", ["Here is the situation:", "Here is the current state:", "Here is the status:"])
def test_a_situation_laid_out_before_acting_closes_no_request(opening: str) -> None:
    """"Here is the situation: … Plan: … Should I proceed?" hands nothing over: the merge asked for is still to do."""
    v = verdicts(("user", "merge the two config directories into one"), *exec_step("1"),
                 ("assistant", f"{opening} two folders, old configs in the second. Plan: back up, then merge. "
                               "Should I proceed?"))
    assert (v["m1"].category, v["m1"].status) == ("task", "current")


def test_a_list_handed_over_still_answers_the_request() -> None:
    v = verdicts(("user", "list the open invoices"), *exec_step("1"), ("assistant", "Here are the open invoices: #12 and #14."))
    assert v["m1"].status == "answered"


@pytest.mark.parametrize("pick", ["the second one then", "Let's go with the first option", "I'll take the last one",
                                  "3rd option please"])
def test_an_option_picked_by_its_ordinal_is_a_decision(pick: str) -> None:
    v = verdicts(("user", "make a logo"), ("assistant", "Which style: 1) minimal 2) playful 3) retro?"), ("user", pick))
    assert v["m3"].category == "decision"


@pytest.mark.parametrize("said", ["the second one is broken", "the first option was too slow, why?"])
def test_an_ordinal_that_picks_nothing_is_no_decision(said: str) -> None:
    v = verdicts(("user", "make a logo"), ("assistant", "Which style: 1) minimal 2) playful 3) retro?"), ("user", said))
    assert v["m3"].category != "decision"


@pytest.mark.parametrize("order", ["撤掉所有频道的自动转发", "去掉飞书的推送设置", "请尝试联系一下供应商", "撤销刚才的修改"])
def test_a_bare_chinese_order_to_remove_undo_contact_or_try_is_a_task(order: str) -> None:
    assert verdicts(("user", order))["m1"].category == "task"


@pytest.mark.parametrize("said", ["联系方式是 138 0000 0000", "尝试过了，没用", "我昨天尝试联系过他们", "去掉这个设置会有什么影响？"])
def test_the_same_words_ordering_nothing_are_no_task(said: str) -> None:
    assert verdicts(("user", said))["m1"].category != "task"


@pytest.mark.parametrize("holding", ["Checking the server state…", "One moment.", "Let me look.", "稍等，我查一下"])
def test_a_turn_that_stops_while_the_agent_is_still_looking_leaves_the_question_open(holding: str) -> None:
    """"Did you save it?" → "Checking…" and nothing more: the turn stopped before the answer, the question stays a
    question (the same as a reply that says what it could not find)."""
    v = verdicts(("user", "did you save the file?"), ("assistant", holding))
    assert (v["m1"].category, v["m1"].status) == ("question", "current")


@pytest.mark.parametrize("reply", ["Let me check. Yes, the file is saved at /tmp/report.md.",
                                   "Checked: the file is saved at /tmp/report.md."])
def test_looking_and_then_answering_answers(reply: str) -> None:
    v = verdicts(("user", "did you save the file?"), ("assistant", reply))
    assert (v["m1"].category, v["m1"].status) == ("process", "answered")


@pytest.mark.parametrize("report", ["Saved the plan locally, but the upload to the wiki failed with a 400 error.",
                                    "Saved the plan locally; however the wiki upload was rejected."])
def test_a_report_of_the_rest_done_but_a_named_part_failed_leaves_the_request_open(report: str) -> None:
    """"…, but the upload failed" names the part of the request still undone: the request stays open, as a line marked
    ❌ leaves it."""
    v = verdicts(("user", "write the plan doc, save it locally and upload it to the wiki"), *exec_step("1"), ("assistant", report))
    assert (v["m1"].category, v["m1"].status) == ("task", "current")


def test_a_report_of_every_part_done_closes_the_request() -> None:
    v = verdicts(("user", "write the plan doc, save it locally and upload it to the wiki"), *exec_step("1"),
                 ("assistant", "Saved the plan locally and uploaded it to the wiki."))
    assert v["m1"].status == "done"


def test_a_chinese_report_of_a_failed_part_leaves_the_request_open() -> None:
    v = verdicts(("user", "写一份计划文档，保存到本地并上传到飞书"), *exec_step("1"), ("assistant", "已保存到本地，但上传飞书失败了。"))
    assert (v["m1"].category, v["m1"].status) == ("task", "current")


@pytest.mark.parametrize("said", ["你给我说一下部署命令", "跟我讲讲这个报错是什么意思", "帮我分析一下这个项目用的什么缓存"])
def test_a_chinese_request_to_be_told_or_given_an_analysis_is_answered_by_the_reply(said: str) -> None:
    """"Tell me the deploy command" is a question put as an order: the reply that gives it settles it, as "tell me" does."""
    v = verdicts(("user", said), ("assistant", "是 Redis：部署命令是 npm run deploy，配置在 config/cache.yml，报错是端口被占用。"))
    assert (v["m1"].category, v["m1"].status) == ("process", "answered")


def test_an_analysis_with_work_after_it_stays_a_task() -> None:
    v = verdicts(("user", "帮我分析一下日志，然后修复这个bug"), *exec_step("1"), ("assistant", "日志显示是空指针。"))
    assert (v["m1"].category, v["m1"].status) == ("task", "current")


@pytest.mark.parametrize("said", ["所有回复必须用中文", "全部代码一律加注释", "用中文和我说话", "跟我交流请用英文"])
def test_what_all_the_agents_output_must_be_and_the_language_to_talk_in_are_standing_preferences(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "preference"


@pytest.mark.parametrize("said", ["所有回复必须用中文吗？", "所有人必须到场", "他用中文和我说话"])
def test_the_same_words_asked_or_of_others_are_no_preference(said: str) -> None:
    assert verdicts(("user", said))["m1"].category != "preference"


@pytest.mark.parametrize("report", ["ripgrep is already installed (v14).", "The folder already exists, nothing to do."])
def test_what_was_asked_found_already_so_closes_the_request(report: str) -> None:
    v = verdicts(("user", "install ripgrep and create the docs folder"), *exec_step("1"), ("assistant", report))
    assert v["m1"].status == "done"


def test_already_so_as_a_condition_closes_nothing() -> None:
    v = verdicts(("user", "install ripgrep"), *exec_step("1"),
                 ("assistant", "If it is already installed, I will skip it. Checking the version first."))
    assert v["m1"].status == "current"


def test_what_is_already_so_describing_something_else_closes_nothing() -> None:
    v = verdicts(("user", "install the backup skill"), *exec_step("1"),
                 ("assistant", "Use `clawhub list` to list skills that are already installed in your environment."))
    assert v["m1"].status == "current"


def test_a_diagnosis_of_something_already_running_closes_nothing() -> None:
    v = verdicts(("user", "build the debate window on the vps"), *exec_step("1"),
                 ("assistant", "The gateway is already running but there's a port conflict. Stop it, then start it again."))
    assert v["m1"].status == "current"


def test_an_answer_given_before_a_trailing_look_still_answers() -> None:
    v = verdicts(("user", "did you save the file?"), ("assistant", "Yes, it is saved at /tmp/report.md."), *exec_step("1"),
                 ("assistant", "Let me verify."))
    assert v["m1"].status == "answered"


@pytest.mark.parametrize("report", ["已配置完成：每天 23:00 自动备份。还有其他需要设置的吗？",
                                    "Done: backups run nightly at 23:00. Any other questions?"])
def test_a_report_closing_with_a_generic_offer_stays_the_outcome_whatever_the_agent_does_after_it(report: str) -> None:
    """The agent offers more help, then writes a note to its memory: the report closed the turn's work, it narrates no
    step, and the request stays done."""
    v = verdicts(("user", "set up the nightly backup"), *exec_step("1"), ("assistant", report), *exec_step("2"))
    assert (v["m4"].category, v["m1"].status) == ("decision", "done")


@pytest.mark.parametrize("report", ["Added the notes, but I couldn't find the Notion page, so I created one.",
                                    "Added the notes to the Notion page. It took two tries, though: the first upload timed out.",
                                    "笔记已添加到 Notion 页面，但没有任何报错。",
                                    "笔记已添加到 Notion 页面，只是第一次出了点问题，我又重试了一次。"])
def test_a_workaround_a_retry_or_no_error_is_no_failed_part(report: str) -> None:
    v = verdicts(("user", "add the notes to the Notion page"), *exec_step("1"), ("assistant", report))
    assert v["m1"].status == "done"


@pytest.mark.parametrize("report", ["Here's your weekly status report: 7 tickets closed, 2 open.",
                                    "Here is the status report: 7 tickets closed, 2 open."])
def test_a_status_report_handed_over_still_answers(report: str) -> None:
    v = verdicts(("user", "compile my weekly status report from the tickets"), *exec_step("1"), ("assistant", report))
    assert v["m1"].status in ("done", "answered")


@pytest.mark.parametrize("said", ["尝试查看了日志，没发现问题", "联系QQ是123456"])
def test_a_try_told_as_done_or_a_contact_given_is_no_task(said: str) -> None:
    assert verdicts(("user", said))["m1"].category != "task"


@pytest.mark.parametrize("question", ["Would you like more information on the monthly or the annual plan?",
                                      "What do you want in the footer, the address or the phone number?"])
def test_a_specific_question_about_more_is_still_a_question(question: str) -> None:
    v = verdicts(("user", "draft the pricing page"), ("assistant", f"Drafted the page. {question}"))
    assert v["m2"].category == "question"


def test_a_signal_that_holds_an_answer_back_must_be_a_whole_clause(tmp_path: Path) -> None:
    """`answer_held_by` is compared with a message's one whole-clause signal: naming another kind fails at load."""
    (tmp_path / "mine.toml").write_text('[classify]\nanswer_held_by = ["blocked"]\n', encoding="utf-8")
    (tmp_path / "config.toml").write_text('[renal]\nrule_files = ["mine.toml"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="answer_held_by names a signal that is not whole"):
        Classifier(config.load(None, extra_layers=[tmp_path / "config.toml"]))


_NUMBERED = "A few questions: 1. Email alerts? 2. Check interval: hourly or daily? 3. Servers: web, db or both?"


@pytest.mark.parametrize("said", ["1 yes 2 hourly 3 both", "yes to 1; hourly for 2; both for 3", "1: yes 2: daily",
                                  "1 yes\n2 Hourly\n3 both"])
def test_answers_to_the_agents_numbered_questions_by_number_are_a_decision(said: str) -> None:
    v = verdicts(("user", "set up monitoring"), ("assistant", _NUMBERED), ("user", said))
    assert v["m3"].category == "decision"


@pytest.mark.parametrize("said", ["add tests for 2", "I have 1 cat and 2 dogs"])
def test_work_named_by_number_or_numbers_in_talk_are_no_numbered_answers(said: str) -> None:
    v = verdicts(("user", "set up monitoring"), ("assistant", _NUMBERED), ("user", said))
    assert v["m3"].category != "decision"


def test_numbers_answering_no_question_are_no_decision() -> None:
    assert verdicts(("user", "1 yes 2 hourly 3 both"))["m1"].category != "decision"


@pytest.mark.parametrize("offer", ["La commande a échoué. Voulez-vous que je vérifie ou essaye une autre méthode ?",
                                   "No pude abrir la página. ¿Quieres que lo intente de nuevo?",
                                   "Não consegui abrir. Quer que eu tente de novo?", "Der Dienst hängt. Soll ich ihn neu starten?"])
def test_an_offer_to_do_it_in_other_languages_is_an_offer_as_in_english(offer: str) -> None:
    """"Voulez-vous que je…", "¿Quieres que lo…", "Quer que eu…", "Soll ich…" offer as "Do you want me to…" does: no
    open question."""
    assert verdicts(("user", "open the page"), ("assistant", offer))["m2"].category != "question"
