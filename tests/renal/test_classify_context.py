"""The classifier decides with context, not from a word list (issue #4's cases, one test each)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support_classify import conversation, element, verdicts

from apollo import config as config_mod
from apollo.errors import ConfigError
from apollo.renal import reading, rules
from apollo.renal.classify import Classifier, classify
from apollo.transcript.model import Kind


def test_ok_after_a_proposal_is_noise_and_the_proposal_becomes_the_decision() -> None:
    v = verdicts(("assistant", "我建议数据库用 PostgreSQL，部署用 Docker。"), ("user", "好的"))
    assert (v["m2"].category, v["m2"].action) == ("noise", "drop")
    assert "proposal" in v["m2"].reason
    assert (v["m1"].category, v["m1"].action, v["m1"].status) == ("decision", "keep", "current")


def test_ok_with_a_standing_instruction_is_a_preference() -> None:
    v = verdicts(("assistant", "周报写好了。"), ("user", "好的，以后都用中文回复"))
    assert (v["m2"].category, v["m2"].action) == ("preference", "keep")


@pytest.mark.parametrize("answer", ["对", "yes", "好", "可以", "Yep."])
def test_a_bare_yes_to_a_yes_no_question_is_the_answer_not_noise(answer: str) -> None:
    """The pair states one decision, recorded once: on the question the answer settled."""
    v = verdicts(("assistant", "要不要我顺便把测试也补上？"), ("user", answer))
    assert v["m2"].category == "process" and v["m2"].action == "keep" and v["m2"].rule == "context:answer"
    assert v["m1"].category == "decision" and v["m1"].action == "keep"


def test_a_bare_no_to_a_yes_no_question_is_an_answer_too() -> None:
    v = verdicts(("assistant", "Shall I delete the old backups as well?"), ("user", "no"))
    assert v["m1"].category == "decision" and v["m1"].status == "current"
    assert v["m2"].category == "process" and v["m2"].action == "keep"


def test_ok_to_a_request_accepts_it_and_is_noise() -> None:
    v = verdicts(("user", "能帮我把日志级别改成 debug 吗？"), ("assistant", "好的"))
    assert v["m2"].category == "noise"
    assert v["m1"].category == "task" and v["m1"].action == "keep"


def test_a_backchannel_while_the_other_side_holds_the_floor_is_noise() -> None:
    v = verdicts(("user", "so we moved the whole team to the new office last spring"),
                 ("assistant", "Uh-huh."), ("user", "and the commute got much longer"), ("assistant", "Right."))
    assert v["m2"].category == v["m4"].category == "noise"


def test_an_interjection_inside_the_speakers_own_turn_is_not_noise() -> None:
    v = verdicts(("user", "我自己来"), ("user", "好了"))
    assert v["m2"].category != "noise"


def test_a_question_answered_later_is_outdated_and_an_open_one_is_kept() -> None:
    v = verdicts(("user", "测试为什么失败？"), ("assistant", "因为端口 8080 被占用了，换成 8081 就好。"),
                 ("user", "CI 为什么这么慢？"))
    assert (v["m1"].status, v["m1"].action) == ("answered", "compress")
    assert (v["m3"].category, v["m3"].status, v["m3"].action) == ("question", "current", "keep")


def test_a_clarifying_question_does_not_answer_a_question() -> None:
    v = verdicts(("user", "那个脚本在哪？"), ("assistant", "你说的是备份脚本还是部署脚本？"))
    assert v["m1"].status == "current" and v["m1"].action == "keep"


def test_a_decision_replaced_by_a_later_one_is_outdated_and_linked() -> None:
    v = verdicts(("user", "数据库就用 MySQL 吧"), ("assistant", "好的。"), ("user", "算了，数据库还是改用 PostgreSQL"))
    assert v["m1"].status == "superseded" and v["m1"].superseded_by == "m3"
    assert v["m1"].action == "drop"
    assert (v["m3"].category, v["m3"].action, v["m3"].status) == ("decision", "keep", "current")


def test_an_english_decision_changed_with_instead() -> None:
    v = verdicts(("user", "let's use React for the frontend"), ("user", "actually, switch the frontend to Vue instead"))
    assert v["m1"].status == "superseded" and v["m1"].superseded_by == "m2"


def test_a_decision_replaced_only_in_part_needs_confirmation() -> None:
    v = verdicts(("user", "数据库用 PostgreSQL，部署用 Docker，监控用 Grafana，日志用 Loki"),
                 ("user", "数据库改用 MySQL"))
    assert v["m1"].status == "superseded"
    assert v["m1"].action == "confirm" and "in part" in v["m1"].reason


def test_the_agent_restating_a_user_decision_does_not_replace_it() -> None:
    v = verdicts(("user", "以后部署目标改成 staging-2"), ("assistant", "记好了：部署目标改为 staging-2。"))
    assert v["m1"].status == "current" and v["m1"].action == "keep"


def test_a_decision_in_reply_to_a_choice_carries_the_choice_s_subject() -> None:
    v = verdicts(("assistant", "数据量小就用 SQLite，要多实例并发写就选 PostgreSQL，你选哪个？"),
                 ("user", "那就用 PostgreSQL 吧"), ("assistant", "好的。"),
                 ("user", "算了，还是改用 SQLite 吧"))
    assert v["m2"].status == "superseded" and v["m2"].superseded_by == "m4"


def test_a_task_reported_done_is_no_longer_active_and_others_stay() -> None:
    v = verdicts(("user", "帮我把登录页面的 bug 修一下"), ("user", "再把 README 的安装说明更新一下"),
                 ("assistant", "登录页面的 bug 已修复，测试全部通过。"))
    assert (v["m1"].status, v["m1"].action) == ("done", "compress")
    assert (v["m2"].category, v["m2"].status, v["m2"].action) == ("task", "current", "keep")


def test_progress_is_not_completion() -> None:
    v = verdicts(("user", "fix the flaky upload test"), ("assistant", "Fixed the import, but the test still fails."))
    assert v["m1"].status == "current"


def test_a_report_with_no_shared_word_closes_the_latest_task_only_tentatively() -> None:
    v = verdicts(("user", "帮我整理一下下周的行程"), ("assistant", "搞定了。"))
    assert v["m1"].status == "done" and v["m1"].action == "confirm"


def test_heartbeat_polls_and_replies_are_noise_by_kind_and_by_text() -> None:
    v = verdicts(
        element("p1", "user", "Read HEARTBEAT.md if it exists.", Kind.HEARTBEAT_POLL),
        element("r1", "assistant", "HEARTBEAT_OK", Kind.HEARTBEAT_REPLY),
        ("user", "Read HEARTBEAT.md if it exists (workspace context). If nothing needs attention, reply HEARTBEAT_OK."),
        ("assistant", "HEARTBEAT_OK"), ("assistant", "NO_REPLY"),
    )
    assert all(x.category == "noise" and x.action == "drop" for x in v.values())


def test_a_heartbeat_reply_that_reports_something_is_content() -> None:
    v = verdicts(element("r1", "assistant", "提醒：明天 10 点和王姐开会，别忘了带预算表。", Kind.HEARTBEAT_REPLY))
    assert v["r1"].category != "noise"


def test_identical_tool_calls_with_identical_output_are_repetition() -> None:
    call = '{"command": "git status"}'
    v = verdicts(
        element("c1", "assistant", call, Kind.TOOL_CALL, call_id="a", tool_name="exec"),
        element("o1", "tool", "On branch main\nnothing to commit, working tree clean", Kind.TOOL_RESULT, call_id="a"),
        element("c2", "assistant", call, Kind.TOOL_CALL, call_id="b", tool_name="exec"),
        element("o2", "tool", "On branch main\nnothing to commit, working tree clean", Kind.TOOL_RESULT, call_id="b"),
    )
    assert (v["c2"].category, v["c2"].action, v["c2"].duplicate_of) == ("noise", "drop", "c1")
    assert (v["o2"].category, v["o2"].duplicate_of) == ("noise", "o1")
    assert v["c1"].action == "keep"


def test_a_repeated_call_whose_output_changed_is_kept() -> None:
    call = '{"command": "ci status"}'
    v = verdicts(
        element("c1", "assistant", call, Kind.TOOL_CALL, call_id="a", tool_name="exec"),
        element("o1", "tool", "build #812: running (step 3/7)", Kind.TOOL_RESULT, call_id="a"),
        element("c2", "assistant", call, Kind.TOOL_CALL, call_id="b", tool_name="exec"),
        element("o2", "tool", "build #812: passed", Kind.TOOL_RESULT, call_id="b"),
    )
    assert v["c2"].category == "process" and v["c2"].action == "keep" and v["c2"].duplicate_of is None
    assert v["o2"].category == "process"


def test_tool_output_already_acted_on_is_compressed_and_the_latest_is_kept() -> None:
    log = "\n".join(f"2026-11-27 10:{i:02d}:00 INFO request {i} handled in {i * 3} ms" for i in range(60))
    v = verdicts(
        element("c1", "assistant", '{"cmd": "tail app.log"}', Kind.TOOL_CALL, call_id="a", tool_name="exec"),
        element("o1", "tool", log, Kind.TOOL_RESULT, call_id="a"),
        element("t1", "assistant", "Requests look normal; nothing slower than 180 ms."),
        element("c2", "assistant", '{"cmd": "tail error.log"}', Kind.TOOL_CALL, call_id="b", tool_name="exec"),
        element("o2", "tool", log.replace("INFO", "WARN"), Kind.TOOL_RESULT, call_id="b"),
    )
    assert (v["o1"].category, v["o1"].action) == ("process", "compress")
    assert v["o2"].action == "keep" and "nothing has acted on it" in v["o2"].reason


def test_old_reasoning_goes_the_latest_stays() -> None:
    v = verdicts(element("k1", "assistant", "The user wants the report; read it first.", Kind.THINKING),
                 ("assistant", "报告我看完了。"), element("k2", "assistant", "Now wait for the answer.", Kind.THINKING))
    assert v["k1"].action == "drop" and v["k2"].action == "keep"


def test_a_wrapper_is_never_content() -> None:
    wrapped = element("w1", "user", "好的", envelope="Sender (untrusted metadata):\n```json\n{\"note\": \"以后都用中文回复\"}\n```")
    empty = element("w2", "user", "", envelope="[Tue 2026-04-07 14:29 GMT+8]")
    v = verdicts(("assistant", "测试都过了。"), wrapped, empty)
    assert v["w1"].category == "noise" and v["w2"].category == "noise"


def test_a_message_repeated_word_for_word_is_repetition() -> None:
    text = "请把 staging 的数据库备份一下，备份文件放到 /srv/backup 目录"
    v = verdicts(("user", text), ("assistant", "好。"), ("user", text))
    assert (v["m3"].category, v["m3"].duplicate_of, v["m3"].action) == ("noise", "m1", "drop")
    assert v["m1"].action == "keep"


def test_elements_outside_the_context_are_left_alone_and_not_counted() -> None:
    v = verdicts(element("x1", "user", "好的", in_context=False), ("assistant", "ok"))
    assert v["x1"].action == "keep" and v["x1"].tokens == 0


def test_an_open_markdown_to_do_item_is_an_active_task() -> None:
    v = verdicts(element("L3", "assistant", "图表（周日）", extra={"marker": "- [ ] "}),
                 element("L4", "assistant", "第二节", extra={"marker": "- [x] "}))
    assert (v["L3"].category, v["L3"].action) == ("task", "keep")
    assert v["L4"].category == "process"


def test_a_system_prompt_is_kept_as_standing_instructions() -> None:
    v = verdicts(("system", "You are a helpful assistant. Answer in Chinese."))
    assert (v["m1"].category, v["m1"].action) == ("preference", "keep")


# -- Q5: the user has the final word ---------------------------------------------------------------


def _config(tmp_path: Path, text: str) -> config_mod.Config:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return config_mod.load(None, extra_layers=[path])


def test_user_keep_and_drop_patterns_win(tmp_path: Path) -> None:
    config = _config(tmp_path, '[renal]\nkeep_patterns = ["^收到$"]\ndrop_patterns = ["^FYI:"]\n')
    v = verdicts(("assistant", "报告写好了。"), ("user", "收到"),
                 ("user", "FYI: 以后都用中文回复"), config=config)
    assert (v["m2"].action, v["m2"].rule) == ("keep", "user:keep") and v["m2"].category != "noise"
    assert (v["m3"].category, v["m3"].action, v["m3"].rule) == ("noise", "drop", "user:drop")


def test_keep_wins_over_drop(tmp_path: Path) -> None:
    config = _config(tmp_path, '[renal]\nkeep_patterns = ["预算"]\ndrop_patterns = ["^FYI"]\n')
    v = verdicts(("user", "FYI 预算上限是 48 万"), config=config)
    assert v["m1"].action == "keep"


def test_a_user_rule_file_extends_the_lexicon(tmp_path: Path) -> None:
    (tmp_path / "my-rules.toml").write_text('[signal.acknowledgement]\nzh = ["稳"]\n\n[signal.sticker]\n'
                                             'social = true\nabout = "a sticker"\npatterns = ["^(捂脸|偷笑)$"]\n',
                                             encoding="utf-8")
    config = _config(tmp_path, '[renal]\nrule_files = ["my-rules.toml"]\n')
    v = verdicts(("assistant", "部署完成了。"), ("user", "稳"), ("user", "[捂脸]"), config=config)
    assert v["m2"].category == "noise" and v["m3"].category == "noise"
    assert v["m3"].reason.startswith("a sticker")


def test_a_user_rule_file_with_an_unknown_signal_or_a_bad_pattern_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text('[signal.deciison]\nzh = ["决定"]\n', encoding="utf-8")
    config = _config(tmp_path, '[renal]\nrule_files = ["bad.toml"]\n')
    with pytest.raises(ConfigError, match="unknown signal 'deciison'") as caught:
        Classifier(config)
    assert "bad.toml" in caught.value.where
    (tmp_path / "bad2.toml").write_text('[signal.decision]\npatterns = ["(unclosed"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="invalid pattern"):
        Classifier(_config(tmp_path, '[renal]\nrule_files = ["bad2.toml"]\n'))
    (tmp_path / "bad3.toml").write_text('[classify]\nconfirm_belw = 0.5\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown key 'classify.confirm_belw'"):
        Classifier(_config(tmp_path, '[renal]\nrule_files = ["bad3.toml"]\n'))


def test_a_user_rule_file_uses_the_built_in_fragments_and_its_own(tmp_path: Path) -> None:
    """A part of a pattern written once ([fragment]) and used as (?&name): the built-in "can you" and a new one,
    which may use the fragments before it."""
    (tmp_path / "frag.toml").write_text(
        "[fragment]\nteam = '(?:ops|sre) team'\nask_team = '(?&can_you) ask the (?&team)'\n\n"
        "[signal.task]\npatterns = ['^(?&team) must (?:fix|check)', '(?&ask_team)']\nrequires = ['team']\n",
        encoding="utf-8")
    config = _config(tmp_path, '[renal]\nrule_files = ["frag.toml"]\n')
    v = verdicts(("assistant", "The nightly backup failed."), ("user", "SRE team must fix the cron"),
                 ("user", "can you ask the ops team"), ("user", "how can you ask the ops team"), config=config)
    assert v["m2"].category == "task" and v["m3"].category == "task"
    assert v["m4"].category != "task"  # the built-in fragment's own bounds came with it


def test_a_fragment_no_file_defines_is_refused_with_its_name(tmp_path: Path) -> None:
    (tmp_path / "nofrag.toml").write_text("[signal.task]\npatterns = ['(?&no_such_part) now']\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="no_such_part") as caught:
        Classifier(_config(tmp_path, '[renal]\nrule_files = ["nofrag.toml"]\n'))
    assert "nofrag.toml" in caught.value.where and "can_you" in (caught.value.hint or "")
    (tmp_path / "badfrag.toml").write_text("[fragment]\nx = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[fragment\] must be a table of strings"):
        Classifier(_config(tmp_path, '[renal]\nrule_files = ["badfrag.toml"]\n'))


def test_no_built_in_pattern_is_left_with_a_fragment_unexpanded() -> None:
    text = (rules.RULES_FOLDER / "intent.toml").read_text(encoding="utf-8")
    assert "(?&can_you)" in text  # the built-in files use them
    for signal in rules.load().signals.values():
        regex = signal.regex
        parts = [] if regex is None else [regex] if hasattr(regex, "pattern") else [regex.first, regex.rest]
        assert all("(?&" not in part.pattern for part in parts), signal.name


def test_a_user_setting_changes_what_counts_as_uncertain(tmp_path: Path) -> None:
    (tmp_path / "strict.toml").write_text("[classify]\nconfirm_below = 0.95\n", encoding="utf-8")
    config = _config(tmp_path, '[renal]\nrule_files = ["strict.toml"]\n')
    v = verdicts(("assistant", "测试都过了。"), ("user", "好的"), config=config)
    assert v["m2"].category == "noise" and v["m2"].action == "confirm"


def test_the_built_in_rules_are_data_the_engine_loads() -> None:
    loaded = rules.load()
    assert "好的" in loaded["acknowledgement"].phrases
    assert loaded["heartbeat_ok"].search("HEARTBEAT_OK")
    assert {"social.toml", "intent.toml", "agent.toml", "classify.toml"} <= {s.rsplit("/", 1)[-1]
                                                                          for s in loaded.sources}


def test_classify_streams_one_verdict_per_element_in_order() -> None:
    elements = conversation(("user", "早"), ("assistant", "早上好"), ("user", "帮我查一下天气"))
    assert [v.id for v in classify(elements)] == ["m1", "m2", "m3"]
    classifier = Classifier()
    first = classifier.feed(elements[0])
    assert first[0][1] is None and first[0][2].id == "m1"


def test_a_later_standing_instruction_on_the_same_subject_replaces_the_earlier_tentatively() -> None:
    v = verdicts(("user", "以后周报都用中文写，写完发到飞书群"), ("assistant", "好的。"),
                 ("user", "以后周报都用英文写，写完发到飞书群"))
    assert v["m1"].status == "superseded" and v["m1"].superseded_by == "m3" and v["m1"].action == "confirm"
    assert (v["m3"].category, v["m3"].action) == ("preference", "keep")


def test_two_decisions_on_one_subject_without_a_change_marker_both_stand() -> None:
    v = verdicts(("user", "let's use Grafana Cloud for the alerts on the new cluster"),
                 ("user", "let's use PagerDuty for the alerts on the new cluster too"))
    assert v["m1"].status == "current" and v["m1"].action == "keep"


# -- mistakes seen on real sessions, fixed with general rules (one test each) ---------------------------------------
@pytest.mark.parametrize("reply", ["I don't know yet. What I can see: it's a NUC13, bought in 2023, 3-year warranty.",
                                   "还不确定，我查一下购买记录再告诉你。", "我也不知道，得问问王姐。",
                                   "I'll measure it under load before proposing a number.",
                                   "我先在预发环境压测，再给出建议。"])
def test_a_reply_that_does_not_know_yet_leaves_the_question_open(reply: str) -> None:
    v = verdicts(("user", "Is the NUC's warranty still valid? 保修还在吗？"), ("assistant", reply))
    assert (v["m1"].category, v["m1"].status, v["m1"].action) == ("question", "current", "keep")
    assert v["m2"].category == "process" and "does not answer" in v["m2"].reason


def test_not_sure_from_the_user_leaves_the_agents_question_open() -> None:
    v = verdicts(("user", "set up a nightly backup to the nas"),
                 ("assistant", "Which share should it write to? //nas.lan/backup doesn't exist."),
                 ("user", "not sure, I'll check on the nas tonight"))
    assert (v["m2"].category, v["m2"].status) == ("question", "current")


def test_a_later_reply_on_another_subject_does_not_answer_an_older_question() -> None:
    """The Chinese example session's Q4 budget cap: asked, not known, then the conversation moved on."""
    v = verdicts(("user", "Q4 的预算上限到底是多少？我记得是 48 万还是 52 万"),
                 ("assistant", "没有落到文件里，我不乱猜，建议直接问王姐。"),
                 ("user", "最后交付就导出 PDF 吧，用 pandoc"),
                 ("assistant", "好，定了：最终交付导出 PDF，pandoc 3.1.3 在，模板也在。"),
                 ("user", "第三节写完了吧？整体还差啥"),
                 ("assistant", "第三节写完了。整体还差三件：\n1. 第 4 节预算对比：等王姐确认预算上限\n2. 图表"))
    assert (v["m1"].category, v["m1"].status) == ("question", "current")  # still open
    assert v["m5"].status == "answered"  # the question the last reply answers


