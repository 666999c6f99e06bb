"""The context engine's own SQLite file: every message's fate, decided once, per session.

Apollo never writes OpenClaw's store; this is ``<state_dir>/apollo/engine.sqlite``, Apollo's
file. A message is known by the key the plugin computes from its role, timestamp, tool call id
and content, so the same message seen again (next turn, after a restart, from a backfill) finds
the fate it was given the first time. A turn's advancement key is written in the same
transaction as its messages, which makes ``commitTurn`` idempotent.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apollo.atomic import private_dir

SCHEMA = """
create table if not exists messages (
    session text not null,
    key text not null,
    seq integer not null,
    unit integer not null,
    role text not null,
    fate text not null,          -- keep | drop
    reason text not null,
    must_keep integer not null,
    tokens integer not null,
    evicted integer not null default 0,   -- 1 once a compaction point took it out of context
    body text not null,          -- the message as the agent stored it (JSON), for recall
    cut text,                    -- the content the model gets instead, once a compaction point cut it (JSON)
    cut_tokens integer,          -- its tokens (``tokens`` stays the whole message's: an earlier Apollo sends it whole)
    primary key (session, key)
);
create index if not exists messages_seq on messages (session, seq);
create table if not exists turns (
    session text not null,
    advancement_key text not null,
    primary key (session, advancement_key)
);
create table if not exists standing (
    session text not null,
    element text not null,
    seq integer not null,
    category text not null,
    status text not null,
    text text not null,
    primary key (session, element)
);
"""


#: what the file's standing texts are (SQLite's ``user_version``), made again from the messages whenever the
#: way they are made changes: 2, as ``engine._standing`` makes them now; 1, redacted on one line (lines joined
#: first, the read's end shown); 0, as said, secrets in clear
VERSION = 2


#: the columns a :class:`Stored` is read from (:func:`_stored`)
_STORED = "key, seq, unit, role, fate, reason, must_keep, tokens, evicted, cut is not null, cut_tokens"


def _stored(row: Sequence[Any]) -> Stored:
    key, seq, unit, role, fate, reason, must_keep, tokens, evicted, cut, cut_tokens = row
    return Stored(key, seq, unit, role, fate, reason, bool(must_keep), cut_tokens if cut else tokens, bool(evicted),
                  bool(cut), tokens)


def default_path(state_dir: Path) -> Path:
    """Where the engine keeps its state for an OpenClaw state dir."""
    return state_dir / "apollo" / "engine.sqlite"


@dataclass(slots=True)
class Stored:
    """What the engine remembers of one message (its body stays on disk)."""

    key: str
    seq: int
    unit: int
    role: str
    fate: str
    reason: str
    must_keep: bool
    #: what the message costs in context: its cut's when it is cut
    tokens: int
    evicted: bool
    #: the model gets a cut form of it (an old tool output, since a compaction point)
    cut: bool
    #: what the whole message costs (``tokens`` too while it is not cut)
    full_tokens: int


@dataclass(slots=True)
class Standing:
    """A must-keep item (decision, preference, task, open question) and whether it still stands."""

    element: str
    seq: int
    category: str
    status: str
    text: str


class Store:
    """One connection to the engine's file; every write is one transaction."""

    def __init__(self, path: Path):
        # it holds every message verbatim: owner-only, as SQLite gives its journal files the file's mode
        private_dir(path.parent)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            os.fchmod(fd, 0o600)  # a store an earlier Apollo made with the umask's mode
        finally:
            os.close(fd)
        self.path = path
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.db.execute("pragma journal_mode=wal")
        self.db.execute("pragma synchronous=normal")
        self.db.executescript(SCHEMA)
        self._add_cut_columns()
        if self.db.execute("pragma user_version").fetchone()[0] < VERSION:
            self._forget_standing_texts()

    def _add_cut_columns(self) -> None:
        """A file an Apollo before cut outputs wrote has no ``cut`` columns: added (no message is cut yet)."""
        if {"cut", "cut_tokens"} <= self._columns():
            return
        with self.db:
            self.db.execute("begin immediate")
            for name, kind in (("cut", "text"), ("cut_tokens", "integer")):
                if name not in self._columns():  # another process may have added them meanwhile
                    self.db.execute(f"alter table messages add column {name} {kind}")

    def _columns(self) -> set[str]:
        return {row[1] for row in self.db.execute("pragma table_info(messages)")}

    def _forget_standing_texts(self) -> None:
        """A file an earlier Apollo wrote holds standing texts made an earlier way (as said, secrets in
        clear; or redacted after their lines were joined, pointers recall does not take): emptied in one
        short transaction, for the engine to make again from the stored messages (``Engine._remake``)."""
        with self.db:
            self.db.execute("begin immediate")
            if self.db.execute("pragma user_version").fetchone()[0] < VERSION:
                self.db.execute("update standing set text = ''")
                self.db.execute(f"pragma user_version = {VERSION}")

    def set_texts(self, session: str, texts: list[tuple[str, str]]) -> None:
        """Standing items' texts made again, as (element, text)."""
        with self.db:
            self.db.execute("begin immediate")
            self.db.executemany("update standing set text = ? where session = ? and element = ?",
                                [(text, session, element) for element, text in texts])

    def close(self) -> None:
        self.db.close()

    def messages(self, session: str) -> list[Stored]:
        rows = self.db.execute(f"select {_STORED} from messages where session = ? order by seq", (session,))
        return [_stored(row) for row in rows]

    def cuts(self, session: str, seqs: Sequence[int] | None = None) -> dict[int, tuple[str, int]]:
        """The cut content of each message a compaction point cut (all, or those of ``seqs``) and its
        tokens, by seq."""
        rows = self.db.execute("select seq, cut, cut_tokens from messages where session = ? and cut is not null",
                               (session,))
        wanted = None if seqs is None else set(seqs)
        return {seq: (cut, tokens) for seq, cut, tokens in rows if wanted is None or seq in wanted}

    def standing(self, session: str) -> list[Standing]:
        rows = self.db.execute("select element, seq, category, status, text from standing where session = ? "
                               "order by seq, element", (session,))
        return [Standing(*row) for row in rows]

    def bodies(self, session: str, seqs: list[int]) -> dict[int, str]:
        found: dict[int, str] = {}
        for start in range(0, len(seqs), 500):
            chunk = seqs[start:start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(self.db.execute(f"select seq, body from messages where session = ? and seq in ({marks})",
                                         (session, *chunk)))
        return found

    def removed(self, session: str, ident: str = "") -> list[tuple[Stored, str]]:
        """Messages renal dropped, or a compaction point evicted or cut, oldest first, with their bodies;
        only the one ``ident`` names (its key, or ``m`` and its seq) when given: a recall by id reads
        one body, not the session's every removed one."""
        named = " and (key = ? or 'm' || seq = ?)" if ident else ""
        rows = self.db.execute(f"select {_STORED}, body from messages where session = ? and (fate = 'drop' or "
                               f"evicted = 1 or cut is not null){named} order by seq",
                               (session, ident, ident) if ident else (session,))
        return [(_stored(row[:-1]), row[-1]) for row in rows]

    def sessions(self) -> list[str]:
        """Sessions, the most recently extended first."""
        rows = self.db.execute("select session from messages group by session order by max(rowid) desc")
        return [row[0] for row in rows]

    def call_fate(self, session: str, call_id: str) -> tuple[int, str, str, bool] | None:
        """(unit, fate, reason, must-keep) of the stored message that made tool call ``call_id``:
        its result, arriving later, shares it (rare: a scan of the bodies is fine)."""
        import orjson

        rows = self.db.execute("select unit, fate, reason, must_keep, body from messages where session = ? and "
                               "role = 'assistant' and instr(body, ?) > 0 order by seq desc",
                               (session, orjson.dumps(call_id).decode()))
        for unit, fate, reason, must_keep, body in rows:
            content = orjson.loads(body).get("content")
            if any(isinstance(b, dict) and b.get("type") == "toolCall" and b.get("id") == call_id
                   for b in (content if isinstance(content, list) else [])):
                return unit, fate, reason, bool(must_keep)
        return None

    def has_turn(self, session: str, advancement_key: str) -> bool:
        row = self.db.execute("select 1 from turns where session = ? and advancement_key = ?",
                              (session, advancement_key)).fetchone()
        return row is not None

    def save(self, session: str, new: list[tuple[Stored, str]], standing: list[Standing],
             evict: Sequence[int] = (), turn: str | None = None, cut: Sequence[tuple[int, str, int]] = ()) -> None:
        """New messages, standing items (inserted or revised), evictions, cuts (seq, cut content, its
        tokens) and the turn key: all or nothing."""
        with self.db:
            self.db.execute("begin immediate")
            self.db.executemany(
                "insert or ignore into messages (session, key, seq, unit, role, fate, reason, must_keep, tokens, "
                "evicted, body) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(session, m.key, m.seq, m.unit, m.role, m.fate, m.reason, int(m.must_keep), m.tokens, int(m.evicted),
                  body) for m, body in new])
            self.db.executemany(
                "insert into standing (session, element, seq, category, status, text) values (?, ?, ?, ?, ?, ?) "
                "on conflict (session, element) do update set category = excluded.category, status = excluded.status",
                [(session, s.element, s.seq, s.category, s.status, s.text) for s in standing])
            self.db.executemany("update messages set evicted = 1 where session = ? and seq = ?",
                                [(session, seq) for seq in evict])
            # a message another engine on this file cut first keeps that cut (its model has had those bytes)
            self.db.executemany("update messages set cut = ?, cut_tokens = ? where session = ? and seq = ? and cut is null",
                                [(form, tokens, session, seq) for seq, form, tokens in cut])
            if turn is not None:
                self.db.execute("insert or ignore into turns (session, advancement_key) values (?, ?)",
                                (session, turn))
