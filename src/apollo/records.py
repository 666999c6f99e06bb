"""Records for the modules a heartbeat loads, which cannot afford ``dataclasses``.

Importing dataclasses (it loads inspect, ast, dis and tokenize) and generating a class's methods
with it cost a process about as much as the interpreter's own start, on a path that runs every
30 minutes (see "Imports" in docs/ARCHITECTURE.md). :class:`Record` gives a class that lists its
fields in ``__slots__`` what a dataclass would add: equality, a hash, a repr. :func:`slotted` turns
a class written like a dataclass (annotated fields, defaults, :func:`field`) into such a class,
generating only its ``__init__`` (at the class's first instance, from code kept on disk).
"""

from __future__ import annotations

import operator

from apollo.cache import DiskMemo

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    _T = TypeVar("_T")
else:
    def dataclass_transform(**_options):
        return lambda function: function


class Record:
    __slots__: tuple[str, ...] = ()
    #: fields the repr leaves out (``field(repr=False)``)
    _unshown: tuple[str, ...] = ()

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._fields() == other._fields()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__ if name not in self._unshown)
        return f"{type(self).__name__}({shown})"


_MISSING = object()


class Field:
    """A field's default when it is not a plain value (:func:`field`)."""

    __slots__ = ("default", "default_factory", "repr")

    def __init__(self, default: Any, default_factory: Callable[[], Any] | None, repr: bool):  # noqa: A002
        self.default = default
        self.default_factory = default_factory
        self.repr = repr


def field(*, default: Any = _MISSING, default_factory: Callable[[], Any] | None = None, repr: bool = True) -> Any:  # noqa: A002
    """A field with a default made per instance (``default_factory``), or left out of the repr."""
    return Field(default, default_factory, repr)


@dataclass_transform(field_specifiers=(field,))
def slotted(*, frozen: bool = False, eq: bool = True) -> Callable[[type[_T]], type[_T]]:
    """Make the decorated class a :class:`Record`: its annotated fields become its ``__slots__``,
    in order, and its ``__init__`` takes them as a dataclass's would. ``frozen``: no field can be
    set after ``__init__`` (and the record hashes by its fields); ``eq=False``: equal and hashed by
    identity; otherwise equal by fields and, being mutable, unhashable."""
    return lambda cls: _build(cls, frozen=frozen, eq=eq)  # type: ignore[return-value]


def _build(cls: type, *, frozen: bool, eq: bool) -> type:
    """Refuses what a dataclass would refuse, or what this class would silently get wrong: a
    shared mutable default, base classes (the record replaces them), annotations it cannot see."""
    names = tuple(cls.__dict__.get("__annotations__", {}))
    defaults = {name: cls.__dict__[name] for name in names if name in cls.__dict__}
    if cls.__bases__ != (object,):
        raise TypeError(f"{cls.__qualname__}: a slotted record has no base class")
    if not names:
        raise TypeError(f"{cls.__qualname__}: a slotted record needs annotated fields")
    for name, default in defaults.items():
        if isinstance(default, (list, dict, set)):
            raise TypeError(f"{cls.__qualname__}.{name}: a mutable default is shared; use field(default_factory=...)")
    namespace = {key: value for key, value in cls.__dict__.items()
                 if key not in defaults and key not in ("__dict__", "__weakref__")}
    namespace.update(__slots__=names, __qualname__=cls.__qualname__,
                     _unshown=tuple(n for n, d in defaults.items() if isinstance(d, Field) and not d.repr))
    if not eq:
        namespace.update(__eq__=object.__eq__, __hash__=object.__hash__)
    elif not frozen:
        namespace["__hash__"] = None
    if frozen:
        namespace.update(__setattr__=_refuse, __delattr__=_refuse, __setstate__=_set_state)
    namespace["_fields"] = _fields_of(names)
    if "__getstate__" not in namespace:  # a class that says what it keeps is pickled by it
        namespace["__reduce_ex__"] = _reduce_to_fields
    built = type(cls)(cls.__name__, (Record,), namespace)
    built.__init__ = _first_init(built, names, defaults, frozen)  # type: ignore[misc]
    return built


