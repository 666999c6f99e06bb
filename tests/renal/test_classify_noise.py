"""What is noise in a conversation: a formula that tells nothing and takes no turn (issue 16, noise).

A backchannel is noise while the other side holds the floor; the same words are content when they
ask for confirmation, when they open the speaker's own turn, or when they only hold the floor.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support_classify import verdicts


@pytest.mark.parametrize("tag", ["right?", "Right?", "huh?", "you know?"])
def test_a_bare_tag_with_a_question_mark_asks_the_listener_to_confirm(tag: str) -> None:
    v = verdicts(("user", "so the cache sits in front of the database"), ("assistant", "and every miss costs a round trip"),
                 ("user", tag))
    assert v["m3"].category != "noise"


@pytest.mark.parametrize("sound", ["um", "uh", "Um.", "erm", "呃"])
def test_a_bare_hesitation_holds_the_floor_and_acknowledges_nothing(sound: str) -> None:
    v = verdicts(("user", "the build broke after the upgrade"), ("assistant", sound),
                 ("user", "so I rolled it back"))
    assert v["m2"].category != "noise"
    assert v["m2"].rule == "content:fragment"


@pytest.mark.parametrize("opening", ["Yeah,", "Right,", "Oh, yeah,", "Okay,"])
def test_a_reply_word_the_speaker_goes_on_from_opens_a_turn(opening: str) -> None:
    v = verdicts(("user", "the old office was much closer to the station"), ("assistant", opening),
                 ("assistant", "and the rent there was lower too"))
    assert v["m2"].category != "noise"
    assert v["m2"].rule == "context:turn_opening"


@pytest.mark.parametrize("reply", ["Yeah.", "Uh-huh.", "Right."])
def test_a_finished_backchannel_before_the_speaker_goes_on_stays_noise(reply: str) -> None:
    v = verdicts(("user", "the old office was much closer to the station"), ("assistant", reply),
                 ("user", "and the rent there was lower too"))
    assert v["m2"].category == "noise"


@pytest.mark.parametrize("assent", ["Yeah.", "Right.", "Yep.", "Oh, yeah."])
def test_an_assent_the_speaker_goes_on_from_opens_their_turn(assent: str) -> None:
    """"Yeah." then the same speaker's own statement: they took the floor to agree, not to yield it."""
    v = verdicts(("user", "the old office was much closer to the station"), ("assistant", assent),
                 ("assistant", "we should have stayed there another year"))
    assert v["m2"].category != "noise"
    assert v["m2"].rule == "context:turn_opening"


@pytest.mark.parametrize("continuer", ["Uh-huh.", "Mhm.", "Oh, okay."])
def test_a_pure_continuer_stays_noise_even_when_the_speaker_goes_on(continuer: str) -> None:
    """"Uh-huh" cannot say "I agree": whatever follows, it only told the other side to go on."""
    v = verdicts(("user", "the old office was much closer to the station"), ("assistant", continuer),
                 ("assistant", "we should have stayed there another year"))
    assert v["m2"].category == "noise"


def test_an_assent_followed_by_another_formula_stays_noise() -> None:
    v = verdicts(("user", "the old office was much closer to the station"), ("assistant", "Yeah."),
                 ("assistant", "Uh-huh."), ("user", "and the rent there was lower too"))
    assert v["m2"].category == "noise"


def test_a_reply_word_with_a_comma_the_other_side_goes_on_from_stays_noise() -> None:
    v = verdicts(("user", "the old office was much closer to the station"), ("assistant", "Yeah,"),
                 ("user", "and the rent there was lower too"))
    assert v["m2"].category == "noise"


@pytest.mark.parametrize("said", ["不用感激", "您怎么也得感谢我", "不感谢他", "你应该感谢他们"])
def test_thanks_denied_demanded_or_owed_to_someone_else_is_not_thanks(said: str) -> None:
    v = verdicts(("user", "这次的报告我帮你改完了"), ("assistant", said))
    assert v["m2"].category != "noise"


@pytest.mark.parametrize("said", ["那说明人家感谢你", "他们说是谢谢的意思", "还特感谢我", "别人都感谢他"])
def test_thanks_someone_else_gives_or_the_speaker_receives_is_a_report_not_thanks(said: str) -> None:
    v = verdicts(("user", "而且每个月还给我寄东西"), ("assistant", said))
    assert v["m2"].category != "noise"


@pytest.mark.parametrize("said", ["谢谢", "真是太感谢你了", "感谢我们团队的付出", "谢谢你 美嘉"])
def test_the_speakers_own_thanks_stays_noise(said: str) -> None:
    v = verdicts(("user", "报告我帮你改完了"), ("assistant", said))
    assert v["m2"].category == "noise"


