"""Labeled agent sessions for the filter's quality tests (tests/renal/fixtures/filter/*.json).

Each fixture is a list of turns (user text, agent text, tool call + output, heartbeat) with
labels: ``decision``/``preference``/``task``/``question``/``fact`` name a ``substance`` that must
survive verbatim, ``noise`` must go, ``superseded`` may go. ``build`` turns one into a real
OpenClaw session file (as pi-coding-agent writes it) and returns the element id of each label.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from realclient.support import PiSession

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "filter"
MUST_KEEP = ("decision", "preference", "task", "question", "fact")


@dataclass
class Labeled:
    path: Path
    spec: dict[str, Any]
    #: label -> [(element ids, substance)]
    labels: dict[str, list[tuple[list[str], str]]] = field(default_factory=dict)


def fixture_names() -> list[str]:
    return sorted(p.stem for p in FIXTURES.glob("*.json"))


def _output(spec: Any) -> str:
    if isinstance(spec, str):
        return spec
    return "\n".join(spec["repeat"].format(i=i) for i in range(spec["times"]))


def build(name: str, folder: Path) -> Labeled:
    spec = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    session = PiSession()
    labeled = Labeled(folder / f"{name}.jsonl", spec)
    for number, turn in enumerate(spec["turns"]):
        if "user" in turn:
            ids = [session.user(turn["user"])]
        elif "say" in turn:
            ids = [session.say(turn["say"])]
        elif "heartbeat" in turn:
            ids = list(session.heartbeat(turn["heartbeat"]))
        else:
            tool = turn["tool"]
            call, result = session.tool(f"call_{number}", tool["name"], tool["args"], _output(tool["output"]),
                                        think=turn.get("think"))
            ids = [call, result]
        if "label" in turn:
            labeled.labels.setdefault(turn["label"], []).append((ids, turn.get("substance", "")))
    session.write(labeled.path)
    return labeled
