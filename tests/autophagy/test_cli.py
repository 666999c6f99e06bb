"""The `apollo autophagy` commands as a user and an agent run them: exit codes, JSON shapes,
confirmation without a terminal, the y/N question on a terminal, reports in both languages."""

from __future__ import annotations

import json
import os
import pty
import select
import sys
from pathlib import Path

import pytest

from apollo.demo import PINNED
from autophagy.support import NOW, tree

PLAN_KEYS = {"plan_id", "tier", "risk", "items", "protected", "suggested"}
ITEM_KEYS = {"id", "kind", "path", "bytes", "reason"}
RESULT_KEYS = {"tier", "deleted", "skipped", "snapshot", "log"}


@pytest.fixture
def cli(ws, apollo_cli):
    def call(*args: str, env: dict[str, str] | None = None):
        return apollo_cli("autophagy", *args, "--workspace", str(ws.workspace), "--state-dir", str(ws.state),
                          env=env, now=NOW)

    return call


def test_small_without_a_terminal_changes_nothing_and_exits_3(ws, cli) -> None:
    ws.put("a.tmp")
    before = tree(ws.workspace)
    done = cli("small", "--json")
    assert done.returncode == 3, done.stderr
    plan = json.loads(done.stdout)
    assert set(plan) == PLAN_KEYS and plan["tier"] == "small" and plan["risk"] == "low"
    assert [set(i) for i in plan["items"]] == [ITEM_KEYS]
    assert {k: v for k, v in tree(ws.workspace).items() if not k.startswith(".autophagy")} == before
    assert "apollo autophagy small --yes" in done.stderr


