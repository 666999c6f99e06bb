"""Which changes the agent made stay as messages in a compact copy (compaction.unsaid_changes): only
those of a turn it answered with no word, only before the tail, and never a call without its result."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from apollo.renal.compaction import unsaid_changes
from apollo.renal.fates import Fate
from apollo.transcript.model import Element, Kind, Role

_CHANGING = frozenset({"newText", "content"})
#: one step of a turn: the agent's words, a change (an edit, a file written), or a look (a read)
_STEP = st.sampled_from(["words", "edit", "write", "read", "thinking"])


def _session(turns: list[tuple[bool, list[str]]]) -> list[Fate]:
    """Fates of a session: each turn a user message (dropped as noise or not) and the agent's steps,
    a tool call in one record with its thinking, its result in the next."""
    fates: list[Fate] = []
    for number, (noise, steps) in enumerate(turns):
        user = Element(f"u{number}", Role.USER, Kind.TEXT, "Please update the config.", record_id=f"u{number}")
        fates.append(Fate(user, "process", action="drop" if noise else "keep"))
        for step_no, step in enumerate(steps):
            record = f"a{number}.{step_no}"
            if step in ("words", "thinking"):
                kind = Kind.TEXT if step == "words" else Kind.THINKING
                fates.append(Fate(Element(record, Role.ASSISTANT, kind, "Done.", record_id=record), "process"))
                continue
            arguments = {"edit": {"path": "/srv/a.json", "newText": "{}"}, "write": {"path": "/srv/b", "content": "x"},
                         "read": {"path": "/srv/a.json"}}[step]
            call_id = f"c{number}.{step_no}"
            fates.append(Fate(Element(record + ":t", Role.ASSISTANT, Kind.THINKING, "Now.", record_id=record), "process"))
            fates.append(Fate(Element(record, Role.ASSISTANT, Kind.TOOL_CALL, json.dumps(arguments), record_id=record,
                                      call_id=call_id, tool_name=step), "process"))
            fates.append(Fate(Element("r" + record, Role.TOOL, Kind.TOOL_RESULT, "ok", record_id="r" + record,
                                      call_id=call_id), "process"))
    return fates


def test_an_edit_in_a_turn_without_words_stays_with_its_result_and_one_reported_in_words_does_not() -> None:
    fates = _session([(False, ["read", "edit"]), (False, ["edit", "words"]), (False, ["words"])])
    assert unsaid_changes(fates, len(fates), _CHANGING) == {"a0.1", "ra0.1"}


@given(st.lists(st.tuples(st.booleans(), st.lists(_STEP, max_size=5)), max_size=6), st.integers(0, 60))
def test_only_unsaid_changes_before_the_tail_each_with_its_result(turns: list, cut: int) -> None:
    fates = _session(turns)
    start = min(cut, len(fates))
    chosen = unsaid_changes(fates, start, _CHANGING)
    by_record = {f.element.record_id: f for f in fates if f.element.kind is not Kind.THINKING}
    calls = {f.element.call_id: f.element.record_id for f in fates if f.element.kind is Kind.TOOL_CALL}
    results = {f.element.call_id: f.element.record_id for f in fates if f.element.kind is Kind.TOOL_RESULT}
    for record in chosen:
        element = by_record[record].element
        assert element.kind in (Kind.TOOL_CALL, Kind.TOOL_RESULT)
        partner = results if element.kind is Kind.TOOL_CALL else calls
        assert partner[element.call_id] in chosen  # never a call without its result, nor a result without its call
        if element.kind is Kind.TOOL_CALL:
            assert fates.index(by_record[record]) < start and json.loads(element.text).keys() & _CHANGING
            number = int(record[1:].split(".")[0])
            noise, steps = turns[number]
            assert not noise and "words" not in steps
