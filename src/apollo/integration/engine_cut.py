"""Old tool output cut at a compaction point: what the filter does to it, where the engine can.

The file filter's biggest saving is old tool output: its first line and the lines later messages
mention stay, the rest is one marker (:func:`apollo.renal.concentrate.trim_output`). The engine
cannot cut an output when it first sees it (it is fresh then, and the agent works from it) nor
a turn later (the cut would change the prompt's prefix every turn, and the provider's cache with
it). A compaction point rewrites the prefix anyway: there the old outputs are cut first, before
anything is evicted whole (issue 16's order: old tool output, then noise and process, must-keep
last), and the cut bodies are stored, so the prefix is stable again from the next turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

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


def mentioned_after(outputs: Sequence[tuple[int, str]], later: Sequence[tuple[int, str]],
                    rules: concentrate.FilterRules) -> dict[int, concentrate.LineIndex]:
    """Each output's lines indexed, with the lines the user's and the agent's later words name
    (``outputs`` and ``later``, the user's and the agent's texts, as (seq, text) in order).

    One pass from the newest message back: each output is asked once about every anchor said after
    it, instead of once per later message (the filter's stream, which cannot look ahead)."""
    anchors = rules.anchors
    said_after: set[str] = set()
    indexes: dict[int, concentrate.LineIndex] = {}
    position = len(later)
    for seq, text in sorted(outputs, reverse=True):
        while position and later[position - 1][0] > seq:
            position -= 1
            said_after |= anchors.of(later[position][1])
        index = concentrate.LineIndex.of(text, anchors)
        if said_after:
            index.mention(said_after, anchors, text)
        indexes[seq] = index
    return indexes


def cut_body(body: dict[str, Any], text: str, index: concentrate.LineIndex, rules: concentrate.FilterRules,
             lang: str, tokens: int, pointer: str) -> dict[str, Any]:
    """The message with its text cut as the filter cuts an old output, and ``pointer`` (how to get
    it back whole) after the marker; every other field as it was (the call id pairs it with its call)."""
    head, mentioned = concentrate.trim_output(text, index, rules)
    marker = f"{concentrate.output_marker(rules, lang, index.lines, tokens)} {pointer}"
    return {**body, "content": [{"type": "text", "text": concentrate.join_trimmed(head, marker, mentioned)}]}


def cuts(candidates: Sequence[tuple[int, dict[str, Any]]], later: Sequence[tuple[int, str]],
         rules: concentrate.FilterRules, lang: str, count: Callable[[str], int],
         pointer: Callable[[int], str]) -> dict[int, tuple[dict[str, Any], int]]:
    """(seq, body) of old tool results -> their cut body and its text's tokens, for those the cut
    makes shorter; ``later`` as :func:`mentioned_after` reads it."""
    texts = {seq: text for seq, body in candidates if (text := text_of(body)) is not None}
    indexes = mentioned_after(list(texts.items()), later, rules)
    found: dict[int, tuple[dict[str, Any], int]] = {}
    for seq, body in candidates:
        text = texts.get(seq)
        if text is None:
            continue
        before = count(text)
        shortened = cut_body(body, text, indexes[seq], rules, lang, before, pointer(seq))
        after = count(shortened["content"][0]["text"])
        if after < before:
            found[seq] = (shortened, after)
    return found

