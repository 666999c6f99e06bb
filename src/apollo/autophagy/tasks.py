"""What active tasks protect: the task-state file read and every reference resolved, failing closed.

A task names files however its author wrote them: relative or absolute, through a symlink
inside the workspace, through another absolute name of the workspace, as a glob. Each reference
is resolved through the file system (links inside the workspace followed by reading them, one
component at a time, never by opening through them) to the physical path it stands for; both
the path as written and that physical path are protected. A reference that cannot be resolved
(a link loop, a folder that cannot be read) protects the whole folder where resolving stopped.
A task is active unless its status says finished; a task with no status is active, and an
active subtask of a finished epic is active.
"""

from __future__ import annotations

import json
import os
import stat
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from apollo.autophagy.fs import Root, Unsafe, open_file, read_fd
from apollo.autophagy.named import Named, load_named
from apollo.autophagy.rules import AutophagyRules, PatternSet, TaskProtect
from apollo.errors import ConfigError

MAX_LINKS = 40  # as the kernel's own limit on links followed while resolving one path
_GLOB = frozenset("*?[")


@dataclass(frozen=True)
class Tasks:
    """What active tasks protect: paths (and everything below them), glob patterns, titles; and,
    read with them so that both fail closed before anything is written, what the agent's
    instructions name (:mod:`apollo.autophagy.named`)."""

    paths: frozenset[str] = frozenset()
    titles: tuple[str, ...] = ()
    globs: PatternSet = field(default_factory=lambda: PatternSet.compile([]))
    named: Named = field(default_factory=Named)

    def references(self, rel: str) -> bool:
        """Whether an active task names ``rel``; compared in NFC, as a name typed composed may be
        stored decomposed (macOS)."""
        if "" in self.paths:  # a reference at the workspace root could not be resolved
            return True
        if not rel.isascii():
            rel = unicodedata.normalize("NFC", rel)
        return rel in self.paths or (bool(self.globs) and self.globs.match(rel, rel.rsplit("/", 1)[-1], True) is not None)


def _objects(value: object) -> Iterator[dict]:
    if isinstance(value, dict):
        yield value
        for child in value.values():
            yield from _objects(child)
    elif isinstance(value, list):
        for child in value:
            yield from _objects(child)


def _own_paths(task: dict, keys: set[str]) -> Iterator[str]:
    for key, child in task.items():
        if key in keys:
            if isinstance(child, str):
                yield child
            elif isinstance(child, list):
                yield from (c for c in child if isinstance(c, str))


def active_references(state: object, spec: TaskProtect) -> tuple[list[str], list[str]]:
    """(references, titles) of every active task. A task is any object with a status or a path
    key (so a step or subtask is judged on its own); finished only when its own status says so."""
    finished = {s.casefold() for s in spec.finished_statuses}
    keys = set(spec.path_keys)
    references: list[str] = []
    titles: list[str] = []
    for task in _objects(state):
        status = next((task[k] for k in spec.status_keys if isinstance(task.get(k), str)), None)
        if status is None and not any(k in task for k in keys):
            continue  # not a task
        if status is not None and status.strip().casefold() in finished:
            continue
        title = next((str(task[k]) for k in spec.title_keys if task.get(k)), None)
        if status is not None or title is not None:
            titles.append(title or "?")
        references += _own_paths(task, keys)
    return references, titles


class _Unresolvable(Exception):
    def __init__(self, folder: tuple[str, ...]):
        super().__init__("/".join(folder))
        self.folder = folder


def _inside(root: Root, absolute: str) -> tuple[str, ...] | None:
    """An absolute path as components below the workspace, whatever name of the workspace it
    uses (its own, a symlink to it, a bind mount of it): None when it is elsewhere."""
    path = PurePosixPath(os.path.normpath(absolute))
    for base in (root.path, root.given):
        try:
            return path.relative_to(base).parts
        except ValueError:
            pass
    for depth in range(len(path.parts), 0, -1):
        try:
            st = os.stat(PurePosixPath(*path.parts[:depth]))
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == (root.dev, root.ino):
            return path.parts[depth:]
    return None