@pytest.mark.parametrize("said", ["Well done", "great job, thanks!", "Nice work", "this is perfect", "yes this looks great",
                                  "干得漂亮", "做得不错"])
def test_praise_of_the_work_just_reported_is_noise_and_an_order_beside_it_is_not(said: str) -> None:
    v = verdicts(("user", "set up the nightly backup"), ("assistant", "Done. The backup runs at 02:00."), ("user", said),
                 ("user", f"{said}, now add the weekly one too"))
    assert v["m3"].category == "noise", v["m3"]
    assert v["m4"].category == "task", v["m4"]


@pytest.mark.parametrize("said", ["不客气", "别客气", "不用谢", "You're welcome."])
def test_a_reply_to_thanks_is_noise_only_after_thanks(said: str) -> None:
    """"别客气" with no thanks before it tells the listener how to behave ("don't stand on ceremony")."""
    after_thanks = verdicts(("user", "报告改好了"), ("assistant", "谢谢你"), ("user", said))
    assert after_thanks["m3"].category == "noise"
    elsewhere = verdicts(("user", "我想麻烦你帮个忙"), ("assistant", said))
    assert elsewhere["m2"].category != "noise"


@pytest.mark.parametrize("said", ["不客气！祝您生活愉快！再见！", "没关系的。谢谢啊。", "You're welcome, bye!"])
def test_a_reply_to_thanks_beside_a_pleasantry_that_needs_no_thanks_is_noise_anywhere(said: str) -> None:
    """"不客气！再见！" closes the conversation whatever came before it: the goodbye needs no thanks."""
    v = verdicts(("assistant", "这个景点没有找到评分"), ("user", "好的，没有问题了"), ("assistant", said))
    assert v["m3"].category == "noise"


def test_no_problem_is_read_alike_in_both_languages() -> None:
    """"没问题" like "no problem": a reply to thanks, elsewhere a promise or a claim that all is well."""
    for said in ("没问题", "No problem."):
        assert verdicts(("assistant", "报告改好了"), ("user", "谢谢你帮忙"), ("assistant", said))["m3"].category == "noise"
        promise = verdicts(("user", "动静不能太大"), ("assistant", said))
        assert promise["m2"].category != "noise"


@pytest.mark.parametrize("said", ["我看看", "我去找一下", "Let me check."])
def test_announcing_a_look_complies_only_with_something_asked(said: str) -> None:
    asked = verdicts(("user", "帮我查一下昨天的日志"), ("assistant", said))
    assert asked["m2"].category == "noise"
    own_plan = verdicts(("user", "我怎么会不信任你呢"), ("assistant", said))
    assert own_plan["m2"].category != "noise"


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.tuples(st.just("好的"), st.lists(st.sampled_from(["哈", "呵", "嘿"]), min_size=2, max_size=8)),
                 st.tuples(st.just("ok "), st.lists(st.sampled_from(["ha", "he"]), min_size=2, max_size=6))),
       st.sampled_from(["", "!", "。", "～"]))
def test_laughter_alone_reacts_and_acknowledges_nothing(formula_and_laugh: tuple[str, list[str]], end: str) -> None:
    """Laughter is a sound, not a reply: the dialogue-act schemes file it as non-verbal or as an
    interjection, never as an acknowledgement; beside a formula the formula decides."""
    formula, syllables = formula_and_laugh
    laugh = "".join(syllables)
    v = verdicts(("user", "这个插件昨天又把配置删了"), ("assistant", laugh + end),
                 ("user", "还好有备份"), ("assistant", formula + laugh))
    assert v["m2"].category != "noise"
    assert v["m2"].rule == "content:fragment"
    assert v["m4"].category == "noise"


@pytest.mark.parametrize(("said", "noise"), [("哎，妈", False), ("哎呀，大姐", False), ("谢谢，苏总", True),
                                            ("好的，王总", True)])
def test_a_form_of_address_beside_a_mere_sound_summons_beside_a_formula_is_polite(said: str, noise: bool) -> None:
    v = verdicts(("user", "这份合同昨天已经签了"), ("assistant", said))
    assert (v["m2"].category == "noise") is noise


@pytest.mark.parametrize("said", ["应该的", "荣幸"])
def test_its_my_duty_is_a_reply_to_thanks_only_after_thanks(said: str) -> None:
    after_thanks = verdicts(("assistant", "报告改好了"), ("user", "太感谢你了"), ("assistant", said))
    assert after_thanks["m3"].category == "noise"
    elsewhere = verdicts(("user", "他每天接孩子放学"), ("assistant", said))
    assert elsewhere["m2"].category != "noise"


