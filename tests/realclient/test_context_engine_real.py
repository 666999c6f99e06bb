"""Apollo's context engine on real OpenClaw sessions of real users (issue 15's proof).

The labelled real sessions of ``shared/eval/real`` (never committed) are imported into the real
OpenClaw 2026.9.6 with its own ``doctor --session-sqlite import``, and one turn runs with Apollo's
engine against a model faked on 127.0.0.1. The request the model receives carries every labelled
must-keep entry (its text, in the messages or in Apollo's standing context), never a tool call
without its result, and OpenClaw never bypasses the engine. Without the sessions or their mirrors
the module is skipped: the labels name entries of files only a fetch brings. The sessions are
``$APOLLO_REAL_SESSIONS`` (the folder ``fetch_sessions.py`` filled); without it the test runs that
script itself into a temporary folder, which works wherever the repositories' git mirrors are
(``$APOLLO_MIRRORS``, or the ``.mirror`` folder above the checkout where ``fetch`` leaves them).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from apollo.integration.engine import message_text, recall_from
from apollo.integration.engine_store import Store, default_path
from apollo.renal import concentrate
from realclient.engine_support import FakeModel, Rig, text_of, tool_pairs, wait_gone
from realclient.support import legacy_state_dir

pytestmark = [pytest.mark.realclient, pytest.mark.slow, pytest.mark.xdist_group("openclaw-engine-real")]

LABELS = Path(__file__).resolve().parents[3] / "shared" / "eval" / "real"
NAMES = sorted(p.name.removesuffix(".labels.json") for p in LABELS.glob("*.labels.json"))
DEGRADED = 'Context engine "apollo-renal" degraded'
QUESTION = "What have we decided so far, and what is still open?"


def _words(text: str) -> Counter[str]:
    """Latin words and single CJK characters, lowercased: the words a reader would look for."""
    return Counter(re.findall(r"[a-z0-9]+|[\u3400-\u9fff]", text.lower()))


def _spoken(message: dict[str, Any]) -> str:
    """What an entry says to the model: its text and its tool calls (thinking never reaches it)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if block.get("type") == "text":
            parts.append(block.get("text", ""))
        elif block.get("type") == "toolCall":
            parts.append(block.get("name", "") + " " + json.dumps(block.get("arguments", {}), ensure_ascii=False))
    return "\n".join(parts)


def _sent(request: dict[str, Any]) -> str:
    """Everything the model received: messages, Apollo's standing context, tool calls."""
    parts = [text_of(m) for m in request["messages"]]
    parts += [c["function"]["name"] + " " + c["function"]["arguments"]
              for m in request["messages"] for c in m.get("tool_calls") or []]
    return "\n".join(parts)


def _covered(need: Counter[str], have: Counter[str]) -> float:
    """The share of ``need``'s words in ``have`` (as ``shared/eval/real/score.py`` judges a kept entry)."""
    total = sum(need.values())
    return 1.0 if total == 0 else sum(min(n, have[w]) for w, n in need.items()) / total


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _entries(source: Path) -> dict[str, dict[str, Any]]:
    entries = {}
    for line in source.read_text(encoding="utf-8").splitlines():
        if line.strip():
            entry = json.loads(line)
            entries[entry.get("id")] = entry
    return entries


def _labels(name: str) -> dict[str, Any]:
    return json.loads((LABELS / f"{name}.labels.json").read_text())


