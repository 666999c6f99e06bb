"""Quality of the default filter on labeled agent sessions (Chinese and English).

Goals of issue #5: 100% of current decisions, preferences, active tasks and open questions kept
with their substance verbatim; >= 90% of the labeled noise removed; >= 50% of the tokens saved
on tool-heavy sessions. The output must load in the real pi-coding-agent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apollo import transcript
from apollo.renal.filter import filter_path
from renal.filter_support import MUST_KEEP, build, fixture_names


def _texts(path: Path) -> tuple[set[str], str]:
    read = transcript.read(path)
    return {e.id for e in read.elements}, "\n".join(e.text for e in read.elements)


@pytest.mark.parametrize("name", fixture_names())
def test_default_mode_keeps_what_matters_and_drops_the_noise(name: str, tmp_path: Path) -> None:
    labeled = build(name, tmp_path)
    result = filter_path(labeled.path, workspace=tmp_path)
    _, text = _texts(result.output_path)
    for label in MUST_KEEP:
        for _, substance in labeled.labels.get(label, []):
            assert substance in text, f"{label} lost: {substance}"
    if labeled.spec["tool_heavy"]:
        assert result.report["saving"] >= 0.5, result.report["saving"]
    assert result.report["after"]["tokens"] < result.report["before"]["tokens"]


def test_at_least_nine_tenths_of_the_labeled_noise_goes(tmp_path: Path) -> None:
    removed = total = 0
    for name in fixture_names():
        labeled = build(name, tmp_path / name)
        ids, _ = _texts(filter_path(labeled.path, workspace=tmp_path).output_path)
        noise = [element_ids for element_ids, _ in labeled.labels["noise"]]
        total += len(noise)
        removed += sum(1 for element_ids in noise if not set(element_ids) & ids)
    assert total >= 20 and removed / total >= 0.9, f"only {removed}/{total} noise items removed"


@pytest.mark.parametrize("name", fixture_names())
def test_important_content_is_snapshotted_before_output(name: str, tmp_path: Path) -> None:
    labeled = build(name, tmp_path)
    result = filter_path(labeled.path, workspace=tmp_path)
    assert result.snapshot_path is not None
    assert result.snapshot_path.parent == tmp_path / ".renal" / "snapshots"
    snapshot = json.loads(result.snapshot_path.read_text(encoding="utf-8"))
    snapshotted = "\n".join(item["text"] for item in snapshot["items"])
    assert {item["category"] for item in snapshot["items"]} <= {"decision", "preference", "task", "question"}
    for label in ("decision", "preference", "task", "question"):
        for _, substance in labeled.labels.get(label, []):
            assert substance in snapshotted


@pytest.mark.realclient
@pytest.mark.parametrize("name", fixture_names())
def test_rewritten_and_compacted_sessions_load_in_pi(name: str, tmp_path: Path, pi_validate, pi_replay) -> None:
    labeled = build(name, tmp_path)
    rewritten = filter_path(labeled.path, workspace=tmp_path, output=tmp_path / "rewritten.jsonl")
    report = pi_validate(rewritten.output_path, strict=True)
    assert report["exit"] == 0, report
    compacted = filter_path(labeled.path, workspace=tmp_path, mode="compact", output=tmp_path / "compact.jsonl")
    report = pi_validate(compacted.output_path, strict=True)
    assert report["exit"] == 0, report
    context = json.dumps(pi_replay(compacted.output_path), ensure_ascii=False)
    for label in ("decision", "preference", "task", "question"):
        for _, substance in labeled.labels.get(label, []):
            assert substance in context, f"{label} missing from the context pi builds: {substance}"
