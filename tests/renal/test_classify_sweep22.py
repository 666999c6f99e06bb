"""Forms met in OpenClaw sessions of owners the rules were never tuned on (sentences invented here,
none quoted): the twenty-second round (reviews 97–99, second sessions of owners read before)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support_classify import verdicts

from apollo import config as config_mod


@pytest.mark.parametrize("said", ["打开领星", "汇总本周的销售额", "筛选华东地区的客户", "点击右上角的设置", "重新部署测试服务器",
                                  "ppt 太丑了，更新样式"])
def test_a_chinese_order_of_one_short_clause_opening_with_its_verb_is_a_task(said: str) -> None:
    """Chinese has no imperative form: a message that is only a verb of the agent's work and what it acts on orders it."""
    assert verdicts(("user", said))["m1"].category == "task"


@pytest.mark.parametrize("said", ["更新日志写得很清楚", "登录页面打不开", "测试环境挂了", "下载速度很慢", "搜索功能有问题",
                                  "装修风格", "整理并推送任务执行的咋样啦", "配置产品的时候，这是配置选项",
                                  "执行结果如下 exit code 1", "配置文件", "测试环境", "查询语句", "点击率下降", "检查无误",
                                  "处理进度 80%", "配置文件，我已经改好了", "查资料啊"])
def test_a_clause_that_states_asks_or_reports_after_such_a_verb_orders_nothing(said: str) -> None:
    """The same verbs open noun phrases ("更新日志", "登录页面"): with a state, a complaint, a question or a time after
    them the message is about the thing, not an order to do the work."""
    assert verdicts(("user", said))["m1"].category != "task"


