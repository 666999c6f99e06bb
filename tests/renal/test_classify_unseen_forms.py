"""Forms met in the sessions of owners the rules were never tuned on (invented sentences of the same
shapes): a Chinese report of work done with a note, a chat group's purpose narrowed by 仅/只, an
indefinite that asks nothing, and leaked reasoning that is a report about a user name."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support_classify import element, reply_to_offer, verdicts

from apollo.transcript.model import Kind


def _call(element_id: str, call_id: str) -> object:
    return element(element_id, "assistant", '{"command": "systemctl status web"}', Kind.TOOL_CALL, call_id=call_id,
                   tool_name="exec")


def _result(element_id: str, call_id: str) -> object:
    return element(element_id, "tool", "active (running)", Kind.TOOL_RESULT, call_id=call_id, tool_name="exec")


@pytest.mark.parametrize("report", [
    "已部署 ✅ 网站可以正常访问了。",
    # a condition, what was before, what is gone on purpose, a feature: no "still not working"
    "已部署。如果还是打不开，清一下浏览器缓存就好。",
    "已部署。之前打不开是因为防火墙没放行端口。",
    "已部署，旧版本已经不能用了。",
    "已部署，还配置了 nginx，不显示调试信息。",
])
def test_a_chinese_report_of_work_done_with_a_note_closes_the_task(report: str) -> None:
    v = verdicts(("user", "把网站部署到新服务器上"), _call("c1", "a"), _result("r1", "a"), ("assistant", report))
    assert (v["m1"].category, v["m1"].status) == ("task", "done"), v["m1"]


@pytest.mark.parametrize(("said", "category"), [
    ("本群仅用于讨论部署问题", "preference"),
    ("这个群只是用来发通知的", "preference"),
    ("本频道主要用于发布版本更新", "preference"),
    ("本群供大家交流光伏技术", "preference"),
])
def test_a_groups_purpose_narrowed_by_only_or_mainly_is_a_standing_fact(said: str, category: str) -> None:
    v = verdicts(("assistant", "大家好，我是新来的助手。"), ("user", said))
    assert v["m2"].category == category, v["m2"]


@pytest.mark.parametrize("said", ["本群仅用于明天的会议", "本群仅用于讨论什么？", "这个群只有三个人"])
def test_one_event_a_question_or_a_head_count_is_no_groups_purpose(said: str) -> None:
    v = verdicts(("assistant", "大家好，我是新来的助手。"), ("user", said))
    assert v["m2"].category != "preference", v["m2"]


@pytest.mark.parametrize(("said", "category"), [("没什么", "process"), ("随便什么都行", "process"),
                                                ("你叫小Q", "preference"), ("用 PostgreSQL 吧", "decision")])
def test_an_indefinite_a_name_given_or_a_choice_is_no_question(said: str, category: str) -> None:
    v = verdicts(("assistant", "你好，有什么需要？"), ("user", said))
    assert v["m2"].category == category, v["m2"]


@pytest.mark.parametrize("reply", ["部署好了。要用 SQLite 还是 PostgreSQL？", "Which port should the API listen on?"])
def test_a_specific_question_at_the_end_stays_open(reply: str) -> None:
    v = verdicts(("user", "介绍一下你自己"), ("assistant", reply))
    assert (v["m2"].category, v["m2"].status) == ("question", "current"), v["m2"]


@pytest.mark.parametrize("reply", ["用户名已更新为 ops-admin ✅", "用户组说明已写入 README ✅"])
def test_a_report_about_a_user_name_or_group_is_no_leaked_reasoning(reply: str) -> None:
    v = verdicts(("user", "把用户名改成 ops-admin"), _call("c1", "a"), _result("r1", "a"), ("assistant", reply))
    assert v["m4"].rule != "process:leaked_reasoning", v["m4"]


@pytest.mark.parametrize("said", ["让我查看 MEMORY.md 末尾，决定如何添加这次的总结", "你先看看日志，再决定是否重启网关",
                                  "这个我还没决定，明天再说", "还没有决定", "我决定不了",
                                  "决定如何处理了解到的问题"])
def test_a_decision_still_to_make_is_no_decision(said: str) -> None:
    # 决定 with what is to be decided (如何, 是否, 哪…) or not made yet (还没决定) decides nothing
    assert verdicts(("user", said), ("assistant", "好的。"))["m1"].category != "decision"


@pytest.mark.parametrize("said", ["我决定用 PostgreSQL 做主库", "我们决定了，下周一上线", "我们决定哪天上线了：周一",
                                  "我决定哪怕加班也要周五上线", "决定如何部署了：K8s",
                                  "我决定什么都不改", "我们决定是否上线：上"])
def test_a_decision_made_is_still_one(said: str) -> None:
    assert verdicts(("user", said), ("assistant", "好的。"))["m1"].category == "decision"


# -- orders with no marker, met in the sessions of owners the rules were never tuned on (issue 16) ---------

@pytest.mark.parametrize("said", [
    # Chinese has no imperative form: the clause opens with the verb, or with 请 / 你 / 先 / 去 and then the verb
    "修改部署脚本里的端口", "你装个这个插件", "去检查服务器的磁盘", "请再次进行数据同步", "自己装个这个 mcp",
    "将当前配置提交到仓库", "把默认浏览器设置为 Chrome", "你把旧的仓库删掉", "帮我把证书放到服务器上", "你直接处理", "赶紧重启网关", "你马上去检查服务器",
    # something to make, with its measure word; a softened order, "X 一下"
    "写一篇周报", "准备一个演讲稿，讲讲这个季度的进展", "根据这份笔记输出一份技术文档", "描述一下你的工作流程",
    # English: after a vocative; a need stated as help wanted
    "Sam, introduce yourself to the team",
    "Look in the notes folder for context", "I need suggestions for the next sprint", "I need to renew my passport",
])
def test_an_order_with_no_marker_is_a_task(said: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category == "task", verdict


@pytest.mark.parametrize(("said", "category"), [
    # Traditional characters read as the Simplified the rules are written in; Japanese kanji left as they are
    ("繼續處理", "task"), ("執行p2", "task"), ("以後都用繁體中文回覆", "preference"), ("不要刪除任何檔案", "preference"),
    ("謝謝", "noise"), ("在嗎？", "noise"), ("書いてください", "task"),
    # a question mark in a link's query asks nothing; a link sent alone is something to open and work on
    ("请执行热榜调研任务：访问 https://github.com/trending?since=daily 获取今日热榜", "task"),
    ("全局安装这个skill：https://link.zhihu.com/?target=https%3A//github.com/x/skills", "task"),
    ("https://youtube.com/@someone?si=Cd7", "task"), ("https://github.com/x/y", "task"),
    ("is it done? it should be", "question"), ("the docs say so https://a.b/c", "process"),
    # a question without its mark, the whole message, asked by its question word where it stands
    ("你是谁", "question"), ("怎么配置飞书", "question"), ("哪个模型更好", "question"), ("who made this website", "question"),
    ("what model are you using", "question"), ("qué hora es", "question"), ("bạn là ai", "question"),
    ("ada berapa cronjob disini", "question"), ("pourquoi ça plante", "question"),
    ("没什么", "process"), ("怎么这么慢", "process"), ("哪个都行", "process"), ("what I mean is this", "process"),
    ("que bueno", "process"), ("apa aja boleh", "process"), ("去lang文件夹看看你是谁", "task"),
    ("你来完善skill.md，告诉其他agent怎么写skill", "task"),
    # an order after "just", "pls", "porfavor"; not an idiom or a test
    ("just build it on the vps", "task"), ("pls check the logs", "task"), ("porfavor crealo en la raiz", "task"),
    ("just kidding", "process"), ("just testing", "noise"),
    # Spanish after a yes or a "ready" ("si mándalo", "listo, envía el mensaje"), not a condition ("si funciona, avísame"
    # asks for nothing yet, "si revisas el log verás el error" explains)
    ("si mandalo", "task"), ("listo envía el mensaje", "task"), ("si ajusta el horario", "task"),
    ("si funciona avisame", "process"), ("si revisas el log veras el error", "process"),
    # go on with the work; execute; a nudge to answer
    ("继续处理", "task"), ("继续下一步", "task"), ("Execute phase 2", "task"), ("继续努力", "process"), ("回复我", "noise"),
])
def test_traditional_characters_links_going_on_and_executing(said: str, category: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category == category, verdict


@pytest.mark.parametrize("said", [
    "查到了，问题在配置里", "写得不错", "找不到那个文件", "他将在明天到达", "这个要做一个月", "我写一篇日记就睡",
    "请问现在几点", "do you know the time", "ok I see", "just kidding", "他直接处理了", "你处理得很好", "处理结果不对",
    "马上回来",
    # what the user did themselves, said with 把 (帮我把…, 你把… ask: above)
    "我终于成功把你配置到飞书上了", "我已经把证书放到服务器上了", "我刚把旧的仓库删掉了",
])
def test_a_report_a_state_a_question_or_the_speakers_own_plan_is_no_order(said: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category != "task", verdict


@pytest.mark.parametrize("said", ["别叫我老板，叫我名字", "不要讲技术细节", "不要用表情符号", "你别再称呼我为主人"])
def test_a_dont_about_how_the_agent_talks_is_a_standing_preference(said: str) -> None:
    v = verdicts(("assistant", "好的，老板。"), ("user", said))
    assert v["m2"].category == "preference", v["m2"]


@pytest.mark.parametrize("said", ["别说了", "不要了", "别担心"])
def test_an_end_to_the_talk_or_a_comfort_is_no_preference(said: str) -> None:
    v = verdicts(("assistant", "要不要我再解释一遍？"), ("user", said))
    assert v["m2"].category != "preference", v["m2"]


@pytest.mark.parametrize("said", ["你看完了以后告诉我你的感受", "写好了再发给我", "改好了就提交"])
def test_what_to_do_once_a_step_is_done_is_no_report_and_no_rule_from_now_on(said: str) -> None:
    # V完了以后 / V好了再 says when: the step is still to do, and 以后 after it is "after", not "from now on"
    v = verdicts(("assistant", "这是草稿，请过目。"), ("user", said))
    assert v["m2"].category not in ("decision", "preference"), v["m2"]
    assert "reports" not in v["m2"].reason, v["m2"]


@pytest.mark.parametrize("said", ["你现在用的什么模型", "你使用的是哪个模型", "你叫什么", "你的名字是啥", "都是我叫你做的"])
def test_a_question_about_a_choice_or_a_name_chooses_and_names_nothing(said: str) -> None:
    # a question word stands where the choice or the name would be; "我叫你…" tells someone to do something
    v = verdicts(("assistant", "你好，有什么需要？"), ("user", said))
    assert v["m2"].category not in ("decision", "preference"), v["m2"]


@pytest.mark.parametrize("said", [
    # 用 as "with" (how one piece of work is written), "used for", a past use; a question by its tail or word
    "请用三句话介绍人工智能", "用一句话总结一下", "Vl是用来理解图片的", "今天dreaming用了多久", "你能用飞书不", "如何使用这个技能",
])
def test_use_as_with_or_in_a_question_chooses_nothing(said: str) -> None:
    v = verdicts(("assistant", "你好，有什么需要？"), ("user", said))
    assert v["m2"].category != "decision", v["m2"]


@pytest.mark.parametrize("said", ["流量消耗应该差不多吧", "可能是网络的问题吧", "不会又挂了吧", "你好像没有这种经历吧"])
def test_a_guess_ending_in_ba_is_no_order(said: str) -> None:
    v = verdicts(("assistant", "你好，有什么需要？"), ("user", said))
    assert v["m2"].category != "task", v["m2"]


@pytest.mark.parametrize(("said", "category"), [("改吧", "task"), ("导进 report.db 吧", "task"), ("方案2", "decision"),
                                                ("可能的话今天上线吧", "task"), ("尽可能快点发布吧", "task"),
                                                ("没问题的话直接合并吧", "task"), ("你估计一下工作量吧", "task"),
                                                ("用十字路口的照片做封面", "decision"),
                                                ("我选择方案A", "decision"), ("选第二个吧", "decision"),
                                                ("你为我设计一个完整方案", "task"), ("用3个线程跑", "decision")])
def test_an_order_in_ba_a_pick_among_plans_or_work_for_me_still_is_one(said: str, category: str) -> None:
    v = verdicts(("assistant", "有两个方案：方案A 用 Redis，方案B 用 SQLite。你选哪个？"), ("user", said))
    assert v["m2"].category == category, v["m2"]


@pytest.mark.parametrize("said", ["用 PostgreSQL", "我们用飞书通知", "你叫小林", "我叫阿杰"])
def test_a_choice_or_a_name_given_still_is_one(said: str) -> None:
    v = verdicts(("assistant", "你好，有什么需要？"), ("user", said))
    assert v["m2"].category in ("decision", "preference"), v["m2"]


@pytest.mark.parametrize("said", [
    # a "don't" that waits for the user's word, wherever it stands (issue 16's missed security rule, reworded)
    "app password below. security rule - do not forward any mail to another address without explicit approval",
    "never delete a branch without asking me first", "未经我同意不要给客户发邮件",
    # a "don't" said of the agent inside the clause
    "that was close, you don't randomly push code to any client repo", "ok, you never touch the prod database",
])
def test_a_standing_dont_anywhere_in_the_clause_is_a_preference(said: str) -> None:
    v = verdicts(("assistant", "Done, the mail went out."), ("user", said))
    assert v["m2"].category == "preference", v["m2"]


@pytest.mark.parametrize("said", ["you don't need to hurry", "you don't know that yet", "I can't do it without help",
                                  "没有我的电脑，我什么都做不了"])
def test_what_the_agent_need_not_do_or_does_not_know_is_no_rule(said: str) -> None:
    v = verdicts(("assistant", "Done, the mail went out."), ("user", said))
    assert v["m2"].category != "preference", v["m2"]


@pytest.mark.parametrize("said", ["you need to fix these issues in the repo", "Do some research and figure out the deadline"])
def test_an_order_said_as_a_need_or_as_research_to_do_is_a_task(said: str) -> None:
    v = verdicts(("assistant", "Here is the first paragraph."), ("user", said))
    assert v["m2"].category == "task", v["m2"]


@pytest.mark.parametrize("said", ["hola", "Haii", "oke", "terima kasih", "gracias!", "listo!", "merci beaucoup", "xin chào"])
def test_a_greeting_thanks_or_ok_in_another_language_users_write_in_is_noise(said: str) -> None:
    v = verdicts(("assistant", "Done, the report is in the folder."), ("user", said))
    assert v["m2"].category == "noise", v["m2"]


@pytest.mark.parametrize("said", ["Hola, ¿puedes revisar el servidor?", "oke, tapi cek dulu log-nya ya"])
def test_one_with_more_said_after_it_is_not(said: str) -> None:
    v = verdicts(("assistant", "Done, the report is in the folder."), ("user", said))
    assert v["m2"].category != "noise", v["m2"]


@pytest.mark.parametrize("said", [
    # review 45: an opening word before a noun, a verb that opens a noun, what followed an act, a memory, a question
    "ok test passed", "first run failed", "no change needed", "sorry call dropped", "store closes at 9",
    # review 46: a report after "ok", a good night, a correction, what happened without approval, a one-off stop
    "ok fix didn't work", "ok download complete", "alright, build's broken", "晚安，做个好梦", "出个门，马上回来",
    "找个工作好难", "你写错了", "你装错版本了", "他未经允许就进来了", "未经授权的访问已被拦截", "别装傻", "别用这个了",
    "you don't make any sense", "you don't call me anymore", "i really need some sleep",
    "更新日志写得很清楚", "检查结果出来了", "登录页面打不开", "配置正确", "删除按钮在右上角", "回复速度太慢了", "修改后还是不行",
    "记得你昨天说过", "写一篇文章要多久",
    # the speaker's own plan or someone else's act; the future 将; a need of one's own
    "我来写一篇", "我介绍一下自己", "我先说明一下背景", "老师让我们写一篇作文", "做个好人", "公司将于下月发布新版", "系统将自动更新",
    "I really need to sleep",
    # a remark, an idiom, a lack
    "You don't say!", "you don't make sense", "你别说，还挺好用", "别开玩笑", "我还没有确认", "这个操作没有确认弹窗",
])
def test_what_only_looks_like_an_order_or_a_rule_is_neither(said: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category not in ("task", "preference"), verdict


@pytest.mark.parametrize(("said", "category"), [("装这个插件", "task"), ("打开", "task"), ("现在关闭所有 tab", "task"),
                                                ("设置成中文", "task"), ("不要写注释", "preference"),
                                                ("记得关浏览器", "task"), ("you'll need to install Python first", "task"),
                                                ("写好以后发给我", "task")])
def test_an_order_the_bounds_keep(said: str, category: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category == category, verdict


@pytest.mark.parametrize("said", [
    "Génère une image pour l'offre de printemps", "genere une affiche en espagnol", "Cherche 10 prospects à Lille",
    "ajoute-les en base", "Enlève le nom de domaine", "Très bien, fais maintenant la version courte",
    "Lance la prospection à Lyon", "peux-tu me l'envoyer stp", "Pourriez-vous vérifier la facture ?",
    "Revisa si tengo tareas pendientes", "Crea un ejemplo de una clase Persona", "Redacta un saludo breve para Ana",
    "dame los comandos para nuestro caso", "pregúntale a Ana cómo está",
    "puedes enviarme un mensaje de prueba por telegram", "Ajústalo según convenga", "Arregla el bug del login",
    "Lee este archivo", "Vuelve a intentarlo",
    "Veuillez envoyer le rapport", "Quiero que revises el código", "Guarda el archivo", "Checa mi correo",
    "Pásame el archivo", "Relis ce texte", "Déploie en prod", "Renomme le fichier", "Tu peux me faire un résumé stp",
])
def test_a_french_or_spanish_order_opening_its_clause_is_a_task(said: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category == "task", verdict


@pytest.mark.parametrize("said", [
    # Spanish drops the subject: what something does, when an error or a "but not" follows
    "Genera muchos errores cuando lo ejecuto", "Crea el archivo pero no lo guarda", "Muestra un error y se cierra",
    # a noun that is also a verb's form, with no pronoun or article to make it an order
    "Programme de la semaine", "Pregunta: ¿cuánto cuesta?", "Muestra gratis incluida",
    # Indonesian and Italian "di", Spanish "dale" (go ahead), an English name, a CV, a model
    "di rumah saja", "dale", "Lance said he will call back", "Resume attached", "Llama 3 is faster on my laptop",
    # how or how often it happens, a "but", an outcome: a report (Spanish, Italian, Portuguese)
    "Sube muy lento", "Calcula mal el total", "Envía dos veces el correo", "Abre la app y se cierra sola",
    "Guarda los cambios pero luego desaparecen", "Continua a non funzionare", "Abre mas não carrega",
    "Utilise 90% du CPU", "Installe mais ne démarre pas",
    # an interjection, a noun, a "could have", a surprise, the Spanish "todo" (all)
    "Regarde, ça ne marche pas", "Guarda, non funziona", "Relance envoyée hier, pas de réponse",
    "Execute permission denied on the script", "Podrías tener razón", "Podrías haberme avisado",
    "Tu pourrais avoir raison", "No me digas que se borró todo", "todo bien", "Gracias por todo",
    "Gracias a todo el equipo", "The todo app crashes on save",
    # thanks, a letter's formula, a wish, a belief asked for, a pause, a permission, a surprise, a dropped "ne"
    "Merci de m'avoir aidé", "Merci de partager, c'est très intéressant", "Veuillez agréer mes salutations distinguées",
    "Quiero que sepas que te lo agradezco", "Je veux que tu saches que c'est fini", "Quiero que las cosas funcionen",
    "¿Puedes creer que lo borró?", "Tu peux compter sur moi", "Dame un segundo", "Donne-moi une seconde",
    "Fais comme tu veux", "Haz lo que quieras", "Fais-toi plaisir", "Dime que es broma", "Cherche pas à comprendre",
    # English sentences about a name or a word; a French noun after "du"
    "Mets won again last night", "Donne Smith called me", "Crea means create", "Programme du jour : réunion à 10 h",
])
def test_a_report_a_noun_or_another_languages_word_is_no_french_or_spanish_order(said: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category != "task", verdict


@pytest.mark.parametrize("said", [
    "ne communique plus avec ce client", "n'envoie jamais de message sans mon accord",
    "avec moi tu parles uniquement en français", "No utilices la palabra criterio", "no vuelvas a preguntar lo mismo",
    "no deberías volver a preguntar", "Recuérdalo para futuras sesiones", "de ahora en adelante responde en español",
    "désormais, envoie le résumé à 8 h", "Nunca borres archivos sin preguntar",
])
def test_a_french_or_spanish_standing_rule_is_a_preference(said: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category == "preference", verdict


@pytest.mark.parametrize("said", [
    "ne sais pas", "no me digas", "no tienes razón", "je ne sais plus", "No me hagas reír",
    # what something does, a reassurance, a reproach, when something happened to the speaker
    "Ne charge pas", "Ne répond plus depuis hier", "Ne panique pas", "No debes preocuparte", "No deberías haberlo borrado",
    "Tu ne devrais pas t'inquiéter", "Se cae cada vez que subo un archivo", "La próxima vez te invito yo",
    "A partir de hoy estoy de vacaciones", "No te molestes, ya lo hice yo", "No me esperes para cenar", "Ne dis pas ça",
    "Ne me parle pas comme ça", "Ne fais pas le malin", "Mi jefe siempre responde en inglés", "Elle parle uniquement en français",
])
def test_a_subject_left_out_a_surprise_or_a_remark_is_no_standing_rule(said: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category != "preference", verdict


@pytest.mark.parametrize(("said", "category"), [
    ("Tolong kirim laporannya dong", "task"), ("carikan hotel murah di Bali", "task"), ("ingetin aku besok pagi", "task"),
    ("buatkan ringkasan artikel ini", "task"), ("hãy viết lại đoạn này", "task"), ("giúp mình kiểm tra server", "task"),
    ("jangan di-summon lagi", "preference"), ("jangan kirim email tanpa izin saya", "preference"),
    ("không được nói gì với chị ấy nha", "preference"), ("mulai sekarang balas pakai bahasa Indonesia", "preference"),
    ("từ giờ trở đi trả lời bằng tiếng Việt", "preference"),
])
def test_an_indonesian_or_vietnamese_order_or_standing_rule_is_recognised(said: str, category: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category == category, verdict


@pytest.mark.parametrize("said", [
    # don't worry, don't forget (a reminder), it can't be done, a report of what was done, "please" alone
    "jangan khawatir", "jangan lupa makan", "đừng lo", "không được rồi", "Ok sudah bisa, thankyou",
    "Siap, sudah saya simpan", "tạo xong rồi", "tolong dong",
    # a cry for help, "what if", "come on", the Eid greeting, a verb as a noun or a subject, an idiom, "not yet"
    "tolong, ada ular!", "tolong aku lagi sedih", "coba kalau dia datang tadi", "Ayo semangat!",
    "mohon maaf lahir dan batin", "Buat semua orang, selamat tahun baru", "Baca itu bikin aku sedih", "jangan salah, dia pintar",
    "jangan bercanda, serius?", "jangan kirim emailnya dulu", "aku beli sayur, buah, dan seterusnya",
    # thanks for help given, a report, a let's, a noun, an idiom, "not well", from now until tonight
    "cảm ơn bạn đã giúp mình", "Hôm qua anh ấy giúp tôi sửa xe", "Hãy cùng nhau cố gắng nhé", "Dịch bệnh đang lan rộng",
    "Kiểm tra hôm nay khó quá", "đừng khách sáo", "Không được khỏe lắm", "từ giờ đến tối mình bận",
    # English sentences that open with one of these words
    "Mohon is my friend", "Ayo Technology is a song",
])
def test_comfort_a_reminder_a_report_or_please_alone_is_no_indonesian_or_vietnamese_order(said: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category not in ("task", "preference"), verdict


@pytest.mark.parametrize(("said", "category"), [
    # Vietnamese: a verb of the agent's work opening its clause, "giúp anh" after it, the imperative "đi" at its end,
    # "em hãy…" (who is asked, then do), from now on, next time
    ("Tóm tắt giúp anh bài này https://example.org/post", "task"), ("Chạy lại cron báo cáo đi em", "task"),
    ("Lưu bài này vào thư mục raw", "task"), ("Em thử dùng công cụ khác đi", "task"), ("Dịch lại đi nào", "task"),
    ("Cho anh lịch họp tuần này", "task"), ("em hãy xoá bản cũ và thay bằng bản mới nhé", "task"),
    ("Xem lại giúp anh file cấu hình", "task"), ("Thử lại đi em", "task"),
    # (what the speaker needs or wants the agent to do: "I need you to…")
    ("tôi cần bạn kiểm tra lại file cấu hình", "task"), ("mình muốn em viết lại đoạn này", "task"),
    ("Từ giờ em hãy trả lời ngắn gọn thôi", "preference"), ("lần sau nhớ hỏi anh trước khi gửi email", "preference"),
    # Ukrainian and Russian: the imperative of a verb of the agent's work opening its clause; never; from now on
    ("Створи репозиторій та додай туди README", "task"), ("продовжуй та звітуй мені", "task"),
    ("Сделай бэкап базы", "task"), ("проверь логи сервера", "task"), ("Переключись на другую модель", "task"),
    ("лучше вот изучи документацию", "task"), ("сам придумай название", "task"), ("перемкнись на іншу модель", "task"),
    ("ніколи не видаляй файли з папки docs", "preference"), ("отныне отвечай только по-русски", "preference"),
    ("Не удаляй ничего без спроса", "preference"), ("Не відповідай англійською", "preference"),
    ("больше не пушь в main", "preference"), ("никогда не отвечай на английском", "preference"),
    ("никогда не пуши в main", "preference"),
    ("не используй sudo без спроса", "preference"), ("ніколи не відповідай англійською", "preference"),
    # English: said to the agent by its name in a group chat; proceeding with a proposal chooses it; a look to take
    ("@helper_bot introduce yourself to the new members", "task"), ("Proceed with option 2", "decision"),
    ("take a look at the failing build", "task"),
    # after a yes or an ok with no comma, as with one
    ("yes add them to the list", "task"), ("ok add it", "task"), ("yeah start building it now", "task"),
])
def test_an_order_or_a_standing_rule_in_vietnamese_ukrainian_russian_or_to_a_named_agent_is_recognised(
        said: str, category: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category == category, verdict


@pytest.mark.parametrize("said", [
    # Vietnamese: a report, a question, a judgement, a noun these verbs begin, a way to ask or to greet, "đi" as go
    "Chạy xong rồi mà em", "Chạy local và chạy trên server khác gì nhau", "Chạy được không", "tạo xong rồi",
    "Dịch bệnh đang lan rộng", "Dịch vụ này tốt lắm", "Kiểm tra hôm nay khó quá", "Đọc sách là sở thích của anh",
    "Lưu ý: máy chủ sẽ khởi động lại", "Cho anh hỏi cái này", "Gửi anh, em là Lan", "Thêm nữa, anh thấy bài này hay",
    "Em viết bài này hôm qua rồi", "Anh đi ngủ đây", "Mình đi", "Anh vừa đi", "Thôi đi", "Ngày mai anh đi Hà Nội",
    "Kỷ niệm đẹp đã mất đi", "từ giờ đến tối mình bận",
    # Vietnamese: wanting the agent to know or to be, asked back what is needed
    "tôi muốn bạn biết rằng tôi rất vui", "anh muốn em vui", "tôi cần bạn làm gì?", "tôi cần anh ấy gọi lại",
    # Ukrainian and Russian: a question, what someone did, a greeting
    "Ти щось зробив?", "Створи чи ні, мені все одно?", "Привіт", "что ты сделал?",
    # Vietnamese: it failed again, the speaker as "em", a move or a deposit, a time or one's own news, a scolding
    "Chạy lại code cũ vẫn lỗi", "Tạo lại token vẫn 401", "Chạy lệnh này báo permission denied",
    "Em sửa lại vẫn lỗi anh ạ", "Em dùng cái này 2 năm nay", "Chuyển vào Sài Gòn sống", "Gửi tiền vào ngân hàng",
    "Đọc sách giúp mình thư giãn", "Từ nay mình bận lắm", "Từ giờ tôi không uống rượu nữa", "Lần sau đừng có mà trễ",
    # Ukrainian and Russian: idioms, a permission, a condition, what one has become, a saying quoted
    "Дай подумать", "Дай-ка подумать", "Дай пять", "Посмотри какая красота", "Расскажи кому-нибудь, не поверят",
    "Можешь идти", "Можешь расслабиться", "Скачай я это раньше, всё было бы проще", "Отныне я вегетарианец",
    "Папа всегда говорил: никогда не делай долгов", "Не трогай", "Не удаляй этот файл", "Я не удаляю файлы без спроса",
    "ты никогда не отвечаешь вовремя", "сам не знаю", "лучше не надо", "вот это да", "сама виновата",
    # Indonesian: a question without its mark, a remark
    "Simpan itu di mana ya", "Cek itu gimana caranya", "Salin itu bisa ga", "Kirim ulang juga gak masuk",
    # English: a name alone is no order, idioms, labels, caution
    "@helper_bot", "Proceeding with care is wise", "Proceed with caution lol",
    "Keep it up!", "Get well soon", "Count me in", "Update - the deploy went fine", "Check: done",
])
def test_a_report_a_question_a_noun_or_a_yes_is_no_order_in_those_languages(said: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category not in ("task", "preference", "decision"), verdict


@pytest.mark.parametrize(("said", "reply"), [
    ("回复不要一直带😄 😂这个表情包", "ok，不用表情包，记住了。纯粹说话就行。"),
    ("任务、agents、技能状态变化都要同步的", "记住了！**任务、Agents、技能状态变化都要同步**。"),
    ("also greet the new members when they join", "Got it, I'll remember that."),
])
def test_what_the_agent_says_it_will_remember_is_kept_as_a_standing_preference(said: str, reply: str) -> None:
    # no marker of the user's ("from now on", 以后) told it; the agent's "记住了" does
    v = verdicts(("assistant", "Hi, what can I do?"), ("user", said), ("assistant", reply))
    assert (v["m2"].category, v["m2"].status, v["m2"].rule) == ("preference", "current", "resolve:adopted"), v["m2"]
    assert v["m3"].category == "process", v["m3"]


@pytest.mark.parametrize(("said", "reply"), [
    ("帮我查一下天气", "好的，北京今天晴，25度。"),  # no word of remembering
    ("ok", "记住了。"),  # nothing to keep
    ("回复不要一直带表情包", "记住了，要不要我把这条也写进 SOUL.md？"),  # asks back: the question stays open
    ("我记住了你的生日", "嗯嗯"),  # the user's own words of remembering
    ("/菜单", "确实还在漏……我记下了，会反馈给修这个的。菜单来了：漂流瓶、备忘录"),  # a command invoked
    ("Onboard this channel: it is for our book club", "Done. Created `notes/club.md`. I'll remember this context."),
])
def test_a_reply_that_remembers_nothing_or_asks_back_adopts_nothing(said: str, reply: str) -> None:
    v = verdicts(("assistant", "Hi, what can I do?"), ("user", said), ("assistant", reply))
    assert v["m2"].rule != "resolve:adopted", v["m2"]


_ORDERS = ["send it to the team", "now deploy it to prod", "fix the login page", "现在把它发给团队", "把报告发到群里"]
_FORMULAS = ["thanks, ", "thanks. ", "thank you, ", "谢谢，", "ok, ", "好的，", "great, "]


@given(formula=st.sampled_from(_FORMULAS), order=st.sampled_from(_ORDERS))
def test_a_formula_before_an_order_never_makes_the_order_a_formula(formula: str, order: str) -> None:
    # read as one, "thanks …" had been a thanks alone: dropped, with the order in it
    report = ("assistant", "Done: the weekly report is in reports/week12.md.")
    assert verdicts(report, ("user", order))["m2"].category == "task"
    assert verdicts(report, ("user", formula + order))["m2"].category == "task"


@pytest.mark.parametrize("said", ["thanks, that works", "thanks, great job", "谢谢，辛苦了", "好的，谢谢", "Oh, no."])
def test_formulas_read_together_are_still_one(said: str) -> None:
    v = verdicts(("assistant", "Done: the weekly report is in reports/week12.md."), ("user", said))
    assert v["m2"].category == "noise", v["m2"]


@pytest.mark.parametrize(("said", "rule"), [("我记住了", False), ("记住了吗", False), ("你记住了没", False),
                                            ("记住，别删我的文件", True), ("记住我的生日是3月5日", True)])
def test_remember_is_a_rule_said_to_the_agent_not_the_speakers_own_or_a_question(said: str, rule: bool) -> None:
    v = verdicts(("assistant", "电话是64045361。"), ("user", said))
    assert (v["m2"].category == "preference") is rule, v["m2"]


@pytest.mark.parametrize("said", ["again, removed .git inside. always check the branch before committing",
                                  "also dont restart without telling me first", "never overwrite the config"])
def test_a_rule_after_a_report_or_in_chat_without_punctuation_is_a_rule(said: str) -> None:
    v = verdicts(("assistant", "Please remove the nested .git folder."), ("user", said))
    assert v["m2"].category == "preference", v["m2"]


@pytest.mark.parametrize(("said", "rule"), [("STOP EVERYTHING NOW", False), ("stop anything you are running", False),
                                            ("stop using emojis in your replies", True), ("stop sending me reports", True)])
def test_a_halt_is_no_habit_to_drop(said: str, rule: bool) -> None:
    v = verdicts(("assistant", "Running the migration on all servers."), ("user", said))
    assert (v["m2"].category == "preference") is rule, v["m2"]


@pytest.mark.parametrize(("said", "category"), [
    # Portuguese: the imperative said to "você" opening its clause, the one said to "tu" with what it acts on, asked
    # with "pode", wanted with "quero que você"; always, never, a "don't" in the form of a command, "você deve",
    # whenever something happens; a name given, the agent's or the user's, a profession; a decision
    ("Envie o relatório para o Marcos", "task"),
    ("manda uma mensagem pro grupo", "task"), ("roda o script de novo", "task"), ("pode reiniciar o servidor?", "task"),
    ("eu quero que você revise o contrato", "task"), ("Sempre responda em português", "preference"),
    ("nunca apague arquivos da pasta docs", "preference"), ("não publique nada sem minha aprovação", "preference"),
    ("vc deve me corrigir quando eu errar", "preference"), ("se eu disser bom dia vc deve mandar a agenda", "preference"),
    ("a partir de agora use o modelo menor", "preference"), ("Meu nome é Joana", "preference"),
    ("você vai se chamar Luna", "preference"), ("sou engenheira de dados", "preference"), ("vamos usar o Postgres", "decision"),
    # Spanish: always in the language of the answers, a name given, a decision
    ("¿me ayudas a configurar el correo?", "task"), ("me ayudarías con la factura", "task"),
    ("siempre responde en inglés", "preference"), ("mi nombre es Carla", "preference"), ("vamos a usar Supabase", "decision"),
    # Indonesian: any verb in -kan opening its clause, a bare verb of the agent's work with what it acts on, "bantu",
    # what the speaker wants to see; always, the language of the answers; a name given, the agent's role; a decision
    ("cek folder download saya", "task"), ("bantu saya susun jadwal", "task"),
    ("saya mau lihat stok gudang", "task"), ("aku butuh kamu cek server", "task"), ("saya perlu kamu kirim invoice", "task"),
    ("coba lagi", "task"), ("selalu balas pakai bahasa Inggris", "preference"),
    ("balas lewat email saja", "preference"),
    ("nama saya Dewi", "preference"), ("kamu adalah seorang asisten keuangan", "preference"),
    ("kita pakai Vercel saja", "decision"),
])
def test_a_portuguese_spanish_or_indonesian_order_rule_name_or_decision_is_recognised(said: str, category: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category == category, verdict


@pytest.mark.parametrize("said", [
    # Portuguese reports with the subject left out, a slang, a permission, a guess, a state, a surprise, a complaint
    # that starts with whenever, a name asked
    "Abre mas não carrega", "Fecha sozinho toda hora", "Roda bem no meu pc", "Fala sério", "Pode ser",
    "Você deve estar cansado", "Sou inteligente demais", "Não me diga!", "Não funciona", "Sempre que eu abro o app ele trava",
    "Qual é o meu nome?", "Como vc se chama?",
    # Indonesian: eat, not, will, the passive and the active, imagine, forgive, forget it, please go ahead, a remark,
    # a report, "we'll see", love, a link word, a "what if", a name asked
    "Makan siang dulu", "Bukan begitu maksudnya", "Akan saya cek nanti", "Ditampilkan di layar tapi salah",
    "Menampilkan data yang salah", "Bayangkan kalau kita punya uang banyak", "Maafkan saya", "Lupakan saja", "Silakan",
    "Saya mau tidur dulu", "Cek sudah saya lakukan", "Lihat saja nanti", "Kasih sayang itu penting",
    "Berdasarkan data bulan lalu", "Coba kalau kita pakai yang lain", "Nama kamu siapa?", "Kirim ulang juga gak masuk",
    "balas pakai apa saja",
    # Spanish: it caught my attention, a state, let's see; English: a report that opens with a verb those share
    "Me llamo la atención ese video", "Soy feliz", "Vamos a ver", "Check passed", "me ayudaste mucho ayer",
    # a negated question is no standing rule
    "dont you have access to the weather api?",
])
def test_a_report_a_question_or_a_turn_of_speech_is_no_order_or_rule_in_those_languages(said: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category not in ("task", "preference", "decision"), verdict


@pytest.mark.parametrize(("said", "category"), [
    # German: the imperative said to "du" opening its clause, "bitte" opening it, "kannst du", "lass uns"; from now on,
    # remember, always in a language, never without asking; a name given; a decision
    ("Erstelle eine Übersicht der offenen Rechnungen", "task"), ("liste die Dateien im Ordner auf", "task"),
    ("bitte die Logs von gestern prüfen", "task"), ("kannst du den Server neu starten", "task"),
    ("lass uns den Plan nochmal durchgehen", "task"), ("pass die Konfiguration an", "task"),
    ("ab sofort bitte kürzere Antworten", "preference"), ("merk dir, dass ich keine Emojis mag", "preference"),
    ("antworte immer auf Deutsch", "preference"), ("lösche nichts ohne mich zu fragen", "preference"),
    ("mein Name ist Jonas", "preference"), ("wir nehmen Postgres", "decision"),
])
def test_a_german_order_rule_name_or_decision_is_recognised(said: str, category: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category == category, verdict


@pytest.mark.parametrize("said", [
    # asked, a state that goes on, a comfort, a verb asked back, you're welcome, what the speaker notices, an
    # infinitive alone, the speaker's own report; English words a German verb is spelled as
    "wie kannst du das in Zukunft verhindern?", "wie heißt du?", "immer noch kaputt", "immer wieder der gleiche Fehler",
    "mach dir keine Sorgen", "mache ich das?", "bitte schön", "ich merke, dass es langsam ist", "ich habe das angepasst",
    "The pass was blocked", "lies are bad", "plane crashed",
])
def test_a_question_a_state_or_an_english_word_is_no_german_order_or_rule(said: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category not in ("task", "preference", "decision"), verdict


@pytest.mark.parametrize(("said", "rule"), [
    ("when you're asked for my schedule, search across all the calendars", True),
    ("add it to the family calendar unless specified", True), ("whenever you are asked about prices, quote in euros", True),
    ("when you're asked, what do you say?", False), ("I was asked to leave early", False),
])
def test_how_to_act_whenever_asked_or_until_told_otherwise_is_a_standing_rule(said: str, rule: bool) -> None:
    v = verdicts(("assistant", "Calendar access is set up."), ("user", said))
    assert (v["m2"].category == "preference") is rule, v["m2"]


@pytest.mark.parametrize(("said", "category"), [
    # Korean: a request ending its clause, a wish for the agent's work; from now on, never, a "don't", must not;
    # a name given; a decision
    ("회의록을 정리해 주세요", "task"), ("결과 나오면 나에게 문자 보내줘", "task"), ("팀을 먼저 구성해 주었으면 해", "task"),
    ("앞으로는 존댓말로 대답해 줘", "preference"), ("절대 외부로 공유하면 안 돼", "preference"),
    ("이모티콘 쓰지 마세요", "preference"), ("나의 이름은 민수야", "preference"), ("추천대로 해봅시다", "decision"),
    # Japanese: a request; always, remember, a "don't", the language or tone of the answers; a name given
    ("議事録をまとめてください", "task"), ("天気を調べて", "task"), ("常に敬語で話すように覚えておいてね", "preference"),
    ("絵文字を使わないでください", "preference"), ("英語で答えて", "preference"), ("標準語がいいな", "preference"),
    ("私の名前は佐藤です", "preference"),
    # Russian: never again with any imperative, remember, a name given
    ("больше никогда не удаляй мои заметки", "preference"), ("запомни: я работаю по ночам", "preference"),
    ("меня зовут Ольга", "preference"),
])
def test_a_korean_japanese_or_russian_request_rule_name_or_decision_is_recognised(said: str, category: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category == category, verdict


@pytest.mark.parametrize("said", [
    # don't worry, thanks, because (you) helped, a name asked, hello; a greeting formula, please wait, nice weather, a
    # name asked, thanks for working; I will never forget, did you remember?, what is your name?
    "걱정하지 마", "고마워", "도와줘서 고마워", "네 이름은 뭐야?", "안녕하세요", "よろしくお願いします", "待っていてください",
    "天気がいいな", "名前は何？", "一所懸命にやってくれてありがとう", "я никогда не забуду это", "запомнил?", "как тебя зовут?",
])
def test_a_formula_a_question_or_the_speakers_own_step_is_no_request_or_rule_in_those_languages(said: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category not in ("task", "preference", "decision"), verdict


@pytest.mark.parametrize(("said", "order"), [
    # German: the infinitive alone ending the clause (not with a subject, a modal verb or "zu"); Portuguese: "veja se…"
    # (not "veja bem"; "me fala…" asks to be told: test_classify_sweep26)
    ("phase 2 starten", True), ("in memory speichern", True), ("wir müssen das noch testen", False),
    ("das ist schwer zu testen", False), ("veja se consegue clonar o repositório", True),
    ("veja bem, não é isso", False),
])
def test_a_german_infinitive_or_a_portuguese_see_whether_is_an_order(said: str, order: bool) -> None:
    verdict = reply_to_offer(said)
    assert (verdict.category == "task") is order, verdict


@pytest.mark.parametrize(("said", "ping"), [
    ("Работаем?", True), ("ты тут?", True), ("bist du noch da?", True), ("tá aí?", True), ("있어?", True), ("いる？", True),
    ("работаем над проектом завтра", False), ("파일 있어?", False), ("今日は家にいる", False),
])
def test_a_ping_in_another_language_is_noise_and_the_same_words_in_a_sentence_are_not(said: str, ping: bool) -> None:
    v = verdicts(("assistant", "Done: the report is in your inbox."), ("user", said))
    assert (v["m2"].category == "noise") is ping, v["m2"]


@pytest.mark.parametrize(("said", "category"), [
    # Arabic (written and Egyptian chat) and Persian: "please", "can you", "I want you to", an imperative with "for me"
    # joined to it or in the written form, Persian's imperative and its "do" ending the clause
    ("من فضلك راجع العقد", "task"), ("تقدر تراجع الكود", "task"), ("هل يمكنك مراجعة الملف؟", "task"),
    ("عاوزك تجهز ملخص للاجتماع", "task"), ("ابعتلي التقرير على تلجرام", "task"), ("أرسل الفاتورة إلى العميل", "task"),
    ("لطفاً گزارش را بفرست", "task"), ("لاگ‌ها را چک کن", "task"), ("میتونی فایل را ترجمه کنی", "task"),
    # from now on, always with an order, a "don't" with a "without", remember that; a name given
    ("من الآن رد بالعربي", "preference"), ("دايما رد عليا باختصار", "preference"),
    ("لا تحذف أي ملف بدون موافقتي", "preference"), ("خلي في بالك اني نباتي", "preference"),
    ("از این به بعد کوتاه جواب بده", "preference"), ("اسمي سارة", "preference"),
    # the Arabic question mark asks as "?" does
    ("الملف ده اتحفظ فين؟", "question"), ("گزارش کجاست؟", "question"),
])
def test_an_arabic_or_persian_order_rule_name_or_question_is_recognised(said: str, category: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category == category, verdict


@pytest.mark.parametrize("said", [
    # it may be the network, from now until tomorrow, you always say, my name asked; a greeting is none of them
    "ممكن تكون المشكلة في الشبكة", "من دلوقتي لحد بكره مش فاضي", "دايما بتقول نفس الكلام", "ايه اسمي؟", "السلام عليكم",
    "سلام",
    # review 60: it may rain, an error occurred, then we will go, along the road, forget it, you may go
    "ممكن تمطر بكرة", "حدث خطأ في البرنامج", "بعد كده هنروح السينما", "على طول الطريق كان زحمة", "ولش کن", "میتونی بری",
])
def test_an_arabic_or_persian_remark_or_greeting_is_no_order_or_rule(said: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category not in ("task", "preference", "decision"), verdict


@pytest.mark.parametrize(("said", "rule"), [
    # a rule for every time without "以后": every time with what the agent must do then, anything or everything must,
    # before doing something always, when doing something don't, not every time, from now on whenever I…
    ("每次回复前都要先检查日志", True), ("每次开发完都自己测试，不要再问我", True), ("所有文件都必须放在 docs 目录下", True),
    ("任何时候都不要删除用户数据", True), ("你做事情之前一定要跟我说一下", True), ("发送文件的时候不要发送任何其他文字", True),
    ("不要每次都存图片", True), ("数据不需要每次都从网上抓取", True), ("以后我每次让你记账，你都让财务助手来做", True),
    ("每次都更新一下词库", True),
    # what happens every time, a complaint, all of someone, a childhood, one time in the future
    ("每次都这样，太烦了", False), ("每次打开都很慢", False), ("所有人都走了", False), ("你每次都卡一下", False),
    ("小时候一定要听话", False), ("到时候不要忘了提醒我", False),
    # review 60: asked, 目前 and 提前, the speaker's own habit, usually
    ("每次更新都需要重新登录吗", False), ("所有人都必须到场吗", False), ("目前必须先搞定登录", False), ("提前一定要说", False),
    ("我上班的时候不能看手机", False), ("平时不要太累", False),
])
def test_a_chinese_rule_for_every_time_is_a_preference_and_what_happens_every_time_is_not(said: str, rule: bool) -> None:
    verdict = reply_to_offer(said)
    assert (verdict.category == "preference") is rule, verdict


@pytest.mark.parametrize(("said", "category"), [
    # Chinese orders with the verbs of reviewing, clearing, running, viewing, testing, saying, analysing; again; work on
    # what 对 names; an option chosen by its letter
    ("再次审核", "task"), ("再跑一篇数据", "task"), ("审核这篇文章", "task"), ("测试这个接口", "task"),
    ("说一下你的计划", "task"), ("查看一下", "task"), ("请对短视频社区进行市场需求分析", "task"),
    # the same words naming a thing or reporting a state; off-topic, no use again, a graduate student
    ("测试环境坏了", "process"), ("审核通过了", "process"), ("查看次数太多", "process"), ("检查结果没问题", "process"),
    ("你跑题了", "process"), ("再分析也没有意义", "process"), ("你研究生毕业没", "process"),
])
def test_a_chinese_order_with_a_verb_of_review_test_or_run_is_a_task(said: str, category: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category == category, verdict


@pytest.mark.parametrize("said", ["C方案", "选B"])
def test_an_option_chosen_by_its_letter_is_a_decision_where_options_were_offered(said: str) -> None:
    """A generic "what can I do?" offers no options: the letter picks one only after a question that did."""
    asked = verdicts(("assistant", "A方案快，B方案省钱，C方案稳。你选哪个？"), ("user", said))
    assert asked["m2"].category == "decision", asked["m2"]
    assert reply_to_offer(said).category != "decision"


@pytest.mark.parametrize(("said", "asks"), [
    # a question without its mark, the whole message: asked of the agent in Chinese, what a thing is for, Portuguese,
    # French with the verb before its pronoun, Vietnamese with a final "chưa" (yet?)
    ("你有哪些skill", True), ("现在你是什么模型", True), ("这是干啥的", True), ("qual o dolar hoje", True),
    ("As tu mes courriel récents", True), ("bạn đã làm xong chưa", True),
    # whatever you use is fine, "not yet" said of oneself or of it; review 60: "you know nothing", "do nothing", when you
    # can let me know, whatever you want, the faster the better
    ("你用什么都行", False), ("tôi chưa", False), ("nó chưa", False), ("你什么都不懂", False), ("你什么也别做", False),
    ("quando puder me avisa", False), ("o que você quiser", False), ("quanto mais rápido melhor", False),
])
def test_a_question_without_its_mark_in_those_languages_asks(said: str, asks: bool) -> None:
    verdict = reply_to_offer(said)
    assert (verdict.category == "question") is asks, verdict


@pytest.mark.parametrize(("said", "rule"), [
    # the language of the answers, the whole message, is how every answer is to be written
    ("English please", True), ("In English please", True), ("chines response", True), ("用英文", True),
    ("gunakan bahasa Indonesia", True), ("use english", True),
    # a remark about a language, a dish, one piece of work in a language, the Tagalog "no"
    ("english is hard", False), ("chinese food", False), ("用英文写一封邮件", False), ("Hindi", False),
    # a language's name alone: as often a dish or a car (review 60)
    ("Thai", False), ("German", False),
])
def test_the_language_of_the_answers_alone_is_a_standing_preference(said: str, rule: bool) -> None:
    verdict = reply_to_offer(said)
    assert (verdict.category == "preference") is rule, verdict


@pytest.mark.parametrize(("said", "category"), [
    # a group chat's mention of the agent before or after a greeting or thanks: still the greeting, the thanks
    ("@helper_bot hi", "noise"), ("@rrvccn_bot 你好", "noise"), ("hi <@1470660971793088542>", "noise"),
    ("<@1470660971793088542> thanks", "noise"),
    # an order said to it by its name stays an order
    ("@helper_bot introduce yourself", "task"),
])
def test_a_mention_of_the_agent_does_not_hide_a_greeting(said: str, category: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category == category, verdict


@pytest.mark.parametrize(("said", "category"), [
    # review 69-71 (sessions of owners never seen): questions typed without their mark or accents; how many in Chinese
    ("cuantas solicitudes se hicieron hoy para renovaciones", "question"), ("para que servis", "question"),
    ("bueno y que podes hacer", "question"), ("como estas programado", "question"), ("伦敦有多少机构", "question"),
    ("今日更新了多少", "question"), ("现在几点", "question"),
    # standing rules, and who the user and the agent are
    ("我的邮箱是 a@example.com，以后给我发邮件发到这个邮箱吧", "preference"), ("以后跟我说话用中文", "preference"),
    ("Biasakan pake bahasa Inggris", "preference"), ("你就叫 缓缓 吧", "preference"),
    ("eu sou o Aleff e você vai ser meu assistente que vai se chamar Aleff também", "preference"),
    ("Anda adalah AI agent dengan gaya gaul", "preference"),
    # orders: call a tool, do work to something, look at something
    ("直接调用 wecom_mcp", "task"), ("我的从臂设备是：/dev/ttyACM1，尝试调用put", "task"), ("对网站进行安全扫描", "task"), ("veja o que tem na pasta docs", "task"),
    # the same words saying something else
    ("que bueno", "process"), ("como te dije ayer", "process"), ("donde quieras", "process"), ("没多少", "process"),
    ("好几个", "process"), ("以后给我买个礼物", "task"), ("对此进行了分析", "process"), ("工具调用失败了", "process"),
    ("调用次数太多了", "process"), ("veja só que legal", "process"),
])
def test_forms_the_reviews_of_unseen_owners_found(said: str, category: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category == category, verdict


@pytest.mark.parametrize("said", ["Heyyy", "helloooo", "yooo", "hii", "thanksss", "goood morning", "eyyy", "hi again"])
def test_a_greeting_drawn_out_is_a_greeting(said: str) -> None:
    assert reply_to_offer(said).category == "noise", reply_to_offer(said)


@pytest.mark.parametrize("reply", [
    "¡Hola! ¿En qué puedo ayudarte hoy?", "Hello! How can I assist you today?", "Boa tarde! Como posso ajudar você hoje?",
    "Hallo! Wie kann ich dir heute helfen?", "Halo! Ada yang bisa saya bantu hari ini?", "¡Hola de nuevo! ¿En qué te puedo ayudar?",
])
def test_the_agents_greeting_with_a_generic_offer_of_help_is_noise(reply: str) -> None:
    got = verdicts(("user", "hola"), ("assistant", reply))
    assert (got["m2"].category, got["m2"].action) == ("noise", "drop"), got["m2"]


@pytest.mark.parametrize("offer", ["Where would you like to start?", "¿Hay algo más en lo que pueda ayudarte?",
                                   "Posso ajudar em mais alguma coisa?"])
def test_a_generic_offer_of_more_help_leaves_no_question_and_its_no_decides_nothing(offer: str) -> None:
    got = verdicts(("user", "set a reminder for 7"), ("assistant", "Reminder set for 7:00. " + offer), ("user", "no"))
    assert got["m2"].category != "question", got["m2"]
    assert got["m3"].category != "decision", got["m3"]


def test_a_status_named_with_its_opposite_reports_nothing_done() -> None:
    got = verdicts(("user", "把报告发给王总"),
                   ("assistant", "我可以帮你：邮件营销统计（已发送/未发送数量），标记供应商为已发送"))
    assert (got["m1"].category, got["m1"].status) == ("task", "current"), got["m1"]
    sent = verdicts(("user", "把报告发给王总"), ("assistant", "报告已发送给王总。"))
    assert sent["m1"].status == "done", sent["m1"]


@pytest.mark.parametrize(("said", "category"), [
    ("/start", "noise"), ("/start@helper_bot", "noise"), ("一所懸命にやってくれてありがとう😄 これからもよろしくね", "noise"),
    ("おはよー！今日もよろしくね", "noise"), ("おやすみなさい また明日", "noise"), ("tchau", "noise"),
    ("/start the backup", "process"),
])
def test_a_bots_start_button_and_japanese_thanks_and_closings_are_formulas(said: str, category: str) -> None:
    assert reply_to_offer(said).category == category, reply_to_offer(said)


@pytest.mark.parametrize(("report", "done"), [
    ("Já clonei!", True), ("Saya telah menambahkan preferensi bahasa ke SOUL.md", True), ("sudah dicatat", True),
    ("我已经批准了你的另一个账号的配对请求", True), ("已成功将默认模型切换为 glm-5", True),
    ("aku sudah mencoba tapi gagal", False), ("saya sudah menginstal tapi masih error", False),
])
def test_work_reported_done_in_portuguese_indonesian_and_chinese_closes_the_request(report: str, done: bool) -> None:
    got = verdicts(("user", "clone o repositório e configure tudo"), ("assistant", report))
    assert (got["m1"].status == "done") is done, got["m1"]


@pytest.mark.parametrize(("said", "category"), [
    # who may do what, the language to answer in by the asker's, work the user keeps for themselves, and what the user
    # set up for the agent (reviews 69 and 71)
    ("Tidak boleh ada yang menanyakan hal sensitif seperti api key selain saya", "preference"),
    ("Jika ada yang menggunakan bahasa Indonesia jawab pake bahasa Indonesia", "preference"),
    ("Only user ID 6155472872 may request sensitive information", "preference"),
    ("不具合の対処は、俺がやるからね", "preference"), ("コード変更は、私が直接やるので結構です", "preference"),
    ("I'll handle the deploys myself", "preference"), ("leave the billing to me", "preference"),
    ("adicionei uma ferramenta de banco de dados para você utilizar", "preference"),
    ("I added a calendar tool for you to use", "preference"),
    ("Only you can help me", "process"), ("I'll do it myself tomorrow, thanks", "process"),
])
def test_rules_of_who_may_do_what_and_what_the_user_set_up(said: str, category: str) -> None:
    assert reply_to_offer(said).category == category, reply_to_offer(said)


@pytest.mark.parametrize("said", [
    'here is the feedback:\n"Alice","I need to understand the basics of SQL first","2026-04-10"\n'
    '"Bob","Please add more examples","2026-04-10"\n"Carol","from now on keep it short","2026-04-11"',
    "my push failed:\nfatal: 'origin' does not appear to be a git repository\nfatal: Could not read from remote "
    "repository.\nPlease make sure you have the correct access rights",
])
def test_rows_of_data_and_gits_advice_pasted_are_not_the_users_words(said: str) -> None:
    """Review 71: a task read in a CSV cell ("I need to understand …"), an order in git's advice ("Please make sure …")."""
    assert reply_to_offer(said).category not in ("task", "preference"), reply_to_offer(said)


