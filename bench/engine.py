"""The context engine in its warm process: what one OpenClaw turn costs it on a long session.

A real ``apollo engine serve`` process gets, over its stdin, what the plugin sends: first a
5,000-message session (every body: the backfill), then ``assemble`` with the keys alone, as on
every later turn, timed from the client's side (encoding, the pipe and decoding included); then
turns committed on top, and the process's peak memory read from ``/proc``. Every request says
``cut`` as the plugin's do. Last, compaction points: the same session under budgets it exceeds
(old tool output cut, then units evicted), each in a fresh session, timed once. These goals are
absolute (the issue states them so): the engine has no reference to be a ratio of.
"""

from __future__ import annotations

import json
import random
import subprocess
import time
from pathlib import Path
from typing import Any

#: messages in the measured session
MESSAGES = 5000
#: timed assemble calls, and committed turns of four messages
ASSEMBLES = 200
TURNS = 50
#: the budgets of the timed compaction points, as shares of the session's kept tokens: the first
#: only cuts old tool output (the cut point), the second cuts and then evicts whole units
COMPACTIONS = (1.3, 0.5)

USER = ["Please look at {f} and fix the failing test.", "We decided to keep {f} as the single entry point.",
        "I prefer small commits for changes in {f}.", "OK", "thanks!", "Can you check the build for {f}?",
        "Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or repeat old tasks "
        "from prior chats. If nothing needs attention, reply HEARTBEAT_OK."]
ASSISTANT = ["Done: {f} now passes its tests.", "OK", "Noted.", "HEARTBEAT_OK",
             "I changed {f}: the loop no longer reads past the end of the buffer."]


def session(count: int, seed: int) -> list[dict[str, Any]]:
    """A realistic mix: requests, decisions, acknowledgements, heartbeats, tool calls with results."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    clock = 1_775_543_340_000
    while len(out) < count:
        name = f"src/module_{rng.randrange(400)}.py"
        clock += 1000
        out.append({"role": "user", "content": [{"type": "text", "text": rng.choice(USER).format(f=name)}],
                    "timestamp": clock})
        if rng.random() < 0.4:
            call = f"call_{len(out)}"
            out.append({"role": "assistant", "content": [{"type": "toolCall", "id": call, "name": "exec",
                                                          "arguments": {"command": f"pytest {name}"}}],
                        "timestamp": clock + 1, "stopReason": "toolUse"})
            out.append({"role": "toolResult", "toolCallId": call, "toolName": "exec", "isError": False,
                        "content": [{"type": "text", "text": "\n".join(f"{name}::test_{i} PASSED" for i in range(8))}],
                        "timestamp": clock + 2})
        out.append({"role": "assistant", "content": [{"type": "text", "text": rng.choice(ASSISTANT).format(f=name)}],
                    "timestamp": clock + 3, "stopReason": "stop"})
    return out[:count]


class Client:
    """JSON lines to one ``apollo engine serve``."""

    def __init__(self, apollo: str, state: Path, env: dict[str, str]):
        self.process = subprocess.Popen([apollo, "engine", "serve", "--state-dir", str(state)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, env=env)
        self.next = 0

    def ask(self, op: str, **payload: Any) -> Any:
        self.next += 1
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"id": self.next, "op": op, "cut": True, **payload}).encode() + b"\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        if not answer.get("ok"):
            raise RuntimeError(answer.get("error"))
        return answer["result"]

    def peak_rss_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _compaction_points(client: Client, base: list[dict[str, Any]], keys: list[str]) -> dict[str, float]:
    """Each budget of ``COMPACTIONS`` met by a fresh copy of the session: the assemble that crosses
    it (the one turn in many that rewrites the prefix), then the next one (back to steady)."""
    bodies = {str(i): m for i, m in enumerate(base)}
    figures: dict[str, float] = {}
    for n, share in enumerate(COMPACTIONS):
        name = f"compaction-{n}"
        tokens = client.ask("assemble", session=name, keys=keys, bodies=bodies, budget=1_000_000)["tokens"]
        budget = int(tokens * share)
        started = time.perf_counter()
        result = client.ask("assemble", session=name, keys=keys, bodies={}, budget=budget)
        crossing = time.perf_counter() - started
        if not result["cutNow"]:
            raise RuntimeError(f"a budget of {budget} tokens over {tokens} kept cut nothing: no compaction point timed")
        started = time.perf_counter()
        client.ask("assemble", session=name, keys=keys, bodies={}, budget=budget)
        figures[f"engine_compaction_{n}_ms"] = round(crossing * 1000, 1)
        figures[f"engine_compaction_{n}_next_ms"] = round((time.perf_counter() - started) * 1000, 2)
        figures[f"engine_compaction_{n}_cut"] = result["cutNow"]
        figures[f"engine_compaction_{n}_evicted"] = result["evicted"]
    return figures


def measure(apollo: str, scratch: Path, env: dict[str, str], seed: int) -> dict[str, float]:
    """The engine's figures in milliseconds and megabytes."""
    import shutil

    state = scratch / "engine-state"
    shutil.rmtree(state, ignore_errors=True)
    messages = session(MESSAGES + TURNS * 4, seed)
    base, extra = messages[:MESSAGES], messages[MESSAGES:]
    keys = [f"k{n}" for n in range(len(messages))]
    client = Client(apollo, state, env)
    try:
        started = time.perf_counter()
        client.ask("assemble", session="bench", keys=keys[:MESSAGES], bodies={str(i): m for i, m in enumerate(base)},
                   budget=1_000_000)
        backfill = time.perf_counter() - started
        timings = []
        for _ in range(ASSEMBLES):
            started = time.perf_counter()
            client.ask("assemble", session="bench", keys=keys[:MESSAGES], bodies={}, budget=1_000_000)
            timings.append(time.perf_counter() - started)
        started = time.perf_counter()
        for turn in range(TURNS):
            first = MESSAGES + turn * 4
            client.ask("commit", session="bench", turn=f"t{turn}", keys=keys[first:first + 4],
                       bodies={str(i): m for i, m in enumerate(extra[turn * 4:turn * 4 + 4])})
        committing = time.perf_counter() - started
        rss = client.peak_rss_mb()  # before the compaction points: they hold copies of the session
        compactions = _compaction_points(client, base, keys[:MESSAGES])
    finally:
        client.close()
    return {**compactions, "engine_assemble_p50_ms": round(_percentile(timings, 0.5) * 1000, 2),
            "engine_assemble_p99_ms": round(_percentile(timings, 0.99) * 1000, 2),
            "engine_commit_per_message_ms": round(committing / (TURNS * 4) * 1000, 3),
            "engine_peak_rss_mb": round(rss, 1),
            "engine_backfill_seconds": round(backfill, 2)}
