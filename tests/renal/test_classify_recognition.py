"""Recognition from the structure of a turn: what the agent reports, narrates or still asks."""

from __future__ import annotations

import pytest
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
    v = verdicts(("user", "Create the quarterly report."), _call("c1", "a"), _result("r1", "a"), asked)
    assert v["m4"].category == "question" and v["m4"].status == "current"
    v = verdicts(("user", "Create the quarterly report."), _call("c1", "a"), _result("r1", "a"), asked,
                 ("user", "No, keep it local for now, I will send it myself after the review."))
    assert (v["m4"].category, v["m4"].status, v["m4"].rule) == ("decision", "current", "resolve:answered")


def test_a_report_that_asks_with_no_work_behind_it_is_only_a_question() -> None:
    asked = ("assistant", "Done. I created the quarterly report. Which team should receive it, finance or sales?")
    v = verdicts(("user", "Create the quarterly report."), asked,
                 ("user", "No, keep it local for now, I will send it myself after the review."))
    assert v["m2"].category == "process" and v["m2"].status == "answered"


@pytest.mark.parametrize("notice", [
    "Reminder for parents: tomorrow at 8:20 am we meet at the school gate, bring a water bottle.",
    "通知：明天8:30在体育馆门口集合，请穿运动鞋，带好水杯。",
])
def test_a_dated_appointment_the_user_forwards_is_a_task(notice: str) -> None:
    v = verdicts(("assistant", "Morning! Anything for today?"), ("user", notice))
    assert v["m2"].category == "task" and v["m2"].rule == "intent:appointment"


def test_a_question_about_an_appointment_stays_a_question() -> None:
    v = verdicts(("user", "Is the dentist tomorrow at 9am or at 10am?"))
    assert v["m1"].category == "question"


@pytest.mark.parametrize("command", ["git status", "openclaw doctor", "npm run build --watch"])
def test_a_command_line_sent_on_its_own_asks_for_it_to_be_run(command: str) -> None:
    v = verdicts(("assistant", "The gateway restarted."), ("user", command))
    assert v["m2"].category == "task"


@pytest.mark.parametrize("said", [
    "The term started, Python class and Web Design class.", "docker is down", "node is not on the path",
    "git was slow for me this morning",
])
def test_a_sentence_that_names_a_command_line_tool_is_no_command(said: str) -> None:
    v = verdicts(("assistant", "The gateway restarted."), ("user", said))
    assert v["m2"].category != "task", v["m2"]


def test_the_users_own_work_still_to_do_is_a_task() -> None:
    v = verdicts(("assistant", "Shall I draft the slides and the quiz?"),
                 ("user", "No, neither is needed yet. I have to finish the grant report first, just keep going."))
    assert v["m2"].category == "task"


def test_a_setting_stated_as_changed_is_a_preference() -> None:
    v = verdicts(("assistant", "Which time is the evening check-in now?"),
                 ("user", "The evening check-in was moved to 9:15 last week"))
    assert v["m2"].category == "preference"


def test_zh_a_suggestion_for_the_agents_own_work_is_a_preference() -> None:
    v = verdicts(("assistant", "周报模板更新好了。"), ("user", "你的周报模板可以加入风险和阻塞一节"))
    assert v["m2"].category == "preference"


def test_the_agents_question_the_user_moved_on_from_is_dropped_when_it_asks_another() -> None:
    v = verdicts(("assistant", "Which region should the bucket live in, eu-west or us-east?"),
                 ("user", "Can you also rename the staging database to staging_v2?"),
                 ("assistant", "Renamed. Should the old name stay as an alias for a week?"))
    assert v["m1"].category == "process" and v["m1"].status == "superseded"
    assert v["m3"].category == "question" and v["m3"].status == "current"


def test_two_questions_in_a_row_before_the_user_replies_both_stay_open() -> None:
    v = verdicts(("assistant", "Which region should the bucket live in?"),
                 ("assistant", "And which team owns the billing alerts?"))
    assert v["m1"].category == v["m2"].category == "question"
    assert v["m1"].status == v["m2"].status == "current"


def test_a_report_whose_question_was_left_behind_keeps_its_outcome() -> None:
    v = verdicts(("user", "Create the quarterly report."), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", "Done. I created the quarterly report. Which team should receive it, finance or sales?"),
                 ("user", "Can you also rename the staging database to staging_v2?"),
                 ("assistant", "Renamed. Should the old name stay as an alias for a week?"))
    assert (v["m4"].category, v["m4"].status, v["m4"].action) == ("decision", "current", "keep")


def test_the_output_under_a_pasted_shell_prompt_is_not_the_users_words() -> None:
    pasted = ("PS C:\\Users\\me\\scripts> .\\rotate.ps1\n"
              "Creating the scheduled task for you, please wait\n"
              "You should run this as administrator. Do you want to continue?\n\n"
              "what went wrong?")
    v = verdicts(("assistant", "Run the script and paste what it prints."), ("user", pasted))
    assert v["m2"].category == "question"  # only "what went wrong" is the user's
    only_output = "PS C:\\Users\\me\\scripts> .\\rotate.ps1\nPlease always run this as administrator. Continue?"
    v = verdicts(("assistant", "Run the script and paste what it prints."), ("user", only_output))
    assert v["m2"].category == "process" and v["m2"].rule == "content:pasted"


@pytest.mark.parametrize("reply", [
    "I tried to add the cron entry, but I don't have permission to edit the system crontab here. "
    "You will need to add the line yourself.",
    "很遗憾，目前不支持直接接入这个聊天软件，最接近的是邮件渠道。",
])
def test_what_the_agent_could_not_do_is_an_outcome(reply: str) -> None:
    v = verdicts(("user", "Add the nightly cron entry for the backup."), ("assistant", reply))
    assert v["m2"].category == "decision" and v["m2"].rule == "intent:blocked"


def test_a_blocker_the_agent_works_around_in_the_same_turn_is_narration() -> None:
    v = verdicts(("user", "Fetch the project page."), ("assistant", "页面无法访问。让我换个方式获取："),
                 _call("c1", "a"), _result("r1", "a"), ("assistant", "搞定！项目页面已保存到 notes/page.md。"))
    assert v["m2"].category == "process"


@pytest.mark.parametrize("reply", [
    "好的！请你在后台给我开通文档的编辑权限，步骤如下：1. 打开开放平台 2. 进入应用 3. 添加权限。",
    "I need you to run the installer as administrator, then paste what it prints.",
    "The wiki blocks me. You can help by:\n\n1. Open the wiki in Chrome\n2. Click the extension icon\n3. Tell me when done",
    "The wiki wants a login. Sign in on the page, then let me know once you have logged in.",
])
def test_work_the_agent_hands_to_the_user_is_a_task(reply: str) -> None:
    v = verdicts(("user", "Back up the notes to the team wiki."), ("assistant", reply))
    assert v["m2"].category == "task" and v["m2"].rule == "intent:assigns"


@pytest.mark.parametrize("reply", [
    "Got it, nothing sent. Let me know when you're ready.", "Let me know if you need anything else.",
])
def test_waiting_for_the_user_hands_over_no_work(reply: str) -> None:
    v = verdicts(("user", "Hold the wiki backup for now."), ("assistant", reply))
    assert v["m2"].category != "task", v["m2"]


