"""Copying planned items into the snapshot before anything is removed (files, whole folders,
symlinks, a consistent copy of the SQLite store) and the large tier's summary of what it held."""

from __future__ import annotations

import json
import os
import stat
from typing import TYPE_CHECKING, Any

from apollo import clock
from apollo.autophagy import large as large_tier
from apollo.autophagy import messages as msg
from apollo.autophagy.fs import (
    Root,
    StatFingerprint,
    Unsafe,
    open_file,
    refuse_open_writers,
    sha256_bytes,
)
from apollo.autophagy.plan import Item
from apollo.autophagy.requalify import still_same_members
from apollo.autophagy.rules import AutophagyRules
from apollo.autophagy.snapshot import SnapshotWriter

if TYPE_CHECKING:
    from apollo.config import Config
    from apollo.workspace import Paths


def copy_size(item: Item, paths: Paths, rules: AutophagyRules) -> int:
    """The bytes the snapshot will copy for one item, as planned (a cut copies the whole file)."""
    if item.action == "cut":
        return item.prefix_size
    if item.action == "sqlite":
        store = paths.agent_dir / rules.data.large.sqlite.store
        return sum(p.stat().st_size for p in (store, store.with_name(store.name + "-wal")) if p.exists())
    return item.bytes


def snapshot_item(writer: SnapshotWriter, root: Root, item: Item, fresh: list[Item], paths: Paths,
                   rules: AutophagyRules) -> None:
    parts = tuple(item.parts)
    planned = StatFingerprint.from_list(item.fp)
    if item.action == "tree":
        for member_parts, fp, is_dir in still_same_members(item, fresh[0])[0]:
            if is_dir:
                st = root.lstat(member_parts)
                writer.record({"type": "dir", "root": root.label, "path": "/".join(member_parts),
                               "mode": stat.S_IMODE(st.st_mode), "item": item.id, "kind": item.kind, "action": "tree"})
            else:
                _copy_into(writer, root, member_parts, fp, item=item, exact=True)
        return
    if item.action == "sqlite":
        blob, target = writer.blob_path()
        store = paths.agent_dir / rules.data.large.sqlite.store
        large_tier.backup(store, target)
        data = target.read_bytes()
        st = root.lstat(parts)
        writer.record({"type": "file", "file": blob, "root": root.label, "path": "/".join(parts), "size": len(data),
                       "sha256": sha256_bytes(data), "mode": stat.S_IMODE(st.st_mode),
                       "mtime": clock.now().isoformat(), "mtime_ns": st.st_mtime_ns, "item": item.id,
                       "kind": item.kind, "action": "sqlite", "sessions": item.sessions})
        return
    if any(e.get("path") == "/".join(parts) and e.get("root") == root.label and e.get("action") == "cut"
           for e in writer.entries):
        return  # another entry of the same file: the file is in the snapshot already
    _copy_into(writer, root, parts, planned, item=item, exact=item.action != "cut")


def add_summary(writer: SnapshotWriter, ready: list[tuple[Item, list[Item]]], paths: Paths, config: Config) -> None:
    from apollo.transcript.openclaw_sqlite import SessionRef

    sources: list[tuple[str, Any]] = []
    for entry in writer.entries:
        if entry.get("action") == "sqlite":
            db = writer.path / entry["file"]
            sources += [(s["session_id"], SessionRef(db, s["session_id"])) for s in entry.get("sessions", [])
                        if s.get("events")]
        elif entry.get("kind") == "session_transcript":
            sources.append((entry["path"], writer.path / entry["file"]))
    digest = large_tier.summarize(sources, config)
    digest.update({"created_at": clock.now().isoformat(), "agent": paths.agent})
    writer.add_file(large_tier.SUMMARY, (json.dumps(digest, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))


def _copy_into(writer: SnapshotWriter, root: Root, parts: tuple[str, ...], planned: StatFingerprint, *,
               item: Item, exact: bool) -> None:
    parent = root.open_dir(parts[:-1])
    try:
        st = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            if not planned.unchanged(st):
                raise Unsafe(*msg.CHANGED, "changed")
            writer.record({"type": "symlink", "root": root.label, "path": "/".join(parts),
                           "target": os.readlink(parts[-1], dir_fd=parent), "mtime_ns": st.st_mtime_ns,
                           "item": item.id, "kind": item.kind, "action": item.action})
            return
        fd = open_file(parent, parts[-1])
    finally:
        os.close(parent)
    try:
        st = os.fstat(fd)
        if (exact and not planned.unchanged(st)) or (not exact and not planned.same_file(st)):
            raise Unsafe(*msg.CHANGED, "changed")
        if item.action == "cut":  # a live writer would change the copy under us, and lose lines after the cut
            refuse_open_writers(st)
        writer.copy_file(fd, st, root=root.label, parts=parts, item=item.id, kind=item.kind, action=item.action)
    finally:
        os.close(fd)
