"""Forms met in OpenClaw sessions of owners the rules were never tuned on (sentences invented here,
none quoted): the nineteenth round."""

from __future__ import annotations

from pathlib import Path

import pytest
from support_classify import verdicts

from apollo import config
from apollo.errors import ConfigError
from apollo.renal import reading
from apollo.renal.classify import Classifier


@pytest.mark.parametrize(("said", "category"), [
    ("下次改数据库前，需要询问", "preference"), ("以后部署前，先告诉我", "preference"), ("下次发邮件前先问我", "preference"),
    ("下次要问你吗", "question"), ("一般需要问一下医生", "process"), ("下次先问问你妈", "process"),
])
def test_asking_the_user_first_next_time_is_a_standing_rule_across_a_comma(said: str, category: str) -> None:
    """The time it holds for ("下次", "以后") may be a clause of its own; the asking alone closes the rule, and someone
    other than the user to ask is advice."""
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("said", "category"), [
    ("next time, check the logs first", "preference"), ("Next time you publish, always bump the version", "preference"),
    ("next time please don't email the whole team", "preference"), ("next time should I ask?", "question"),
    ("next time I'll fix it myself", "process"), ("see you next time", "process"),
])
def test_what_to_do_next_time_is_a_standing_rule(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("said", "category"), [
    ("读完这篇文章告诉我你的看法", "task"), ("改完了跟我说一声", "task"), ("测完以后通知我", "task"),
    ("他读完告诉我了", "process"), ("读完告诉我好吗？", "question"),
])
def test_a_word_back_asked_for_once_something_is_finished_is_an_order(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("said", "category"), [
    ("how do I actually install it here", "question"), ("does the cache actually help?", "question"),
    ("Actually, let's use Redis instead.", "decision"),
])
def test_actually_inside_a_question_changes_no_decision(said: str, category: str) -> None:
    """"actually" opening what is said may take a decision back; inside a clause it only stresses."""
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("asked", "said"), [
    ("Hi! I just woke up here. Who am I? Who are you?", "I'm Priya, I run a small bakery, you're my ordering assistant"),
    ("Nice to meet you. What should I call you, and what vibe do you want me to have?",
     "Sam is fine. Dry and a little sarcastic, like an old butler"),
    ("你好！我该怎么称呼你？你在忙什么项目？", "叫我阿明就行，我在做一个咖啡店的小程序"),
])
def test_the_users_answer_to_who_they_are_or_who_the_agent_should_be_is_a_fact_to_keep(asked: str, said: str) -> None:
    v = verdicts(("user", "hello"), ("assistant", asked), ("user", said))
    assert "preference" in (v["m2"].category, v["m3"].category) or "decision" in (v["m2"].category, v["m3"].category), v


@pytest.mark.parametrize(("asked", "said"), [
    ("Hey. Who am I? Who are you?", "/status"),
    ("好了，现在我知道该怎么称呼你了。有什么要我做的吗？", "我要出门了，等会聊"),
    ("What should I call the new config file?", "settings for the staging cluster and the nightly jobs"),
])
def test_a_reply_that_answers_no_question_about_the_user_is_no_fact(asked: str, said: str) -> None:
    """A command, a question about the work, or a statement that only says the agent knows the name now: what the user
    says next is not who they are."""
    assert verdicts(("user", "hello"), ("assistant", asked), ("user", said))["m3"].category != "preference"


