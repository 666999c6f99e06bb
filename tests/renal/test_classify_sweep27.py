"""Forms met in OpenClaw sessions that no sweep or review had read before (57 sessions of 27 repositories, the second
held-out sweep; sentences invented here, none quoted): the twenty-seventh round."""

from __future__ import annotations

import pytest
from support_classify import exec_step, verdicts


def _request_status(request: str, report: str) -> str:
    """The status of the user's ``request`` once the agent worked on it (a tool call and its result) and said ``report``."""
    return verdicts(("user", request), *exec_step("1"), ("assistant", report))["m1"].status


@pytest.mark.parametrize("greeting", ["moin", "Moin moin!", "Servus", "Guten Morgen", "guten abend :)", "Grüss dich",
                                      "Buenas", "Buen día", "Coucou", "Bonsoir", "Buongiorno", "Hoi", "Goedemorgen",
                                      "annyeonghaseyo", "Merhaba!", "salam"])
def test_a_greeting_in_german_spanish_french_italian_or_dutch_is_noise(greeting: str) -> None:
    v = verdicts(("user", "Set up the weekly backup."), ("assistant", "Done: every Sunday at 02:00."),
                 ("user", greeting))
    assert (v["m3"].category, v["m3"].rule) == ("noise", "social:greeting")


@pytest.mark.parametrize("closing", ["Tschüss!", "bis morgen", "Gute Nacht", "à bientôt", "Bonne nuit", "nos vemos",
                                     "buonanotte", "Flw", "falou!", "até mais"])
def test_a_goodbye_in_those_languages_is_noise(closing: str) -> None:
    v = verdicts(("user", "Set up the weekly backup."), ("assistant", "Done: every Sunday at 02:00."),
                 ("user", closing))
    assert (v["m3"].category, v["m3"].rule) == ("noise", "social:closing")


@pytest.mark.parametrize("ping", ["bro you on?", "you on bro?", "dude, you there?", "buddy are you still there?",
                                  "are u OK？", "r u on?", "你怎么死机了", "你怎么没反应", "为什么不说话？"])
def test_a_ping_with_a_form_of_address_is_a_ping(ping: str) -> None:
    """The form of address goes with the formula beside it: asked, it is the ping's question, not a question to answer."""
    v = verdicts(("user", "Fix the login page."), ("assistant", "Working on it."), ("user", ping))
    assert (v["m3"].category, v["m3"].rule) in {("noise", "social:ping"), ("noise", "social:greeting")}  # "you there?"


@pytest.mark.parametrize("said", ["bro?", "老王", "Moin, kannst du die Backups prüfen?", "Servus, der Server ist down"])
def test_an_address_alone_or_a_greeting_with_a_request_is_not_noise(said: str) -> None:
    v = verdicts(("user", "Fix the login page."), ("assistant", "Working on it."), ("user", said))
    assert v["m3"].category != "noise"


@pytest.mark.parametrize("failure", ["no, the tests still fail", "No. The build is still failing.", "nope, still failing"])
def test_a_no_before_the_failure_only_says_no_to_the_report(failure: str) -> None:
    v = verdicts(("user", "Fix the failing tests in the parser."), *exec_step("1"),
                 ("assistant", "Done, I fixed the tests in the parser."), ("user", failure))
    assert (v["m1"].category, v["m1"].status) == ("task", "current")
    assert v["m4"].rule == "resolve:failed"


@pytest.mark.parametrize("said", ["no, thanks", "no", "no, that's all", "no, the tests pass now"])
def test_a_no_to_the_offer_after_the_report_closes_nothing_again(said: str) -> None:
    v = verdicts(("user", "Fix the failing tests in the parser."), *exec_step("1"),
                 ("assistant", "Done, I fixed the tests in the parser. Anything else?"), ("user", said))
    assert v["m1"].status == "done"
    assert v["m4"].rule != "resolve:failed"


@pytest.mark.parametrize("closing", ["Beleza 👍 qualquer coisa tô aqui.", "Tô por aqui!", "Aquí estoy si me necesitas."])
def test_the_agents_im_around_in_portuguese_or_spanish_is_a_closing(closing: str) -> None:
    v = verdicts(("user", "Fix the login page."), *exec_step("1"), ("assistant", "Fixed: the session cookie expired early."),
                 ("user", "valeu"), ("assistant", closing))
    assert v["m6"].category == "noise"


def test_an_answer_written_whole_as_json_answers_the_question() -> None:
    """A bot that answers in structured output: its fenced JSON is its answer, so the question is settled."""
    v = verdicts(("user", "what can you do for me?"),
                 ("assistant", '```json\n{"reply": "I can book rooms and draft quotes."}\n```'),
                 ("user", "ok book a room for friday"))
    assert (v["m1"].category, v["m1"].status) == ("process", "answered")


