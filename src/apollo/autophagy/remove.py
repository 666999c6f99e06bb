"""THE ONLY MODULE IN APOLLO THAT REMOVES OR REPLACES BYTES.

Every unlink, rmdir, atomic rewrite (temp file, fsync, rename over the old name) and SQL
``DELETE`` lives here, so that one short file can be audited (tests/autophagy/test_one_remover.py
proves that no other module calls them). The rules of this module:

* Everything is reached through directory descriptors (:class:`~apollo.autophagy.fs.Root`):
  ``O_NOFOLLOW | O_DIRECTORY`` on every folder, ``unlink(name, dir_fd=...)``, never a path
  string, never a symlink, never another device.
* Right before a file goes, its identity (device, inode, size, mtime) is compared with what
  the plan showed; anything different is left alone and reported (:class:`Unsafe`).
* A name is unlinked, never truncated: the other names of a hard-linked file keep its bytes.
* A rewrite writes a new file next to the old one and renames it over; bytes appended to the
  old file meanwhile are carried over; any other change aborts the rewrite.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Callable, Sequence

from apollo.autophagy import messages as msg
from apollo.autophagy.fs import (
    O_CREATE,
    Root,
    StatFingerprint,
    Unsafe,
    fsync_dir,
    open_file,
    read_fd,
    refuse_open_writers,
    sha256_bytes,
    write_all,
)
from apollo.dirfd import open_dir
from apollo.records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

_IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*\Z"  # compiled (and kept by re) when first used: a heartbeat never does


def unlink_file(root: Root, parts: Sequence[str], expected: StatFingerprint) -> None:
    """Remove one name (file or symlink) if it is still exactly what the plan showed."""
    parent = root.open_dir(parts[:-1])
    try:
        _unlink_checked(parent, parts[-1], expected)
    finally:
        os.close(parent)


def _unlink_checked(parent: int, name: str, expected: StatFingerprint) -> None:
    try:
        st = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        raise Unsafe(*msg.GONE, "gone") from None
    if stat.S_ISDIR(st.st_mode):
        raise Unsafe(*msg.FOLDER_NOW, "changed")
    if not expected.unchanged(st):
        raise Unsafe(*msg.CHANGED, "changed")
    os.unlink(name, dir_fd=parent)


class TreeOutcome(Record):
    """The members of a folder item removed, and the ones skipped with why."""

    __slots__ = ("removed", "skipped")

    def __init__(self, removed: list[tuple[str, ...]], skipped: list[tuple[tuple[str, ...], Unsafe]]):
        self.removed = removed
        self.skipped = skipped


def remove_members(root: Root, members: Sequence[tuple[tuple[str, ...], StatFingerprint, bool]]) -> TreeOutcome:
    """Remove the files of a folder item (each re-checked), then its folders deepest first,
    each only if it is the same folder and now empty."""
    outcome = TreeOutcome([], [])
    files = sorted((m for m in members if not m[2]), key=lambda m: m[0])
    folders = sorted((m for m in members if m[2]), key=lambda m: len(m[0]), reverse=True)
    parent_parts: tuple[str, ...] | None = None
    parent = -1
    try:
        for parts, expected, _ in files:
            try:
                if parts[:-1] != parent_parts or parent < 0:
                    if parent >= 0:
                        os.close(parent)
                        parent = -1
                    parent_parts = None
                    parent = root.open_dir(parts[:-1])
                    parent_parts = parts[:-1]
                _unlink_checked(parent, parts[-1], expected)
                outcome.removed.append(parts)
            except Unsafe as exc:
                outcome.skipped.append((parts, exc))
            except OSError as exc:
                outcome.skipped.append((parts, Unsafe(*msg.os_error(exc), "error")))
    finally:
        if parent >= 0:
            os.close(parent)
    for parts, expected, _ in folders:
        try:
            remove_empty_dir(root, parts, expected)
            outcome.removed.append(parts)
        except Unsafe as exc:
            outcome.skipped.append((parts, exc))
        except OSError as exc:
            outcome.skipped.append((parts, Unsafe(*msg.os_error(exc), "error")))
    return outcome


def remove_empty_dir(root: Root, parts: Sequence[str], expected: StatFingerprint) -> None:
    parent = root.open_dir(parts[:-1])
    try:
        try:
            st = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            raise Unsafe(*msg.GONE, "gone") from None
        if not expected.same_file(st):
            raise Unsafe(*msg.CHANGED, "changed")
        try:
            os.rmdir(parts[-1], dir_fd=parent)
        except OSError as exc:
            if exc.errno == errno.ENOTEMPTY:
                raise Unsafe(*msg.NOT_EMPTY, "changed") from None
            raise
    finally:
        os.close(parent)


# -- atomic rewrites -----------------------------------------------------------------------------

class Rewrite(Record):
    """A file's content before and after :func:`rewrite`."""

    __slots__ = ("before_sha256", "after_sha256", "before_size", "after_size")

    def __init__(self, before_sha256: str, after_sha256: str, before_size: int, after_size: int):
        self.before_sha256 = before_sha256
        self.after_sha256 = after_sha256
        self.before_size = before_size
        self.after_size = after_size


