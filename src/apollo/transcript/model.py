"""One in-memory model for every transcript format.

A transcript is a sequence of :class:`Element` (a block of text, thinking, a tool call or
result, a heartbeat poll or reply, a compaction summary, a metadata entry) with stable ids
and links. Readers produce elements; writers never rebuild a file from elements: they copy
the source record by record and apply :class:`Edit` s, so whatever a reader did not
understand passes through byte for byte.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Container, Mapping
from enum import StrEnum
from pathlib import Path

from apollo.errors import UsageError
from apollo.records import field, field_names, slotted

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Kind(StrEnum):
    TEXT = "text"
    THINKING = "thinking"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    HEARTBEAT_POLL = "heartbeat_poll"
    HEARTBEAT_REPLY = "heartbeat_reply"
    COMPACTION = "compaction_summary"
    METADATA = "metadata"


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    SYSTEM = "system"


@slotted()
class Element:
    """One unit the filter can keep, shorten or drop.

    ``text`` is the content as the model reads it, with agent wrappers (OpenClaw's
    ``[Tue 2026-04-07 14:29 GMT+8]`` prefix, ``Sender (untrusted metadata)`` blocks) moved to
    ``envelope``: those are never content, but they still cost tokens.
    """

    id: str
    role: Role
    kind: Kind
    text: str
    index: int = 0
    tokens: int = 0
    envelope: str = ""
    timestamp: str | None = None
    #: id of the element (or entry) this one follows in the conversation tree
    parent: str | None = None
    #: id of the source record (JSONL entry / message) the element was read from
    record_id: str | None = None
    #: line number (1-based) of that record in the source file, for messages and warnings
    line: int | None = None
    #: tool call id shared by a TOOL_CALL and its TOOL_RESULT
    call_id: str | None = None
    tool_name: str | None = None
    speaker: str | None = None
    #: False for elements the model no longer sees (off the active branch, before a compaction)
    in_context: bool = True
    #: where saying the same words again is a repeat: a document's section (the heading or item a
    #: block stands under: "**Status**: done" under two tasks is two facts); None: the whole conversation
    scope: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The element as ``apollo transcript show --json`` lists it (``extra`` is the reader's own)."""
        return {
            "id": self.id, "index": self.index, "role": str(self.role), "kind": str(self.kind),
            "tokens": self.tokens, "in_context": self.in_context, "text": self.text,
            "envelope": self.envelope, "timestamp": self.timestamp, "parent": self.parent,
            "line": self.line, "call_id": self.call_id, "tool_name": self.tool_name,
            "speaker": self.speaker,
        }

    def __getattr__(self, name: str) -> Any:
        """A field of an element made by :func:`deferred`, read for the first time: built now."""
        fill = _DEFERRED.pop(id(self), None)
        if fill is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        fill[1](self)
        return getattr(self, name)


#: id of an element not built yet -> (the element, what builds its fields)
_DEFERRED: dict[int, tuple[Element, Callable[[Element], None]]] = {}


def outside(text: str, spans: list[list[int]] | list[tuple[int, int]]) -> str:
    """``text`` without the [start, end) ``spans`` (ordered, apart), a line break where each was: what a reader marked
    as not the speaker's words (a vision model's description, the runtime's wrapper, a model's answer tags) taken out."""
    pieces, position = [], 0
    for start, end in spans:
        pieces.append(text[position:start])
        position = end
    return "\n".join([*pieces, text[position:]])


def shown(element: Element) -> str:
    """The words of ``element`` its reader sees: the text without what the transcript's reader marked as a model's
    markup (``extra["markup"]``: answer tags, reasoning blocks, reply directives), which the runtime strips before
    anyone reads the reply. What is classified and what a digest quotes."""
    markup = element.extra.get("markup")
    return outside(element.text, markup) if markup else element.text


def deferred(fill: Callable[[Element], None]) -> Element:
    """An element whose fields ``fill`` sets when one of them is first read: an element a caller
    may never look at is not built."""
    element = Element.__new__(Element)
    _DEFERRED[id(element)] = (element, fill)
    return element


class DeferredChanged(Exception):
    """A :func:`deferred` element's source no longer gives the element it stood for."""


def fill_from(element: Element, made: Element) -> None:
    """Give ``element`` (a :func:`deferred` one) ``made``'s fields, but those already set on it."""
    for name in field_names(Element):
        slot = Element.__dict__[name]
        try:
            slot.__get__(element)
        except AttributeError:
            slot.__set__(element, getattr(made, name))


def is_deferred(element: Element) -> bool:
    """Whether ``element`` is a :func:`deferred` one not built yet."""
    return id(element) in _DEFERRED


@slotted()
class ReadWarning:
    """Something wrong with the input that did not stop the read: always with file and line."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.path, "line": self.line, "message": self.message}


@slotted()
class Transcript:
    format: str
    source: Path | None
    elements: list[Element]
    warnings: list[ReadWarning] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def in_context(self) -> list[Element]:
        return [e for e in self.elements if e.in_context]

    @property
    def total_tokens(self) -> int:
        return sum(e.tokens for e in self.elements if e.in_context)

    def totals(self, count: Callable[[str], int]) -> dict[str, Any]:
        """Elements and tokens in context and in all, by kind and by role (largest first), and
        what the envelopes cost (counted with ``count``, the counter that read the transcript)."""
        in_context = self.in_context()
        by_kind: Counter[str] = Counter()
        by_role: Counter[str] = Counter()
        for element in in_context:
            by_kind[str(element.kind)] += element.tokens
            by_role[str(element.role)] += element.tokens
        return {
            "elements": len(self.elements),
            "in_context": len(in_context),
            "tokens": self.total_tokens,
            "tokens_all": sum(e.tokens for e in self.elements),
            "envelope_tokens": sum(count(e.envelope) for e in in_context if e.envelope),
            "by_kind": dict(by_kind.most_common()),
            "by_role": dict(by_role.most_common()),
            "warnings": len(self.warnings),
            "counter": self.meta.get("counter"),
        }


@slotted()
class Edit:
    """What a writer does to one element: drop it, or replace its text (a merge or a shortening).

    ``merged_from`` lists the ids of elements this one now stands for (they are dropped). ``lean``:
    the user's words keep their envelope's stamps and notices, and of its metadata blocks only who,
    where and when (``EnvelopeRules.lean``).
    """

    action: str  # "drop" | "replace"
    text: str | None = None
    merged_from: list[str] = field(default_factory=list)
    note: str | None = None
    lean: bool = False


def dropped_ids(edits: Mapping[str, Edit], known: Container[str], *,
                missing: str = "element(s) not in the transcript") -> set[str]:
    """The ids a set of edits removes: the dropped ones, and those merged into a replacement that
    no edit of their own names. Edits naming an id the file does not have are refused."""
    unknown = [key for key in edits if key not in known]
    if unknown:
        raise UsageError(f"edits name {len(unknown)} {missing}: {', '.join(unknown[:3])}")
    dropped = {key for key, edit in edits.items() if edit.action == "drop"}
    for edit in edits.values():
        dropped.update(m for m in edit.merged_from if m in known and m not in edits)
    return dropped