@pytest.mark.parametrize(("said", "category"), [
    ("Meu gato se chama Pipoca", "preference"), ("mi hermana se llama Lucía", "preference"),
    ("como se chama o seu gato?", "question"), ("mi jefe me llama cada día", "process"),
])
def test_the_name_of_someone_of_the_users_in_portuguese_or_spanish_is_a_fact(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("said", "category"), [
    ("decime qué hora es en Tokio", "task"), ("mostrame los logs de hoy", "task"), ("revisá el servidor", "task"),
    ("hacé una copia de la base", "task"), ("hace calor hoy", "process"), ("abrí la app y se cerró", "process"),
    ("設定ファイルを確認", "task"), ("ポートが開いているか確認", "task"), ("設定ファイルを確認した", "process"),
    ("報告目前的進度", "question"), ("报告写完了", "process"),
    ("status?", "question"), ("any updates", "question"), ("报告的结果不对", "process"), ("报告进度：80%", "process"),
    ("昨日サーバーの状態を確認", "process"), ("毎朝メールを確認", "process"),
])
def test_orders_in_voseo_japanese_notes_and_one_word_state_requests(said: str, category: str) -> None:
    """Spanish as said to "vos" (alone, only with its accent); a Japanese note closing on the work's noun; 报告 with the
    state asked for; a state asked for in one word."""
    assert verdicts(("user", said))["m1"].category == category


def test_the_agents_words_sent_back_as_the_users_are_an_echo() -> None:
    said = ("I can't reach your laptop from here. You'll need to start the desktop app yourself and then send me "
            "the exported file again.")
    v = verdicts(("user", "can you start the desktop app on my laptop"), ("assistant", said), ("user", said))
    assert (v["m3"].category, v["m3"].rule) == ("noise", "repeat:echo")
    assert v["m1"].category == "task" and v["m1"].status == "current"


def test_a_part_of_the_agents_message_copied_back_is_no_echo() -> None:
    """Copying one item of the agent's list picks it: only the whole message sent back is the channel's echo."""
    option = "Keep the tone casual and warm, explain the reasoning when a problem needs analysis, joke now and then"
    v = verdicts(("user", "suggest a persona for yourself"),
                 ("assistant", f"Two ideas:\n1. {option}\n2. Formal and brief, never joke, answer in bullet points"),
                 ("user", option))
    assert v["m3"].rule != "repeat:echo"


@pytest.mark.parametrize(("reply", "names"), [
    ("🛡️ **Verifying:**", set()), ("✅ **Checking** the backups now", set()), ("Done. Next I update the docs.", set()),
    ("Good night, Priya!", {"priya"}), ("Hey Sam 👋", {"sam"}), ("Thanks Jan, Postgres is up", {"jan", "postgres"}),
])
def test_a_name_is_a_word_capitalised_after_a_comma_or_a_word(reply: str, names: set[str]) -> None:
    """Not after an emoji, a mark or the end of a sentence: that capital opens the line or the sentence."""
    assert reading._names(reply) == names


def test_a_short_reply_in_the_agents_words_is_no_echo() -> None:
    v = verdicts(("user", "the gateway hangs"), ("assistant", "Should I restart the gateway now?"),
                 ("user", "restart the gateway now"))
    assert v["m3"].category != "noise"


@pytest.mark.parametrize("reply", ["You're welcome, Priya!", "Good night, Priya! 🌙", "Hey Priya! What's up?"])
def test_the_agents_formula_that_names_the_user_is_a_formula(reply: str) -> None:
    v = verdicts(("user", "back up the photos"), ("assistant", "Backup done."), ("user", "thanks"), ("assistant", reply))
    assert v["m4"].category == "noise"


def test_an_agents_reply_naming_someone_and_saying_more_is_not_a_formula() -> None:
    v = verdicts(("user", "back up the photos"), ("assistant", "Backup done."), ("user", "thanks"),
                 ("assistant", "Thanks Priya, the Postgres dump also finished."))
    assert v["m4"].category != "noise"


@pytest.mark.parametrize("reply", [
    "I couldn't fetch the exchange rate just now. I'll try again in a minute.",
    "Je n'ai pas pu récupérer le cours. Je réessaie dans un instant.",
    "没能获取到汇率，我稍后再试。",
])
def test_a_question_the_agent_could_not_get_the_answer_to_stays_open(reply: str) -> None:
    v = verdicts(("user", "what's the euro to yen rate today?"), ("assistant", reply))
    assert (v["m1"].category, v["m1"].status) == ("question", "current")


