"""Forms met in OpenClaw sessions of owners the rules were never tuned on (sentences invented here,
none quoted): the twenty-first round."""

from __future__ import annotations

from pathlib import Path

import pytest
from support_classify import session_verdicts, verdicts

from apollo import config
from apollo.errors import ConfigError
from apollo.renal.classify import Classifier
from apollo.renal.rules import SIGNAL_LISTS
from apollo.transcript.openclaw_rules import rules
from realclient.support import PiSession


def _status_after_work(request: str, command: str, output: str, report: str, tmp_path: Path) -> str:
    """The status of ``request`` once the agent ran ``command`` (a real tool call and its result) and said ``report``."""
    s = PiSession()
    ask = s.user(request)
    s.tool("c1", "exec", {"command": command}, output)
    s.say(report)
    return session_verdicts(s, tmp_path)[ask].status


@pytest.mark.parametrize("said", [
    "u online?", "y'all there?", "yall there", "you guys online?", "anyone online?", "r u online",
])
def test_pings_to_one_or_to_several_in_chat_spellings_are_noise(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "noise"


@pytest.mark.parametrize("reply", ["Yep, here! What do you need?", "Hey! What's on your mind?", "hey boss, what is up"])
def test_the_agents_greeting_back_after_a_ping_is_noise(reply: str) -> None:
    """After "u there?", "Hey! What's on your mind?" answers the ping and offers nothing specific: a pleasantry."""
    v = verdicts(("user", "fix the login page"), ("assistant", "Fixed the login page: the session cookie was missing."),
                 ("user", "u there?"), ("assistant", reply))
    assert v["m4"].category == "noise"


def test_what_is_up_greets_and_reports_no_service_started() -> None:
    """"what is up" after a greeting greets back; "the API is up again" after a restart reports it done."""
    assert verdicts(("user", "hey boss"), ("assistant", "hey boss, what is up"))["m2"].category == "noise"
    restarted = verdicts(("user", "restart the API"), ("tool", "ok"), ("assistant", "The API is up again on port 8080."))
    assert restarted["m1"].status == "done"


@pytest.mark.parametrize(("said", "category"), [
    ("from now onwards reply in English", "preference"), ("Tom will send you the figures from now onward", "preference"),
])
def test_from_now_onwards_sets_a_standing_rule(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("said", "category"), [
    ("process the article archive and build a knowledge base from it", "task"),
    ("study the docs before you change the config", "task"), ("link my calendar and show the sync log", "task"),
    ("activate the dark mode", "task"), ("handle the refunds first", "task"),
    ("process crashed again", "process"), ("link is broken", "process"), ("study shows nothing new", "process"),
    ("process that runs the nightly cron died again", "process"), ("déjalo, no importa", "process"),
    ("activa la transcripción de audio", "task"), ("déjalo en la agenda para el lunes", "task"),
    ("Dejalo en notion para realizarlo mañana", "task"), ("déjala en paz, ya no me interesa", "process"),
    ("revisa los logs solo de hoy", "task"),
    ("deja de funcionar cada noche", "process"),
])
def test_verbs_that_are_often_nouns_order_only_with_what_they_act_on(said: str, category: str) -> None:
    """"process", "study", "link", "handle", "activate" open an order when what they act on follows; the noun
    ("process crashed") and the Spanish "deja de" (stops) say what happens."""
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("report", "status"), [
    ("Listo. Activé la opción y reinicié el servicio.", "done"), ("Ya te dejé el límite en 50.", "done"),
    ("C'est fait, le compte a été désactivé.", "done"), ("La sauvegarde a été programmée pour 3h.", "done"),
    ("¿Listo para empezar?", "current"), ("No activé la opción: falta el permiso.", "current"),
    ("Le compte n'est pas activé.", "current"), ("No lo activé todavía: falta el permiso.", "current"),
    ("Si lo configuré mal, el túnel no va a levantar.", "current"), ("Reinicié el servicio, pero sigue caído.", "current"),
    ("Listo cuando quieras empezar.", "current"), ("C'est fait exprès : le bouton reste gris.", "current"),
    ("Je ne sais pas si le fichier a été supprimé.", "current"), ("Not tested yet on Windows.", "current"),
    ("Should be tested before we merge.", "current"), ("I checked but could not open the file.", "current"),
    ("Le proxy, configuré par défaut, bloque encore.", "current"), ("Configuré el cron. Sin embargo, no corre.", "current"),
    ("Hice lo que pude. Sigue roto en ARM.", "current"),
])
def test_spanish_preterite_and_french_passive_report_work_done(report: str, status: str) -> None:
    """"Activé…", "Listo", "a été désactivé" say done as "He activado" and "J'ai activé" do; a question, a negation
    (through a pronoun too: "No lo activé"), a condition, a "but still down", a hedge ("Not tested yet", "Should be
    tested") and the French participle without "a été" say nothing done."""
    v = verdicts(("user", "activa la opción de respaldo"), ("tool", "ok"), ("assistant", report))
    assert v["m1"].status == status