def _physical(root: Root, parts: Sequence[str]) -> tuple[str, ...] | None:
    """Resolve components below the workspace through its symlinks (read, never opened
    through): the physical path, None when it leads outside, :class:`_Unresolvable` otherwise."""
    pending = list(parts)
    trail: list[str] = []
    hops = 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not trail:
                return None
            trail.pop()
            continue
        try:
            fd = root.open_dir(trail)
        except Unsafe as exc:
            if exc.code == "gone":
                return (*trail, part, *pending)
            raise _Unresolvable(tuple(trail)) from None
        try:
            st = os.stat(part, dir_fd=fd, follow_symlinks=False)
            target = os.readlink(part, dir_fd=fd) if stat.S_ISLNK(st.st_mode) else None
        except FileNotFoundError:
            return (*trail, part, *pending)  # not there yet: protected as named
        except OSError:
            raise _Unresolvable(tuple(trail)) from None
        finally:
            os.close(fd)
        if target is None:
            trail.append(part)
            continue
        hops += 1
        if hops > MAX_LINKS:
            raise _Unresolvable(tuple(trail))
        if target.startswith("/"):
            inside = _inside(root, target)
            if inside is None:
                return None
            trail = []
            pending = [*inside, *pending]
        else:
            pending = [*PurePosixPath(target).parts, *pending]
    return tuple(trail)


def _lexical(parts: Sequence[str]) -> tuple[str, ...] | None:
    out: list[str] = []
    for part in parts:
        if part in ("", "."):
            continue
        if part == "..":
            if not out:
                return None
            out.pop()
        else:
            out.append(part)
    return tuple(out)


def resolve(root: Root, reference: str) -> tuple[set[str], list[str]]:
    """(paths, glob patterns) a reference protects, relative to the workspace."""
    text = os.path.expanduser(reference.strip())
    if not text:
        return set(), []
    if text.startswith("/"):
        below = _inside(root, text)
        if below is None:
            return set(), []
        parts: tuple[str, ...] = tuple(below)
    else:
        parts = PurePosixPath(text).parts
    glob_at = next((i for i, p in enumerate(parts) if _GLOB & set(p)), None)
    head, tail = (parts, ()) if glob_at is None else (parts[:glob_at], parts[glob_at:])
    found: set[str] = set()
    lexical = _lexical(head)
    try:
        physical = _physical(root, head)
    except _Unresolvable as exc:
        return {"/".join(exc.folder), *(["/".join(lexical)] if lexical else [])}, []
    for resolved in (lexical, physical):
        if resolved is not None:
            found.add("/".join(resolved))
    if not tail:
        found.discard("")
        return found, []
    return set(), ["/".join((*base.split("/"), *tail)) if base else "/".join(tail) for base in found]


def load_tasks(root: Root, rules: AutophagyRules) -> Tasks:
    """Read the task-state file and the agent's instructions; if either exists and cannot be read,
    nothing may be deleted."""
    named = load_named(root, rules)
    return replace(_task_state(root, rules), named=named)


def _task_state(root: Root, rules: AutophagyRules) -> Tasks:
    spec = rules.data.protect.tasks
    parts = tuple(spec.file.split("/"))
    where = str(root.path / spec.file)
    try:
        parent = root.open_dir(parts[:-1])
    except Unsafe as exc:
        if exc.code == "gone":
            return Tasks()
        raise ConfigError(f"cannot read the task state ({exc.reason})", where=where,
                          hint="nothing is deleted while the protect list cannot be read") from None
    try:
        try:
            fd = open_file(parent, parts[-1])
        except FileNotFoundError:
            return Tasks()
        except (OSError, Unsafe) as exc:
            reason = exc.reason if isinstance(exc, Unsafe) else (exc.strerror or str(exc))
            raise ConfigError(f"cannot read the task state ({reason})", where=where,
                              hint="nothing is deleted while the protect list cannot be read") from None
        try:
            data = read_fd(fd)
        finally:
            os.close(fd)
    finally:
        os.close(parent)
    try:
        state = json.loads(data.decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:  # nested deeper than the parser goes
        raise ConfigError(f"the task state is not valid JSON ({exc})", where=where,
                          hint="fix the file; nothing is deleted while the protect list cannot be read") from None
    references, titles = active_references(state, spec)
    protected: set[str] = set()
    globs: list[str] = []
    for reference in references:
        paths, patterns = resolve(root, reference)
        protected |= {unicodedata.normalize("NFC", p) for p in paths}
        globs += [unicodedata.normalize("NFC", p) for p in patterns]
    return Tasks(frozenset(protected), tuple(titles), PatternSet.compile(globs))
