"""Files replaced whole or not at all: every output Apollo writes (transcripts, state, caches).

Everything is created owner-only (files 0600, folders 0700): state, snapshots and reports quote
what users pasted, and workspaces are often pushed to git. Apollo's own folders (``.renal``,
``.autophagy``, ``.apollo``) also get a ``.gitignore`` of ``*`` (:func:`private_dir`).
Kept apart from the transcript formats so that the heartbeat, which writes its state on every
run, imports nothing else to do it.
"""

from __future__ import annotations

import os
from pathlib import Path

from apollo.dirfd import open_dir

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import IO

#: the folders Apollo keeps for itself inside a workspace: each one ignores its own content in git
APOLLO_FOLDERS = (".renal", ".autophagy", ".apollo")
FILE_MODE = 0o600
FOLDER_MODE = 0o700
GITIGNORE = b"# written by Apollo: what is in here is Apollo's own, never for git\n*\n"


def private_dir(folder: Path) -> Path:
    """``folder``, created 0700 with whatever parents are missing; the Apollo folder it lies in
    (``.renal``, ``.autophagy``, ``.apollo``) gets a ``.gitignore`` of ``*`` if it has none."""
    folder = Path(folder)
    missing = []
    step = folder
    while not step.exists() and step != step.parent:
        missing.append(step)
        step = step.parent
    for part in reversed(missing):
        try:
            os.mkdir(part, FOLDER_MODE)
        except FileExistsError:
            pass
    ignore_in_git(folder)
    return folder


def ignore_in_git(folder: Path) -> None:
    """A ``.gitignore`` of ``*`` in the Apollo folder that holds ``folder`` (if any, and if missing):
    snapshots and state quote conversations, which must not reach a pushed repository."""
    for step in (folder, *folder.parents):
        if step.name in APOLLO_FOLDERS:
            try:
                fd = os.open(step / ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
            except (FileExistsError, FileNotFoundError):
                return
            with os.fdopen(fd, "wb") as handle:
                handle.write(GITIGNORE)
            return


class atomic_output:  # noqa: N801 - used as a function: ``with atomic_output(path) as out``
    """Write ``dest`` through an unnamed temporary file, linked and renamed into place at the end.

    A reader never sees half a file, and a failed write leaves nothing behind without deleting
    anything (deleting is autophagy's alone): the unnamed file (Linux ``O_TMPFILE``) simply
    vanishes. Where ``O_TMPFILE`` is missing, a named ``.tmp`` file is used instead, and a failed
    write leaves it (as a failed rename leaves the unnamed file's staged link). The file is
    owner-only (0600) like everything Apollo writes.
    ``durable`` also syncs the data to disk before the rename (state that must survive a crash).
    A class, not ``contextlib.contextmanager``: importing contextlib cost every heartbeat about 1 ms.
    """

    def __init__(self, dest: Path, *, durable: bool = False):
        self.dest = Path(dest)
        self.durable = durable

    def __enter__(self) -> IO[bytes]:
        if hasattr(self, "handle"):  # one write per object, as the generator it replaced allowed
            raise RuntimeError("an atomic_output is entered once")
        folder = self.dest.parent if str(self.dest.parent) else Path(".")
        # a name no earlier run can have left behind (a rename that failed keeps its staged link)
        self.staged = folder / f".{self.dest.name}.{os.getpid()}-{os.urandom(4).hex()}.tmp"
        flags = getattr(os, "O_TMPFILE", 0)
        try:
            fd = os.open(folder, flags | os.O_WRONLY, FILE_MODE) if flags else -1
        except OSError:
            fd = -1
        self.unnamed = fd >= 0
        if not self.unnamed:
            fd = os.open(self.staged, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        self.handle = os.fdopen(fd, "wb")
        return self.handle

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        """Closed either way; renamed into place only when the block ended without an exception."""
        try:
            if kind is not None:
                return
            _finish(self.handle, self.durable)
            if self.unnamed:
                _link_unnamed(self.handle.fileno(), self.staged)
        finally:
            self.handle.close()
        os.replace(self.staged, self.dest)


def _finish(handle: IO[bytes], durable: bool) -> None:
    handle.flush()
    if durable:
        os.fsync(handle.fileno())


def _link_unnamed(fd: int, path: Path) -> None:
    """Give an ``O_TMPFILE`` file a name: ``linkat(<fd of /proc/self/fd>, "N", AT_FDCWD, path,
    AT_SYMLINK_FOLLOW)``, the way open(2) documents for unprivileged processes."""
    proc_fds = open_dir("/proc/self/fd")
    try:
        os.link(str(fd), path, src_dir_fd=proc_fds, follow_symlinks=True)
    finally:
        os.close(proc_fds)
