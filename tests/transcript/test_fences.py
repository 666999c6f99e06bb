"""One reading of fenced code for the Markdown parser, the digest and the cutter."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from apollo.renal import concentrate, digest
from apollo.transcript import markdown
from apollo.transcript.fences import FencedCode, code_lines, opening_fence

_PROSE = st.text(alphabet=st.sampled_from(list("ab #-*`~ 中")), max_size=12).filter(lambda line: not opening_fence(line))


@st.composite
def documents(draw: st.DrawFn) -> tuple[list[str], list[bool], list[tuple[int, int]]]:
    """Prose lines and closed fenced blocks whose inner lines hold shorter fences, the other
    character's fences and fences with an info string: the expected code flags and each block's
    first and last line beside them."""
    lines: list[str] = []
    code: list[bool] = []
    spans: list[tuple[int, int]] = []
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            prose = draw(st.lists(_PROSE, max_size=3))
            lines += prose
            code += [False] * len(prose)
            continue
        char, size = draw(st.sampled_from("`~")), draw(st.integers(3, 5))
        other = "~" if char == "`" else "`"
        inner = draw(st.lists(st.one_of(_PROSE, st.just(char * (size - 1)), st.just(other * size),
                                        st.just(char * size + "python")), max_size=4))
        lines += [" " * draw(st.integers(0, 4)) + char * size + draw(st.sampled_from(["", "text", " sh"])),
                  *inner, char * draw(st.integers(size, size + 2))]
        code += [True] * (len(inner) + 2)
        spans.append((len(lines) - len(inner) - 2, len(lines) - 1))
    return lines, code, spans


@given(documents())
def test_code_lines_are_exactly_the_fenced_blocks(document: tuple[list[str], list[bool], list[tuple[int, int]]]) -> None:
    lines, expected, _ = document
    assert code_lines(lines) == expected


@given(documents())
def test_a_block_ends_on_its_own_closing_fence(document: tuple[list[str], list[bool], list[tuple[int, int]]]) -> None:
    lines, _, spans = document
    assert [(start, FencedCode(lines).end(start, opening_fence(lines[start]))) for start, _ in spans] == spans


def test_an_inline_backtick_run_and_a_prose_line_open_nothing() -> None:
    assert opening_fence("```a`b```") == ""
    assert opening_fence("use ``` to fence code") == ""
    assert opening_fence("  ~~~~ toml") == "~~~~"
    assert code_lines(["```", "x", "``` not a close", "~~~", "y"]) == [True, False, True, True, False]
    assert code_lines(["```", "x", "`````", "y"]) == [True, True, True, False]


def test_a_memory_file_keeps_a_longer_fence_whole() -> None:
    """Four backticks around an example that holds "```python": one code block to the fourth."""
    lines = ["# Notes\n", "````md\n", "```python\n", "print(1)\n", "```\n", "````\n", "- item\n"]
    blocks = markdown.parse_blocks(lines)
    assert [(b.kind, b.start, b.end) for b in blocks] == [("heading", 0, 1), ("code", 1, 6), ("item", 6, 7)]


def test_a_tilde_line_inside_a_backtick_block_hides_no_heading_from_the_empty_section_pass() -> None:
    """'## Open TODOs' inside code is the code's; the '~~~' before it closes nothing."""
    text = "## Done\nx\n```\n~~~\n## Open TODOs\nNone.\n```\n## Open TODOs\nNone."
    pattern = re.compile(r"^None\.$")
    assert digest.without_empty_sections(text, [pattern]) == "## Done\nx\n```\n~~~\n## Open TODOs\nNone.\n```"


def test_the_cutter_ends_after_a_block_a_longer_fence_closes() -> None:
    still_open, closed = concentrate._fences("````\n```\nx\n````\ntail")
    assert (still_open, closed) == ("", len("````\n```\nx\n````\n"))
    assert concentrate._fences("```\n~~~\nx")[0] == "```"


def test_a_fence_never_closed_hides_no_later_heading_or_item() -> None:
    """A nested fence written wrong leaves its last ``` unclosed: the decisions after it stay prose."""
    lines = ["# Notes\n", "```markdown\n", "```python\n", "print('x')\n", "```\n", "```\n", "\n",
             "## Decisions\n", "- We move the database to Postgres on Friday.\n"]
    blocks = markdown.parse_blocks(lines)
    assert [(b.kind, b.start, b.end) for b in blocks] == [
        ("heading", 0, 1), ("code", 1, 5), ("code", 5, 6), ("heading", 7, 8), ("item", 8, 9)]


@given(documents(), st.lists(_PROSE, max_size=3), st.sampled_from(["```", "~~~~", "```python"]))
def test_an_unclosed_fence_at_the_end_fences_only_itself(
        document: tuple[list[str], list[bool], list[tuple[int, int]]], after: list[str], fence: str) -> None:
    lines, expected, _ = document
    assert code_lines([*lines, fence, *after]) == [*expected, True] + [False] * len(after)