def test_the_answer_tags_and_reasoning_block_openclaw_strips_are_no_words_of_the_reply(tmp_path: Path) -> None:
    """"<final>I have created the skill…</final>" reports work done as the same words without tags do; the reasoning
    in "<think>…</think>" decides nothing, though it says "decided"; tags inside fenced code are an example, kept."""
    s = PiSession()
    ask = s.user("create a skill that summarizes my inbox")
    s.tool("c1", "exec", {"command": "mkdir -p skills/inbox"}, "")
    report = s.say("<final>I have created the skill in skills/inbox.</final>")
    question = s.user("what model are you?")
    answer = s.say("<think>The user asks. I decided to always answer in one line.</think><final>MiniMax M2.</final>")
    s.user("and the context window?")
    reasoning = s.say("<think>I decided to look it up in the config first.</think>")
    s.say("It is 200k tokens.")
    got = session_verdicts(s, tmp_path)
    assert got[ask].status == "done" and got[report].rule == "intent:outcome"
    assert got[question].status == "answered" and got[answer].category == "process"
    assert (got[reasoning].category, got[reasoning].rule) == ("process", "process:thinking")
    assert [t for t in ("<think type=\"plan\">a</think>ok",) if not rules().unsent_spans(t)[1]] == []
    text = "Use this format:\n```\n<final>answer</final>\n```\nor `<think>x</think>`, then <final>done</final>"
    spans, reasoned = rules().unsent_spans(text)
    assert [text[a:b] for a, b in spans] == ["<final>", "</final>"] and spans[0][0] > text.index("then") and not reasoned


@pytest.mark.parametrize(("report", "asks"), [
    ("### Is this a problem?\nNo. The disk is at 41%, well below the alert level.\n### Growth\nThe logs, 2 GB a week.",
     False),
    ("Disk at 91%.\n### Should I delete the old logs?", True),
    ("Disk at 91%.\n## Clean up now?\nYou can:\n- A) delete the old logs\n- B) move them to the NAS\nPick one 👇", True),
    ("## Which database should we use?\nI need your call.\n## Options\nPostgreSQL or MySQL.", True),
    ("## Proceed with the migration tonight?\nIt needs 5 minutes of downtime.\n## Details\nThe plan is ready.", True),
])
def test_a_question_that_titles_a_section_of_a_report_asks_nothing(report: str, asks: bool) -> None:
    """"### Is this a problem?" with another heading after it titles a section of a structured report, which answers
    it; the last heading may be what the message asks (then options follow it)."""
    v = verdicts(("user", "how full is the disk on the server?"), ("assistant", report))
    assert (v["m2"].category == "question" or v["m2"].rule == "intent:offer") is asks


@pytest.mark.parametrize(("report", "status"), [
    ("Watcher started. Now reload the page and I'll catch the error.", "current"),
    ("Deployed the fix. Retry and I'll watch the logs.", "current"),
    ("Fixed the cookie bug and restarted. Try it now and let me know.", "done"),
    ("Fixed the cookie bug. I reloaded the page and it works.", "done"),
    ("Fixed the cookie bug. Log in now redirects to /home and I'll close the ticket.", "done"),
    ("Fixed the cookie bug. Refresh the page and I will be around if anything else comes up.", "done"),
])
def test_a_step_handed_to_the_user_leaves_the_request_open(report: str, status: str, tmp_path: Path) -> None:
    """"Now reload the page and I'll catch the error": the agent's side step is done, the request waits on the user
    (not a courtesy after work reported done, "try it and let me know", nor "log in" as a noun phrase)."""
    assert _status_after_work("fix the login page", "npm run watch", "watching", report, tmp_path) == status