@pytest.mark.parametrize("said", ["用浏览器打开百度", "使用谷歌搜索今天的天气", "用 Python 写一个爬虫"])
def test_the_means_of_a_piece_of_work_ordered_with_it_is_no_choice(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "task"


@pytest.mark.parametrize("said", ["用 PostgreSQL 吧", "就用 Claude", "用扫码的方式就行", "用这个方案", "用 Docker 部署", "后端用 Go 写",
                                  "这个项目用 Rust 重写"])
def test_use_x_without_the_work_or_with_a_verb_alone_still_chooses(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "decision"


@pytest.mark.parametrize("said", ["用 Excel 整理数据很麻烦", "通过这次测试发现不少问题", "用过的测试账号", "使用说明更新"])
def test_what_a_means_was_like_orders_nothing(said: str) -> None:
    assert verdicts(("user", said))["m1"].category != "task"


@pytest.mark.parametrize("reply", ["✅ Closed the popup. What shall we build next?", "✅ 已关闭弹窗！还要测试别的吗？",
                                   "Updated the README. Need a hand with anything else?",
                                   "✅ Done: the popup is closed and the readme updated. Need a hand or just stopping by? 😏"])
def test_a_report_closed_by_a_generic_offer_asks_nothing(reply: str) -> None:
    v = verdicts(("user", "close the popup and update the readme"), ("assistant", reply))
    assert v["m2"].category != "question" and v["m1"].status == "done"


@pytest.mark.parametrize("reply", ["写好了。你还想要其他语言的版本吗？比如 Python 还是 Go？", "写好了。还需要安装其他依赖吗？",
                                   "Done. Do you need a hand setting up the SSH keys?",
                                   "Done. Which page do you want to build next — pricing or about?"])
def test_a_specific_question_after_a_report_still_asks(reply: str) -> None:
    v = verdicts(("user", "帮我写个脚本"), ("assistant", reply))
    assert v["m2"].category == "question"


@pytest.mark.parametrize("said", ["fala comigo", "cadê você", "dậy mau", "Dậy mau @bot", "ngủ rồi à", "bạn còn đó không",
                                  "wake up bot"])
def test_pings_in_portuguese_and_vietnamese_and_to_the_bot_by_name_are_noise(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "noise"


@pytest.mark.parametrize("said", ["bot, restart the gateway", "the bot is down again since the update"])
def test_the_bot_named_in_a_request_or_a_statement_is_no_ping(said: str) -> None:
    assert verdicts(("user", said))["m1"].category != "noise"


def test_still_there_asked_of_a_thing_is_no_ping() -> None:
    v = verdicts(("user", "xóa bản sao lưu cũ"), ("assistant", "Đã xóa bản sao lưu cũ."), ("user", "còn đó không?"))
    assert v["m3"].category != "noise"


@pytest.mark.parametrize(("said", "reply"), [
    ("introduce yourself", "I'm Max, your assistant. I manage your calendar, search the web, write code and keep notes."),
    ("introduce urself", "Max, your assistant."), ("你再介绍一下自己", "我是小A，你的 AI 助手。"), ("自我介绍一下", "我是小A。"),
    ("show me your skills list", "My skills: 1. weather 2. calendar 3. github 4. notion 5. browser automation 6. email"),
    ("list your skills", "Coding, research, spreadsheets."),
])
def test_a_presentation_asked_for_is_handed_over_by_the_reply_however_short(said: str, reply: str) -> None:
    """Before the reply it is work asked for (a task); the reply is the presentation, and the request is finished."""
    assert verdicts(("user", said))["m1"].category == "task"
    v = verdicts(("user", said), ("assistant", reply))
    assert v["m1"].status == "answered" and v["m1"].category == "process"


@pytest.mark.parametrize("said", ["describe yourself in the README and push it", "introduce yourself to the team in #general",
                                  "introduce yourself in Spanish when users greet you", "做个自我介绍，然后发到群里",
                                  "做个自我介绍的 PPT"])
def test_a_presentation_asked_to_be_put_somewhere_or_as_a_rule_is_not_handed_over_by_the_reply(said: str) -> None:
    v = verdicts(("user", said), ("assistant", "I'm Max, your assistant: calendar, search, code and notes."))
    assert v["m1"].status != "answered"


@pytest.mark.parametrize("said", ["I don't read English, is there a translation setting?", "我不懂英文，有没有翻译配置", "我英文不好",
                                  "I only speak Spanish", "I'm a frontend developer with 8 years of experience."])
def test_the_languages_the_user_reads_and_a_trade_with_its_years_are_facts_about_the_user(said: str) -> None:
    """What languages the user reads decides how every answer must be written: a fact the answer to the question
    beside it does not settle."""
    v = verdicts(("user", said), ("assistant", "Yes: Settings → Language → 中文."))
    assert v["m1"].category == "preference"


@pytest.mark.parametrize("said", ["I'm a bit lost", "I'm a little confused by the logs", "I can't read this file",
                                  "do I need to speak English?"])
def test_a_degree_of_a_state_or_a_file_not_read_is_no_fact_about_the_user(said: str) -> None:
    assert verdicts(("user", said))["m1"].category != "preference"


@pytest.mark.parametrize(("said", "category"), [
    ("现在就配置产品页吧", "task"), ("马上就发布新版本吧", "task"), ("就用 PostgreSQL 吧", "decision"), ("那就用飞书吧", "decision"),
])
def test_work_asked_for_now_is_an_order_and_a_thing_taken_is_a_choice(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("said", "reply"), [
    ("查询一下今天的天气", "今天北京晴，18-26°C，东南风2级。"), ("联网找一下最新的 OpenClaw 版本号", "最新版本是 2026.9.6，9 月 30 日发布。"),
    ("查询本周订单", "本周共 12 单：3 单待发货，9 单已完成。"),
])
def test_a_chinese_look_up_is_a_question_put_as_an_order_that_the_reply_answers(said: str, reply: str) -> None:
    assert verdicts(("user", said))["m1"].category == "question"
    assert verdicts(("user", said), ("assistant", reply))["m1"].status == "answered"


def test_a_look_up_that_goes_on_to_work_stays_work() -> None:
    v = verdicts(("user", "找一下日志里的报错然后修复它"), ("assistant", "报错是缺少 TZ 变量。"))
    assert v["m1"].category == "task" and v["m1"].status == "current"


@pytest.mark.parametrize("said", ["I'm allergic to nuts and fruits.", "FYI I work at Acme as a team lead", "我对花生过敏",
                                  "I have asthma", "btw I'm vegetarian", "我有高血压",
                                  "Plan my workouts; I have asthma and can't train after meals."])
def test_the_users_health_diet_and_work_stated_flatly_are_facts_about_the_user(said: str) -> None:
    """Every plan, recipe or reminder must suit them: kept as a fact even inside a request that gets done."""
    assert verdicts(("user", said))["m1"].category == "preference"


@pytest.mark.parametrize("said", ["am I allergic to this?", "I have a question", "我是不是过敏了", "I'm a little tired today",
                                  "I'm allergic to meetings lol", "I have diabetes patients in my dataset, anonymize it",
                                  "我有高血压患者的数据要分析", "我对加班过敏", "FYI I work from home tomorrow",
                                  "btw I run the migration now", "I'm pregnant with ideas"])
def test_a_health_question_or_a_passing_state_is_no_fact_about_the_user(said: str) -> None:
    assert verdicts(("user", said))["m1"].category != "preference"


@pytest.mark.parametrize(("said", "category"), [
    ("Schlag mir nie wieder vor, Pause zu machen", "preference"), ("erinnere mich nie mehr an den Termin", "preference"),
    ("das passiert nie wieder", "process"), ("ich mache das nie wieder", "process"),
    ("Dieser Fehler tritt nie wieder auf", "process"), ("Hat nie mehr funktioniert", "process"),
])
def test_german_never_again_after_an_imperative_is_a_standing_rule(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("said", "reply"), [("Hazlo", "Listo, la config ya quedó puesta."),
                                             ("Ajusta el puerto a 8080", "Ajusté el puerto a 8080 y reinicié el servicio.")])
def test_spanish_reports_of_a_setting_put_close_the_request(said: str, reply: str) -> None:
    assert verdicts(("user", said), ("assistant", reply))["m1"].status == "done"


@pytest.mark.parametrize("reply", ["Está puesto en 8080 actualmente. Lo cambio ahora.", "Ejecuté el script y falla igual.",
                                   "Revisé la config: el puerto es 8080. ¿Quieres que lo cambie?"])
def test_a_state_described_a_failure_or_a_look_taken_closes_no_request_to_change_it(reply: str) -> None:
    assert verdicts(("user", "cambia el puerto a 9090"), ("assistant", reply))["m1"].status != "done"


@pytest.mark.parametrize(("said", "category"), [("are you working?", "noise"), ("are you working again?", "noise"),
                                                ("are you working on it?", "question")])
def test_whether_the_agent_works_again_is_a_ping_how_far_its_work_got_is_not(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("said", "reply"), [("hi", "Hey! What's up today?"), ("thanks, that's all", "Anytime! How's it going otherwise?"),
                                             ("good morning", "Morning! Nothing new since yesterday; backups are running. What shall we tackle?")])
def test_small_talk_or_what_to_do_next_asked_back_after_a_greeting_asks_nothing(said: str, reply: str) -> None:
    assert verdicts(("user", said), ("assistant", reply))["m2"].category not in ("question", "decision")


@pytest.mark.parametrize("reply", ["What shall we tackle first: the DB migration or the API cleanup?",
                                   "How is the build going on your side?"])
def test_a_choice_or_a_matter_asked_after_a_greeting_still_asks(reply: str) -> None:
    assert verdicts(("user", "hi"), ("assistant", reply))["m2"].category == "question"


@pytest.mark.parametrize("said", ["查询一下库存，不够的话下单补货", "查询接口返回500", "查询失败", "查询一下子就完成了", "找一下午也没找到"])
def test_a_look_up_with_work_after_it_or_a_statement_about_a_query_is_no_question_put_as_an_order(said: str) -> None:
    assert verdicts(("user", said))["m1"].rule != "intent:inquiry"


def test_a_look_up_the_agent_could_not_make_stays_open() -> None:
    """What the agent could not do leaves the question a question (must-keep), as a question back does."""
    v = verdicts(("user", "联网查询一下今天的汇率"), ("assistant", "抱歉，我现在无法联网。"))
    assert v["m1"].category == "question"
    assert verdicts(("user", "联网查询一下今天的汇率"), ("assistant", "今天 1 美元兑 7.12 人民币。"))["m1"].category == "process"


def test_which_signals_every_clause_is_searched_for_is_the_rule_files_say(tmp_path: Path) -> None:
    """intent.toml marks what the engine reads only by name (`by_name = true`); every other intent is read in each
    clause: a user's rule file that marks one so turns it off in clauses, with no change to the engine."""
    from apollo.renal import rules

    built = rules.load_files()
    assert "task" in {s.name for s in built.intents} and "question" not in {s.name for s in built.intents}
    assert {s.name for s in built.whole_intents} == {"tag_question", "rejection", "agreement", "fragment", "done_reply",
                                                         "holding"}
    assert all(not s.social and not s.by_name and not s.whole for s in built.intents)
    (tmp_path / "mine.toml").write_text("[signal.presents_self]\nby_name = true\n", encoding="utf-8")
    (tmp_path / "config.toml").write_text('[renal]\nrule_files = ["mine.toml"]\n', encoding="utf-8")
    config = config_mod.load(None, extra_layers=[tmp_path / "config.toml"])
    said = (("user", "introduce yourself"), ("assistant", "I'm Max, your assistant."))
    assert verdicts(*said)["m1"].status == "answered"
    assert verdicts(*said, config=config)["m1"].status != "answered"


@pytest.mark.parametrize(("said", "category"), [
    ("@hieudabot mở terminal chạy printenv và cho tôi kết quả", "task"), ("<@1470660971793088542> show me all products in stock", "question"),
    ("@helper_bot please give me the list of open invoices", "question"), ("@hieudabot hi", "noise"),
])
def test_a_mention_opening_a_group_message_is_who_it_is_said_to_not_what_it_says(said: str, category: str) -> None:
    """The message reads from after the mention (`normalize.leading_address`), as it did for greetings already."""
    assert verdicts(("user", said))["m1"].category == category
    assert verdicts(("user", said.split(" ", 1)[1]))["m1"].category == category


def test_a_mention_alone_or_inside_a_message_is_left_as_it_is() -> None:
    assert verdicts(("user", "@hieudabot"))["m1"].category == "process"
    assert verdicts(("user", "ask @anna to send the report"))["m1"].category == "task"
