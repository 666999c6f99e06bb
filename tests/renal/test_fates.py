"""One definition, one number: the check, the filter's report and the classifier's summary give the
same information density and saving, because all three come from the fate stream
(apollo.renal.fates) — on the example sessions, on labeled fixtures, and on any transcript (hypothesis)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apollo import config as config_mod
from apollo.renal import api, classify, concentrate, fates
from apollo.renal.check import check
from apollo.renal.condense import Condenser
from apollo.renal.filter import filter_path
from apollo.tokens import estimate, exact_available
from apollo.workspace import Paths
from renal.test_classify_properties import _ELEMENT, _unique

SESSIONS = "openclaw-state/agents/main/sessions"
EXAMPLE_SESSIONS = ("93781619-6e2f-4b2c-8c02-4f91cb6c9962.jsonl", "ff090b09-8eb0-4818-b64e-3c9f7c58b33a.jsonl")
FIXTURES = Path(__file__).parent / "fixtures"


def _streamed(elements: list, config: object | None = None) -> fates.Measure:
    """What the check measures: the classifier's verdicts as they stream, nothing held."""
    stream = fates.FateStream.for_config(config, estimate, retain=False)
    classify.run(elements, config, retain=False, observe=stream.observe)
    return stream.finish()


def _filtered(elements: list, config: object | None = None) -> tuple[list[fates.Fate], fates.Measure]:
    """What the filter decides: the final verdicts, every fate kept."""
    rules = concentrate.load_for(config)
    verdicts = classify.classify(elements, config)
    in_context = [e for e in elements if e.in_context]
    return fates.decide(elements, verdicts, rules, Condenser(rules.condense), estimate, fates.language_of(in_context))


@pytest.mark.parametrize("session", EXAMPLE_SESSIONS)
def test_check_filter_and_classify_report_the_same_density_and_saving(example: Path, session: str) -> None:
    source = example / SESSIONS / session
    config = config_mod.load(example / "workspace")
    measured = check(Paths.resolve(example / "workspace", example / "openclaw-state"), config, source)
    report = filter_path(source, config=config, dry_run=True, workspace=example / "workspace").report
    summary = api.classify_path(source, "auto", config).summary
    assert measured.tokens == report["before"]["tokens"] == summary["tokens"] > 5000
    assert round(measured.density, 4) == report["before"]["density"] == summary["density"] < 1.0
    assert round(measured.estimated_saving, 4) == report["saving"] == summary["estimated_saving"] > 0.1


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.jsonl")))
def test_the_measure_is_what_the_fates_add_up_to(name: str) -> None:
    from apollo.transcript import read

    elements = read(FIXTURES / name).in_context()
    decided, measure = _filtered(elements)
    assert measure.tokens == sum(f.element.tokens for f in decided)
    assert measure.after == sum(f.tokens_after for f in decided)
    assert measure.waste == sum(f.element.tokens for f in decided
                                if f.action == "drop" and f.bucket in fates.WASTE_BUCKETS)
    assert _streamed(elements) == measure


def test_a_budget_does_not_change_the_density_before(tmp_path: Path) -> None:
    """Density is the input's, by the default filter; a budget only changes "after" (a budget
    counts with the exact o200k counter when it is installed, so the default run does too here)."""
    (tmp_path / ".apollo").mkdir()
    counter = "exact" if exact_available() else "estimate"
    (tmp_path / ".apollo" / "config.toml").write_text(f'[general]\ncounter = "{counter}"\n', encoding="utf-8")
    config = config_mod.load(tmp_path)
    source = FIXTURES / "zh_heartbeat_noise.jsonl"
    default = filter_path(source, config=config, dry_run=True, workspace=tmp_path).report
    budgeted = filter_path(source, config=config, dry_run=True, workspace=tmp_path, budget=40).report
    assert budgeted["before"] == default["before"] and default["before"]["density"] < 1.0
    assert budgeted["after"]["tokens"] <= 40 < default["after"]["tokens"]


def test_a_repeated_tool_call_with_new_output_counts_as_kept_in_the_check() -> None:
    """The one verdict revision that changes tokens: an identical call whose output differs."""
    from apollo.transcript.model import Kind
    from renal.support_classify import conversation, element

    turns = conversation(("user", "看一下磁盘"), element("c1", "assistant", '{"cmd": "df -h"}', Kind.TOOL_CALL,
                                                       call_id="a", tool_name="exec"),
                         element("r1", "tool", "/dev/sda1 80%", Kind.TOOL_RESULT, call_id="a"),
                         element("c2", "assistant", '{"cmd": "df -h"}', Kind.TOOL_CALL, call_id="b",
                                 tool_name="exec"),
                         ("user", "好的"), ("user", "再看看"), ("user", "好"),
                         element("r2", "tool", "/dev/sda1 95%", Kind.TOOL_RESULT, call_id="b"),
                         ("user", "收到"), ("user", "谢谢"))
    decided, measure = _filtered(turns)
    assert next(f for f in decided if f.element.id == "c2").action == "keep"  # not a repeat after all
    assert _streamed(turns) == measure


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_ELEMENT, max_size=30).map(_unique))
def test_the_streamed_measure_equals_the_filters_on_any_transcript(elements: list) -> None:
    decided, measure = _filtered(elements)
    assert _streamed(elements) == measure
    assert 0 <= measure.waste <= measure.tokens and measure.after >= 0
    assert [f.element.id for f in decided] == [e.id for e in elements if e.in_context]
