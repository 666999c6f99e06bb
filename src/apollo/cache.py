"""Work a process can skip because an earlier one did it: results of pure functions of plain
data (a TOML file's text to its tables, a pattern to its compiled program), kept on disk.

Nothing here is needed: a missing, unreadable or damaged file means doing the work again, and a
cache that cannot be written is not kept. ``$APOLLO_CACHE_DIR`` moves the folder (default: the user's cache folder,
``~/.cache/apollo`` on Linux); an empty value turns caching off.
Results are stored with :mod:`marshal` (fast to read, tied to the Python version, which every
file name therefore carries), and every call gets its own copy, so a caller may change it. The file
name carries Apollo's version too: an upgrade may change the functions, never their keys.
"""

from __future__ import annotations

import atexit
import marshal
import os
import sys
from collections.abc import Callable
from pathlib import Path

from apollo import __version__
from apollo.atomic import atomic_output
from apollo.userdirs import user_dir

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def folder() -> Path | None:
    chosen = os.environ.get("APOLLO_CACHE_DIR")
    if chosen is None:
        return user_dir("cache")
    return Path(chosen) if chosen else None


class DiskMemo:
    """``function``'s results by argument tuple, in ``<cache folder>/<name>-<python>.marshal``.

    Read once per process, written once at exit when something was added; at most
    ``max_entries`` are kept (beyond that, only the ones this process used), so a user who edits
    rules often does not grow the file without end."""

    def __init__(self, name: str, function: Callable[..., Any], *, max_entries: int = 4096):
        self.name = name
        self.function = function
        self.max_entries = max_entries
        self._stored: dict[Any, bytes] | None = None
        self._used: set[Any] = set()
        self._added = False

    def path(self) -> Path | None:
        base = folder()
        # hexversion: a pre-release or a patch release may change the code objects marshal writes
        return (base / f"{self.name}-{__version__}-{sys.implementation.cache_tag}-{sys.hexversion:x}.marshal"
                if base is not None else None)

    def __call__(self, *args: Any) -> Any:
        return self.keyed(args, *args)

    def keyed(self, key: Any, *args: Any) -> Any:
        """``function(*args)``, kept under ``key`` (which must determine the result)."""
        stored = self._load()
        self._used.add(key)
        found = stored.get(key)
        if found is not None:
            try:
                return marshal.loads(found)
            except (EOFError, ValueError, TypeError):
                pass
        result = self.function(*args)
        try:
            marshal.dumps(key)
            stored[key] = marshal.dumps(result)
        except ValueError:  # not plain data (a TOML date, an enum): correct, just not kept
            return result
        if not self._added and self.path() is not None:
            self._added = True
            if not _unsaved:
                atexit.register(save_all)
            _unsaved.append(self)
        return marshal.loads(stored[key])

    def _load(self) -> dict[Any, bytes]:
        if self._stored is None:
            self._stored = {}
            path = self.path()
            raw = _read_ours(path) if path is not None else None
            if raw is not None:
                try:
                    data = marshal.loads(raw)
                except (EOFError, ValueError, TypeError):
                    data = None
                if isinstance(data, dict):
                    self._stored = data
        return self._stored

    def save(self) -> None:
        """Write the file atomically; a failure only means no cache next time."""
        path = self.path()
        if not self._added or self._stored is None or path is None:
            return
        stored = self._stored
        if len(stored) > self.max_entries:
            stored = {key: value for key, value in stored.items() if key in self._used}
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            data = marshal.dumps(stored)
            with atomic_output(path) as handle:
                handle.write(data)
            self._added = False
        except (OSError, ValueError):
            pass


#: the memos that gained entries since they were last written
_unsaved: list[DiskMemo] = []


def save_all() -> None:
    """Write every memo that gained entries: at exit, or before a process that ends without the
    interpreter's teardown (the heartbeat's, :func:`apollo.cli.entry.main`) runs no exit handler."""
    while _unsaved:
        _unsaved.pop().save()


def _read_ours(path: Path) -> bytes | None:
    """The file's bytes when it and its folder belong to this user and nobody else may write them:
    a cache in a shared folder (``APOLLO_CACHE_DIR=/tmp``) could otherwise hand this process someone
    else's configuration, rules or code. The file is checked as opened (never through a symbolic
    link), so it cannot be swapped between the check and the read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            if hasattr(os, "getuid"):  # Windows: a user's profile folder is private already
                stats = (os.stat(path.parent), os.fstat(fd))
                if not all(st.st_uid == os.getuid() and not st.st_mode & 0o022 for st in stats):
                    return None
            return handle.read()
        except OSError:
            return None


def _parse_toml(text: str) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(text)


_parsed_toml = DiskMemo("toml", _parse_toml, max_entries=64)


def toml_loads(text: str) -> dict[str, Any]:
    """``tomllib.loads``, for the rule and default files every process reads (kept by the text's
    digest: the texts themselves would make the file, and each process's memory, larger)."""
    import hashlib

    return _parsed_toml.keyed(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest(), text)