@pytest.mark.parametrize("reply", [
    "Berikut daftar pelanggan teratas:\n1. Toko Maju\n2. Sinar Jaya",
    "Hier ist die Liste der Kunden:\n1. Müller\n2. Schmidt",
])
def test_a_list_handed_over_in_indonesian_or_german_delivers_the_request(reply: str) -> None:
    v = verdicts(("user", "tampilkan pelanggan teratas"), ("assistant", reply))
    assert v["m1"].status in ("done", "answered"), v["m1"]


def test_replies_to_that_names_no_signal_is_refused_where_it_is_loaded(tmp_path: Path) -> None:
    """A user's rule file that maps a reply fact to a signal no rule file gives fails at load, not mid-session."""
    (tmp_path / "rows.toml").write_text('[classify]\nreplies_to = [["replies_profile_question", "asks_profle"]]\n',
                                        encoding="utf-8")
    (tmp_path / "config.toml").write_text('[renal]\nrule_files = ["rows.toml"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="replies_to names no signal \\('asks_profle'\\)"):
        Classifier(config.load(None, extra_layers=[tmp_path / "config.toml"]))


@pytest.mark.parametrize(("said", "category"), [
    ("https://github.com/acme/tool install this", "task"), ("https://example.org/paper.pdf summarize it", "task"),
    ("https://status.example.org is down again", "process"),
    ("tes lagi dengan port 8080", "task"), ("bantui saya rekap penjualan", "task"),
    ("Liệt kê tất cả các workflow trong n8n", "task"), ("kiểm tra dung lượng ổ đĩa", "task"),
    ("kiểm tra xong rồi", "process"), ("liệt kê được không", "process"), ("kiểm tra mất nhiều thời gian", "process"),
])
def test_an_order_after_a_link_or_in_indonesian_and_vietnamese_forms(said: str, category: str) -> None:
    """A link before the order names what it acts on; "tes lagi", "bantui saya …"; a Vietnamese verb that only orders
    opening its clause with what it acts on, not when the clause reports, asks or says something of it."""
    assert verdicts(("user", said))["m1"].category == category


def test_a_new_preference_replaces_no_earlier_one_through_the_words_of_the_question_it_follows() -> None:
    """Each reply to the agent's questions borrows the question's topic words: a later rule about an emoji, after a
    question that again says "assistant", shares them with the name given after the first one, and replaces nothing:
    the rule's own words are what it is about."""
    v = verdicts(("assistant", "你觉得我该叫什么名字？你希望我是什么样的助手？"), ("user", "你就叫 慢慢 吧"),
                 ("assistant", "好，我是慢慢了 🐔 你希望我做什么样的助手？要不要先发个文档给我试试？"),
                 ("user", "不要再发 🐔 这个了，我不太喜欢"))
    assert (v["m2"].category, v["m2"].status) == ("preference", "current"), v["m2"]


def test_a_change_that_names_what_the_question_was_about_still_replaces_the_answer() -> None:
    v = verdicts(("user", "set up the project"), ("assistant", "Should the database be SQLite or PostgreSQL?"),
                 ("user", "PostgreSQL"), ("user", "actually switch the database to MySQL instead"))
    assert v["m3"].status == "superseded"


def test_the_agents_message_sent_back_with_its_emphasis_marks_changed_is_an_echo() -> None:
    said = ("I can't reach your laptop from here. **What I can do:** run commands in my workspace, edit files, and "
            "start coding agents for you. Want me to try one of those instead?")
    v = verdicts(("user", "can you start the desktop app on my laptop"), ("assistant", said),
                 ("user", said.replace("**", "*")))
    assert v["m3"].rule == "repeat:echo"


@pytest.mark.parametrize(("reply", "status"), [
    ("I can't open apps on your laptop. I could run a command, if your laptop is online and reachable. Want me to?",
     "current"),
    ("Gitea is up on the NUC.", "done"),
])
def test_a_service_up_only_on_a_condition_reports_nothing_done(reply: str, status: str) -> None:
    v = verdicts(("user", "start gitea on the nuc"), ("assistant", reply))
    assert v["m1"].status == status


@pytest.mark.parametrize(("reply", "status"), [
    ("I'm sorry, but I can't execute shell commands in this environment.", "current"),
    ("I don't have access to run commands on that server.", "current"),
    ("I can't see any files there, the folder is empty.", "answered"),
])
def test_a_question_the_agent_cannot_look_into_here_stays_open(reply: str, status: str) -> None:
    v = verdicts(("user", "list the files in /srv/backups"), ("assistant", reply))
    assert v["m1"].status == status


@pytest.mark.parametrize(("asked", "reply"), [
    ("Help me draft a letter to my landlord about the broken heater",
     "Here is a letter you can send:\n\nDear Mr. Novak,\nthe heater in flat 4 has not worked since Monday and the "
     "nights are cold. Could you send someone to repair it this week? I am home after 5pm every day.\nKind regards,\nAnna"),
    ("帮我写一封邮件给客户，说明下周停机维护", "邮件如下：\n\n尊敬的客户：下周二凌晨两点到四点系统停机维护，给您带来不便敬请谅解。"),
    ("soạn tin nhắn xin nghỉ phép cho sếp", "Bạn có thể gửi tin nhắn này: Chào anh, em xin phép nghỉ ngày mai vì bị ốm."),
])
def test_text_asked_for_is_delivered_by_the_reply(asked: str, reply: str) -> None:
    """Writing a letter or a message is work the reply hands over: the request stays a task, no longer open."""
    v = verdicts(("user", asked), ("assistant", reply))
    assert (v["m1"].category, v["m1"].status) == ("task", "answered"), v["m1"]


@pytest.mark.parametrize("asked", ["write a letter to the landlord and send it by email",
                                   "write a script that backs up the database every night"])
def test_text_to_be_sent_on_or_code_to_run_is_ordinary_work(asked: str) -> None:
    v = verdicts(("user", asked), ("assistant", "Sure, here it is."))
    assert v["m1"].rule != "intent:compose"


@pytest.mark.parametrize(("reply", "status"), [
    ("日历权限还没开通。授权完成后，我立即帮你设置提醒。", "current"),
    ("如果你之前配置过，很可能已经设置好了。", "current"),
    ("提醒已经设置好了。", "done"),
])
def test_a_completion_only_awaited_or_guessed_reports_nothing_done(reply: str, status: str) -> None:
    v = verdicts(("user", "帮我在日历里设置一个提醒"), ("assistant", reply))
    assert v["m1"].status == status



@pytest.mark.parametrize("reply", ["Sure, Tuesday.", "Yes, Frankfurt.", "Yep, Hetzner Frankfurt.", "是的，Docker。"])
def test_a_capitalised_answer_after_a_yes_is_the_answer_not_a_name(reply: str) -> None:
    """Only greetings, goodbyes, wishes and thanks are said with a name: after a yes or a sure the word is the answer."""
    v = verdicts(("user", "which one is it?"), ("assistant", reply))
    assert v["m2"].category != "noise" and v["m1"].status == "answered", v


@pytest.mark.parametrize("turns", [
    (("user", "write two short tweet drafts about our bakery"),
     ("assistant", "Option A: Fresh sourdough every morning at the corner of Elm Street, baked by people who love bread."),
     ("assistant", "Option B: Your first loaf of real sourdough is closer than you think, come and taste it at Elm Street.")),
    (("user", "delete the old backups"),
     ("assistant", "This cannot be undone. To confirm, reply with exactly the next message."),
     ("assistant", "I confirm that all backups older than thirty days on the storage server will be deleted now.")),
])
def test_one_of_several_agent_messages_copied_back_is_no_echo(turns: tuple[tuple[str, str], ...]) -> None:
    """A channel echoes the agent's only message right away; one of several is copied to pick or confirm it."""
    v = verdicts(*turns, ("user", turns[-1][1]))
    assert v[f"m{len(turns) + 1}"].rule != "repeat:echo"


@pytest.mark.parametrize("reply", [
    "Berikut rencana deploy saya:\n1. build image\n2. restart service\nLanjut?",
    "Berikut ini saya cek dulu datanya ya.",
    "Hier ist das Problem: der Port 5432 ist blockiert.",
    "Here is the plan:\n1. build the image\n2. push it\nShall I proceed?",
])
def test_a_plan_a_problem_or_what_the_agent_will_do_hands_nothing_over(reply: str) -> None:
    v = verdicts(("user", "deploy aplikasi ke server produksi"), ("assistant", reply))
    assert v["m1"].status == "current"


@pytest.mark.parametrize("said", ["Actually, it works now, thanks", "actually nvm", "Actually, great job on the report",
                                  "Actually I have a question: how do I reset the token?"])
def test_actually_opening_a_remark_or_a_question_decides_nothing(said: str) -> None:
    assert verdicts(("user", "use SQLite for now"), ("user", said))["m2"].category != "decision"


@pytest.mark.parametrize("reply", [
    "I couldn't find any errors in last night's logs; every request returned 200.",
    "I couldn't fetch the live rate, but yesterday's close was 162.4 yen per euro.",
    "没能查到任何错误记录，日志都很正常。",
])
def test_what_was_looked_for_and_not_found_or_a_fallback_answers(reply: str) -> None:
    v = verdicts(("user", "any errors in the logs, and what's the rate?"), ("assistant", reply))
    assert v["m1"].status == "answered"


def test_a_failure_written_with_a_curly_apostrophe_leaves_the_question_open() -> None:
    v = verdicts(("user", "what's the euro to yen rate?"),
                 ("assistant", "I couldn’t fetch the exchange rate just now. I’ll try again in a minute."))
    assert v["m1"].status == "current"


@pytest.mark.parametrize(("asked", "said"), [
    ("What tone would you like for the email?", "firm but polite, he ignored my last two messages so no niceties"),
    ("Who are you deploying as? The CI user or your own account?", "my own account, from my laptop with the old key"),
    ("Hey! I just came online. Who am I? Who are you?", "I dont have time for this setup stuff right now, the server is down"),
    ("Hey! I just came online. Who am I? Who are you?", "我明天再弄这个，今天太累了"),
])
def test_a_work_question_or_a_put_off_makes_no_fact_of_the_reply(asked: str, said: str) -> None:
    assert verdicts(("user", "hello"), ("assistant", asked), ("user", said))["m3"].rule != "intent:profile"


def test_what_do_you_want_me_to_call_you_asks_who_the_user_is() -> None:
    v = verdicts(("user", "hello"), ("assistant", "Nice to meet you! What do you want me to call you? And my vibe?"),
                 ("user", "Sam is fine. Dry humour and short answers, like a grumpy old butler who likes tea"))
    assert {"preference", "decision"} & {v["m2"].category, v["m3"].category}, v


@pytest.mark.parametrize("said", ["meu script chama a API do Google e dá erro 403", "mi script se llama cada hora por cron",
                                  "meu chefe me chama de preguiçoso", "next time I'll ask Tom directly",
                                  "next time it crashes I'll check the logs myself", "我朋友看完跟我说挺好看的",
                                  "他听完就跟我说不行", "https://blog.example.com/rag Build a RAG chatbot in 10 minutes",
                                  "tes lagi gagal, error 500", "Phân tích của bạn rất hay", "下次先问我们组长"])
def test_forms_that_look_like_the_new_rules_but_report_or_call(said: str) -> None:
    assert verdicts(("user", said))["m1"].category not in ("preference", "task")



@pytest.mark.parametrize("reply", ["Sure, give me a minute.", "Sorry, I can't write cover letters.", "好的，马上写。",
                                   "Let me know the job title first."])
def test_text_asked_for_is_not_handed_over_by_a_promise_a_refusal_or_a_question_back(reply: str) -> None:
    v = verdicts(("user", "draft a cover letter for the bakery job"), ("assistant", reply))
    assert (v["m1"].category, v["m1"].status) == ("task", "current"), v["m1"]


@pytest.mark.parametrize("asked", ["write a short summary at the end of every answer",
                                   "写一篇文章要多久", "Em viết bài này hôm qua rồi"])
def test_a_standing_rule_a_question_or_a_report_is_no_text_asked_for(asked: str) -> None:
    assert verdicts(("user", asked))["m1"].rule != "intent:compose"


@pytest.mark.parametrize("turns", [
    (("user", "数据库用 PostgreSQL"), ("assistant", "好的，记下了。"), ("user", "部署一下"), ("assistant", "数据库用什么？"),
     ("user", "换成 MySQL 吧")),
    (("user", "use PostgreSQL for the database"), ("assistant", "Noted."), ("assistant", "Which database should we use?"),
     ("user", "switch to MySQL")),
])
def test_a_change_that_names_only_the_new_value_replaces_the_decision_the_question_was_about(
        turns: tuple[tuple[str, str], ...]) -> None:
    """The question's words say what a change naming something of its own is about."""
    assert verdicts(*turns)["m1"].status == "superseded"


@pytest.mark.parametrize(("reply", "status"), [
    ("The API timed out and I couldn't fetch the live rate.", "current"),
    ("接口超时了，没能获取实时汇率。", "current"),
    ("I can't browse the internet, but as of last week it was about 150 yen.", "answered"),
])
def test_a_failure_after_its_cause_leaves_the_question_open_and_a_fallback_answers(reply: str, status: str) -> None:
    assert verdicts(("user", "what's the usd to jpy rate?"), ("assistant", reply))["m1"].status == status


@pytest.mark.parametrize(("reply", "status"), [
    ("Here is the root cause: the session token expires after five minutes.", "current"),
    ("Berikut penyebab masalahnya: token kedaluwarsa.", "current"),
    ("Gitea is up and I set it to restart if it crashes.", "done"),
])
def test_a_diagnosis_hands_nothing_over_and_a_condition_after_the_state_keeps_it_done(reply: str, status: str) -> None:
    assert verdicts(("user", "start gitea and fix the login bug"), ("assistant", reply))["m1"].status == status


def test_text_handed_over_in_two_messages_is_handed_over() -> None:
    """A letter, then "Want me to make it shorter?": the turn's texts one after another hand it over together."""
    v = verdicts(("user", "draft a cover letter for the bakery job"),
                 ("assistant", "Dear team, I would love to bake for Elm Street. Sam"),
                 ("assistant", "I kept it short. Want me to add a line about pastry, or make it more formal?"))
    assert v["m1"].status == "answered"



def test_a_short_text_asked_for_is_handed_over_by_a_reply_that_holds_it() -> None:
    v = verdicts(("user", "write me a tweet about our new sourdough"),
                 ("assistant", "Fresh sourdough every morning at Elm Street. Crust that crackles, crumb that sings."))
    assert v["m1"].status == "answered"


def test_a_no_with_the_failure_that_says_why_answers_a_yes_no_question() -> None:
    v = verdicts(("user", "is the staging server up?"),
                 ("assistant", "No, I couldn't reach it: connection refused on port 22."))
    assert v["m1"].status == "answered"


@pytest.mark.parametrize("reply", ["네! 여기 있습니다. 무엇을 도와드릴까요?", "Chào bạn! Mình có thể giúp gì cho bạn?", "Hello! May I help you?"])
def test_an_offer_of_help_in_korean_vietnamese_or_may_i_asks_nothing_specific(reply: str) -> None:
    """A generic offer of help closing a greeting's reply leaves the user nothing to answer: no open question."""
    assert verdicts(("user", "hi"), ("assistant", reply))["m2"].category != "question"