@pytest.fixture(scope="session")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fetched sessions: ``$APOLLO_REAL_SESSIONS``, else extracted here from the git mirrors."""
    given = os.environ.get("APOLLO_REAL_SESSIONS")
    if given:
        return Path(given)
    out = tmp_path_factory.mktemp("real-sessions")
    # The script prints which mirror is missing and exits non-zero; the sessions it did extract still count.
    subprocess.run([sys.executable, str(LABELS / "fetch_sessions.py"), str(out)], capture_output=True, check=False)
    return out


@pytest.fixture(scope="module", params=NAMES)
def real_turn(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, openclaw_cli,
              sessions: Path) -> dict[str, Any]:
    name = request.param
    source = sessions / f"{name}.jsonl"
    if not source.is_file():
        pytest.skip(f"the real session {name} is neither fetched (APOLLO_REAL_SESSIONS) nor in a git mirror")
    root = tmp_path_factory.mktemp(name)
    session_id = json.loads(source.read_text(encoding="utf-8").splitlines()[0])["id"]
    legacy_state_dir(root, {session_id: source})
    model = FakeModel({})
    # what reaches the model is judged here, not how fast: on a loaded machine (CI beside other work) the first
    # assemble of a 190k-token session, its backfill, took longer than the default 5 s and the turn failed open;
    # failing open has its own tests (test_context_engine.py)
    rig = Rig(root, openclaw_cli, model, apollo=True, timeout_ms=60_000)
    openclaw_cli.import_legacy(rig.state)
    done = rig.turn(QUESTION, session_key="agent:main:s0")
    (root / "requests.json").write_text(json.dumps(model.requests))  # to read when a test fails
    yield {"name": name, "source": source, "done": done, "requests": [r for r in model.requests if "messages" in r],
           "leftovers": wait_gone(rig.state), "state": rig.state, "session": session_id}
    model.close()


def test_every_labelled_must_keep_entry_reaches_the_model(real_turn: dict[str, Any]) -> None:
    name = real_turn["name"]
    have = _words(_sent(real_turn["requests"][-1]))
    entries = _entries(real_turn["source"])
    missing = [item["id"] for item in _labels(name)["must_keep"]
               if _covered(_words(_spoken(entries[item["id"]].get("message") or {})), have) < 0.8]
    assert missing == [], f"{name}: must-keep entries not in the request: {missing}"


def test_tool_calls_keep_their_results_and_the_engine_is_never_bypassed(real_turn: dict[str, Any]) -> None:
    out = real_turn["done"].stdout + real_turn["done"].stderr
    assert DEGRADED not in out and "[apollo-renal]" not in out, out[-3000:]
    request = real_turn["requests"][-1]
    calls, results = tool_pairs(request)
    assert calls == results
    assert real_turn["leftovers"] == []


def test_an_output_a_compaction_point_cut_reaches_the_model_cut_and_comes_back_whole(real_turn: dict[str, Any]) -> None:
    """The sessions larger than the model's window meet a compaction point on their first turn: it cuts
    their old tool outputs and old calls' long arguments (``engine_cut``) before it evicts anything; the
    model gets each cut output's first line and each cut argument's head, with the way back, and recall
    gives the message back byte for byte."""
    store = Store(default_path(real_turn["state"]))
    try:
        session = real_turn["session"]  # (OpenClaw may run internal sessions through the engine too)
        rows = [r for r in store.messages(session) if r.cut and not r.evicted]
        recalled = {r.seq: recall_from(store, session, ident=f"m{r.seq}") for r in rows}
    finally:
        store.close()
    messages = real_turn["requests"][-1]["messages"]
    tools = [text_of(m) for m in messages if m["role"] == "tool"]
    pointers = [concentrate.load().settings[f"tool_recall_{lang}"] for lang in ("en", "zh")]
    for seq, [found] in recalled.items():
        whole = message_text(found["message"])
        pointer = [p.format(id=f"m{seq}") for p in pointers]
        if found["role"] == "assistant":
            # the message that carries the way back (the model's API may rename call ids): the agent's words and
            # its calls' names as they were, the arguments shorter
            [shown] = [m for m in messages if m["role"] == "assistant" and any(
                p in c["function"]["arguments"] for c in m.get("tool_calls") or [] for p in pointer)]
            made = [b for b in found["message"]["content"] if b.get("type") == "toolCall"]
            said = "".join(b["text"] for b in found["message"]["content"] if b.get("type") == "text")
            assert "".join(text_of(shown).split()) == "".join(said.split())  # (its API joins text blocks with a line break)
            assert [c["function"]["name"] for c in shown["tool_calls"]] == [b["name"] for b in made]
            assert sum(len(json.loads(c["function"]["arguments"])) for c in shown["tool_calls"]) == \
                sum(len(b["arguments"]) for b in made)  # every argument there, by name
            assert sum(len(_compact(json.loads(c["function"]["arguments"]))) for c in shown["tool_calls"]) < \
                sum(len(_compact(b["arguments"])) for b in made)
            continue
        [shown_output] = [t for t in tools if any(p in t for p in pointer)]
        assert len(shown_output) < len(whole)
        first = whole.split("\n", 1)[0]  # the head the filter keeps: the first line, unless blank
        assert shown_output.startswith(first[:200] if first.strip() else "[…")
