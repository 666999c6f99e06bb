"""apollo.records: Record gives the heartbeat's plain classes a dataclass's equality, hash and repr;
``slotted`` builds such classes from a dataclass-like body."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import pytest

from apollo.autophagy.fs import StatFingerprint
from apollo.config import Config
from apollo.records import Record, field, replace, slotted
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


@slotted()
class _Mutable:
    """A record written like a dataclass: required, defaulted, made per instance, hidden from repr."""

    name: str
    items: list[int] = field(default_factory=list)
    size: int = 3
    cache: dict[str, int] | None = field(default=None, repr=False)


@slotted(frozen=True)
class _Frozen:
    x: int
    y: tuple[int, ...] = ()


@slotted(eq=False)
class _Identity:
    x: int


def test_record_builds_init_defaults_and_repr_like_a_dataclass() -> None:
    first, second = _Mutable("a"), _Mutable("a")
    assert (first.name, first.items, first.size, first.cache) == ("a", [], 3, None)
    first.items.append(1)
    assert second.items == []  # a fresh list per instance
    assert _Mutable("b", [2], size=5, cache={"k": 1}).size == 5
    assert repr(_Mutable("a", [1])) == "_Mutable(name='a', items=[1], size=3)"
    assert _Mutable("a", [1]) == _Mutable("a", [1]) and _Mutable("a", [1]) != _Mutable("a", [1], cache={})
    with pytest.raises(TypeError):
        _Mutable()  # type: ignore[call-arg]  # a field without a default is required
    with pytest.raises(TypeError):
        hash(first)  # mutable and equal by fields: unhashable, as a dataclass
    with pytest.raises(AttributeError):
        first.stray = 1  # type: ignore[attr-defined]
    assert _Mutable.__doc__ and _Mutable.__init__.__qualname__ == "_Mutable.__init__"


def test_frozen_and_identity_records() -> None:
    point = _Frozen(1, (2,))
    with pytest.raises(AttributeError):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del point.y  # type: ignore[misc]
    assert hash(point) == hash(_Frozen(1, (2,))) and len({point, _Frozen(1, (2,)), _Frozen(2)}) == 2
    assert replace(point, x=5) == _Frozen(5, (2,)) and point.x == 1
    one = _Identity(1)
    assert one != _Identity(1) and {one: "v"}[one] == "v"


@pytest.mark.parametrize("value", [_Mutable("a", [1, 2], cache={"k": 1}), _Frozen(1, (2, 3)), _Frozen(4)])
def test_records_pickle_and_copy(value: object) -> None:
    # the check's resume state pickles the classifier's records; frozen ones set their slots past the guard
    assert pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)) == value
    assert copy.copy(value) == value and copy.deepcopy(value) == value


@pytest.mark.parametrize("body", ["class Shared:\n    items: list = []\n",
                                  "class Child(Exception):\n    code: int\n",
                                  "class Empty:\n    pass\n"])
def test_what_a_record_would_get_wrong_is_refused(body: str) -> None:
    """A shared mutable default, a base class the record would replace, no field at all."""
    scope: dict[str, object] = {}
    exec(body, scope)  # noqa: S102 - the class bodies above
    cls = next(v for k, v in scope.items() if isinstance(v, type))
    with pytest.raises(TypeError):
        slotted()(cls)



@slotted(frozen=True)
class _Pickled:
    x: int
    tags: tuple[str, ...] = ()
    seen: list[int] = field(default_factory=list)


def test_a_record_pickles_as_its_field_values_and_comes_back_equal() -> None:
    point = _Pickled(1, ("a",), [2, 3])
    assert pickle.loads(pickle.dumps(point)) == point == copy.deepcopy(point) == copy.copy(point)
    assert b"tags" not in pickle.dumps(point)  # the values, not a dictionary of the fields' names


def test_records_whose_init_source_is_the_same_share_its_code_but_not_their_defaults() -> None:
    """The compiled ``__init__`` is kept on disk by its source, which names the defaults but does not
    hold them: two classes with the same fields and other defaults each get their own."""

    @slotted()
    class Small:
        size: int = 1
        items: list[int] = field(default_factory=list)

    @slotted()
    class Large:
        size: int = 100
        items: list[int] = field(default_factory=lambda: [7])

    assert (Small().size, Small().items, Large().size, Large().items) == (1, [], 100, [7])
    assert Small.__init__.__code__.co_code == Large.__init__.__code__.co_code