def test_a_later_reply_about_an_older_question_answers_it() -> None:
    v = verdicts(("user", "staging 数据库的密码放在哪里？"), ("assistant", "我去问运维。"),
                 ("user", "顺便把第三节的图表也做了"), ("assistant", "图表做好了。"),
                 ("assistant", "运维回复了：staging 数据库密码在 vault 的 secret/db 里。"))
    assert v["m1"].status == "answered" and v["m1"].reason.endswith("#m5")


def test_a_question_mark_inside_a_quotation_asks_nothing() -> None:
    v = verdicts(("user", "提纲写到哪了"), ("assistant", "提纲里第 4 节写着「预算上限？问王姐」，其他都写完了。"),
                 ("user", "好"))
    assert v["m2"].category != "question"
    assert v["m3"].category == "noise"  # "好" after a statement, not the answer to a question


def test_a_question_in_straight_quotes_is_reported_not_asked() -> None:
    """A scheduled job's report quotes the question it sent to another channel ('Question sent: "…?"'),
    a user quotes what someone asked them: neither asks anything here."""
    v = verdicts(("user", "what did the orchestrator do this tick?"),
                 ("assistant", '**Orchestrator tick complete**\n\n| **Channel** | #dev-ops |\n| **Question sent** | '
                               '"Since the monitoring is up — should I run the baseline check now, or wait for '
                               'the weekend?" |\n| **Logs updated** | ops.log |'),
                 ("user", 'He asked "can you send your resume?" and nothing else.'))
    assert v["m2"].category != "question" and v["m3"].category != "question"