@pytest.mark.parametrize(("said", "category"), [
    ("in this chat I need you to be my accountability partner", "preference"), ("act as my editor for the blog", "preference"),
    ("do you want to be my friend?", "question"), ("act as my agent and book a table for 8pm tonight", "task"),
    ("I need you to be my reviewer for PR #42", "task"),
    ("I need you to be my second pair of eyes on the migration script below", "task"),
])
def test_a_role_the_user_gives_the_agent_is_a_standing_rule(said: str, category: str) -> None:
    assert verdicts(("user", said))["m1"].category == category


@pytest.mark.parametrize(("role", "said", "category"), [
    ("assistant", "现在把这个决定也写进日志：", "process"), ("assistant", "将这个决定写入 MEMORY.md", "process"),
    ("assistant", "我们决定用 PostgreSQL", "decision"), ("user", "我们把这个决定改一下：不用 MySQL 了，改用 PostgreSQL。", "decision"),
    ("user", "我们决定写进 README，而不是 wiki", "decision"),
])
def test_the_decision_named_as_what_a_step_handles_is_no_decision(role: str, said: str, category: str) -> None:
    """"把这个决定写进日志" records a decision, it makes none; a decision of where to write something is one."""
    assert verdicts(("user", "整理一下今天的日志"), (role, said))["m2"].category == category


@pytest.mark.parametrize("said", ["tu es là ?", "t'es toujours là ?", "t’es là ?", "that’s all for today"])
def test_french_pings_and_a_phones_apostrophe_are_noise(said: str) -> None:
    assert verdicts(("user", said))["m1"].category == "noise"


def test_a_reply_to_a_heartbeat_poll_closes_no_request(tmp_path: Path) -> None:
    """The heartbeat's "All checks done, digest sent. HEARTBEAT_OK" reports its checks, not the user's request."""
    s = PiSession()
    ask = s.user("connect my gmail account to the digest")
    s.say("I need an app password for that.")
    s.user("Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. If nothing needs attention, reply "
           "HEARTBEAT_OK.")
    s.say("All checks done, inbox digest sent. HEARTBEAT_OK")
    assert session_verdicts(s, tmp_path)[ask].status == "current"


@pytest.mark.parametrize(("report", "status"), [
    ("✅ Daily nudges scheduled for 9:00\n❌ Gmail not connected: the app password was rejected", "current"),
    ("- ✅ Daily nudges scheduled\n- ❌ Slack copy skipped: no webhook", "done"),
    ("✅ Daily nudges scheduled and Gmail connected", "done"),
    ("✅ Daily nudges scheduled, Gmail connected\n❌ Could not connect Outlook (you did not ask for it)", "done"),
])
def test_a_line_of_the_report_marked_failed_leaves_the_request_it_names_open(report: str, status: str,
                                                                              tmp_path: Path) -> None:
    """"❌ Gmail not connected" leaves "connect gmail and set up the nudges" open, though the rest is done; a failed
    line on something else ("Slack copy") does not."""
    assert _status_after_work("connect gmail and set up the daily nudges", "crontab -l", "0 9 * * * nudge", report,
                              tmp_path) == status


@pytest.mark.parametrize(("said", "reply", "status"), [
    ("suggest a few tags and send them to Anna by email", "Maybe: #home, #work, #ideas, #later, #reading, #travel, "
     "#health and #money.", "current"),
    ("I need ideas for new skills", "Five: a grocery planner, a bill reminder, a workout log, a reading tracker, a "
     "news digest.", "answered"),
    ("give me five names for the bot", "Pip (short, friendly), Nova (bright), Echo (answers back), Juno (classic) and "
     "Bolt (fast).", "answered"),
    ("suggest a few titles and then use the best one for the post", "Maybe: Rain Days, Wet Streets.", "current"),
])
def test_ideas_and_names_asked_for_are_delivered_by_the_reply(said: str, reply: str,
                                                                              status: str) -> None:
    """What is to be written (ideas, names) is handed over by the reply that ends the turn, as a letter asked for is;
    with work to do on it after ("and then use the best one") or somewhere to send it, the reply is a step."""
    v = verdicts(("user", said), ("assistant", reply))
    assert v["m1"].status == status


