"""The classifier on labelled agent transcripts (tests/renal/fixtures/*.jsonl, Chinese and English).

Each fixture line is a message in the harness's conversation JSONL plus its gold label:
``"gold"`` (decision, preference, task, question, process, noise) and, for what a later message
settled, ``"state"`` (done, answered, superseded). The transcripts were written as realistic
agent sessions, not from the rules. What must hold:
- every current decision, preference, active task and open question is kept (SPEC §1.1);
- noise is found with high precision and good recall;
- what later messages settle is demoted most of the time.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apollo.renal.classify import MUST_KEEP, classify_path

FIXTURES = Path(__file__).parent / "fixtures"
TRANSCRIPTS = sorted(FIXTURES.glob("*.jsonl"))


def _gold(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _classified(path: Path) -> list[tuple[dict, object]]:
    result = classify_path(path, "jsonl")
    gold = _gold(path)
    assert [v.id for v in result.verdicts] == [g["id"] for g in gold]
    return list(zip(gold, result.verdicts, strict=True))


def test_there_are_at_least_ten_labelled_transcripts_in_both_languages() -> None:
    assert len(TRANSCRIPTS) >= 10
    texts = " ".join(p.read_text(encoding="utf-8") for p in TRANSCRIPTS)
    assert any("\u4e00" <= c <= "\u9fff" for c in texts)
    assert sum(p.name.startswith("en_") for p in TRANSCRIPTS) >= 4
    assert sum(p.name.startswith("zh_") for p in TRANSCRIPTS) >= 4


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.stem)
def test_every_current_decision_preference_task_and_question_is_kept(path: Path) -> None:
    missed = [(g["id"], g["gold"], g["text"], v.action, v.reason) for g, v in _classified(path)
              if g["gold"] in MUST_KEEP and "state" not in g and v.action != "keep"]
    assert not missed


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.stem)
def test_nothing_that_matters_is_called_noise(path: Path) -> None:
    wrong = [(g["id"], g["text"], v.reason) for g, v in _classified(path)
             if g["gold"] in MUST_KEEP and v.category == "noise"]
    assert not wrong


def _pooled() -> list[tuple[dict, object]]:
    return [pair for path in TRANSCRIPTS for pair in _classified(path)]


def test_noise_precision_and_recall_over_all_fixtures() -> None:
    pairs = _pooled()
    predicted = [g["gold"] == "noise" for g, v in pairs if v.category == "noise"]
    gold_noise = [v.category == "noise" for g, v in pairs if g["gold"] == "noise"]
    precision = sum(predicted) / len(predicted)
    recall = sum(gold_noise) / len(gold_noise)
    assert precision >= 0.95, precision
    assert recall >= 0.85, recall


def test_most_must_keep_categories_are_named_right() -> None:
    pairs = [(g, v) for g, v in _pooled() if g["gold"] in MUST_KEEP]
    right = sum(v.category == g["gold"] for g, v in pairs)
    assert right / len(pairs) >= 0.8, right / len(pairs)


def test_what_later_messages_settle_is_mostly_demoted() -> None:
    settled = [(g, v) for g, v in _pooled() if "state" in g]
    demoted = sum(v.status == g["state"] for g, v in settled)
    assert demoted / len(settled) >= 0.7, [(g["id"], g["text"][:30], g["state"], v.status) for g, v in settled
                                           if v.status != g["state"]]
