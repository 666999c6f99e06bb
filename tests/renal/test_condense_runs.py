"""The separators and blanks a shortened text ends with go as before, read from the start of their run
only (the expression that tried every dash of a run read 40,000 dashes to their end 40,000 times:
29 s). How the time grows is measured by `make bench` (`renal_filter_run_exponent`)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from apollo.renal import condense

#: the expression as it was: every character a start
_EVERY_START = re.compile(r"[ \t]*[,;:，；：、\-–—]+[ \t]*$")


@given(st.text(alphabet="a -\t,—–：、;\nx.", max_size=24))
def test_a_dangling_separator_goes_as_the_expression_trying_every_start_took_it(text: str) -> None:
    assert re.sub(condense._DANGLING_SEPARATOR, "", text) == _EVERY_START.sub("", text)


def test_a_dangling_run_of_dashes_goes_whole_and_the_words_before_it_stay() -> None:
    assert re.sub(condense._DANGLING_SEPARATOR, "", "we ship on Friday " + "-" * 40_000) == "we ship on Friday"
    assert re.sub(condense._DANGLING_SEPARATOR, "", "a - b ——") == "a - b"

