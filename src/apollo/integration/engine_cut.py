"""Old tool output cut at a compaction point: what the filter does to it, where the engine can.

The file filter's biggest saving is old tool output: its first line and the lines later messages
mention stay, the rest is one marker (:func:`apollo.renal.concentrate.cut_old_output`); an old
tool call's long arguments (a file written whole, a long script) keep their head
(:func:`apollo.renal.concentrate.cut_arguments`). The engine
does not cut an output while the agent may still work from it (within the recent turns) nor as
soon as it leaves them (the cut would change the prompt's prefix every turn, and the provider's
cache with it). A compaction point rewrites the prefix anyway: there the outputs outside the units
it protects are cut first, before anything is evicted whole (issue 16's order: old tool output,
then noise and process, must-keep last), and the cut content is stored, so the prefix is stable
again from the next turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import orjson

from apollo.renal import concentrate

#: a message whose content holds anything but text (an image) stays whole: its text alone is not the message
_CUTTABLE_BLOCKS = frozenset({"text"})


def text_of(body: dict[str, Any]) -> str | None:
    """A tool result's text when it is nothing but text (None otherwise)."""
    content = body.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list) or not content:
        return None
    parts = []
    for block in content:
        if not isinstance(block, dict) or block.get("type") not in _CUTTABLE_BLOCKS or not isinstance(block.get("text"), str):
            return None
        parts.append(block["text"])
    return "\n".join(parts)


def pointer(rules: concentrate.FilterRules, lang: str, seq: int) -> str:
    """What follows a cut's marker: how the agent gets message ``m<seq>`` back whole, in its language."""
    return rules.settings["tool_recall_zh" if lang == "zh" else "tool_recall_en"].format(id=f"m{seq}")


def cut_calls(body: dict[str, Any], rules: concentrate.FilterRules, lang: str, seq: int) -> list[dict[str, Any]] | None:
    """An old assistant message's (``m<seq>``) content with each tool call's long arguments cut as
    the filter cuts them, the :func:`pointer` after each marker; every other block, and each call's
    id and name, as they were. None when nothing is cut."""
    content = body.get("content")
    if not isinstance(content, list):
        return None
    made, changed = [], False
    for block in content:
        if isinstance(block, dict) and block.get("type") == "toolCall" and isinstance(block.get("arguments"), dict):
            shortened = concentrate.cut_arguments(orjson.dumps(block["arguments"]).decode(), rules,
                                                  pointer(rules, lang, seq))
            if shortened is not None:
                block, changed = {**block, "arguments": orjson.loads(shortened)}, True
        made.append(block)
    return made if changed else None


def cuts(outputs: Sequence[tuple[int, str]], later: Sequence[tuple[int, str]], rules: concentrate.FilterRules,
         lang: str, count: Callable[[str], int]) -> dict[int, tuple[list[dict[str, Any]], int]]:
    """Old tool results' texts, as (seq, text) -> the content the model gets instead and its tokens,
    for those the cut makes shorter. ``later`` holds the user's and the agent's texts as (seq, text)
    in order: an output keeps the lines that what was said after it names. One pass from the newest
    back, so each output is asked once about every anchor said after it."""
    anchors = rules.anchors
    said_after: set[str] = set()
    position = len(later)
    found: dict[int, tuple[list[dict[str, Any]], int]] = {}
    for seq, text in sorted(outputs, reverse=True):
        while position and later[position - 1][0] > seq:
            position -= 1
            said_after |= anchors.of(later[position][1])
        before = count(text)
        shortened = concentrate.cut_old_output(text, said_after, rules, lang, before, pointer(rules, lang, seq))
        after = count(shortened)
        if after < before:
            found[seq] = ([{"type": "text", "text": shortened}], after)
    return found
