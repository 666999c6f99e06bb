"""`apollo renal classify` and `apollo renal check` as users and the evaluation harness call them."""

from __future__ import annotations

import json
from pathlib import Path

from constants import DEMO_NOW, REPO

FIXTURE = REPO / "tests" / "renal" / "fixtures" / "zh_database_decision.jsonl"


def test_classify_json_is_the_harness_contract(apollo_cli) -> None:
    run = apollo_cli("renal", "classify", str(FIXTURE), "--format", "jsonl", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    lines = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    assert [m["id"] for m in data["messages"]] == [line["id"] for line in lines]
    for message in data["messages"]:
        assert {"id", "category", "action", "confidence", "reason"} <= set(message)
    summary = data["summary"]
    assert summary["format"] == "jsonl" and summary["elements"] == len(lines)
    assert summary["categories"]["noise"] == sum(m["category"] == "noise" for m in data["messages"])
    assert summary["balance"]["status"] in ("green", "yellow", "red")


def test_classify_prints_a_readable_table(apollo_cli) -> None:
    run = apollo_cli("renal", "classify", str(FIXTURE), "--only", "decision", "--lang", "en", env={"COLUMNS": "160"})
    assert run.returncode == 0, run.stderr
    assert "apollo renal classify" in run.stdout and "decision" in run.stdout
    # only decisions shown: the current one; the one it replaced left the must-keep categories
    assert "还是改用 SQLite 吧" in run.stdout and "嗯嗯" not in run.stdout and "那就用 PostgreSQL 吧" not in run.stdout
    assert "density" in run.stdout and "balance" in run.stdout


def test_malformed_lines_are_reported_with_their_line_number(apollo_cli, tmp_path: Path) -> None:
    source = tmp_path / "broken.jsonl"
    source.write_text('{"id": "1", "role": "user", "text": "帮我查一下天气"}\n{"id": "2", "role": \n'
                      '{"id": "3", "role": "assistant", "text": "好的"}\n', encoding="utf-8")
    run = apollo_cli("renal", "classify", str(source), "--json")
    assert run.returncode == 0
    assert f"{source}:2" in run.stderr and "Traceback" not in run.stderr
    assert [m["id"] for m in json.loads(run.stdout)["messages"]] == ["1", "3"]


def test_a_file_that_is_not_a_transcript_gets_one_clear_line(apollo_cli, tmp_path: Path) -> None:
    junk = tmp_path / "photo.bin"
    junk.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    for args in (("renal", "classify", str(junk)), ("renal", "classify", str(tmp_path / "missing.jsonl")),
                 ("renal", "check", str(junk))):
        run = apollo_cli(*args)
        assert run.returncode == 1
        assert run.stderr.startswith("apollo: ") and len(run.stderr.strip().splitlines()) == 1
        assert "Traceback" not in run.stderr


def test_classify_rejects_an_unknown_category(apollo_cli) -> None:
    run = apollo_cli("renal", "classify", str(FIXTURE), "--only", "noize")
    assert run.returncode == 2 and "unknown category noize" in run.stderr


def test_check_prints_the_report_and_ends_with_the_heartbeat_line(apollo_cli, example: Path) -> None:
    args = ("renal", "check", "-w", str(example / "workspace"), "--state-dir", str(example / "openclaw-state"))
    env = {"APOLLO_NOW": DEMO_NOW}
    run = apollo_cli(*args, "--lang", "zh", env=env)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    assert lines[0] == "🫘 [apollo-renal] 上下文净化报告"
    assert lines[-1].startswith(("🫘 上下文正常", "🫘 上下文需关注（", "🫘 上下文需过滤（节省"))
    assert any(line.endswith(lines[-1][2:]) and line[0] in "🟢🟡🔴" for line in lines)  # the report says the same verdict
    assert (example / "workspace" / ".renal" / "filter-state.json").is_file()
    quiet = apollo_cli(*args, "-q", "--lang", "en", env=env)
    assert quiet.stdout.startswith(("🫘 context healthy", "🫘 context to watch (", "🫘 context needs filtering"))
    assert len(quiet.stdout.strip().splitlines()) == 1


def test_check_json_is_the_state_plus_the_heartbeat_line(apollo_cli, example: Path) -> None:
    workspace = example / "workspace"
    (workspace / ".apollo").mkdir(exist_ok=True)
    (workspace / ".apollo" / "config.toml").write_text("[renal]\ntoken_threshold = 100\n"
                                                       "confirmation_threshold = 0\n", encoding="utf-8")
    run = apollo_cli("renal", "check", "-w", str(workspace), "--state-dir", str(example / "openclaw-state"),
                     "--json", "--no-write", "--lang", "zh", env={"APOLLO_NOW": DEMO_NOW})
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["needs_filter"] is True and data["state_file"] is None
    assert data["heartbeat"] == f"🫘 上下文需过滤（节省{round(data['estimated_saving'] * 100)}%；超标：Token、重复确认）"
    assert not (workspace / ".renal" / "filter-state.json").exists()
