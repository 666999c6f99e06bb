"""``apollo engine serve``: the long-running process the OpenClaw plugin talks to, JSON lines on stdio.

One request a line, ``{"id", "op", ...}``; one answer a line, ``{"id", "ok": true, "result"}`` or
``{"id", "ok": false, "error"}``. Ops: ``assemble``, ``commit``, ``compact``, ``recall``, ``ping``.
A plugin that hands the model the cut content of old outputs (``result.cut``) says ``"cut": true`` in
every request; for one that does not (an earlier plugin a running gateway still holds), nothing is cut.
The process ends when its stdin closes: when OpenClaw exits, so does it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO, Any

import orjson

from apollo import jsonline
from apollo.integration.engine import Engine
from apollo.integration.engine_store import Store, default_path


def _bodies(request: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {int(index): body for index, body in (request.get("bodies") or {}).items()}


def handle(engine: Engine, request: dict[str, Any]) -> Any:
    """Answer one request (raises on a malformed one: the loop turns that into an error line)."""
    op = request.get("op")
    session = str(request.get("session") or "")
    if op == "ping":
        return {"pid": os.getpid()}
    if not session:
        raise ValueError("the request names no session")
    cut = bool(request.get("cut"))  # a plugin that hands cut outputs on says so in every request
    if cut != engine.cut_outputs:  # another client: the sessions are read again for it (cuts counted or not)
        engine.cut_outputs = cut
        engine.sessions.clear()
    if op == "assemble":
        return engine.assemble(session, list(request["keys"]), _bodies(request), request.get("budget"))
    if op == "commit":
        bodies = _bodies(request)
        messages = [(key, bodies[i]) for i, key in enumerate(request["keys"]) if i in bodies]
        return {"status": engine.commit(session, str(request["turn"]), messages)}
    if op == "compact":
        return engine.compact(session, request.get("budget"))
    if op == "recall":
        return {"found": engine.recall(session, str(request.get("query") or ""), str(request.get("ident") or ""),
                                       int(request.get("limit") or 5))}
    raise ValueError(f"unknown op {op!r}")


def serve(state_dir: Path, workspace: Path | None = None, stdin: IO[bytes] | None = None,
          stdout: IO[bytes] | None = None) -> int:
    """Answer requests until stdin closes."""
    from apollo import config as config_mod

    source = stdin or sys.stdin.buffer
    sink = stdout or sys.stdout.buffer
    engine = Engine(Store(default_path(state_dir)), config_mod.load(workspace))
    try:
        for line in source:
            if not line.strip():
                continue
            request_id = None
            try:
                # (a message's lone surrogate, half of an emoji, which JSON.stringify writes as "\\ud83d")
                request = jsonline.loads_with_lone_surrogates(line)
                request_id = request.get("id")
                answer = {"id": request_id, "ok": True, "result": handle(engine, request)}
            except Exception as exc:  # noqa: BLE001 - one bad request must not end the session's engine
                answer = {"id": request_id, "ok": False, "error": f"{type(exc).__name__}: {exc}"}
            sink.write(orjson.dumps(answer) + b"\n")
            sink.flush()
    finally:
        engine.store.close()
    return 0