def test_a_lone_straight_quote_does_not_silence_the_next_lines_question() -> None:
    v = verdicts(("user", 'The shelf is 5\' 10" tall.\nCan you find a cover that fits it?'))
    assert v["m1"].category in ("question", "task")


@given(st.text(alphabet=st.characters(blacklist_characters='"\n\r', blacklist_categories=("Cs",)), max_size=60))
def test_whatever_a_straight_quotation_holds_it_asks_nothing(quoted: str) -> None:
    found = reading.read(f'Question sent: "{quoted}?" to the channel', "assistant", rules.load())
    assert not any(clause.question for clause in found.clauses)


@pytest.mark.parametrize("said", ['The screen is 27" wide. Which one should I buy?', "It's 5'10\" tall. Is that ok?",
                                  'My question is: "should we migrate to Postgres?"', '我想问：“要不要迁移到 Postgres？”'])
def test_a_lone_inch_mark_or_the_speakers_own_quoted_question_still_asks(said: str) -> None:
    """Only a pair of straight quotes is a quotation; one the speaker introduces as their question asks it."""
    assert verdicts(("user", said))["m1"].category == "question"


@pytest.mark.parametrize("said", ['我还想问一下：“能不能周五交付？”', '那请问：“能不能周五交付？”', '老师请问：“能不能周五交付？”'])
def test_the_speakers_own_quoted_question_with_a_connective_or_an_address_asks(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "question"


@pytest.mark.parametrize("said", ['他想问一下：“能不能周五交付？”', '客户在群里请问：“能不能周五交付？”'])
def test_someone_elses_quoted_question_is_reported_not_asked(said: str) -> None:
    """想问一下 / 请问 after another person's name: the speaker reports that person's question."""
    assert verdicts(("user", said))["m1"].category != "question"


@given(st.text(alphabet=st.characters(blacklist_characters='"\n\r?？', blacklist_categories=("Cs",)), max_size=40))
def test_a_lone_straight_quote_before_a_question_hides_nothing(before: str) -> None:
    found = reading.read(f'It is {before}" wide. Which one should I buy?', "user", rules.load())
    assert found.clauses[-1].question


@pytest.mark.parametrize("mark", list("“「『《"))
def test_an_opening_quotation_mark_never_closed_hides_no_question(mark: str) -> None:
    """A stray opening mark quotes nothing: the question after it is still asked."""
    found = reading.read(f"It is {mark} wide. Which one should I buy?", "user", rules.load())
    assert found.clauses[-1].question
    assert len(list(reading.sentences(f"It is {mark} wide. Which one should I buy?"))) == 2


def test_waiting_on_the_users_approval_is_a_question_left_open() -> None:
    v = verdicts(("user", "how is the radar plan going?"),
                 ("assistant", "The radar plan's architecture is done and the GitHub source works.\n"
                               "- **Status:** waiting for your approval before I add the other sources"))
    assert (v["m2"].category, v["m2"].status) == ("question", "current")


@pytest.mark.parametrize("reply", ["嗯嗯", "嗯", "ok", "yeah"])
def test_a_backchannel_to_a_wh_question_is_noise_and_the_question_stays_open(reply: str) -> None:
    v = verdicts(("user", "大熊猫基地需要提前多久预约？"), ("assistant", reply))
    assert (v["m2"].category, v["m2"].action) == ("noise", "drop")
    assert (v["m1"].category, v["m1"].status) == ("question", "current")


@pytest.mark.parametrize("text", ["ok thanks", "ok great thanks", "ok got it thanks", "okay cool thank you",
                                  "好的谢谢", "好的收到谢谢"])
def test_formulas_run_together_are_noise(text: str) -> None:
    v = verdicts(("user", "why did the import fail?"), ("assistant", "The disk filled up at batch 212."),
                 ("user", text))
    assert (v["m3"].category, v["m3"].action) == ("noise", "drop")


@pytest.mark.parametrize("text", ["可不好说", "可不好说啊"])
def test_a_negator_binds_to_the_word_after_it_not_to_the_formula_before(text: str) -> None:
    # 可不 ("exactly") and 好说 ("no problem") are formulas, but "可不好说" is 可 + 不好说: "hard to say"
    v = verdicts(("user", "这批货下周能到吗？"), ("assistant", "物流那边还没有回复。"), ("user", text))
    assert v["m3"].category != "noise"
    assert reading.social_parts("可不", rules.load(None)) and reading.social_parts("好说", rules.load(None))


def test_a_question_tag_is_no_negator_binding_the_next_formula() -> None:
    # 没 ending "醒了没" asks (woken or not?); the formulas after it are formulas still
    assert [s.name for s in reading.social_parts("醒了没在吗", rules.load(None))] == ["ping", "greeting"]


def test_ok_thanks_does_not_say_yes_to_a_question() -> None:
    v = verdicts(("assistant", "The import failed at batch 212. Want me to retry it?"), ("user", "ok thanks"))
    # an offer left without a yes decides nothing and asks nothing the user owes an answer to
    assert v["m2"].category == "noise" and (v["m1"].category, v["m1"].rule) == ("process", "intent:offer")


@pytest.mark.parametrize("change", ["We decided: switch from SQLite to PostgreSQL 16, because we need concurrent writers.",
                                    "Let's switch the prototype database to PostgreSQL 16.",
                                    "数据库从 SQLite 换成 PostgreSQL 16。"])
def test_a_switch_from_x_to_y_supersedes_the_decision_on_x(change: str) -> None:
    v = verdicts(("user", "Let's use SQLite for the prototype database."), ("assistant", "OK."), ("user", change))
    assert v["m1"].status == "superseded" and v["m1"].superseded_by == "m3"
    if "from" in change or "从" in change:  # it names what it replaces: replaced whole, not in part
        assert v["m1"].action == "drop" and "in part" not in v["m1"].reason
    assert (v["m3"].category, v["m3"].status) == ("decision", "current")


def test_a_task_that_carries_out_the_current_decision_is_a_task_not_a_new_decision() -> None:
    v = verdicts(("user", "部署先用滚动发布吧。"), ("assistant", "好的。"),
                 ("user", "决定了：改用蓝绿发布，不再用滚动发布，因为回滚要快。"), ("assistant", "明白了。"),
                 ("user", "请把部署脚本改成蓝绿发布，周五前完成，旧脚本先保留。"),
                 ("assistant", "旧脚本有 150 个服务的滚动步骤，我会逐个改成蓝绿切换。"))
    assert v["m1"].status == "superseded" and v["m1"].superseded_by == "m3"
    assert (v["m3"].category, v["m3"].status) == ("decision", "current")
    assert (v["m5"].category, v["m5"].status, v["m5"].action) == ("task", "current", "keep")


def test_a_request_to_switch_to_something_new_still_changes_the_decision() -> None:
    v = verdicts(("user", "数据库就用 PostgreSQL 吧。"), ("assistant", "好的。"),
                 ("user", "算了，请把数据库改成 MySQL，运维只会 MySQL。"))
    assert v["m1"].status == "superseded" and v["m3"].category == "decision"


def test_a_confirmation_with_a_tag_is_a_question_not_a_task() -> None:
    v = verdicts(("user", "最后确认一次：截止是周一中午 12 点，对吧"))
    assert v["m1"].category == "question"


def test_a_report_that_also_asks_closes_the_task() -> None:
    # what it found is the outcome (a decision); its offer still awaits the user's answer
    v = verdicts(("user", "你先看一下草稿现在写到哪了"),
                 element("c1", "assistant", '{"path": "draft.md"}', Kind.TOOL_CALL, call_id="a", tool_name="read"),
                 element("r1", "tool", "# 第 1 节 …", Kind.TOOL_RESULT, call_id="a", tool_name="read"),
                 ("assistant", "看完了，第 1 节写完了，第 2 节还是占位。要我先把 10 月账单清洗一下吗？"))
    assert v["m1"].status == "done" and v["m4"].rule == "intent:outcome" and v["m4"].category == "decision"


def test_a_done_report_with_a_side_note_still_closes_the_task() -> None:
    v = verdicts(("user", "start gitea on the nuc and check it"),
                 ("assistant", "Gitea is up on the NUC: healthz 200. Remotes still point at the Pi."))
    assert v["m1"].status == "done"
    progress = verdicts(("user", "fix the import"), ("assistant", "Fixed the import, but the test still fails."))
    assert progress["m1"].status == "current"


def test_a_report_about_something_else_closes_no_task() -> None:
    v = verdicts(("user", "看看 workspace 里有哪些临时文件"), ("assistant", "扫完了，三个 .tmp 文件。"),
                 ("user", "帮我把 README 的接口说明更新一下"),
                 ("user", "对了，以后都用中文回复"), ("assistant", "明白，已经记进 USER.md 了。"))
    assert v["m1"].status == "answered"  # a request for information (看看…有哪些), settled by its answer
    assert (v["m3"].category, v["m3"].status) == ("task", "current")  # "记进 USER.md" is about the preference


def test_the_agent_reporting_work_done_is_an_outcome_even_when_it_mentions_a_decision() -> None:
    # what it did is the outcome; the word 决定 in it makes no decision of the agent's own
    v = verdicts(("user", "把今天的进展记到 memory 里"),
                 element("c1", "assistant", '{"path": "memory/today.md"}', Kind.TOOL_CALL, call_id="a", tool_name="write"),
                 element("r1", "tool", "ok", Kind.TOOL_RESULT, call_id="a", tool_name="write"),
                 ("assistant", "记好了：包括 PDF 的决定和你的新偏好。"))
    assert v["m4"].rule == "intent:outcome" and v["m1"].status == "done"


def _after_a_look(request: str, reply: str) -> dict:
    """``reply`` to ``request`` after the agent read something (work behind it, as in a real turn)."""
    return verdicts(("user", request),
                    element("c1", "assistant", '{"path": "photo.jpg"}', Kind.TOOL_CALL, call_id="a", tool_name="read"),
                    element("r1", "tool", "ok", Kind.TOOL_RESULT, call_id="a", tool_name="read"),
                    ("assistant", reply))


@pytest.mark.parametrize(("request_", "reply"), [
    ("这顿午饭怎么样？", "| 食物 | 蛋白质 | 评价 |\n| 米饭 | 5g | ✅ 碳水到位 |\n| 炸鸡腿 | 15g | ⚠️ 脂肪高 |\n\n"
                       "✅ **蛋白质非常充足** — 77g\n⚠️ **脂肪偏高** — 炸鸡腿和红烧肉贡献了大量脂肪"),
    ("Which of these two plans should I take?", "✅ **Basic**: cheap, enough storage\n⚠️ **Team**: pricier, "
                                               "rate limited on the free tier\n\nI'd go with Basic."),
    ("看看定时任务都正常吗", "| 任务 | 状态 |\n| 起床提醒 | ✅ 正常 |\n| 备份推送 | ⚠️ 1 次错误 |"),
])
def test_check_marks_beside_caution_marks_grade_and_report_nothing_done(request_: str, reply: str) -> None:
    """✅ beside ⚠️ is a grade (good / watch out), not work reported done: the reply is no outcome,
    and the request it answers is not closed by a check mark (a real meal review had been quoted whole
    under the digest's decisions)."""
    v = _after_a_look(request_, reply)
    assert v["m4"].rule != "intent:outcome" and v["m4"].category != "decision"


@pytest.mark.parametrize("reply", [
    "✅ rp-diet 已安装\n⚠️ fitness-coach 安装量低，先不装",  # the work is said in words beside the grades
    "✅ Deployed the fix to staging.\n⚠️ The CDN cache still holds the old page for an hour.",
    "第一天训练记录 ✅\n\n| 划船 | 10kg×12×4组 |",  # a check mark with no caution beside it
    "### ✅ 我改了的文件\n- ingest.py\n### ❌ 没有改的地方\n- 源码仓库",  # done / not done: a status board
    "| 功能 | 状态 |\n| 连续评分 | ✅ 已实现 |\n| 政策周期 | ⚠️ 部分实现 |",  # 已实现: implemented
    "三个功能都已实现：连续评分、下跌识别、新闻驱动。",
])
def test_a_check_mark_reports_work_done_unless_the_reply_grades_with_caution_marks(reply: str) -> None:
    v = _after_a_look("帮我把这些弄好", reply)
    assert v["m4"].rule == "intent:outcome" and v["m1"].status == "done"


@pytest.mark.parametrize(("request_", "reply"), [
    ("Update the packages", "✅ Updated 12 packages\n⚠️ numpy held back"),  # the mark goes, the clause opens with its verb
    ("Create the cron job", "✅Cron job created: daily 07:00\n⚠️ Timezone is UTC"),
    ("Create the cron job", "- ✅ Cron job created: daily 07:00\n- ⚠️ Timezone is UTC"),  # and a list mark before it
    ("Restart nginx", "✅ Restarted nginx\n⚠️ the config has a deprecated directive"),
    ("Run the tests", "✅ 42 passed\n⚠️ 3 warnings"),  # after a task a check mark reports it done
    ("Build it", "✅ Build succeeded\n⚠️ 2 compiler warnings"),
    ("Back up the db", "✅ Backed up to /mnt/nas/db.sql\n⚠️ Disk is 91% full"),
    ("部署一下", "✅ 完成\n⚠️ 记得重启"),
    ("提醒我每天7点起床", "✅ 已设好每天 7:00 的提醒\n⚠️ 时区按北京时间"),
    ("Can you run the tests?", "✅ 42 passed\n⚠️ 3 warnings"),  # a question that asks for work gives a task
])
def test_check_marks_beside_caution_marks_after_a_task_report_it_done(request_: str, reply: str) -> None:
    """A caution mark beside a check mark is a note on work done when the message answered gave a task;
    the check mark taken out of a clause leaves the clause opening with its words."""
    v = _after_a_look(request_, reply)
    assert v["m4"].rule == "intent:outcome" and v["m1"].status == "done"


@pytest.mark.parametrize(("request_", "reply"), [
    ("帮我看看这顿午饭", "✅ 蛋白质充足\n⚠️ 脂肪偏高"),  # a review asked for: the marks grade
    ("Review my plan for the week", "✅ Three gym days\n⚠️ No rest day after leg day"),
    ("What do you think of this setup?", "✅ nginx\n✅ postgres\n⚠️ redis: port in use"),
])
def test_check_marks_beside_caution_marks_grade_what_was_asked_to_be_looked_over(request_: str, reply: str) -> None:
    v = _after_a_look(request_, reply)
    assert v["m4"].rule != "intent:outcome" and v["m4"].category != "decision"


@pytest.mark.parametrize("reply", [
    "表单校验已实现，OAuth 回调未实现：还缺 client secret。",  # what is still missing: still to do
    "已实现的部分：表单。还没实现：OAuth 回调。",  # 已实现的 names what is done, 还没实现 what is not
    "nginx 已安装，redis 尚未安装。",
    "迁移已完成，备份还没配置。",
    "理论上可以做，已实现类似功能的库有 passport。",  # an attributive: it reports nothing done
])
def test_a_chinese_negated_completion_or_an_attributive_leaves_the_task_open(reply: str) -> None:
    v = _after_a_look("把登录功能实现一下", reply)
    assert v["m4"].rule != "intent:outcome" and v["m1"].status != "done"


@pytest.mark.parametrize("reply", [
    "登录功能已实现。",
    "之前没配置回调，所以报错；现在已配置好，登录正常。",  # what was before cancels only its clause
    "已部署。默认未启用调试日志。",  # so on purpose
    "已安装 nginx，你可以检查一下有没有安装 redis。",  # 有没有 asks
    "配置已更新。检查结果：discord 未配置。",  # a bare 未: a finding, its own clause only
    "已实现表单校验和 OAuth 回调。",
])
def test_a_chinese_completion_beside_a_negation_that_is_no_pending_work_closes_the_task(reply: str) -> None:
    v = _after_a_look("把登录功能实现一下", reply)
    assert v["m4"].rule == "intent:outcome" and v["m1"].status == "done"


@pytest.mark.parametrize("key", ['says = "all_clear_evnt"', 'unless_says = ["blocked", "all_clear_evnt"]'])
def test_a_row_that_says_no_signal_is_refused_where_it_is_loaded(tmp_path: Path, key: str) -> None:
    """`says` and `unless_says` name signals a row looks for in the text: a name no rule file gives fails at load,
    not mid-session."""
    (tmp_path / "rows.toml").write_text(
        f'[[classify.turns]]\nrule = "furniture:mine"\nwhen = "notice_only"\n{key}\n'
        'category = "noise"\naction = "drop"\nconfidence = 0.8\nreason = "mine"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="names no signal \\('all_clear_evnt'\\)"):
        Classifier(_config(tmp_path, '[renal]\nrule_files = ["rows.toml"]\n'))
