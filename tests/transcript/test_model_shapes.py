"""The JSON shapes of the transcript model live in the library (the CLI only prints them):
Element.to_dict, ReadWarning.to_dict, Transcript.totals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apollo import transcript
from apollo.tokens import get_counter

LINES = [
    {"id": "m1", "role": "user", "text": "We deploy with blue-green from now on.", "speaker": "Ana"},
    {"id": "m2", "role": "assistant", "text": "Noted: blue-green deployments, starting with the next release."},
    {"id": "m3", "role": "tool", "text": "exit 0"},
]


def _session(tmp_path: Path) -> Path:
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in LINES) + "not json\n", encoding="utf-8")
    return path


def test_totals_add_up_by_kind_and_by_role(tmp_path: Path) -> None:
    read = transcript.read(_session(tmp_path), "jsonl")
    totals = read.totals(get_counter("estimate")[1])
    assert totals["elements"] == len(read.elements) == 3
    assert totals["in_context"] == 3
    assert totals["tokens"] == totals["tokens_all"] == sum(e.tokens for e in read.elements) > 0
    assert sum(totals["by_kind"].values()) == sum(totals["by_role"].values()) == totals["tokens"]
    assert set(totals["by_role"]) == {"user", "assistant", "tool"}
    assert list(totals["by_role"].values()) == sorted(totals["by_role"].values(), reverse=True)
    assert totals["warnings"] == len(read.warnings) == 1
    assert totals["envelope_tokens"] == 0


def test_element_and_warning_dicts_are_plain_json(tmp_path: Path) -> None:
    read = transcript.read(_session(tmp_path), "jsonl")
    shown = [e.to_dict() for e in read.elements]
    assert json.loads(json.dumps(shown)) == shown
    assert [(d["id"], d["role"], d["text"]) for d in shown] == [(x["id"], x["role"], x["text"]) for x in LINES]
    assert shown[0]["speaker"] == "Ana" and shown[0]["index"] == read.elements[0].index
    warning = read.warnings[0].to_dict()
    assert warning["file"] == str(tmp_path / "chat.jsonl") and warning["line"] == 4 and warning["message"]


def test_a_deferred_element_is_built_when_a_field_is_first_read_keeping_what_was_set_before() -> None:
    from apollo.transcript.model import Element, Kind, Role, deferred, fill_from, is_deferred

    built: list[int] = []

    def fill(element: Element) -> None:
        built.append(1)
        fill_from(element, Element("m1", Role.USER, Kind.TEXT, "We deploy on Mondays.", tokens=7, line=3))

    element = deferred(fill)
    assert is_deferred(element) and not built
    element.tokens = 9  # set before any read: kept
    assert element.text == "We deploy on Mondays." and element.line == 3 and element.tokens == 9
    assert element.id == "m1" and element.extra == {}
    assert built == [1] and not is_deferred(element)
    assert element == Element("m1", Role.USER, Kind.TEXT, "We deploy on Mondays.", tokens=9, line=3)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        element.nothing  # noqa: B018 - a name that is no field is still an AttributeError
