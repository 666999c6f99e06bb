"""A small real-layout OpenClaw install for the first-hour tests: a workspace, a state dir with
``agents/main/sessions/<id>.jsonl`` transcripts (pi session format) and ``sessions.json``."""

from __future__ import annotations

import json
import os
from pathlib import Path


def session_lines(session_id: str, turns: list[tuple[str, str]]) -> list[str]:
    """A pi/OpenClaw session: the header, then one user and one assistant message per turn."""
    lines = [json.dumps({"type": "session", "version": 3, "id": session_id, "timestamp": "2026-11-24T00:00:00.000Z",
                         "cwd": "/home/someone/.openclaw/workspace"})]
    parent = None
    for number, (user, assistant) in enumerate(turns):
        for role, text in (("user", user), ("assistant", assistant)):
            entry_id = f"{role[0]}{number:07x}"
            message = {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 1795481251016 + number}
            lines.append(json.dumps({"type": "message", "id": entry_id, "parentId": parent,
                                     "timestamp": "2026-11-24T00:47:31.061Z", "message": message},
                                    ensure_ascii=False))
            parent = entry_id
    return lines


class OpenClawHome:
    """``root/workspace`` and ``root/state`` (``agents/main/sessions``)."""

    def __init__(self, root: Path):
        self.workspace = root / "workspace"
        self.state = root / "state"
        self.sessions = self.state / "agents" / "main" / "sessions"
        self.workspace.mkdir(parents=True)
        self.sessions.mkdir(parents=True)

    def where(self) -> list[str]:
        return ["-w", str(self.workspace), "--state-dir", str(self.state)]

    def add(self, session_id: str, turns: list[tuple[str, str]]) -> Path:
        path = self.sessions / f"{session_id}.jsonl"
        path.write_text("\n".join(session_lines(session_id, turns)) + "\n", encoding="utf-8")
        return path

    def index(self, entries: dict[str, tuple[str, int]]) -> Path:
        """``sessions.json``: session key -> (session id, updatedAt in ms)."""
        index = {key: {"sessionId": sid, "updatedAt": updated,
                       "sessionFile": f"/home/someone/.openclaw/agents/main/sessions/{sid}.jsonl"}
                 for key, (sid, updated) in entries.items()}
        path = self.sessions / "sessions.json"
        path.write_text(json.dumps(index, indent=2), encoding="utf-8")
        return path

    def same_mtime(self, seconds: float = 1_790_000_000) -> None:
        """Every file of the store with one modification time, as after a backup or a git checkout."""
        for path in self.sessions.iterdir():
            os.utime(path, (seconds, seconds))


def chat(turns: int, words: str = "we discussed the deployment plan and the next step") -> list[tuple[str, str]]:
    return [(f"{words} {n}", f"ok, noted point {n}: {words}") for n in range(turns)]
