"""``apollo heartbeat``: what OpenClaw runs every 30 minutes — cheap, one line, always exit 0.

Renal check of the current session, purge of expired autophagy snapshots, the seed's status line
(``🫘 上下文正常`` / ``🫘 上下文需过滤（节省X%）``), the check written to ``.renal/filter-state.json``
and a ``renal`` section merged into the heartbeat state file (config ``heartbeat.state_file``)
without touching its other keys. It runs often, so it imports neither typer nor rich:
``apollo.cli.entry`` sends ``apollo heartbeat`` straight to :func:`fast_main`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from apollo.errors import ApolloError, InputError, discard_stdout, failure_line
from apollo.records import Record

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from apollo.config import Config
    from apollo.workspace import Paths

SECTION = "renal"


class HeartbeatResult(Record):
    __slots__ = ("line", "state", "session", "state_file", "heartbeat_file", "purged", "warnings")

    def __init__(self, line: str, state: dict[str, Any] | None, session: str | None, state_file: Path | None,
                 heartbeat_file: Path | None, purged: list[Path] | None = None, warnings: list[str] | None = None):
        self.line = line
        self.state = state
        self.session = session
        self.state_file = state_file
        self.heartbeat_file = heartbeat_file
        self.purged = purged if purged is not None else []
        self.warnings = warnings if warnings is not None else []

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "needs_filter": bool(self.state and self.state.get("needs_filter")),
                "session": self.session, "renal": self.state,
                "state_file": str(self.state_file) if self.state_file else None,
                "heartbeat_file": str(self.heartbeat_file) if self.heartbeat_file else None,
                "purged_snapshots": [str(p) for p in self.purged], "warnings": self.warnings}


def merge_section(path: Path, key: str, value: Any) -> None:
    """Set ``key`` in the JSON object at ``path``, keeping every other key (locked, atomic).

    A file that is not a JSON object is someone else's: it is reported and left alone.
    """
    import fcntl

    from apollo.atomic import private_dir
    from apollo.autophagy import fs, remove

    def merged(raw: bytes) -> bytes:
        try:
            data = json.loads(raw) if raw.strip() else {}
        except ValueError as exc:
            raise InputError(f"not valid JSON ({exc}); left alone", where=str(path),
                             hint="fix or move the file; the renal state is still in .renal/filter-state.json") from None
        if not isinstance(data, dict):
            raise InputError("not a JSON object; left alone", where=str(path))
        data[key] = value
        return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8")

    private_dir(path.parent)
    try:
        folder = fs.Root(path.parent, label="heartbeat state folder")
    except fs.Unsafe as exc:
        raise InputError(exc.reason, where=str(path.parent)) from None
    try:
        fcntl.flock(folder.fd, fcntl.LOCK_EX)  # two heartbeats at once must not lose each other's keys
        try:
            os.stat(path.name, dir_fd=folder.fd, follow_symlinks=False)
        except FileNotFoundError:
            fs.write_new(folder.fd, path.name, merged(b""))
            fs.fsync_dir(folder.fd)
            return
        try:
            remove.rewrite(folder, (path.name,), lambda old, _st: merged(old), carry_appends=False)
        except fs.Unsafe as exc:
            raise InputError(f"{exc.reason}; left alone", where=str(path)) from None
    finally:
        folder.close()


def run(paths: Paths, config: Config, lang: str, session: str | None = None) -> HeartbeatResult:
    """One heartbeat. Only a broken configuration raises: a heartbeat file that is not ours to
    rewrite, or a snapshot purge that fails, are warnings, because a heartbeat must always answer."""
    from apollo.renal.check_cache import heartbeat_line, reusable_state, write_state

    warnings: list[str] = []
    purged: list[Path] = []
    # most workspaces never made a snapshot: then there is nothing to purge, nor to import for it
    if (paths.workspace / Path(config.get("autophagy.snapshot_dir")).expanduser()).exists():
        from apollo.autophagy.places import purge_expired_snapshots  # not .api: the heartbeat loads no tier

        try:
            purged = list(purge_expired_snapshots(paths, config))
        except ApolloError as exc:
            warnings.append(f"snapshot purge: {exc.line()}")
    # nothing the last check read has changed: its numbers stand (see apollo.renal.check_cache)
    state, found = reusable_state(paths, config, session)
    if state is None:
        from apollo.renal.check import check  # the classifier: only when the session changed, and from
        # where the last heartbeat left it when the session only grew (apollo.renal.check_resume)

        state = check(paths, config, session_id=session, resume=True, found=found).to_state()
    state_file = write_state(paths, state, config.get("renal.state_file"))
    line = heartbeat_line(state, lang)
    heartbeat_file = paths.workspace / config.get("heartbeat.state_file")
    try:
        merge_section(heartbeat_file, SECTION, {**state, "line": line, "state_file": str(state_file),
                                                "purged_snapshots": len(purged)})
    except ApolloError as exc:
        warnings.append(exc.line())
        return HeartbeatResult(line, state, state.get("source"), state_file, None, purged, warnings)
    return HeartbeatResult(line, state, state.get("source"), state_file, heartbeat_file, purged, warnings)


def main(*, workspace: Path | None = None, state_dir: Path | None = None, agent: str | None = None,
         session: str | None = None, json_out: bool = False, lang: str | None = None, verbose: bool = False) -> int:
    """The command: print the line (or the JSON), warnings to stderr; the exit code."""
    try:
        from apollo import config as config_mod
        from apollo.workspace import Paths, resolve_lang

        paths = Paths.resolve(workspace, state_dir, agent).require()
        config = config_mod.load(paths.workspace)
        result = run(paths, config, resolve_lang(lang, config), session)
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - one line, never a traceback unless -v
        if verbose:
            import traceback

            traceback.print_exc()
        line, code = failure_line(exc)
        print(line, file=sys.stderr)
        return code
    for warning in result.warnings:
        print(f"apollo: warning: {warning}", file=sys.stderr)
    try:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2) if json_out else result.line, flush=True)
    except BrokenPipeError:  # `apollo heartbeat | head -1`: the reader has what it wanted
        discard_stdout()
    return 0


_VALUE_OPTIONS = {"--workspace": "workspace", "-w": "workspace", "--state-dir": "state_dir", "--agent": "agent",
                  "--lang": "lang", "--session": "session", "-s": "session"}
_FLAG_OPTIONS = {"--json": "json_out", "--verbose": "verbose", "-v": "verbose"}
#: accepted like every command's -q; the heartbeat's one line is already all it prints
_QUIET_FLAGS = ("--quiet", "-q")
_PATH_OPTIONS = ("--workspace", "-w", "--state-dir")


def fast_main(argv: list[str]) -> int | None:
    """``apollo heartbeat`` without typer. Returns None for anything it does not understand
    (``--help``, a typo) so the full CLI answers exactly as it would."""
    options: dict[str, Any] = {}
    index = 0
    while index < len(argv):
        word = argv[index]
        name, eq, inline = word.partition("=")
        if name in _VALUE_OPTIONS:
            if eq:
                value = inline
            elif index + 1 < len(argv):
                index += 1
                value = argv[index]
            else:
                return None
            if (name in _PATH_OPTIONS and Path(value).is_file()) or (name == "--lang" and value not in ("zh", "en")):
                return None  # a usage error: the full CLI words it (exit 2)
            options[_VALUE_OPTIONS[name]] = Path(value) if name in _PATH_OPTIONS else value
        elif word in _FLAG_OPTIONS:
            options[_FLAG_OPTIONS[word]] = True
        elif word not in _QUIET_FLAGS:
            return None
        index += 1
    return main(**options)
