"""Second adversarial pass: a task state nested as deep as JSON allows, or deeper, fails closed
with a plain error (never an internal error), and a task found deep inside still protects."""

from __future__ import annotations

import json
import sys

import pytest

from apollo.errors import ConfigError
from autophagy.support import Ws


def test_a_task_state_nested_beyond_the_parser_is_refused_plainly(ws: Ws) -> None:
    ws.put("x.tmp", "old")
    ws.put(".dream/task-state.json", "[" * 200_000 + "]" * 200_000)
    with pytest.raises(ConfigError, match="not valid JSON"):
        ws.small()
    assert (ws.workspace / "x.tmp").exists()


def test_a_task_deep_inside_the_state_still_protects(ws: Ws) -> None:
    ws.put("x.tmp", "old")
    ws.put("y.tmp", "old")
    depth = sys.getrecursionlimit() - 60  # what the JSON parser still reads
    text = '{"a":' * depth + json.dumps({"title": "deep", "status": "in_progress", "files": ["x.tmp"]}) + "}" * depth
    ws.put(".dream/task-state.json", text)
    result = ws.small()
    assert (ws.workspace / "x.tmp").exists() and not (ws.workspace / "y.tmp").exists(), result