def _fields_of(names: tuple[str, ...]) -> Callable[[Any], tuple[object, ...]]:
    """A record's field values, in order, read by one ``operator.attrgetter``: a saved check of a
    long session pickles thousands of records by them (a generator over the slots took 1 µs each)."""
    get = operator.attrgetter(*names)
    if len(names) == 1:
        def _fields(self: Any) -> tuple[object, ...]:
            return (get(self),)
    else:
        def _fields(self: Any) -> tuple[object, ...]:
            return get(self)  # type: ignore[no-any-return]
    return _fields


def _first_init(cls: type, names: tuple[str, ...], defaults: dict[str, Any], frozen: bool) -> Callable[..., None]:
    """An ``__init__`` that compiles the real one on the class's first instance: compiling them all
    costs a heartbeat several milliseconds, and it makes instances of fewer than half of them."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if cls.__dict__["__init__"] is __init__:
            cls.__init__ = _init(cls, names, defaults, frozen)  # type: ignore[misc]
        cls.__dict__["__init__"](self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _init(cls: type, names: tuple[str, ...], defaults: dict[str, Any], frozen: bool) -> Callable[..., None]:
    """The ``__init__`` of ``cls``, compiled once, as fast per instance as a dataclass's."""
    scope: dict[str, Any] = {"_set": object.__setattr__, "_FACTORY": _MISSING}
    params, body = [], []
    for name in names:
        default = defaults.get(name, _MISSING)
        spec = default if isinstance(default, Field) else Field(default, None, True)
        value = name
        if spec.default_factory is not None:
            scope[f"_factory_{name}"] = spec.default_factory
            params.append(f"{name}=_FACTORY")
            value = f"_factory_{name}() if {name} is _FACTORY else {name}"
        elif spec.default is not _MISSING:
            scope[f"_default_{name}"] = spec.default
            params.append(f"{name}=_default_{name}")
        else:
            params.append(name)
        body.append(f"_set(self, {name!r}, {value})" if frozen else f"self.{name} = {value}")
    source = f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(body or ["pass"])
    exec(_init_code(source), scope)  # noqa: S102 - the source is built above from the class's own field names
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _compile_init(source: str) -> Any:
    return compile(source, "<record __init__>", "exec")


#: the compiled ``__init__`` sources: compiling those of the record classes a heartbeat meets
#: costs it about 2 ms, so the code is kept on disk
_init_code = DiskMemo("record-init", _compile_init, max_entries=256)


def _reduce_to_fields(self: Record, _protocol: int) -> tuple[type, tuple[object, ...]]:
    """Pickled as its class and its field values, in order: no dictionary of the fields' names for
    each of the thousands of records a resume state holds (each item a call of its pickler's hook)."""
    return type(self), self._fields()


def _refuse(self: Record, name: str, *_value: Any) -> None:
    raise AttributeError(f"cannot change field {name!r} of a frozen {type(self).__name__}")


def _set_state(self: Record, state: tuple[Any, dict[str, Any]]) -> None:
    """Unpickling and copying a frozen record set its slots past :func:`_refuse`."""
    for name, value in state[1].items():
        object.__setattr__(self, name, value)


def field_names(cls: type) -> tuple[str, ...]:
    """A :func:`slotted` class's fields, in order (type checkers see the class as written)."""
    names: tuple[str, ...] = cls.__slots__  # type: ignore[attr-defined]
    return names


def replace(obj: _T, **changes: Any) -> _T:
    """A copy of the record ``obj`` with ``changes`` (as ``dataclasses.replace``)."""
    values = {name: getattr(obj, name) for name in field_names(type(obj))}
    values.update(changes)
    return type(obj)(**values)
