"""Issue 12, finding 11: pruning a log that another process holds open for appending. A rename
would leave the writer appending to the old, orphaned inode; the prune is skipped with a reason
instead, and no line the writer wrote is lost. A real second process writes the log."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

from autophagy.support import DAY

WRITER = textwrap.dedent("""
    import os, sys, time
    log, ready, stop = sys.argv[1:4]
    fd = os.open(log, os.O_WRONLY | os.O_APPEND)
    open(ready, "w").close()
    n = 0
    while not os.path.exists(stop) or n < 120:
        os.write(fd, f"2026-11-29T03:{n // 60 % 60:02d}:{n % 60:02d}Z writer line {n}\\n".encode())
        n += 1
        time.sleep(0.005)
    os.close(fd)
    print(n)
""")


def _start_writer(ws, log):
    ready, stop = ws.root / "ready", ws.root / "stop"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(log), str(ready), str(stop)],
                              stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not ready.exists():
        assert writer.poll() is None and time.monotonic() < deadline, "the writer did not start"
        time.sleep(0.01)
    return writer, stop


def test_a_log_held_open_for_appending_is_not_pruned_and_loses_nothing(ws) -> None:
    old = "".join(f"2026-09-{d:02d}T08:00:00Z old entry {d}\n" for d in range(1, 29))
    log = ws.put("logs/heartbeat.log", old, age=2 * DAY)
    writer, stop = _start_writer(ws, log)
    try:
        result = ws.small()
    finally:
        stop.touch()
        written = int(writer.communicate(timeout=60)[0])
    assert result["deleted"] == []
    assert any("open for writing" in s["reason"] for s in result["skipped"]), result["skipped"]
    lines = log.read_text().splitlines()
    assert lines[:28] == old.splitlines()
    assert [line.split()[-1] for line in lines[28:]] == [str(n) for n in range(written)]


def test_once_the_writer_is_gone_the_prune_runs(ws) -> None:
    old = "".join(f"2026-09-{d:02d}T08:00:00Z old entry {d}\n" for d in range(1, 29))
    log = ws.put("logs/heartbeat.log", old + "2026-11-29T03:00:00Z recent\n", age=2 * DAY)
    writer, stop = _start_writer(ws, log)
    stop.touch()
    written = int(writer.communicate(timeout=60)[0])
    result = ws.small()
    assert result["deleted"] == ["logs/heartbeat.log (28 entries)"]
    assert len(log.read_text().splitlines()) == 1 + written
