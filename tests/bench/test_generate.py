"""The benchmark inputs are what they claim: deterministic, readable by Apollo, realistic in mix."""

from __future__ import annotations

import collections
from pathlib import Path

from apollo import transcript
from apollo.transcript import Kind
from bench import generate


def test_same_seed_writes_the_same_bytes_and_another_seed_does_not(tmp_path: Path) -> None:
    first = generate.write_session(tmp_path / "a.jsonl", 150_000, seed=7)
    again = generate.write_session(tmp_path / "b.jsonl", 150_000, seed=7)
    other = generate.write_session(tmp_path / "c.jsonl", 150_000, seed=8)
    assert first.read_bytes() == again.read_bytes()
    assert first.read_bytes() != other.read_bytes()
    assert 150_000 <= first.stat().st_size < 150_000 + 200_000  # whole episodes, one long tool output at most


def test_a_generated_session_reads_cleanly_as_openclaw_with_the_mix_of_a_real_agent(tmp_path: Path) -> None:
    session = generate.write_session(tmp_path / "s.jsonl", 400_000, seed=3)
    read = transcript.read(session)
    assert read.format == "openclaw"
    assert read.warnings == []
    kinds = collections.Counter(element.kind for element in read.elements)
    assert kinds[Kind.HEARTBEAT_POLL] > 0 and kinds[Kind.HEARTBEAT_REPLY] > 0
    assert kinds[Kind.TOOL_CALL] == kinds[Kind.TOOL_RESULT] > 0
    texts = [element.text for element in read.elements]
    assert any("决定" in text for text in texts) and any("Decision:" in text for text in texts)
    assert any(len(text) > 5_000 for text in texts), "tool output should be long"
    wrapped = [element for element in read.elements if element.envelope]
    assert wrapped and all("untrusted metadata" in e.envelope or e.envelope.startswith("[") for e in wrapped)
    ids = [element.record_id for element in read.elements]
    assert len(set(ids)) > len(ids) / 2  # multi-block messages share a record, entries do not repeat


def test_a_run_session_ends_with_the_run_on_the_active_branch_before_three_exchanges(tmp_path: Path) -> None:
    for number, kind in enumerate(generate.RUNS):
        session = generate.write_run_session(tmp_path / f"run-{number}.jsonl", kind, 5_000, seed=3)
        read = transcript.read(session)
        assert read.format == "openclaw" and read.warnings == []
        role, before, unit, after = generate.RUNS[kind]
        texts = [element.text for element in read.elements]
        run = next(element for element in read.elements if unit * 100 in element.text)
        assert run.role.value == role and len(run.text) >= 5_000 - len(unit)
        assert texts[-6:] == [f"next thing {n}: draft the invoice for client {n}" if k == 0 else f"Drafted invoice {n}."
                              for n in range(3) for k in range(2)]


def test_a_workspace_has_exactly_the_files_asked_for_with_small_tier_kinds_and_fixed_ages(tmp_path: Path) -> None:
    root = generate.write_workspace(tmp_path / "ws", 3_000, seed=5)
    files = [path for path in root.rglob("*") if path.is_file()]
    assert len(files) == 3_000
    names = {path.name for path in files}
    for protected in ("MEMORY.md", "AGENTS.md", "SKILL.md", "task-state.json"):
        assert protected in names
    suffixes = collections.Counter(path.suffix for path in files)
    for kind in (".tmp", ".pyc", ".log", ".bak", ".orig", ".swp"):
        assert suffixes[kind] > 0, kind
    assert any(path.name.endswith("~") for path in files)
    assert any("__pycache__" in path.parts for path in files) and any(".git" in path.parts for path in files)
    newest = max(path.stat().st_mtime for path in files)
    assert newest <= generate.BENCH_NOW.timestamp()
    again = generate.write_workspace(tmp_path / "ws2", 3_000, seed=5)
    assert sorted(p.relative_to(root) for p in files) == sorted(
        p.relative_to(again) for p in again.rglob("*") if p.is_file())