@pytest.mark.parametrize("said", ["对", "是的", "对的"])
def test_a_chinese_affirmation_after_a_statement_agrees_and_says_something(said: str) -> None:
    """对/是 assert "that is correct": after a statement they agree (content, like Switchboard's aa);
    嗯 is the continuer that lets the other side go on."""
    v = verdicts(("user", "这个接口上周就已经废弃了"), ("assistant", said))
    assert v["m2"].category != "noise" and v["m2"].rule == "content:agreement"
    continuer = verdicts(("user", "这个接口上周就已经废弃了"), ("assistant", "嗯"))
    assert continuer["m2"].category == "noise"


@pytest.mark.parametrize("said", ["对", "是的"])
def test_a_chinese_affirmation_still_accepts_a_request_and_answers_a_yes_no_question(said: str) -> None:
    accepted = verdicts(("assistant", "我建议数据库用 PostgreSQL，部署用 Docker。"), ("user", said))
    assert accepted["m2"].category == "noise" and accepted["m1"].category == "decision"
    answered = verdicts(("assistant", "要不要我顺便把测试也补上？"), ("user", said))
    assert answered["m2"].rule == "context:answer" and answered["m1"].category == "decision"


def test_yes_after_a_statement_agrees_and_still_answers_a_question() -> None:
    agreed = verdicts(("user", "the old office was much closer to the station"), ("assistant", "Yes."))
    assert agreed["m2"].rule == "content:agreement"
    answered = verdicts(("assistant", "Shall I delete the old backups as well?"), ("user", "yes"))
    assert answered["m2"].rule == "context:answer" and answered["m1"].category == "decision"


@pytest.mark.parametrize("said", ["王老师好", "江教授好", "各位好"])
def test_a_form_of_address_with_hao_is_a_greeting(said: str) -> None:
    v = verdicts(("user", "我下午三点到会议室"), ("assistant", said))
    assert v["m2"].category == "noise"
    assert v["m2"].rule == "social:greeting"


@pytest.mark.parametrize("said", ["很好", "不好", "挺好"])
def test_an_evaluation_with_hao_is_not_a_greeting(said: str) -> None:
    v = verdicts(("user", "新方案我已经发给你了"), ("assistant", said))
    assert v["m2"].rule != "social:greeting"


@pytest.mark.parametrize("said", ["明天见", "待会儿见", "周一见", "不说了"])
def test_see_you_at_a_time_and_leave_taking_close_the_conversation(said: str) -> None:
    v = verdicts(("user", "报告我明早发你"), ("assistant", said))
    assert v["m2"].category == "noise"
    assert v["m2"].rule == "social:closing"


def test_seeing_someone_at_a_time_inside_a_sentence_is_content() -> None:
    v = verdicts(("user", "报告我明早发你"), ("assistant", "明天见客户之前先把报价单改好"))
    assert v["m2"].category != "noise"


@pytest.mark.parametrize(("reply", "noise"), [("你说呢", False), ("嗯呢", True), ("好啊", True), ("好的呀", True)])
def test_a_final_ne_asks_back_while_other_particles_only_soften(reply: str, noise: bool) -> None:
    """呢 turns "你说" (go on) into "what do you think?": a question back, never a continuer; 啊 and 呀
    change nothing of what an acknowledgement says ("嗯呢" is a continuer of its own)."""
    v = verdicts(("user", "我们下周要不要把服务器迁到新机房"), ("assistant", "迁过去成本会高一些"), ("user", reply))
    assert (v["m3"].category == "noise") is noise


POLL = "Read HEARTBEAT.md if it exists (workspace context). If nothing needs attention, reply HEARTBEAT_OK."


@pytest.mark.parametrize("role", ["user", "system"])
def test_a_heartbeat_poll_from_the_runtime_is_noise(role: str) -> None:
    v = verdicts(("assistant", "Done, the backup ran."), (role, POLL))
    assert (v["m2"].category, v["m2"].rule) == ("noise", "agent:heartbeat_poll"), v["m2"]


@pytest.mark.parametrize("answer", [
    f"Yes, the heartbeat fires every 30 minutes. Its prompt in your config:\n\n```json5\nprompt: \"{POLL}\"\n```",
    f"是的，心跳每 30 分钟触发一次。配置里的提示词是：\n\n```json5\nprompt: \"{POLL}\"\n```",
])
def test_the_agent_quoting_the_poll_to_explain_its_heartbeat_polls_nothing(answer: str) -> None:
    v = verdicts(("user", "Does the heartbeat run at a fixed interval?"), ("assistant", answer))
    assert v["m2"].category != "noise", v["m2"]
    assert (v["m1"].category, v["m1"].status) == ("process", "answered"), v["m1"]