def test_a_users_pasted_json_answers_nothing() -> None:
    v = verdicts(("assistant", "Which port should the gateway use?"), ("user", '```json\n{"port": 8080}\n```'),
                 ("user", "what is the default one?"))
    assert v["m3"].category == "question"


@pytest.mark.parametrize("paste", [
    "@me ➜ ~/.openclaw $ gog gmail labels list\nID NAME TYPE\nINBOX INBOX system",
    "➜  webapp git:(main) ✗ npm test\n3 failing\n  1) login redirects",
    "root@vps:~# systemctl restart openclaw\nFailed to restart openclaw.service: Unit not found.",
    "me@MacBook-Pro ~ % openclaw gateway start\nerror: port 18789 in use",
])
def test_a_pasted_terminal_with_a_zsh_root_or_codespace_prompt_orders_nothing(paste: str) -> None:
    v = verdicts(("assistant", "Run it and show me the output."), ("user", paste))
    assert (v["m2"].category, v["m2"].rule) == ("process", "content:pasted")


@pytest.mark.parametrize("said", ["➜ deploy the app to staging", "➜ Next: rotate the keys", "ping me@host: # 5 is done"])
def test_an_arrow_or_an_address_in_the_users_words_is_no_prompt(said: str) -> None:
    v = verdicts(("assistant", "What next?"), ("user", said))
    assert v["m2"].rule != "content:pasted"


def test_an_attachment_in_reply_to_who_the_user_is_is_no_fact_to_remember() -> None:
    v = verdicts(("assistant", "Hi! I just came online. What should I call you?"), ("user", "<media:audio>"),
                 ("user", "Call me Jan."))
    assert v["m2"].category != "preference"
    assert (v["m3"].category, v["m3"].rule) == ("preference", "intent:profile")


@pytest.mark.parametrize("rule", ["写周报的时候要附上数据来源", "发版的时候要先通知测试组",
                                  "以后安装 skills 和 plugins 都先过一遍安全检查"])
def test_a_chinese_rule_for_when_something_is_done_is_a_preference(rule: str) -> None:
    v = verdicts(("user", rule), ("assistant", "好的，记住了"))
    assert v["m1"].category == "preference"


@pytest.mark.parametrize("said", ["下载的时候要十分钟", "安装的时候要等很久", "开会的时候要不要带电脑", "我上班的时候要开车",
                                  "到时候要提醒我"])
def test_what_it_takes_a_question_or_the_speakers_own_doing_is_no_such_rule(said: str) -> None:
    v = verdicts(("user", said), ("assistant", "好的"))
    assert v["m1"].category != "preference"


@pytest.mark.parametrize("order", ["使用skills让小车走到红色物品的位置", "用脚本让机器人回到起点"])
def test_the_means_of_making_something_happen_is_no_decision(order: str) -> None:
    v = verdicts(("user", order), ("assistant", "好的"))
    assert v["m1"].category != "decision"


@pytest.mark.parametrize("choice", ["用PostgreSQL吧", "用 Docker 部署", "后端用Go"])
def test_a_choice_of_what_to_use_is_still_a_decision(choice: str) -> None:
    v = verdicts(("user", choice), ("assistant", "好的"))
    assert v["m1"].category == "decision"


@pytest.mark.parametrize("rule", ["Eu quero que você sempre responda curto", "quiero que nunca borres nada sin preguntar",
                                  "Je veux que tu me demandes toujours avant de supprimer",
                                  "Desde ahora quiero respuestas cortas"])
def test_i_want_you_to_always_in_portuguese_spanish_or_french_is_a_preference(rule: str) -> None:
    v = verdicts(("user", rule), ("assistant", "Ok"))
    assert v["m1"].category == "preference"


def test_asked_whether_the_agent_should_always_is_no_rule() -> None:
    v = verdicts(("user", "quer que eu sempre te avise?"), ("assistant", "Sim"))
    assert v["m1"].category != "preference"


@pytest.mark.parametrize("question", ["Que dia é hoje", "que horas são", "was haben wir zuletzt gemacht",
                                      "wie spät ist es", "welches Modell nutzt du gerade"])
def test_a_portuguese_or_german_question_without_its_mark_is_a_question(question: str) -> None:
    v = verdicts(("user", question))
    assert v["m1"].category == "question"


@pytest.mark.parametrize("said", ["Que bom que deu certo", "que dia lindo hoje", "was für ein Chaos", "wie gesagt, mach weiter",
                                  "Wann immer du Zeit hast, prüf die Logs", "wie schön"])
