"""Fenced code in Markdown text, read one way by every module that must not take code for prose.

A line of three or more backticks or tildes opens a block (indented too: a fence nested in a list
item is one); only a fence of the same character, at least as long, with nothing after it closes it,
so a "~~~" or "```python" line inside a block is code (CommonMark's rule). One never closed runs to
the end of the text.
"""

from __future__ import annotations

import re

_FENCE_LINE = re.compile(r"[ \t]*(`{3,}|~{3,})(.*)")


def opening_fence(line: str) -> str:
    """The fence ``line`` opens a code block with ("```", "~~~~", …), or "" (a backtick fence's info
    string holds no backtick: "```a`b" is prose)."""
    found = _FENCE_LINE.fullmatch(line.rstrip("\r\n"))
    if found is None or (found.group(1)[0] == "`" and "`" in found.group(2)):
        return ""
    return found.group(1)


def closes(line: str, fence: str) -> bool:
    """``line`` closes the block ``fence`` opened."""
    found = _FENCE_LINE.fullmatch(line.rstrip("\r\n"))
    return (found is not None and found.group(1)[0] == fence[0] and len(found.group(1)) >= len(fence)
            and not found.group(2).strip())


def block_end(lines: list[str], start: int) -> int:
    """The index of the line closing the block ``lines[start]`` opens, or the last line's."""
    fence = opening_fence(lines[start])
    return next((at for at in range(start + 1, len(lines)) if closes(lines[at], fence)), len(lines) - 1)


def code_lines(lines: list[str]) -> list[bool]:
    """Which ``lines`` belong to a fenced code block (its fences included)."""
    code: list[bool] = []
    fence = ""
    for line in lines:
        if fence:
            code.append(True)
            if closes(line, fence):
                fence = ""
        else:
            fence = opening_fence(line)
            code.append(bool(fence))
    return code
