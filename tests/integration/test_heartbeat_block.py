"""The heartbeat block teaches the agent every line `apollo heartbeat` can print: a verdict the
block does not mention leaves the agent guessing what to do with it."""

import re
from pathlib import Path

import pytest

import apollo.integration
from apollo.renal.check_cache import _VERDICT

BLOCK = Path(apollo.integration.__file__).parent / "templates" / "openclaw" / "HEARTBEAT.block.md"


@pytest.mark.parametrize("lang", sorted(_VERDICT))
@pytest.mark.parametrize("status", ["normal", "watch", "needs_filter"])
def test_block_names_every_verdict(lang: str, status: str) -> None:
    # The fixed words of the verdict, before its bracketed reasons: what the agent sees first.
    words = re.split(r"[（(]", _VERDICT[lang][status])[0].strip()
    assert f"🫘 {words}" in BLOCK.read_text(encoding="utf-8")
