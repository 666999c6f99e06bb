"""A file the agent's own instructions name is its record: never removed whole by a file rule.

Found on a real workspace: AGENTS.md calls each channel's ``activity.log`` the action history
(append-only, read before the agent asks anything), and the small tier's stale-log rule took every
one of them. The instructions are read at the workspace root, and the files they name by path as
deep as ``named_depth``; entries may still be cut out of a named file; a folder rule still takes
its folder whole; an instruction file that cannot be read stops the run.
"""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apollo.autophagy import rules as rules_mod
from apollo.autophagy.fs import Root
from apollo.autophagy.named import load_named
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
    assert named.by["two.log"] == "b/two.md"  # two steps from the root file: read (named_depth = 2)
    assert "three.log" not in named.by        # three steps: not read
    assert named.by["three.md"] == "b/two.md"


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


def test_an_instruction_file_that_cannot_be_read_stops_the_run(ws) -> None:
    os.symlink("MEMORY.md", ws.workspace / "MEMORY.md")  # a link to itself: open fails with ELOOP
    log = ws.put("old.log", age=5 * DAY)
    with pytest.raises(ConfigError, match="cannot read MEMORY.md"):
        ws.small()
    assert log.exists()


def test_a_fifo_or_a_folder_named_like_an_instruction_file_names_nothing(ws) -> None:
    os.mkfifo(ws.workspace / "AGENTS.md")  # opened without blocking, and not read: not a file
    (ws.workspace / "SOUL.md").mkdir()
    ws.put("old.log", age=5 * DAY)
    assert load_named(Root(ws.workspace), rules_mod.load(ws.config())).by == {}


_NAME = st.from_regex(r"[a-z0-9_][a-z0-9_-]{0,8}\.[a-z][a-z0-9]{0,3}", fullmatch=True)
#: prose around a name, and what sets it off: never a letter or digit of its own
_PROSE = st.lists(st.sampled_from(["ab", "你好", "，", "。", " ", "*", "`", "日志", "(", ")", "\n", " - "]),
                  max_size=5).map("".join)
_FILE_NAME = re.compile(rules_mod.load(None).data.protect.file_name)
_APART = st.sampled_from([" ", "，", "。", "日志", "`", "(", ")", "\n", "：", '"', "'"])


@given(st.lists(st.tuples(_PROSE, _APART, _NAME, _APART), max_size=6), _PROSE)
def test_every_name_set_off_by_words_or_cjk_is_found_and_nothing_else(pieces, tail) -> None:
    """Property: a file name set off by spaces, punctuation or Chinese text is found (by its exact
    case-folded name); whatever is found occurs in the text; a pattern such as *.log names nothing."""
    text = "".join(f"{prose}{before}{name}{after}" for prose, before, name, after in pieces)
    text += tail + " *.log logs/*.tmp v1.2 "
    found = {m.group("name").casefold() for m in _FILE_NAME.finditer(text)}
    assert {name.casefold() for _, _, name, _ in pieces} <= found
    assert all(name in text.casefold() for name in found)
    assert not {"log", "tmp", ".log", "v1.2"} & found