def rewrite(root: Root, parts: Sequence[str], build: Callable[[bytes, os.stat_result], bytes], *,
            carry_appends: bool = True, grown_aborts: bool = False, writers_refuse: bool = False,
            mtime_ns: int | None = None) -> Rewrite:
    """Replace a file's content atomically: ``build(old bytes, stat)`` gives the new content
    (and raises :class:`Unsafe` if the old one is not what the plan showed). ``mtime_ns`` sets
    the new file's modification time (a restore puts the original's back). ``grown_aborts``:
    bytes appended before the rename abort it (a cut that ends at the old end would glue them
    to what was kept); bytes appended after it are still carried over, never lost.
    ``writers_refuse``: a file another process holds open for writing is left alone (after a
    rename it would go on writing to the old, orphaned file: its lines would be lost)."""
    parent = root.open_dir(parts[:-1])
    name = parts[-1]
    try:
        fd = open_file(parent, name)
        try:
            st = os.fstat(fd)
            if writers_refuse:
                refuse_open_writers(st)
            old = read_fd(fd)
            new = build(old, st)
            temp = f".{name[:180]}.apollo-{os.urandom(4).hex()}.tmp"  # secrets.token_hex, without its imports
            out = os.open(temp, O_CREATE, stat.S_IMODE(st.st_mode), dir_fd=parent)
            try:
                try:
                    write_all(out, new)
                    os.fchmod(out, stat.S_IMODE(st.st_mode))
                    try:
                        os.fchown(out, st.st_uid, st.st_gid)
                    except PermissionError:
                        pass
                    tail = _appended(fd, old, st) if carry_appends or grown_aborts else b""
                    if tail and grown_aborts:
                        raise Unsafe(*msg.GROWN_WHILE_REWRITTEN, "changed")
                    write_all(out, tail)
                    if mtime_ns is not None:
                        os.utime(out, ns=(mtime_ns, mtime_ns))
                    os.fsync(out)
                    current = os.stat(name, dir_fd=parent, follow_symlinks=False)
                    if (current.st_dev, current.st_ino) != (st.st_dev, st.st_ino):
                        raise Unsafe(*msg.REPLACED_SINCE_READ, "changed")
                    if writers_refuse:  # opened while we wrote the copy
                        refuse_open_writers(st)
                    os.rename(temp, name, src_dir_fd=parent, dst_dir_fd=parent)
                except BaseException:
                    _drop(parent, temp)
                    raise
                fsync_dir(parent)
                late = _appended(fd, old + tail, os.fstat(fd)) if carry_appends else b""
                if late:  # written to the old file after our last look: carry it over too
                    write_all(out, late)
                    os.fsync(out)
                    tail += late
            finally:
                os.close(out)
        finally:
            os.close(fd)
    finally:
        os.close(parent)
    return Rewrite(sha256_bytes(old), sha256_bytes(new + tail), len(old), len(new) + len(tail))


def _appended(fd: int, seen: bytes, st: os.stat_result) -> bytes:
    """Bytes added at the end of the open file since ``seen`` was read; any other change aborts."""
    now = os.fstat(fd)
    if now.st_size == len(seen) and now.st_mtime_ns == st.st_mtime_ns:
        return b""
    if now.st_size < len(seen) or sha256_bytes(read_fd(fd, len(seen))) != sha256_bytes(seen):
        raise Unsafe(*msg.CHANGED_WHILE_REWRITTEN, "changed")
    return os.pread(fd, now.st_size - len(seen), len(seen))


