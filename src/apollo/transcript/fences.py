"""Fenced code in Markdown text, read one way by every module that must not take code for prose.

A line of three or more backticks or tildes opens a block (indented too: a fence nested in a list
item is one); only a fence of the same character, at least as long, with nothing after it closes it,
so a "~~~" or "```python" line inside a block is code (CommonMark's rule). One never closed fences
nothing but its own line (CommonMark runs it to the end of the text, but a nested fence an agent got
wrong would then hide every later heading and decision of a memory file as code, for a budget to drop).
"""

from __future__ import annotations

import functools
import re


@functools.cache
def _fence_line() -> re.Pattern[str]:
    """Compiled when a line is first read for a fence: a heartbeat's appended message seldom is."""
    return re.compile(r"[ \t]*(`{3,}|~{3,})(.*)")


def opening_fence(line: str) -> str:
    """The fence ``line`` opens a code block with ("```", "~~~~", …), or "" (a backtick fence's info
    string holds no backtick: "```a`b" is prose)."""
    found = _fence_line().fullmatch(line.rstrip("\r\n"))
    if found is None or (found.group(1)[0] == "`" and "`" in found.group(2)):
        return ""
    return found.group(1)


def _closing_run(line: str) -> str:
    """The run of backticks or tildes ``line`` is made of, with nothing after it ("" when it is none):
    what closes a block opened by as many of the same character or fewer."""
    found = _fence_line().fullmatch(line.rstrip("\r\n"))
    return found.group(1) if found is not None and not found.group(2).strip() else ""


def closes(line: str, fence: str) -> bool:
    """``line`` closes the block ``fence`` opened."""
    return _run_closes(_closing_run(line), fence)


def _run_closes(run: str, fence: str) -> bool:
    return run[:1] == fence[0] and len(run) >= len(fence)


class FencedCode:
    """Where each fenced block of ``lines`` ends, found in time linear in the lines: each line's
    closing run is read once, when the first block opens (most texts have none), and from those runs
    the longest of each character at or after every line, which says whether any closer lies ahead."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self._runs: list[str] | None = None
        self._longest: dict[str, list[int]] = {}

    def _read(self) -> list[str]:
        if self._runs is None:
            self._runs = [_closing_run(line) for line in self.lines]
            longest = {"`": [0] * (len(self.lines) + 1), "~": [0] * (len(self.lines) + 1)}
            for at in range(len(self.lines) - 1, -1, -1):
                for after in longest.values():
                    after[at] = after[at + 1]
                if run := self._runs[at]:
                    after = longest[run[0]]
                    after[at] = max(after[at], len(run))
            self._longest = longest
        return self._runs

    def end(self, start: int, fence: str) -> int:
        """The index of the line closing the block ``fence`` (``opening_fence(lines[start])``) opens,
        or ``start`` when none does."""
        runs = self._read()
        if self._longest[fence[0]][start + 1] < len(fence):
            return start
        return next(at for at in range(start + 1, len(runs)) if _run_closes(runs[at], fence))


def code_lines(lines: list[str]) -> list[bool]:
    """Which ``lines`` belong to a fenced code block (its fences included)."""
    code = [False] * len(lines)
    if not any("```" in line or "~~~" in line for line in lines):  # most messages: no line read for a fence
        return code
    fenced = FencedCode(lines)
    at = 0
    while at < len(lines):
        if fence := opening_fence(lines[at]):
            end = fenced.end(at, fence)
            code[at:end + 1] = [True] * (end + 1 - at)
            at = end
        at += 1
    return code
