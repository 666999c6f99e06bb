"""Records for the modules an idle agent's heartbeat loads, which cannot afford ``dataclasses``.

Importing dataclasses (it loads inspect, ast, dis and tokenize) and generating a few classes cost
a process about as much as the interpreter's own start, on a path that runs every 30 minutes
(see "Imports" in docs/ARCHITECTURE.md). A class lists its fields in ``__slots__`` and writes its
``__init__``; :class:`Record` gives it what a dataclass would add: equality, a hash, a repr.
"""

from __future__ import annotations


class Record:
    __slots__: tuple[str, ...] = ()

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._fields() == other._fields()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({shown})"