def test_work_said_not_done_yet_reports_nothing_done() -> None:
    got = verdicts(("user", "commit the fix"), ("assistant", "I haven't actually committed anything yet, the tests fail."))
    assert (got["m1"].category, got["m1"].status) == ("task", "current"), got["m1"]
    assert got["m2"].category != "decision", got["m2"]


@pytest.mark.parametrize(("said", "category"), [
    # reviews 72-74 (sessions of 18 more owners): pings, still-there and why-no-answer, a test said to be one
    ("你还在么", "noise"), ("怎么没回复呢", "noise"), ("为啥又没有回复了", "noise"), ("你还在运作吗？", "noise"),
    ("简单测试", "noise"), ("刚才为什么没有回复我，查看日志看看", "question"),
    # rules laid down by name and rules of the output's form, not asked about
    ("铁律加上：之后你的产出物放到home文件夹下", "preference"), ("规则：回复不要超过三句话", "preference"),
    ("结尾要有落款呀", "preference"), ("规则是什么", "question"), ("格式要用表格吗", "question"),
    # Spanish requests said as what the speaker requires, or led by "ahora", "también"; a clitic imperative
    ("Ahora requiero que me organices en notion las tareas", "task"), ("la idea es que la revises todos los dias", "task"),
    ("dale a hestia acceso a whatsapp", "task"), ("funciona bien el bot", "process"), ("también es bueno", "process"),
    ("ahora sí manda bien los mensajes", "process"), ("También abre otra ventana", "process"), ("qué bien, qué rápido", "process"),
    # Vietnamese questions with who is asked or a softener after their last word
    ("Em đã nắm rõ công việc của mình chưa em", "question"), ("Đây là trang gì vậy", "question"),
    ("Giá xăng hôm nay là bao nhiêu vậy", "question"), ("không có gì", "process"), ("Bắt đầu nào", "process"),
    ("Em không hiểu gì", "process"),
    # a message whose few clauses are each a question without its mark asks them
    ("你是谁，你能做什么", "question"), ("帮我看看，这是什么", "question"), ("帮我查日志，然后重启", "task"),
    # review 75: an order to test again, a refusal in emoji, a polite "not yet", a question about the form, a firewall rule
    ("再测试一下", "task"), ("👎", "process"), ("Dạ chưa ạ", "process"), ("字数要控制在多少合适", "question"),
    ("添加规则，允许8080端口访问", "task"),
    # the everyday "have you eaten?" and a greeting with a word of endearment; a Vietnamese name given to the agent
    ("你吃饭了吗？", "noise"), ("哈喽宝宝", "noise"), ("Mình muốn gọi bạn là yolo nha", "preference"),
])
def test_forms_reviews_72_to_74_found(said: str, category: str) -> None:
    verdict = reply_to_offer(said)
    assert verdict.category == category, verdict


