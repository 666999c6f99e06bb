"""What later turns settle about the agent's reports and questions: a report made again on the same
work, work handed back to the user, a question the agent answers itself, a report the user says
failed, a check on progress, and a terminal the user pastes whole."""

from __future__ import annotations

import pytest
from support_classify import element, verdicts

from apollo.renal import reading
from apollo.renal.rules import load_files
from apollo.transcript.model import Kind


def _call(element_id: str, call_id: str) -> object:
    return element(element_id, "assistant", f'{{"command": "crontab -l # {call_id}"}}', Kind.TOOL_CALL,
                   call_id=call_id, tool_name="exec")


def _result(element_id: str, call_id: str) -> object:
    return element(element_id, "tool", f"0 1 * * * photo-backup ({call_id})", Kind.TOOL_RESULT, call_id=call_id,
                   tool_name="exec")


@pytest.mark.parametrize(("first", "again"), [
    ("Done! Created the photo backup job: it copies the camera folder to the NAS every night at 01:00.",
     "Done! The photo backup job now copies the whole camera folder to the NAS every night at 01:00."),
    ("完成！已创建照片备份任务，每晚一点把相机文件夹复制到 NAS。",
     "完成！已更新照片备份任务：每晚一点把整个相机文件夹复制到 NAS，保留十四份。"),
])
def test_a_report_made_again_on_the_same_work_replaces_the_earlier_one(first: str, again: str) -> None:
    v = verdicts(("user", "Back up my photos every night."), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", first), ("user", "It only copied half of the folders last night."),
                 _call("c2", "b"), _result("r2", "b"), ("assistant", again))
    assert (v["m4"].category, v["m4"].status, v["m4"].rule) == ("process", "superseded", "resolve:restated"), v["m4"]
    assert v["m4"].superseded_by == "m8"
    assert v["m8"].category == "decision", v["m8"]


def test_reports_on_different_work_both_stand() -> None:
    v = verdicts(("user", "Back up my photos every night."), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", "Done! Created the photo backup job: it copies the camera folder every night."),
                 ("user", "Now add a reminder for the dentist on Friday."), _call("c2", "b"), _result("r2", "b"),
                 ("assistant", "Done! The dentist reminder is set for Friday at 9:00."))
    assert v["m4"].category == "decision" and v["m8"].category == "decision"


@pytest.mark.parametrize(("first", "second"), [
    ("Done! Created ~/tools/rotate_logs.py: it rotates the nginx logs of the web server every week.",
     "Done! Created ~/tools/check_disk.py: it checks the disk of the web server every week and warns you."),
    ("完成！已创建 ~/tools/rotate_logs.py，每周轮换一次网站服务器的日志。",
     "完成！已创建 ~/tools/check_disk.py，每周检查一次网站服务器的磁盘并提醒你。"),
])
def test_reports_that_name_different_files_are_different_work_though_they_share_topic_words(
        first: str, second: str) -> None:
    v = verdicts(("user", "Write a weekly log rotation script for the web server."), _call("c1", "a"),
                 _result("r1", "a"), ("assistant", first),
                 ("user", "Now write a weekly disk check script for the web server."), _call("c2", "b"),
                 _result("r2", "b"), ("assistant", second))
    assert (v["m4"].category, v["m4"].status) == ("decision", "current"), v["m4"]
    assert v["m8"].category == "decision", v["m8"]


def test_a_report_made_again_that_names_the_same_file_replaces_the_earlier_one() -> None:
    v = verdicts(("user", "Write a weekly log rotation script for the web server."), _call("c1", "a"),
                 _result("r1", "a"),
                 ("assistant", "Done! Created ~/tools/rotate_logs.py: it rotates the web server logs every week."),
                 ("user", "It skipped the error logs."), _call("c2", "b"), _result("r2", "b"),
                 ("assistant", "Done! Updated ~/tools/rotate_logs.py: it rotates all the web server logs every week."))
    assert (v["m4"].category, v["m4"].rule) == ("process", "resolve:restated"), v["m4"]


