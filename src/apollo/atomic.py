"""Files replaced whole or not at all: every output Apollo writes (transcripts, state, caches).

Kept apart from the transcript formats so that the heartbeat, which writes its state on every
run, imports nothing else to do it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO


@contextmanager
def atomic_output(dest: Path, *, durable: bool = False) -> Iterator[IO[bytes]]:
    """Write ``dest`` through an unnamed temporary file, linked and renamed into place at the end.

    A reader never sees half a file, and a failed write leaves nothing behind without deleting
    anything (deleting is autophagy's alone): the unnamed file (Linux ``O_TMPFILE``) simply
    vanishes. Where ``O_TMPFILE`` is missing, a named ``.tmp`` file is used instead.
    ``durable`` also syncs the data to disk before the rename (state that must survive a crash).
    """
    dest = Path(dest)
    folder = dest.parent if str(dest.parent) else Path(".")
    # a name no earlier run can have left behind (a rename that failed keeps its staged link)
    staged = folder / f".{dest.name}.{os.getpid()}-{os.urandom(4).hex()}.tmp"
    flags = getattr(os, "O_TMPFILE", 0)
    try:
        fd = os.open(folder, flags | os.O_WRONLY, 0o644) if flags else -1
    except OSError:
        fd = -1
    if fd < 0:
        with staged.open("wb") as handle:
            yield handle
            _finish(handle, durable)
        os.replace(staged, dest)
        return
    with os.fdopen(fd, "wb") as handle:
        yield handle
        _finish(handle, durable)
        _link_unnamed(fd, staged)
    os.replace(staged, dest)


def _finish(handle: IO[bytes], durable: bool) -> None:
    handle.flush()
    if durable:
        os.fsync(handle.fileno())


def _link_unnamed(fd: int, path: Path) -> None:
    """Give an ``O_TMPFILE`` file a name: ``linkat(<fd of /proc/self/fd>, "N", AT_FDCWD, path,
    AT_SYMLINK_FOLLOW)``, the way open(2) documents for unprivileged processes."""
    proc_fds = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.link(str(fd), path, src_dir_fd=proc_fds, follow_symlinks=True)
    finally:
        os.close(proc_fds)
