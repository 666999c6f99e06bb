"""Reaching files through directory descriptors, never through paths or symlinks.

A :class:`Root` is an open folder (the workspace, or the agent's folder in the state dir);
everything below it is opened one component at a time with ``O_NOFOLLOW | O_DIRECTORY`` and
``dir_fd=``, checking that the mount never changes (the mount id, not only the device: a bind
mount of an outside folder sits on the same device), so a symlink swapped in for a folder, a
``..`` bound through links, or a mount point can never lead a cleanup outside. This module
reads and creates; only :mod:`apollo.autophagy.remove` deletes or replaces.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from apollo.autophagy import messages as msg
from apollo.dirfd import open_dir
from apollo.records import Record

O_READ = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
O_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
CHUNK = 1 << 20


def mount_id(fd: int) -> int | None:
    """The mount an open descriptor lives on (Linux ``/proc/self/fdinfo``'s ``mnt_id``, which
    ``statx``'s ``STATX_MNT_ID`` also reports), or None where the system does not say."""
    try:
        info = os.open(f"/proc/self/fdinfo/{fd}", os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        text = os.read(info, 4096)
    finally:
        os.close(info)
    for line in text.splitlines():
        if line.startswith(b"mnt_id:"):
            return int(line.split()[1])
    return None


def refuse_open_writers(st: os.stat_result) -> None:
    """A file another process holds open for writing is not rewritten: the writer would go on
    appending to the old inode (issue 12, finding 11). Checked before the snapshot copy and again
    before the rename."""
    holders = open_writers(st)
    if holders:
        raise Unsafe(f"open for writing by process {', '.join(holders)}; left alone (pruned once it is closed)",
                     f"正被进程 {', '.join(holders)} 写入；未改动（关闭后再清理）", "busy")


def open_writers(st: os.stat_result) -> list[str]:
    """Processes that hold this file open for writing ("pid (command)"), from Linux's /proc;
    empty where the system does not say. A process we may not look into is not listed."""
    found = []
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.stat(f"/proc/{pid}/fd/{fd}")
                if (target.st_dev, target.st_ino) != (st.st_dev, st.st_ino):
                    continue
                with open(f"/proc/{pid}/fdinfo/{fd}", "rb") as info:
                    flags = next((int(line.split()[1], 8) for line in info if line.startswith(b"flags:")), 0)
            except (OSError, ValueError):
                continue
            if flags & os.O_ACCMODE in (os.O_WRONLY, os.O_RDWR):
                try:
                    with open(f"/proc/{pid}/comm", "rb") as comm:
                        name = comm.read().decode("utf-8", "replace").strip()
                except OSError:
                    name = "?"
                found.append(f"{pid} ({name})")
                break
    return found


class Unsafe(Exception):
    """A path that cannot be reached safely (symlink, other device, gone, changed)."""

    def __init__(self, reason: str, reason_zh: str, code: str = "unsafe"):
        super().__init__(reason)
        self.reason = reason
        self.reason_zh = reason_zh
        self.code = code  # "gone" | "link" | "device" | "type" | "changed" | "unsafe"


class StatFingerprint(Record):
    """What a file was when the plan was made (device, inode, size, mtime, type): any
    difference means it is not the file that was shown."""

    __slots__ = ("dev", "ino", "size", "mtime_ns", "type")

    def __init__(self, dev: int, ino: int, size: int, mtime_ns: int, type: int):  # noqa: A002 - the stat field
        self.dev = dev
        self.ino = ino
        self.size = size
        self.mtime_ns = mtime_ns
        self.type = type

    @classmethod
    def of(cls, st: os.stat_result) -> StatFingerprint:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, stat.S_IFMT(st.st_mode))

    def same_file(self, st: os.stat_result) -> bool:
        return (self.dev, self.ino, self.type) == (st.st_dev, st.st_ino, stat.S_IFMT(st.st_mode))

    def unchanged(self, st: os.stat_result) -> bool:
        return self == StatFingerprint.of(st)

    def to_list(self) -> list[int]:
        return [self.dev, self.ino, self.size, self.mtime_ns, self.type]

    @classmethod
    def from_list(cls, values: Sequence[int]) -> StatFingerprint:
        return cls(*(int(v) for v in values))


def valid_parts(parts: Sequence[str]) -> tuple[str, ...]:
    """Path components that cannot climb or jump: no '', '.', '..', '/', or NUL."""
    checked = tuple(parts)
    for part in checked:
        if not isinstance(part, str) or part in ("", ".", "..") or "/" in part or "\x00" in part:
            raise Unsafe(f"refusing path component {part!r}", f"拒绝路径成分 {part!r}")
    return checked


def split_relative(text: str) -> tuple[str, ...]:
    """A stored relative path back into components; absolute or escaping paths are refused."""
    if not text or text.startswith("/") or "\x00" in text:
        raise Unsafe(f"not a relative path: {text!r}", f"不是相对路径：{text!r}")
    return valid_parts(text.split("/"))


class Root:
    """An open directory that all work below it is relative to."""

    def __init__(self, path: Path, *, expect: tuple[int, int] | None = None, label: str = "workspace"):
        self.given = Path(os.path.abspath(path))
        self.path = Path(os.path.realpath(path))
        self.label = label
        try:
            self.fd = open_dir(self.path)
        except FileNotFoundError:
            raise Unsafe(f"{label} {self.path} does not exist", f"{label} {self.path} 不存在") from None
        except NotADirectoryError:
            raise Unsafe(f"{label} {self.path} is not a folder", f"{label} {self.path} 不是目录") from None
        st = os.fstat(self.fd)
        self.dev, self.ino = st.st_dev, st.st_ino
        self.mount = mount_id(self.fd)
        if expect is not None and (self.dev, self.ino) != tuple(expect):
            os.close(self.fd)
            raise Unsafe(f"{label} {self.path} is not the folder the plan was made for",
                         f"{label} {self.path} 不是制定计划时的那个目录")

    def leads_inside(self, path: str | Path) -> bool:
        """``path``, its links followed, lies below this root (a link may lead anywhere)."""
        return os.path.realpath(path).startswith(str(self.path) + os.sep)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Root:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open_dir(self, parts: Sequence[str], *, create: bool = False, mode: int = 0o700) -> int:
        """An fd for the folder ``parts`` below the root; each step refuses links and other devices."""
        fd = os.dup(self.fd)
        try:
            for part in valid_parts(parts):
                try:
                    child = open_dir(part, dir_fd=fd)
                except FileNotFoundError:
                    if not create:
                        raise Unsafe(f"{part} is gone", f"{part} 已不存在", "gone") from None
                    try:
                        os.mkdir(part, mode, dir_fd=fd)
                    except FileExistsError:
                        pass
                    child = open_dir(part, dir_fd=fd)
                    _ignore_in_git(child, part)
                except (NotADirectoryError, OSError) as exc:
                    if _is_link(part, fd):
                        raise Unsafe(*msg.symlink(part), "link") from None
                    if isinstance(exc, NotADirectoryError):
                        raise Unsafe(f"{part} is no longer a folder", f"{part} 已不是目录", "type") from None
                    raise
                os.close(fd)
                fd = child
                if not self.same_mount(fd):
                    raise Unsafe(f"{part} is on another file system (mount point); never crossed",
                                 f"{part} 在另一个文件系统上（挂载点），绝不跨越", "device")
            return fd
        except BaseException:
            os.close(fd)
            raise

    def same_mount(self, fd: int) -> bool:
        """Whether an open folder is on the root's own mount (same device and same mount id)."""
        return os.fstat(fd).st_dev == self.dev and mount_id(fd) == self.mount

    def lstat(self, parts: Sequence[str]) -> os.stat_result:
        parent = self.open_dir(parts[:-1])
        try:
            return os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            raise Unsafe(*msg.GONE, "gone") from None
        finally:
            os.close(parent)


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def open_file(dir_fd: int, name: str) -> int:
    """Open a regular file for reading without following a link (O_NOFOLLOW)."""
    try:
        fd = os.open(name, O_READ, dir_fd=dir_fd)
    except OSError:
        if _is_link(name, dir_fd):
            raise Unsafe(*msg.symlink(name), "link") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise Unsafe(f"{name} is not a regular file", f"{name} 不是普通文件", "type")
    return fd


def read_fd(fd: int, limit: int | None = None) -> bytes:
    """All bytes of an open file from the start (or the first ``limit``)."""
    chunks = []
    offset = 0
    while limit is None or offset < limit:
        want = CHUNK if limit is None else min(CHUNK, limit - offset)
        chunk = os.pread(fd, want, offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def iter_fd(fd: int) -> Iterator[bytes]:
    offset = 0
    while chunk := os.pread(fd, CHUNK, offset):
        offset += len(chunk)
        yield chunk


def sha256_bytes(data: bytes) -> str:
    import hashlib  # here: loading OpenSSL costs the heartbeat, which hashes nothing

    return hashlib.sha256(data).hexdigest()


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written (it may write fewer than asked)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _ignore_in_git(dir_fd: int, name: str) -> None:
    """A new ``.autophagy`` / ``.renal`` / ``.apollo`` folder ignores its content in git (see
    :func:`apollo.atomic.ignore_in_git`); written through the folder's own descriptor."""
    from apollo.atomic import APOLLO_FOLDERS, GITIGNORE

    if name in APOLLO_FOLDERS:
        try:
            write_new(dir_fd, ".gitignore", GITIGNORE)
        except FileExistsError:
            pass


def write_new(dir_fd: int, name: str, data: bytes, *, mode: int = 0o600) -> None:
    """Create ``name`` (it must not exist), write, fsync. Never replaces anything."""
    fd = os.open(name, O_CREATE, mode, dir_fd=dir_fd)
    try:
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(dir_fd: int) -> None:
    # some file systems cannot fsync a folder; the data files are synced already
    try:
        os.fsync(dir_fd)
    except OSError:
        pass


def display(path: str) -> str:
    """A path as a person can read it: undecodable bytes and control characters escaped."""
    raw = os.fsencode(path)
    text = raw.decode("utf-8", "backslashreplace")
    if any(ch < " " or ch == "\x7f" for ch in text):
        text = "".join(ch if ch >= " " and ch != "\x7f" else repr(ch)[1:-1] for ch in text)
    return text