@pytest.mark.parametrize(("question", "on_it", "answer"), [
    ("What's the disk usage on the server?", "Let me check.", "The disk is 40% full."),
    ("服务器磁盘满了吗？", "我去看看", "磁盘用了40%。"),
    ("Why is the deploy failing?", "Let me check the logs.", "The deploy fails because the image tag is missing."),
    ("服务为什么挂了？", "我先看一下日志", "服务挂了是因为内存不足。"),
    # the fourth review: "I'll check" had become an on-it to requests only
    ("Why is the deploy failing?", "I'll check the logs.", "The deploy fails because the image tag is missing."),
    ("Why is the deploy failing?", "I'll look into it.", "The deploy fails because the image tag is missing."),
    # the sixth: checking on a thing is the agent's look, checking on someone a visit
    ("Is the deploy to staging done yet?", "Let me check on that.", "Yes, the deploy to staging finished at 14:02."),
    ("Is the build green?", "I'll check on the build status.", "The build is green since 14:02."),
])
def test_on_it_after_a_question_leaves_the_answer_to_settle_it(question: str, on_it: str, answer: str) -> None:
    """Review: with "let me check" a reply only to a request, it answered the question itself and the
    real answer after the check no longer settled it (the check reported an open question)."""
    v = verdicts(("user", question), ("assistant", on_it), ("assistant", answer))
    assert v["m2"].category == "noise"
    assert v["m1"].rule == "resolve:answered"


def test_no_problem_to_a_yes_no_offer_is_a_yes() -> None:
    """Review: "没问题" read as a reply only to thanks left the agent's offer open and the decision lost."""
    v = verdicts(("user", "服务更新好了吗"), ("assistant", "更新好了。要我现在重启服务吗？"), ("user", "没问题"))
    assert (v["m2"].category, v["m2"].rule) == ("decision", "context:answered")
    assert v["m3"].rule == "context:answer"


@pytest.mark.parametrize(("question", "reply"), [
    ("你找谁？", "我来找我妈"), ("谁来负责这个？", "我来"), ("What are you doing tonight?", "I'm going to read a book"),
    ("你晚上干什么？", "我去看电影"), ("你下午去哪？", "我去看我奶奶"), ("Where are you going?", "I'll check on my mom."),
])
def test_a_reply_that_answers_a_question_is_not_the_agents_on_it(question: str, reply: str) -> None:
    """Third review: "let me check" after a question had widened to every on-it phrase and pattern."""
    v = verdicts(("user", question), ("assistant", reply))
    assert v["m2"].category != "noise"


@pytest.mark.parametrize(("question", "reply"), [
    ("你下午去哪？", "我去看看我奶奶"), ("你来医院干嘛？", "我来看看我妈"), ("你去哪儿？", "我去看一下我爸"),
    ("你下午干嘛去？", "我去检查一下身体"), ("What are you doing?", "Checking the mail."),
    ("What are you doing tonight?", "I'm going to read a book"), ("Where are you off to?", "Let me check on my mom first."),
    ("Tell me your plans for tonight.", "I'll check on my mom."), ("What you doing?", "Checking the mail."),
    ("你今天做啥？", "我去看看我奶奶"), ("今晚一起吃饭吗？", "我先看电影"), ("这周末有空吗？", "我先看书"),
    ("Are you free tonight?", "I'll check on the kids first."),
])
def test_a_question_about_the_speakers_day_is_answered_by_what_they_do(question: str, reply: str) -> None:
    """Fourth and fifth reviews: a question about what the speaker is doing or means to do
    (`signal.activity_question`) is answered by saying it, a look at a film or a book or a visit is no
    look-up: the reply is read for what it says, and settles the question."""
    v = verdicts(("user", question), ("assistant", reply))
    assert v["m2"].category != "noise", v["m2"]
    assert v["m1"].rule == "resolve:answered", v["m1"]


@pytest.mark.parametrize(("question", "on_it", "answer"), [
    ("What are you doing about the outage?", "Let me check the logs.", "The outage is caused by an expired certificate."),
    ("What's your plan for the failing build?", "Let me check.", "The build fails because the cache is stale."),
    ("Please restart the server and tell me your plans for tonight.", "On it.", "Restarted, and no plans tonight."),
])
def test_a_question_about_the_work_is_no_question_about_the_speakers_day(question: str, on_it: str, answer: str) -> None:
    """Fifth review: "what are you doing about …", "your plan for …" ask about the work, and a request beside a
    question about the speaker's plans is still a request: the agent's look or on-it there is its own."""
    v = verdicts(("user", question), ("assistant", on_it), ("assistant", answer))
    assert v["m2"].category == "noise", v["m2"]


def test_never_mind_to_an_offer_is_no_yes() -> None:
    """Third review: "没关系" (often "no need") to an offer had made it the decision; "没问题" is a yes."""
    v = verdicts(("assistant", "要我现在重启服务吗？"), ("user", "没关系"))
    assert v["m1"].category != "decision"
