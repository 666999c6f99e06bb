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

from apollo.renal.api import classify_path
from apollo.renal.classify import MUST_KEEP

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
    """What still stands is named by its kind; what a later message settled (answered, superseded,
    done) either keeps its kind or leaves the must-keep categories (process), as the classifier moves
    a settled item whose resolution is clear: it is never filed under another must-keep kind."""
    pairs = [(g, v) for g, v in _pooled() if g["gold"] in MUST_KEEP]
    current = [(g, v) for g, v in pairs if "state" not in g]
    right = sum(v.category == g["gold"] for g, v in current)
    assert right / len(current) >= 0.8, right / len(current)
    settled = [(g, v) for g, v in pairs if "state" in g]
    wrong = [(g["id"], g["gold"], v.category) for g, v in settled if v.category not in (g["gold"], "process")]
    assert len(wrong) <= len(settled) // 5, wrong


def test_what_later_messages_settle_is_mostly_demoted() -> None:
    settled = [(g, v) for g, v in _pooled() if "state" in g]
    demoted = sum(v.status == g["state"] for g, v in settled)
    assert demoted / len(settled) >= 0.7, [(g["id"], g["text"][:30], g["state"], v.status) for g, v in settled
                                           if v.status != g["state"]]


# -- the bundled example sessions (examples/make_examples.py), read as a person reads them -------------------------
EXAMPLE_SESSIONS = "openclaw-state/agents/main/sessions"
#: element id -> (category, status) of everything in them that must be kept, as a reader labels it
EXAMPLE_MUST_KEEP = {
    "93781619-6e2f-4b2c-8c02-4f91cb6c9962.jsonl": {  # Chinese: the Q4 cost report
        "001ed497": ("preference", "current"),  # 以后都用中文回复…金额统一用人民币
        "321d4551": ("decision", "current"),  # 导进 report.db…用 SQLite 就行
        "8c06ac4d": ("question", "current"),  # Q4 的预算上限到底是多少？ — nobody knows yet
        "8ba078b6": ("process", "superseded"),  # 导出 PDF … replaced by 飞书文档链接: the later one carries it
        "0eca005d": ("decision", "current"),  # 不要 PDF 了，直接发飞书文档链接
        "046176ca": ("preference", "current"),  # 以后部署目标改成 staging-2
        "84ad1390": ("preference", "current"),  # 先别删，等我把 Apollo 装好
        "44b37edb:1": ("decision", "current"),  # the outline, accepted with "OK，按这个写"
    },
    "ff090b09-8eb0-4818-b64e-3c9f7c58b33a.jsonl": {  # English: the Gitea move
        "7616336f": ("decision", "current"),  # switch to sqlite on the nuc's nvme instead
        "2c843ab4": ("decision", "current"),  # saturday it is
        "38f26a45": ("task", "current"),  # nightly backup of gitea to the nas — waiting for the share
        "776e7702": ("question", "current"),  # which share? — "not sure, I'll check"
        "b75f81c7": ("question", "current"),  # is the warranty still valid? — "I don't know yet"
    },
}


@pytest.mark.parametrize("session", sorted(EXAMPLE_MUST_KEEP))
def test_the_example_sessions_keep_what_matters_with_the_right_category(example: Path, session: str) -> None:
    result = classify_path(example / EXAMPLE_SESSIONS / session)
    found = {v.id: v for v in result.verdicts}
    for element_id, (category, status) in EXAMPLE_MUST_KEEP[session].items():
        verdict = found[element_id]
        assert (verdict.category, verdict.status) == (category, status), (element_id, verdict)
        assert verdict.action == "keep" if status == "current" else verdict.action in ("drop", "confirm")
    open_questions = {i for i, (c, s) in EXAMPLE_MUST_KEEP[session].items() if c == "question" and s == "current"}
    assert set(result.summary["open_question_ids"]) == open_questions