@pytest.mark.parametrize("handover", [
    "I wrote the cache cleanup script. I need you to run it in a terminal with sudo: ./clear-cache.sh",
    "缓存清理脚本已创建。请你运行下面的命令：./clear-cache.sh",
])
def test_a_report_that_hands_the_rest_to_the_user_leaves_the_request_open(handover: str) -> None:
    v = verdicts(("user", "Remove the old build caches."), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", handover))
    assert (v["m4"].category, v["m4"].rule) == ("process", "intent:handed_over"), v["m4"]
    assert (v["m1"].category, v["m1"].status) == ("task", "current"), v["m1"]


def test_work_asked_for_and_reported_with_ba_is_a_request_and_a_report_that_hands_the_rest_over() -> None:
    """把…装到… asks for work; 已经把…复制到… says what was done to what."""
    v = verdicts(("user", "把监控代理装到数据库服务器上。"), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", "已经把监控代理复制到 /opt/agent/bin/agent。请运行下面的命令启动它：sudo systemctl start agent"))
    assert (v["m4"].category, v["m4"].rule) == ("process", "intent:handed_over"), v["m4"]
    assert (v["m1"].category, v["m1"].status) == ("task", "current"), v["m1"]


def test_a_question_the_agent_goes_on_to_answer_itself_is_no_question_for_the_user() -> None:
    v = verdicts(("user", "Get the weather widget working."), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", "Found the widget config. Does it have a city set?"), _call("c2", "b"),
                 _result("r2", "b"), ("assistant", "No city was set; I added yours and the forecast shows now."))
    assert (v["m4"].category, v["m4"].rule) == ("process", "process:narration"), v["m4"]


def test_a_question_the_turn_ends_on_stays_open() -> None:
    v = verdicts(("user", "Get the weather widget working."), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", "Found the widget config, but it needs a city. Which city should it show?"))
    assert v["m4"].category == "question" and v["m4"].status == "current", v["m4"]


@pytest.mark.parametrize("objection", ["还是不对，提示找不到文件", "That's wrong, the job still does not work."])
def test_a_report_the_user_says_did_not_work_is_no_outcome(objection: str) -> None:
    v = verdicts(("user", "Back up my photos every night."), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", "Done! Created the photo backup job: it copies the camera folder every night."),
                 ("user", objection))
    assert (v["m4"].category, v["m4"].rule) == ("process", "resolve:failed"), v["m4"]
    assert v["m4"].superseded_by == "m5"
    assert (v["m1"].category, v["m1"].status) == ("task", "current"), v["m1"]


@pytest.mark.parametrize("reply", ["Great, thanks. The trains were awful this morning though, can you find me a later one?",
                                   "好的。楼下的电梯又坏了，烦死了，帮我查一下明早的公交"])
def test_a_complaint_about_something_else_leaves_the_report_standing(reply: str) -> None:
    v = verdicts(("user", "Back up my photos every night."), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", "Done! Created the photo backup job (id 31): it copies the camera folder every night."),
                 ("user", reply))
    assert v["m4"].category == "decision" and v["m4"].rule != "resolve:failed", v["m4"]
    assert v["m1"].status == "done", v["m1"]


def test_a_report_the_user_goes_on_from_stands() -> None:
    v = verdicts(("user", "Back up my photos every night."), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", "Done! Created the photo backup job: it copies the camera folder every night."),
                 ("user", "Good. Next, list the open invoices."))
    assert v["m4"].category == "decision", v["m4"]


@pytest.mark.parametrize("check", ["迁移到哪了，进度如何？", "你还在处理吗？", "Any progress on it?",
                                   "Are you still working on it?"])
def test_asking_how_far_the_work_has_got_is_settled_by_the_next_report(check: str) -> None:
    v = verdicts(("user", "请把报表迁移到新的数据库"), ("assistant", "好的，开始迁移。"), ("user", check),
                 ("assistant", "已经迁移了九张表中的六张，剩下三张还要大约二十分钟。"))
    assert (v["m3"].category, v["m3"].status) == ("process", "answered"), v["m3"]
    assert v["m1"].category == "task"
    v = verdicts(("user", "请把报表迁移到新的数据库"), ("assistant", "好的，开始迁移。"), ("user", check))
    assert (v["m3"].category, v["m3"].rule) == ("question", "intent:progress_check"), v["m3"]


@pytest.mark.parametrize("asked", ["What is the status line the proxy sends back on a timeout?",
                                   "What's the progress of my visa application at the embassy?",
                                   "我们和房东的续租谈判进度怎么样？"])
def test_a_question_about_a_status_that_is_not_the_agents_work_is_a_question(asked: str) -> None:
    v = verdicts(("user", "Tidy up the build folder."), ("assistant", "On it."), ("user", asked))
    assert v["m3"].rule != "intent:progress_check" and v["m3"].category == "question", v["m3"]


PASTED = ("$ make release\n"
          "building images…\n\n"
          "hint: you should always tag your releases before you ship them.\n\n"
          "step 3/7 failed\nmake: *** [release] exit status 2")


def test_a_terminal_pasted_whole_is_not_the_users_words_across_its_blank_lines() -> None:
    assert reading.own_words(PASTED, load_files()) == ""
    v = verdicts(("assistant", "Please run the release and send me the output."), ("user", PASTED))
    assert v["m2"].category not in ("preference", "task", "decision", "question"), v["m2"]


def test_a_one_line_remark_after_a_pasted_terminal_is_the_users() -> None:
    said = reading.own_words(PASTED + "\n\n第三步为什么失败？", load_files())
    assert said == "第三步为什么失败？"
    v = verdicts(("assistant", "Please run the release and send me the output."),
                 ("user", PASTED + "\n\n第三步为什么失败？"))
    assert v["m2"].category == "question", v["m2"]


def test_the_paragraphs_the_user_writes_after_a_pasted_terminal_are_all_the_users() -> None:
    said = "The linter only complains on the build box.\nSilence it there, and from now on keep the rule list sorted."
    assert reading.own_words(PASTED + "\n\n" + said, load_files()) == said
    v = verdicts(("assistant", "Please run the release and send me the output."), ("user", PASTED + "\n\n" + said))
    assert v["m2"].category == "preference", v["m2"]


@pytest.mark.parametrize("asked", ["Which folder should I put the archive in, /srv/old or /mnt/cold?",
                                   "要不要把旧的归档也一起删掉？"])
def test_a_question_put_to_the_user_before_more_work_stays_open(asked: str) -> None:
    v = verdicts(("user", "Archive last year's logs."), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", asked), _call("c2", "b"), _result("r2", "b"),
                 ("assistant", "The logs take 12 GB in all."))
    assert v["m4"].rule in ("intent:question", "intent:offer"), v["m4"]


def test_a_question_no_later_text_of_the_turn_answers_stays_open() -> None:
    v = verdicts(("user", "Get the weather widget working."), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", "Found the widget config. Does it have a city set?"), _call("c2", "b"),
                 _result("r2", "b"), ("assistant", "The plugin loads without errors now."))
    assert v["m4"].category == "question" and v["m4"].rule != "process:narration", v["m4"]


@pytest.mark.parametrize(("decided", "report"), [
    ("We'll use Caddy rather than nginx for the proxy.",
     "Done: Caddy now serves the site on port 8443, with its config in /etc/caddy/Caddyfile."),
    ("决定了，缓存用 Redis。", "已完成：Redis 7.2 已在 6380 端口启动，配置文件在 /opt/redis/redis.conf。"),
    # numbers alone are specifics too: a port, a job id
    ("Let's run the nightly export at 2am instead.", "Done: the export job now runs at 2am as job 4172 on port 8443."),
])
def test_a_report_after_a_decision_that_names_new_specifics_is_an_outcome(decided: str, report: str) -> None:
    v = verdicts(("user", decided), _call("c1", "a"), _result("r1", "a"), ("assistant", report))
    assert (v["m4"].category, v["m4"].rule) == ("decision", "intent:outcome"), v["m4"]
    assert v["m1"].category == "decision", v["m1"]


@pytest.mark.parametrize("explained", [
    "The mail relay was unreachable from 02:00 to 02:40 during the provider's maintenance, so that night's digest was late.",
    "因为证书续期未能在到期前完成，浏览器报了警告，所以昨晚访问量下降了。",
])
def test_an_explanation_of_what_went_wrong_before_is_no_blocker(explained: str) -> None:
    v = verdicts(("user", "Why did the traffic drop last night?"), ("assistant", explained))
    assert v["m2"].rule != "intent:blocked", v["m2"]


def test_a_file_that_ends_a_sentence_is_the_same_thing_in_a_later_report() -> None:
    """The sentence's dot is not part of the file's name: the later report names nothing new (a
    Chinese sentence ends with 。, which no name contains)."""
    first = "Done! Created the photo backup job in ~/tools/photo_backup.sh."
    again = "Done! The photo backup job in ~/tools/photo_backup.sh now copies the whole camera folder to the NAS."
    v = verdicts(("user", "Back up my photos every night."), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", first), ("user", "It only copied half of the folders last night."),
                 _call("c2", "b"), _result("r2", "b"), ("assistant", again))
    assert (v["m4"].category, v["m4"].status, v["m4"].rule) == ("process", "superseded", "resolve:restated"), v["m4"]


@pytest.mark.parametrize(("first", "second"), [
    ("Done! Created ~/tools/rotate_logs.py and ~/tools/setup_rotation.py for the web server logs.",
     "Finished the disk watch: ~/tools/setup_rotation.py now also installs ~/tools/check_disk.py, which warns "
     "you by mail when the web server disk is nearly full."),
    ("完成！已创建 ~/tools/rotate_logs.py 和 ~/tools/setup_rotation.py，用来轮换网站服务器的日志。",
     "完成！磁盘监控已创建完成：~/tools/setup_rotation.py 现在也会安装 ~/tools/check_disk.py，网站服务器磁盘快满时发邮件提醒你。"),
])
def test_a_later_report_that_names_only_some_of_the_earlier_ones_things_is_other_work(first: str,
                                                                                     second: str) -> None:
    v = verdicts(("user", "Write a weekly log rotation script for the web server."), _call("c1", "a"),
                 _result("r1", "a"), ("assistant", first), ("user", "Also watch the disk."), _call("c2", "b"),
                 _result("r2", "b"), ("assistant", second))
    assert (v["m4"].category, v["m4"].status) == ("decision", "current"), v["m4"]


@pytest.mark.parametrize(("handover", "done"), [
    ("The browser service is down. Run this in your terminal: openclaw gateway restart", "Done"),
    ("浏览器服务暂时无法访问。请你执行下面的命令：openclaw gateway restart", "弄好了"),
])
def test_a_blocker_whose_fix_the_user_reports_done_no_longer_holds(handover: str, done: str) -> None:
    v = verdicts(("user", "Check my channel page."), _call("c1", "a"), _result("r1", "a"), ("assistant", handover),
                 ("user", done))
    assert (v["m4"].category, v["m4"].status, v["m4"].rule) == ("process", "superseded", "resolve:done_by_user"), \
        v["m4"]


@pytest.mark.parametrize(("handover", "reply"), [
    ("The browser service is down. Run this in your terminal: openclaw gateway restart",
     "It says unknown command"),
    ("浏览器服务暂时无法访问。请你执行下面的命令：openclaw gateway restart", "还是报错"),
])
def test_a_blocker_the_user_did_not_fix_stands(handover: str, reply: str) -> None:
    v = verdicts(("user", "Check my channel page."), _call("c1", "a"), _result("r1", "a"), ("assistant", handover),
                 ("user", reply))
    assert (v["m4"].category, v["m4"].status) == ("decision", "current"), v["m4"]


@pytest.mark.parametrize("report", ["The backup job is down: the NAS is unreachable.", "备份任务暂时无法执行：NAS 连不上。"])
def test_done_after_a_blocker_that_left_nothing_to_the_user_leaves_it_standing(report: str) -> None:
    v = verdicts(("user", "Back up my photos."), _call("c1", "a"), _result("r1", "a"), ("assistant", report),
                 ("user", "Done"))
    assert (v["m4"].category, v["m4"].status) == ("decision", "current"), v["m4"]


@pytest.mark.parametrize(("asked", "reply", "next_turn"), [
    ("What does the weekly report contain?", "Let me look.", "ok"), ("周报里都有什么内容？", "我看一下。", "好")])
def test_a_plain_question_the_turn_ends_on_work_after_stays_open(asked: str, reply: str, next_turn: str) -> None:
    v = verdicts(("user", asked), ("assistant", reply), _call("c1", "a"), _result("r1", "a"), ("user", next_turn))
    assert v["m1"].category == "question", v["m1"]


@pytest.mark.parametrize(("first", "reply", "then"), [
    ("Rename agents.md", "On it.", "Now update the backup schedule"),
    ("Fix the login page of the shop", "On it.", "Also fix the signup page and add tests for the shop"),
    ("检查备份脚本", "好的。", "再把日志清理一下"),
    ("修复商城的登录页面", "好的。", "顺便修复商城的注册页面"),
    # a later request that names every word of the open one and adds to it ("also", 另外) or puts a
    # condition on it (when, only after, …时) is other work
    ("Set up the nightly backup of the database.", "On it.",
     "Also set up an alert when the nightly backup of the database fails."),
    ("Email the quarterly report to Alice.", "Working on it, drafting the email now.",
     "Also email the quarterly report to the finance team, but only after Alice approves it."),
    ("帮我备份数据库", "好的，我来处理。", "另外写个脚本，备份数据库失败时给我发邮件提醒"),
])
def test_a_new_request_after_an_open_one_leaves_both_open(first: str, reply: str, then: str) -> None:
    v = verdicts(("user", first), ("assistant", reply), ("user", then))
    assert v["m1"].category == "task" and v["m3"].category == "task", (v["m1"], v["m3"])


@pytest.mark.parametrize(("asked", "first", "then", "second"), [
    ("Set up the production database connection for the app.",
     "Done! Created ~/app/config.yaml with the production database settings.",
     "Now clean up the cache directory, it is taking too much space.",
     "Done! Deleted 2 GB of stale entries from ~/app/cache (the path set in ~/app/config.yaml) and the disk is "
     "at 40% now."),
    ("帮我给应用配置生产数据库的连接",
     "完成！已创建 ~/app/config.yaml，写入了生产数据库的连接配置。",
     "缓存目录太占空间了，清理一下",
     "完成！已清理 ~/app/cache 下 2GB 的过期缓存（路径在 ~/app/config.yaml 里设置），磁盘现在 40%。"),
    ("Back up my home folder every night.",
     "Done! Created ~/tools/backup.sh and scheduled it with cron every night at 01:00.",
     "Now write a restore script too.",
     "Created ~/tools/restore.sh, which unpacks the archives that ~/tools/backup.sh writes. Please run this in "
     "your terminal to test it: ~/tools/restore.sh --dry-run"),
    ("每天晚上备份我的主目录",
     "完成！已创建 ~/tools/backup.sh，并用 cron 设为每晚 01:00 执行。",
     "再写一个恢复脚本",
     "已创建 ~/tools/restore.sh，它会解压 ~/tools/backup.sh 写出的归档。请你在终端运行下面的命令测试：~/tools/restore.sh --dry-run"),
    ("Write a weekly log rotation script for the web server.",
     "Done! Created ~/tools/rotate_logs.py and scheduled it every Sunday at 03:00.",
     "Can you check if it ran?",
     "It failed: ~/tools/rotate_logs.py hit permission denied on /var/log/nginx, so no logs were rotated. I "
     "couldn't fix it without sudo."),
])
def test_a_report_on_the_next_request_that_mentions_the_earlier_ones_file_leaves_it_standing(
        asked: str, first: str, then: str, second: str) -> None:
    """After a new request, a report that mentions the earlier report's file is on other work."""
    v = verdicts(("user", asked), _call("c1", "a"), _result("r1", "a"), ("assistant", first), ("user", then),
                 _call("c2", "b"), _result("r2", "b"), ("assistant", second))
    assert (v["m4"].category, v["m4"].status) == ("decision", "current"), v["m4"]


@pytest.mark.parametrize("reply", [
    "I haven't done it yet, I'm on my phone.", "done - it says command not found",
    "I ran it. Done, but it printed 'permission denied'.", "Finished my coffee, running it now",
    "I've done this twice already and it never helps", "Not done yet", "It's done but the page is still blank",
    "弄好了，但是页面还是打不开", "搞定了一半", "已完成一半，还有个报错", "还没弄好",
])
def test_a_reply_that_says_more_than_done_leaves_the_blocker_standing(reply: str) -> None:
    """Only a reply that as a whole says done (`signal.done_reply`) settles what was left to the user:
    a completion word inside a reply that negates it, says it is partial or still fails, settles nothing."""
    v = verdicts(("user", "Check my channel page."), _call("c1", "a"), _result("r1", "a"),
                 ("assistant", "The browser service is down. Run this in your terminal: openclaw gateway restart"),
                 ("user", reply))
    assert (v["m4"].category, v["m4"].status) == ("decision", "current"), v["m4"]


@pytest.mark.parametrize(("request_", "reply", "check", "answer"), [
    ("Migrate the reports to the new database.", "OK, starting the migration.",
     "Are you still working on it? When it's finished, back up the old tables to the NAS and email the finance "
     "team.", "Yes, I'm on the third table now."),
    ("请把报表迁移到新的数据库", "好的，开始迁移。", "你在处理吗？处理完以后把旧表备份到 NAS 上，再通知财务组。",
     "在的，正在迁移第三张表。"),
])
def test_a_progress_check_that_also_asks_for_work_stays_open_while_the_agent_works(
        request_: str, reply: str, check: str, answer: str) -> None:
    """A reply before more work does not settle a progress check (the request inside it is not done)."""
    v = verdicts(("user", request_), ("assistant", reply), _call("c1", "a"), _result("r1", "a"), ("user", check),
                 ("assistant", answer), _call("c2", "b"), _result("r2", "b"), ("user", "ok"))
    assert (v["m5"].category, v["m5"].status) == ("question", "current"), v["m5"]


@pytest.mark.parametrize(("asked", "first", "between", "second"), [
    ("Back up my home folder every night, and write a restore script for it.",
     "Done! Created ~/tools/backup.sh and scheduled it with cron every night at 01:00.", "ok",
     "Done! Created ~/tools/restore.sh, which unpacks the archives that ~/tools/backup.sh writes."),
    ("Back up my home folder every night, and write a restore script for it.",
     "Done! Created ~/tools/backup.sh and scheduled it with cron every night at 01:00.",
     "The restore script is missing.",
     "Done! Created ~/tools/restore.sh, which unpacks the archives that ~/tools/backup.sh writes."),
    ("每天晚上备份我的主目录，再写一个恢复脚本", "完成！已创建 ~/tools/backup.sh，并用 cron 设为每晚 01:00 执行。", "恢复脚本还没有",
     "完成！已创建 ~/tools/restore.sh，它会解压 ~/tools/backup.sh 写出的归档。"),
])
def test_a_report_on_another_part_of_the_same_request_that_names_the_earlier_file_leaves_it_standing(
        asked: str, first: str, between: str, second: str) -> None:
    """Naming every thing an earlier report named and more is other work, on the same request too."""
    v = verdicts(("user", asked), _call("c1", "a"), _result("r1", "a"), ("assistant", first), ("user", between),
                 _call("c2", "b"), _result("r2", "b"), ("assistant", second))
    assert (v["m4"].category, v["m4"].status) == ("decision", "current"), v["m4"]


@pytest.mark.parametrize("step", ["I have installed ZAP. Now the scan:",
                                  "我已经阅读了技能文档，ZAP 已安装。现在开始扫描："])
def test_a_step_reported_done_before_more_work_leaves_the_request_open_until_the_turn_ends(step: str) -> None:
    """Review 71: "installed ZAP", said before the agent goes on working, closed "scan the site and give me a
    report" for good, though the report never came; the turn's last text is what says the request is done."""
    open_at_end = verdicts(("user", "Scan the website for vulnerabilities and give me a report."), _call("c1", "a"),
                           _result("r1", "a"), ("assistant", step), _call("c2", "b"), _result("r2", "b"))
    assert (open_at_end["m4"].category, open_at_end["m4"].rule) == ("process", "process:narration")
    assert (open_at_end["m1"].category, open_at_end["m1"].status) == ("task", "current"), open_at_end["m1"]
    done_at_end = verdicts(("user", "Scan the website for vulnerabilities and give me a report."), _call("c1", "a"),
                           _result("r1", "a"), ("assistant", step), _call("c2", "b"), _result("r2", "b"),
                           ("assistant", "Done: the scan report is in report.html, with 3 medium issues."))
    assert (done_at_end["m1"].status, done_at_end["m1"].reason) == ("done", "no longer active: reported done in #m7")


@pytest.mark.parametrize(("step", "still_open"), [
    ("是的，ZAP 已经安装好了！现在，我将使用 ZAP 对网站进行安全测试，并生成一份报告。", True),
    ("I have installed ZAP. Now I'll scan the website and write the report.", True),
    # what it does next is other work: the request is done
    ("Done: the report is in report.html. I'll now clean up the temp files.", False),
    ("ZAP 已安装，网站扫描完成，报告在 /tmp/report.html。", False),
])
def test_a_step_reported_done_with_the_next_step_on_the_request_leaves_it_open(step: str, still_open: bool) -> None:
    """Review 71: "ZAP 已经安装好了！现在，我将…对网站进行安全测试" closed "检查网站的漏洞，给我一份报表" though
    the report never came: a next step on the request said after the report keeps it open, whatever ends the turn."""
    got = verdicts(("user", "Scan the website for vulnerabilities and give me a report (网站扫描报告)."),
                   _call("c1", "a"), _result("r1", "a"), ("assistant", step))
    assert (got["m1"].status == "current") is still_open, got["m1"]


@pytest.mark.parametrize("reply", [
    "| Sales A | 120 | ✅ Perform |\n| Sales B | 80 | ❌ Underperform |",
    "**选项1**：✅ 能听到语音了！ **选项2**：❌ 还是听不到",
    "✅ Hecho ⏳ En progreso ❌ Bloqueado — necesito tu ok explícito antes de seguir.",
    "需要 sudo 权限才能安装。你可以自己在终端运行 sudo apt install zap，安装完成后，工具就能用了。",
])
def test_a_check_mark_that_is_no_report_and_a_time_clause_report_nothing_done(reply: str) -> None:
    """Review 74: check marks in a table's cells, an option's label, a legend, and review 72's "安装完成后…就能用了"
    (once it is installed) had closed the request they answered."""
    got = verdicts(("user", "Install the voice plugin and show me the sales table"), _call("c1", "a"),
                   _result("r1", "a"), ("assistant", reply))
    assert (got["m1"].category, got["m1"].status) == ("task", "current"), got["m1"]


@pytest.mark.parametrize(("reply", "done"), [
    ("Fertig! Der Cron-Job läuft täglich um 8 Uhr.", True), ("Ich habe den Cron-Job eingerichtet.", True),
    ("成功读取！这是「海外仓账单审批数据源」表格，共有 74 条审批记录。", True), ("配置保存成功！", True),
    ("Der Job ist noch nicht erstellt.", False), ("hooks 配置没保存成功。重新配置：", False),
    ("即使我能够成功安装这个技能，也无法运行。", False), ("授权成功后返回确认。", False),
])
def test_work_reported_done_in_german_and_by_what_succeeded(reply: str, done: bool) -> None:
    got = verdicts(("user", "Erstelle den Cron-Job und lies die Tabelle (创建定时任务，读取表格)"), _call("c1", "a"),
                   _result("r1", "a"), ("assistant", reply))
    assert (got["m1"].status == "done") is done, got["m1"]


@pytest.mark.parametrize("reply", ["Xong rồi anh. Đã lưu vào raw/2026-03-01-article.md", "Đã cập nhật SOUL.md rồi anh."])
def test_a_vietnamese_report_of_work_done_closes_the_request(reply: str) -> None:
    got = verdicts(("user", "em hãy lưu vào raw đi"), _call("c1", "a"), _result("r1", "a"), ("assistant", reply))
    assert got["m1"].status == "done", got["m1"]
    going_on = verdicts(("user", "em hãy lưu vào raw đi"), _call("c1", "a"), _result("r1", "a"),
                        ("assistant", "Chưa xong anh ơi, còn lỗi."))
    assert going_on["m1"].status == "current", going_on["m1"]


@pytest.mark.parametrize(("reply", "done"), [
    # the deliverable presented next, a closing formula, what a job just set up will do: the request is done
    ("Scan finished. Now let me summarize the scan report: 3 medium issues, 1 high.", True),
    ("Done! The report is in report.html. Now let me know if you want me to rescan the website.", True),
    ("Done! The website scan is set up. Then I'll send you the scan report every morning.", True),
    # a status table of the steps done
    ("| Install ZAP | ✅ |\n| Scan website | ✅ 完成 |", True),
    ("安装完成后，我跑了一遍网站扫描，发现 3 个漏洞。", True),
    # almost done, not finished, failed, noted; a share, not a report
    ("Sắp xong rồi anh, đang tạo báo cáo.", False), ("Em chưa làm xong, còn đang quét.", False),
    ("Đã chạy lệnh quét nhưng lỗi timeout.", False), ("Em đã ghi nhận yêu cầu.", False),
    ("扫描完成度 60%", False), ("Ich habe nichts geändert.", False),
])
def test_what_review_75_found_the_new_rules_misread(reply: str, done: bool) -> None:
    """Review 75 (an adversarial reading of the rules of reviews 72-74): each of these had been read the other way."""
    got = verdicts(("user", "Scan the website and give me a report (扫描网站)"), _call("c1", "a"), _result("r1", "a"),
                   ("assistant", reply))
    assert (got["m1"].status == "done") is done, got["m1"]


@pytest.mark.parametrize(("reply", "done"), [
    ("API端点不可访问 → 自动切换到模拟数据模式。报告已生成，数据来源：模拟搜索引擎（非真实市场数据）", False),
    ("The API was down, so I'm falling back to mock data. Report saved to report.md.", False),
    ("报告已生成，数据来源：百度搜索。", True),
])
def test_a_report_that_fell_back_to_a_stand_in_reports_the_work_not_done(reply: str, done: bool) -> None:
    """Review 72: "启用真实搜索集成，获取真实市场数据" closed by a report whose data came from a simulated search."""
    got = verdicts(("user", "启用真实搜索集成，获取真实市场数据，生成报告"), _call("c1", "a"), _result("r1", "a"),
                   ("assistant", reply))
    assert (got["m1"].status == "done") is done, got["m1"]
    mock = verdicts(("user", "Create mock data for the tests"), _call("c1", "a"), _result("r1", "a"),
                    ("assistant", "I created mock data for the tests in tests/fixtures.json."))
    assert mock["m1"].status == "done", mock["m1"]