@pytest.mark.parametrize("key", SIGNAL_LISTS)
def test_a_setting_naming_a_signal_that_does_not_exist_is_refused_where_it_is_loaded(tmp_path: Path, key: str) -> None:
    """Every [classify] setting that lists signals is checked when the rules load: a misspelt name fails then, not
    silently mid-session (the engine would look for a signal no rule file gives and never find it)."""
    (tmp_path / "mine.toml").write_text(f'[classify]\n{key} = ["faild_item"]\n', encoding="utf-8")
    (tmp_path / "config.toml").write_text('[renal]\nrule_files = ["mine.toml"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=f"{key} names no signal \\('faild_item'\\)"):
        Classifier(config.load(None, extra_layers=[tmp_path / "config.toml"]))


@pytest.mark.parametrize(("said", "rule"), [
    ("jajaja", "content:fragment"), ("kkkkk", "content:fragment"), ("¿qué tal?", "social:greeting"),
    ("ça va ?", "social:greeting"), ("tudo bem?", "social:greeting"), ("wie geht's?", "social:greeting"),
])
def test_laughter_and_how_are_you_in_more_languages(said: str, rule: str) -> None:
    """"jajaja" laughs (a sound, not the German yes "ja"); "¿qué tal?", "ça va ?" greet, as "how are you?" does."""
    v = verdicts(("user", "fix the login page"), ("assistant", "Fixed the login page."), ("user", said))
    assert v["m3"].rule == rule
    assert verdicts(("user", "¿qué tal el deploy de ayer?"))["m1"].category == "question"


def _delivered(s: PiSession, text: str) -> str:
    """A report the runtime delivered into the chat from another run (OpenClaw's delivery-mirror copy)."""
    said = s.say(text)
    s.entries[-1]["message"].update(provider="openclaw", model="delivery-mirror")
    return said


def test_the_next_delivered_report_on_the_same_checks_carries_their_state(tmp_path: Path) -> None:
    """A scheduled health check's report, then the next run's "all 3 services passed" on the same services: the earlier
    report goes (`resolve:state_reported`); a delivered report on something else, one the user took up, or one followed
    by a delivered report that is no all-clear (delivered copies are also broadcasts and narration), stays."""
    s = PiSession()
    s.user("set up the workshop folders")
    s.say("Done: the workshop folders are set up.")
    first = _delivered(s, "**Health Check Complete**\n• **shop**: ✓ OK\n• **blog**: ✓ OK\n• **wiki**: Created folder")
    _delivered(s, "**Health Check Summary**\nRan the health check. All 3 services passed:\n- ✓ **shop** OK\n- ✓ **blog** "
                  "OK\n- ✓ **wiki** OK\nNo fixes were required.")
    other = _delivered(s, "**Backup report**\nNightly backup of the photos folder finished: 2,314 files, 12 GB.")
    got = session_verdicts(s, tmp_path)
    assert (got[first].category, got[first].rule) == ("noise", "resolve:state_reported")
    assert got[other].category == "process"
    s2 = PiSession()
    kept = _delivered(s2, "**Health Check Complete**\n• **shop**: ✓ OK\n• **blog**: failing\n• **wiki**: ✓ OK")
    s2.user("what is wrong with the blog?")
    _delivered(s2, "**Health Check Summary**\nAll 3 services passed: shop, blog and wiki OK. No fixes were required.")
    assert session_verdicts(s2, tmp_path)[kept].category != "noise"
    s3 = PiSession()
    earlier = _delivered(s3, "**Health Check Complete**\n• **shop**: ✓ OK\n• **blog**: ✓ OK\n• **wiki**: Created folder")
    _delivered(s3, "**Health Check Complete**\n• **shop**: ✓ OK\n• **blog**: failing since 04:00\n• **wiki**: ✓ OK")
    assert session_verdicts(s3, tmp_path)[earlier].category == "process"  # only an all-clear carries the state
