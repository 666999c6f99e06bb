"""Second adversarial pass: secrets a user pasted — into a memory entry, a task title, a file
name — never land in clear in the cleanup log, which sits in the workspace (often pushed to git)."""

from __future__ import annotations

import json

from autophagy.support import Ws

GITHUB = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A0"
AWS = "AKIAIOSFODNN7EXAMPLE"
OPENAI = "sk-proj-Zq8Xv3Lm9Tr2Wn5Yp7Kd1Hs4Fg6Jb0Ac3Ee5Gi7"


def test_the_cleanup_log_never_holds_a_pasted_secret(ws: Ws) -> None:
    ws.put("MEMORY.md", f"# Memory\n\n- [outdated] the deploy key is {GITHUB}\n- keep this\n")
    ws.put(".dream/task-state.json", json.dumps({"tasks": [{"title": f"rotate {OPENAI} today",
                                                            "status": "in_progress", "files": ["keep/"]}]}))
    ws.put(f"{AWS}-backup.tmp", "x")
    assert ws.small()["deleted"] and ws.medium()["deleted"]
    log = (ws.workspace / ".autophagy" / "cleanup-log.md").read_text(encoding="utf-8")
    assert "REDACTED" in log and "backup.tmp" in log and "rotate" in log
    for secret in (GITHUB, AWS, OPENAI):
        assert secret not in log
    assert GITHUB not in (ws.workspace / "MEMORY.md").read_text(encoding="utf-8")  # the cut itself happened
