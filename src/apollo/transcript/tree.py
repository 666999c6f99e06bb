"""Records linked by id and parent id (pi/OpenClaw entries, Claude Code lines).

What the tree formats share: walking the active path without hanging on a cycle or
stopping silently at a missing parent, and turning a set of :class:`Edit` s into a plan that
keeps the file loadable (tool calls and results dropped together, children re-parented to
the nearest kept ancestor).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from apollo.errors import UsageError
from apollo.records import field, slotted
from apollo.transcript.model import Edit

#: (entry id, block index or None for the whole entry)
Unit = tuple[str, int | None]


def split_element_id(key: str, is_entry: Callable[[str], bool]) -> tuple[str, int] | None:
    """``<entry>`` is block 0 of that entry, ``<entry>:<n>`` block n; None when neither exists."""
    if is_entry(key):
        return key, 0
    head, sep, tail = key.rpartition(":")
    if sep and tail.isdigit() and is_entry(head):
        return head, int(tail)
    return None


def find_cycle_members(parent_of: Mapping[str, str | None]) -> set[str]:
    """Ids that sit on a parent cycle (each reached from itself), in O(n)."""
    state: dict[str, int] = {}  # 1 = on the walk in progress, 2 = done
    members: set[str] = set()
    for start in parent_of:
        if start in state:
            continue
        walk: list[str] = []
        current: str | None = start
        while current is not None and current in parent_of and current not in state:
            state[current] = 1
            walk.append(current)
            current = parent_of[current]
        if current is not None and state.get(current) == 1:
            members.update(walk[walk.index(current):])
        for node in walk:
            state[node] = 2
    return members


def nearest_kept(entry_id: str | None, parent_of: Mapping[str, str | None], dropped: set[str]) -> str | None:
    """The closest ancestor-or-self of ``entry_id`` that is kept (None past the root or a gap)."""
    seen: set[str] = set()
    current = entry_id
    while current is not None and current in dropped and current not in seen:
        seen.add(current)
        current = parent_of.get(current)
    if current in seen or (current is not None and current not in parent_of):
        return None  # a cycle of dropped entries, or an ancestor missing from the file
    return current


@slotted()
class EditPlan:
    """What a tree writer does: whole entries dropped, blocks dropped, texts replaced."""

    drop_entries: set[str] = field(default_factory=set)
    drop_blocks: dict[str, set[int]] = field(default_factory=dict)
    replace: dict[Unit, str] = field(default_factory=dict)
    merged_from: dict[Unit, list[str]] = field(default_factory=dict)
    #: replaced units whose envelope loses its metadata blocks (:attr:`Edit.lean`)
    lean: set[Unit] = field(default_factory=set)
    _replace_by_entry: dict[str, list[tuple[int | None, str]]] | None = field(default=None, repr=False)
    _merged_by_entry: dict[str, list[str]] | None = field(default=None, repr=False)

    def block_dropped(self, entry_id: str, block: int) -> bool:
        return entry_id in self.drop_entries or block in self.drop_blocks.get(entry_id, ())

    def unit_dropped(self, unit: Unit) -> bool:
        entry_id, block = unit
        return entry_id in self.drop_entries if block is None else self.block_dropped(entry_id, block)

    def replacements(self, entry_id: str) -> list[tuple[int | None, str]]:
        """(block, new text) for one entry; indexed once, so a writer's pass stays linear."""
        if self._replace_by_entry is None:
            self._replace_by_entry = {}
            for (entry, block), text in self.replace.items():
                self._replace_by_entry.setdefault(entry, []).append((block, text))
        return self._replace_by_entry.get(entry_id, [])

    def merged_into(self, entry_id: str) -> list[str]:
        """The element ids one entry now stands for (any of its blocks), in order, once each."""
        if self._merged_by_entry is None:
            self._merged_by_entry = {}
            for (entry, _block), ids in self.merged_from.items():
                self._merged_by_entry.setdefault(entry, []).extend(ids)
        return list(dict.fromkeys(self._merged_by_entry.get(entry_id, [])))


