"""Which session is the agent's current one.

Legacy store (OpenClaw before 2026.9): ``<state>/agents/<agent>/sessions/sessions.json`` maps
session keys to ``{sessionId, updatedAt (ms), sessionFile?}``; transcripts are
``<sessionId>.jsonl`` beside it (archived ones renamed ``*.jsonl.reset.<time>`` /
``*.jsonl.deleted.<time>``). Files the index does not name count by their modification time,
and only when the index names no live session: OpenClaw rewrites the index on every turn, while
modification times tie after a backup or a ``git checkout`` and say nothing then. Apollo's own
outputs (``*.filtered.jsonl``, ``*.filtered-N.jsonl``, left there by older versions) are never
sessions. New store (2026.9+): ``<state>/agents/<agent>/agent/openclaw-agent.sqlite``, whose
``session_windows`` table carries ``updated_at`` per session. The current session is the most
recently updated one across the index and the SQLite store, archived transcripts excepted.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from apollo.errors import InputError
from apollo.records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from apollo.transcript.openclaw_sqlite import SessionRef

_ARCHIVED = re.compile(r"\.jsonl\.(reset|deleted)\.")
#: what ``apollo renal filter`` writes (apollo.renal.filter.default_output): never a session
APOLLO_OUTPUT = re.compile(r"\.filtered(-\d+)?\.[^.]+$")


class SessionInfo(Record):
    __slots__ = ("session_id", "source", "updated_at_ms", "store", "key", "archived")

    def __init__(self, session_id: str, source: Path | SessionRef, updated_at_ms: int | None, store: str,
                 key: str | None = None, archived: bool = False):
        self.session_id = session_id
        self.source = source
        self.updated_at_ms = updated_at_ms
        self.store = store  # "jsonl" | "sqlite"
        #: the sessions.json or SQLite session key; None for a file that only its modification time dates
        self.key = key
        self.archived = archived


def _legacy_sessions(sessions_dir: Path, index_file: Path) -> list[SessionInfo]:
    found: dict[Path, SessionInfo] = {}
    if index_file.is_file():
        try:
            # json, not orjson: an index of a few kB does not repay importing it on every heartbeat
            index = json.loads(index_file.read_bytes())
        except ValueError as exc:
            raise InputError(f"sessions.json is not valid JSON ({exc})", where=str(index_file),
                             hint="pass the session file as PATH instead") from None
        for key, entry in (index.items() if isinstance(index, dict) else []):
            if not isinstance(entry, dict) or not isinstance(entry.get("sessionId"), str):
                continue
            path = _session_file(sessions_dir, entry)
            if path is None:
                continue
            updated = entry.get("updatedAt")
            found[path] = SessionInfo(entry["sessionId"], path, updated if isinstance(updated, int) else None,
                                      "jsonl", key)
    if sessions_dir.is_dir():
        for path in sorted(sessions_dir.iterdir()):
            if path in found or APOLLO_OUTPUT.search(path.name) or not path.is_file():
                continue
            archived = bool(_ARCHIVED.search(path.name))
            if path.suffix == ".jsonl" or archived:
                session_id = path.name.split(".jsonl")[0]
                found[path] = SessionInfo(session_id, path, path.stat().st_mtime_ns // 1_000_000, "jsonl",
                                          archived=archived)
    return list(found.values())


def _session_file(sessions_dir: Path, entry: dict) -> Path | None:
    """``sessionFile`` when it exists (it may be absolute from another home), else by name here."""
    candidates = []
    if isinstance(entry.get("sessionFile"), str):
        named = Path(entry["sessionFile"])
        candidates += [named, sessions_dir / named.name]
    candidates.append(sessions_dir / f"{entry['sessionId']}.jsonl")
    return next((c for c in candidates if c.is_file()), None)


def in_agent_store(source: Path, fmt: str) -> bool:
    """Whether ``source`` lies in a folder an agent reads its sessions from (OpenClaw's
    ``agents/<agent>/sessions/`` or SQLite store, Claude Code's ``~/.claude/projects/``): Apollo
    writes nothing there, or the agent (and the next check) would take it for a session."""
    folder = source.parent
    if fmt == "openclaw-sqlite" or (folder / "sessions.json").is_file():
        return True
    if folder.name == "sessions" and folder.parent.parent.name == "agents":
        return True
    return folder.parent.name == "projects" and folder.parent.parent.name == ".claude"


def list_sessions(paths) -> list[SessionInfo]:  # noqa: ANN001 - apollo.workspace.Paths
    """Every session of the agent in both stores, most recently updated first."""
    sessions = _legacy_sessions(paths.sessions_dir, paths.sessions_index)
    if paths.sqlite_store.is_file():
        from apollo.transcript.openclaw_sqlite import SessionRef, list_stored_sessions

        sessions += [SessionInfo(s.session_id, SessionRef(paths.sqlite_store, s.session_id), s.updated_at_ms,
                                 "sqlite", s.session_key) for s in list_stored_sessions(paths.sqlite_store)]
    # live before archived; then what an index dates (sessions.json, SQLite) before what only a
    # modification time dates; then the most recent
    return sorted(sessions, key=lambda s: (not s.archived, s.key is not None or s.store == "sqlite",
                                             s.updated_at_ms or 0), reverse=True)


def current_session(paths, session_id: str | None = None) -> Path | SessionRef:  # noqa: ANN001
    """The session asked for by id (or unique id prefix), else the most recently active one."""
    sessions = list_sessions(paths)
    looked = (f"looked in {paths.sessions_index} (legacy index), {paths.sessions_dir} (JSONL files) "
              f"and {paths.sqlite_store} (OpenClaw 2026.9+ store)")
    if session_id is not None:
        matches = [s for s in sessions if s.session_id == session_id] or \
                  [s for s in sessions if s.session_id.startswith(session_id)]
        if not matches:
            raise InputError(f"no session {session_id!r} for agent {paths.agent!r}", where=str(paths.agent_dir),
                             hint=looked)
        if len({s.session_id for s in matches}) > 1:
            raise InputError(f"{session_id!r} matches {len(matches)} sessions", where=str(paths.agent_dir),
                             hint="give more of the id: " + ", ".join(s.session_id for s in matches[:4]))
        return matches[0].source
    live = [s for s in sessions if not s.archived]
    if not live:
        raise InputError(f"no session found for agent {paths.agent!r}", where=str(paths.agent_dir),
                         hint=looked + "; pass a transcript PATH, --state-dir or --agent")
    return live[0].source


def resolve_source(paths, path: Path | None = None, session_id: str | None = None) -> Path | SessionRef:  # noqa: ANN001
    """What a command's INPUT and ``--session`` name: INPUT as given (one of its sessions with
    ``--session``, for an OpenClaw SQLite store); without INPUT the agent's session ``--session``,
    else its current one."""
    if path is None:
        return current_session(paths, session_id)
    if session_id is None and path.suffix != ".sqlite":
        return path
    from apollo.transcript import detect
    from apollo.transcript.openclaw_sqlite import resolve_ref

    if session_id is not None and path.is_file() and detect(path).name != "openclaw-sqlite":
        from apollo.errors import UsageError

        raise UsageError("--session picks a session of an OpenClaw .sqlite store, or of the agent's sessions "
                         "without INPUT", where=str(path), hint="drop --session, or drop INPUT")
    return resolve_ref(path, session_id)
