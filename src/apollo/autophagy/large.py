"""Tier 3: the agent's whole conversation context, in OpenClaw's legacy and SQLite stores.

Legacy store: ``<state>/agents/<agent>/sessions/*.jsonl`` and ``sessions.json`` (left as a
valid, empty ``{}`` so OpenClaw starts fresh sessions). SQLite store (OpenClaw 2026.9+):
``<state>/agents/<agent>/agent/openclaw-agent.sqlite``; a consistent copy is taken with
SQLite's backup API, then the session rows go in one transaction (:func:`remove.wipe_sessions`).
Nothing happens while OpenClaw's gateway runs: OpenClaw 2026.9 holds JSON lock files
(``gateway.<hash>.lock``: pid, process start time, config path, port) in
``<state>/tmp/openclaw-<uid>/``, and the gateway listens on its port (18789 by default).
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import stat
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from apollo.autophagy.checks import strip_jsonc
from apollo.autophagy.fs import Root, StatFingerprint, Unsafe, display, iter_fd, open_file, read_fd
from apollo.autophagy.plan import Item, RootInfo
from apollo.autophagy.rules import AutophagyRules, Gateway

if TYPE_CHECKING:
    from apollo.config import Config
    from apollo.workspace import Paths

SUMMARY = "summary.json"
SUMMARY_CATEGORIES = ("decision", "preference", "task", "question")


# -- is OpenClaw running? -------------------------------------------------------------------------

@dataclass(frozen=True)
class Running:
    pid: int | None
    evidence: str

    def message(self, spec: Gateway, lang: str) -> str:
        pid = f", pid {self.pid}" if self.pid else ""
        if lang == "zh":
            return f"OpenClaw 网关正在运行（{self.evidence}）；" + spec.stop_hint_zh.format(pid=pid.replace(", ", "，"))
        return f"the OpenClaw gateway is running ({self.evidence}); " + spec.stop_hint.format(pid=pid)


def _process_start(pid: int) -> int | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
        return int(raw[raw.rindex(")") + 2:].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _alive(pid: int, start_time: object) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    if isinstance(start_time, int) and Path("/proc").is_dir():
        current = _process_start(pid)
        if current is not None and current != start_time:
            return False  # the pid was reused by another process: a stale lock
    return True


def _same_state_dir(payload: dict[str, Any], state_dir: Path) -> bool:
    for key, transform in (("stateDir", lambda p: p), ("configPath", lambda p: p.parent)):
        value = payload.get(key)
        if isinstance(value, str) and value:
            return os.path.realpath(transform(Path(value))) == os.path.realpath(state_dir)
    return True  # a lock that does not say whose it is counts (safer)


def _configured_port(state_dir: Path, spec: Gateway) -> int | None:
    path = state_dir / spec.config_file
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    try:
        config = json.loads(strip_jsonc(text))
    except ValueError:
        return spec.default_port
    port = config.get("gateway", {}).get("port") if isinstance(config, dict) else None
    return port if isinstance(port, int) and 0 < port < 65536 else spec.default_port


def _being_written(lock: Path, spec: Gateway) -> bool:
    """OpenClaw creates its lock file first and writes the owner into it after: a lock without
    a readable owner that is younger than OpenClaw's own stale window is a gateway starting."""
    try:
        age = time.time() - lock.stat().st_mtime
    except OSError:
        return False
    return abs(age) < spec.unwritten_lock_seconds  # a date ahead (the clock set back) is no younger


