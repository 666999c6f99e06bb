"""OpenClaw 2026.9+ SQLite store: ``agents/<agent>/agent/openclaw-agent.sqlite``.

Table ``transcript_events(session_id, seq, event_json, created_at, event_zstd,
event_utf8_bytes, navigation_json)`` holds the same events a legacy session JSONL has, one
row per line in ``seq`` order; a large event is zstd-compressed into ``event_zstd`` instead of
``event_json``. ``session_windows(session_id, session_key, updated_at, ...)`` names the
sessions (measured on openclaw 2026.9.6; see tests/realclient).

The database is always opened read-only (``mode=ro``), so a running gateway is never
disturbed. Reading reuses the JSONL engine of :mod:`apollo.transcript.openclaw` over the rows
(``line`` = position of the event, ``seq + 1``). Writing never touches the database: it writes
a session JSONL that ``openclaw doctor --session-sqlite import`` takes back.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from urllib.parse import quote

from apollo.errors import InputError
from apollo.records import slotted
from apollo.transcript.base import Counter, LineSource, TranscriptFormat, atomic_output
from apollo.transcript.model import Edit, Element, ReadWarning

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

SQLITE_MAGIC = b"SQLite format 3\x00"


@slotted(frozen=True)
class SessionRef:
    """One session inside an OpenClaw SQLite store; ``str()`` gives ``<db>#<session id>``."""

    db: Path
    session_id: str

    def __str__(self) -> str:
        return f"{self.db}#{self.session_id}"

    @property
    def name(self) -> str:
        return self.session_id


@slotted(frozen=True)
class StoredSession:
    session_id: str
    session_key: str | None
    updated_at_ms: int | None
    events: int


def connect_readonly(db: Path) -> sqlite3.Connection:
    """Read-only, never creating or migrating anything (``file:...?mode=ro``)."""
    import sqlite3  # here: detecting a session's format loads this module, which rarely reads a store

    if not db.is_file():
        raise InputError("no OpenClaw SQLite store here", where=str(db))
    try:
        connection = sqlite3.connect(f"file:{quote(str(db.absolute()))}?mode=ro", uri=True)
        connection.execute("select 1 from transcript_events limit 1")
    except sqlite3.Error as exc:
        raise InputError(f"not an OpenClaw transcript store ({exc})", where=str(db),
                         hint="expected agents/<agent>/agent/openclaw-agent.sqlite from OpenClaw 2026.9+") from None
    return connection


def list_stored_sessions(db: Path) -> list[StoredSession]:
    """Every session with events, newest first.

    Activity is the later of ``session_windows.updated_at`` (its last transcript event) and
    ``session_nodes.updated_at`` (the session index's ``updatedAt``); else the last event's time.
    """
    connection = connect_readonly(db)
    try:
        tables = {row[0] for row in connection.execute("select name from sqlite_master where type='table'")}
        rows = connection.execute(
            "select session_id, count(*), max(created_at) from transcript_events group by session_id").fetchall()
        keys: dict[str, str] = {}
        updated: dict[str, int] = {}
        if "session_windows" in tables:
            for sid, key, at in connection.execute("select session_id, session_key, updated_at from session_windows"):
                keys[sid] = key
                updated[sid] = max(updated.get(sid, 0), at or 0)
        if "session_nodes" in tables:  # the session index entry's updatedAt, as sessions.json had it
            for sid, key, at in connection.execute(
                    "select current_session_id, session_key, updated_at from session_nodes"):
                keys.setdefault(sid, key)
                updated[sid] = max(updated.get(sid, 0), at or 0)
    finally:
        connection.close()
    sessions = [StoredSession(sid, keys.get(sid), updated.get(sid) or last, n) for sid, n, last in rows]
    return sorted(sessions, key=lambda s: s.updated_at_ms or 0, reverse=True)


def resolve_ref(source: Path | SessionRef, session_id: str | None = None) -> SessionRef:
    """A session of the store: the one asked for (id or unique prefix), else the most recent."""
    if isinstance(source, SessionRef):
        if session_id is None:
            return source
        source = source.db
    sessions = list_stored_sessions(Path(source))
    if not sessions:
        raise InputError("the SQLite store holds no transcript events", where=str(source))
    if session_id is None:
        return SessionRef(Path(source), sessions[0].session_id)
    matches = [s for s in sessions if s.session_id == session_id] or \
              [s for s in sessions if s.session_id.startswith(session_id)]
    if len(matches) != 1:
        known = ", ".join(s.session_id for s in sessions[:5])
        what = "no session" if not matches else f"{len(matches)} sessions"
        raise InputError(f"{what} with id {session_id!r} in the store", where=str(source),
                         hint=f"sessions here: {known}")
    return SessionRef(Path(source), matches[0].session_id)


def event_lines(ref: SessionRef) -> LineSource:
    """The session's events as JSONL lines, in ``seq`` order, decompressing ``event_zstd`` rows."""

    def generate() -> Iterator[tuple[int, bytes]]:
        import zstandard

        decompressor = zstandard.ZstdDecompressor()
        connection = connect_readonly(ref.db)
        try:
            cursor = connection.execute(
                "select seq, event_json, event_zstd, event_utf8_bytes from transcript_events "
                "where session_id = ? order by seq", (ref.session_id,))
            for seq, text, packed, size in cursor:
                if text is not None:
                    raw = text.encode("utf-8", "surrogatepass")
                else:
                    try:
                        raw = decompressor.decompress(packed, max_output_size=max(size or 0, len(packed) * 64))
                    except zstandard.ZstdError as exc:
                        raw = f'{{"apollo_unreadable_event":{seq},"error":"{exc}"}}'.encode()
                yield seq + 1, raw + b"\n"
        finally:
            connection.close()

    return generate


class OpenClawSqlite(TranscriptFormat):
    name = "openclaw-sqlite"
    where = ("OpenClaw 2026.9+: ~/.openclaw/agents/<agent>/agent/openclaw-agent.sqlite (table transcript_events); "
             "read-only, written back as a session JSONL to import")

    def sniff(self, path: Path, head: bytes) -> bool:
        return head.startswith(SQLITE_MAGIC)

    def iter_elements(self, path: Path | SessionRef, warnings: list[ReadWarning],  # type: ignore[override]
                      count: Counter) -> Iterator[Element]:
        ref = resolve_ref(path)
        from apollo.transcript.openclaw_read import iter_session_elements

        return iter_session_elements(event_lines(ref), str(ref), warnings, count)

    def write(self, source: Path | SessionRef, dest: Path, edits: Mapping[str, Edit]) -> None:  # type: ignore[override]
        """A session JSONL for ``openclaw doctor --session-sqlite import``; never into the live store."""
        ref = resolve_ref(source)
        if edits:
            from apollo.transcript.openclaw_write import write_session

            write_session(event_lines(ref), str(ref), dest, edits)
            return
        with atomic_output(dest) as out:
            for _number, raw in event_lines(ref)():
                out.write(raw)