def _drop(dir_fd: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass


def drop_temporary(dir_fd: int, name: str) -> None:
    """Remove a temporary name Apollo itself just created (restore links it into place first)."""
    _drop(dir_fd, name)


# -- Apollo's own data: expired snapshots and plans -----------------------------------------------

def purge_tree(root: Root, parts: Sequence[str]) -> int:
    """Remove a folder of Apollo's own (an expired snapshot) through descriptors; links inside
    are unlinked, never followed. Returns the number of names removed."""
    parent = root.open_dir(parts[:-1])
    try:
        return _purge_below(parent, parts[-1], root)
    finally:
        os.close(parent)


def _purge_below(parent: int, name: str, root: Root) -> int:
    st = os.stat(name, dir_fd=parent, follow_symlinks=False)
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(name, dir_fd=parent)
        return 1
    fd = open_dir(name, dir_fd=parent)
    count = 0
    try:
        if not root.same_mount(fd):
            raise Unsafe(f"{name} is a mount point; never crossed", f"{name} 是挂载点，绝不跨越", "device")
        with os.scandir(fd) as entries:
            names = [e.name for e in entries]
        for child in names:
            count += _purge_below(fd, child, root)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)
    return count + 1


def unlink_own(root: Root, parts: Sequence[str]) -> None:
    """Remove one file of Apollo's own (an expired plan)."""
    parent = root.open_dir(parts[:-1])
    try:
        st = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
        if stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
            os.unlink(parts[-1], dir_fd=parent)
    finally:
        os.close(parent)


# -- SQLite --------------------------------------------------------------------------------------

def _quoted(table: str) -> str:
    if not re.match(_IDENTIFIER, table):
        raise Unsafe(f"not a table name: {table!r}", f"不是表名：{table!r}")
    return f'"{table}"'


def wipe_sessions(db_path: str, session_tables: Sequence[str], related_tables: Sequence[str],
                  verify: Callable[[sqlite3.Connection], None]) -> dict[str, int]:
    """Delete every row of ``session_tables`` (cascading, with foreign keys on) and the rows of
    ``related_tables`` that name those sessions, in one transaction; ``verify`` runs inside the
    transaction first and raises :class:`Unsafe` if the store is not what the plan showed.
    Deleted content is overwritten (secure_delete) and the WAL folded back into the file."""
    import sqlite3  # here: the heartbeat rewrites its state file through this module on every run

    connection = sqlite3.connect(db_path, isolation_level=None, timeout=0)
    counts: dict[str, int] = {}
    try:
        connection.execute("PRAGMA foreign_keys = ON")
        connection.execute("PRAGMA secure_delete = ON")
        connection.execute("BEGIN IMMEDIATE")
        try:
            verify(connection)
            existing = {r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            ids: set[str] = set()
            keys: set[str] = set()
            for table in session_tables:
                if table not in existing:
                    continue
                columns = {r[1] for r in connection.execute(f"PRAGMA table_info({_quoted(table)})")}
                if "session_id" in columns:
                    ids.update(r[0] for r in connection.execute(f"SELECT session_id FROM {_quoted(table)}"))
                if "session_key" in columns:
                    keys.update(r[0] for r in connection.execute(f"SELECT session_key FROM {_quoted(table)}"))
            for table in related_tables:
                if table not in existing:
                    continue
                columns = {r[1] for r in connection.execute(f"PRAGMA table_info({_quoted(table)})")}
                where = []
                params: list[str] = []
                if "session_id" in columns:
                    where.append("session_id IN (SELECT value FROM json_each(?))")
                    params.append(json.dumps(sorted(ids)))
                if "session_key" in columns:
                    where.append("session_key IN (SELECT value FROM json_each(?))")
                    params.append(json.dumps(sorted(keys)))
                if where:
                    cursor = connection.execute(f"DELETE FROM {_quoted(table)} WHERE {' OR '.join(where)}", params)
                    counts[table] = cursor.rowcount
            for table in session_tables:
                if table in existing:
                    counts[table] = connection.execute(f"DELETE FROM {_quoted(table)}").rowcount
            problems = connection.execute("PRAGMA foreign_key_check").fetchall()
            if problems:
                raise Unsafe(f"foreign key check failed after the wipe ({len(problems)} rows); rolled back",
                             f"删除后外键检查失败（{len(problems)} 行），已回滚", "error")
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()
    return counts
