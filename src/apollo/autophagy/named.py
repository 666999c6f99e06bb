"""What the agent's own instructions name: files it keeps as its record, whatever their kind.

A workspace's instruction and memory files (AGENTS.md, MEMORY.md, ...: ``[protect] named_in``)
tell the agent which files it writes and reads back. One real workspace keeps an append-only
``activity.log`` per channel that AGENTS.md calls the action history and tells the agent to read
before it asks anything: to the small tier's stale-log rule it is a log, to the agent it is memory.
So a file whose name those files mention (``[protect] file_name``: a name in Latin letters with an
extension) is never removed whole by a file rule, at any depth: entries may still be cut out of it
(a heartbeat log), and a folder rule (build output, caches) still takes its folder whole, since the
next build makes its files again. The files are read at the workspace root (names
ignore case), through a link as the agent reads them; one that exists and cannot be read stops the
run before anything is written, as an unreadable task state does.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field

from apollo.autophagy.fs import Root, read_fd
from apollo.autophagy.rules import AutophagyRules
from apollo.errors import ConfigError

#: an instruction file larger than this is read only this far (they are a few kB; a name is near the top)
READ_LIMIT = 4 << 20


@dataclass(frozen=True)
class Named:
    """File names (case-folded) the agent's instructions mention, each with the file that mentions it first."""

    by: dict[str, str] = field(default_factory=dict)

    def reason(self, name: str) -> tuple[str, str] | None:
        source = self.by.get(name.casefold())
        if source is None:
            return None
        return (f"named in {source}: the agent's own record, never removed whole",
                f"{source} 中提到的文件：agent 自己的记录，不整体删除")


def load_named(root: Root, rules: AutophagyRules) -> Named:
    """The names the workspace's instruction files mention (and the files they name by path, as
    deep as ``[protect] named_depth``); raises ConfigError (nothing is deleted) when one of them
    exists but cannot be read."""
    spec = rules.data.protect
    wanted = {name.casefold() for name in spec.named_in}
    follow = tuple(ext.casefold() for ext in spec.named_follow)
    pattern = re.compile(spec.file_name)
    try:
        pending = sorted(entry.name for entry in os.scandir(root.fd) if entry.name.casefold() in wanted)
    except OSError as exc:
        raise ConfigError(f"cannot list the workspace to read the agent's instructions ({exc.strerror})",
                          where=str(root.path), hint="nothing is deleted while what they name is unknown") from None
    found: dict[str, str] = {}
    read: set[str] = set(pending)
    for _depth in range(spec.named_depth + 1):
        named_paths: list[str] = []
        for source in pending:
            text = _read(root, source)
            for match in pattern.finditer(text or ""):
                found.setdefault(match.group("name").casefold(), source)
                path = match.group("path") + match.group("name")
                if match.group("path") and path.casefold().endswith(follow) and path not in read \
                        and not {".", ".."} & set(path.split("/")):
                    read.add(path)
                    named_paths.append(path)
        pending = named_paths
    return Named(found)


def _read(root: Root, source: str) -> str | None:
    """An instruction file's text (None: not there, or not a regular file: a folder, a pipe, which is
    never waited on); ConfigError when it cannot be read."""
    try:
        # read only, and through a link, as the agent reads it
        fd = os.open(os.path.join(root.path, source), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read {source} ({exc.strerror})", where=str(root.path / source),
                          hint="nothing is deleted while the files it names are unknown") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return read_fd(fd, READ_LIMIT).decode("utf-8", errors="replace")
    except OSError as exc:
        raise ConfigError(f"cannot read {source} ({exc.strerror})", where=str(root.path / source),
                          hint="nothing is deleted while the files it names are unknown") from None
    finally:
        os.close(fd)
