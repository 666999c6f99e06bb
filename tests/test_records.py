"""apollo.records.Record gives the heartbeat's plain classes a dataclass's equality, hash and repr."""

from __future__ import annotations

from pathlib import Path

import pytest

from apollo.autophagy.fs import StatFingerprint
from apollo.config import Config
from apollo.records import Record
from apollo.workspace import Paths


class Point(Record):
    __slots__ = ("x", "y")

    def __init__(self, x: int, y: int):
        self.x = x
        self.y = y


class Other(Record):
    __slots__ = ("x", "y")

    def __init__(self, x: int, y: int):
        self.x = x
        self.y = y


def test_equal_by_fields_and_type() -> None:
    assert Point(1, 2) == Point(1, 2)
    assert Point(1, 2) != Point(2, 1)
    assert Point(1, 2) != Other(1, 2)  # same fields, another kind of record
    assert Point(1, 2) != (1, 2)
    assert len({Point(1, 2), Point(1, 2), Point(3, 4)}) == 2
    assert repr(Point(1, "a")) == "Point(x=1, y='a')"  # type: ignore[arg-type]


def test_the_heartbeats_records_behave_as_the_dataclasses_they_replace() -> None:
    assert Paths(Path("/w"), Path("/s")) == Paths(Path("/w"), Path("/s"), "main")
    assert Paths(Path("/w"), Path("/s")).sessions_dir == Path("/s/agents/main/sessions")
    assert StatFingerprint(1, 2, 3, 4, 5) == StatFingerprint.from_list([1, 2, 3, 4, 5])
    assert StatFingerprint(1, 2, 3, 4, 5) != StatFingerprint(1, 2, 3, 5, 5)
    assert Config({"a": 1}) == Config({"a": 1}, {})
    with pytest.raises(TypeError):
        hash(Config({}))  # its values change: never a dictionary key
    with pytest.raises(AttributeError):
        Paths(Path("/w"), Path("/s")).extra = 1  # type: ignore[attr-defined]  # slots: no stray attributes