def test_an_exclamation_as_said_or_whenever_is_no_question(said: str) -> None:
    v = verdicts(("user", said))
    assert v["m1"].category != "question"


@pytest.mark.parametrize("said", ["tz is Lisbon", "Timezone UTC-5.", "tz: Europe/Berlin", "timezone is America/New_York"])
def test_the_users_time_zone_said_tersely_is_a_fact_to_remember(said: str) -> None:
    v = verdicts(("assistant", "What timezone are you in?"), ("user", said))
    assert (v["m2"].category, v["m2"].rule) == ("preference", "intent:profile")


@pytest.mark.parametrize("said", ["timezone is wrong in the config", "the timezone is off by an hour", "tz is still unset",
                                  "timezone mismatch", "tz: ugh"])
def test_a_fault_of_the_time_zone_is_no_fact_about_the_user(said: str) -> None:
    v = verdicts(("user", said))
    assert v["m1"].rule != "intent:profile"


@pytest.mark.parametrize("order", ["你帮我用我的账号发帖子", "帮我用Python写个脚本"])
def test_an_order_with_its_means_is_a_task_not_a_choice(order: str) -> None:
    v = verdicts(("user", order), ("assistant", "好的"))
    assert v["m1"].category == "task"


def test_not_to_expose_is_a_ban() -> None:
    v = verdicts(("user", "不要暴露我们公司的名字"), ("assistant", "好的"))
    assert v["m1"].category == "preference"


def test_a_no_that_is_itself_the_failure_still_reopens_the_request() -> None:
    v = verdicts(("user", "修复仪表盘"), *exec_step("1"), ("assistant", "✅ 已恢复！"),
                 ("user", "不对，太子说他不是按照三省六部来执行任务的"))
    assert (v["m1"].status, v["m4"].rule) == ("current", "resolve:failed")


@pytest.mark.parametrize("report", ["I fixed the error in the parser.", "Fixed the failing test.",
                                    "I created the cron job, next run 02:00.", "Backup scheduled, next run Monday 02:00."])
def test_a_failure_that_was_fixed_or_the_next_run_of_a_job_is_no_work_still_going_on(report: str) -> None:
    assert _request_status("Fix the parser and set up the nightly backup.", report) == "done"


@pytest.mark.parametrize("report", ["Fixed the import, but the build failed.", "Deployed, next step is the DNS.",
                                    "The deploy failed, so I fixed the config."])
def test_a_failure_after_the_fix_or_the_next_step_is_still_work_going_on(report: str) -> None:
    assert _request_status("Fix the parser and deploy.", report) == "current"


@pytest.mark.parametrize("offer", ["Anything else, or are we done for today?", "¿Algo más o lo dejamos por hoy?",
                                   "¿Algo más?", "还有别的需要吗？还是今天就到这里？",
                                   "Soll ich noch etwas machen oder ist Schluss für heute?"])
def test_a_report_closing_on_a_generic_offer_stays_the_outcome(offer: str) -> None:
    v = verdicts(("user", "Set up a cron job for the backup every 8 hours."), *exec_step("1"),
                 ("assistant", f"✅ Cron created: backup every 8h, next run 02:00. {offer}"),
                 ("user", "thanks, that is all"))
    assert (v["m4"].category, v["m4"].action) == ("decision", "keep")


@pytest.mark.parametrize("said", ["没反应了", "是不是挂了？", "又挂了吗"])
def test_a_page_or_service_that_did_not_come_back_is_no_ping(said: str) -> None:
    """Said after the agent's report, without 你, these say what the product does: the report did not work."""
    v = verdicts(("user", "帮我重启一下nginx服务"), *exec_step("1"), ("assistant", "已经重启好了，你再刷新试试。"), ("user", said))
    assert v["m5"].category != "noise"


@pytest.mark.parametrize("closing", ["Does anything look broken on your side?", "Let me know if anything looks broken.", ""])
@pytest.mark.parametrize("said", ["no, nothing is broken, looks good", "nope, nothing went wrong", "没有，不再崩溃了"])
def test_a_no_with_no_failure_after_it_reopens_nothing(closing: str, said: str) -> None:
    v = verdicts(("user", "upgrade the django version in requirements"), *exec_step("1"),
                 ("assistant", f"Upgraded to Django 5.0 and all tests pass. {closing}"), ("user", said))
    assert v["m1"].status == "done"
    assert v["m4"].rule != "resolve:failed"


