"""The delete step of a run: each planned action (unlink, tree, cut, index, sqlite) by its own
function, through :mod:`apollo.autophagy.remove`, each re-checked right before it goes."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apollo.autophagy import large as large_tier
from apollo.autophagy import messages as msg
from apollo.autophagy import remove
from apollo.autophagy.entries import cut, nested_together
from apollo.autophagy.fs import (
    Root,
    StatFingerprint,
    Unsafe,
    display,
    open_file,
    read_fd,
    sha256_bytes,
)
from apollo.autophagy.outcome import Run
from apollo.autophagy.plan import Item
from apollo.autophagy.requalify import still_same_members
from apollo.autophagy.rules import AutophagyRules
from apollo.errors import Refused

if TYPE_CHECKING:
    from apollo.workspace import Paths


def delete(run: Run, ready: list[tuple[Item, list[Item]]], roots: dict[str, Root], rules: AutophagyRules,
           paths: Paths) -> None:
    """Remove every item that went into the sealed snapshot, by its planned action (:data:`STEPS`);
    what cannot go safely is skipped with the reason, the rest goes on."""
    cuts: dict[tuple[str, tuple[str, ...]], list[Item]] = {}
    for item, fresh in sorted(ready, key=lambda pair: pair[0].action != "sqlite"):  # the store first: see _wipe
        if item.action == "cut":  # every cut of one file goes in one rewrite, after the rest
            cuts.setdefault((item.root, tuple(item.parts)), []).append(item)
            continue
        step = STEPS.get(item.action)
        if step is not None:
            with _or_skip(run, [item]):
                step(run, roots[item.root], item, fresh, rules, paths)
    for (label, parts), group in cuts.items():
        with _or_skip(run, group):
            done = remove.rewrite(roots[label], parts, _cut_builder(group), grown_aborts=_reaches_end(group),
                                  writers_refuse=True)
            run.rewritten.append({"root": label, "path": "/".join(parts), "after_sha256": done.after_sha256})
            for item in group:
                run.removed(item)


@contextmanager
def _or_skip(run: Run, items: Sequence[Item]) -> Iterator[None]:
    """What is not safe (or fails) is skipped with its reason; the run goes on with the rest."""
    try:
        yield
    except Unsafe as exc:
        for item in items:
            run.skip(item, exc.reason, exc.reason_zh)
    except OSError as exc:
        for item in items:
            run.skip(item, *msg.os_error(exc))


def _unlink(run: Run, root: Root, item: Item, fresh: list[Item], rules: AutophagyRules, paths: Paths) -> None:
    parts = tuple(item.parts)
    remove.unlink_file(root, parts, StatFingerprint.from_list(item.fp))
    _verify_gone(root, parts)
    run.removed(item)


def _tree(run: Run, root: Root, item: Item, fresh: list[Item], rules: AutophagyRules, paths: Paths) -> None:
    members, dropped = still_same_members(item, fresh[0])
    for member in dropped:
        run.skip(item, *msg.MEMBER_CHANGED, path=display("/".join(member)))
    outcome = remove.remove_members(root, members)
    for member, exc in outcome.skipped:
        run.skip(item, exc.reason, exc.reason_zh, path=display("/".join(member)))
    if outcome.removed:
        run.removed(item)


def _index(run: Run, root: Root, item: Item, fresh: list[Item], rules: AutophagyRules, paths: Paths) -> None:
    parts = tuple(item.parts)
    done = remove.rewrite(root, parts, _index_builder(item, rules.data.large.legacy.empty_index.encode()),
                          carry_appends=False)
    run.rewritten.append({"root": item.root, "path": "/".join(parts), "after_sha256": done.after_sha256})
    run.removed(item)


def _verify_gone(root: Root, parts: tuple[str, ...]) -> None:
    try:
        root.lstat(parts)
    except Unsafe:
        return
    raise Unsafe(*msg.STILL_THERE, "error")


def _wipe(run: Run, root: Root, item: Item, fresh: list[Item], rules: AutophagyRules, paths: Paths) -> None:
    spec = rules.data.large.sqlite
    parts = tuple(item.parts)
    parent = root.open_dir(parts[:-1])
    try:
        if os.stat(parts[-1], dir_fd=parent, follow_symlinks=False).st_nlink > 1:
            raise Refused("the store got another hard link since the check; nothing else was removed")
        db = f"/proc/self/fd/{parent}/{parts[-1]}" if Path(f"/proc/self/fd/{parent}").is_dir() \
            else str(root.path.joinpath(*parts))
        try:
            remove.wipe_sessions(db, spec.session_tables, spec.related_tables,
                                 large_tier.verifier(item.sessions, rules, paths.agent))
        except sqlite3.OperationalError as exc:  # locked since the check: stop here, before anything else goes
            raise Refused(f"the store is busy or locked ({exc}); is OpenClaw running? Nothing else was removed",
                          hint="stop OpenClaw, then run it again") from None
        fd = open_file(parent, parts[-1])
        try:
            after = sha256_bytes(read_fd(fd))
        finally:
            os.close(fd)
    finally:
        os.close(parent)
    run.rewritten.append({"root": item.root, "path": "/".join(parts), "after_sha256": after})
    run.removed(item)


def _cut_builder(items: Sequence[Item]):
    first = items[0]

    def build(old: bytes, st: os.stat_result) -> bytes:
        if not StatFingerprint.from_list(first.fp).same_file(st) or len(old) < first.prefix_size \
                or sha256_bytes(old[:first.prefix_size]) != first.prefix_sha256:
            raise Unsafe(*msg.CHANGED, "changed")
        if len(old) != first.prefix_size and _reaches_end(items):  # what was added may finish the cut part
            raise Unsafe(*msg.GROWN_AT_END, "changed")
        return cut(old, nested_together((c[0], c[1]) for item in items for c in item.cuts))

    return build


def _reaches_end(items: Sequence[Item]) -> bool:
    """Whether a cut runs to the end the plan saw (a torn tail, the last heartbeat entry)."""
    return any(c[1] == item.prefix_size for item in items for c in item.cuts)


def _index_builder(item: Item, empty: bytes):
    def build(old: bytes, st: os.stat_result) -> bytes:
        if not StatFingerprint.from_list(item.fp).unchanged(st):
            raise Unsafe(*msg.CHANGED, "changed")
        return empty

    return build


#: the delete step of each planned action but "cut" (the cuts of one file are one rewrite: :func:`delete`)
STEPS: dict[str, Callable[[Run, Root, Item, list[Item], AutophagyRules, Any], None]] = {
    "unlink": _unlink,
    "tree": _tree,
    "index": _index,
    "sqlite": _wipe,
}
