"""The specifics a report names (``classify.stance_report_specifics``: ids, ports, versions, paths):
the shipped expression starts a specific only where a run of word characters starts, which finds
what the expression without that anchor finds, in one pass over a long run with no digit."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from apollo.renal.rules import load as load_renal_rules

# the expression as it was before the anchor: every position of a run tried as a start
_UNANCHORED = re.compile(r"[\w.-]*\d[\w.:-]*|(?<![\w/])~?\.{0,2}/[\w.-]+(?:/[\w.-]*)*")


def _found(pattern: re.Pattern[str], text: str) -> list[tuple[int, str]]:
    return [(m.start(), m.group(0)) for m in pattern.finditer(text)]


@given(st.text(alphabet="ab7.-:/~ 配置_\n", max_size=60))
def test_the_anchored_expression_finds_what_the_unanchored_one_finds(text: str) -> None:
    shipped = re.compile(load_renal_rules().settings["stance_report_specifics"])
    assert _found(shipped, text) == _found(_UNANCHORED, text)


def test_examples_of_specifics() -> None:
    shipped = re.compile(load_renal_rules().settings["stance_report_specifics"])
    text = "postgresql 16 runs on port 5433, config in ~/app/db.yaml, build v2.1-rc3, 版本是v2 配置完成"
    assert [m.group(0) for m in shipped.finditer(text)] == ["16", "5433", "~/app/db.yaml", "v2.1-rc3", "版本是v2"]
