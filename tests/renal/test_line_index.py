"""The line index of an old tool output finds only what a later message asks about, and finds the
same lines as reading every token of every line would (which is what it replaced: most of a check's
time went into indexing outputs no message ever mentions)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from apollo.renal import concentrate

ANCHORS = concentrate.load_for(None).anchors
#: letters of both cases, digits, the token's inner punctuation, Chinese, and characters whose
#: lower case is longer (İ) or ASCII (the Kelvin sign)
ALPHABET = "aAbBkK019_.-/:@# \n\t测试部署服务器日志端口İK"


def reference(text: str, said_rounds: list[set[str]]) -> dict[int, tuple[int, str]]:
    """The index as it was: every line's anchors read at once (ties broken in sorted order, as the
    index does: by set order they went one way or the other with the process's hash seed)."""
    index: dict[str, list[int]] = {}
    for number, line in enumerate(text.split("\n")):
        for anchor in ANCHORS.of(line):
            index.setdefault(anchor, []).append(number)
    lines = text.count("\n") + 1
    limit = max(1, int(lines * ANCHORS.max_share)) if lines > 8 else lines
    mentioned: dict[int, tuple[int, str]] = {}
    for said in said_rounds:
        for anchor in sorted(said & index.keys()):
            where = index[anchor]
            if len(where) > limit:
                continue
            for number in where:
                known = mentioned.get(number)
                if known is None or len(where) < known[0]:
                    mentioned[number] = (len(where), anchor)
    return mentioned


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=400), st.lists(st.text(alphabet=ALPHABET, max_size=80), max_size=4))
def test_the_lines_found_are_those_of_reading_every_line(output: str, later: list[str]) -> None:
    rounds = [ANCHORS.of(message) for message in later] + [ANCHORS.of(output[: len(output) // 2])]
    index = concentrate.LineIndex.of(output, ANCHORS)
    for said in rounds:
        index.mention(said, ANCHORS, output)
    assert index.mentioned == reference(output, rounds)


def test_an_output_no_message_mentions_is_never_read_token_by_token() -> None:
    output = "\n".join(f"2026-04-07 12:00:{n:02d} worker-{n} job_{n * 7} done" for n in range(60))
    index = concentrate.LineIndex.of(output, ANCHORS)
    index.mention(ANCHORS.of("thanks, looks fine"), ANCHORS, output)
    assert index.anchors == {} and index.mentioned == {}
    index.mention(ANCHORS.of("why did job_91 take so long?"), ANCHORS, output)
    assert index.mentioned == {13: (1, "job_91")}
    assert set(index.anchors) == {"job_91"}  # only what was asked about
