"""Which session is current, over any mix of indexed sessions, unindexed files, Apollo's own outputs
and modification times (ties included): the index wins, Apollo's outputs never count."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from apollo.transcript.discovery import current_session
from apollo.workspace import Paths

_SESSION = st.fixed_dictionaries({
    "indexed": st.booleans(),
    "updated": st.integers(1_700_000_000_000, 1_700_000_009_000),
    "mtime": st.sampled_from([1_700_000_000, 1_700_000_005, 1_800_000_000]),  # ties are common
    "copies": st.integers(0, 2),  # filtered copies an older Apollo left beside it
})


@settings(max_examples=80, deadline=None)
@given(sessions=st.lists(_SESSION, min_size=1, max_size=6))
def test_the_index_wins_and_apollos_outputs_never_count(sessions: list[dict]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        folder = state / "agents" / "main" / "sessions"
        folder.mkdir(parents=True)
        index = {}
        for number, session in enumerate(sessions):
            sid = f"{number:08x}-0000-4000-8000-000000000000"
            path = folder / f"{sid}.jsonl"
            path.write_text(json.dumps({"type": "session", "version": 3, "id": sid}) + "\n", encoding="utf-8")
            written = [path]
            for copy in range(session["copies"]):
                written.append(folder / (f"{sid}.filtered.jsonl" if copy == 0 else f"{sid}.filtered-{copy + 1}.jsonl"))
                written[-1].write_bytes(path.read_bytes())
            for item in written:
                os.utime(item, (session["mtime"], session["mtime"] + (60 if item != path else 0)))
            if session["indexed"]:
                index[f"agent:main:s{number}"] = {"sessionId": sid, "updatedAt": session["updated"]}
        (folder / "sessions.json").write_text(json.dumps(index), encoding="utf-8")
        current = current_session(Paths(Path(tmp) / "workspace", state))
        assert ".filtered" not in current.name
        numbered = {f"{n:08x}-0000-4000-8000-000000000000.jsonl": s for n, s in enumerate(sessions)}
        chosen = numbered[current.name]
        if any(s["indexed"] for s in sessions):
            assert chosen["indexed"]
            assert chosen["updated"] == max(s["updated"] for s in sessions if s["indexed"])
        else:
            assert chosen["mtime"] == max(s["mtime"] for s in sessions)
