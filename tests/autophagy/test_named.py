"""A file the agent's own instructions name is its record: never removed whole by a file rule.

Found on a real workspace: AGENTS.md calls each channel's ``activity.log`` the action history
(append-only, read before the agent asks anything), and the small tier's stale-log rule took every
one of them. The instructions are read at the workspace root, and the Markdown files they name as
deep as ``named_depth``; entries may still be cut out of a named file; a folder rule still takes
its folder whole unless they name a path inside it; an instruction file at the root that cannot be
read stops the run. (Review findings: a link to nothing, names in Chinese or with emphasis, templates,
``./`` paths, long paths, a quadratic pattern.)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apollo.autophagy import named as named_mod
from apollo.autophagy import rules as rules_mod
from apollo.autophagy.fs import Root
from apollo.autophagy.named import Named, _mentioned, load_named
from apollo.errors import ConfigError
from autophagy.support import DAY, NOW_TS, tree

AGENTS = """# AGENTS.md
Each channel folder holds:
├── activity.log         # Action history (append-only): read it before you ask anything
Orchestrator rules live in `system/policy.md`.
"""
POLICY = "Read `system/ops.log` (previous runs) and `notes/deeper.md` first.\n"


def _old_logs(ws) -> None:
    for rel in ("discord/a/activity.log", "discord/b/Activity.log", "system/ops.log", "logs/other.log",
                "notes/far.log"):
        ws.put(rel, "[2026-01-01] entry\n", age=5 * DAY)


def test_a_log_the_instructions_name_is_kept_and_the_others_go(ws) -> None:
    ws.put("AGENTS.md", AGENTS)
    ws.put("system/policy.md", POLICY)
    _old_logs(ws)
    plan = ws.plan("small")
    planned = {"/".join(item.parts) for item in plan.items}
    assert planned == {"logs/other.log", "notes/far.log"}
    kept = {p["path"].removeprefix(str(ws.workspace) + "/"): p["reason"] for p in plan.protected}
    assert kept["discord/a/activity.log"].startswith("named in AGENTS.md")
    assert kept["discord/b/Activity.log"].startswith("named in AGENTS.md")  # names ignore case
    assert kept["system/ops.log"].startswith("named in system/policy.md")  # followed by its path
    ws.small()
    left = tree(ws.workspace)
    assert {"discord/a/activity.log", "discord/b/Activity.log", "system/ops.log"} <= left.keys()
    assert "logs/other.log" not in left and "notes/far.log" not in left


def test_following_stops_at_named_depth(ws) -> None:
    ws.put("AGENTS.md", "see `a/one.md`\n")
    ws.put("a/one.md", "see `b/two.md`\n")
    ws.put("b/two.md", "see `c/three.md` and two.log\n")
    ws.put("c/three.md", "three.log\n")
    named = load_named(Root(ws.workspace), rules_mod.load(ws.config()))
    assert named.reason("two.log")[0].startswith("named in b/two.md")  # two steps from the root file: read
    assert named.reason("three.log") is None  # three steps (named_depth = 2): not read
    assert named.reason("three.md")[0].startswith("named in b/two.md")


def test_the_notes_in_a_folder_the_instructions_point_to_are_read(ws, tmp_path) -> None:
    # a real workspace: MEMORY.md sends experiments to `system/experiments/`, whose spec there says
    # "Log the change in `changelog.log`" (one system-wide, one per channel): not stale logs
    ws.put("MEMORY.md", "1. **System-wide:** `system/experiments/` promotes to `system/policy.md`\n"
                        "Drafts sit in system/drafts (no slash: a word, not a folder to read).\n"
                        "Daily notes go to `memory/`.\n")
    ws.put("memory/2026-01-01.md", "Found junk: broken.log, half-written.\n")  # a diary: what happened
    ws.put("memory/topics.md", "topic.log keeps the topics\n")
    ws.put("system/experiments/EXPERIMENTATION-SPEC.md", "Log the change in `changelog.log`.\n")
    ws.put("system/experiments/deeper/more.md", "deeper.log\n")  # only the notes directly in it
    ws.put("system/drafts/draft.md", "drafts.log\n")
    for rel in ("system/experiments/changelog.log", "discord/agent/changelog.log", "topic.log", "deeper.log",
                "drafts.log", "other.log", "broken.log"):
        ws.put(rel, "[2026-01-01] entry\n", age=5 * DAY)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "notes.md").write_text("other.log is kept\n")
    os.symlink(outside, ws.workspace / "linked")
    ws.put("AGENTS.md", "See `linked/` for notes.\n")  # a folder that leads outside: its notes name nothing here
    named = load_named(Root(ws.workspace), rules_mod.load(ws.config()))
    assert named.reason("discord/agent/changelog.log")[0].startswith(
        "named in system/experiments/EXPERIMENTATION-SPEC.md")
    assert named.reason("deeper.log") is None and named.reason("drafts.log") is None
    assert named.reason("other.log") is None
    ws.small()
    left = tree(ws.workspace)
    assert {"system/experiments/changelog.log", "discord/agent/changelog.log", "topic.log"} <= left.keys()
    assert not {"deeper.log", "drafts.log", "other.log", "broken.log"} & left.keys()


def test_a_named_folder_that_cannot_be_listed_is_passed_over() -> None:
    # "the database lives in `data/postgres/`" (a folder root keeps to itself) names no notes to read:
    # the run goes on, and what the instructions name by path is still kept (read as 'nobody', who
    # cannot list it, in a folder it can reach)
    base = Path(tempfile.mkdtemp(prefix="apollo-named-"))
    try:
        base.chmod(0o755)
        workspace = base / "workspace"
        (workspace / "data/postgres").mkdir(parents=True)
        (workspace / "system").mkdir()
        (workspace / "AGENTS.md").write_text("The database lives in `data/postgres/`. Rules: `system/policy.md`\n")
        (workspace / "system/policy.md").write_text("Append every action to actions.log\n")
        (workspace / "data/postgres/notes.md").write_text("pg.log\n")
        for path in [base, *base.rglob("*")]:
            os.chown(path, 65534, 65534)
        (workspace / "data/postgres").chmod(0)
        code = ("from pathlib import Path; from apollo.autophagy import rules; from apollo.autophagy.fs import Root; "
                "from apollo.autophagy.named import load_named\n"
                f"named = load_named(Root(Path({str(workspace)!r})), rules.load(None))\n"
                "print(named.reason('keep/actions.log')[0], named.reason('pg.log'))")
        as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
        done = subprocess.run([*as_nobody, sys.executable, "-c", code], capture_output=True, text=True,
                              env={**os.environ, "HOME": str(base)})
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "named in system/policy.md: the agent's own record, never removed whole None"
    finally:
        (base / "workspace/data/postgres").chmod(0o755)
        shutil.rmtree(base)


def test_a_folders_notes_never_take_the_room_of_a_file_named_by_its_path(ws) -> None:
    # second review: 205 notes in a named folder used up the 200 files read, and the log the policy
    # names (read after them) was removed
    ws.put("AGENTS.md", "Topic notes live in `notes/`. Rules of this agent: `system/policy.md`.\n")
    ws.put("system/policy.md", "Append every action to actions.log\n")
    for n in range(205):
        ws.put(f"notes/topic-{n:03d}.md", f"topic {n}\n")
    ws.put("notes/zz-last.md", "late.log\n")  # past the notes' cap: not read
    for rel in ("keep/actions.log", "late.log"):
        ws.put(rel, "[2026-01-01] entry\n", age=5 * DAY)
    ws.small()
    left = tree(ws.workspace)
    assert "keep/actions.log" in left and "late.log" not in left


def test_entries_are_still_cut_from_a_named_heartbeat_log(ws) -> None:
    ws.put("HEARTBEAT.md", "Append one line to logs/heartbeat.log after each poll.\n")
    old = "".join(f"2026-01-{day:02d}T08:00:00Z HEARTBEAT_OK\n" for day in range(1, 11))
    path = ws.put("logs/heartbeat.log", old + "2026-12-01T08:00:00Z HEARTBEAT_OK\n", age=0.5 * DAY)
    plan = ws.plan("small")
    assert [(item.kind, item.action) for item in plan.items] == [("heartbeat_entries", "cut")]
    ws.small()
    assert path.read_text() == "2026-12-01T08:00:00Z HEARTBEAT_OK\n"


def test_a_folder_rule_still_takes_a_build_copy_of_a_named_script(ws) -> None:
    ws.put("TOOLS.md", "Run `scripts/clean_csv.py` on every export.\n")
    ws.put("scripts/clean_csv.py", "print()\n")
    ws.put("project/build/lib/clean_csv.py", "print()\n", age=5 * DAY)
    ws.small()
    left = tree(ws.workspace)
    assert "scripts/clean_csv.py" in left and not any(rel.startswith("project/build") for rel in left)


def test_a_plan_made_before_the_instructions_named_the_file_skips_it(ws) -> None:
    ws.put("AGENTS.md", "# rules\n")
    log = ws.put("channel/activity.log", "history\n", age=5 * DAY)
    plan = ws.plan("small")
    assert [item.parts for item in plan.items] == [["channel", "activity.log"]]
    agents = ws.put("AGENTS.md", "# rules\nKeep activity.log: the action history.\n")
    os.utime(agents, (NOW_TS, NOW_TS))
    result = ws.execute(plan.plan_id)
    assert log.exists() and not result["deleted"] and result["skipped"]


def test_an_instruction_file_that_cannot_be_read_stops_the_run(ws, tmp_path) -> None:
    os.symlink("MEMORY.md", ws.workspace / "MEMORY.md")  # a link to itself: open fails with ELOOP
    log = ws.put("old.log", age=5 * DAY)
    with pytest.raises(ConfigError, match="cannot read MEMORY.md"):
        ws.small()
    (ws.workspace / "MEMORY.md").unlink()
    shared = ws.put("shared/AGENTS.md", "old.log is the action history\n", base=tmp_path)
    os.symlink(shared, ws.workspace / "AGENTS.md")
    plan = ws.plan("small")
    assert not plan.items
    shared.rename(shared.with_name("moved.md"))  # the link now leads nowhere: what it named is unknown
    with pytest.raises(ConfigError, match="cannot read AGENTS.md"):
        ws.small()
    assert log.exists()


def test_an_instruction_file_unreadable_at_confirmation_stops_the_run(ws) -> None:
    ws.put("AGENTS.md", "# rules\n")
    log = ws.put("broken.json", "{", age=5 * DAY)
    plan = ws.plan("medium")
    assert [item.parts for item in plan.items] == [["broken.json"]]
    (ws.workspace / "AGENTS.md").unlink()
    os.symlink("nowhere.md", ws.workspace / "AGENTS.md")
    with pytest.raises(ConfigError, match="cannot read AGENTS.md"):
        ws.execute(plan.plan_id)
    assert log.exists()


def test_a_pipe_or_a_folder_named_like_an_instruction_file_stops_the_run_without_waiting(ws) -> None:
    os.mkfifo(ws.workspace / "AGENTS.md")  # opened without blocking: never waited on
    ws.put("old.log", age=5 * DAY)
    with pytest.raises(ConfigError, match="not a regular file"):
        load_named(Root(ws.workspace), rules_mod.load(ws.config()))
    (ws.workspace / "AGENTS.md").unlink()
    (ws.workspace / "SOUL.md").mkdir()
    with pytest.raises(ConfigError, match="not a regular file"):
        load_named(Root(ws.workspace), rules_mod.load(ws.config()))


def test_names_are_found_however_they_are_written(ws) -> None:
    ws.put("AGENTS.md", "日志写在行动日志.log里；隐藏的 .session.log；_emphasis.log_；**bold.log**；"
                        "每天一份 logs/YYYY-MM-DD.log 和 reports/<channel>-summary.json。\n"
                        "See [the policy](./system/policy.md) and QUICKGUIDE.md.\n")
    ws.put("system/policy.md", "Read `ops.log` first.\n")
    ws.put("QUICKGUIDE.md", "guide.log holds the quick guide's history.\n")
    kept = ["行动日志.log", "a/.session.log", "emphasis.log", "bold.log", "logs/2026-11-30.log", "ops.log",
            "guide.log"]
    for rel in kept:
        ws.put(rel, age=5 * DAY)
    ws.put("reports/ops-summary.json", age=5 * DAY)
    gone = ["other.log", "logs/notes.log", "myactivity.log"]
    for rel in gone:
        ws.put(rel, age=5 * DAY)
    ws.small()
    left = tree(ws.workspace)
    assert all(rel in left for rel in kept), [rel for rel in kept if rel not in left]
    assert not any(rel in left for rel in gone)
    named = load_named(Root(ws.workspace), rules_mod.load(ws.config()))
    assert named.reason("reports/ops-summary.json") and not named.reason("reports/ops-summary.json.bak")
    assert not named.reason("elsewhere/ops-summary.json")  # a template names files in its own folder


def test_a_path_inside_a_build_folder_keeps_the_folder(ws) -> None:
    ws.put("AGENTS.md", "build/report.log is your report. Never commit dist/ (see https://x.example/dist/a.js).\n")
    ws.put("build/report.log", age=5 * DAY)
    ws.put("dist/a.js", age=5 * DAY)
    ws.put("other/build/x.o", age=5 * DAY)
    ws.small()
    left = tree(ws.workspace)
    assert "build/report.log" in left and "other/build/x.o" not in left and "dist/a.js" not in left


def test_review_cases_decomposed_escaped_templates_and_bare_templates(ws) -> None:
    import unicodedata

    ws.put("AGENTS.md", "Keep café-notes.log and 활동.log; activity\\_ledger.log; [x](my%20notes.log); "
                        "hist/*.log, d/yyyy-mm-dd.log, e/YYYYMMDD.log; every {channel}.log and *.log go.\n")
    kept = [unicodedata.normalize("NFD", "café-notes.log"), unicodedata.normalize("NFD", "활동.log"),
            "activity_ledger.log", "my notes.log", "hist/a.log", "d/2026-11-30.log", "e/20261130.log"]
    for rel in kept:
        ws.put(rel, age=5 * DAY)
    ws.put("old/debug.log", age=5 * DAY)
    ws.small()
    left = tree(ws.workspace)
    assert all(rel in left for rel in kept), [rel for rel in kept if rel not in left]
    assert "old/debug.log" not in left


def test_long_or_odd_paths_in_the_instructions_are_read_past(ws) -> None:
    ws.put("MEMORY.md", "a" * 300 + "/README.md, ../../outside.md, /etc/x.md, ~/notes.md\n" + "a/" * 40_000 + "\n")
    log = ws.put("old.log", age=5 * DAY)
    ws.small()
    assert not log.exists()


_NAME = st.from_regex(r"[a-z0-9_][a-z0-9_-]{0,8}\.[a-z][a-z0-9]{0,3}", fullmatch=True)
#: prose around a name, and what sets it off: never a Latin letter or digit of its own
_PROSE = st.lists(st.sampled_from(["ab", "你好", "，", "。", " ", "*", "`", "日志", "(", ")", "\n", " - "]),
                  max_size=5).map("".join)
_APART = st.sampled_from([" ", "，", "。", "日志", "`", "(", ")", "\n", "：", '"', "'", "_", "**", "/"])


@given(st.lists(st.tuples(_PROSE, _APART, _NAME, _APART), max_size=6), _PROSE, _NAME)
def test_every_name_set_off_is_found_and_a_longer_one_is_not(pieces, tail, other) -> None:
    """Property: a file name set off by spaces, punctuation, emphasis or Chinese text is found; a
    name a Latin letter or digit runs on into is not (unless it is also written on its own)."""
    text = "".join(f"{prose}{before}{name}{after}" for prose, before, name, after in pieces) + tail
    named = Named((("AGENTS.md", text.casefold()),))
    assert all(named.reason(name.upper()) for _, _, name, _ in pieces)
    written = {name for _, _, name, _ in pieces}
    longer = "x" + other
    if not any(longer in name for name in written) and longer not in text:
        assert named.reason(longer) is None


@given(st.lists(st.text(alphabet="ab1.-_ 日x\n", min_size=1, max_size=8), min_size=1, max_size=6), st.data())
def test_the_indexed_lookup_finds_exactly_what_a_scan_of_every_text_finds(names, data) -> None:
    """Property: looking names up by the run they end with gives, for every name, the first text
    that a plain search of each text in turn finds it set off in (or none), whatever the texts and
    names are made of (names ending in a dot or a space, or in Chinese, are searched plainly)."""
    piece = st.one_of(st.sampled_from(names), st.text(alphabet="ab1.-_/ 日x\n", max_size=3))
    texts = data.draw(st.lists(st.lists(piece, max_size=8).map("".join), min_size=1, max_size=4))
    named = Named(tuple((f"t{i}.md", text) for i, text in enumerate(texts)))
    for _ in range(6):  # searched plainly at first, through the index once names of a kind have cost as much
        for name in names:
            expected = next((source for source, text in named.texts if _mentioned(text, name)), None)
            assert named._mentioning(name) == expected


def test_many_names_of_a_kind_are_looked_up_through_the_index() -> None:
    """Thousands of old logs beside long notes: searched plainly first, then through an index of the
    stretches that end with ".log", which finds what the plain search finds."""
    notes = " ".join(f"see app{i}.log and x{i}.log," for i in range(0, 3000, 3)) + " then activity.log"
    named = Named((("AGENTS.md", "no logs here\n"), ("notes.md", notes)))
    names = [f"{prefix}{i}.log" for i in range(300) for prefix in ("app", "x", "yapp")] + ["activity.log"]
    found = {name: named._mentioning(name) for name in names}
    assert named._stretches  # the index was built on the way
    assert found == {name: next((s for s, t in named.texts if _mentioned(t, name)), None) for name in names}
    assert found["app3.log"] == "notes.md" and found["app4.log"] is None and found["yapp3.log"] is None


def test_the_caps_never_cost_a_file_named_by_its_path_nor_a_root_files_check(ws, monkeypatch) -> None:
    """Fourth review: a folder's notes read past their half of the bytes (one read could overshoot by
    a whole note), and root files past the total were not even opened: a MEMORY.md that is a folder
    did not stop the run. (The caps are made small here; they are 16 MB and 4 MB a file.)"""
    monkeypatch.setattr(named_mod, "TOTAL_LIMIT", 64_000)
    monkeypatch.setattr(named_mod, "READ_LIMIT", 40_000)
    ws.put("AGENTS.md", "Notes: `notes/`. Rules: `system/policy.md`.\n" + "x" * 39_000)
    ws.put("system/policy.md", "Clean up as `system/cleanup.md` says.\n")
    ws.put("system/cleanup.md", "Append every action to actions.log\n")
    for n in range(3):
        ws.put(f"notes/t{n}.md", "y" * 30_000)
    named = load_named(Root(ws.workspace), rules_mod.load(ws.config()))
    assert named.reason("keep/actions.log")[0].startswith("named in system/cleanup.md")
    notes = sum(len(text) for source, text in named.texts if source.startswith("notes/"))
    assert notes <= 32_000  # half of the total, never more
    ws.put("TOOLS.md", "z" * 39_000)
    (ws.workspace / "MEMORY.md").mkdir()  # past the total: still checked, and it stops the run
    with pytest.raises(ConfigError, match="cannot read MEMORY.md"):
        load_named(Root(ws.workspace), rules_mod.load(ws.config()))
