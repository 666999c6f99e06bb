"""A run compiles only the signals it meets: loading the rules compiles no signal's regular
expression, and a signal's first search compiles that one, matching as ``re.compile`` would."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from apollo.renal import rules


def test_loading_the_rules_compiles_no_signal_and_a_search_compiles_only_its_own() -> None:
    rules._build.cache_clear()
    loaded = rules.load()
    lazy = [s.regex for s in loaded.signals.values() if s.regex is not None]
    assert lazy and not any(pattern.is_compiled for pattern in lazy)
    decision = loaded["decision"]
    decision.search("we decided to ship on Monday")
    assert decision.regex is not None and decision.regex.is_compiled
    assert sum(pattern.is_compiled for pattern in lazy) == 1


@settings(deadline=None)  # the first example may build the rules, when no test of the run has yet
@given(text=st.text(alphabet="abcdefghijklmnopqrstuvwxyz 好的决定了，.?!\n", max_size=80))
def test_a_signal_finds_what_its_compiled_expression_finds(text: str) -> None:
    for signal in rules.load().signals.values():
        if signal.regex is not None:
            found = signal.search(text)
            expected = re.compile(signal.regex.pattern, signal.regex.flags).search(text)
            assert (found and found.span()) == (expected and expected.span())