@pytest.mark.parametrize("rule", [
    "报表里的金额都只能使用人民币，按场景换算汇率",
    "我觉得每个评分都应该是连续的，而不是分段的。为什么跌 19% 和跌 5% 一样？",
    "I think every reminder should go through the queue file. Why was a cron job made?",
    "Only use the subscription models for coding tasks",
])
def test_a_scope_or_a_normative_view_of_the_user_is_a_standing_preference(rule: str) -> None:
    v = verdicts(("assistant", "The scoring module is updated."), ("user", rule))
    assert v["m2"].category == "preference", v["m2"]


@pytest.mark.parametrize("fact", [
    "We have a cat named Pixel. What else should you know?",
    "我家有一只狗叫豆豆，还要知道什么？",
])
def test_a_fact_about_the_user_stays_a_fact_when_the_message_also_asks(fact: str) -> None:
    v = verdicts(("assistant", "Tell me about your family."), ("user", fact))
    assert v["m2"].category == "preference" and v["m2"].rule == "intent:profile"


def test_asking_about_the_user_is_no_fact() -> None:
    v = verdicts(("user", "What's my wife's name again?"))
    assert v["m1"].category == "question"


@pytest.mark.parametrize("setting", ["把日报推送改为每2小时一次。", "Change the backup job to every night at 2am"])
def test_a_recurring_job_set_to_a_new_frequency_is_a_standing_setting(setting: str) -> None:
    v = verdicts(("assistant", "The daily report job is running."), ("user", setting))
    assert v["m2"].category == "preference"


# -- a user's question the agent's turn settles ---------------------------------------------------


def test_a_plain_question_the_agents_turn_answers_is_settled_out_of_the_must_keep_items() -> None:
    v = verdicts(("user", "Which port does the staging database listen on?"),
                 ("assistant", "Staging's PostgreSQL listens on 5433; production keeps the default 5432."),
                 ("user", "Great, noted."))
    assert v["m1"].status == "answered" and v["m1"].category == "process"


def test_zh_a_plain_question_answered_at_the_end_of_the_stream_is_settled() -> None:
    v = verdicts(("user", "测试服务器的数据库是哪个版本？"), ("assistant", "测试服务器的数据库是 PostgreSQL 15.4，和生产环境一致。"))
    assert v["m1"].status == "answered" and v["m1"].category == "process"


def test_a_question_answered_with_a_question_back_stays_a_question() -> None:
    v = verdicts(("user", "How should I size the new cache volume?"),
                 ("assistant", "It depends on the working set. How many gigabytes does the hot data take today?"),
                 ("user", "Let me measure it tonight."))
    assert v["m1"].category == "question"


