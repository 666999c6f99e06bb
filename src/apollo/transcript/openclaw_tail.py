"""Reading only what was appended to an OpenClaw / pi session since an earlier read of it.

A session grows by appending entries. When the bytes the earlier read consumed are still the
file's first bytes (the same size and SHA-256: a rewritten, cut or edited file is read whole) and
every appended entry simply continues the conversation — a new id whose parent is the current
leaf, not a compaction, reset, leaf move, side entry or second header, and nothing a reader warns
about — the earlier entries' elements are exactly what they were, ids, places and whether the model
sees them included: the appended entries' elements are all that is new. Anything else: None, and
the caller reads the session whole.

The earlier elements a caller still holds are read again from their own line (:meth:`Tail.spot`),
so that nothing of a message has to be kept anywhere else.
"""

from __future__ import annotations

import functools
from pathlib import Path

from apollo import jsonline
from apollo.transcript.base import HUGE_RECORD_BYTES, Counter
from apollo.transcript.model import DeferredChanged, Element, deferred, fill_from
from apollo.transcript.openclaw_read import Tail, entry_elements, placed
from apollo.transcript.openclaw_rules import BOUNDARIES, rules

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, BinaryIO

#: entry types that change what the model sees of the earlier entries, or are not entries
_NOT_A_CONTINUATION = ("session", "leaf", *BOUNDARIES)


def read_appended(path: Path, state: tuple[Any, ...], spots: dict[int, tuple[Any, ...]], count: Counter,
                  expected: Callable[[int, Element], bool]) -> tuple[dict[int, Element], list[Element], Tail] | None:
    """The elements ``spots`` name (by position) read again (built when first looked at, and then
    checked by ``expected``), the appended entries' elements, and where this read stops; None when
    the session did not only grow (see the module's docstring)."""
    tail = Tail(state)
    with path.open("rb") as handle:
        if not _same_prefix(handle, tail):
            return None
        appended = handle.read()
        held = _held(handle, spots, tail, expected)
    if not appended.endswith(b"\n") and appended:
        return None
    tail.hasher.update(appended)
    elements = _appended(appended, tail, count)
    if elements is None:
        return None
    tail.digest = tail.hasher.digest()
    return held, elements, tail


def _same_prefix(handle: BinaryIO, tail: Tail) -> bool:
    """Whether the file still starts with the bytes the earlier read consumed (hashed into ``tail``)."""
    remaining = tail.offset
    while remaining:
        chunk = handle.read(min(remaining, 1 << 20))
        if not chunk:
            return False
        tail.hasher.update(chunk)
        remaining -= len(chunk)
    return tail.hasher.digest() == tail.digest


def _held(handle: BinaryIO, spots: dict[int, tuple[Any, ...]], tail: Tail,
          expected: Callable[[int, Element], bool]) -> dict[int, Element]:
    """Each spot's element, built again from its line as a whole read builds it when one of its
    fields is first read (:func:`~apollo.transcript.model.deferred`): most of them are never
    looked at again. The lines are read now, from the bytes found unchanged; a built element
    ``expected`` refuses raises :class:`~apollo.transcript.model.DeferredChanged`."""
    lines: dict[int, bytes] = {}
    built: dict[int, tuple[str, list[Element]]] = {}

    def fill(position: int, offset: int, line: int, element_id: str, in_context: bool, turn: bool, tokens: int,
             element: Element) -> None:
        if offset not in built:
            raw = lines[offset]
            record = _record(raw, len(raw))
            if record is None:
                raise DeferredChanged(f"line {line} is no longer an entry")
            entry_id = record["id"]
            # the tokens are the saved ones: what the same counter made of the same text (the
            # caller compares each element whole with what was saved), not counted twice
            built[offset] = entry_id, entry_elements(record, entry_id, rules(), _uncounted,
                                                     {entry_id} if turn else set(), _parent(record))
        entry_id, elements = built[offset]
        found = [candidate for candidate in elements if candidate.id == element_id]
        if not found:
            raise DeferredChanged(f"line {line} no longer holds {element_id}")
        made = placed(found, position, line, entry_id, in_context)[0]
        made.tokens = tokens
        if not expected(position, made):
            raise DeferredChanged(f"{element_id} on line {line} is not what was read before")
        fill_from(element, made)

    held: dict[int, Element] = {}
    for position, spot in spots.items():
        offset, line = spot[0], spot[1]
        if offset not in lines:
            handle.seek(offset)
            lines[offset] = handle.readline()
        held[position] = deferred(functools.partial(fill, position, *spot))
        tail.offsets[line] = offset
        tail.held_spots[id(held[position])] = spot
    return held


def _uncounted(_text: str) -> int:
    return 0


def _appended(appended: bytes, tail: Tail, count: Counter) -> list[Element] | None:
    """The appended entries' elements, each continuing from the leaf; None at the first that does not."""
    rule = rules()
    turn = {tail.leaf} if tail.leaf_turn and tail.leaf is not None else set()
    ids = set(tail.ids)
    elements: list[Element] = []
    for raw in appended.split(b"\n")[:-1]:
        tail.lines += 1
        tail.offsets[tail.lines] = tail.offset
        tail.offset += len(raw) + 1
        if not raw or raw.isspace():
            continue
        record = _record(raw, len(raw) + 1)
        if record is None or not _continues(record, tail.leaf, ids):
            return None
        entry_id = record["id"]
        new = placed(entry_elements(record, entry_id, rule, count, turn, tail.leaf), tail.position, tail.lines,
                     entry_id, True)
        tail.position += len(new)
        elements += new
        ids.add(entry_id)
        tail.leaf = entry_id
    tail.ids = frozenset(ids)
    tail.leaf_turn = tail.leaf in turn
    return elements


def _record(raw: bytes, size: int) -> dict[str, Any] | None:
    """The entry on a line (``size`` bytes with its end), when a whole read would take it without a word."""
    if size > HUGE_RECORD_BYTES:
        return None
    try:
        record = jsonline.loads_with_lone_surrogates(raw)  # as a whole read takes it
    except ValueError:
        return None
    if type(record) is not dict or not isinstance(record.get("id"), str) or not record["id"]:
        return None
    return record


def _parent(record: dict[str, Any]) -> str | None:
    parent = record.get("parentId")
    return parent if isinstance(parent, str) and parent else None


def _continues(record: dict[str, Any], leaf: str | None, ids: set[str]) -> bool:
    """A new entry after the leaf, on the path the model sees, that changes nothing before it."""
    parent = _parent(record)
    return (record["id"] not in ids and "parentId" in record and parent == leaf and (parent is None or parent in ids)
            and record.get("type") not in _NOT_A_CONTINUATION and record.get("appendMode") != "side")