@pytest.mark.parametrize("closing", ["Does it work on your side?", "Does it work now?", "Done."])
@pytest.mark.parametrize("said", ["no, it still fails with a 502", "no, it still crashes on safari", "不行，还是报错"])
def test_a_no_with_the_failure_after_it_reopens_the_request_whatever_was_asked(closing: str, said: str) -> None:
    v = verdicts(("user", "fix the login crash"), *exec_step("1"),
                 ("assistant", f"Fixed the crash in the login form. {closing}"), ("user", said))
    assert v["m1"].status == "current"


@pytest.mark.parametrize("report", ["I fixed the config and restarted the service, the deploy failed with a 502.",
                                    "Fixed the typo and reran it - the build failed again.",
                                    "Removed the lockfile and reinstalled; npm install failed with EACCES.",
                                    "Fixed the import, tests failed though."])
def test_a_fix_earlier_in_the_line_does_not_hide_a_later_failure(report: str) -> None:
    assert _request_status("fix the deploy pipeline", report) == "current"


@pytest.mark.parametrize("order", ["je veux que tu regardes pourquoi le build plante toujours",
                                   "quero que você descubra por que o cron nunca roda",
                                   "quiero que revises por qué el backup siempre falla los lunes"])
def test_always_in_a_clause_under_the_order_is_no_rule(order: str) -> None:
    v = verdicts(("user", order), ("assistant", "Ok"))
    assert v["m1"].category == "task"


@pytest.mark.parametrize("said", ["需求如下：\n➜ 首页 (新版) 背景改成蓝色\n➜ 登录页 (移动端) 加上验证码\n以后每次改完都先跑测试",
                                  "➜ Ads $ 500 per month\n➜ Always ask me before spending more"])
def test_a_list_with_arrows_is_the_users_words(said: str) -> None:
    v = verdicts(("assistant", "What next?"), ("user", said))
    assert v["m2"].category == "preference"


@pytest.mark.parametrize("choice", ["缓存层用 Redis 让接口更快", "后端用 Go 让性能更好一点"])
def test_a_choice_with_what_it_is_for_is_still_a_decision(choice: str) -> None:
    v = verdicts(("user", choice), ("assistant", "好的"))
    assert v["m1"].category == "decision"


@pytest.mark.parametrize("said", ["项目编译的时候要 10 分钟左右，正常吗", "安装的时候要输入管理员密码", "登录的时候要验证码，但是我手机收不到"])
def test_what_a_step_takes_or_requires_is_no_rule_for_the_agent(said: str) -> None:
    v = verdicts(("user", said), ("assistant", "好的"))
    assert v["m1"].category != "preference"


def test_what_went_wrong_after_an_upgrade_is_no_rule_from_now_on() -> None:
    v = verdicts(("user", "升级系统"), *exec_step("1"), ("assistant", "升级完成了。"),
                 ("user", "升级以后这个页面上的按钮和图标都不显示了"))
    assert v["m5"].category != "preference"


@pytest.mark.parametrize("said", ["Cualquier cosa me avisas", "salve"])
def test_a_request_to_be_told_or_to_save_is_no_closing(said: str) -> None:
    v = verdicts(("assistant", "Corrigi 12 erros no arquivo."), ("user", said))
    assert v["m2"].category != "noise"


@pytest.mark.parametrize("said", ["Wie letztes Mal bitte", "Wie oben beschrieben soll das Backup laufen"])
def test_wie_as_before_is_no_question(said: str) -> None:
    v = verdicts(("assistant", "Soll ich das alte Format nehmen?"), ("user", said))
    assert v["m2"].category != "question"


@pytest.mark.parametrize("said", ["desde ahora hasta el lunes estoy de vacaciones", "desde ahora mismo el login da error 500"])
def test_from_now_until_or_since_just_now_is_no_rule(said: str) -> None:
    v = verdicts(("user", said))
    assert v["m1"].category != "preference"


@pytest.mark.parametrize("reply", ["npm ERR! code ELIFECYCLE\nnpm ERR! errno 1",
                                   '```json\n{"name": "web_search", "arguments": {"query": "weather Lisbon"}}\n```',
                                   "```tool_code\nprint(google_search.search(query='weather Lisbon'))\n```",
                                   "```\nError: listen EADDRINUSE :::3000\n```"])
def test_a_log_a_tool_call_printed_as_text_or_a_fenced_error_answers_nothing(reply: str) -> None:
    v = verdicts(("user", "what is the weather in Lisbon and why does the server fail?"), ("assistant", reply))
    assert v["m1"].category == "question"


def test_digits_still_answer_the_agents_question_about_the_user() -> None:
    v = verdicts(("assistant", "Hey! I just came online. What should I call you? How old are you?"), ("user", "34"))
    assert (v["m2"].category, v["m2"].rule) == ("preference", "intent:profile")