def test_an_answer_that_only_narrates_a_step_leaves_the_question_open_for_the_final_text() -> None:
    v = verdicts(("user", "Where did the export script write its output?"),
                 ("assistant", "Let me look at the output folder:"), _call("c1", "a"), _result("r1", "a"))
    assert v["m1"].category == "question" and v["m1"].status == "current"
    v = verdicts(("user", "Where did the export script write its output?"),
                 ("assistant", "Let me look at the output folder:"), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", "The export script writes to /srv/exports, one CSV per day."))
    assert v["m1"].status == "answered" and v["m1"].category == "process"


def test_a_question_that_also_asks_for_work_keeps_its_category_once_answered() -> None:
    v = verdicts(("user", "那份周报你把它备份到知识库去吧，可以吗？"),
                 ("assistant", "知识库接口返回 400，这次没能备份，本地副本还在。"))
    assert v["m1"].category in ("question", "task")


@pytest.mark.parametrize("said", [
    "这里我引用你之前的说明，再检查一遍部署清单",   # 引用: to quote
    "清理一下服务器上那些没用的旧日志",             # 没用: useless
    "你看我的配置，里面根本没有用到这些插件",       # 用到: to make use of (a statement of fact)
    "列一下现在代码里用到的第三方库",               # 用到, in a request for a list
])
def test_zh_use_inside_a_compound_word_makes_no_choice(said: str) -> None:
    v = verdicts(("assistant", "配置已经整理好了。"), ("user", said))
    assert v["m2"].category != "decision", v["m2"]


@pytest.mark.parametrize("said", ["图表用 echarts", "语音合成使用 tts-large-v2，图片生成使用 image-pro"])
def test_zh_a_choice_of_what_to_use_is_still_a_decision(said: str) -> None:
    v = verdicts(("assistant", "配置已经整理好了。"), ("user", said))
    assert v["m2"].category == "decision", v["m2"]


@pytest.mark.parametrize("closing", ["Anything else I can help with?", "还有什么需要我帮忙的吗？"])
def test_an_answer_closing_with_a_generic_offer_of_help_still_settles_the_question(closing: str) -> None:
    v = verdicts(("user", "Which region is the staging bucket in?"),
                 ("assistant", f"The staging bucket lives in eu-west-1, next to the build runners. {closing}"),
                 ("user", "ok"))
    assert v["m1"].status == "answered" and v["m1"].category == "process"


def test_an_answer_closing_with_a_specific_offer_leaves_the_question_with_its_category() -> None:
    v = verdicts(("user", "Which region is the staging bucket in?"),
                 ("assistant", "I could not read the bucket settings. Would you like me to request read access?"),
                 ("user", "later"))
    assert v["m1"].category == "question"


@pytest.mark.parametrize(("social", "reply"), [
    ("Good night!", "Good night! The nightly backup is configured ✅ and runs at 02:00. Anything else?"),
    ("你好", "你好，老板！今天系统运行正常，日志轮转任务已经配置完成。有什么需要我帮忙的吗？"),
    ("thanks a lot", "You're welcome! The invoice template is updated ✅"),
])
def test_the_agents_reply_to_a_greeting_goodbye_or_thanks_decides_nothing(social: str, reply: str) -> None:
    v = verdicts(("user", "Set up the nightly backup, please."), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", "Done. The nightly backup is configured and runs at 02:00."),
                 ("user", social), ("assistant", reply))
    assert v["m4"].category == "decision"
    assert v["m6"].category == "process" and v["m6"].rule == "context:social_reply"


def test_a_specific_question_in_the_reply_to_a_greeting_still_asks() -> None:
    v = verdicts(("user", "hi"), ("assistant", "Hi! The staging database was renamed ✅. Should the old name stay "
                                               "as an alias for a week?"))
    assert v["m2"].category == "question"


@pytest.mark.parametrize("text", [
    "Would you like help with: 1. sessions 2. model costs?",
    "how can you work without file access???",
    "Why can you not read the folder?",
])
def test_an_offer_or_a_question_about_ability_asks_for_no_work(text: str) -> None:
    v = verdicts(("assistant", "The gateway restarted."), ("user", text))
    assert v["m2"].category != "task", v["m2"]


@pytest.mark.parametrize("text", ["Would you check the backup log?", "Can you check the backup log?",
                                  "Would you mind renaming the report to q3.pdf?"])
def test_a_polite_request_still_asks_for_work(text: str) -> None:
    v = verdicts(("assistant", "The gateway restarted."), ("user", text))
    assert (v["m2"].category, v["m2"].rule) == ("task", "intent:task"), v["m2"]


def test_a_refusal_said_without_trying_decides_nothing() -> None:
    v = verdicts(("user", "I will give you access, ask for the api key."),
                 ("assistant", "I cannot access external systems or retrieve API keys. Let me know if you need help "
                               "with the tools I have."))
    assert v["m2"].category == "process" and v["m2"].rule == "intent:refusal"


def test_what_the_agent_cannot_do_after_trying_is_an_outcome() -> None:
    v = verdicts(("user", "Update the cron so the reminders run by themselves."),
                 _call("c1", "a"), _result("r1", "a"),
                 ("assistant", "I cannot update the cron from here: the gateway asks for pairing first. You will "
                               "need to add the entry yourself."))
    assert v["m4"].category == "decision" and v["m4"].rule == "intent:blocked"


@pytest.mark.parametrize("reply", [
    "The user has sent a goodnight message and asked for nothing, so no tool call is needed. Response: Good night! "
    "Everything is saved ✅",
    "用户让我休息一下，没有具体任务，不需要调用工具。回复：好的，晚安！已经保存好了 ✅",
    "用户一直在问我是否读取了配置文件，但结果还没返回。让我再读一次：",
    "用户提到可以使用另一个浏览器工具。让我先检查浏览器状态，然后继续搜索。",
])
def test_the_agents_reasoning_about_the_user_leaked_into_its_reply_decides_nothing(reply: str) -> None:
    v = verdicts(("user", "Well, sleep well and think about tomorrow's plan."), ("assistant", reply))
    assert v["m2"].category == "process" and v["m2"].rule == "process:leaked_reasoning"


def test_work_said_done_with_nothing_done_since_the_user_wrote_is_no_outcome() -> None:
    """A claim: no tool call since the request and no output pasted. Only the reply stops counting
    as an outcome; the task it names is still closed, as before."""
    v = verdicts(("user", "Set a reminder for the dentist on Friday at 9am."),
                 ("assistant", "All set ✅ I will remind you on Friday at 9am."))
    assert v["m2"].category == "process" and v["m2"].rule == "intent:claim"


def test_output_the_user_pasted_is_work_the_agents_report_stands_on() -> None:
    pasted = "PS C:\\Users\\me\\scripts> .\\setup-backup.ps1\n[OK] Task created\n[OK] Setup complete"
    v = verdicts(("assistant", "Run setup-backup.ps1 and paste what it prints."), ("user", pasted),
                 ("assistant", "Configured ✅ the backup task now runs every Sunday at 02:00."))
    assert v["m3"].category == "decision" and v["m3"].rule == "intent:outcome"


@pytest.mark.parametrize(("offer", "pick"), [
    ("Which should I start with: 1. the inventory sheet, 2. the price list, 3. the supplier emails?", "all three"),
    ("先做哪个：方案 A 清洗数据，方案 B 出报表，方案 C 写周报？", "全部逐一开始"),
    ("要保存到本地文档还是知识库？", "两个都要"),
])
def test_picking_among_the_options_the_agent_asked_about_is_a_decision(offer: str, pick: str) -> None:
    v = verdicts(("assistant", offer), ("user", pick))
    assert (v["m2"].category, v["m2"].rule) == ("decision", "intent:decision"), v["m2"]


def test_a_statement_that_mentions_all_of_them_is_no_pick() -> None:
    v = verdicts(("assistant", "Do you have private students too?"),
                 ("user", "Yes, three of them. All three of these live in another time zone."))
    assert v["m2"].category != "decision", v["m2"]


@pytest.mark.parametrize("reply", [
    "解决方案：优先使用 write 重写整个文件，只有很小的确定改动才用 edit。",
    "Understood. From now on I'll write every change to the changelog before committing.",
    "明白了，下次我会自己先查配置里的日志路径，不再问你。",
])
def test_the_agents_commitment_to_how_it_will_work_is_a_decision(reply: str) -> None:
    v = verdicts(("user", "Why did the edit fail again? Find a way that does not confuse me."), ("assistant", reply))
    assert (v["m2"].category, v["m2"].rule) == ("decision", "intent:commitment"), v["m2"]


def test_advice_to_prefer_something_is_no_commitment_of_the_agents() -> None:
    v = verdicts(("user", "Which database should the new service use?"),
                 ("assistant", "建议优先使用 PostgreSQL，它的生态更成熟。"))
    assert v["m2"].rule != "intent:commitment", v["m2"]


@pytest.mark.parametrize(("said", "report"), [
    ("From now on, when something fails, write down the fix yourself without asking me.",
     "Done ✅ I added that rule to MEMORY.md under lessons."),
    ("以后出错了，找到解决办法后要自动记录下来，不用我提醒。", "完成了 ✅ 已记录到 MEMORY.md 的经验与教训一节。"),
])
def test_the_report_of_carrying_out_a_preference_just_given_adds_nothing_to_keep(said: str, report: str) -> None:
    v = verdicts(("user", said), _call("c1", "a"), _result("r1", "a"), ("assistant", report))
    assert v["m1"].category == "preference"
    assert (v["m4"].category, v["m4"].rule) == ("process", "intent:applied"), v["m4"]


@pytest.mark.parametrize(("question", "answer"), [
    ("who are you?", "I'm Nova, your assistant for the shop and the side projects. What's on the agenda today?"),
    ("Are you able to update your tools.md?", "Yes, I can edit TOOLS.md in the workspace. Want me to add the router notes?"),
    ("你用的是什么大模型啊？", "我现在用的是通义千问 3.5 Plus，通过百炼接入。需要我换成别的模型吗？"),
])
def test_a_question_about_the_agent_itself_is_settled_by_its_answer(question: str, answer: str) -> None:
    v = verdicts(("user", question), ("assistant", answer), ("user", "ok, thanks"))
    assert (v["m1"].category, v["m1"].status) == ("process", "answered"), v["m1"]


def test_a_question_answered_by_an_offer_to_do_what_was_asked_stays_a_question() -> None:
    v = verdicts(("user", "how do I set up the vpn on the nas?"),
                 ("assistant", "It depends on the model. Want me to set up the vpn on the nas for you?"),
                 ("user", "later"))
    assert v["m1"].category == "question", v["m1"]


@pytest.mark.parametrize("answer", [
    "You install it with the package manager and start the service, then log in from the link it prints. "
    "Want me to write a backup script too?",
    "Pick the one with the larger context window; the cheaper one forgets the first chapters of the draft. "
    "Which chapter are you working on now?",
    "先在设置里打开隐私模式，再把同步间隔调到一小时，耗电就会明显下降。需要我把这些写进说明文档吗？",
])
def test_an_answer_that_ends_on_a_follow_up_or_another_offer_settles_the_question(answer: str) -> None:
    """The answer is given; what the agent asks or offers after it is a new matter, not the question still open."""
    v = verdicts(("user", "how do I get this done on the server?"), ("assistant", answer), ("user", "ok"))
    assert (v["m1"].category, v["m1"].status) == ("process", "answered"), v["m1"]


@pytest.mark.parametrize("reply", [
    "Which server do you mean, the staging box or the one at home? And which distro does it run?",
    "你说的是哪台服务器？家里的还是公司的？用的是什么系统？",
])
def test_a_question_back_in_place_of_an_answer_leaves_the_question_open(reply: str) -> None:
    v = verdicts(("user", "how do I get the vpn running on the server?"), ("assistant", reply), ("user", "the home one"))
    assert v["m1"].category == "question", v["m1"]


@pytest.mark.parametrize("reply", [
    "The wiki is down right now, so I could not look it up. The local notes say nothing about it.",
    "知识库接口暂时无法访问，这次没能查到，本地笔记里也没有相关记录。",
])
def test_an_answer_that_says_what_could_not_be_done_leaves_the_question_open(reply: str) -> None:
    v = verdicts(("user", "what did we decide about the retention period?"), ("assistant", reply), ("user", "ok"))
    assert v["m1"].category == "question", v["m1"]


def test_a_question_answered_before_the_agent_goes_on_working_is_answered_by_that_text() -> None:
    """The answer given first stays the question's answer (the compact view keeps it with the work
    that follows); whether it settled the question is decided by the turn's last words."""
    v = verdicts(("user", "Does the backup tool support S3? Also write the cleanup script."),
                 ("assistant", "S3 is not supported by the backup tool; a local disk is the closest. Now the script:"),
                 _call("c1", "a"), _result("r1", "a"),
                 ("assistant", "Done: the cleanup script removes archives older than a month."), ("user", "thanks"))
    assert v["m1"].status == "answered" and v["m1"].answered_by == "m2", v["m1"]
    assert v["m2"].category == "decision", v["m2"]  # the answer is no narrated step: it stands


def test_a_question_whose_turn_ends_on_work_stays_open() -> None:
    v = verdicts(("user", "Why is the nightly export empty since Monday?"),
                 ("assistant", "The export job ran, but its log shows a warning first:"), _call("c1", "a"), _result("r1", "a"),
                 ("user", "hello?"))
    assert (v["m1"].category, v["m1"].status) == ("question", "current"), v["m1"]


@pytest.mark.parametrize("said", [
    "How can we keep the hosting as cheap as possible?",
    "Can we carry on with the builds as cheaply as possible?",
    "以后写周报尽量简洁，不要超过一页。",
    "If the primary model fails, switch to the local one without asking.",
    "如果主库连接失败，你就先切到只读副本。",
])
def test_a_standing_goal_or_a_rule_for_when_something_fails_is_a_preference(said: str) -> None:
    v = verdicts(("assistant", "The model settings are updated."), ("user", said))
    assert v["m2"].category == "preference", v["m2"]


@pytest.mark.parametrize("said", [
    "Make the quarterly summary as short as possible.",
    "把这段介绍改得尽量简洁。",
    "Restart the mail worker. If it fails, retry once and ping me.",
    "那就发吧，如果发不出去就算了。",
])
def test_how_one_task_is_to_be_done_is_no_standing_preference(said: str) -> None:
    v = verdicts(("assistant", "The model settings are updated."), ("user", said))
    assert v["m2"].category != "preference", v["m2"]


@pytest.mark.parametrize(("stance", "report"), [
    ("From now on put every new reminder in the queue file.",
     "Done, moved the three reminders to the queue file. Should I also clear the old cron entries?"),
    ("以后每次出错都要自动记录到经验文件里。", "已记录到经验文件 ✅。需要我顺便整理一下以前的记录吗？"),
    ("Let's use the queue file for reminders.", "Done: the reminders now go to the queue file."),
])
def test_a_report_that_carries_out_the_users_stance_adds_nothing_to_keep(stance: str, report: str) -> None:
    """The user's preference or decision holds the state; the report of applying it is no decision of its own
    (what it asks stays open until answered)."""
    v = verdicts(("user", stance), _call("c1", "a"), _result("r1", "a"), ("assistant", report), ("user", "no, thanks"))
    assert v["m4"].category == "process" and v["m4"].rule == "intent:applied", v["m4"]
    assert v["m1"].category in ("preference", "decision") and v["m1"].status == "current", v["m1"]


def test_a_superseded_decision_leaves_the_must_keep_categories() -> None:
    v = verdicts(("user", "Let's use SQLite for the new project."), ("assistant", "OK, SQLite it is."),
                 ("user", "Actually, switch to PostgreSQL instead of SQLite for the new project."))
    assert (v["m1"].category, v["m1"].status, v["m1"].superseded_by) == ("process", "superseded", "m3"), v["m1"]
    assert v["m3"].category == "decision"


def test_a_superseded_preference_keeps_its_kind() -> None:
    """Two standing rules on one subject often both hold in part: the earlier one stays a preference, outdated."""
    v = verdicts(("user", "From now on always reply in English."), ("assistant", "Understood."),
                 ("user", "Actually, from now on always reply in Chinese instead of English."))
    assert (v["m1"].category, v["m1"].status) == ("preference", "superseded"), v["m1"]


@pytest.mark.parametrize("pasted", ['{"attachment_id": "a1b2c3"}', '{"upload": "f_9", "name": "report.pdf"}'])
def test_a_message_that_is_only_a_json_object_says_nothing_of_the_speakers(pasted: str) -> None:
    v = verdicts(("assistant", "Which player do you mean, the speaker app or the web one?"), ("user", pasted))
    assert v["m2"].rule == "content:pasted", v["m2"]


@pytest.mark.parametrize(("question", "answer"), [
    ("What do you remember about me?",
     "From my notes: you are Sam, you live in Leeds and you run a small bakery. Anything to add or correct?"),
    ("你还记得我什么？", "我记得：你叫小林，在杭州做前端开发，周末喜欢爬山。还有要补充的吗？"),
])
def test_what_the_agent_tells_the_user_it_knows_about_them_is_a_fact_to_remember(question: str, answer: str) -> None:
    v = verdicts(("user", question), ("assistant", answer), ("user", "that's right"))
    assert (v["m2"].category, v["m2"].rule) == ("preference", "intent:profile"), v["m2"]


def test_what_the_agent_remembers_about_a_project_is_no_fact_about_the_user() -> None:
    v = verdicts(("user", "What do you remember about the migration project?"),
                 ("assistant", "From my notes: the migration moves the shop to PostgreSQL; the cut-over is not scheduled."))
    assert v["m2"].category != "preference", v["m2"]


def test_asking_whether_it_got_done_is_no_decision() -> None:
    v = verdicts(("assistant", "日志分析报告已生成，正在整理经验记录。"), ("user", "搞定了吗"))
    assert v["m2"].category != "decision", v["m2"]
    v = verdicts(("assistant", "方案一和方案二你选哪个？"), ("user", "定了，就用方案二"))
    assert v["m2"].category == "decision", v["m2"]


@pytest.mark.parametrize("said", ["Explain how the backup rotation works", "Give me a list of the open invoices",
                                  "汇报一下迁移的进度", "请介绍一下这个项目的目录结构",
                                  "Check whether the nightly export ran", "检查一下现在的部署脚本有哪些步骤"])
def test_a_request_for_information_is_a_question_settled_by_its_answer(said: str) -> None:
    v = verdicts(("user", said), ("assistant", "The nightly job keeps seven copies and deletes the oldest one first; "
                                               "the monthly copies stay a year."), ("user", "ok"))
    assert (v["m1"].category, v["m1"].status) == ("process", "answered"), v["m1"]
    v = verdicts(("user", said))
    assert v["m1"].category == "question", v["m1"]


@pytest.mark.parametrize("said", ["List and delete the old log files", "Search and replace the old domain in the docs"])
def test_an_order_that_changes_something_is_no_request_for_information(said: str) -> None:
    v = verdicts(("user", said))
    assert v["m1"].category == "task", v["m1"]


@pytest.mark.parametrize("said", [
    "Look up the train times to Leeds on Saturday and buy two returns",
    "Show me the disks that are over 90% full, then clean up the temp files on them",
    "检查一下仓库里有哪些过期的分支，然后全部删除",
    "帮我列出上个月的发票，并发给财务",
    "Give me the weather forecast every evening at 7",
    "Tell me before you delete anything in the shared folder",
    "以后汇报一下每天的构建结果",
])
def test_a_look_up_that_also_asks_for_work_or_stands_is_a_task_kept_open(said: str) -> None:
    """A look-up that is the first step of work asked for ("…and buy", "然后全部删除") or an order that
    stands beyond one answer ("every evening", "before you …", 以后) is no question settled by an answer."""
    v = verdicts(("user", said), ("assistant", "Here it is: three items, the oldest from March; the rest are recent."))
    assert v["m1"].rule != "intent:inquiry" and v["m1"].category == "task", v["m1"]
    assert v["m1"].status == "current", v["m1"]


@pytest.mark.parametrize("retry", ["try it again please", "retry", "再试一次", "重试吧"])
def test_a_bare_retry_adds_nothing_the_request_it_repeats_stays_open(retry: str) -> None:
    v = verdicts(("user", "Install the weather plugin."), ("assistant", ""), ("user", retry))
    assert v["m3"].category == "process" and v["m3"].rule == "intent:retry", v["m3"]
    assert (v["m1"].category, v["m1"].status) == ("task", "current"), v["m1"]


@pytest.mark.parametrize("closing", ["Let me know if you need anything else.", "let me know when you're ready",
                                     "Just let me know if there's anything I can do.", "Feel free to ask more!",
                                     "Let me know!", "Let me know if I can help with anything else.",
                                     "Let me know if that helps.", "Let me know how it goes.",
                                     "Let me know what you think.", "Let me know if this works for you.",
                                     "Let me know if you have any questions.", "let me know if you'd like anything else",
                                     "Let me know if you need help with anything else."])
def test_an_offer_to_help_again_is_a_closing(closing: str) -> None:
    v = verdicts(("user", "Rename the report to q3.pdf."), ("assistant", "Renamed it to q3.pdf."),
                 ("user", "thanks"), ("assistant", closing))
    assert v["m4"].category == "noise", v["m4"]


@pytest.mark.parametrize("ask", ["let me know when its switched", "Let me know what the logs say",
                                 "let me know once the backup finished", "let me know when you have switched it",
                                 "let me know when you finish the migration", "let me know if you find the root cause",
                                 "let me know if anything breaks", "let me know if it works",
                                 "let me know if there's anything wrong with the backup", "let me know if you have the logs",
                                 "let me know if you need the password"])
def test_asking_to_be_told_of_an_outcome_is_no_closing(ask: str) -> None:
    v = verdicts(("user", "Switch the default model to qwen2.5:7b."),
                 ("assistant", "Let me update the config to switch your default model."), ("user", ask))
    assert v["m3"].category != "noise", v["m3"]


@pytest.mark.parametrize("answer", ["yes please", "yes", "好的"])
def test_a_yes_answers_the_yes_no_question_of_a_message_that_also_asks_a_wh_question(answer: str) -> None:
    v = verdicts(("user", "how can we keep the costs down?"),
                 ("assistant", "Use cheaper models for simple things. Want me to switch to a cheaper model right now? "
                               "Or keep Sonnet? What's your budget comfort zone?"),
                 ("user", answer))
    assert v["m3"].category != "noise", v["m3"]
    assert v["m2"].category == "decision" or v["m3"].category == "decision", (v["m2"], v["m3"])


def test_a_yes_cannot_answer_a_message_that_asks_only_wh_questions() -> None:
    v = verdicts(("user", "how can we keep the costs down?"),
                 ("assistant", "Which model do you want? What's your budget comfort zone?"), ("user", "yes please"))
    assert v["m3"].category == "noise", v["m3"]


def test_a_no_chooses_none_of_the_options_listed_after_a_wh_question() -> None:
    v = verdicts(("user", "I installed Kimi. What's next"),
                 ("assistant", "Nice! What are you trying to do with it?\n\n- Use it for chat?\n- Connect it to "
                               "something?\n- Try the vision features?"),
                 ("user", "No"))
    assert v["m2"].category != "decision", v["m2"]


@pytest.mark.parametrize("answer", ["yes it did", "yeah I do", "yes please do", "是的，有"])
def test_a_yes_with_the_questions_verb_echoed_answers_like_a_bare_yes(answer: str) -> None:
    v = verdicts(("user", "I ran the model."),
                 ("assistant", 'So when you ran it, did it respond with "4"? Does it feel fast?'), ("user", answer))
    assert v["m3"].rule == "context:answer", v["m3"]


@pytest.mark.parametrize("answer", ["yes, and deploy it to staging", "yes the gateway restarted twice", "可以，执行吧",
                                    "yes but not now", "yes i do not", "yes, but only once", "yes for now",
                                    "是的，但不是现在", "对，先别", "对，不是现在", "是的，等一下", "yes, 30", "对，30"])
def test_a_yes_that_goes_on_to_say_more_is_read_for_what_it_says(answer: str) -> None:
    v = verdicts(("user", "I ran the model."), ("assistant", "Did it respond?"), ("user", answer))
    assert v["m3"].rule != "context:answer", v["m3"]


def test_an_offer_of_something_specific_is_no_closing_and_its_yes_decides() -> None:
    v = verdicts(("user", "Set up the nightly backup."),
                 ("assistant", "Let me know if you want me to move the backup to 3am."), ("user", "yes please"))
    assert v["m2"].category == "decision", v["m2"]


@pytest.mark.parametrize(("asked", "answer"), [("你的预算是多少？要我现在切换吗？", "好的"),
                                               ("What's your budget? Want me to switch to a cheaper model now?",
                                                "yes please")])
def test_a_yes_takes_an_offer_that_follows_a_wh_question(asked: str, answer: str) -> None:
    v = verdicts(("user", "省点钱"), ("assistant", asked), ("user", answer))
    assert v["m2"].category == "decision", v["m2"]


@pytest.mark.parametrize(("said", "answer"), [("You could also check the logs. Which port is it on?", "ok"),
                                              ("I recommend Postgres for this. Which version are you running?", "yes"),
                                              ("可以先重启服务。是哪个端口？", "嗯"),
                                              ("哪个端口？我可以帮你查一下日志。", "好的")])
def test_a_suggestion_in_a_statement_beside_a_wh_question_is_no_offer_a_yes_takes(said: str, answer: str) -> None:
    v = verdicts(("user", "Set up the service."), ("assistant", said), ("user", answer))
    assert v["m2"].category == "question" and v["m3"].category == "noise", (v["m2"], v["m3"])


@pytest.mark.parametrize("rule", [
    "没必要，只有我让你都添加的时候，你才都添加上，我没有让你都添加，你就给自己添加上就行，明白没有？",
    "只有我说可以的时候，你再发邮件",
    "Only add the skill to every agent when I tell you to, otherwise just to yourself. Got it?",
    "Don't restart the gateway unless I ask you to.",
    "只有我确认之后你才可以删除文件",  # what is allowed (a review: 可以 had been read as what is possible)
])
def test_a_condition_the_user_sets_on_the_agents_acting_is_a_standing_rule(rule: str) -> None:
    """'Only when I say so' holds for every later time, even asked as a check ('明白没有？'),
    and so does the agent's promise to keep to it."""
    v = verdicts(("user", rule), ("assistant", "明白了！以后只有你明确说的时候，我才给其他专家加技能。"))
    assert v["m1"].category == "preference" and v["m1"].status == "current"
    assert v["m2"].rule == "intent:commitment"


@pytest.mark.parametrize("said", ["只有你才能帮我了", "只有下雨的时候才会堵车吗？", "It only fails if I restart it, why?",
                                  # a review: a question, or what is possible, sets no rule either
                                  "Does the bot only post when I tell it to?", "Should you only deploy when I ask you to?",
                                  "只有服务器重启之后，你才能登录吗？", "只有等部署完成以后你才能看到新页面"])
def test_only_about_who_or_about_the_world_sets_no_rule(said: str) -> None:
    v = verdicts(("user", said), ("assistant", "OK."))
    assert v["m1"].category != "preference"


@pytest.mark.parametrize("line", [
    "**思考主题：** 如何像人类一样活着？",
    "- 主题：如何像人类一样活着？",
    "Topic: how do we make the agent proactive?",
    "- [ ] 成交量是否维持万亿以上",
    "**创业板延续性**：观察强势是否持续",
    "需验证是否内化为自发行为",
])
def test_a_report_naming_a_topic_or_what_to_watch_asks_nobody(line: str) -> None:
    """A scheduled job's report names the question it thought about and lists what to watch: no
    question to the user, so the report is an outcome, not an open question."""
    report = f"训练完成 ✅\n\n{line}\n\n已写入训练日志.md，执行率 100%。"
    v = verdicts(("user", "[cron:7 训练] 请进行今日训练，写入训练日志.md"), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", report))
    assert v["m4"].category == "decision" and v["m4"].rule == "intent:outcome", v["m4"]


@pytest.mark.parametrize("line", ["请确认是否继续", "你看看是否可以这样改？", "成交量是否维持万亿以上？",
                                  # a review: a topic put to the reader, a choice, the agent asking to confirm
                                  "标题：你觉得用《AI 时代的写作》还是《写作的未来》？",
                                  "Title: do you prefer 'The Future of Writing' or 'Writing with AI'?",
                                  "Topic: should we migrate to Postgres this quarter?",
                                  "找到 12 个旧备份（共 30GB）。需要确认是否全部删除"])
def test_a_report_asking_the_user_whether_stays_an_open_question(line: str) -> None:
    v = verdicts(("user", "请进行今日训练，写入训练日志.md"), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", f"训练完成 ✅ 已写入训练日志.md。\n\n{line}"))
    assert v["m4"].category == "question", v["m4"]


@pytest.mark.parametrize("said", ["启用本地缓存就行", "禁用 IPv6 就好", "试用版就行"])
def test_enabling_disabling_or_a_trial_is_a_choice(said: str) -> None:
    """A review: 启用, 禁用, 试用 before "就行" are the choice itself (调用, 备用 are not)."""
    v = verdicts(("assistant", "要用哪个方案？"), ("user", said))
    assert v["m2"].category == "decision", v["m2"]


@pytest.mark.parametrize("said", ["好的，下次部署的时候我再检查日志。", "以后你有空的时候我再提醒你。"])
def test_putting_one_thing_off_is_no_commitment(said: str) -> None:
    """A review: the agent's "next time … I'll check" puts one thing off; "以后只有你明确说的时候，我才…" commits."""
    v = verdicts(("user", "部署一下"), ("assistant", said))
    assert v["m2"].rule != "intent:commitment", v["m2"]


@pytest.mark.parametrize(("said", "category"), [
    # a new Discord channel's purpose, set by its owner (a standing fact the agent works from)
    ("This channel is to manage projects, contacts, etc. for my career.", "preference"),
    ("The purpose of this channel is basically to monitor the apps on the VPS.", "preference"),
    ("这个群是用来安排周末活动的", "preference"),
    # what the user's side settled on doing, or not doing
    ("So for the mass, we are not doing vestments because they won't be ready on time.", "decision"),
    ("We're just going to tell them to wear a white shirt and black pants.", "decision"),
    # orders the verb list had missed: "Define …", "Help me plan."
    ("Define Daily Brief Rules Update policy.md: one brief per domain, queued for 05:00 IST", "task"),
    ("2-3 soccer drills. Very simple. Help me plan.", "task"),
])
def test_what_a_user_sets_decides_or_orders_in_a_chat_channel_is_recognised(said: str, category: str) -> None:
    v = verdicts(("assistant", "Set up. What is this channel about?"), ("user", said))
    assert v["m2"].category == category, v["m2"]


@pytest.mark.parametrize("said", [
    "We're going to need a bigger disk for the backups, I think.",
    "This channel is busy today.",
    "Help is on the way, the plumber comes at five.",
    # what a server or a chat does, not what it is for
    "The server is going to crash if we keep this up.",
    "The server is down for maintenance until 5.",
    "the chat is slow to load again",
    "The chat is about to get busy, sorry.",
    # what will happen to the user's side, or how it goes: no act it chose
    "we're going to lose the client if this isn't fixed",
    "we're not doing great on budget",
    "we're not running out of time yet",
])
def test_a_need_or_a_description_is_no_decision_setting_or_order(said: str) -> None:
    v = verdicts(("assistant", "Anything new?"), ("user", said))
    assert v["m2"].category not in ("decision", "preference", "task"), v["m2"]


@pytest.mark.parametrize("report", [
    "The reminder isn't set up: the gateway refused the token.",
    "Nothing was deployed, the build stopped at the lint step.",
    "It hasn't been fixed, the same error comes back after a restart.",
])
def test_a_negated_completion_reports_nothing_done_and_the_task_stays_open(report: str) -> None:
    v = verdicts(("user", "Set up the daily reminder at 7am."), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", report))
    assert (v["m1"].category, v["m1"].status) == ("task", "current"), v["m1"]
    assert v["m4"].rule != "intent:outcome", v["m4"]


@pytest.mark.parametrize("report", [
    "The gateway refused the pairing. Run the command by hand to verify it works.",
    "The cron job needs the gateway. If it works after a restart, tell me.",
    "Waiting on the gateway; once it's deployed you'll get the link.",
    "The token is pending. Let me know when it is done on your side.",
    "网关拒绝了配对，如果安装成功就告诉我",
])
def test_a_completion_under_a_condition_reports_nothing_done(report: str) -> None:
    v = verdicts(("user", "Set up the daily reminder at 7am."), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", report))
    assert (v["m1"].category, v["m1"].status) == ("task", "current"), v["m1"]
    assert v["m4"].rule != "intent:outcome", v["m4"]


@pytest.mark.parametrize("report", [
    "I've added the reminder for 7am.", "We’ve just set up the reminder.", "Done. If it breaks again, tell me.",
])
def test_a_report_of_work_done_closes_the_task_beside_a_condition_or_a_contraction(report: str) -> None:
    v = verdicts(("user", "Set up the daily reminder at 7am."), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", report))
    assert v["m1"].status != "current", v["m1"]
    assert v["m4"].rule == "intent:outcome", v["m4"]


def test_the_user_asking_to_hear_when_it_is_done_reports_nothing_done() -> None:
    v = verdicts(("assistant", "Please run the migration on your side."), ("user", "Let me know when it is done"))
    assert v["m2"].rule != "intent:completion", v["m2"]


def test_the_user_saying_a_date_is_not_fixed_closes_no_task() -> None:
    v = verdicts(("user", "Plan the March mass with me."), ("assistant", "Sure. Is the date fixed?"),
                 ("user", "It's not fixed, we have to plan the date every time."))
    assert v["m3"].rule != "intent:completion", v["m3"]


@pytest.mark.parametrize("habit", [
    "We have a weekly event on Thursdays at 5:30 pm. I normally send a message on the WhatsApp group every Tuesday.",
    "For the younger group I typically build a project around the saint of the week.",
])
def test_a_habit_the_user_describes_is_a_standing_fact_like_usually(habit: str) -> None:
    v = verdicts(("assistant", "What is this channel about?"), ("user", habit))
    assert v["m2"].category == "preference", v["m2"]


@pytest.mark.parametrize(("said", "category"), [
    ("This channel is for the weekly update, right?", "question"),
    ("This group is for tomorrow's standup, keep it short.", "task"),
    ("we're going to miss the deadline unless you help", "task"),
    ("This channel is for tracking the wedding budget.", "preference"),
    ("We're not going to use Docker for this one.", "decision"),
    # what a place is for, said as its rule; a purpose in a message that asks or orders is not one
    ("This channel is used for project updates.", "preference"),
    ("This chat is just for fun.", "preference"),
    ("This channel is for announcements only.", "preference"),
    ("This channel is all about organizing events, planning events, and dealing with vendors", "preference"),
    ("This group is for morning standup tomorrow, keep it short.", "task"),
    ("This thread is about the outage yesterday, can you summarize it?", "question"),
    ("Our server is where the logs go, can you clean it up?", "task"),
    # a deliberate act the user's side chose; not what will happen to it
    ("we're going to deploy on Friday", "decision"),
    ("we are not going to upgrade this month", "decision"),
    ("we're going to ship late at this rate", "process"),
    ("we're going to keep getting errors", "process"),
    ("we're going to deal with a lot of angry users", "process"),
    ("so we're going to deploy broken code again?", "question"),
    ("we're going to deploy on Friday unless QA finds something", "decision"),
    ("This group is all for it.", "process"),
    ("This chat is meant for someone else.", "process"),
    ("This group is just for a week.", "process"),
])
def test_a_channels_one_event_or_a_prediction_leaves_the_question_or_task(said: str, category: str) -> None:
    """A channel's purpose is an activity ("is for tracking …"), not one event; a decision is an act
    the user's side chose, not what will happen to it."""
    v = verdicts(("assistant", "Anything new?"), ("user", said))
    assert v["m2"].category == category, v["m2"]


@pytest.mark.parametrize(("said", "role", "rule"), [
    ("ok the printer works now, it wasn't set up right", "user", "intent:completion"),
    ("It's fixed now, it was not working because of the proxy.", "user", "intent:completion"),
    ("Installed the package; it had not been installed before.", "assistant", "intent:claim"),
    ("Not only fixed the bug but also deployed it.", "assistant", "intent:claim"),
])
def test_a_negation_cancels_only_its_own_clause_not_the_report_beside_it(said: str, role: str, rule: str) -> None:
    assert verdicts((role, said))["m1"].rule == rule


@pytest.mark.parametrize(("asked", "reply"), [
    ("please deploy the fix to the staging site", "Deployed the fix, but the site is not working yet."),
    ("please set up the daily reminder and update the config", "Updated the config, the reminder isn't set up though."),
    ("can you install the printer driver?", "I installed it, but the printer is not working."),
    ("please fix the login bug", "Fixed the login bug, but the tests aren't fixed yet."),
    ("please deploy the fix", "Deployed the fix, but it's not working yet."),
    ("please install the driver", "I installed the driver but the printer doesn't work."),
    # after a list mark or a bold label
    ("please deploy the fix", "Deployed the fix.\n- **Status:** the site is not working"),
    ("please deploy the fix", "Deployed the fix.\n1. The site is not working yet"),
])
def test_a_present_negation_leaves_the_task_open_whatever_else_was_done(asked: str, reply: str) -> None:
    """Progress with a problem that is still there ("…, but the site is not working yet") is no report
    of work done: the user's task stays open (a past negation, "it wasn't set up right", is history)."""
    v = verdicts(("user", asked), ("assistant", reply))
    assert v["m1"].rule == "intent:task" and v["m1"].status == "current", v["m1"]
    assert v["m2"].rule != "intent:claim", v["m2"]


@pytest.mark.parametrize("reply", [
    "Deployed; the old version isn't live any more.", "Deployed the fix. If the site is not working, let me know.",
    "Set up the reminder for 9am. It is not sent on weekends.", "Fixed the bug. Don't give up on the old branch yet.",
    'Deployed. The fix for "checkout is not working" is live now.', "Fixed the printer. It wasn't set up right.",
    # a limitation said to be intended
    "Done, I migrated the site and it is live. It is not running on the old server any more.",
    "Added the job. This is not done by default, so I added a unit.",
    # a failure found, explained and mended; behaviour that was built; a rate that is down
    "Reproduced it: it crashes on startup. Fixed it by pinning the driver, and deployed.",
    "Added validation. It returns an error for empty names.", "Deployed. The error rate is down to zero.",
])
def test_a_negation_about_something_else_leaves_the_report_of_work_done(reply: str) -> None:
    """What is gone on purpose, a condition, a fact about the result or a past cause: the work is done."""
    v = verdicts(("user", "please take care of it"), ("assistant", reply))
    assert v["m1"].status == "done", (v["m1"], reply)


def test_a_short_remark_in_a_long_channel_envelope_is_read_by_its_words_not_its_size() -> None:
    # a plugin's rules before every message cost tokens, they make the user's words no longer
    from apollo.tokens import estimate
    from apollo.transcript.model import Element, Role
    envelope = "你正在通过 QQ 与用户对话。\n\n【会话上下文】\n" + "- 规则: 发图时必须写 <qqimg>URL</qqimg>\n" * 120 + "\n"
    said = "今天的行情还行吧，大盘有点震荡"
    message = Element(id="m2", role=Role.USER, kind=Kind.TEXT, text=said, envelope=envelope,
                      tokens=estimate(envelope + said), index=1)
    v = verdicts(("assistant", "Hi, what can I do?"), message)
    assert message.tokens > 800 and (v["m2"].rule, v["m2"].action) == ("process:discussion", "keep"), v["m2"]


@pytest.mark.parametrize("said", [
    "已经安装好了", "我已经重启了", "刚发送了", "重启了", "好了，发送了", "正在部署", "还没备份", "上传失败", "网关已重启",
    "问题解决了", "解决方案如下", "解决不了",
])
def test_zh_a_verb_of_work_reported_done_under_way_or_failed_is_no_order(said: str) -> None:
    v = verdicts(("assistant", "请你在终端里重启一下网关，然后告诉我。"), ("user", said))
    assert v["m2"].category != "task", v["m2"]


@pytest.mark.parametrize("said", [
    "部署到测试环境", "重启网关", "帮我把日志备份到NAS", "如果在执行过程中出现问题，及时告诉我", "上传完整的代码到仓库",
    "分析原因并解决", "解决这个问题", "请解决一下", "发生错误了，你解决下",
])
def test_zh_a_verb_of_work_said_as_an_order_is_a_task(said: str) -> None:
    v = verdicts(("assistant", "好的，还有什么需要？"), ("user", said))
    assert v["m2"].category == "task", v["m2"]


@pytest.mark.parametrize(("said", "category"), [
    # who the user is, how to call them, their company and time zone
    ("在工作环境中叫我王工就行，我是一名高级结构工程师", "preference"), ("叫我阿峰", "preference"), ("请称呼我为老板", "preference"),
    ("我们是一家做展会设计的公司", "preference"), ("我在东八区，杭州", "preference"),
    # standing prohibitions and standing orders, in Chinese, English and Vietnamese
    ("一定不要把私钥上传到github", "preference"), ("配置文件里的内容不允许泄露", "preference"),
    ("I have a new standing order for you: keep a handoff file for every project.", "preference"),
    ("Từ hôm nay mỗi ngày hãy xem lịch của tôi và báo cáo lúc 7h", "preference"),
    ("tôi sống ở Huế, ghi nhớ nhé", "preference"),
    # orders with the verbs of work, the tool named, or "let's"
    ("close all the open sessions.", "task"), ("spawn a helper in the docs repo", "task"),
    ("use the skill-creator to create a new skill named weather", "task"), ("Use browser skill to execute TASK.md", "task"),
    ("lets spawn 2 sessions for the repo", "task"), ("post the update to the team channel", "task"),
])
def test_who_the_user_is_a_standing_rule_and_an_order_in_unseen_forms(said: str, category: str) -> None:
    v = verdicts(("assistant", "好的，还有什么需要？"), ("user", said))
    assert v["m2"].category == category, v["m2"]


@pytest.mark.parametrize("said", [
    "我在查看这些技能，这里的blocked是什么意思", "叫我起床的闹钟坏了吗", "Close enough!", "hi, post-compaction",
    "POST http://localhost:3000/api/upload 500", "let's start talking about it", "I use it to track my runs",
])
def test_what_one_is_doing_a_systems_limit_or_a_remark_is_no_fact_rule_or_order(said: str) -> None:
    v = verdicts(("assistant", "好的，还有什么需要？"), ("user", said))
    assert v["m2"].category not in ("preference", "task"), v["m2"]


def test_what_a_system_does_not_allow_is_no_rule_of_the_users() -> None:
    v = verdicts(("assistant", "好的，还有什么需要？"), ("user", "系统不允许泄露这些数据吗，还是权限不允许上传"))
    assert v["m2"].category != "preference", v["m2"]


@pytest.mark.parametrize(("said", "category"), [
    # a Chinese question without its mark whose question word comes near the end
    ("可用的模型有哪些", "question"), ("权限怎么配置", "question"), ("现在用的什么模型", "question"), ("这个怎么弄", "question"),
    # where things of a kind always go is a standing rule
    ("截图和报告都放D盘里面", "preference"), ("把这些文件都放到桌面上", "task"),
    # deferring, what is used, nothing at all: no question, order or choice
    ("那待会再说吧", "process"), ("你用的模型是", "process"), ("用什么都行", "process"), ("没什么问题", "process"),
])
def test_zh_a_question_word_near_the_end_where_things_go_and_a_deferral(said: str, category: str) -> None:
    v = verdicts(("assistant", "好的，还有什么需要？"), ("user", said))
    assert v["m2"].category == category, v["m2"]


@pytest.mark.parametrize(("said", "category"), [
    # review 63: someone else's 叫我 is no name
    ("老板叫我加班", "process"),
    # an order with 好 or 完 and no 了, or a word back asked for, is still an order
    ("把数据库备份好", "task"), ("安装完告诉我", "task"), ("部署好了告诉我一声", "task"),
    # a noun after the verb, an idiom, a bank's standing order, a question, a server's limit, what one does from today
    ("POST request returns 500", "process"), ("Load balancer is down again", "process"),
    ("Save button doesnt work on mobile", "process"), ("let's move on", "process"),
    ("Set up a standing order for 500 pounds to my landlord", "task"), ("一定不要关机吗？", "question"),
    ("服务器不允许上传大文件", "process"), ("Từ hôm nay tôi bị ốm", "process"),
    # what cannot be done is no order; asking whether it can be is a request
    ("系统无法上传大文件", "process"), ("服务器不支持下载", "process"), ("能不能帮我上传一下", "task"),
    # a version's dots end no sentence, and why a tool is chosen makes it a choice, not a piece of work
    ("Use Python 3.11", "decision"), ("Use Python 3.11 to avoid the bug", "decision"), ("use gpt-4.1", "decision"),
])
def test_review_63_a_profile_a_complement_a_noun_or_a_question_keeps_its_own_reading(said: str, category: str) -> None:
    v = verdicts(("assistant", "好的，还有什么需要？"), ("user", said))
    assert v["m2"].category == category, v["m2"]


@pytest.mark.parametrize("report", [
    "I ran the full test suite to verify it works: all 42 tests pass.", "我已经确保所有服务都部署成功了。",
])
def test_a_check_already_made_reports_the_work_done(report: str) -> None:
    v = verdicts(("user", "Deploy the site."), _call("c1", "a"), _result("r1", "a"), ("assistant", report))
    assert v["m4"].rule == "intent:outcome", v["m4"]


@pytest.mark.parametrize("said", [
    # the words before a Chinese order, each read one way only (那就 is 那 then 就, 你自己 is 你 then 自己)
    "然后先重启网关", "现在你自己去检查一下", "麻烦你对这三个方案进行比较", "接着继续部署", "就修改 feishu-wiki-write",
])
def test_zh_the_words_before_an_order_still_open_it(said: str) -> None:
    v = verdicts(("assistant", "好的，还有什么需要？"), ("user", said))
    assert v["m2"].category == "task", v["m2"]


@pytest.mark.parametrize(("said", "category"), [
    # Korean: from now on or always with the plain imperative of a verb of the work
    ("앞으로 항상 한국어로 대답해", "preference"), ("앞으로는 보고해", "preference"), ("항상 피곤해", "process"),
    # German: what "you" shall always or never do, an imperative with always; not "still", "again and again", nor asked
    ("Du sollst immer auf Deutsch antworten", "preference"), ("Frag mich immer bevor du etwas löschst", "preference"),
    ("Sie müssen nie wieder fragen", "preference"), ("Du sollst immer noch warten", "process"),
    ("frag mich immer wieder dasselbe", "process"), ("Musst du immer so antworten?", "question"),
])
def test_korean_and_german_standing_rules_in_their_plain_forms(said: str, category: str) -> None:
    v = verdicts(("assistant", "Hi, what can I do?"), ("user", said))
    assert v["m2"].category == category, v["m2"]
