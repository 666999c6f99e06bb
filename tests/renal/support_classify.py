"""Building transcripts for the classifier's tests: elements as the readers produce them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from apollo import transcript
from apollo.renal.classify import Verdict, classify
from apollo.tokens import estimate
from apollo.transcript.model import Element, Kind, Role

_ROLES = {"user": Role.USER, "assistant": Role.ASSISTANT, "tool": Role.TOOL, "system": Role.SYSTEM}


def element(element_id: str, role: str, text: str, kind: Kind = Kind.TEXT, **fields: object) -> Element:
    return Element(id=element_id, role=_ROLES[role], kind=kind, text=text, tokens=estimate(text), **fields)


def exec_step(call_id: str) -> tuple[Element, Element]:
    """One exec tool call of the agent's and its result, ids c<call_id> and r<call_id>: the agent worked this turn."""
    return (element(f"c{call_id}", "assistant", f'{{"command":"step {call_id}"}}', Kind.TOOL_CALL, call_id=call_id,
                    tool_name="exec"),
            element(f"r{call_id}", "tool", f"ok {call_id}", Kind.TOOL_RESULT, call_id=call_id, tool_name="exec"))


def conversation(*turns: tuple[str, str] | Element) -> list[Element]:
    """Turns as (role, text) pairs or ready elements; ids m1, m2, … in order."""
    out = []
    for index, turn in enumerate(turns, 1):
        if isinstance(turn, Element):
            turn.index = index - 1
            out.append(turn)
        else:
            role, text = turn
            out.append(element(f"m{index}", role, text, index=index - 1))
    return out


def verdicts(*turns: tuple[str, str] | Element, config: object | None = None) -> dict[str, Verdict]:
    return {v.id: v for v in classify(conversation(*turns), config)}


def reply_to_offer(said: str) -> Verdict:
    """The verdict on ``said`` as the user's reply to the agent's opening offer of help."""
    return verdicts(("assistant", "Hi, what can I do?"), ("user", said))["m2"]


def session_verdicts(session: Any, tmp_path: Path) -> dict[str, Verdict]:
    """Every verdict of a PiSession written to a real session file and read back by the reader."""
    read = transcript.read(session.write(tmp_path / "s.jsonl"))
    return {v.id: v for v in classify(read.elements)}
