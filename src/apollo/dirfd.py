"""Opening a folder as a descriptor: the one place that spells the flags.

Every folder Apollo walks or writes through a descriptor is opened here, so each open refuses a
symlink (``O_NOFOLLOW``), refuses anything but a folder (``O_DIRECTORY``) and is never inherited
by a child process (``O_CLOEXEC``). It sits below both :mod:`apollo.atomic` and
:mod:`apollo.autophagy.fs`, which build on it, and imports nothing of Apollo's.
"""

from __future__ import annotations

import os

O_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def open_dir(name: str | os.PathLike[str], *, dir_fd: int | None = None) -> int:
    """An fd for the folder ``name`` (relative to ``dir_fd`` when given); the last component
    must be a real folder, not a link to one."""
    return os.open(name, O_DIR, dir_fd=dir_fd)
