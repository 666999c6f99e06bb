"""The agent's "：优先使用 …" reads at most 20 marks or blanks after a colon or 我 (`\\W{0,20}`): the same
matches as the unbounded `\\W*` wherever the run between is that short, and one pass over a long run
of colons (the unbounded one read a 40,000-colon reply to its end from every colon: 25 s)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

import apollo

_INTENT = tomllib.loads((Path(apollo.__file__).parent / "renal/rules/intent.toml").read_text(encoding="utf-8"))["signal"]
_BOUNDED = [p for p in _INTENT["commitment"]["patterns"] if "\\W{0,20}" in p]


def test_the_bounded_run_is_the_one_expected() -> None:
    assert len(_BOUNDED) == 1


@given(pieces=st.lists(st.sampled_from([":", "：", " ", "\n", "*", "-", "我", "我会", "优先", "用", "使用", "写", "a"]), max_size=12))
def test_the_bounded_run_finds_what_the_unbounded_one_finds(pieces: list[str]) -> None:
    text = "".join(pieces)  # at most 12 pieces: no run between longer than the bound
    bounded = re.compile(_BOUNDED[0], re.IGNORECASE | re.MULTILINE)
    unbounded = re.compile(_BOUNDED[0].replace("\\W{0,20}", "\\W*"), re.IGNORECASE | re.MULTILINE)
    assert [m.span() for m in bounded.finditer(text)] == [m.span() for m in unbounded.finditer(text)]


def test_a_commitment_after_a_colon_is_still_read() -> None:
    from apollo.renal import reading
    from apollo.renal.rules import load

    found = reading.read("解决方案：  优先使用 write 重写整个文件", "assistant", load()).found
    assert "commitment" in found
