"""The check right before a planned item is copied and removed: is it still exactly the
file the plan showed, and would today's rules still pick it? Anything else is skipped."""

from __future__ import annotations

import os
import stat

from apollo.autophagy import large as large_tier
from apollo.autophagy import messages as msg
from apollo.autophagy.fs import (
    Root,
    StatFingerprint,
    Unsafe,
    valid_parts,
)
from apollo.autophagy.plan import Item
from apollo.autophagy.scan import Scanner


def requalify(scanner: Scanner, root: Root, item: Item, tier: str) -> tuple[os.stat_result, list[Item]]:
    """Check one planned item against the file system and today's rules; raise Unsafe if it
    no longer qualifies exactly as shown."""
    parts = valid_parts(item.parts)
    st = root.lstat(parts)
    planned = StatFingerprint.from_list(item.fp)
    if item.action == "cut":
        if not planned.same_file(st) or st.st_size < item.prefix_size:
            raise Unsafe(*msg.CHANGED, "changed")
    elif item.action == "tree":
        if not planned.same_file(st):
            raise Unsafe(*msg.CHANGED, "changed")
    elif not planned.unchanged(st):
        raise Unsafe(*msg.CHANGED, "changed")
    if root.label != "workspace":
        if tier != "large" or not stat.S_ISREG(st.st_mode) or not large_tier.qualifies(scanner.rules, item):
            raise Unsafe(*msg.NOT_LARGE_CONTEXT, "changed")
        return st, [item]
    rel, name = "/".join(parts), parts[-1]
    is_dir = stat.S_ISDIR(st.st_mode)
    editable = False
    reason = scanner.protected_path(parts, is_dir or stat.S_ISLNK(st.st_mode))
    if reason:
        above = scanner.protected_path(parts[:-1], True) if len(parts) > 1 else None
        if item.action == "cut" and not above and scanner.editable(rel, name):
            editable = True
        else:
            raise Unsafe(reason[0], reason[1], "protected")
    parent = root.open_dir(parts[:-1])
    try:
        fresh = scanner.evaluate(tier, parent, parts, st, editable=editable, record=False)
    finally:
        os.close(parent)
    same = [f for f in fresh if f.kind == item.kind and f.action == item.action]
    if item.action == "cut":
        same = same or [f for f in fresh if f.action == "cut"]
    if not same:
        raise Unsafe(*msg.NO_LONGER_QUALIFIES, "changed")
    if item.action == "cut":  # the byte ranges come from the plan file: each must lie inside an entry found now
        found = [c for f in same for c in f.cuts]
        if not item.cuts or not all(0 <= start < end <= item.prefix_size
                                    and any(s <= start and end <= e for s, e in found) for start, end in item.cuts):
            raise Unsafe(*msg.NOT_PICKED_NOW, "changed")
    return st, same


def still_same_members(item: Item, fresh: Item) -> tuple[list[tuple[tuple[str, ...], StatFingerprint, bool]], list[tuple[str, ...]]]:
    """Folder members that the plan showed and that are still exactly the same now, and the
    planned members that are not (changed, replaced, gone, or now protected)."""
    now = {tuple(m.parts): (StatFingerprint.from_list(m.fp), m.is_dir) for m in fresh.members}
    keep = []
    dropped = []
    for member in item.members:
        parts = tuple(member.parts)
        planned = StatFingerprint.from_list(member.fp)
        current = now.get(parts)
        if current is not None and current[1] == member.is_dir and (
                (member.is_dir and (planned.dev, planned.ino) == (current[0].dev, current[0].ino))
                or (not member.is_dir and planned == current[0])):
            keep.append((parts, planned, member.is_dir))
        else:
            dropped.append(parts)
    return keep, dropped