@pytest.mark.parametrize("reply", ["😄💪", "✨", "👋", "❤️"])
def test_a_reply_in_emoji_only_is_noise(reply: str) -> None:
    got = verdicts(("user", "帮我看看日志"), ("assistant", "日志里没有错误。"), ("user", "好"), ("assistant", reply))
    assert (got["m4"].category, got["m4"].action) == ("noise", "drop"), got["m4"]


def test_a_new_question_in_reply_leaves_the_agents_question_open() -> None:
    """Review 73: "你确认要设置cron定时任务吗？" was answered, and the cron decided, by "你是谁，你能做什么"."""
    got = verdicts(("user", "每天早上8点给我发天气"),
                   ("assistant", "我可以创建一个每天 08:00 的定时任务来发送天气。你确认要设置cron定时任务吗？"),
                   ("user", "你是谁，你能做什么"))
    assert (got["m2"].category, got["m2"].status) == ("question", "current"), got["m2"]


@pytest.mark.parametrize(("reply", "picked"), [("3", True), ("方案3", True), ("option 3", True), ("3 吧", True),
                                               ("3 sounds fine but check the disk first", False), ("4", False)])
def test_a_reply_naming_a_numbered_option_picks_it(reply: str, picked: bool) -> None:
    """Review 73: "3" after "方案1：… 方案2：… 方案3：… 你选哪个？" was discussion; options listed under a number or a
    letter (classify.option_item) are picked by their label, as one side of "A or B?" is by its words."""
    got = verdicts(("user", "备份怎么做比较好"),
                   ("assistant", "有三个方案：\n方案1：每天全量备份\n方案2：增量备份\n方案3：同步到云端\n你选哪个？"),
                   ("user", reply))
    assert (got["m3"].category == "decision") is picked, got["m3"]


def test_a_promise_to_look_answers_nothing_and_a_generic_offer_in_vietnamese_asks_nothing() -> None:
    """Review 72: "je vais interroger l'outil… Un instant" had answered the question; review 74: "anh cần gì nữa không?"
    had been a question a "được rồi" answered, deciding nothing."""
    got = verdicts(("user", "Quel est le temps moyen de préparation par commande ?"),
                   ("assistant", "Pour obtenir le temps moyen, je vais interroger l'outil de données. Un instant."))
    assert got["m1"].status != "answered", got["m1"]
    offer = verdicts(("user", "em hãy lưu vào raw đi"),
                     ("assistant", "Xong rồi anh. Đã lưu vào raw/a.md. Dạ, anh cần gì nữa không?"), ("user", "Oke vậy được rồi"))
    assert offer["m2"].category != "question" and offer["m3"].category == "noise", (offer["m2"], offer["m3"])
