"""A daily memory file's blocks (:mod:`apollo.transcript.markdown`): a line of bold text alone is a label
however many spaces follow its closing mark, and matches the lines it matched before they were read once."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from apollo.transcript import markdown
from apollo.transcript.markdown import parse_blocks

#: the label as it was before the spaces after its closing mark were read once (helper-169)
_LABEL_BEFORE = re.compile(r"[ \t]*(\*\*|__)[^*_\n]+\1(?:[ \t]*[:：]?|[^\n]*[:：])[ \t]*")


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["**", "__", "*", "_", "a", "x", " ", "\t", ":", "：", "\n"]), max_size=30).map("".join))
def test_a_label_is_the_same_with_its_spaces_read_once(line: str) -> None:
    before, after = _LABEL_BEFORE.fullmatch(line), markdown._LABEL.fullmatch(line)
    assert (before and (before.span(), before.groups())) == (after and (after.span(), after.groups()))


def test_a_bold_line_with_a_long_run_of_spaces_is_read_whole() -> None:
    """"**a**", 64k spaces and a word is a paragraph, with a colon a label (split between two runs: 17 s)."""
    for tail, kind in (("x", "paragraph"), ("：", "label")):
        lines = ["# 2026-11-01\n", "\n", "**a**" + " " * 65_536 + tail + "\n", "\n", "- item\n"]
        assert [block.kind for block in parse_blocks(lines)] == ["heading", kind, "item"]