def record_merged_from(record: dict[str, object], ids: list[str]) -> bool:
    """Write ``merged_from`` on a record (after any list an earlier filter left there); True if changed.

    A top-level field of the entry / line, never inside the message: the agents pass unknown
    entry fields through, while a model API may reject unknown message fields.
    """
    if not ids:
        return False
    earlier = record.get("merged_from")
    merged = list(dict.fromkeys([*(earlier if isinstance(earlier, list) else []), *ids]))
    if merged == earlier:
        return False
    record["merged_from"] = merged
    return True


def plan_edits(edits: Mapping[str, Edit], *, is_entry: Callable[[str], bool],
               block_counts: Mapping[str, int], calls: Mapping[str, Unit],
               results: Mapping[str, list[Unit]]) -> EditPlan:
    """Resolve element edits into entry/block operations that keep tool calls and results paired.

    ``block_counts`` names the entries whose content is a list of blocks (each block its own
    element); other entries are one element. Ids listed in ``merged_from`` are dropped too.
    """
    plan = EditPlan()
    unknown: list[str] = []

    def unit_of(key: str) -> Unit | None:
        found = split_element_id(key, is_entry)
        if found is None:
            return None
        entry_id, block = found
        # an entry with no block at all (a turn that failed before any content) is one whole unit
        return (entry_id, block) if block_counts.get(entry_id, 0) > 0 else (entry_id, None)

    def drop(unit: Unit) -> None:
        entry_id, block = unit
        if block is None:
            plan.drop_entries.add(entry_id)
        else:
            plan.drop_blocks.setdefault(entry_id, set()).add(block)

    for key, edit in edits.items():
        unit = unit_of(key)
        if unit is None:
            unknown.append(key)
            continue
        if edit.action == "drop":
            drop(unit)
        elif edit.action == "replace":
            if edit.text is not None:
                plan.replace[unit] = edit.text
                if edit.lean:
                    plan.lean.add(unit)
            if edit.merged_from:
                plan.merged_from[unit] = list(edit.merged_from)
            for merged in edit.merged_from:
                merged_unit = unit_of(merged)
                if merged_unit is None:
                    unknown.append(merged)
                elif merged_unit != unit and merged not in edits:
                    drop(merged_unit)
        else:
            raise UsageError(f"unknown edit action {edit.action!r} for element {key}", hint="use drop or replace")
    if unknown:
        shown = ", ".join(unknown[:3]) + (" ..." if len(unknown) > 3 else "")
        raise UsageError(f"edits name {len(unknown)} element(s) not in the transcript: {shown}",
                         hint="element ids come from reading this same file")
    _pair_tools(plan, block_counts, calls, results, drop)
    return plan


def _pair_tools(plan: EditPlan, block_counts: Mapping[str, int], calls: Mapping[str, Unit],
                results: Mapping[str, list[Unit]], drop: Callable[[Unit], None]) -> None:
    """Drop a tool call with its results and the other way round, until nothing changes."""
    changed = True
    while changed:
        changed = False
        for entry_id, blocks in list(plan.drop_blocks.items()):
            if entry_id not in plan.drop_entries and len(blocks) >= block_counts.get(entry_id, 0) > 0:
                plan.drop_entries.add(entry_id)  # every block gone: the whole message goes
                changed = True
        for call_id, call in calls.items():
            answers = results.get(call_id, [])
            call_gone = plan.unit_dropped(call)
            if call_gone:
                for answer in answers:
                    if not plan.unit_dropped(answer):
                        drop(answer)
                        changed = True
            elif any(plan.unit_dropped(answer) for answer in answers):
                drop(call)
                changed = True
                for answer in answers:
                    if not plan.unit_dropped(answer):
                        drop(answer)