@pytest.mark.parametrize("report", ["Listo. Creé **Prisma** como agente nuevo.", "Creé `backup.sh` en la carpeta scripts."])
def test_a_spanish_report_naming_what_it_made_in_bold_or_code_is_done(report: str) -> None:
    assert _request_status("Crea un agente nuevo.", report) == "done"


def test_a_failure_still_to_fix_is_work_going_on() -> None:
    report = "Good progress! Two files updated successfully. Let me fix the failed edits by"
    assert _request_status("update the files", report) == "current"


@pytest.mark.parametrize("report", ["Ejecuté `npm test` y 3 tests fallaron.", "Actualicé `axios`, queda pendiente `react`.",
                                    "Instalé **Node 20**, sin embargo el build no compila."])
def test_a_spanish_report_with_a_failure_or_work_left_is_not_done(report: str) -> None:
    assert _request_status("Arregla el build.", report) == "current"


@pytest.mark.parametrize("said", ["上传的时候要先压缩，能不能简化", "发邮件的时候要抄送我，但是邮件一直收不到",
                                  "升级以后页面上的按钮都是灰色的", "升级以后服务都起不来了"])
def test_a_question_or_a_failure_beside_when_or_after_is_no_rule(said: str) -> None:
    v = verdicts(("user", said), ("assistant", "好的"))
    assert v["m1"].category != "preference"


def test_the_file_shown_in_a_fence_answers_show_me_the_file() -> None:
    v = verdicts(("user", "Show me the file"), ("assistant", "```markdown\n# Notes\n- item one\n```"), ("user", "ok thanks"))
    assert (v["m1"].category, v["m1"].status) == ("process", "answered")


@pytest.mark.parametrize(("rule", "addendum"), [
    ("Always reply in English in this group.", "Em outros grupos também."),
    ("以后回复都用中文", "其他群也一样"),
    ("Always answer in German.", "bei allen Projekten"),
    ("Never post without asking me first.", "same for emails"),
    ("Quando eu falar olá voz vc aparece aqui ok", "Em outras conversas."),
    ("Always reply in English.", "in all groups"),
])
def test_a_scope_added_to_the_rule_just_given_is_part_of_the_rule(rule: str, addendum: str) -> None:
    v = verdicts(("user", rule), ("assistant", "Got it."), ("user", addendum))
    assert (v["m3"].category, v["m3"].rule) == ("preference", "intent:preference")


@pytest.mark.parametrize(("before", "said"), [
    ("Fix the header.", "also fix the footer"),  # new work
    ("Fix the header.", "also for the footer"),  # a scope added to work, not to a rule
    ("以后回复都用中文", "我也是"),  # the speaker
    ("Always reply in English in this group.", "also in the other groups?"),  # asked
    ("Fix the header.", "in all pages"),  # a scope added to work
    ("Always reply in English.", "also during the demo the server crashed"),  # a report
    ("以后回复都用中文", "换了浏览器也一样"),  # still broken
])
def test_also_after_work_as_new_work_about_the_speaker_or_asked_is_no_rule(before: str, said: str) -> None:
    v = verdicts(("user", before), ("assistant", "Done."), ("user", said))
    assert v["m3"].category != "preference"


@pytest.mark.parametrize("rule", ["No more emojis in your replies, ok?", "no more walls of text please", "ok no more jokes"])
def test_no_more_of_what_the_agent_puts_in_its_replies_is_a_preference(rule: str) -> None:
    v = verdicts(("assistant", "Here you go 😀🎉"), ("user", rule))
    assert v["m2"].category == "preference"


@pytest.mark.parametrize("said", ["no more errors in the log", "no more tables?", "no more questions"])
def test_no_more_of_what_is_over_or_asked_is_no_rule(said: str) -> None:
    v = verdicts(("assistant", "Here you go 😀🎉"), ("user", said))
    assert v["m2"].category != "preference"


def test_a_widening_after_the_agents_work_or_question_or_after_another_widening_is_no_rule() -> None:
    v = verdicts(("user", "Always reply in English."), *exec_step("1"), ("assistant", "Done, switched to English."),
                 ("user", "in all groups"))
    assert v["m5"].category != "preference"
    v = verdicts(("user", "Always reply in English."), ("assistant", "Got it. Both channels or just this one?"),
                 ("user", "same for both"))
    assert v["m3"].category != "preference"
    v = verdicts(("user", "Always reply in English."), ("assistant", "Got it."), ("user", "in all groups"),
                 ("assistant", "Ok."), ("user", "in all other channels"))
    assert v["m5"].category != "preference"
