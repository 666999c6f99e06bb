"""Where an OpenClaw rule reads a run of blanks (the blank lines before the "[System: …]" lines a
channel appends, the spaces around a reply directive), it reads it from the run's start only: the
same matches as the expressions that tried every blank of the run as a start, found in one pass
(the first read a message of 40,000 newlines 40,000 times: 42 s). How the time grows is measured by
`make bench` (`renal_filter_run_exponent`), not here: these tests hold the results to what they were."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

import apollo
from apollo.transcript.openclaw_rules import rules

_RULES = tomllib.loads((Path(apollo.__file__).parent / "data/transcript_openclaw.toml").read_text(encoding="utf-8"))
_SUFFIXES = _RULES["envelope"]["suffixes"]
_DIRECTIVES = [re.compile(p, re.IGNORECASE) for p in _RULES["assistant"]["reply_directives"]]
#: the expression as it was, each start tried
_EVERY_START = re.compile(r"(?:\n[ \t]*)+\[System: [^\]\n]*\][ \t]*(?:(?:\n[ \t]*)+\[System: [^\]\n]*\][ \t]*){0,7}\n*$")
_PIECES = st.sampled_from(["\n", "\n\n", " ", "\t", "a", "好", "]", "[System: x]", "[System: mention tags] ", "[System: y",
                          "[message_id: 5]", "\n[System: z]"])


def _at_group() -> re.Pattern[str]:
    found = [re.compile(p) for p in _SUFFIXES if "(?P<at>" in p and "[System: " in p]
    assert len(found) == 1  # the "[System: …]" lines
    return found[0]


@given(pieces=st.lists(_PIECES, max_size=14))
def test_the_suffix_starts_where_the_expression_trying_every_start_finds_it(pieces: list[str]) -> None:
    text = "".join(pieces)
    ours, theirs = _at_group().search(text), _EVERY_START.search(text)
    assert (ours is None) == (theirs is None)
    if ours and theirs:
        assert (ours.start("at"), ours.end()) == (theirs.start(), theirs.end())


def test_a_message_split_keeps_the_users_trailing_spaces_and_the_notices_apart() -> None:
    envelope = rules()
    text = "please summarise the report  \n\n[System: The content may include mention tags]\n[System: reply in thread]"
    prefix, content, suffix = envelope.split(text)
    assert (prefix, content) == ("", "please summarise the report  ")
    assert suffix == "\n\n[System: The content may include mention tags]\n[System: reply in thread]"
    blank = "look at this" + "\n" * 5000 + "end\n[System: x]"
    assert envelope.split(blank) == ("", "look at this" + "\n" * 5000 + "end", "\n[System: x]")


#: the reply directives' expression as it was: each blank of a run tried as a start
_DIRECTIVE_EVERY_START = re.compile(r"[ \t]*\[\[\s*(?:reply_to_current|reply_to\s*:\s*[^\]\n]+|audio_as_voice)\s*\]\][ \t]*",
                                    re.IGNORECASE)  # the same wherever a message id is at most 200 characters
_REPLY_PIECES = st.sampled_from([" ", "\t", "  ", "\n", "x", "[[", "]]", "[[reply_to_current]]", "[[ REPLY_TO_CURRENT ]]",
                                "[[reply_to: 42]]", "[[audio_as_voice]]", "reply_to_current", "好"])


@given(pieces=st.lists(_REPLY_PIECES, max_size=14))
def test_reply_directives_go_as_the_expression_trying_every_start_took_them(pieces: list[str]) -> None:
    """The gateway's tags are removed with the blanks around them, as before, and a run of blanks is
    read from its start only (the expression that tried every blank read a 40,000-space run 40,000 times)."""
    text = "".join(pieces)
    assert len(_DIRECTIVES) == 1
    assert [m.span() for m in _DIRECTIVES[0].finditer(text)] == [m.span() for m in _DIRECTIVE_EVERY_START.finditer(text)]
    assert rules().without_directives(text) == (_DIRECTIVE_EVERY_START.sub(" ", text) if "[[" in text else text)