def gateway_running(state_dir: Path, spec: Gateway) -> Running | None:
    """Evidence that OpenClaw is running on this state dir: a live lock owner, or a listener
    on the gateway port configured in its ``openclaw.json``."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    for template in spec.lock_dirs:
        folder = Path(template.format(state=state_dir, uid=uid, tmp=tempfile.gettempdir()))
        try:
            locks = sorted(folder.glob(spec.lock_pattern))
        except OSError:
            continue
        for lock in locks:
            try:
                payload = json.loads(lock.read_text(encoding="utf-8").strip())
            except (OSError, ValueError, UnicodeDecodeError):
                payload = None
            if not isinstance(payload, dict) or not isinstance(payload.get("pid"), int):
                if _being_written(lock, spec):
                    return Running(None, f"lock {lock}, still being written")
                continue
            if _same_state_dir(payload, state_dir) and _alive(payload["pid"], payload.get("startTime")):
                return Running(payload["pid"], f"lock {lock}")
    port = _configured_port(state_dir, spec)
    if port is not None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.3):
                return Running(None, f"something listens on 127.0.0.1:{port}, the gateway port of {state_dir}")
        except OSError:
            pass
    return None


# -- what the large tier would remove ------------------------------------------------------------

@dataclass
class LargeScan:
    items: list[Item]
    roots: dict[str, RootInfo]
    notes: list[dict[str, str]]


def _uri(path: Path, mode: str = "ro") -> str:
    return f"file:{quote(str(path))}?mode={mode}"


def _read_only(store: Path) -> sqlite3.Connection:
    """A connection that writes nothing next to the store: ``immutable`` when it has no -wal
    and -shm (opening it even read-only would create them), plain read-only when a writer left
    them (then they hold what the store says)."""
    sidecars = [Path(f"{store}-wal").exists(), Path(f"{store}-shm").exists()]
    if not any(sidecars):
        return sqlite3.connect(f"file:{quote(str(store))}?mode=ro&immutable=1", uri=True)
    return sqlite3.connect(_uri(store), uri=True)


def check_wipeable(store: Path) -> None:
    """Raise :class:`Unsafe` unless the store can be wiped now, whole: a store with another
    hard link (a backup made with ``ln``) would be emptied under that name too, and a locked
    store would leave the run half done (transcripts gone, sessions kept)."""
    st = os.stat(store, follow_symlinks=False)
    if st.st_nlink > 1:
        raise Unsafe(f"{store} has {st.st_nlink} hard links; wiping it in place would empty the other names too "
                     "(a backup?)", f"{store} 有 {st.st_nlink} 个硬链接；就地清空会连其他名字一起清空（备份？）", "links")
    connection = sqlite3.connect(_uri(store, "rw"), uri=True, timeout=0, isolation_level=None)
    try:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("ROLLBACK")
    except sqlite3.OperationalError as exc:
        raise Unsafe(f"the store is busy or locked ({exc}); is OpenClaw running?",
                     f"存储正忙或被锁定（{exc}）；OpenClaw 是否在运行？", "busy") from None
    finally:
        connection.close()


def read_sessions(connection: sqlite3.Connection, session_tables: list[str], transcript: str) -> list[dict[str, Any]]:
    tables = {r[0] for r in connection.execute("select name from sqlite_master where type='table'")}
    sessions: dict[str, dict[str, Any]] = {}
    if "session_windows" in tables and "session_windows" in session_tables:
        for sid, key in connection.execute("select session_id, session_key from session_windows"):
            sessions[sid] = {"session_id": sid, "session_key": key, "events": 0, "max_seq": None, "bytes": 0}
    if "session_nodes" in tables and "session_nodes" in session_tables:
        for key, sid in connection.execute("select session_key, current_session_id from session_nodes"):
            sessions.setdefault(sid, {"session_id": sid, "session_key": key, "events": 0, "max_seq": None, "bytes": 0})
    if transcript in tables:
        columns = {r[1] for r in connection.execute(f'pragma table_info("{transcript}")')}
        size = "coalesce(event_utf8_bytes, length(event_json), 0)" if "event_utf8_bytes" in columns \
            else "length(event_json)"
        for sid, count, last, total in connection.execute(
                f'select session_id, count(*), max(seq), sum({size}) from "{transcript}" group by session_id'):
            entry = sessions.setdefault(sid, {"session_id": sid, "session_key": None, "events": 0, "max_seq": None,
                                              "bytes": 0})
            entry.update(events=count, max_seq=last, bytes=total or 0)
    return sorted(sessions.values(), key=lambda s: s["session_id"])


def store_agent(connection: sqlite3.Connection) -> str | None:
    try:
        row = connection.execute("select agent_id from schema_meta where role = 'agent' or meta_key = 'primary'").fetchone()
    except sqlite3.Error:
        return None
    return row[0] if row else None


def scan(paths: Paths, rules: AutophagyRules) -> LargeScan:
    """The session files, the index and the SQLite store of ``paths.agent``."""
    spec = rules.data.large
    items: list[Item] = []
    roots: dict[str, RootInfo] = {}
    notes: list[dict[str, str]] = []
    if paths.sessions_dir.is_dir():
        with Root(paths.sessions_dir, label="sessions") as root:
            roots["sessions"] = RootInfo(str(root.path), root.dev, root.ino)
            with os.scandir(root.fd) as it:
                listing = sorted(it, key=lambda e: e.name)
            for entry in listing:
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISLNK(st.st_mode):
                    notes.append({"path": display(entry.name), "reason": "symlink; never followed",
                                  "reason_zh": "符号链接，绝不跟随"})
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue
                if entry.name == spec.legacy.index:
                    entries = _index_entries(root, entry.name)
                    if entries or st.st_size != len(spec.legacy.empty_index.encode()):
                        items.append(Item("", "session_index", "context", "sessions", [entry.name], "index", st.st_size,
                                          f"session index ({entries} entries); left as an empty {{}} so OpenClaw starts fresh",
                                          f"会话索引（{entries} 条）；留下空的 {{}}，OpenClaw 会开新会话",
                                          fp=StatFingerprint.of(st).to_list()))
                elif rules.legacy_sessions.match(entry.name, entry.name, False):
                    lines = _count_lines(root, entry.name)
                    items.append(Item("", "session_transcript", "context", "sessions", [entry.name], "unlink", st.st_size,
                                      f"session transcript ({lines} entries)", f"会话记录（{lines} 条）",
                                      fp=StatFingerprint.of(st).to_list(), count=lines))
    store = paths.agent_dir / spec.sqlite.store
    if store.is_file() and not store.is_symlink():
        with Root(paths.agent_dir, label="agent") as root:
            roots["agent"] = RootInfo(str(root.path), root.dev, root.ino)
            parts = tuple(spec.sqlite.store.split("/"))
            st = root.lstat(parts)
        connection = _read_only(store)
        try:
            owner = store_agent(connection)
            sessions = read_sessions(connection, spec.sqlite.session_tables, spec.sqlite.transcript_table)
        finally:
            connection.close()
        if owner not in (None, paths.agent):
            raise Unsafe(f"{store} belongs to agent {owner!r}, not {paths.agent!r}",
                         f"{store} 属于代理 {owner!r}，不是 {paths.agent!r}")
        if sessions:
            events = sum(s["events"] for s in sessions)
            items.append(Item("", "session_store", "context", "agent", list(parts), "sqlite",
                              sum(s["bytes"] for s in sessions),
                              f"{len(sessions)} sessions, {events} transcript events in the SQLite store",
                              f"SQLite 存储中的 {len(sessions)} 个会话、{events} 条记录",
                              fp=StatFingerprint.of(st).to_list(), sessions=sessions, count=events))
    return LargeScan(items, roots, notes)


def qualifies(rules: AutophagyRules, item: Item) -> bool:
    """Whether a planned item outside the workspace is one of the files :func:`scan` picks
    (plans are files a person can edit: nothing else of the agent's may be reached)."""
    spec = rules.data.large
    parts = tuple(item.parts)
    if item.root == "sessions" and len(parts) == 1:
        if parts[0] == spec.legacy.index:
            return item.action == "index"
        return item.action == "unlink" and rules.legacy_sessions.match(parts[0], parts[0], False) is not None
    return item.root == "agent" and item.action == "sqlite" and parts == tuple(spec.sqlite.store.split("/"))


def _count_lines(root: Root, name: str) -> int:
    fd = open_file(root.fd, name)
    try:
        return sum(chunk.count(b"\n") for chunk in iter_fd(fd))
    finally:
        os.close(fd)


def _index_entries(root: Root, name: str) -> int:
    try:
        fd = open_file(root.fd, name)
        try:
            value = json.loads(read_fd(fd).decode("utf-8"))
        finally:
            os.close(fd)
    except (OSError, Unsafe, ValueError, UnicodeDecodeError):
        return 0
    return len(value) if isinstance(value, dict) else 0


def verifier(planned: list[dict[str, Any]], rules: AutophagyRules, agent: str):
    """Inside the wipe transaction: the store still holds exactly the planned sessions."""
    spec = rules.data.large.sqlite

    def verify(connection: sqlite3.Connection) -> None:
        owner = store_agent(connection)
        if owner not in (None, agent):
            raise Unsafe(f"the store belongs to agent {owner!r}", f"该存储属于代理 {owner!r}", "changed")
        if read_sessions(connection, spec.session_tables, spec.transcript_table) != planned:
            raise Unsafe("the sessions changed since the plan (new messages?)", "制定计划后会话有变化（有新消息？）",
                         "changed")

    return verify


def backup(store: Path, dest: Path) -> None:
    """A consistent copy of a live SQLite database (SQLite's online backup API), fsynced."""
    source = sqlite3.connect(_uri(store), uri=True)
    target = sqlite3.connect(str(dest))
    try:
        source.backup(target)
    finally:
        target.close()
        source.close()
    fd = os.open(dest, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# -- the summary of what is wiped --------------------------------------------------------------

def summarize(sources: list[tuple[str, Any]], config: Config) -> dict[str, Any]:
    """Decisions, preferences, tasks and open questions of each wiped session (renal's
    classifier); where that is not available, the user's own messages."""
    from apollo.transcript import read
    from apollo.transcript.model import Kind, Role

    classify: Callable[..., list[Any]] | None
    try:
        from apollo.renal.classify import classify
    except ImportError:  # renal not installed in this build: fall back to what the user said
        classify = None
    sessions = []
    for label, source in sources:
        entry: dict[str, Any] = {"session": label}
        try:
            transcript = read(source, "openclaw" if isinstance(source, Path) else "auto")
        except Exception as exc:  # noqa: BLE001 - a summary must never stop the snapshot
            entry["error"] = f"{type(exc).__name__}: {exc}"
            sessions.append(entry)
            continue
        elements = transcript.elements
        entry["elements"] = len(elements)
        if classify is not None:
            entry["method"] = "renal.classify"
            verdicts = classify(elements, config)
            for category in SUMMARY_CATEGORIES:
                entry[category] = [{"id": e.id, "status": v.status, "text": e.text[:500]}
                                   for e, v in zip(elements, verdicts, strict=False) if v.category == category]
        else:
            entry["method"] = "user messages"
            entry["user_messages"] = [{"id": e.id, "text": e.text[:500]} for e in elements
                                      if e.role == Role.USER and e.kind == Kind.TEXT]
        sessions.append(entry)
    return {"sessions": sessions}
