"""Guarantee 8: hard links are unlinked, never truncated; a canary in the other link survives."""

from __future__ import annotations

import os

from autophagy.support import DAY, NOW_TS


def test_an_unlinked_name_leaves_the_other_link_intact(ws) -> None:
    canary = ws.put("keep/canary.txt", "canary: still here")
    os.link(canary, ws.workspace / "junk.tmp")
    (ws.workspace / "pkg" / "__pycache__").mkdir(parents=True)
    os.link(canary, ws.workspace / "pkg" / "__pycache__" / "m.pyc")
    os.utime(canary, (NOW_TS - 3 * DAY, NOW_TS - 3 * DAY))
    result = ws.small()
    assert sorted(result["deleted"]) == ["junk.tmp", "pkg/__pycache__/"]
    assert canary.read_text() == "canary: still here"
    assert os.stat(canary).st_nlink == 1


def test_a_rewritten_heartbeat_log_never_truncates_its_other_link(ws) -> None:
    text = "2026-09-01T00:00:00Z old\n2026-11-28T00:00:00Z new\n"
    log = ws.put("heartbeat.log", text)
    canary = ws.workspace / "canary-of-the-log.txt"
    os.link(log, canary)
    os.utime(log, (NOW_TS - 3 * DAY, NOW_TS - 3 * DAY))
    ws.small()
    assert log.read_text() == "2026-11-28T00:00:00Z new\n"
    assert canary.read_text() == text, "the other name still holds every byte"


def test_a_hard_link_to_a_protected_file_goes_but_the_file_stays(ws) -> None:
    memory = ws.put("MEMORY.md", "- never lose this\n")
    os.link(memory, ws.workspace / "MEMORY.md.bak")
    os.utime(memory, (NOW_TS - 3 * DAY, NOW_TS - 3 * DAY))
    ws.small()
    assert memory.read_text() == "- never lose this\n"
    assert not (ws.workspace / "MEMORY.md.bak").exists()
