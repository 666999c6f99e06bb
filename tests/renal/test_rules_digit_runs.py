"""Patterns that start with a run of digits read it from its first digit (`(?<!\\d)\\d+`): the same
matches as the pattern without that anchor, found in one pass over a long run of digits (the
unanchored pattern tried every digit of a 20,000-digit run as a start: 17 s)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import apollo

_FILTER = tomllib.loads((Path(apollo.__file__).parent / "renal/rules/filter.toml").read_text(encoding="utf-8"))["filter"]
_ANCHORED = [p for p in (*_FILTER["specific"], *_FILTER["reabsorb"]["patterns"]) if "(?<!\\d)\\d+" in p]


def test_the_digit_run_patterns_are_the_ones_expected() -> None:
    assert len(_ANCHORED) == 2  # the Chinese time words of `specific`, the Chinese amounts of `reabsorb`


@pytest.mark.parametrize("pattern", _ANCHORED)
@given(text=st.text(alphabet="12.5 元个天年前%x", max_size=40))
def test_an_anchored_digit_run_finds_what_the_unanchored_one_finds(pattern: str, text: str) -> None:
    anchored, unanchored = re.compile(pattern, re.I), re.compile(pattern.replace("(?<!\\d)", ""), re.I)
    assert [(m.start(), m.group()) for m in anchored.finditer(text)] == \
        [(m.start(), m.group()) for m in unanchored.finditer(text)]