def test_small_yes_runs_and_reports(ws, cli) -> None:
    ws.put("a.tmp")
    done = cli("small", "--yes", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    # the CLI prints absolute paths (they paste back from any folder)
    assert set(result) == RESULT_KEYS and result["deleted"] == [str(ws.workspace / "a.tmp")]
    ws.put("b.tmp")
    done = cli("small", "--yes", "--lang", "zh")
    assert done.returncode == 0
    for line in ("🔥 [apollo-autophagy] 自噬清理报告", "清理类型：🗑️小自噬", "风险等级：🟢低", "  - 损坏/冗余文件：1个",
                 "清理时间：2026-11-29 12:00", "⚠️ 大自噬不可逆，中度自噬部分内容无法恢复"):
        assert line in done.stdout, line
    ws.put("c.tmp")
    done = cli("small", "--yes", "--lang", "en")
    assert "🔥 [apollo-autophagy] autophagy cleanup report" in done.stdout and "Type: 🗑️ small" in done.stdout


def test_medium_plan_then_confirm_with_selection(ws, cli) -> None:
    ws.put("a.json", b"{")
    ws.put("b.json", b"")
    done = cli("medium", "--json")
    assert done.returncode == 3
    plan = json.loads(done.stdout)
    assert [i["path"] for i in plan["items"]] == [str(ws.workspace / "a.json"), str(ws.workspace / "b.json")]
    done = cli("medium", "--confirm", plan["plan_id"], "--select", plan["items"][1]["id"], "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["deleted"] == [str(ws.workspace / "b.json")]
    assert (ws.workspace / "a.json").exists() and not (ws.workspace / "b.json").exists()


def test_medium_human_plan_shows_entries_and_the_command(ws, cli) -> None:
    ws.put("MEMORY.md", "- 旧地址 [过时]\n- 新地址\n")
    done = cli("medium", "--lang", "zh")
    assert done.returncode == 3
    assert "MEMORY.md:1  - 旧地址 [过时]" in done.stdout
    assert "apollo autophagy medium --confirm m-" in done.stdout


def test_large_needs_both_confirmations(ws, cli, tmp_path: Path) -> None:
    from realclient.support import legacy_state_dir, realistic_session

    source = realistic_session().write(tmp_path / "s.jsonl")
    current = "7a6b5c4d-3e2f-4a1b-8c9d-aabbccddeeff"
    legacy_state_dir(ws.root, {"0d2f7c1e-4b5a-4c3d-9e8f-112233445566": source, current: source})
    done = cli("large", "--json")
    assert done.returncode == 3
    plan_id = json.loads(done.stdout)["plan_id"]
    assert cli("large", "--confirm", plan_id).returncode == 3
    assert cli("large", "--confirm-phrase", "确认大自噬", "--json").returncode == 3
    assert cli("large", "--confirm", plan_id, "--confirm-phrase", "确认").returncode == 3
    refused = cli("large", "--confirm", plan_id, "--confirm-phrase", "确认大自噬")  # no terminal, no user message
    assert refused.returncode == 3 and "must come from the user" in refused.stderr
    assert (ws.state / "agents/main/sessions/0d2f7c1e-4b5a-4c3d-9e8f-112233445566.jsonl").exists()
    with (ws.state / f"agents/main/sessions/{current}.jsonl").open("a", encoding="utf-8") as out:  # the user says it
        out.write(json.dumps({"type": "message", "id": "f00d0001", "parentId": None,
                              "timestamp": "2026-11-29T04:00:00.000Z", "message": {
                                  "role": "user", "content": [{"type": "text", "text": f"确认大自噬 {plan_id[2:6]}"}],
                                  "timestamp": 1795924800000}}, ensure_ascii=False) + "\n")
    done = cli("large", "--confirm", plan_id, "--confirm-phrase", "确认大自噬", "--lang", "zh")
    assert done.returncode == 0, done.stderr
    assert "清理类型：💥大自噬" in done.stdout and "会话上下文：" in done.stdout
    assert not (ws.state / "agents/main/sessions/0d2f7c1e-4b5a-4c3d-9e8f-112233445566.jsonl").exists()


@pytest.mark.parametrize("args", [("medium",), ("large",), ("restore", "x"), ("snapshots", "--purge")])
def test_a_subagent_is_refused_with_exit_4(ws, cli, args) -> None:
    ws.put("a.json", b"{")
    done = cli(*args, "--as", "subagent")
    assert done.returncode == 4, done.stderr
    assert "main agent only" in done.stderr
    assert cli(*args, env={"APOLLO_ACTOR": "subagent"}).returncode == 4


def test_a_subagent_may_clean_the_small_tier(ws, cli) -> None:
    ws.put("a.tmp")
    assert cli("status", "--as", "subagent", "--json").returncode == 0
    done = cli("small", "--yes", "--as", "subagent", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["deleted"] == [str(ws.workspace / "a.tmp")]
    assert "子代理" in (ws.workspace / ".autophagy/cleanup-log.md").read_text()


def test_status_restore_snapshots_and_usage_errors(ws, cli) -> None:
    ws.put("a.tmp", "alpha")
    status = json.loads(cli("status", "--json").stdout)
    assert status["tiers"]["small"]["count"] == 1 and status["snapshots"] == []
    result = json.loads(cli("small", "--yes", "--json").stdout)
    name = Path(result["snapshot"]).name
    listed = json.loads(cli("snapshots", "--json").stdout)["snapshots"]
    assert [s["name"] for s in listed] == [name]
    dry = json.loads(cli("restore", name, "--dry-run", "--json").stdout)
    assert dry["restored"] == [str(ws.workspace / "a.tmp")] and not (ws.workspace / "a.tmp").exists()
    done = cli("restore", name)
    assert done.returncode == 0 and (ws.workspace / "a.tmp").read_text() == "alpha"
    assert cli("restore", "no-such-snapshot").returncode == 2
    assert cli("medium", "--confirm", "../../etc").returncode == 2
    assert cli("medium", "--confirm", "m-00000000").returncode == 2
    assert cli("small", "--as", "admin").returncode == 2
    status = cli("status", "--lang", "zh")
    assert "快照：1 个" in status.stdout and "最近的日志：## [2026-11-29 12:00] 恢复记录" in status.stdout


def test_a_bad_protect_configuration_is_one_line_exit_1(ws, cli) -> None:
    ws.put("a.tmp")
    ws.put(".dream/task-state.json", "{broken")
    done = cli("small", "--yes")
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 1 and "task state" in done.stderr
    assert (ws.workspace / "a.tmp").exists()


def _run_on_terminal(args: list[str], answers, env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run the real CLI on a pseudo-terminal, its clock pinned to NOW. ``answers`` is the bytes
    to type, or a function given the output so far that returns the next bytes to type (None: nothing yet)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the apollo CLI with the terminal as stdin and stdout
        os.execve(sys.executable, [sys.executable, "-c", PINNED, NOW, *args],
                  {**os.environ, **(env or {}), "COLUMNS": "200"})
    output = b""
    if isinstance(answers, bytes):
        os.write(fd, answers)
        answers = None
    while True:
        ready, _, _ = select.select([fd], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
        if answers is not None:
            typed = answers(output.decode("utf-8", "replace"))
            if typed:
                os.write(fd, typed)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), output.decode("utf-8", "replace")


@pytest.mark.parametrize("answer, code, kept", [(b"y\n", 0, False), (b"n\n", 3, True), (b"\n", 3, True)])
def test_on_a_terminal_small_asks_y_n(ws, answer: bytes, code: int, kept: bool) -> None:
    ws.put("a.tmp")
    status, output = _run_on_terminal(["autophagy", "small", "--lang", "en", "--workspace", str(ws.workspace),
                                       "--state-dir", str(ws.state)], answer)
    assert status == code, output
    assert "Remove these?" in output and "a.tmp" in output
    assert (ws.workspace / "a.tmp").exists() is kept


def test_on_a_terminal_medium_asks_which_items(ws) -> None:
    ws.put("a.json", b"{")
    ws.put("b.json", b"")
    status, output = _run_on_terminal(["autophagy", "medium", "--lang", "en", "--workspace", str(ws.workspace),
                                       "--state-dir", str(ws.state)], b"M2\n")
    assert status == 0, output
    assert (ws.workspace / "a.json").exists() and not (ws.workspace / "b.json").exists()


def _typing(*replies: str):
    """Answer each question once it has been asked: the plan id (read from the screen), then text."""
    pending = list(replies)

    def answer(screen: str) -> bytes | None:
        asked = screen.count("确认：") + screen.count("confirmation:")
        if pending and asked >= len(replies) - len(pending) + 1:
            reply = pending.pop(0)
            if reply == "<plan id>":
                reply = next(w for w in screen.replace("（", " ").split() if w.startswith("l-"))[:10]
            return (reply + "\n").encode()
        return None

    return answer


def test_on_a_terminal_large_asks_twice(ws, tmp_path: Path) -> None:
    from realclient.support import legacy_state_dir, realistic_session

    legacy_state_dir(ws.root, {"0d2f7c1e-4b5a-4c3d-9e8f-112233445566": realistic_session().write(tmp_path / "s.jsonl")})
    session = ws.state / "agents/main/sessions/0d2f7c1e-4b5a-4c3d-9e8f-112233445566.jsonl"
    args = ["autophagy", "large", "--lang", "zh", "--workspace", str(ws.workspace), "--state-dir", str(ws.state)]
    env: dict[str, str] = {}
    status, output = _run_on_terminal(args, _typing("l-00000000"), env)
    assert status == 3 and session.exists(), output
    status, output = _run_on_terminal(args, _typing("<plan id>", "确认"), env)
    assert status == 3 and session.exists(), output
    status, output = _run_on_terminal(args, _typing("<plan id>", "确认大自噬"), env)
    assert status == 0 and not session.exists(), output
    assert "清理类型：💥大自噬" in output


def test_a_plan_is_confirmed_only_by_its_own_tier(ws, cli) -> None:
    ws.put("a.tmp")
    ws.put("b.json", b"{")
    small = json.loads(cli("small", "--json").stdout)["plan_id"]
    medium = json.loads(cli("medium", "--json").stdout)["plan_id"]
    assert cli("medium", "--confirm", small).returncode == 2
    assert cli("large", "--confirm", medium, "--confirm-phrase", "确认大自噬").returncode == 2
    assert (ws.workspace / "a.tmp").exists() and (ws.workspace / "b.json").exists()


@pytest.mark.parametrize("typed, code", [("<words>", 0), ("确认大自噬", 3)])
def test_on_a_terminal_the_flags_alone_do_not_confirm_large_the_person_types_it(ws, apollo_cli, tmp_path: Path,
                                                                              typed: str, code: int) -> None:
    """Issue 12 finding 9: a command line proves no human; at a terminal the person types the words."""
    from realclient.support import legacy_state_dir, realistic_session

    legacy_state_dir(ws.root, {"0d2f7c1e-4b5a-4c3d-9e8f-112233445566": realistic_session().write(tmp_path / "s.jsonl")})
    session = ws.state / "agents/main/sessions/0d2f7c1e-4b5a-4c3d-9e8f-112233445566.jsonl"
    where = ["--workspace", str(ws.workspace), "--state-dir", str(ws.state)]
    plan_id = json.loads(apollo_cli("autophagy", "large", "--json", *where, now=NOW).stdout)["plan_id"]
    sent: list[str] = []

    def answer(screen: str) -> bytes | None:
        if "Second confirmation: type" in screen and not sent:
            sent.append(typed.replace("<words>", f"确认大自噬 {plan_id[2:6]}"))
            return (sent[0] + "\n").encode()
        return None

    status, output = _run_on_terminal(["autophagy", "large", "--confirm", plan_id, "--confirm-phrase", "确认大自噬",
                                       "--lang", "en", *where], answer)
    assert status == code, output
    assert session.exists() is (code != 0)
